#!/bin/bash
# SIGINT, SIGTERM and SIGHUP at any moment of `strata report`: the history,
# the blame, the charts and pages being written, the moving of the user's
# files into the new report, the swap, the removal of the old report.
# Every time: DIR is the previous report byte for byte or the new one
# whole, no .DIR.strata-* is left beside it, every file of the user's is in
# DIR at its path, and the exit status is 128 + the signal.
#
# The moments come from delays spread over a whole run and from watching
# the file system: the build directory appearing, the first of the user's
# files moving into it, the new report appearing in DIR.
. "$(dirname "$0")/lib.sh"

# A history with enough work in each phase: 40 directories (two levels),
# 360 files, 2,500 commits, six releases.
make_repo() {
	git init -q --bare repo.git
	python3 - <<'EOF' | git -C repo.git fast-import --quiet
import random, sys
rng = random.Random(11)
out = sys.stdout.buffer
paths = ["d%02d/s%d/f%d.c" % (d, s, f)
         for d in range(10) for s in range(4) for f in range(9)]
files, when, n = {}, 1300000000, 2500
def data(b):
    out.write(b"data %d\n" % len(b) + b)
for i in range(n):
    when += 3600
    if i == 0:
        for p in paths:
            files[p] = ["line %d of %s\n" % (k, p) for k in range(40)]
        changed = paths
    else:
        changed = set()
        for _ in range(rng.randint(1, 4)):
            p = rng.choice(paths)
            k = rng.randrange(len(files[p]))
            files[p][k] = "changed %d in %d\n" % (k, i)
            if rng.random() < 0.5:
                files[p].insert(k, "added in %d\n" % i)
            changed.add(p)
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer T <t@example.com> %d +0000\n" % when)
    data(b"commit %d\n" % i)
    for p in sorted(changed):
        out.write(b"M 100644 inline %s\n" % p.encode())
        data("".join(files[p]).encode())
    out.write(b"\n")
    if i % (n // 6) == n // 6 - 1:
        out.write(b"reset refs/tags/v1.%d\nfrom refs/heads/main\n\n"
                  % (i // (n // 6)))
EOF
	git -C repo.git repack -adq
}

run() {
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report --quiet repo.git \
		--rev main "$@"
}

SIGS=(INT TERM HUP)
NUMS=(2 15 1)

# start ARG...: strata in the background, pid in $pid, with SIGINT,
# SIGTERM and SIGHUP at their default action. tests/run starts this
# script as a background job, so it may have begun with SIGINT ignored,
# and bash hands that on even to a job started under `set -m`; strata
# keeps an ignored signal ignored, as it should.
start() {
	SOURCE_DATE_EPOCH=1700000000 env --default-signal=INT,TERM,HUP \
		"$STRATA" report --quiet repo.git --rev main "$@" 2>err &
	pid=$!
}

# wait_for TEST: until `test TEST` holds or strata has ended.
wait_for() {
	while ! eval "$1"; do
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.002
	done
}

# exiting PID: the process has ended or is ending: a zombie, or its
# kernel flags carry PF_EXITING (0x4), set while exit(2) tears the
# process down. A signal sent then is never seen; the exit status is
# the one strata chose.
exiting() {
	local stat f
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	read -ra f <<<"$stat"
	[ "${f[0]}" = Z ] || (( f[6] & 4 ))
}

# stop N: send signal N's name, wait; sets $rc, $sent (1 if it was
# sent to a running strata), $staged (a build directory was there),
# $done_before (the new report was whole in DIR when it was sent) and
# $late (strata was ending just after).
stop() {
	local name=${SIGS[$1]}
	staged=0
	[ -n "$(find . -maxdepth 1 -name '.out.strata-*')" ] && staged=1
	sent=0
	# Whether the new report was already whole in DIR: a signal that
	# then lands in exit(2), after the check below, is never seen.
	done_before=0
	cmp -s out/.strata-report new-ref/.strata-report && done_before=1
	# A strata that has exited or is exiting still takes kill(2)
	# without seeing the signal: not sent.
	if ! exiting "$pid"; then
		kill "-$name" "$pid" 2>/dev/null && sent=1
	fi
	# Ending just after the signal was sent: it may have finished its
	# work between the look above and kill(2), and the signal landed in
	# exit(2). A strata that took the signal and went on working would
	# not be ending now (a caught one makes it end with 128 + N).
	late=0
	[ $sent = 1 ] && exiting "$pid" && late=1
	rc=0
	wait "$pid" || rc=$?
}

# check N WHEN: the state after a run stopped by signal N, against
# old-ref and new-ref; counts in $nold, $nnew.
check() {
	local want=$((128 + NUMS[$1])) state
	if [ -n "$(find . -maxdepth 1 -name '.out.strata-*')" ]; then
		echo "a build directory was left:"; ls -a; cat err; return 1
	fi
	if diff -r out old-ref >/dev/null 2>&1; then
		state=old
		nold=$((nold + 1))
	elif diff -r out new-ref >/dev/null 2>&1; then
		state=new
		nnew=$((nnew + 1))
	else
		echo "out/ is neither report (signal ${SIGS[$1]}, exit $rc)"
		diff -r out old-ref | head -n 5
		cat err
		return 1
	fi
	if [ $rc != $want ] && ! { [ $rc = 0 ] && [ $state = new ] &&
		{ [ $sent = 0 ] || [ $done_before = 1 ] || [ $late = 1 ]; }; }; then
		echo "exit $rc after SIG${SIGS[$1]} (wanted $want), out/ the $state report"
		cat err
		return 1
	fi
	echo "SIG${SIGS[$1]} $2: exit $rc, the $state report" \
		"$([ $staged = 1 ] && echo '(while building)')"
	[ $state = old ] || { rm -rf out && cp -a old-ref out; }
}

# The user's files in the report directory, and a previous report.
report_over_report() {
	local i k ms start end d
	make_repo
	run --rev v1.2 --out old-ref
	echo notes >old-ref/notes.txt
	echo logo >old-ref/img/logo.png
	mkdir old-ref/.git && echo '[core]' >old-ref/.git/config
	cp -a old-ref out
	cp -a old-ref new-ref
	start=$(date +%s%N)
	run --out new-ref
	end=$(date +%s%N)
	ms=$(((end - start) / 1000000))
	echo "a run takes ${ms} ms"
	nold=0 nnew=0
	local engine=0 building=0
	# During the blame: its threads are running (and nothing is written).
	for ((k = 0; k < 3; k++)); do
		start --out out --jobs 2
		wait_for '[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -gt 1 ]' || true
		stop $k
		[ $sent = 1 ] && [ $staged = 0 ] && engine=$((engine + 1))
		check $k "during the blame"
	done
	# Delays spread over a whole run, and past its end.
	for ((i = 0; i < 6; i++)); do
		k=$((i % 3))
		d=$((ms * 11 * i / (10 * 6)))
		start --out out
		sleep "$((d / 1000)).$(printf '%03d' $((d % 1000)))"
		stop $k
		[ $sent = 1 ] && [ $staged = 0 ] && engine=$((engine + 1))
		check $k "at ${d} ms"
	done
	# While the new report is being built: from the moment its directory
	# appears to most of a run later.
	for ((i = 0; i < 6; i++)); do
		k=$((i % 3))
		start --out out
		wait_for '[ -n "$(find . -maxdepth 1 -name ".out.strata-*")" ]' || true
		d=$((ms * 2 * i / (3 * 6)))
		sleep "$((d / 1000)).$(printf '%03d' $((d % 1000)))"
		stop $k
		[ $staged = 1 ] && [ $sent = 1 ] && building=$((building + 1))
		check $k "${d} ms into the build"
	done
	# Once the new report is in DIR, while the old one is removed.
	for ((k = 0; k < 3; k++)); do
		start --out out
		wait_for '! cmp -s out/.strata-report old-ref/.strata-report' || true
		stop $k
		check $k "after the swap"
	done
	echo "$nold runs left the previous report, $nnew the new one;" \
		"$engine signals came before the build, $building during it"
	[ $engine -ge 3 ] && [ $building -ge 5 ] && [ $nold -ge 8 ] &&
		[ $nnew -ge 3 ] || { echo "too few signals landed where wanted"; return 1; }
}

# --force over a directory of 4,000 files of the user's: they are moved into
# the new report before the swap, and back if it stops.
force_over_files() {
	local i k
	make_repo
	mkdir old-ref
	(cd old-ref && seq -f 'f%05g' 0 3999 | xargs touch && mkdir sub &&
		echo deep >sub/file && ln -s sub link && echo a >.hidden)
	cp -a old-ref out
	cp -a old-ref new-ref
	run --out new-ref --force
	nold=0 nnew=0
	local carrying=0
	for ((i = 0; i < 6; i++)); do
		k=$((i % 3))
		start --out out --force
		case $((i % 3)) in
		0) # as the build directory appears
			wait_for '[ -n "$(find . -maxdepth 1 -name ".out.strata-*")" ]' || true ;;
		1) # as the first file moves into it
			wait_for '[ -e .out.strata-*/f00000 ]' || true
			[ ! -e out/f00000 ] && carrying=$((carrying + 1)) ;;
		2) # as half of them have
			wait_for '[ ! -e out/f02000 ]' || true
			[ -e out/f03999 ] && carrying=$((carrying + 1)) ;;
		esac
		stop $k
		check $k "(case $((i % 3)))"
		[ "$(find out -maxdepth 1 -name 'f*' | wc -l)" = 4000 ] ||
			{ echo "files missing from out/"; return 1; }
	done
	echo "$nold runs left the directory as it was, $nnew the new report;" \
		"$carrying stops while the files were moving"
	[ $carrying -ge 2 ] && [ $nold -ge 3 ] ||
		{ echo "too few signals landed where wanted"; return 1; }
}

# A signal ignored when strata starts (nohup) stays ignored.
ignored_signal() {
	make_repo
	(trap '' HUP; exec "$STRATA" report --quiet repo.git --rev main --out out) &
	pid=$!
	sleep 0.3
	kill -HUP $pid 2>/dev/null || true
	wait $pid
	[ -s out/index.html ]
	[ -z "$(find . -maxdepth 1 -name '.out.strata-*')" ]
}

run_case report_over_report report_over_report
run_case force_over_files force_over_files
run_case ignored_signal ignored_signal
finish
