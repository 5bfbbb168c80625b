#!/bin/bash
# rename: rename_find() against real git. Each case builds a repository where
# a root commit holds the candidate sources and a second commit deletes them
# and adds one path P. git's answer is read from `git blame --porcelain`
# (the filename of lines handed to the parent) and from `git diff-tree -M`
# (the same rename pass when P is the only added path); both must match the
# expected source, and so must rename_find(). Fixed cases cover the rules one
# by one; random cases then look for anything the fixed ones miss.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-rename-git
# (unit_build brings a module's stage files src/MODULE_*.c too.)
# (-O0: its inputs are small, and it builds in two thirds of -O1's time.)
unit_build "$tmp/rename_test" "libgit2 libdeflate zlib" -O0 \
	tests/unit/rename_test.c src/rename.c src/odb.c src/error.c
T=$tmp/rename_test

# git must see no user or system configuration.
export HOME=$tmp GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t
export GIT_COMMITTER_EMAIL=t@t
unset GIT_BASENAME_FACTOR GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE

nrepo=0
cases=0
failed=0

begin() {
	name=$1
	nrepo=$((nrepo + 1))
	repo=$tmp/r$nrepo
	git init -q "$repo"
	cd "$repo"
}

# lines PATH TAG FROM COUNT: COUNT lines "TAG-NN" of 8 bytes (TAG of 4)
lines() {
	local i
	mkdir -p "$(dirname "$1")"
	for ((i = $3; i < $3 + $4; i++)); do
		printf '%s-%02d\n' "$2" "$i"
	done >"$1"
}

put() {
	mkdir -p "$(dirname "$1")"
	printf '%b' "$2" >"$1"
}

link() {
	mkdir -p "$(dirname "$1")"
	ln -s "$2" "$1"
}

commit() {
	git add -A
	git commit -q --allow-empty -m "$1"
}

# Process starts are dear here: the checks below start as few as they
# can (one git diff-tree and one rename_test for both of its readers, one
# perl for what took an awk, a sort, a paste and a sed, one rename_test
# for all the scores of a case, bash's own printf -v and read rather than
# $(...)).

# What rename_find() picks for HEAD:$1, the blobs read through libgit2
# and through strata's object reader (as blame reads them): both must agree.
mine() {
	local a b
	# (pick2: both ways from one rename_test, libgit2's answer first)
	{ read -r a; read -r b; } < <(git diff-tree -z -r --no-renames \
		--diff-filter=D HEAD^ HEAD | "$T" pick2 . HEAD "$1")
	if [ "$a" = "$b" ]; then
		echo "$a"
	else
		echo "$a (but '$b' through strata's object reader)"
	fi
}

# HEAD's commit id, read as git reads it (a loose ref: the repositories
# here are never packed), into $head.
head_id() {
	local ref
	read -r ref <.git/HEAD
	read -r head <".git/${ref#ref: }"
}

# What git blame shows: the file name of lines it passed to the parent
# (sorted bytewise, unique, joined by spaces; "-" for none).
blamed() {
	local head
	head_id
	git blame --porcelain HEAD -- "$1" | perl -e '
		my ($c, $cur, %f) = @ARGV;
		while (<STDIN>) {
			chomp;
			my @w = split " ";	# as awk splits
			$cur = $w[0] if @w >= 3 && length($w[0]) == 40 &&
			    $w[0] =~ /^[0-9a-f]+$/;
			$f{substr($_, 9)} = 1 if /^filename / && $cur ne $c;
		}
		print %f ? join(" ", sort keys %f) : "-", "\n";' "$head"
}

# What git diff-tree -M pairs with $1.
paired() {
	local meta src dst found=-
	while IFS=$'\t' read -r meta src dst; do
		[[ $meta =~ \ [RC][0-9]*$ ]] && [ "$dst" = "$1" ] &&
			echo "$src" && found=
	done < <(git diff-tree -r -M HEAD^ HEAD)
	[ -z "$found" ] || echo -
}

fail() {
	failed=$((failed + 1))
	echo "FAIL $*" >&2
}

# check EXPECT P [noblame]: noblame when no line of P survives in its
# source (empty files, CRLF against LF), so blame cannot show the rename.
check() {
	local expect=$1 p=$2 m b d
	cases=$((cases + 1))
	m=$(mine "$p")
	d=$(paired "$p")
	b=$(blamed "$p")
	[ "$d" = "$expect" ] || fail "$name: git diff-tree pairs '$d', case expects '$expect'"
	if [ "${3:-}" = noblame ]; then
		[ "$b" = - ] || fail "$name: blame shows '$b', case expects none"
	else
		[ "$b" = "$expect" ] || fail "$name: git blame follows '$b', case expects '$expect'"
	fi
	[ "$m" = "$expect" ] || fail "$name: rename_find picks '$m', git '$expect'"
}

# delete_all: delete every tracked file (the sources)
delete_all() {
	git rm -rq --cached . >/dev/null
	git clean -fdxq
}

# ---- exact renames ----

begin exact-first
lines a/x.txt same 0 5
chmod +x a/x.txt
lines b/y.txt same 0 5
commit A
delete_all
lines new/z.txt same 0 5
commit C
check a/x.txt new/z.txt

begin exact-basename
lines a/x.txt same 0 5
lines b/y.txt same 0 5
commit A
delete_all
lines new/y.txt same 0 5
commit C
check b/y.txt new/y.txt

# copies N AT DST: commit A holds N copies of "one\ntwo\n", d/f0001 to
# d/fN (d/fAT/p.txt for the AT-th), commit C nothing but DST, with that
# content too: the commits that writing, adding and cleaning away
# thousands of files in the work tree gave, from one git fast-import.
copies() {
	local n=$1 at=$2 ref i
	read -r ref <.git/HEAD
	{
		printf 'blob\nmark :1\ndata 8\none\ntwo\n'
		printf 'commit %s\ncommitter t <t@t> now\ndata 2\nA\n' "${ref#ref: }"
		for ((i = 1; i <= n; i++)); do
			if [ $i = "$at" ]; then
				printf 'M 100644 :1 d/f%04d/p.txt\n' $i
			else
				printf 'M 100644 :1 d/f%04d\n' $i
			fi
		done
		printf 'commit %s\ncommitter t <t@t> now\ndata 2\nC\n' "${ref#ref: }"
		printf 'deleteall\nM 100644 :1 %s\n' "$3"
	} | git fast-import --quiet --date-format=now
}

# hashmap chain order: reversed when the source count triggers a regrow
for n in 204 205 3277; do
	begin "exact-$n"
	copies $n 0 p.txt
	if [ $n = 204 ]; then
		check d/f0001 p.txt
	else
		printf -v f 'd/f%04d' $n
		check "$f" p.txt
	fi
done

# the basename preference looks at 100 candidates in chain order
for spec in 204:50:hit 204:150:miss 205:150:hit 205:50:miss \
	150:100:hit 150:101:miss; do
	IFS=: read -r n at want <<<"$spec"
	begin "exact-tries-$n-$at"
	copies "$n" "$at" new/p.txt
	if [ "$want" = hit ]; then
		printf -v f 'd/f%04d/p.txt' "$at"
		check "$f" new/p.txt
	elif [ "$n" = 205 ]; then
		check d/f0205 new/p.txt
	else
		check d/f0001 new/p.txt
	fi
done

begin symlink-source-only
link a/l hello
commit A
delete_all
put p 'hello'
commit C
check - p

begin symlink-source-skipped
link a/l hello
put b/f 'hello'
commit A
delete_all
put p 'hello'
commit C
check b/f p

begin symlink-to-symlink
link a/l hello
put b/f 'hello'
commit A
delete_all
link p hello
commit C
check a/l p

# ---- similarity ----

begin edited-60
lines a/x.txt ssss 0 10
commit A
delete_all
lines p.txt ssss 0 6
lines t.txt tttt 0 4
cat t.txt >>p.txt && rm t.txt
commit C
check a/x.txt p.txt

begin edited-40
lines a/x.txt ssss 0 10
commit A
delete_all
lines p.txt ssss 0 4
lines t.txt tttt 0 6
cat t.txt >>p.txt && rm t.txt
commit C
check - p.txt

# a 48-byte source in a 96-byte file: exactly 50%; one byte more: too little
for extra in '' '\n'; do
	begin "boundary-50${extra:+-plus1}"
	lines a/x.txt pppp 0 6
	commit A
	delete_all
	lines p.txt pppp 0 6
	lines q.txt qqqq 0 6
	cat q.txt >>p.txt && rm q.txt
	printf '%b' "$extra" >>p.txt
	if [ -z "$extra" ]; then check_expect=a/x.txt; else check_expect=-; fi
	commit C
	check "$check_expect" p.txt
done

# ---- basename step (75%) ----

basename_case() {
	# basename_case NAME KEPT EXPECT [EXTRA-KIND]: b/p.txt keeps KEPT of
	# P's 10 lines, a/other.txt keeps 9; EXTRA-KIND adds a second p.txt
	begin "$1"
	lines a/other.txt hhhh 1 10
	lines b/p.txt hhhh $((10 - $2)) 10
	case "${4:-}" in
	empty) put d/p.txt '' ;;
	symlink) link d/p.txt somewhere ;;
	esac
	git add -A
	# after `add -A`, which would drop a gitlink with no work tree entry
	[ "${4:-}" = gitlink ] && git update-index --add --cacheinfo \
		160000,1111111111111111111111111111111111111111,d/p.txt
	git commit -q -m A
	delete_all
	lines new/p.txt hhhh 0 10
	commit C
	check "$3" new/p.txt
}

basename_case basename-unique-80 8 b/p.txt
basename_case basename-unique-70 7 a/other.txt
basename_case basename-empty-twin 8 a/other.txt empty
basename_case basename-symlink-twin 8 a/other.txt symlink
basename_case basename-gitlink-twin 8 a/other.txt gitlink

# ---- the scoreboard ----

begin name-score
lines a/s.txt hhhh 4 10
lines b/p.txt hhhh -4 10
commit A
delete_all
lines new/p.txt hhhh 0 10
commit C
check b/p.txt new/p.txt

# 10%, 60%, 10%, 10%, 60%: the fifth takes slot 0 and wins the tie
begin slots-late
lines s0 hhhh 9 10
lines s1 hhhh 4 10
lines s2 hhhh -9 10
lines s3 hhhh 9 10
lines s4 hhhh -4 10
commit A
delete_all
lines dst hhhh 0 10
commit C
check s4 dst

# 20% first: the fifth takes slot 2 and loses the tie
begin slots-early
lines s0 hhhh 8 10
lines s1 hhhh 4 10
lines s2 hhhh -9 10
lines s3 hhhh 9 10
lines s4 hhhh -4 10
commit A
delete_all
lines dst hhhh 0 10
commit C
check s1 dst

# s0 would score 40% but fails the size pre-check, so it scores 0
begin slots-precheck
lines s0 hhhh 0 4
lines s1 hhhh 4 10
lines s2 hhhh -9 10
lines s3 hhhh 9 10
lines s4 hhhh -4 10
commit A
delete_all
lines dst hhhh 0 10
commit C
check s4 dst

# ---- content rules ----

begin empty-basename
put a/e ''
put b/f ''
commit A
delete_all
put c/f ''
commit C
check b/f c/f noblame

begin empty-first
put a/e ''
put b/f ''
commit A
delete_all
put c/g ''
commit C
check a/e c/g noblame

begin crlf
put a/x.txt 'line 1\nline 2\nline 3\nline 4\nline 5\n'
commit A
delete_all
put p.txt 'line 1\r\nline 2\r\nline 3\r\nline 4\r\nline 5\r\n'
commit C
check a/x.txt p.txt noblame

# ---- random cases ----
# Sources share random subsets of P's lines (all lines 5 bytes, so scores
# tie often); some are exact copies, CRLF copies, symlinks or empty; names
# come from a few directories and basenames so basenames clash.

# RENAME_RANDOM_CASES=N of them: 50, or with LONG=1 (make test-long) 600.
RANDOM=${RENAME_RANDOM_SEED:-4242}
nrandom=50
[ "${LONG:-0}" != 1 ] || nrandom=600
nrandom=${RENAME_RANDOM_CASES:-$nrandom}
pool=()
for ((i = 0; i < 80; i++)); do pool+=("$(printf 'w%03d' $i)"); done

for ((r = 0; r < nrandom; r++)); do
	begin "random-$r"
	np=$((5 + RANDOM % 20))
	plines=()
	for ((i = 0; i < np; i++)); do plines+=("${pool[RANDOM % 80]}"); done
	case $((RANDOM % 3)) in
	0) p=p.c ;;
	1) p=d1/p.c ;;
	*) p=n/q.c ;;
	esac
	nsrc=$((1 + RANDOM % 9))
	declare -A used=()
	used[$p]=1
	for ((k = 0; k < nsrc; k++)); do
		bases=(p.c q.c r.c "s$k.c")
		f="d$((RANDOM % 4))/${bases[RANDOM % 4]}"
		[ -n "${used[$f]:-}" ] && f="e$k/${bases[RANDOM % 4]}"
		used[$f]=1
		mkdir -p "$(dirname "$f")"
		kind=$((RANDOM % 20))
		if [ $kind = 0 ]; then
			printf '%s\n' "${plines[@]}" >"$f"
		elif [ $kind = 1 ]; then
			ln -s "t$k" "$f"
		elif [ $kind = 2 ]; then
			: >"$f"
		else
			crlf=
			[ $kind = 3 ] && crlf=$'\r'
			{
				for l in "${plines[@]}"; do
					[ $((RANDOM % 4)) = 0 ] || printf '%s%s\n' "$l" "$crlf"
				done
				for ((i = RANDOM % 12; i > 0; i--)); do
					printf '%s%s\n' "${pool[RANDOM % 80]}" "$crlf"
				done
			} >"$f"
		fi
	done
	unset used
	commit A
	delete_all
	mkdir -p "$(dirname "$p")"
	printf '%s\n' "${plines[@]}" >"$p"
	commit C

	cases=$((cases + 1))
	m=$(mine "$p")
	d=$(paired "$p")
	b=$(blamed "$p")
	[ "$m" = "$d" ] || fail "$name: rename_find picks '$m', git diff-tree '$d'"
	if [ "$b" != - ]; then
		[ "$m" = "$b" ] || fail "$name: rename_find picks '$m', git blame '$b'"
	elif [ "$m" != - ] && git show "HEAD^:$m" | grep -qxFf - "$p"; then
		fail "$name: rename_find picks '$m' but git blame follows nothing"
	fi

	# git's own score for its best pair at -M1% against rename_score():
	# the pairs, then every score through libgit2 and through strata's
	# object reader from one rename_test each.
	git diff-tree -r -M1% --diff-filter=R HEAD^ HEAD >.git/renames
	srcs=() sts=()
	: >.git/pairs
	while IFS=$'\t' read -r meta src dst; do
		read -r _ _ so do st <<<"$meta"
		[ "$so" = "$do" ] && continue
		[ "$st" = R100 ] && continue
		echo "$so $do" >>.git/pairs
		srcs+=("$src") sts+=("$st")
	done <.git/renames
	if [ ${#srcs[@]} -gt 0 ]; then
		mapfile -t s1 < <("$T" scores . 600 <.git/pairs)
		mapfile -t s2 < <(RENAME_TEST_ODB=1 "$T" scores . 600 <.git/pairs)
		[ ${#s1[@]} = ${#srcs[@]} ] && [ ${#s2[@]} = ${#srcs[@]} ] ||
			fail "$name: rename_test scores gave ${#s1[@]} and ${#s2[@]} of ${#srcs[@]} scores"
		for ((k = 0; k < ${#srcs[@]}; k++)); do
			s=${s1[k]:-} src=${srcs[k]} st=${sts[k]}
			[ "$s" = "${s2[k]:-}" ] ||
				fail "$name: score of '$src' is $s, ${s2[k]:-} through strata's object reader"
			want=${st#R}
			got=$((s * 100 / 60000))
			[ "$got" = $((10#$want)) ] ||
				fail "$name: score of '$src' is $s ($got%), git says $st"
		done
	fi
done

cd "$tmp"
if [ $failed -gt 0 ]; then
	echo "t-rename-git: $failed of $cases checks failed" >&2
	exit 1
fi
echo "t-rename-git: ok ($cases cases)"
