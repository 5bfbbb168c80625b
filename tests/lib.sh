# tests/lib.sh: helpers for strata's shell tests. Source it from a t-*.sh.
#
# A test script is a list of cases. Each case is a shell function that builds
# one or more small repositories with git in its own directory and calls
# `parity`, which compares `strata blame` with `git blame --porcelain` line by
# line. `run_case NAME FUNCTION` runs one case in a subshell, so a failing
# case is reported and the next one still runs; `finish` ends the script with
# a non-zero status if any case failed.
#
# Repository helpers work on the current directory:
#   repo_new DIR          git init DIR and cd into it
#   put FILE [LINE...]    write FILE with one LINE per line (none: empty file)
#   put_raw FILE STRING   write STRING exactly (use $'...' for \r, \0, ...)
#   commit MSG            stage everything and commit, one tick later
#   commit_index MSG      commit only what is staged
#   commit_file FILE MSG [LINE...]   put + commit
#   merge MSG BRANCH...   merge with --no-ff, one tick later
#   tick [SECONDS]        advance the clock used for the next commit
#   at EPOCH              set the clock to an absolute time
#   lines PREFIX FROM TO  print numbered lines; rep N LINE: LINE N times
#   add_gitlink PATH COMMIT   stage a submodule entry (no checkout)
#
# Comparison:
#   parity REPO REV [GIT-BLAME-OPTION...] [-- PATH...]
# (a PATH selects that file or every file under that directory)
# Options are spelled as for git blame and passed to both programs
# (--first-parent, -w, --ignore-rev REV, --ignore-revs-file FILE); give
# --ignore-revs-file an absolute path, as strata does not run inside REPO.
# On failure it prints the first differing lines with both commits' subjects.
#
# Stopping strata at a phase of publishing (STRATA_TEST_STOP, src/report.c):
#   stop_at PHASE CMD...  start CMD in the background ($pid), return once
#                         strata has stopped itself at PHASE
#   is_stopped PID        wait until PID is stopped (or fail: it ended)
#
# Skips (tests/skip-lib.sh): skip_all REASON (exit 77), skip_part REASON.
#
# KEEP_WORK=1 keeps every case's repositories (the path is printed first).
# LONG=1 (make test-long) asks the scripts that have soaks for more rounds.

set -euo pipefail

# shellcheck source=tests/skip-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/skip-lib.sh"

export LC_ALL=C TZ=UTC
# Nothing from the caller's git environment may leak into the repositories
# we build, nor may the machine's or user's configuration: both would change
# what git blame prints (blame.ignoreRevsFile, diff settings, ...).
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG GIT_CONFIG_PARAMETERS \
	GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES GIT_NAMESPACE \
	GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
	GIT_COMMITTER_EMAIL XDG_CONFIG_HOME GIT_TRACE GIT_NO_REPLACE_OBJECTS \
	GIT_REPLACE_REF_BASE GIT_GRAFT_FILE GIT_SHALLOW_FILE
export GIT_CONFIG_NOSYSTEM=1 GIT_MERGE_AUTOEDIT=no GIT_TERMINAL_PROMPT=0

: "${STRATA:?STRATA must name the strata binary (tests/run sets it)}"
case $STRATA in /*) ;; *) STRATA=$PWD/$STRATA ;; esac
[ -x "$STRATA" ] || { echo "not executable: $STRATA" >&2; exit 1; }

# The test's own scratch space, removed however the script ends.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/strata-t.XXXXXX")
# KEEP_WORK=1 keeps it (and every case's repositories) for a post-mortem.
if [ "${KEEP_WORK:-0}" = 1 ]; then
	echo "work directory: $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi
export HOME=$WORK/home
mkdir -p "$HOME"
cat >"$HOME/.gitconfig" <<'EOF'
[user]
	name = Strata Tester
	email = tester@example.com
[init]
	defaultBranch = main
[commit]
	gpgSign = false
[tag]
	gpgSign = false
[core]
	autocrlf = false
	safecrlf = false
[gc]
	auto = 0
# (Nor does it start `git maintenance run --auto` after every commit and
# merge: with gc.auto 0 that has nothing to do, and a process start is
# dear on some hosts.)
[maintenance]
	auto = false
[advice]
	detachedHead = false
[protocol "file"]
	allow = always
EOF

# --- the clock --------------------------------------------------------------

# Every commit gets its own, increasing date, so histories are identical on
# every run and every machine (same commit ids), and date order is the
# topological order unless a test says otherwise (`at`).
_clock=1600000000
at() {
	_clock=$1
	export GIT_AUTHOR_DATE="@$_clock +0000" GIT_COMMITTER_DATE="@$_clock +0000"
}
tick() {
	at $((_clock + ${1:-60}))
}
at $_clock

# --- building repositories -------------------------------------------------

# A history written as one `git fast-import` stream instead of a git add and
# a git commit a commit (a handful of processes each): fi_head REF WHEN MSG
# begins a commit on REF as `commit` would make it (the [user] of the
# configuration above, WHEN "SECONDS +0000", MSG and its newline), and
# fi_file PATH CONTENT puts a file in it.
fi_head() {
	printf 'commit %s\n' "$1"
	printf '%s Strata Tester <tester@example.com> %s\n' \
		author "$2" committer "$2"
	printf 'data %d\n%s\n' $((${#3} + 1)) "$3"
}
fi_file() {
	printf 'M 100644 inline %s\ndata %d\n%s\n' "$1" ${#2} "$2"
}

repo_new() {
	git init -q "$1"
	cd "$1"
}

put() {
	local f=$1
	shift
	case $f in */*) mkdir -p -- "${f%/*}" ;; esac
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" >"$f"
	else
		: >"$f"
	fi
}

put_raw() {
	case $1 in */*) mkdir -p -- "${1%/*}" ;; esac
	printf '%s' "$2" >"$1"
}

# `lines PREFIX FROM TO`: numbered lines PREFIX<N>, without blanks so that
# `put f $(lines x 1 9)` splits into one argument per line.
lines() {
	local i
	for ((i = $2; i <= $3; i++)); do
		printf '%s%d\n' "$1" "$i"
	done
}

# `rep N LINE`: LINE N times (`yes | head` would fail under pipefail).
rep() {
	local i
	for ((i = 0; i < $1; i++)); do
		printf '%s\n' "$2"
	done
}

commit() {
	git add -A
	tick
	git commit -q --allow-empty --no-verify -m "$1"
}

# Commit what is staged, nothing more.
commit_index() {
	tick
	git commit -q --allow-empty --no-verify -m "$1"
}

commit_file() {
	local f=$1 msg=$2
	shift 2
	put "$f" "$@"
	commit "$msg"
}

merge() {
	local msg=$1
	shift
	tick
	git merge -q --no-ff --no-edit -m "$msg" "$@"
}

# Add a gitlink (a submodule entry) at PATH pointing at COMMIT, without a
# submodule checkout: blame must treat it as "not a text file".
add_gitlink() {
	git update-index --add --cacheinfo "160000,$2,$1"
}

# --- cases -----------------------------------------------------------------

_cases=0
_failed=0
_failed_names=

# run_case NAME FUNCTION [ARG...]: run FUNCTION in a subshell inside a fresh
# directory with errexit on (it is off in `if` conditions, hence the dance),
# so one broken case neither stops nor poisons the next.
run_case() {
	local name=$1 rc
	shift
	local dir=$WORK/case-$name
	mkdir -p "$dir"
	set +e
	(
		set -eE
		# errexit alone ends the case without a word about why.
		# To stderr: inside $(...) stdout would become data.
		trap 'echo "error: \"$BASH_COMMAND\" failed (status $?)" >&2' ERR
		cd "$dir"
		"$@"
	) >"$dir.log" 2>&1
	rc=$?
	set -e
	_cases=$((_cases + 1))
	if [ $rc = 0 ]; then
		echo "  ok $name"
		# What the case could not run (skip_part): for tests/run.
		grep -E '^skip: ' "$dir.log" | sed "s/^skip: /skip: $name: /" ||
			true
	elif [ $rc = 77 ]; then
		# skip_all inside a case skips that case only.
		grep -E '^skip: ' "$dir.log" | tail -n 1 |
			sed "s/^skip: /skip: $name: /" || true
	else
		_failed=$((_failed + 1))
		_failed_names="$_failed_names $name"
		echo "  FAIL $name"
		sed -e 's/^/    | /' "$dir.log" | tail -n 60
	fi
	[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$dir"
}

finish() {
	echo "$_cases cases, $_failed failed${_failed_names:+:$_failed_names}"
	[ "$_failed" = 0 ]
}

# --- errors ----------------------------------------------------------------

# bounded CMD...: CMD within BOUND_SECONDS (default 60) and 2 GiB of
# address space, for hostile inputs. Under ASan (which reserves terabytes
# of address space) the time bound only, four times as long: the bound is
# there to catch a hang, and a sanitized build on a loaded machine is
# several times slower (t-hostile-inputs' 10 s ran out in CI's SAN run).
# ASan is known by its symbol in the binary: gcc's links libasan, but
# clang's carries its runtime inside (ldd shows no libasan).
_bound_asan=0
if grep -q -a -F __asan_init "$STRATA" 2>/dev/null; then
	_bound_asan=1
fi
bounded() {
	(
		[ $_bound_asan = 1 ] || ulimit -v 2097152
		local secs=${BOUND_SECONDS:-60}
		[ $_bound_asan = 0 ] || secs=$((secs * 4))
		exec timeout "$secs" "$@"
	)
}

# expect CODE PATTERN CMD...: run CMD (in the current directory, output
# in ./out and ./err), require exit CODE, a single stderr line matching
# the extended regex "^strata: PATTERN", and nothing on stdout.
expect() {
	local code=$1 pat=$2 rc=0
	shift 2
	"$@" >out 2>err || rc=$?
	if [ "$rc" != "$code" ]; then
		echo "exit $rc, wanted $code: $*"; cat err; return 1
	fi
	if [ "$(wc -l <err)" != 1 ] || ! grep -Eq "^strata: $pat" err; then
		echo "stderr of '$*' should be one line matching '$pat':"; cat err
		return 1
	fi
	if [ -s out ]; then
		echo "unexpected stdout from '$*':"; head -3 out; return 1
	fi
}

# --- stopping strata at a phase ------------------------------------------

# stop_at PHASE CMD...: start CMD (an executable, not a shell function:
# strata must be this shell's child) in the background, its pid in $pid,
# with STRATA_TEST_STOP set so that strata stops itself (SIGSTOP) on
# reaching PHASE of publishing (src/report.c lists them); return once it
# has stopped, or fail if it ended first. The caller then sends what it
# wants, `kill -CONT $pid` and waits: the signal lands exactly there.
stop_at() {
	# (Expanded after the fork, $BASHPID would be the child's own id.)
	local phase=$1 me=$BASHPID
	shift
	STRATA_TEST_STOP="$phase:$me" "$@" &
	pid=$!
	is_stopped "$pid"
}

# is_stopped PID: wait until PID is stopped (true) or has ended (false).
is_stopped() {
	local st
	while :; do
		read -r st <"/proc/$1/stat" 2>/dev/null || return 1
		st=${st##*) }
		case $st in
		[Tt]*) return 0 ;;
		[ZX]*) return 1 ;;
		esac
		sleep 0.01
	done
}

# --- parity ----------------------------------------------------------------

# text_files REPO REV: the text files at REV, NUL-terminated, in tree order.
# A text file is a blob of mode 100644 or 100755, non-empty, with no NUL in
# its first 8000 bytes (the contract; git blame itself blames anything).
text_files() {
	perl -e '
		use strict; use warnings; use IPC::Open2;
		my ($repo, $rev) = @ARGV;
		open(my $ls, "-|", "git", "-C", $repo, "ls-tree", "-r", "-z",
		     "--full-tree", $rev) or die "ls-tree: $!";
		my @blobs;
		{
			local $/ = "\0";
			while (my $e = <$ls>) {
				chomp $e;
				my ($meta, $path) = split /\t/, $e, 2;
				my ($mode, $type, $oid) = split / /, $meta;
				push @blobs, [$oid, $path]
				    if $type eq "blob" &&
				       ($mode eq "100644" || $mode eq "100755");
			}
		}
		close $ls or die "git ls-tree $rev failed\n";
		my $pid = open2(my $out, my $in, "git", "-C", $repo,
				"cat-file", "--batch");
		binmode $out; binmode STDOUT;
		for my $b (@blobs) {
			print $in "$b->[0]\n";
			$in->flush;
			my $head = <$out>;
			my (undef, undef, $size) = split / /, $head;
			my $data = "";
			while (length($data) < $size + 1) {
				read($out, $data, $size + 1 - length($data),
				     length($data)) or die "short read\n";
			}
			next if $size == 0;
			next if index(substr($data, 0, 8000), "\0") >= 0;
			print "$b->[1]\0";
		}
		close $in; waitpid $pid, 0;
	' "$1" "$2"
}

# Expanded form, one line of a file per line: PATH<TAB>LINE<TAB>COMMIT, with
# backslash, tab and newline in PATH escaped so any name fits on one line.
_PERL_ENC='sub enc { my $s = shift; $s =~ s/\\/\\\\/g; $s =~ s/\t/\\t/g;
	$s =~ s/\n/\\n/g; return $s; }'

# git_expand REPO REV PATHS-FILE [OPTION...]: git blame each NUL-separated
# path of PATHS-FILE and print the expanded form. One perl runs every git
# blame (a process start is dear on some hosts: one per file, not two);
# a git blame that fails fails the caller.
git_expand() {
	local repo=$1 rev=$2 list=$3
	shift 3
	perl -e "$_PERL_ENC"'
		use strict; use warnings;
		my ($repo, $rev, $list, @opts) = @ARGV;
		open(my $l, "<", $list) or die "$list: $!\n";
		binmode STDOUT;
		local $/ = "\0";
		while (my $p = <$l>) {
			chomp $p;
			my $e = enc($p);
			open(my $g, "-|", "git", "-C", $repo, "blame",
			     "--porcelain", @opts, $rev, "--", $p)
			    or die "git blame: $!\n";
			{
				local $/ = "\n";
				binmode $g;
				while (<$g>) {
					print "$e\t$2\t$1\n"
					    if /^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$/;
				}
			}
			close $g or die "git blame $rev -- $e failed\n";
		}' "$repo" "$rev" "$list" "$@"
}

# strata_expand OUT FILES-OUT: check strata's raw output (stdin) for form,
# order and maximal runs, print the expanded form to OUT and the (escaped)
# names of the files it printed to FILES-OUT.
strata_expand() {
	perl -e "$_PERL_ENC"'
		use strict; use warnings;
		my ($out, $files) = @ARGV;
		open(my $o, ">", $out) or die;
		open(my $f, ">", $files) or die;
		binmode STDIN;
		# A path is quoted as git quotes it (core.quotePath): between
		# double quotes with C escapes when it has a control character,
		# a double quote, a backslash or a byte from 0x80; else raw.
		my %esc = (a => "\a", b => "\b", t => "\t", n => "\n",
			   v => "\013", f => "\f", r => "\r", q => "\"");
		sub unquote {
			my $q = shift;
			if ($q !~ /^"(.*)"$/s) {
				die "strata: path not quoted: " . enc($q) . "\n"
				    if $q =~ /[\x00-\x1f"\\\x7f-\xff]/;
				return $q;
			}
			my $s = $1;
			my $back = $s =~ s/\\([0-3][0-7][0-7]|[abtnvfr"\\])/
			    length($1) == 3 ? chr(oct($1)) :
			    $1 eq "\\" ? "\\" : $esc{$1 eq "\"" ? "q" : $1}/gre;
			die "strata: path quoted without need: $q\n"
			    if $back !~ /[\x00-\x1f"\\\x7f-\xff]/;
			return $back;
		}
		my @runs;
		while (my $l = <STDIN>) {
			chomp $l;
			if ($l =~ /^([0-9a-f]{40})\t([0-9]+)\t([0-9]+)\t(.*)$/s) {
				push @runs, [$1, $2, $3, unquote($4)];
			} else {
				die "strata: malformed line $.: $l\n";
			}
		}
		my ($prev, $err) = (undef, 0);
		for my $r (@runs) {
			my ($c, $s, $n, $p) = @$r;
			my $where = enc($p) . ":$s";
			if ($s < 1 || $n < 1) {
				warn "strata: empty or zero-based run at $where\n";
				$err++;
			}
			if (!defined $prev || $prev->[3] ne $p) {
				if (defined $prev && ($prev->[3] cmp $p) > 0) {
					warn "strata: paths not sorted bytewise at " .
					    enc($p) . "\n";
					$err++;
				}
				if ($s != 1) {
					warn "strata: $where: first run does not start at 1\n";
					$err++;
				}
				print $f enc($p), "\n";
			} else {
				my $end = $prev->[1] + $prev->[2];
				if ($s != $end) {
					warn "strata: $where: run starts at $s, expected $end" .
					    " (gap, overlap or unsorted)\n";
					$err++;
				}
				if ($prev->[0] eq $c) {
					warn "strata: $where: run not maximal (same commit" .
					    " as the run before)\n";
					$err++;
				}
			}
			my $ep = enc($p);
			print $o "$ep\t", $s + $_, "\t$c\n" for 0 .. $n - 1;
			$prev = $r;
		}
		exit($err ? 1 : 0);
	' "$1" "$2"
}

# compare_expanded REPO EXPECTED ACTUAL: report the first differences, with
# commit subjects, so a failure can be read without rerunning anything.
compare_expanded() {
	perl -e '
		use strict; use warnings;
		my ($repo, $exp, $act) = @ARGV;
		my (%want, %got, @order);
		open(my $e, "<", $exp) or die;
		while (<$e>) { chomp; my ($p, $l, $c) = split /\t/;
			push @order, "$p\t$l"; $want{"$p\t$l"} = $c; }
		open(my $a, "<", $act) or die;
		while (<$a>) { chomp; my ($p, $l, $c) = split /\t/;
			if (exists $got{"$p\t$l"}) { print "strata: $p:$l printed twice\n"; }
			$got{"$p\t$l"} = $c; }
		my %subj;
		my $subject = sub {
			my $c = shift;
			return "" unless defined $c;
			$subj{$c} //= do {
				my $s = `git -C "$repo" log -1 --format=%s $c 2>/dev/null`;
				chomp $s; $s;
			};
			return substr($c, 0, 10) . " ($subj{$c})";
		};
		my ($bad, %badfiles) = (0);
		for my $k (@order) {
			my $g = $got{$k};
			next if defined $g && $g eq $want{$k};
			$bad++;
			my ($p, $l) = split /\t/, $k;
			$badfiles{$p}++;
			printf "  %s:%s git %s, strata %s\n", $p, $l,
			    $subject->($want{$k}),
			    defined $g ? $subject->($g) : "nothing"
			    if $bad <= 20;
		}
		for my $k (sort keys %got) {
			next if exists $want{$k};
			$bad++;
			my ($p, $l) = split /\t/, $k;
			$badfiles{$p}++;
			print "  $p:$l strata printed a line git does not have\n"
			    if $bad <= 20;
		}
		if ($bad) {
			my @f = sort keys %badfiles;
			my $nf = @f;
			splice(@f, 8) if @f > 8;
			printf "%d of %d lines differ, in %d file(s): %s\n", $bad,
			    scalar(@order), $nf, join(" ", @f);
			exit 1;
		}
	' "$@"
}

# run_strata REPO REV OUT [OPTION...] [-- PATH...]: run strata blame, fail
# on a non-zero exit or anything on stderr other than nothing.
run_strata() {
	local repo=$1 rev=$2 out=$3 rc=0
	shift 3
	"$STRATA" blame "$repo" --rev "$rev" --quiet "$@" >"$out" 2>"$out.err" ||
		rc=$?
	if [ $rc != 0 ]; then
		echo "strata blame $repo --rev $rev $* exited with $rc:"
		head -n 20 "$out.err"
		return 1
	fi
}

# parity REPO REV [OPTION...] [-- PATH...]: strata blame and git blame must
# attribute every line of every text file (or of the PATHs) to the same
# commit, and strata must print exactly the text files.
parity() {
	local repo rev opts=() paths=() have_paths=0 d here=$PWD
	# (cd there and back, not $(cd && pwd): a subshell is a process.)
	cd "$1" || return 1
	repo=$PWD
	cd "$here"
	rev=$2
	shift 2
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			have_paths=1
			shift
			paths=("$@")
			break
		fi
		opts+=("$1")
		shift
	done
	d=$(mktemp -d "$WORK/parity.XXXXXX")

	if [ $have_paths = 1 ]; then
		text_files "$repo" "$rev" >"$d/all"
		# Keep the text files that are one of the PATHs or under one.
		printf '%s\0' "${paths[@]}" >"$d/want"
		perl -0 -e 'open(W, "<", $ARGV[0]);
			my @w = map { chomp; s{/+$}{}; $_ } <W>;
			open(A, "<", $ARGV[1]);
			for my $f (<A>) { chop(my $n = $f);
				print $f if grep { $n eq $_ || $_ eq "" ||
				    index($n, "$_/") == 0 } @w; }' \
			"$d/want" "$d/all" >"$d/list"
		run_strata "$repo" "$rev" "$d/strata" "${opts[@]}" -- "${paths[@]}"
	else
		text_files "$repo" "$rev" >"$d/list"
		run_strata "$repo" "$rev" "$d/strata" "${opts[@]}"
	fi

	local ok=0
	strata_expand "$d/actual" "$d/printed" <"$d/strata" || ok=1
	git_expand "$repo" "$rev" "$d/list" "${opts[@]}" >"$d/expected"

	# The set of files: none missing, no binary/symlink/gitlink/empty extra;
	# and git blame gave lines for every text file. One perl for both (a
	# process start is dear on some hosts); it also leaves the counts for
	# the last line in $d/counts.
	_parity_files "$d/list" "$d/printed" "$d/expected" "$d/counts" || ok=1
	compare_expanded "$repo" "$d/expected" "$d/actual" || ok=1
	# The same history read out of a pack (strata's own pack reader) must
	# give the same output as read from loose objects (through libgit2).
	if [ $ok = 0 ] && [ -d "$repo/.git" ] && _has_loose "$repo/.git"; then
		_packed_copy "$repo" || ok=1
		# (Three jobs at least: packed commits are then parsed
		# ahead, on threads; the case's own --jobs comes after.)
		if [ $ok != 0 ]; then
			:
		elif [ $have_paths = 1 ]; then
			run_strata "$_packed" "$rev" "$d/strata.packed" \
				--jobs 3 "${opts[@]}" -- "${paths[@]}" || ok=1
		else
			run_strata "$_packed" "$rev" "$d/strata.packed" \
				--jobs 3 "${opts[@]}" || ok=1
		fi
		if [ $ok = 0 ] && ! cmp -s "$d/strata" "$d/strata.packed"; then
			echo "  strata's output differs once the objects are packed"
			ok=1
		fi
	fi
	if [ $ok != 0 ]; then
		echo "parity FAILED: $repo at $rev${opts[*]:+ ${opts[*]}}" \
			"${paths[*]:+-- ${paths[*]}}"
		return 1
	fi
	local nlines nfiles
	read -r nlines nfiles <"$d/counts"
	echo "parity ok: ${repo##*/} at $rev${opts[*]:+ ${opts[*]}}" \
		"($nlines lines, $nfiles files)"
	rm -rf "$d"
}

# _parity_files LIST PRINTED EXPECTED COUNTS: the text files of LIST
# (NUL-separated) against those strata printed (PRINTED, escaped, one a
# line), both sorted bytewise: the first ten missing and the first ten
# extra, as comm would list them; then EXPECTED (git's expanded form) must
# have a run of lines for every text file (none missing, which would pass
# as "both empty"). Writes "LINES FILES" of EXPECTED and LIST to COUNTS.
_parity_files() {
	perl -e "$_PERL_ENC"'
		use strict; use warnings;
		my ($list, $printed, $exp, $counts) = @ARGV;
		my $bad = 0;
		open(my $l, "<", $list) or die "$list: $!\n";
		my @want = do { local $/ = "\0"; map { chomp; enc($_) } <$l> };
		open(my $p, "<", $printed) or die "$printed: $!\n";
		my @got = map { chomp; $_ } <$p>;
		@want = sort @want;
		@got = sort @got;
		if (join("\n", @want) ne join("\n", @got) || @want != @got) {
			$bad = 1;
			# comm -23 and comm -13 of the two sorted lists.
			my ($i, $j, @miss, @extra) = (0, 0);
			while ($i < @want || $j < @got) {
				if ($j >= @got || ($i < @want && $want[$i] lt $got[$j])) {
					push @miss, $want[$i++];
				} elsif ($i >= @want || $got[$j] lt $want[$i]) {
					push @extra, $got[$j++];
				} else {
					$i++; $j++;
				}
			}
			print "  missing from strata: $_\n" for grep { defined }
			    @miss[0 .. 9];
			print "  printed by strata but not a text file here: $_\n"
			    for grep { defined } @extra[0 .. 9];
		}
		# Files in the expected form: runs of one path (cut -f1 | uniq).
		open(my $e, "<", $exp) or die "$exp: $!\n";
		my ($lines, $runs, $last) = (0, 0, undef);
		while (<$e>) {
			$lines++;
			my ($f) = /^([^\t\n]*)/;
			$runs++ if !defined $last || $f ne $last;
			$last = $f;
		}
		if ($runs != @want) {
			print "  git blame gave no lines for some text files\n";
			$bad = 1;
		}
		open(my $c, ">", $counts) or die "$counts: $!\n";
		print $c "$lines ", scalar(@want), "\n";
		close $c or die "$counts: $!\n";
		exit $bad;
	' "$@"
}

# _has_loose GITDIR: true if GITDIR holds a loose object (what git
# count-objects counts), by a glob: no process.
_has_loose() {
	local -a loose
	local h='[0-9a-f]' name had=0
	printf -v name "%.0s$h" {1..38}
	shopt -q nullglob && had=1
	shopt -s nullglob
	loose=("$1"/objects/$h$h/$name)
	[ $had = 1 ] || shopt -u nullglob
	[ ${#loose[@]} != 0 ]
}

# _packed_copy REPO: $_packed, a copy of REPO with every object repacked
# into one pack and what no ref reaches pruned. Parity is called many
# times on one unchanged repository (each option, each revision), so the
# last copy is kept with a digest of everything in REPO (paths, kinds,
# modes, contents) and used again while that digest holds: the same
# content packs the same, and repacking it again (a cp, a repack with a
# wide delta window and a prune each time) is most of parity's own cost.
_packed_copy() {
	local repo=$1 cache=$WORK/packed-cache key old=
	key=$(perl -e '
		use strict; use warnings; use Digest::MD5;
		# (By hand, not File::Find: loading that costs more than this.)
		my $all = Digest::MD5->new;
		sub walk {
			my ($root, $rel) = @_;
			my $p = "$root$rel";
			my @st = lstat($p) or die "$p: $!\n";
			$all->add("$rel\0$st[2]\0");
			if (-l _) {
				$all->add(readlink($p) // die "$p: $!\n");
			} elsif (-f _) {
				open(my $f, "<", $p) or die "$p: $!\n";
				binmode $f;
				$all->add(Digest::MD5->new->addfile($f)->hexdigest);
			} elsif (-d _) {
				opendir(my $d, $p) or die "$p: $!\n";
				my @names = sort grep { $_ ne "." && $_ ne ".." }
				    readdir $d;
				walk($root, "$rel/$_") for @names;
			}
			$all->add("\0");
		}
		walk($ARGV[0], "");
		print $all->hexdigest, "\n";
	' "$repo")
	_packed=$cache/repo
	[ ! -e "$cache/key" ] || read -r old <"$cache/key"
	[ "$key" != "$old" ] || return 0
	[ ! -e "$cache" ] || rm -rf "$cache"
	mkdir "$cache"
	cp -a "$repo" "$_packed"
	git -C "$_packed" repack -q -a -d -f --depth=50 --window=50
	git -C "$_packed" prune --expire=now  # what no ref reaches
	if _has_loose "$_packed/.git"; then
		echo "  repack left loose objects"
		return 1
	fi
	echo "$key" >"$cache/key"
}
