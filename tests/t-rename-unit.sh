#!/bin/bash
# rename: unit checks of src/rename.c (scores worked out by hand from git's
# diffcore-delta rules, exact/basename/scoreboard picks, cache, errors).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-rename-unit
unit_build "$tmp/rename_test" libgit2 tests/unit/rename_test.c \
	src/rename.c src/error.c

git init -q --bare "$tmp/repo"
unset GIT_BASENAME_FACTOR
if ! "$tmp/rename_test" unit "$tmp/repo"; then
	echo "t-rename-unit: unit checks failed" >&2
	exit 1
fi
echo "t-rename-unit: ok"
