#!/bin/bash
# The parity harness must fail when strata is wrong: run it against strata
# wrapped in deliberate mistakes (a wrong commit, a missing file, an extra
# binary, runs split, unsorted, nothing at all) and expect each to fail,
# and the unmodified output to pass. And tests/run itself: a script that
# hangs fails as timed out at TEST_LIMIT, with what it started ended, and
# passes, skips and failures are counted on the last line.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

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

# runner: tests/run, copied beside four scripts of its own: one passes,
# one skips, one fails, one waits forever on a fifo nobody writes (and
# starts a child that waits too). With TEST_LIMIT=3 the last fails as
# timed out, and neither of its processes is left.
runner() {
	local d=$PWD/rt
	mkdir "$d"
	cp "$HERE/run" "$d/run"
	printf '#!/bin/bash\necho fine\n' >"$d/t-a-pass.sh"
	printf '#!/bin/bash\necho "skip: no reason to run"\nexit 77\n' \
		>"$d/t-b-skip.sh"
	printf '#!/bin/bash\necho "something broke"\nexit 3\n' >"$d/t-c-fail.sh"
	mkfifo "$d/never"
	cat >"$d/t-d-hang.sh" <<EOS
#!/bin/bash
(echo \$BASHPID >"$d/child.pid"; exec cat "$d/never") &
echo \$\$ >"$d/hang.pid"
exec cat "$d/never"
EOS
	local rc=0
	TEST_LIMIT=3 JOBS=4 "$d/run" >"$d/out" 2>&1 || rc=$?
	cat "$d/out"
	[ $rc = 1 ] || { echo "tests/run exit $rc, want 1"; return 1; }
	grep -Eqx 'ok t-a-pass \([0-9]+s\)' "$d/out" ||
		{ echo "no ok line"; return 1; }
	grep -qx 'skip t-b-skip (no reason to run)' "$d/out" ||
		{ echo "no skip line"; return 1; }
	grep -q '^FAIL t-c-fail (exit 3, ' "$d/out" ||
		{ echo "no failure line"; return 1; }
	grep -qx 'FAIL t-d-hang (timed out after 3s, TEST_LIMIT)' "$d/out" ||
		{ echo "the hang is not a timeout"; return 1; }
	[ "$(tail -n 1 "$d/out")" = "1 passed, 2 failed, 1 skipped" ] ||
		{ echo "wrong summary"; return 1; }
	# TERM has been sent to both; each is gone once it has run (a
	# zombie until reaped counts as gone): up to 10 s for that.
	local p n
	for p in "$(cat "$d/hang.pid")" "$(cat "$d/child.pid")"; do
		for n in $(seq 100); do
			alive "$p" || break
			sleep 0.1
		done
		if alive "$p"; then
			echo "process $p of the hung script is still running"
			kill -9 "$p"
			return 1
		fi
	done
}
# alive PID: the process runs (not a zombie).
alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

run_case harness harness
run_case runner runner
finish
