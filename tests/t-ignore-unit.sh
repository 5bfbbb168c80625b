#!/bin/bash
# t-ignore-unit: the ignore-revs guess (src/ignore.c) on its own.
#
# 1. tests/unit/ignore_test.c: hand-checked cases and random properties,
#    under ASan/UBSan when the compiler has them.
# 2. tests/unit/ignore_xcheck.c, a one-file model of git's pass_blame built
#    on ignore_guess() and src/diff.c, against `git blame --porcelain
#    --ignore-rev` on small repositories (several also pin git's answer,
#    commit subject per line, where the rules give a telling result).
# 3. The same on random reformatting histories with merges
#    (tests/unit/ignore_fuzz.pl), plain and with -w.
#
# The model takes its hunks from src/diff.c; IGNORE_XCHECK_DIFF=libgit2
# takes them from libgit2 instead (tail-trimmed as git does), and a history
# that fails is retried that way to tell which module is at fault.
# IGNORE_FUZZ=N sets the number of random histories (default 40).
#
# Needs cc, git, perl and libgit2 (pkg-config). Exit 0 when all pass.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
# Sanitizers when this compiler and machine can run them.
unit_setup t-ignore-unit --san-auto
work=$tmp
export HOME=$work/home
export GIT_CONFIG_NOSYSTEM=1 GIT_MERGE_AUTOEDIT=no GIT_TERMINAL_PROMPT=0
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG GIT_CONFIG_PARAMETERS \
	GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES GIT_NAMESPACE \
	GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME \
	GIT_COMMITTER_EMAIL XDG_CONFIG_HOME GIT_TRACE
mkdir -p "$HOME"
cat >"$HOME/.gitconfig" <<'EOF'
[user]
	name = Strata Tester
	email = tester@example.com
[init]
	defaultBranch = main
[core]
	autocrlf = false
	safecrlf = false
[commit]
	gpgSign = false
[gc]
	auto = 0
EOF

command -v git >/dev/null || fail "git not found"
command -v perl >/dev/null || fail "perl not found"
# (-O0: under ASan both run as fast as at -O1 here, their time going to
# starting up, and build in 60% of its time.)
unit_build "$work/ignore_test" "libgit2 libdeflate zlib" -O0 \
	tests/unit/ignore_test.c src/ignore.c src/odb.c src/error.c
unit_build "$work/xcheck" "libgit2 libdeflate zlib" -O0 \
	tests/unit/ignore_xcheck.c src/ignore.c src/diff.c src/odb.c src/error.c

xdiff=()
[ "${IGNORE_XCHECK_DIFF:-}" = libgit2 ] && xdiff=(--libgit2)

failed=0
cases=0

# --- 1. unit cases ----------------------------------------------------------

cases=$((cases + 1))
if "$work/ignore_test" >"$work/unit.log" 2>&1; then
	echo "  ok unit ($(tail -n 1 "$work/unit.log"))"
else
	failed=$((failed + 1))
	echo "  FAIL unit"
	grep -v '^ok ' "$work/unit.log" | head -n 40 | sed 's/^/    | /'
fi

# --- 2. small repositories against git --------------------------------------

clock=1600000000
commit() {
	clock=$((clock + 60))
	git add -A
	# an edit that did not happen would make a case pass for nothing
	GIT_AUTHOR_DATE="@$clock +0000" GIT_COMMITTER_DATE="@$clock +0000" \
		git commit -q -m "$1"
}
put() {
	local f=$1
	shift
	printf '%s\n' "$@" >"$f"
}
# rev SUBJECT: the commit of that subject, from ./subjects (which
# `subjects` writes: one git log for every lookup of a case, not two
# processes per commit looked up).
subjects() {
	git log --all --format='%H %s' >subjects
}
rev() {
	local id s
	while read -r id s; do
		[ "$s" != "$1" ] || echo "$id"
	done <subjects
}

# same [-w] NAME EXPECT IGNORED-SUBJECT...: git blame of f.c at HEAD and the
# model must agree line for line; EXPECT ("-" for none) is git's answer as
# commit subjects, one word per line.
same() {
	local w=() name expect args=() ids=() s id
	if [ "$1" = -w ]; then
		w=(-w)
		shift
	fi
	name=$1 expect=$2
	shift 2
	subjects
	for s in "$@"; do
		id=$(rev "$s")
		[ -n "$id" ] || { echo "no commit '$s'"; return 1; }
		args+=(--ignore-rev "$id")
		ids+=("$id")
	done
	git blame --porcelain "${w[@]}" "${args[@]}" HEAD -- f.c |
		perl -ne 'print "$1\n" if /^([0-9a-f]{40}) \d+ \d+/' >git.out
	"$work/xcheck" "${xdiff[@]}" "${w[@]}" . HEAD f.c "${ids[@]}" \
		>model.out || { echo "xcheck failed"; return 1; }
	if ! cmp -s git.out model.out; then
		echo "model and git differ on $name (ignoring $*):"
		paste git.out model.out | nl | awk '$2 != $3' | head -n 20
		return 1
	fi
	if [ "$expect" != - ]; then
		got=$(awk 'NR == FNR { s[$1] = $2; next }
			{ printf "%s%s", (FNR > 1 ? " " : ""), s[$1] }' subjects git.out)
		if [ "$got" != "$expect" ]; then
			echo "git says '$got', test expected '$expect'" \
				"(git or the test changed?)"
			return 1
		fi
	fi
}

# run_case NAME FUNCTION: in a fresh repository, in a subshell.
run_case() {
	local name=$1 rc
	cases=$((cases + 1))
	mkdir "$work/$name"
	set +e
	(
		set -e
		cd "$work/$name"
		git init -q .
		"$2"
	) >"$work/$name.log" 2>&1
	rc=$?
	set -e
	if [ $rc = 0 ]; then
		echo "  ok $name"
	else
		failed=$((failed + 1))
		echo "  FAIL $name"
		tail -n 30 "$work/$name.log" | sed 's/^/    | /'
	fi
	rm -rf "${work:?}/$name"
}

# A small C file; `c_file` writes it, `c_file NAME` a reworked version:
# edit-inside (lines replaced, added and removed inside the hunks),
# new-lines (brand-new lines, one close to a line far away), more-target
# (lines split: more target than parent lines in a hunk), fewer-target
# (lines joined).
c_file() {
	case ${1:-} in
	"") cat >f.c <<'EOF' ;;
#include <stdio.h>

static int sum(int *vals, int n)
{
	int count = 0;
	int i;

	for (i = 0; i < n; i++)
		count += vals[i];
	return count;
}

int main(void)
{
	int vals[] = { 1, 2, 3 };

	printf("%d\n", sum(vals, 3));
	return 0;
}
EOF
	edit-inside) cat >f.c <<'EOF' ;;
#include <stdio.h>

static int sum(int *vals, int n)
{
	int count = 0, i;
	int unused_extra_variable;
	long acc = 0;

	for (i = 0; i < n; i++)
		count += vals[i];
	return count;
}

int main(void)
{
	int vals[] = {
		1, 2, 3
	};
	printf("%d\n", sum(vals, 3));
	return 0;
}
EOF
	new-lines) cat >f.c <<'EOF' ;;
#include <stdio.h>
#include <stdlib.h>

static int sum(int *vals, int n)
{
	int count = 0;
	int i;

	for (i = 0; i < n; i++)
		count += vals[i];
	return count;
}

int main(void)
{
	fprintf(stderr, "starting up now\n");
	int vals_copy;
	int vals[] = { 1, 2, 3 };

	printf("%d\n", sum(vals, 3));
	return 0;
}
static int summ(int *vals, int n);
EOF
	more-target) cat >f.c <<'EOF' ;;
#include <stdio.h>

static int sum(int *vals, int n)
{
	int count = 0;
	int i;

	for (i = 0;
	     i < n;
	     i++) {
		count +=
			vals[i];
	}
	return count;
}

int main(void)
{
	int vals[] = { 1, 2, 3 };

	printf("%d\n", sum(vals, 3));
	return 0;
}
EOF
	fewer-target) cat >f.c <<'EOF' ;;
#include <stdio.h>

static int sum(int *vals, int n)
{
	int count = 0, i;
	for (i = 0; i < n; i++) count += vals[i];
	return count;
}

int main(void)
{
	int vals[] = { 1, 2, 3 }; printf("%d\n",
	       sum(vals, 3));
	return 0;
}
EOF
	esac
}

# The original C file, one line per commit (L1, L2, ...), so that blame
# shows which parent line each guessed line went to. The commits are
# those `commit` would make (same trees, dates, names: same ids), from one
# git fast-import instead of an add and a commit each.
grow() {
	local k text=() s=
	c_file
	mapfile -t text <f.c
	for ((k = 1; k <= ${#text[@]}; k++)); do
		s+=${text[k - 1]}$'\n'
		clock=$((clock + 60))
		printf 'commit refs/heads/main\n'
		printf '%s Strata Tester <tester@example.com> %d +0000\n' \
			author "$clock" committer "$clock"
		printf 'data %d\nL%d\n' $((${#k} + 2)) "$k"
		printf 'M 100644 inline f.c\ndata %d\n%s\n' "${#s}" "$s"
	done >.git/stream	# (not a pipe: the loop must move this shell's clock)
	git fast-import --quiet <.git/stream
	git reset -q
}

case_rename() {
	grow
	sed -i 's/count/total/g; s/vals/values/g' f.c
	commit X
	echo "/* end */" >>f.c
	commit B
	same rename "$(printf 'L%d ' $(seq 1 19))B" X
}

case_reindent() {
	grow
	perl -pi -e 's/^\t\t/        /; s/^\t/    /' f.c
	commit X
	same reindent - X
	same -w reindent-w - X
}

# case_version NAME EXPECT: the original, then version NAME ignored.
case_version() {
	grow
	c_file "$1"
	commit X
	same "$1" "$2" X
}
case_edit_inside() { case_version edit-inside -; }
# Several lines land on one parent line (L1, L17), one far outside its
# hunk (L17: the whole-file scan), one on a line ten lines up (L3).
case_new_lines() {
	case_version new-lines "L1 L1 $(printf 'L%d ' $(seq 2 14))L17 X L15 \
L16 L17 L18 L19 L3"
}
case_more_target() {
	case_version more-target "$(printf 'L%d ' $(seq 1 7))L8 L8 L8 L9 L9 \
X $(printf 'L%d ' $(seq 10 19) | sed 's/ $//')"
}
case_fewer_target() { case_version fewer-target -; }

case_uses_up() {
	put f.c "alpha alpha alpha"
	commit A
	put f.c "ALPHA alpha alpha" "alpha ALPHA alpha"
	commit X
	# the first line takes the parent line and uses it up
	same uses-up "A X" X
}

case_earlier_hunk() {
	put f.c "alpha alpha alpha" "middle line" "zzz"
	commit A
	put f.c "ALPHA alpha alpha" "middle line" "alpha alpha ALPHA"
	commit X
	same earlier-hunk "A A X" X
	put f.c "alpha alpha alpha" "middle line" "zzz"
	commit Y
	put f.c "alpha alpha alpha" "middle line" "alpha alpha ALPHA"
	commit Z
	# without the first hunk, the fallback finds line 0 far away
	same earlier-hunk-not "Y A Y" Z
}

case_threshold() {
	put f.c "abcdefghiz"
	commit A
	put f.c "abcdefghiz" "abcdefghi"
	commit X
	same threshold-9 "A X" X
	put f.c "abcdefghi xyz"
	commit B
	put f.c "abcdefghi xyz" "ABCDEFGHI"
	commit Y
	same threshold-10 "B B" Y
}

case_ctype() {
	printf 'abcdefghi\f\n' >f.c
	commit A
	printf 'abcdefghi\f\nabcdefghi\n' >f.c
	commit X
	same formfeed "A X" X
	printf '\300bcdefghi\n' >f.c
	commit B
	printf '\300bcdefghi\n\340bcdefghi\n' >f.c
	commit Y
	same latin1 "B Y" Y
	# a last line without newline prints like one with, CR is a blank
	printf 'abcdefghi' >f.c
	commit C
	printf '  ABCDEFGHI\r\nabcdefghi' >f.c
	commit Z
	same eol "C C" Z
}

case_scan_tie() {
	put f.c "same text here" "zzz"
	commit A
	put f.c "same text here" "zzz" "same text here"
	commit B
	put f.c "same text here" "same text here!" "zzz" "same text here"
	commit X
	same tie-equidistant "A B A B" X
	put f.c "same text here" "zzz" "same text here"
	commit C
	put f.c "same text here!" "same text here" "zzz" "same text here"
	commit Y
	same tie-nearest "A A A B" Y
}

case_back_to_back() {
	grow
	sed -i 's/count/total/g' f.c
	commit X1
	perl -pi -e 's/^\t/  /' f.c
	commit X2
	sed -i 's/total/acc/; s/vals/v/g' f.c
	commit B
	same back-to-back - X1 X2
	same back-to-back-first - X1
	same back-to-back-second - X2
	same back-to-back-all - X1 X2 B
}

case_merge() {
	grow
	git checkout -q -b side
	sed -i 's/count/total/g' f.c
	commit S
	git checkout -q main
	perl -pi -e 's/^\t/    /' f.c
	commit M1
	git merge -q -s ours --no-commit side >/dev/null 2>&1 || true
	c_file
	sed -i 's/count/Total/g; s/vals/values/g' f.c
	echo "/* merged */" >>f.c
	commit E
	same merge-ignored - E
	same merge-ignored-all - E S M1
	same merge-ignored-side - E S
}

case_added_by_ignored() {
	c_file
	commit X
	sed -i 's/count/total/' f.c
	commit B
	same added - X
}

case_crlf() {
	grow
	perl -pi -e 's/\n/\r\n/' f.c
	commit X
	same crlf - X
	same -w crlf-w - X
}

case_overflow() {
	# A hunk this large overflows git's int arithmetic: from target line
	# 32539 on, the position mapping wraps, the hunk search finds nothing
	# and these short lines are under the whole-file threshold, so they
	# stay on X. Everything before finds its line.
	perl -e 'print "a$_\n" for 1 .. 33000' >f.c
	commit A
	perl -pi -e 's/^a/A/' f.c
	commit X
	same overflow - X
	[ "$(grep -c "$(rev X)" git.out)" = 462 ] &&
		[ "$(grep -n -m 1 "$(rev X)" git.out)" = "32539:$(rev X)" ] ||
		{ echo "git no longer wraps where expected"; return 1; }
}

run_case rename case_rename
run_case reindent case_reindent
run_case edit-inside case_edit_inside
run_case new-lines case_new_lines
run_case more-target case_more_target
run_case fewer-target case_fewer_target
run_case uses-up case_uses_up
run_case earlier-hunk case_earlier_hunk
run_case threshold case_threshold
run_case ctype case_ctype
run_case scan-tie case_scan_tie
run_case back-to-back case_back_to_back
run_case merge case_merge
run_case added-by-ignored case_added_by_ignored
run_case crlf case_crlf
run_case overflow case_overflow

# --- 3. random histories ----------------------------------------------------

# fuzz SEED [-w]: a random history, a third of it ignored.
fuzz() {
	local seed=$1 w=() d ids=() args=() m id
	[ $# -gt 1 ] && w=("$2")
	d=$work/fuzz-$seed
	git init -q "$d"
	perl "$root/tests/unit/ignore_fuzz.pl" "$seed" 25 2>"$d.ign" |
		git -C "$d" fast-import --quiet --export-marks="$d.marks"
	local -A mark=()
	while read -r m id; do
		mark[$m]=$id
	done <"$d.marks"
	while read -r m; do
		ids+=("${mark[$m]:-}")
	done <"$d.ign"
	for m in "${ids[@]}"; do
		args+=(--ignore-rev "$m")
	done
	git -C "$d" blame --porcelain "${w[@]}" "${args[@]}" main -- f.c |
		perl -ne 'print "$1\n" if /^([0-9a-f]{40}) \d+ \d+/' >"$d.git"
	if "$work/xcheck" "${xdiff[@]}" "${w[@]}" "$d" main f.c "${ids[@]}" \
		>"$d.model" 2>"$d.err" && cmp -s "$d.git" "$d.model"; then
		rm -rf "$d" "$d".*
		return 0
	fi
	echo "    seed $seed ${w[*]}: $(paste "$d.git" "$d.model" |
		awk '$1 != $2' | wc -l) of $(wc -l <"$d.git") lines differ" \
		"$(head -n 1 "$d.err")"
	if [ ${#xdiff[@]} = 0 ] &&
		"$work/xcheck" --libgit2 "${w[@]}" "$d" main f.c "${ids[@]}" \
			>"$d.model2" 2>/dev/null && cmp -s "$d.git" "$d.model2"; then
		echo "    (agrees with git on libgit2's hunks: src/diff.c is at fault)"
	fi
	return 1
}

# IGNORE_FUZZ=N histories (LONG=1, make test-long: 400).
nfuzz=40
[ "${LONG:-0}" != 1 ] || nfuzz=400
nfuzz=${IGNORE_FUZZ:-$nfuzz}
bad=0
for ((s = 1; s <= nfuzz; s++)); do
	fuzz "$s" >>"$work/fuzz.log" 2>&1 || bad=$((bad + 1))
	if ((s % 3 == 0)); then
		fuzz "$((s + 100000))" -w >>"$work/fuzz.log" 2>&1 ||
			bad=$((bad + 1))
	fi
done
cases=$((cases + 1))
if [ $bad = 0 ]; then
	echo "  ok fuzz ($nfuzz histories, $((nfuzz / 3)) more with -w)"
else
	failed=$((failed + 1))
	echo "  FAIL fuzz ($bad histories differ)"
	cat "$work/fuzz.log"
fi

echo "$cases cases, $failed failed"
[ $failed = 0 ]
