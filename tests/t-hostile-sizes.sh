#!/bin/bash
# Large objects in small repositories: a blob of 600 MiB of newlines
# (600 KB compressed) and a binary blob of 400 MiB of NULs (400 KB). strata
# reads neither whole: a blob above ODB_MAX_OBJECT (512 MiB) counts as
# binary without being inflated, and telling text from binary inflates only
# a blob's first 8,000 bytes. The report is the small file's, and strata's
# peak memory stays far below either blob (it once took 17 GiB and 4.6 GiB).
set -eu
. "$(dirname "$0")/lib.sh"

# peak_kib CMD...: run CMD under /usr/bin/time, its output in ./out and
# ./err; prints its peak resident memory in KiB. A failing CMD fails.
peak_kib() {
	/usr/bin/time -f '%M' -o mem "$@" >out 2>err || {
		echo "failed: $*"; cat err; return 1
	}
	tail -n 1 mem
}

# repo_big BLOB: HEAD holds big (blob BLOB, written already) and small.c.
repo_big() {
	local small tree c
	small=$(printf 'int a;\nint b;\n' | git hash-object -w --stdin)
	tree=$(printf '100644 blob %s\tbig\n100644 blob %s\tsmall.c\n' \
		"$1" "$small" | git mktree)
	c=$(GIT_COMMITTER_DATE='1700000000 +0000' GIT_AUTHOR_DATE='1700000000 +0000' \
		git commit-tree -m big "$tree" </dev/null)
	git update-ref refs/heads/main "$c"
	git symbolic-ref HEAD refs/heads/main
	git tag v1 main
}

# check_small KIB: the report holds small.c's two lines and nothing of
# big; strata's peak stayed under 256 MiB (KIB measured).
check_small() {
	local kib=$1
	echo "peak memory: $((kib / 1024)) MiB"
	[ "$kib" -lt 262144 ] || { echo "more than 256 MiB"; return 1; }
	printf 'path,release,lines\nsmall.c,v1,2\n' >want
	tr -d "\r" <o/data/files.csv | diff want -
}

case_big_text() {
	repo_new r
	local big
	big=$(head -c $((600 << 20)) /dev/zero | tr '\0' '\n' |
		git hash-object -w --stdin)
	repo_big "$big"
	# git reads it whole: every one of its lines is a line of the file.
	[ "$(git cat-file -s "$big")" = $((600 << 20)) ]
	check_small "$(peak_kib "$STRATA" report . --out o --quiet)"
	"$STRATA" blame . >blame
	[ "$(cut -f4 blame | sort -u)" = small.c ] || {
		echo "blame output names more than small.c"; cut -f4 blame | sort -u
		return 1
	}
}

case_big_binary() {
	repo_new r
	local big
	big=$(head -c $((400 << 20)) /dev/zero | git hash-object -w --stdin)
	repo_big "$big"
	check_small "$(peak_kib "$STRATA" report . --out o --quiet)"
	# The same in a pack, where the entry is read through its own code.
	git repack -adq
	rm -rf o
	[ -z "$(find .git/objects -type f -path '*/objects/??/*')" ]
	check_small "$(peak_kib "$STRATA" report . --out o --quiet)"
}

run_case big_text case_big_text
run_case big_binary case_big_binary
finish
