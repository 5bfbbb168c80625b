"""gitpack: hand-written git objects, packs and pack indexes.

The tests of hostile repositories (tests/t-hostile-odb*.sh) and the seed
corpora of the fuzz targets (tests/fuzz/make-seeds.py) build what git
would never write with these: entries whose declared sizes lie, deltas
that copy past their base or form cycles, indexes with bad fanouts or
offsets, loose objects with bad headers. Everything is the format of
git's Documentation/gitformat-pack.txt; nothing here checks it.
"""
import hashlib
import os
import struct
import zlib

TYPES = {"commit": 1, "tree": 2, "blob": 3, "tag": 4, "ofs": 6, "ref": 7}


def oid(kind, data):
    """The name git gives an object of type `kind` (str) and content."""
    return hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)) + data).digest()


def header(kind, size):
    """An entry's type and size header (kind: a TYPES key or number)."""
    t = TYPES.get(kind, kind)
    out = bytearray([(t << 4) | (size & 15)])
    size >>= 4
    while size:
        out[-1] |= 0x80
        out.append(size & 0x7F)
        size >>= 7
    return bytes(out)


def ofs(distance):
    """An OFS_DELTA's offset back to its base."""
    out = [distance & 0x7F]
    distance >>= 7
    while distance:
        distance -= 1
        out.append(0x80 | (distance & 0x7F))
        distance >>= 7
    return bytes(reversed(out))


def varint(n):
    """A delta's size (little-endian base 128)."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zstore(data):
    """A zlib stream that stores data as it is, in one block (below
    64 KiB): valid for git, and much faster to write than to deflate."""
    n = len(data)
    return (b"\x78\x01\x01" + struct.pack("<HH", n, n ^ 0xFFFF) + data
            + struct.pack(">I", zlib.adler32(data)))


def copy(off, n):
    """A delta's copy instruction (n = 0x10000 is written as no size)."""
    op, args = 0x80, bytearray()
    for i in range(4):
        if (off >> (8 * i)) & 0xFF:
            op |= 1 << i
            args.append((off >> (8 * i)) & 0xFF)
    if n != 0x10000:
        for i in range(3):
            if (n >> (8 * i)) & 0xFF:
                op |= 0x10 << i
                args.append((n >> (8 * i)) & 0xFF)
    return bytes([op]) + bytes(args)


def insert(data):
    """Insert instructions for data (127 bytes at most each)."""
    out = bytearray()
    for i in range(0, len(data), 127):
        piece = data[i : i + 127]
        out += bytes([len(piece)]) + piece
    return bytes(out)


def delta(base_len, out_len, *ops):
    """A delta: its two sizes, then ops (bytes from copy()/insert())."""
    return varint(base_len) + varint(out_len) + b"".join(ops)


class Pack:
    """A pack being written: add entries, then write it and its index."""

    def __init__(self):
        self.body = bytearray(b"PACK" + struct.pack(">II", 2, 0))
        self.objects = []  # (name, offset)

    def raw(self, name, data):
        """Any bytes as the entry of `name`; returns its offset."""
        at = len(self.body)
        self.body += data
        if name is not None:
            self.objects.append((name, at))
        return at

    def whole(self, kind, data, size=None, name=None, z=None):
        """A whole object (size: the size declared; z: its zlib bytes)."""
        z = zlib.compress(data) if z is None else z
        size = len(data) if size is None else size
        return self.raw(oid(kind, data) if name is None else name,
                        header(kind, size) + z)

    def ofs_delta(self, base_at, d, name, at=None, size=None, z=None):
        """A delta d against the entry at base_at (at: this entry's
        offset, for a delta that names itself or one after it; z: a
        function that makes its zlib bytes, zlib.compress by default)."""
        at = len(self.body) if at is None else at
        size = len(d) if size is None else size
        return self.raw(name, header("ofs", size) + ofs(at - base_at)
                        + (z or zlib.compress)(d))

    def ref_delta(self, base_name, d, name, size=None):
        size = len(d) if size is None else size
        return self.raw(name, header("ref", size) + base_name
                        + zlib.compress(d))

    def pack(self, count=None):
        """The pack's bytes, its trailer included."""
        body = bytearray(self.body)
        n = len(self.objects) if count is None else count
        body[8:12] = struct.pack(">I", n)
        return bytes(body) + hashlib.sha1(body).digest()

    def index(self, version=2, large_from=1 << 31, fanout=None):
        """The index (objects at or past large_from get 64-bit offsets;
        fanout: 256 counts to write instead of the true ones)."""
        objs = sorted(self.objects)
        if fanout is None:
            fanout, count = [], [0] * 256
            for n, _ in objs:
                count[n[0]] += 1
            for b in range(256):
                fanout.append((fanout[-1] if b else 0) + count[b])
        out = bytearray()
        if version == 2:
            out += b"\377tOc" + struct.pack(">I", 2)
        out += b"".join(struct.pack(">I", f) for f in fanout)
        if version == 1:
            for n, at in objs:
                out += struct.pack(">I", at & 0xFFFFFFFF) + n
        else:
            large = []
            for n, _ in objs:
                out += n
            out += b"\0\0\0\0" * len(objs)
            for _, at in objs:
                if at >= large_from:
                    out += struct.pack(">I", 0x80000000 | len(large))
                    large.append(at)
                else:
                    out += struct.pack(">I", at)
            for at in large:
                out += struct.pack(">Q", at)
        out += hashlib.sha1(self.pack()[:-20]).digest()
        return bytes(out) + hashlib.sha1(out).digest()

    def write(self, objdir, stem="pack-test", **index_args):
        """Write pack-STEM.pack and .idx under objdir/pack."""
        d = os.path.join(objdir, "pack")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, stem + ".pack"), "wb") as f:
            f.write(self.pack())
        with open(os.path.join(d, stem + ".idx"), "wb") as f:
            f.write(self.index(**index_args))


def loose(objdir, kind, data, head=None, name=None, z=None):
    """Write a loose object (head: the header to write instead of
    "KIND SIZE\\0"; name: the name to file it under; z: its file's bytes).
    Returns its name in hex."""
    head = b"%s %d\0" % (kind.encode(), len(data)) if head is None else head
    name = oid(kind, data) if name is None else name
    hexname = name.hex()
    d = os.path.join(objdir, hexname[:2])
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, hexname[2:])
    if os.path.exists(path):
        os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(zlib.compress(head + data) if z is None else z)
    return hexname
