#!/bin/bash
# Parity with git blame on strata's own history: a real repository that
# grows with the project, cloned so that nothing in the work tree (local
# changes, untracked files, our own config) is involved.
. "$(dirname "$0")/lib.sh"

self() {
	local top
	top=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel) || {
		echo "tests/ is not inside a git repository"
		return 1
	}
	git -C "$top" rev-parse -q --verify HEAD^{commit} >/dev/null || {
		echo "$top has no commits yet: nothing to compare"
		return 1
	}
	git clone -q --no-local "$top" self
	parity self HEAD
	parity self HEAD -w
	parity self HEAD --first-parent
	# A few older revisions along the first-parent line, the oldest too.
	local c
	for c in $(git -C self rev-list --first-parent HEAD | sed -n '2p;4p;8p;16p;$p' |
		sort -u); do
		parity self "$c"
	done
}

run_case self self
finish
