#!/bin/bash
# SIGINT, SIGTERM and SIGHUP at every phase of `strata report`: before
# any work, while the charts and pages are written, while the user's files
# move into the new report, after the swap, after the removal of the old
# report. Every time: DIR is the previous report byte for byte or the new
# one whole, no .DIR.strata-* is left beside it, every file of the user's
# is in DIR at its path, and the exit status is 128 + the signal.
#
# strata stops itself at the phase (STRATA_TEST_STOP, lib.sh's stop_at),
# the signal is sent while it is stopped, and SIGCONT lets it take it
# there: no delays, nothing left to the scheduler.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_all "python3 is missing"

PHASES=(check stage charts data site marker carry carried swapped removed)

# signals I: the signals (indexes of SIGS) to send at the I-th phase: one,
# each in turn (each signal meets default-action, caught and after-the-swap
# phases), or with LONG=1 all three at every phase.
signals() {
	if [ "$LONG" = 1 ]; then echo 0 1 2; else echo $(($1 % 3)); fi
}
LONG=${LONG:-0}

# A small history (the phases, not its size, make the moments): 12 files,
# 120 commits, six releases.
make_repo() {
	git init -q --bare repo.git
	python3 - <<'EOF2' | git -C repo.git fast-import --quiet
import random, sys
rng = random.Random(11)
out = sys.stdout.buffer
paths = ["d%02d/s%d/f%d.c" % (d, s, f)
         for d in range(3) for s in range(2) for f in range(2)]
files, when, n = {}, 1300000000, 120
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
EOF2
	git -C repo.git repack -adq
}

run() {
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report --quiet repo.git \
		--rev main "$@"
}

SIGS=(INT TERM HUP)
NUMS=(2 15 1)

# stop_in PHASE K ARG...: strata report at its PHASE, then signal K
# (an index of SIGS) and SIGCONT; $rc its exit status. SIGINT, SIGTERM
# and SIGHUP at their default action: tests/run starts this script as a
# background job, so it may have begun with SIGINT ignored, and strata
# keeps an ignored signal ignored, as it should.
stop_in() {
	local phase=$1 k=$2
	shift 2
	if ! SOURCE_DATE_EPOCH=1700000000 stop_at "$phase" \
		env --default-signal=INT,TERM,HUP "$STRATA" report --quiet \
		repo.git --rev main "$@" 2>err; then
		rc=0
		wait "$pid" || rc=$?
		echo "strata did not stop at $phase (exit $rc)"
		cat err
		return 1
	fi
	# Stopped while carrying: one of the user's entries is in the build
	# directory already, the others are still in out/.
	if [ "$phase" = carry ] &&
		[ "$(find .out.strata-* -mindepth 1 -maxdepth 1 ! -name data \
			! -name img ! -name '*.html' ! -name '*.css' \
			! -name '.strata-report' | wc -l)" != 1 ]; then
		echo "stopped at carry, but not with one entry carried"
		ls -A .out.strata-*
		kill -KILL "$pid"
		return 1
	fi
	kill "-${SIGS[$k]}" "$pid"
	kill -CONT "$pid"
	rc=0
	wait "$pid" || rc=$?
}

# check K PHASE WANT: after signal K at PHASE, out/ is the WANT report
# (old or new), as old-ref or new-ref, with nothing left beside it, and
# the exit status 128 + the signal.
check() {
	local want=$((128 + NUMS[$1]))
	if [ -n "$(find . -maxdepth 1 -name '.out.strata-*')" ]; then
		echo "a build directory was left:"; ls -a; cat err; return 1
	fi
	if ! diff -r out "$3-ref" >/dev/null 2>&1; then
		echo "SIG${SIGS[$1]} at $2: out/ is not the $3 report"
		diff -r out "$3-ref" | head -n 5
		cat err
		return 1
	fi
	if [ "$rc" != $want ]; then
		echo "exit $rc after SIG${SIGS[$1]} at $2 (wanted $want)"
		cat err
		return 1
	fi
	echo "SIG${SIGS[$1]} at $2: exit $rc, the $3 report"
	[ "$3" = old ] || { rm -rf out && cp -a old-ref out; }
}

# The user's files in the report directory, and a previous report: every
# signal at every phase. Up to the swap the previous report stays; from
# it on, the new one.
report_over_report() {
	local i k phase want=old
	make_repo
	run --rev v1.2 --out old-ref
	echo notes >old-ref/notes.txt
	echo logo >old-ref/img/logo.png
	mkdir old-ref/.git && echo '[core]' >old-ref/.git/config
	cp -a old-ref out
	cp -a old-ref new-ref
	run --out new-ref
	for i in "${!PHASES[@]}"; do
		phase=${PHASES[i]}
		[ "$phase" = swapped ] && want=new
		for k in $(signals "$i"); do
			stop_in "$phase" "$k" --out out
			check "$k" "$phase" $want
		done
	done
}

# --force over a directory of 4,000 files of the user's: they are moved into
# the new report before the swap, and back if it stops, wherever it stops.
force_over_files() {
	local i k phase want=old n
	make_repo
	mkdir old-ref
	(cd old-ref && seq -f 'f%05g' 0 3999 | xargs touch && mkdir sub &&
		echo deep >sub/file && ln -s sub link && echo a >.hidden)
	cp -a old-ref out
	cp -a old-ref new-ref
	run --out new-ref --force
	for i in "${!PHASES[@]}"; do
		phase=${PHASES[i]}
		[ "$phase" = swapped ] && want=new
		for k in $(signals $((i + 1))); do
			stop_in "$phase" "$k" --out out --force
			check "$k" "$phase" $want
			n=$(find out -maxdepth 1 -name 'f*' | wc -l)
			[ "$n" = 4000 ] ||
				{ echo "$n files in out/, not 4000"; return 1; }
		done
	done
}

# A signal ignored when strata starts (nohup) stays ignored, before the
# work and while publishing.
ignored_signal() {
	local phase
	make_repo
	for phase in check stage carried; do
		rm -rf out
		SOURCE_DATE_EPOCH=1700000000 stop_at "$phase" \
			env --ignore-signal=HUP "$STRATA" report --quiet repo.git \
			--rev main --out out
		kill -HUP "$pid"
		kill -CONT "$pid"
		wait "$pid"
		[ -s out/index.html ]
		[ -z "$(find . -maxdepth 1 -name '.out.strata-*')" ]
		echo "SIGHUP ignored at $phase"
	done
}

run_case report_over_report report_over_report
run_case force_over_files force_over_files
run_case ignored_signal ignored_signal
finish
