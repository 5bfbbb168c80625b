{{%AUTOESCAPE context="HTML"}}
</main>
<footer class="site">
<p>The code of {{REPO}} at {{REV}} (commit <code>{{COMMIT}}</code>), in a report dated {{GENERATED}}, made with strata {{VERSION}}.
Releases: tag scope <code>{{TAG_SCOPE}}</code>, {{#GROUP_ERE}}grouped by <code>--group {{GROUP_ERE}}</code>{{/GROUP_ERE}}{{#NO_GROUP}}one release per version (no <code>--group</code>){{/NO_GROUP}}; <a href="{{ROOT}}index.html#method">how this was measured</a>.
Everything shown here is also in <a href="{{ROOT}}data/report.json">report.json</a> and the <a href="{{ROOT}}index.html#data">CSV files</a>.</p>
</footer>
</body>
</html>
