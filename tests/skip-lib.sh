# shellcheck shell=bash
# tests/skip-lib.sh: how a test says what it did not run (sourced by lib.sh
# and unit-lib.sh). tests/run counts and lists every skip with its reason;
# nothing that did not run passes silently.
#
#   skip_all REASON   the whole script cannot run here (a tool or a data
#                     set missing): prints "skip: REASON" and exits 77.
#                     Inside a case of run_case, it skips that case.
#   skip_part REASON  one part could not run and the rest goes on: prints
#                     "skip: REASON"; the script passes or fails on the rest.

skip_all() {
	echo "skip: $*"
	exit 77
}

skip_part() {
	echo "skip: $*"
}
