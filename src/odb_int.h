/*
 * odb_int.h: what the stages of the object reader share (private to src/odb*.c).
 */
#ifndef STRATA_ODB_INT_H
#define STRATA_ODB_INT_H

#include "strata/odb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include "strata/error.h"
#include "strata/util.h"

/*
 * The formats are git's (Documentation/gitformat-pack.txt): an index
 * (version 1, or 2 with 64-bit offsets) maps object names to offsets in
 * the pack; an entry in the pack is a type and size header, then either
 * a whole object or a delta against a base given by a negative offset
 * (OFS_DELTA) or by name (REF_DELTA), all zlib-compressed.
 */

#define DEFAULT_CACHE ((size_t)16 << 20)
#define BUCKETS (1u << 16)
#define FILTER (1u << 20)
#define MAX_ALTERNATE_DEPTH 5
/* deflate makes at most 1032 bytes of each byte it reads (zlib's tech
 * notes): a size above that is a lie the stream cannot back. */
#define DEFLATE_RATIO 1032

enum { T_OFS_DELTA = 6, T_REF_DELTA = 7 };

struct pack {
	char *path;                 /* the .pack */
	const unsigned char *map;   /* the whole .pack */
	size_t size;
	const unsigned char *idx;   /* the whole .idx */
	size_t idxsize;
	int version;                /* of the index */
	uint32_t n;
	const unsigned char *fanout, *oids, *off32, *off64;
	size_t n64;
	bool borrowed;              /* map and idx are the caller's */
};

struct obj {
	struct odb_object pub;      /* first: odb_object_free() casts */
	atomic_uint refs;
	/* the cache's, under its shard's lock */
	struct obj *hnext;
	struct util_lru_node lru;
	uint32_t pack;
	uint64_t offset;
	bool cached;
	bool over;                  /* counted in the odb's `over` */
	git_odb_object *held;       /* libgit2's, when pub.data is its */
	struct odb_home *home;      /* its maker's (odb_cache.c), or NULL */
	unsigned char buf[];
};

/*
 * A part of the cache: the buckets b with b % CACHE_SHARDS its own, their
 * objects' LRU list and bytes, under its lock. A shard holds at most its
 * share of the bound, or else one object alone that is bigger than that
 * share; the bytes of such objects are counted in the odb's `over`, which
 * may not pass the bound, so the cache holds at most twice its bound
 * however many shards there are (odb_cache_put()).
 */
#define CACHE_SHARDS 64

struct odb_shard {
	pthread_mutex_t lock;
	struct util_lru lru;
	size_t bytes;
} __attribute__((aligned(64)));

struct odb {
	struct pack *packs;
	size_t npacks, packs_alloc;
	struct odb_shard shard[CACHE_SHARDS];
	struct obj **bucket;
	/*
	 * How many cached objects hash to each slot (stuck at 255 once it
	 * gets there), written under the lock but read without it: a read
	 * that finds 0 needs neither the lock nor a miss in the table. The
	 * walk down a delta chain asks for every link, most of them not
	 * cached. (A stale 0 only costs building an object twice.)
	 */
	atomic_uchar *filter;
	atomic_size_t limit;        /* of all shards; read anywhere */
	atomic_size_t over;         /* cached objects over a shard's share */
	size_t base_limit;          /* odb_open()'s */
	atomic_size_t reads, hits, built, fallback;
	const char *missing_hint;   /* odb_set_missing_hint()'s, or NULL */
	char **dirs;                /* the object directories, real paths */
	size_t ndirs, dirs_alloc;
};

static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* An entry's header: its type, the size it inflates to, and for deltas
 * the base (an offset, or a name). */
struct entry {
	int type;
	size_t size;
	size_t data;                /* offset of the zlib stream */
	uint64_t base;              /* OFS_DELTA */
	const unsigned char *ref;   /* REF_DELTA: 20 bytes */
};

/* A zlib stream being inflated (zlib's, for reading part of one). */
struct zin {
	z_stream zs;
};

/* odb_cache.c */
struct obj *odb_obj_new(size_t len, git_object_t type);
void odb_obj_decref(struct obj *o);
/*
 * Evict what is over each shard's share of db->limit; with `all`,
 * everything, empty objects too (a bound of 0 bytes would keep them).
 */
void odb_cache_trim(struct odb *db, bool all);
struct obj *odb_cache_get(struct odb *db, uint32_t pack, uint64_t offset);
/* The bytes of the objects cached, shard by shard under each lock. */
size_t odb_cache_bytes(struct odb *db);
void odb_cache_put(struct odb *db, struct obj **o, uint32_t pack,
		   uint64_t offset);

/* odb_idx.c */
int odb_map_file(const char *path, const unsigned char **map,
		 size_t *size, bool missing_ok);
void odb_pack_release(struct pack *p);
int odb_parse_index(struct pack *p, const char *idxpath);
int odb_check_pack(const struct pack *p);
int odb_keep_pack(struct odb *db, struct pack *p);
int odb_add_objects_dir(struct odb *db, const char *objdir, int depth);
bool odb_offset_at(const struct pack *p, uint32_t pos, uint64_t *offset);
const unsigned char *odb_name_at(const struct pack *p, uint32_t pos);
bool odb_pack_find(const struct pack *p, const git_oid *oid,
		   uint64_t *offset);

/* odb_pack.c */
int odb_corrupt_why(const struct pack *p, uint64_t offset,
		    const char *why);
int odb_check_entry_size(const struct pack *p, uint64_t offset,
			 size_t size);
int odb_type_at(const struct pack *p, uint64_t offset);
int odb_parse_entry(struct entry *e, const struct pack *p,
		    uint64_t offset);
int odb_inflate_entry(unsigned char *out, const struct pack *p,
		      const struct entry *e, uint64_t offset);
struct obj *odb_apply_delta(const struct obj *base,
			    const unsigned char *d,
			    const unsigned char *dend, bool *oom);

/* odb_loose.c */
int odb_too_large(const char *what, size_t size);
int odb_zin_start(struct zin *z, const unsigned char *in, size_t n);
bool odb_zin_read(struct zin *z, unsigned char *out, size_t want,
		  size_t *got, bool *end);
int odb_read_loose(struct obj **out, size_t *size, struct odb *db,
		   const git_oid *oid, size_t want);

#endif
