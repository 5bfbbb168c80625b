{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<nav class="crumbs" aria-label="Directories">
<ol>
<li><a href="{{ROOT}}index.html">{{REPO}}</a></li>
{{#CRUMB}}
<li><a href="{{HREF}}">{{NAME}}</a></li>
{{/CRUMB}}
<li aria-current="page">{{NAME}}</li>
</ol>
</nav>
<h1>{{#ROOT_FILES}}Files in the root directory{{/ROOT_FILES}}{{#DIRECTORY}}<span class="path">{{PATH}}/</span>{{/DIRECTORY}}</h1>
<p class="headline">{{#HAS_LINES}}<strong>{{FIRST_SHARE}}%</strong> of its code dates back to {{FIRST}}.{{/HAS_LINES}}{{#NO_LINES}}No lines of text here.{{/NO_LINES}}</p>
<p>{{N_LINES}} in {{N_FILES}}, {{SHARE}}% of the tree at {{REV}}.
{{#UNTOUCHED}}Untouched since {{FIRST}}: <a href="#untouched">{{N_FILES}}</a> ({{N_LINES}}).{{/UNTOUCHED}}
{{#NONE_UNTOUCHED}}Every file has changed since {{FIRST}}.{{/NONE_UNTOUCHED}}
<a href="{{UP_HREF}}" rel="up">Up to {{UP_NAME}}</a>.</p>

<section id="releases">
<h2>Lines by release</h2>
<div class="pair narrow">
{{>CHART}}
<div class="table-wrap">
<table>
<caption>Lines here by the release that wrote them{{#SKIPPED}}; left out: {{N_RELEASES}} with no lines here{{/SKIPPED}}.</caption>
<thead><tr><th scope="col">Release</th><th scope="col" class="num">Lines today</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#RELEASE}}
<tr class="{{CLASS}}"><th scope="row"><a href="{{ROOT}}releases.html#{{ID}}">{{NAME}}</a></th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/RELEASE}}
</tbody>
<tfoot><tr><th scope="row">All</th><td class="num">{{LINES}}</td><td class="num">100.00%</td></tr></tfoot>
</table>
</div>
</div>
</section>

{{#HISTORY}}
<section id="history">
<h2>Over time</h2>
{{>HISTORY_CHART}}
<p>Every snapshot of the history, with the whole tree's, is on <a href="{{ROOT}}history.html">the history page</a>.</p>
</section>
{{/HISTORY}}

{{#COHORTS}}
<section id="cohorts">
<h2>When and by whom</h2>
<p>{{#OLD}}<strong>{{SHARE}}%</strong> of its lines were last changed before {{YEAR}}; half of all its lines were last changed in {{MEDIAN}} or earlier (the median year).{{/OLD}}{{#NO_OLD}}Half of all its lines were last changed in {{MEDIAN}} or earlier (the median year).{{/NO_OLD}} A line’s year is that of the {{DATE}} date (UTC) of the commit <code>git blame</code> gives it; every subsystem’s years are in <a href="{{ROOT}}data/years-subsystems.csv">years-subsystems.csv</a>.</p>
{{#SUBSYSTEM}}
<div class="cards">
<div class="table-wrap">
<table class="card">
<caption>Its authors by lines here ({{N_AUTHORS}}{{#TOP}}, the top {{N_TOP}} shown{{/TOP}}). <a href="{{ROOT}}authors.html#subsystems">All subsystems</a></caption>
<thead><tr><th scope="col">Author</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#ROW}}
<tr><th scope="row">{{NAME}}</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/ROW}}
</tbody>
</table>
</div>
</div>
{{/SUBSYSTEM}}
</section>
{{/COHORTS}}

{{#CONTENTS}}
<section id="contents">
<h2>What is in it</h2>
<div class="table-wrap">
<table class="contents">
<caption>{{#DIRS}}{{N_DIRS}}{{#AND}} and {{/AND}}{{/DIRS}}{{#FILES}}{{N_FILES}}{{/FILES}} {{#IN_DIR}}directly in {{PATH}}/{{/IN_DIR}}{{#IN_ROOT}}in the root directory{{/IN_ROOT}}; each bar is its lines, the darker part those from {{FIRST}}.</caption>
<thead><tr><th scope="col">Name</th><th scope="col" class="num opt">Files</th><th scope="col" class="num">Lines</th><th scope="col" class="num opt">Share</th><th scope="col" class="num">From {{FIRST}}</th><th scope="col" class="bar"><span class="sr">Lines and lines from {{FIRST}}</span></th></tr></thead>
<tbody>
{{#ENTRY}}
<tr class="{{KIND}}"><th scope="row" class="path">{{#LINK}}<a href="{{HREF}}">{{NAME}}</a>{{/LINK}}{{#NO_LINK}}{{NAME}}{{/NO_LINK}}</th><td class="num opt">{{FILES}}</td><td class="num">{{LINES}}</td><td class="num opt">{{SHARE}}%</td><td class="num">{{FIRST_SHARE}}%</td><td class="bar"><span class="bar" style="width:{{BAR}}%"><span class="old" style="width:{{OLD}}%"></span></span></td></tr>
{{/ENTRY}}
</tbody>
</table>
</div>
</section>
{{/CONTENTS}}

{{#UNTOUCHED_LIST}}
<section id="untouched">
<h2>Untouched files</h2>
<div class="table-wrap">
<table>
<caption>{{N_FILES}} here whose every line comes from {{FIRST}}. <a href="{{ROOT}}untouched.html">All untouched files</a></caption>
<thead><tr><th scope="col">File</th><th scope="col" class="num">Lines</th></tr></thead>
<tbody>
{{#FILE}}
<tr><td class="path">{{PATH}}</td><td class="num">{{LINES}}</td></tr>
{{/FILE}}
</tbody>
</table>
</div>
</section>
{{/UNTOUCHED_LIST}}
{{>FOOTER}}
