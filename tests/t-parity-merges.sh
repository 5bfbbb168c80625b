#!/bin/bash
# Parity with git blame across merges: several roots, results equal to one
# parent or to none, identical blobs on both sides, files added on one side,
# octopus and criss-cross merges, dates out of order, --first-parent.
. "$(dirname "$0")/lib.sh"

# Take the other side's whole blob for a conflicted or merged path.
take() { git checkout -q "$1" -- "$2"; }

# Unrelated histories joined, the second and third root each bringing files;
# a path present in two roots with the same blob, and one with different
# blobs resolved to a mix.
several_roots() {
	repo_new r
	put a $(lines a 1 4)
	put shared $(lines s 1 5)
	put both $(lines m 1 4)
	commit "root 1"
	git checkout -q --orphan two
	git rm -q -r -f .
	put b $(lines b 1 4)
	put shared $(lines s 1 5)
	put both $(lines m 1 2) two-3 two-4
	commit "root 2"
	commit_file b "edit b on two" $(lines b 1 4) b5
	git checkout -q --orphan three
	git rm -q -r -f .
	commit_file c "root 3" $(lines c 1 3)
	git checkout -q main
	commit_file a "edit a on main" a0 $(lines a 1 4)
	tick
	git merge -q --allow-unrelated-histories --no-edit two ||
		true # "both" conflicts
	put both m1 two-3 m3 m4 two-4
	git add both
	commit_index "merge root 2"
	tick
	git merge -q --allow-unrelated-histories --no-edit -m "merge root 3" three
	commit_file c "edit c after" $(lines c 1 3) c4
	parity . HEAD
	parity . HEAD^
	parity . HEAD~2
	parity . HEAD --first-parent
}

# Changes on one side only: files equal to parent 1, to parent 2, and a
# merge that keeps parent 1 entirely (-s ours).
merge_equals_one_parent() {
	repo_new r
	put x $(lines x 1 6)
	put y $(lines y 1 6)
	commit "base"
	git checkout -q -b side
	commit_file x "side edits x" $(lines x 1 2) side-x $(lines x 4 6)
	git checkout -q main
	commit_file y "main edits y" main-y $(lines y 2 6)
	merge "merge side" side
	git checkout -q -b side2
	commit_file y "side2 edits y" main-y $(lines y 2 5) side2-y
	git checkout -q main
	commit_file x "main edits x" $(lines x 1 2) side-x $(lines x 4 6) main-x
	tick
	git merge -q -s ours --no-edit -m "merge side2 -s ours" side2
	parity . HEAD
	parity . HEAD^
}

# The result equals only parent 2's blob: parent 2 gets every line, even
# those parent 1 has unchanged from its own, different commits.
merge_equals_only_parent2() {
	repo_new r
	commit_file f "base" $(lines f 1 8)
	git checkout -q -b side
	commit_file f "side: same line L" $(lines f 1 4) L $(lines f 5 8)
	commit_file f "side: more" $(lines f 1 4) L $(lines f 5 7) side-end
	git checkout -q main
	commit_file f "main: same line L" $(lines f 1 4) L $(lines f 5 8)
	commit_file g "main: g" g
	tick
	git merge -q --no-commit side
	take side f
	commit_index "merge, f taken from side"
	parity . HEAD
	parity . HEAD --first-parent
}

# An evil merge: the result has lines neither parent has.
evil_merge() {
	repo_new r
	commit_file f "base" $(lines f 1 10)
	git checkout -q -b side
	commit_file f "side" $(lines f 1 8) side $(lines f 9 10)
	git checkout -q main
	commit_file f "main" main $(lines f 1 10)
	tick
	git merge -q --no-commit side
	put f main $(lines f 1 3) evil $(lines f 4 8) side $(lines f 9 10) evil2
	put g only-in-merge
	commit "evil merge"
	parity . HEAD
	parity . HEAD --first-parent
}

# Both parents with the same blob (the same change made twice): parent 1
# gets everything; also when the merge then changes it further.
both_parents_same_blob() {
	repo_new r
	commit_file f "base" $(lines f 1 6)
	put g $(lines g 1 6)
	commit "g"
	git checkout -q -b side
	commit_file f "side: change" $(lines f 1 3) changed $(lines f 5 6)
	commit_file g "side: g" g0 $(lines g 1 6)
	git checkout -q main
	commit_file f "main: same change" $(lines f 1 3) changed $(lines f 5 6)
	commit_file g "main: g" g0 $(lines g 1 6)
	tick
	git merge -q --no-commit side
	put g g0 $(lines g 1 6) merged
	commit "merge; g equal on both sides but changed here"
	parity . HEAD
}

# Files added on one side only, on both sides differently, and one deleted
# on one side but kept (modified) by the merge.
added_one_side() {
	repo_new r
	commit_file base "base" $(lines b 1 4)
	put gone $(lines gone 1 4)
	commit "gone"
	git checkout -q -b side
	commit_file new-side "side adds" $(lines n 1 4)
	commit_file both-add "side adds both-add" $(lines s 1 3)
	commit_file gone "side edits gone" $(lines gone 1 4) side
	git checkout -q main
	commit_file new-main "main adds" $(lines m 1 4)
	commit_file both-add "main adds both-add" $(lines m 1 3)
	git rm -q gone
	commit "main deletes gone"
	tick
	git merge -q --no-edit side || true
	put both-add m1 s2 m3 s3
	put gone $(lines gone 1 4) side
	git add both-add gone
	commit_index "merge side"
	parity . HEAD
	parity . HEAD --first-parent
}

# Octopus merges: several parents each bringing a change, one file equal to
# the third parent's blob, one with lines from every side.
octopus() {
	repo_new r
	commit_file f "base" $(lines f 1 20)
	put g $(lines g 1 5)
	commit "g"
	for b in b1 b2 b3; do
		git checkout -q -b "$b" main
	done
	git checkout -q b1
	commit_file f "b1" $(lines f 1 2) b1 $(lines f 3 20)
	git checkout -q b2
	commit_file f "b2" $(lines f 1 10) b2 $(lines f 11 20)
	git checkout -q b3
	commit_file f "b3" $(lines f 1 19) b3 f20
	commit_file g "b3 g" $(lines g 1 5) b3g
	git checkout -q main
	commit_file h "main h" h
	merge "octopus" b1 b2 b3
	test "$(git rev-list --parents -n 1 HEAD | wc -w)" = 5
	parity . HEAD
	parity . HEAD --first-parent
	# Same change on two of the branches: the first such parent wins.
	git checkout -q -b c1 main~1
	commit_file h "c1 h" h
	git checkout -q -b c2 main~1
	commit_file h "c2 h" h
	git checkout -q -b c3 main~1
	commit_file k "c3 k" k
	git checkout -q main
	merge "octopus 2" c1 c2 c3
	parity . HEAD
}

# Criss-cross: two branches merge each other, change, and merge again.
criss_cross() {
	repo_new r
	commit_file f "base" $(lines f 1 30)
	git checkout -q -b b
	commit_file f "b1" $(lines f 1 5) b1 $(lines f 6 30)
	git checkout -q main
	commit_file f "a1" $(lines f 1 25) a1 $(lines f 26 30)
	git checkout -q -b a-tip
	git checkout -q main
	merge "merge b into main" b
	git checkout -q b
	merge "merge a1 into b" a-tip
	commit_file f "b2" $(lines f 1 5) b1 $(lines f 6 12) b2 \
		$(lines f 13 25) a1 $(lines f 26 30)
	git checkout -q main
	commit_file f "a2" $(lines f 1 5) b1 $(lines f 6 20) a2 \
		$(lines f 21 25) a1 $(lines f 26 30)
	merge "criss-cross merge" b
	parity . HEAD
	parity . HEAD --first-parent
	parity . HEAD^2
}

# A child dated before its parent, and many commits with one date: the
# answer does not depend on dates.
dates_out_of_order() {
	repo_new r
	commit_file f "base" $(lines f 1 10)
	at 1500000000
	commit_file f "dated 3 years before its parent" $(lines f 1 5) old \
		$(lines f 6 10)
	git checkout -q -b side HEAD^
	at 1700000000
	commit_file f "side, dated in the future" f0 $(lines f 1 10)
	git checkout -q main
	at 1400000000
	git merge -q --no-edit -m "merge dated before both parents" side
	at 1400000000
	commit_file f "same date 1" f0 $(lines f 1 5) old $(lines f 6 10) s1
	commit_file f "same date 2" f0 $(lines f 1 5) old $(lines f 6 10) s1 s2
	at 1400000000
	commit_file g "same date 3" g
	parity . HEAD
	parity . HEAD --first-parent
}

# Merge-heavy history: feature branches with several commits each, merged
# back, a branch that merges main in, a rename on a side branch.
merge_heavy() {
	repo_new r
	commit_file f "base" $(lines f 1 40)
	commit_file g "g" $(lines g 1 20)
	local i
	for i in 1 2 3 4; do
		git checkout -q -b "feat$i" main
		commit_file f "feat$i a" $(lines f 1 $((i * 8))) "feat$i-a" \
			$(lines f $((i * 8 + 1)) 40)
		git checkout -q main
		commit_file g "main $i" $(lines g 1 $((i * 4))) "main$i" \
			$(lines g $((i * 4 + 1)) 20)
		git checkout -q "feat$i"
		merge "feat$i: merge main" main
		commit_file h$i "feat$i b" "h$i"
		git checkout -q main
		merge "merge feat$i" "feat$i"
	done
	git checkout -q -b ren main
	git mv g g-renamed
	commit "ren: rename g"
	git checkout -q main
	commit_file f "main: more f" $(git show HEAD:f) more
	merge "merge ren" ren
	parity . HEAD
	parity . HEAD --first-parent
	parity . HEAD -w --first-parent
	parity . HEAD~3 --first-parent
}

# Renames across a merge: one side renames, the other edits the old path;
# the merge follows the rename (merge-ort) and blame looks per parent.
merge_with_rename() {
	repo_new r
	commit_file old.c "base" $(lines o 1 12)
	git checkout -q -b side
	git mv old.c new.c
	commit "side: rename"
	commit_file new.c "side: edit new" $(lines o 1 11) side
	git checkout -q main
	commit_file old.c "main: edit old" main $(lines o 1 12)
	merge "merge rename" side
	test -f new.c
	parity . HEAD
	parity . HEAD --first-parent
}

# The merge's blob is reached through a rename in parent 1 (path absent
# there, exact rename from a deleted file) and directly in parent 2 (same
# blob, other history): git looks up the same path in every parent before
# any rename, so parent 2 gets everything.
merge_renamed_parent_equal_blob() {
	repo_new r
	commit_file a "base: a" $(lines x 1 6)
	git checkout -q -b side
	commit_file b "side: b, a copy of a" $(lines x 1 6)
	git checkout -q main
	commit_file c "main: c" c
	tick
	git merge -q --no-commit side
	git rm -q a
	commit "merge, deleting a"
	parity . HEAD
	parity . HEAD --first-parent
	# The same with the blobs differing a little: now each parent's diff.
	git checkout -q -b side2 main~1
	commit_file b2 "side2: b2" $(lines x 1 5) side2
	git checkout -q main
	tick
	git merge -q --no-commit side2
	git mv c b2-tmp && git rm -q -f b2-tmp
	put b2 $(lines x 1 6) side2
	commit "merge side2, b2 edited"
	parity . HEAD
	# Parent 2's b3 differs, parent 1 reaches the very blob by a rename
	# (found in git's second pass, after every same-path lookup).
	commit_file a3 "main: a3" $(lines y 1 6)
	git checkout -q -b side3 main~1
	commit_file b3 "side3: b3" $(lines y 1 5) side3
	git checkout -q main
	tick
	git merge -q --no-commit side3
	git rm -q a3
	put b3 $(lines y 1 6)
	commit "merge side3: b3 is main's a3"
	parity . HEAD
}

run_case several_roots several_roots
run_case merge_equals_one_parent merge_equals_one_parent
run_case merge_equals_only_parent2 merge_equals_only_parent2
run_case evil_merge evil_merge
run_case both_parents_same_blob both_parents_same_blob
run_case added_one_side added_one_side
run_case octopus octopus
run_case criss_cross criss_cross
run_case dates_out_of_order dates_out_of_order
run_case merge_heavy merge_heavy
run_case merge_with_rename merge_with_rename
run_case merge_renamed_parent_equal_blob merge_renamed_parent_equal_blob
finish
