#!/bin/bash
# Unit tests of the site under ASan/UBSan when the machine can run them:
# tests/unit/template_test.c (the ctemplate bridge: escaping by context,
# sections, includes, no template shared between sets, errors as messages
# and nothing on stderr) and tests/unit/site_test.c (report_publish() on a
# hand-made tally two levels deep, with names no repository fixture has).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
# fontconfig keeps its caches to the end; not ours to free (tests/lsan.supp).
unit_setup t-site-unit --san-auto
# Every module but main.c; the objects are built once for both programs,
# at -O0: building them is most of the script, and the tests are small.
srcs=()
for f in "$root"/src/*.c; do
	[ "${f##*/}" = main.c ] || srcs+=("$f")
done
for t in template_test site_test; do
	unit_build "$tmp/$t" "libgit2 libdeflate zlib cairo pangocairo libctemplate" \
		-O0 '-DSTRATA_VERSION="test"' "tests/unit/$t.c" "${srcs[@]}" \
		src/template.cc
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
# Two levels: net/deep has its page below net's (whose name has a suffix:
# Net takes the plain one), linked from it, which links up; src lists its
# subdirectories and files, and has a page below it for "a&b "q"".
has out/net-93b929.html '<a href="net-93b929/deep.html">deep/</a>'
has out/net-93b929/deep.html '<a href="../net-93b929.html" rel="up">Up to net/</a>'
has out/net-93b929/deep.html '<link rel="stylesheet" href="../strata.css">'
has out/src.html '<tr class="file"><th scope="row" class="path">main.c</th><td class="num opt"></td><td class="num">30</td>'
has out/src.html '<a href="src/sub.html">sub/</a>'
# A control character and a byte that is not UTF-8, shown, not sent.
has out/src/a_b_q-4a1dc4.html '\x1b[31mred.c'
has out/untouched.html '<td class="path">caf\xe9.c</td>'
# Files strata did not write survive a second run.
echo mine >out/mine.txt
"$tmp/site_test" out "$root/templates" || fail "second site_test"
[ "$(cat out/mine.txt)" = mine ] || fail "mine.txt lost"
echo "site_test: ok"
