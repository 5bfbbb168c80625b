#!/bin/bash
# rename: unit checks of src/rename.c (scores worked out by hand from git's
# diffcore-delta rules, exact/basename/scoreboard picks, cache, errors).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-rename-unit
# (-O0: its checks are small, and it builds in two thirds of -O1's time.)
unit_build "$tmp/rename_test" "libgit2 libdeflate zlib" -O0 \
	tests/unit/rename_test.c src/rename.c src/odb.c src/error.c

git init -q --bare "$tmp/repo"
unset GIT_BASENAME_FACTOR
if ! "$tmp/rename_test" unit "$tmp/repo"; then
	echo "t-rename-unit: unit checks failed" >&2
	exit 1
fi
# The same, the blobs read through strata's object reader (as blame does).
if ! RENAME_TEST_ODB=1 "$tmp/rename_test" unit "$tmp/repo"; then
	echo "t-rename-unit: unit checks failed with the odb reader" >&2
	exit 1
fi
echo "t-rename-unit: ok"
