#!/usr/bin/env python3
"""Check every link of a report: linkcheck.py DIR

For every *.html in DIR and its subdirectories (but data/ and img/), every
href, src and srcset must be a relative URL (no scheme, no host, no
leading slash: the site works from file:// and from any sub-path of a
server) that, percent-decoded and taken from the page's own directory,
names a file inside DIR; a #fragment must be the id of an element of the
page it points to, and ids must be unique on a page. A URL must carry no
byte that a browser would take apart (a raw space, `%` not starting an
escape, a second `#`, a `?`, a backslash, a control character).
Pages must be UTF-8, with balanced tags, no script and no event handler
attribute (what an unescaped file name would inject).
Prints each problem and exits 1 if there is any, else prints a count.
"""
import html.parser
import os
import re
import sys
import urllib.parse

# What a URL of the report may hold: unreserved bytes, `/`, %-escapes and
# one `#` before the fragment.
URL_OK = re.compile(r"^([A-Za-z0-9._~/@+!$&'()*,;=:-]|%[0-9A-Fa-f]{2})*"
                    r"(#([A-Za-z0-9._~/@+!$&'()*,;=:-]|%[0-9A-Fa-f]{2})*)?$")

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls = []       # (attribute, value, line)
        self.ids = set()
        self.stack = []
        self.problems = []

    def handle_starttag(self, tag, attrs):
        line = self.getpos()[0]
        for name, value in attrs:
            if name == "id":
                if value in self.ids:
                    self.problems.append("line %d: id %r twice" %
                                         (line, value))
                self.ids.add(value)
            if name in ("href", "src"):
                self.urls.append((name, value, line))
            if name == "srcset":
                for part in value.split(","):
                    self.urls.append((name, part.strip().split(" ")[0],
                                      line))
            if name.startswith("on"):
                self.problems.append("line %d: event handler %s" %
                                     (line, name))
        if tag == "script":
            self.problems.append("line %d: a script" % line)
        if tag not in VOID:
            self.stack.append((tag, line))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.problems.append("line %d: </%s> does not close <%s>" % (
                self.getpos()[0], tag,
                self.stack[-1][0] if self.stack else "nothing"))
            return
        self.stack.pop()


def parse(path):
    with open(path, "rb") as f:
        raw = f.read()
    page = Page()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        page.problems.append("not UTF-8: %s" % e)
        text = raw.decode("utf-8", "replace")
    page.feed(text)
    page.close()
    for tag, line in page.stack:
        page.problems.append("line %d: <%s> never closed" % (line, tag))
    return page


def pages_in(root):
    """Every page: its path from root, with / between directories."""
    out = {}
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        if rel == ".":
            dirs[:] = sorted(d for d in dirs if d not in ("data", "img"))
        for name in sorted(files):
            if name.endswith(".html"):
                path = name if rel == "." else rel + "/" + name
                out[path] = parse(os.path.join(top, name))
    return out


def main():
    root = os.path.realpath(sys.argv[1])
    pages = pages_in(root)
    problems = []
    nlinks = 0
    for name, page in sorted(pages.items()):
        problems += ["%s: %s" % (name, p) for p in page.problems]
        here = os.path.dirname(name)
        for attr, url, line in page.urls:
            nlinks += 1
            where = "%s:%d: %s=%r" % (name, line, attr, url)
            if not URL_OK.match(url):
                problems.append(where + ": bytes a URL must escape")
                continue
            parts = urllib.parse.urlsplit(url)
            if parts.scheme or parts.netloc or url.startswith("/"):
                problems.append(where + ": not a relative link")
                continue
            target = name
            if parts.path:
                target = os.path.normpath(os.path.join(
                    here, urllib.parse.unquote(parts.path, errors="strict")))
                full = os.path.realpath(os.path.join(root, target))
                if not full.startswith(root + os.sep):
                    problems.append(where + ": leaves the report")
                    continue
                if not os.path.isfile(full):
                    problems.append(where + ": no such file")
                    continue
            if parts.fragment:
                frag = urllib.parse.unquote(parts.fragment)
                if target not in pages:
                    problems.append(where + ": fragment of a non-page")
                elif frag not in pages[target].ids:
                    problems.append(where + ": no id %r in %s" %
                                    (frag, target))
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("%d pages, %d links, all resolve" % (len(pages), nlinks))


if __name__ == "__main__":
    main()
