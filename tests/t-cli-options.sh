#!/bin/bash
# One behaviour for every option: each is validated before any work, the
# same way by every command, or refused by a command it does not apply
# to; filters that leave nothing fail alike; a write error is an error;
# SOURCE_DATE_EPOCH is checked; REPO may be a directory inside a work
# tree; blame's paths are quoted as git quotes them, or NUL-terminated.
. "$(dirname "$0")/lib.sh"

# lib.sh's expect, and no report written either.
expect_clean() {
	expect "$@" || return 1
	if [ -e output ] || [ -e rep ]; then
		echo "'$*' wrote a report"; return 1
	fi
}

sample() {
	repo_new r
	commit_file a.c "one" x y z
	git tag v1.0
	mkdir -p sub/deeper
	commit_file sub/deeper/b.c "two" p q
	cd ..
}

# Every command checks every value the same way, before any work (the
# repository does not even exist here), or says the option is not its.
every_option() {
	local cmd
	for cmd in blame table report; do
		expect_clean 2 "invalid glob '\[' for '--include': " \
			"$STRATA" $cmd nowhere --include '['
		expect_clean 2 "invalid glob 'a\[!' for '--exclude': " \
			"$STRATA" $cmd nowhere --exclude 'a[!'
		expect_clean 2 "invalid glob '\[\[:nope:\]\]' for '--include'" \
			"$STRATA" $cmd nowhere --include '[[:nope:]]'
		expect_clean 2 "invalid glob 'x\\\\' for '--include': it ends with a backslash" \
			"$STRATA" $cmd nowhere --include 'x\'
		expect_clean 2 "invalid glob '' for '--exclude': it is empty" \
			"$STRATA" $cmd nowhere --exclude=
		expect_clean 2 "invalid value 'x' for '--jobs'" \
			"$STRATA" $cmd nowhere --jobs x
		expect_clean 2 "option '--rev' requires a value" \
			"$STRATA" $cmd nowhere --rev
		expect_clean 2 "unknown option '--nope'" "$STRATA" $cmd nowhere --nope
	done
	# Options of table and report: checked by both, refused by blame.
	for cmd in table report; do
		expect_clean 2 "invalid --tags expression" "$STRATA" $cmd nowhere --tags '('
		expect_clean 2 "invalid --group expression" "$STRATA" $cmd nowhere --group '(['
		expect_clean 2 "invalid value '0' for '--depth'" \
			"$STRATA" $cmd nowhere --depth 0
	done
	local opt
	for opt in "--tags (" "--group x" "--depth 2" "--out d" --force \
		"--templates t" "--chart-width 500" "--chart-height 300" \
		"--theme dark" "--tags=(" "--depth=x"; do
		# shellcheck disable=SC2086
		expect_clean 2 "option '${opt%%[ =]*}' does not apply to 'strata blame' \(see 'strata blame --help'\)$" \
			"$STRATA" blame nowhere $opt
	done
	for opt in "--out d" --force "--templates t" "--chart-width 500" \
		"--chart-height 300" "--theme dark" -z; do
		# shellcheck disable=SC2086
		expect_clean 2 "option '${opt%% *}' does not apply to 'strata table'" \
			"$STRATA" table nowhere $opt
	done
	expect_clean 2 "option '-z' does not apply to 'strata report'" \
		"$STRATA" report nowhere -z
	# Paths after -- are blame's.
	expect_clean 2 "paths after '--' are only taken by 'strata blame'" \
		"$STRATA" table nowhere -- a.c
	# A good value goes on to the work: the repository is missing.
	for cmd in blame table report; do
		expect_clean 1 "not a git repository: 'nowhere'" "$STRATA" $cmd nowhere \
			--include '[ab]*.c' --exclude 'x\*' --jobs 2
	done
}

# An option given where it would do nothing is a usage error that names
# the conflict, before any work (docs/usage.md, "Options that would do
# nothing"); where it acts, it is taken.
no_effect() {
	printf 'example.com Example\n' >map
	local by
	expect_clean 2 "--date has no effect with --by release$" \
		"$STRATA" table nowhere --by release --org-map map --date author
	expect_clean 2 "--date has no effect with --by release$" \
		"$STRATA" table nowhere --date author
	expect_clean 2 "--org-map has no effect with --by release$" \
		"$STRATA" table nowhere --org-map map
	expect_clean 2 "--org-map has no effect with --no-authors$" \
		"$STRATA" report nowhere --no-authors --org-map map --out rep
	for by in author org; do
		expect_clean 2 "--date has no effect with --by $by$" \
			"$STRATA" table nowhere --by $by --date author
	done
	for by in year author; do
		expect_clean 2 "--org-map has no effect with --by $by$" \
			"$STRATA" table nowhere --by $by --org-map map
	done
	for by in year author org; do
		expect_clean 2 "--depth has no effect with --by $by$" \
			"$STRATA" table nowhere --by $by --depth 2
		expect_clean 2 "--tags has no effect with --by $by without --history$" \
			"$STRATA" table nowhere --by $by --tags 'v.*'
		expect_clean 2 "--group has no effect with --by $by without --history$" \
			"$STRATA" table nowhere --group '(v1).*' --by $by
		expect_clean 2 "--tag-scope has no effect with --by $by without --history$" \
			"$STRATA" table nowhere --by $by --tag-scope merged
		expect_clean 2 "--tags has no effect with --by $by without --history$" \
			"$STRATA" table nowhere --by $by --tags 'v.*' --history none
	done
	# Where they act, they are taken (and act).
	sample
	git -C r tag v2.0
	"$STRATA" table r -q --by year --date author >/dev/null
	"$STRATA" table r -q --by org --org-map map | grep -q '^Example '
	"$STRATA" table r -q --by release --depth 2 | grep -q '^  sub/deeper '
	"$STRATA" table r -q --by year --history year --tags 'v1.*' >tags.txt
	"$STRATA" table r -q --by year --history year >all.txt
	if cmp -s tags.txt all.txt; then
		echo "--tags did nothing with --by year --history year"; return 1
	fi
	"$STRATA" report r -q --out rep --no-authors --date author
	grep -q '"date": "author"' rep/data/report.json
	rm -rf rep
	"$STRATA" report r -q --out rep --org-map map
	grep -q '"org_map": "map"' rep/data/report.json
	rm -rf rep
}

# Filters that leave no text file fail the same way in every command.
nothing_left() {
	sample
	local cmd
	for cmd in blame table report; do
		expect_clean 1 "no text file at 'HEAD' is left by --include$" \
			"$STRATA" $cmd r --include nomatch
		expect_clean 1 "no text file at 'HEAD' is left by --include, --exclude$" \
			"$STRATA" $cmd r --include '*.c' --exclude '*'
		expect_clean 1 "no text file at 'HEAD~1' is left by --exclude, --skip-vendored$" \
			"$STRATA" $cmd r --rev HEAD~1 --exclude a.c --skip-vendored
	done
	(cd r && git rm -q a.c sub/deeper/b.c && printf 'b\0in\n' >bin &&
		git add bin && commit "binary only")
	for cmd in blame table report; do
		expect_clean 1 "no text file at 'HEAD'$" "$STRATA" $cmd r
	done
}

# A write error is an error: exit 1 and one message, for every command
# that prints.
write_errors() {
	sample
	local cmd
	for cmd in "blame r" "table r" "blame r -z" "table r --depth 3" \
		--help "blame --help" --version; do
		# shellcheck disable=SC2086
		"$STRATA" $cmd >/dev/full 2>err && { echo "$cmd: exit 0"; return 1; }
		grep -qx "strata: write error: No space left on device" err ||
			{ echo "$cmd:"; cat err; return 1; }
		[ "$(wc -l <err)" = 1 ]
	done
	# A long output fails as it goes, and says so once.
	(cd r && for i in $(seq 1 300); do put "f$i.c" $(lines "l$i-" 1 20); done &&
		commit "many files")
	"$STRATA" blame r >/dev/full 2>err && return 1
	[ "$(cat err)" = "strata: write error: No space left on device" ]
}

source_date_epoch() {
	sample
	local bad
	for bad in abc 12x -1 1.5 ' 12' 253402300800 99999999999999999999999; do
		SOURCE_DATE_EPOCH=$bad expect_clean 2 \
			"invalid value '$bad' for SOURCE_DATE_EPOCH: expected seconds since 1970-01-01 00:00 UTC, from 0 to 253402300799$" \
			"$STRATA" report r --out rep
	done
	SOURCE_DATE_EPOCH=253402300799 "$STRATA" report r --out rep -q
	grep -q '"generated": "9999-12-31T23:59:59Z"' rep/data/report.json
	rm -rf rep
	SOURCE_DATE_EPOCH=0 "$STRATA" report r --out rep -q
	grep -q '"generated": "1970-01-01T00:00:00Z"' rep/data/report.json
	rm -rf rep
	# Empty is unset: the commit's date.
	SOURCE_DATE_EPOCH= "$STRATA" report r --out rep -q
	grep -q "\"generated\": \"$(date -u -d @"$(git -C r log -1 --format=%ct)" +%Y-%m-%dT%H:%M:%SZ)\"" \
		rep/data/report.json
	# blame and table print no date: they do not read it.
	SOURCE_DATE_EPOCH=abc "$STRATA" blame r >/dev/null
	SOURCE_DATE_EPOCH=abc "$STRATA" table r >/dev/null
}

# REPO may be any directory of a work tree, as for git -C; the whole
# tree is examined. GIT_CEILING_DIRECTORIES stops the search.
repo_below() {
	sample
	"$STRATA" blame r >top.txt
	"$STRATA" blame r/sub/deeper >below.txt
	cmp top.txt below.txt
	(cd r/sub && "$STRATA" blame) >here.txt
	cmp top.txt here.txt
	(cd r/sub/deeper && "$STRATA" table -q) | head -1 |
		grep -q '^r at HEAD ([0-9a-f]*): 5 lines in 2 text files$'
	(cd r/.git/objects && "$STRATA" blame ..) >gitdir.txt
	cmp top.txt gitdir.txt
	GIT_CEILING_DIRECTORIES=$PWD/r expect_clean 1 "not a git repository: 'r/sub'" \
		"$STRATA" blame r/sub
	mkdir -p plain/x
	GIT_CEILING_DIRECTORIES=$PWD expect_clean 1 "not a git repository: 'plain/x'" \
		"$STRATA" blame plain/x
}

# Paths as git prints them: quoted with C escapes by core.quotePath's
# rules, or as they are with -z; compared with git ls-files.
odd_paths() {
	repo_new r
	local n
	for n in plain.c 'sp ace.c' $'tab\there.c' $'new\nline.c' 'quo"te.c' \
		'back\slash.c' $'caf\xc3\xa9.c' $'\e[2J\e[31mEVIL' $'del\x7f.c' \
		$'\x01\x02\x1f.c' $'bell\a\b\v\f\r.c' $'\xff\xfe.c' \
		$'dir\xe2\x80\x94/f.c'; do
		put "$n" "line one" "line two"
	done
	commit "odd names"
	cd ..
	"$STRATA" blame r | cut -f4 | uniq >got
	git -C r ls-files >want
	diff want got
	grep -q '^"\\033\[2J\\033\[31mEVIL"$' got
	"$STRATA" blame r -z | perl -0 -ne 'chomp; print((split /\t/, $_, 4)[3], "\0")' |
		perl -0 -ne 'print unless $seen{$_}++' >got.z
	git -C r ls-files -z >want.z
	cmp want.z got.z
	# Every record of -z ends with NUL, none with a newline.
	[ "$("$STRATA" blame r -z | tr -cd '\0' | wc -c)" = 13 ]
	git -C r config core.quotePath false
	"$STRATA" blame r | cut -f4 | uniq >got
	git -C r ls-files >want
	diff want got
	grep -qx $'caf\xc3\xa9.c' got
}

run_case every_option every_option
run_case no_effect no_effect
run_case nothing_left nothing_left
run_case write_errors write_errors
run_case source_date_epoch source_date_epoch
run_case repo_below repo_below
run_case odd_paths odd_paths
finish
