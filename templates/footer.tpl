{{%AUTOESCAPE context="HTML"}}
</main>
<footer class="site">
<p>Made with strata {{VERSION}} on {{GENERATED}}, from {{REPO}} at {{REV}} (commit <code>{{COMMIT}}</code>).
Everything shown here is also in <a href="data/report.json">report.json</a> and the <a href="index.html#data">CSV files</a>.</p>
</footer>
</body>
</html>
