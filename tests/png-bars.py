#!/usr/bin/env python3
"""Read the bars of a release chart (img/releases.png, light theme).

    png-bars.py FILE

Prints one line per bar, left to right: `X0 X1 HEIGHT RRGGBB`, in pixels.
The x axis is the longest row of the axis colour; a bar is a run, at least
2 px wide, of one colour other than the background in the row above it
(the dashed line before the unreleased bar is 1 px wide), and its height
is how far that colour goes up from there. Reads the 8-bit RGB PNGs
without row filters that strata writes, and nothing else.
"""
import struct
import sys
import zlib

BG = (0xff, 0xff, 0xff)
AXIS = (0x6b, 0x72, 0x7a)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"png-bars: '{path}' is not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour != 2:
                sys.exit("png-bars: not an 8-bit RGB PNG")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    rows, stride = [], 1 + 3 * w
    for y in range(h):
        row = raw[y * stride:(y + 1) * stride]
        if row[0] != 0:
            sys.exit("png-bars: a row has a filter")
        rows.append([tuple(row[1 + 3 * x:4 + 3 * x]) for x in range(w)])
    return rows


def longest_run(row, colour):
    best = run = 0
    for px in row:
        run = run + 1 if px == colour else 0
        best = max(best, run)
    return best


def main():
    rows = load(sys.argv[1])
    axis = max(range(len(rows)), key=lambda y: longest_run(rows[y], AXIS))
    row = rows[axis - 1]
    x = 0
    while x < len(row):
        c = row[x]
        x1 = x
        while x1 + 1 < len(row) and row[x1 + 1] == c:
            x1 += 1
        if c != BG and x1 > x:
            mid, y = (x + x1) // 2, axis - 1
            while y >= 0 and rows[y][mid] == c:
                y -= 1
            print(x, x1, axis - 1 - y, "%02x%02x%02x" % c)
        x = x1 + 1


main()
