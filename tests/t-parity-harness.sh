#!/bin/bash
# The parity harness must fail when strata is wrong: run it against strata
# wrapped in deliberate mistakes (a wrong commit, a missing file, an extra
# binary, runs split, unsorted, nothing at all) and expect each to fail,
# and the unmodified output to pass.
. "$(dirname "$0")/lib.sh"

REAL=$STRATA

# `wrap MUTATION`: make STRATA a script that runs the real one and passes
# its output through the perl filter MUTATION (-0777: the whole output).
wrap() {
	cat >"$PWD/wrapped" <<EOS
#!/bin/bash
set -o pipefail
"$REAL" "\$@" | perl -0777 -pe '$1'
EOS
	chmod +x "$PWD/wrapped"
	STRATA=$PWD/wrapped
}

repo() {
	repo_new r
	commit_file a "a" $(lines a 1 4)
	printf 'bin\0ary\n' >bin
	commit_file b "b" $(lines b 1 3)
	commit_file a "a2" $(lines a 1 2) new $(lines a 3 4)
	cd ..
}

must_fail() {
	wrap "$1"
	if parity r HEAD; then
		echo "parity passed with mutation: $1"
		return 1
	fi
	echo "(failed as it should)"
}

harness() {
	repo
	wrap ''
	parity r HEAD
	# The commit of one run changed.
	must_fail 's/^[0-9a-f]{40}/"0" x 40/e'
	# The last run (of file b) dropped.
	must_fail 's/[^\n]*\n\z//'
	# A binary file printed.
	must_fail '$_ .= ("1" x 40) . "\t1\t1\tbin\n"'
	# A run split in two.
	must_fail 's/^([0-9a-f]{40})\t1\t2\t(\S+)\n/$1\t1\t1\t$2\n$1\t2\t1\t$2\n/m'
	# Runs in reverse order.
	must_fail '$_ = join("", reverse split /(?<=\n)/)'
	# Nothing at all.
	must_fail '$_ = ""'
}

run_case harness harness
finish
