{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>Files untouched since {{FIRST}}</h1>
<p class="headline">Untouched since {{FIRST}}: <strong>{{COUNT}}</strong> of {{N_FILES}} ({{LINES}} of {{N_TOTAL_LINES}}) at {{REV}}.</p>
<p>A file counts when every one of its lines still comes from {{FIRST}}. Also as <a href="data/untouched.csv">untouched.csv</a>.</p>
{{#GROUPS}}
<section id="by-directory">
<h2>By directory</h2>
<div class="table-wrap">
<table>
<caption>{{N_FILES}} in {{N_DIRS}}</caption>
<thead><tr><th scope="col">Directory</th><th scope="col" class="num">Untouched files</th><th scope="col" class="num">Lines</th></tr></thead>
<tbody>
{{#GROUP}}
<tr><th scope="row" class="path"><a href="#{{ID}}">{{NAME}}</a></th><td class="num">{{COUNT}}</td><td class="num">{{LINES}}</td></tr>
{{/GROUP}}
</tbody>
</table>
</div>
</section>
{{#GROUP}}
<section id="{{ID}}" class="group">
<h2><span class="path">{{NAME}}</span></h2>
<p>{{N_FILES}}, {{N_LINES}}; more on the page of <a href="{{PAGE_HREF}}">{{PAGE_NAME}}</a>.</p>
<div class="table-wrap">
<table>
<thead><tr><th scope="col">File</th><th scope="col" class="num">Lines</th></tr></thead>
<tbody>
{{#FILE}}
<tr><td class="path">{{NAME}}</td><td class="num">{{LINES}}</td></tr>
{{/FILE}}
</tbody>
</table>
</div>
</section>
{{/GROUP}}
{{/GROUPS}}
{{#NONE}}
<p>Every file has changed since {{FIRST}}.</p>
{{/NONE}}
{{>FOOTER}}
