{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>The release cycle that made {{REV}}</h1>
{{#SAME}}
<p class="headline">The cycle {{SINCE}}..{{REV}} is empty: {{SINCE}} is {{REV}}’s own commit. Give <code>--since</code> an earlier revision.</p>
{{/SAME}}
{{#NO_START}}
<p class="headline">No release cycle to show: no release before {{REV}}’s has its tag in {{REV}}’s history. <code>--since REV0</code> names a start.</p>
{{/NO_START}}
{{#OK}}
<p class="headline">{{SINCE}}..{{REV}}: <strong>{{N_CHANGESETS}}</strong>{{#PEOPLE}} by {{N_DEVELOPERS}} of {{N_ORGS}}{{/PEOPLE}}, {{ADDED}} lines added and {{REMOVED}} removed. It replaced <strong>{{REPLACED_SHARE}}%</strong> of the code {{#AT_SINCE}}at {{SINCE}}{{/AT_SINCE}}{{#AT_FORK}}where {{SINCE}}’s branch left {{REV}}’s history{{/AT_FORK}}{{#OLDEST}}; {{SHARE}}% of what it replaced dated back to {{NAME}}{{/OLDEST}}.</p>
<p>The cycle runs from {{SINCE}} ({{SINCE_DATE}}) to {{REV}}{{#FORK}}; {{REV}} does not contain {{SINCE}}, whose branch left its history at <code class="hash">{{HASH}}</code>, where the lines of {{SINCE}} are counted{{/FORK}}: the commits <code>git log {{SINCE}}..{{REV}}</code> lists, of which the {{N_CHANGESETS}} that are not merges count ({{N_MERGES}} merges left out). Their lines are those <code>git log --numstat</code> shows against each commit’s parent, renames detected as git log detects them; binary files are left out ({{N_BINARY}} file changes). Authors are named after {{REV}}’s <code>.mailmap</code>, as <code>git shortlog</code> names them; an author’s organisation is found as on the authors’ page.</p>

{{#PEOPLE}}
<section id="developers">
<h2>Developers</h2>
{{>AUTHORS_CHART}}
{{>AUTHORS_LINES_CHART}}
{{#AUTHORS}}
<div class="table-wrap">
<table>
<caption>{{#SOME}}The top {{N_SHOWN}} of {{N_ALL}}{{/SOME}}{{#EVERY}}All {{N_ALL}}{{/EVERY}} by changesets. <a href="data/cycle-authors.csv">cycle-authors.csv</a>{{#SOME}} has them all{{/SOME}}.</caption>
<thead><tr><th scope="col">Developer</th><th scope="col" class="num">Changesets</th><th scope="col" class="num">Share</th><th scope="col" class="num">Added</th><th scope="col" class="num">Removed</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{CHANGESETS}}</td><td class="num">{{SHARE}}%</td><td class="num">{{ADDED}}</td><td class="num">{{REMOVED}}</td></tr>
{{/ROW}}
{{#OTHERS}}
<tr class="others"><th scope="row">{{N}} more</th><td class="num">{{CHANGESETS}}</td><td class="num">{{SHARE}}%</td><td class="num">{{ADDED}}</td><td class="num">{{REMOVED}}</td></tr>
{{/OTHERS}}
</tbody>
</table>
</div>
{{/AUTHORS}}
</section>

<section id="organisations">
<h2>Organisations</h2>
{{>ORGS_CHART}}
{{>ORGS_LINES_CHART}}
{{#ORGS}}
<div class="table-wrap">
<table>
<caption>{{#SOME}}The top {{N_SHOWN}} of {{N_ALL}}{{/SOME}}{{#EVERY}}All {{N_ALL}}{{/EVERY}} by changesets. <a href="data/cycle-orgs.csv">cycle-orgs.csv</a>{{#SOME}} has them all{{/SOME}}.</caption>
<thead><tr><th scope="col">Organisation</th><th scope="col" class="num">Changesets</th><th scope="col" class="num">Share</th><th scope="col" class="num">Added</th><th scope="col" class="num">Removed</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{CHANGESETS}}</td><td class="num">{{SHARE}}%</td><td class="num">{{ADDED}}</td><td class="num">{{REMOVED}}</td></tr>
{{/ROW}}
{{#OTHERS}}
<tr class="others"><th scope="row">{{N}} more</th><td class="num">{{CHANGESETS}}</td><td class="num">{{SHARE}}%</td><td class="num">{{ADDED}}</td><td class="num">{{REMOVED}}</td></tr>
{{/OTHERS}}
</tbody>
</table>
</div>
{{/ORGS}}
</section>

{{#CREDITS}}
<section id="credits">
<h2>Reviews, tests and reports</h2>
<p>The trailers of the cycle’s changesets, read as <code>git interpret-trailers</code> reads them; a <code>Signed-off-by</code> counts only when it is not the author’s own (its address, after <code>.mailmap</code>, is not the author’s). One person’s addresses are merged by <code>.mailmap</code>; <a href="data/cycle-trailers.csv">cycle-trailers.csv</a> has every value as written.</p>
<div class="table-wrap">
<table>
<caption>{{#SOME}}The top {{N_SHOWN}} of {{/SOME}}{{N_PEOPLE}} credited, by all their trailers.</caption>
<thead><tr><th scope="col">Person</th>{{#KIND}}<th scope="col" class="num">{{NAME}}</th>{{/KIND}}</tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th>{{#CELL}}<td class="num">{{N}}</td>{{/CELL}}</tr>
{{/ROW}}
</tbody>
<tfoot><tr><th scope="row">All</th>{{#KIND}}<td class="num">{{N}}</td>{{/KIND}}</tr></tfoot>
</table>
</div>
</section>
{{/CREDITS}}
{{/PEOPLE}}

<section id="replaced">
<h2>The code it replaced</h2>
<p>{{REPLACED}} of the {{LINES_SINCE}} lines at {{SINCE}} are gone at {{REV}}, changed or deleted ({{REPLACED_SHARE}}%). Each line is attributed as <code>git blame</code> attributes it at {{SINCE}}; a commit’s lines that are gone are its lines at {{SINCE}} less those it still has at {{REV}}, never fewer than none: the survival of the history page, counted over one cycle.</p>
<div class="pair">
{{>REPLACED_CHART}}
{{#BY_RELEASE}}
<div class="table-wrap">
<table>
<caption>By the release that wrote them. <a href="data/cycle-removed.csv">cycle-removed.csv</a></caption>
<thead><tr><th scope="col">Release</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row"><a href="releases.html#{{ID}}">{{NAME}}</a></th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/ROW}}
</tbody>
</table>
</div>
{{/BY_RELEASE}}
</div>
<div class="cards">
{{#BY_YEAR}}
<div class="table-wrap">
<table class="card">
<caption>By the year they were last changed</caption>
<thead><tr><th scope="col">Year</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/ROW}}
</tbody>
</table>
</div>
{{/BY_YEAR}}
{{#PEOPLE}}
{{#BY_AUTHOR}}
<div class="table-wrap">
<table class="card">
<caption>By the author who wrote them{{#MORE}}; {{N_MORE}} in cycle-removed.csv{{/MORE}}</caption>
<thead><tr><th scope="col">Author</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/ROW}}
</tbody>
</table>
</div>
{{/BY_AUTHOR}}
{{/PEOPLE}}
</div>
{{#ARRIVED}}
<p>The other way round: {{LINES}} lines at {{REV}} were not there at {{SINCE}} (per commit, its lines at {{REV}} less those it had at {{SINCE}}); {{OWN_SHARE}}% of them are {{OWN}}’s own commits, and {{OLDER}} older releases’ work that the cycle merged.</p>
{{/ARRIVED}}
</section>
{{/OK}}
{{>FOOTER}}
