#!/bin/bash
# The cohorts on the site: authors.html's tables (authors, organisations,
# the top authors of each subsystem) against git blame and git shortlog
# on a repository built here; the years on the index; no email address
# anywhere; names escaped; --no-authors leaves out every view of people;
# report.json records the cohort options; every link resolves.
. "$(dirname "$0")/lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)

# as NAME EMAIL: the author of the next commits.
as() {
	export GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2
}

# Five authors (one under two addresses that .mailmap joins, one with
# an ampersand and quotes in the name: git drops <, > and some ends) over three subsystems and the root, 2015 to 2019.
# shellcheck disable=SC2046
people_repo() {
	repo_new r
	at 1420200000 # 2015-01-02
	as 'Ann Lee' ann@ann-mail.test
	put README $(lines readme 1 12)
	put lib/a.c $(lines a 1 40)
	commit "ann"
	at 1483400000 # 2017-01-03
	as 'Zoë Ångström' zoe@zoe-mail.test
	put lib/a.c $(lines a 1 10) $(lines z 1 25)
	put src/m.c $(lines m 1 18)
	commit "zoe"
	as "Eve & \"Co\" 'x' Ltd" eve@eve-mail.test
	put src/e.c $(lines e 1 9)
	put doc/e.txt $(lines doc 1 5)
	commit "eve"
	at 1546500000 # 2019-01-03
	as 'ann' ANN@other-ann.test
	put src/m.c $(lines m 1 4) $(lines n 1 6)
	commit "ann again"
	as 'Bo Ek' bo@bo-mail.test
	put doc/f.txt $(lines f 1 3)
	put lib/b.c $(lines b 1 7)
	commit "bo"
	printf 'Ann Lee <ann@ann-mail.test> ann <ANN@other-ann.test>\n' \
		>.mailmap
	commit "mailmap"
	cd ..
}

# The rows of the tables of authors.html, one per line:
# "TABLE<TAB>NAME<TAB>CELL<TAB>CELL...", names unescaped; TABLE is
# "authors", "organisations" or the subsystem's page.
html_rows() {
	python3 - "$1" <<'EOF'
import html, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for sec in re.finditer(r'<section id="([a-z]+)">(.*?)</section>', page, re.S):
    for table in re.finditer(r'<table[^>]*>(.*?)</table>', sec.group(2),
                             re.S):
        body = table.group(1)
        name = sec.group(1)
        m = re.search(r'<caption><a href="([^"]*)">', body)
        if sec.group(1) == "subsystems" and m:
            name = m.group(1)
        tbody = re.search(r'<tbody>(.*?)</tbody>', body, re.S).group(1)
        for row in re.finditer(r'<tr>(.*?)</tr>', tbody, re.S):
            cells = re.findall(r'<t[hd][^>]*>(.*?)</t[hd]>', row.group(1))
            print("\t".join([name] + [html.unescape(c) for c in cells]))
EOF
}

# pct PART WHOLE: a share as the pages give it, 2 decimals rounded half up.
pct() {
	awk -v p="$1" -v w="$2" 'BEGIN {
		v = int((p * 10000 * 2 + w) / (2 * w))
		printf "%d.%02d%%\n", int(v / 100), v % 100 }'
}

# blame.tsv: "FILE<TAB>AUTHOR<TAB>YEAR" per line of every file at HEAD,
# the author after .mailmap (%aN), the year of the committer date.
blame_lines() {
	git -C r ls-files | while IFS= read -r f; do
		[ -s "r/$f" ] || continue
		git -C r blame --line-porcelain HEAD -- "$f" |
			awk -v f="$f" -F'\t' '
			/^[0-9a-f]+ [0-9]+ [0-9]+/ {split($0, w, " "); c = w[1]}
			/^\t/ {print f "\t" c}'
	done >blame.commits
	TZ=UTC git -C r log --format='%H%x09%aN%x09%cd' \
		--date=format-local:%Y >commits.tsv
	awk -F'\t' 'NR == FNR {a[$1] = $2; y[$1] = $3; next}
		{print $1 "\t" a[$2] "\t" y[$2]}' commits.tsv blame.commits \
		>blame.tsv
}

authors_match_git() {
	local total name lines files commits top share
	people_repo
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report r -q --out out
	[ -f out/authors.html ]
	blame_lines
	total=$(wc -l <blame.tsv)
	git -C r shortlog -s HEAD >shortlog.txt
	[ "$(wc -l <shortlog.txt)" = 4 ]
	while IFS=$'\t' read -r commits name; do
		commits=${commits// /}
		lines=$(awk -F'\t' -v a="$name" '$2 == a' blame.tsv | wc -l)
		files=$(awk -F'\t' -v a="$name" '$2 == a {print $1}' blame.tsv |
			sort -u | wc -l)
		printf 'authors\t%s\t%s\t%s\t%s\t%s\n' "$name" "$lines" \
			"$(pct "$lines" "$total")" "$commits" "$files"
	done <shortlog.txt | sort >want.rows
	html_rows out/authors.html | grep '^authors' | sort >got.rows
	diff want.rows got.rows
	# most lines first
	html_rows out/authors.html | grep '^authors' | cut -f3 >order
	sort -rn order | cmp - order
	# the headline: the first author's share, one decimal
	top=$(html_rows out/authors.html | grep '^authors' | head -1)
	share=$(awk -v p="$(cut -f3 <<<"$top")" -v w="$total" 'BEGIN {
		v = int((p * 1000 * 2 + w) / (2 * w))
		printf "%d.%d%%\n", int(v / 10), v % 10 }')
	grep -qF "$(cut -f2 <<<"$top") wrote the most of the code at HEAD: <strong>$share</strong>." \
		out/authors.html
	grep -q '<caption>All 4 authors by lines at HEAD.' out/authors.html
}

# Each subsystem's table: its authors by their lines in it, from blame,
# on authors.html and on the subsystem's own page, with its median year.
subsystems_match_git() {
	local sub page y
	people_repo
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report r -q --out out
	blame_lines
	for sub in doc lib src; do
		awk -F'\t' -v s="$sub/" 'index($1, s) == 1 {print $2}' \
			blame.tsv | sort | uniq -c |
			awk -v s="$sub.html" -v t="$(grep -c "^$sub/" blame.tsv)" '
			{n = $1; sub(/^ *[0-9]+ /, "")
			 v = int((n * 10000 * 2 + t) / (2 * t))
			 printf "%s\t%s\t%d\t%d.%02d%%\n", s, $0, n, v / 100, v % 100}' |
			sort -t$'\t' -k3,3nr -k2,2 >"want.$sub"
		html_rows out/authors.html | grep "^$sub.html"$'\t' >"got.$sub"
		diff "want.$sub" "got.$sub"
		# the subsystem's own page: the same table, and its median year
		html_rows "out/$sub.html" | grep $'^cohorts\t' | cut -f2- >"page.$sub"
		cut -f2- "want.$sub" | diff - "page.$sub"
		y=$(awk -F'\t' -v s="$sub/" 'index($1, s) == 1 {print $3}' \
			blame.tsv | sort -n | awk -v t="$(grep -c "^$sub/" blame.tsv)" \
			'NR * 2 >= t {print; exit}')
		has "out/$sub.html" \
			"Half of all its lines were last changed in $y or earlier (the median year)." \
			'<a href="authors.html#subsystems">All subsystems</a>' \
			'<a href="data/years-subsystems.csv">'
	done
	# the root files are a subsystem too, linked to their page
	grep -q '<caption><a href="root.html">(root files)</a>: 13 lines by 2 authors</caption>' \
		out/authors.html
}

years_on_index() {
	local total y n
	people_repo
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report r -q --out out
	blame_lines
	total=$(wc -l <blame.tsv)
	grep -q '<section id="years">' out/index.html
	for y in 2015 2017 2019; do
		n=$(awk -F'\t' -v y=$y '$3 == y' blame.tsv | wc -l)
		c=$(TZ=UTC git -C r log --format=%cd --date=format-local:%Y |
			grep -c "^$y$")
		has out/index.html "<tr><th scope=\"row\">$y</th><td class=\"num opt\">$c</td><td class=\"num\">$n</td><td class=\"num\">$(pct "$n" "$total")</td></tr>"
	done
	# No line older than 2015 (REV's year 2019, less four); the median
	# line's year.
	n=$(awk -F'\t' '$3 < 2015' blame.tsv | wc -l)
	[ "$n" = 0 ]
	! grep -q 'last changed before' out/index.html
	y=$(cut -f3 blame.tsv | sort -n | awk -v t="$total" \
		'NR * 2 >= t {print; exit}')
	has out/index.html \
		"Half of all lines at HEAD were last changed in $y or earlier (the median year)." \
		'<img src="img/years.png"' '<a href="data/years.csv">' \
		'<a href="authors.html">authors and organisations</a>'
	for f in years.svg years.png years@2x.png years@narrow.svg \
		authors.png orgs.png; do
		[ -s "out/img/$f" ]
	done
}

# has FILE TEXT...: FILE contains every TEXT, as fixed strings.
has() {
	local f=$1 s
	shift
	for s in "$@"; do
		grep -qF -- "$s" "$f" || { echo "'$f' lacks: $s"; return 1; }
	done
}

no_emails_names_escaped() {
	people_repo
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report r -q --out out
	! grep -rIlF -e '@ann-mail' -e '@zoe-mail' -e '@eve-mail' \
		-e '@other-ann' -e '@bo-mail' -e 'ann@' -e 'ANN@' out
	has out/authors.html \
		'<th scope="row">Eve &amp; &quot;Co&quot; &#39;x&#39; Ltd</th>' \
		'<th scope="row">Zoë Ångström</th>'
	! grep -q 'Eve & ' out/authors.html
	# organisations are the domains, as git log gives the emails
	git -C r log --format=%ae | sed 's/.*@//' | tr A-Z a-z | sort -u \
		>want.orgs
	html_rows out/authors.html | awk -F'\t' '$1 == "organisations" {print $2}' |
		sort >got.orgs
	diff want.orgs got.orgs
}

every_page_links_authors() {
	local p
	people_repo
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report r -q --out out
	for p in out/*.html; do
		grep -q '<li><a href="authors.html"' "$p" ||
			{ echo "no link to authors.html on $p"; return 1; }
	done
	grep -q '<li><a href="authors.html" aria-current="page">Authors</a></li>' \
		out/authors.html
	python3 "$TESTS/linkcheck.py" out
	grep -q '"authors": true' out/data/report.json
	grep -q '"date": "committer"' out/data/report.json
	grep -q '"org_map": null' out/data/report.json
	# the same bytes again
	SOURCE_DATE_EPOCH=1700000000 "$STRATA" report r -q --out out2
	diff -r out out2 | grep -v '^Only in\|^Common subdirectories' &&
		return 1
	cmp out/authors.html out2/authors.html
	cmp out/img/authors.svg out2/img/authors.svg
	cmp out/img/years@2x.png out2/img/years@2x.png
}

no_authors_no_people() {
	people_repo
	"$STRATA" report r -q --out out --no-authors
	[ ! -e out/authors.html ]
	[ ! -e out/data/authors.csv ] && [ ! -e out/data/orgs.csv ]
	! ls out/img | grep -e '^authors' -e '^orgs'
	! grep -rIl -e 'authors\.html' -e 'Ann Lee' -e 'ann-mail' out
	# a subsystem's page keeps its years
	grep -q 'Half of all its lines were last changed in 2017 or earlier (the median year).' out/lib.html
	[ -s out/img/years.png ]
	grep -q '<section id="years">' out/index.html
	grep -q '"authors": false' out/data/report.json
	python3 "$TESTS/linkcheck.py" out
}

options_in_report_json() {
	people_repo
	printf 'ann-mail.test Ann Corp\n' >orgs.map
	"$STRATA" report r -q --out out --date author --org-map orgs.map
	grep -q '"date": "author"' out/data/report.json
	grep -q '"org_map": "orgs.map"' out/data/report.json
	grep -q '<th scope="row">Ann Corp</th>' out/authors.html
	grep -q 'what <code>orgs.map</code> maps their email address to' \
		out/authors.html
}

run_case authors_match_git authors_match_git
run_case subsystems_match_git subsystems_match_git
run_case years_on_index years_on_index
run_case no_emails_names_escaped no_emails_names_escaped
run_case every_page_links_authors every_page_links_authors
run_case no_authors_no_people no_authors_no_people
run_case options_in_report_json options_in_report_json
finish
