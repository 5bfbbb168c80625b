/*
 * fuzz_pack_entry: reading a pack's entries and applying deltas
 * (src/odb.c). The input is
 *
 *   byte 0        k - 1 in its low 3 bits: the pack holds k objects
 *   2k bytes      their offsets in the pack, little-endian
 *   the rest      the pack's entries (from offset 12, after the header)
 *
 * The harness writes the pack's header and trailer and an index naming
 * object i 01..., 02..., (byte 0 is i + 1, the others 0), so that name
 * deltas can name each other. Each object is read whole, its stored form
 * inflated and its delta walked instruction by instruction (as diff.c
 * does), and the commits at the head of the pack are listed and read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/odb.h"

#define MAX_INFLATE ((size_t)1 << 20)

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A version 2 index of k objects at offs[]. */
static unsigned char *make_index(const uint32_t *offs, unsigned k,
				 size_t *len)
{
	size_t n = 8 + 1024 + (size_t)k * 28 + 40;
	unsigned char *x = calloc(1, n);
	unsigned i, b;

	if (!x)
		return NULL;
	memcpy(x, "\377tOc\0\0\0\2", 8);
	for (b = 0; b < 256; b++)
		put32(x + 8 + 4 * b, b >= k ? k : b);
	for (i = 0; i < k; i++) {
		x[8 + 1024 + 20 * i] = (unsigned char)(i + 1);
		put32(x + 8 + 1024 + (size_t)k * 24 + 4 * i, offs[i]);
	}
	*len = n;
	return x;
}

/* Inflate the stored form at `at` and walk it, when it is a delta. */
static void walk_stored(struct odb *db, struct odb_place at)
{
	struct odb_stored s;
	struct odb_delta it;
	unsigned char *buf;
	const unsigned char *lit;
	size_t off, n;

	if (odb_stored_at(&s, db, at) < 0 || s.form == ODB_OTHER ||
	    s.size > MAX_INFLATE || !(buf = malloc(s.size + 1)))
		return;
	if (odb_stored_inflate(buf, db, &s) == 0 && s.form == ODB_DELTA &&
	    odb_delta_start(&it, buf, s.size)) {
		enum odb_op op;

		do
			op = odb_delta_next(&it, &off, &n, &lit);
		while (op == ODB_OP_COPY || op == ODB_OP_INSERT);
	}
	free(buf);
}

static void read_all(struct odb *db, unsigned k)
{
	struct odb_commits *c = NULL;
	unsigned char *buf = NULL;
	size_t cap = 0, len, i;

	for (i = 0; i < k; i++) {
		struct odb_object *o = NULL;
		struct odb_place at;
		git_oid oid;

		memset(&oid, 0, sizeof(oid));
		oid.id[0] = (unsigned char)(i + 1);
		if (odb_read(&o, db, NULL, &oid, GIT_OBJECT_ANY) == 0)
			odb_object_free(o);
		if (odb_locate(&at, db, &oid) == 0)
			walk_stored(db, at);
	}
	if (odb_commits_list(&c, db) == 0) {
		for (i = 0; i < odb_commits_count(c) && i < 16; i++)
			odb_commits_read(c, i, &buf, &cap, &len);
		odb_commits_free(c);
	}
	free(buf);
}

/* libgit2 formats object names for the errors in storage it sets up. */
static int git_inited;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned k, i;
	uint32_t offs[8];
	unsigned char *pack, *idx;
	size_t body, idxlen;
	struct odb *db = NULL;

	if (!git_inited)
		git_inited = git_libgit2_init() > 0;
	if (size < 1)
		return 0;
	k = (data[0] & 7) + 1;
	if (size < 1 + 2 * (size_t)k)
		return 0;
	for (i = 0; i < k; i++)
		offs[i] = data[1 + 2 * i] | (uint32_t)data[2 + 2 * i] << 8;
	body = size - 1 - 2 * k;
	if (!(pack = calloc(1, 12 + body + 20)))
		return 0;
	memcpy(pack, "PACK\0\0\0\2", 8);
	put32(pack + 8, k);
	memcpy(pack + 12, data + 1 + 2 * k, body);
	if ((idx = make_index(offs, k, &idxlen)) != NULL &&
	    odb_open_memory(&db, idx, idxlen, pack, 12 + body + 20,
			    (size_t)64 << 10) == 0) {
		read_all(db, k);
		odb_free(db);
	}
	free(idx);
	free(pack);
	return 0;
}
