#!/bin/bash
# Charts: build tests/unit/chart_test.c against src/chart*.c and run its
# checks (sizes, pixels, edge cases, determinism in one process); then
# well-formed SVG, byte-identical output from two processes, nothing on
# stderr, and a clear failure when the font is missing.
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
# make test SAN=1: under ASan/UBSan. fontconfig leaks a little of what it
# parses from its configuration, which is not ours to fix (tests/lsan.supp).
unit_setup t-chart
command -v xmllint >/dev/null || fail "xmllint not found (libxml2-utils)"

unit_build "$tmp/chart_test" "cairo pangocairo libgit2 libdeflate zlib" \
	tests/unit/chart_test.c src/chart.c src/error.c src/names.c src/tally.c \
	src/snapshots.c src/history.c src/repository.c src/odb.c -pthread

# The checks; the library must print nothing.
mkdir "$tmp/check"
"$tmp/chart_test" check "$tmp/check" 2>"$tmp/stderr" ||
	fail "chart_test check failed: $(cat "$tmp/stderr")"
[ ! -s "$tmp/stderr" ] || fail "output on stderr: $(head -5 "$tmp/stderr")"

# Every SVG is well-formed XML: one xmllint reads them all (one per file
# was most of this script's processes), and names each that is not.
svgs=("$tmp"/check/*/*.svg)
n=${#svgs[@]}
[ -e "${svgs[0]}" ] || n=0
xmllint --noout "${svgs[@]}" 2>"$tmp/xml" ||
	fail "not well-formed: $(sed "s|$tmp/||" "$tmp/xml" | head -3)"
[ "$n" -gt 100 ] || fail "only $n SVG files"

# Two processes give the same bytes.
mkdir "$tmp/a" "$tmp/b"
"$tmp/chart_test" gen "$tmp/a" || fail "chart_test gen failed"
"$tmp/chart_test" gen "$tmp/b" || fail "chart_test gen failed"
diff -r "$tmp/a" "$tmp/b" >/dev/null ||
	fail "two runs differ: $(diff -rq "$tmp/a" "$tmp/b" | head -3)"
cmp -s "$tmp/a/releases.svg" "$tmp/check/det-a/releases.svg" ||
	fail "the same charts differ between processes"

# Without the font, the check says so (fontconfig with no font at all).
cat >"$tmp/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$tmp/nofonts</dir><cachedir>$tmp/cache</cachedir></fontconfig>
EOF
mkdir "$tmp/nofonts"
if FONTCONFIG_FILE="$tmp/fonts.conf" "$tmp/chart_test" font \
	2>"$tmp/stderr"; then
	fail "font check passed without fonts"
fi
grep -q "font 'DejaVu Sans'" "$tmp/stderr" ||
	fail "unclear font error: $(cat "$tmp/stderr")"
"$tmp/chart_test" font || fail "font check fails with the font installed"

echo "t-chart: ok"
