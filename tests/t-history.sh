#!/bin/bash
# The history (--history): every snapshot's composition equals git blame
# at the snapshot mapped to REV's releases, and equals `strata report --rev
# TAG --history none`; survival and half-lives follow from the counts;
# calendar snapshots pick the right commits; bad values are usage errors.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)

# report REPO OUT [OPTION...]: strata report, quietly, reproducibly.
report() {
	local repo=$1 out=$2
	shift 2
	SOURCE_DATE_EPOCH=1 "$STRATA" report "$repo" --out "$out" --quiet "$@"
}

# atag NAME [TARGET]: an annotated tag dated now (the clock).
atag() {
	tick
	git tag -a -m "$1" "$1" "${2:-HEAD}"
}

# same_as_rev REPO REPORT TAG [OPTION...]: the snapshot TAG of REPORT has
# the lines per release of `strata report --rev TAG --history none`.
same_as_rev() {
	local repo=$1 rep=$2 tag=$3 d
	shift 3
	d=$(mktemp -d "$WORK/rev.XXXXXX")
	report "$repo" "$d/r" --rev "$tag" --history none "$@"
	[ ! -e "$d/r/data/history.csv" ] || {
		echo "--history none wrote history.csv"
		return 1
	}
	awk -F, -v t="$tag" 'NR > 1 && $1 == t { sub(/\r$/, "", $4);
		print $3 "," $4 }' "$rep/data/history.csv" >"$d/snap"
	awk -F, 'NR > 1 && $5 > 0 { print $1 "," $5 }' \
		"$d/r/data/releases.csv" >"$d/rev"
	[ -s "$d/snap" ] || { echo "no snapshot $tag"; return 1; }
	if ! diff "$d/rev" "$d/snap"; then
		echo "snapshot $tag differs from --rev $tag (left)"
		return 1
	fi
}

# A history with edits, a rename into another directory, a file deleted
# and re-added, an rc tag, a release tagged on a side branch that is
# merged later, an evil merge, a reformatting commit and unreleased work.
build_history() {
	repo_new r
	put core/a.c $(lines a 1 40)
	put core/b.c $(lines b 1 30)
	put README $(lines readme 1 5)
	put drivers/x.c $(lines x 1 20)
	commit "initial"
	atag v1.0
	put core/a.c $(lines a 1 4) $(lines a11 5 10) $(lines a 11 40)
	commit "edit a"
	mkdir -p lib
	git mv core/b.c lib/b.c
	put lib/b.c $(lines b 1 28) b-new
	git rm -q README
	commit "move b to lib, drop README"
	atag v1.1-rc1
	put drivers/x.c $(lines x 1 10) x11 $(lines x 12 20)
	commit "fix x"
	atag v1.1
	git checkout -q -b feature
	put drivers/x.c $(lines feat 1 5) $(lines x 1 10) x11 $(lines x 12 20)
	commit "feature in x"
	atag v1.2
	git checkout -q main
	put core/a.c $(lines a 1 4) $(lines a11 5 10) $(lines a 11 38) a-end
	commit "edit a on main"
	tick
	git merge -q --no-ff --no-commit feature
	put core/c.c "evil" $(lines c 1 3)
	git add -A
	commit_index "merge feature, evil"
	put README $(lines readme 1 3) readme-back
	commit "README back"
	# Only whitespace changes: -w and --ignore-rev see through them.
	sed -i 's/^a\([0-9]*\)$/a\1  /' core/a.c
	commit "reformat a"
	git tag reformat
	atag v2.0
	put lib/b.c b0 $(lines b 1 28) b-new
	commit "unreleased b"
	git tag -d reformat >/dev/null
}

history_releases() {
	build_history
	local rf
	rf=$(git rev-parse HEAD~1)
	report . "$WORK/h" --history releases
	python3 "$here/history-check.py" . "$WORK/h"
	# Every tag's snapshot, also the one merged from a side branch.
	for t in v1.0 v1.1 v1.2 v2.0; do
		same_as_rev . "$WORK/h" "$t"
	done
	[ "$(jq_len "$WORK/h" snapshots)" = 5 ] ||
		{ echo "want 5 snapshots (4 releases and HEAD)"; return 1; }
	report . "$WORK/w" -w
	python3 "$here/history-check.py" . "$WORK/w" -w
	report . "$WORK/i" --ignore-rev "$rf"
	python3 "$here/history-check.py" . "$WORK/i" --ignore-rev "$rf"
	same_as_rev . "$WORK/i" v2.0 --ignore-rev "$rf"
	report . "$WORK/f" --first-parent
	python3 "$here/history-check.py" . "$WORK/f" --first-parent
	# v1.2 is not on the first-parent chain: no snapshot of it.
	! grep -q '^v1\.2,' "$WORK/f/data/history.csv" ||
		{ echo "--first-parent took v1.2"; return 1; }
}

# A release branch never merged back (redis): its tag, dated before REV,
# claims the commits of main it contains (--tag-scope dated) and gets its
# snapshot, as git blame gives it there, its own fix included (counted
# in no release's commits: REV's history lacks it); with merged it is
# not a release.
history_release_branch() {
	repo_new r
	put core/a.c $(lines a 1 20)
	commit "initial"
	atag v1.0
	put core/a.c $(lines a 1 10) $(lines a11 11 20)
	commit "before the fork"
	git checkout -q -b rel-1.1
	put core/a.c $(lines a 1 10) $(lines a11 11 19) fix
	GIT_AUTHOR_NAME="Branch Fixer" GIT_AUTHOR_EMAIL=fixer@example.org \
		commit "fix on the branch"
	atag v1.1
	git checkout -q main
	put core/a.c $(lines a 1 5) $(lines a6 6 10) $(lines a11 11 20)
	commit "main goes on"
	atag v2.0
	put core/b.c $(lines b 1 3)
	commit "unreleased"
	report . "$WORK/d" --history releases
	python3 "$here/history-check.py" . "$WORK/d"
	grep -q '^v1\.1,v1\.1,.*,1,10,' "$WORK/d/data/releases.csv" ||
		{ echo "v1.1 lacks its commit and lines"; cat "$WORK/d/data/releases.csv"; return 1; }
	python3 -c 'import json, sys
names = [s["name"] for s in json.load(open(sys.argv[1] +
    "/data/report.json"))["history"]["snapshots"]]
sys.exit(0 if names == ["v1.0", "v1.1", "v2.0", "HEAD"] else "snapshots %s" % names)' "$WORK/d"
	same_as_rev . "$WORK/d" v2.0
	# The fix is the v1.1 snapshot's, no commit of REV's: nobody's count.
	! grep -q '^Branch Fixer,' "$WORK/d/data/authors.csv" ||
		{ echo "the branch's own commit counted"; cat "$WORK/d/data/authors.csv"; return 1; }
	report . "$WORK/fp" --history releases --first-parent
	python3 "$here/history-check.py" . "$WORK/fp" --first-parent
	[ "$(jq_len "$WORK/fp" snapshots)" = 4 ] ||
		{ echo "--first-parent lost the branch's snapshot"; return 1; }
	report . "$WORK/m" --history releases --tag-scope merged
	python3 "$here/history-check.py" . "$WORK/m"
	! grep -q '^v1\.1,' "$WORK/m/data/releases.csv" ||
		{ echo "merged took v1.1"; return 1; }
}

# A tag dated before REV on a commit that descends from REV (a clock set
# back): it counts (--tag-scope dated) and claims REV's commits, but the
# walk cannot reach it before REV, so it has no snapshot, and says so.
history_tag_contains_rev() {
	repo_new r
	put a.c $(lines a 1 10)
	commit "initial"
	atag v1.0
	put a.c $(lines a 1 5) $(lines b 6 10)
	commit "REV"
	local rev
	rev=$(git rev-parse HEAD)
	put a.c $(lines a 1 5) $(lines c 6 10)
	commit "after REV"
	at $((_clock - 90))
	git tag -a -m v1.5 v1.5
	report . "$WORK/c" --rev "$rev" --history releases
	python3 "$here/history-check.py" . "$WORK/c"
	python3 -c 'import json, sys
h = json.load(open(sys.argv[1] + "/data/report.json"))["history"]
names = [s["name"] for s in h["snapshots"]]
if names != ["v1.0", sys.argv[2]] or h["without_snapshot"] != ["v1.5"]:
    sys.exit("snapshots %s, without %s" % (names, h["without_snapshot"]))' \
		"$WORK/c" "$rev"
	grep -q 'No snapshot of v1\.5: its tag contains' "$WORK/c/history.html" ||
		{ echo "the page does not say why v1.5 has no snapshot"; return 1; }
}

# jq_len REPORT KEY: the length of report.json's history.KEY.
jq_len() {
	python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1] + "/data/report.json"))["history"][sys.argv[2]]))' "$1" "$2"
}

# Binary files at a snapshot count nothing there, as git's rule says (a
# NUL in the first 8,000 bytes, or empty): also a file binary or empty in
# an early snapshot and text at REV, whose check is left to its diff
# (blame_list.c, snapset_check_text()), and a file text in early
# snapshots and binary at REV, checked before the diffs.
history_binary_files() {
	local j
	repo_new r
	put t/a.c $(lines a 1 12)
	# (printf writes the NUL: a shell string cannot hold one.)
	printf 'bin\0ary\nbytes\n' >t/grow.txt
	put t/empty.txt
	put t/later.txt $(lines later 1 6)
	commit "initial"
	atag v1.0
	put t/grow.txt $(lines grow 1 5)
	put t/empty.txt $(lines empty 1 3)
	commit "grow and fill"
	atag v1.1
	printf 'later1\n\0\n' >t/later.txt
	commit "later binary"
	atag v1.2
	put t/a.c $(lines a 1 10) a-new
	commit "edit a"
	for j in 1 2; do
		"$STRATA" report . --out "$WORK/b$j" --quiet --history releases \
			--jobs "$j" --no-cycle --verbose 2>"$WORK/b$j.err"
		python3 "$here/history-check.py" . "$WORK/b$j"
		# v1.0: a.c, later.txt; v1.1: all four; v1.2 and HEAD: not
		# later.txt (--no-cycle: no snapshot of the cycle's start).
		# Versions: a.c twice, each of the others once.
		grep -qx 'strata: 4 snapshots (releases): 12 text files, 5 distinct versions' \
			"$WORK/b$j.err" || { grep snapshots "$WORK/b$j.err"; return 1; }
	done
	cmp "$WORK/b1/data/history.csv" "$WORK/b2/data/history.csv"
	report . "$WORK/bw" --history releases -w
	python3 "$here/history-check.py" . "$WORK/bw" -w
}

# The report at REV equals the last snapshot, and the table prints it.
history_table() {
	build_history
	report . "$WORK/h"
	"$STRATA" table . --history releases --quiet >"$WORK/table"
	local snap lines
	for snap in v1.0 v1.1 v1.2 v2.0 HEAD; do
		lines=$(awk -F, -v s=$snap 'NR > 1 && $1 == s { sub(/\r$/, "",
			$4); n += $4 } END { print n }' "$WORK/h/data/history.csv")
		grep -Eq "^$snap +[0-9-]+ +$lines " "$WORK/table" ||
			{ echo "table lacks $snap with $lines lines"; cat "$WORK/table"; return 1; }
	done
	total=$(awk -F, 'NR > 1 { n += $5 } END { print n }' \
		"$WORK/h/data/releases.csv")
	[ "$lines" = "$total" ] ||
		{ echo "HEAD snapshot $lines lines, report $total"; return 1; }
	grep -q '^v1.0 .* v1.0 ' "$WORK/table" ||
		{ echo "no survival row for v1.0"; return 1; }
}

# epoch DATE: seconds since the epoch of an ISO date with offset.
epoch() { date -d "$1" +%s; }

# Calendar snapshots: the last first-parent commit strictly before each
# boundary (UTC), whatever the commits' time zones; a year without
# commits repeats the one before.
history_calendar() {
	repo_new r
	commit_at() {
		local when=$1 tz=$2
		put "${4:-f}" "$3"
		git add -A
		GIT_AUTHOR_DATE="$when $tz" GIT_COMMITTER_DATE="$when $tz" \
			git commit -q -m "$3"
	}
	commit_at @$(epoch 2019-06-01T12:00Z) +0000 root
	# 2019-12-31 23:30 at -0500 is 2020-01-01 04:30 UTC.
	commit_at @$(epoch 2020-01-01T04:30Z) -0500 new-year-eve-west
	commit_at @$(epoch 2020-03-15T00:00Z) +1400 march
	commit_at @$(epoch 2020-12-31T23:59:59Z) +0000 last-second
	commit_at @$(epoch 2021-01-01T00:00:00Z) +0000 first-second
	git checkout -q -b side
	commit_at @$(epoch 2021-06-01T00:00Z) +0000 on-side g
	git checkout -q main
	commit_at @$(epoch 2023-05-01T00:00Z) +0000 late
	tick
	GIT_COMMITTER_DATE="@$(epoch 2023-05-02T00:00Z) +0000" \
		git merge -q --no-ff -m merge side
	report . "$WORK/y" --history year
	python3 "$here/history-check.py" . "$WORK/y"
	python3 - "$WORK/y" <<-'EOF'
	import json, subprocess, sys
	h = json.load(open(sys.argv[1] + "/data/report.json"))["history"]
	subj = lambda c: subprocess.run(["git", "log", "-1", "--format=%s", c],
	    capture_output=True, text=True).stdout.strip()
	got = [(s["name"], subj(s["commit"])) for s in h["snapshots"]]
	want = [("2020-01-01", "root"), ("2021-01-01", "last-second"),
	    ("2022-01-01", "first-second"), ("2023-01-01", "first-second"),
	    ("HEAD", "merge")]
	if got != want:
	    sys.exit("year snapshots %s, want %s" % (got, want))
	import calendar, time
	for s in h["snapshots"][:-1]:
	    b = s["name"] + "T00:00:00Z"
	    t = calendar.timegm(time.strptime(b, "%Y-%m-%dT%H:%M:%SZ"))
	    c = subprocess.run(["git", "rev-list", "--first-parent", "-1",
	        "--before=@%d" % (t - 1), "HEAD"],
	        capture_output=True, text=True).stdout.strip()
	    if s["date"] != b or s["commit"] != c:
	        sys.exit("snapshot %s: %s %s, git %s" % (s["name"], s["date"],
	            s["commit"], c))
	EOF
	report . "$WORK/q" --history quarter
	python3 -c 'import json, sys
h = json.load(open(sys.argv[1] + "/data/report.json"))["history"]
names = [s["name"] for s in h["snapshots"]]
want = ["2019-07-01", "2019-10-01"] + ["%d-%02d-01" % (y, m)
    for y in (2020, 2021, 2022) for m in (1, 4, 7, 10)] + ["2023-01-01",
    "2023-04-01", "HEAD"]
assert names == want, names
assert h["when"] == "quarter"' "$WORK/q"
	report . "$WORK/m" --history month
	[ "$(jq_len "$WORK/m" snapshots)" = $((6 + 36 + 5 + 1)) ] ||
		{ echo "month snapshots: $(jq_len "$WORK/m" snapshots)"; return 1; }
}

# One commit: one snapshot, REV; no boundary, no error.
history_one_commit() {
	repo_new r
	put f one
	commit one
	git tag v1.0
	local w
	for w in year releases month; do
		report . "$WORK/o-$w" --history $w
		[ "$(jq_len "$WORK/o-$w" snapshots)" = 1 ] ||
			{ echo "--history $w: not one snapshot"; return 1; }
	done
	python3 "$here/history-check.py" . "$WORK/o-year"
}

history_usage() {
	repo_new r
	put f one
	commit one
	git tag v1.0
	local rc=0
	"$STRATA" report . --out "$WORK/u" --history yearly 2>"$WORK/err" ||
		rc=$?
	[ $rc = 2 ] || { echo "unknown word: exit $rc"; return 1; }
	grep -q "^strata: invalid value 'yearly' for '--history'" "$WORK/err" ||
		{ cat "$WORK/err"; return 1; }
	[ ! -e "$WORK/u" ] || { echo "a usage error wrote $WORK/u"; return 1; }
	rc=0
	"$STRATA" blame . --history year >/dev/null 2>&1 || rc=$?
	[ $rc = 2 ] || { echo "blame --history: exit $rc"; return 1; }
	rc=0
	"$STRATA" table . --history 2>/dev/null || rc=$?
	[ $rc = 2 ] || { echo "--history without a value: exit $rc"; return 1; }
	report . "$WORK/n" --history none
	[ ! -e "$WORK/n/data/history.csv" ] &&
		grep -q '"history": null' "$WORK/n/data/report.json" ||
		{ echo "--history none wrote a history"; return 1; }
}

# Survival cannot pass 100%: a release folded from several tags by
# --group (1.0, then 1.0.1 with ten more lines) counts at its standing
# tag's snapshot; what its later tags add arrived after it and is counted
# apart (before, 1's share at 2.0 was 300%).
history_survival_arrived() {
	repo_new r
	put f $(lines a 1 5)
	commit one
	atag v1.0
	put f $(lines a 1 5) $(lines b 1 10)
	commit two
	atag v1.0.1
	put g x
	commit three
	atag v2.0
	report . "$WORK/s" --group 'v([0-9]+)\..*'
	cat >"$WORK/want" <<'EOF'
1,v1.0,5,100.00,0
1,v2.0,5,100.00,10
2,v2.0,1,100.00,0
EOF
	tail -n +2 "$WORK/s/data/survival.csv" | tr -d "\r" | cut -d, -f1,2,4- |
		diff "$WORK/want" - || return 1
	head -1 "$WORK/s/data/survival.csv" | tr -d "\r" |
		grep -qx 'release,snapshot,date,lines,share,arrived'
}

run_case history_binary_files history_binary_files
run_case history_releases history_releases
run_case history_table history_table
run_case history_release_branch history_release_branch
run_case history_tag_contains_rev history_tag_contains_rev
run_case history_calendar history_calendar
run_case history_one_commit history_one_commit
run_case history_usage history_usage
run_case history_survival_arrived history_survival_arrived
finish
