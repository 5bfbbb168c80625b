#!/bin/bash
# The manual describes the present: no diary in README.md or docs/ (the
# word "session", dates and clock times in prose), and docs/README.md's
# table lists exactly the pages of docs/. tests/docs-check.py does the
# checking; the cases below also show that each of its rules fires, and
# that dates in examples do not. DOCS_ROOT checks another tree.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
root=${DOCS_ROOT:-$here/..}
check() { python3 "$here/docs-check.py" "$@"; }

# A copy of the tree's README.md and docs/ to spoil.
copy_docs() {
	mkdir -p t
	cp "$root/README.md" t/
	cp -r "$root/docs" t/
}

# spoiled FILE LINE PATTERN: with LINE appended to FILE, the check fails
# and says PATTERN (an extended regex) about FILE.
spoiled() {
	local file=$1 line=$2 pat=$3 rc=0
	rm -rf t
	copy_docs
	printf '\n%s\n' "$line" >> "t/$file"
	check t > out || rc=$?
	if [ $rc != 1 ] || ! grep -Eq "^$file:[0-9]+: $pat" out; then
		echo "'$line' in $file: wanted exit 1 and '$pat', got $rc:"
		cat out
		return 1
	fi
}

# fails_with PATTERN: the check of t fails, saying PATTERN (a grep regex).
fails_with() {
	local rc=0
	check t > out || rc=$?
	if [ $rc != 1 ] || ! grep -q "$1" out; then
		echo "wanted exit 1 and '$1', got $rc:"
		cat out
		return 1
	fi
}

the_docs() {
	check "$root"
}

diary_words() {
	spoiled docs/usage.md 'The third session made it faster.' \
		"the word 'session'"
	spoiled README.md 'Across sessions it got better.' "the word 'session'"
	# Even in code: the word has no business in the manual.
	spoiled docs/data.md '    $ strata --session' "the word 'session'"
	spoiled docs/blame.md 'Measured 2026-12-03 on the new machine.' 'a date'
	spoiled docs/design.md 'As of December 2026, the walk is faster.' \
		'a month and year'
	spoiled docs/design.md 'Benched on Dec. 4, 2026.' 'a month and year'
	spoiled docs/tally.md 'Since 3 December 2026 it counts.' 'a date'
	spoiled docs/performance.md 'The benches (23:22 to 00:33) gave 30x.' \
		'a clock time'
	spoiled docs/site.md 'The seventh run, from 22:38, was faster.' \
		'a clock time'
	spoiled docs/usage.md 'Quiet between 23:22 and 00:33.' 'a clock time'
	spoiled docs/charts.md 'We tried a bigger cache.' "'we tried'"
}

# Dates that are data: code blocks, inline code, a year alone.
examples_pass() {
	copy_docs
	cat >> t/docs/data.md <<'EOF'

```
release,tag,date
v1.0,v1.0,2010-02-24T18:52:17Z
```

    v1.0                 2010-01-03         1472   53.43%
    generated at 18:52, 3 December 2010

Dates are ISO 8601 (`2010-02-24T18:52:17Z`, `2024.01.15` as a tag, or
`snapshot-20240101`); LWN asked its question in 2010, about v2.6.33.
A ratio of 4.3 to 13.2 ms, version 1.22.10 and section 10.11 are no
dates; SOURCE_DATE_EPOCH counts from 1970-01-01 00:00 UTC; a commit at
23:30 on 31 December at -05:00 is after the 2020 boundary.
EOF
	check t
}

# A man page of its own, beside the real one: its .TH date and its
# examples pass, it needs a row, and the diary rules apply to the rest.
man_page() {
	copy_docs
	cat > t/docs/fixture.1 <<'EOF'
.TH FIXTURE 1 "2026-12-04" "strata 0.1.0"
.SH EXAMPLES
.EX
strata table linux --rev v6.12   # 2024-11-17
.EE
EOF
	fails_with "no row for the page 'fixture.1'"
	printf '| [fixture.1](fixture.1) | a manual page |\n' >> t/docs/README.md
	check t
	printf 'Written in the fourth session.\n' >> t/docs/fixture.1
	fails_with "^docs/fixture.1:[0-9]*: the word 'session'"
}

index_of_pages() {
	# A page without a row.
	copy_docs
	printf '# New\n' > t/docs/new.md
	fails_with "no row for the page 'new.md'"
	# A row without a page.
	rm -rf t; copy_docs
	printf '| [gone.md](gone.md) | nothing |\n' >> t/docs/README.md
	fails_with "lists 'gone.md', which is not a page"
	# A page listed twice.
	rm -rf t; copy_docs
	printf '| [usage.md](usage.md) | again |\n' >> t/docs/README.md
	fails_with "'usage.md' listed 2 times"
	# A row taken out.
	rm -rf t; copy_docs
	grep -v '(blame.md)' t/docs/README.md > t/x && mv t/x t/docs/README.md
	fails_with "no row for the page 'blame.md'"
}

run_case the_docs the_docs
run_case diary_words diary_words
run_case examples_pass examples_pass
run_case man_page man_page
run_case index_of_pages index_of_pages
finish
