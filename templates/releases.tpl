{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>Releases</h1>
<p class="headline">The {{N_LINES}} at {{REV}} were written over {{N_RELEASES}}{{#RANGE}}, from {{FIRST}} to {{LAST}}{{/RANGE}}.</p>
{{#SILENT}}
<p id="silent">{{#OFF}}{{N_RELEASES}} on other branches shipped no commit of {{REV}}’s history (earlier-dated tags hold every commit theirs contain){{/OFF}}{{#BOTH}}; {{/BOTH}}{{#ON}}{{N_RELEASES}} on the history of {{REV}} {{HOLD}} no commit of {{ITS}} own (an earlier-dated tag of another release is on the same commits){{/ON}}, and none has a line at {{REV}} or at any snapshot: they are left out of every table and chart, and listed in <a href="data/releases.csv">releases.csv</a>.</p>
{{/SILENT}}
<div class="pair narrow">
{{>CHART}}
<nav class="toc" aria-label="Releases">
<div class="table-wrap">
<table>
<caption>Jump to a release</caption>
<thead><tr><th scope="col">Release</th><th scope="col" class="num">Lines today</th><th scope="col" class="num">Share</th></tr></thead>
<tbody>
{{#RELEASE}}
<tr class="{{CLASS}}"><th scope="row"><a href="#{{ID}}">{{NAME}}</a></th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td></tr>
{{/RELEASE}}
</tbody>
</table>
</div>
</nav>
</div>
{{#RELEASE}}
<section id="{{ID}}" class="release {{CLASS}}">
<h2>{{NAME}}</h2>
<p>{{#SURVIVES}}Lines surviving at {{REV}}: <strong>{{LINES}}</strong>, {{SHARE}}% of the code.{{/SURVIVES}}{{#GONE}}None of its lines survive at {{REV}}.{{/GONE}}{{#NO_COMMIT}}It shipped no commit of {{REV}}’s history.{{/NO_COMMIT}}
{{#TAGGED}}Tagged <span class="nw">{{FROM}}{{#UNTIL}} –{{/UNTIL}}</span>{{#UNTIL}} <span class="nw">{{TO}}</span>{{/UNTIL}}; {{/TAGGED}}{{#NOT_TAGGED}}Not in any release tag yet; {{/NOT_TAGGED}}{{N_COMMITS}} in its cycle.</p>
<div class="columns">
{{#TAGS}}
<div class="table-wrap">
<table class="tags">
<caption>Tags</caption>
<thead><tr><th scope="col">Tag</th><th scope="col">Date</th></tr></thead>
<tbody>
{{#TAG}}
<tr><td><code>{{NAME}}</code></td><td class="date">{{DATE}}</td></tr>
{{/TAG}}
</tbody>
</table>
</div>
{{/TAGS}}
{{#WHERE}}
<div class="table-wrap">
<table class="where">
<caption>Where its lines are now</caption>
<thead><tr><th scope="col">Subsystem</th><th scope="col" class="num">Lines</th><th scope="col" class="num">Of its lines</th><th scope="col" class="num">Of the subsystem</th></tr></thead>
<tbody>
{{#DIR}}
<tr><th scope="row"><a href="{{HREF}}">{{NAME}}</a></th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td class="num">{{DIR_SHARE}}%</td></tr>
{{/DIR}}
{{#MORE}}
<tr class="more"><th scope="row">{{COUNT}} more</th><td class="num">{{LINES}}</td><td class="num">{{SHARE}}%</td><td></td></tr>
{{/MORE}}
</tbody>
</table>
</div>
{{/WHERE}}
</div>
</section>
{{/RELEASE}}
{{>FOOTER}}
