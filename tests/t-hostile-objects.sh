#!/bin/bash
# Hostile commits, trees, tags and refs, written with `git hash-object
# --literally` (or by hand) where git would refuse to write them. Each
# gives one `strata: ` line naming the object and what is wrong, exit 1,
# within a time and memory bound, and leaves nothing in --out; the
# comments say where git fails on the same repository too.
set -eu
. "$(dirname "$0")/lib.sh"

# bounded CMD...: at most 60 s and 2 GiB of address space.
bounded() {
	(ulimit -v 2097152; exec timeout 60 "$@")
}

# A repository with one commit (f: a), its id in $BASE and tree in $TREE.
repo_base() {
	repo_new r
	commit_file f one a
	BASE=$(git rev-parse HEAD) TREE=$(git rev-parse HEAD^{tree})
}

# raw_commit BODY: write commit BODY (printf format) as it is; its id.
raw_commit() {
	# shellcheck disable=SC2059
	printf "$1" | git hash-object -t commit --literally -w --stdin
}

# point_main ID: refs/heads/main at ID, which git update-ref would refuse.
point_main() {
	echo "$1" >.git/refs/heads/main
}

# refused PATTERN: strata blame and report each give PATTERN, exit 1, and
# report leaves no --out.
refused() {
	expect 1 "$1" bounded "$STRATA" blame . --quiet
	expect 1 "$1" bounded "$STRATA" report . --out o --quiet
	[ ! -e o ] || { echo "o was left"; return 1; }
}

AUTHOR='author A U <a@example.com> 1600000000 +0000'
COMMITTER='committer C O <c@example.com> 1600000000 +0000'

# Each broken tip: libgit2 refused it ("unknown revision 'HEAD'"), and the
# error path leaked. git log fails on the tree and parent cases ("bogus
# commit object", "bad parents"); it reads the author and date cases,
# printing an empty author or a date of 1970, where strata refuses: the
# report is about who wrote what when.
case_tip() {
	local c
	repo_base
	c=$(raw_commit "$2")
	point_main "$c"
	if [ "${3:-}" = git ]; then
		! git log -1 >/dev/null 2>&1 || { echo "git reads it"; return 1; }
	fi
	refused "corrupt commit '$c': $1\$"
}

# The same in the middle of the history, packed and read ahead on two
# threads (--jobs 2), and loose with one.
case_parent() {
	local c top
	repo_base
	c=$(raw_commit "tree $TREE\nparent $BASE\n$AUTHOR\n\nx\n")
	top=$(raw_commit "tree $TREE\nparent $c\n$AUTHOR\n$COMMITTER\n\ny\n")
	point_main "$top"
	expect 1 "corrupt commit '$c': no committer\$" \
		bounded "$STRATA" blame . --quiet --jobs 1
	git repack -adq
	[ -z "$(find .git/objects -type f -path '*/objects/??/*')" ]
	expect 1 "corrupt commit '$c': no committer\$" \
		bounded "$STRATA" blame . --quiet --jobs 2
}

# Octopus merges. N root commits, the i-th with f = "line i"; a merge of
# them all whose f is "line N-1" and "octopus": its first line comes
# from the last parent. The 65,537th origin of a version once wrapped a
# 16-bit count (a heap overflow: SIGSEGV); with 1,000,000 parents (the N
# again and again) the check for a blob seen at an earlier parent was
# quadratic (over a minute; git blame is quadratic there too, and takes
# 9 s on the 65,537). git accepts both merges (git log, git blame).
case_octopus() {
	local n=65537 total=$1 tree merge last got
	repo_new r
	python3 -c "
import sys
w = sys.stdout.buffer.write
for i in range($n):
    d = b'line %d\\n' % i
    w(b'commit refs/roots\\nmark :%d\\n' % (i + 1))
    w(b'author A <a@b> %d +0000\\n' % (1600000000 + i))
    w(b'committer A <a@b> %d +0000\\ndata 0\\n' % (1600000000 + i))
    if i:
        w(b'from 0000000000000000000000000000000000000000\\n')
    w(b'M 100644 inline f\\ndata %d\\n%s\\n' % (len(d), d))
" | git fast-import --quiet --export-marks=marks
	tree=$(printf '100644 blob %s\tf\n' \
		"$(printf 'line %d\noctopus\n' $((n - 1)) | git hash-object -w --stdin)" |
		git mktree)
	last=$(sed -n "${n}p" marks | cut -d' ' -f2)
	merge=$(python3 -c "
import sys
ids = [l.split()[1] for l in open('marks')]
sys.stdout.write('tree $tree\\n')
sys.stdout.write(''.join('parent %s\\n' % ids[i % $n] for i in range($total)))
sys.stdout.write('$AUTHOR\\n$COMMITTER\\n\\noctopus\\n')
" | git hash-object -t commit --literally -w --stdin)
	point_main "$merge"
	[ "$(git rev-list --parents -1 HEAD | wc -w)" = $((total + 1)) ]
	got=$(bounded "$STRATA" blame . --quiet | cut -f1 | tr '\n' ' ')
	[ "$got" = "$last $merge " ] || { echo "strata: $got"; return 1; }
}

run_case commit-no-tree case_tip 'no tree' \
	"parent %040d\n$AUTHOR\n$COMMITTER\n\nx\n" git
run_case commit-bad-tree case_tip 'bad tree line' \
	"tree 1234\n$AUTHOR\n$COMMITTER\n\nx\n" git
run_case commit-bad-parent case_tip 'bad parent line' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent xyz\n$AUTHOR\n$COMMITTER\n\nx\n" git
run_case commit-no-author case_tip 'no author' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$COMMITTER\n\nx\n"
run_case commit-no-committer case_tip 'no committer' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\n\nx\n"
run_case commit-no-email case_tip 'author without <email>' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A 1 +0000\n$COMMITTER\n\nx\n"
run_case commit-no-date case_tip 'bad author date' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b>\n$COMMITTER\n\nx\n"
run_case commit-bad-date case_tip 'bad committer date' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\ncommitter C <c@d> 12x +0000\n\nx\n"
run_case commit-date-overflow case_tip 'bad committer date' \
	"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n$AUTHOR\ncommitter C <c@d> 99999999999999999999 +0000\n\nx\n"
run_case commit-parent case_parent
run_case octopus-65537 case_octopus 65537
run_case octopus-million case_octopus 1000000
finish
