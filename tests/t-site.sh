#!/bin/bash
# The report's pages: each exists and shows the fixture's numbers, every
# link resolves, hostile file names are escaped, two runs give the same
# bytes, and templates without the autoescape pragma are refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)
TEMPLATES=$TESTS/../templates

site_repo "$WORK/repo"
REPO=$WORK/repo

pages_and_numbers() {
	local p
	report "$REPO" --out out
	for p in index.html releases.html untouched.html strata.css \
		root.html Net.html net-93b929.html docs.html \
		lib.html src.html svg_onload_alert_1-35157b.html \
		data/files.csv data/releases.csv data/subsystems.csv \
		data/untouched.csv data/report.json .strata-report \
		img/releases.svg img/releases.png img/releases@2x.png \
		img/subsystems.svg img/subsystems-stack.png img/dir-src.svg \
		img/dir-src@2x.png img/dir-src@narrow.svg img/dir-root.png; do
		[ -s "out/$p" ] || { echo "missing out/$p"; return 1; }
	done
	has out/index.html \
		'<strong>70.9%</strong> of the code at HEAD dates back to v1.0.' \
		'55 lines of text in 9 files at HEAD' \
		'written over 3 releases.' \
		'The newest release, v2.0, wrote 10.9% of them.' \
		'1.8% (1 line) is newer than any release.' \
		'Untouched since v1.0: <a href="untouched.html">5 files</a> (28 lines).' \
		'<a href="releases.html#r-v1.0">v1.0</a></th><td class="date"><span class="nw">2010-01-01</span></td><td class="num opt">1</td><td class="num">39</td><td class="num">70.91%</td>' \
		'<a href="releases.html#r-v1.1">v1.1</a><span class="tags">v1.1-rc1, v1.1</span></th><td class="date"><span class="nw">2010-03-31 –</span> <span class="nw">2010-04-23</span></td><td class="num opt">2</td><td class="num">9</td><td class="num">16.36%</td>' \
		'<td class="num">6</td><td class="num">10.91%</td>' \
		'<td class="num">1</td><td class="num">1.82%</td>' \
		'<a href="src.html">src</a></th><td class="num opt">2</td><td class="num">21</td><td class="num">38.18%</td><td class="num">61.90%</td><td class="num opt">1</td>' \
		'<a href="root.html">(root files)</a></th><td class="num opt">2</td><td class="num">14</td>' \
		'<a href="data/releases.csv">' '<a href="data/report.json">' \
		'<a href="data/files.csv">' '<a href="data/subsystems.csv">' \
		'<a href="data/untouched.csv">' \
		'<source media="(max-width: 40rem)" srcset="img/releases@narrow.svg" type="image/svg+xml" width="400" height="480"><img src="img/releases.png" srcset="img/releases@2x.png 2x" width="720" height="480" alt="Bar chart' \
		'<a href="img/subsystems-stack.svg">' '<a href="img/dir-lib@2x.png">'
	has out/src.html \
		'<strong>61.9%</strong> of its code dates back to v1.0.' \
		'21 lines in 2 files, 38.18% of the tree at HEAD.' \
		'<td class="path">src/util.c</td><td class="num">5</td>' \
		'<a href="index.html" rel="up">Up to the whole tree</a>' \
		'<img src="img/dir-src.png"' \
		'<tr class="file"><th scope="row" class="path">main.c</th><td class="num opt"></td><td class="num">16</td><td class="num opt">76.19%</td><td class="num">50.00%</td>'
	has out/root.html '<h1>Files in the root directory</h1>' \
		'<tr class="file"><th scope="row" class="path">&lt;img src=x onerror=alert(1)&gt;.c</th>'
	has out/untouched.html \
		'Untouched since v1.0: <strong>5</strong> of 9 files (28 of 55 lines) at HEAD.' \
		'5 files in 4 directories' \
		'<td class="path">README</td><td class="num">10</td>' \
		'<td class="path">util.c</td><td class="num">5</td>'
	has out/releases.html \
		'<section id="r-v1.1" class="release release">' \
		'<tr><td><code>v1.1-rc1</code></td><td class="date">2010-03-31</td></tr>' \
		'<tr><td><code>v1.1</code></td><td class="date">2010-04-23</td></tr>' \
		'Tagged <span class="nw">2010-03-31 –</span> <span class="nw">2010-04-23</span>; 2 commits in its cycle.' \
		'<section id="unreleased" class="release unreleased">'
	# The marker lists what strata wrote, itself excepted.
	has out/.strata-report 'strata report' 'data/' 'img/releases.svg' \
		'index.html' 'src.html'
	lacks out/.strata-report '.strata-report'
}

links() {
	report "$REPO" --out out
	python3 "$TESTS/linkcheck.py" out
}

hostile_names() {
	local f
	report "$REPO" --out out
	for f in out/*.html; do
		# Nothing a name carries gets through as markup.
		lacks "$f" '<img src=x' '<svg onload' 'onerror=alert(1)>' \
			'a&b' '"q"'
	done
	has out/untouched.html \
		'<td class="path">&lt;img src=x onerror=alert(1)&gt;.c</td>' \
		'<td class="path">a&amp;b &quot;q&quot;.c</td>' \
		'<td class="path">caf\xe9.c</td>'
	has out/index.html \
		'<a href="svg_onload_alert_1-35157b.html">&lt;svg onload=alert(1)&gt;</a>' \
		'<a href="Net.html">Net</a>' '<a href="net-93b929.html">net</a>'
	has out/svg_onload_alert_1-35157b.html \
		'<span class="path">&lt;svg onload=alert(1)&gt;/</span>'
	# Pages are UTF-8 even where names are not; links resolve.
	python3 "$TESTS/linkcheck.py" out
}

reproducible() {
	report "$REPO" --out a
	report "$REPO" --out b
	diff -r a b
}

templates() {
	local t
	report "$REPO" --out out
	snapshot out >before
	# Every template must escape: one without the pragma is refused.
	for t in "$TEMPLATES"/*.tpl; do
		head -n 1 "$t" | grep -qxF '{{%AUTOESCAPE context="HTML"}}' ||
			{ echo "$t lacks the pragma"; return 1; }
	done
	cp -r "$TEMPLATES" bad
	sed -i 1d bad/footer.tpl
	if report "$REPO" --out out --templates bad 2>err; then
		echo "a template without the pragma was used"
		return 1
	fi
	has err "footer.tpl' does not start with {{%AUTOESCAPE"
	if report "$REPO" --out out --templates nowhere 2>err; then
		echo "--templates nowhere was accepted"
		return 1
	fi
	has err "no templates in 'nowhere'"
	snapshot out | diff before -
	# A copy of the templates, edited, is used.
	cp -r "$TEMPLATES" mine
	sed -i 's|<h1>How old is the code in {{REPO}}?</h1>|<h1>Mine: {{REPO}}</h1>|' \
		mine/index.tpl
	report "$REPO" --out out --templates mine
	has out/index.html '<h1>Mine: repo</h1>'
}

run_case pages_and_numbers pages_and_numbers
run_case links links
run_case hostile_names hostile_names
run_case reproducible reproducible
run_case templates templates
finish
