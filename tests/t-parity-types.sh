#!/bin/bash
# Parity with git blame where files are not plain text all along: empty
# files, binaries, symlinks, mode changes, gitlinks, a file replacing a
# directory; and file names that are not plain ASCII words.
. "$(dirname "$0")/lib.sh"

# An empty file is not a text file; emptied and refilled, its lines are new.
empty_files() {
	repo_new r
	put empty
	commit_file f "f" $(lines f 1 5)
	commit_file empty2 "another empty file"
	put f
	commit "empty f"
	commit_file f "refill f with its old lines" $(lines f 1 5)
	put empty2 now "has lines"
	commit "fill empty2"
	# An empty file renamed, and a rename into an empty file's place.
	git mv empty empty-renamed
	commit "rename the empty file"
	put f
	commit "empty f again"
	git mv f g
	put g $(lines f 1 6)
	commit "rename the emptied f to g and refill"
	parity . HEAD
	parity . HEAD~3
	# At "empty f" no file has a line: with nothing to blame, strata
	# fails, as table and report do.
	"$STRATA" blame . --rev HEAD~5 >out 2>err && return 1
	grep -qx "strata: no text file at 'HEAD~5'" err
	[ ! -s out ]
}

# Binary files (a NUL in the first 8000 bytes) are absent from the output;
# their history still counts for the text they become: lines are lines.
binary_files() {
	repo_new r
	printf 'bin\0ary\n' >b.bin
	{ lines head 1 5; printf 'x\0y\n'; lines tail 1 5; } >turns-text
	{ lines text 1 5; } >turns-binary
	{ printf '\0'; lines late 1 3; } >nul-first
	commit "base"
	{ lines head 1 5; printf 'xy\n'; lines tail 1 5; } >turns-text
	{ lines text 1 5; printf '\0\n'; } >turns-binary
	{ lines pad 1 1000; printf 'a\0b\n'; } >nul-at-8000-ish
	commit "NUL removed; NUL added"
	{ head -c 7999 /dev/zero | tr '\0' 'p'; printf '\0rest\n'; } >nul-7999
	{ head -c 8000 /dev/zero | tr '\0' 'p'; printf '\0rest\n'; } >nul-8000
	{ lines head 0 5; printf 'xy\n'; lines tail 1 6; } >turns-text
	commit "NUL at byte 7999 (binary) and 8000 (text)"
	parity . HEAD
	parity . HEAD^
}

# Symlinks are not text files, and a path changing between file and
# symlink has no origin in the parent (a type change).
symlinks() {
	repo_new r
	put target $(lines t 1 4)
	ln -s target link
	ln -s no-such-file dangling
	put became-link "link-to" "target"
	commit "base"
	rm became-link
	ln -s target became-link
	rm link
	put link "target"
	commit "file->symlink, symlink->file"
	rm became-link
	put became-link "link-to" "target" "again"
	commit "symlink->file again"
	# A symlink whose target text equals a file's content, then renamed.
	ln -s "$(printf 'link-to\ntarget')" weird-link
	git mv target target2
	commit "rename target; odd link"
	parity . HEAD
	parity . HEAD~2
}

# A type change next to a deleted file that looks like it: the path exists
# in the parent, so is it a rename or not? Whatever git says.
typechange_with_candidate() {
	repo_new r
	put a $(lines a 1 10)
	put b $(lines a 1 10)
	commit "base"
	git rm -q b
	rm a
	ln -s elsewhere a
	commit "a becomes a link, b deleted"
	rm a
	put a $(lines a 1 10) more
	commit "a a file again"
	parity . HEAD
}

# Mode 100755 files are text files; a mode-only change keeps the blob, so
# the parent gets every line.
modes() {
	repo_new r
	put run.sh "#!/bin/sh" "echo one" "echo two"
	put plain $(lines p 1 3)
	commit "base"
	chmod +x run.sh plain
	commit "make executable"
	chmod -x plain
	put run.sh "#!/bin/sh" "echo one" "echo 2"
	commit "edit and mode back"
	chmod +x plain
	put plain $(lines p 1 4)
	commit "mode and content at once"
	parity . HEAD
	parity . HEAD~2
}

# A gitlink (submodule entry, mode 160000) is not a text file; a path
# changing between gitlink and file has no origin in the parent.
gitlinks() {
	repo_new r
	commit_file f "base" $(lines f 1 3)
	c1=$(git rev-parse HEAD)
	# Gitlinks live only in the index (no checkout), so this case stages by
	# hand: `git add -A` would see them missing and delete them.
	add_gitlink sub "$c1"
	add_gitlink was-file "$c1"
	put will-be-link $(lines w 1 3)
	git add will-be-link
	commit_index "add gitlinks"
	add_gitlink sub "$(git rev-parse HEAD)"
	git rm -q --cached was-file
	put was-file $(lines f 1 3)
	git add was-file
	git rm -q will-be-link
	add_gitlink will-be-link "$c1"
	commit_index "gitlink->file, file->gitlink, move gitlink"
	put f $(lines f 1 4)
	git add f
	commit_index "touch f"
	# Back from gitlink to file, with the lines the file had before.
	git rm -q --cached will-be-link
	put will-be-link $(lines w 1 3)
	git add will-be-link
	commit_index "gitlink->file again"
	test "$(git ls-tree HEAD sub | cut -c1-6)" = 160000
	parity . HEAD
	parity . HEAD~2
}

# A path that is a directory in the parent and a file here, and back.
file_vs_directory() {
	repo_new r
	put d/x $(lines x 1 3)
	put e $(lines e 1 3)
	commit "base"
	git rm -q -r d
	git mv e e.tmp
	put d $(lines x 1 3)
	commit "d: directory->file"
	mkdir e
	git mv e.tmp e/e
	git rm -q d
	put d/x $(lines x 1 4)
	commit "e: file->directory; d back to a directory"
	parity . HEAD
	parity . HEAD^
}

# File names: spaces, quotes, a leading dash, a backslash, unicode, bytes
# that are not UTF-8, a glob character, names that differ only in case;
# strata prints them raw and sorts them bytewise.
odd_names() {
	repo_new r
	put "with space" a b
	put 'quote"d' a
	put "single'quote" a
	put "-dash" a
	put 'back\slash' a
	put "star*" a
	put "$(printf 'caf\303\251')" caf
	put "$(printf '\346\227\245\346\234\254/\344\270\255')" ni
	put "$(printf 'latin1-\351t\351')" latin
	put "$(printf '\377\376')" ff
	put "$(printf 'dir \377/f\200')" x
	put CASE upper
	put case lower
	put ":(glob)x" pathspec-magic
	commit "odd names"
	put "with space" a b c
	put "$(printf '\377\376')" ff fe
	git mv -- "-dash" "--double dash"
	git mv "$(printf 'latin1-\351t\351')" "$(printf '\351t\351 renamed')"
	commit "edit and rename odd names"
	parity . HEAD
	parity . HEAD^
	parity . HEAD -- "with space" "$(printf '\377\376')"
}

# Names with a tab or a newline: the output format has no quoting, so check
# that strata prints them (raw, as the contract says) and blames them right.
tab_newline_names() {
	repo_new r
	put "$(printf 'tab\there')" a b
	put "$(printf 'new\nline')" c d
	put plain e
	commit "base"
	put "$(printf 'tab\there')" a b2
	commit "edit"
	parity . HEAD
}

# A merge whose parents disagree on a path's type: a symlink on one side,
# a file on the other; the result a file (or a link).
merge_typechange() {
	repo_new r
	put f $(lines f 1 4)
	put g $(lines g 1 4)
	commit "base"
	git checkout -q -b side
	rm f
	ln -s elsewhere f
	put g $(lines g 1 4) side
	commit "side: f becomes a link"
	git checkout -q main
	put f $(lines f 1 4) main
	rm g
	ln -s g-target g
	commit "main: edit f, g becomes a link"
	tick
	git merge -q --no-edit side >/dev/null 2>&1 || true
	rm -f f g
	put f $(lines f 1 4) main merged
	put g $(lines g 1 4) side
	git add -A
	commit_index "merge: both files"
	parity . HEAD
	parity . HEAD --first-parent
}

# Lines end at "\n" only: a file with bare CRs is one line.
bare_cr() {
	repo_new r
	put_raw mac $'one\rtwo\rthree\r'
	put_raw mixed $'a\rb\nc\r\n'
	commit "base"
	put_raw mac $'one\rtwo\rTHREE\r'
	put_raw mixed $'a\rb\nc\r\nd\r'
	commit "edit"
	parity . HEAD
	parity . HEAD -w
}

run_case empty_files empty_files
run_case binary_files binary_files
run_case symlinks symlinks
run_case typechange_with_candidate typechange_with_candidate
run_case modes modes
run_case gitlinks gitlinks
run_case file_vs_directory file_vs_directory
run_case odd_names odd_names
run_case tab_newline_names tab_newline_names
run_case merge_typechange merge_typechange
run_case bare_cr bare_cr
finish
