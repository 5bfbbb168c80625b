#!/bin/bash
# The report in a real browser: headless Chromium opens the overview and a
# subsystem page (the hostile one too) at desktop and phone widths, with no
# console error, no failed load, no image missing and no sideways scroll,
# and takes screenshots. SHOTS=DIR keeps them (and the printed PDFs) to
# look at.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)

site_repo "$WORK/repo"
REPO=$WORK/repo

browse() {
	local shot
	command -v chromium >/dev/null ||
		{ echo "chromium is missing (make deps installs it)"; return 1; }
	report "$REPO" --out out
	python3 "$TESTS/browser.py" shots \
		out/index.html@1280 out/index.html@390 \
		out/dir-src.html@1280 out/dir-src.html@390 \
		out/dir-_3csvg_20onload_3dalert_281_29_3e.html@1280 \
		out/untouched.html@1280 out/releases.html@1280 \
		out/history.html@1280 out/history.html@390
	for shot in index-1280 index-390 dir-src-1280 dir-src-390 history-1280 \
		history-390; do
		[ "$(head -c 8 "shots/$shot.png" | od -An -tx1 | tr -d ' ')" = \
			89504e470d0a1a0a ] || { echo "no screenshot $shot"; return 1; }
	done
	if [ -n "${SHOTS:-}" ]; then
		mkdir -p "$SHOTS" && cp shots/* "$SHOTS"/
	fi
}

# The same in the dark theme.
browse_dark() {
	command -v chromium >/dev/null || return 1
	report "$REPO" --out out --theme dark
	has out/index.html '<html lang="en" class="dark">'
	python3 "$TESTS/browser.py" shots out/index.html@1280
	if [ -n "${SHOTS:-}" ]; then
		mkdir -p "$SHOTS" && cp shots/index-1280.png "$SHOTS"/index-dark-1280.png
	fi
}

run_case browse browse
run_case browse_dark browse_dark
finish
