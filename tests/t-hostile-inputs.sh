#!/bin/bash
# hostile inputs besides the object database and the commit parsers:
# globs made to backtrack (--include and a repository's .gitattributes),
# ignore-revs files that are not files or are huge or odd, and names with
# control characters in errors. Each ends within a time and memory bound
# (`bounded`: lib.sh's 60 s, a bound for a hang, not a measure of speed:
# 10 s ran out on a loaded machine): an error in one `strata: ` line, or
# the answer.
set -eu
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

# The paths of a blame, sorted.
paths() {
	cut -f4 "$1" | sort
}

# A tree of a deep path a/.../a/f, a long name aaa...ac and keep. git
# itself takes hours over the attribute globs below, so the tree is made
# without a work tree: `git add` would read them.
deep_repo() {
	repo_new r
	python3 -c "
import os
d = '/'.join(['a'] * 60)
os.makedirs(d)
open(d + '/f', 'w').write('x\n')
open('a' * 60 + 'c', 'w').write('y\n')
open('a/a/a/b', 'w').write('v\n')
open('keep', 'w').write('z\n')"
	git add -A
	local b t c
	b=$(printf '%s\n' "$1" | git hash-object -w --stdin)
	t=$( (git ls-tree "$(git write-tree)"
		printf '100644 blob %s\t.gitattributes\n' "$b") | git mktree)
	c=$(git commit-tree -m one "$t" </dev/null)
	git update-ref refs/heads/main "$c"
}

# '*a' fourteen times then 'b', against sixty a's and a c: wildmatch
# tries every way to place the stars (hours).
case_glob_include() {
	deep_repo ''
	local pat
	pat=$(python3 -c "print('*a' * 14 + 'b')")
	bounded "$STRATA" blame . --include "$pat" --include keep >out
	[ "$(paths out)" = keep ] || { cat out; return 1; }
	pat=$(python3 -c "print('*a' * 14 + 'c')")
	bounded "$STRATA" blame . --include "$pat" >out
	[ "$(paths out)" = "$(printf 'a%.0s' $(seq 60))c" ] ||
		{ cat out; return 1; }
}

# "**/" twenty-five times then b, in .gitattributes, against a path 60
# directories deep: the same with directories.
case_glob_attr() {
	deep_repo "$(python3 -c "print('**/' * 25 + 'b linguist-vendored')")"
	bounded "$STRATA" blame . --skip-vendored >out
	[ "$(paths out | tr '\n' ' ')" = ".gitattributes $(printf 'a/%.0s' \
		$(seq 60))f $(printf 'a%.0s' $(seq 60))c keep " ] ||
		{ cat out; return 1; }
}

# Two commits, the second changing a line: R is the second.
two_commits() {
	repo_new r
	commit_file f one a b c
	commit_file f two A b c
	R=$(git rev-parse HEAD)
}

# Lists that are no regular file, or too large, are refused before any
# read; old strata hung on the first ones (fgets on /dev/zero, fopen on a
# FIFO), as git does.
case_ignore_files() {
	two_commits
	local pat="object name list '.*' is not a regular file"
	expect 1 "$pat" bounded "$STRATA" blame . --ignore-revs-file /dev/zero
	mkfifo fifo
	expect 1 "$pat" bounded "$STRATA" blame . --ignore-revs-file fifo
	ln -s /dev/zero zero-link
	ln -s fifo fifo-link
	expect 1 "$pat" bounded "$STRATA" blame . --ignore-revs-file zero-link
	expect 1 "$pat" bounded "$STRATA" blame . --ignore-revs-file fifo-link
	mkdir dir
	expect 1 "$pat" bounded "$STRATA" blame . --ignore-revs-file dir
	git config blame.ignoreRevsFile fifo
	expect 1 "object name list '.*/fifo' is not a regular file" \
		bounded "$STRATA" blame .
	git config blame.ignoreRevsFile "$PWD/zero-link"
	expect 1 "$pat" bounded "$STRATA" blame .
	git config --unset blame.ignoreRevsFile
	# 64 MiB and one byte: refused; 64 MiB of blank lines: read.
	head -c $((64 << 20)) /dev/zero | tr '\0' '\n' >big
	bounded "$STRATA" blame . --ignore-revs-file big >out
	printf '%s\n' "$R" >>big
	expect 1 "object name list 'big' is larger than 64 MiB" \
		bounded "$STRATA" blame . --ignore-revs-file big
	truncate -s 1T big
	expect 1 "object name list 'big' is larger than 64 MiB" \
		bounded "$STRATA" blame . --ignore-revs-file big
}

# Lists as git reads them: a line longer than any buffer, CRLF, a NUL
# after the name, a comment after a NUL (not one); VT and FF are no
# spaces to git. Where git takes the list, the blame is git's; where it
# refuses it, so does strata.
case_ignore_parse() {
	two_commits
	{ printf '%s # ' "$R"; head -c 5000 /dev/zero | tr '\0' x; echo; } >long
	parity . HEAD --ignore-revs-file "$PWD/long"
	printf '# list\r\n\t%s\r\n\r\n' "$R" >crlf
	parity . HEAD --ignore-revs-file "$PWD/crlf"
	printf '%s\000junk\n' "$R" >nul
	parity . HEAD --ignore-revs-file "$PWD/nul"
	printf '%s' "$R" >no-newline
	parity . HEAD --ignore-revs-file "$PWD/no-newline"
	local f
	printf '\v%s\n' "$R" >vt
	printf '%s\f\n' "$R" >ff
	printf 'x\000#\n' >nul-hash
	printf '%s0\n' "$R" >41
	printf '%s\r\n' "${R%?}" >39
	for f in vt ff nul-hash 41 39; do
		! git blame --ignore-revs-file "$f" f >/dev/null 2>&1 ||
			{ echo "git takes $f"; return 1; }
		expect 1 "invalid object name '.*' in '$f'" \
			bounded "$STRATA" blame . --ignore-revs-file "$f"
	done
}

# Names with control characters in an error stay on its one line, as C
# escapes (the paths blame prints are quoted as git quotes them:
# t-cli-options). They printed as they were: a newline forged a line.
case_control_names() {
	two_commits
	expect 1 "pathspec 'no\\\\nsuch' did not match any text file$" \
		"$STRATA" blame . -- $'no\nsuch'
	expect 1 "not a git repository: 'x\\\\033\\[2Jy\\\\tz'$" \
		"$STRATA" blame $'x\e[2Jy\tz'
	expect 1 "could not open object name list 'a\\\\nb\\\\177'" \
		"$STRATA" blame . --ignore-revs-file $'a\nb\x7f'
	expect 2 "'x\\\\ny' is not a strata command" "$STRATA" $'x\ny'
}

# Files the repository's config or an option names: mailmap.file and
# --org-map. A FIFO hung `table --by author` (fopen), /dev/zero was read
# until killed; both are refused in one line, as a file too large; a
# mailmap.file that is not there is skipped, as git skips it.
case_mailmap_files() {
	two_commits
	mkfifo fifo
	ln -s /dev/zero zero-link
	git config mailmap.file "$PWD/fifo"
	expect 1 "mailmap.file: '.*/fifo' is not a regular file" \
		bounded "$STRATA" table . --by author
	git config mailmap.file "$PWD/zero-link"
	expect 1 "mailmap.file: '.*/zero-link' is not a regular file" \
		bounded "$STRATA" table . --by author
	head -c $(((64 << 20) + 1)) /dev/zero | tr '\0' '\n' >big
	git config mailmap.file "$PWD/big"
	expect 1 "mailmap.file: '.*/big' is larger than 64 MiB" \
		bounded "$STRATA" table . --by author
	git config mailmap.file "$PWD/none"
	bounded "$STRATA" table . --by author >out
	grep -q 'Strata Tester' out || { cat out; return 1; }
	git config --unset mailmap.file
	expect 1 "'fifo' is not a regular file" \
		bounded "$STRATA" table . --by org --org-map fifo
	expect 1 "'zero-link' is not a regular file" \
		bounded "$STRATA" table . --by org --org-map zero-link
}

# objects/info/alternates was read with fopen() and fgets(): a FIFO there
# hung every command, /dev/zero behind a link was read without end.
case_alternates_files() {
	two_commits
	mkfifo fifo
	ln -s "$PWD/fifo" .git/objects/info/alternates
	expect 1 "'.*/alternates' is not a regular file" \
		bounded "$STRATA" blame .
	rm .git/objects/info/alternates
	ln -s /dev/zero .git/objects/info/alternates
	expect 1 "'.*/alternates' is not a regular file" \
		bounded "$STRATA" table .
	rm .git/objects/info/alternates
	head -c $(((1 << 20) + 1)) /dev/zero | tr '\0' '\n' \
		>.git/objects/info/alternates
	expect 1 "'.*/alternates' is larger than 1 MiB" \
		bounded "$STRATA" blame .
	# An empty one, and one naming a directory that is not there, are
	# no error, as for git.
	printf '\n# a comment\n/no/such/dir\n' >.git/objects/info/alternates
	bounded "$STRATA" blame . >out
	[ -s out ]
}

# --templates DIR: a FIFO among the templates hung the report (fopen),
# and ctemplate would read it too; refused before any work.
case_templates_fifo() {
	two_commits
	mkdir tpl
	cp "$here/../templates/"* tpl/
	rm tpl/footer.tpl
	mkfifo tpl/footer.tpl
	expect 1 "unable to read template: '.*/footer.tpl' is not a regular file" \
		bounded "$STRATA" report . --templates tpl --out rep
	[ ! -e rep ]
	rm tpl/footer.tpl tpl/strata.css
	cp "$here/../templates/footer.tpl" tpl/
	ln -s /dev/zero tpl/strata.css
	expect 1 "'.*/strata.css' is not a regular file" \
		bounded "$STRATA" report . --templates tpl --out rep
	[ ! -e rep ]
}

run_case glob_include case_glob_include
run_case glob_attr case_glob_attr
run_case ignore_files case_ignore_files
run_case ignore_parse case_ignore_parse
run_case control_names case_control_names
run_case mailmap_files case_mailmap_files
run_case alternates_files case_alternates_files
run_case templates_fifo case_templates_fifo
finish
