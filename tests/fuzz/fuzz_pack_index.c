/*
 * fuzz_pack_index: the pack index parser (src/odb.c). The input is an
 * .idx file; the pack beside it is a small valid pack whose header
 * claims the number of objects the index's fanout gives. Every name the
 * index lists is looked up and read, and the commits at the head of the
 * pack are listed and read: offsets past the end, 64-bit offsets outside
 * the pack, fanouts that lie must all come out as errors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/odb.h"

/* One blob, "a\n", at offset 12, then a trailer of zeros. */
static const unsigned char blob_entry[] = {
	0x32, 0x78, 0x9c, 0x4b, 0xe4, 0x02, 0x00, 0x00, 0xce, 0x00, 0x6c
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The name at position i, as the fuzzer's index may hold it, or NULL. */
static const uint8_t *name_at(const uint8_t *d, size_t n, uint32_t i)
{
	size_t at;

	if (n >= 8 && memcmp(d, "\377tOc", 4) == 0)
		at = 8 + 1024 + (size_t)i * 20;
	else
		at = 1024 + (size_t)i * 24 + 4;
	return at + 20 <= n ? d + at : NULL;
}

/* libgit2 formats object names for the errors in storage it sets up. */
static int git_inited;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char pack[12 + sizeof(blob_entry) + 20];
	size_t fan = size >= 8 && memcmp(data, "\377tOc", 4) == 0 ? 8 : 0;
	uint32_t count = size >= fan + 1024 ? get32(data + fan + 1020) : 0, i;
	struct odb *db = NULL;
	struct odb_commits *c = NULL;
	unsigned char *buf = NULL;
	size_t cap = 0, len;

	if (!git_inited)
		git_inited = git_libgit2_init() > 0;
	memcpy(pack, "PACK\0\0\0\2", 8);
	pack[8] = (unsigned char)(count >> 24);
	pack[9] = (unsigned char)(count >> 16);
	pack[10] = (unsigned char)(count >> 8);
	pack[11] = (unsigned char)count;
	memcpy(pack + 12, blob_entry, sizeof(blob_entry));
	memset(pack + 12 + sizeof(blob_entry), 0, 20);
	if (odb_open_memory(&db, data, size, pack, sizeof(pack), 0) < 0)
		return 0;
	for (i = 0; i < count && i < 256; i++) {
		const uint8_t *name = name_at(data, size, i);
		struct odb_object *o = NULL;
		git_oid oid;

		if (!name)
			break;
		memcpy(oid.id, name, 20);
		if (odb_read(&o, db, NULL, &oid, GIT_OBJECT_ANY) == 0)
			odb_object_free(o);
	}
	if (odb_commits_list(&c, db) == 0) {
		for (i = 0; i < odb_commits_count(c) && i < 256; i++)
			odb_commits_read(c, i, &buf, &cap, &len);
		odb_commits_free(c);
	}
	free(buf);
	odb_free(db);
	return 0;
}
