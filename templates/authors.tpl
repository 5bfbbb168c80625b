{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>Who wrote the code in {{REPO}}?</h1>
{{#HEADLINE}}
<p class="headline">{{NAME}} wrote the most of the code at {{REV}}: <strong>{{SHARE}}%</strong>{{#TOP}}; the top {{N_TOP}}, {{TOP_SHARE}}%{{/TOP}}.</p>
{{/HEADLINE}}
<p>Each line counts for the author of the commit that <code>git blame</code> gives it, named as <code>git shortlog</code> names them (after <code>.mailmap</code>): {{N_AUTHORS}} in all, of {{N_ORGS}}. Commits are those of {{REV}}’s history, as <code>git shortlog -s</code> counts them. An author’s organisation is {{#ORG_MAP}}what <code>{{FILE}}</code> maps their email address to, else{{/ORG_MAP}} the domain of their email address{{#NO_ORG_MAP}} when they made the commit{{/NO_ORG_MAP}}. No email address is shown.</p>

<section id="authors">
<h2>Lines by author</h2>
<div class="pair">
{{>AUTHORS_CHART}}
{{#AUTHORS}}
<div class="table-wrap">
<table>
<caption>{{#SOME}}The top {{N_SHOWN}} of {{N_ALL}}{{/SOME}}{{#EVERY}}All {{N_ALL}}{{/EVERY}} by lines at {{REV}}. <a href="data/authors.csv">authors.csv</a>{{#SOME}} has them all{{/SOME}}.</caption>
<thead><tr><th scope="col">Author</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th><th scope="col" class="num opt">Commits</th><th scope="col" class="num opt">Files</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num opt">{{COMMITS}}</td><td class="num opt">{{FILES}}</td></tr>
{{/ROW}}
{{#OTHERS}}
<tr class="others"><th scope="row">{{N}} more</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num opt">{{COMMITS}}</td><td class="num opt"></td></tr>
{{/OTHERS}}
</tbody>
<tfoot><tr><th scope="row">All</th><td class="num">{{LINES}}</td><td class="num">100.00%</td><td class="num opt">{{COMMITS}}</td><td class="num opt"></td></tr></tfoot>
</table>
</div>
{{/AUTHORS}}
</div>
</section>

<section id="organisations">
<h2>Lines by organisation</h2>
<div class="pair">
{{>ORGS_CHART}}
{{#ORGS}}
<div class="table-wrap">
<table>
<caption>{{#SOME}}The top {{N_SHOWN}} of {{N_ALL}}{{/SOME}}{{#EVERY}}All {{N_ALL}}{{/EVERY}} by lines at {{REV}}. <a href="data/orgs.csv">orgs.csv</a>{{#SOME}} has them all{{/SOME}}.</caption>
<thead><tr><th scope="col">Organisation</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th><th scope="col" class="num opt">Commits</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num opt">{{COMMITS}}</td></tr>
{{/ROW}}
{{#OTHERS}}
<tr class="others"><th scope="row">{{N}} more</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num opt">{{COMMITS}}</td></tr>
{{/OTHERS}}
</tbody>
<tfoot><tr><th scope="row">All</th><td class="num">{{LINES}}</td><td class="num">100.00%</td><td class="num opt">{{COMMITS}}</td></tr></tfoot>
</table>
</div>
{{/ORGS}}
</div>
</section>

<section id="subsystems">
<h2>Top authors by subsystem</h2>
<p>The {{N_PER_SUBSYSTEM}} with the most lines in each top-level directory, and their share of its lines.</p>
<div class="cards">
{{#SUBSYSTEM}}
<div class="table-wrap">
<table class="card">
<caption><a href="{{HREF}}">{{NAME}}</a>: {{N_LINES}} by {{N_AUTHORS}}</caption>
<thead><tr><th scope="col">Author</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/ROW}}
</tbody>
</table>
</div>
{{/SUBSYSTEM}}
</div>
</section>
{{>FOOTER}}
