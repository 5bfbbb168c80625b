#!/bin/bash
# Parity with git blame on strata's own history: a real repository that
# grows with the project, cloned so that nothing in the work tree (local
# changes, untracked files, our own config) is involved. From a copy that
# is not a git checkout of strata (a release tarball), or one without
# commits, the script is skipped with the reason.
. "$(dirname "$0")/lib.sh"

SRC=$(cd "$(dirname "$0")/.." && pwd)
# The checkout must be strata's own: tests/ of a tarball unpacked inside
# some other repository would find that one. (git may also refuse a
# checkout owned by another user: its message is the reason.)
top=$(git -C "$SRC" rev-parse --show-toplevel 2>&1) ||
	skip_all "not a git checkout of strata: ${top##*$'\n'}"
[ "$(cd "$top" && pwd -P)" = "$(cd "$SRC" && pwd -P)" ] ||
	skip_all "$SRC is not a git checkout of strata (it is inside $top)"
git -C "$top" rev-parse -q --verify 'HEAD^{commit}' >/dev/null ||
	skip_all "$top has no commits yet: nothing to compare"

self() {
	git clone -q --no-local "$top" self
	parity self HEAD
	parity self HEAD -w
	parity self HEAD --first-parent
	# Older revisions along the first-parent line, the oldest too: spread
	# out (3 and 31 commits back), each a whole tree's run of its own.
	local c
	for c in $(git -C self rev-list --first-parent HEAD | sed -n '4p;32p;$p' |
		sort -u); do
		parity self "$c"
	done
}

run_case self self
finish
