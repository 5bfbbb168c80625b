#!/bin/bash
# The terminal table: the date of each release is the date of the tag
# that stands for it, as in releases.csv; names from the repository are
# quoted as git quotes them, so none can drive the terminal; counts of
# one are singular; columns stay aligned whatever the names; --depth
# shows the directory levels asked for, each under its parent; names of
# people and organisations in valid UTF-8 are printed as they are, their
# columns aligned by display width.
. "$(dirname "$0")/lib.sh"

# Release 1 has tags v1.0 and, months later, v1.1 (folded in by
# --group); the table used to show v1.1's date, the data v1.0's.
standing_dates() {
	repo_new r
	commit_file a.c "one" a b c
	git tag -a -m v1.0 v1.0
	tick 8640000
	commit_file b.c "two" d e
	git tag -a -m v2.0-rc1 v2.0-rc1
	tick 8640000
	commit_file a.c "three" a b c x
	git tag -a -m v1.1 v1.1
	tick 8640000
	commit_file b.c "four" d e f
	git tag -a -m v2.0 v2.0
	cd ..
	local g='v([0-9]+)\..*'
	"$STRATA" table r -q --group "$g" >t.txt
	cat t.txt
	SOURCE_DATE_EPOCH=0 "$STRATA" report r -q --group "$g" --out rep
	# release, date: from the table and from releases.csv
	awk '/^release /{on=1; next} on && NF == 0 {exit} on {print $1, $2}' \
		t.txt >table.dates
	tr -d '\r' <rep/data/releases.csv |
		awk -F, 'NR > 1 {d = $3 == "" ? "-" : substr($3, 1, 10); print $1, d}' \
		>data.dates
	diff data.dates table.dates
	grep -q "^1 $(date -u -d @"$(git -C r log -1 --format=%ct v1.0)" +%F)$" \
		table.dates
	# The dates run forward with the releases.
	cut -d' ' -f2 table.dates | grep -v '^-$' | sort -c
}

# Names with control characters, quotes and bytes from 0x80 appear as
# git prints them: between quotes, escaped.
hostile_names() {
	mkdir $'evil\e]0;pwned\arepo'
	cd $'evil\e]0;pwned\arepo'
	git init -q
	put $'\e[2J\e[31mEVIL/x.c' "evil" "lines"
	put $'caf\xc3\xa9/y.c' "one"
	put 'q"uote/z.c' "one"
	commit "odd directories"
	git tag $'v\xc3\xa91'
	cd ..
	"$STRATA" table $'evil\e]0;pwned\arepo' -q --tags '.*' >t.txt
	cat -v t.txt
	if LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <t.txt); then
		echo "a control character reached the terminal"; return 1
	fi
	grep -q '^"evil\\033\]0;pwned\\arepo" at HEAD ' t.txt
	grep -q '^"\\033\[2J\\033\[31mEVIL" ' t.txt
	grep -q '^"caf\\303\\251" ' t.txt
	grep -q '^"q\\"uote" ' t.txt
	grep -q '^"v\\303\\2511" ' t.txt
	# With core.quotePath false, bytes from 0x80 go as they are, and
	# the columns count characters, not bytes.
	git -C $'evil\e]0;pwned\arepo' config core.quotePath false
	"$STRATA" table $'evil\e]0;pwned\arepo' -q --tags '.*' >t.txt
	grep -q $'^caf\xc3\xa9 ' t.txt
	grep -q '^"\\033\[2J\\033\[31mEVIL" ' t.txt
	[ "$(grep -c $'^caf\xc3\xa9 ' t.txt)" = 1 ]
	local w1 w2
	w1=$(grep $'^caf\xc3\xa9 ' t.txt | perl -CSD -ne 'print index($_, "1")')
	w2=$(grep '^"q' t.txt | perl -CSD -ne 'print index($_, "1")')
	[ "$w1" = "$w2" ] || { echo "columns: $w1 and $w2"; return 1; }
}

singular() {
	repo_new r
	commit_file only.c "one" "the line"
	git tag v1
	cd ..
	"$STRATA" table r -q --exclude nothing >t.txt
	cat t.txt
	grep -q '): 1 line in 1 text file$' t.txt
	grep -qx 'files untouched since v1: 1 of 1 (1 line)' t.txt
	grep -qx 'left out by --include/--exclude: 0 text files (0 lines)' t.txt
	(cd r && commit_file other.c "two" "x" && git tag v2)
	"$STRATA" table r -q --exclude other.c >t.txt
	grep -qx 'left out by --include/--exclude: 1 text file (1 line)' t.txt
}

# Long names widen their column; every row of a table is as long as its
# header, so the columns line up.
aligned() {
	repo_new r
	commit_file a.c "one" a
	git tag v1
	mkdir -p a-directory-with-a-rather-long-name/and-below
	commit_file a-directory-with-a-rather-long-name/and-below/b.c "two" b c
	git tag a-release-name-longer-than-twenty-characters
	commit_file c.c "three" $(lines c 1 123456)
	git tag 3
	cd ..
	"$STRATA" table r -q --tags '.*' --depth 2 >t.txt
	cat t.txt
	awk '/^release /{on=1} on && NF == 0 {exit} on {print length($0)}' \
		t.txt | sort -u >widths
	[ "$(wc -l <widths)" = 1 ] || { cat widths; return 1; }
	awk '/^directory /{on=1} on && NF == 0 {exit} on {print length($0)}' \
		t.txt | sort -u >widths
	[ "$(wc -l <widths)" = 1 ] || { cat widths; return 1; }
	grep -Eq '^a-release-name-longer-than-twenty-characters  [0-9-]{10} +2 ' t.txt
	grep -Eq '^3 +[0-9-]{10} +123456 ' t.txt
}

# --depth N lists directories down to N levels, each under its parent
# ("a-b" sorts between "a" and "a/b" by bytes, not in the tree).
depth_levels() {
	repo_new r
	put z.c z
	put a/x.c x
	put a/b/c.c c
	put a/b/d/e/f.c f
	put a-b/y.c y
	commit "tree"
	git tag v1
	commit_file a/b/c.c "later" c d
	cd ..
	"$STRATA" table r -q >t1.txt
	"$STRATA" table r -q --depth 3 >t3.txt
	cat t3.txt
	awk '/^(subsystem|directory) /{on=1; next} on && /^\(all\)/ {exit} on {print}' \
		t1.txt | sed 's/  .*//' >rows1
	printf '%s\n' . a a-b >want1
	diff want1 rows1
	awk '/^(subsystem|directory) /{on=1; next} on && /^\(all\)/ {exit} on {print}' \
		t3.txt | sed -E 's/^( *[^ ]+) .*/\1/' >rows3
	printf '%s\n' . a '  a/b' '    a/b/d' a-b >want3
	diff want3 rows3
	grep -Eq '^  a/b +3 +66\.67%$' t3.txt
	grep -Eq '^    a/b/d +1 +100\.00%$' t3.txt
	grep -q '^directory ' t3.txt
	grep -q '^subsystem ' t1.txt
}

# The columns each line of FILE takes in a terminal: wide characters two,
# combining marks none.
display_widths() {
	python3 -c '
import sys, unicodedata
for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
    line = line.rstrip("\n")
    print(sum(0 if unicodedata.combining(c) else
              2 if unicodedata.east_asian_width(c) in "WF" else 1
              for c in line))' "$1"
}

# Authors and organisations as git shortlog shows them: valid UTF-8 as it
# is ("Nguyễn", not "Nguy\341\273\205n"), whatever core.quotePath says
# (it is about paths); a control character or a byte that is not UTF-8
# quoted as git quotes, so that no name drives the terminal; every row
# as wide as the header on the screen.
utf8_names() {
	repo_new r
	local i=0 name
	for name in 'Nguyễn Văn An' '山田太郎' $'Jose\xcc\x81 Mari\xcc\x81a' \
		$'Evil\e[31m Red' $'C1\xc2\x9bcsi'; do
		i=$((i + 1))
		put a.c $(lines l 1 $i)
		GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL="a$i@es.example" \
			commit "change $i"
	done
	# A name that is not UTF-8: git commit would re-encode it.
	put a.c $(lines l 1 7)
	git add a.c
	local tree parent c
	tree=$(git write-tree)
	parent=$(git rev-parse HEAD)
	c=$(printf 'tree %s\nparent %s\nauthor Bad\377Byte <b@x.example> 1300000000 +0000\ncommitter C <c@x.example> 1300000000 +0000\n\nraw\n' \
		"$tree" "$parent" | git hash-object -t commit -w --stdin)
	git update-ref HEAD "$c"
	cd ..
	"$STRATA" table r -q --by author >t.txt
	cat -v t.txt
	if LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <t.txt); then
		echo "a control character reached the terminal"; return 1
	fi
	grep -q $'^\xc2\x9b' t.txt && { echo "C1 control printed"; return 1; }
	grep -q '^Nguyễn Văn An  ' t.txt
	grep -q '^山田太郎  ' t.txt
	grep -q $'^Jose\xcc\x81 Mari\xcc\x81a  ' t.txt
	grep -q '^"Evil\\033\[31m Red"  ' t.txt
	grep -q '^"C1\\302\\233csi"  ' t.txt
	grep -q '^"Bad\\377Byte"  ' t.txt
	awk '/^author /{on=1} on' t.txt >rows
	display_widths rows | sort -u >widths
	[ "$(wc -l <widths)" = 1 ] || { cat widths; return 1; }
	# Organisations alike.
	printf 'es.example Société Générale 株式会社\n' >map
	"$STRATA" table r -q --by org --org-map map >o.txt
	cat o.txt
	grep -q '^Société Générale 株式会社  ' o.txt
	awk '/^organisation /{on=1} on' o.txt >rows
	display_widths rows | sort -u >widths
	[ "$(wc -l <widths)" = 1 ] || { cat widths; return 1; }
}

# A release that wrote nothing at REV (a maintenance tag on another
# branch: no commit of REV's history, no line) leaves the table, and a
# line under it says how many and why; releases.csv keeps it.
empty_releases() {
	repo_new r
	commit_file a.c "one" a b
	git tag v1.0
	git checkout -q -b maint
	tick
	commit_file a.c "fix" a c
	git tag v1.0.1
	git checkout -q -
	tick
	commit_file b.c "two" x
	git tag v2.0
	git tag v2.0-again
	cd ..
	"$STRATA" table r -q --tags '.*' >t.txt
	cat t.txt
	grep -q '^v1\.0 ' t.txt
	grep -q '^v2\.0 ' t.txt
	if grep -q '^v1\.0\.1 ' t.txt; then
		echo "a release that wrote nothing is in the table"; return 1
	fi
	grep -qx '1 release on other branches shipped no commit of HEAD (left out; see releases.csv)' t.txt
	grep -qx '1 release on the history of HEAD holds no commit of its own (left out; see releases.csv)' t.txt
	SOURCE_DATE_EPOCH=0 "$STRATA" report r -q --tags '.*' --out rep
	grep -q '^v1\.0\.1,' rep/data/releases.csv
}

# --by author gives git-fame's columns: lines, share of lines, commits,
# share of commits, files and share of the text files at REV; every bot
# is one row, "(bots)". --by org gives the share of commits too.
author_columns() {
	repo_new r
	GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@a.example \
		commit_file a.c "one" a1 a2 a3
	GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@a.example \
		commit_file b.c "two" b1
	GIT_AUTHOR_NAME=Bob GIT_AUTHOR_EMAIL=bob@b.example \
		commit_file c.c "three" c1 c2 c3 c4
	GIT_AUTHOR_NAME=Bob GIT_AUTHOR_EMAIL=bob@b.example \
		commit_file a.c "four" a1 a2 a3 x
	GIT_AUTHOR_NAME='dependabot[bot]' \
		GIT_AUTHOR_EMAIL='49699333+dependabot[bot]@users.noreply.github.com' \
		commit_file b.c "bump" b1 y
	GIT_AUTHOR_NAME='renovate[bot]' \
		GIT_AUTHOR_EMAIL='29139614+renovate[bot]@users.noreply.github.com' \
		commit_file d.c "bump" z
	git tag v1
	cd ..
	"$STRATA" table r -q --by author >t.txt
	cat t.txt
	grep -Eq '^author +lines +% lines +commits +% commits +files +% files$' t.txt
	# 11 lines, 6 commits, 4 files
	grep -Eq '^Ann +4 +36\.36% +2 +33\.33% +2 +50\.00%$' t.txt
	grep -Eq '^Bob +5 +45\.45% +2 +33\.33% +2 +50\.00%$' t.txt
	grep -Eq '^\(bots\) +2 +18\.18% +2 +33\.33% +2 +50\.00%$' t.txt
	[ "$(grep -c bot t.txt)" = 1 ]
	"$STRATA" table r -q --by org >o.txt
	cat o.txt
	grep -Eq '^organisation +lines +% lines +commits +% commits$' o.txt
	grep -Eq '^a\.example +4 +36\.36% +2 +33\.33%$' o.txt
}

# The history matrix never folds the newest release into an older one's
# column: with more releases than columns the older ones fold, the
# newest keeps its own; releases that wrote nothing at REV get none.
history_columns() {
	repo_new r
	local i
	for i in $(seq 1 20); do
		commit_file f$i.c "r$i" x$i
		git tag v$i
		[ $i != 2 ] && continue
		# Maintenance releases of v2 on a branch never merged.
		git checkout -q -b maint
		for i in 1 2 3 4 5 6 7 8 9; do
			commit_file m$i.c "m$i" m
			git tag v2.0.$i
		done
		git checkout -q -
		i=2
	done
	commit_file f21.c "r21" $(lines y 1 9)
	git tag v21
	cd ..
	"$STRATA" table r -q --history releases >t.txt
	cat t.txt
	grep -Eq '^snapshot .* v21$' t.txt
	grep -q 'is that release and those after it' t.txt
	# v21 wrote 9 of the 29 lines at HEAD: 31.0%, in its own column.
	grep -Eq '^v21 .* 31\.0$' t.txt
	# The maintenance releases wrote nothing at HEAD: no column, and
	# the others need no folding.
	"$STRATA" table r -q --history releases --tags 'v(1|2|21|2\.0\..*)' >t.txt
	cat t.txt
	grep -qx '9 releases on other branches shipped no commit of HEAD (left out; see releases.csv)' t.txt
	grep -Eq '^snapshot +date +lines +v1 +v2 +v21$' t.txt
	! grep -q 'is that release and those after it' t.txt
}

# The author and organisation tables stay readable: 25 rows, then one
# line sums the others; authors.csv lists every one.
author_rows() {
	repo_new r
	local i
	for i in $(seq 1 27); do
		GIT_AUTHOR_NAME="Author $i" GIT_AUTHOR_EMAIL="a$i@o$i.example" \
			commit_file f$i.c "c$i" $(lines l 1 $((100 - i)))
	done
	git tag v1
	cd ..
	"$STRATA" table r -q --by author >t.txt
	cat t.txt
	[ "$(grep -c '^Author ' t.txt)" = 25 ]
	grep -q '^Author 25 ' t.txt
	! grep -q '^Author 26 ' t.txt
	# 74 + 73 of 2322 lines, 2 of 27 commits
	grep -qx '2 more authors: 147 lines (6.33%), 2 commits (7.41%); strata report lists every one in authors.csv' t.txt
	"$STRATA" table r -q --by org >o.txt
	grep -qx '2 more organisations: 147 lines (6.33%), 2 commits (7.41%); strata report lists every one in orgs.csv' o.txt
	"$STRATA" table r -q --by year >y.txt
	! grep -q 'more' y.txt
}

run_case standing_dates standing_dates
run_case hostile_names hostile_names
run_case singular singular
run_case aligned aligned
run_case depth_levels depth_levels
run_case utf8_names utf8_names
run_case empty_releases empty_releases
run_case author_columns author_columns
run_case history_columns history_columns
run_case author_rows author_rows
finish
