{{%AUTOESCAPE context="HTML"}}
<section id="method" class="method">
<h2>How this was measured</h2>
<p>Each line of every text file at {{REV}} is attributed to the commit that <code>git blame</code> names for it, and each commit to the release of the earliest tag that contains it.</p>
<dl class="facts">
<dt>Repository</dt><dd>{{REPO}}</dd>
<dt>Revision</dt><dd>{{REV}}: commit <code class="hash">{{COMMIT}}</code> of {{COMMIT_DATE}}</dd>
<dt>History</dt><dd>{{N_COMMITS}}{{#FIRST_PARENT}}, first parents only{{/FIRST_PARENT}}{{#SHALLOW}}; <strong>a shallow clone</strong>, cut off at {{N_BOUNDARY}}, so older code counts as theirs{{/SHALLOW}}{{#NOT_SHALLOW}}, complete (not a shallow clone){{/NOT_SHALLOW}}</dd>
<dt>Release tags</dt><dd><code>{{TAGS_ERE}}</code>; tag scope <code>{{TAG_SCOPE}}</code> (<code>--tag-scope</code>: {{#DATED}}the tags {{REV}} contains, and every other one dated no later than it{{/DATED}}{{#MERGED}}only the tags {{REV}} contains{{/MERGED}})</dd>
<dt>Grouping</dt><dd>{{#GROUP_ERE}}<code>--group {{GROUP_ERE}}</code>: tags whose first subexpression matches the same text are one release, named by it{{/GROUP_ERE}}{{#NO_GROUP}}the default (no <code>--group</code>): one release per version, its pre-releases folded into it{{/NO_GROUP}}</dd>
<dt>Blame</dt><dd>{{#IGNORE_WHITESPACE}}whitespace ignored (<code>-w</code>){{/IGNORE_WHITESPACE}}{{#WHITESPACE}}whitespace counts{{/WHITESPACE}}; {{N_DIFFS}}{{#IGNORE_REVS}}; ignoring {{N_REVS}}: {{#IGNORED}}<code class="hash">{{HASH}}</code> {{/IGNORED}}{{/IGNORE_REVS}}</dd>
<dt>Files</dt><dd>{{#INCLUDE}}only <code>{{PATTERNS}}</code>{{/INCLUDE}}{{#ALL_FILES}}every text file{{/ALL_FILES}}{{#EXCLUDE}}, except <code>{{PATTERNS}}</code>{{/EXCLUDE}}{{#SKIP_VENDORED}}, except what <code>.gitattributes</code> marks vendored or generated{{/SKIP_VENDORED}}{{#LEFT_OUT}} (left out: {{N_FILES}}, {{N_LINES}}){{/LEFT_OUT}}; directories tallied {{N_LEVELS}} deep</dd>
{{#TIMES}}
<dt>Time taken</dt><dd>{{TOTAL}} s from the start until this page was written, with {{N_JOBS}}: {{HISTORY}} s reading history, {{BLAME}} s blaming, {{REST}} s tallying and publishing this report</dd>
{{/TIMES}}
<dt>strata</dt><dd>version {{VERSION}}; report dated {{GENERATED}}</dd>
</dl>
</section>
</main>
<footer class="site">
<p>Everything shown here is also in <a href="{{ROOT}}data/report.json">report.json</a> and the <a href="{{ROOT}}index.html#data">CSV files</a>.</p>
</footer>
</body>
</html>
