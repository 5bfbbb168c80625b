#!/bin/bash
# Parity with git blame when commits are ignored: --ignore-rev,
# --ignore-revs-file, the blame.ignoreRevsFile config (and an empty value
# clearing it), ignored commits back to back, an ignored merge, an ignored
# root, ignored commits that add lines nothing matches.
. "$(dirname "$0")/lib.sh"

# A small C file; `code STYLE` prints it in one of several styles, so that
# "reformat" commits change every line a little (what ignore-revs is for).
code() {
	case $1 in
	old)
		put f.c "int count_items(struct list *list)" "{" \
			"	int total_count = 0;" "	struct item *it;" "" \
			"	for (it = list->head; it; it = it->next)" \
			"		total_count++;" "	return total_count;" "}" ;;
	renamed)
		put f.c "int count_items(struct list *l)" "{" \
			"	int totalCount = 0;" "	struct item *it;" "" \
			"	for (it = l->head; it; it = it->next)" \
			"		totalCount++;" "	return totalCount;" "}" ;;
	spaced)
		put f.c "int count_items(struct list *l) {" \
			"    int totalCount = 0;" "    struct item *it;" "" \
			"    for (it = l->head; it != NULL; it = it->next) {" \
			"        totalCount++;" "    }" "    return totalCount;" "}" ;;
	extra)
		put f.c "/* Count them. */" "int count_items(struct list *l) {" \
			"    int totalCount = 0;" "    struct item *it;" "" \
			"    for (it = l->head; it != NULL; it = it->next) {" \
			"        totalCount += 1;" "    }" "" \
			"    return totalCount;" "}" "" "int unrelated(void);" ;;
	esac
}

# History: old -> renamed (R1) -> spaced (R2) -> extra (R3); each reformat
# is a candidate for ignoring.
history() {
	repo_new r
	code old
	put g.txt alpha beta gamma delta
	commit "original"
	put g.txt alpha beta gamma delta epsilon
	commit "g grows"
	code renamed
	put g.txt Alpha beta gamma delta epsilon
	commit "rename variables"
	R1=$(git rev-parse HEAD)
	code spaced
	commit "reformat"
	R2=$(git rev-parse HEAD)
	code extra
	put g.txt Alpha beta GAMMA delta epsilon zeta
	commit "edit"
	R3=$(git rev-parse HEAD)
}

ignore_one() {
	history
	parity . HEAD
	parity . HEAD --ignore-rev "$R1"
	parity . HEAD --ignore-rev "$R2"
	parity . HEAD --ignore-rev "$R3"
	parity . HEAD -w --ignore-rev "$R1"
	# A revision name, not only a full id.
	parity . HEAD --ignore-rev HEAD~2
}

# Two ignored commits one after the other touch the same lines.
back_to_back() {
	history
	parity . HEAD --ignore-rev "$R1" --ignore-rev "$R2"
	parity . HEAD --ignore-rev "$R2" --ignore-rev "$R3"
	parity . HEAD --ignore-rev "$R1" --ignore-rev "$R2" --ignore-rev "$R3"
}

ignore_revs_file() {
	history
	printf '# reformatting commits\n%s\n\n%s\n' "$R1" "$R2" >"$PWD/.ignore"
	parity . HEAD --ignore-revs-file "$PWD/.ignore"
	# Two files, and one given both ways.
	printf '%s\n' "$R3" >"$PWD/.ignore2"
	parity . HEAD --ignore-revs-file "$PWD/.ignore" \
		--ignore-revs-file "$PWD/.ignore2" --ignore-rev "$R1"
}

# blame.ignoreRevsFile in the repository's config, relative to the work
# tree (strata runs elsewhere); an empty value clears the files before it;
# --ignore-revs-file "" clears the configured one.
ignore_revs_config() {
	history
	printf '%s\n' "$R1" >.git-blame-ignore-revs
	printf '%s\n' "$R2" >.other-ignore-revs
	git config blame.ignoreRevsFile .git-blame-ignore-revs
	parity . HEAD
	parity . HEAD --ignore-rev "$R2"
	parity . HEAD --ignore-revs-file "$PWD/.other-ignore-revs"
	parity . HEAD --ignore-revs-file ""
	git config --add blame.ignoreRevsFile .other-ignore-revs
	parity . HEAD
	git config --add blame.ignoreRevsFile ""
	git config --add blame.ignoreRevsFile .other-ignore-revs
	parity . HEAD
	git config --unset-all blame.ignoreRevsFile
	git config blame.ignoreRevsFile "$PWD/.other-ignore-revs"
	parity . HEAD
}

# In a bare repository git runs in the git directory, so a relative
# blame.ignoreRevsFile is found there.
ignore_revs_config_bare() {
	history
	cd ..
	git clone -q --bare r bare.git
	printf '%s\n' "$R1" "$R2" >bare.git/ignore-revs
	git -C bare.git config blame.ignoreRevsFile ignore-revs
	parity bare.git HEAD
}

# Ignored commits that only add or delete lines, and an ignored root: lines
# with nothing to match stay with the ignored commit.
ignore_adds() {
	repo_new r
	commit_file f "root" $(lines f 1 5)
	ROOT=$(git rev-parse HEAD)
	commit_file f "add lines" $(lines f 1 2) new1 new2 $(lines f 3 5) end
	ADD=$(git rev-parse HEAD)
	commit_file f "delete and change" $(lines f 1 2) new1 NEW2 \
		$(lines f 4 5) end
	DEL=$(git rev-parse HEAD)
	commit_file f "more" $(lines f 1 2) new1 NEW2 $(lines f 4 5) end more
	parity . HEAD --ignore-rev "$ADD"
	parity . HEAD --ignore-rev "$DEL"
	parity . HEAD --ignore-rev "$ROOT"
	parity . HEAD --ignore-rev "$ADD" --ignore-rev "$DEL"
	# Ignoring a commit that is not in the history changes nothing.
	git checkout -q -b other HEAD~2
	commit_file f "elsewhere" x
	OTHER=$(git rev-parse HEAD)
	git checkout -q main
	parity . HEAD --ignore-rev "$OTHER"
}

# An ignored merge, evil or not; and an ignored commit on a side branch.
ignore_merge() {
	repo_new r
	code old
	commit "base"
	git checkout -q -b side
	code renamed
	commit "side: rename variables"
	SIDE=$(git rev-parse HEAD)
	put h side-h
	commit "side: h"
	git checkout -q main
	put g main-g
	commit "main: g"
	tick
	git merge -q --no-commit side
	code spaced
	put g main-g merged
	commit "evil merge reformatting"
	MERGE=$(git rev-parse HEAD)
	code extra
	commit "after"
	parity . HEAD
	parity . HEAD --ignore-rev "$MERGE"
	parity . HEAD --ignore-rev "$SIDE"
	parity . HEAD --ignore-rev "$MERGE" --ignore-rev "$SIDE"
	parity . HEAD --ignore-rev "$MERGE" --first-parent
}

# An ignored commit that renames and edits a file.
ignore_rename() {
	repo_new r
	code old
	commit "base"
	git mv f.c g.c
	code renamed
	mv f.c g.c
	commit "rename and reformat"
	REN=$(git rev-parse HEAD)
	parity . HEAD --ignore-rev "$REN"
}

run_case ignore_one ignore_one
run_case back_to_back back_to_back
run_case ignore_revs_file ignore_revs_file
run_case ignore_revs_config ignore_revs_config
run_case ignore_revs_config_bare ignore_revs_config_bare
run_case ignore_adds ignore_adds
run_case ignore_merge ignore_merge
run_case ignore_rename ignore_rename
finish
