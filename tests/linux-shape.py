#!/usr/bin/env python3
"""A history of Linux's shape at a chosen scale, as a fast-import stream.

    linux-shape.py [--scale S] [--commits C] [--files F] [--lines L]
                   [--seed N] [--stats] | git -C R.git fast-import --quiet

Scale 1 is Linux today: 1.3 million commits, and at the end 88,000 files
holding 38 million lines. --scale sets the three at once; --commits,
--files and --lines set one each (relative to Linux's), so that one
history can have Linux's lines with a short history (--commits 0.02
--files 1 --lines 1) and another Linux's length with small files
(--commits 1 --files 1 --lines 0.1: 88,000 files of 43 lines on
average). The same arguments give the same stream.

The shape, after Linux's:
- file sizes drawn from a log-normal law of median 200 and mean 430
  lines (times --lines/--files), so a long tail of files over 10,000
  lines; lines of code with braces, blank lines and returns repeated;
- about 22 top directories weighted as Linux's (drivers half the files,
  arch a fifth), subdirectories drawn by a Chinese restaurant process,
  nested up to seven levels;
- 30% of the files in the first commit, the rest added along the
  history, and a tenth of them deleted again;
- commits of one to four files of one directory, by authors of a
  Zipf-like pool and some hundred organisations;
- side branches: most are topic branches of a few commits, some are
  long-lived branches of hundreds of commits (a maintainer's tree);
  each is merged into main when it ends, its changes applied over main
  (a file both changed keeps main's version, as a resolved conflict
  would), so that merges are about 7% of the commits;
- renames of single files, and of whole directories (on main; a side
  branch's changes to the old paths are merged into the new ones);
- an annotated release tag every 14,000 commits (times --commits), with
  rc1 to rc7 before it, named as Linux's (v2.6.12 ... v3.0 ...).

Repack before benching (fast-import's deltas are against the blob
written before, whatever its path): git -C R.git repack -adf.
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fastimport  # noqa: E402

LINUX_COMMITS = 1300000
LINUX_FILES = 88000
LINUX_LINES = 38000000
LINUX_RELEASE = 14000
MAX_DEPTH = 7
ALPHA = 1.0
TOP = [("drivers", 50.0), ("arch", 19.0), ("include", 6.0), ("tools", 5.0),
       ("fs", 5.0), ("net", 3.5), ("sound", 3.0), ("Documentation", 2.0),
       ("kernel", 1.0), ("lib", 0.8), ("scripts", 0.5), ("crypto", 0.4),
       ("security", 0.4), ("mm", 0.3), ("samples", 0.3), ("block", 0.2),
       ("rust", 0.1), ("init", 0.05), ("ipc", 0.05), ("virt", 0.05),
       ("usr", 0.02), ("certs", 0.02)]
COMMON = [b"}", b"", b"\treturn 0;", b"\t}", b"{", b"\t\tbreak;", b"",
          b"\treturn ret;", b"#include <linux/kernel.h>",
          b"\t\treturn -EINVAL;"]
PAD = [b"", b"dev", b"priv->lock", b"&pdev->dev, res", b"buf, len",
       b"NULL", b"flags & MASK"]


class Indexed:
    """A set with uniform random choice and O(1) removal."""

    def __init__(self):
        self.items, self.pos = [], {}

    def add(self, x):
        if x not in self.pos:
            self.pos[x] = len(self.items)
            self.items.append(x)

    def remove(self, x):
        i = self.pos.pop(x)
        last = self.items.pop()
        if i < len(self.items):
            self.items[i] = last
            self.pos[last] = i

    def choice(self, rng):
        return self.items[int(rng.random() * len(self.items))]

    def __len__(self):
        return len(self.items)


def dirname(p):
    return p.rsplit("/", 1)[0]


class Tree:
    """Main's tree: path -> content, and an index by directory."""

    def __init__(self):
        self.files = {}
        self.all = Indexed()
        self.dirs = {}            # directory -> Indexed of its files
        self.subdirs = {}         # directory -> set of child directories

    def put(self, p, data):
        if p not in self.files:
            self.all.add(p)
            d = dirname(p)
            self.dirs.setdefault(d, Indexed()).add(p)
            while "/" in d:
                parent = dirname(d)
                self.subdirs.setdefault(parent, set()).add(d)
                d = parent
        self.files[p] = data

    def delete(self, p):
        del self.files[p]
        self.all.remove(p)
        self.dirs[dirname(p)].remove(p)

    def under(self, d):
        out, todo = [], [d]
        while todo:
            x = todo.pop()
            out.extend(self.dirs.get(x, Indexed()).items)
            todo.extend(sorted(self.subdirs.get(x, ())))
        return sorted(out)


class Side:
    """A side branch: its changes over main as it was at the fork."""

    def __init__(self, slot, head, fork, length, home):
        self.slot, self.head, self.fork = slot, head, fork
        self.length, self.home, self.n = length, home, 0
        self.changed = {}         # path -> content, None if deleted
        self.saved = {}           # main's content at the fork, once moved

    def get(self, main, p):
        if p in self.changed:
            return self.changed[p]
        if p in self.saved:
            return self.saved[p]
        return main.files.get(p)


def make_paths(rng, n):
    """n file paths in a tree of directories up to MAX_DEPTH deep."""
    names, weights = zip(*TOP)
    total = sum(weights)
    cum, acc = [], 0.0
    for w in weights:
        acc += w / total
        cum.append(acc)
    children = {}                 # dir -> [subdir names, counts]
    paths, seen = [], set()
    descend = [0.0, 0.8, 0.7, 0.55, 0.45, 0.35, 0.25, 0.0]
    while len(paths) < n:
        r = rng.random()
        top = names[next(i for i, c in enumerate(cum) if r <= c or
                         i == len(cum) - 1)]
        d, depth = top, 1
        while depth < MAX_DEPTH and rng.random() < descend[depth]:
            subs = children.setdefault(d, [[], []])
            total = sum(subs[1])
            if rng.random() * (total + ALPHA) < ALPHA:
                subs[0].append("%s%d" % (("core", "hw", "sub", "x")[
                    len(subs[0]) % 4], len(subs[0])))
                subs[1].append(0)
                k = len(subs[0]) - 1
            else:
                x, k = rng.random() * total, 0
                while x >= subs[1][k]:
                    x -= subs[1][k]
                    k += 1
            subs[1][k] += 1
            d = d + "/" + subs[0][k]
            depth += 1
        p = "%s/f%d%s" % (d, len(paths), ".h" if rng.random() < 0.3 else
                          ".c")
        if p not in seen:
            seen.add(p)
            paths.append(p)
    return paths


def content(i, nlines):
    out = []
    for k in range(nlines):
        if k % 5 == 4:
            out.append(COMMON[(k * 7 + i) % len(COMMON)])
        else:
            out.append(b"\tcall_%d_%d(%s);" % (i, k, PAD[k % len(PAD)]))
    out.append(b"")
    return b"\n".join(out)


def edit(rng, data, tag):
    lines = data.split(b"\n")
    body = len(lines) - 1
    op, at = rng.random(), rng.randint(0, body)
    if op < 0.4 or body < 6:
        lines[at:at] = [b"\tnew_%s_%d(x);" % (tag, j)
                        for j in range(rng.randint(1, 6))]
    elif op < 0.7:
        at = min(at, body - 1)
        del lines[at:min(at + rng.randint(1, 4), body)]
    else:
        at = min(at, body - 1)
        lines[at:at + rng.randint(1, 3)] = [b"\tchanged_%s(y);" % tag]
    return b"\n".join(lines)


class Shape:
    def __init__(self, a):
        self.rng = random.Random(a.seed)
        self.ncommits = max(100, int(LINUX_COMMITS * a.commits))
        self.nfiles = max(20, int(LINUX_FILES * a.files))
        mean = LINUX_LINES / LINUX_FILES * a.lines / a.files
        # log-normal: the mean over the median is exp(sigma^2 / 2).
        self.sigma = math.sqrt(2 * math.log(430.0 / 200.0))
        self.mu = math.log(mean * 200.0 / 430.0)
        self.release = max(20, int(LINUX_RELEASE * a.commits))
        self.nauthors = max(20, int(20000 * a.commits))
        self.out = fastimport.Writer(
            sys.stdout.buffer, time=1113609600,
            step=max(1, 630000000 // self.ncommits))
        self.main = Tree()
        self.sides = []
        self.renames = []         # (commit number, old dir, new dir)
        self.next_rename, self.next_dir_rename = 100, 1500
        self.stats = {"merges": 0, "commits": 0, "dir_renames": 0,
                      "renames": 0, "tags": 0}

    def size(self):
        return max(1, min(200000, int(self.rng.lognormvariate(
            self.mu, self.sigma))))

    def author(self):
        k = int(self.nauthors * self.rng.random() ** 3)
        return b"Dev %d <dev%d@org%d.example>" % (k, k, k % 97)

    def commit(self, branch, msg, changes, parents, deletes=(),
               renames=()):
        self.stats["commits"] += 1
        return self.out.commit(branch, msg, changes, parents, deletes,
                               renames, self.author())

    def blob(self, data):
        return self.out.blob(data)

    # What main changes, each live side branch keeps as it was.
    def main_moves(self, p):
        for s in self.sides:
            if p not in s.saved:
                s.saved[p] = self.main.files.get(p)

    def edit_files(self, c, pick, get):
        """Edits to one to four files of one directory; `pick` gives a
        directory's files, `get` a file's content."""
        files = pick()
        changes = []
        for p in files:
            data = get(p)
            if data is None:
                continue
            for _ in range(1 + (self.rng.random() < 0.3)):
                data = edit(self.rng, data, b"%d" % c)
            changes.append((p, data))
        return changes

    def pick_main(self, k):
        d = dirname(self.main.all.choice(self.rng))
        ix = self.main.dirs[d]
        return sorted({ix.choice(self.rng) for _ in range(k)})

    def main_commit(self, c, adds, deletes):
        k = min(4, 1 + int(self.rng.expovariate(1.2)))
        changes = self.edit_files(c, lambda: self.pick_main(k),
                                  self.main.files.get)
        changes += adds
        dels, renames = [], []
        for p in deletes:
            if p in self.main.files and len(self.main.all) > 10:
                self.main_moves(p)
                self.main.delete(p)
                dels.append(p)
        if c >= self.next_rename:
            changes, dels = self.rename_file(changes, dels)
            self.next_rename += 250
        if c >= self.next_dir_rename:
            renames = self.rename_dir(c)
            self.next_dir_rename += 3000
        marks = []
        for p, data in changes:
            self.main_moves(p)
            self.main.put(p, data)
            marks.append((p, self.blob(data)))
        self.head = self.commit("main", "c %d" % c, marks, [self.head],
                                dels, renames)

    def rename_file(self, changes, dels):
        p = self.main.all.choice(self.rng)
        if any(p == q for q, _ in changes):
            return changes, dels
        d = dirname(self.main.all.choice(self.rng))
        q = "%s/%s" % (d, p.rsplit("/", 1)[1].replace(".", "_r.", 1))
        if q in self.main.files:
            return changes, dels
        data = self.main.files[p]
        if self.rng.random() < 0.5:
            data = edit(self.rng, data, b"r")
        self.main_moves(p)
        self.main.delete(p)
        self.stats["renames"] += 1
        return changes + [(q, data)], dels + [p]

    def rename_dir(self, c):
        """A directory two to six levels deep of at most 300 files moves
        to a new name beside it."""
        for _ in range(20):
            d = dirname(self.main.all.choice(self.rng))
            if d.count("/") >= 1 and len(self.main.under(d)) <= 300:
                break
        else:
            return []
        new = "%s_v%d" % (d, c)
        moved = self.main.under(d)
        for p in moved:
            q = new + p[len(d):]
            data = self.main.files[p]
            self.main_moves(p)
            self.main_moves(q)
            self.main.delete(p)
            self.main.put(q, data)
        self.renames.append((c, d, new))
        self.stats["dir_renames"] += 1
        return [(d, new)]

    def map_path(self, p, since):
        for c, old, new in self.renames:
            if c > since and p.startswith(old + "/"):
                p = new + p[len(old):]
        return p

    def side_commit(self, s, c):
        def pick():
            ix = self.main.dirs.get(s.home)
            if not ix or not len(ix):
                s.home = dirname(self.main.all.choice(self.rng))
                ix = self.main.dirs[s.home]
            return sorted({ix.choice(self.rng)
                           for _ in range(1 + (self.rng.random() < 0.5))})
        changes = self.edit_files(c, pick, lambda p: s.get(self.main, p))
        if not changes:
            return
        marks = []
        for p, data in changes:
            s.changed[p] = data
            marks.append((p, self.blob(data)))
        s.head = self.commit("side/%d" % s.slot, "s %d" % c, marks,
                             [s.head])
        s.n += 1

    def merge(self, s, c):
        """Side branch s into main: its changes over the fork, where main
        did not change the file since."""
        marks, dels = [], []
        for p in sorted(s.changed):
            q = self.map_path(p, s.fork)
            if q in s.saved:
                continue          # main changed it too: main's stays
            data = s.changed[p]
            self.main_moves(q)
            if data is None:
                if q in self.main.files:
                    self.main.delete(q)
                    dels.append(q)
            else:
                self.main.put(q, data)
                marks.append((q, self.blob(data)))
        self.sides.remove(s)
        self.head = self.commit("main", "merge %d" % c, marks,
                                [self.head, s.head], dels)
        self.stats["merges"] += 1

    def start_side(self, slot, c):
        long = self.rng.random() < 0.015
        length = (self.rng.randint(100, 600) if long
                  else 1 + int(self.rng.expovariate(1 / 4.0)))
        length = min(length, max(2, self.ncommits // 10))
        home = dirname(self.main.all.choice(self.rng))
        self.sides.append(Side(slot, self.head, self.stats["commits"],
                               length, home))

    @staticmethod
    def version(n):
        """Linux's names: v2.6.12 to v2.6.39, then v3.0 to v3.19 ..."""
        if n < 40:
            return "v2.6.%d" % n
        major, minor = divmod(n - 40, 20)
        return "v%d.%d" % (major + 3, minor)

    def tag(self, c):
        """A release every `release` steps, rc1 to rc7 before it."""
        cycle, at = divmod(c, self.release)
        step = self.release // 9
        if at == 0:
            self.out.tag(self.version(cycle + 12), self.head,
                         annotated=True)
            self.stats["tags"] += 1
        elif at % step == 0 and 2 <= at // step <= 8:
            self.out.tag("%s-rc%d" % (self.version(cycle + 13),
                                      at // step - 1), self.head,
                         annotated=True)
            self.stats["tags"] += 1

    def run(self):
        paths = make_paths(self.rng, self.nfiles + self.nfiles // 10)
        n0 = int(len(paths) * 0.3)
        marks = []
        for i, p in enumerate(paths[:n0]):
            data = content(i, self.size())
            self.main.put(p, data)
            marks.append((p, self.blob(data)))
        self.head = self.commit("main", "initial", marks, [])
        later = list(enumerate(paths[n0:], n0))
        add_every = self.ncommits / max(1, len(later))
        del_every = self.ncommits / max(1, self.nfiles // 10)
        next_add, next_del, slots = 0.0, del_every / 2, 8
        c = 0
        while self.stats["commits"] < self.ncommits:
            c += 1
            while len(self.sides) < slots:
                used = {s.slot for s in self.sides}
                self.start_side(min(set(range(slots)) - used), c)
            self.tag(c)
            if self.rng.random() < 0.75:
                s = self.sides[int(self.rng.random() * len(self.sides))]
                self.side_commit(s, c)
                if s.n >= s.length:
                    self.merge(s, c)
                continue
            adds, deletes = [], []
            while next_add <= c and later:
                i, p = later.pop(0)
                adds.append((p, content(i, self.size())))
                next_add += add_every
            if next_del <= c:
                deletes.append(self.main.all.choice(self.rng))
                next_del += del_every
            self.main_commit(c, adds, deletes)
        # The tip: every side branch merged, main's last state tagged.
        for s in list(self.sides):
            if s.n:
                self.merge(s, c)
        sys.stdout.buffer.write(b"reset refs/heads/main\nfrom :%d\n\n" %
                                self.head)
        lines = sum(d.count(b"\n") for d in self.main.files.values())
        return {**self.stats, "files": len(self.main.files), "lines": lines,
                "directories": len(self.main.dirs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=None)
    ap.add_argument("--commits", type=float, default=None)
    ap.add_argument("--files", type=float, default=None)
    ap.add_argument("--lines", type=float, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stats", action="store_true",
                    help="print the history's counts on stderr")
    a = ap.parse_args()
    scale = 0.01 if a.scale is None else a.scale
    for k in ("commits", "files", "lines"):
        if getattr(a, k) is None:
            setattr(a, k, scale)
        if not 0 < getattr(a, k) <= 10:
            ap.error("--%s: a scale above 0 and at most 10" % k)
    st = Shape(a).run()
    if a.stats:
        for k in sorted(st):
            print("%s: %d" % (k, st[k]), file=sys.stderr)


if __name__ == "__main__":
    main()
