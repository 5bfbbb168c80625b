"""A writer of `git fast-import` streams, shared by the history generators
(tests/synth-history.py, tests/linux-shape.py).

Marks are numbered in the order blobs and commits are written; times
advance by `step` seconds a commit, so the same calls give the same
stream.
"""


class Writer:
    def __init__(self, out, time=1000000000, step=60):
        self.out = out
        self.mark = 0
        self.time = time
        self.step = step

    def blob(self, data):
        """A blob of `data` (bytes); returns its mark."""
        self.mark += 1
        self.out.write(b"blob\nmark :%d\ndata %d\n" % (self.mark, len(data)))
        self.out.write(data + b"\n")
        return self.mark

    def commit(self, branch, msg, changes, parents, deletes=(),
               renames=(), author=None):
        """A commit on refs/heads/BRANCH: `changes` are (path, mark),
        `deletes` paths, `renames` (old, new) paths or directories;
        the first parent's tree is the start (fast-import's rule)."""
        self.mark += 1
        self.time += self.step
        m = self.mark
        w = self.out.write
        w(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), m))
        if author:
            w(b"author %s %d +0000\n" % (author, self.time))
        w(b"committer T <t@example.org> %d +0000\n" % self.time)
        w(b"data %d\n%s\n" % (len(msg), msg.encode()))
        if parents:
            w(b"from :%d\n" % parents[0])
            for p in parents[1:]:
                w(b"merge :%d\n" % p)
        for old, new in renames:
            w(b"R %s %s\n" % (old.encode(), new.encode()))
        for p in deletes:
            w(b"D %s\n" % p.encode())
        for p, mark in changes:
            w(b"M 100644 :%d %s\n" % (mark, p.encode()))
        w(b"\n")
        return m

    def tag(self, name, commit, annotated=False):
        """A tag NAME of the commit marked `commit`: lightweight (a
        reset), or annotated, dated now."""
        if not annotated:
            self.out.write(b"reset refs/tags/%s\nfrom :%d\n\n" %
                           (name.encode(), commit))
            return
        msg = name.encode()
        self.out.write(b"tag %s\nfrom :%d\ntagger T <t@example.org> %d "
                       b"+0000\ndata %d\n%s\n" %
                       (name.encode(), commit, self.time, len(msg), msg))
