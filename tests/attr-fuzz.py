#!/usr/bin/env python3
"""attr-fuzz.py DIR SEED [DIR SEED...]: a random tree of files and
.gitattributes under DIR (which must exist), for comparing strata's
attributes with git check-attr; prints the files' paths, NUL-separated, on
stdout. Several pairs: one tree each, each as if made alone (one python
for all of them: process starts are dear)."""
import os
import random
import sys

patterns = [
    "*", "*.c", "a*", "?", "[ab]", "[!a]", "[[:upper:]]", "c.*", "*.min.js",
    "a/*", "a/**", "**/b", "/a", "/c.c", "a/b/", "vendor/", "*/c.c",
    "vendor/**", "**/vendor/**", "b/**/c.c", "a/**/b", "**", "gen/*",
    "\"a\"", "\"*.c\"", "\"v\\145ndor/**\"", "!a", "\\!a", "a\\*", "x/",
    "vendor/**/*", "**/*.txt", "a**b", "*/*", "/**/gen", "[a-c].c",
]
states = [
    "linguist-vendored", "-linguist-vendored", "!linguist-vendored",
    "linguist-vendored=false", "linguist-vendored=true",
    "linguist-vendored=", "linguist-generated", "-linguist-generated",
    "linguist-generated=false", "m", "-m", "!m", "foo=bar", "foo",
    "binary",
]
invalid = ["-", "bad/name", "=x"]


rnd = None


def line(root):
    r = rnd.random()
    if root and r < 0.08:
        return "[attr]m " + " ".join(rnd.sample(states[:10], 2))
    if r < 0.12:
        return "[attr]m linguist-generated"      # not allowed below root
    if r < 0.16:
        return "# comment " + rnd.choice(patterns)
    if r < 0.18:
        return ""
    st = " ".join(rnd.choice(invalid if rnd.random() < 0.04 else states)
                  for _ in range(rnd.randint(1, 3)))
    sep = rnd.choice([" ", "\t", "  "])
    return rnd.choice(patterns) + sep + st


def tree(top, seed):
    global rnd
    rnd = random.Random(seed)
    names = ["a", "b", "c.c", "d.txt", "vendor", "gen", "x.min.js", "A"]
    dirs = [""]
    for _ in range(rnd.randint(2, 8)):
        parent = rnd.choice(dirs)
        if parent.count("/") >= 2:
            continue
        d = (parent + "/" if parent else "") + rnd.choice(names)
        if d not in dirs:
            dirs.append(d)
    files = set()
    for d in dirs:
        for _ in range(rnd.randint(1, 4)):
            f = (d + "/" if d else "") + rnd.choice(names)
            if f not in dirs and not any(x.startswith(f + "/") for x in dirs):
                files.add(f)
    for d in dirs:
        os.makedirs(os.path.join(top, d), exist_ok=True)
    for f in sorted(files):
        with open(os.path.join(top, f), "w") as fh:
            fh.write(f + "\n")
    for d in dirs:
        if rnd.random() < (0.9 if d == "" else 0.5):
            eol = "\r\n" if rnd.random() < 0.2 else "\n"
            body = eol.join(line(d == "") for _ in range(rnd.randint(1, 8)))
            with open(os.path.join(top, d, ".gitattributes"), "w",
                      newline="") as fh:
                fh.write(body + eol)
    sys.stdout.write("".join(f + "\0" for f in sorted(files)))


args = sys.argv[1:]
if not args or len(args) % 2:
    sys.exit("usage: attr-fuzz.py DIR SEED [DIR SEED...]")
for k in range(0, len(args), 2):
    tree(args[k], int(args[k + 1]))
