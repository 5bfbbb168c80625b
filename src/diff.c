#include "strata/diff.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "strata/error.h"
#include "strata/odb.h"

/*
 * Our own implementation of the line diff in git 2.39's xdiff (the same
 * one libgit2 1.5 bundles): classify records, trim equal ends, discard
 * records that cannot match, Myers' divide and conquer with xdiff's cost
 * heuristics, then slide the change groups with the indent heuristic.
 * Every rule and constant below is xdiff's; the data structures are not.
 * Hunks must come out exactly as git's would, so any change here has to
 * pass tests/t-diff-unit.sh, which diffs real histories both ways.
 */

/* git and libgit2 refuse larger blobs ("files too large for diff"). */
#define MAX_SIDE ((size_t)1023 << 20)

#define NO_CLASS UINT32_MAX

enum {
	/* Discarding records without a match (xprepare.c). */
	EQ_LIMIT = 1024,        /* cap on the "too many matches" level */
	SCAN_WINDOW = 100,      /* records looked at around a multimatch */
	KEEP_RUN = 4,           /* ratio that discards a multimatch */

	/* Myers' split (xdiffi.c). */
	MIN_MAX_COST = 256,     /* floor of the cost where we give up */
	HEUR_MIN_COST = 256,    /* cost above which snakes are sampled */
	SNAKE_LEN = 20,         /* length of a "good" snake */
	K_HEUR = 4,             /* how far along a good diagonal must be */

	/* Indent heuristic (xdiffi.c). */
	MAX_INDENT = 200,
	MAX_BLANKS = 20,
	MAX_SLIDING = 100,
	START_OF_FILE_PENALTY = 1,
	END_OF_FILE_PENALTY = 21,
	TOTAL_BLANK_WEIGHT = -30,
	POST_BLANK_WEIGHT = 6,
	RELATIVE_INDENT_PENALTY = -4,
	RELATIVE_INDENT_WITH_BLANK_PENALTY = 10,
	RELATIVE_OUTDENT_PENALTY = 24,
	RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17,
	RELATIVE_DEDENT_PENALTY = 23,
	RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17,
	INDENT_WEIGHT = 60
};

/*
 * Whitespace as xdiff sees it (for -w and for indentation): git's own
 * locale-free isspace(), that is space, \t, \n and \r. libgit2's copy of
 * xdiff calls the C library's isspace(), which adds \v and \f, so lines
 * with those can come out differently there; define DIFF_SPACE_LIKE_LIBGIT2
 * to get libgit2's hunks instead (tests/t-diff-unit.sh compares both ways).
 */
static const bool is_space[256] = {
	['\t'] = true, ['\n'] = true, ['\r'] = true, [' '] = true,
#ifdef DIFF_SPACE_LIKE_LIBGIT2
	['\v'] = true, ['\f'] = true,
#endif
};

#ifdef __SSE2__
/* The bytes of v that is_space[] holds, as 0xff. */
static inline __m128i space_mask(__m128i v)
{
	__m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
				 _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
#ifdef DIFF_SPACE_LIKE_LIBGIT2
	/* \t \n \v \f are 9 to 12 */
	__m128i t = _mm_subs_epu8(_mm_sub_epi8(v, _mm_set1_epi8(9)),
				  _mm_set1_epi8(3));

	return _mm_or_si128(m, _mm_cmpeq_epi8(t, _mm_setzero_si128()));
#else
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
	return _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
#endif
}
#endif

/* A buffer that only grows, kept from call to call. */
struct buf {
	void *p;
	size_t cap;
};

#define NO_ID UINT32_MAX

/*
 * The line dictionary: a number for every distinct line the thread has
 * met, kept from call to call. Equal lines (with -w, lines equal but for
 * whitespace) get equal numbers, so the numbers serve as xdiff's classes
 * in every diff, and a line is hashed only the first time it is seen.
 */
struct line_entry {
	uint64_t hash;
	uint32_t at, len;       /* its bytes in text (for -w, without spaces) */
};

/* One of the two buffers being compared. */
struct side {
	const unsigned char *buf;   /* NULL: the lines are the dictionary's */
	const unsigned char *text;
	const struct line_entry *e;
	size_t len;
	uint32_t n;             /* records */
	const uint32_t *off;    /* n + 1 starts, off[n] == len */
	const uint32_t *cls;    /* class of each record */
	unsigned char *chg;     /* changed flags; chg[-1] and chg[n] are 0 */
	uint32_t *kept;         /* records that go through Myers */
	uint32_t *kept_cls;
	long nkept;
	/* Every changed record lies in [lo, hi). */
	long lo, hi;
};

static inline const unsigned char *rec_ptr(const struct side *s, long i)
{
	return s->buf ? s->buf + s->off[i] : s->text + s->e[s->cls[i]].at;
}

static inline uint32_t rec_len(const struct side *s, long i)
{
	return s->off[i + 1] - s->off[i];
}

/* Two counts side by side: a number's in the old and in the new side. */
struct pair {
	uint32_t c[2];
};

struct dict {
	struct line_entry *e;
	uint32_t n, cap;
	/*
	 * Number + 1 (0: empty) in the low half, the low half of its hash in
	 * the high half: a probe that meets another line's slot moves on
	 * without loading its entry. Most lines looked up are new ones, whose
	 * probes all miss, so a lookup costs about one cache miss, not one
	 * per probe and another for the text (on tmux the lookups went from
	 * 6.9% of the run's samples to 5.7%).
	 */
	uint64_t *slot;
	uint32_t mask;
	int shift;
	unsigned char *text;
	size_t text_len, text_cap;
	/* Per number: records of it in each side, 0 between calls. */
	struct pair *count;
	uint32_t *pos;          /* scratch: where a number was seen */
	uint32_t gen;           /* changes whenever the numbers start over */
	int ws;                 /* the mode the numbers are for, -1: none */
};

/*
 * Past this many numbers or bytes of text, the dictionary starts over at
 * the next call: a thread's share of memory stays around 25 MiB. (Twice
 * this much saved nothing on git's history and cost 50 MiB a thread.)
 */
#ifndef DICT_MAX_IDS            /* tests set tiny ones */
#define DICT_MAX_IDS ((uint32_t)1 << 18)
#define DICT_MAX_TEXT ((size_t)12 << 20)
#endif

/*
 * A blob's lines, as starts and numbers, made once and reused by the next
 * diffs the blob is in: the versions of a file come one after another, so
 * a side of one diff is usually a side of the next. A new blob's table is
 * mostly copied from the other side's: runs of equal bytes are runs of
 * equal lines, and only the lines in between are looked up.
 */
struct table {
	unsigned char key[DIFF_KEY_SIZE];
	bool keyed;
	size_t len;             /* bytes of the blob */
	uint32_t n;             /* its records */
	uint32_t *off;          /* n + 1 starts */
	uint32_t *id;           /* n numbers */
	size_t cap;             /* room for this many starts */
	uint32_t gen;           /* the dictionary's when made */
	uint64_t used;          /* for least recently used; 0: empty */
	/* Tables of pack entries (see "tables from pack deltas"). */
	struct odb_place at;
	bool nl_end;            /* its last line ends in a newline (or none) */
	int pins;               /* in use: not to be taken */
	size_t counted;         /* cap when last counted in placed.bytes */
	int hnext, prev, next;  /* in its bucket, in the LRU list; -1 ends */
};

#define TABLES 8

/*
 * The tables of pack entries that a thread keeps, at most (8 MiB did as
 * well as 24 on tmux and git).
 */
#ifndef PLACED                  /* tests set tiny ones */
#define PLACED 512
#define PLACED_BYTES ((size_t)8 << 20)
#endif
#define PLACE_BUCKETS 1024

struct placed {
	struct table *t;        /* PLACED of them, once used */
	int bucket[PLACE_BUCKETS];
	int head, tail;         /* those in use, most recently used first */
	int free;               /* the others, empty, through `next` */
	size_t bytes;           /* of the starts and numbers they hold */
};

/*
 * Where the blobs of the last diffs are stored: a version is the new side
 * of one diff and the old side of the next, and looking it up in the pack
 * index again cost a cache miss or more per step of the search (the diff
 * threads' searches were 1.9% of tmux's samples; this saves half of them).
 * Direct-mapped by a byte of the name.
 */
#define LOCATED 64

struct located {
	git_oid oid;
	struct odb_place at;
	bool valid;
};

/* Bits for the classes of a diff's middle (count_ends()). */
#define MIDDLE_BITS 32768

/* Everything one thread's calls need, kept from call to call. */
struct ctx {
	struct side s[2];
	struct dict dict;
	struct table tab[TABLES];
	struct placed placed;
	struct located located[LOCATED];
	uint64_t seen[MIDDLE_BITS / 64];  /* count_classes() */
	const struct odb *db;   /* what the places above are places in */
	uint64_t clock;
	struct buf chg[2], kept[2], kept_cls[2], dis, kv, todo, hashes, norm,
		   raw, pend, chain;
};

static void *reserve(struct buf *b, size_t bytes)
{
	if (bytes > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		void *p;

		while (cap < bytes)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return NULL;
		b->p = p;
		b->cap = cap;
	}
	return b->p;
}

/* The buffers of a single call, into all[]; returns how many. */
static size_t ctx_bufs(struct ctx *c, struct buf **all)
{
	struct buf *list[] = {
		&c->chg[0], &c->chg[1], &c->kept[0], &c->kept[1],
		&c->kept_cls[0], &c->kept_cls[1], &c->dis, &c->kv, &c->todo,
		&c->hashes, &c->norm, &c->raw, &c->pend, &c->chain
	};

	memcpy(all, list, sizeof(list));
	return sizeof(list) / sizeof(*list);
}

#define CTX_BUFS 14

static void table_free(struct table *t)
{
	free(t->off);
	free(t->id);
	memset(t, 0, sizeof(*t));
}

static void ctx_free(void *arg)
{
	struct ctx *c = arg;
	struct buf *all[CTX_BUFS];
	size_t i, n;

	if (!c)
		return;
	n = ctx_bufs(c, all);
	for (i = 0; i < n; i++)
		free(all[i]->p);
	for (i = 0; i < TABLES; i++)
		table_free(&c->tab[i]);
	if (c->placed.t)
		for (i = 0; i < PLACED; i++)
			table_free(&c->placed.t[i]);
	free(c->placed.t);
	free(c->dict.e);
	free(c->dict.slot);
	free(c->dict.text);
	free(c->dict.count);
	free(c->dict.pos);
	free(c);
}

/*
 * Big diffs should not pin their memory for the life of the thread: past
 * this much, a call's buffers, or a table, go back after the call.
 */
#define KEEP_BYTES ((size_t)16 << 20)

/*
 * One context per thread: a thread-local pointer for speed, and a key
 * whose destructor frees the context when the thread ends.
 */
static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static bool ctx_key_ok;
static _Thread_local struct ctx *ctx_mine;

static void ctx_key_make(void)
{
	ctx_key_ok = pthread_key_create(&ctx_key, ctx_free) == 0;
}

static struct ctx *ctx_get(void)
{
	if (!ctx_mine) {
		pthread_once(&ctx_once, ctx_key_make);
		ctx_mine = calloc(1, sizeof(*ctx_mine));
		if (!ctx_mine)
			return NULL;
		ctx_mine->dict.ws = -1;
		if (ctx_key_ok)
			pthread_setspecific(ctx_key, ctx_mine);
	}
	return ctx_mine;
}

void diff_thread_end(void)
{
	if (!ctx_mine)
		return;
	if (ctx_key_ok)
		pthread_setspecific(ctx_key, NULL);
	ctx_free(ctx_mine);
	ctx_mine = NULL;
}

static void ctx_put(struct ctx *c)
{
	struct buf *all[CTX_BUFS];
	size_t i, n = ctx_bufs(c, all), bytes = 0;

	for (i = 0; i < n; i++)
		bytes += all[i]->cap;
	if (bytes > KEEP_BYTES) {
		for (i = 0; i < n; i++) {
			free(all[i]->p);
			all[i]->p = NULL;
			all[i]->cap = 0;
		}
	}
	for (i = 0; i < TABLES; i++)
		if (c->tab[i].cap * 2 * sizeof(uint32_t) > KEEP_BYTES)
			table_free(&c->tab[i]);
}

/*
 * git's xdiff interface drops the common tail of both buffers before
 * diffing: whole 1 KiB blocks, then it gives back bytes up to and including
 * the first newline so that only complete lines are dropped. Which of two
 * identical lines gets blamed depends on this, so we do the same, from
 * `same`, the length of the buffers' common tail. What is left of each
 * buffer is a run of its whole first lines.
 */
static void trim_tail(size_t *alen, size_t *blen, const char *a,
		      size_t same)
{
	const size_t blk = 1024;
	size_t cut = same / blk * blk, back = 0;

	/* Keep the partial line that precedes the dropped lines. */
	while (back < cut) {
		char c = a[*alen - cut + back];

		back++;
		if (c == '\n')
			break;
	}
	*alen -= cut - back;
	*blen -= cut - back;
}

/* ---- hashing ---------------------------------------------------------- */

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Multiply and fold: the mixing step of the record hash. */
static inline uint64_t mum(uint64_t x, uint64_t y)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	u128 r = (u128)x * y;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t lo = x * y, hi = (x >> 32) * (y >> 32);

	return lo ^ hi ^ (lo >> 29);
#endif
}

#define K0 0xa0761d6478bd642fULL
#define K1 0xe7037ed1a0b428dbULL
#define K2 0x8ebc6af09c88c6e3ULL

/*
 * The first n (< 8) bytes at p as a little-endian number, reading a whole
 * word when the buffer goes on far enough.
 */
static inline uint64_t load_short(const unsigned char *p, size_t n,
				  const unsigned char *end)
{
	uint64_t w = 0;
	size_t i;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - p >= 8)
		return load64(p) & (~(uint64_t)0 >> (64 - 8 * n));
#else
	(void)end;
#endif
	for (i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return w;
}

/*
 * Any hash will do as long as equal records get equal hashes: numbers
 * are settled by comparing the bytes. `end` bounds the buffer p is in.
 */
static inline uint64_t hash_bytes(const unsigned char *p, size_t n,
				  const unsigned char *end)
{
	uint64_t h = K0 ^ n, x, y;

	if (n > 16) {
		const unsigned char *last = p + n - 16;

		for (; p < last; p += 16)
			h = mum(load64(p) ^ K1, load64(p + 8) ^ h);
		x = load64(last);
		y = load64(last + 8);
	} else if (n >= 8) {
		x = load64(p);
		y = load64(p + n - 8);
	} else {
		x = n ? load_short(p, n, end) : 0;
		y = 0;
	}
	return mum(mum(x ^ K1, y ^ h) ^ K2, h ^ K1);
}

static inline bool same_bytes(const unsigned char *a, const unsigned char *b,
			      size_t n)
{
	size_t i;

	if (n > 64)
		return !memcmp(a, b, n);
	if (n >= 8) {
		/* Words, the last one overlapping: most lines are short. */
		for (i = 0; i + 8 < n; i += 8)
			if (load64(a + i) != load64(b + i))
				return false;
		return load64(a + n - 8) == load64(b + n - 8);
	}
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * With -w a record is the sequence of its bytes that are not whitespace
 * (xdl_recmatch): those of p[0, n) go to out, which has room for n + 16.
 * Returns how many.
 */
static size_t strip_space(unsigned char *out, const unsigned char *p,
			  size_t n)
{
	size_t i = 0, k = 0;

#ifdef __SSE2__
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
		unsigned m = (unsigned)_mm_movemask_epi8(space_mask(v)), j;

		if (!m) {
			_mm_storeu_si128((__m128i *)(out + k), v);
			k += 16;
			continue;
		}
		for (j = 0; j < 16; j++)
			if (!(m >> j & 1))
				out[k++] = p[i + j];
	}
#endif
	for (; i < n; i++)
		if (!is_space[p[i]])
			out[k++] = p[i];
	return k;
}

/* ---- the dictionary --------------------------------------------------- */

static inline uint64_t slot_value(uint64_t hash, uint32_t id)
{
	return hash << 32 | ((uint64_t)id + 1);
}

static int dict_rehash(struct dict *d, size_t slots)
{
	uint64_t *s = calloc(slots, sizeof(*s));
	uint32_t i;
	int bits = 0;

	if (!s)
		return -1;
	while (((size_t)1 << bits) < slots)
		bits++;
	free(d->slot);
	d->slot = s;
	d->mask = (uint32_t)(slots - 1);
	d->shift = 64 - bits;
	for (i = 0; i < d->n; i++) {
		uint32_t at = (uint32_t)(d->e[i].hash >> d->shift);

		while (s[at])
			at = (at + 1) & d->mask;
		s[at] = slot_value(d->e[i].hash, i);
	}
	return 0;
}

/* Room for twice as many numbers (the counts of the new ones zero). */
static int dict_grow(struct dict *d)
{
	uint32_t cap = d->cap ? 2 * d->cap : 4096;
	void *p;

	if (!(p = realloc(d->e, cap * sizeof(*d->e))))
		return -1;
	d->e = p;
	if (!(p = realloc(d->count, cap * sizeof(*d->count))))
		return -1;
	d->count = p;
	memset(d->count + d->cap, 0, (cap - d->cap) * sizeof(*d->count));
	if (!(p = realloc(d->pos, cap * sizeof(uint32_t))))
		return -1;
	d->pos = p;
	d->cap = cap;
	return dict_rehash(d, 2 * (size_t)cap);
}

static void placed_clear(struct placed *P);

/* Numbers for mode `ws` from here on, starting over if need be. */
static void dict_start(struct ctx *c, bool ws)
{
	struct dict *d = &c->dict;

	if (d->ws == (int)ws && d->n <= DICT_MAX_IDS &&
	    d->text_len <= DICT_MAX_TEXT)
		return;
	d->n = 0;
	d->text_len = 0;
	if (d->slot)
		memset(d->slot, 0, ((size_t)d->mask + 1) * sizeof(*d->slot));
	d->gen++;
	d->ws = ws;
	placed_clear(&c->placed);
}

/* The number of the record p[0, n), whose hash is h; NO_ID: no memory. */
static uint32_t intern_hashed(struct dict *d, const unsigned char *p,
			      size_t n, uint64_t h)
{
	struct line_entry *e;
	uint32_t at, id;
	uint64_t v;

	if (d->n == d->cap && dict_grow(d) < 0)
		return NO_ID;
	for (at = (uint32_t)(h >> d->shift); (v = d->slot[at]) != 0;
	     at = (at + 1) & d->mask) {
		if ((v >> 32) != (h & 0xffffffffu))
			continue;
		e = &d->e[(uint32_t)v - 1];
		if (e->hash == h && e->len == n &&
		    same_bytes(d->text + e->at, p, n))
			return (uint32_t)v - 1;
	}
	/* (An empty record, -w's blank lines, still needs a text to be in.) */
	if (d->text_len + n > d->text_cap || !d->text) {
		size_t cap = d->text_cap ? d->text_cap : (size_t)1 << 16;
		void *q;

		while (cap < d->text_len + n)
			cap *= 2;
		if (!(q = realloc(d->text, cap)))
			return NO_ID;
		d->text = q;
		d->text_cap = cap;
	}
	memcpy(d->text + d->text_len, p, n);
	id = d->n++;
	e = &d->e[id];
	e->hash = h;
	e->at = (uint32_t)d->text_len;
	e->len = (uint32_t)n;
	d->text_len += n;
	d->slot[at] = slot_value(h, id);
	return id;
}

/* The number of the record p[0, n) of a buffer that ends at `end`. */
static uint32_t intern(struct ctx *c, const unsigned char *p, size_t n,
		       const unsigned char *end)
{
	if (c->dict.ws) {
		unsigned char *q = reserve(&c->norm, n + 16);

		if (!q)
			return NO_ID;
		n = strip_space(q, p, n);
		p = q;
		end = q + n;
	}
	return intern_hashed(&c->dict, p, n, hash_bytes(p, n, end));
}

/* ---- tables ----------------------------------------------------------- */

/* Room for n + 2 starts and numbers. */
static int table_room(struct table *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 256;
	void *p;

	if (n + 2 <= t->cap)
		return 0;
	while (cap < n + 2)
		cap *= 2;
	if (!(p = realloc(t->off, cap * sizeof(*t->off))))
		return -1;
	t->off = p;
	if (!(p = realloc(t->id, cap * sizeof(*t->id))))
		return -1;
	t->id = p;
	t->cap = cap;
	return 0;
}

/* The table of a blob, if the thread still has it. */
static struct table *table_find(struct ctx *c, const unsigned char *key,
				size_t len)
{
	int i;

	if (!key)
		return NULL;
	for (i = 0; i < TABLES; i++) {
		struct table *t = &c->tab[i];

		if (t->used && t->keyed && t->gen == c->dict.gen &&
		    (len == SIZE_MAX || t->len == len) &&
		    !memcmp(t->key, key, DIFF_KEY_SIZE)) {
			t->used = ++c->clock;
			return t;
		}
	}
	return NULL;
}

/* An empty table for a blob, in place of the oldest one but `keep`. */
static struct table *table_take(struct ctx *c, const unsigned char *key,
				size_t len, const struct table *keep)
{
	struct table *t = NULL;
	int i;

	for (i = 0; i < TABLES; i++)
		if (&c->tab[i] != keep &&
		    (!t || c->tab[i].used < t->used))
			t = &c->tab[i];
	t->keyed = key != NULL;
	if (key)
		memcpy(t->key, key, DIFF_KEY_SIZE);
	t->len = len;
	t->n = 0;
	t->gen = c->dict.gen;
	t->used = ++c->clock;
	return t;
}

#ifdef __SSE2__
static inline uint64_t newlines64(const unsigned char *p)
{
	const __m128i nl = _mm_set1_epi8('\n');
	uint64_t m = 0;
	int k;

	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));

		m |= (uint64_t)(unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, nl)) << (16 * k);
	}
	return m;
}
#endif

/* The starts of the records of p[0, len) into t. */
static int table_split(struct table *t, const unsigned char *p, size_t len)
{
	size_t n = 0, cap, i = 0;
	uint32_t *off;

	if (table_room(t, 16) < 0)
		return -1;
	off = t->off;
	cap = t->cap - 2;
	if (len)
		off[n++] = 0;
#ifdef __SSE2__
	/* 64 bytes at a time: one mask of their newlines. */
	for (; i + 64 <= len; i += 64) {
		uint64_t m = newlines64(p + i);

		if (!m)
			continue;
		if (n + 64 > cap) {
			if (table_room(t, 2 * n + 64) < 0)
				return -1;
			off = t->off;
			cap = t->cap - 2;
		}
		do {
			off[n++] = (uint32_t)(i + 1 + (size_t)__builtin_ctzll(m));
			m &= m - 1;
		} while (m);
	}
#endif
	for (; i < len; i++) {
		const unsigned char *nl = memchr(p + i, '\n', len - i);

		if (!nl)
			break;
		i = (size_t)(nl - p);
		if (n + 1 > cap) {
			if (table_room(t, 2 * n + 16) < 0)
				return -1;
			off = t->off;
			cap = t->cap - 2;
		}
		off[n++] = (uint32_t)(i + 1);
	}
	if (n && off[n - 1] == len)
		n--;
	off[n] = (uint32_t)len;
	t->n = (uint32_t)n;
	return 0;
}

/*
 * Number lines [from, t->n) of t, without -w: line x is the bytes from
 * p + t->off[x] - at to p + t->off[x + 1] - at (t->off[t->n] is set), in a
 * buffer that ends at `end`. The hashes first, so that the lookups can
 * load their slots early.
 */
static int number_lines(struct ctx *c, struct table *t, uint32_t from,
			const unsigned char *p, size_t at,
			const unsigned char *end)
{
	struct dict *d = &c->dict;
	uint32_t x, n = t->n - from;
	uint64_t *h;

	if (!(h = reserve(&c->hashes, ((size_t)n + 1) * sizeof(*h))))
		return -1;
	for (x = 0; x < n; x++)
		h[x] = hash_bytes(p + (t->off[from + x] - at),
				  t->off[from + x + 1] - t->off[from + x], end);
	for (x = 0; x < n; x++) {
		uint32_t i = from + x;

#if defined(__GNUC__)
		if (x + 8 < n && d->slot)
			__builtin_prefetch(&d->slot[h[x + 8] >> d->shift]);
#endif
		t->id[i] = intern_hashed(d, p + (t->off[i] - at),
					 t->off[i + 1] - t->off[i], h[x]);
		if (t->id[i] == NO_ID)
			return -1;
	}
	return 0;
}

/* t for the blob p[0, len), from nothing. */
static int table_build(struct ctx *c, struct table *t,
		       const unsigned char *p, size_t len)
{
	uint32_t i, n;

	if (table_split(t, p, len) < 0)
		return -1;
	n = t->n;
	if (c->dict.ws) {
		for (i = 0; i < n; i++) {
			t->id[i] = intern(c, p + t->off[i],
					  t->off[i + 1] - t->off[i], p + len);
			if (t->id[i] == NO_ID)
				return -1;
		}
		return 0;
	}
	return number_lines(c, t, 0, p, 0, p + len);
}

/* ---- copying a table from another version ----------------------------- */

/* Length of the common prefix of a and b (both at least n long). */
static size_t common_head(const unsigned char *a, const unsigned char *b,
			  size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	/* 64 bytes a go while they are all equal, then 16 to find where. */
	for (; i + 64 <= n; i += 64) {
		__m128i e = _mm_and_si128(
			_mm_and_si128(
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(a + i)),
					_mm_loadu_si128((const __m128i *)(b + i))),
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(a + i + 16)),
					_mm_loadu_si128((const __m128i *)(b + i + 16)))),
			_mm_and_si128(
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(a + i + 32)),
					_mm_loadu_si128((const __m128i *)(b + i + 32))),
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(a + i + 48)),
					_mm_loadu_si128((const __m128i *)(b + i + 48)))));

		if (_mm_movemask_epi8(e) != 0xffff)
			break;
	}
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(b + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y));

		if (m != 0xffff)
			return i + (size_t)__builtin_ctz(~m);
	}
#endif
	while (i + 8 <= n && load64(a + i) == load64(b + i))
		i += 8;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Length of the common suffix of a[0, an) and b[0, bn), at most n. */
static size_t common_tail(const unsigned char *a, size_t an,
			  const unsigned char *b, size_t bn, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	/* 64 bytes a go while they are all equal, then 8 to find where. */
	for (; i + 64 <= n; i += 64) {
		const unsigned char *x = a + an - i - 64, *y = b + bn - i - 64;
		__m128i e = _mm_and_si128(
			_mm_and_si128(
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)x),
					_mm_loadu_si128((const __m128i *)y)),
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(x + 16)),
					_mm_loadu_si128((const __m128i *)(y + 16)))),
			_mm_and_si128(
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(x + 32)),
					_mm_loadu_si128((const __m128i *)(y + 32))),
				_mm_cmpeq_epi8(
					_mm_loadu_si128((const __m128i *)(x + 48)),
					_mm_loadu_si128((const __m128i *)(y + 48)))));

		if (_mm_movemask_epi8(e) != 0xffff)
			break;
	}
#endif
	while (i + 8 <= n &&
	       load64(a + an - i - 8) == load64(b + bn - i - 8))
		i += 8;
	while (i < n && a[an - i - 1] == b[bn - i - 1])
		i++;
	return i;
}

size_t diff_common_prefix(const void *a, const void *b, size_t n)
{
	return common_head(a, b, n);
}

size_t diff_common_suffix(const void *a, size_t alen, const void *b,
			  size_t blen, size_t n)
{
	return common_tail(a, alen, b, blen, n);
}

/* The first index in [lo, hi) whose start is at least pos, or hi. */
static long first_start_from(const uint32_t *off, long lo, long hi,
			     size_t pos)
{
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (off[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The other version of a file that a new table is copied from. */
struct known {
	const struct table *t;
	const unsigned char *buf;
};

/*
 * Copy to t, from its record j on at byte pb, the records of k from i on
 * (up to `whole`, all ending in a newline) that t's buffer repeats byte
 * for byte (up to `to`). Returns how many, or -1.
 */
static long copy_run(struct table *t, const unsigned char *buf,
		     const struct known *k, long i, long whole, size_t j,
		     size_t pb, size_t to)
{
	const uint32_t *ko = k->t->off;
	size_t most = ko[whole] - ko[i], len;
	long r, x, shift = (long)pb - (long)ko[i];

	len = common_head(k->buf + ko[i], buf + pb,
			  most < to - pb ? most : to - pb);
	if (len < ko[i + 1] - ko[i])
		return 0;
	r = first_start_from(ko, i + 1, whole + 1, ko[i] + len + 1) - 1 - i;
	if (table_room(t, j + (size_t)r) < 0)
		return -1;
	for (x = 0; x < r; x++) {
		t->off[j + x] = (uint32_t)((long)ko[i + x] + shift);
		t->id[j + x] = k->t->id[i + x];
	}
	return r;
}

/*
 * The records of t's buffer in [from, to), following k's records [i,
 * k_end) along: whole runs of equal bytes are runs of k's records, and
 * only the records between are looked up. After one of those, a record
 * found once in k's part tells where to pick k up again.
 */
static int copy_middle(struct ctx *c, struct table *t,
		       const unsigned char *buf, size_t len,
		       const struct known *k, long i, long k_end,
		       size_t from, size_t to)
{
	const struct table *kt = k->t;
	size_t pb = from, j = t->n;
	long whole = k_end, i0 = i, r;
	int rc = 0;

	for (r = i; r < k_end; r++) {
		c->dict.count[kt->id[r]].c[0]++;
		c->dict.pos[kt->id[r]] = (uint32_t)r;
	}
	/* Only records with a newline are taken as copies. */
	if (k_end > 0 && kt->off[k_end] == kt->len &&
	    k->buf[kt->len - 1] != '\n')
		whole = k_end - 1;
	while (pb < to) {
		const unsigned char *nl;
		size_t next;
		uint32_t id;
		long run = i < whole ?
			copy_run(t, buf, k, i, whole, j, pb, to) : 0;

		if (run < 0)
			goto fail;
		if (run > 0) {
			pb += kt->off[i + run] - kt->off[i];
			i += run;
			j += (size_t)run;
			continue;
		}
		nl = memchr(buf + pb, '\n', to - pb);
		next = nl ? (size_t)(nl - buf) + 1 : to;
		if (table_room(t, j + 1) < 0)
			goto fail;
		id = intern(c, buf + pb, next - pb, buf + len);
		if (id == NO_ID)
			goto fail;
		t->off[j] = (uint32_t)pb;
		t->id[j] = id;
		if (c->dict.count[id].c[0] == 1 && c->dict.pos[id] >= i)
			i = c->dict.pos[id] + 1;
		j++;
		pb = next;
	}
	t->n = (uint32_t)j;
	goto done;
fail:
	rc = -1;
done:
	for (r = i0; r < k_end; r++)
		c->dict.count[kt->id[r]].c[0] = 0;
	return rc;
}

/*
 * t for the blob buf[0, len), from k, the table of another version of the
 * same file whose common tail with it is `same` bytes long: the records
 * within their common head and tail are k's.
 */
static int table_copy(struct ctx *c, struct table *t,
		      const unsigned char *buf, size_t len,
		      const struct known *k, size_t same)
{
	const struct table *kt = k->t;
	size_t klen = kt->len, small = klen < len ? klen : len, p, e, q, base;
	long nk = kt->n, head, first, i;

	/* Records ending (newline included) within the common head. */
	p = common_head(k->buf, buf, small);
	head = first_start_from(kt->off, 1, nk + 1, p + 1) - 1;
	if (head == nk && nk > 0 && k->buf[klen - 1] != '\n')
		head--;	/* k is a prefix of buf, whose last line goes on */
	e = kt->off[head];

	/*
	 * The common tail, kept clear of the head records. A record of k that
	 * starts inside it is a whole record of buf too, except perhaps the
	 * one starting right at its edge.
	 */
	q = same < small - e ? same : small - e;
	base = klen - q;
	first = first_start_from(kt->off, head, nk, base);
	if (first < nk && kt->off[first] == base) {
		size_t at = len - q;

		if (at > 0 && buf[at - 1] != '\n')
			first++;
	}

	if (table_room(t, (size_t)head) < 0)
		return -1;
	memcpy(t->off, kt->off, (size_t)head * sizeof(*t->off));
	memcpy(t->id, kt->id, (size_t)head * sizeof(*t->id));
	t->n = (uint32_t)head;
	if (copy_middle(c, t, buf, len, k, head, first, e,
			kt->off[first] + len - klen) < 0)
		return -1;
	if (table_room(t, t->n + (size_t)(nk - first)) < 0)
		return -1;
	{
		uint32_t *off = t->off + t->n, shift = (uint32_t)(len - klen);
		const uint32_t *from = kt->off + first;
		long m = nk - first;

		/* Unsigned arithmetic wraps back to the right starts. */
		for (i = 0; i < m; i++)
			off[i] = from[i] + shift;
		memcpy(t->id + t->n, kt->id + first, (size_t)m * sizeof(*t->id));
		t->n += (uint32_t)m;
	}
	t->off[t->n] = (uint32_t)len;
	return 0;
}

/* ---- tables from pack deltas ------------------------------------------ */

/*
 * Most versions of a file are stored as deltas: instructions that copy
 * byte ranges of a base object and insert new bytes. Building a blob's
 * bytes from them and then finding its lines (the way above) moves every
 * byte twice, and on tmux that was half of a diff thread's time. Here a
 * table is made from the base's table and the instructions instead: the
 * lines that a copy holds whole are the base's lines, moved; only the
 * lines that an instruction cuts or inserts are put together and looked
 * up. The bytes of a line are the dictionary's (without -w it holds them
 * as they are), so a blob's bytes are never built at all. Each thread
 * keeps such tables for the pack entries it has met, delta bases
 * included, keyed by their place in the pack.
 */

static void placed_clear(struct placed *P)
{
	int i;

	for (i = 0; i < PLACE_BUCKETS; i++)
		P->bucket[i] = -1;
	if (!P->t)
		return;
	for (i = 0; i < PLACED; i++) {
		P->t[i].used = 0;
		P->t[i].keyed = false;
	}
}

static int placed_init(struct placed *P)
{
	int i;

	if (P->t)
		return 0;
	if (!(P->t = calloc(PLACED, sizeof(*P->t))))
		return -1;
	for (i = 0; i < PLACED; i++)
		P->t[i].next = i + 1 < PLACED ? i + 1 : -1;
	P->free = 0;
	P->head = P->tail = -1;
	placed_clear(P);
	return 0;
}

static unsigned place_bucket(struct odb_place at)
{
	uint64_t h = (at.offset ^ (uint64_t)at.pack << 40) *
		     0x9e3779b97f4a7c15ull;

	return (unsigned)(h >> 54) & (PLACE_BUCKETS - 1);
}

static void lru_unlink(struct placed *P, int i)
{
	struct table *t = &P->t[i];

	if (t->prev >= 0)
		P->t[t->prev].next = t->next;
	else
		P->head = t->next;
	if (t->next >= 0)
		P->t[t->next].prev = t->prev;
	else
		P->tail = t->prev;
}

static void lru_push(struct placed *P, int i)
{
	struct table *t = &P->t[i];

	t->prev = -1;
	t->next = P->head;
	if (P->head >= 0)
		P->t[P->head].prev = i;
	else
		P->tail = i;
	P->head = i;
}

static void lru_front(struct placed *P, int i)
{
	if (P->head == i)
		return;
	lru_unlink(P, i);
	lru_push(P, i);
}

/* Take table i out of its bucket (`keyed`: it is in one). */
static void bucket_unlink(struct placed *P, int i)
{
	struct table *t = &P->t[i];
	int *at = &P->bucket[place_bucket(t->at)];

	if (!t->keyed)
		return;
	while (*at != i)
		at = &P->t[*at].hnext;
	*at = t->hnext;
	t->keyed = false;
}

static struct table *placed_find(struct ctx *c, struct odb_place at)
{
	struct placed *P = &c->placed;
	int i;

	for (i = P->bucket[place_bucket(at)]; i >= 0; i = P->t[i].hnext) {
		struct table *t = &P->t[i];

		if (t->at.offset == at.offset && t->at.pack == at.pack &&
		    t->used) {
			lru_front(P, i);
			t->used = ++c->clock;
			return t;
		}
	}
	return NULL;
}

/* An empty table for entry `at`, in place of the oldest one not pinned. */
static struct table *placed_take(struct ctx *c, struct odb_place at)
{
	struct placed *P = &c->placed;
	struct table *t;
	int i = P->free;
	unsigned b = place_bucket(at);

	if (i >= 0) {
		P->free = P->t[i].next;
		lru_push(P, i);
	} else {
		/* The oldest, whose arrays are reused. */
		for (i = P->tail; P->t[i].pins; i = P->t[i].prev)
			;
		bucket_unlink(P, i);
		lru_front(P, i);
	}
	t = &P->t[i];
	t->at = at;
	t->keyed = true;
	t->hnext = P->bucket[b];
	P->bucket[b] = i;
	t->n = 0;
	t->len = 0;
	t->gen = c->dict.gen;
	t->used = ++c->clock;
	return t;
}

/*
 * Count t's arrays, then free the oldest tables (to the free list) while
 * they hold more than the bound.
 */
static void placed_account(struct placed *P, struct table *t)
{
	int i, prev;

	P->bytes += (t->cap - t->counted) * 2 * sizeof(uint32_t);
	t->counted = t->cap;
	for (i = P->tail; i >= 0 && P->bytes > PLACED_BYTES; i = prev) {
		struct table *o = &P->t[i];

		prev = o->prev;
		if (o->pins || o == t)
			continue;
		bucket_unlink(P, i);
		lru_unlink(P, i);
		P->bytes -= o->counted * 2 * sizeof(uint32_t);
		table_free(o);
		o->next = P->free;
		P->free = i;
	}
}

/* A table given up half made. */
static void placed_drop(struct placed *P, struct table *t)
{
	bucket_unlink(P, (int)(t - P->t));
	t->used = 0;
}

/* Whether base line i ends in a newline. */
static inline bool ends_line(const struct table *b, long i)
{
	return i + 1 < (long)b->n || b->nl_end;
}

static inline const unsigned char *line_text(const struct dict *d,
					     const struct table *t, long i)
{
	return d->text + d->e[t->id[i]].at;
}

/*
 * The first index in [lo, limit) whose start is after pos, or limit, where
 * off[lo] <= pos: in steps of 1, 2, 4... from lo, then halving the last
 * step. Most answers are near lo; a few are thousands of lines away.
 */
static long first_after(const uint32_t *off, long lo, long limit, size_t pos)
{
	long step = 1, hi;

	for (;;) {
		hi = lo + step;
		if (hi >= limit) {
			hi = limit;
			break;
		}
		if (off[hi] > pos)
			break;
		lo = hi;
		step *= 2;
	}
	return first_start_from(off, lo, hi, pos + 1);
}

/*
 * The last line of b that starts at or before pos (< b->len), looking
 * first from where the last one was found: a delta's copies mostly go
 * forward.
 */
static long line_at(const struct table *b, size_t pos, long *hint)
{
	long h = *hint, n = (long)b->n;

	if (h < n && b->off[h] <= pos) {
		if (pos < b->off[h + 1])
			return h;
		*hint = first_after(b->off, h + 1, n, pos) - 1;
	} else {
		*hint = first_start_from(b->off, 0, h < n ? h : n, pos + 1) - 1;
	}
	return *hint;
}

/*
 * Copy to t the run of b's whole lines (those ending in a newline) from
 * line i on that end by `end`, their starts moved by `shift`. A scan, not
 * a search for the run's end: its lines are read to be copied anyway (the
 * searches of line starts went from 3.5% of tmux's samples to 2.5%).
 * Returns the first line not copied, or -1 (out of memory).
 */
static long copy_whole_lines(struct table *t, const struct table *b, long i,
			     size_t end, uint32_t shift)
{
	long last = (long)b->n - (b->nl_end ? 0 : 1), k = i, stop;
	uint32_t *to_off, *to_id;

	if (last <= i)
		return i;
	/* No more lines than bytes: room enough without the run's end. */
	stop = end - b->off[i] < (size_t)(last - i) ?
	       i + (long)(end - b->off[i]) : last;
	if (table_room(t, t->n + (size_t)(stop - i)) < 0)
		return -1;
	to_off = t->off + t->n - i;
	to_id = t->id + t->n - i;
#ifdef __SSE2__
	{
		/* Starts are below MAX_SIDE: signed comparisons will do. */
		__m128i d = _mm_set1_epi32((int)shift);
		__m128i e = _mm_set1_epi32((int)end);

		for (; k + 4 <= stop; k += 4) {
			__m128i ends = _mm_loadu_si128(
				(const __m128i *)(b->off + k + 1));

			if (_mm_movemask_epi8(_mm_cmpgt_epi32(ends, e)))
				break;
			_mm_storeu_si128((__m128i *)(to_off + k), _mm_add_epi32(
				_mm_loadu_si128((const __m128i *)(b->off + k)),
				d));
			_mm_storeu_si128((__m128i *)(to_id + k),
					 _mm_loadu_si128(
					 (const __m128i *)(b->id + k)));
		}
	}
#endif
	for (; k < stop && b->off[k + 1] <= end; k++) {
		to_off[k] = b->off[k] + shift;
		to_id[k] = b->id[k];
	}
	t->n += (uint32_t)(k - i);
	return k;
}

/* A line of the new table that is not yet complete. */
struct pend {
	size_t start;           /* where it starts in the new blob */
	size_t len;             /* its bytes so far; 0: there is none */
	long line;              /* >= 0: they are base line `line`'s first */
	size_t base_end;        /* ... up to this base offset, not in buf */
};

static inline int put_line(struct table *t, size_t start, uint32_t id)
{
	if (t->n + 2 > t->cap && table_room(t, t->n + 1) < 0)
		return -1;
	t->off[t->n] = (uint32_t)start;
	t->id[t->n++] = id;
	return 0;
}

static int pend_add(struct ctx *c, struct pend *p, const unsigned char *b,
		    size_t n)
{
	unsigned char *q = reserve(&c->pend, p->len + n + 8);

	if (!q)
		return -1;
	memcpy(q + p->len, b, n);
	p->len += n;
	return 0;
}

/* The bytes of a pending line that only names them, into the buffer. */
static int pend_bytes(struct ctx *c, struct pend *p, const struct table *b)
{
	size_t n = p->len;
	long i = p->line;

	if (i < 0)
		return 0;
	p->line = -1;
	p->len = 0;
	return pend_add(c, p, line_text(&c->dict, b, i), n);
}

/* The pending line is complete: look it up and add it. */
static int pend_close(struct ctx *c, struct table *t, struct pend *p)
{
	const unsigned char *q = c->pend.p;
	uint32_t id = intern(c, q, p->len, q + p->len + 8);

	p->len = 0;
	if (id == NO_ID)
		return -1;
	return put_line(t, p->start, id);
}

/* Insert n new bytes at lit, which go to `out` in the new blob. */
static int delta_insert(struct ctx *c, struct table *t, struct pend *p,
			const struct table *b, const unsigned char *lit,
			size_t n, size_t out)
{
	const unsigned char *q = lit, *e = lit + n, *nl;
	uint32_t first;

	/* The end of a line begun before. */
	if (p->len) {
		size_t k;

		if (pend_bytes(c, p, b) < 0)
			return -1;
		nl = memchr(q, '\n', n);
		k = nl ? (size_t)(nl + 1 - q) : n;
		if (pend_add(c, p, q, k) < 0)
			return -1;
		q += k;
		if (nl && pend_close(c, t, p) < 0)
			return -1;
	}
	/* Whole lines: their starts, then their numbers, looked up in place. */
	first = t->n;
	while (q < e && (nl = memchr(q, '\n', (size_t)(e - q))) != NULL) {
		if (put_line(t, out + (size_t)(q - lit), 0) < 0)
			return -1;
		q = nl + 1;
	}
	if (t->n > first) {
		t->off[t->n] = (uint32_t)(out + (size_t)(q - lit));
		if (number_lines(c, t, first, lit, out, e) < 0)
			return -1;
	}
	/* The start of a line that goes on. */
	if (q < e) {
		p->start = out + (size_t)(q - lit);
		p->line = -1;
		if (pend_add(c, p, q, (size_t)(e - q)) < 0)
			return -1;
	}
	return 0;
}

/* Copy base bytes [cur, end), which go to `out` in the new blob. */
static int delta_copy(struct ctx *c, struct table *t, struct pend *p,
		      const struct table *b, size_t cur, size_t end,
		      size_t out, long *hint)
{
	size_t shift = out - cur;   /* unsigned: wraps back right */

	while (cur < end) {
		long i, k;
		size_t le;

		if (p->len && p->line >= 0 && p->base_end == cur) {
			/* More of the base line it names. */
			i = p->line;
			le = b->off[i + 1];
			if (end < le || !ends_line(b, i)) {
				size_t to = end < le ? end : le;

				p->len += to - cur;
				p->base_end = to;
				cur = to;
				continue;
			}
			if (put_line(t, p->start, b->id[i]) < 0)
				return -1;
			p->len = 0;
			p->line = -1;
			cur = le;
			continue;
		}
		i = line_at(b, cur, hint);
		le = b->off[i + 1];
		if (p->len || b->off[i] != cur) {
			/* Part of a line: its bytes are needed. */
			size_t to = end < le ? end : le;

			if (p->len && pend_bytes(c, p, b) < 0)
				return -1;
			if (!p->len)
				p->start = cur + shift;
			if (pend_add(c, p, line_text(&c->dict, b, i) +
					   (cur - b->off[i]), to - cur) < 0)
				return -1;
			cur = to;
			if (cur == le && ends_line(b, i) && pend_close(c, t, p) < 0)
				return -1;
			continue;
		}
		/* Whole lines from i on: the base's, moved. */
		if ((k = copy_whole_lines(t, b, i, end,
					  (uint32_t)shift)) < 0)
			return -1;
		if (k > i) {
			cur = b->off[k];
			*hint = k;
		}
		if (cur < end) {
			/* The start of line k: named, not copied, for now. */
			p->start = cur + shift;
			p->len = end - cur;
			p->line = k;
			p->base_end = end;
			cur = end;
		}
	}
	return 0;
}

/* t for the entry s, a delta against the entry whose table is b. */
static int table_delta(struct ctx *c, struct table *t, const struct table *b,
		       const struct odb *db, const struct odb_stored *s)
{
	struct pend p = { 0, 0, -1, 0 };
	struct odb_delta it;
	const unsigned char *lit = NULL;
	unsigned char *d;
	size_t off = 0, n = 0;
	long hint = 0;
	enum odb_op op;
	int rc;

	if (!(d = reserve(&c->raw, s->size + 1)))
		return error_oom();
	if ((rc = odb_stored_inflate(d, db, s)) < 0)
		return rc;
	if (!odb_delta_start(&it, d, s->size) || it.base_len != b->len)
		return odb_place_corrupt(db, s->at, NULL);
	if (it.len > MAX_SIDE)
		return error_set("files too large for diff");
	t->len = it.len;
	if (table_room(t, b->n + 16) < 0)
		return error_oom();
	while ((op = odb_delta_next(&it, &off, &n, &lit)) != ODB_OP_END) {
		if (op == ODB_OP_COPY)
			rc = delta_copy(c, t, &p, b, off, off + n, it.at - n,
					&hint);
		else if (op == ODB_OP_INSERT)
			rc = delta_insert(c, t, &p, b, lit, n, it.at - n);
		else
			return odb_place_corrupt(db, s->at, NULL);
		if (rc < 0)
			return error_oom();
	}
	t->nl_end = !p.len;
	if (p.len) {
		/* A last line without a newline. */
		if (p.line >= 0 && p.base_end == b->off[p.line + 1]) {
			if (put_line(t, p.start, b->id[p.line]) < 0)
				return error_oom();
		} else if (pend_bytes(c, &p, b) < 0 || pend_close(c, t, &p) < 0) {
			return error_oom();
		}
	}
	t->off[t->n] = (uint32_t)t->len;
	return 0;
}

/* t for blob bytes p[0, len). */
static int table_bytes(struct ctx *c, struct table *t, const unsigned char *p,
		       size_t len)
{
	if (len > MAX_SIDE)
		return error_set("files too large for diff");
	t->len = len;
	t->nl_end = !len || p[len - 1] == '\n';
	return table_build(c, t, p, len) < 0 ? error_oom() : 0;
}

static int not_blob(git_object_t type)
{
	return error_set("it is a %s", git_object_type2string(type));
}

/* t for the entry s, stored whole. */
static int table_whole(struct ctx *c, struct table *t, const struct odb *db,
		       const struct odb_stored *s)
{
	unsigned char *p;
	int rc;

	if (s->type != GIT_OBJECT_BLOB)
		return not_blob(s->type);
	if (!(p = reserve(&c->raw, s->size + 1)))
		return error_oom();
	if ((rc = odb_stored_inflate(p, db, s)) < 0)
		return rc;
	return table_bytes(c, t, p, s->size);
}

/* t for an object read as bytes: the entry at `at`, or `oid` if no place. */
static int table_read(struct ctx *c, struct table *t, struct odb *db,
		      git_repository *git, const struct odb_place *at,
		      const git_oid *oid)
{
	struct odb_object *o = NULL;
	int rc;

	rc = at ? odb_read_place(&o, db, git, *at)
		: odb_read(&o, db, git, oid, GIT_OBJECT_BLOB);
	if (rc < 0)
		return rc;
	rc = o->type == GIT_OBJECT_BLOB ? table_bytes(c, t, o->data, o->len)
					: not_blob(o->type);
	odb_object_free(o);
	return rc;
}

/*
 * The table of the pack entry at `at`: down its delta chain to a table
 * the thread has or an entry stored whole, then up again, keeping every
 * table on the way.
 */
static int placed_table(struct ctx *c, struct odb *db, git_repository *git,
			struct odb_place at, struct table **out)
{
	struct placed *P = &c->placed;
	struct odb_stored *stack = NULL, s;
	size_t n = 0;
	struct table *t;
	int rc;

	for (;;) {
		if ((t = placed_find(c, at)) != NULL)
			break;
		if ((rc = odb_stored_at(&s, db, at)) < 0)
			return rc;
		if (s.form != ODB_DELTA) {
			t = placed_take(c, at);
			rc = s.form == ODB_WHOLE ?
				table_whole(c, t, db, &s) :
				table_read(c, t, db, git, &at, NULL);
			if (rc < 0) {
				placed_drop(P, t);
				return rc;
			}
			placed_account(P, t);
			break;
		}
		/*
		 * Each link is an entry of the same pack: a chain longer
		 * than the pack has entries loops. git reads any other
		 * (100,000 and more).
		 */
		if (n > odb_pack_entries(db, s.at))
			return odb_place_corrupt(db, s.at,
						 "its deltas form a cycle");
		if (!(stack = reserve(&c->chain, (n + 1) * sizeof(*stack))))
			return error_oom();
		stack[n++] = s;
		at = s.base;
	}
	while (n) {
		struct table *next;

		t->pins++;
		next = placed_take(c, stack[--n].at);
		rc = table_delta(c, next, t, db, &stack[n]);
		t->pins--;
		if (rc < 0) {
			placed_drop(P, next);
			return rc;
		}
		placed_account(P, next);
		t = next;
	}
	*out = t;
	return 0;
}

/* odb_locate(), through the thread's memory of the last few. */
static int locate(struct ctx *c, struct odb_place *at, const struct odb *db,
		  const git_oid *oid)
{
	struct located *l = &c->located[oid->id[1] % LOCATED];

	if (l->valid && git_oid_equal(&l->oid, oid)) {
		*at = l->at;
		return 0;
	}
	if (odb_locate(at, db, oid) != 0)
		return GIT_ENOTFOUND;
	git_oid_cpy(&l->oid, oid);
	l->at = *at;
	l->valid = true;
	return 0;
}

/*
 * The table of blob `oid`, of a pack entry or (rarely: a loose object)
 * read as bytes into one of the keyed tables, but `keep`. Errors say
 * which blob.
 */
static int stored_table(struct ctx *c, struct odb *db, git_repository *git,
			const git_oid *oid, const struct table *keep,
			struct table **out)
{
	struct odb_place at;
	int rc;

	if (placed_init(&c->placed) < 0)
		return error_oom();
	if (c->db != db) {
		placed_clear(&c->placed);
		memset(c->located, 0, sizeof(c->located));
		c->db = db;
	}
	if (locate(c, &at, db, oid) != 0) {
		/* odb_read()'s errors name the blob already. */
		if ((*out = table_find(c, oid->id, SIZE_MAX)) != NULL)
			return 0;
		*out = table_take(c, oid->id, SIZE_MAX, keep);
		if ((rc = table_read(c, *out, db, git, NULL, oid)) < 0)
			(*out)->used = 0;
		return rc;
	}
	if ((rc = placed_table(c, db, git, at, out)) < 0)
		return error_prefix("unable to read blob '%s'",
				    git_oid_tostr_s(oid));
	return 0;
}

/* ---- preparing both sides --------------------------------------------- */

/*
 * Side `which` as xdiff sees it: the first records of its table, up to
 * `len` bytes (what the tail trim left, always whole records).
 */
static int side_view(struct ctx *c, int which, const struct table *t,
		     const unsigned char *buf, size_t len)
{
	struct side *s = &c->s[which];
	long n = first_start_from(t->off, 0, (long)t->n + 1, len);

	if (n > (long)t->n || t->off[n] != len)
		return error_set("internal error: a trimmed blob ends inside "
				 "a line");
	s->buf = buf;
	s->text = c->dict.text;
	s->e = c->dict.e;
	s->len = len;
	s->n = (uint32_t)n;
	s->off = t->off;
	s->cls = t->id;
	s->chg = reserve(&c->chg[which], (size_t)n + 2);
	s->kept = reserve(&c->kept[which], ((size_t)n + 1) * sizeof(uint32_t));
	s->kept_cls = reserve(&c->kept_cls[which],
			      ((size_t)n + 1) * sizeof(uint32_t));
	if (!s->chg || !s->kept || !s->kept_cls)
		return error_oom();
	memset(s->chg, 0, (size_t)n + 2);
	s->chg++;
	return 0;
}

/*
 * How many numbers (classes) from p and q on are equal, at most n (maybe
 * < 0): four at a time, for the long runs of the equal ends.
 */
static long equal_ahead(const uint32_t *p, const uint32_t *q, long n)
{
	long k = 0;

	if (n <= 0 || p[0] != q[0])
		return 0;       /* most of Myers' snakes */
#ifdef __SSE2__
	for (; k + 4 <= n; k += 4) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi32(
			_mm_loadu_si128((const __m128i *)(p + k)),
			_mm_loadu_si128((const __m128i *)(q + k))));

		if (m != 0xffff)
			return k + __builtin_ctz(~m) / 4;
	}
#endif
	while (k < n && p[k] == q[k])
		k++;
	return k;
}

/* How many numbers right before p and q are equal, at most n. */
static long equal_behind(const uint32_t *p, const uint32_t *q, long n)
{
	long k = 0;

	if (n <= 0 || p[-1] != q[-1])
		return 0;
#ifdef __SSE2__
	for (; k + 4 <= n; k += 4) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi32(
			_mm_loadu_si128((const __m128i *)(p - k - 4)),
			_mm_loadu_si128((const __m128i *)(q - k - 4))));

		if (m != 0xffff)
			return k + 3 - (31 - __builtin_clz(~m & 0xffff)) / 4;
	}
#endif
	while (k < n && p[-1 - k] == q[-1 - k])
		k++;
	return k;
}

/* The equal records at both ends, as xdl_trim_ends finds them. */
static void trim_ends(const struct ctx *c, long *head, long *tail)
{
	const struct side *a = &c->s[0], *b = &c->s[1];
	long na = a->n, nb = b->n, lim = na < nb ? na : nb;

	*head = equal_ahead(a->cls, b->cls, lim);
	*tail = equal_behind(a->cls + na, b->cls + nb, lim - *head);
}

/*
 * The n records of the ends at cls: one more in each side for each of
 * them whose class the middle has (the ends are the same on both sides).
 * With `seen`, a bit per class modulo MIDDLE_BITS that the middle sets,
 * the counts (megabytes of them) are read only for classes that may be
 * in the middle, not for every record of the ends.
 */
static void count_ends(struct pair *count, const uint32_t *cls, long n,
		       const uint64_t *seen)
{
	long i;

	for (i = 0; i < n; i++) {
		uint32_t x = cls[i] % MIDDLE_BITS;
		struct pair *p;

		if (seen && !(seen[x / 64] >> (x % 64) & 1))
			continue;
		p = &count[cls[i]];
		if (p->c[0] | p->c[1]) {
			p->c[0]++;
			p->c[1]++;
		}
	}
}

static void mark_middle(uint64_t *seen, const uint32_t *cls, long n)
{
	long i;

	for (i = 0; i < n; i++)
		seen[cls[i] % MIDDLE_BITS / 64] |= 1ull << (cls[i] % 64);
}

/*
 * Count the records of each class in each side, as xdiff does over all
 * of both (or take the counts back to 0). Only the counts of the classes
 * in the middle are ever read (by discard()), so the ends add only to
 * those: no count is written for the other classes of the ends, and
 * taking the counts back to 0 is a pass over the middle alone.
 */
static void count_classes(struct ctx *c, long head, long tail, bool add)
{
	const struct side *a = &c->s[0], *b = &c->s[1];
	struct pair *count = c->dict.count;
	long i, na = (long)a->n, ea = na - tail, eb = (long)b->n - tail;
	const uint64_t *seen = NULL;

	if (!add) {
		for (i = head; i < ea; i++)
			count[a->cls[i]] = (struct pair){ { 0, 0 } };
		for (i = head; i < eb; i++)
			count[b->cls[i]] = (struct pair){ { 0, 0 } };
		return;
	}
	for (i = head; i < ea; i++)
		count[a->cls[i]].c[0]++;
	for (i = head; i < eb; i++)
		count[b->cls[i]].c[1]++;
	/* A middle small next to the ends leaves most bits clear. */
	if (ea + eb - 2 * head < MIDDLE_BITS / 8 &&
	    head + tail > 4 * (ea + eb - 2 * head)) {
		memset(c->seen, 0, sizeof(c->seen));
		mark_middle(c->seen, a->cls + head, ea - head);
		mark_middle(c->seen, b->cls + head, eb - head);
		seen = c->seen;
	}
	count_ends(count, a->cls, head, seen);
	count_ends(count, a->cls + ea, tail, seen);
}

/* ---- discarding records that cannot match (xdl_cleanup_records) ------- */

/* xdiff's rough square root: a power of two, from sqrt(n) to twice that. */
static long rough_sqrt(long n)
{
	long r = 1;

	for (; n > 0; n >>= 2)
		r <<= 1;
	return r;
}

enum { NO_MATCH = 0, SOME_MATCH = 1, MANY_MATCH = 2 };

/*
 * A record with many matches is dropped too when it sits among records
 * without a match: both neighbouring runs (up to SCAN_WINDOW records, over
 * records without or with many matches) must contain some without, and
 * those must outnumber the others more than KEEP_RUN - 1 to 1.
 */
static bool drop_many_match(const unsigned char *kind, long i, long s,
			    long e)
{
	long r, none = 0, many = 1, none_after = 0;

	if (i - s > SCAN_WINDOW)
		s = i - SCAN_WINDOW;
	if (e - i > SCAN_WINDOW)
		e = i + SCAN_WINDOW;
	for (r = i - 1; r >= s && kind[r] != SOME_MATCH; r--) {
		if (kind[r] == NO_MATCH)
			none++;
		else
			many++;
	}
	if (!none)
		return false;
	many++;
	for (r = i + 1; r <= e && kind[r] != SOME_MATCH; r++) {
		if (kind[r] == NO_MATCH)
			none_after++;
		else
			many++;
	}
	if (!none_after)
		return false;
	none += none_after;
	return many * KEEP_RUN < many + none;
}

/*
 * Mark as changed the middle records [head, n - tail) that cannot or had
 * better not match, and list the others for Myers.
 */
static int discard(struct ctx *c, long head, long tail)
{
	int j;

	for (j = 0; j < 2; j++) {
		struct side *s = &c->s[j];
		long mid = (long)s->n - tail - head, limit, i;
		unsigned char *kind = reserve(&c->dis, (size_t)mid + 1);
		const struct pair *count = c->dict.count;
		const uint32_t *cls = s->cls + head;
		uint32_t *kept = s->kept, *kept_cls = s->kept_cls;
		unsigned char *chg = s->chg + head;
		long nkept = 0;

		if (!kind)
			return -1;
		limit = rough_sqrt(s->n);
		if (limit > EQ_LIMIT)
			limit = EQ_LIMIT;
		/* NO_MATCH, SOME_MATCH or MANY_MATCH: 0, 1 or 2 (limit > 0). */
		for (i = 0; i < mid; i++) {
			uint32_t m = count[cls[i]].c[!j];

			kind[i] = (unsigned char)((m != 0) + (m >= limit));
		}
		for (i = 0; i < mid; i++) {
			if (kind[i] == SOME_MATCH ||
			    (kind[i] == MANY_MATCH &&
			     !drop_many_match(kind, i, 0, mid - 1))) {
				kept[nkept] = (uint32_t)(head + i);
				kept_cls[nkept++] = cls[i];
			} else {
				chg[i] = 1;
			}
		}
		s->nkept = nkept;
	}
	return 0;
}

/* ---- Myers' divide and conquer (xdl_recs_cmp, xdl_split) ------------- */

struct myers {
	const uint32_t *h1, *h2;        /* classes of the kept records */
	int32_t *fwd, *bwd;             /* furthest x per diagonal */
	long max_cost;
};

/* A sub-problem: kept records [off1, lim1) against [off2, lim2). */
struct box {
	long off1, lim1, off2, lim2;
	int minimal;                    /* no heuristics in here */
};

/* Where to cut a box, and whether each half must be solved minimally. */
struct cut {
	long x, y;
	int min_lo, min_hi;
};

static void set_cut(struct cut *k, long x, long y, int lo, int hi)
{
	k->x = x;
	k->y = y;
	k->min_lo = lo;
	k->min_hi = hi;
}

/*
 * Sample the forward diagonals for one that got far and ends in a snake
 * of SNAKE_LEN; returns whether one was found.
 */
static bool good_forward(const struct myers *m, const struct box *b,
			 long dlo, long dhi, long mid, long cost,
			 struct cut *k)
{
	long best = 0, d, x, y, v, i;

	for (d = dhi; d >= dlo; d -= 2) {
		x = m->fwd[d];
		y = x - d;
		v = (x - b->off1) + (y - b->off2) - (d > mid ? d - mid : mid - d);
		if (v <= K_HEUR * cost || v <= best ||
		    x < b->off1 + SNAKE_LEN || x >= b->lim1 ||
		    y < b->off2 + SNAKE_LEN || y >= b->lim2)
			continue;
		for (i = 1; i <= SNAKE_LEN && m->h1[x - i] == m->h2[y - i]; i++)
			;
		if (i > SNAKE_LEN) {
			best = v;
			set_cut(k, x, y, 1, 0);
		}
	}
	return best > 0;
}

static bool good_backward(const struct myers *m, const struct box *b,
			  long dlo, long dhi, long mid, long cost,
			  struct cut *k)
{
	long best = 0, d, x, y, v, i;

	for (d = dhi; d >= dlo; d -= 2) {
		x = m->bwd[d];
		y = x - d;
		v = (b->lim1 - x) + (b->lim2 - y) - (d > mid ? d - mid : mid - d);
		if (v <= K_HEUR * cost || v <= best ||
		    x <= b->off1 || x > b->lim1 - SNAKE_LEN ||
		    y <= b->off2 || y > b->lim2 - SNAKE_LEN)
			continue;
		for (i = 0; i < SNAKE_LEN && m->h1[x + i] == m->h2[y + i]; i++)
			;
		if (i == SNAKE_LEN) {
			best = v;
			set_cut(k, x, y, 0, 1);
		}
	}
	return best > 0;
}

/* Too expensive: cut where either search got furthest (x + y). */
static void give_up(const struct myers *m, const struct box *b, long flo,
		    long fhi, long blo, long bhi, struct cut *k)
{
	long fbest = -1, fx = -1, bbest = LONG_MAX, bx = LONG_MAX, d, x, y;

	for (d = fhi; d >= flo; d -= 2) {
		x = m->fwd[d] < b->lim1 ? m->fwd[d] : b->lim1;
		y = x - d;
		if (y > b->lim2) {
			x = b->lim2 + d;
			y = b->lim2;
		}
		if (x + y > fbest) {
			fbest = x + y;
			fx = x;
		}
	}
	for (d = bhi; d >= blo; d -= 2) {
		x = m->bwd[d] > b->off1 ? m->bwd[d] : b->off1;
		y = x - d;
		if (y < b->off2) {
			x = b->off2 + d;
			y = b->off2;
		}
		if (x + y < bbest) {
			bbest = x + y;
			bx = x;
		}
	}
	if ((b->lim1 + b->lim2) - bbest < fbest - (b->off1 + b->off2))
		set_cut(k, fx, fbest - fx, 1, 0);
	else
		set_cut(k, bx, bbest - bx, 0, 1);
}

/*
 * Find where to cut the box: where the forward search from its top left
 * and the backward one from its bottom right meet, or, on a big box, a
 * point that looks good enough.
 */
static void find_cut(const struct myers *m, const struct box *b,
		     struct cut *k)
{
	const uint32_t *h1 = m->h1, *h2 = m->h2;
	int32_t *fwd = m->fwd, *bwd = m->bwd;
	const long dmin = b->off1 - b->lim2, dmax = b->lim1 - b->off2;
	const long fmid = b->off1 - b->off2, bmid = b->lim1 - b->lim2;
	const bool odd = (fmid - bmid) & 1;
	long flo = fmid, fhi = fmid, blo = bmid, bhi = bmid;
	long cost, d, x, y, x0;

	fwd[fmid] = (int32_t)b->off1;
	bwd[bmid] = (int32_t)b->lim1;
	for (cost = 1;; cost++) {
		bool snake = false;

		/* Widen the band by one, or narrow it at the box's edge. */
		if (flo > dmin)
			fwd[--flo - 1] = -1;
		else
			flo++;
		if (fhi < dmax)
			fwd[++fhi + 1] = -1;
		else
			fhi--;
		for (d = fhi; d >= flo; d -= 2) {
			x = fwd[d - 1] >= fwd[d + 1] ? fwd[d - 1] + 1 :
						       fwd[d + 1];
			y = x - d;
			x0 = equal_ahead(h1 + x, h2 + y, b->lim1 - x < b->lim2 - y ?
						      b->lim1 - x : b->lim2 - y);
			x += x0;
			y += x0;
			if (x0 > SNAKE_LEN)
				snake = true;
			fwd[d] = (int32_t)x;
			if (odd && blo <= d && d <= bhi && bwd[d] <= x) {
				set_cut(k, x, y, 1, 1);
				return;
			}
		}

		if (blo > dmin)
			bwd[--blo - 1] = INT32_MAX;
		else
			blo++;
		if (bhi < dmax)
			bwd[++bhi + 1] = INT32_MAX;
		else
			bhi--;
		for (d = bhi; d >= blo; d -= 2) {
			x = bwd[d - 1] < bwd[d + 1] ? bwd[d - 1] :
						      bwd[d + 1] - 1;
			y = x - d;
			x0 = equal_behind(h1 + x, h2 + y, x - b->off1 < y - b->off2 ?
						       x - b->off1 : y - b->off2);
			x -= x0;
			y -= x0;
			if (x0 > SNAKE_LEN)
				snake = true;
			bwd[d] = (int32_t)x;
			if (!odd && flo <= d && d <= fhi && x <= fwd[d]) {
				set_cut(k, x, y, 1, 1);
				return;
			}
		}

		if (b->minimal)
			continue;
		if (snake && cost > HEUR_MIN_COST) {
			if (good_forward(m, b, flo, fhi, fmid, cost, k) ||
			    good_backward(m, b, blo, bhi, bmid, cost, k))
				return;
		}
		if (cost >= m->max_cost) {
			give_up(m, b, flo, fhi, blo, bhi, k);
			return;
		}
	}
}

static void mark_kept(struct side *s, long from, long to)
{
	for (; from < to; from++)
		s->chg[s->kept[from]] = 1;
}

static int myers(struct ctx *c)
{
	struct side *a = &c->s[0], *b = &c->s[1];
	long ndiags = a->nkept + b->nkept + 3, depth = 0, cap;
	struct myers m;
	struct box *todo;
	int32_t *kv;

	kv = reserve(&c->kv, (size_t)(2 * ndiags + 2) * sizeof(*kv));
	todo = reserve(&c->todo, 64 * sizeof(*todo));
	if (!kv || !todo)
		return -1;
	cap = (long)(c->todo.cap / sizeof(*todo));
	m.h1 = a->kept_cls;
	m.h2 = b->kept_cls;
	m.fwd = kv + b->nkept + 1;
	m.bwd = kv + ndiags + b->nkept + 1;
	m.max_cost = rough_sqrt(ndiags);
	if (m.max_cost < MIN_MAX_COST)
		m.max_cost = MIN_MAX_COST;

	todo[depth++] = (struct box){ 0, a->nkept, 0, b->nkept, 0 };
	while (depth) {
		struct box x = todo[--depth];
		struct cut k;
		long eq, e1;

		/* Equal records at both corners need no search. */
		eq = x.lim1 - x.off1 < x.lim2 - x.off2 ? x.lim1 - x.off1
						       : x.lim2 - x.off2;
		e1 = equal_ahead(m.h1 + x.off1, m.h2 + x.off2, eq);
		x.off1 += e1;
		x.off2 += e1;
		e1 = equal_behind(m.h1 + x.lim1, m.h2 + x.lim2, eq - e1);
		x.lim1 -= e1;
		x.lim2 -= e1;
		if (x.off1 == x.lim1) {
			mark_kept(b, x.off2, x.lim2);
			continue;
		}
		if (x.off2 == x.lim2) {
			mark_kept(a, x.off1, x.lim1);
			continue;
		}
		find_cut(&m, &x, &k);
		if (depth + 2 > cap) {
			todo = reserve(&c->todo,
				       (size_t)(depth + 2) * sizeof(*todo));
			if (!todo)
				return -1;
			cap = (long)(c->todo.cap / sizeof(*todo));
		}
		todo[depth++] = (struct box){ k.x, x.lim1, k.y, x.lim2,
					      k.min_hi };
		todo[depth++] = (struct box){ x.off1, k.x, x.off2, k.y,
					      k.min_lo };
	}
	return 0;
}

/* ---- sliding change groups (xdl_change_compact) ---------------------- */

/*
 * A group: the changed records [start, end) of a side, possibly none; end
 * is the unchanged record after it (or n). The groups of both sides pair
 * up one to one, the k-th ending at each side's k-th unchanged record.
 */
struct group {
	long start, end;
};

static void group_at(const struct side *s, long at, struct group *g)
{
	g->start = g->end = at;
	while (s->chg[g->end])
		g->end++;
}

static bool group_next(const struct side *s, struct group *g)
{
	if (g->end == (long)s->n)
		return false;
	group_at(s, g->end + 1, g);
	return true;
}

static bool group_prev(const struct side *s, struct group *g)
{
	if (g->start == 0)
		return false;
	g->end = g->start - 1;
	g->start = g->end;
	while (s->chg[g->start - 1])
		g->start--;
	return true;
}

/* Move g down one record if it can, merging with a group it touches. */
static bool slide_down(struct side *s, struct group *g)
{
	if (g->end >= (long)s->n || s->cls[g->start] != s->cls[g->end])
		return false;
	s->chg[g->start++] = 0;
	s->chg[g->end++] = 1;
	while (s->chg[g->end])
		g->end++;
	return true;
}

static bool slide_up(struct side *s, struct group *g)
{
	if (g->start == 0 || s->cls[g->start - 1] != s->cls[g->end - 1])
		return false;
	s->chg[--g->start] = 1;
	s->chg[--g->end] = 0;
	while (s->chg[g->start - 1])
		g->start--;
	return true;
}

/* Indentation of a record (tabs to 8), or -1 when it is all whitespace. */
static int indent_of(const struct side *s, long i)
{
	const unsigned char *p = rec_ptr(s, i);
	uint32_t n = rec_len(s, i), k;
	int col = 0;

	for (k = 0; k < n; k++) {
		if (!is_space[p[k]])
			return col;
		if (p[k] == ' ')
			col++;
		else if (p[k] == '\t')
			col += 8 - col % 8;
		if (col >= MAX_INDENT)
			return MAX_INDENT;
	}
	return -1;
}

/* What the indent heuristic looks at around a split above record `at`. */
struct split_view {
	bool at_end;            /* no record after the split */
	int indent;             /* of the record after it, -1 if blank */
	int blanks_before;
	int indent_before;      /* nearest non-blank above, -1 if none */
	int blanks_after;       /* blank records after the one after it */
	int indent_after;       /* nearest non-blank below that, -1 if none */
};

static void view_split(const struct side *s, long at, struct split_view *v)
{
	long i;

	v->at_end = at >= (long)s->n;
	v->indent = v->at_end ? -1 : indent_of(s, at);
	v->blanks_before = 0;
	v->indent_before = -1;
	for (i = at - 1; i >= 0; i--) {
		v->indent_before = indent_of(s, i);
		if (v->indent_before != -1)
			break;
		if (++v->blanks_before == MAX_BLANKS) {
			v->indent_before = 0;
			break;
		}
	}
	v->blanks_after = 0;
	v->indent_after = -1;
	for (i = at + 1; i < (long)s->n; i++) {
		v->indent_after = indent_of(s, i);
		if (v->indent_after != -1)
			break;
		if (++v->blanks_after == MAX_BLANKS) {
			v->indent_after = 0;
			break;
		}
	}
}

struct split_score {
	int indent;             /* sum of effective indents, lower wins */
	int penalty;            /* lower wins */
};

static void score_split(const struct split_view *v, struct split_score *sc)
{
	int after = v->indent == -1 ? 1 + v->blanks_after : 0;
	int blanks = v->blanks_before + after;
	int indent = v->indent != -1 ? v->indent : v->indent_after;

	if (v->indent_before == -1 && v->blanks_before == 0)
		sc->penalty += START_OF_FILE_PENALTY;
	if (v->at_end)
		sc->penalty += END_OF_FILE_PENALTY;
	sc->penalty += TOTAL_BLANK_WEIGHT * blanks + POST_BLANK_WEIGHT * after;
	sc->indent += indent;
	if (indent == -1 || v->indent_before == -1 ||
	    indent == v->indent_before)
		return;
	if (indent > v->indent_before)
		sc->penalty += blanks ? RELATIVE_INDENT_WITH_BLANK_PENALTY :
					RELATIVE_INDENT_PENALTY;
	else if (v->indent_after != -1 && v->indent_after > indent)
		sc->penalty += blanks ? RELATIVE_OUTDENT_WITH_BLANK_PENALTY :
					RELATIVE_OUTDENT_PENALTY;
	else
		sc->penalty += blanks ? RELATIVE_DEDENT_WITH_BLANK_PENALTY :
					RELATIVE_DEDENT_PENALTY;
}

/* Negative when x is the better split, 0 when as good. */
static int score_cmp(const struct split_score *x, const struct split_score *y)
{
	int sign = (x->indent > y->indent) - (x->indent < y->indent);

	return INDENT_WEIGHT * sign + (x->penalty - y->penalty);
}

/* Where, among the places g can slide up to, the indent heuristic puts g. */
static long best_end(const struct side *s, const struct group *g,
		     long earliest_end)
{
	long size = g->end - g->start, at, best = -1;
	struct split_score top = { 0, 0 };

	at = earliest_end;
	if (g->end - size - 1 > at)
		at = g->end - size - 1;
	if (g->end - MAX_SLIDING > at)
		at = g->end - MAX_SLIDING;
	for (; at <= g->end; at++) {
		struct split_score sc = { 0, 0 };
		struct split_view v;

		view_split(s, at, &v);
		score_split(&v, &sc);
		view_split(s, at - size, &v);
		score_split(&v, &sc);
		if (best == -1 || score_cmp(&sc, &top) <= 0) {
			top = sc;
			best = at;
		}
	}
	return best;
}

/* How many records from `at` on are unchanged. */
static long unchanged_run(const struct side *s, long at)
{
	const unsigned char *p;

	if (at >= (long)s->n)
		return 0;
	p = memchr(s->chg + at, 1, s->n - (size_t)at);
	return p ? p - (s->chg + at) : (long)s->n - at;
}

/*
 * Slide every group of side x as far up and down as it goes, merging what
 * it meets, then settle it: against a group of the other side if it can
 * face one, else where the indent heuristic likes it best. The groups of
 * the other side move in step. Only the span that can hold changes is
 * walked; before it both sides are unchanged, so groups pair up by index.
 */
static void compact(struct ctx *c, int x)
{
	struct side *s = &c->s[x], *o = &c->s[!x];
	long from = s->lo < o->lo ? s->lo : o->lo, last = s->hi;
	struct group g, go;

	if (s->lo >= s->hi)
		return;
	group_at(s, from, &g);
	group_at(o, from, &go);
	for (;;) {
		if (g.end != g.start) {
			long size, earliest_end, facing;

			do {
				size = g.end - g.start;
				facing = -1;
				while (slide_up(s, &g))
					group_prev(o, &go);
				earliest_end = g.end;
				if (go.end > go.start)
					facing = g.end;
				while (slide_down(s, &g)) {
					group_next(o, &go);
					if (go.end > go.start)
						facing = g.end;
				}
			} while (size != g.end - g.start);

			if (g.end == earliest_end) {
				/* It cannot move. */
			} else if (facing != -1) {
				while (go.end == go.start) {
					slide_up(s, &g);
					group_prev(o, &go);
				}
			} else {
				long to = best_end(s, &g, earliest_end);

				while (g.end > to) {
					slide_up(s, &g);
					group_prev(o, &go);
				}
			}
			if (g.start < s->lo)
				s->lo = g.start;
			if (g.end > s->hi)
				s->hi = g.end;
		}
		/* Nothing changed lies after this group any more. */
		if (g.end + 1 >= last)
			break;
		if (g.end < (long)s->n && go.end < (long)o->n) {
			/* Groups empty on both sides: pass them at once. */
			long m = unchanged_run(s, g.end + 1);
			long mo = unchanged_run(o, go.end + 1);

			if (mo < m)
				m = mo;
			g.start = g.end += m;
			go.start = go.end += m;
			if (g.end + 1 >= last)
				break;
		}
		if (!group_next(s, &g))
			break;
		group_next(o, &go);
	}
}

/* ---- hunks ------------------------------------------------------------ */

static int push_hunk(struct diff_result *r, long i, long ni, long j,
		     long nj)
{
	struct diff_hunk *d;

	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 16;
		void *p = realloc(r->hunks, na * sizeof(*r->hunks));

		if (!p)
			return -1;
		r->hunks = p;
		r->alloc = na;
	}
	d = &r->hunks[r->n++];
	d->old_start = (uint32_t)i;
	d->old_count = (uint32_t)ni;
	d->new_start = (uint32_t)j;
	d->new_count = (uint32_t)nj;
	return 0;
}

/* Pair the unchanged records off; what lies between them is a hunk. */
static int emit(struct ctx *c, struct diff_result *out)
{
	struct side *a = &c->s[0], *b = &c->s[1];
	long i = a->lo < b->lo ? a->lo : b->lo, j = i;

	while (i < a->hi || j < b->hi) {
		if (a->chg[i] || b->chg[j]) {
			long i0 = i, j0 = j;

			while (a->chg[i])
				i++;
			while (b->chg[j])
				j++;
			if (push_hunk(out, i0, i - i0, j0, j - j0) < 0)
				return -1;
		} else if (i < (long)a->n && j < (long)b->n) {
			long m = unchanged_run(a, i), mb = unchanged_run(b, j);

			m = m < mb ? m : mb;
			i += m;
			j += m;
		} else {
			break;
		}
	}
	return 0;
}

/* ---- the whole diff --------------------------------------------------- */

/* The tables of both blobs: found, copied from the other's, or made. */
static int tables(struct ctx *c, const struct diff_blob *A,
		  const struct diff_blob *B, size_t same, struct table **ta,
		  struct table **tb)
{
	const unsigned char *abuf = (const unsigned char *)A->data;
	const unsigned char *bbuf = (const unsigned char *)B->data;
	struct known k;

	*ta = table_find(c, A->key, A->len);
	*tb = table_find(c, B->key, B->len);
	if (!*ta && !*tb) {
		*ta = table_take(c, A->key, A->len, NULL);
		if (table_build(c, *ta, abuf, A->len) < 0)
			goto fail;
	}
	if (!*ta) {
		k.t = *tb;
		k.buf = bbuf;
		*ta = table_take(c, A->key, A->len, *tb);
		if (table_copy(c, *ta, abuf, A->len, &k, same) < 0)
			goto fail;
	}
	if (!*tb) {
		k.t = *ta;
		k.buf = abuf;
		*tb = table_take(c, B->key, B->len, *ta);
		if (table_copy(c, *tb, bbuf, B->len, &k, same) < 0)
			goto fail;
	}
	return 0;
fail:
	/* A table half made is no table. */
	if (*ta)
		(*ta)->used = 0;
	if (*tb)
		(*tb)->used = 0;
	return error_oom();
}

/*
 * The diff of the first alen and blen bytes of the blobs of tables ta and
 * tb, whose bytes are abuf and bbuf (NULL: the dictionary's).
 */
static int diff_tables(struct ctx *c, struct diff_result *out,
		       const struct table *ta, const struct table *tb,
		       const unsigned char *abuf, const unsigned char *bbuf,
		       size_t alen, size_t blen)
{
	long head, tail;
	int rc;

	if ((rc = side_view(c, 0, ta, abuf, alen)) < 0 ||
	    (rc = side_view(c, 1, tb, bbuf, blen)) < 0)
		return rc;
	trim_ends(c, &head, &tail);
	c->s[0].lo = c->s[1].lo = head;
	c->s[0].hi = (long)c->s[0].n - tail;
	c->s[1].hi = (long)c->s[1].n - tail;
	if (c->s[0].lo == c->s[0].hi || c->s[1].lo == c->s[1].hi) {
		/*
		 * Lines only added or only taken away: with one side empty,
		 * xdl_recs_cmp marks all of the other changed, whatever the
		 * counts and discards would have said. Skip them.
		 */
		for (int j = 0; j < 2; j++)
			memset(c->s[j].chg + head, 1,
			       (size_t)(c->s[j].hi - head));
	} else {
		count_classes(c, head, tail, true);
		if (discard(c, head, tail) < 0 || myers(c) < 0)
			rc = error_oom();
		count_classes(c, head, tail, false);
		if (rc < 0)
			return rc;
	}
	compact(c, 0);
	compact(c, 1);
	if (emit(c, out) < 0)
		rc = error_oom();
	return rc;
}

static int run(struct ctx *c, struct diff_result *out,
	       const struct diff_blob *A, const struct diff_blob *B,
	       size_t same, size_t alen, size_t blen)
{
	struct table *ta, *tb;
	int rc;

	if ((rc = tables(c, A, B, same, &ta, &tb)) < 0)
		return rc;
	return diff_tables(c, out, ta, tb, (const unsigned char *)A->data,
			   (const unsigned char *)B->data, alen, blen);
}

int diff_blobs(struct diff_result *out, const struct diff_blob *a,
	       const struct diff_blob *b, unsigned flags)
{
	struct diff_blob A = *a, B = *b;
	size_t alen = a->len, blen = b->len, same;
	struct ctx *c;
	int rc;

	out->n = 0;
	if (A.len > MAX_SIDE || B.len > MAX_SIDE)
		return error_set("unable to diff two blobs: files too large "
				 "for diff");
	if (!A.len)
		A.data = "";
	if (!B.len)
		B.data = "";
	same = common_tail((const unsigned char *)A.data, alen,
			   (const unsigned char *)B.data, blen,
			   alen < blen ? alen : blen);
	if (same == alen && same == blen)
		return 0;
	trim_tail(&alen, &blen, A.data, same);
	if (!(c = ctx_get()))
		return error_oom();
	dict_start(c, (flags & DIFF_IGNORE_WHITESPACE) != 0);
	rc = run(c, out, &A, &B, same, alen, blen);
	ctx_put(c);
	if (rc < 0)
		out->n = 0;
	return rc;
}

int diff_buffers(struct diff_result *out, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags)
{
	struct diff_blob A = { a, alen, NULL }, B = { b, blen, NULL };

	return diff_blobs(out, &A, &B, flags);
}

/* ---- diffing stored blobs --------------------------------------------- */

/* The length of the common tail of the blobs of tables a and b. */
static size_t tables_tail(const struct dict *d, const struct table *a,
			  const struct table *b)
{
	long i = (long)a->n, j = (long)b->n, k;
	size_t same, ka, kb;

	k = equal_behind(a->id + i, b->id + j, i < j ? i : j);
	i -= k;
	j -= k;
	same = a->len - a->off[i];
	/* Then byte by byte, from the ends of the first lines that differ. */
	if (!i || !j)
		return same;
	i--;
	j--;
	ka = a->off[i + 1] - a->off[i];
	kb = b->off[j + 1] - b->off[j];
	for (;;) {
		if (!ka) {
			if (--i < 0)
				break;
			ka = a->off[i + 1] - a->off[i];
		}
		if (!kb) {
			if (--j < 0)
				break;
			kb = b->off[j + 1] - b->off[j];
		}
		if (line_text(d, a, i)[ka - 1] != line_text(d, b, j)[kb - 1])
			break;
		ka--;
		kb--;
		same++;
	}
	return same;
}

/*
 * trim_tail() on tables: the length that is left of a (a's whole first
 * lines), given their common tail.
 */
static size_t tables_trim(const struct table *a, size_t same)
{
	size_t cut = same / 1024 * 1024;
	long k;

	if (!cut)
		return a->len;
	/* The line that holds the first byte cut, kept whole. */
	k = first_start_from(a->off, 0, (long)a->n + 1, a->len - cut + 1) - 1;
	return a->off[k + 1];
}

int diff_stored(struct diff_result *out, struct odb *db, git_repository *git,
		const git_oid *a, const git_oid *b, uint32_t *alines,
		uint32_t *blines)
{
	struct table *ta, *tb;
	size_t same, alen, blen;
	struct ctx *c;
	int rc;

	out->n = 0;
	if (!(c = ctx_get()))
		return error_oom();
	dict_start(c, false);
	if ((rc = stored_table(c, db, git, a, NULL, &ta)) < 0)
		goto done;
	ta->pins++;
	rc = stored_table(c, db, git, b, ta, &tb);
	ta->pins--;
	if (rc < 0)
		goto done;
	if (alines)
		*alines = ta->n;
	if (blines)
		*blines = tb->n;
	same = tables_tail(&c->dict, ta, tb);
	if (same == ta->len && same == tb->len)
		goto done;
	alen = tables_trim(ta, same);
	blen = tb->len - (ta->len - alen);
	rc = diff_tables(c, out, ta, tb, NULL, NULL, alen, blen);
done:
	ctx_put(c);
	if (rc < 0)
		out->n = 0;
	return rc;
}

int diff_stored_lines(uint32_t *out, struct odb *db, git_repository *git,
		      const git_oid *oid)
{
	struct table *t;
	struct ctx *c;
	int rc;

	if (!(c = ctx_get()))
		return error_oom();
	dict_start(c, false);
	if ((rc = stored_table(c, db, git, oid, NULL, &t)) == 0)
		*out = t->n;
	ctx_put(c);
	return rc;
}

void diff_result_release(struct diff_result *r)
{
	free(r->hunks);
	r->hunks = NULL;
	r->n = r->alloc = 0;
}

uint32_t diff_count_lines(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, n = 0;

#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

	while (i + 16 <= len) {
		/* Byte counters, summed before any can pass 255. */
		__m128i acc = zero, sum;
		int k;

		for (k = 0; k < 255 && i + 16 <= len; k++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(
				_mm_loadu_si128((const __m128i *)(p + i)), nl));
		sum = _mm_sad_epu8(acc, zero);
		n += (size_t)_mm_cvtsi128_si32(sum) +
		     (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
	}
#endif
	for (; i < len; i++)
		n += p[i] == '\n';
	if (len && p[len - 1] != '\n')
		n++;
	return (uint32_t)n;
}
