#!/usr/bin/env python3
"""Check a report's history files against git itself.

    history-check.py REPO REPORT [--first-parent] [-w] [--ignore-rev REV]...
                     [--snapshot NAME --subsystem DIR]

REPORT is a directory `strata report` wrote. For every snapshot listed in
REPORT/data/report.json, every text file at the snapshot's commit is blamed
with `git blame --porcelain` (the same options), each line's commit is
mapped to a release the way docs/releases.md says (the earliest-dated
matching tag that contains it, among the tags the report's REV contains
and, with --tag-scope dated, every other tag dated no later than REV
that contains a commit of REV's history; release names with the
default rule), and the counts must equal the rows
of history.csv and history-subsystems.csv. survival.csv (per commit of a
release, the lesser of its lines at the release's base and at the later
snapshot, a share of the release's lines at the base from the commits the
later snapshot's history has) and the half-lives in report.json are then recomputed from
those counts.

With --snapshot and --subsystem, only the files of top-level directory
DIR at snapshot NAME are blamed, and only that snapshot's rows of DIR in
history-subsystems.csv are compared (a sample of a big history).

Tags are assumed to match the default --tags expression (the tests use
plain version tags). Prints what differs and exits 1, or prints a summary.
"""
import csv
import datetime
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict

PRE = re.compile(r"^(.*[0-9][A-Za-z]?)([-_.]?(rc|RC|alpha|beta|pre)"
                 r"([-_.]?[0-9]+)?|[ab][0-9]+)$")


def git(repo, *args, binary=False):
    out = subprocess.run(["git", "-C", repo, *args], check=True,
                         capture_output=True).stdout
    return out if binary else out.decode()


def release_name(tag):
    m = PRE.match(tag)
    return m.group(1) if m else tag


def version_key(tag):
    """docs/releases.md: less a pre-release suffix, trailing zero
    components and a leading v, one version is one release."""
    k = re.sub(r"(?<=[0-9])([._]0+)+$", "", release_name(tag))
    return k[1:] if re.match(r"^[vV][0-9]", k) else k


def release_map(repo, rev, first_parent, scope):
    """commit -> release name. The tags that count: those REV contains,
    and with scope "dated" every other tag dated no later than REV."""
    fp = ["--first-parent"] if first_parent else []
    rev_date = int(git(repo, "log", "-1", "--format=%ct", rev))
    tags = []
    for line in git(repo, "for-each-ref", "refs/tags",
                    "--format=%(refname:strip=2) %(creatordate:unix) "
                    "%(objectname)").splitlines():
        name, date, obj = line.split(" ")
        tags.append([int(date), name, obj])
    # Each tag's commit, and the parents of everything any tag or REV
    # reaches, in one process each (a process per tag takes minutes on
    # a history with hundreds of tags).
    peeled = git(repo, "rev-parse", *["%s^{commit}" % t[2] for t in tags]
                 ).split() if tags else []
    parents = {}
    for line in git(repo, "log", *fp, "--format=%H %P", rev,
                    *sorted(set(peeled))).splitlines():
        c, *ps = line.split()
        parents[c] = ps[:1] if first_parent else ps
    history = reached(parents, [git(repo, "rev-parse", rev).strip()])
    tags = [(date, name, commit) for (date, name, _), commit
            in zip(tags, peeled)
            if commit in history or (scope == "dated" and date <= rev_date)]
    tags.sort()
    # Each version's name: its standing tag's (the first without a
    # pre-release suffix, else the latest).
    shown = {}
    for date, name, commit in tags:
        key = version_key(name)
        if release_name(name) == name and key not in shown:
            shown[key] = name
    for date, name, commit in tags:
        shown.setdefault(version_key(name), None)
    for date, name, commit in reversed(tags):
        if shown[version_key(name)] is None:
            shown[version_key(name)] = name
    # A tag counts when it contains a commit of REV's history (REV's
    # history holds its ancestors, so: when the tag reaches one); it then
    # claims every commit it contains that no earlier tag claimed, also
    # those off REV's history (a release branch's, in its snapshot). What
    # a tag claims holds its ancestors, so the next stops there.
    reach, of = {}, {}
    for date, name, commit in tags:
        if not reaches(parents, history, reach, commit):
            continue
        for c in reached(parents, [commit], stop=of):
            of[c] = release_name(shown[version_key(name)])
    return of


def reached(parents, starts, stop=()):
    """The commits `starts` contain, but those in `stop` and theirs."""
    out, todo = set(), list(starts)
    while todo:
        c = todo.pop()
        if c not in out and c not in stop:
            out.add(c)
            todo.extend(parents[c])
    return out


def reaches(parents, history, memo, c0):
    """Whether commit c0 contains a commit of `history`."""
    stack = [c0]
    while stack:
        c = stack[-1]
        if c in memo:
            stack.pop()
            continue
        if c in history:
            memo[c] = True
            stack.pop()
            continue
        todo = [p for p in parents[c] if p not in memo]
        if todo:
            stack.extend(todo)
            continue
        memo[c] = any(memo[p] for p in parents[c])
        stack.pop()
    return memo[c0]


def text_files(repo, commit, under=None):
    blobs = []
    for entry in git(repo, "ls-tree", "-r", "-z", "--full-tree", commit,
                     binary=True).split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, oid = meta.decode().split(" ")
        if kind != "blob" or mode not in ("100644", "100755"):
            continue
        if under is not None and not path.startswith(under.encode() + b"/"):
            continue
        blobs.append((oid, path))
    # Every blob from one cat-file --batch (a process start is dear on
    # some hosts: one for all the files, not one each).
    out = []
    batch = subprocess.run(["git", "-C", repo, "cat-file", "--batch"],
                           input=b"".join(b"%s\n" % oid.encode()
                                          for oid, _ in blobs),
                           check=True, capture_output=True).stdout
    at = 0
    for oid, path in blobs:
        nl = batch.index(b"\n", at)
        head = batch[at:nl].split(b" ")
        if len(head) != 3 or head[0].decode() != oid or head[1] != b"blob":
            sys.exit("cat-file --batch: %r for %s" % (batch[at:nl], oid))
        size = int(head[2])
        data = batch[nl + 1:nl + 1 + size]
        at = nl + 1 + size + 1
        if data and b"\0" not in data[:8000]:
            out.append(path.decode("utf-8", "surrogateescape"))
    return out


def blame_counts(repo, commit, opts, of, under=None):
    by_release, by_sub, by_commit = Counter(), Counter(), Counter()
    for path in text_files(repo, commit, under):
        out = git(repo, "blame", "--porcelain", *opts, commit, "--", path)
        sub = path.split("/", 1)[0] if "/" in path else "."
        for line in out.splitlines():
            m = re.match(r"^([0-9a-f]{40}) \d+ \d+", line)
            if m:
                rel = of.get(m.group(1), "")
                by_release[rel] += 1
                by_sub[(sub, rel)] += 1
                by_commit[m.group(1)] += 1
    return by_release, by_sub, by_commit


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def percent(part, whole):
    c = (2 * part * 10000 + whole) // (2 * whole) if whole else 0
    return "%d.%02d" % (c // 100, c % 100)


def epoch(iso):
    return datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def survivors(commits, names, of, rel, base, k):
    """Per commit of rel, the lesser of its lines at base and at k."""
    at_base, at_k = commits[names[base]], commits[names[k]]
    return sum(min(n, at_k[c]) for c, n in at_base.items()
               if of.get(c, "") == rel)


def based(commits, names, of, rel, base, k, lineage):
    """Rel's lines at base from the commits snapshot k's history has."""
    return sum(n for c, n in commits[names[base]].items()
               if of.get(c, "") == rel and c in lineage[names[k]])


def half_life(commits, of, names, dates, rel, base, lineage):
    prev, last = 100.0, base
    for k in range(base + 1, len(names)):
        b = based(commits, names, of, rel, base, k, lineage)
        if not b:
            continue
        now = 100.0 * survivors(commits, names, of, rel, base, k) / b
        if now >= 50.0:
            prev, last = now, k
            continue
        t0, t1 = epoch(dates[last]), epoch(dates[k])
        t = t0 + (prev - 50.0) / (prev - now) * (t1 - t0)
        return max(0.0, (t - epoch(dates[base])) / 86400.0)
    return None


def sample(repo, hist, got_sub, opts, of, only, under):
    """The rows of one subsystem at one snapshot; 0 if they agree."""
    snaps = [s for s in hist["snapshots"] if s["name"] == only]
    if not snaps:
        print("no snapshot %s in the report" % only)
        return 1
    _, want_sub, _ = blame_counts(repo, snaps[0]["commit"], opts, of, under)
    got = {k: n for k, n in got_sub[only].items() if k[0] == under}
    if not want_sub:
        print("no text file under %s at %s" % (under, only))
        return 1
    if dict(want_sub) != got:
        print("snapshot %s, %s: history-subsystems.csv %s, git blame %s" %
              (only, under, got, dict(want_sub)))
        return 1
    print("history ok: snapshot %s, %s: %d lines in %d releases" %
          (only, under, sum(want_sub.values()), len(want_sub)))
    return 0


def main():
    repo, report = sys.argv[1], sys.argv[2]
    opts, first_parent, i = [], False, 3
    only, under = None, None
    while i < len(sys.argv):
        a = sys.argv[i]
        if a in ("--snapshot", "--subsystem"):
            if a == "--snapshot":
                only = sys.argv[i + 1]
            else:
                under = sys.argv[i + 1]
            i += 2
            continue
        if a == "--first-parent":
            first_parent = True
            opts.append(a)
        elif a == "--ignore-rev":
            opts += [a, sys.argv[i + 1]]
            i += 1
        else:
            opts.append(a)
        i += 1
    rj = json.load(open(report + "/data/report.json"))
    rev = rj["repository"]["commit"]
    of = release_map(repo, rev, first_parent,
                     rj["options"].get("tag_scope", "merged"))
    hist = rj["history"]
    _, hrows = read_csv(report + "/data/history.csv")
    _, srows = read_csv(report + "/data/history-subsystems.csv")
    got = defaultdict(dict)
    for snap, date, rel, n in hrows:
        got[snap][rel] = int(n)
    got_sub = defaultdict(dict)
    for snap, sub, rel, n in srows:
        got_sub[snap][(sub, rel)] = int(n)
    bad = 0
    if (only is None) != (under is None):
        sys.exit("--snapshot and --subsystem go together")
    if only is not None:
        sys.exit(sample(repo, hist, got_sub, opts, of, only, under))
    counts, commits = {}, {}
    for s in hist["snapshots"]:
        want, want_sub, by_commit = blame_counts(repo, s["commit"], opts, of)
        counts[s["name"]] = want
        commits[s["name"]] = by_commit
        if dict(want) != got[s["name"]]:
            print("snapshot %s: history.csv %s, git blame %s" %
                  (s["name"], got[s["name"]], dict(want)))
            bad = 1
        if dict(want_sub) != got_sub[s["name"]]:
            print("snapshot %s: history-subsystems.csv %s, git blame %s" %
                  (s["name"], got_sub[s["name"]], dict(want_sub)))
            bad = 1
        if sum(want.values()) != s["lines"]:
            print("snapshot %s: report.json lines %d, git blame %d" %
                  (s["name"], s["lines"], sum(want.values())))
            bad = 1
    # Survival, from the counts.
    names = [s["name"] for s in hist["snapshots"]]
    dates = [s["date"] for s in hist["snapshots"]]
    _, surv = read_csv(report + "/data/survival.csv")
    fp = ["--first-parent"] if first_parent else []
    lineage = {s["name"]: set(git(repo, "rev-list", *fp,
                                  s["commit"]).split())
               for s in hist["snapshots"]}
    want_surv = []
    for sv in hist["survival"]:
        rel, base = sv["release"], names.index(sv["snapshot"])
        for k in range(base, len(names)):
            b = based(commits, names, of, rel, base, k, lineage)
            if not b:  # none of rel's commits on k's line
                continue
            n = survivors(commits, names, of, rel, base, k)
            want_surv.append([rel, names[k], dates[k], str(n),
                              percent(n, b),
                              str(counts[names[k]][rel] - n)])
        if hist["when"] == "releases":
            own = [s["name"] for s in hist["snapshots"]
                   if s["release"] == rel]
            if own[:1] != [sv["snapshot"]]:
                print("release %s counted at %s, not at its own snapshot "
                      "%s" % (rel, sv["snapshot"], own))
                bad = 1
        want_hl = half_life(commits, of, names, dates, rel, base, lineage)
        if (want_hl is None) != (sv["half_life_days"] is None) or (
                want_hl is not None and
                abs(want_hl - sv["half_life_days"]) > 0.051):
            print("release %s: half-life %s, want %s" %
                  (rel, sv["half_life_days"], want_hl))
            bad = 1
    if surv != want_surv:
        print("survival.csv differs:\n got  %s\n want %s" %
              (surv, want_surv))
        bad = 1
    if bad:
        sys.exit(1)
    print("history ok: %d snapshots, %d releases" %
          (len(names), len(hist["survival"])))


main()
