#!/bin/bash
# odb: src/odb.c, strata's own pack reader, against `git cat-file --batch`.
#
# Every object of a repository built here (chains of file versions, big
# files with long copies, binary and empty blobs, trees, commits, an
# annotated tag) is read through odb.c and must come out byte for byte as
# git prints it: loose (read through libgit2), packed with offset deltas,
# with name deltas, with a version 1 index, with 64-bit offsets, through an
# alternate object store, with a cache small enough to evict all the time
# and from four threads at once. A damaged pack (damaged names of delta
# bases too) and a missing object must give an error, never wrong content.
# Then a real history, when STRATA_REAL_REPO names a repository (tmux's or
# git's, say); without it that part is skipped (`skip: ...` in the log).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-odb-unit
command -v git >/dev/null || fail "git is missing"
unit_build "$tmp/odb_test" "libgit2 libdeflate zlib" -O2 tests/unit/odb_test.c \
	src/odb.c src/error.c
T=$tmp/odb_test

export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp GIT_AUTHOR_NAME=a \
	GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x \
	GIT_AUTHOR_DATE='2020-01-01 00:00:00 +0000' \
	GIT_COMMITTER_DATE='2020-01-01 00:00:00 +0000'

# Repositories are built with one git fast-import each, not a git add and
# a git commit a version (with a dozen more processes to write the files):
# the same commits, ids and all, as those would give (the dates and names
# above), and loose as they would leave them.
# loose_import REPO: the stream on stdin into REPO, the objects taken out
# of fast-import's pack again, loose, and the work tree checked out.
loose_import() {
	local p
	local -A old=()
	for p in "$1"/.git/objects/pack/pack-*.pack; do
		old[$p]=1
	done
	git -C "$1" fast-import --quiet
	for p in "$1"/.git/objects/pack/pack-*.pack; do
		[ -z "${old[$p]:-}" ] || continue	# (the repository's own)
		mv "$p" "$tmp/import.pack"
		rm -f "${p%.pack}".*
		git -C "$1" unpack-objects -q <"$tmp/import.pack"
	done
	rm -f "$tmp/import.pack"
	git -C "$1" reset -q --hard
}

# versions REPO KIND FROM TO: the stream of commits FROM to TO on the
# branch REPO's HEAD names, each as `git add -A && git commit -q -m
# "commit I"` would make it after writing the files. KIND all: every file
# below, then an annotated tag v1; a: a.txt alone; later: "later I", a
# line "I" more each time on REPO's a.txt.
versions() {
	local head
	read -r _ head <"$1/.git/HEAD"
	perl -e '
		my ($repo, $kind, $from, $to, $head) = @ARGV;
		my $who = "a <a\@x> 1577836800 +0000";
		my $later;
		if ($kind eq "later") {
			open(my $f, "<", "$repo/a.txt") or die "a.txt: $!\n";
			local $/;
			$later = <$f>;
		}
		sub file { my ($path, $data) = @_;
			print "M 100644 inline $path\ndata ", length($data),
			    "\n$data\n"; }
		for my $i ($from .. $to) {
			my $msg = ($kind eq "later" ? "later" : "commit") . " $i\n";
			print "commit $head\nauthor $who\ncommitter $who\n",
			    "data ", length($msg), "\n$msg";
			# (a branch that is there already goes on from its tip)
			print "from $head^0\n" if $kind eq "later" && $i == $from;
			if ($kind eq "later") {
				file("a.txt", $later .= "$i\n");
				next;
			}
			file("a.txt", join "", map {
				$_ == $i * 3 ? "changed $i\n" : "$_\n" } 1 .. 200 + $i * 7);
			next if $kind eq "a";
			file("big.txt", join "", map {
				sprintf "line %d of a big file, version %d\n", $_,
				    ($_ % 97 == $i % 97) ? $i : 0 } 0 .. 2999);
			file("grow.txt", "x" x ($i * 100));
			# 200 KB that stay: deltas copy it in 64 KiB pieces.
			file("long.txt", join("", map { "$_\n" } 1 .. 40000) .
			    "end $i\n");
			file("bin.dat", "bin\0ary $i\n");
			file("d/e" . $i % 5 . "/f", "$i\n");
			file("empty", "");
		}
		print "tag v1\nfrom $head\ntagger $who\ndata 6\na tag\n"
		    if $kind eq "all";' "$@" "$head"
}

r=$tmp/r
git init -q "$r"
# 80 versions of a few files: long delta chains.
versions "$r" all 1 80 | loose_import "$r"
git -C "$r" cat-file --batch-all-objects --batch-check='%(objectname)' \
	>"$tmp/names"
[ "$(wc -l <"$tmp/names")" -gt 400 ] || fail "too few objects"
git -C "$r" cat-file --batch <"$tmp/names" >"$tmp/want"

# check LABEL REPO [THREADS [CACHE]]: every object, compared; the
# reader's counters are left in $tmp/stats.
check() {
	local label=$1 repo=$2
	shift 2
	"$T" "$repo" "$@" <"$tmp/names" >"$tmp/got" 2>"$tmp/stats" ||
		fail "$label: $(cat "$tmp/stats")"
	cmp -s "$tmp/want" "$tmp/got" || fail "$label: content differs"
}
stat_of() {
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' \
		"$tmp/stats"
}

check loose "$r"
[ "$(stat_of packs)" = 0 ] || fail "loose: a pack where there is none"

git -C "$r" repack -q -a -d -f --depth=50 --window=50
check "offset deltas" "$r"
[ "$(stat_of fallback)" = 0 ] || fail "offset deltas: read through libgit2"
[ "$(stat_of hits)" -gt 0 ] || fail "offset deltas: no cache hit"
deltas=$(git -C "$r" verify-pack -v "$r"/.git/objects/pack/*.idx |
	awk 'NF >= 7 && $4 ~ /^[0-9]+$/ { n++ } END { print n + 0 }')
[ "$deltas" -gt 200 ] || fail "offset deltas: only $deltas deltas in the pack"
# commits_check LABEL REPO: the list of commits at the head of the packs
# holds every commit stored whole there (verify-pack tells), and nothing
# else, each with git's content; a pack's commits come in the order they
# lie in it (verify-pack lists them so).
commits_check() {
	local label=$1 repo=$2 p
	: >"$tmp/whole"
	for p in "$repo"/.git/objects/pack/*.idx; do
		git -C "$repo" verify-pack -v "$p" |
			awk '$2 == "commit" && NF == 5 { print $1 }' \
			>"$tmp/inpack.$(basename "$p")"
		cat "$tmp/inpack.$(basename "$p")" >>"$tmp/whole"
	done
	sort "$tmp/whole" >"$tmp/whole.s"
	[ "$(wc -l <"$tmp/whole.s")" -gt 40 ] || fail "$label: too few whole commits"
	# Ask for every object: the others must not be found.
	sort "$tmp/names" | git -C "$repo" cat-file --batch-check='%(objectname)' |
		sort >"$tmp/all"
	[ "$(comm -13 "$tmp/all" "$tmp/whole.s" | wc -l)" = 0 ] ||
		fail "$label: a whole commit is not among the names"
	git -C "$repo" cat-file --batch <"$tmp/whole.s" >"$tmp/cwant"
	sort "$tmp/all" | ODB_TEST_COMMITS=1 ODB_TEST_ORDER="$tmp/order" \
		"$T" "$repo" >"$tmp/cgot" 2>"$tmp/stats" ||
		fail "$label: $(cat "$tmp/stats")"
	cmp -s "$tmp/cwant" "$tmp/cgot" || fail "$label: commits differ"
	for p in "$repo"/.git/objects/pack/*.idx; do
		grep -Fx -f "$tmp/inpack.$(basename "$p")" "$tmp/order" \
			>"$tmp/order.got" || true
		cmp -s "$tmp/inpack.$(basename "$p")" "$tmp/order.got" ||
			fail "$label: $(basename "$p")'s commits out of pack order"
	done
	echo "t-odb-unit: $label: $(cat "$tmp/stats")"
}
commits_check "commits in one pack" "$r"
# And in two packs: the newer one made of later commits alone.
cp -r "$r" "$tmp/two"
versions "$tmp/two" later 1 45 | loose_import "$tmp/two"
git -C "$tmp/two" repack -q -d
[ "$(ls "$tmp"/two/.git/objects/pack/*.pack | wc -l)" = 2 ] ||
	fail "two packs: not two"
git -C "$tmp/two" cat-file --batch-all-objects --batch-check='%(objectname)' \
	>"$tmp/names2"
cp "$tmp/names" "$tmp/names1"
cp "$tmp/names2" "$tmp/names"
commits_check "commits in two packs" "$tmp/two"
cp "$tmp/names1" "$tmp/names"

check "four threads" "$r" 4
check "tiny cache" "$r" 4 4096
check "no cache room" "$r" 1 1

# The cache holds at most twice its bound: a shard may keep one object
# bigger than its share alone, and such objects together stay within the
# bound. With 1 MiB, the versions of big.txt and long.txt (100 and 200
# KB) are each over a shard's share; the cache must still fill past
# half its bound, or the check says nothing.
ODB_TEST_BOUND=1 check "cache bound" "$r" 1 1048576
most=$(stat_of cached_most)
[ "$most" -le 2097152 ] || fail "cache bound: held $most bytes"
[ "$most" -gt 524288 ] || fail "cache bound: held only $most bytes"
echo "t-odb-unit: cache bound: at most $most bytes held in a cache of 1 MiB"

# Nothing is freed under the cache's lock: eight threads that build the
# same objects at once, in a cache that keeps evicting, offer the cache
# objects it has already taken from another thread (and evict others).
unit_build "$tmp/odb_lockwatch" "libgit2 libdeflate zlib" -O2 \
	-DODB_TEST_LOCK_WATCH \
	-Wl,--wrap=free,--wrap=pthread_mutex_lock,--wrap=pthread_mutex_unlock \
	tests/unit/odb_test.c src/odb.c src/error.c
T=$tmp/odb_lockwatch check "no free under the lock" "$r" 8 65536

# An object is freed on the thread that made it, through a list that
# thread empties; past 8 MiB waiting, or once that thread has ended, where
# it is dropped (tests/unit/odb_home_test.c says the steps). Five blobs
# of 3 MiB each, stored whole.
unit_build "$tmp/odb_home_test" "libgit2 libdeflate zlib" -O1 \
	-Wl,--wrap=malloc,--wrap=free tests/unit/odb_home_test.c src/odb.c \
	src/error.c
hr=$tmp/homes
git init -q --bare "$hr"
perl -e 'for my $b (1 .. 5) {
	my $d = join "", map { "blob $b, line $_ of a big file\n" } 1 .. 100000;
	print "blob\nmark :$b\ndata ", length($d), "\n$d\n" }' |
	git -C "$hr" fast-import --quiet --export-marks="$tmp/homes.marks"
blobs=$(sort -t: -k2n "$tmp/homes.marks" | cut -d' ' -f2)
git -C "$hr" repack -q -a -d
small=$(printf 'small\n' | git -C "$hr" hash-object -w --stdin)
# shellcheck disable=SC2086
"$tmp/odb_home_test" "$hr" $blobs "$small" >"$tmp/homes.out" 2>&1 ||
	{ cat "$tmp/homes.out"; fail "odb_home_test"; }
[ "$(cat "$tmp/homes.out")" = ok ] || fail "odb_home_test: $(cat "$tmp/homes.out")"

git -C "$r" -c repack.useDeltaBaseOffset=false repack -q -a -d -f \
	--depth=50 --window=50
check "name deltas" "$r" 2

# A version 1 index, then a version 2 one with 64-bit offsets for all.
git -C "$r" repack -q -a -d -f
p=$(ls "$r"/.git/objects/pack/*.pack)
chmod u+w "${p%.pack}.idx"
n=$(wc -l <"$tmp/names")
for v in 1 2,12; do
	git -C "$r" index-pack --index-version="$v" -o "$tmp/x.idx" "$p" \
		>/dev/null
	cp "$tmp/x.idx" "${p%.pack}.idx"
	check "index version $v" "$r" 2
done
[ "$(stat -c %s "${p%.pack}.idx")" = $((1072 + n * 36 - 8)) ] ||
	fail "the index does not have 64-bit offsets for all objects"

# Objects only in an alternate's pack.
git clone -q --shared "$r" "$tmp/alt"
[ -s "$tmp/alt/.git/objects/info/alternates" ] || fail "no alternates file"
check "alternate" "$tmp/alt"
[ "$(stat_of fallback)" = 0 ] || fail "alternate: read through libgit2"
# A relative path, from the objects directory, with a comment line.
printf '# objects of r\n../../../r/.git/objects\n' \
	>"$tmp/alt/.git/objects/info/alternates"
check "relative alternate" "$tmp/alt"
[ "$(stat_of fallback)" = 0 ] || fail "relative alternate: read through libgit2"

# A pack that makes no sense next to a good one: an error naming it (git
# warns and goes on, but libgit2, which reads some objects for strata,
# may loop on a damaged pack). An index without its pack is skipped, as
# git skips it (an interrupted transfer never leaves one: git writes the
# index last).
cp -r "$r" "$tmp/junk"
head -c 3000 /dev/urandom >"$tmp/junk/.git/objects/pack/pack-junk.idx"
head -c 3000 /dev/urandom >"$tmp/junk/.git/objects/pack/pack-junk.pack"
if "$T" "$tmp/junk" </dev/null >/dev/null 2>"$tmp/err"; then
	fail "junk pack beside: no error"
fi
grep -q "corrupt pack index '.*pack-junk.idx'" "$tmp/err" ||
	fail "junk pack beside: $(cat "$tmp/err")"
rm "$tmp/junk/.git/objects/pack/pack-junk.pack"
check "index without its pack" "$tmp/junk"
[ "$(stat_of packs)" = 1 ] || fail "index without its pack: $(stat_of packs) packs taken"
[ "$(stat_of fallback)" = 0 ] || fail "index without its pack: read through libgit2"

# A missing object: an error, with its name.
missing=0123456789abcdef0123456789abcdef01234567
if echo "$missing" | "$T" "$r" >/dev/null 2>"$tmp/err"; then
	fail "a missing object was read"
fi
grep -q "unable to read object '$missing'" "$tmp/err" ||
	fail "missing object: $(cat "$tmp/err")"

# The cache's bound changed while in use (the walk reads with a larger
# one): down to one byte nothing is kept, and back up all reads the same.
ODB_TEST_SHRINK=1 check "cache bound changed" "$r" 2

# Damaged zlib data in a pack: an error, not wrong content.
cp -r "$r" "$tmp/bad"
p=$(ls "$tmp"/bad/.git/objects/pack/*.pack)
chmod u+w "$p"
size=$(stat -c %s "$p")
printf '\377\377\377\377\377\377\377\377' |
	dd of="$p" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
if "$T" "$tmp/bad" <"$tmp/names" >/dev/null 2>"$tmp/err"; then
	fail "a damaged pack was read without an error"
fi
grep -Eq "unable to read object '[0-9a-f]{40}': corrupt object at offset [0-9]+" \
	"$tmp/err" || fail "damaged pack: $(cat "$tmp/err")"

# Damage all over a pack of name deltas: where it hits a base's name, the
# name is of no object, and that too is a corrupt entry, not a missing
# object.
nd=$tmp/nd
git init -q "$nd"
versions "$nd" a 1 40 | loose_import "$nd"
git -C "$nd" -c repack.useDeltaBaseOffset=false repack -q -a -d -f \
	--depth=50 --window=50
git -C "$nd" cat-file --batch-all-objects --batch-check='%(objectname)' \
	>"$tmp/nd.names"
p=$(ls "$nd"/.git/objects/pack/*.pack)
size=$(stat -c %s "$p")
# One copy, its pack written again from the good one for each spot of
# damage (one perl for the 41, not a copy and half a dozen processes each).
cp -r "$nd" "$tmp/ndbad"
q=$(ls "$tmp"/ndbad/.git/objects/pack/*.pack)
chmod u+w "$q"
perl -e '
	use strict; use warnings; use integer;
	my ($good, $bad, $T, $repo, $names, $err, $size) = @ARGV;
	open(my $g, "<:raw", $good) or die "$good: $!\n";
	my $pack = do { local $/; <$g> };
	for my $k (0 .. 40) {
		my $data = $pack;
		substr($data, 200 + $k * ($size - 400) / 40, 8) = "\377" x 8;
		open(my $o, ">:raw", $bad) or die "$bad: $!\n";
		print $o $data;
		close $o or die "$bad: $!\n";
		my $pid = fork // die "fork: $!\n";
		if (!$pid) {
			open(STDIN, "<", $names) && open(STDOUT, ">", "/dev/null") &&
			    open(STDERR, ">", $err) or die "$!\n";
			exec($T, $repo) or die "$T: $!\n";
		}
		waitpid($pid, 0);
		die "damaged name deltas ($k): read without an error\n" if $? == 0;
		open(my $e, "<", $err) or die "$err: $!\n";
		my $msg = do { local $/; <$e> };
		die "damaged name deltas ($k): $msg\n"
		    unless $msg =~ /corrupt object at offset [0-9]+/;
	}' "$p" "$q" "$T" "$tmp/ndbad" "$tmp/nd.names" "$tmp/err" "$size" \
	2>"$tmp/nd.err" || fail "$(cat "$tmp/nd.err")"

# Many objects in one pack (the search guesses where an id is, and falls
# back to halving): every one is found, and ids next to them (the last
# digit changed) are not.
big=$tmp/big
git init -q --bare "$big"
for i in $(seq 1 6000); do
	printf 'blob\ndata <<E\nobject %d\nE\n\n' "$i"
done | git -C "$big" fast-import --quiet
git -C "$big" cat-file --batch-all-objects --batch-check='%(objectname)' \
	>"$tmp/names"
[ "$(wc -l <"$tmp/names")" = 6000 ] || fail "many objects: not 6000"
git -C "$big" cat-file --batch <"$tmp/names" >"$tmp/want"
check "6000 objects in one pack" "$big" 1
# 00.. and ff.. are the ends of the fanout; the rest are neighbours.
{
	echo 0000000000000000000000000000000000000000
	echo ffffffffffffffffffffffffffffffffffffffff
	awk '{ i = index("0123456789abcdef", substr($0, 40, 1))
	       print substr($0, 1, 39) substr("123456789abcdef0", i, 1) }' \
		"$tmp/names"
} | git -C "$big" cat-file --batch-check='%(objectname) %(objecttype)' |
	awk '$2 == "missing" { print $1 }' >"$tmp/absent"
[ "$(wc -l <"$tmp/absent")" -gt 5000 ] || fail "too few absent names"
ODB_TEST_ABSENT=1 "$T" "$big" <"$tmp/absent" >"$tmp/out" 2>"$tmp/err" ||
	fail "absent ids: $(cat "$tmp/err")"
echo "t-odb-unit: 6000 objects found, $(cut -d' ' -f2 "$tmp/out") neighbours not"

# A real history, when there is one: every blob and tree.
m=${STRATA_REAL_REPO:-}
if [ -z "$m" ]; then
	echo "skip: a real history: STRATA_REAL_REPO is not set"
else
	git -C "$m" rev-parse --git-dir >/dev/null 2>&1 ||
		fail "STRATA_REAL_REPO=$m is not a git repository"
	git -C "$m" rev-list --objects --max-count=3000 HEAD | cut -d' ' -f1 \
		>"$tmp/names"
	git -C "$m" cat-file --batch <"$tmp/names" >"$tmp/want"
	check "real history" "$m" 2
	echo "t-odb-unit: $m: $(wc -l <"$tmp/names") objects identical"
fi
echo "t-odb-unit: ok"
