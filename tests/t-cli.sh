#!/bin/bash
# The command line: help, version, and bad input. Every error is one line
# on stderr starting with "strata: ", with exit 2 for usage errors and 1
# for the rest, and leaves nothing behind.
. "$(dirname "$0")/lib.sh"

sample() {
	repo_new r
	commit_file a.c "one" x y z
	git tag v1.0
	commit_file b.c "two" p q
	cd ..
}

help_and_version() {
	"$STRATA" --version | grep -Eq '^strata [0-9]+\.[0-9]+\.[0-9]+$'
	# Whole outputs first: under pipefail `strata --help | grep -q` would
	# fail whenever grep stops reading before strata has written all.
	local help sub
	help=$("$STRATA" --help)
	grep -q '^usage: strata <command>' <<<"$help"
	for c in blame table report; do
		sub=$("$STRATA" $c --help)
		grep -q "^usage: strata $c" <<<"$sub"
	done
	# Every option the manual documents is in --help too.
	for o in --rev --first-parent -w --ignore-rev --ignore-revs-file \
		--tags --group --include --exclude --depth --jobs --quiet \
		--verbose --out --force --templates --chart-width \
		--chart-height --theme --skip-vendored -z; do
		grep -q -- "$o" <<<"$help" || { echo "--help lacks $o"; return 1; }
		grep -q -- "\`$o" "$(dirname "$0")/../docs/usage.md" 2>/dev/null ||
			grep -q -- "$o" "$ROOT/docs/usage.md" ||
			{ echo "docs/usage.md lacks $o"; return 1; }
	done
}

usage_errors() {
	sample
	expect 2 "'frob' is not a strata command" "$STRATA" frob
	expect 2 "unknown option '--nope'" "$STRATA" blame r --nope
	expect 2 "invalid value '-3' for '--jobs'" "$STRATA" blame r --jobs -3
	expect 2 "invalid value 'x' for '--depth'" "$STRATA" table r --depth x
	expect 2 "option '--rev' requires a value" "$STRATA" blame r --rev
	expect 2 "invalid --tags expression" "$STRATA" table r --tags '('
	expect 2 "invalid --group expression" "$STRATA" table r --group '(['
	expect 2 "invalid value 'blue' for '--theme'" "$STRATA" report r --theme blue
	expect 2 "unexpected argument 'extra'" "$STRATA" blame r extra
	# The usage code wins over work: nothing was written.
	[ ! -e output ]
}

runtime_errors() {
	sample
	mkdir plain
	expect 1 "not a git repository: 'plain'" "$STRATA" blame plain
	expect 1 "not a git repository: 'missing'" "$STRATA" blame missing
	expect 1 "unknown revision 'v9'" "$STRATA" blame r --rev v9
	expect 1 "'HEAD\^\{tree\}' is not a commit" "$STRATA" blame r --rev 'HEAD^{tree}'
	expect 1 "pathspec 'nosuch.c' did not match any text file" \
		"$STRATA" blame r -- nosuch.c
	expect 1 "cannot find revision 'nope' to ignore" \
		"$STRATA" blame r --ignore-rev nope
	expect 1 "could not open object name list 'none.txt'" \
		"$STRATA" blame r --ignore-revs-file none.txt
	printf 'not-a-hash\n' >bad.txt
	expect 1 "invalid object name 'not-a-hash'" \
		"$STRATA" blame r --ignore-revs-file bad.txt
	git init -q empty
	expect 1 "your current branch 'main' does not have any commits yet" \
		"$STRATA" blame empty
	# A report that fails leaves no directory behind.
	expect 1 "unknown revision 'v9'" "$STRATA" report r --rev v9 --out rep
	[ ! -e rep ] || { echo "a failed report left 'rep'"; return 1; }
}

missing_objects() {
	sample
	# Remove a blob from the object store: reading it must fail cleanly.
	blob=$(git -C r rev-parse HEAD:b.c)
	rm -f "r/.git/objects/${blob:0:2}/${blob:2}"
	expect 1 "unable to read (blob|tree) '$blob'" "$STRATA" blame r
	expect 1 "unable to read" "$STRATA" report r --out rep
	[ ! -e rep ]
}

# A partial clone leaves big blobs with its promisor remote, where git
# would fetch them: the error says so, for a blob a diff needs and for one
# that only a rename search reads, and only when a promisor is set.
partial_clone() {
	repo_new src
	lines old 1 200 >a.c
	put b.c small
	commit "big a.c"
	git tag v1.0
	put a.c new
	commit "small a.c"
	lines gone 1 200 >gone.c
	commit "big gone.c"
	git rm -q gone.c
	put c.c fresh
	commit "gone.c goes, c.c comes"
	cd ..
	git clone -q --bare --no-local --filter=blob:limit=1k \
		--upload-pack="git -c uploadpack.allowfilter=true upload-pack" \
		"file://$PWD/src" pc
	local big gone
	big=$(git -C src rev-parse HEAD~3:a.c)
	gone=$(git -C src rev-parse HEAD~1:gone.c)
	# (cat-file would fetch them from the promisor: list what is missing.)
	git -C pc rev-list --objects --all --missing=print >objects
	grep -qx "?$big" objects && grep -qx "?$gone" objects || {
		echo "the filter kept $big or $gone"; return 1; }
	local hint="it is not in 'pc', a partial clone that leaves objects"
	hint+=" with its promisor remote 'origin' \(strata reads only what a"
	hint+=" repository holds: clone it without --filter, or leave the"
	hint+=" file out with --exclude\)$"
	# Up to "small a.c", a diff needs the big a.c; at the tip, the search
	# for where c.c came from reads gone.c first. Each error names the
	# file.
	local c
	c=$(git -C src rev-parse --short=12 HEAD)
	expect 1 "unable to read blob '$big' in the history of 'a.c': $hint" \
		"$STRATA" blame pc --rev HEAD~2
	expect 1 "looking for where 'c.c' of commit $c came from: unable to read object '$gone' of 'gone.c': $hint" \
		"$STRATA" blame pc
	expect 1 "looking for where 'c.c' of commit $c came from: unable to read object '$gone' of 'gone.c': $hint" \
		"$STRATA" report pc --out rep
	[ ! -e rep ] || { echo "a failed report left 'rep'"; return 1; }
	git -C pc config remote.origin.promisor false
	expect 1 "unable to read blob '$big' in the history of 'a.c': object not found" \
		"$STRATA" blame pc --rev HEAD~2
	git -C pc config --unset remote.origin.promisor
	git -C pc config extensions.partialClone origin
	expect 1 "unable to read blob '$big' in the history of 'a.c': $hint" \
		"$STRATA" blame pc --rev HEAD~2
	# Any other extension libgit2 does not know: it says which.
	git -C pc config extensions.noSuchThing yes
	expect 1 "unable to open repository 'pc': unsupported extension name extensions.nosuchthing$" \
		"$STRATA" blame pc
}

# With several blobs missing, the first in tree order is the one named,
# however many threads read the tip.
first_missing_object() {
	repo_new r
	local f
	for f in a b c d e f g h; do
		put "$f.c" "$f"
	done
	commit "files"
	cd ..
	local want
	want=$(git -C r rev-parse HEAD:c.c)
	for f in c f h; do
		blob=$(git -C r rev-parse HEAD:$f.c)
		rm -f "r/.git/objects/${blob:0:2}/${blob:2}"
	done
	local j i
	for j in 1 2 4; do
		for i in 1 2 3; do
			expect 1 "unable to read blob '$want' of 'c.c': " \
				"$STRATA" blame r --jobs $j
		done
	done
}

bare_and_defaults() {
	sample
	git clone -q --bare r r.git
	"$STRATA" blame r >work.txt
	"$STRATA" blame r.git >bare.txt
	cmp work.txt bare.txt
	(cd r && "$STRATA" blame >../here.txt)
	cmp work.txt here.txt
	# REV defaults to HEAD; --rev and --rev= are the same.
	"$STRATA" blame r --rev=HEAD~1 >old.txt
	"$STRATA" blame r --rev HEAD~1 >old2.txt
	cmp old.txt old2.txt
	[ "$(cut -f4 old.txt | sort -u)" = a.c ]
	# Paths limit the output; a directory takes what is under it.
	"$STRATA" blame r -- b.c | cut -f4 | sort -u | grep -qx b.c
	[ "$("$STRATA" blame r -- b.c | cut -f4 | sort -u)" = b.c ]
}

# No tag counts: the table and the report work, every line unreleased.
no_release() {
	sample
	local lines commits
	lines=$(git -C r show HEAD:a.c HEAD:b.c | wc -l)
	commits=$(git -C r rev-list --count HEAD)
	"$STRATA" table r --tags 'release-[0-9]+' >t.txt
	grep -Eq "^unreleased +- +$lines +100.00% +$commits\$" t.txt
	[ "$(grep -c '%' t.txt)" = 3 ] # the release and the two subsystem rows
	grep -qx "note: no tag matches --tags: every line is unreleased" t.txt
	"$STRATA" report r --tags 'release-[0-9]+' --out rep 2>err
	grep -qx "strata: note: no tag matches --tags: every line is unreleased" err
	printf 'release,tag,date,commits,lines,share\r\n,,,%s,%s,100.00\r\n' \
		"$commits" "$lines" | cmp - rep/data/releases.csv
	grep -q '"releases": 1,' rep/data/report.json
	# a tag dated after REV off its history, one on a tree: counted
	(cd r && git checkout -q -b side && commit_file c.c three c &&
		git tag v2.0 && git tag v2.1 'HEAD^{tree}' && git checkout -q -)
	"$STRATA" table r --tags 'v2.*' >t.txt
	grep -qx "note: no matching tag counts as a release (0 elsewhere, 1 after REV, 1 not on a commit): every line is unreleased" t.txt
	"$STRATA" table r --tags 'v2.*' --tag-scope merged >t.txt
	grep -qx "note: no matching tag counts as a release (1 elsewhere, 0 after REV, 1 not on a commit): every line is unreleased" t.txt
}

# The project's name: remote.origin.url's last component, else the
# directory (NAME.git gives NAME), or --title, escaped wherever shown.
title() {
	sample
	first_word() { "$STRATA" table "$@" | head -1 | cut -d' ' -f1; }
	git clone -q r clone
	[ "$(git -C clone config remote.origin.url)" = "$PWD/r" ]
	[ "$(first_word clone)" = r ]
	git -C clone remote set-url origin git@example.com:owner/redis.git
	[ "$(first_word clone)" = redis ]
	git -C clone remote set-url origin https://example.com/o/tmux/
	[ "$(first_word clone)" = tmux ]
	git clone -q --bare r proj.git
	git -C proj.git remote remove origin
	[ "$(first_word proj.git)" = proj ]
	[ "$(first_word clone --title curl)" = curl ]
	"$STRATA" report r --title $'<b>x</b>\x01' --out rep -q
	grep -q '"name": "<b>x</b>\\u0001",' rep/data/report.json
	grep -q '&lt;b&gt;x&lt;/b&gt;\\x01' rep/index.html
	! grep -q '<b>x</b>' rep/*.html
	expect 2 "invalid value for '--title': expected 1 to 200 bytes" \
		"$STRATA" table r --title ''
	expect 2 "invalid value for '--title'" "$STRATA" report r \
		--title "$(printf 'a%.0s' $(seq 201))"
	expect 2 "option '--title' does not apply to 'strata blame'" \
		"$STRATA" blame r --title x
}

shallow_note() {
	sample
	(cd r && for i in 1 2 3; do commit_file c.c "c$i" "c$i"; done)
	git clone -q --depth 2 "file://$PWD/r" s
	"$STRATA" table s --tags '.*' --quiet >t.txt 2>&1 || true
	# v1.0 is not in a 2-deep history: no tag; the note says so.
	grep -q "no tag matches" t.txt
	git -C s fetch -q --depth 2 origin tag v1.0 2>/dev/null || true
	"$STRATA" blame s >/dev/null
}

progress_quiet() {
	sample
	# stderr is not a terminal: no progress bar, nothing at all.
	"$STRATA" blame r >/dev/null 2>err
	[ ! -s err ] || { echo "stderr not empty:"; cat err; return 1; }
	"$STRATA" blame r --verbose >/dev/null 2>err
	grep -q "commits" err
}

# --verbose ends with each stage's wall time, CPU time and the process's
# peak memory so far, in the order the stages ran: the peaks never go
# down, the totals are the sums, and each command has its own stages.
verbose_stages() {
	sample
	"$STRATA" blame r --verbose >/dev/null 2>err
	stages_are "history budget walk mark diffs result output" err
	"$STRATA" table r --verbose >/dev/null 2>err
	stages_are "history releases budget walk mark diffs result tally table" err
	"$STRATA" report r --out rep --history releases --verbose --quiet 2>err
	stages_are "history releases budget walk mark diffs result snapshots cycle tally publish" err
	# Drawing the charts takes tens of milliseconds of CPU at least.
	awk '$3 == "publish" && $6 > 0.01 { ok = 1 } END { exit !ok }' err ||
		{ grep publish err; return 1; }
	"$STRATA" table r --cycle --verbose >/dev/null 2>err
	stages_are "history releases budget walk mark diffs result cycle tally table" err
}

# stages_are "NAME..." FILE: the stage lines of FILE are those, then total.
stages_are() {
	grep -qx 'strata: stage: wall time, CPU time (threads and drawing processes), peak memory of the process so far' "$2"
	awk -v want="$1 total" '
		/^strata: stage [a-z]/ {
			if (NF != 10 || $5 != "s" || $7 != "s" || $8 != "CPU" ||
			    $10 != "MiB" || $4 !~ /^[0-9]+\.[0-9][0-9]$/ ||
			    $6 !~ /^[0-9]+\.[0-9][0-9]$/ ||
			    $9 !~ /^[0-9]+\.[0-9]$/ || $9 < peak || $9 < 1) {
				print "bad stage line: " $0; bad = 1
			}
			peak = $9
			got = got (got ? " " : "") $3
			if ($3 != "total") {
				sum += $4
				cpu += $6
			} else if ($4 - sum > 0.011 * NR || sum - $4 > 0.011 * NR) {
				print "total " $4 " is not the sum " sum; bad = 1
			} else if ($6 - cpu > 0.011 * NR || cpu - $6 > 0.011 * NR) {
				print "total CPU " $6 " is not the sum " cpu; bad = 1
			}
		}
		END {
			if (got != want) { print "stages: " got; print "want: " want; bad = 1 }
			exit bad
		}' "$2"
}

# A run that would not fit in memory stops before the walk, in one line
# with the estimate, REV's counts (as git counts them) and what is offered
# (budget.c); STRATA_MEMORY_MIB says what is offered (0: no check); the
# limit of the address space (ulimit -v) counts too.
memory_refusal() {
	local files commits
	sample
	files=$(git -C r ls-tree -r HEAD | wc -l)
	commits=$(git -C r rev-list --count HEAD)
	STRATA_MEMORY_MIB=1 "$STRATA" blame r --verbose >out 2>err && return 1
	[ ! -s out ] && [ "$(wc -l <err)" = 1 ]
	grep -Eqx "strata: this run needs about [0-9]+ MiB \($commits commits, $files files, about [0-9]+ lines at REV, 0 snapshots\) and 1 MiB is available \(STRATA_MEMORY_MIB\): set STRATA_MEMORY_MIB to run anyway" err
	# A report stops before it writes anything; its snapshots count (the
	# history's two, and the release cycle's start).
	STRATA_MEMORY_MIB=1 "$STRATA" report r --out rep --quiet 2>err && return 1
	[ ! -e rep ]
	grep -q " commits, $files files, about [0-9]* lines at REV, 3 snapshots)" err
	STRATA_MEMORY_MIB=0 "$STRATA" blame r >out
	STRATA_MEMORY_MIB=100000 "$STRATA" blame r >out2
	cmp out out2
	# Under ASan (terabytes of address space) there is no ulimit -v.
	[ "${SAN:-0}" = 1 ] || grep -q -a -F __asan_init "$STRATA" && return 0
	(ulimit -v 400000 && env -u STRATA_MEMORY_MIB "$STRATA" blame r \
		--jobs 1) >out 2>err && return 1
	grep -Eqx 'strata: this run needs about [0-9]+ MiB of address space \([0-9]+ MiB of it the packs, mapped\) and its limit \(ulimit -v\) is 390 MiB: set STRATA_MEMORY_MIB to run anyway' err
}

# The heap asks glibc for huge pages (main.c): strata adds the tunable to
# what GLIBC_TUNABLES holds and runs itself again, unless the user chose;
# the output is the same either way.
heap_pages() {
	local thp=/sys/kernel/mm/transparent_hugepage/enabled huge=1
	# Under ASan, or with the kernel's huge pages off, strata leaves it.
	if [ "${SAN:-0}" = 1 ] || [ ! -r $thp ] || grep -q '\[never\]' $thp; then
		huge=0
	fi
	sample
	GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$STRATA" blame r --verbose \
		>small.out 2>err
	grep -qx 'strata: heap on small pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=0)' err
	GLIBC_TUNABLES=glibc.malloc.tcache_count=7 "$STRATA" blame r --verbose \
		>huge.out 2>err
	cmp small.out huge.out
	if [ $huge = 1 ]; then
		grep -qx 'strata: heap on huge pages (GLIBC_TUNABLES=glibc.malloc.tcache_count=7:glibc.malloc.hugetlb=1)' err
	else
		grep -qx 'strata: heap on small pages (GLIBC_TUNABLES=glibc.malloc.tcache_count=7)' err
	fi
	env -u GLIBC_TUNABLES "$STRATA" blame r --verbose >/dev/null 2>err
	if [ $huge = 1 ]; then
		grep -qx 'strata: heap on huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)' err
	fi
	"$STRATA" blame r >/dev/null 2>err
	[ ! -s err ]
}

# The object cache's bound during the walk comes from REV's directories
# (blame_read.c): 64 KiB a tree, root included, from 16 to 64 MiB; the most
# when there is no reader thread (--jobs 1). --verbose gives it.
walk_cache() {
	local name n i
	for name in few:3 mid:399 many:1100; do
		n=${name#*:}
		name=${name%:*}
		repo_new "$name"
		# One mkdir for all (a process each would be 1,500 starts).
		local dirs=()
		for ((i = 1; i <= n; i++)); do
			dirs+=("d$i")
		done
		mkdir "${dirs[@]}"
		for ((i = 1; i <= n; i++)); do
			echo "$i" >"d$i/f"
		done
		commit "$n directories"
		cd ..
	done
	"$STRATA" blame few --jobs 2 --verbose >/dev/null 2>err
	grep -q '; a cache of 16384 KiB for the walk$' err
	"$STRATA" blame mid --jobs 2 --verbose >/dev/null 2>err
	grep -q '; a cache of 25600 KiB for the walk$' err
	"$STRATA" blame many --jobs 2 --verbose >/dev/null 2>err
	grep -q '; a cache of 65536 KiB for the walk$' err
	"$STRATA" blame few --jobs 1 --verbose >/dev/null 2>err
	grep -q '; a cache of 65536 KiB for the walk$' err
}

# make install honours PREFIX and DESTDIR, and the installed binary finds
# its templates there.
install_staged() {
	sample
	make -s -C "$ROOT" install DESTDIR="$PWD/stage" PREFIX=/opt/strata \
		STRATA_BIN="$STRATA" >/dev/null
	[ -x stage/opt/strata/bin/strata ]
	[ -f stage/opt/strata/share/strata/templates/index.tpl ]
	stage/opt/strata/bin/strata report r --out rep --quiet
	[ -f rep/index.html ] && [ -f rep/data/files.csv ]
}

# blame and table never load the charts' and pages' libraries; report
# loads strata-publish.so from beside the binary, and says so when it
# cannot: missing, or from another version.
publish_object() {
	sample
	LD_DEBUG=libs "$STRATA" blame r >/dev/null 2>libs
	grep -q 'calling init: .*libgit2' libs || { echo "LD_DEBUG shows nothing"; return 1; }
	if grep -Eq 'libcairo|libpango|libctemplate' libs; then
		echo "blame loaded:"; grep -E 'calling init: .*(cairo|pango|ctemplate)' libs
		return 1
	fi
	LD_DEBUG=libs "$STRATA" report r --out rep --quiet 2>libs
	grep -q 'calling init: .*strata-publish.so' libs
	grep -q 'calling init: .*libcairo' libs
	rm -rf rep
	mkdir alone
	cp "$STRATA" alone/strata
	libdir=$(make -s -C "$ROOT" -f - print-libdir <<'MK'
include Makefile
print-libdir:
	@echo $(LIBDIR)
MK
)
	if [ -e "$libdir/strata-publish.so" ]; then
		# An installation is there: the lone binary uses it.
		alone/strata report r --out rep --quiet
		[ -f rep/index.html ]
		rm -rf rep
	else
		expect 1 "'strata-publish.so' not found beside the strata binary nor in '$libdir'" \
			alone/strata report r --out rep
		[ ! -e rep ] || { echo "a failed report left 'rep'"; return 1; }
	fi
	# One from another version.
	cat >other.c <<'C'
#include "strata/publish.h"
const struct publish_api strata_publish_api = { "0.0.1", 0, 0, 0, 0 };
C
	${CC:-cc} -shared -fPIC -I"$ROOT/include" -o alone/strata-publish.so other.c
	expect 1 "'strata-publish.so' is from strata 0\.0\.1, not [0-9.]+$" \
		alone/strata report r --out rep
	[ ! -e rep ]
	# Not an object at all.
	echo junk >alone/strata-publish.so
	expect 1 "unable to load '[^']*/alone/strata-publish.so': file too short$" \
		alone/strata report r --out rep
	[ ! -e rep ]
	# blame does not need it.
	alone/strata blame r >/dev/null
}

# The terminal tables: lines, shares and commits per release, old code per
# subsystem, untouched files.
table_numbers() {
	repo_new r
	put a.c a1 a2 a3
	put c.txt c1 c2
	commit "first"
	git tag -a -m v1.0 v1.0
	put a.c a1 a2 a3 a4 a5
	mkdir -p b && put b/x.c x1 x2 x3 x4
	commit "second"
	git tag v1.1-rc1
	commit_file b/y.c "third" y1
	git tag -a -m v1.1 v1.1
	commit_file a.c "fourth" a1 a2 a3 a4 a5 a6
	cd ..
	"$STRATA" table r --quiet >t.txt
	cat t.txt
	grep -Eq '^v1\.0 +[0-9-]+ +5 +38\.46% +1$' t.txt
	grep -Eq '^v1\.1 +[0-9-]+ +7 +53\.85% +2$' t.txt
	grep -Eq '^unreleased +- +1 +7\.69% +1$' t.txt
	grep -Eq '^\. +8 +62\.50%$' t.txt
	grep -Eq '^b +5 +0\.00%$' t.txt
	grep -q 'files untouched since v1.0: 1 of 4 (2 lines)' t.txt
	# --include narrows every figure.
	"$STRATA" table r --quiet --include 'b/' >tb.txt
	grep -q ': 5 lines in 2 text files' tb.txt
}

# libgit2's set-up of TLS, which strata never uses, must not parse the
# system's CA bundle: its call goes to strata's own no-op (repository.c).
no_ca_bundle() {
	LD_DEBUG=bindings "$STRATA" --version 2>bindings >/dev/null
	if ! grep -Eq "binding file [^ ]*libgit2[^ ]* .* to [^ ]*strata [^ ]*.*mbedtls_x509_crt_parse_file" bindings; then
		echo "libgit2's mbedtls_x509_crt_parse_file is not strata's:"
		grep mbedtls_x509_crt_parse_file bindings
		return 1
	fi
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
run_case no_ca_bundle no_ca_bundle
run_case table_numbers table_numbers
run_case install_staged install_staged
run_case publish_object publish_object
run_case help_and_version help_and_version
run_case usage_errors usage_errors
run_case runtime_errors runtime_errors
run_case missing_objects missing_objects
run_case first_missing_object first_missing_object
run_case partial_clone partial_clone
run_case bare_and_defaults bare_and_defaults
run_case no_release no_release
run_case title title
run_case shallow_note shallow_note
run_case progress_quiet progress_quiet
run_case verbose_stages verbose_stages
run_case memory_refusal memory_refusal
run_case heap_pages heap_pages
run_case walk_cache walk_cache
finish
