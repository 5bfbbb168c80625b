#!/bin/bash
# t-util-unit: the util layer (src/util.c) on its own, under ASan/UBSan
# when the compiler has them: the bounded non-blocking file reader (FIFO,
# /dev/zero, the size limit), overflow-checked growth, UTF-8, the number
# formatter every output shares, the string list and the LRU list.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-util-unit --san-auto
unit_build "$tmp/util_test" "libgit2" tests/unit/util_test.c src/error.c
mkdir "$tmp/files"
"$tmp/util_test" "$tmp/files" || fail "util_test failed"
echo "1 cases, 0 failed"
