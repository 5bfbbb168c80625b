#!/bin/bash
# Unit test of src/releases.c: the default --tags expression and release
# names, then commit -> release maps of small repositories built with git,
# checked against expected text and against `git name-rev --tags`.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
# Sanitizers when this compiler and machine can run them.
unit_setup t-releases-unit --san-auto
probe=$tmp/releases_test
# (-O0: the probe reads a few small repositories, and an ASan build takes
# half the time of -O1's.)
unit_build "$probe" "libgit2 libdeflate zlib" -O0 tests/unit/releases_test.c \
	src/releases.c src/history.c src/repository.c src/odb.c src/error.c

"$probe" check || fail "built-in checks"

# Nothing from the caller's git environment or configuration.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CONFIG GIT_CONFIG_PARAMETERS \
	GIT_CONFIG_COUNT GIT_CEILING_DIRECTORIES GIT_NAMESPACE XDG_CONFIG_HOME \
	GIT_TRACE
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=$tmp
export GIT_MERGE_AUTOEDIT=no GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com

# commit NAME TIME: a commit adding file NAME, dated TIME (both dates).
commit() {
	echo "$1" >"f-$1"
	git add "f-$1"
	GIT_AUTHOR_DATE="@$2 +0000" GIT_COMMITTER_DATE="@$2 +0000" \
		git commit -q -m "$1"
}
# atag NAME TIME [TARGET]: an annotated tag with tagger date TIME.
atag() {
	GIT_COMMITTER_DATE="@$2 +0000" git tag -a -m "$1" "$1" "${3:-HEAD}"
}
# ltag NAME [TARGET]: a lightweight tag.
ltag() {
	git tag "$1" "${2:-HEAD}"
}
newrepo() {
	rm -rf "${tmp:?}/$1"
	git init -q -b main "$tmp/$1"
	cd "$tmp/$1"
}

# map REPO REV [opts]: the probe's map with commit ids replaced by subjects.
map() {
	local repo=$1
	shift
	"$probe" map "$tmp/$repo" "$@" >"$tmp/map.raw" ||
		{ cat "$tmp/map.raw" >&2; fail "map $repo $*"; }
	git -C "$tmp/$repo" log --all --format='s/%H/%s/' >"$tmp/subst.sed"
	sed -f "$tmp/subst.sed" "$tmp/map.raw" >"$tmp/map.txt"
	# releases in their order, then commits by subject (the history's
	# topological order is history.c's business)
	grep -E '^(release|skipped) ' "$tmp/map.txt" || true
	grep -vE '^(release|skipped) ' "$tmp/map.txt" | LC_ALL=C sort
}

# expect NAME: compare stdin with the file $tmp/want.
expect() {
	if ! diff -u "$tmp/want" - >"$tmp/diff"; then
		cat "$tmp/diff" >&2
		fail "$1"
	fi
}

# namerev REPO REV [--group ERE] [-- name-rev options]: every commit's
# release by git name-rev --tags, in the probe's order, for comparison.
namerev() {
	local repo=$1 rev=$2 group=()
	shift 2
	if [ "${1:-}" = --group ]; then
		group=(--group "$2")
		shift 2
	fi
	[ "${1:-}" = -- ] && shift
	# One git name-rev for every commit (it names each argument on a
	# line of its own) and one probe for every tag name: process starts
	# are dear, two a commit added up.
	local cs=() ns=() tags=() rs=() i k=0
	mapfile -t cs < <("$probe" map "$tmp/$repo" "$rev" "${group[@]}" |
		awk 'NF == 2 && length($1) == 40 { print $1 }')
	[ ${#cs[@]} -gt 0 ] || return 0
	mapfile -t ns < <(git -C "$tmp/$repo" name-rev --tags --name-only "$@" \
		"${cs[@]}")
	[ ${#ns[@]} = ${#cs[@]} ] || fail "name-rev named ${#ns[@]} of ${#cs[@]}"
	for i in "${!ns[@]}"; do
		ns[i]=${ns[i]%%[~^]*}
		[ "${ns[i]}" = undefined ] || tags+=("${ns[i]}")
	done
	[ ${#tags[@]} = 0 ] ||
		mapfile -t rs < <("$probe" name "${group[@]}" "${tags[@]}")
	for i in "${!cs[@]}"; do
		if [ "${ns[i]}" = undefined ]; then
			echo "${cs[i]} unreleased"
		else
			echo "${cs[i]} ${rs[k]:-}"
			k=$((k + 1))
		fi
	done
}

# compare_namerev REPO REV [--group ERE] [-- name-rev options]
compare_namerev() {
	local repo=$1 rev=$2 ours=()
	shift 2
	if [ "${1:-}" = --group ]; then
		ours=(--group "$2")
	fi
	"$probe" map "$tmp/$repo" "$rev" "${ours[@]}" |
		awk 'NF == 2 && length($1) == 40' >"$tmp/ours"
	namerev "$repo" "$rev" "$@" >"$tmp/theirs"
	[ -s "$tmp/ours" ] || fail "no commits mapped in $repo"
	diff -u "$tmp/theirs" "$tmp/ours" >"$tmp/diff" ||
		{ cat "$tmp/diff" >&2; fail "name-rev disagrees on $repo"; }
}

# --- A: linear history, annotated and lightweight tags, rc folding -------
newrepo a
commit c1 1000
atag v1.0-rc1 1100
commit c2 2000
commit c3 3000
ltag v1.0
commit c4 4000
atag v1.1-rc1 4500
commit c5 5000
commit c6 6000
ltag latest
ltag debian/1.2-3
cat >"$tmp/want" <<'EOF'
release v1.0 1100 3000 3 v1.0-rc1:1100,v1.0:3000
release v1.1 4500 4500 1 v1.1-rc1:4500
release unreleased 0 0 2 (unreleased)
skipped 0
c1 v1.0
c2 v1.0
c3 v1.0
c4 v1.1
c5 unreleased
c6 unreleased
EOF
map a HEAD | expect "A: linear history"
compare_namerev a HEAD -- --exclude=latest --exclude='debian/*'

# the same from packed refs
git -C "$tmp/a" pack-refs --all
[ -z "$(find "$tmp/a/.git/refs/tags" -type f)" ] || fail "tags not packed"
map a HEAD | expect "A: packed refs"

# REV at an older commit: later tags are not in its history
map a HEAD~4 >"$tmp/got"
grep -q '^c2 unreleased$' "$tmp/got" || fail "A: REV~4"
grep -q '^release v1.0 1100 1100 1 v1.0-rc1:1100$' "$tmp/got" ||
	{ cat "$tmp/got" >&2; fail "A: REV~4 releases"; }
grep -q 'v1.1' "$tmp/got" && fail "A: a tag after REV counted"

# --tags restricts, --group renames
cat >"$tmp/want" <<'EOF'
release 1.0 1100 3000 3 v1.0-rc1:1100,v1.0:3000
release 1.1 4500 4500 1 v1.1-rc1:4500
release unreleased 0 0 2 (unreleased)
skipped 0
c1 1.0
c2 1.0
c3 1.0
c4 1.1
c5 unreleased
c6 unreleased
EOF
map a HEAD --group 'v([0-9.]+)(-rc[0-9]+)?' | expect "A: --group"
cat >"$tmp/want" <<'EOF'
release v1.0 3000 3000 3 v1.0:3000
release unreleased 0 0 3 (unreleased)
skipped 0
c1 v1.0
c2 v1.0
c3 v1.0
c4 unreleased
c5 unreleased
c6 unreleased
EOF
map a HEAD --tags 'v[0-9.]+' | expect "A: --tags without rc"

# --- A2: one version, one release, however its tags spell it ------------
# redis tags 7.0-rc1 .. 7.0-rc3, then 7.0.0, and 2.0.0 beside v2.0.0;
# Lua v5.2 then v5.2.0. Equal versions once trailing zero components and
# a leading v are dropped, and the
# pre-releases before them, are one release named by its standing tag.
newrepo a2
commit r1 1000
atag 7.0-rc1 1100
commit r2 2000
atag 7.0-rc2 2100
commit r3 3000
atag 7.0.0 3100
commit r4 4000
atag 7.0.1 4100
commit r5 5000
ltag v5.2
commit r6 6000
ltag v5.2.0
commit r7 7000
ltag 7.10
commit r8 8000
ltag 7.1.0
commit r9 9000
ltag 2.0.0
ltag v2.0.0
# jq: 1.6rc1 before jq-1.6 (one project's prefix: one release); two
# projects' 3.0 (foo-3.0, bar-3.0) stay apart, and so does a bare 3.0.
commit r10 10000
ltag 1.6rc1
commit r11 11000
ltag jq-1.6
commit r12 12000
ltag 3.0
commit r13 13000
ltag foo-3.0
commit r14 14000
ltag bar-3.0
cat >"$tmp/want" <<'EOF'
release 7.0.0 1100 3100 3 7.0-rc1:1100,7.0-rc2:2100,7.0.0:3100
release 7.0.1 4100 4100 1 7.0.1:4100
release v5.2 5000 6000 2 v5.2:5000,v5.2.0:6000
release 7.10 7000 7000 1 7.10:7000
release 7.1.0 8000 8000 1 7.1.0:8000
release 2.0.0 9000 9000 1 2.0.0:9000,v2.0.0:9000
release jq-1.6 10000 11000 2 1.6rc1:10000,jq-1.6:11000
release 3.0 12000 12000 1 3.0:12000
release foo-3.0 13000 13000 1 foo-3.0:13000
release bar-3.0 14000 14000 1 bar-3.0:14000
skipped 0
r1 7.0.0
r10 jq-1.6
r11 jq-1.6
r12 3.0
r13 foo-3.0
r14 bar-3.0
r2 7.0.0
r3 7.0.0
r4 7.0.1
r5 v5.2
r6 v5.2
r7 7.10
r8 7.1.0
r9 2.0.0
EOF
map a2 HEAD | expect "A2: one version, one release"

# --- B: a tag on a side branch merged later, and --first-parent ----------
newrepo b
commit m1 1000
atag v1.0 1000
git checkout -q -b maint
commit s1 1500
atag v1.0.1 2500
git checkout -q main
commit m2 2000
GIT_AUTHOR_DATE="@3000 +0000" GIT_COMMITTER_DATE="@3000 +0000" \
	git merge -q --no-ff -m m3 maint
commit m4 4000
atag v1.1 4100
git checkout -q -b topic
commit t1 4200
ltag v9.9
git checkout -q main
cat >"$tmp/want" <<'EOF'
release v1.0 1000 1000 1 v1.0:1000
release v1.0.1 2500 2500 1 v1.0.1:2500
release v1.1 4100 4100 3 v1.1:4100
skipped 0
skipped elsewhere 0 later 1
m1 v1.0
m2 v1.1
m3 v1.1
m4 v1.1
s1 v1.0.1
EOF
map b main | expect "B: side branch"
compare_namerev b main
cat >"$tmp/want" <<'EOF'
release v1.0 1000 1000 1 v1.0:1000
release v1.1 4100 4100 3 v1.1:4100
skipped 0
skipped elsewhere 2 later 0
m1 v1.0
m2 v1.1
m3 v1.1
m4 v1.1
EOF
map b main --first-parent --tag-scope merged |
	expect "B: --first-parent, merged"
# dated: v1.0.1, off the first parents, contains m1, which v1.0 claimed
cat >"$tmp/want" <<'EOF'
release v1.0 1000 1000 1 v1.0:1000
release v1.0.1 2500 2500 0 v1.0.1:2500
release v1.1 4100 4100 3 v1.1:4100
skipped 0
skipped elsewhere 0 later 1
m1 v1.0
m2 v1.1
m3 v1.1
m4 v1.1
EOF
map b main --first-parent | expect "B: --first-parent, dated"
# the unmerged topic tag counts only for REV=topic
map b topic | grep -q '^t1 v9.9$' || fail "B: tag on REV itself"

# --- C: tag dates out of order with the topology ------------------------
newrepo c
commit c1 1000
atag v2.0 5000
commit c2 2000
atag v2.1 3000
commit c3 3500
atag v2.2 6000
cat >"$tmp/want" <<'EOF'
release v2.1 3000 3000 2 v2.1:3000
release v2.0 5000 5000 0 v2.0:5000
release v2.2 6000 6000 1 v2.2:6000
skipped 0
c1 v2.1
c2 v2.1
c3 v2.2
EOF
map c HEAD | expect "C: dates out of order"
compare_namerev c HEAD

# --- D: tags on trees and blobs, tag chains, no tagger, equal dates -----
newrepo d
commit c1 1000
ltag v0.9 "HEAD^{tree}"
atag v0.8 1000 "$(git rev-parse HEAD:f-c1)"
atag inner 2000
commit c2 3000
# a tag of a tag: dated by the inner tag, as git name-rev does
GIT_COMMITTER_DATE="@9000 +0000" git tag -a -m outer 1.0 inner 2>/dev/null
# an annotated tag without a tagger line: dated by its commit
obj=$(printf 'object %s\ntype commit\ntag 1.1\n\nno tagger\n' \
	"$(git rev-parse HEAD)" | git hash-object -t tag -w --stdin --literally)
git update-ref refs/tags/1.1 "$obj"
# two lightweight tags on one commit: by name (one version: one release)
commit c3 5000
ltag v1.2
ltag 1.2
cat >"$tmp/want" <<'EOF'
release 1.0 2000 2000 1 1.0:2000
release 1.1 3000 3000 1 1.1:3000
release 1.2 5000 5000 1 1.2:5000,v1.2:5000
skipped 2
c1 1.0
c2 1.1
c3 1.2
EOF
map d HEAD | expect "D: odd tags"

# --- E: the Linux recipe, with a tree tag like v2.6.11 ------------------
newrepo e
commit c1 1000
ltag v2.6.11 "HEAD^{tree}"
commit c2 2000
atag v2.6.12-rc2 2100
commit c3 3000
atag v2.6.12 3100
commit c4 4000
atag v2.6.13-rc1 4100
commit c5 5000
atag v2.6.13 5100
atag v2.6.13.1 5200
commit c6 6000
atag v3.0-rc1 6100
commit c7 7000
atag v3.0 7100
commit c8 8000
atag v3.1 8100
cat >"$tmp/want" <<'EOF'
release 2.6.12 2100 3100 3 v2.6.12-rc2:2100,v2.6.12:3100
release 2.6.13 4100 5200 2 v2.6.13-rc1:4100,v2.6.13:5100,v2.6.13.1:5200
release 3.0 6100 7100 2 v3.0-rc1:6100,v3.0:7100
release 3.1 8100 8100 1 v3.1:8100
skipped 1
c1 2.6.12
c2 2.6.12
c3 2.6.12
c4 2.6.13
c5 2.6.13
c6 3.0
c7 3.0
c8 3.1
EOF
g='v(2\.6\.[0-9]+|[3-9]\.[0-9]+).*'
map e HEAD --group "$g" | expect "E: Linux recipe"
compare_namerev e HEAD --group "$g"
compare_namerev e HEAD

# --- E2: releases in the order they shipped -------------------------------
# v2.0's first pre-release predates v1.1, but v2.0 shipped after it: the
# list goes by the standing tag's date (v1.0, v1.1, v2.0), not by the
# first tag's (which put v2.0 before v1.1), while each commit still goes
# to the earliest tag that contains it (c2 to v2.0-rc1).
newrepo e2
commit c1 1000
atag v1.0 1000
git checkout -q -b maint
commit s1 2500
atag v1.1 3000
git checkout -q main
commit c2 2000
atag v2.0-rc1 2100
GIT_AUTHOR_DATE="@3500 +0000" GIT_COMMITTER_DATE="@3500 +0000" \
	git merge -q --no-ff -m m maint
commit c3 4000
atag v2.0 4100
cat >"$tmp/want" <<'EOF'
release v1.0 1000 1000 1 v1.0:1000
release v1.1 3000 3000 1 v1.1:3000
release v2.0 2100 4100 3 v2.0-rc1:2100,v2.0:4100
skipped 0
c1 v1.0
c2 v2.0
c3 v2.0
m v2.0
s1 v1.1
EOF
map e2 HEAD | expect "E2: the order releases shipped in"
compare_namerev e2 HEAD

# --- F: the default expression on real tags -----------------------------
newrepo f
t=1000
for tag in v2.6.33 v2.6.33-rc8 1.2.3 3.0a jq-1.7.1 jq-1.7rc1 curl-8_10_0 \
	v5.4-beta 2.6.0-rc1 latest debian/1.2-3 stable v2.6.11-tree; do
	commit "c$t" "$t"
	ltag "$tag"
	t=$((t + 1000))
done
map f HEAD | awk '$1 == "release" { print $2 }' >"$tmp/got"
cat >"$tmp/want" <<'EOF'
v2.6.33
1.2.3
3.0a
jq-1.7.1
jq-1.7
curl-8_10_0
v5.4
2.6.0
unreleased
EOF
expect "F: default expression" <"$tmp/got"

# --- G: no tag counts: every commit unreleased; errors -------------------
# all_unreleased REPO REV [opts]: one release, "unreleased", holding every
# commit of REV's history as git counts them
all_unreleased() {
	local repo=$1 rev=$2 n
	shift 2
	n=$(git -C "$tmp/$repo" rev-list --count "$rev")
	"$probe" map "$tmp/$repo" "$rev" "$@" >"$tmp/got" ||
		fail "G: map $repo $*: $(cat "$tmp/got")"
	grep '^release ' "$tmp/got" >"$tmp/rels"
	[ "$(cat "$tmp/rels")" = "release unreleased 0 0 $n (unreleased)" ] ||
		fail "G: $repo $*: releases $(cat "$tmp/rels")"
	[ "$(grep -c ' unreleased$' "$tmp/got")" = "$n" ] ||
		fail "G: $repo $*: not every commit unreleased"
}
all_unreleased f HEAD --tags 'nope.*'
all_unreleased b main --tags 'v9.*'
grep -qx 'skipped elsewhere 0 later 1' "$tmp/got" ||
	fail "G: v9.9 after REV not counted"
all_unreleased b main --tags 'v9.*' --tag-scope merged
grep -qx 'skipped elsewhere 1 later 0' "$tmp/got" ||
	fail "G: v9.9 off REV not counted (merged)"
out=$("$probe" map "$tmp/f" HEAD --tags 'v(' || true)
case $out in
"error -2 invalid --tags expression 'v(': "?*) ;;
*) fail "G: bad --tags: $out" ;;
esac
out=$("$probe" map "$tmp/f" HEAD --group 'v.*' || true)
case $out in
"error -2 invalid --group expression 'v.*': "?*) ;;
*) fail "G: --group without subexpression: $out" ;;
esac
out=$("$probe" map "$tmp/f" HEAD --tag-scope all 2>/dev/null || true)
[ "$out" = "error invalid value 'all' for '--tag-scope': expected dated or merged" ] ||
	fail "G: bad --tag-scope: $out"
newrepo g
commit c1 1000
all_unreleased g HEAD

# --- H: --tag-scope dated: tags off REV's history ------------------------
# oracle REPO REV [merged]: every commit of REV's history and its release
# by git alone: the earliest-dated (then smallest-named) tag containing it
# (git merge-base --is-ancestor) among the tags REV contains and, unless
# "merged", every other tag dated no later than REV's commit.
# (Ancestry is what git rev-list lists, once for REV and once for each tag
# that counts, rather than a git merge-base --is-ancestor for every tag
# and for every commit and tag: process starts are dear. A tag's commit
# is %(*objectname) when annotated, else %(objectname).)
oracle() {
	local repo=$1 rev=$2 scope=${3:-dated} revdate c t d o po best i
	local -A inrev=() anc=() name=()
	local counted=() names=()
	revdate=$(git -C "$tmp/$repo" log -1 --format=%ct "$rev")
	git -C "$tmp/$repo" for-each-ref \
		--format='%(creatordate:unix) %(refname:short) %(objectname) %(*objectname)' \
		refs/tags | LC_ALL=C sort -k1,1n -k2,2 >"$tmp/alltags"
	git -C "$tmp/$repo" rev-list "$rev" >"$tmp/revlist"
	while read -r c; do
		inrev[$c]=1
	done <"$tmp/revlist"
	while read -r d t o po; do
		if [ -n "${inrev[${po:-$o}]:-}" ] ||
			{ [ "$scope" = dated ] && [ "$d" -le "$revdate" ]; }; then
			counted+=("$t")
		fi
	done <"$tmp/alltags"
	for t in "${counted[@]}"; do
		while read -r c; do
			anc["$t $c"]=1
		done < <(git -C "$tmp/$repo" rev-list "$t")
	done
	if [ ${#counted[@]} -gt 0 ]; then
		mapfile -t names < <("$probe" name "${counted[@]}")
		for i in "${!counted[@]}"; do
			name[${counted[i]}]=${names[i]:-}
		done
	fi
	while read -r c; do
		best=unreleased
		for t in "${counted[@]}"; do
			if [ -n "${anc["$t $c"]:-}" ]; then
				best=${name[$t]}
				break
			fi
		done
		echo "$c $best"
	done <"$tmp/revlist" | LC_ALL=C sort
}

# compare_oracle REPO REV [merged]
compare_oracle() {
	local scope=${3:-dated}
	"$probe" map "$tmp/$1" "$2" --tag-scope "$scope" |
		awk 'NF == 2 && length($1) == 40' | LC_ALL=C sort >"$tmp/ours"
	oracle "$@" >"$tmp/theirs"
	[ -s "$tmp/ours" ] || fail "H: no commits mapped in $1"
	diff -u "$tmp/theirs" "$tmp/ours" >"$tmp/diff" ||
		{ cat "$tmp/diff" >&2; fail "H: git disagrees on $1 $2 $scope"; }
}

# A release branch forked from main and tagged, main tagged later (redis):
# 1.0's branch is never merged back. A maintenance tag on it dated after
# REV, and a tag on an unrelated history, do not count.
newrepo h
commit m1 1000
commit m2 2000
git checkout -q -b rel-1.0
commit r1 2500
atag 1.0.0 3000
git checkout -q main
commit m3 3500
git checkout -q --orphan pages
git rm -rfq .
commit p1 1500
atag 0.9.0 1600
git checkout -q main
commit m4 4000
atag 2.0.0 5000
commit m5 6000
git checkout -q rel-1.0
commit r2 7000
atag 1.0.1 7000
git checkout -q main
cat >"$tmp/want" <<'EOF'
release 1.0.0 3000 3000 2 1.0.0:3000
release 2.0.0 5000 5000 2 2.0.0:5000
release unreleased 0 0 1 (unreleased)
skipped 0
skipped elsewhere 1 later 1
m1 1.0.0
m2 1.0.0
m3 2.0.0
m4 2.0.0
m5 unreleased
EOF
map h main | expect "H: release branch, dated"
compare_oracle h main
compare_namerev h main -- --exclude=1.0.1
cat >"$tmp/want" <<'EOF'
release 2.0.0 5000 5000 4 2.0.0:5000
release unreleased 0 0 1 (unreleased)
skipped 0
skipped elsewhere 3 later 0
m1 2.0.0
m2 2.0.0
m3 2.0.0
m4 2.0.0
m5 unreleased
EOF
map h main --tag-scope merged | expect "H: release branch, merged"
compare_oracle h main merged
# REV before 1.0.0's date: it does not count yet
map h main~3 >"$tmp/got"
grep -qx 'm2 unreleased' "$tmp/got" || fail "H: REV before 1.0.0"
compare_oracle h main~3
# REV on the branch: 1.0.1 is REV's own; 2.0.0 is after REV
compare_oracle h rel-1.0
# the unrelated history's own tag counts there, and main's do not reach it
compare_oracle h pages
# a merge of the branch later makes no difference to what 1.0.0 shipped
git merge -q --no-ff -m m6 rel-1.0 2>/dev/null
compare_oracle h main

# Tags off REV's history that share commits only through other tags off
# it (tmux's early releases on an import master does not contain): one
# walk over the commits off the history serves every tag.
newrepo i
commit a1 1000
commit a2 2000
git checkout -q -b import
commit b1 2500
atag 0.8 2600
commit b2 2700
atag 0.9 2800
git checkout -q -b import2 0.8
commit b3 2900
atag 1.0 3000
git checkout -q main
commit a3 4000
atag 1.7 4500
cat >"$tmp/want" <<'EOF'
release 0.8 2600 2600 2 0.8:2600
release 0.9 2800 2800 0 0.9:2800
release 1.0 3000 3000 0 1.0:3000
release 1.7 4500 4500 1 1.7:4500
skipped 0
a1 0.8
a2 0.8
a3 1.7
EOF
map i main | expect "I: tags off the history"
compare_oracle i main
compare_namerev i main

echo "releases: all checks passed"
