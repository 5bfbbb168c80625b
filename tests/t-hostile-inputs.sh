#!/bin/bash
# hostile inputs besides the object database and the commit parsers:
# globs made to backtrack (--include and a repository's .gitattributes),
# ignore-revs files that are not files or are huge, a valid chain of
# 100,500 deltas, and paths with control characters. Each ends within a
# time and memory bound: an error in one `strata: ` line, or the answer.
set -eu
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$HERE

# bounded CMD...: at most 10 s and 2 GiB of address space.
bounded() {
	(ulimit -v 2097152; exec timeout 10 "$@")
}

# The paths of a blame, sorted.
paths() {
	cut -f4 "$1" | sort
}

# A tree of a deep path a/.../a/f, a long name aaa...ac and keep. git
# itself takes hours over the attribute globs below, so the tree is made
# without a work tree: `git add` would read them.
deep_repo() {
	repo_new r
	python3 -c "
import os
d = '/'.join(['a'] * 60)
os.makedirs(d)
open(d + '/f', 'w').write('x\n')
open('a' * 60 + 'c', 'w').write('y\n')
open('a/a/a/b', 'w').write('v\n')
open('keep', 'w').write('z\n')"
	git add -A
	local b t c
	b=$(printf '%s\n' "$1" | git hash-object -w --stdin)
	t=$( (git ls-tree "$(git write-tree)"
		printf '100644 blob %s\t.gitattributes\n' "$b") | git mktree)
	c=$(git commit-tree -m one "$t" </dev/null)
	git update-ref refs/heads/main "$c"
}

# '*a' fourteen times then 'b', against sixty a's and a c: wildmatch
# tries every way to place the stars (hours).
case_glob_include() {
	deep_repo ''
	local pat
	pat=$(python3 -c "print('*a' * 14 + 'b')")
	bounded "$STRATA" blame . --include "$pat" --include keep >out
	[ "$(paths out)" = keep ] || { cat out; return 1; }
	pat=$(python3 -c "print('*a' * 14 + 'c')")
	bounded "$STRATA" blame . --include "$pat" >out
	[ "$(paths out)" = "$(printf 'a%.0s' $(seq 60))c" ] ||
		{ cat out; return 1; }
}

# "**/" twenty-five times then b, in .gitattributes, against a path 60
# directories deep: the same with directories.
case_glob_attr() {
	deep_repo "$(python3 -c "print('**/' * 25 + 'b linguist-vendored')")"
	bounded "$STRATA" blame . --skip-vendored >out
	[ "$(paths out | tr '\n' ' ')" = ".gitattributes $(printf 'a/%.0s' \
		$(seq 60))f $(printf 'a%.0s' $(seq 60))c keep " ] ||
		{ cat out; return 1; }
}

run_case glob_include case_glob_include
run_case glob_attr case_glob_attr
finish
