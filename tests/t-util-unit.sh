#!/bin/bash
# t-util-unit: the util layer (src/util.c) on its own, under ASan/UBSan
# when the compiler has them: the bounded non-blocking file reader (FIFO,
# /dev/zero, the size limit), overflow-checked growth, UTF-8, the number
# formatter every output shares, the string list and the LRU list. And
# src/sha256.c, whose digests (in C, and with the x86 SHA extensions
# where the CPU has them) sha256sum checks.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-util-unit --san-auto
unit_build "$tmp/util_test" "libgit2" tests/unit/util_test.c src/error.c
mkdir "$tmp/files"
"$tmp/util_test" "$tmp/files" || fail "util_test failed"

unit_build "$tmp/sha256_test" "libgit2" tests/unit/sha256_test.c src/sha256.c \
	src/error.c
mkdir "$tmp/sha"
"$tmp/sha256_test" "$tmp/sha" >"$tmp/sha.sums" 2>"$tmp/sha.err" ||
	fail "sha256_test: $(cat "$tmp/sha.err")"
[ "$(wc -l <"$tmp/sha.sums")" = 205 ] || fail "sha256_test: not 205 digests"
(cd "$tmp/sha" && sha256sum --quiet -c "$tmp/sha.sums") >"$tmp/sha.check" 2>&1 ||
	fail "sha256 digests differ from sha256sum's: $(head -5 "$tmp/sha.check")"
grep '^skip: ' "$tmp/sha.err" || true
echo "2 cases, 0 failed"
