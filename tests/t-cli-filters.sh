#!/bin/bash
# --include and --exclude keep files out of the engine itself: a file
# left out is never read (so a repository that lacks its blob still
# works), the files kept are blamed exactly as git blame does even when
# their history crosses paths left out, and table and report say how
# many files and lines were left out. A partial clone that lacks a blob
# fails with the file's name unless that file is left out.
. "$(dirname "$0")/lib.sh"

# A file left out is not read at all: its blob may be gone.
never_read() {
	repo_new r
	put keep.c k1 k2
	put gen/big.data $(lines d 1 50)
	commit "files"
	put keep.c k1 k2 k3
	commit "more"
	git tag v1
	cd ..
	local blob
	blob=$(git -C r rev-parse HEAD:gen/big.data)
	rm "r/.git/objects/${blob:0:2}/${blob:2}"
	expect 1 "unable to read blob '$blob' of 'gen/big.data': " \
		"$STRATA" blame r
	expect 1 "unable to read blob '$blob' of 'gen/big.data': " \
		"$STRATA" table r
	"$STRATA" blame r --exclude gen >ex.txt
	[ "$(cut -f4 ex.txt | sort -u)" = keep.c ]
	"$STRATA" blame r --include '*.c' >in.txt
	cmp ex.txt in.txt
	"$STRATA" blame r -- keep.c >ps.txt
	cmp ex.txt ps.txt
	# table and report count the lines of what they leave out: that
	# reads the blob, and this one is not there (not a partial clone).
	expect 1 "unable to read blob '$blob' of 'gen/big.data': " \
		"$STRATA" table r --exclude gen
}

# Files kept whose history runs through paths left out (a rename from
# vendor/, a copy of lines) are blamed as git blame blames them.
kept_parity() {
	repo_new r
	put vendor/lib.c $(lines lib 1 30)
	put vendor/other.c $(lines other 1 20)
	put src/main.c $(lines main 1 10)
	commit "import"
	put vendor/lib.c $(lines lib 1 15) changed $(lines lib 16 30)
	commit "vendor edit"
	git mv vendor/lib.c src/lib.c
	put src/lib.c $(lines lib 1 15) changed $(lines lib 16 29) tail
	commit "adopt lib.c"
	git rm -q vendor/other.c
	put src/other.c $(lines other 1 19) mine
	commit "adopt other.c, edited"
	put vendor/new.c fresh
	commit "vendor grows"
	cd ..
	parity r HEAD -- src
	"$STRATA" blame r --exclude vendor >ex.txt
	"$STRATA" blame r -- src >ps.txt
	cmp ex.txt ps.txt
	"$STRATA" blame r --exclude 'vendor/*' --jobs 1 >ex1.txt
	cmp ex.txt ex1.txt
	# The left-out counts, against git's own count of vendor/'s lines.
	local n l
	n=$(git -C r ls-files vendor | wc -l)
	l=$(git -C r ls-files -z vendor | (cd r && xargs -0 cat) | wc -l)
	"$STRATA" table r -q --exclude vendor --tags '.*' 2>/dev/null >t.txt || true
	git -C r tag v1 HEAD~3
	"$STRATA" table r -q --exclude vendor >t.txt
	cat t.txt
	grep -qx "left out by --include/--exclude: $n text file ($l line)" t.txt
	SOURCE_DATE_EPOCH=0 "$STRATA" report r -q --exclude vendor --out rep
	grep -q "\"left_out\": {\"include_exclude\": {\"files\": $n, \"lines\": $l}, \"vendored\": {\"files\": 0, \"lines\": 0}, \"missing\": 0}" \
		rep/data/report.json
	grep -q "\"renames_passed_over\": 0" rep/data/report.json
	grep -q "left out: $n text file, $l line" rep/index.html
	# Kept and left out add up to the whole.
	local all kept
	all=$("$STRATA" blame r | awk -F'\t' '{n += $3} END {print n}')
	kept=$(awk -F'\t' '{n += $3} END {print n}' ex.txt)
	[ $((all - kept)) = "$l" ]
}

# A partial clone whose filter left out a big generated file (as u-boot's
# mirror lacks an mbedtls test data file).
partial_clone() {
	repo_new src
	put lib/a.c $(lines a 1 40)
	put gen/tables.data $(lines "generated table row " 1 400)
	commit "import"
	git tag v1
	put lib/a.c $(lines a 1 20) edited $(lines a 21 40)
	put gen/tables.data $(lines "generated table row " 1 401)
	commit "regenerate"
	put gen/old.data $(lines "old data row of the past " 1 300)
	commit "old data"
	# old.data goes as new.c comes: the search for where new.c came
	# from reads old.data's blob.
	git rm -q gen/old.data
	put lib/new.c $(lines n 1 12)
	commit "new.c"
	cd ..
	git clone -q --bare --no-local --filter=blob:limit=4k \
		--upload-pack="git -c uploadpack.allowfilter=true upload-pack" \
		"file://$PWD/src" pc
	git -C pc rev-list --objects --all --missing=print | grep '^?' >missing
	[ "$(wc -l <missing)" = 3 ] || { cat missing; return 1; }
	local tip old c
	tip=$(git -C src rev-parse HEAD:gen/tables.data)
	old=$(git -C src rev-parse HEAD~1:gen/old.data)
	c=$(git -C src rev-parse --short=12 HEAD)
	local hint="it is not in 'pc', a partial clone that leaves objects"
	hint+=" with its promisor remote 'origin' \(strata reads only what a"
	hint+=" repository holds: clone it without --filter, or leave the"
	hint+=" file out with --exclude\)$"
	# Without --exclude: the tip's file, named.
	expect 1 "unable to read blob '$tip' of 'gen/tables.data': $hint" \
		"$STRATA" table pc
	expect 1 "unable to read blob '$tip' of 'gen/tables.data': $hint" \
		"$STRATA" blame pc --exclude gen/old.data
	# Leaving the tip's file out, the rename search still lacks
	# old.data, which the tip's new.c needs.
	expect 1 "looking for where 'lib/new.c' of commit $c came from: unable to read object '$old' of 'gen/old.data': $hint" \
		"$STRATA" blame pc --exclude gen/tables.data
	# With gen/ left out, old.data is passed over: no candidate.
	"$STRATA" blame pc --exclude gen >pc.txt
	"$STRATA" blame src --exclude gen >src.txt
	cmp src.txt pc.txt
	parity src HEAD -- lib
	"$STRATA" table pc -q --exclude gen >t.txt
	cat t.txt
	grep -qx "left out by --include/--exclude: 0 text files (0 lines)" t.txt
	grep -qx "left out and missing from the partial clone (not counted): 1 file" t.txt
	grep -qx "note: 1 rename source missing from the partial clone and left out by the filters passed over; git blame, which fetches them, might follow one" t.txt
	SOURCE_DATE_EPOCH=0 "$STRATA" report pc -q --exclude gen --out rep
	grep -q '"missing": 1},' rep/data/report.json
	grep -q '"renames_passed_over": 1$' rep/data/report.json
	"$STRATA" blame pc --exclude gen --verbose 2>err >/dev/null
	grep -qx "strata: 1 rename source missing from the partial clone and left out by the filters passed over" err
	# At v1, nothing needs what is missing but the tip's own file.
	"$STRATA" blame pc --rev v1 --exclude 'gen/tables.*' >v1.txt
	[ "$(cut -f4 v1.txt | sort -u)" = lib/a.c ]
}

# When the blob a partial clone lacks is the one git blame would have
# followed, passing it over changes the blame: the note says it may.
passed_over_differs() {
	repo_new src
	# vendor/big.c over the clone's 4 KiB limit, lib/big.c under it,
	# and alike enough to be a rename.
	put vendor/big.c $(lines "shared line " 1 300)
	commit "vendor big.c"
	git rm -q vendor/big.c
	put lib/big.c $(lines "shared line " 1 240) mine
	commit "adopt big.c"
	[ "$(wc -c <lib/big.c)" -lt 4096 ]
	cd ..
	git clone -q --bare --no-local --filter=blob:limit=4k \
		--upload-pack="git -c uploadpack.allowfilter=true upload-pack" \
		"file://$PWD/src" pc
	parity src HEAD
	"$STRATA" blame src --exclude vendor | cut -f1 | sort -u | wc -l >n.src
	"$STRATA" blame pc --exclude vendor | cut -f1 | sort -u | wc -l >n.pc
	# git (and strata on the full clone) follow the rename: two commits;
	# passed over, every line is the adopting commit's.
	[ "$(cat n.src)" = 2 ] && [ "$(cat n.pc)" = 1 ]
	expect 1 "looking for where 'lib/big.c' of commit [0-9a-f]{12} came from: unable to read object '[0-9a-f]{40}' of 'vendor/big.c': " \
		"$STRATA" blame pc
}

# --include and --exclude take a glob as .gitignore takes a pattern: the
# files a glob keeps are those `git check-ignore --no-index` says the
# same pattern ignores ('**/diff.c' matched only builtin/diff.c, '/x'
# matched nothing, '*' crossed '/').
globs_as_gitignore() {
	repo_new r
	local f g
	for f in diff.c builtin/diff.c a/b/c.txt a/c.txt a/b/d/c.txt \
		src/x.c src/lib/y.c lib/src/z.c test/t.sh a/test/u.sh \
		docs/test.md src.c; do
		put "$f" "$f"
	done
	commit "files"
	git ls-files >all
	for g in '**/diff.c' /diff.c diff.c 'src/*.c' '/src' src 'a/**/c.txt' \
		'a/**' 'test/' '*.c' '/*.c' '*/c.txt' 'a/*' '**/test' \
		'b/' 'src/' '[ab]/*' 'lib/**/z.c' '*'; do
		printf '%s\n' "$g" >.git/info/exclude-test
		git -c core.excludesFile=.git/info/exclude-test \
			check-ignore --no-index --stdin <all >want || true
		"$STRATA" blame . --include "$g" | cut -f4 | sort -u >got
		sort want | diff - got >d ||
			{ echo "--include '$g':"; cat d; return 1; }
		# (Every file left out is an error of its own: t-cli-options.)
		[ "$(wc -l <want)" = "$(wc -l <all)" ] && continue
		"$STRATA" blame . --exclude "$g" | cut -f4 | sort -u >got
		sort want | comm -23 <(sort all) - | diff - got >d ||
			{ echo "--exclude '$g':"; cat d; return 1; }
	done
}

# table and report leave out what .gitattributes marks linguist-vendored
# or linguist-generated, as GitHub's language statistics do, and say so
# in the table's header with how to count them; --no-skip-vendored
# counts them (the last of it and --skip-vendored wins); blame prints
# every file unless --skip-vendored is given.
vendored_default() {
	repo_new r
	put .gitattributes 'third/** linguist-vendored' 'gen.c linguist-generated=true'
	put main.c m1 m2
	put third/lib.c $(lines l 1 10)
	put gen.c g1 g2 g3
	commit "files"
	git tag v1
	cd ..
	"$STRATA" table r -q >t.txt
	cat t.txt
	grep -q '): 4 lines in 2 text files$' t.txt
	grep -qx 'tags: default --tags, --tag-scope dated, default grouping' t.txt
	grep -qx 'left out as vendored or generated: 2 text files (13 lines); --no-skip-vendored counts them' t.txt
	"$STRATA" table r -q --skip-vendored >t2.txt
	cmp t.txt t2.txt
	"$STRATA" table r -q --no-skip-vendored >t.txt
	cat t.txt
	grep -q '): 17 lines in 4 text files$' t.txt
	grep -qx 'left out: nothing (--no-skip-vendored)' t.txt
	"$STRATA" table r -q --no-skip-vendored --skip-vendored >t.txt
	grep -q '): 4 lines in 2 text files$' t.txt
	"$STRATA" table r -q --skip-vendored --no-skip-vendored >t.txt
	grep -q '): 17 lines in 4 text files$' t.txt
	"$STRATA" table r -q --by author >t.txt
	grep -q '): 4 lines in 2 text files$' t.txt
	SOURCE_DATE_EPOCH=0 "$STRATA" report r -q --out rep
	grep -q '"skip_vendored": true' rep/data/report.json
	grep -q '"vendored": {"files": 2, "lines": 13}' rep/data/report.json
	SOURCE_DATE_EPOCH=0 "$STRATA" report r -q --out rep --no-skip-vendored
	grep -q '"skip_vendored": false' rep/data/report.json
	[ "$("$STRATA" blame r | cut -f4 | sort -u | wc -l)" = 4 ]
	[ "$("$STRATA" blame r --skip-vendored | cut -f4 | sort -u | wc -l)" = 2 ]
	expect 2 "option '--no-skip-vendored' does not apply to 'strata blame'" \
		"$STRATA" blame r --no-skip-vendored
	# With every file vendored, the message names the filter at work.
	(cd r && put .gitattributes '* linguist-vendored' && commit "all")
	expect 1 "no text file at 'HEAD' is left by --skip-vendored$" \
		"$STRATA" table r
}

run_case never_read never_read
run_case kept_parity kept_parity
run_case partial_clone partial_clone
run_case passed_over_differs passed_over_differs
run_case globs_as_gitignore globs_as_gitignore
run_case vendored_default vendored_default
finish
