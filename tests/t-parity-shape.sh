#!/bin/bash
# Parity at Linux's shape: tests/linux-shape.py's history at 1% of Linux
# (13,000 commits, 880 files, 380,000 lines; long side branches merged,
# whole directories renamed, releases with rc tags). strata blame equals
# git blame on a sample of files at two release tags, and the snapshot of
# an earlier release in `report --history releases` equals git blame there,
# for one top-level directory mapped to releases.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || skip_all "python3 is not installed"

# One history for every case (made once: it takes a few seconds).
L=$WORK/l.git
git init -q --bare "$L"
python3 "$here/linux-shape.py" --scale 0.01 --seed 1 |
	git -C "$L" fast-import --quiet
# fast-import's deltas are against whatever blob came before; a clone's
# pack is what strata and git blame are meant to read.
git -C "$L" repack -adfq

# The release tags (no rc), oldest first.
releases() {
	git -C "$L" for-each-ref --sort=creatordate --format='%(refname:strip=2)' \
		refs/tags | grep -v -- -rc
}

# The history has the shape it promises: merges near 7%, directories
# seven deep, directories renamed, rc tags, a long tail of big files.
shape() {
	local commits merges depth
	commits=$(git -C "$L" rev-list --count main)
	merges=$(git -C "$L" rev-list --count --merges main)
	echo "$commits commits, $merges merges"
	[ "$commits" -ge 12000 ] && [ "$merges" -ge $((commits * 5 / 100)) ] &&
		[ "$merges" -le $((commits * 10 / 100)) ]
	depth=$(git -C "$L" ls-tree -r --name-only main |
		awk -F/ '{ if (NF - 1 > d) d = NF - 1 } END { print d }')
	[ "$depth" = 7 ] || { echo "directories $depth deep"; return 1; }
	[ "$(releases | wc -l)" -ge 80 ]
	git -C "$L" tag -l '*-rc7' | grep -q .
	# Directories renamed: R of a directory, seen as many files at once.
	git -C "$L" log --format= --name-status -M main |
		awk '$1 ~ /^R/ { split($2, a, "/"); split($3, b, "/");
			if (a[2] != b[2] || a[3] != b[3]) n++ } END { exit !(n >= 20) }'
	# Sizes as Linux's: median near 200 lines, mean near 430, and files
	# of several thousand lines.
	"$STRATA" blame "$L" --rev main --quiet | awk -F'\t' '
		{ n[$4] += $3 } END { for (f in n) print n[f] }' | sort -n |
		awk '{ a[NR] = $1; s += $1 } END {
			m = a[int(NR / 2)]; printf "median %d, mean %d, max %d\n",
				m, s / NR, a[NR];
			exit !(m > 120 && m < 320 && s / NR > 300 && s / NR < 600 &&
				a[NR] > 3000) }'
}

# sample TAG: about 14 text files at TAG: every k-th, the biggest, files
# of renamed directories and renamed files.
sample() {
	git -C "$L" ls-tree -r -l "$1" | sort -k4,4nr | awk '
		NR == 1 { print $5; next }
		$5 ~ /_v[0-9]+\// && !v++ { print $5; next }
		$5 ~ /_r\./ && !r++ { print $5; next }
		NR % 80 == 0 { print $5 }'
}

# Two release tags, the middle one and the last: a sample of their files.
blame_sample() {
	local tags tag
	tags=$(releases |
		awk '{ t[NR] = $0 } END { print t[int(NR / 2)]; print t[NR] }')
	for tag in $tags; do
		mapfile -t files < <(sample "$tag")
		[ ${#files[@]} -ge 10 ]
		parity "$L" "$tag" -- "${files[@]}"
	done
}

# The report's snapshot at a release a third of the way, for a top-level
# directory of 5 to 60 files there, against git blame at that tag.
history_sample() {
	local tag dir
	tag=$(releases | awk '{ t[NR] = $0 } END { print t[int(NR / 3)] }')
	dir=$(git -C "$L" ls-tree -r --name-only "$tag" | cut -d/ -f1 | sort |
		uniq -c | awk '$1 >= 5 && $1 <= 60 { print $2; exit }')
	[ -n "$dir" ]
	SOURCE_DATE_EPOCH=1 "$STRATA" report "$L" --rev main --history releases \
		--out "$WORK/r" --quiet
	python3 "$here/history-check.py" "$L" "$WORK/r" --snapshot "$tag" \
		--subsystem "$dir"
}

# The reader thread hands the trees it read to the walk (blame_read.c):
# with the walk made to wait for it (a test hook, so that the threads'
# timing cannot decide), some trees are handed over, and the whole tree's
# blame is byte for byte that of one job, which has no reader.
handoff() {
	local handed
	"$STRATA" blame "$L" --rev main --jobs 1 >"$WORK/one"
	STRATA_TEST_HANDOFF=wait:$$ "$STRATA" blame "$L" --rev main --jobs 2 \
		--verbose >"$WORK/two" 2>"$WORK/two.err"
	handed=$(sed -n 's/.* trees, \([0-9]*\) of them handed over.*/\1/p' \
		"$WORK/two.err")
	echo "handed over: ${handed:-none}"
	[ -n "$handed" ] && [ "$handed" -gt 0 ]
	cmp "$WORK/one" "$WORK/two"
}

run_case shape shape
run_case handoff handoff
run_case blame_sample blame_sample
run_case history_sample history_sample
finish
