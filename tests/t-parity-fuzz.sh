#!/bin/bash
# Parity with git blame on generated histories: pseudo-random edits (with
# repeated lines, C-like indentation, blank lines, CRLF, final newlines,
# files over 1 KiB), renames, copies, deletions, branches and merges, from
# fixed seeds. The generator is deterministic (its own LCG, not the shell's
# or perl's rand), so a failure reproduces on every machine.
. "$(dirname "$0")/lib.sh"

# The mutator: `perl -e "$MUTATE" SEED` edits the files under the current
# directory (a work tree) in one of several ways. Without SEED it reads
# one seed a line and answers "done" after each edit: history keeps one
# running (a perl start per commit is dear on some hosts).
MUTATE='
use strict; use warnings; use File::Path qw(make_path);
my $s;
sub rnd { $s = ($s * 1103515245 + 12345) % 2147483648; return int($s / 65536) % $_[0]; }
my @vocab = ("{", "}", "", "", "\tfoo();", "\tif (x) {", "\t\tbar();",
	"\t}", "\treturn 0;", "int a;", "x", "x", "x", "/* comment */",
	"static int f(void)", "\t\tbaz(1, 2);", "    spaced();", "#include <a.h>",
	"y", "\t\t}", "end");
sub line { my $l = $vocab[rnd(scalar @vocab)];
	$l .= " " . rnd(50) if rnd(4) == 0; return $l . "\n"; }
sub lines_of { my ($n) = @_; return map { line() } 1 .. $n; }
sub slurp { open(my $f, "<", $_[0]) or die "$_[0]: $!"; binmode $f;
	local $/; my $c = <$f>; $c = "" unless defined $c;
	return split /(?<=\n)/, $c; }
sub spew { my ($p, @l) = @_; my $d = $p; $d =~ s{/[^/]*$}{};
	make_path($d) if $d ne $p;
	open(my $f, ">", $p) or die "$p: $!"; binmode $f; print $f @l;
	close $f; }
my @names = ("a.c", "b.c", "lib/c.h", "lib/d.c", "doc/e.txt", "f");

sub mutate {
$s = $_[0] % 2147483648;
my @files = grep { -f $_ && !-l $_ } split /\n/, `git ls-files`;
my $op = @files ? rnd(20) : 0;
if ($op == 0 && @files < 8) {
	# A new file, sometimes big and repetitive.
	my $n = rnd(3) == 0 ? 300 + rnd(400) : 5 + rnd(30);
	my $p = $names[rnd(scalar @names)];
	$p = "new" . rnd(1000) . "/" . $p if -e $p;
	spew($p, lines_of($n));
} elsif ($op == 1 && @files > 2) {
	unlink $files[rnd(scalar @files)];
} elsif ($op == 2 || $op == 3) {
	# A rename (git add -A finds it), edited a little or a lot.
	my $from = $files[rnd(scalar @files)];
	my @l = slurp($from);
	unlink $from;
	for (1 .. rnd(3) * rnd(6)) {
		splice(@l, rnd(@l + 1), rnd(3), lines_of(rnd(3)));
	}
	my $to = ($op == 2 ? "moved/" : "") . $names[rnd(scalar @names)] . rnd(100);
	spew($to, @l);
} elsif ($op == 4) {
	my $from = $files[rnd(scalar @files)];
	spew("copy" . rnd(100) . ".c", slurp($from));
} else {
	# Edit one file with a few hunks of various kinds.
	my $p = $files[rnd(scalar @files)];
	my @l = slurp($p);
	for (0 .. rnd(4)) {
		my $k = rnd(10);
		my $at = rnd(@l + 1);
		if ($k <= 2) { splice(@l, $at, 0, lines_of(1 + rnd(4))); }
		elsif ($k <= 4) { splice(@l, $at, 1 + rnd(3)); }
		elsif ($k == 5) { splice(@l, $at, 1 + rnd(2), lines_of(1 + rnd(3))); }
		elsif ($k == 6 && @l > 4) {
			# Move a block.
			my @b = splice(@l, rnd(@l - 3), 1 + rnd(3));
			splice(@l, rnd(@l + 1), 0, @b);
		} elsif ($k == 7 && $at < @l) {
			# Whitespace only: reindent, or CR before the newline.
			if (rnd(2)) { $l[$at] =~ s/^\t/    /; $l[$at] = " " . $l[$at]; }
			else { $l[$at] =~ s/\r?\n$/\r\n/; }
		} elsif ($k == 8 && @l) {
			# Toggle the final newline.
			if ($l[-1] =~ /\n$/) { chomp $l[-1]; } else { $l[-1] .= "\n"; }
		} elsif ($k == 9 && $at < @l) {
			# Duplicate a line many times (repeats, tail trimming).
			splice(@l, $at, 0, ($l[$at]) x (1 + rnd(40)));
		}
	}
	# Only the last line may lack its newline.
	for (0 .. $#l - 1) { $l[$_] .= "\n" unless $l[$_] =~ /\n\z/; }
	# Keep files small enough for a quick test.
	splice(@l, 2000) if @l > 2000;
	spew($p, @l);
}
}

if (@ARGV) {
	mutate($ARGV[0]);
} else {
	$| = 1;
	while (my $seed = <STDIN>) {
		chomp $seed;
		mutate($seed);
		print "done\n";
	}
}
'

# A deterministic choice in the shell: `rnd N` sets R to 0..N-1.
_seed=1
rnd() {
	_seed=$(((_seed * 1103515245 + 12345) % 2147483648))
	R=$(((_seed / 65536) % $1))
}

# mutate SEED: one edit by the mutator that history started.
mutate() {
	local reply
	echo "$1" >&"${MUT[1]}"
	if ! read -r reply <&"${MUT[0]}" || [ "$reply" != done ]; then
		echo "the mutator failed on seed $1" >&2
		return 1
	fi
}

step() {
	rnd 1000000
	mutate "$R"
	commit "step $1 ($R)"
}

# Merge BRANCH into the current branch; on conflict keep our side (or
# theirs where we deleted the file), then maybe edit on top (evil).
merge_resolving() {
	tick
	if ! git merge -q --no-edit -m "merge $1" "$1" >/dev/null 2>&1; then
		# The list first: git diff may hold the index lock while git rm
		# wants it.
		git diff --name-only --diff-filter=U -z >"$PWD/.git/unmerged"
		while IFS= read -r -d '' p; do
			git checkout -q --ours -- "$p" 2>/dev/null ||
				git checkout -q --theirs -- "$p" 2>/dev/null ||
				git rm -q -- "$p"
		done <"$PWD/.git/unmerged"
		rnd 3
		[ $R != 0 ] || mutate "$_seed"
		git add -A
		commit_index "merge $1 (resolved)"
	fi
}

# history SEED STEPS: a main line with side branches that fork at random
# points and merge back; now and then an octopus.
history() {
	_seed=$1
	repo_new r
	coproc MUT { exec perl -e "$MUTATE"; }
	local i b=0 mut_in
	for ((i = 1; i <= $2; i++)); do
		rnd 10
		if [ $R -lt 7 ] || [ $i -lt 3 ]; then
			step "$i"
			continue
		fi
		b=$((b + 1))
		rnd 3
		git checkout -q -b "b$b" "HEAD~$R" 2>/dev/null ||
			git checkout -q -b "b$b"
		step "$i.b$b.1"
		rnd 2
		[ $R = 0 ] || step "$i.b$b.2"
		git checkout -q main
		rnd 4
		if [ $R = 0 ]; then
			git checkout -q -b "c$b" main
			step "$i.c$b"
			git checkout -q main
			step "$i.main"
			tick
			git merge -q --no-edit -m "octopus $b" "b$b" "c$b" \
				>/dev/null 2>&1 ||
				{ git reset -q --hard; merge_resolving "b$b"; }
		else
			step "$i.main"
			merge_resolving "b$b"
		fi
	done
	# The mutator ends at the end of its input.
	mut_in=${MUT[1]}
	exec {mut_in}>&-
	wait "$MUT_PID"
}

fuzz() {
	history "$1" "$2"
	parity . HEAD
	parity . HEAD -w
	parity . HEAD --first-parent
	parity . HEAD~3
	parity . HEAD~6
	# Every fourth commit ignored (merges included, often back to back
	# with another), alone and with -w or --first-parent.
	local ign=() c
	for c in $(git rev-list HEAD | awk 'NR % 4 == 2'); do
		ign+=(--ignore-rev "$c")
	done
	parity . HEAD "${ign[@]}"
	parity . HEAD -w "${ign[@]}"
	parity . HEAD --first-parent "${ign[@]}"
}

# FUZZ_SEEDS="$(seq 100 300)" tests/run fuzz hunts longer (LONG=1, make
# test-long: seeds 1 to 60); FUZZ_STEPS sets the history length (default:
# 40, or 60 for every third seed).
seeds="1 2 3 4 5 6"
[ "${LONG:-0}" != 1 ] || seeds=$(seq 1 60)
for seed in ${FUZZ_SEEDS:-$seeds}; do
	run_case "seed-$seed" fuzz "$seed" "${FUZZ_STEPS:-$((seed % 3 ? 40 : 60))}"
done
finish
