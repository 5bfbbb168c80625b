#!/bin/bash
# The report in a real browser: headless Chromium opens every kind of page
# (the overview, releases, authors, untouched files, a subsystem, a
# subdirectory below it, the root files, hostile and long names) at 1280
# and 390 px, and
# tests/browser.py checks each: no console error, no failed load, no image
# missing, "How this was measured" closing every page, no sideways scroll of the page, every table beside its chart at
# 1280 and below it at 390, the phone's charts on a phone, no chart shrunk
# to unreadable, no two text boxes overlapping. Each case takes a
# screenshot and a print of its first page only (taking pictures is most
# of a page's time); SHOTS=DIR takes them of every page, and keeps them
# there to look at.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)

# The fixture, and a commit with subdirectories for pages at --depth 2.
# shellcheck disable=SC2046
site_repo "$WORK/repo"
REPO=$WORK/repo
(cd "$REPO" && put src/net/ip.c $(lines ip 1 30) &&
	put src/net/tcp/conn.c $(lines conn 1 12) &&
	put src/fs/ext.c $(lines ext 1 20) && commit "deeper") >/dev/null

PAGES="index releases history authors untouched src src/net root svg_onload_alert_1-35157b"

# One chromium for every case: starting it costs more than checking a
# few pages. Each case's browser.py hands its pages to this server
# (STRATA_BROWSER), which still loads each page in a tab of its own; it
# ends, closing chromium, when its stdin does (below, before finish).
if command -v chromium >/dev/null; then
	export STRATA_BROWSER=$WORK/browser.sock
	coproc BROWSER { exec python3 "$TESTS/browser.py" serve "$STRATA_BROWSER"; }
	browser_pid=$BROWSER_PID
	read -r -u "${BROWSER[0]}" ready && [ "$ready" = ready ] ||
		{ echo "browser.py serve did not start"; exit 1; }
fi

[ -n "${SHOTS:-}" ] && export ALL_SHOTS=1

keep_shots() {
	if [ -n "${SHOTS:-}" ]; then
		mkdir -p "$SHOTS" && cp "$1"/* "$SHOTS"/
	fi
}

browse() {
	local p shot args=()
	command -v chromium >/dev/null ||
		{ echo "chromium is missing (make deps installs it)"; return 1; }
	report "$REPO" --out out --depth 2
	for p in $PAGES; do
		[ -f "out/$p.html" ] || { echo "no out/$p.html"; return 1; }
		args+=("out/$p.html@1280" "out/$p.html@390")
	done
	python3 "$TESTS/browser.py" shots "${args[@]}"
	# The first page's pictures at both widths, and its print; the
	# others' with SHOTS only.
	for shot in index-1280 index-390 ${ALL_SHOTS:+$(for p in $PAGES; do
		echo "${p//\//_}-1280 ${p//\//_}-390"; done)}; do
		[ "$(head -c 8 "shots/$shot.png" | od -An -tx1 | tr -d ' ')" = \
			89504e470d0a1a0a ] || { echo "no screenshot $shot"; return 1; }
	done
	[ "$(head -c 5 shots/index-print.pdf)" = "%PDF-" ] ||
		{ echo "no print of index"; return 1; }
	keep_shots shots
}

# The same in the dark theme.
browse_dark() {
	command -v chromium >/dev/null || return 1
	report "$REPO" --out out --theme dark --depth 2
	has out/index.html '<html lang="en" class="dark">'
	python3 "$TESTS/browser.py" dark out/index.html@1280 out/src.html@390
	for f in dark/*.png; do
		mv "$f" "${f%.png}-dark.png"
	done
	keep_shots dark
}

# Pages of directories with hostile and long names, on a desktop and a
# phone: long names break, and nothing widens a page.
browse_names() {
	local p args=()
	command -v chromium >/dev/null || return 1
	names_repo "$WORK/names"
	report "$WORK/names" --out out --depth 2
	for p in index untouched releases authors arch NET; do
		args+=("out/$p.html@1280" "out/$p.html@390")
	done
	for p in out/A*-*.html out/aaa*-*/*.html out/bad_name-*.html; do
		args+=("$p@390")
	done
	python3 "$TESTS/browser.py" names "${args[@]}"
	for f in names/*.png; do
		mv "$f" "${f%.png}-names.png"
	done
	keep_shots names
}

# A maintenance tag on another branch (a release that wrote nothing HEAD
# holds, and the paragraph that says so) and calendar snapshots, at both
# widths: nothing overlaps.
# shellcheck disable=SC2046
browse_branches() {
	local p args=()
	command -v chromium >/dev/null || return 1
	site_repo "$WORK/branches"
	(cd "$WORK/branches" && git checkout -q -b maint v1.0 &&
		put README $(lines readme 1 9) fix && commit fix &&
		git tag v1.0.1 && git checkout -q - && put README $(lines readme 1 11) && commit more) >/dev/null
	report "$WORK/branches" --out out --history year
	has out/releases.html '<p id="silent">1 release on other branches'
	for p in index releases history; do
		args+=("out/$p.html@1280" "out/$p.html@390")
	done
	python3 "$TESTS/browser.py" branches "${args[@]}"
	keep_shots branches
}

# Thirty releases (the charts' legend a ramp, the bands named in the
# charts), eight of them within days and the rest months apart (a crowd
# of snapshots on the history's axis), in three subsystems: every kind
# of page with such charts, at both widths.
# shellcheck disable=SC2046
browse_many() {
	local i p args=()
	command -v chromium >/dev/null || return 1
	git init -q "$WORK/many"
	(cd "$WORK/many" && for ((i = 0; i < 30; i++)); do
		if [ "$i" -lt 8 ]; then tick 86400; else tick 8640000; fi
		put "lib/l$i.c" $(lines "l$i-" 1 $((5 + i * 7 % 40)))
		put "src/s$((i % 4)).c" $(lines "s$i-" 1 $((20 + i)))
		put "doc/d$i.txt" $(lines "d$i-" 1 $((i % 5 + 1)))
		commit "c$i" && git tag "v1.$i"
	done) >/dev/null
	report "$WORK/many" --out out --history releases
	for p in index releases history lib src untouched; do
		[ -f "out/$p.html" ] || { echo "no out/$p.html"; return 1; }
		args+=("out/$p.html@1280" "out/$p.html@390")
	done
	python3 "$TESTS/browser.py" many "${args[@]}"
	for f in many/*.png; do
		mv "$f" "${f%.png}-many.png"
	done
	keep_shots many
}

run_case browse browse
run_case browse_many browse_many
run_case browse_branches browse_branches
run_case browse_dark browse_dark
run_case browse_names browse_names
# Waited for: chromium's time is this script's.
if [ -n "${browser_pid:-}" ]; then
	browser_in=${BROWSER[1]}
	exec {browser_in}>&-
	wait "$browser_pid" || { echo "browser.py serve failed"; exit 1; }
fi
finish
