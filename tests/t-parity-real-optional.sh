#!/bin/bash
# OPTIONAL, external data: parity with git blame on tmux's real history,
# given as TMUX_REPO=PATH (a clone of https://github.com/tmux/tmux, bare or
# not, with its tags). Without it the script is skipped (exit 77, with the
# reason: tests/run counts it); a TMUX_REPO without tmux's tag 2.0 fails.
. "$(dirname "$0")/lib.sh"

[ -n "${TMUX_REPO:-}" ] ||
	skip_all "TMUX_REPO is not set (a clone of tmux's history)"
REPO=$TMUX_REPO
if ! git -C "$REPO" rev-parse -q --verify 2.0^{commit} >/dev/null 2>&1; then
	echo "TMUX_REPO=$REPO is not a clone of tmux with its tag 2.0"
	exit 1
fi

# `sample REV N`: N text files of REV, spread evenly over the sorted list
# (deterministic), as arguments for `parity ... --`.
sample() {
	text_files "$REPO" "$1" | tr '\0' '\n' |
		awk -v n="$2" '{ f[NR] = $0 } END {
			step = NR / n; if (step < 1) step = 1
			for (i = 1; i <= NR; i += step) print f[int(i)] }'
}

# parity_sampled REPO REV N: like parity, but git blame runs only on N of
# the text files; strata runs on all of them, and must print them all.
parity_sampled() {
	local d
	d=$(mktemp -d "$WORK/sampled.XXXXXX")
	text_files "$1" "$2" >"$d/all"
	sample "$2" "$3" | tr '\n' '\0' >"$d/list"
	run_strata "$1" "$2" "$d/strata"
	strata_expand "$d/actual.all" "$d/printed" <"$d/strata"
	perl -0 -ne "$_PERL_ENC"'chomp; print enc($_), "\n"' "$d/all" |
		sort >"$d/files.want"
	sort "$d/printed" | cmp - "$d/files.want"
	# Only the sampled files' lines take part in the comparison.
	perl -0 -ne "$_PERL_ENC"'chomp; print enc($_), "\n"' "$d/list" >"$d/keep"
	awk -F '\t' 'NR == FNR { k[$0] = 1; next } ($1 in k)' \
		"$d/keep" "$d/actual.all" >"$d/actual"
	git_expand "$1" "$2" "$d/list" >"$d/expected"
	compare_expanded "$1" "$d/expected" "$d/actual"
	echo "parity ok: $(wc -l <"$d/expected") lines of $3 sampled files at $2"
}

# Every file of an old release (~190 files, 5,000 commits).
tmux_2_0() {
	parity "$REPO" 2.0
}

# The newest release the mirror has: strata blames every file (and must
# print exactly the text files), git blame checks a sample, as it is the
# slow side; -w and --first-parent on a smaller sample.
tmux_latest() {
	local tag files
	tag=$(git -C "$REPO" tag --sort=-creatordate | sed -n 1p)
	parity_sampled "$REPO" "$tag" 100
	mapfile -t files < <(sample "$tag" 30)
	parity "$REPO" "$tag" -w -- "${files[@]}"
	parity "$REPO" "$tag" --first-parent -- "${files[@]}"
}

# The five biggest non-merge commits before 3.0 ignored (they touch many
# files, so many lines go through git's fingerprint matching).
tmux_ignore() {
	local ign=() c files
	for c in $(git -C "$REPO" log --no-merges --format='C %H' --shortstat 3.0 |
		awk '/^C / { c = $2 } / changed/ { n = 0
			for (i = 1; i < NF; i++) if ($(i + 1) ~ /^(insertion|deletion)/) n += $i
			print n, c }' | sort -k1,1nr -k2,2 | awk 'NR <= 5 { print $2 }'); do
		ign+=(--ignore-rev "$c")
	done
	mapfile -t files < <(sample 3.0 30)
	parity "$REPO" 3.0 "${ign[@]}" -- "${files[@]}"
}

# A directory given as a path: everything under it.
tmux_directory() {
	parity "$REPO" 3.0 -- compat
}

run_case tmux-2.0 tmux_2_0
run_case tmux-latest tmux_latest
run_case tmux-directory tmux_directory
run_case tmux-ignore tmux_ignore
finish
