#!/bin/bash
# rename: unit checks of src/rename.c (scores worked out by hand from git's
# diffcore-delta rules, exact/basename/scoreboard picks, cache, errors).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-rename-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

san=
[ "${SAN:-0}" = 1 ] && san="-fsanitize=address,undefined -fno-omit-frame-pointer"
# shellcheck disable=SC2086
if ! ${CC:-cc} -std=c11 -Wall -Wextra -Werror -O1 -g $san -D_GNU_SOURCE \
	-I"$root/include" $(pkg-config --cflags libgit2) \
	"$root/tests/unit/rename_test.c" "$root/src/rename.c" \
	"$root/src/error.c" $(pkg-config --libs libgit2) \
	-o "$tmp/rename_test" 2>"$tmp/cc.log"; then
	cat "$tmp/cc.log" >&2
	echo "t-rename-unit: build failed" >&2
	exit 1
fi

git init -q --bare "$tmp/repo"
unset GIT_BASENAME_FACTOR
if ! "$tmp/rename_test" unit "$tmp/repo"; then
	echo "t-rename-unit: unit checks failed" >&2
	exit 1
fi
echo "t-rename-unit: ok"
