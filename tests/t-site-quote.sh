#!/bin/bash
# Pages a writer can quote: every page says in full how it was measured
# (the commit, tag scope, grouping, files left out, time taken); the median year is said as the median of all lines; the
# history's heading follows --history; the index's "over time" sentence
# takes the snapshot half-way back by date; releases that wrote nothing
# REV holds leave the release tables.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)

# uneven_repo DIR: v1 ... v4 in the first months of 2010, v5 in 2016, HEAD
# in mid-2020: the snapshot half-way by date is v5, by position v3.
# shellcheck disable=SC2046
uneven_repo() {
	local i
	repo_new "$1"
	at 1262304000 # 2010-01-01
	put old.c $(lines old 1 10)
	commit v1
	git tag v1
	for i in 2 3 4; do
		at $((1262304000 + (i - 1) * 2592000))
		put "f$i.c" $(lines "f$i" 1 4)
		commit "v$i"
		git tag "v$i"
	done
	at 1451606400 # 2016-01-01
	put old.c $(lines old 1 5) $(lines new 1 5)
	commit v5
	git tag v5
	at 1592000000 # 2020-06-12
	put late.c $(lines late 1 30)
	commit late
	cd - >/dev/null || return
}

# branch_repo DIR: v1.0 and v2.0 on main; v1.0.1, v1.0.2 and (after
# v2.0) v1.0.3 on a maintenance branch, dated before HEAD, whose only
# commits are not in HEAD's history: three releases that wrote nothing
# HEAD holds.
# shellcheck disable=SC2046
branch_repo() {
	repo_new "$1"
	at 1262304000
	put a.c $(lines a 1 10)
	commit 1.0
	git tag v1.0
	git checkout -q -b maint
	put a.c $(lines a 1 9) fix1
	commit fix1
	git tag v1.0.1
	put a.c $(lines a 1 8) fix2 fix1
	commit fix2
	git tag v1.0.2
	git checkout -q -
	put b.c $(lines b 1 5)
	commit 2.0
	git tag v2.0
	git checkout -q maint
	put a.c $(lines a 1 7) fix3 fix2 fix1
	commit fix3
	git tag v1.0.3
	git checkout -q -
	put b.c $(lines b 1 6)
	commit after
	cd - >/dev/null || return
}

scope_on_every_page() {
	local f n=0
	site_repo repo
	report repo --out out --depth 2 --exclude '*.md'
	# "How this was measured", whole, on every page: one partial
	for f in $(find out -name "*.html"); do
		has "$f" '<h2>How this was measured</h2>' \
			'tag scope <code>dated</code> (<code>--tag-scope</code>: the tags HEAD contains, and every other one dated no later than it)' \
			'<dt>Grouping</dt><dd>the default (no <code>--group</code>): one release per version' \
			"<dt>Revision</dt><dd>HEAD: commit <code class=\"hash\">$(git -C repo rev-parse HEAD)</code>" \
			', except <code>*.md</code>' \
			'except what <code>.gitattributes</code> marks vendored or generated (left out: '
		# reproducible (SOURCE_DATE_EPOCH): no times
		lacks "$f" '<dt>Time taken</dt>'
		n=$((n + 1))
	done
	[ "$n" -ge 8 ] || { echo "only $n pages"; return 1; }
	report repo --out out --tag-scope merged --group 'v([0-9]+)\..*'
	for f in out/*.html; do
		has "$f" '(<code>--tag-scope</code>: only the tags HEAD contains)' \
			'<dt>Grouping</dt><dd><code>--group v([0-9]+)\..*</code>: tags whose first subexpression'
	done
}

median_said_plainly() {
	uneven_repo repo
	report repo --out out
	# 2020 less four: the 2010 lines (17 of 52) are older; the median
	# line is of 2020.
	has out/index.html \
		'<strong>32.7%</strong> of the lines at HEAD were last changed before 2016; half of all lines were last changed in 2020 or earlier (the median year).'
	lacks out/index.html 'half of them'
	has out/root.html 'half of all its lines were last changed in 2020 or earlier (the median year).'
}

history_heading() {
	uneven_repo repo
	report repo --out out --history releases
	has out/history.html '<h1>How old was the code, release after release?</h1>'
	report repo --out out --history year
	has out/history.html '<h1>How old was the code, year after year?</h1>'
	report repo --out out --history month
	has out/history.html '<h1>How old was the code, month after month?</h1>'
}

halfway_by_date() {
	uneven_repo repo
	report repo --out out --history releases
	# v1's 10 lines: 5 left, of 22 at v5 and of 52 at HEAD.
	has out/index.html 'Over time: at v5, 22.7% of the code dated back to v1; at HEAD, 9.6%.'
	has out/history.html 'At v5, <strong>22.7%</strong> of the code dated back to v1'
}

silent_releases() {
	branch_repo repo
	# v0.9, tagged after v1.0 on its commit: on HEAD's history, no
	# commit of its own
	GIT_COMMITTER_DATE="@1400000000 +0000" git -C repo tag -a -m v0.9 \
		v0.9 v1.0
	report repo --out out
	# releases.csv keeps them; the pages' release tables do not.
	grep -q '^v1.0.1,v1.0.1,.*,0,0,' out/data/releases.csv
	grep -q '^v1.0.2,v1.0.2,.*,0,0,' out/data/releases.csv
	has out/releases.html \
		'The 16 lines at HEAD were written over 2 releases, from v1.0 to v2.0.' \
		'<p id="silent">3 releases on other branches shipped no commit of HEAD’s history (earlier-dated tags hold every commit theirs contain); 1 release on the history of HEAD holds no commit of its own (an earlier-dated tag of another release is on the same commits), and none has a line at HEAD or at any snapshot: they are left out of every table and chart, and listed in <a href="data/releases.csv">releases.csv</a>.</p>'
	grep -q '^v1.0.3,v1.0.3,.*,0,0,' out/data/releases.csv
	lacks out/releases.html 'r-v1.0.1' 'r-v1.0.2' 'r-v1.0.3' 'r-v0.9' \
		'None of its lines survive'
	has out/index.html 'written over 2 releases.' \
		'The newest release, v2.0, wrote 31.3% of them.' \
		'left out: <a href="releases.html#silent">4 releases that wrote nothing HEAD holds</a>'
	lacks out/index.html 'r-v1.0.1' 'r-v1.0.2' 'r-v0.9'
	lacks out/history.html 'r-v1.0.1' 'r-v1.0.2' 'r-v0.9'
	# the terminal table leaves out the same, for the same reasons
	"$STRATA" table repo -q >t.txt
	grep -qx '3 releases on other branches shipped no commit of HEAD (left out; see releases.csv)' t.txt
	grep -qx '1 release on the history of HEAD holds no commit of its own (left out; see releases.csv)' t.txt
	! grep -q '^v0.9 ' t.txt
	python3 "$TESTS/linkcheck.py" out
}

snapshots_newest_first() {
	uneven_repo repo
	report repo --out out --history releases
	# the newest release first, REV's row on top, the first column fixed
	has out/history.html \
		'<th scope="col" class="num">Lines</th><th scope="col" class="num"><a href="releases.html#unreleased">unreleased</a></th><th scope="col" class="num"><a href="releases.html#r-v5">v5</a></th><th scope="col" class="num"><a href="releases.html#r-v4">v4</a></th>' \
		'<table class="matrix" aria-describedby="snapshots-caption">' \
		'<p class="caption" id="snapshots-caption">'
	grep -A1 -m1 '^<tbody>$' out/history.html | sed -n 2p |
		grep -q '^<tr class="rev"><th scope="row" class="nw">HEAD</th>'
	awk '/^table.matrix th:first-child/,/^}/' out/strata.css |
		grep -q 'position: sticky;'
}

# wide_repo DIR: 13 subsystems d01 ... d13 (d01 the largest), and ten
# releases v1 ... v10, each adding a line to d01.
# shellcheck disable=SC2046
wide_repo() {
	local i
	repo_new "$1"
	at 1262304000
	for i in 01 02 03 04 05 06 07 08 09 10 11 12 13; do
		put "d$i/f.c" $(lines "d$i" 1 $((30 - 10#$i)))
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		tick 86400
		echo "v$i" >>d01/f.c
		commit "v$i"
		git tag "v$i"
	done
	cd - >/dev/null || return
}

stack_table() {
	wide_repo repo
	report repo --out out
	# the 12 largest subsystems and a row for the rest; the 8 newest
	# releases and a column for the 2 older ones (v1 wrote every line
	# of d02 ... d13, and 30 of d01; v2 one more)
	has out/index.html \
		'Lines at HEAD by subsystem (the 12 subsystems with the most lines) and by the release that wrote them, newest release first.' \
		'<th scope="col" class="num"><a href="releases.html#r-v10">v10</a></th><th scope="col" class="num"><a href="releases.html#r-v9">v9</a></th>' \
		'<a href="releases.html#r-v3">v3</a></th><th scope="col" class="num">2 older releases</th></tr></thead>' \
		'<tr><th scope="row"><a href="d01.html">d01</a></th><td class="num">39</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">1</td><td class="num">31</td></tr>' \
		'<tr class="more"><th scope="row">1 more subsystem</th><td class="num">17</td><td class="num"></td>' \
		'<tfoot><tr><th scope="row">All</th><td class="num">309</td>'
	lacks out/index.html 'd13.html">d13</a></th><td class="num">17</td>' \
		'The release and subsystem tables have the values.'
}

times_add_up() {
	local t w h b r f
	site_repo repo
	"$STRATA" report --quiet repo --out out
	# on every page, until that page was written
	for f in out/*.html; do
		t=$(grep -o '<dt>Time taken</dt><dd>[^<]*' "$f")
		# "W s from the start until this page was written, with N jobs: H s
		# reading history, B s blaming, R s tallying and publishing ..."
		read -r w h b r < <(sed -E 's/.*<dd>([0-9.]+) s from the start until this page was written, with [0-9]+ jobs?: ([0-9.]+) s reading history, ([0-9.]+) s blaming, ([0-9.]+) s tallying and publishing this report$/\1 \2 \3 \4/' <<<"$t")
		[ -n "$r" ] || { echo "$f: unexpected: $t"; return 1; }
		awk -v w="$w" -v h="$h" -v b="$b" -v r="$r" \
			'BEGIN { exit !(int(w * 10 + 0.5) == int(h * 10 + 0.5) + int(b * 10 + 0.5) + int(r * 10 + 0.5)) }' ||
			{ echo "$f: the parts do not add up: $t"; return 1; }
	done
	# the whole is at least what report.json counts before publishing
	t=$(grep -o '<dt>Time taken</dt><dd>[^<]*' out/index.html)
	w=${t#*<dd>}
	w=${w%% s *}
	t=$(grep -o '"total": [0-9.]*' out/data/report.json | cut -d' ' -f2)
	awk -v w="$w" -v t="$t" 'BEGIN { exit !(w + 0.05 >= t) }'
}

run_case times_add_up times_add_up
run_case stack_table stack_table
run_case snapshots_newest_first snapshots_newest_first
run_case silent_releases silent_releases
run_case scope_on_every_page scope_on_every_page
run_case median_said_plainly median_said_plainly
run_case history_heading history_heading
run_case halfway_by_date halfway_by_date
finish
