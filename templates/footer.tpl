{{%AUTOESCAPE context="HTML"}}
</main>
<footer class="site">
<p>The code of {{REPO}} at {{REV}} (commit <code>{{COMMIT}}</code>), in a report dated {{GENERATED}}, made with strata {{VERSION}}.
Everything shown here is also in <a href="{{ROOT}}data/report.json">report.json</a> and the <a href="{{ROOT}}index.html#data">CSV files</a>.</p>
</footer>
</body>
</html>
