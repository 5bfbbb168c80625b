#!/bin/bash
# Unit tests of the site under ASan/UBSan when the machine can run them:
# tests/unit/template_test.c (the ctemplate bridge: escaping by context,
# sections, includes, no template shared between sets, errors as messages
# and nothing on stderr) and tests/unit/site_test.c (report_publish() on a
# hand-made tally two levels deep, with names no repository fixture has).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-site-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

export LC_ALL=C TZ=UTC
CC=${CC:-cc}
CXX=${CXX:-c++}
pkgs="libgit2 cairo pangocairo libpng libctemplate"
# shellcheck disable=SC2086
pkg-config --exists $pkgs || fail "missing libraries ($pkgs)"

san=
echo 'int main(void){return 0;}' >"$tmp/san.c"
if "$CC" -fsanitize=address,undefined "$tmp/san.c" -o "$tmp/san" \
	2>/dev/null && "$tmp/san" 2>/dev/null; then
	san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
	# fontconfig keeps its caches to the end; not ours to free.
	echo 'leak:libfontconfig' >"$tmp/lsan.supp"
	export LSAN_OPTIONS=suppressions=$tmp/lsan.supp:print_suppressions=0
fi
# shellcheck disable=SC2086
read -ra pkg_cflags <<<"$(pkg-config --cflags $pkgs)"
# shellcheck disable=SC2086
read -ra pkg_libs <<<"$(pkg-config --libs $pkgs)"
read -ra san_flags <<<"$san"
flags=(-Wall -Wextra -Werror -D_GNU_SOURCE '-DSTRATA_VERSION="test"' -O1 -g
	"${san_flags[@]}" "-I$root/include" "${pkg_cflags[@]}")
objs=()
for f in "$root"/src/*.c; do
	[ "${f##*/}" = main.c ] && continue
	o=$tmp/$(basename "$f" .c).o
	"$CC" -std=c11 "${flags[@]}" -c -o "$o" "$f" || fail "unable to build $f"
	objs+=("$o")
done
"$CXX" -std=c++17 "${flags[@]}" -c -o "$tmp/template.o" \
	"$root/src/template.cc" || fail "unable to build src/template.cc"
for t in template_test site_test; do
	"$CC" -std=c11 "${flags[@]}" -c -o "$tmp/$t.o" "$root/tests/unit/$t.c" &&
		"$CXX" "${san_flags[@]}" -o "$tmp/$t" "$tmp/$t.o" "${objs[@]}" \
			"$tmp/template.o" "${pkg_libs[@]}" -lm ||
		fail "unable to build $t"
done

mkdir "$tmp/tpl"
"$tmp/template_test" "$tmp/tpl" 2>"$tmp/stderr" | tee "$tmp/tpl.out"
grep -qx ok "$tmp/tpl.out" || fail "template_test"
[ ! -s "$tmp/stderr" ] || { cat "$tmp/stderr"; fail "ctemplate printed"; }

cd "$tmp"
"$tmp/site_test" out "$root/templates" || fail "site_test"
python3 "$root/tests/linkcheck.py" out || fail "links"
has() {
	grep -qF -- "$2" "$1" || fail "'$1' lacks: $2"
}
# Two levels: net/deep has its page, linked from net's, which links up.
has out/dir-net.html '<a href="dir-net_2fdeep.html">deep</a>'
has out/dir-net_2fdeep.html '<a href="dir-net.html" rel="up">Up to net/</a>'
has out/dir-src.html '<tr class="own"><th scope="row">files directly in src/</th><td class="num">2</td><td class="num">36</td>'
# A control character and a byte that is not UTF-8, shown, not sent.
has out/dir-src_2fa_26b_20_22q_22.html '\x1b[31mred.c'
has out/untouched.html '<td class="path">caf\xe9.c</td>'
# Files strata did not write survive a second run.
echo mine >out/mine.txt
"$tmp/site_test" out "$root/templates" || fail "second site_test"
[ "$(cat out/mine.txt)" = mine ] || fail "mine.txt lost"
echo "site_test: ok"
