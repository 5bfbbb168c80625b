#!/bin/bash
# Release charts of many releases: beyond 60 releases, img/releases.png
# has a bar per group of releases (by version, else by year), each as high
# as its releases' lines together, while data/releases.csv keeps every
# release; up to 60 releases, a bar each.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)

report() {
	local repo=$1 out=$2
	shift 2
	SOURCE_DATE_EPOCH=1 "$STRATA" report "$repo" --out "$out" --quiet \
		--history none "$@"
}

# The histories are written as git fast-import input and read by one git
# fast-import: a commit made with git add and git commit is a handful of
# processes, and the 200 of them were most of this test's time. The
# commits are those lib.sh's put, commit and git tag would make (the same
# author, dates, messages and trees: the same ids).

# fi_commit MSG PATH N PREFIX: a commit on main adding PATH, N lines
# PREFIX1..PREFIXN, one tick later (as commit).
fi_commit() {
	local k body=
	for ((k = 1; k <= $3; k++)); do
		body+="$4$k"$'\n'
	done
	tick
	fi_head refs/heads/main "$_clock +0000" "$1"
	fi_file "$2" "$body"
}

# release N TAG [SECONDS]: a commit adding N lines of its own, tagged TAG,
# SECONDS (default 23 days) after the last one (fast-import input).
release() {
	tick "${3:-2000000}"
	fi_commit "release $2" "r/$2.txt" "$1" "$2-"
	printf 'reset refs/tags/%s\nfrom refs/heads/main\n\n' "$2"
}

# check_bars REPORT KEYS: the bars of REPORT/img/releases.png are one per
# line of the file KEYS ("GROUP LINES": the lines of each group, in
# order), with distinct colours, and heights in proportion to their lines.
check_bars() {
	python3 "$here/png-bars.py" "$1/img/releases.png" >"$1/bars"
	awk -v keys="$2" '
		{ x0[NR] = $1; h[NR] = $3; col[NR] = $4; n = NR }
		END {
			while ((getline line < keys) > 0) {
				split(line, f, " ")
				m++; name[m] = f[1]; want[m] = f[2]
				if (f[2] > top) top = f[2]
				if (h[m] > htop) htop = h[m]
			}
			if (n != m) {
				printf "%d bars, not %d\n", n, m; exit 1
			}
			for (i = 1; i <= n; i++) {
				e = want[i] / top * htop
				if (h[i] < e - 2 || h[i] > e + 2) {
					printf "bar %s: %d px, not %.1f\n",
						name[i], h[i], e; exit 1
				}
				for (j = 1; j < i; j++)
					if (col[j] == col[i]) {
						printf "bars %d and %d: one colour\n",
							j, i; exit 1
					}
			}
		}' "$1/bars"
}

# rows REPORT: the releases of data/releases.csv (unreleased included).
rows() {
	awk 'END { print NR - 1 }' "$1/data/releases.csv"
}

# 130 versions v1.0.0..v1.12.9, 12 days apart, and code not yet released:
# 13 bars by version (more than the five years give) and the unreleased
# one; at v1.5.9, 60 releases: a bar each.
case_version() {
	local i keys
	repo_new repo
	{
		for ((i = 0; i < 130; i++)); do
			release $((i % 7 + 1)) "v1.$((i / 10)).$((i % 10))" 1000000
		done
		fi_commit "not released yet" later.txt 30 later
	} | git fast-import --quiet
	report . "$WORK/v"
	[ "$(rows "$WORK/v")" = 131 ] || {
		echo "releases.csv: $(rows "$WORK/v") releases, not 131"
		return 1
	}
	keys=$WORK/v.keys
	awk -F, 'NR > 1 { g = $1 == "" ? "unreleased" : $1
		sub(/\.[0-9]+$/, ".x", g)
		if (!(g in sum)) order[++n] = g; sum[g] += $5 }
		END { for (i = 1; i <= n; i++) print order[i], sum[order[i]] }' \
		"$WORK/v/data/releases.csv" >"$keys"
	[ "$(wc -l <"$keys")" = 14 ] || { cat "$keys"; return 1; }
	check_bars "$WORK/v" "$keys"

	report . "$WORK/v60" --rev v1.5.9
	awk -F, 'NR > 1 { print $1, $5 }' "$WORK/v60/data/releases.csv" \
		>"$WORK/v60.keys"
	[ "$(wc -l <"$WORK/v60.keys")" = 60 ]
	check_bars "$WORK/v60" "$WORK/v60.keys"
}

# 70 releases named without a number, over several years: a bar per year
# of the releases' tags (releases.csv's dates).
case_year() {
	local i name
	local letters=abcdefghijklmnopqrstuvwxyz
	repo_new repo
	{
		for ((i = 0; i < 70; i++)); do
			name=release-${letters:i / 26:1}${letters:i % 26:1}
			release $((i % 4 + 1)) "$name"
		done
		fi_commit "not released yet" later.txt 9 later
	} | git fast-import --quiet
	report . "$WORK/y" --tags 'release-[a-z]+'
	[ "$(rows "$WORK/y")" = 71 ]
	awk -F, 'NR > 1 { g = $3 == "" ? "unreleased" : substr($3, 1, 4)
		if (!(g in sum)) order[++n] = g; sum[g] += $5 }
		END { for (i = 1; i <= n; i++) print order[i], sum[order[i]] }' \
		"$WORK/y/data/releases.csv" >"$WORK/y.keys"
	# 70 releases 23 days apart from October 2020 to February 2025
	[ "$(wc -l <"$WORK/y.keys")" = 7 ] || { cat "$WORK/y.keys"; return 1; }
	check_bars "$WORK/y" "$WORK/y.keys"
}

run_case version case_version
run_case year case_year
finish
