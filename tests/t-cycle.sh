#!/bin/bash
# The release cycle (docs/cycle.md) against git: changesets and lines per
# author from `git log --no-merges --numstat REV0..REV` after REV's
# .mailmap (a binary file, renames exact and edited, a merge, a symlink);
# credits from `git log --format=%(trailers:key=...,valueonly,unfold)`;
# the replaced lines from per-commit `git blame` at REV0 and at REV; then
# hostile and odd cases (a huge trailer block, bad --since, an empty
# cycle, one release).
. "$(dirname "$0")/lib.sh"

# as NAME EMAIL: the author of the next commits.
as() {
	export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2
}

# commit_msg TEXT: commit everything with TEXT as the whole message.
commit_msg() {
	git add -A
	tick
	printf '%s' "$1" >"$WORK/msg"
	git commit -q --allow-empty --no-verify --cleanup=verbatim \
		-F "$WORK/msg"
}

# Two releases before the cycle (v0.9, v1.0, in two years), then a cycle
# to v2.0 with every kind of change and trailer.
cycle_repo() {
	repo_new r
	at 1570000000 # 2019-10
	as Alice alice@corp.example.net
	commit_file a.c "a" $(lines a 1 40)
	commit_file lib/old.c "old" $(lines o 1 30)
	git tag v0.9
	at 1600000000 # 2020-09
	printf '\0\1binary' >bin.dat
	commit_file b.txt "b" $(lines b 1 10)
	commit_file a.c "a2" $(lines a 1 20) $(lines A 21 30) $(lines a 31 40)
	git tag v1.0
	at 1630000000 # 2021-08
	as Bob bob@old.example.org
	put a.c $(lines a 1 4) $(lines x 5 15) $(lines a 16 20) \
		$(lines A 21 30) $(lines a 31 40)
	commit_msg $'Fix a\n\nBody text.\n\nReviewed-by: Carol <carol@example.org>\nTested-by: Dave <dave@example.org>\nSigned-off-by: Bob <bob@old.example.org>\n'
	as Bob bob@corp.example.net
	mkdir -p src
	git mv lib/old.c src/new.c
	put src/new.c $(lines o 1 25) $(lines n 26 32)
	commit_msg $'Move old to new\n\nSigned-off-by: Bob Builder <bob@corp.example.net>\nSigned-off-by: Maintainer <m@example.org>\nacked-by: Frank <f@example.org>\n'
	printf '\0\2binary, changed' >bin.dat
	git mv b.txt docs-b.txt
	ln -s a.c link
	commit_msg $'Binary, exact rename, a symlink\n\nsome text\n\nnot a trailer\nanother line\nthird one\nSigned-off-by: Gina <gina@example.org>\n'
	git checkout -q -b side
	as Carol carol@example.org
	commit_msg "$(printf 'Add c\n\nReported-by: Eve Long\n  Name <eve@example.org>\nReviewed-by: Carol <carol@example.org>\n')"$'\n'
	put c.c $(lines c 1 12)
	commit_msg $'Add c for real\n\nReviewed-by: Zed <z@example.org>\nthis line is no trailer\n'
	git checkout -q main
	as Alice alice@corp.example.net
	put a.c $(lines a 1 2) $(lines x 5 15) $(lines a 16 20) $(lines a 31 40)
	commit_msg $'Trim a\n\n---\nReviewed-by: Carol <carol@example.org>\n'
	merge "Merge side" side
	printf '%s\n' 'Bob Builder <bob@corp.example.net>' \
		'Bob Builder <bob@corp.example.net> <bob@old.example.org>' \
		>.mailmap
	commit_msg $'Mailmap\n\nReviewed-by: Bob <bob@old.example.org>\n'
	git tag v2.0
	cd ..
}

# git's changesets, added, removed per author (after REV's .mailmap).
git_authors() {
	git -C r log --no-merges --numstat --format='@%aN' "$1..$2" |
		awk -F'\t' '/^@/ { a = substr($0, 2); c[a]++; next }
			NF == 3 && $1 != "-" { ad[a] += $1; rm[a] += $2 }
			END { for (k in c) printf "%s,%d,%d,%d\n", k, c[k],
				ad[k], rm[k] }' | sort
}

# git's credits: trailer,person,count; Signed-off-by unless the author's.
git_trailers() {
	local k
	for k in Reviewed-by Tested-by Reported-by Acked-by; do
		git -C r log --no-merges \
			--format="%(trailers:key=$k,valueonly,unfold)" "$1..$2" |
			grep -v '^$' | sort | uniq -c |
			sed -E "s/^ *([0-9]+) (.*)$/$k,\2,\1/" || true
	done
	git -C r log --no-merges --format='@%aE%n%(trailers:key=Signed-off-by,valueonly,unfold)' \
		"$1..$2" | while IFS= read -r line; do
		case $line in
		@*) me=${line#@}; continue ;;
		'') continue ;;
		esac
		mapped=$(git -C r check-mailmap "$line")
		mail=${mapped##*<}
		mail=${mail%>}
		[ "${mail,,}" = "${me,,}" ] || echo "$line"
	done | sort | uniq -c | sed -E 's/^ *([0-9]+) (.*)$/Signed-off-by,\2,\1/'
}

# blame_counts REV: "COMMIT LINES" for every text file at REV.
blame_counts() {
	text_files r "$1" | while IFS= read -r -d '' f; do
		git -C r blame --line-porcelain "$1" -- "$f" |
			grep -E '^[0-9a-f]{40} ' | cut -d' ' -f1
	done | sort | uniq -c | awk '{ print $2, $1 }'
}

# The replaced lines by cohort from git blame: KIND,NAME,LINES rows.
git_replaced() {
	local since=$1 rev=$2
	blame_counts "$since" >at0
	blame_counts "$rev" >at1
	# release of each commit: the first tag (by date) that contains it
	git -C r log --format='%H %aN|%cd' --date=format-local:%Y "$rev" \
		>meta
	awk -F, 'NR > 1 && $2 != "" { print $2, $1 }' out/data/releases.csv \
		>tags
	: >rel
	while read -r tag name; do
		git -C r rev-list "$tag" | while read -r c; do
			grep -q "^$c " rel || echo "$c $name" >>rel
		done
	done < <(while read -r tag name; do
		echo "$(git -C r log -1 --format=%ct "$tag") $tag $name"
	done <tags | sort -n | cut -d' ' -f2-)
	awk 'FILENAME == "at1" { b[$1] = $2; next }
	     FILENAME == "at0" { a[$1] = $2; next }
	     FILENAME == "rel" { r[$1] = $2; next }
	     { c = $1; sub(/^[^ ]+ /, ""); split($0, p, "|")
	       d = a[c] - b[c]; if (d <= 0) next
	       rr["release," r[c]] += d; rr["year," p[2]] += d
	       rr["author," p[1]] += d }
	     END { for (k in rr) print k "," rr[k] }' at1 at0 rel meta | sort
}

# check_authors REV0 REV: out's cycle-authors.csv against git log.
check_authors() {
	git_authors "$1" "$2" >want
	tail -n +2 out/data/cycle-authors.csv | tr -d '\r' |
		cut -d, -f1-4 | sort >got
	diff want got
}

# check REV0 REV [BASE]: cycle-authors.csv against git log REV0..REV,
# cycle-removed.csv against git blame at BASE (default REV0) and REV.
check() {
	check_authors "$1" "$2"
	git_replaced "${3:-$1}" "$2" >want
	tail -n +2 out/data/cycle-removed.csv | tr -d '\r' | cut -d, -f1-3 |
		sort >got
	diff want got
	[ -s got ]
}

case_against_git() {
	cycle_repo
	"$STRATA" report r --rev v2.0 --out out -q
	"$STRATA" table r --rev v2.0 --cycle >table.txt
	# the default REV0 is v1.0, the standing tag of the release before
	grep -q '^release cycle v1.0\.\.v2.0 ' table.txt
	grep -q 'of the code at v1.0' out/cycle.html
	check_authors v1.0 v2.0
	# every author and the totals, also in the terminal
	[ "$(wc -l <want)" -ge 3 ]
	total=$(git -C r log --no-merges --numstat --format= v1.0..v2.0 |
		awk '$1 != "-" { a += $1; r += $2 } END { print a " lines added, " r " removed" }')
	n=$(git -C r rev-list --no-merges --count v1.0..v2.0)
	grep -q " $n changesets .*; $total (1 binary file changes left out)" \
		table.txt
	git_trailers v1.0 v2.0 | sort >want
	tail -n +2 out/data/cycle-trailers.csv | tr -d '\r' | sort >got
	diff want got
	grep -q 'Eve Long Name <eve@example.org>' got
	grep -q 'Gina' got
	! grep -q 'Zed' got
	git_replaced v1.0 v2.0 >want
	tail -n +2 out/data/cycle-removed.csv | tr -d '\r' | cut -d, -f1-3 |
		sort >got
	diff want got
	grep -q '^release,' got
	# the table (no history snapshots) and the report (with) agree
	sum=$(awk -F, '$1 == "release" { s += $3 } END { print s }' got)
	grep -q "^replaced: $sum of the " table.txt
	# The commits are counted on a thread of their own while the charts
	# are drawn (--jobs 2), or in turn (--jobs 1): the same report.
	"$STRATA" report r --rev v2.0 --out one --jobs 1 -q
	"$STRATA" report r --rev v2.0 --out two --jobs 2 -q
	for f in cycle-authors cycle-orgs cycle-trailers cycle-removed; do
		cmp one/data/$f.csv two/data/$f.csv
		cmp one/data/$f.csv out/data/$f.csv
	done
	cmp one/img/cycle-authors.svg two/img/cycle-authors.svg
}

# --since any commit REV contains; the cycle REV0..REV as git log has it.
case_since() {
	cycle_repo
	since=$(git -C r rev-parse v1.0~1)
	"$STRATA" report r --rev v2.0 --since "$since" --out out -q
	check "$since" v2.0
}

# Renames as git log finds them: among several candidates, by basename,
# by similarity; and a pure move of many files.
case_renames() {
	repo_new r
	commit_file x/a.c "a" $(lines a 1 50)
	commit_file x/b.c "b" $(lines a 1 45) $(lines b 1 5)
	commit_file y/same.txt "s" $(lines s 1 20)
	for i in 1 2 3 4 5 6; do put "m/f$i.c" $(lines "m$i" 1 8); done
	commit "m"
	git tag v1.0
	mkdir z
	git mv x/a.c z/a.c
	put z/a.c $(lines a 1 40) $(lines z 1 10)
	git rm -q x/b.c
	put w/other.c $(lines a 1 44) $(lines q 1 6)
	mkdir y2
	git mv y/same.txt y2/same.txt
	put y2/same.txt $(lines s 1 12) $(lines t 1 8)
	commit "renames"
	git mv m n
	put n/f1.c $(lines m1 1 7)
	commit "move"
	git tag v2.0
	cd ..
	"$STRATA" report r --rev v2.0 --out out -q
	check_authors v1.0 v2.0
}

# A trailer block of 100,000 lines, and one of 30,000 lines with a
# single non-trailer line: read as git reads them, in bounded time.
case_huge_trailers() {
	repo_new r
	commit_file a "a" x
	git tag v1.0
	{
		printf 'Huge\n\n'
		for ((i = 0; i < 100000; i++)); do
			printf 'Reviewed-by: P%d <p%d@example.org>\n' \
				$((i % 7)) $((i % 7))
		done
	} >"$WORK/big"
	put a y
	git add a
	tick
	git commit -q -F "$WORK/big"
	{
		printf 'Mixed\n\n'
		for ((i = 0; i < 30000; i++)); do
			printf 'Tested-by: T%d <t@example.org>\n' $((i % 3))
		done
		printf 'one line of prose\n'
	} >"$WORK/big"
	put a z
	git add a
	tick
	git commit -q -F "$WORK/big"
	git tag v2.0
	cd ..
	bounded "$STRATA" report r --rev v2.0 --out out -q
	git_trailers v1.0 v2.0 | sort >want
	tail -n +2 out/data/cycle-trailers.csv | tr -d '\r' | sort >got
	diff want got
	grep -q '^Reviewed-by,P0 <p0@example.org>,14286$' got
}

case_bad_since() {
	cycle_repo
	expect 2 "cannot find revision 'nope' for '--since'" \
		"$STRATA" table r --rev v2.0 --cycle --since nope
	side=$(git -C r rev-parse side)
	git -C r checkout -q -b other v1.0
	(cd r && commit_file o.c "off" o)
	expect 2 "'--since other' is not in the history of 'v2.0'" \
		"$STRATA" table r --rev v2.0 --cycle --since other
	expect 2 "--since has no effect with --by release without --cycle" \
		"$STRATA" table r --rev v2.0 --since "$side"
	expect 2 "--since has no effect with --no-cycle" \
		"$STRATA" report r --rev v2.0 --since "$side" --no-cycle \
		--out out
}

# REV0 = REV, and a repository of one release: said, not failed.
case_nothing_to_count() {
	cycle_repo
	"$STRATA" table r --rev v2.0 --cycle --since v2.0 >t1
	grep -q '^release cycle (none): the release cycle is empty: v2.0 is v2.0' t1
	"$STRATA" report r --rev v2.0 --since v2.0 --out out -q
	[ ! -e out/data/cycle-authors.csv ]
	grep -q '"status": "empty"' out/data/report.json
	repo_new one
	commit_file a "a" x
	git tag v1.0
	commit_file a "a" y
	cd ..
	"$STRATA" table one --rev v1.0 --cycle >t2
	grep -q '^release cycle (none): no release cycle: no release before' t2
	"$STRATA" report one --rev v1.0 --out out2 -q
	grep -q '"status": "no start"' out2/data/report.json
}

# The release before REV's tagged on a maintenance branch REV does not
# contain: the cycle is git log TAG..REV. v1.1 holds a commit of main
# ("pre"), so the report's history also loads its branch for v1.1's
# snapshot; the branch's own fix is still no changeset of the cycle.
case_fork() {
	repo_new r
	commit_file a.c "a" $(lines a 1 20)
	git tag v1.0
	commit_file c.c "pre" $(lines c 1 3)
	git checkout -q -b maint
	commit_file a.c "fix" $(lines a 1 19) fixed
	git tag v1.1
	git checkout -q main
	tick
	git cherry-pick maint >/dev/null
	commit_file b.c "b" $(lines b 1 9)
	commit_file a.c "more" $(lines a 1 10) $(lines z 1 5)
	git tag v2.0
	cd ..
	"$STRATA" table r --rev v2.0 --cycle >table.txt
	base=$(git -C r merge-base v1.1 v2.0)
	grep -q "^release cycle v1.1\.\.v2.0 (from .*, where v1.1's branch left v2.0's history: $base)" table.txt
	"$STRATA" report r --rev v2.0 --out out -q
	# the headline says whose code was replaced: the fork point's
	grep -q "of the code where v1.1’s branch left v2.0’s history" out/cycle.html
	grep -q "^replaced: .* lines where v1.1's branch left v2.0's history (" table.txt
	# the lines of v1.1 are counted where its branch left v2.0's
	check v1.1 v2.0 "$base"
}

# The tree diff of each commit as git diff-tree -r has it: a file that
# becomes a directory and one that goes back, a file that becomes a
# link, a mode changed alone, a directory deleted whole, unchanged
# directories beside changed ones deep down, and a gitlink.
case_tree_shapes() {
	repo_new r
	commit_file d "d" $(lines d 1 12)
	commit_file e/f/g.c "g" $(lines g 1 9)
	commit_file k.c "k" $(lines k 1 7)
	commit_file gone/x.c "x" $(lines x 1 5)
	put gone/y/z.c $(lines z 1 4)
	put deep/a/b/c/d/e/f.c $(lines f 1 6)
	put deep/a/b/other.c $(lines o 1 3)
	put deep/a/keep.c $(lines k 1 3)
	commit "more"
	git tag v1.0
	git rm -q d
	put d/inner.c $(lines i 1 8)
	commit "d becomes a directory"
	git rm -q -r e
	put e $(lines e 1 5)
	commit "e becomes a file"
	rm k.c
	ln -s d/inner.c k.c
	chmod +x deep/a/keep.c
	put deep/a/b/c/d/e/f.c $(lines f 1 4) $(lines F 1 3)
	commit "a link, a mode, a deep change"
	git rm -q -r gone
	git update-index --add --cacheinfo \
		160000,$(git rev-parse HEAD),sub
	commit_index "gone, and a gitlink"
	git update-index --cacheinfo 160000,$(git rev-parse HEAD~1),sub
	commit_index "the gitlink moves"
	git tag v2.0
	cd ..
	"$STRATA" report r --rev v2.0 --out out -q
	check_authors v1.0 v2.0
	# not an empty match: the five changesets are there
	grep -q ',5,' want
}

run_case against_git case_against_git
run_case fork case_fork
run_case since case_since
run_case renames case_renames
run_case tree_shapes case_tree_shapes
run_case huge_trailers case_huge_trailers
run_case bad_since case_bad_since
run_case nothing_to_count case_nothing_to_count
finish
