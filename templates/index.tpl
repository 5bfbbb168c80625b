{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>How old is the code in {{REPO}}?</h1>
{{#HEADLINE}}
<p class="headline"><strong>{{FIRST_SHARE}}%</strong> of the code at {{REV}} dates back to {{FIRST}}.</p>
{{/HEADLINE}}
{{#NO_LINES}}
<p class="headline">{{REV}} has no lines of text to measure.</p>
{{/NO_LINES}}
<p>{{N_LINES}} of text in {{N_FILES}} at {{REV}} (commit <code>{{SHORT}}</code> of {{COMMIT_DATE}}), written over {{N_RELEASES}}.
{{#NEWEST}}The newest release, {{NAME}}, wrote {{SHARE}}% of them.{{/NEWEST}}
{{#UNRELEASED}}{{SHARE}}% ({{N_LINES}}) is newer than any release.{{/UNRELEASED}}
{{#UNTOUCHED}}Untouched since {{FIRST}}: <a href="untouched.html">{{N_FILES}}</a> ({{N_LINES}}).{{/UNTOUCHED}}</p>
{{#OVER_TIME}}
<p class="over-time">Over time: at {{MID}}, {{MID_SHARE}}% of the code dated back to {{FIRST}}; at {{LAST}}, {{LAST_SHARE}}%. <a href="history.html">The history, release by release</a>.</p>
{{/OVER_TIME}}

<section id="releases">
<h2>Lines by release</h2>
<div class="pair">
{{>RELEASES_CHART}}
<div class="table-wrap">
<table>
<caption>Lines at {{REV}} by the release that wrote them{{#SILENT}}; left out: <a href="releases.html#silent">{{N_RELEASES}} that wrote nothing {{REV}} holds</a>{{/SILENT}}. <a href="data/releases.csv">releases.csv</a></caption>
<thead><tr><th scope="col">Release</th><th scope="col">Dates</th><th scope="col" class="num opt">Commits</th><th scope="col" class="num">Lines today</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#RELEASE}}
<tr class="{{CLASS}}"><th scope="row"><a href="releases.html#{{ID}}">{{NAME}}</a>{{#TAGS}}<span class="tags">{{LIST}}</span>{{/TAGS}}</th><td class="date"><span class="nw">{{FROM}}{{#UNTIL}} –{{/UNTIL}}</span>{{#UNTIL}} <span class="nw">{{TO}}</span>{{/UNTIL}}</td><td class="num opt">{{COMMITS}}</td><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/RELEASE}}
</tbody>
<tfoot><tr><th scope="row">All</th><td></td><td class="num opt">{{COMMITS}}</td><td class="num">{{LINES}}</td><td class="num">100.00%</td></tr></tfoot>
</table>
</div>
</div>
</section>

<section id="subsystems">
<h2>Old code by subsystem</h2>
<p>The share of each top-level directory’s lines that {{FIRST}} wrote; “(root files)” are the files in the root directory.</p>
<div class="pair">
{{>SUBSYSTEMS_CHART}}
<div class="table-wrap">
<table>
<caption>Subsystems at {{REV}}. <a href="data/subsystems.csv">subsystems.csv</a></caption>
<thead><tr><th scope="col">Subsystem</th><th scope="col" class="num opt">Files</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Of the tree</th><th scope="col" class="num">From {{FIRST}}</th><th scope="col" class="num opt">Untouched files</th></tr></thead>
<tbody>
{{#SUBSYSTEM}}
<tr><th scope="row"><a href="{{HREF}}">{{NAME}}</a></th><td class="num opt">{{FILES}}</td><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num">{{FIRST_SHARE}}%</td><td class="num opt">{{UNTOUCHED}}</td></tr>
{{/SUBSYSTEM}}
</tbody>
<tfoot><tr><th scope="row">All</th><td class="num opt">{{FILES}}</td><td class="num">{{LINES}}</td><td class="num">100.00%</td><td class="num">{{FIRST_SHARE}}%</td><td class="num opt">{{UNTOUCHED_FILES}}</td></tr></tfoot>
</table>
</div>
</div>
{{>STACK_CHART}}
{{#STACK_TABLE}}
<p class="caption" id="stack-caption">Lines at {{REV}} by subsystem{{#TOP}} (the {{N_TOP}} with the most lines){{/TOP}} and by the release that wrote them, newest release first. <a href="data/subsystems.csv">subsystems.csv</a> has every release.</p>
<div class="table-wrap">
<table class="matrix" aria-describedby="stack-caption">
<thead><tr><th scope="col">Subsystem</th><th scope="col" class="num">Lines</th>{{#COL}}<th scope="col" class="num"><a href="releases.html#{{ID}}">{{NAME}}</a></th>{{/COL}}{{#OLDER}}<th scope="col" class="num">{{N_RELEASES}}</th>{{/OLDER}}</tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row"><a href="{{HREF}}">{{NAME}}</a></th><td class="num">{{LINES}}</td>{{#CELL}}<td class="num">{{LINES}}</td>{{/CELL}}</tr>
{{/ROW}}
{{#MORE}}
<tr class="more"><th scope="row">{{N_MORE}}</th><td class="num">{{LINES}}</td>{{#CELL}}<td class="num">{{LINES}}</td>{{/CELL}}</tr>
{{/MORE}}
</tbody>
<tfoot>{{#ALL}}<tr><th scope="row">All</th><td class="num">{{LINES}}</td>{{#CELL}}<td class="num">{{LINES}}</td>{{/CELL}}</tr>{{/ALL}}</tfoot>
</table>
</div>
{{/STACK_TABLE}}
</section>

{{#YEARS}}
<section id="years">
<h2>Lines by year</h2>
<p>{{#OLD}}<strong>{{SHARE}}%</strong> of the lines at {{REV}} were last changed before {{YEAR}}; half of all lines were last changed in {{MEDIAN}} or earlier (the median year).{{/OLD}}{{#NO_OLD}}Half of all lines at {{REV}} were last changed in {{MEDIAN}} or earlier (the median year).{{/NO_OLD}} A line’s year is that of the {{DATE}} date (UTC) of the commit <code>git blame</code> gives it.</p>
<div class="pair narrow">
{{>YEARS_CHART}}
<div class="table-wrap">
<table>
<caption>Lines at {{REV}} by the year they were last changed. <a href="data/years.csv">years.csv</a>, by subsystem <a href="data/years-subsystems.csv">years-subsystems.csv</a></caption>
<thead><tr><th scope="col">Year</th><th scope="col" class="num opt">Commits</th><th scope="col" class="num">Lines today</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#YEAR}}
<tr><th scope="row">{{NAME}}</th><td class="num opt">{{COMMITS}}</td><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/YEAR}}
</tbody>
</table>
</div>
</div>
</section>
{{/YEARS}}
{{#AUTHORS_DATA}}
<section id="people">
<h2>Authors and organisations</h2>
<p>Who wrote the lines at {{REV}}, and for which organisations: <a href="authors.html">authors and organisations</a>, overall and by subsystem.</p>
</section>
{{/AUTHORS_DATA}}

<section id="untouched">
<h2>Untouched files</h2>
<p>Untouched since {{FIRST}}: {{UNTOUCHED_FILES}} of {{N_FILES}} ({{UNTOUCHED_LINES}} of {{N_LINES}}), every line of them still from that release.
<a href="untouched.html">The list, by directory</a>; also as <a href="data/untouched.csv">untouched.csv</a>.</p>
</section>

<section id="data">
<h2>Data and charts</h2>
<ul class="files">
<li><a href="data/report.json">report.json</a>: everything in this report, with the parameters and timings</li>
<li><a href="data/releases.csv">releases.csv</a>: lines and share per release, with tags, dates and commits</li>
<li><a href="data/subsystems.csv">subsystems.csv</a>: lines per top-level directory and release</li>
<li><a href="data/files.csv">files.csv</a>: lines per file and release</li>
<li><a href="data/untouched.csv">untouched.csv</a>: files untouched since {{FIRST}}</li>
{{#HISTORY_DATA}}
<li><a href="data/history.csv">history.csv</a>: lines per release at each snapshot of the history</li>
<li><a href="data/history-subsystems.csv">history-subsystems.csv</a>: the same per top-level directory</li>
<li><a href="data/survival.csv">survival.csv</a>: each release's lines at its own snapshot and every later one</li>
{{/HISTORY_DATA}}
{{#YEARS_DATA}}
<li><a href="data/years.csv">years.csv</a>: lines and commits per calendar year</li>
<li><a href="data/years-subsystems.csv">years-subsystems.csv</a>: lines per top-level directory and year</li>
{{/YEARS_DATA}}
{{#AUTHORS_DATA}}
<li><a href="data/authors.csv">authors.csv</a>: lines, commits and files per author</li>
<li><a href="data/orgs.csv">orgs.csv</a>: lines and commits per organisation</li>
{{/AUTHORS_DATA}}
</ul>
<div class="table-wrap">
<table class="charts">
<caption>Charts, for articles and print</caption>
<thead><tr><th scope="col">Chart</th><th scope="col">Files</th></tr></thead>
<tbody>
{{#CHART}}
<tr><th scope="row">{{TITLE}}</th><td><a href="{{SVG}}">SVG</a> · <a href="{{PNG}}">PNG</a> · <a href="{{PNG2X}}">PNG at 2×</a></td></tr>
{{/CHART}}
</tbody>
</table>
</div>
</section>
{{>FOOTER}}
