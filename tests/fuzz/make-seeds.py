#!/usr/bin/env python3
"""make-seeds.py: write the seed corpora of the odb fuzz targets.

    tests/fuzz/make-seeds.py    (from the repository's root)

Seeds are committed; this script says how they were made, and makes them
again after a change of a target's input format. The inputs are described
in each tests/fuzz/fuzz_<name>.c.
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gitpack as gp  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def name(i):
    """fuzz_pack_entry's name of object i."""
    return bytes([i + 1]) + bytes(19)


def entry_input(p):
    """fuzz_pack_entry's input for pack p (its objects named name(i))."""
    objs = sorted(p.objects)
    out = bytes([len(objs) - 1])
    for _, at in objs:
        out += struct.pack("<H", at)
    return out + bytes(p.body[12:])


def pack_entry():
    text = b"".join(b"line %d\n" % i for i in range(40))
    p = gp.Pack()
    p.whole("blob", text, name=name(0))
    put("pack_entry", "whole-blob", entry_input(p))

    p = gp.Pack()
    a = p.whole("blob", text, name=name(0))
    d = gp.delta(len(text), len(text) + 4, gp.copy(0, len(text)),
                 gp.insert(b"end\n"))
    b = p.ofs_delta(a, d, name(1))
    d2 = gp.delta(len(text) + 4, 10, gp.copy(len(text) - 6, 10))
    p.ofs_delta(b, d2, name(2))
    put("pack_entry", "ofs-chain", entry_input(p))

    p = gp.Pack()
    p.whole("blob", text, name=name(0))
    p.ref_delta(name(0), gp.delta(len(text), 3, gp.insert(b"new")), name(1))
    put("pack_entry", "ref-delta", entry_input(p))

    p = gp.Pack()
    blob = b"hello\n"
    p.whole("commit", b"tree " + b"0" * 40 + b"\nauthor a <a> 1 +0000\n"
            b"committer a <a> 1 +0000\n\nmsg\n", name=name(0))
    p.whole("tree", b"100644 f\0" + gp.oid("blob", blob), name=name(1))
    p.whole("blob", blob, name=name(2))
    put("pack_entry", "commit-tree-blob", entry_input(p))

    p = gp.Pack()
    p.ref_delta(name(0), gp.delta(3, 3, gp.copy(0, 3)), name(0))
    put("pack_entry", "ref-self", entry_input(p))

    p = gp.Pack()
    p.ref_delta(name(1), gp.delta(3, 3, gp.copy(0, 3)), name(0))
    p.ofs_delta(12, gp.delta(3, 3, gp.copy(0, 3)), name(1))
    put("pack_entry", "ref-ofs-cycle", entry_input(p))

    p = gp.Pack()
    a = p.whole("blob", text, name=name(0))
    p.ofs_delta(a, gp.delta(len(text), 20, gp.copy(len(text) - 10, 20)),
                name(1))
    put("pack_entry", "copy-past-base", entry_input(p))

    p = gp.Pack()
    p.whole("blob", text, size=1 << 62, name=name(0))
    put("pack_entry", "size-2-62", entry_input(p))

    p = gp.Pack()
    z = bytearray(zlib.compress(text))
    z[5] ^= 0x55
    p.whole("blob", text, z=bytes(z), name=name(0))
    put("pack_entry", "bad-zlib", entry_input(p))

    p = gp.Pack()
    bomb = bytes(1 << 20)
    p.whole("blob", bomb, size=100, name=name(0))
    put("pack_entry", "bomb", entry_input(p))


def pack_index():
    # The harness's pack: one blob "a\n" at offset 12.
    p = gp.Pack()
    p.whole("blob", b"a\n")
    put("pack_index", "v2", p.index())
    put("pack_index", "v1", p.index(version=1))
    put("pack_index", "v2-large", p.index(large_from=0))
    idx = bytearray(p.index(large_from=0))
    idx[-48:-40] = struct.pack(">Q", 1 << 40)
    put("pack_index", "v2-large-outside", bytes(idx))
    put("pack_index", "fanout-down",
        p.index(fanout=[1] * 128 + [0] * 127 + [1]))
    put("pack_index", "fanout-huge", p.index(fanout=[0] * 255 + [0x7fffffff]))
    q = gp.Pack()
    q.raw(gp.oid("blob", b"a\n"), b"")
    q.objects[0] = (q.objects[0][0], 1 << 20)
    put("pack_index", "offset-past-end", q.index())


def inflate():
    def z(head, data=b""):
        return zlib.compress(head + data)
    text = b"one\ntwo\n"
    put("inflate", "blob", z(b"blob 8\0", text))
    put("inflate", "empty-blob", z(b"blob 0\0"))
    commit = b"tree " + b"4" * 40 + b"\nauthor a <a> 1 +0000\n\nm\n"
    put("inflate", "commit", z(b"commit %d\0" % len(commit), commit))
    put("inflate", "tree", z(b"tree 29\0", b"100644 f\0" + bytes(20)))
    put("inflate", "type-blobx", z(b"blobx 8\0", text))
    put("inflate", "size-short", z(b"blob 7\0", text))
    put("inflate", "size-long", z(b"blob 9\0", text))
    put("inflate", "size-leading-zero", z(b"blob 08\0", text))
    put("inflate", "size-2-62", z(b"blob 4611686018427387904\0", text))
    put("inflate", "garbage-after", z(b"blob 8\0", text) + b"junk")
    put("inflate", "bomb", z(b"blob 10\0", bytes(1 << 20)))
    put("inflate", "truncated", z(b"blob 8\0", text)[:-6])
    bad = bytearray(z(b"blob 8\0", text))
    bad[4] ^= 0xFF
    put("inflate", "bad-zlib", bytes(bad))


if __name__ == "__main__":
    pack_entry()
    pack_index()
    inflate()
