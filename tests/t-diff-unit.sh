#!/bin/bash
# diff: src/diff.c (our own xdiff) against libgit2's git_diff_buffers and
# against git itself (tests/unit/diff_test.c).
#
# libgit2 1.5 gives git 2.39's hunks after the same tail trim, except on
# lines with \v or \f: its xdiff takes them for whitespace (the C library's
# isspace), git's does not, and strata follows git. So the comparison with
# libgit2 builds diff.c with DIFF_SPACE_LIKE_LIBGIT2 and must match exactly:
# synthetic cases (sliders, repeats, blank lines, CRLF, no final newline,
# empty sides, -w, big repetitive and 20k+ line texts), every modified blob
# pair of this repository and a fixed sample of a real repository's history
# (its last 4000 commits) when STRATA_REAL_REPO names one. The build as
# shipped is then checked against `git diff -U0` on texts full of \v and \f.
#
# STRATA_REAL_REPO=DIR: a real repository (a work tree or a git directory,
# tmux's or git's say) for the checks on a long history; without it they
# are skipped (`skip: ...` in the log), the others run.
# DIFF_PAIRS=N sets the size of its sample (default 1000).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-diff-unit
command -v git >/dev/null || fail "git is missing"

build() {
	unit_build "$1" "libgit2 libdeflate zlib" -O2 "${@:2}" tests/unit/diff_test.c \
		src/diff.c src/odb.c src/error.c
}
build "$tmp/vs_libgit2" -DDIFF_SPACE_LIKE_LIBGIT2
build "$tmp/vs_git"

"$tmp/vs_libgit2" synth 30 || fail "synthetic cases differ from libgit2"

# Modified blob pairs of a history: "OLD NEW", first seen first (of the
# last $2 commits only, if given).
pairs() {
	git -C "$1" log --raw --no-abbrev --no-renames -m --format= \
		${2:+--max-count="$2"} |
		awk '$1 != ":160000" && $2 != "160000" && $5 == "M" &&
		     !seen[$3 " " $4]++ { print $3, $4 }'
}

# A sample spread over the whole history, the same every run.
sample() {
	awk -v n="$1" '{ l[NR] = $0 }
		END { step = NR > n ? NR / n : 1
		      for (i = 1; i <= NR && i <= n * step; i += step)
			print l[int(i)] }'
}

gitdir=$(git -C "$root" rev-parse --git-dir 2>/dev/null || true)
if [ -n "$gitdir" ]; then
	gitdir=$(cd "$root" && cd "$gitdir" && pwd)
	pairs "$gitdir" >"$tmp/own.pairs"
	"$tmp/vs_libgit2" pairs "$gitdir" <"$tmp/own.pairs" ||
		fail "this repository's history differs from libgit2"
fi
# The real repository, if any: its git directory in $real.
real=
if [ -z "${STRATA_REAL_REPO:-}" ]; then
	echo "skip: the checks on a real history: STRATA_REAL_REPO is not set"
elif ! real=$(git -C "$STRATA_REAL_REPO" rev-parse --absolute-git-dir \
	2>/dev/null); then
	fail "STRATA_REAL_REPO=$STRATA_REAL_REPO is not a git repository"
fi
n=${DIFF_PAIRS:-1000}
if [ -n "$real" ]; then
	pairs "$real" 4000 | sample "$n" >"$tmp/real.pairs"
	"$tmp/vs_libgit2" pairs "$real" <"$tmp/real.pairs" ||
		fail "$STRATA_REAL_REPO's history differs from libgit2"
fi

# Whole chains: the modified pairs of each file one after another (newest
# first), so that every blob comes back in the next diff and strata's side
# works from the lines it kept of it (diff_blobs with object ids).
chains() {
	git -C "$1" log --raw --no-abbrev --no-renames --format= \
		${2:+--max-count="$2"} |
		awk -F'\t' '{ split($1, f, " ") }
		     f[1] != ":160000" && f[2] != "160000" && f[5] == "M" &&
		     !seen[f[3] " " f[4]]++ { print $2 "\t" f[3], f[4] }' |
		sort -s -t"$(printf '\t')" -k1,1 | cut -f2 | head -n "$3"
}
if [ -n "$gitdir" ]; then
	chains "$gitdir" "" 3000 >"$tmp/own.chains"
	"$tmp/vs_libgit2" pairs "$gitdir" <"$tmp/own.chains" ||
		fail "this repository's file histories differ from libgit2"
fi
if [ -n "$real" ]; then
	chains "$real" 4000 "$n" >"$tmp/real.chains"
	"$tmp/vs_libgit2" pairs "$real" <"$tmp/real.chains" ||
		fail "$STRATA_REAL_REPO's file histories differ from libgit2"
fi
# A dictionary that starts over every few calls: kept tables go stale and
# must not be used.
build "$tmp/vs_libgit2_tiny" -DDIFF_SPACE_LIKE_LIBGIT2 -DDICT_MAX_IDS=500 \
	-DDICT_MAX_TEXT=8192
if [ -n "$gitdir" ]; then
	"$tmp/vs_libgit2_tiny" pairs "$gitdir" <"$tmp/own.chains" ||
		fail "file histories differ from libgit2 with a tiny dictionary"
fi

# Lines numbered straight from pack deltas (diff_stored) against the
# blobs' bytes: a history whose deltas cut lines everywhere (random edits,
# no final newline, CRLF, a line longer than a 64 KiB copy, 200 KB files
# copied in 64 KiB pieces, empty versions, a last line cut short, a
# last line without a newline that the next delta goes on with), loose,
# then packed with offset and with name deltas, with room for few tables
# and with a dictionary that starts over all the time; then the real
# repository's file histories.
build "$tmp/stored" -DDICT_MAX_IDS=50000 -DDICT_MAX_TEXT=1048576
build "$tmp/stored_tiny" -DPLACED=4 -DPLACED_BYTES=4096 -DDICT_MAX_IDS=500 \
	-DDICT_MAX_TEXT=8192
d=$tmp/deltas
git init -q "$d"
(
	cd "$d"
	export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a \
		GIT_COMMITTER_EMAIL=a@x
	for i in $(seq 1 60); do
		awk -v i="$i" 'BEGIN { srand(i); n = 300 + int(rand() * 200)
			for (k = 0; k < n; k++) {
				r = rand()
				if (r < 0.05) printf "changed %d %d\n", i, k
				else if (r < 0.08) printf "\n"
				else printf "\tline %d of the file\n", k }
			printf "last line %d", i % 7 }' >edits.c
		awk -v i="$i" 'BEGIN { for (k = 0; k < 400; k++)
			printf "crlf %d %s\r\n", k, (k % 50 == i % 50) ? i : "" }' \
			>crlf.txt
		if [ $((i % 9)) = 0 ]; then : >sometimes; else
			seq 1 $((i * 13)) >sometimes; fi
		{ head -c $((70000 + i * 3)) /dev/zero | tr '\0' 'y'
		  echo; echo "after $i"; } >longline
		{ seq 1 40000; echo "end $i"; seq 1 $((i % 3)); } >long.txt
		printf 'no newline %d\nstill %d' "$((i / 2))" "$i" >nonl
		# The old version's last line is a prefix of the new one's.
		{ seq 1 300; printf 'still 1%s' "$([ "$i" = 60 ] && echo 2345)"; } \
			>prefix
		git add -A
		git commit -q -m "commit $i"
	done
	# A chain of three in which a delta's last line, longer than one
	# copy and without a newline, goes on in the next delta.
	L="a last line without a newline: $(seq 1 20000 | tr '\n' ' ')"
	{ seq 1 150 | sed 's/^/other /'; seq 1000 3000; seq 5000 5600
	  printf '%s' "$L"; } >chain
	git add chain && git commit -q -m R
	{ seq 1 150 | sed 's/^/alpha /'; seq 1000 3000; printf '%s' "$L"; } >chain
	git add chain && git commit -q -m X
	{ seq 1 150 | sed 's/^/alpha /'; printf '%s, and more\n' "$L"; } >chain
	git add chain && git commit -q -m Y
)
pairs "$d/.git" >"$tmp/deltas.pairs"
chains "$d/.git" "" 100000 >>"$tmp/deltas.pairs"
[ "$(wc -l <"$tmp/deltas.pairs")" -gt 500 ] || fail "too few blob pairs"
stored_check() {
	local label=$1 out
	shift
	for t in stored stored_tiny; do
		out=$("$tmp/$t" stored "$@" <"$tmp/deltas.pairs") ||
			fail "$label ($t): $out"
	done
	echo "t-diff-unit: $label: $out"
}
stored_check loose "$d"
git -C "$d" repack -q -a -d -f --depth=50 --window=50
[ "$(git -C "$d" count-objects | cut -d' ' -f1)" = 0 ] ||
	git -C "$d" prune --expire=now
stored_check "offset deltas" "$d"
git -C "$d" -c repack.useDeltaBaseOffset=false repack -q -a -d -f \
	--depth=50 --window=50
stored_check "name deltas" "$d"
if [ -n "$real" ]; then
	chains "$real" "" "$n" >"$tmp/deltas.pairs"
	stored_check "$STRATA_REAL_REPO" "$real"
fi

# The build as shipped against git on \v and \f.
mkdir "$tmp/ff" "$tmp/home"
"$tmp/vs_git" gen "$tmp/ff" 150 || fail "unable to write the form feed cases"
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
checked=0
for a in "$tmp"/ff/*.a; do
	b=${a%.a}.b
	for w in "" -w; do
		# @@ -S[,C] +S[,C] @@ to 0-based starts, as diff_test prints
		git diff --no-index --no-color --text -U0 $w "$a" "$b" |
			sed -n 's/^@@ -\([0-9,]*\) +\([0-9,]*\) @@.*/\1 \2/p' |
			awk '{ split($1, o, ","); split($2, n, ",")
			       oc = 2 in o ? o[2] : 1; nc = 2 in n ? n[2] : 1
			       print (oc ? o[1] - 1 : o[1]), oc,
				     (nc ? n[1] - 1 : n[1]), nc }' \
				>"$tmp/git.out"
		"$tmp/vs_git" hunks "$a" "$b" $w >"$tmp/ours.out" ||
			fail "unable to diff ${a##*/}"
		cmp -s "$tmp/git.out" "$tmp/ours.out" ||
			fail "${a##*/} $w: hunks differ from git's"
		checked=$((checked + 1))
	done
done
echo "t-diff-unit: ok ($checked diffs with vertical tabs and form feeds match git)"
