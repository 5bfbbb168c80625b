#!/bin/bash
# tests/site-lib.sh: the fixture repository and helpers of t-site*.sh,
# sourced after tests/lib.sh. Run as `tests/site-lib.sh DIR` it only
# builds the fixture in DIR.
#
# site_repo DIR: the fixture (names_repo DIR: another, below).
# Four tags in three releases (v1.0; v1.1-rc1 and v1.1 fold into v1.1;
# v2.0) and one commit after them, with names a page must escape: markup
# (a file and a top-level directory), an ampersand and quotes, a byte that
# is not UTF-8, directories that differ only in case; two authors, one
# with quotes, an ampersand and a long name. At HEAD:
#
#   release     lines  share
#   v1.0           39  70.91%   (headline: 70.9%)
#   v1.1            9  16.36%
#   v2.0            6  10.91%
#   unreleased      1   1.82%
#   total          55 lines in 9 files; 5 files (28 lines) untouched
#   src/           21 lines, 13 from 1.0 (61.90%)

# `lines` is meant to split into one argument per line.
# shellcheck disable=SC2046
site_repo() {
	repo_new "$1"
	at 1262304000 # 2010-01-01
	put README $(lines readme 1 10)
	put src/main.c $(lines main 1 10)
	put src/util.c $(lines util 1 5)
	put '<img src=x onerror=alert(1)>.c' $(lines img 1 4)
	put 'docs/a&b "q".c' $(lines amp 1 3)
	put $'lib/caf\xe9.c' $(lines cafe 1 6)
	put Net/x.c x1 x2
	put net/y.c y1 y2
	commit "1.0"
	git tag v1.0

	at 1270000000 # 2010-03-31
	GIT_AUTHOR_NAME="Ana \"A&B\" Wolfeschlegelsteinhausenbergerdorff-Longname" \
		GIT_AUTHOR_EMAIL=ana@example.org
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
	put src/main.c $(lines main 1 10) $(lines new 1 5)
	put Net/x.c x1 x2-changed
	commit "1.1-rc1"
	git tag v1.1-rc1

	at 1272000000 # 2010-04-23
	put net/y.c y1 y2 y3 y4 y5
	commit "1.1"
	git tag v1.1

	at 1300000000 # 2011-03-13
	put src/main.c main1 main2-changed main3-changed $(lines main 4 10) \
		$(lines new 1 5)
	put '<svg onload=alert(1)>/new.c' $(lines svg 1 4)
	commit "2.0"
	git tag v2.0

	at 1310000000
	unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL
	put src/main.c main1 main2-changed main3-changed $(lines main 4 10) \
		$(lines new 1 5) tail
	commit "after 2.0"
	cd - >/dev/null || return
}

# names_repo DIR: directories with every kind of name: readable ones,
# names that differ only in case, the site's own names, Windows' device
# names, names that end like a page or a chart, 90 capitals (three times
# that as %-escapes is too long for a file name), 255 bytes of ASCII and
# of UTF-8, bytes that are not UTF-8, control characters, URL delimiters,
# spaces, a leading - or ., a newline; at v1.0 and v1.1.
names_repo() {
	local d long_a long_u caps
	repo_new "$1"
	at 1262304000
	caps=$(printf 'A%.0s' {1..90})
	long_a=$(printf 'a%.0s' {1..255})
	long_u=$(printf '\xe6\x97\xa5%.0s' {1..85})
	for d in Documentation arch/x86 arch/X86 Net net NET index img data \
		root CON com1.txt a.html b.PNG x86.svg "$caps" "$caps/sub" \
		"$long_a" "$long_a/$long_u" "$long_u" $'bad\xff\xfename' \
		$'ctrl\x01\x1b[31m' '100%' '%2e%2e' '#frag' '?q=1' \
		' spaced name ' '-leading' '.leading' '...' \
		$'new\nline' '&amp;' 'x'; do
		put "$d/f.c" one two
	done
	put README readme
	commit "1.0"
	git tag v1.0
	at 1270000000
	put arch/x86/g.c three
	commit "1.1"
	git tag v1.1
	cd - >/dev/null || return
}

# has FILE STRING...: FILE contains every STRING (fixed strings).
has() {
	local f=$1 s
	shift
	for s in "$@"; do
		grep -qF -- "$s" "$f" || {
			echo "'$f' lacks: $s"
			return 1
		}
	done
}

# lacks FILE STRING...: FILE contains none of them.
lacks() {
	local f=$1 s
	shift
	for s in "$@"; do
		if grep -qF -- "$s" "$f"; then
			echo "'$f' has: $s"
			grep -nF -- "$s" "$f" | head -n 3
			return 1
		fi
	done
}

# snapshot DIR: every file under DIR with its checksum, sorted, for diff.
snapshot() {
	(cd "$1" && find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum)
}

# report ARG...: `strata report` with a fixed date and no progress bar.
report() {
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report --quiet "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
	STRATA=${STRATA:-/bin/true}
	. "$(dirname "$0")/lib.sh"
	dest=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	rm -rf "$dest"
	site_repo "$dest"
fi
