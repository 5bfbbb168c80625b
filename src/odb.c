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
	/* the cache's, under db->lock */
	struct obj *hnext, *prev, *next;
	uint32_t pack;
	uint64_t offset;
	bool cached;
	git_odb_object *held;       /* libgit2's, when pub.data is its */
	unsigned char buf[];
};

struct odb {
	struct pack *packs;
	size_t npacks, packs_alloc;
	pthread_mutex_t lock;
	struct obj **bucket;
	/*
	 * How many cached objects hash to each slot (stuck at 255 once it
	 * gets there), written under the lock but read without it: a read
	 * that finds 0 needs neither the lock nor a miss in the table. The
	 * walk down a delta chain asks for every link, most of them not
	 * cached. (A stale 0 only costs building an object twice.)
	 */
	atomic_uchar *filter;
	struct obj *lru_head, *lru_tail;  /* most recently used first */
	size_t bytes;
	atomic_size_t limit;        /* set under the lock, read anywhere */
	size_t base_limit;          /* odb_open()'s */
	atomic_size_t reads, hits, built, fallback;
	const char *missing_hint;   /* odb_set_missing_hint()'s, or NULL */
	char **dirs;                /* the object directories, real paths */
	size_t ndirs;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* ---- objects and the cache -------------------------------------------- */

static struct obj *obj_new(size_t len, git_object_t type)
{
	struct obj *o;

	if (len > SIZE_MAX - sizeof(*o) - 1)
		return NULL;
	o = malloc(sizeof(*o) + len + 1);
	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	atomic_init(&o->refs, 1);
	o->pub.data = o->buf;
	o->pub.len = len;
	o->pub.type = type;
	o->buf[len] = 0;
	return o;
}

static void obj_decref(struct obj *o)
{
	if (o && atomic_fetch_sub(&o->refs, 1) == 1) {
		git_odb_object_free(o->held);
		free(o);
	}
}

void odb_object_free(struct odb_object *obj)
{
	obj_decref((struct obj *)obj);
}

static uint64_t key_hash(uint32_t pack, uint64_t offset)
{
	return (offset ^ (uint64_t)pack << 40) * 0x9e3779b97f4a7c15ull;
}

static size_t bucket_of(uint32_t pack, uint64_t offset)
{
	return (size_t)(key_hash(pack, offset) >> 48) & (BUCKETS - 1);
}

static atomic_uchar *filter_of(struct odb *db, uint32_t pack, uint64_t offset)
{
	return &db->filter[(key_hash(pack, offset) >> 40) & (FILTER - 1)];
}

/* Under the lock: one more (d = 1) or one fewer (d = -1) object there. */
static void filter_add(struct odb *db, const struct obj *o, int d)
{
	atomic_uchar *f = filter_of(db, o->pack, o->offset);
	unsigned char v = atomic_load_explicit(f, memory_order_relaxed);

	if (v != 255)
		atomic_store_explicit(f, (unsigned char)(v + d),
				      memory_order_relaxed);
}

static void lru_unlink(struct odb *db, struct obj *o)
{
	if (o->prev)
		o->prev->next = o->next;
	else
		db->lru_head = o->next;
	if (o->next)
		o->next->prev = o->prev;
	else
		db->lru_tail = o->prev;
	o->prev = o->next = NULL;
}

static void lru_push(struct odb *db, struct obj *o)
{
	o->prev = NULL;
	o->next = db->lru_head;
	if (db->lru_head)
		db->lru_head->prev = o;
	else
		db->lru_tail = o;
	db->lru_head = o;
}

/* Under the lock: the cached object at (pack, offset), with a new ref. */
static struct obj *cache_find(struct odb *db, uint32_t pack, uint64_t offset)
{
	struct obj *o = db->bucket[bucket_of(pack, offset)];

	for (; o; o = o->hnext) {
		if (o->pack == pack && o->offset == offset) {
			lru_unlink(db, o);
			lru_push(db, o);
			atomic_fetch_add(&o->refs, 1);
			return o;
		}
	}
	return NULL;
}

/*
 * Take o out of the cache, onto *gone: the caller drops the cache's ref
 * once the lock is released, so that no free() runs under it.
 */
static void cache_evict(struct odb *db, struct obj *o, struct obj **gone)
{
	struct obj **pp = &db->bucket[bucket_of(o->pack, o->offset)];

	while (*pp != o)
		pp = &(*pp)->hnext;
	*pp = o->hnext;
	lru_unlink(db, o);
	filter_add(db, o, -1);
	db->bytes -= o->pub.len;
	o->cached = false;
	o->hnext = *gone;
	*gone = o;
}

/* Drop the cache's references to what cache_evict() set aside. */
static void evicted_release(struct obj *gone)
{
	while (gone) {
		struct obj *next = gone->hnext;

		obj_decref(gone);
		gone = next;
	}
}

static struct obj *cache_get(struct odb *db, uint32_t pack, uint64_t offset)
{
	struct obj *o;

	if (!atomic_load_explicit(filter_of(db, pack, offset),
				  memory_order_relaxed))
		return NULL;
	pthread_mutex_lock(&db->lock);
	o = cache_find(db, pack, offset);
	pthread_mutex_unlock(&db->lock);
	return o;
}

/*
 * Offer *o, built from (pack, offset), to the cache. Should another
 * thread have put the same object there meanwhile, *o becomes that one.
 */
static void cache_put(struct odb *db, struct obj **o, uint32_t pack,
		      uint64_t offset)
{
	struct obj *have, *gone = NULL;

	if ((*o)->pub.len > atomic_load(&db->limit) / 4)
		return;
	pthread_mutex_lock(&db->lock);
	have = cache_find(db, pack, offset);
	if (have) {
		obj_decref(*o);
		*o = have;
	} else {
		size_t b = bucket_of(pack, offset);

		(*o)->pack = pack;
		(*o)->offset = offset;
		(*o)->cached = true;
		(*o)->hnext = db->bucket[b];
		db->bucket[b] = *o;
		filter_add(db, *o, 1);
		lru_push(db, *o);
		atomic_fetch_add(&(*o)->refs, 1);
		db->bytes += (*o)->pub.len;
		while (db->bytes > atomic_load(&db->limit) &&
		       db->lru_tail != *o)
			cache_evict(db, db->lru_tail, &gone);
	}
	pthread_mutex_unlock(&db->lock);
	evicted_release(gone);
}

/* ---- opening the packs ------------------------------------------------ */

static bool offset_at(const struct pack *p, uint32_t pos, uint64_t *offset);

/*
 * Map the regular file at `path` (opened by util_open_regular(): a FIFO in
 * its place does not hang the run); anything but a regular file, and an
 * empty one, is refused. With `missing_ok`, a file that is not there gives
 * GIT_ENOTFOUND and no error.
 */
static int map_file(const char *path, const unsigned char **map,
		    size_t *size, bool missing_ok)
{
	struct stat st;
	void *p;
	int fd = util_open_regular(path, &st);

	if (fd == -1 && missing_ok && errno == ENOENT)
		return GIT_ENOTFOUND;
	if (fd == -1)
		return error_set("unable to open '%s': %s", path,
				 strerror(errno));
	if (fd == UTIL_NOT_FILE || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return error_set("unable to read '%s': %s", path,
				 fd >= 0 ? "it is empty" : "not a regular file");
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return error_set("unable to map '%s': %s", path,
				 strerror(errno));
	*map = p;
	*size = (size_t)st.st_size;
	return 0;
}

static void pack_release(struct pack *p)
{
	if (p->map && !p->borrowed)
		munmap((void *)p->map, p->size);
	if (p->idx && !p->borrowed)
		munmap((void *)p->idx, p->idxsize);
	free(p->path);
	memset(p, 0, sizeof(*p));
}

/* Check the index's layout and find its tables. */
static int parse_index(struct pack *p, const char *idxpath)
{
	const unsigned char *m = p->idx;
	const char *why;
	size_t need;
	uint32_t i, prev = 0;

	if (p->idxsize >= 8 && memcmp(m, "\377tOc", 4) == 0) {
		if (be32(m + 4) != 2)
			return error_set("unsupported pack index version in '%s'",
					 idxpath);
		p->version = 2;
		p->fanout = m + 8;
	} else {
		p->version = 1;
		p->fanout = m;
	}
	why = "too short";
	if (p->idxsize < (size_t)(p->fanout - m) + 1024)
		goto bad;
	why = "its fanout table goes down";
	for (i = 0; i < 256; i++) {
		uint32_t f = be32(p->fanout + 4 * i);

		if (f < prev)
			goto bad;
		prev = f;
	}
	p->n = prev;
	p->oids = p->fanout + 1024;
	why = "its size does not fit its object count";
	if (p->version == 2) {
		p->off32 = p->oids + (size_t)p->n * 24;  /* past the CRCs */
		p->off64 = p->off32 + (size_t)p->n * 4;
		need = 8 + 1024 + (size_t)p->n * 28 + 40;
		if (p->idxsize < need || (p->idxsize - need) % 8)
			goto bad;
		p->n64 = (p->idxsize - need) / 8;
		if (p->n64 > p->n)
			goto bad;
	} else {
		need = 1024 + (size_t)p->n * 24 + 40;
		if (p->idxsize != need)
			goto bad;
	}
	return 0;
bad:
	return error_set("corrupt pack index '%s': %s", idxpath, why);
}

/*
 * Check the pack against its index: the header's object count, the
 * checksum the index records for the pack (a pack cut short or another
 * pack's fails it), and every offset the index gives, inside the pack.
 * The entries themselves are checked as they are read.
 */
static int check_pack(const struct pack *p)
{
	uint32_t i;
	uint64_t off;

	if (p->size < 32 || memcmp(p->map, "PACK", 4) != 0 ||
	    (be32(p->map + 4) != 2 && be32(p->map + 4) != 3))
		return error_set("corrupt pack '%s': bad header", p->path);
	if (memcmp(p->idx + p->idxsize - 40, p->map + p->size - 20, 20) != 0)
		return error_set("corrupt pack '%s': it does not match its "
				 "index (truncated?)", p->path);
	if (be32(p->map + 8) != p->n)
		return error_set("corrupt pack '%s': it holds %u objects, its "
				 "index %u", p->path, be32(p->map + 8), p->n);
	for (i = 0; i < p->n; i++)
		if (!offset_at(p, i, &off) || off < 12 || off >= p->size - 20)
			return error_set("corrupt pack index for '%s': object "
					 "%u is outside the pack", p->path, i);
	return 0;
}

/* Append *p to db's packs (then *p is db's, and zeroed). */
static int keep_pack(struct odb *db, struct pack *p)
{
	if (db->npacks == db->packs_alloc) {
		size_t na = db->packs_alloc ? 2 * db->packs_alloc : 4;
		struct pack *np = realloc(db->packs, na * sizeof(*np));

		if (!np)
			return error_oom();
		db->packs = np;
		db->packs_alloc = na;
	}
	db->packs[db->npacks++] = *p;
	memset(p, 0, sizeof(*p));
	return 0;
}

static int add_pack(struct odb *db, const char *dir, const char *idxname)
{
	struct pack p;
	size_t dl = strlen(dir), nl = strlen(idxname);
	char *idxpath = malloc(dl + nl + 2);
	int rc = 0;

	memset(&p, 0, sizeof(p));
	if (!idxpath || !(p.path = malloc(dl + nl + 3))) {
		free(idxpath);
		return error_oom();
	}
	snprintf(idxpath, dl + nl + 2, "%s/%s", dir, idxname);
	memcpy(p.path, idxpath, dl + 1 + nl - 4);
	memcpy(p.path + dl + 1 + nl - 4, ".pack", 6);
	if (access(p.path, F_OK) < 0)
		goto done;  /* an index left behind: git skips it too */
	if ((rc = map_file(idxpath, &p.idx, &p.idxsize, false)) < 0 ||
	    (rc = parse_index(&p, idxpath)) < 0 ||
	    (rc = map_file(p.path, &p.map, &p.size, false)) < 0 ||
	    (rc = check_pack(&p)) < 0)
		goto done;
	rc = keep_pack(db, &p);
done:
	pack_release(&p);
	free(idxpath);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The packs of directory `dir` (objects/pack), in name order. */
static int add_packs(struct odb *db, const char *dir)
{
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 4, ".idx") != 0)
			continue;
		if (n == alloc) {
			size_t na = alloc ? 2 * alloc : 8;
			char **nn = realloc(names, na * sizeof(*nn));

			if (!nn) {
				rc = error_oom();
				goto done;
			}
			names = nn;
			alloc = na;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = error_oom();
			goto done;
		}
		n++;
	}
	/* Any order is right (equal names, equal content); one order keeps
	 * runs alike. */
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	/* A pack that is damaged is an error: git fails on it too, once it
	 * needs an object in it, and libgit2 would only say less. */
	for (i = 0; i < n && rc == 0; i++)
		rc = add_pack(db, dir, names[i]);
done:
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * Note objdir (a real path, taken) as one of db's object directories:
 * 1, or 0 when it is one already (an alternate that names its own
 * store, or loops back to it through another path).
 */
static int add_dir(struct odb *db, char *real)
{
	char **nd;
	size_t i;

	for (i = 0; i < db->ndirs; i++)
		if (!strcmp(db->dirs[i], real)) {
			free(real);
			return 0;
		}
	if (!(nd = realloc(db->dirs, (db->ndirs + 1) * sizeof(*nd)))) {
		free(real);
		return error_oom();
	}
	db->dirs = nd;
	db->dirs[db->ndirs++] = real;
	return 1;
}

static int add_objects_dir(struct odb *db, const char *objdir, int depth);

/* The object directories objdir/info/alternates names, relative ones
 * from objdir. */
static int add_alternates(struct odb *db, const char *objdir, int depth)
{
	size_t ol = strlen(objdir);
	char *path = malloc(ol + 32), line[4096];
	FILE *alt;
	int rc = 0;

	if (!path)
		return error_oom();
	snprintf(path, ol + 32, "%s/info/alternates", objdir);
	alt = fopen(path, "re");
	free(path);
	if (!alt)
		return 0;
	while (rc >= 0 && fgets(line, sizeof(line), alt)) {
		size_t l = strlen(line);

		while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			line[--l] = 0;
		if (!l || line[0] == '#')
			continue;
		if (line[0] == '/') {
			rc = add_objects_dir(db, line, depth + 1);
			continue;
		}
		if (!(path = malloc(ol + l + 2))) {
			rc = error_oom();
			break;
		}
		snprintf(path, ol + l + 2, "%s/%s", objdir, line);
		rc = add_objects_dir(db, path, depth + 1);
		free(path);
	}
	fclose(alt);
	return rc;
}

/*
 * The packs of one object directory, then of its alternates, each
 * directory once (by its real path): git's own alternates may name a
 * store twice, or loop.
 */
static int add_objects_dir(struct odb *db, const char *objdir, int depth)
{
	char *real = realpath(objdir, NULL), *dir;
	int rc;

	if (!real)
		return errno == ENOMEM ? error_oom() : 0;  /* git skips it too */
	if ((rc = add_dir(db, real)) <= 0)
		return rc;
	if (asprintf(&dir, "%s/pack", real) < 0)
		return error_oom();
	rc = add_packs(db, dir);
	free(dir);
	if (rc < 0 || depth >= MAX_ALTERNATE_DEPTH)
		return rc;
	return add_alternates(db, real, depth);
}

/* An empty reader (no packs yet). */
static int odb_new(struct odb **out, size_t cache_bytes)
{
	struct odb *db = calloc(1, sizeof(*db));
	pthread_mutexattr_t a;

	*out = NULL;
	if (!db)
		return error_oom();
	/*
	 * The lock is held for a few pointer moves at a time but taken for
	 * every object read: spinning a little before sleeping spares the
	 * futex calls of sleeping and waking the other thread.
	 */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&db->lock, &a);
	pthread_mutexattr_destroy(&a);
	db->base_limit = cache_bytes ? cache_bytes : DEFAULT_CACHE;
	atomic_init(&db->limit, db->base_limit);
	atomic_init(&db->reads, 0);
	atomic_init(&db->hits, 0);
	atomic_init(&db->built, 0);
	atomic_init(&db->fallback, 0);
	if (!(db->bucket = calloc(BUCKETS, sizeof(*db->bucket))) ||
	    !(db->filter = calloc(FILTER, sizeof(*db->filter)))) {
		odb_free(db);
		return error_oom();
	}
	*out = db;
	return 0;
}

int odb_open(struct odb **out, git_repository *git, size_t cache_bytes)
{
	struct odb *db = NULL;
	const char *common = git_repository_commondir(git);
	char *objdir = NULL;
	int rc = 0;

	*out = NULL;
	if ((rc = odb_new(&db, cache_bytes)) < 0)
		return rc;
	if (!(objdir = malloc(strlen(common) + 9))) {
		rc = error_oom();
		goto done;
	}
	snprintf(objdir, strlen(common) + 9, "%s%sobjects", common,
		common[0] && common[strlen(common) - 1] == '/' ? "" : "/");
	if ((rc = add_objects_dir(db, objdir, 0)) < 0)
		goto done;
	*out = db;
	db = NULL;
done:
	free(objdir);
	odb_free(db);
	return rc;
}

int odb_open_memory(struct odb **out, const unsigned char *idx,
		    size_t idxlen, const unsigned char *pack, size_t packlen,
		    size_t cache_bytes)
{
	struct odb *db = NULL;
	struct pack p;
	int rc;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.borrowed = true;
	p.idx = idx;
	p.idxsize = idxlen;
	p.map = pack;
	p.size = packlen;
	if (!(p.path = strdup("memory.pack")))
		return error_oom();
	if ((rc = parse_index(&p, "memory.idx")) < 0 ||
	    (rc = check_pack(&p)) < 0 ||
	    (rc = odb_new(&db, cache_bytes)) < 0 ||
	    (rc = keep_pack(db, &p)) < 0)
		goto done;
	*out = db;
	db = NULL;
done:
	pack_release(&p);
	odb_free(db);
	return rc;
}

void odb_set_cache_limit(struct odb *db, size_t cache_bytes)
{
	struct obj *gone = NULL;

	pthread_mutex_lock(&db->lock);
	atomic_store(&db->limit, cache_bytes ? cache_bytes : db->base_limit);
	while (db->bytes > atomic_load(&db->limit) && db->lru_tail)
		cache_evict(db, db->lru_tail, &gone);
	pthread_mutex_unlock(&db->lock);
	evicted_release(gone);
}

void odb_free(struct odb *db)
{
	struct obj *gone = NULL;
	size_t i;

	if (!db)
		return;
	/* Everything, empty objects too (a bound of 0 bytes would keep them). */
	while (db->lru_tail)
		cache_evict(db, db->lru_tail, &gone);
	evicted_release(gone);
	pthread_mutex_destroy(&db->lock);
	for (i = 0; i < db->npacks; i++)
		pack_release(&db->packs[i]);
	free(db->packs);
	free(db->bucket);
	free(db->filter);
	for (i = 0; i < db->ndirs; i++)
		free(db->dirs[i]);
	free(db->dirs);
	free(db);
}

void odb_set_missing_hint(struct odb *db, const char *hint)
{
	db->missing_hint = hint;
}

void odb_stats(struct odb_stats *out, struct odb *db)
{
	out->packs = db->npacks;
	out->reads = atomic_load(&db->reads);
	out->hits = atomic_load(&db->hits);
	out->built = atomic_load(&db->built);
	out->fallback = atomic_load(&db->fallback);
}

/* ---- finding and building objects ------------------------------------- */

/* The offset of the object at position `pos` of p's index, or false. */
static bool offset_at(const struct pack *p, uint32_t pos, uint64_t *offset)
{
	if (p->version == 1) {
		*offset = be32(p->oids + (size_t)pos * 24);
		return true;
	}
	*offset = be32(p->off32 + (size_t)pos * 4);
	if (*offset & 0x80000000u) {
		size_t k = *offset & 0x7fffffffu;

		if (k >= p->n64)
			return false;
		*offset = be64(p->off64 + k * 8);
	}
	return true;
}

/* The name of the object at position `pos` of p's index. */
static const unsigned char *name_at(const struct pack *p, uint32_t pos)
{
	return p->version == 2 ? p->oids + (size_t)pos * 20
			       : p->oids + (size_t)pos * 24 + 4;
}

/*
 * The offset of `oid` in pack p, or false.
 *
 * Object ids are uniformly spread, so the search guesses where in its range
 * the id should be from the 8 bytes after the first (which the fanout has
 * fixed), as git's sha1_entry_pos once did: four or five probes instead
 * of a dozen halvings, and each probe of a large index is a cache miss (on
 * a repository of a million objects they took a sixth of the walk). When a
 * guess leaves more than half the range, the next probe halves it, so the
 * worst case stays logarithmic.
 */
static bool pack_find(const struct pack *p, const git_oid *oid,
		      uint64_t *offset)
{
	const unsigned char *id = oid->id, *name;
	uint32_t lo = id[0] ? be32(p->fanout + 4 * (id[0] - 1)) : 0;
	uint32_t hi = be32(p->fanout + 4 * id[0]);
	/* The keys just outside [lo, hi): what the range is known to span. */
	uint64_t key = be64(id + 1), klo = 0, khi = UINT64_MAX;
	bool halve = false;

	while (lo < hi) {
		uint32_t mid, was = hi - lo;
		int c;

		if (halve || hi - lo < 8 || khi <= klo) {
			mid = lo + (hi - lo) / 2;
		} else {
			double f = key <= klo ? 0.0 : key >= khi ? 1.0 :
				   (double)(key - klo) / (double)(khi - klo);

			mid = lo + (uint32_t)(f * (double)(hi - lo));
			if (mid >= hi)
				mid = hi - 1;
		}
		name = name_at(p, mid);
		c = memcmp(name, id, 20);
		if (c == 0)
			return offset_at(p, mid, offset);
		if (c < 0) {
			lo = mid + 1;
			klo = be64(name + 1);
		} else {
			hi = mid;
			khi = be64(name + 1);
		}
		halve = !halve && 2 * (hi - lo) > was;
	}
	return false;
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

static int corrupt_why(const struct pack *p, uint64_t offset,
		       const char *why)
{
	return error_set("corrupt object at offset %llu in '%s': %s",
			 (unsigned long long)offset, p->path, why);
}

static int corrupt(const struct pack *p, uint64_t offset)
{
	return corrupt_why(p, offset, "bad entry");
}

/* An entry may be read whole only within the limit. */
static int check_entry_size(const struct pack *p, uint64_t offset,
			    size_t size)
{
	if (size <= ODB_MAX_OBJECT)
		return 0;
	return error_set("object at offset %llu in '%s' is too large (%zu "
			 "bytes; the limit is %zu MiB)",
			 (unsigned long long)offset, p->path, size,
			 ODB_MAX_OBJECT >> 20);
}

/* The type in the header of the entry at `offset`, or -1. */
static int type_at(const struct pack *p, uint64_t offset)
{
	if (offset < 12 || offset >= p->size - 20)
		return -1;
	return (p->map[offset] >> 4) & 7;
}

static int parse_entry(struct entry *e, const struct pack *p,
		       uint64_t offset)
{
	size_t end = p->size - 20, at = (size_t)offset;
	unsigned shift = 4;
	unsigned char c;

	if ((e->type = type_at(p, offset)) < 0)
		return corrupt(p, offset);
	c = p->map[at++];
	e->size = c & 15;
	while (c & 0x80) {
		if (at >= end || shift > 57)
			return corrupt(p, offset);
		c = p->map[at++];
		e->size += (size_t)(c & 0x7f) << shift;
		shift += 7;
	}
	if (e->type == T_OFS_DELTA) {
		uint64_t ofs;

		if (at >= end)
			return corrupt(p, offset);
		c = p->map[at++];
		ofs = c & 0x7f;
		while (c & 0x80) {
			if (at >= end || ofs >> 56)
				return corrupt(p, offset);
			c = p->map[at++];
			ofs = ((ofs + 1) << 7) | (c & 0x7f);
		}
		if (ofs == 0 || ofs > offset)
			return corrupt(p, offset);
		e->base = offset - ofs;
	} else if (e->type == T_REF_DELTA) {
		if (at + 20 > end)
			return corrupt(p, offset);
		e->ref = p->map + at;
		at += 20;
	} else if (e->type < GIT_OBJECT_COMMIT || e->type > GIT_OBJECT_TAG) {
		return corrupt_why(p, offset, "bad object type");
	}
	e->data = at;
	if (e->size / DEFLATE_RATIO > end - at)
		return corrupt_why(p, offset, "its size is more than its "
				   "compressed bytes can hold");
	return 0;
}

/*
 * One decompressor per thread (libdeflate's are not to be shared), freed
 * when the thread ends.
 */
static pthread_key_t inflater_key;
static pthread_once_t inflater_once = PTHREAD_ONCE_INIT;
static bool inflater_key_ok;
static _Thread_local struct libdeflate_decompressor *inflater_mine;

static void inflater_free(void *d)
{
	libdeflate_free_decompressor(d);
}

static void inflater_key_make(void)
{
	inflater_key_ok =
		pthread_key_create(&inflater_key, inflater_free) == 0;
}

static struct libdeflate_decompressor *inflater_get(void)
{
	if (!inflater_mine) {
		pthread_once(&inflater_once, inflater_key_make);
		if (!inflater_key_ok)
			return NULL;
		inflater_mine = libdeflate_alloc_decompressor();
		if (inflater_mine)
			pthread_setspecific(inflater_key, inflater_mine);
	}
	return inflater_mine;
}

/*
 * Inflate the entry's zlib stream (which ends somewhere before the pack's
 * trailer) into exactly e->size bytes at out.
 */
static int inflate_entry(unsigned char *out, const struct pack *p,
			 const struct entry *e, uint64_t offset)
{
	struct libdeflate_decompressor *d = inflater_get();
	size_t in_left = p->size - 20 - e->data, in_used, out_len;
	enum libdeflate_result r;

	if (!d)
		return error_oom();
	r = libdeflate_zlib_decompress_ex(d, p->map + e->data, in_left, out,
					  e->size, &in_used, &out_len);
	if (r != LIBDEFLATE_SUCCESS || out_len != e->size)
		return corrupt_why(p, offset, r == LIBDEFLATE_SUCCESS ?
				   "shorter than its size" :
				   r == LIBDEFLATE_INSUFFICIENT_SPACE ?
				   "longer than its size" : "bad zlib data");
	return 0;
}

static bool delta_size(const unsigned char **d, const unsigned char *end,
		       size_t *out)
{
	size_t v = 0;
	unsigned shift = 0;
	unsigned char c;

	do {
		if (*d >= end || shift > 57)
			return false;
		c = *(*d)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return true;
}

bool odb_delta_start(struct odb_delta *it, const unsigned char *d, size_t n)
{
	it->end = d + n;
	it->at = 0;
	if (!delta_size(&d, it->end, &it->base_len) ||
	    !delta_size(&d, it->end, &it->len))
		return false;
	it->d = d;
	return true;
}

enum odb_op odb_delta_next(struct odb_delta *it, size_t *off, size_t *n,
			   const unsigned char **lit)
{
	const unsigned char *d = it->d, *end = it->end;
	unsigned char op;

	if (d == end)
		return it->at == it->len ? ODB_OP_END : ODB_OP_BAD;
	op = *d++;
	if (op & 0x80) {
		size_t o = 0, k = 0;
		unsigned i;

		for (i = 0; i < 4; i++)
			if (op & (1u << i)) {
				if (d >= end)
					return ODB_OP_BAD;
				o |= (size_t)*d++ << (8 * i);
			}
		for (i = 0; i < 3; i++)
			if (op & (0x10u << i)) {
				if (d >= end)
					return ODB_OP_BAD;
				k |= (size_t)*d++ << (8 * i);
			}
		if (!k)
			k = 0x10000;
		if (o > it->base_len || k > it->base_len - o ||
		    k > it->len - it->at)
			return ODB_OP_BAD;
		*off = o;
		*n = k;
		it->d = d;
		it->at += k;
		return ODB_OP_COPY;
	}
	if (!op || op > (size_t)(end - d) || op > it->len - it->at)
		return ODB_OP_BAD;
	*lit = d;
	*n = op;
	it->d = d + op;
	it->at += op;
	return ODB_OP_INSERT;
}

/* Apply delta [d, dend) to base: a new object, or NULL when malformed
 * (*oom set when out of memory). */
static struct obj *apply_delta(const struct obj *base,
			       const unsigned char *d,
			       const unsigned char *dend, bool *oom)
{
	struct odb_delta it;
	const unsigned char *lit;
	size_t off, n;
	enum odb_op op;
	struct obj *o;

	*oom = false;
	if (!odb_delta_start(&it, d, (size_t)(dend - d)) ||
	    it.base_len != base->pub.len)
		return NULL;
	/* Each instruction takes a byte at least and makes at most the
	 * base's size, or 127 bytes: a larger size is a lie. */
	if (it.len > ODB_MAX_OBJECT ||
	    it.len / (it.base_len > 127 ? it.base_len : 127) >
	    (size_t)(dend - d))
		return NULL;
	if (!(o = obj_new(it.len, base->pub.type))) {
		*oom = true;
		return NULL;
	}
	while ((op = odb_delta_next(&it, &off, &n, &lit)) != ODB_OP_END) {
		if (op == ODB_OP_COPY)
			memcpy(o->buf + it.at - n, base->buf + off, n);
		else if (op == ODB_OP_INSERT)
			memcpy(o->buf + it.at - n, lit, n);
		else
			break;
	}
	if (op == ODB_OP_END)
		return o;
	free(o);
	return NULL;
}

/* ---- loose objects and prefixes --------------------------------------- */

static int too_large(const char *what, size_t size)
{
	return error_set("%s is too large (%zu bytes; the limit is %zu MiB)",
			 what, size, ODB_MAX_OBJECT >> 20);
}

/* A zlib stream being inflated (zlib's, for reading part of one). */
struct zin {
	z_stream zs;
};

static int zin_start(struct zin *z, const unsigned char *in, size_t n)
{
	memset(z, 0, sizeof(*z));
	if (inflateInit(&z->zs) != Z_OK)
		return error_oom();
	z->zs.next_in = (Bytef *)in;
	z->zs.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	return 0;
}

/*
 * Inflate up to `want` bytes into out, *got of them: fewer only where the
 * stream ends (*end). False for bad data, or a stream cut short.
 */
static bool zin_read(struct zin *z, unsigned char *out, size_t want,
		     size_t *got, bool *end)
{
	*got = 0;
	*end = false;
	while (*got < want) {
		size_t chunk = want - *got > UINT32_MAX ? UINT32_MAX
							: want - *got;
		int r;

		z->zs.next_out = out + *got;
		z->zs.avail_out = (uInt)chunk;
		r = inflate(&z->zs, Z_NO_FLUSH);
		*got += chunk - z->zs.avail_out;
		if (r == Z_STREAM_END) {
			*end = true;
			return true;
		}
		if (r != Z_OK)
			return false;
	}
	return true;
}

/* The stream ends here, and nothing follows it. */
static bool zin_ends(struct zin *z)
{
	unsigned char c;
	size_t got;
	bool end;

	return zin_read(z, &c, 1, &got, &end) && end && !got &&
	       !z->zs.avail_in;
}

/*
 * A loose object's header, "TYPE SIZE\0" as git writes it (a canonical
 * decimal size): its length up to the NUL, or 0 when it is bad.
 */
static size_t loose_header(git_object_t *type, size_t *size,
			   const unsigned char *h, size_t n)
{
	static const char *const names[] = { "commit", "tree", "blob", "tag" };
	static const git_object_t types[] = { GIT_OBJECT_COMMIT,
		GIT_OBJECT_TREE, GIT_OBJECT_BLOB, GIT_OBJECT_TAG };
	const unsigned char *sp = memchr(h, ' ', n), *nul = memchr(h, 0, n);
	size_t i, v = 0;

	if (!sp || !nul || nul < sp + 2 || (sp[1] == '0' && nul > sp + 2))
		return 0;
	*type = GIT_OBJECT_INVALID;
	for (i = 0; i < 4; i++)
		if ((size_t)(sp - h) == strlen(names[i]) &&
		    !memcmp(h, names[i], (size_t)(sp - h)))
			*type = types[i];
	if (*type == GIT_OBJECT_INVALID)
		return 0;
	for (i = 1; sp + i < nul; i++) {
		if (sp[i] < '0' || sp[i] > '9' || v > (SIZE_MAX - 9) / 10)
			return 0;
		v = v * 10 + (size_t)(sp[i] - '0');
	}
	*size = v;
	return (size_t)(nul - h) + 1;
}

/*
 * Parse a loose object's file, z[0, n): its header, then the first
 * `want` bytes of its content (SIZE_MAX: all of it, which must end the
 * stream exactly, with nothing after it, as git requires) into a new
 * object *out, and its whole size in *size. Errors name `path`.
 */
static int loose_parse(struct obj **out, size_t *size, const unsigned char *z,
		       size_t n, size_t want, const char *path)
{
	unsigned char head[64];
	size_t got, hlen = 0, k;
	git_object_t type = GIT_OBJECT_INVALID;
	const char *why = "bad zlib data";
	struct obj *o = NULL;
	struct zin zi;
	bool end;
	int rc;

	*out = NULL;
	if ((rc = zin_start(&zi, z, n)) < 0)
		return rc;
	if (!zin_read(&zi, head, sizeof(head), &got, &end))
		goto bad;
	why = "bad header";
	if (!(hlen = loose_header(&type, size, head, got)))
		goto bad;
	if (want == SIZE_MAX && *size > ODB_MAX_OBJECT) {
		inflateEnd(&zi.zs);
		return error_set("loose object '%s' is too large (%zu bytes; "
				 "the limit is %zu MiB)", path, *size,
				 ODB_MAX_OBJECT >> 20);
	}
	if (want > *size)
		want = *size;
	if (!(o = obj_new(want, type))) {
		inflateEnd(&zi.zs);
		return error_oom();
	}
	why = "longer than its header says";
	k = got - hlen;
	if (k > *size)
		goto bad;
	memcpy(o->buf, head + hlen, k < want ? k : want);
	why = "shorter than its header says";
	if (k < want && (end || !zin_read(&zi, o->buf + k, want - k, &got,
					  &end) || got < want - k))
		goto bad;
	why = "longer than its header says, or followed by garbage";
	if (want == *size && (end ? zi.zs.avail_in != 0 : !zin_ends(&zi)))
		goto bad;
	inflateEnd(&zi.zs);
	*out = o;
	return 0;
bad:
	inflateEnd(&zi.zs);
	free(o);
	return error_set("corrupt loose object '%s': %s", path, why);
}

int odb_loose_parse(struct odb_object **out, const unsigned char *z,
		    size_t n, const char *path)
{
	struct obj *o;
	size_t size;
	int rc = loose_parse(&o, &size, z, n, SIZE_MAX, path);

	*out = rc < 0 ? NULL : &o->pub;
	return rc;
}

/*
 * Object oid, loose in one of db's object directories: its first `want`
 * bytes (SIZE_MAX: all), as loose_parse() reads them. GIT_ENOTFOUND when
 * it is in none of them.
 */
static int read_loose(struct obj **out, size_t *size, struct odb *db,
		      const git_oid *oid, size_t want)
{
	char hex[GIT_OID_HEXSZ + 1], *path;
	const unsigned char *map;
	size_t i, n;
	int rc = GIT_ENOTFOUND;

	*out = NULL;
	git_oid_tostr(hex, sizeof(hex), oid);
	for (i = 0; i < db->ndirs && rc == GIT_ENOTFOUND; i++) {
		if (asprintf(&path, "%s/%.2s/%s", db->dirs[i], hex, hex + 2) < 0)
			return error_oom();
		if ((rc = map_file(path, &map, &n, true)) == 0) {
			rc = loose_parse(out, size, map, n, want, path);
			munmap((void *)map, n);
		}
		free(path);
	}
	return rc;
}

static int read_fallback(struct obj **out, struct odb *db,
			 git_repository *git, const git_oid *oid);

/* Name-delta bases in other packs, nested no deeper than this. */
#define MAX_REF_DEPTH 16

/*
 * Build the object at (pack, offset): walk down its delta chain to a
 * cached object or a whole one, then apply the deltas back up, caching
 * every object on the way, as git's delta base cache does. Commits are
 * read once each, by the history: one asked for is not kept.
 */
static int read_at(struct obj **out, struct odb *db, git_repository *git,
		   uint32_t pi, uint64_t offset, int depth)
{
	const struct pack *p = &db->packs[pi];
	uint64_t stack_buf[64], *stack = stack_buf, cur = offset;
	size_t n = 0, alloc = 64;
	struct obj *base = NULL;
	unsigned char *delta = NULL;
	struct entry e;
	int rc = 0;

	*out = NULL;
	for (;;) {
		if ((base = cache_get(db, pi, cur)) != NULL) {
			if (n == 0)
				atomic_fetch_add(&db->hits, 1);
			break;
		}
		if ((rc = parse_entry(&e, p, cur)) < 0)
			goto done;
		if (e.type != T_OFS_DELTA && e.type != T_REF_DELTA) {
			if ((rc = check_entry_size(p, cur, e.size)) < 0)
				goto done;
			if (!(base = obj_new(e.size, (git_object_t)e.type))) {
				rc = error_oom();
				goto done;
			}
			if ((rc = inflate_entry(base->buf, p, &e, cur)) < 0)
				goto done;
			atomic_fetch_add(&db->built, 1);
			if (n || base->pub.type != GIT_OBJECT_COMMIT)
				cache_put(db, &base, pi, cur);
			break;
		}
		/*
		 * A chain visits each entry once: one longer than the pack
		 * has entries loops (name deltas can point forwards, and
		 * back again). A long chain is fine: git takes 100,000.
		 */
		if (n > p->n) {
			rc = corrupt_why(p, offset, "its deltas form a cycle");
			goto done;
		}
		if ((rc = check_entry_size(p, cur, e.size)) < 0)
			goto done;
		if (n == alloc) {
			uint64_t *ns = malloc(2 * alloc * sizeof(*ns));

			if (!ns) {
				rc = error_oom();
				goto done;
			}
			memcpy(ns, stack, n * sizeof(*ns));
			if (stack != stack_buf)
				free(stack);
			stack = ns;
			alloc *= 2;
		}
		stack[n++] = cur;
		if (e.type == T_OFS_DELTA) {
			cur = e.base;
		} else {
			struct odb_place other;
			git_oid bid;
			uint64_t bo;

			memcpy(bid.id, e.ref, 20);
			if (pack_find(p, &bid, &bo)) {
				if (bo == cur) {
					rc = corrupt_why(p, cur, "a delta against "
							 "itself");
					goto done;
				}
				cur = bo;
				continue;
			}
			if (depth >= MAX_REF_DEPTH) {
				rc = corrupt_why(p, cur, "its deltas go through "
						 "too many packs (a cycle?)");
				goto done;
			}
			if (odb_locate(&other, db, &bid) == 0)
				rc = read_at(&base, db, git, other.pack,
					     other.offset, depth + 1);
			else if (read_fallback(&base, db, git, &bid) < 0)
				/*
				 * A base that no pack holds and libgit2 cannot
				 * read: this entry is damaged (a pack on disk
				 * holds the bases of its name deltas).
				 */
				rc = corrupt_why(p, cur, "its delta base is "
						 "missing");
			if (rc < 0)
				goto done;
			break;
		}
	}
	while (n) {
		struct obj *next;
		bool oom;

		cur = stack[--n];
		if ((rc = parse_entry(&e, p, cur)) < 0)
			goto done;
		free(delta);
		if (!(delta = malloc(e.size + 1))) {
			rc = error_oom();
			goto done;
		}
		if ((rc = inflate_entry(delta, p, &e, cur)) < 0)
			goto done;
		next = apply_delta(base, delta, delta + e.size, &oom);
		if (!next) {
			rc = oom ? error_oom() : corrupt_why(p, cur, "bad delta");
			goto done;
		}
		obj_decref(base);
		base = next;
		atomic_fetch_add(&db->built, 1);
		if (n || base->pub.type != GIT_OBJECT_COMMIT)
			cache_put(db, &base, pi, cur);
	}
	*out = base;
	base = NULL;
done:
	obj_decref(base);
	free(delta);
	if (stack != stack_buf)
		free(stack);
	return rc;
}

/*
 * An object in no pack: loose in one of the object directories, read
 * here and checked as git checks it; else whatever libgit2 finds (its
 * buffer is kept, not copied).
 */
static int read_fallback(struct obj **out, struct odb *db,
			 git_repository *git, const git_oid *oid)
{
	git_odb *odb = NULL;
	git_odb_object *o = NULL;
	struct obj *r;
	size_t size;
	int rc;

	*out = NULL;
	atomic_fetch_add(&db->fallback, 1);
	if ((rc = read_loose(out, &size, db, oid, SIZE_MAX)) != GIT_ENOTFOUND)
		return rc;
	if (!git)
		return error_set("%s", db->missing_hint ? db->missing_hint :
				       "object not found");
	if ((rc = git_repository_odb(&odb, git)) < 0 ||
	    (rc = git_odb_read(&o, odb, oid)) < 0) {
		const git_error *ge = git_error_last();

		if (rc == GIT_ENOTFOUND && db->missing_hint)
			rc = error_set("%s", db->missing_hint);
		else
			rc = error_set("%s", ge && ge->message ? ge->message :
					     "object not found");
		goto done;
	}
	if (git_odb_object_size(o) > ODB_MAX_OBJECT) {
		rc = too_large("object", git_odb_object_size(o));
		goto done;
	}
	if (!(r = obj_new(0, git_odb_object_type(o)))) {
		rc = error_oom();
		goto done;
	}
	r->held = o;
	r->pub.data = git_odb_object_data(o);
	r->pub.len = git_odb_object_size(o);
	o = NULL;
	*out = r;
done:
	git_odb_object_free(o);
	git_odb_free(odb);
	return rc;
}

static int read_oid(struct obj **out, struct odb *db, git_repository *git,
		    const git_oid *oid)
{
	struct odb_place at;

	if (odb_locate(&at, db, oid) == 0)
		return read_at(out, db, git, at.pack, at.offset, 0);
	return read_fallback(out, db, git, oid);
}

int odb_read(struct odb_object **out, struct odb *db, git_repository *git,
	     const git_oid *oid, git_object_t want)
{
	const char *what = want == GIT_OBJECT_ANY ? "object" :
			   git_object_type2string(want);
	struct obj *o = NULL;
	git_object_t type;
	int rc;

	*out = NULL;
	atomic_fetch_add(&db->reads, 1);
	if ((rc = read_oid(&o, db, git, oid)) < 0)
		return error_prefix("unable to read %s '%s'", what,
				    git_oid_tostr_s(oid));
	type = o->pub.type;
	if (want != GIT_OBJECT_ANY && type != want) {
		obj_decref(o);
		return error_set("unable to read %s '%s': it is a %s", what,
				 git_oid_tostr_s(oid),
				 git_object_type2string(type));
	}
	*out = &o->pub;
	return 0;
}

/* ---- stored forms ----------------------------------------------------- */

int odb_locate(struct odb_place *out, const struct odb *db,
	       const git_oid *oid)
{
	size_t i;

	for (i = 0; i < db->npacks; i++)
		if (pack_find(&db->packs[i], oid, &out->offset)) {
			out->pack = (uint32_t)i;
			return 0;
		}
	return GIT_ENOTFOUND;
}

/* The pack of a place, or NULL (the error set). */
static const struct pack *place_pack(const struct odb *db,
				     struct odb_place at)
{
	if (at.pack < db->npacks)
		return &db->packs[at.pack];
	error_set("internal error: no pack %u", at.pack);
	return NULL;
}

size_t odb_pack_entries(const struct odb *db, struct odb_place at)
{
	return at.pack < db->npacks ? db->packs[at.pack].n : 0;
}

int odb_stored_at(struct odb_stored *out, const struct odb *db,
		  struct odb_place at)
{
	const struct pack *p = place_pack(db, at);
	struct entry e;
	int rc;

	if (!p)
		return STRATA_ERR;
	if ((rc = parse_entry(&e, p, at.offset)) < 0 ||
	    (rc = check_entry_size(p, at.offset, e.size)) < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->at = at;
	out->size = e.size;
	out->data = e.data;
	out->base.pack = at.pack;
	if (e.type == T_OFS_DELTA) {
		out->form = ODB_DELTA;
		out->base.offset = e.base;
	} else if (e.type == T_REF_DELTA) {
		git_oid bid;

		memcpy(bid.id, e.ref, 20);
		out->form = pack_find(p, &bid, &out->base.offset) &&
			    out->base.offset != at.offset ? ODB_DELTA
							   : ODB_OTHER;
	} else {
		out->form = ODB_WHOLE;
		out->type = (git_object_t)e.type;
	}
	return 0;
}

int odb_stored_inflate(unsigned char *buf, const struct odb *db,
		       const struct odb_stored *s)
{
	const struct pack *p = place_pack(db, s->at);
	struct entry e;

	if (!p)
		return STRATA_ERR;
	memset(&e, 0, sizeof(e));
	e.size = s->size;
	e.data = s->data;
	return inflate_entry(buf, p, &e, s->at.offset);
}

int odb_place_corrupt(const struct odb *db, struct odb_place at,
		      const char *why)
{
	const struct pack *p = place_pack(db, at);

	return p ? corrupt_why(p, at.offset, why ? why : "bad entry")
		 : STRATA_ERR;
}

int odb_read_place(struct odb_object **out, struct odb *db,
		   git_repository *git, struct odb_place at)
{
	struct obj *o = NULL;
	int rc;

	*out = NULL;
	if (!place_pack(db, at))
		return STRATA_ERR;
	atomic_fetch_add(&db->reads, 1);
	if ((rc = read_at(&o, db, git, at.pack, at.offset, 0)) < 0)
		return rc;
	*out = &o->pub;
	return 0;
}

/* ---- prefixes --------------------------------------------------------- */

/* Inflate the first `want` bytes of the entry whose stream starts at
 * e->data (fewer when the stream is shorter): *got of them. */
static int inflate_prefix(unsigned char *out, size_t want, size_t *got,
			  const struct pack *p, const struct entry *e,
			  uint64_t offset)
{
	struct zin zi;
	bool end;
	int rc;

	if ((rc = zin_start(&zi, p->map + e->data, p->size - 20 - e->data)) < 0)
		return rc;
	if (!zin_read(&zi, out, want, got, &end)) {
		inflateEnd(&zi.zs);
		return corrupt_why(p, offset, "bad zlib data");
	}
	inflateEnd(&zi.zs);
	return 0;
}

/* The size of the object the delta entry e makes, from its first bytes. */
static int delta_result_size(size_t *size, const struct pack *p,
			     const struct entry *e, uint64_t offset)
{
	unsigned char head[24];
	struct odb_delta it;
	size_t got;
	int rc;

	if ((rc = inflate_prefix(head, sizeof(head), &got, p, e, offset)) < 0)
		return rc;
	if (!odb_delta_start(&it, head, got))
		return corrupt_why(p, offset, "bad delta");
	*size = it.len;
	return 0;
}

/* A blob's first bytes from an object read whole. */
static void copy_prefix(unsigned char *buf, size_t cap, size_t *got,
			size_t *size, const struct obj *o)
{
	*size = o->pub.len;
	*got = o->pub.len < cap ? o->pub.len : cap;
	memcpy(buf, o->pub.data, *got);
}

/* odb_read_prefix() of a blob stored in a pack, at `at`. */
static int packed_prefix(unsigned char *buf, size_t cap, size_t *got,
			 size_t *size, struct odb *db, git_repository *git,
			 struct odb_place at, const git_oid *oid)
{
	const struct pack *p = &db->packs[at.pack];
	struct odb_object *o;
	struct entry e;
	int rc;

	*got = 0;
	if ((rc = parse_entry(&e, p, at.offset)) < 0)
		return rc;
	if (e.type == T_OFS_DELTA || e.type == T_REF_DELTA) {
		if ((rc = delta_result_size(size, p, &e, at.offset)) < 0 ||
		    *size > ODB_MAX_OBJECT)
			return rc;
		if ((rc = odb_read(&o, db, git, oid, GIT_OBJECT_BLOB)) < 0)
			return rc;
		copy_prefix(buf, cap, got, size, (const struct obj *)o);
		odb_object_free(o);
		return 0;
	}
	if (e.type != GIT_OBJECT_BLOB)
		return error_set("unable to read blob '%s': it is a %s",
				 git_oid_tostr_s(oid),
				 git_object_type2string((git_object_t)e.type));
	*size = e.size;
	if (e.size > ODB_MAX_OBJECT)
		return 0;
	if ((rc = inflate_prefix(buf, e.size < cap ? e.size : cap, got, p, &e,
				 at.offset)) < 0)
		return rc;
	if (*got < (e.size < cap ? e.size : cap))
		return corrupt_why(p, at.offset, "shorter than its size");
	return 0;
}

int odb_read_prefix(unsigned char *buf, size_t cap, size_t *got,
		    size_t *size, struct odb *db, git_repository *git,
		    const git_oid *oid)
{
	struct odb_object *o;
	struct odb_place at;
	struct obj *lo;
	int rc;

	*got = *size = 0;
	if (odb_locate(&at, db, oid) == 0)
		rc = packed_prefix(buf, cap, got, size, db, git, at, oid);
	else if ((rc = read_loose(&lo, size, db, oid, cap)) == 0) {
		if (lo->pub.type != GIT_OBJECT_BLOB)
			rc = error_set("unable to read blob '%s': it is a %s",
				       git_oid_tostr_s(oid),
				       git_object_type2string(lo->pub.type));
		else
			copy_prefix(buf, cap, got, &(size_t){0}, lo);
		obj_decref(lo);
	} else if (rc == GIT_ENOTFOUND &&
		   (rc = odb_read(&o, db, git, oid, GIT_OBJECT_BLOB)) == 0) {
		copy_prefix(buf, cap, got, size, (const struct obj *)o);
		odb_object_free(o);
	}
	if (rc < 0 && !strstr(error_last(), git_oid_tostr_s(oid)))
		return error_prefix("unable to read blob '%s'",
				    git_oid_tostr_s(oid));
	return rc;
}

/* ---- the commits at the head of each pack ----------------------------- */

struct run_entry {
	uint64_t offset;
	uint32_t pos;               /* in the pack's index */
	uint32_t pack;
};

struct odb_commits {
	struct odb *db;
	struct run_entry *e;
	size_t n, alloc;
	uint32_t *slot;             /* by name: entry + 1, or 0 */
	size_t mask;
};

/*
 * Add to c the whole commits that lead pack pi: those before its first
 * tree or blob. The index gives every entry's offset; the first tree or
 * blob is looked for below a bound that doubles until there is one,
 * starting from an eighth of the pack (tmux's commits take 5% of its pack,
 * git's 7%).
 */
static int list_pack_commits(struct odb_commits *c, uint32_t pi)
{
	const struct pack *p = &c->db->packs[pi];
	uint64_t bound = p->size / 8 > ((uint64_t)1 << 20) ? p->size / 8
							     : (uint64_t)1 << 20;
	uint64_t end, off;
	size_t first = c->n, k, kept = first;
	uint32_t i;
	int t;

	/* One pass over the index: the commits, and where they end. */
	for (;;) {
		end = bound;
		c->n = first;
		for (i = 0; i < p->n; i++) {
			if (!offset_at(p, i, &off) || off >= end)
				continue;
			t = type_at(p, off);
			if (t == GIT_OBJECT_TREE || t == GIT_OBJECT_BLOB) {
				end = off;
				continue;
			}
			if (t != GIT_OBJECT_COMMIT)
				continue;
			if (c->n == c->alloc) {
				size_t na = c->alloc ? 2 * c->alloc : 1024;
				struct run_entry *ne = realloc(c->e,
							       na * sizeof(*ne));

				if (!ne)
					return error_oom();
				c->e = ne;
				c->alloc = na;
			}
			c->e[c->n].offset = off;
			c->e[c->n].pos = i;
			c->e[c->n++].pack = pi;
		}
		if (end < bound || bound >= p->size)
			break;
		bound *= 2;
	}
	/* Those found before the end was known may lie past it. */
	for (k = first; k < c->n; k++)
		if (c->e[k].offset < end)
			c->e[kept++] = c->e[k];
	c->n = kept;
	return 0;
}

/*
 * Put c->e[from, to) (one pack's) in the order of their offsets: the
 * index lists them by name. A radix sort, 16 bits of the offset at a
 * time: tmux's 15,663 commits in two passes.
 */
static int sort_by_offset(struct odb_commits *c, size_t from, size_t to)
{
	size_t n = to - from, i, sum;
	uint64_t top = 0;
	struct run_entry *tmp, *src, *dst;
	uint32_t *count;
	unsigned shift;

	if (n < 2)
		return 0;
	src = c->e + from;
	for (i = 0; i < n; i++)
		top |= src[i].offset;
	if (!top)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(65536 * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return error_oom();
	}
	dst = tmp;
	for (shift = 0; shift < 64 && top >> shift; shift += 16) {
		struct run_entry *swap;

		memset(count, 0, 65536 * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(src[i].offset >> shift) & 0xffff]++;
		for (i = 0, sum = 0; i < 65536; i++) {
			size_t k = count[i];

			count[i] = (uint32_t)sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].offset >> shift) & 0xffff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != c->e + from)
		memcpy(c->e + from, src, n * sizeof(*src));
	free(tmp);
	free(count);
	return 0;
}

static const unsigned char *entry_name(const struct odb_commits *c, size_t i)
{
	return name_at(&c->db->packs[c->e[i].pack], c->e[i].pos);
}

/* Names are uniform: their first bytes make a hash. */
static size_t name_slot(const unsigned char *id, size_t mask)
{
	uint64_t h;

	memcpy(&h, id, sizeof(h));
	return (size_t)h & mask;
}

int odb_commits_list(struct odb_commits **out, struct odb *db)
{
	struct odb_commits *c = calloc(1, sizeof(*c));
	size_t i, slots = 1;
	int rc = 0;

	*out = NULL;
	if (!c)
		return error_oom();
	c->db = db;
	for (i = 0; i < db->npacks; i++) {
		size_t from = c->n;

		if ((rc = list_pack_commits(c, (uint32_t)i)) < 0 ||
		    (rc = sort_by_offset(c, from, c->n)) < 0)
			goto fail;
	}
	while (slots < 2 * c->n)
		slots *= 2;
	if (!(c->slot = calloc(slots, sizeof(*c->slot)))) {
		rc = error_oom();
		goto fail;
	}
	c->mask = slots - 1;
	for (i = 0; i < c->n; i++) {
		size_t s = name_slot(entry_name(c, i), c->mask);

		while (c->slot[s])
			s = (s + 1) & c->mask;
		c->slot[s] = (uint32_t)i + 1;
	}
	*out = c;
	return 0;
fail:
	odb_commits_free(c);
	return rc;
}

size_t odb_commits_count(const struct odb_commits *c)
{
	return c->n;
}

int64_t odb_commits_find(const struct odb_commits *c, const git_oid *oid)
{
	size_t s;

	if (!c->n)
		return -1;
	for (s = name_slot(oid->id, c->mask); c->slot[s];
	     s = (s + 1) & c->mask) {
		size_t i = c->slot[s] - 1;

		if (!memcmp(entry_name(c, i), oid->id, GIT_OID_RAWSZ))
			return (int64_t)i;
	}
	return -1;
}

int odb_commits_read(const struct odb_commits *c, size_t i,
		     unsigned char **buf, size_t *cap, size_t *len)
{
	const struct run_entry *r = &c->e[i];
	const struct pack *p = &c->db->packs[r->pack];
	struct entry e;
	int rc;

	if ((rc = parse_entry(&e, p, r->offset)) < 0 ||
	    (rc = check_entry_size(p, r->offset, e.size)) < 0)
		return rc;
	if (*cap < e.size + 1) {
		unsigned char *nb = realloc(*buf, e.size + 1);

		if (!nb)
			return error_oom();
		*buf = nb;
		*cap = e.size + 1;
	}
	if ((rc = inflate_entry(*buf, p, &e, r->offset)) < 0)
		return rc;
	(*buf)[e.size] = '\0';
	*len = e.size;
	return 0;
}

void odb_commits_free(struct odb_commits *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->slot);
	free(c);
}
