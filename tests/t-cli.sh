#!/bin/bash
# strata blame's command line: where the repository and revision come from
# by default, the kinds of repository and revision it accepts, path filters,
# threads not changing the output, errors.
. "$(dirname "$0")/lib.sh"

small_repo() {
	repo_new r
	commit_file a "a" $(lines a 1 5)
	commit_file d/b "b" $(lines b 1 5)
	commit_file a "a again" $(lines a 1 3) x $(lines a 4 5)
	tick
	git tag -a -m "annotated" v1
	commit_file d/c "c" c
	git tag light
	commit_file d/b "b again" $(lines b 1 5) y
	cd ..
}

# No REPO means the current directory; no --rev means HEAD.
defaults() {
	small_repo
	"$STRATA" blame r --rev HEAD --quiet >want
	(cd r && "$STRATA" blame --quiet) >got
	cmp want got
	"$STRATA" blame r --quiet >got
	cmp want got
	test -s want
}

# A work tree, its .git directory and a bare clone are the same repository.
repository_kinds() {
	small_repo
	git clone -q --bare r bare.git
	"$STRATA" blame r --quiet >want
	"$STRATA" blame r/.git --quiet >got
	cmp want got
	"$STRATA" blame bare.git --quiet >got
	cmp want got
	parity bare.git HEAD
	parity r/.git HEAD~1
}

# Revisions by tag (annotated: peeled to its commit), branch, abbreviated
# id, ancestry.
revisions() {
	small_repo
	local rev
	for rev in v1 light main main~1 HEAD^ "$(git -C r rev-parse --short HEAD~2)"; do
		parity r "$rev"
	done
}

# Paths after --: files, a directory, several at once.
paths() {
	small_repo
	parity r HEAD -- a
	parity r HEAD -- d
	parity r HEAD -- d/c a
}

# The output does not depend on the number of threads.
jobs() {
	small_repo
	"$STRATA" blame r --quiet --jobs 1 >want
	"$STRATA" blame r --quiet --jobs 2 >got
	cmp want got
	"$STRATA" blame r --quiet --jobs 7 >got
	cmp want got
}

# Errors: an unknown revision or repository fails, printing no blame.
errors() {
	small_repo
	if "$STRATA" blame r --rev no-such-rev --quiet >out 2>err; then
		echo "unknown revision accepted"
		return 1
	fi
	test ! -s out
	test -s err
	if "$STRATA" blame no-such-dir --quiet >out 2>err; then
		echo "missing repository accepted"
		return 1
	fi
	test ! -s out
}

run_case defaults defaults
run_case repository_kinds repository_kinds
run_case revisions revisions
run_case paths paths
run_case jobs jobs
run_case errors errors
finish
