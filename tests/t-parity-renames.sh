#!/bin/bash
# Parity with git blame when files move: exact renames, edited renames on
# both sides of the 50% threshold, into subdirectories, several candidate
# sources (exact, same basename, best score), chains, swaps, copies, files
# deleted and re-added, several files sharing one origin.
. "$(dirname "$0")/lib.sh"

# `block NAME N`: N lines of one length, so similarity is easy to steer:
# keeping K of N such lines leaves a score of K/N.
block() {
	local i
	for ((i = 1; i <= $2; i++)); do
		printf '%s-%04d-padding-to-a-fixed-width\n' "$1" "$i"
	done
}

# `keep NAME K N [FILL]`: lines 1..K of `block NAME N`, the rest replaced by
# lines of the same length made of FILL (default z), so the score is K/N.
keep() {
	local i filler=${1//?/${4:-z}}
	for ((i = 1; i <= $3; i++)); do
		if [ $i -le $2 ]; then
			printf '%s-%04d-padding-to-a-fixed-width\n' "$1" "$i"
		else
			printf '%s-%04d-padding-to-a-fixed-width\n' "$filler" "$i"
		fi
	done
}

exact() {
	repo_new r
	block a 10 >a.c
	block b 10 >b.c
	commit "base"
	commit_file a.c "edit a" $(block a 9) a-extra
	git mv a.c renamed.c
	commit "exact rename"
	mkdir -p sub/dir
	git mv b.c sub/dir/b.c
	commit "exact rename into a subdirectory"
	mkdir -p up
	git mv sub/dir/b.c up/b.c
	commit "and out again"
	parity . HEAD
	parity . HEAD~2
}

# Edited renames: >= 50% similar follows the old path, < 50% does not.
# Exactly 50% counts as a rename.
edited() {
	repo_new r
	block ge 100 >ge
	block lt 100 >lt
	block eq 100 >eq
	block hi 100 >hi
	block big 20 >big
	block big2 20 >big2
	commit "base"
	git rm -q ge lt eq hi big big2
	keep ge 52 100 >ge.renamed
	keep lt 48 100 >lt.renamed
	keep eq 50 100 >eq.renamed
	keep hi 90 100 >hi.renamed
	# Kept lines but grown: the score is over the larger size (20 of 39
	# lines is a rename, 20 of 41 is not).
	{ block big 20; block grow 19; } >big.renamed
	{ block big2 20; block grow 21; } >big2.renamed
	commit "edited renames"
	parity . HEAD
	parity . HEAD -w
}

# Similarity uses chunks of at most 64 bytes: long lines with an edit near
# their end keep most of their chunks.
long_lines() {
	repo_new r
	local i
	for ((i = 1; i <= 20; i++)); do
		printf 'line %02d %0200d\n' "$i" "$i"
	done >long
	commit "base"
	git rm -q long
	for ((i = 1; i <= 20; i++)); do
		printf 'line %02d %0200d%s\n' "$i" "$i" "$([ $i -le 12 ] && echo x)"
	done >long.moved
	commit "rename, every other line changed at its end"
	parity . HEAD
}

# Several deleted files could be the source. Exact matches first (same
# basename preferred); then a unique same-basename file at >= 75%; then the
# best score. The candidates have different histories, so the choice shows.
two_candidates() {
	repo_new r
	mkdir -p one two p d1 d2 d3 d4 new q d5 d6 d7
	# Same blob, created by different commits.
	block same 10 >one/other.c
	commit "one/other.c"
	block same 10 >two/target.c
	commit "two/target.c: same blob"
	block x 10 >p/x1
	commit "p/x1"
	block x 10 >p/x2
	commit "p/x2: same blob"
	# Inexact: a 60% and an 80% candidate.
	keep sim 30 50 >s60
	keep sim 40 50 >s80
	# Same basename at 80% against another name at 96%.
	keep base 40 50 >d1/name.c
	keep base 48 50 >other-name.c
	# Same basename at 70% (below 75%) against another name at 90%.
	keep low 35 50 >d2/low.c
	keep low 45 50 >low-other.c
	# Two files with the target's basename: not unique, best score wins.
	keep dup 45 50 >d3/dup.c
	keep dup 40 50 >d4/dup.c
	# An exact match elsewhere beats a 90% one with the same basename.
	block t2 10 >exact-src
	keep t2 9 10 >d4/t2.c
	# A tie: two candidates equally similar.
	keep tie 40 50 >tie-a
	keep tie 40 50 y >tie-b
	commit "inexact candidates"
	git rm -q -r one two p s60 s80 d1 other-name.c d2 low-other.c d3 d4 \
		tie-a tie-b exact-src
	block same 10 >new/target.c
	block x 10 >q/x
	block sim 50 >sim
	block base 50 >d5/name.c
	block low 50 >d6/low.c
	block dup 50 >d7/dup.c
	block tie 50 >tie
	block t2 10 >new/t2.c
	commit "one commit, many renames"
	parity . HEAD
}

# a -> b -> c -> d/e, edited on the way.
chain() {
	repo_new r
	block a 20 >a
	commit "a"
	git mv a b
	commit "a->b"
	{ block a 19; echo b-edit; } >b
	git mv b c
	commit "b->c edited"
	mkdir -p d
	{ block a 18; echo b-edit; echo c-edit; } >c
	git mv c d/e
	commit "c->d/e edited"
	commit_file d/e "edit e" $(block a 10) e-edit $(block a 18 | tail -n +11) \
		b-edit c-edit
	parity . HEAD
	parity . HEAD~2
}

# Swapping two files is not a rename (both paths exist in the parent); nor
# is a copy (the source is not deleted).
swap_and_copy() {
	repo_new r
	block a 10 >a
	block b 10 >b
	block c 10 >c
	commit "base"
	git mv a tmp
	git mv b a
	git mv tmp b
	commit "swap a and b"
	cp c c-copy
	{ block c 9; echo edited; } >c-copy-edited
	commit "copy c twice"
	{ block c 10; echo changed; } >c
	cp c c-copy-of-modified
	commit "modify c and copy it"
	parity . HEAD
	parity . HEAD~2
}

# A file deleted and added back later has no origin in the parent and no
# deleted candidate in that commit; unless a similar file goes that time.
deleted_readded() {
	repo_new r
	block a 10 >a
	block b 10 >b
	commit "base"
	git rm -q a
	commit "delete a"
	block a 10 >a
	commit "re-add a"
	git rm -q b
	commit "delete b"
	git rm -q a
	block b 10 >b
	block a 10 >a2
	commit "b back; a deleted and re-added as a2 in one go"
	parity . HEAD
	parity . HEAD~2
}

# Two files at the tip with one origin: one commit splits x into y and z
# (both renames of x for blame), a copy and a rename of one file in two
# commits, and two branches renaming the same file differently.
converging() {
	repo_new r
	block x 20 >x
	block w 20 >w
	block v 20 >v
	commit "base"
	git rm -q x
	{ block x 20; echo y; } >y
	{ block x 18; echo z; } >z
	commit "split x into y and z"
	cp w w-copy
	commit "copy w"
	git mv w w-moved
	commit "rename w"
	git checkout -q -b side
	git mv v v-side
	commit "side: v->v-side"
	git checkout -q main
	git mv v v-main
	commit "main: v->v-main"
	tick
	git merge -q --no-edit side >/dev/null 2>&1 || true
	git add -A
	commit_index "merge: keep both names"
	test -f v-side && test -f v-main
	parity . HEAD
	parity . HEAD --first-parent
}

# Symlinks are rename sources only for exact matches: a deleted symlink
# whose target text equals a new file's content is still an exact match.
symlink_sources() {
	repo_new r
	ln -s "hello" link
	ln -s "$(block l 3)" multi
	commit "links"
	git rm -q link multi
	printf 'hello' >file
	{ block l 3; echo x; } >multi-file
	commit "links become files elsewhere"
	parity . HEAD
}

# A rename found in one parent of a merge only: parent 1 renamed a to b,
# parent 2 still has a (edited), so for parent 2 b comes from a.
rename_in_merge_parent() {
	repo_new r
	block a 10 >a
	commit "base"
	git checkout -q -b side
	{ echo side; block a 10; } >a
	commit "side: edit a"
	git checkout -q main
	git mv a b
	commit "main: a->b"
	{ block a 10; echo main; } >b
	commit "main: edit b"
	merge "merge side" side
	test -f b && test ! -f a
	parity . HEAD
	parity . HEAD --first-parent
}

# Generated rename choices: per scenario, 2 to 9 candidate sources, each
# added by its own commit (so blame shows which one git picked), sharing a
# fraction of the target's lines from a small set (ties are common), some
# exact copies, some with the target's basename, some in other directories;
# then one commit deletes them all and adds the target.
# `perl -e "$RENAME_GEN" FIRST LAST TIME USER` prints the scenarios of
# seeds FIRST to LAST as a fast-import stream: the commits `git add -A`
# and `git commit` would make of them one by one on a clock at TIME
# advancing a minute a commit (USER's, with lib.sh's `commit`), in one
# process instead of three or four a commit.
RENAME_GEN='
use strict; use warnings;
my ($first, $last, $time, $user) = @ARGV;
my $s;
sub rnd { $s = ($s * 1103515245 + 12345) % 2147483648; return int($s / 65536) % $_[0]; }
sub scenario {
my ($seed) = @_;
$s = $seed;
my @dirs = ("d0", "d1", "d2/sub", "");
my @bases = ("p.c", "q.c", "r.c", "s.c");
my $len = 6 + rnd(30);
my $width = (8, 12, 70)[rnd(3)];
my @target = map { sprintf("%-*s\n", $width, "t$seed-$_") } 1 .. $len;
my $tdir = $dirs[rnd(@dirs + 0)];
my $tbase = $bases[rnd(@bases + 0)];
my $tpath = ($tdir eq "" ? "" : "$tdir/") . "new-$seed-$tbase";
my $n = 2 + rnd(8);
my (@paths, @contents);
for my $k (1 .. $n) {
	my $kind = rnd(10);
	my @c;
	if ($kind == 0) {
		@c = @target;
	} elsif ($kind == 1) {
		# A prefix of the target: small sources fail the size check of git.
		@c = @target[0 .. int($#target * (0.2 + rnd(6) / 10))];
	} elsif ($kind == 2) {
		# The target and as much again: big sources score low.
		@c = (@target, map { sprintf("%-*s\n", $width, "b$seed-$k-$_") }
		    1 .. int(@target * (0.3 + rnd(10) / 10)));
	} else {
		my $keep = (0.3, 0.4, 0.5, 0.6, 0.6, 0.75, 0.8, 0.9)[rnd(8)];
		for my $i (0 .. $#target) {
			push @c, rnd(1000) < $keep * 1000 ? $target[$i]
			    : sprintf("%-*s\n", $width, "c$seed-$k-$i");
		}
		push @c, sprintf("%-*s\n", $width, "x$seed-$k-$_") for 1 .. rnd(4) * rnd(3);
	}
	my $d = $dirs[rnd(@dirs + 0)];
	my $b = rnd(3) == 0 ? $tbase : $bases[rnd(@bases + 0)];
	my $p = ($d eq "" ? "" : "$d/") . "old-$seed-$k-$b";
	# Same basename as the target: rename the file, not just prefix it.
	$p = ($d eq "" ? "" : "$d/") . "o$seed-$k/$tbase" if rnd(3) == 0;
	push @paths, $p;
	push @contents, join("", @c);
}
return ($tpath, join("", @target), \@paths, \@contents);
}
binmode STDOUT;
sub commit {
	my ($msg, @changes) = @_;
	$time += 60;
	$msg .= "\n";
	print "commit refs/heads/main\n",
	    "author $user $time +0000\ncommitter $user $time +0000\n",
	    "data ", length($msg), "\n$msg", @changes, "\n";
}
sub file { my ($p, $c) = @_;
	return "M 100644 inline $p\ndata " . length($c) . "\n$c\n"; }
for my $seed ($first .. $last) {
	my ($tpath, $target, $paths, $contents) = scenario($seed);
	for my $k (1 .. @$paths) {
		commit("scenario $seed: candidate $k",
		    file($paths->[$k - 1], $contents->[$k - 1]));
	}
	commit("scenario $seed: delete candidates, add target",
	    (map { "D $_\n" } @$paths), file($tpath, $target));
}
'

rename_fuzz() {
	local n here=$PWD
	repo_new r
	# (The user of lib.sh's gitconfig.)
	perl -e "$RENAME_GEN" 101 150 "$_clock" \
		"Strata Tester <tester@example.com>" >"$here/stream"
	git fast-import --quiet <"$here/stream"
	# As `commit` left it: every object loose (what parity reads first;
	# fast-import wrote a pack), the tip checked out, the clock on.
	mkdir "$here/pack"
	mv .git/objects/pack/pack-* "$here/pack/"
	git unpack-objects -q <"$here"/pack/pack-*.pack
	git reset -q --hard
	n=$(git rev-list --count HEAD)
	at $((_clock + 60 * n))
	parity . HEAD
}

run_case exact exact
run_case edited edited
run_case long_lines long_lines
run_case two_candidates two_candidates
run_case chain chain
run_case swap_and_copy swap_and_copy
run_case deleted_readded deleted_readded
run_case converging converging
run_case symlink_sources symlink_sources
run_case rename_in_merge_parent rename_in_merge_parent
run_case rename_fuzz rename_fuzz
finish
