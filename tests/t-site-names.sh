#!/bin/bash
# The names of pages and charts (include/strata/names.h): any directory git
# can store publishes, under a name that is readable where the directory's
# is, bounded, safe in a URL and unique on file systems that ignore case;
# the page shows the real name. A directory's page lists what is in it.
# A tag named `unreleased` is told apart from the unreleased commits.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/site-lib.sh"
TESTS=$(cd "$(dirname "$0")" && pwd)

# What a page shows for a name, as site.c's display() and the template's
# HTML escaping make it.
cat >"$WORK/names-check.py" <<'EOF'
import html, json, os, re, sys

out = sys.argv[1]


def display(raw):
    s, i = "", 0
    while i < len(raw):
        for n in (4, 3, 2, 1):
            try:
                ch = raw[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                break
        else:
            ch = None
        if ch is None or ord(ch) < 0x20 or 0x7f <= ord(ch) < 0xa0:
            k = len(ch.encode("utf-8")) if ch else 1
            s += "".join("\\x%02x" % b for b in raw[i:i + k])
            i += k
            continue
        s += ch
        i += len(ch.encode("utf-8"))
    return html.escape(s, quote=True)


report = json.load(open(os.path.join(out, "data/report.json")))
want = set()
for d in report["directories"]:
    if d["level"] == 0 or d["path"] == ".":
        continue
    raw = bytes.fromhex(d["path_bytes"]) if "path_bytes" in d \
        else d["path"].encode("utf-8")
    want.add(display(raw) + "/")
shown, files = set(), []
site_pages = {"index.html", "releases.html", "untouched.html", "root.html",
              "history.html", "authors.html", "cycle.html"}
for top, dirs, names in os.walk(out):
    rel = os.path.relpath(top, out)
    dirs[:] = [d for d in dirs if rel != "." or d not in ("data", "img")]
    for n in names:
        path = n if rel == "." else rel + "/" + n
        if not n.endswith(".html") or path in site_pages:
            continue
        files.append(path)
        page = open(os.path.join(top, n), encoding="utf-8").read()
        m = re.search(r'<h1><span class="path">(.*?)</span></h1>', page)
        if not m:
            sys.exit("%s: no directory heading" % path)
        shown.add(m.group(1))
bad = False
for s in sorted(want - shown):
    print("no page shows %r" % s)
    bad = True
for s in sorted(shown - want):
    print("a page shows %r, no directory" % s)
    bad = True
if len(files) != len(want):
    print("%d pages for %d directories" % (len(files), len(want)))
    bad = True
sys.exit(1 if bad else 0)
EOF

# Every name strata wrote: short components of [A-Za-z0-9._@-], none
# starting with `-` or `.`, unique when case is ignored.
names_ok() {
	local out=$1
	(cd "$out" && find . -mindepth 1 ! -name .strata-report) | sed 's|^\./||' >"$WORK/all"
	if LC_ALL=C grep -v '^[A-Za-z0-9._@/-]*$' "$WORK/all"; then
		echo "names with other bytes"
		return 1
	fi
	if grep -E '(^|/)[-.]' "$WORK/all"; then
		echo "names starting with - or ."
		return 1
	fi
	# The longest: history-dir- (12), a stem (56), @share@narrow.svg (17).
	if tr '/' '\n' <"$WORK/all" | awk 'length > 85' | grep .; then
		echo "components longer than 85 bytes"
		return 1
	fi
	if tr 'A-Z' 'a-z' <"$WORK/all" | sort | uniq -d | grep .; then
		echo "names equal but for case"
		return 1
	fi
}

hostile_names() {
	names_repo "$WORK/repo"
	report "$WORK/repo" --out out --depth 2
	names_ok out
	python3 "$TESTS/linkcheck.py" out
	python3 "$WORK/names-check.py" out
	# Readable where the name is; the first in byte order keeps a name
	# that others have but for case; the site's own names stay its own.
	for p in Documentation.html arch.html arch/X86.html NET.html root.html \
		x.html img/dir-Documentation.svg img/dir-arch/X86@narrow.svg \
		img/dir-root.png; do
		[ -f "out/$p" ] || { echo "no out/$p"; return 1; }
	done
	has out/index.html '<h1>How old is the code in repo?</h1>'
	has out/root.html '<h1>Files in the root directory</h1>'
	has out/NET.html '<span class="path">NET/</span>'
	ls out | grep -E '^(Net|net|index|img|data|root|CON|com1\.txt|a\.html|b\.PNG|x86\.svg)-[0-9a-f]{6}\.html$' >names
	[ "$(wc -l <names)" = 11 ] || { cat names; echo "not 11 names with a suffix"; return 1; }
	ls out/arch | grep -Eqx 'x86-[0-9a-f]{6}\.html' || { ls out/arch; return 1; }
	# 90 capitals: a name cut short, with its page below.
	ls out | grep -Eqx 'A{49}-[0-9a-f]{6}\.html'
	ls out/A*-*/ | grep -qx 'sub.html'
	# The same repository gives the same names and bytes.
	report "$WORK/repo" --out again --depth 2
	diff -r out again
}

# A directory's page lists its subdirectories and its files, with their
# lines, old share and a bar; a subdirectory links to its page if it has
# one (--depth 2), and is listed without one at --depth 1.
contents() {
	repo_new "$WORK/c"
	at 1262304000
	put tests/run.sh $(lines run 1 4)
	put tests/modules/a.jq $(lines a 1 6)
	put tests/modules/b.jq $(lines b 1 2)
	put tests/torture/t.c $(lines t 1 8)
	put src/main.c $(lines m 1 10)
	commit "1.0"
	git tag v1.0
	at 1270000000
	put tests/torture/t.c $(lines t 1 8) $(lines u 1 8)
	commit "2.0"
	git tag v2.0
	cd - >/dev/null || return
	report "$WORK/c" --out one
	# 28 lines in tests: modules 8 (all v1.0), torture 16 (8), run.sh 4.
	has one/tests.html \
		'2 directories and 1 file directly in tests/' \
		'<tr class="dir"><th scope="row" class="path">modules/</th><td class="num opt">2</td><td class="num">8</td><td class="num opt">28.57%</td><td class="num">100.00%</td><td class="bar"><span class="bar" style="width:50.0%"><span class="old" style="width:100.0%"></span></span></td></tr>' \
		'<tr class="dir"><th scope="row" class="path">torture/</th><td class="num opt">1</td><td class="num">16</td><td class="num opt">57.14%</td><td class="num">50.00%</td><td class="bar"><span class="bar" style="width:100.0%"><span class="old" style="width:50.0%"></span></span></td></tr>' \
		'<tr class="file"><th scope="row" class="path">run.sh</th><td class="num opt"></td><td class="num">4</td><td class="num opt">14.29%</td><td class="num">100.00%</td>'
	# Directories first, then files.
	grep -n 'class="path">' one/tests.html | tail -n 3 | grep -q 'run.sh'
	report "$WORK/c" --out two --depth 2
	has two/tests.html \
		'<th scope="row" class="path"><a href="tests/modules.html">modules/</a></th>' \
		'<th scope="row" class="path"><a href="tests/torture.html">torture/</a></th>'
	has two/tests/torture.html \
		'<li><a href="../tests.html">tests</a></li>' \
		'<a href="../tests.html" rel="up">Up to tests/</a>' \
		'<link rel="stylesheet" href="../strata.css">' \
		'<img src="../img/dir-tests/torture.png"' \
		'<a href="../releases.html#r-v2.0">v2.0</a>' \
		'<tr class="file"><th scope="row" class="path">t.c</th>'
	python3 "$TESTS/linkcheck.py" two
}

# A tag named `unreleased`: its anchor is not the unreleased commits' one,
# and the data files name the unreleased commits "" (no tag can be "").
unreleased_tag() {
	repo_new "$WORK/u"
	at 1262304000
	put a.c one two
	commit "1.0"
	git tag v1.0
	at 1270000000
	put a.c one two three
	commit "named unreleased"
	git tag unreleased
	at 1280000000
	put a.c one two three four five
	commit "after every tag"
	cd - >/dev/null || return
	report "$WORK/u" --out out --tags 'v[0-9.]+|unreleased'
	python3 "$TESTS/linkcheck.py" out
	has out/releases.html '<section id="r-unreleased" class="release release">' \
		'<section id="unreleased" class="release unreleased">'
	has out/index.html '<a href="releases.html#r-unreleased">unreleased</a>' \
		'<a href="releases.html#unreleased">unreleased</a>'
	grep -q $'^unreleased,unreleased,2010-03-31T[0-9:]*Z,1,1,20.00\r$' \
		out/data/releases.csv
	grep -q $'^,,,1,2,40.00\r$' out/data/releases.csv
	has out/data/files.csv $'a.c,unreleased,1\r' $'a.c,,2\r'
	has out/data/subsystems.csv $'.,unreleased,1\r' $'.,,2\r'
	python3 - out/data/report.json <<'EOF'
import json, sys


def no_twice(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        sys.exit("a key twice: %r" % keys)
    return dict(pairs)


r = json.load(open(sys.argv[1]), object_pairs_hook=no_twice)
assert [(x["name"], x["unreleased"]) for x in r["releases"]] == \
    [("v1.0", False), ("unreleased", False), ("", True)], r["releases"]
assert r["files"][0]["releases"] == {"v1.0": 2, "unreleased": 1, "": 2}
EOF
}

run_case hostile_names hostile_names
run_case contents contents
run_case unreleased_tag unreleased_tag
finish
