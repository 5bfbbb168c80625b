#!/bin/bash
# Parity with git blame where the repository rewrites history: shallow
# clones (the commits in .git/shallow have no parents as far as blame is
# concerned, whatever the objects say) and replace refs (git replace
# --graft, honoured by git blame unless GIT_NO_REPLACE_OBJECTS is set).
. "$(dirname "$0")/lib.sh"

# A source repository with a linear stretch, merges and a rename, so that a
# shallow boundary can cut through each.
source_repo() {
	repo_new src
	commit_file f "f1" $(lines f 1 10)
	commit_file g "g1" $(lines g 1 5)
	commit_file f "f2" $(lines f 1 5) f2 $(lines f 6 10)
	git checkout -q -b side
	commit_file g "side g" $(lines g 1 5) side
	git mv g g-moved
	commit "side: rename g"
	git checkout -q main
	commit_file f "f3" f3 $(lines f 1 5) f2 $(lines f 6 10)
	merge "merge side" side
	commit_file f "f4" f3 $(lines f 1 5) f2 $(lines f 6 9) f4
	git checkout -q -b side2 HEAD~1
	commit_file h "side2 h" $(lines h 1 3)
	git checkout -q main
	commit_file g-moved "g edit" $(lines g 1 4) g-edit side
	merge "merge side2" side2
	cd ..
}

shallow_depths() {
	source_repo
	local n
	for n in 1 2 3 4 5; do
		git clone -q --depth $n "file://$PWD/src" "d$n"
		test -s "d$n/.git/shallow"
		parity "d$n" HEAD
	done
	parity d3 HEAD --first-parent
	parity d4 HEAD -w
	# Deepening moves the boundary.
	git -C d2 fetch -q --deepen=2
	parity d2 HEAD
	# Not shallow any more: same as the source.
	git -C d1 fetch -q --unshallow
	test ! -e d1/.git/shallow
	parity d1 HEAD
}

# Boundaries at different depths on the two sides of a merge, one at the
# commit that renames a file.
shallow_since() {
	source_repo
	# Commits are one minute apart from 1600000060 on: 300 cuts below the
	# rename commit on the side branch and below f3 on main; 230 keeps the
	# rename's parent but not main's f2.
	local since
	for since in 300 230 400; do
		git clone -q --shallow-since=@1600000$since "file://$PWD/src" s$since
		test -s s$since/.git/shallow
		parity s$since HEAD
		parity s$since HEAD --first-parent
	done
	git clone -q --shallow-exclude=side "file://$PWD/src" x
	parity x HEAD
}

# A graft that skips a commit, one that gives a root a parent, and a
# replaced commit object (edited message and parents).
replace_refs() {
	repo_new r
	commit_file f "one" a b
	commit_file f "two" a b c
	commit_file f "three" x a b c
	commit_file g "four" g
	git replace --graft HEAD~1 HEAD~3
	parity . HEAD
	git checkout -q --orphan other
	git rm -q -r -f .
	commit_file f "other root" x a
	git replace --graft HEAD main
	parity . HEAD
	git checkout -q main
	commit_file f "five" x a b c d
	git replace --graft HEAD~1 HEAD~2 other
	parity . HEAD
}

# Half the history in a pack, the rest loose, with a replaced commit on
# each side: the commits parsed ahead from the pack and those read on the
# spot make one history.
half_packed() {
	repo_new r
	commit_file f "one" a b
	commit_file f "two" a b c
	commit_file g "three" g
	commit_file f "four" x a b c
	git repack -q -d
	commit_file f "five" x a b c d
	commit_file g "six" g h
	commit_file f "seven" x a c d
	git replace --graft HEAD~1 HEAD~3
	git replace --graft HEAD~4 HEAD~6
	[ "$(ls .git/objects/pack/*.pack | wc -l)" = 1 ] || return 1
	[ "$(git count-objects | cut -d' ' -f1)" -gt 0 ] || return 1
	parity . HEAD
	# One job reads every commit on the spot; more parse the pack's first.
	"$STRATA" blame . --quiet --jobs 1 >want
	for j in 2 3; do
		"$STRATA" blame . --quiet --jobs $j >got
		cmp -s want got || { echo "--jobs $j differs from --jobs 1"; return 1; }
	done
}

run_case half_packed half_packed
run_case shallow_depths shallow_depths
run_case shallow_since shallow_since
run_case replace_refs replace_refs
finish
