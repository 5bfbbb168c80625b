{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>Files untouched since {{FIRST}}</h1>
<p class="headline"><strong>{{COUNT}}</strong> of {{FILES}} files ({{LINES}} of {{TOTAL_LINES}} lines) at {{REV}} are exactly as {{FIRST}} left them.</p>
<p>A file counts when every one of its lines still comes from {{FIRST}}. Also as <a href="data/untouched.csv">untouched.csv</a>.</p>
{{#GROUPS}}
<section id="by-directory">
<h2>By directory</h2>
<div class="table-wrap">
<table>
<caption>{{COUNT}} files in {{NGROUPS}} directories</caption>
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
<p>{{COUNT}} files, {{LINES}} lines. In <a href="{{PAGE_HREF}}">{{PAGE_NAME}}</a>.</p>
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
