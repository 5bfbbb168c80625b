#!/bin/bash
# make bench REPO=... REV=... [JOBS=N] [SAMPLE=K] [RUNS=R]
#            [HISTORY=WHEN | AGAINST=BINARY | SCALE=1] [OPTS='--tags ...']
# make bench SHAPE='--commits C --files F --lines L' [SCALE=1] ...
#
# Times `strata blame` against per-file `git blame` with the same number of
# jobs (the way such studies were done before), and `git log -p` over the
# same history as a floor, all in this one run, and prints the ratios and
# strata's peak memory. SAMPLE=K blames only every K-th file with git and
# scales its time up by the share of lines sampled (say so when quoting).
# strata runs R times (default 3) and its median time counts: a run of
# under a second moves by 10 to 20% on a shared machine, where git
# blame's minutes average that out.
#
# SHAPE='ARGS': the repository is tests/linux-shape.py ARGS (a history of
# Linux's shape), made once into build/shape/ and kept there, REV main;
# the time to make it is printed when it is made.
# SCALE=1: `strata report --history releases` with --jobs 1 and with
# JOBS and `git log -p`, one after the other, RUNS times: the median
# times, the peak memory of each, and the ratios of runs taken in turn
# (their median and range).
set -eu

repo=${1:-}
rev=${2:-}
jobs=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${SHAPE:-}" ]; then
	name=$(printf '%s' "$SHAPE" | tr -c 'A-Za-z0-9.' _)
	repo=$here/build/shape/$name.git
	[ -n "$rev" ] || rev=main
	if [ ! -d "$repo" ]; then
		mkdir -p "$here/build/shape"
		rm -rf "$repo.tmp"
		git init -q --bare "$repo.tmp"
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086 # ARGS are words
		python3 "$here/tests/linux-shape.py" $SHAPE --stats \
			2>"$repo.stats" | git -C "$repo.tmp" fast-import --quiet
		t1=$(date +%s.%N)
		git -C "$repo.tmp" repack -adfq
		t2=$(date +%s.%N)
		mv "$repo.tmp" "$repo"
		printf 'made %s: generated and imported in %.0f s, repacked in %.0f s\n' \
			"$repo" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" |
			tee "$repo.made"
	fi
	tr '\n' ' ' <"$repo.stats"
	echo
fi
sample=${SAMPLE:-1}
runs=${RUNS:-3}
case $runs in '' | *[!0-9]* | 0) echo "bad RUNS: $runs" >&2; exit 2 ;; esac
[ -n "$repo" ] || { echo "usage: make bench REPO=path [REV=rev] [JOBS=n] [SAMPLE=k]" >&2; exit 2; }
[ -n "$rev" ] || rev=HEAD
[ -n "$jobs" ] || jobs=$(nproc)
strata=${STRATA:-$here/strata}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }

echo "repository: $repo at $rev, $jobs jobs"
commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
echo "commits: $(git -C "$repo" rev-list --count "$commit")"

# Two reports compared, runs taken in turn, with OPTS (--tags ...) for
# both: the median time, the median CPU time (user and system: the
# fairer measure on a busy host) and the highest peak memory of each.
#   HISTORY=WHEN: the cost of the history, `strata report --history WHEN`
#     against `--history none`.
#   AGAINST=BINARY: this strata's report against another build's (an
#     earlier commit's, built in a worktree), both with `--history none`.
# report_run A|B: one report of side A or B; its time, CPU time and peak
# memory appended to $tmp/{t,c,m}.A|B.
report_run() {
	local bin=$strata h=none
	if [ "$1" = A ] && [ -n "${AGAINST:-}" ]; then bin=$AGAINST; fi
	if [ "$1" = B ] && [ -n "${HISTORY:-}" ]; then h=$HISTORY; fi
	rm -rf "$tmp/out"
	t0=$(now)
	/usr/bin/time -f '%M %U %S' -o "$tmp/mem" "$bin" report \
		"$repo" --rev "$commit" --jobs "$jobs" --quiet \
		--out "$tmp/out" --history "$h" "${opts[@]}"
	t1=$(now)
	secs "$t0" "$t1" >> "$tmp/t.$1"
	read -r m u s < <(tail -n 1 "$tmp/mem")
	echo "$u + $s" | bc >> "$tmp/c.$1"
	echo "$m" >> "$tmp/m.$1"
}

median() { sort -n "$1" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
most() { sort -n "$1" | tail -n 1; }
# ratio A B: the ratios of run k of B to run k of A, taken one after the
# other, as "MEDIANx (LOWx to HIGHx in N runs)". The host's speed drifts
# by a third from one minute to the next; a ratio of two runs in a row
# drifts far less than a ratio of medians taken minutes apart.
ratio() {
	paste "$1" "$2" | awk '{ print $2 / $1 }' | sort -n | awk '
		{ r[NR] = $1 }
		END { printf "%.2fx (%.2fx to %.2fx in %d runs)",
			r[int((NR + 1) / 2)], r[1], r[NR], NR }'
}

# SCALE=1: the report with every release's snapshot, on one job and on
# JOBS, against git log -p.
if [ "${SCALE:-0}" = 1 ]; then
	read -ra opts <<<"${OPTS:-}"
	for r in $(seq "$runs"); do
		for j in 1 "$jobs"; do
			rm -rf "$tmp/out"
			t0=$(now)
			/usr/bin/time -f '%M %U %S' -o "$tmp/mem" "$strata" report \
				"$repo" --rev "$commit" --jobs "$j" --quiet --verbose \
				--out "$tmp/out" --history releases "${opts[@]}" \
				2>"$tmp/verbose.$j"
			t1=$(now)
			secs "$t0" "$t1" >> "$tmp/t.$j"
			read -r m u s < <(tail -n 1 "$tmp/mem")
			echo "$u + $s" | bc >> "$tmp/c.$j"
			echo "$m" >> "$tmp/m.$j"
		done
		t0=$(now)
		git -C "$repo" log -p "$commit" > /dev/null
		t1=$(now)
		secs "$t0" "$t1" >> "$tmp/t.log"
	done
	sed 's/^/  /' "$tmp/verbose.$jobs"
	for j in 1 "$jobs"; do
		printf 'report --history releases, --jobs %-3s %8.2f s %8.2f s CPU %6.0f MiB\n' \
			"$j" "$(median "$tmp/t.$j")" "$(median "$tmp/c.$j")" \
			"$(echo "$(most "$tmp/m.$j") / 1024" | bc -l)"
	done
	printf '%-41s %8.2f s\n' "git log -p" "$(median "$tmp/t.log")"
	printf -- '--jobs %s takes %s the time of --jobs 1\n' "$jobs" \
		"$(ratio "$tmp/t.1" "$tmp/t.$jobs")"
	printf -- 'the report on %s jobs takes %s the time of git log -p\n' \
		"$jobs" "$(ratio "$tmp/t.log" "$tmp/t.$jobs")"
	exit 0
fi

if [ -n "${HISTORY:-}${AGAINST:-}" ]; then
	[ -z "${HISTORY:-}" ] || [ -z "${AGAINST:-}" ] ||
		{ echo "HISTORY and AGAINST: one at a time" >&2; exit 2; }
	read -ra opts <<<"${OPTS:-}"
	for r in $(seq "$runs"); do
		report_run A
		if [ -n "${AGAINST:-}" ]; then rm -rf "$tmp/a-out" && mv "$tmp/out" "$tmp/a-out"; fi
		report_run B
	done
	if [ -n "${HISTORY:-}" ]; then
		snaps=$(python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["history"]["snapshots"]))' \
			"$tmp/out/data/report.json")
		label_a="report --history none"
		label_b="report --history $HISTORY ($snaps snapshots)"
		what="the history costs"
	else
		label_a="report of $AGAINST"
		label_b="report of $strata"
		what="this build's report takes"
	fi
	for k in A B; do
		printf '%-44s %8.2f s %8.2f s CPU %6.0f MiB\n' \
			"$([ $k = A ] && echo "$label_a" || echo "$label_b")" \
			"$(median "$tmp/t.$k")" "$(median "$tmp/c.$k")" \
			"$(echo "$(most "$tmp/m.$k") / 1024" | bc -l)"
	done
	printf '%s %s the time, %s the CPU time, and %.2fx the peak memory\n' \
		"$what" "$(ratio "$tmp/t.A" "$tmp/t.B")" \
		"$(ratio "$tmp/c.A" "$tmp/c.B")" \
		"$(echo "$(most "$tmp/m.B") / $(most "$tmp/m.A")" | bc -l)"
	exit 0
fi

# strata, RUNS times: the median time, the highest peak resident memory.
: > "$tmp/times"
mem_kb=0
for r in $(seq "$runs"); do
	t0=$(now)
	/usr/bin/time -f '%M' -o "$tmp/mem" \
		"$strata" blame "$repo" --rev "$commit" --jobs "$jobs" --quiet \
		--verbose > "$tmp/strata.out" 2> "$tmp/strata.err"
	t1=$(now)
	secs "$t0" "$t1" >> "$tmp/times"
	m=$(tail -n 1 "$tmp/mem")
	if [ "$m" -gt "$mem_kb" ]; then mem_kb=$m; fi
done
t_strata=$(sort -n "$tmp/times" |
	awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
echo "strata runs: $(sort -n "$tmp/times" |
	awk '{ printf "%s%.2f s", (NR > 1 ? ", " : ""), $1 }') (the median counts)"
files=$(cut -f4 "$tmp/strata.out" | uniq | wc -l)
lines=$(awk -F'\t' '{ n += $3 } END { print n + 0 }' "$tmp/strata.out")
echo "text files: $files, lines: $lines"
sed 's/^/  /' "$tmp/strata.err"

# per-file git blame, JOBS at a time, on every SAMPLE-th file.
cut -f4 "$tmp/strata.out" | uniq | awk -v k="$sample" '(NR - 1) % k == 0' > "$tmp/files"
sampled_lines=$(awk -F'\t' 'NR == FNR { w[$0] = 1; next } ($4 in w) { n += $3 } END { print n + 0 }' \
	"$tmp/files" "$tmp/strata.out")
t0=$(now)
tr '\n' '\0' < "$tmp/files" | xargs -0 -P "$jobs" -n 1 \
	sh -c 'git -C "$0" blame --porcelain "$1" -- "$2" > /dev/null' "$repo" "$commit"
t1=$(now)
t_blame=$(secs "$t0" "$t1")
if [ "$sample" != 1 ]; then
	t_blame=$(echo "$t_blame * $lines / $sampled_lines" | bc -l)
	echo "git blame: $(wc -l < "$tmp/files") of $files files sampled, time scaled by lines"
fi

# git log -p over the same history: reading and diffing every change once.
t0=$(now)
git -C "$repo" log -p "$commit" > /dev/null
t1=$(now)
t_log=$(secs "$t0" "$t1")

printf '%-28s %10.2f s\n' "strata blame" "$t_strata" "per-file git blame" "$t_blame" "git log -p" "$t_log"
printf 'strata is %.1fx faster than per-file git blame, %.2fx the time of git log -p\n' \
	"$(echo "$t_blame / $t_strata" | bc -l)" "$(echo "$t_strata / $t_log" | bc -l)"
printf 'strata peak memory: %.0f MiB\n' "$(echo "$mem_kb / 1024" | bc -l)"
