#!/bin/bash
# Unit test of src/data.c: a hand-built tally written out and compared byte
# for byte (tests/unit/data_test.c), then read back by independent parsers
# (python3's json and csv modules; without python3, jq reads the JSON and
# the rest is a counted skip).
set -eu

# shellcheck source=tests/unit-lib.sh
. "$(dirname "$0")/unit-lib.sh"
# Sanitizers when this compiler and machine can run them.
unit_setup t-data-unit --san-auto
probe=$tmp/data_test
unit_build "$probe" "libgit2 libdeflate zlib" tests/unit/data_test.c src/data.c src/snapshots.c \
	src/releases.c src/history.c src/repository.c src/odb.c src/error.c

mkdir "$tmp/out"
"$probe" "$tmp/out" || fail "byte-exact checks"

if command -v python3 >/dev/null; then
	python3 - "$tmp/out" <<'EOF' || fail "python3 read-back"
import csv, json, os, sys

base = sys.argv[1]
for sub in ("a", "c", "d"):
    with open(os.path.join(base, sub, "report.json"), "rb") as f:
        raw = f.read()
    raw.decode("utf-8")  # strict: the JSON text is valid UTF-8
    json.loads(raw)

rep = json.load(open(os.path.join(base, "c", "report.json"), "rb"))
assert list(rep)[-1] == "run", "run is the last key"
assert "run" not in json.load(open(os.path.join(base, "a", "report.json")))

def rows(name):
    # paths are raw bytes: read as latin-1 to keep every byte
    with open(os.path.join(base, "a", name), newline="",
              encoding="latin-1") as f:
        text = f.read()
    assert text.endswith("\r\n"), name + ": CRLF at the end"
    return list(csv.reader(text.splitlines(keepends=True)))

files = rows("files.csv")
assert files[0] == ["path", "release", "lines"]
paths = {}
for p, r, n in files[1:]:
    paths.setdefault(p.encode("latin-1"), {})[r] = int(n)

# every JSON path, decoded through path_bytes when present, is a CSV path
for f in rep["files"]:
    b = bytes.fromhex(f["path_bytes"]) if "path_bytes" in f \
        else f["path"].encode("utf-8")
    assert paths[b] == f["releases"], (b, paths.get(b), f["releases"])
    assert sum(f["releases"].values()) == f["lines"]
assert len(paths) == len(rep["files"])

rel = rows("releases.csv")
assert [r[0] for r in rel[1:]] == [r["name"] for r in rep["releases"]]
assert sum(int(r[4]) for r in rel[1:]) == rep["totals"]["lines"]
sub = rows("subsystems.csv")
level1 = [d for d in rep["directories"] if d["level"] == 1]
assert sum(int(r[2]) for r in sub[1:]) == rep["totals"]["lines"]
assert sorted({r[0] for r in sub[1:]}) == sorted(d["path"] for d in level1)
unt = rows("untouched.csv")
assert len(unt) - 1 == rep["totals"]["untouched_files"]
assert sum(int(r[1]) for r in unt[1:]) == rep["totals"]["untouched_lines"]
EOF
elif command -v jq >/dev/null; then
	for sub in a c d; do
		jq -e . "$tmp/out/$sub/report.json" >/dev/null ||
			fail "jq cannot parse $sub/report.json"
	done
	[ "$(jq -r 'keys_unsorted | last' "$tmp/out/c/report.json")" = run ] ||
		fail "run is not the last key"
	skip_part "python3 is missing: the CSV read-back (jq read the JSON)"
else
	skip_part "neither python3 nor jq: the read-back of the JSON and CSV"
fi

echo "data: all checks passed"
