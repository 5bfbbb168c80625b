#!/bin/bash
# Years, authors and organisations, compared with git: lines per year and
# per author from `git blame --line-porcelain` over every text file,
# commits per year from `git log`, commits per author from `git shortlog
# -s` (after .mailmap), in data/*.csv and `strata table --by`.
. "$(dirname "$0")/lib.sh"

# as NAME EMAIL: the author of the next commits.
as() {
	export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2
}

# A commit whose author has an empty name (git commit refuses one).
commit_empty_name() {
	git add -A
	tick
	local tree parent c
	tree=$(git write-tree)
	parent=$(git rev-parse HEAD)
	c=$(printf 'tree %s\nparent %s\nauthor  <nobody@example.org> %s +0000\ncommitter C <c@example.org> %s +0000\n\n%s\n' \
		"$tree" "$parent" "$_clock" "$_clock" "$1" |
		git hash-object -t commit -w --stdin)
	git update-ref HEAD "$c"
}

# Authors over four years: a non-ASCII name, two names differing only by
# case, emails in several cases, a commit without a name, and author dates
# a year before their commit dates.
people_repo() {
	repo_new r
	at 1514800000 # 2018-01-01
	as 'Zoë Ångström' zoe@Example.COM
	commit_file a.c "a" $(lines a 1 30)
	commit_file lib/x.c "x" $(lines x 1 20)
	at 1546400000 # 2019-01-02
	as alice alice@old.example.org
	commit_file a.c "a2" $(lines a 1 10) $(lines b 1 15)
	as Alice alice@corp.example.net
	commit_file lib/y.c "y" $(lines y 1 12)
	export GIT_AUTHOR_DATE="@1546400000 +0000"
	at 1580000000 # 2020-01-26, authored in 2019
	export GIT_AUTHOR_DATE="@1546500000 +0000"
	as Bob BOB@corp.example.net
	commit_file lib/x.c "x2" $(lines x 1 5) $(lines c 1 9)
	at 1612000000 # 2021-01-30
	as bob bob@corp.example.net
	commit_file doc/d.txt "d" $(lines d 1 7)
	put doc/e.txt $(lines e 1 4)
	commit_empty_name "nameless"
	git tag v1.0
	cd ..
}

# The mailmap: an entry by email only (in another case), one by name and
# email, and one that renames by email only.
people_mailmap() {
	cat >r/.mailmap <<'EOF'
Alice Liddell <alice@corp.example.net>
Alice Liddell <alice@corp.example.net> alice <ALICE@old.example.org>
<bob@corp.example.net> <Bob@Corp.Example.Net>
Zoë Ångström-Berg <zoe@example.com>
EOF
	git -C r add .mailmap
	(cd r && commit "mailmap")
	git -C r tag -f v1.0 >/dev/null
}

# lines_by FIELD REPO: "COUNT KEY" per key, KEY from the commit of each
# line of every text file at HEAD (FIELD: a git log format).
lines_by() {
	local field=$1 repo=$2
	git -C "$repo" log --format="%H $field" >commits.map
	git -C "$repo" ls-files -z | while IFS= read -r -d '' f; do
		[ -s "$repo/$f" ] || continue
		git -C "$repo" blame --line-porcelain HEAD -- "$f" |
			grep -E '^[0-9a-f]{40} ' | cut -d' ' -f1
	done >line.commits
	awk 'NR == FNR {k = $1; sub(/^[^ ]+ /, ""); m[k] = $0; next}
	     {n[m[$1]]++} END {for (k in n) print n[k] " " k}' \
		commits.map line.commits | sort
}

# csv_cols FILE COLS: the columns COLS (awk fields, e.g. "$2, $1") of a
# simple CSV (no quoted commas), without the header.
csv_cols() {
	tr -d '\r' <"$1" | awk -F, "NR > 1 {print $2}" | sort
}

# years_lines DATE: lines per year of DATE (%cd, %ad) from git blame and
# git log in want.lines, compared with rep/data/years.csv.
years_lines() {
	lines_by "$1" r >/dev/null
	TZ=UTC git -C r log --format="%H $1" --date=format-local:%Y \
		>commits.map
	awk 'NR == FNR {m[$1] = $2; next} {n[m[$1]]++}
	     END {for (k in n) print n[k] " " k}' commits.map line.commits |
		sort >want.lines
	csv_cols rep/data/years.csv '$2 " " $1' >got.lines
	diff want.lines got.lines
}

years_match_git() {
	people_repo
	"$STRATA" report r -q --out rep
	years_lines %cd
	TZ=UTC git -C r log --format=%cd --date=format-local:%Y | sort |
		uniq -c | awk '{print $1 " " $2}' | sort >want.commits
	csv_cols rep/data/years.csv '$4 " " $1' >got.commits
	diff want.commits got.commits
	head -1 rep/data/years.csv | grep -q $'^year,lines,share,commits\r$'
	# years in order
	csv_cols rep/data/years.csv '$1' | sort -c -n
	tr -d '\r' <rep/data/years.csv | awk -F, 'NR > 1 {print $1}' |
		sort -c -n
	# the terminal shows the same rows
	"$STRATA" table r -q --by year >t.txt
	awk '/^year /{on=1; next} on && NF == 0 {exit} on {print $2 " " $1}' \
		t.txt | sort >table.lines
	diff want.lines table.lines
}

years_by_author_date() {
	people_repo
	"$STRATA" report r -q --out rep --date author
	years_lines %ad
	# 2020's commit was authored in 2019: no 2020 by author date
	! grep -q '^2020,' rep/data/years.csv
	"$STRATA" report r -q --out rep2
	grep -q '^2020,' rep2/data/years.csv
	# subsystems add up to the years
	tr -d '\r' <rep/data/years-subsystems.csv |
		awk -F, 'NR > 1 {n[$2] += $3} END {for (y in n) print n[y] " " y}' |
		sort >sub.lines
	diff want.lines sub.lines
	head -1 rep/data/years-subsystems.csv |
		grep -q $'^subsystem,year,lines\r$'
}

# authors.csv against git: lines from blame (%aN of each line's commit),
# commits from `git shortlog -s`, files from blame.
authors_match_git() {
	people_repo
	[ "${1:-}" = mailmap ] && people_mailmap
	"$STRATA" report r -q --out rep
	lines_by '%aN' r >want.lines
	tr -d '\r' <rep/data/authors.csv |
		perl -MText::ParseWords -ne 'next if $. == 1; chomp;
			my @f = parse_line(",", 0, $_); print "$f[1] $f[0]\n"' |
		sort >got.lines
	diff want.lines got.lines
	git -C r shortlog -s v1.0 | sed 's/^ *//' |
		awk -F'\t' '{print $1 " " $2}' | sort >want.commits
	tr -d '\r' <rep/data/authors.csv |
		perl -MText::ParseWords -ne 'next if $. == 1; chomp;
			my @f = parse_line(",", 0, $_);
			print "$f[3] $f[0]\n"' | sort >got.commits
	diff want.commits got.commits
	# files: text files holding at least one of the author's lines
	git -C r log --format='%H %aN' >commits.map
	git -C r ls-files -z | while IFS= read -r -d '' f; do
		git -C r blame --line-porcelain HEAD -- "$f" |
			grep -E '^[0-9a-f]{40} ' | awk -v f="$f" '{print $1 " " f}'
	done | awk 'NR == FNR {k = $1; sub(/^[^ ]+ /, ""); m[k] = $0; next}
		{if (!s[m[$1] SUBSEP $2]++) n[m[$1]]++}
		END {for (k in n) print n[k] " " k}' commits.map - |
		sort >want.files
	tr -d '\r' <rep/data/authors.csv |
		perl -MText::ParseWords -ne 'next if $. == 1; chomp;
			my @f = parse_line(",", 0, $_);
			print "$f[4] $f[0]\n" if $f[1]' | sort >got.files
	diff want.files got.files
	head -1 rep/data/authors.csv |
		grep -q $'^author,lines,share,commits,files,kind\r$'
	# sorted by lines, then name
	tr -d '\r' <rep/data/authors.csv |
		perl -MText::ParseWords -ne 'next if $. == 1; chomp;
			my @f = parse_line(",", 0, $_); print "$f[1]\t$f[0]\n"' \
		>order
	LC_ALL=C sort -t$'\t' -k1,1nr -k2,2 -c order
	# the terminal table, same rows
	"$STRATA" table r -q --by author >t.txt
	grep -q '^author ' t.txt
	for n in $(cut -d' ' -f1 want.lines); do
		grep -Eq " $n +[0-9.]+% " t.txt
	done
}

# The names the edge cases give, as git gives them.
authors_edge_names() {
	people_repo
	people_mailmap
	"$STRATA" report r -q --out rep
	tr -d '\r' <rep/data/authors.csv | cut -d, -f1 | sort >names
	cat names
	grep -qx 'Zoë Ångström-Berg' names
	grep -qx 'Alice Liddell' names
	grep -qx 'Bob' names
	grep -qx 'bob' names
	grep -qx '' names
	! grep -qx 'alice' names
	# emails never reach the pages or the charts
	! grep -rIil -e 'zoe@' -e 'alice@' -e 'bob@' -e 'nobody@' rep
}

# The mailmap is REV's: a .mailmap added after REV, or only in the work
# tree, does not count; mailmap.file does, as for git.
mailmap_at_rev() {
	people_repo
	cat >r/.mailmap <<'EOF'
Robert <bob@corp.example.net>
EOF
	"$STRATA" table r -q --by author >t.txt
	grep -q '^bob ' t.txt
	! grep -q '^Robert ' t.txt
	cp r/.mailmap mm
	git -C r config mailmap.file "$PWD/mm"
	rm r/.mailmap
	"$STRATA" table r -q --by author >t2.txt
	git -C r shortlog -s HEAD | sed 's/^ *[0-9]*\t//' | sort >want
	grep -q '^Robert' want
	grep -q '^Robert ' t2.txt
	! grep -q '^bob ' t2.txt
}

orgs_default_domain() {
	people_repo
	"$STRATA" report r -q --out rep
	git -C r log --format='%ae' | sed 's/.*@//' | tr A-Z a-z | sort |
		uniq -c | awk '{print $1 " " $2}' | sort >want.commits
	csv_cols rep/data/orgs.csv '$4 " " $1' >got.commits
	diff want.commits got.commits
	head -1 rep/data/orgs.csv |
		grep -q $'^organisation,lines,share,commits\r$'
	"$STRATA" table r -q --by org >t.txt
	grep -q '^example.com ' t.txt
}

# gitdm's map: the address beats its domain, a domain its parent, and an
# affiliation ends at its date.
orgs_map() {
	people_repo
	cat >map <<'EOF'
# gitdm-style
example.org        Old Org
old.example.org    Old Subsidiary   # more specific
bob@corp.example.net  Bob Consulting < 2020-06-01
corp.example.net   Corp Inc
example.com	Zed GmbH
EOF
	"$STRATA" report r -q --out rep --org-map map
	git -C r log --format='%ae %at' | while read -r e t; do
		e=$(printf '%s' "$e" | tr A-Z a-z)
		case $e in
		alice@old.example.org) echo "Old Subsidiary" ;;
		bob@corp.example.net)
			if [ "$t" -lt 1590969600 ]; then echo "Bob Consulting"
			else echo "Corp Inc"; fi ;;
		*@corp.example.net) echo "Corp Inc" ;;
		*@example.com) echo "Zed GmbH" ;;
		*@example.org) echo "Old Org" ;;
		*) echo "?" ;;
		esac
	done | sort | uniq -c | awk '{n = $1; sub(/^ *[0-9]+ /, ""); print n " " $0}' |
		sort >want.commits
	tr -d '\r' <rep/data/orgs.csv | awk -F, 'NR > 1 {print $4 " " $1}' |
		sort >got.commits
	diff want.commits got.commits
}

bad_map_lines() {
	people_repo
	printf 'example.com Example\n\nlonely\n' >map1
	expect 1 "'map1' line 3: expected 'ADDRESS-OR-DOMAIN ORGANISATION'" \
		"$STRATA" report r -q --out rep --org-map map1
	[ ! -e rep ]
	printf '# ok\nexample.com Example < 2020-13-01\n' >map2
	expect 1 "'map2' line 2: expected a date YYYY-MM-DD after '<', not '2020-13-01'" \
		"$STRATA" table r -q --by org --org-map map2
	printf 'example.com  < 2020-01-01\n' >map3
	expect 1 "'map3' line 1: no organisation for 'example.com'" \
		"$STRATA" table r -q --org-map map3
	expect 1 "unable to open 'nope'" \
		"$STRATA" table r -q --org-map nope
	expect 2 "invalid value 'day' for '--date'" \
		"$STRATA" table r -q --date day
	expect 2 "invalid value 'who' for '--by'" \
		"$STRATA" table r -q --by who
	expect 2 "option '--no-authors' does not apply to 'strata table'" \
		"$STRATA" table r -q --no-authors
}

no_authors() {
	people_repo
	"$STRATA" report r -q --out rep --no-authors
	[ -e rep/data/years.csv ]
	[ ! -e rep/data/authors.csv ] && [ ! -e rep/data/orgs.csv ]
	! ls rep/img | grep -q -e '^authors' -e '^orgs'
	[ ! -e rep/authors.html ]
	! grep -rIl -e 'Zo' -e 'authors\.html' rep
}

run_case years_match_git years_match_git
run_case years_by_author_date years_by_author_date
run_case authors_match_git authors_match_git
run_case authors_mailmap_match_git authors_match_git mailmap
run_case authors_edge_names authors_edge_names
run_case mailmap_at_rev mailmap_at_rev
# Free mail and the forges' no-reply addresses tell no employer: their
# organisation is "(Unknown)", as gitdm files them. Bots ([bot] names, a
# [bot] address, known bot addresses) keep their rows in authors.csv,
# kind "bot", and are one "(bots)" in the table and the organisations,
# unless a map names them.
bots_and_free_mail() {
	repo_new r
	at 1514800000
	as Alice alice@GMail.com
	commit_file a.c "a" $(lines a 1 30)
	as Carol 123+carol@users.noreply.github.com
	commit_file c.c "c" $(lines c 1 20)
	as 'dependabot[bot]' '49699333+dependabot[bot]@users.noreply.github.com'
	commit_file d.txt "d" $(lines d 1 7)
	as 'Renovate Bot' bot@renovateapp.com
	commit_file e.txt "e" $(lines e 1 4)
	as Dave dave@corp.example.com
	commit_file f.c "f" $(lines f 1 10)
	as Eve eve@laptop.'(none)'
	commit_file g.c "g" $(lines g 1 3)
	cd ..
	"$STRATA" report r -q --out rep
	tr -d '\r' <rep/data/authors.csv | sort >authors
	cat >want <<'EOF'
Alice,30,40.54,1,1,person
Carol,20,27.03,1,1,person
Dave,10,13.51,1,1,person
Eve,3,4.05,1,1,person
Renovate Bot,4,5.41,1,1,bot
author,lines,share,commits,files,kind
dependabot[bot],7,9.46,1,1,bot
EOF
	diff want authors
	csv_cols rep/data/orgs.csv '$1 " " $2 " " $4' >orgs
	printf '%s\n' '(Unknown) 53 3' '(bots) 11 2' \
		'corp.example.com 10 1' | sort >want
	diff want orgs
	"$STRATA" table r -q --by author >t.txt
	grep -Eq '^\(bots\) +11 ' t.txt
	! grep -q 'dependabot' t.txt
	# A map names anything, bots and free mail too.
	printf '%s\n' 'gmail.com Alice Inc' 'renovateapp.com Mend' >map
	"$STRATA" report r -q --out rep2 --org-map map
	csv_cols rep2/data/orgs.csv '$1' >orgs
	printf '%s\n' '(Unknown)' '(bots)' 'Alice Inc' 'Mend' \
		corp.example.com | sort >want
	diff want orgs
}

run_case orgs_default_domain orgs_default_domain
run_case orgs_map orgs_map
run_case bad_map_lines bad_map_lines
run_case no_authors no_authors
run_case bots_and_free_mail bots_and_free_mail
finish
