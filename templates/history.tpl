{{%AUTOESCAPE context="HTML"}}
{{>HEADER}}
<h1>How old was the code, {{PERIOD}} after {{PERIOD}}?</h1>
{{#SUMMARY}}
<p class="headline">At {{MID}}, <strong>{{MID_SHARE}}%</strong> of the code dated back to {{FIRST}}; at {{LAST}}, <strong>{{LAST_SHARE}}%</strong>.</p>
{{/SUMMARY}}
<p>The code at {{N_SNAPSHOTS}}: {{#RELEASES}}the tag that stands for each release{{#BRANCHES}} ({{N_BRANCH}} on release branches that {{REV}} does not contain){{/BRANCHES}}, then {{REV}}{{/RELEASES}}{{#CALENDAR}}the last commit of {{REV}}’s first-parent history before the start of each {{PERIOD}} (UTC), then {{REV}}{{/CALENDAR}}. At every snapshot each line is attributed exactly as <code>git blame</code> attributes it there, and its commit to a release as for {{REV}}.</p>
{{#UNSNAPPED}}<p>No snapshot of {{NAME}}: its tag contains {{REV}}’s commit although it is dated no later, so the walk cannot reach it before {{REV}}.</p>{{/UNSNAPPED}}

<section id="layers">
<h2>The layers</h2>
{{>LINES_CHART}}
{{>SHARE_CHART}}
</section>

<section id="snapshots">
<h2>Every snapshot</h2>
<p class="caption" id="snapshots-caption">The share of each snapshot’s lines by the release that wrote them, in percent, newest snapshot and newest release first. <a href="data/history.csv">history.csv</a>, <a href="data/history-subsystems.csv">history-subsystems.csv</a></p>
<div class="table-wrap">
<table class="matrix" aria-describedby="snapshots-caption">
<thead><tr><th scope="col">Snapshot</th><th scope="col">Date</th><th scope="col" class="num">Lines</th>{{#COL}}<th scope="col" class="num"><a href="releases.html#{{ID}}">{{NAME}}</a>{{#RUN}} back to {{LAST}}{{/RUN}}</th>{{/COL}}</tr></thead>
<tbody>
{{#ROW}}
<tr class="{{CLASS}}"><th scope="row" class="nw">{{NAME}}</th><td class="date"><span class="nw">{{DATE}}</span></td><td class="num">{{LINES}}</td>{{#CELL}}<td class="num">{{SHARE}}</td>{{/CELL}}</tr>
{{/ROW}}
</tbody>
</table>
</div>
</section>

<section id="survival">
<h2>How long lines live</h2>
<div class="pair">
{{>SURVIVAL_CHART}}
<div class="table-wrap">
<table>
<caption>Each release’s lines at its own snapshot, the share left at {{REV}}, and the time until half of them were gone. <a href="data/survival.csv">survival.csv</a></caption>
<thead><tr><th scope="col">Release</th><th scope="col">Counted at</th><th scope="col" class="num">Lines then</th><th scope="col" class="num">Left</th><th scope="col" class="num">Half-life</th></tr></thead>
<tbody>
{{#SURVIVAL}}
<tr><th scope="row"><a href="releases.html#{{ID}}">{{NAME}}</a></th><td>{{BASE}}</td><td class="num">{{LINES}}</td><td class="num">{{LEFT}}%</td><td class="num">{{HALF_LIFE}}</td></tr>
{{/SURVIVAL}}
</tbody>
</table>
</div>
</div>
</section>
{{>FOOTER}}
