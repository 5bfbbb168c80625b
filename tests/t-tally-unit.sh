#!/bin/bash
# t-tally-unit: tally_build() (src/tally.c) on a made-up blame, and the
# same with each of its allocations failing in turn: it fails with "out
# of memory" or gives the whole tally, never one with directories left
# out (tests/unit/tally_test.c, tests/unit/failalloc.h).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-tally-unit --san-auto
unit_build "$tmp/tally_test" "libgit2" tests/unit/tally_test.c \
	src/tally.c src/error.c "-include$root/tests/unit/failalloc.h"
"$tmp/tally_test" || fail "tally_test failed"
echo "1 cases, 0 failed"
