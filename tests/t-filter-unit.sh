#!/bin/bash
# t-filter-unit: the globs (src/filter.c) and quoting (src/quote.c) on
# their own: tests/unit/filter_test.c, under ASan/UBSan when the compiler
# has them. Its random part compares the glob matcher with glibc's
# fnmatch() on the globs whose characters mean the same to both
# (FILTER_FUZZ=N rounds, default 200,000). It runs twice: as strata has
# it, and with the glob automaton alone (WILD_BUDGET 0: no backtracking).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-filter-unit --san-auto
unit_build "$tmp/filter_test" "libgit2" tests/unit/filter_test.c \
	src/filter.c src/wildmatch.c src/quote.c src/attr.c src/error.c
"$tmp/filter_test" || fail "filter_test failed"
unit_build "$tmp/filter_automaton" "libgit2" tests/unit/filter_test.c \
	src/filter.c src/wildmatch.c src/quote.c src/attr.c src/error.c '-DWILD_BUDGET(p,t)=0'
"$tmp/filter_automaton" || fail "filter_test failed with the automaton alone"
echo "1 cases, 0 failed"
