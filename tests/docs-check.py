#!/usr/bin/env python3
"""docs-check.py ROOT: the manual describes the present.

Checks README.md and every page of ROOT/docs (*.md, and man pages *.1 to
*.9) and prints one line per problem, `FILE:LINE: what`, exiting 1 if
there is any:

- the words "session" and "sessions", anywhere, code included;
- in prose (outside code), dates that read as a diary: an ISO date
  (2026-12-03), a month name with a year ("December 2026",
  "3 Dec 2026"), a clock time as a diary gives it ("from 22:40",
  "(08:10)", "23:22 to 00:33"), or "we tried";
- docs/README.md's table of pages must link every page in docs/ but
  README.md itself, once, and nothing that is not there.

Code is fenced blocks, indented blocks (four spaces or a tab after a
blank line) and `inline code` in Markdown, and .nf/.fi and .EX/.EE
blocks in man pages (whose .TH line, which carries a date by custom, is
skipped too): dates in examples (CSV rows, tag names, a report's
"generated" field) are data, not history. Neither are a year alone
("LWN asked in 2010") and the Unix epoch, 1970-01-01.
"""
import os
import re
import sys

MONTHS = ("jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|"
          "aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?")
RULES = [
    (re.compile(r"\bsessions?\b", re.I), "the word 'session'", True),
    (re.compile(r"(?<![\w.-])(?!1970-01-01)(19|20)\d\d-[01]\d-[0-3]\d"
                r"(?![\w-])"), "a date", False),
    (re.compile(r"\b(" + MONTHS + r")\.?\s+([0-3]?\d(st|nd|rd|th)?,?\s+)?"
                r"(19|20)\d\d\b", re.I), "a month and year", False),
    (re.compile(r"\b[0-3]?\d\s+(" + MONTHS + r")\.?,?\s+(19|20)\d\d\b",
                re.I), "a date", False),
    (re.compile(r"(\b(from|since|until)\s+|\()[0-2]\d:[0-5]\d(?![\w:])|"
                r"(?<![\w:.])[0-2]\d:[0-5]\d\s+(to|and)\s+[0-2]\d:[0-5]\d"
                r"(?![\w:])", re.I), "a clock time", False),
    (re.compile(r"\bwe tried\b", re.I), "'we tried'", False),
]


def markdown_prose(lines):
    """Each line with its code taken out (blanked), by line number."""
    out = []
    fence = None
    prev_blank = True
    in_indented = False
    for line in lines:
        stripped = line.lstrip()
        if fence:
            out.append("")
            if stripped.startswith(fence):
                fence = None
            prev_blank = False
            continue
        m = re.match(r"(```+|~~~+)", stripped)
        if m and len(line) - len(stripped) < 4:
            fence = m.group(1)
            out.append("")
            prev_blank = False
            continue
        blank = not line.strip()
        indented = line.startswith("    ") or line.startswith("\t")
        if indented and (prev_blank or in_indented) and not blank:
            in_indented = True
            out.append("")
            prev_blank = False
            continue
        if not blank:
            in_indented = False
        prev_blank = blank
        out.append(re.sub(r"(`+)(.+?)\1", "", line))
    return out


def man_prose(lines):
    out = []
    code = False
    for line in lines:
        if re.match(r"\.(nf|EX)\b", line):
            code = True
        if code or line.startswith(".TH"):
            out.append("")
        else:
            out.append(line)
        if re.match(r"\.(fi|EE)\b", line):
            code = False
    return out


def check_file(path, shown, problems):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    if path.endswith(".md"):
        prose = markdown_prose(lines)
    else:
        prose = man_prose(lines)
    for n, (raw, text) in enumerate(zip(lines, prose), 1):
        for rx, what, everywhere in RULES:
            m = rx.search(raw if everywhere else text)
            if m:
                problems.append("%s:%d: %s: '%s'" % (shown, n, what,
                                                     m.group(0)))


def check_index(docs, problems):
    """docs/README.md's table lists every page of docs/ once, and no other."""
    pages = sorted(f for f in os.listdir(docs)
                   if (f.endswith(".md") or re.search(r"\.[1-9]$", f))
                   and f != "README.md"
                   and os.path.isfile(os.path.join(docs, f)))
    listed = []
    with open(os.path.join(docs, "README.md"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("|"):
                listed += re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)",
                                     line.split("|")[1])
    for p in pages:
        if p not in listed:
            problems.append("docs/README.md: no row for the page '%s'" % p)
    for p in sorted(set(listed)):
        if listed.count(p) > 1:
            problems.append("docs/README.md: '%s' listed %d times"
                            % (p, listed.count(p)))
        if p not in pages:
            problems.append("docs/README.md: lists '%s', which is not a "
                            "page of docs/" % p)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: docs-check.py ROOT")
    root = sys.argv[1]
    docs = os.path.join(root, "docs")
    problems = []
    files = [("README.md", os.path.join(root, "README.md"))]
    for f in sorted(os.listdir(docs)):
        if f.endswith(".md") or re.search(r"\.[1-9]$", f):
            files.append(("docs/" + f, os.path.join(docs, f)))
    for shown, path in files:
        check_file(path, shown, problems)
    check_index(docs, problems)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


main()
