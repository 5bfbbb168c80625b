/*
 * marker: DIR/.strata-report, the record of what strata wrote into a
 * report directory, and the proof that a file is still what it wrote.
 *
 *     strata report 2
 *     d data/
 *     f 322 f0d74fa39393975cabd7bc02b4ec0cf4620615f757cac79cd3d1890ad3571f07 data/files.csv
 *
 * The first line names the format. Then one line per directory ("d",
 * its path and a '/') and per regular file ("f", its size in bytes, the
 * SHA-256 of its bytes in lowercase hex, its path), in strictly
 * increasing bytewise order of the path, every line ending in '\n'.
 * Paths are relative to DIR: not empty, no leading or doubled '/', no
 * component that is empty, "." or "..", or that starts with '.' (strata
 * writes no hidden file but the marker, which the marker does not list),
 * no control character (NUL, newline, carriage return...).
 *
 * A marker that breaks any of these rules is untrusted as a whole: the
 * directory is then treated as not strata's. A marker in the first
 * format ("strata report" and bare paths) proves nothing and is untrusted
 * too. An entry proves a file only while the file, reached without
 * following a symbolic link, is regular and holds exactly `size` bytes
 * with that SHA-256: anyone can write a marker, but a forged one can make
 * strata delete only a file inside DIR whose exact bytes its author
 * already had. docs/security.md gives the reasoning.
 */
#ifndef STRATA_MARKER_H
#define STRATA_MARKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "strata/sha256.h"

#define MARKER_NAME ".strata-report"

/* A marker larger than this is untrusted (memory stays bounded). */
#define MARKER_MAX_BYTES (64u << 20)

enum marker_state {
	MARKER_NONE,         /* no .strata-report */
	MARKER_VALID,        /* one strata could have written */
	MARKER_UNTRUSTED     /* anything else; `why` says what is wrong */
};

struct marker_entry {
	char *path;          /* a directory's ends with '/' */
	uint64_t size;       /* files only */
	unsigned char sha256[SHA256_BYTES];
};

struct marker {
	enum marker_state state;
	char why[128];
	struct stat st;      /* MARKER_VALID: the marker file itself */
	struct marker_entry *v;
	size_t n, alloc;
};

/*
 * Read the marker of the directory open at `dirfd` (`shown` names it in
 * messages). An untrusted marker is not an error: m->state says it. Fails
 * only when the marker cannot be read at all (and on memory).
 */
int marker_read(struct marker *m, int dirfd, const char *shown);

/* The entry for `path` (a directory's with its '/'), or NULL. */
const struct marker_entry *marker_find(const struct marker *m,
				       const char *path);

/*
 * Whether `path` may appear in a marker (see above); `len` is its length,
 * which the caller compares with strlen() to catch a NUL.
 */
int marker_path_ok(const char *path, size_t len, int dir);

/*
 * Size and SHA-256 of the regular file `name` in the directory `dirfd`,
 * opened without following a symbolic link (or blocking on a FIFO).
 * *is_file is 0 (and nothing else is set) if it is not a regular file.
 * *st is the open file's status. `shown` names it in messages.
 */
int marker_hash_at(int *is_file, struct marker_entry *out, struct stat *st,
		   int dirfd, const char *name, const char *shown);

/*
 * Add a directory (size and sha256 NULL) or a file to a marker being
 * built; `path` is copied. Entries may come in any order.
 */
int marker_add(struct marker *m, const char *path, uint64_t size,
	       const unsigned char *sha256);

/*
 * Write m's entries, sorted, as MARKER_NAME into the directory `dirfd`,
 * which must not hold one yet. Fails on a path marker_path_ok() refuses.
 */
int marker_write(struct marker *m, int dirfd, const char *shown);

void marker_release(struct marker *m);

#endif
