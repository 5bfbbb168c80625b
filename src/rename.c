/*
 * rename: git 2.39's rename choice for one destination (see rename.h).
 *
 * Every constant and rule below is a fact about git's diffcore-rename.c,
 * diffcore-delta.c and hashmap.c at v2.39.0; the code is ours.
 */
#include "strata/rename.h"
#include "strata/error.h"
#include "strata/odb.h"
#include "strata/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* DEFAULT_RENAME_SCORE: blame never sets -M, so 50% it is. */
#define MIN_SCORE 30000
/*
 * diff_rename_limit_default. blame builds its rename diff from
 * repo_diff_setup() and never reads diff.renameLimit, so this is fixed.
 */
#define RENAME_LIMIT 1000
/* find_identical_files() gives up on basenames after this many tries. */
#define EXACT_TRIES 100
/* NUM_CANDIDATE_PER_DST: the size of git's per-destination scoreboard. */
#define SLOTS 4

/* diffcore-delta: chunk hashes are reduced modulo this prime (HASHBASE). */
#define SPAN_MOD 107927u
#define SPAN_MAX 64
/* buffer_is_binary() looks for a NUL in this many leading bytes. */
#define BINARY_PROBE 8000

/* git's hashmap: 64 buckets to start, grow x4 past 80% load. */
#define MAP_INITIAL 64
#define MAP_LOAD 80

#define DEFAULT_CACHE_LIMIT ((size_t)128 << 20)
#define NONE UINT32_MAX

static int is_regular(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

/* One distinct chunk hash of a blob and the bytes its chunks hold. */
struct span {
	uint32_t hash;
	uint32_t cnt;
};

/* What the detector knows about one blob. */
struct blob_info {
	git_oid oid;
	int64_t size;             /* -1 until read */
	int indexed;
	struct span *spans;       /* sorted by hash */
	size_t nspans;
	uint64_t hashed;          /* bytes in chunks (sum of counts) */
	struct blob_info *chain;  /* next in the same bucket */
	struct util_lru_node lru;
};

struct rename_detector {
	git_repository *repo;
	git_odb *odb;
	struct odb *db;             /* blobs come from here, if set */

	struct blob_info **buckets;
	size_t nbuckets, count;
	struct util_lru lru;       /* most recently used first */
	size_t bytes, limit;

	int basename_score;

	/*
	 * Scratch for indexing one blob: a counter per possible hash (all
	 * zero between uses), the distinct hashes seen, and a sort buffer.
	 */
	uint32_t *counts, *keys, *tmp;

	/* The set rename_find() built last, reused for an equal list. */
	struct rename_sources *memo;

	const char *missing_hint;   /* borrowed, or NULL */
	/* which missing sources to pass over (partial clones), and how many */
	int (*pass_over)(const char *path, void *payload);
	void *pass_payload;
	size_t npassed;
};

struct src_entry {
	const char *path;         /* into rename_sources.paths */
	const char *base;
	size_t baselen;
	uint32_t basehash;
	uint32_t mode;
	git_oid oid;
	int64_t size;             /* -1 until read */
	uint32_t next_same;       /* next source with this OID, git's order */
};

/* Sources sharing one OID, as a list through src_entry.next_same. */
struct oid_group {
	uint32_t head, tail;
};

/* A source that passes the size pre-check, and what it can score. */
struct pending {
	uint32_t src;
	int bound;
	int score;                /* -1 until computed */
};

/* Sources sharing one basename: the first of them and how many. */
struct base_slot {
	uint32_t first, count;
};

struct rename_sources {
	struct rename_detector *rd;
	struct src_entry *src;
	size_t n;
	char *paths;
	struct oid_group *groups;
	size_t gmask;
	struct base_slot *bases;
	size_t bmask;
	struct pending *pend;     /* scratch for one lookup */
	int *scores;              /* scratch: each source's score */
};

/* One entry of the scoreboard (git's struct diff_score). */
struct cand {
	int used;
	uint32_t src;
	int score;
	int name;                 /* 1 if the basenames are equal */
};

static uint32_t oid_hash(const git_oid *oid)
{
	uint32_t h;

	memcpy(&h, oid->id, sizeof(h));
	return h;
}

static uint32_t str_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static size_t pow2_at_least(size_t n)
{
	size_t p = 16;

	while (p < n)
		p <<= 1;
	return p;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- the blob cache ---- */

static size_t info_bytes(const struct blob_info *e)
{
	return sizeof(*e) + e->nspans * sizeof(struct span);
}

/* The least recently used entry, or NULL. */
static struct blob_info *cache_oldest(const struct rename_detector *rd)
{
	if (!rd->lru.tail)
		return NULL;
	return util_container_of(rd->lru.tail, struct blob_info, lru);
}

static void cache_drop(struct rename_detector *rd, struct blob_info *e)
{
	struct blob_info **p = &rd->buckets[oid_hash(&e->oid) &
					    (rd->nbuckets - 1)];

	while (*p != e)
		p = &(*p)->chain;
	*p = e->chain;
	util_lru_unlink(&rd->lru, &e->lru);
	rd->bytes -= info_bytes(e);
	rd->count--;
	free(e->spans);
	free(e);
}

/*
 * Evict only between lookups: while one runs, it holds pointers to the
 * entries it uses.
 */
static void cache_trim(struct rename_detector *rd)
{
	while (rd->bytes > rd->limit && cache_oldest(rd))
		cache_drop(rd, cache_oldest(rd));
}

static int cache_grow(struct rename_detector *rd)
{
	size_t n = rd->nbuckets * 2, i;
	struct blob_info **b = calloc(n, sizeof(*b));

	if (!b)
		return error_oom();
	for (i = 0; i < rd->nbuckets; i++) {
		struct blob_info *e = rd->buckets[i], *next;

		for (; e; e = next) {
			size_t k = oid_hash(&e->oid) & (n - 1);

			next = e->chain;
			e->chain = b[k];
			b[k] = e;
		}
	}
	free(rd->buckets);
	rd->buckets = b;
	rd->nbuckets = n;
	return 0;
}

/* The entry for `oid`, made if missing; marked most recently used. */
static int cache_get(struct blob_info **out, struct rename_detector *rd,
		     const git_oid *oid)
{
	size_t k = oid_hash(oid) & (rd->nbuckets - 1);
	struct blob_info *e;
	int err;

	for (e = rd->buckets[k]; e; e = e->chain)
		if (git_oid_equal(&e->oid, oid))
			break;
	if (!e) {
		if (rd->count >= rd->nbuckets) {
			if ((err = cache_grow(rd)) < 0)
				return err;
			k = oid_hash(oid) & (rd->nbuckets - 1);
		}
		e = calloc(1, sizeof(*e));
		if (!e)
			return error_oom();
		git_oid_cpy(&e->oid, oid);
		e->size = -1;
		e->chain = rd->buckets[k];
		rd->buckets[k] = e;
		rd->count++;
		rd->bytes += info_bytes(e);
		util_lru_push(&rd->lru, &e->lru);
	} else {
		util_lru_touch(&rd->lru, &e->lru);
	}
	*out = e;
	return 0;
}

/*
 * The error for object `oid` (of `path`, if known) that libgit2 failed to
 * read with `rc`: the detector's hint when it is missing (and then
 * STRATA_EMISSING), else libgit2's reason.
 */
static int read_error(const struct rename_detector *rd, int rc,
		      const char *what, const git_oid *oid, const char *path)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), oid);
	if (rc == GIT_ENOTFOUND && rd->missing_hint)
		return error_setc(STRATA_EMISSING, "unable to read %s '%s'%s%s%s: "
				  "%s", what, hex, path ? " of '" : "",
				  path ? path : "", path ? "'" : "",
				  rd->missing_hint);
	if (path)
		return error_git("unable to read %s '%s' of '%s'", what, hex,
				 path);
	return error_git("unable to read %s '%s'", what, hex);
}

/* The size of a blob from its object header, without inflating it. */
static int blob_size(int64_t *out, struct rename_detector *rd,
		     const git_oid *oid, const char *path)
{
	size_t len;
	git_object_t type;
	char hex[GIT_OID_HEXSZ + 1];
	int rc = git_odb_read_header(&len, &type, rd->odb, oid);

	if (rc < 0)
		return read_error(rd, rc, "object", oid, path);
	if (type != GIT_OBJECT_BLOB)
		return error_set("object '%s' is not a blob",
				 git_oid_tostr(hex, sizeof(hex), oid));
	*out = (int64_t)len;
	return 0;
}

static int info_size(int64_t *out, struct rename_detector *rd,
		     struct blob_info *e, const char *path)
{
	int err;

	if (e->size < 0 && (err = blob_size(&e->size, rd, &e->oid, path)) < 0)
		return err;
	*out = e->size;
	return 0;
}

/* Two-pass radix sort of hashes below 2^17 (SPAN_MOD). */
static void sort_keys(uint32_t *keys, uint32_t *tmp, size_t n)
{
	static const int shift[2] = { 0, 9 };
	uint32_t *from = keys, *to = tmp, *swap;
	size_t cnt[512];
	int pass;

	for (pass = 0; pass < 2; pass++) {
		size_t i, sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(from[i] >> shift[pass]) & 511]++;
		for (i = 0; i < 512; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[cnt[(from[i] >> shift[pass]) & 511]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	/* after an even number of passes the result is back in keys */
}

/* git's rolling hash of a chunk, one byte on. */
#define CHUNK_ROLL(a1, a2, c) do { \
		uint32_t carry_ = (a1) >> 25; \
		(a1) = (((a1) << 7) ^ ((a2) >> 25)) + (c); \
		(a2) = ((a2) << 7) ^ carry_; \
	} while (0)

/*
 * The chunks of one blob, each counted CHUNK_AHEAD chunks after its
 * counter was asked for: the counters (SPAN_MOD of them, 431 KB) are
 * mostly out of the cache by the next blob, and hashing a line takes less
 * time than fetching its counter. On the history of Linux's files in
 * docs/performance.md, counting in turn spent two fifths of the chunk
 * index's time waiting for that counter.
 */
#define CHUNK_AHEAD 8

struct chunk_queue {
	struct rename_detector *rd;
	size_t nkeys;             /* distinct hashes, in rd->keys */
	unsigned n, at;           /* chunks waiting; the slot of the next */
	uint32_t hash[CHUNK_AHEAD], len[CHUNK_AHEAD];
};

static void chunk_add(struct chunk_queue *q, uint32_t h, uint32_t n)
{
	uint32_t *c = &q->rd->counts[h];

	if (!*c)
		q->rd->keys[q->nkeys++] = h;
	*c += n;
}

/* A chunk of n bytes ends with hash state a1, a2: count it, in time. */
static void chunk_count(struct chunk_queue *q, uint32_t a1, uint32_t a2,
			uint32_t n)
{
	uint32_t h = (a1 + a2 * 0x61u) % SPAN_MOD;

	__builtin_prefetch(&q->rd->counts[h], 1);
	/* Full, the slot to fill holds the oldest chunk. */
	if (q->n == CHUNK_AHEAD)
		chunk_add(q, q->hash[q->at], q->len[q->at]);
	else
		q->n++;
	q->hash[q->at] = h;
	q->len[q->at] = n;
	q->at = (q->at + 1) % CHUNK_AHEAD;
}

/* Count the chunks still waiting (in any order: counts only add up). */
static size_t chunk_flush(struct chunk_queue *q)
{
	for (unsigned i = 0; i < q->n; i++)
		chunk_add(q, q->hash[i], q->len[i]);
	q->n = 0;
	return q->nkeys;
}

/*
 * The chunks of buf into rd->counts (and their hashes, first counted,
 * into rd->keys); returns how many keys. A line at a time: the bytes
 * before its '\n' (less a CR just before it, in text) in chunks of
 * SPAN_MAX, then the last chunk with the '\n'. No test per byte but the
 * hash's: this is most of a big rename search.
 */
static size_t index_chunks(struct rename_detector *rd,
			   const unsigned char *buf, size_t len, int text)
{
	const unsigned char *p = buf, *end = buf + len;
	struct chunk_queue q = { .rd = rd };

	while (p < end) {
		const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
		const unsigned char *stop = nl ? nl : end;
		uint32_t a1 = 0, a2 = 0, n = 0;

		if (text && nl && stop > p && stop[-1] == '\r')
			stop--;
		while (p < stop) {
			size_t take = (size_t)(stop - p);

			if (take > SPAN_MAX - n)
				take = SPAN_MAX - n;
			for (size_t k = 0; k < take; k++)
				CHUNK_ROLL(a1, a2, p[k]);
			p += take;
			n += (uint32_t)take;
			if (n == SPAN_MAX) {
				chunk_count(&q, a1, a2, n);
				a1 = a2 = n = 0;
			}
		}
		if (!nl)
			break;  /* a last chunk with no end is dropped */
		CHUNK_ROLL(a1, a2, '\n');
		chunk_count(&q, a1, a2, n + 1);
		p = nl + 1;
	}
	return chunk_flush(&q);
}

/*
 * Build the chunk index of a blob the way diffcore-delta does. The rules
 * are git's, and each one shows in the scores: a chunk ends after '\n' or
 * after 64 bytes; in a text blob (no NUL in the first 8000 bytes) the CR
 * of a CRLF is skipped, counted neither as a byte nor in the hash; a
 * last chunk with neither ending is dropped; equal hashes pool their byte
 * counts, so two different chunks that collide count as one.
 */
static int info_index(struct rename_detector *rd, struct blob_info *e)
{
	git_blob *blob = NULL;
	struct odb_object *obj = NULL;
	const unsigned char *buf;
	size_t len, i, nkeys = 0;
	int text, err = 0;

	if (e->indexed)
		return 0;
	if (rd->db) {
		if ((err = odb_read(&obj, rd->db, rd->repo, &e->oid,
				    GIT_OBJECT_BLOB)) < 0)
			return err;
		buf = obj->data;
		len = obj->len;
	} else {
		if ((err = git_blob_lookup(&blob, rd->repo, &e->oid)) < 0)
			return read_error(rd, err, "blob", &e->oid, NULL);
		buf = git_blob_rawcontent(blob);
		len = (size_t)git_blob_rawsize(blob);
	}
	e->size = (int64_t)len;
	text = !memchr(buf, 0, len < BINARY_PROBE ? len : BINARY_PROBE);

	nkeys = index_chunks(rd, buf, len, text);

	if (nkeys) {
		e->spans = malloc(nkeys * sizeof(*e->spans));
		if (!e->spans) {
			for (i = 0; i < nkeys; i++)
				rd->counts[rd->keys[i]] = 0;
			err = error_oom();
			goto done;
		}
		sort_keys(rd->keys, rd->tmp, nkeys);
		for (i = 0; i < nkeys; i++) {
			e->spans[i].hash = rd->keys[i];
			e->spans[i].cnt = rd->counts[rd->keys[i]];
			e->hashed += e->spans[i].cnt;
			rd->counts[rd->keys[i]] = 0;
		}
	}
	e->nspans = nkeys;
	e->indexed = 1;
	rd->bytes += nkeys * sizeof(struct span);
done:
	git_blob_free(blob);
	odb_object_free(obj);
	return err;
}

/*
 * Bytes of src found in dst: per hash, the smaller of the two counts
 * (what diffcore_count_changes calls src_copied).
 */
static uint64_t count_copied(const struct blob_info *s,
			     const struct blob_info *d)
{
	size_t i = 0, j = 0;
	uint64_t copied = 0;

	while (i < s->nspans && j < d->nspans) {
		uint32_t a = s->spans[i].hash, b = d->spans[j].hash;

		if (a < b) {
			i++;
		} else if (a > b) {
			j++;
		} else {
			uint32_t sc = s->spans[i].cnt, dc = d->spans[j].cnt;

			copied += sc < dc ? sc : dc;
			i++;
			j++;
		}
	}
	return copied;
}

/*
 * estimate_similarity()'s size pre-check: sizes too far apart for
 * `min_score` are not even compared. Equivalent to "the smaller is at
 * least min_score/MAX of the larger", written as git writes it.
 */
static int size_passes(int64_t src_size, int64_t dst_size, int min_score)
{
	const double max_score = RENAME_MAX_SCORE;
	uint64_t ss = (uint64_t)src_size, ds = (uint64_t)dst_size;
	uint64_t max = ss > ds ? ss : ds, base = ss < ds ? ss : ds;

	return !((double)max * (max_score - min_score) <
		 (double)(max - base) * max_score);
}

/*
 * git's estimate_similarity() for two regular files of known sizes. The
 * size pre-check matters beyond speed: it turns a low score into 0, and
 * the scoreboard's choice among equal winners depends on the losers'
 * scores. git computes in double (MAX_SCORE is 60000.0), and so do we.
 */
static int similarity(int *out, struct rename_detector *rd,
		      const git_oid *src_oid, int64_t src_size,
		      struct blob_info *d, int64_t dst_size, int min_score)
{
	const double max_score = RENAME_MAX_SCORE;
	uint64_t ss = (uint64_t)src_size, ds = (uint64_t)dst_size;
	uint64_t max = ss > ds ? ss : ds;
	struct blob_info *s;
	int err;

	*out = 0;
	if (!size_passes(src_size, dst_size, min_score))
		return 0;
	if ((err = cache_get(&s, rd, src_oid)) < 0 ||
	    (err = info_index(rd, s)) < 0 ||
	    (err = info_index(rd, d)) < 0)
		return err;
	if (!ds)
		return 0;
	*out = (int)((double)count_copied(s, d) * max_score / (double)max);
	return 0;
}

/* ---- the detector ---- */

int rename_detector_new(struct rename_detector **out, git_repository *repo)
{
	struct rename_detector *rd;
	const char *factor_env;
	double factor = 0.5;
	int err = 0;

	*out = NULL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return error_oom();
	rd->repo = repo;
	rd->limit = DEFAULT_CACHE_LIMIT;
	rd->nbuckets = 1024;
	rd->buckets = calloc(rd->nbuckets, sizeof(*rd->buckets));
	rd->counts = calloc(SPAN_MOD, sizeof(*rd->counts));
	rd->keys = malloc(SPAN_MOD * sizeof(*rd->keys));
	rd->tmp = malloc(SPAN_MOD * sizeof(*rd->tmp));
	if (!rd->buckets || !rd->counts || !rd->keys || !rd->tmp) {
		err = error_oom();
		goto done;
	}
	if (git_repository_odb(&rd->odb, repo) < 0) {
		err = error_git("unable to open the object database");
		goto done;
	}

	/*
	 * git reads this (test) knob on every rename pass; honour it the same
	 * way, but ignore values git would die on.
	 */
	factor_env = getenv("GIT_BASENAME_FACTOR");
	if (factor_env) {
		long v = strtol(factor_env, NULL, 10);

		if (v >= 0 && v <= 100)
			factor = v / 100.0;
	}
	rd->basename_score = MIN_SCORE +
		(int)(factor * ((double)RENAME_MAX_SCORE - MIN_SCORE));
done:
	if (err < 0) {
		rename_detector_free(rd);
		return err;
	}
	*out = rd;
	return 0;
}

void rename_detector_clear(struct rename_detector *rd)
{
	if (!rd)
		return;
	while (cache_oldest(rd))
		cache_drop(rd, cache_oldest(rd));
}

void rename_detector_use_odb(struct rename_detector *rd, struct odb *db)
{
	rd->db = db;
}

void rename_detector_set_missing_hint(struct rename_detector *rd,
				      const char *hint)
{
	rd->missing_hint = hint;
}

void rename_detector_set_pass_over(struct rename_detector *rd,
				   int (*fn)(const char *path, void *payload),
				   void *payload)
{
	rd->pass_over = fn;
	rd->pass_payload = payload;
}

size_t rename_detector_passed_over(const struct rename_detector *rd)
{
	return rd->npassed;
}

void rename_detector_set_cache_limit(struct rename_detector *rd, size_t bytes)
{
	rd->limit = bytes;
	cache_trim(rd);
}

void rename_detector_free(struct rename_detector *rd)
{
	if (!rd)
		return;
	rename_sources_free(rd->memo);
	if (rd->buckets)
		rename_detector_clear(rd);
	free(rd->buckets);
	free(rd->counts);
	free(rd->keys);
	free(rd->tmp);
	git_odb_free(rd->odb);
	free(rd);
}

/* ---- source sets ---- */

static struct oid_group *group_slot(struct rename_sources *rs,
				    const git_oid *oid)
{
	size_t k = oid_hash(oid) & rs->gmask;

	for (;; k = (k + 1) & rs->gmask) {
		struct oid_group *g = &rs->groups[k];

		if (g->head == NONE ||
		    git_oid_equal(&rs->src[g->head].oid, oid))
			return g;
	}
}

/* git's basename_same() comes down to equal text after the last '/'. */
static int same_base(const struct src_entry *s, const char *base, size_t len,
		     uint32_t hash)
{
	return s->basehash == hash && s->baselen == len &&
		!memcmp(s->base, base, len);
}

static struct base_slot *base_slot(struct rename_sources *rs,
				   const char *base, size_t len,
				   uint32_t hash)
{
	size_t k = hash & rs->bmask;

	for (;; k = (k + 1) & rs->bmask) {
		struct base_slot *b = &rs->bases[k];

		if (b->first == NONE ||
		    same_base(&rs->src[b->first], base, len, hash))
			return b;
	}
}

/*
 * find_exact_renames() puts the sources into a git hashmap last to first,
 * each at the head of its bucket's chain, and walks the destination's
 * chain from the head: normally first to last. The map is sized for all
 * sources up front, yet for some counts (205, 3277, 52429, ...) the last
 * insertion still crosses the 80% load threshold, the map grows, and
 * growing reverses every chain. Return how many sources went in up to and
 * including the one that set the growth off, or 0 if the map never grows.
 */
static size_t exact_regrow_at(size_t n)
{
	uint64_t want = (uint32_t)((uint64_t)n * 100 / MAP_LOAD);
	uint64_t size = MAP_INITIAL, grow_at;

	while (want > size)
		size <<= 2;
	grow_at = size * MAP_LOAD / 100;
	return n > grow_at ? (size_t)grow_at + 1 : 0;
}

static void group_append(struct rename_sources *rs, uint32_t i)
{
	struct oid_group *g = group_slot(rs, &rs->src[i].oid);

	if (g->head == NONE)
		g->head = i;
	else
		rs->src[g->tail].next_same = i;
	g->tail = i;
}

int rename_sources_new(struct rename_sources **out, struct rename_detector *rd,
		       const struct rename_source *srcs, size_t nsrcs)
{
	struct rename_sources *rs;
	size_t i, total = 0, k, tsize;
	char *p;
	int err = 0;

	*out = NULL;
	if (nsrcs >= INT_MAX)
		return error_set("too many rename sources (%zu)", nsrcs);
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return error_oom();
	rs->rd = rd;
	rs->n = nsrcs;
	for (i = 0; i < nsrcs; i++)
		total += strlen(srcs[i].path) + 1;
	tsize = pow2_at_least(nsrcs * 2);
	rs->gmask = rs->bmask = tsize - 1;
	rs->src = calloc(nsrcs ? nsrcs : 1, sizeof(*rs->src));
	rs->paths = malloc(total ? total : 1);
	rs->groups = malloc(tsize * sizeof(*rs->groups));
	rs->bases = malloc(tsize * sizeof(*rs->bases));
	rs->pend = malloc((nsrcs ? nsrcs : 1) * sizeof(*rs->pend));
	rs->scores = malloc((nsrcs ? nsrcs : 1) * sizeof(*rs->scores));
	if (!rs->src || !rs->paths || !rs->groups || !rs->bases ||
	    !rs->pend || !rs->scores) {
		err = error_oom();
		goto done;
	}
	for (i = 0; i < tsize; i++) {
		rs->groups[i].head = rs->groups[i].tail = NONE;
		rs->bases[i].first = NONE;
		rs->bases[i].count = 0;
	}

	p = rs->paths;
	for (i = 0; i < nsrcs; i++) {
		struct src_entry *s = &rs->src[i];
		struct base_slot *b;
		size_t len = strlen(srcs[i].path);

		memcpy(p, srcs[i].path, len + 1);
		s->path = p;
		p += len + 1;
		s->base = base_of(s->path);
		s->baselen = strlen(s->base);
		s->basehash = str_hash(s->base, s->baselen);
		s->mode = srcs[i].mode;
		git_oid_cpy(&s->oid, &srcs[i].oid);
		s->size = -1;
		s->next_same = NONE;

		b = base_slot(rs, s->base, s->baselen, s->basehash);
		if (b->first == NONE)
			b->first = (uint32_t)i;
		b->count++;
	}

	/* Chain order of git's hashmap; see exact_regrow_at(). */
	k = exact_regrow_at(nsrcs);
	if (!k) {
		for (i = 0; i < nsrcs; i++)
			group_append(rs, (uint32_t)i);
	} else {
		for (i = 0; i < nsrcs - k; i++)
			group_append(rs, (uint32_t)i);
		for (i = nsrcs; i-- > nsrcs - k;)
			group_append(rs, (uint32_t)i);
	}
done:
	if (err < 0) {
		rename_sources_free(rs);
		return err;
	}
	*out = rs;
	return 0;
}

void rename_sources_free(struct rename_sources *rs)
{
	if (!rs)
		return;
	free(rs->src);
	free(rs->paths);
	free(rs->groups);
	free(rs->bases);
	free(rs->pend);
	free(rs->scores);
	free(rs);
}

/* A source whose blob a partial clone left out, passed over. */
#define SIZE_PASSED (-2)

/*
 * The size of source i: 0, or 1 when it is passed over (its blob is
 * missing from a partial clone and the caller's pass_over() says so: it
 * then never scores), or an error.
 */
static int source_size(int64_t *out, struct rename_sources *rs, uint32_t i)
{
	struct src_entry *s = &rs->src[i];
	struct rename_detector *rd = rs->rd;
	int err;

	if (s->size == SIZE_PASSED)
		return 1;
	if (s->size < 0 &&
	    (err = blob_size(&s->size, rd, &s->oid, s->path)) < 0) {
		if (err != STRATA_EMISSING || !rd->pass_over ||
		    !rd->pass_over(s->path, rd->pass_payload))
			return err;
		s->size = SIZE_PASSED;
		rd->npassed++;
		return 1;
	}
	*out = s->size;
	return 0;
}

/*
 * git's score_compare(): positive when a ranks below b. Empty slots rank
 * below everything; then higher score, then equal basename, first.
 */
static int cand_cmp(const struct cand *a, const struct cand *b)
{
	if (!a->used)
		return b->used;
	if (!b->used)
		return -1;
	if (a->score != b->score)
		return b->score - a->score;
	return b->name - a->name;
}

/*
 * git's record_if_better(): the newcomer replaces the lowest-ranked slot
 * (the first such) if it ranks strictly above it. Which slot it lands in
 * decides ties at the end, so this is kept exactly, slots and all.
 */
static void board_offer(struct cand *board, const struct cand *c)
{
	int i, worst = 0;

	for (i = 1; i < SLOTS; i++)
		if (cand_cmp(&board[i], &board[worst]) > 0)
			worst = i;
	if (cand_cmp(&board[worst], c) > 0)
		board[worst] = *c;
}

/*
 * git sorts the board with a stable sort and takes the first entry: the
 * best-ranked slot, the lowest-numbered among equals.
 */
static const struct cand *board_best(const struct cand *board)
{
	int i, best = 0;

	for (i = 1; i < SLOTS; i++)
		if (cand_cmp(&board[i], &board[best]) < 0)
			best = i;
	return &board[best];
}

/*
 * The most a source of src_size can score against d: the copied bytes are
 * at most the source's size and at most the bytes in d's chunks.
 */
static int score_bound(int64_t src_size, int64_t dst_size,
		       const struct blob_info *d)
{
	uint64_t ss = (uint64_t)src_size, ds = (uint64_t)dst_size;
	uint64_t max = ss > ds ? ss : ds;
	uint64_t most = ss < d->hashed ? ss : d->hashed;

	if (!max)
		return 0;
	return (int)((double)most * RENAME_MAX_SCORE / (double)max);
}

static int pending_cmp(const void *a_, const void *b_)
{
	const struct pending *a = a_, *b = b_;

	if (a->bound != b->bound)
		return a->bound > b->bound ? -1 : 1;
	return a->src < b->src ? -1 : a->src > b->src;
}

/*
 * Replay git's scoreboard over every source in order, with the scores in
 * rs->scores (0 for those that fail the pre-check or are not files).
 */
static void board_replay(int *out, struct rename_sources *rs,
			 const char *base, size_t baselen, uint32_t basehash)
{
	struct cand board[SLOTS];
	const struct cand *best;
	uint32_t i;

	memset(board, 0, sizeof(board));
	for (i = 0; i < rs->n; i++) {
		struct cand c;

		c.used = 1;
		c.src = i;
		c.score = rs->scores[i];
		c.name = same_base(&rs->src[i], base, baselen, basehash);
		board_offer(board, &c);
	}
	best = board_best(board);
	if (best->used && best->score >= MIN_SCORE)
		*out = (int)best->src;
}

/*
 * The similarity step. git scores every source into its scoreboard, but
 * its answer is simply the best-ranked source (score, then basename)
 * whenever that one is unique: it enters the board when it comes, since
 * something there ranks strictly lower, and nothing can push it out. Only
 * a tie at the top makes the slots matter. So score the sources that pass
 * the size pre-check in order of the best they could score, stop when no
 * source left can reach the best found, and replay the scoreboard only
 * for a tie.
 */
static int board_pick(int *out, struct rename_sources *rs,
		      struct blob_info *d, int64_t dsize, const char *base,
		      size_t baselen, uint32_t basehash)
{
	struct rename_detector *rd = rs->rd;
	struct pending *pend = rs->pend;
	size_t np = 0, k, scored, ntop = 0;
	int top = -1, top_name = 0, err;
	uint32_t i, winner = NONE;

	for (i = 0; i < rs->n; i++) {
		int64_t ssize;

		if (!is_regular(rs->src[i].mode))
			continue;
		if ((err = source_size(&ssize, rs, i)) < 0)
			return err;
		if (err || !size_passes(ssize, dsize, MIN_SCORE))
			continue;
		pend[np].src = i;
		pend[np].score = -1;
		np++;
	}
	/*
	 * No source near its size: git reads neither blob, and nothing can
	 * score (on the history of Linux's files, two thirds of the searches).
	 */
	if (!np)
		return 0;
	if ((err = info_index(rd, d)) < 0)
		return err;
	for (k = 0; k < np; k++)
		pend[k].bound = score_bound(rs->src[pend[k].src].size, dsize,
					    d);
	qsort(pend, np, sizeof(*pend), pending_cmp);

	for (k = 0; k < np; k++) {
		const struct src_entry *s = &rs->src[pend[k].src];

		if (pend[k].bound < MIN_SCORE || pend[k].bound < top)
			break;
		if ((err = similarity(&pend[k].score, rd, &s->oid, s->size,
				      d, dsize, MIN_SCORE)) < 0)
			return err;
		if (pend[k].score > top)
			top = pend[k].score;
	}
	scored = k;
	if (top < MIN_SCORE)
		return 0;

	for (k = 0; k < scored; k++) {
		int name;

		if (pend[k].score != top)
			continue;
		name = same_base(&rs->src[pend[k].src], base, baselen,
				 basehash);
		if (name > top_name) {
			top_name = name;
			ntop = 0;
		}
		if (name == top_name) {
			ntop++;
			winner = pend[k].src;
		}
	}
	if (ntop == 1) {
		*out = (int)winner;
		return 0;
	}

	for (k = scored; k < np; k++) {
		const struct src_entry *s = &rs->src[pend[k].src];

		if ((err = similarity(&pend[k].score, rd, &s->oid, s->size,
				      d, dsize, MIN_SCORE)) < 0)
			return err;
	}
	memset(rs->scores, 0, rs->n * sizeof(*rs->scores));
	for (k = 0; k < np; k++)
		rs->scores[pend[k].src] = pend[k].score;
	board_replay(out, rs, base, baselen, basehash);
	return 0;
}

static int find_exact(struct rename_sources *rs, const char *base,
		      size_t baselen, uint32_t basehash, uint32_t dst_mode,
		      const git_oid *dst_oid)
{
	struct oid_group *g = group_slot(rs, dst_oid);
	uint32_t i, best = NONE;
	int tried = 0;

	for (i = g->head; i != NONE; i = rs->src[i].next_same) {
		const struct src_entry *s = &rs->src[i];

		/* symlinks and gitlinks only pair with their own kind */
		if ((!is_regular(s->mode) || !is_regular(dst_mode)) &&
		    s->mode != dst_mode)
			continue;
		if (same_base(s, base, baselen, basehash))
			return (int)i;
		if (best == NONE)
			best = i;
		if (++tried == EXACT_TRIES)
			break;
	}
	return best == NONE ? -1 : (int)best;
}

int rename_sources_find(int *out, struct rename_sources *rs,
			const char *dst_path, uint32_t dst_mode,
			const git_oid *dst_oid)
{
	struct rename_detector *rd = rs->rd;
	const char *base = base_of(dst_path);
	size_t baselen = strlen(base);
	uint32_t basehash = str_hash(base, baselen);
	struct base_slot *b;
	struct blob_info *d;
	int64_t dsize, ssize;
	uint32_t i;
	int err = 0, score;

	*out = -1;
	if (!rs->n)
		return 0;

	if ((*out = find_exact(rs, base, baselen, basehash, dst_mode,
			       dst_oid)) >= 0)
		return 0;

	/*
	 * Inexact matching scores only regular files, and an empty
	 * destination scores 0 against anything: nothing can reach 50%.
	 */
	if (!is_regular(dst_mode))
		return 0;
	if ((err = cache_get(&d, rd, dst_oid)) < 0 ||
	    (err = info_size(&dsize, rd, d, dst_path)) < 0)
		goto done;
	if (!dsize)
		goto done;

	/*
	 * find_basename_matches(): a basename held by exactly one source
	 * (counting every deleted file, symlinks and gitlinks included) pairs
	 * with the destination at 75% or more. With two or more, git's
	 * directory-rename guess would be needed, and blame gives it no data.
	 */
	b = base_slot(rs, base, baselen, basehash);
	if (b->count == 1 && is_regular(rs->src[b->first].mode)) {
		i = b->first;
		/* (A source passed over scores nothing.) */
		if ((err = source_size(&ssize, rs, i)) < 0 ||
		    (!err && (err = similarity(&score, rd, &rs->src[i].oid,
					      ssize, d, dsize,
					      rd->basename_score)) < 0))
			goto done;
		if (err)
			err = 0;
		else if (score >= rd->basename_score) {
			*out = (int)i;
			goto done;
		}
	}

	/* too_many_rename_candidates() with one destination */
	if ((uint64_t)rs->n > (uint64_t)RENAME_LIMIT * RENAME_LIMIT)
		goto done;

	err = board_pick(out, rs, d, dsize, base, baselen, basehash);
done:
	cache_trim(rd);
	if (err < 0)
		*out = -1;
	return err;
}

static int same_list(const struct rename_sources *rs,
		     const struct rename_source *srcs, size_t n)
{
	size_t i;

	if (rs->n != n)
		return 0;
	for (i = 0; i < n; i++) {
		const struct src_entry *s = &rs->src[i];

		if (s->mode != srcs[i].mode ||
		    !git_oid_equal(&s->oid, &srcs[i].oid) ||
		    strcmp(s->path, srcs[i].path))
			return 0;
	}
	return 1;
}

int rename_find(int *out, struct rename_detector *rd,
		const struct rename_source *srcs, size_t nsrcs,
		const char *dst_path, uint32_t dst_mode,
		const git_oid *dst_oid)
{
	int err;

	*out = -1;
	if (!nsrcs)
		return 0;
	if (!rd->memo || !same_list(rd->memo, srcs, nsrcs)) {
		rename_sources_free(rd->memo);
		rd->memo = NULL;
		if ((err = rename_sources_new(&rd->memo, rd, srcs, nsrcs)) < 0)
			return err;
	}
	return rename_sources_find(out, rd->memo, dst_path, dst_mode, dst_oid);
}

int rename_score(int *out, struct rename_detector *rd,
		 uint32_t src_mode, const git_oid *src_oid,
		 uint32_t dst_mode, const git_oid *dst_oid, int min_score)
{
	struct blob_info *d;
	int64_t ssize = 0, dsize = 0;
	int err;

	*out = 0;
	if (!is_regular(src_mode) || !is_regular(dst_mode))
		return 0;
	if ((err = blob_size(&ssize, rd, src_oid, NULL)) < 0 ||
	    (err = cache_get(&d, rd, dst_oid)) < 0 ||
	    (err = info_size(&dsize, rd, d, NULL)) < 0 ||
	    (err = similarity(out, rd, src_oid, ssize, d, dsize,
			      min_score)) < 0)
		*out = 0;
	cache_trim(rd);
	return err;
}
