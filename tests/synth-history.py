#!/usr/bin/env python3
"""A synthetic history of Linux's shape, for benchmarks at scale.

    synth-history.py COMMITS FILES | git -C REPO.git fast-import --quiet
    git -C REPO.git repack -adf        # fast-import's pack is not a clone's

FILES files of 10 to 120 lines in 1,073 directories two levels deep, then
COMMITS commits on main, each editing one to three files at random (lines
added, taken away or changed in place). Every 700 commits a side branch
starts; 30% of the commits go there, and it is merged back after 20 of
them. Every 997th commit renames a file; every 5,000th is tagged vN. The
output is the same for the same arguments (a fixed seed).

docs/performance.md gives what strata and git took on 500,000 commits and
60,000 files. Not part of `make test`: generating that takes minutes.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fastimport  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: synth-history.py COMMITS FILES")
    ncommits, nfiles = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(7)
    out = sys.stdout.buffer
    w = fastimport.Writer(out)

    def path(i):
        return "d%02d/s%02d/f%05d.c" % (i % 37, (i // 37) % 29, i)

    def blob(lines):
        return w.blob("".join(lines).encode())

    def commit(branch, msg, changes, parents, deletes=()):
        return w.commit(branch, msg, changes, parents, deletes)

    files = {}
    for i in range(nfiles):
        files[path(i)] = ["line %d of file %d %s\n" % (k, i, "x" * (k % 17))
                          for k in range(rng.randint(10, 120))]
    head = commit("main", "initial",
                  [(p, blob(lines)) for p, lines in files.items()], [])
    names = list(files)
    side, side_n = None, 0
    for c in range(ncommits):
        if c % 5000 == 4999:
            w.tag("v%d" % (c // 5000), head)
        if side is None and c % 700 == 0:
            side, side_n = head, 0
        changes, deletes = [], []
        for _ in range(rng.randint(1, 3)):
            p = rng.choice(names)
            lines = files[p]
            op, at = rng.random(), rng.randint(0, len(lines))
            if op < 0.4:
                lines[at:at] = ["new %d %d\n" % (c, j)
                                for j in range(rng.randint(1, 6))]
            elif op < 0.7 and len(lines) > 5:
                del lines[at:at + rng.randint(1, 4)]
            else:
                lines[at:at + 1] = ["changed %d\n" % c]
            changes.append((p, blob(lines)))
        if c % 997 == 0:
            p = rng.choice(names)
            q = p.replace(".c", "_r%d.c" % c)
            files[q] = files.pop(p)
            names.remove(p)
            names.append(q)
            changes.append((q, blob(files[q])))
            deletes.append(p)
        if side is not None and rng.random() < 0.3:
            side = commit("side", "side %d" % c, changes, [side])
            side_n += 1
            if side_n >= 20:
                head = commit("main", "merge %d" % c, [], [head, side])
                side = None
        else:
            head = commit("main", "c %d" % c, changes, [head], deletes)


if __name__ == "__main__":
    main()
