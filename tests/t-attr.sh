#!/bin/bash
# Attributes (src/attr.c) and --skip-vendored, against git check-attr.
#
# tests/unit/attr_check.c prints what strata makes of the .gitattributes
# of a repository's HEAD tree, in the form of `git check-attr -z`; every
# path is compared, for linguist-vendored, linguist-generated and other
# names, on a tree that exercises each rule of gitattributes(5), then on
# random trees (tests/attr-fuzz.py; ATTR_FUZZ=N of them, default 40).
# Then strata blame --skip-vendored must print exactly the text files
# that linguist's reading of check-attr's answers keeps, and table and
# report.json must count what it left out.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
unit_setup t-attr --san-auto
trap 'rm -rf "$tmp"; [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$WORK"' EXIT
export GIT_ATTR_NOSYSTEM=1
ATTRS=(linguist-vendored linguist-generated m foo binary diff text)
# (-O0: it reads a few small trees, and builds at half the -O1 time.)
unit_build "$WORK/attr_check" libgit2 -O0 tests/unit/attr_check.c src/attr.c \
	src/filter.c src/wildmatch.c src/error.c
CHECK=$WORK/attr_check

# compare_attrs REPO: every file of HEAD, strata's answer and git's.
compare_attrs() {
	git_attrs "$1"
	"$CHECK" "$1" "${ATTRS[@]}" <"$1.paths" >"$1.strata"
	same_attrs "$1"
}
# git_attrs REPO: the paths in REPO.paths, git's answer in REPO.git.
git_attrs() {
	git -C "$1" ls-files -z >"$1.paths"
	git -C "$1" check-attr -z --stdin "${ATTRS[@]}" <"$1.paths" >"$1.git"
}
# same_attrs REPO: REPO.git and REPO.strata must be the same.
same_attrs() {
	local repo=$1
	if ! cmp -s "$repo.git" "$repo.strata"; then
		echo "attributes differ in $repo (git, then strata):"
		diff <(tr '\0' '\n' <"$repo.git" | paste - - -) \
			<(tr '\0' '\n' <"$repo.strata" | paste - - -) | head -20
		return 1
	fi
}

# Every rule once: precedence, negation, directories, macros, quoting.
rules_repo() {
	repo_new r
	put_raw .gitattributes $'\xef\xbb\xbf*.min.js linguist-generated\n'
	cat >>.gitattributes <<'A'
# later lines win; on a line, the last mention wins
*.c linguist-vendored
keep.c -linguist-vendored
both.c linguist-vendored !linguist-vendored linguist-vendored=false
vendor/** linguist-vendored
vendor/own/** linguist-vendored=false
third_party/ linguist-vendored
!negated.c linguist-vendored
\!bang.c linguist-vendored
"quoted name.txt" linguist-vendored
"oct\141l.txt" linguist-generated
[attr]vend linguist-vendored -linguist-generated
macro/** vend
macro/off/** -vend
/anchored.txt linguist-vendored
**/deep/*.txt linguist-generated
docs/*.md foo=bar linguist-generated=true
bad-line.txt linguist-vendored bad/name
data/** linguist-generated=yes
A
	printf 'long.txt linguist-vendored %s\n' "$(rep 700 x | tr -d '\n' | sed 's/x/ab /g')" >>.gitattributes
	put_raw sub/.gitattributes $'[attr]vend linguist-generated\nlocal.c linguist-generated\r\n*.c -linguist-vendored\n'
	put sub/deeper/.gitattributes "*.c linguist-vendored" "x.c !linguist-vendored"
	local f
	for f in a.c keep.c both.c lib.min.js vendor/x.c vendor/own/y.c \
		third_party/z.txt negated.c '!bang.c' 'quoted name.txt' \
		octal.txt macro/m.c macro/off/n.txt anchored.txt \
		sub/anchored.txt a/b/deep/c.txt deep/d.txt docs/r.md \
		docs/sub/s.md bad-line.txt data/t.csv long.txt sub/local.c \
		sub/s.c sub/deeper/d.c sub/deeper/x.c sub/deeper/y.h; do
		put "$f" "line of $f" "second"
	done
	commit "files and attributes"
	cd ..
}

rules() {
	rules_repo
	compare_attrs r
	# Spot checks, so that a shared mistake cannot pass unseen.
	printf 'keep.c\0vendor/own/y.c\0macro/m.c\0sub/deeper/x.c\0' |
		"$CHECK" r linguist-vendored | tr '\0' ' ' >got
	[ "$(cat got)" = "keep.c linguist-vendored unset vendor/own/y.c linguist-vendored false macro/m.c linguist-vendored set sub/deeper/x.c linguist-vendored unspecified " ] ||
		{ echo "got: $(cat got)"; return 1; }
}

fuzz() {
	local i n=${ATTR_FUZZ:-40} args=()
	# Every tree from one python (a python start is dear), each as its
	# own run would make it.
	for ((i = 1; i <= n; i++)); do
		mkdir "f$i"
		args+=("f$i" "$i")
	done
	python3 "$ROOT/tests/attr-fuzz.py" "${args[@]}" >/dev/null
	# (Every commit one tick after the case's clock, as when each
	# ticked in a subshell of its own.)
	tick
	: >list
	for ((i = 1; i <= n; i++)); do
		git init -q "f$i"
		git -C "f$i" add -A
		git -C "f$i" commit -qm "random $i"
		git_attrs "f$i"
		printf '%s\t%s\t%s\n' "f$i" "f$i.paths" "f$i.strata" >>list
	done
	at $((_clock - 60))
	# strata's answers for every tree from one attr_check (an ASan
	# build's start is dear), each tree read on its own.
	"$CHECK" --each list "${ATTRS[@]}" || { echo "attr_check failed"; return 1; }
	for ((i = 1; i <= n; i++)); do
		same_attrs "f$i" || { echo "seed $i"; return 1; }
		rm -rf "f$i" "f$i".*
	done
}

# linguist's verdict from check-attr's: set, or a value but "false".
linguist_keeps() {
	local repo=$1
	text_files "$repo" HEAD >all
	git -C "$repo" check-attr -z --stdin linguist-vendored \
		linguist-generated <all |
		perl -0 -ne 'chomp; push @f, $_;
			if (@f == 6) {
				my $left = grep { $_ ne "unset" && $_ ne "unspecified" &&
				    $_ ne "false" } @f[2, 5];
				print "$f[0]\n" unless $left;
				@f = ();
			}' | sort >keep.want
}

skip_vendored() {
	rules_repo
	linguist_keeps r
	[ "$(wc -l <keep.want)" -ge 8 ] || { echo "too few kept"; return 1; }
	"$STRATA" blame r --skip-vendored | cut -f4 | sort -u >keep.got
	diff keep.want keep.got
	# What is left out is counted, files and lines, in table and report.
	local nall nkeep lines_all lines_kept
	nall=$(tr -cd '\0' <all | wc -c)
	nkeep=$(wc -l <keep.want)
	"$STRATA" table r --skip-vendored --tags '.*' >t.txt 2>&1 || true
	git -C r tag v1
	"$STRATA" table r --skip-vendored -q >t.txt
	lines_all=$("$STRATA" blame r | awk -F'\t' '{n += $3} END {print n}')
	lines_kept=$("$STRATA" blame r --skip-vendored |
		awk -F'\t' '{n += $3} END {print n}')
	grep -qx "left out as vendored or generated: $((nall - nkeep)) text files ($((lines_all - lines_kept)) lines); --no-skip-vendored counts them" t.txt ||
		{ cat t.txt; return 1; }
	SOURCE_DATE_EPOCH=1 "$STRATA" report r --skip-vendored -q --out rep
	grep -q "\"skip_vendored\": true" rep/data/report.json
	grep -q "\"vendored\": {\"files\": $((nall - nkeep)), \"lines\": $((lines_all - lines_kept))}" rep/data/report.json ||
		{ grep left_out rep/data/report.json; return 1; }
	grep -q "marks vendored or generated" rep/index.html
	# Without the option, attributes change nothing.
	[ "$("$STRATA" blame r | cut -f4 | sort -u | wc -l)" = "$nall" ]
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
run_case rules rules
run_case fuzz fuzz
run_case skip_vendored skip_vendored
finish
