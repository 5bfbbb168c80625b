#!/bin/bash
# The man page, docs/strata.1: well-formed roff (no groff warnings), its
# OPTIONS section the one the option table gives (strata --help-man, put
# there by make man), in step with --help (every option of every --help
# text is in it, and every option it describes is in --help), and
# installed by make install.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAN=$ROOT/docs/strata.1

# The options a text names: -x or --word-word, after a space, comma,
# bracket or line start.
options_in() {
	perl -ne 'print "$1\n" while /(?:^|[\s,(\[|])(--?[a-z][a-z-]*)/g' |
		sort -u
}

roff() {
	command -v groff >/dev/null || { echo "groff is missing (make deps)"; return 1; }
	groff -man -Tutf8 -ww -z "$MAN" 2>warnings
	[ ! -s warnings ] || { cat warnings; return 1; }
	groff -man -Tascii "$MAN" 2>/dev/null | col -b >page.txt
	grep -q '^NAME' page.txt && grep -q '^EXIT STATUS' page.txt &&
		grep -q '^ENVIRONMENT' page.txt && grep -q '^EXAMPLES' page.txt
}

in_sync() {
	groff -man -Tascii "$MAN" 2>/dev/null | col -b >page.txt
	{
		"$STRATA" --help
		for c in blame table report; do "$STRATA" $c --help; done
	} | options_in | grep -vx -- '--' >help.opts
	[ "$(wc -l <help.opts)" -ge 20 ] || { cat help.opts; return 1; }
	options_in <page.txt | grep -vx -- '--' >page.opts
	local missing extra
	missing=$(comm -23 help.opts page.opts)
	[ -z "$missing" ] || { echo "not in the man page:" $missing; return 1; }
	# The options the page describes (its OPTIONS section) are in --help.
	sed -n '/^OPTIONS/,/^GLOBS/p' page.txt | options_in | grep -vx -- '--opt' |
		grep -vx -- '--' >described
	extra=$(comm -23 described help.opts)
	[ -z "$extra" ] || { echo "not in --help:" $extra; return 1; }
	# The commands, exit codes and the environment --help names.
	grep -q '^       blame' page.txt && grep -q '^       table' page.txt &&
		grep -q '^       report' page.txt
	grep -q '^       SOURCE_DATE_EPOCH' page.txt
	grep -q '^       GLIBC_TUNABLES' page.txt
	# The version in the page is the binary's.
	grep -q "$("$STRATA" --version)" page.txt
}

# The OPTIONS section is generated from src/options.c's table: a page
# edited by hand, or a table changed without make man, fails here.
generated() {
	"$STRATA" --help-man >table.roff
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$MAN" | sed '$d' >page.roff
	diff -u page.roff table.roff || { echo "docs/strata.1 disagrees with the option table: run make man"; return 1; }
	# Every row of the table is in it, with the modes that refuse it.
	grep -q '^\.BR \\-\\-by " release|year|author|org"$' table.roff
	grep -q '^Refused (a usage error' table.roff
}

installed() {
	make -s -C "$ROOT" install DESTDIR="$PWD/stage" PREFIX=/opt/strata \
		STRATA_BIN="$STRATA" >/dev/null
	cmp "$MAN" stage/opt/strata/share/man/man1/strata.1
	MANPATH=$PWD/stage/opt/strata/share/man man -P cat strata 2>/dev/null |
		col -b >man.txt
	grep -q 'strata - which release wrote the code' man.txt
}

run_case roff roff
run_case in_sync in_sync
run_case generated generated
run_case installed installed
finish
