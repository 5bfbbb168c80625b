#!/bin/bash
# OPTIONAL, external data: parity with git blame on tmux's real history,
# if a mirror of it is on this machine (/work/.mirror/tmux+tmux/repo, a bare
# repository; TMUX_REPO=... to point elsewhere). Without it this test says
# so and passes: it is the only test allowed to skip.
. "$(dirname "$0")/lib.sh"

REPO=${TMUX_REPO:-/work/.mirror/tmux+tmux/repo}

if ! git -C "$REPO" rev-parse -q --verify 2.0^{commit} >/dev/null 2>&1; then
	echo "note: no tmux mirror at $REPO; optional external-data test" \
		"skipped"
	echo "0 cases, 0 failed"
	exit 0
fi

# `sample REV N`: N text files of REV, spread evenly over the sorted list
# (deterministic), as arguments for `parity ... --`.
sample() {
	text_files "$REPO" "$1" | tr '\0' '\n' |
		awk -v n="$2" '{ f[NR] = $0 } END {
			step = NR / n; if (step < 1) step = 1
			for (i = 1; i <= NR; i += step) print f[int(i)] }'
}

# Every file of an old release (~190 files, 5,000 commits).
tmux_2_0() {
	parity "$REPO" 2.0
}

# Every file of the newest release the mirror has; sampled with -w and
# --first-parent (git blame is the slow side).
tmux_latest() {
	local tag
	tag=$(git -C "$REPO" tag --sort=-creatordate | head -n 1)
	parity "$REPO" "$tag"
	local files
	mapfile -t files < <(sample "$tag" 40)
	parity "$REPO" "$tag" -w -- "${files[@]}"
	parity "$REPO" "$tag" --first-parent -- "${files[@]}"
}

# A directory given as a path: everything under it.
tmux_directory() {
	parity "$REPO" 3.0 -- compat
}

run_case tmux-2.0 tmux_2_0
run_case tmux-latest tmux_latest
run_case tmux-directory tmux_directory
finish
