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

# The variants differ only in diff.c's -D settings, which odb.c and
# error.c do not read: those are built once, as a shared object that
# every variant links (their five builds took 13 s of CPU time).
unit_build "$tmp/libodb.so" "libgit2 libdeflate zlib" -O2 -fPIC -shared \
	src/odb.c src/error.c
build() {
	unit_build "$1" "libgit2 libdeflate zlib" -O2 "${@:2}" tests/unit/diff_test.c \
		src/diff.c "$tmp/libodb.so" "-Wl,-rpath,$tmp"
}
build "$tmp/vs_libgit2" -DDIFF_SPACE_LIKE_LIBGIT2
# (-O0: it diffs 300 small texts, and builds in half the time of -O2.)
build "$tmp/vs_git" -O0

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
# The history is written by one awk (the random edits, as sixty runs of it
# seeded 1 to 60 would write them), one perl and one git fast-import, not
# a dozen processes and a git add and a git commit a version; its objects
# are then unpacked to lie loose, as git add and git commit leave them.
mkdir "$tmp/edits"
awk -v dir="$tmp/edits" 'BEGIN { for (i = 1; i <= 60; i++) {
	f = dir "/" i
	srand(i); n = 300 + int(rand() * 200)
	for (k = 0; k < n; k++) {
		r = rand()
		if (r < 0.05) printf "changed %d %d\n", i, k >f
		else if (r < 0.08) printf "\n" >f
		else printf "\tline %d of the file\n", k >f }
	printf "last line %d", i % 7 >f
	close(f) } }'
read -r _ ref <"$d/.git/HEAD"
perl -e '
	my ($edits, $ref) = @ARGV;
	sub seq { join "", map { "$_\n" } $_[0] .. $_[1] }
	sub file { my ($path, $data) = @_;
		print "M 100644 inline $path\ndata ", length($data), "\n$data\n"; }
	sub commit { my $msg = "$_[0]\n";
		print "commit $ref\ncommitter a <a\@x> now\n",
		    "data ", length($msg), "\n$msg"; }
	for my $i (1 .. 60) {
		commit("commit $i");
		open(my $e, "<", "$edits/$i") or die "$edits/$i: $!\n";
		file("edits.c", do { local $/; <$e> });
		file("crlf.txt", join "", map {
			sprintf "crlf %d %s\r\n", $_, $_ % 50 == $i % 50 ? $i : "" }
		    0 .. 399);
		file("sometimes", $i % 9 == 0 ? "" : seq(1, $i * 13));
		file("longline", "y" x (70000 + $i * 3) . "\nafter $i\n");
		file("long.txt", seq(1, 40000) . "end $i\n" . seq(1, $i % 3));
		file("nonl", sprintf "no newline %d\nstill %d", int($i / 2), $i);
		# The old version'"'"'s last line is a prefix of the new one'"'"'s.
		file("prefix", seq(1, 300) . "still 1" . ($i == 60 ? "2345" : ""));
	}
	# A chain of three in which a delta'"'"'s last line, longer than one
	# copy and without a newline, goes on in the next delta.
	my $L = "a last line without a newline: " . join "", map { "$_ " } 1 .. 20000;
	my $other = join "", map { "other $_\n" } 1 .. 150;
	my $alpha = join "", map { "alpha $_\n" } 1 .. 150;
	commit("R");
	file("chain", $other . seq(1000, 3000) . seq(5000, 5600) . $L);
	commit("X");
	file("chain", $alpha . seq(1000, 3000) . $L);
	commit("Y");
	file("chain", "$alpha$L, and more\n");
' "$tmp/edits" "$ref" | git -C "$d" fast-import --quiet --date-format=now
for p in "$d"/.git/objects/pack/pack-*.pack; do
	mv "$p" "$tmp/import.pack"
	rm -f "${p%.pack}".*
	git -C "$d" unpack-objects -q <"$tmp/import.pack"
done
rm -f "$tmp/import.pack"
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

# The build as shipped against git on \v and \f. Process starts are dear,
# so not a git diff and a diff_test per pair: the pairs go in as hard
# links a/N and b/N, and one `git diff --no-index` of the two directories
# per mode gives every pair's hunks, as a git diff of each pair would (the
# same names on both sides: every pair is a modification, nothing to take
# for a rename); one diff_test run gives ours for the same pairs.
mkdir "$tmp/ff" "$tmp/home"
"$tmp/vs_git" gen "$tmp/ff" 150 || fail "unable to write the form feed cases"
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
perl -e 'my $d = shift; mkdir "$d/a" or die; mkdir "$d/b" or die;
	for (sort { $a <=> $b } map { m{/(\d+)\.a$} ? $1 : () } glob "$d/*.a") {
		link("$d/$_.a", "$d/a/$_") && link("$d/$_.b", "$d/b/$_") or die;
		print "$d/$_.a\t$d/$_.b\n";
	}' "$tmp/ff" >"$tmp/ff.list"
checked=0
for w in "" -w; do
	# @@ -S[,C] +S[,C] @@ to 0-based starts, as diff_test prints, each
	# pair's after "== A" (git prints nothing for a pair without hunks)
	(cd "$tmp/ff" && git diff --no-index --no-color --text -U0 $w a b) |
		perl -e 'my ($list) = @ARGV; my (%h, $cur);
			while (<STDIN>) {
				if (m{^diff --git a/a/(\d+) b/b/(\d+)$}) {
					die "unpaired: $_" if $1 ne $2;
					$cur = $1;
				} elsif (/^@@ -([0-9,]*) \+([0-9,]*) @@/) {
					die "hunk before a header\n" unless defined $cur;
					my ($os, $oc) = split /,/, $1;
					my ($ns, $nc) = split /,/, $2;
					$oc //= 1; $nc //= 1;
					$h{$cur} .= join(" ", $oc ? $os - 1 : $os, $oc,
					    $nc ? $ns - 1 : $ns, $nc) . "\n";
				}
			}
			open(my $l, "<", $list) or die;
			while (<$l>) {
				my ($a) = split /\t/;
				my ($n) = $a =~ m{/(\d+)\.a$};
				print "== $a\n", $h{$n} // "";
			}' "$tmp/ff.list" >"$tmp/git.out"
	"$tmp/vs_git" hunks-list $w <"$tmp/ff.list" >"$tmp/ours.out" ||
		fail "unable to diff the form feed cases $w"
	if ! cmp -s "$tmp/git.out" "$tmp/ours.out"; then
		# The first pair whose hunks differ.
		a=$(awk 'NR == FNR { g[FNR] = $0; n = FNR; next }
			/^== / { p = substr($0, 4) }
			$0 != g[FNR] { print p; exit } END { if (FNR != n) print p }' \
			"$tmp/git.out" "$tmp/ours.out" | head -n 1)
		fail "${a##*/} $w: hunks differ from git's"
	fi
	checked=$((checked + $(grep -c '^== ' "$tmp/ours.out")))
done
echo "t-diff-unit: ok ($checked diffs with vertical tabs and form feeds match git)"
