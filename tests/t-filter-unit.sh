#!/bin/bash
# t-filter-unit: the globs (src/filter.c) and quoting (src/quote.c) on
# their own: tests/unit/filter_test.c, under ASan/UBSan when the compiler
# has them. Its random part compares the glob matcher with glibc's
# fnmatch() on the globs whose characters mean the same to both
# (FILTER_FUZZ=N rounds, default 200,000).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-filter-unit --san-auto
unit_build "$tmp/filter_test" "libgit2" tests/unit/filter_test.c \
	src/filter.c src/quote.c src/attr.c src/error.c
"$tmp/filter_test" || fail "filter_test failed"
echo "1 cases, 0 failed"
