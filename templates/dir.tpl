{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<nav class="crumbs" aria-label="Directories">
<ol>
<li><a href="index.html">{{REPO}}</a></li>
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
<tr class="{{CLASS}}"><th scope="row"><a href="releases.html#{{ID}}">{{NAME}}</a></th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
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
<p>Every snapshot of the history, with the whole tree's, is on <a href="history.html">the history page</a>.</p>
</section>
{{/HISTORY}}

{{#CHILDREN}}
<section id="directories">
<h2>Directories</h2>
<div class="table-wrap">
<table>
<caption>What is below {{PATH}}/</caption>
<thead><tr><th scope="col">Directory</th><th scope="col" class="num">Files</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Of {{PATH}}/</th><th scope="col" class="num">From {{FIRST}}</th><th scope="col" class="num">Untouched files</th></tr></thead>
<tbody>
{{#CHILD}}
<tr><th scope="row"><a href="{{HREF}}">{{NAME}}</a></th><td class="num">{{FILES}}</td><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num">{{FIRST_SHARE}}%</td><td class="num">{{UNTOUCHED}}</td></tr>
{{/CHILD}}
{{#OWN}}
<tr class="own"><th scope="row">files directly in {{PATH}}/</th><td class="num">{{FILES}}</td><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num">{{FIRST_SHARE}}%</td><td class="num">{{UNTOUCHED}}</td></tr>
{{/OWN}}
</tbody>
</table>
</div>
</section>
{{/CHILDREN}}

{{#UNTOUCHED_LIST}}
<section id="untouched">
<h2>Untouched files</h2>
<div class="table-wrap">
<table>
<caption>{{N_FILES}} here whose every line comes from {{FIRST}}. <a href="untouched.html">All untouched files</a></caption>
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
