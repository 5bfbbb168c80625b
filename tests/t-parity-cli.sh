#!/bin/bash
# Parity through the ways of naming things on strata blame's command line:
# revisions (tags, annotated tags, branches, abbreviated ids, ancestry), the
# repository as a work tree, a .git directory or a bare clone, paths after
# -- (files and directories), and any number of threads.
. "$(dirname "$0")/lib.sh"

small_repo() {
	repo_new r
	commit_file a "a" $(lines a 1 5)
	commit_file d/b "b" $(lines b 1 5)
	commit_file a "a again" $(lines a 1 3) x $(lines a 4 5)
	tick
	git tag -a -m "annotated" v1
	git tag -a -m "a tag of a tag" v1-nested v1
	commit_file d/c "c" c
	git tag light
	commit_file d/e/f "f" f
	commit_file d/b "b again" $(lines b 1 5) y
	cd ..
}

revisions() {
	small_repo
	local rev
	for rev in v1 v1-nested light main main~1 HEAD^ "HEAD^{commit}" \
		"$(git -C r rev-parse --short HEAD~2)" "$(git -C r rev-parse v1)"; do
		parity r "$rev"
	done
}

repository_kinds() {
	small_repo
	git clone -q --bare r bare.git
	parity r/.git HEAD~1
	parity bare.git HEAD
	parity bare.git v1
}

paths() {
	small_repo
	parity r HEAD -- a
	parity r HEAD -- d
	parity r HEAD -- d/
	parity r HEAD -- d/e a
	parity r HEAD -- d/c d/b
}

# Many files whose histories renames and merges tie together, and one
# binary: the diffs, the text checks and the evaluation of the files'
# histories are all split over the threads.
many_files_repo() {
	repo_new m
	local i
	for i in $(seq 1 24); do
		put "f$i.c" $(lines "f$i-" 1 12)
	done
	printf 'bin\0ary\n' >blob.bin
	commit "files"
	git checkout -q -b side
	for i in $(seq 1 24 | awk 'NR % 3 == 0'); do
		put "f$i.c" $(lines "f$i-" 1 6) "side$i" $(lines "f$i-" 7 12)
	done
	commit "side edits"
	git mv f5.c g5.c
	commit_file g5.c "renamed" $(lines f5- 1 12) g5
	git checkout -q main
	for i in $(seq 1 24 | awk 'NR % 2 == 0'); do
		put "f$i.c" "top$i" $(lines "f$i-" 2 12)
	done
	commit "main edits"
	merge "merge side" side
	cat f1.c f2.c >f12.c
	commit "f12 from f1 and f2"
	for i in $(seq 1 24 | awk 'NR % 4 == 1'); do
		put "f$i.c" $(lines "f$i-" 1 3) "late$i" $(lines "f$i-" 4 12)
	done
	commit "late edits"
	cd ..
}

# The output does not depend on the number of threads.
jobs() {
	small_repo
	"$STRATA" blame r --quiet --jobs 1 >want
	test -s want
	local j
	for j in 2 3 8; do
		"$STRATA" blame r --quiet --jobs $j >got
		cmp want got
	done
	many_files_repo
	parity m HEAD
	"$STRATA" blame m --quiet >want
	[ "$(cut -f4 want | sort -u | wc -l)" = 25 ]
	for j in 1 2 3 5 16; do
		"$STRATA" blame m --quiet --jobs $j >got
		cmp want got
	done
}

# One file with a long history (a side branch merged, a rename) and a few
# short ones: with 2 jobs or more the long file's run of versions is split
# over the threads, and its lines are evaluated by whichever thread
# finishes the last piece.
# edits FILE FROM TO M K WORD: for each i from FROM to TO, a commit of FILE
# as 40 lines L1... with "WORDi" in place of K - 1 of them from i % M + 1.
edits() {
	local i
	for i in $(seq "$2" "$3"); do
		put "$1" $(lines L 1 $((i % $4))) "$6$i" \
			$(lines L $((i % $4 + $5)) 40)
		commit "$6 $i"
	done
}

long_history_repo() {
	repo_new l
	local i
	put long.c $(lines L 1 40)
	put s1.c $(lines s1- 1 5)
	put s2.c $(lines s2- 1 5)
	commit "start"
	edits long.c 1 36 37 2 edit
	git checkout -q -b side HEAD~10
	for i in $(seq 1 12); do
		put long.c "side$i" $(lines L 2 40)
		commit "side $i"
	done
	git checkout -q main
	merge "merge side" side -X ours
	git mv long.c longer.c
	commit "rename"
	edits longer.c 37 70 29 3 again
	commit_file s1.c "s1" $(lines s1- 1 4) s1x
	cd ..
}

long_history() {
	long_history_repo
	parity l HEAD
	parity l HEAD --first-parent
	"$STRATA" blame l --quiet --jobs 1 >want
	[ "$(cut -f4 want | sort -u | tr '\n' ' ')" = "longer.c s1.c s2.c " ]
	local j
	for j in 2 3 8; do
		"$STRATA" blame l --quiet --jobs $j >got
		cmp want got
	done
}

run_case revisions revisions
run_case repository_kinds repository_kinds
run_case paths paths
run_case jobs jobs
run_case long_history long_history
finish
