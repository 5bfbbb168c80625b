#!/bin/bash
# Hostile commit graphs: info/grafts files, parent cycles through them, and
# a grafts file that is not a file.
# strata reads grafts as git does (git 2.39 still honours info/grafts, with
# a deprecation warning); every case is compared with git blame.
. "$(dirname "$0")/lib.sh"

# Any grafts file: the grafts array once held 1-byte elements, so that the
# first graft written overflowed it (ASan: heap-buffer-overflow). Nine
# grafts make the array grow past its first size too.
case_grafts() {
	local c=() i
	repo_new g
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		commit_file f "c$i" $(lines l 1 "$i")
	done
	for i in 0 1 2 3 4 5 6 7 8 9 10; do
		c[i]=$(git rev-parse "HEAD~$i")
	done
	# Each commit grafted onto its grandparent, the ninth made a root.
	for i in 1 2 3 4 5 6 7 8; do
		echo "${c[i]} ${c[i + 2]}"
	done >.git/info/grafts
	echo "${c[9]}" >>.git/info/grafts
	parity . HEAD
}

# A parent cycle through grafts: the root grafted onto the tip. git blame
# 2.39 loops for ever on it (checked here with a timeout); git log lists
# each commit once, newest first. strata drops the parent that closes the
# cycle and attributes each line to the commit that wrote it.
case_graft_cycle() {
	local a b c rc=0 got
	repo_new gc
	commit_file f one a
	commit_file f two a b
	commit_file f three a b c
	a=$(git rev-parse HEAD~2) b=$(git rev-parse HEAD~1) c=$(git rev-parse HEAD)
	echo "$a $c" >.git/info/grafts
	timeout 5 git blame f >/dev/null 2>&1 || rc=$?
	[ "$rc" = 124 ] || { echo "git blame did not hang (exit $rc)"; return 1; }
	[ "$(git log --format=%H 2>/dev/null | tr '\n' ' ')" = "$c $b $a " ] ||
		{ echo "git log changed"; return 1; }
	got=$(timeout 20 "$STRATA" blame . --quiet | cut -f1 | tr '\n' ' ') ||
		{ echo "strata failed or hung"; return 1; }
	[ "$got" = "$a $b $c " ] || { echo "strata: $got"; return 1; }
}

# case_not_file FILE: .git/FILE (info/grafts, shallow) that never ends: a
# FIFO (reading it blocked for ever) or a link to /dev/zero (one endless
# line of grafts; endless empty lines of shallow). Each is one line
# naming the file, within the time bound. (git blocks on the FIFO too.)
case_not_file() {
	local f=$1
	repo_new gf
	commit_file f one a
	mkfifo ".git/$f"
	expect 1 "unable to read '.*/\\.git/$f': not a regular file\$" \
		bounded "$STRATA" blame .
	rm ".git/$f"
	ln -s /dev/zero ".git/$f"
	expect 1 "unable to read '.*/\\.git/$f': not a regular file\$" \
		bounded "$STRATA" report . --out o --quiet
	[ ! -e o ] || { echo "o was left"; return 1; }
}

run_case grafts case_grafts
run_case graft-cycle case_graft_cycle
run_case grafts-not-file case_not_file info/grafts
run_case shallow-not-file case_not_file shallow
finish
