#!/bin/bash
# Publishing DIR: built beside it and swapped in, so a failed or killed run
# leaves the previous report whole; files strata did not write are never
# deleted or replaced; a foreign non-empty DIR needs --force. With
# --jobs N the charts are drawn by up to 4 processes (chart_proc.c), each
# chart once: the same files as one draws. A chart that fails or a drawer
# that dies, in a child or in the report process, fails the run with one
# line and leaves DIR as it was (STRATA_TEST_CHART_FAIL, src/chart.c).
# many_releases DIR N: a repository of N releases v1..vN, each adding and
# changing lines, so that the history's charts are worth other processes
# (src/chart.c, CHART_FORK_MIN_WORK: snapshots x releases >= 600). Written
# by one git fast-import: the commits git add and git commit made (the same
# ids), without their processes.
many_releases() {
	local dir=$1 n=$2 i k f base= when
	git init -q "$dir"
	for ((i = 1; i <= n; i++)); do
		f=
		for ((k = i; k <= i * 7; k++)); do f+="$k"$'\n'; done
		for ((k = 1; k <= i; k++)); do base+="$k"$'\n'; done
		when="$((1600000000 + i * 86400)) +0000"
		fi_head refs/heads/main "$when" "r$i"
		fi_file "f$((i % 5)).txt" "$f"
		fi_file base.txt "$base"
		printf 'reset refs/tags/v%d\nfrom refs/heads/main\n\n' "$i"
	done | git -C "$dir" fast-import --quiet
}

drawn_apart() {
	local j name me=$BASHPID REPO=$PWD/many
	many_releases many 26
	STRATA_TEST_CHART_TRACE="$PWD/trace1:$me" report "$REPO" --out one --jobs 1
	cut -d' ' -f2 trace1 | sort >charts1
	[ "$(cut -d' ' -f1 trace1 | sort -u)" = 0 ] || { echo "one job, other parts"; return 1; }
	for j in 2 3 7; do
		STRATA_TEST_CHART_TRACE="$PWD/trace$j:$me" \
			report "$REPO" --out "j$j" --jobs "$j"
		diff -r one/img "j$j/img" || { echo "--jobs $j drew other charts"; return 1; }
		diff -r one/data "j$j/data" -x report.json ||
			{ echo "--jobs $j wrote other data"; return 1; }
		# Each chart drawn once, by one of min(j, 4) processes, which
		# take them as they come (src/chart_out.c, chart_mine()).
		cut -d' ' -f2 "trace$j" | sort | diff charts1 - ||
			{ echo "--jobs $j: charts drawn twice or not at all"; return 1; }
		cut -d' ' -f1 "trace$j" | sort -u | grep -vqx "[0-$(( (j < 4 ? j : 4) - 1 ))]" &&
			{ echo "--jobs $j: a part out of range"; return 1; }
	done
	[ "$(find one/img -name '*.png' | wc -l)" -gt 20 ] || { echo "few charts"; return 1; }
	cp -a one rep
	snapshot rep >before
	# releases is the first chart (the report process's), subsystems the
	# second (the child's with two drawers); years is drawn later.
	for name in releases subsystems years; do
		for j in 1 2; do
			STRATA_TEST_CHART_FAIL="$name:$me" expect 1 \
				"test failure of chart '$name'\$" \
				report "$REPO" --out rep --jobs "$j"
			snapshot rep | diff before -
			no_leftovers
		done
	done
	STRATA_TEST_CHART_FAIL="subsystems!:$me" expect 1 \
		"a chart drawing process was killed by signal 9 \(Killed\)\$" \
		report "$REPO" --out rep --jobs 2
	snapshot rep | diff before -
	no_leftovers
	# Not this test's parent: the hook is ignored.
	STRATA_TEST_CHART_FAIL="releases:1" report "$REPO" --out rep --jobs 2
	diff -r one/img rep/img
	# Too little to draw for a second process (the site's repository): the
	# report process draws subsystems itself, and so is the one killed.
	local rc=0
	STRATA_TEST_CHART_FAIL="subsystems!:$me" report "$WORK/repo" \
		--out small --jobs 2 2>/dev/null || rc=$?
	[ "$rc" = 137 ] || { echo "exit $rc: not drawn by the report process"; return 1; }
	find . -maxdepth 1 -name '.small.strata-*' -exec rm -rf {} +
	[ -z "$(pgrep -P "$me" strata)" ] || { echo "a drawer outlived strata"; return 1; }
}

# strata-publish.so of another interface is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)
TEMPLATES=$TESTS/../templates

site_repo "$WORK/repo"
REPO=$WORK/repo

# no_leftovers: no temporary directory of strata's beside the reports.
no_leftovers() {
	local left
	left=$(find . -maxdepth 1 -name '.*.strata-*')
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

second_run() {
	report "$REPO" --rev v2.0 --out out
	has out/index.html '<strong>72.2%</strong> of the code at v2.0'
	# Files strata did not write, at the top and inside its directories.
	echo notes >out/notes.txt
	echo logo >out/img/logo.png
	mkdir out/extra && echo x >out/extra/x
	report "$REPO" --out out
	has out/index.html '<strong>70.9%</strong> of the code at HEAD'
	[ "$(cat out/notes.txt)" = notes ] && [ "$(cat out/img/logo.png)" = logo ] &&
		[ "$(cat out/extra/x)" = x ] || { echo "foreign files lost"; return 1; }
	lacks out/.strata-report notes.txt logo.png extra
	# At v1.1 there is no <svg ...> directory: its page and charts go.
	[ -e out/svg_onload_alert_1-35157b.html ] &&
		[ -e out/img/dir-svg_onload_alert_1-35157b@narrow.svg ] ||
		{ echo "no page of <svg ...> to remove"; return 1; }
	report "$REPO" --rev v1.1 --out out
	has out/index.html '<strong>82.0%</strong> of the code at v1.1'
	[ ! -e out/svg_onload_alert_1-35157b.html ] &&
		[ ! -e out/img/dir-svg_onload_alert_1-35157b.svg ] &&
		[ ! -e out/img/dir-svg_onload_alert_1-35157b@narrow.svg ] ||
		{ echo "stale pages kept"; return 1; }
	[ "$(cat out/notes.txt)" = notes ] || { echo "notes.txt lost"; return 1; }
	python3 "$TESTS/linkcheck.py" out
	no_leftovers
}

refuse_foreign() {
	mkdir foreign && echo hi >foreign/keep.txt
	if report "$REPO" --out foreign 2>err; then
		echo "wrote into a foreign directory"
		return 1
	fi
	has err "refusing to write into 'foreign': not a strata report (use --force)"
	[ "$(ls -A foreign)" = keep.txt ] || { echo "foreign touched"; return 1; }
	no_leftovers
	# --force adds the report and keeps what was there; later runs need
	# no --force (the marker is there now) and still keep it.
	report "$REPO" --out foreign --force
	[ -s foreign/index.html ] && [ "$(cat foreign/keep.txt)" = hi ] ||
		{ echo "--force lost keep.txt"; return 1; }
	report "$REPO" --rev v1.1 --out foreign
	[ "$(cat foreign/keep.txt)" = hi ] || { echo "keep.txt lost"; return 1; }

	# A file of the user's where the report has one: never replaced.
	mkdir mine && echo mine >mine/index.html
	if report "$REPO" --out mine --force 2>err; then
		echo "replaced a foreign index.html"
		return 1
	fi
	has err "refusing to replace 'mine/index.html': strata did not write it"
	[ "$(ls -A mine)" = index.html ] && [ "$(cat mine/index.html)" = mine ] ||
		{ echo "mine/ touched"; return 1; }

	# A directory kept in git by a lone .gitignore is fine, and kept.
	mkdir kept && printf '*\n!.gitignore\n' >kept/.gitignore
	report "$REPO" --out kept
	[ -s kept/index.html ] && [ -s kept/.gitignore ] || { echo ".gitignore"; return 1; }

	# Not a directory; a new directory under a new parent.
	echo >afile
	if report "$REPO" --out afile 2>err; then
		echo "wrote over a file"
		return 1
	fi
	has err "'afile' is not a directory"
	report "$REPO" --out new/sub/dir
	[ -s new/sub/dir/index.html ] || { echo "no new/sub/dir"; return 1; }
	no_leftovers
}

failed_run() {
	report "$REPO" --rev v1.1 --out out
	snapshot out >before
	# A run that fails half-way through, after the data is written: a
	# file size limit makes the first chart fail.
	if (trap '' XFSZ; ulimit -f 8; report "$REPO" --out out 2>err); then
		echo "the size limit did not bite"
		return 1
	fi
	cat err
	has err "File too large"
	snapshot out | diff before -
	no_leftovers
	# The same into a directory that does not exist yet: still nothing.
	if (trap '' XFSZ; ulimit -f 8; report "$REPO" --out fresh 2>/dev/null); then
		return 1
	fi
	[ ! -e fresh ] || { echo "fresh/ was left"; return 1; }
	no_leftovers
	# A template that does not parse fails before any work.
	cp -r "$TEMPLATES" broken
	printf '{{#NEVER_CLOSED}}\n' >>broken/untouched.tpl
	if report "$REPO" --out out --templates broken 2>err; then
		echo "a broken template went through"
		return 1
	fi
	has err "untouched.tpl"
	snapshot out | diff before -
	no_leftovers
}

# Kill strata (SIGKILL, nothing to catch) at every phase of publishing
# (STRATA_TEST_STOP, lib.sh's stop_at): DIR is always one whole report,
# the previous one up to the swap and the new one from it on, and a killed
# run leaves nothing beside it but its build directory.
killed_run() {
	local phase want=old building=0
	report "$REPO" --rev v1.1 --out old-ref
	report "$REPO" --out new-ref
	report "$REPO" --rev v1.1 --out out
	for phase in check stage data charts site marker carried swapped \
		removed; do
		[ "$phase" = swapped ] && want=new
		SOURCE_DATE_EPOCH=1700000000 stop_at "$phase" "$STRATA" report \
			--quiet "$REPO" --out out ||
			{ echo "strata did not stop at $phase"; return 1; }
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
		if ! diff -r out "$want-ref" >/dev/null; then
			echo "killed at $phase: out/ is not the $want report"
			diff -r out "$want-ref" | head -n 5
			return 1
		fi
		echo "killed at $phase: the $want report"
		[ $want = old ] || { rm -rf out && cp -a old-ref out; }
		if [ -n "$(find . -maxdepth 1 -name '.out.strata-*')" ]; then
			building=$((building + 1))
			find . -maxdepth 1 -name '.out.strata-*' -exec rm -rf {} +
		fi
		no_leftovers
	done
	# From stage to carried the build directory is there; after the
	# swap, the old report is (beside DIR) until removed.
	[ "$building" = 7 ] ||
		{ echo "$building runs left a build directory, not 7"; return 1; }
}

# strata-publish.so of another interface (include/strata/publish.h) is
# refused with one clear line, before any work; and the binary exports to
# the object only what src/publish.sym lists.
other_interface() {
	local root=$TESTS/.. abi sym
	abi=$(sed -n 's/^#define PUBLISH_ABI \([0-9]*\)$/\1/p' \
		"$root/include/strata/publish.h")
	[ -n "$abi" ] || { echo "no PUBLISH_ABI in publish.h"; return 1; }
	mkdir alone
	cp "$STRATA" alone/strata
	cat >other.c <<'C'
#include "strata/publish.h"
const int strata_publish_abi = PUBLISH_ABI + 1;
const struct publish_api strata_publish_api = { STRATA_VERSION, 0, 0, 0, 0 };
C
	${CC:-cc} -shared -fPIC -I"$root/include" -DSTRATA_VERSION='"x"' \
		-o alone/strata-publish.so other.c
	expect 1 "strata-publish\.so has interface $((abi + 1)), this strata needs $abi\$" \
		alone/strata report "$REPO" --out rep
	[ ! -e rep ] || { echo "a refused object left 'rep'"; return 1; }
	# (A sanitizer's runtime linked into the binary exports its own.)
	for sym in $(nm -D --defined-only "$STRATA" | awk '$2 == "T" { print $3 }' |
		grep -Ev '^(__(asan|lsan|ubsan|sanitizer|interceptor)|_ZN(6__asan|11__sanitizer|7__ubsan))'); do
		grep -Eq "^[[:space:]]*$sym;" "$root/src/publish.sym" ||
			{ echo "exported but not in publish.sym: $sym"; return 1; }
	done
}

run_case second_run second_run
run_case refuse_foreign refuse_foreign
run_case failed_run failed_run
run_case killed_run killed_run
run_case drawn_apart drawn_apart
run_case other_interface other_interface
finish
