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

/*
 * Our own implementation of the line diff in git 2.39's xdiff (the same
 * one libgit2 1.5 bundles): classify records, trim equal ends, discard
 * records that cannot match, Myers' divide and conquer with xdiff's cost
 * heuristics, then slide the change groups with the indent heuristic.
 * Every rule and constant below is xdiff's; the data structures are not.
 * Hunks must come out exactly as git's would, so any change here has to
 * pass tests/t-diff-unit.sh, which diffs real histories both ways.
 */

/* libgit2 refuses larger buffers ("files too large for diff"). */
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

struct class_info {
	uint64_t hash;
	const unsigned char *ptr;
	uint32_t len;
	uint32_t first_a;       /* first record of a in it, or NO_CLASS */
};

/* One of the two buffers being compared. */
struct side {
	const unsigned char *buf;
	size_t len;
	uint32_t n;             /* records */
	uint32_t *off;          /* n + 1 starts, off[n] == len */
	uint32_t *cls;          /* class of each record, or NO_CLASS */
	unsigned char *chg;     /* changed flags; chg[-1] and chg[n] are 0 */
	uint32_t *kept;         /* records that go through Myers */
	uint32_t *kept_cls;
	long nkept;
	/* Every changed record lies in [lo, hi). */
	long lo, hi;
};

/* Everything one call needs, reused by the next call on the thread. */
struct ctx {
	struct side s[2];
	bool ws;                /* -w: records compare without whitespace */
	struct buf off[2], cls[2], chg[2], kept[2], kept_cls[2];
	struct buf slots, classes, counts[2], dis, kv, todo, keymap, hashes;
	uint32_t *slot;
	uint32_t slot_mask;
	int slot_shift;
	struct class_info *class;
	uint32_t *count[2];     /* records of each class in each side */
	uint32_t nclass, class_cap;
	bool oom;
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

/* The buffers of a context, into all[]; returns how many. */
static size_t ctx_bufs(struct ctx *c, struct buf **all)
{
	struct buf *list[] = {
		&c->off[0], &c->off[1], &c->cls[0], &c->cls[1], &c->chg[0],
		&c->chg[1], &c->kept[0], &c->kept[1], &c->kept_cls[0],
		&c->kept_cls[1], &c->slots, &c->classes, &c->counts[0],
		&c->counts[1], &c->dis, &c->kv, &c->todo, &c->keymap,
		&c->hashes
	};

	memcpy(all, list, sizeof(list));
	return sizeof(list) / sizeof(*list);
}

#define CTX_BUFS 19

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
	free(c);
}

/*
 * Big diffs should not pin their memory for the life of the thread: past
 * this much, the buffers go back after the call.
 */
#define KEEP_BYTES ((size_t)16 << 20)

static size_t ctx_bytes(struct ctx *c)
{
	struct buf *all[CTX_BUFS];
	size_t i, n = ctx_bufs(c, all), bytes = 0;

	for (i = 0; i < n; i++)
		bytes += all[i]->cap;
	return bytes;
}

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
		if (ctx_mine && ctx_key_ok)
			pthread_setspecific(ctx_key, ctx_mine);
	}
	return ctx_mine;
}

static void ctx_put(struct ctx *c)
{
	if (ctx_bytes(c) <= KEEP_BYTES)
		return;
	if (ctx_key_ok)
		pthread_setspecific(ctx_key, NULL);
	ctx_free(c);
	ctx_mine = NULL;
}

/*
 * git's xdiff interface drops the common tail of both buffers before
 * diffing: whole 1 KiB blocks, then it gives back bytes up to and including
 * the first newline so that only complete lines are dropped. Which of two
 * identical lines gets blamed depends on this, so we do the same.
 */
static void trim_tail(size_t *alen, size_t *blen, const char *a,
		      const char *b)
{
	const size_t blk = 1024;
	size_t smaller = *alen < *blen ? *alen : *blen;
	size_t cut = 0, back = 0;

	while (cut + blk <= smaller &&
	       !memcmp(a + *alen - cut - blk, b + *blen - cut - blk, blk))
		cut += blk;
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

/* ---- records and classes ---------------------------------------------- */

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
 * Any hash will do as long as equal records get equal hashes: classes are
 * settled by comparing the bytes. `end` bounds the buffer p is in.
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

	if (n > 16)
		return !memcmp(a, b, n);
	if (n >= 8)
		return load64(a) == load64(b) &&
		       load64(a + n - 8) == load64(b + n - 8);
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* With -w, a record is the sequence of its non-whitespace bytes. */
static uint64_t hash_no_space(const unsigned char *p, size_t n)
{
	unsigned char blk[32];
	uint64_t h = K2, total = 0;
	size_t i = 0, k = 0, j;

	for (;;) {
#ifdef __SSE2__
		/* Whole chunks without whitespace go in at once. */
		for (; i + 16 <= n; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(p + i));

			if (_mm_movemask_epi8(space_mask(v)))
				break;
			memcpy(blk + k, p + i, 16);
			h = mum(load64(blk) ^ K1, load64(blk + 8) ^ h);
			total += 16;
			memcpy(blk, blk + 16, 16);
		}
#endif
		if (i == n)
			break;
		for (j = i + 16 < n ? i + 16 : n; i < j; i++) {
			blk[k] = p[i];
			k += !is_space[p[i]];
			if (k == 16) {
				h = mum(load64(blk) ^ K1, load64(blk + 8) ^ h);
				total += 16;
				k = 0;
			}
		}
	}
	for (j = k; j < 16; j++)
		blk[j] = 0;
	h = mum(load64(blk) ^ K1, load64(blk + 8) ^ h);
	return mum(h ^ K2, (total + k) ^ K0);
}

/*
 * The sum of the non-whitespace bytes of a record: equal for records
 * equal under -w, so a cheap first test. `end` bounds the buffer.
 */
static uint32_t sum_no_space(const unsigned char *p, size_t n,
			     const unsigned char *end)
{
	uint32_t sum = 0;
	size_t i = 0;

#ifdef __SSE2__
	const __m128i zero = _mm_setzero_si128();
	__m128i acc = zero;

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));

		acc = _mm_add_epi64(acc, _mm_sad_epu8(
			_mm_andnot_si128(space_mask(v), v), zero));
	}
	if (i < n && end - (p + i) >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i));
		__m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
					    10, 11, 12, 13, 14, 15);
		__m128i in = _mm_cmplt_epi8(idx, _mm_set1_epi8((char)(n - i)));

		v = _mm_and_si128(in, _mm_andnot_si128(space_mask(v), v));
		acc = _mm_add_epi64(acc, _mm_sad_epu8(v, zero));
		i = n;
	}
	sum = (uint32_t)_mm_cvtsi128_si32(acc) +
	      (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(acc, 8));
#else
	(void)end;
#endif
	for (; i < n; i++)
		sum += is_space[p[i]] ? 0 : p[i];
	return sum;
}

static bool same_no_space(const unsigned char *a, size_t an,
			  const unsigned char *b, size_t bn)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < an && is_space[a[i]])
			i++;
		while (j < bn && is_space[b[j]])
			j++;
		if (i == an || j == bn)
			return i == an && j == bn;
		if (a[i++] != b[j++])
			return false;
	}
}

static inline const unsigned char *rec_ptr(const struct side *s, long i)
{
	return s->buf + s->off[i];
}

static inline uint32_t rec_len(const struct side *s, long i)
{
	return s->off[i + 1] - s->off[i];
}

static inline bool same_text(const struct ctx *c, const unsigned char *a,
			     uint32_t an, const unsigned char *b, uint32_t bn)
{
	if (an == bn && same_bytes(a, b, an))
		return true;
	return c->ws && same_no_space(a, an, b, bn);
}

/* Are record i of side s and record j of side t in one class? */
static inline bool same_recs(const struct ctx *c, const struct side *s,
			     long i, const struct side *t, long j)
{
	if (s->cls[i] != NO_CLASS && t->cls[j] != NO_CLASS)
		return s->cls[i] == t->cls[j];
	return same_text(c, rec_ptr(s, i), rec_len(s, i), rec_ptr(t, j),
			 rec_len(t, j));
}

static inline bool same_rec(const struct ctx *c, const struct side *s,
			    long i, long j)
{
	return same_recs(c, s, i, s, j);
}

static inline uint64_t rec_hash(const struct ctx *c, const struct side *s,
				long i)
{
	if (c->ws)
		return hash_no_space(rec_ptr(s, i), rec_len(s, i));
	return hash_bytes(rec_ptr(s, i), rec_len(s, i), s->buf + s->len);
}

/* ---- the class table -------------------------------------------------- */

/* Make the slots fit the classes there are room for, and fill them in. */
static int classes_rehash(struct ctx *c)
{
	size_t cap = 64, i;
	int bits = 6;

	while (cap < 2 * (size_t)c->class_cap) {
		cap *= 2;
		bits++;
	}
	c->slot = reserve(&c->slots, cap * sizeof(*c->slot));
	if (!c->slot)
		return -1;
	memset(c->slot, 0, cap * sizeof(*c->slot));
	c->slot_mask = (uint32_t)(cap - 1);
	c->slot_shift = 64 - bits;
	for (i = 0; i < c->nclass; i++) {
		uint32_t at = (uint32_t)(c->class[i].hash >> c->slot_shift);

		while (c->slot[at])
			at = (at + 1) & c->slot_mask;
		c->slot[at] = (uint32_t)i + 1;
	}
	return 0;
}

static int classes_room(struct ctx *c)
{
	size_t n = c->class_cap;

	c->class = reserve(&c->classes, n * sizeof(*c->class));
	c->count[0] = reserve(&c->counts[0], n * sizeof(uint32_t));
	c->count[1] = reserve(&c->counts[1], n * sizeof(uint32_t));
	if (!c->class || !c->count[0] || !c->count[1])
		return -1;
	return classes_rehash(c);
}

/* An empty class table, with room for about n classes to start with. */
static int classes_init(struct ctx *c, size_t n)
{
	c->nclass = 0;
	c->class_cap = (uint32_t)(n + 16);
	return classes_room(c);
}

static int classes_grow(struct ctx *c)
{
	c->class_cap *= 2;
	return classes_room(c);
}

/*
 * The class of record i of side `which`, whose hash is h. A record of no
 * known class starts a new one when `add` is set, and gets NO_CLASS
 * otherwise (or on running out of memory, which c->oom then says).
 */
static uint32_t find_class(struct ctx *c, int which, long i, uint64_t h,
			   bool add)
{
	const struct side *s = &c->s[which];
	const unsigned char *p = rec_ptr(s, i);
	uint32_t len = rec_len(s, i);
	uint32_t at = (uint32_t)(h >> c->slot_shift), id;
	struct class_info *k;

	for (; c->slot[at]; at = (at + 1) & c->slot_mask) {
		k = &c->class[c->slot[at] - 1];
		if (k->hash == h && same_text(c, k->ptr, k->len, p, len))
			return c->slot[at] - 1;
	}
	if (!add)
		return NO_CLASS;
	if (c->nclass == c->class_cap) {
		if (classes_grow(c) < 0) {
			c->oom = true;
			return NO_CLASS;
		}
		return find_class(c, which, i, h, add);
	}
	id = c->nclass++;
	k = &c->class[id];
	k->hash = h;
	k->ptr = p;
	k->len = len;
	c->count[0][id] = c->count[1][id] = 0;
	k->first_a = NO_CLASS;
	c->slot[at] = id + 1;
	return id;
}

/* Start loading the slot where a hash is looked up. */
static inline void slot_prefetch(const struct ctx *c, uint64_t h)
{
#if defined(__GNUC__)
	__builtin_prefetch(&c->slot[h >> c->slot_shift]);
#else
	(void)c;
	(void)h;
#endif
}

/* Classify record i of side `which` and count it; false on no memory. */
static bool add_record(struct ctx *c, int which, long i, uint64_t h)
{
	uint32_t id = find_class(c, which, i, h, true);

	if (id == NO_CLASS)
		return false;
	if (!c->count[which][id]++ && which == 0)
		c->class[id].first_a = (uint32_t)i;
	c->s[which].cls[i] = id;
	return true;
}

/* ---- splitting -------------------------------------------------------- */

/* Room for n + 2 starts and classes of side `which`. */
static int room(struct ctx *c, int which, size_t n)
{
	struct side *s = &c->s[which];

	s->off = reserve(&c->off[which], (n + 2) * sizeof(uint32_t));
	s->cls = reserve(&c->cls[which], (n + 2) * sizeof(uint32_t));
	return s->off && s->cls ? 0 : -1;
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

/*
 * Append to side s the starts of the records in buf[from, to), where `from`
 * starts a record; the side's offsets then hold s->n starts.
 */
static int split(struct ctx *c, int which, size_t from, size_t to)
{
	struct side *s = &c->s[which];
	const unsigned char *p = s->buf;
	size_t n = s->n, cap, i = from;
	uint32_t *off;

	if (from >= to)
		return 0;
	if (room(c, which, n + 16) < 0)
		return -1;
	off = s->off;
	cap = c->off[which].cap / sizeof(uint32_t) - 2;
	/* Push the start after every newline; drop one at `to` at the end. */
	off[n++] = (uint32_t)from;
#ifdef __SSE2__
	/* 64 bytes at a time: one mask of their newlines. */
	for (; i + 64 <= to; i += 64) {
		uint64_t m = newlines64(p + i);

		if (!m)
			continue;
		if (n + 64 > cap) {
			if (room(c, which, 2 * n + 64) < 0)
				return -1;
			off = s->off;
			cap = c->off[which].cap / sizeof(uint32_t) - 2;
		}
		do {
			off[n++] = (uint32_t)(i + 1 + (size_t)__builtin_ctzll(m));
			m &= m - 1;
		} while (m);
	}
#endif
	for (; i < to; i++) {
		const unsigned char *nl = memchr(p + i, '\n', to - i);

		if (!nl)
			break;
		i = (size_t)(nl - p);
		if (n + 1 > cap) {
			if (room(c, which, 2 * n + 16) < 0)
				return -1;
			off = s->off;
			cap = c->off[which].cap / sizeof(uint32_t) - 2;
		}
		off[n++] = (uint32_t)(i + 1);
	}
	if (off[n - 1] == to)
		n--;
	s->n = (uint32_t)n;
	return 0;
}

/* The rest of the per-record arrays of side `which`, now that n is known. */
static int side_arrays(struct ctx *c, int which)
{
	struct side *s = &c->s[which];
	size_t n = s->n;

	if (room(c, which, n) < 0)
		return -1;
	s->chg = reserve(&c->chg[which], n + 2);
	s->kept = reserve(&c->kept[which], (n + 1) * sizeof(uint32_t));
	s->kept_cls = reserve(&c->kept_cls[which], (n + 1) * sizeof(uint32_t));
	if (!s->chg || !s->kept || !s->kept_cls)
		return -1;
	s->off[n] = (uint32_t)s->len;
	memset(s->chg, 0, n + 2);
	s->chg++;
	return 0;
}

/* Length of the common prefix of a and b (both at least n long). */
static size_t common_head(const unsigned char *a, const unsigned char *b,
			  size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
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

/* ---- preparing both sides --------------------------------------------- */

/*
 * A cheap key that equal records share (the length and the first bytes,
 * or with -w the sum of the bytes that are not whitespace), and a bitmap
 * of the keys of the records in the middle: a record at the ends whose key
 * is not there is in none of the middle's classes.
 */
#define KEYMAP_BITS 4096

static inline uint32_t rec_key(const struct ctx *c, const struct side *s,
			       long i)
{
	const unsigned char *p = rec_ptr(s, i);
	uint32_t n = rec_len(s, i);
	uint64_t w;

	if (c->ws)
		return sum_no_space(p, n, s->buf + s->len);
	/* The length and the first bytes: few records of the ends pass. */
	w = n >= 8 ? load64(p) : n ? load_short(p, n, s->buf + s->len) : 0;
	return (uint32_t)(((w ^ n) * K1) >> 40);
}

static inline void keymap_add(uint64_t *map, uint32_t key)
{
	key %= KEYMAP_BITS;
	map[key / 64] |= (uint64_t)1 << (key % 64);
}

static inline bool keymap_has(const uint64_t *map, uint32_t key)
{
	key %= KEYMAP_BITS;
	return map[key / 64] >> (key % 64) & 1;
}

/*
 * Records [from, to) of a, equal to records [from + shift, to + shift) of
 * b, count once in each side: into the classes of the middle, or, when
 * `all`, into classes of their own too.
 */
static int count_shared(struct ctx *c, const uint64_t *keymap, long from,
			long to, long shift, bool all)
{
	struct side *a = &c->s[0], *b = &c->s[1];
	long i;

	for (i = from; i < to; i++) {
		uint32_t id = NO_CLASS;

		if (all || keymap_has(keymap, rec_key(c, a, i)))
			id = find_class(c, 0, i, rec_hash(c, a, i), all);
		if (id != NO_CLASS) {
			c->count[0][id]++;
			c->count[1][id]++;
		} else if (c->oom) {
			return -1;
		}
		a->cls[i] = b->cls[i + shift] = id;
	}
	return 0;
}

/*
 * Take the records of a from i on (up to `whole`, all ending in a newline)
 * that b repeats byte for byte from its record j, at pb, on (up to `to`)
 * as b's records j on. Returns how many, or -1.
 */
static long copy_run(struct ctx *c, long i, long whole, size_t j, size_t pb,
		     size_t to)
{
	struct side *a = &c->s[0], *b = &c->s[1];
	size_t most = a->off[whole] - a->off[i], len;
	long k, t, shift = (long)pb - (long)a->off[i];

	len = common_head(a->buf + a->off[i], b->buf + pb,
			  most < to - pb ? most : to - pb);
	if (len < rec_len(a, i))
		return 0;
	k = first_start_from(a->off, i + 1, whole + 1, a->off[i] + len + 1) -
	    1 - i;
	if (room(c, 1, j + (size_t)k) < 0)
		return -1;
	for (t = 0; t < k; t++) {
		uint32_t id = a->cls[i + t];

		b->off[j + t] = (uint32_t)((long)a->off[i + t] + shift);
		b->cls[j + t] = id;
		c->count[1][id]++;
	}
	return k;
}

/*
 * Split and classify the middle of b, b->buf[from, to), after its first
 * b->n records. Most of it is usually a's middle verbatim: follow a along
 * (from a's record i on, up to a_end) and take whole runs of equal bytes
 * as copies of a's records, classifying only the records that differ.
 * After one that differs, a record found once in a tells where to pick a
 * up again.
 */
static int split_middle(struct ctx *c, uint64_t *keymap, long i, long a_end,
			size_t from, size_t to)
{
	struct side *a = &c->s[0], *b = &c->s[1];
	size_t pb = from, j = b->n;
	long whole = a_end, k;

	/* Only records with a newline are taken as copies. */
	if (a_end > 0 && a->off[a_end] == a->len &&
	    a->buf[a->len - 1] != '\n')
		whole = a_end - 1;
	while (pb < to) {
		const unsigned char *nl;
		size_t next;
		uint32_t id;

		k = i < whole ? copy_run(c, i, whole, j, pb, to) : 0;
		if (k < 0)
			return -1;
		if (k > 0) {
			pb += a->off[i + k] - a->off[i];
			i += k;
			j += (size_t)k;
			continue;
		}
		nl = memchr(b->buf + pb, '\n', to - pb);
		next = nl ? (size_t)(nl - b->buf) + 1 : to;
		if (room(c, 1, j + 1) < 0)
			return -1;
		b->off[j] = (uint32_t)pb;
		b->off[j + 1] = (uint32_t)next;
		if (!add_record(c, 1, (long)j, rec_hash(c, b, (long)j)))
			return -1;
		keymap_add(keymap, rec_key(c, b, (long)j));
		id = b->cls[j];
		if (c->count[0][id] == 1 && c->class[id].first_a >= i &&
		    c->class[id].first_a < a_end)
			i = c->class[id].first_a + 1;
		j++;
		pb = next;
	}
	b->n = (uint32_t)j;
	return 0;
}

/*
 * Classify a's records [from, to). The hashes come first, all together,
 * so that the lookups can load their slots ahead.
 */
static int classify_a(struct ctx *c, uint64_t *keymap, long from, long to)
{
	const struct side *a = &c->s[0];
	uint64_t *h = reserve(&c->hashes, (size_t)(to - from + 1) *
					  sizeof(uint64_t));
	long i, n = to - from;

	if (!h)
		return -1;
	for (i = 0; i < n; i++) {
		h[i] = rec_hash(c, a, from + i);
		keymap_add(keymap, rec_key(c, a, from + i));
	}
	for (i = 0; i < n; i++) {
		if (i + 8 < n)
			slot_prefetch(c, h[i + 8]);
		if (!add_record(c, 0, from + i, h[i]))
			return -1;
	}
	return 0;
}

/*
 * Both sides as xdiff prepares them: records, their classes and the sizes
 * of the classes, and the equal records at both ends (what xdl_trim_ends
 * drops). Equal bytes are equal records, so the ends are first found on
 * the bytes, b's records there copied from a's, and only the records in
 * between classified; those at the ends still count towards the sizes of
 * the classes in the middle, which decide what gets discarded. With -w
 * the ends then grow by the records equal but for whitespace; should they
 * take in records of the ends that have no class, the ends are classified
 * in full (`all`) on a second go. Returns 1 when the buffers are equal, 2
 * for that second go.
 */
static int prepare(struct ctx *c, long *head, long *tail, bool all)
{
	struct side *a = &c->s[0], *b = &c->s[1];
	size_t small = a->len < b->len ? a->len : b->len;
	size_t p, e, q, base;
	long na, nb, P, S, first, i, lim;
	uint64_t *keymap;

	a->n = b->n = 0;
	p = common_head(a->buf, b->buf, small);
	if (p == a->len && p == b->len)
		return 1;
	if (split(c, 0, 0, a->len) < 0 || room(c, 0, a->n) < 0)
		return -1;
	na = a->n;
	a->off[na] = (uint32_t)a->len;

	/* Records ending (newline included) within the common head. */
	P = first_start_from(a->off, 1, na + 1, p + 1) - 1;
	if (P == na && na > 0 && a->buf[a->len - 1] != '\n')
		P--;	/* a is a prefix of b, whose last line goes on */
	e = a->off[P];

	/*
	 * The common tail, kept clear of the head records. A record of a that
	 * starts inside it is a whole record of b too, except perhaps the one
	 * starting right at its edge.
	 */
	q = common_tail(a->buf, a->len, b->buf, b->len, small - e);
	base = a->len - q;
	first = first_start_from(a->off, P, na, base);
	if (first < na && a->off[first] == base) {
		size_t at = base + b->len - a->len;

		if (at > 0 && b->buf[at - 1] != '\n')
			first++;
	}
	S = na - first;

	/* Classes of a's middle, then b: a's head, its middle, a's tail. */
	keymap = reserve(&c->keymap, KEYMAP_BITS / 8);
	if (!keymap || classes_init(c, (size_t)(first - P) * 3 / 2) < 0)
		return -1;
	memset(keymap, 0, KEYMAP_BITS / 8);
	if (classify_a(c, keymap, P, first) < 0)
		return -1;
	if (room(c, 1, (size_t)P) < 0)
		return -1;
	memcpy(b->off, a->off, (size_t)P * sizeof(uint32_t));
	b->n = (uint32_t)P;
	if (split_middle(c, keymap, P, first, e,
			 a->off[first] + b->len - a->len) < 0)
		return -1;
	if (room(c, 1, (size_t)b->n + S) < 0)
		return -1;
	for (i = first; i < na; i++)
		b->off[b->n++] = (uint32_t)(a->off[i] + b->len - a->len);
	nb = b->n;
	if (side_arrays(c, 0) < 0 || side_arrays(c, 1) < 0 ||
	    count_shared(c, keymap, 0, P, 0, all) < 0 ||
	    count_shared(c, keymap, first, na, nb - na, all) < 0)
		return -1;

	/* xdl_trim_ends, from what the bytes already settled. */
	lim = na < nb ? na : nb;
	while (P < lim && same_recs(c, a, P, b, P))
		P++;
	lim -= P;
	if (S > lim)
		S = lim;
	while (S < lim && same_recs(c, a, na - 1 - S, b, nb - 1 - S))
		S++;
	/*
	 * Only with -w can the ends grow past the bytes, and even then every
	 * record left in the middle has a class: one from the ends equals a
	 * record of the middle it was matched against on the way. A guard.
	 */
	if (c->ws && !all) {
		for (i = P; i < na - S; i++)
			if (a->cls[i] == NO_CLASS)
				return 2;
		for (i = P; i < nb - S; i++)
			if (b->cls[i] == NO_CLASS)
				return 2;
	}
	*head = P;
	*tail = S;
	return 0;
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
		const uint32_t *count = c->count[!j];

		if (!kind)
			return -1;
		limit = rough_sqrt(s->n);
		if (limit > EQ_LIMIT)
			limit = EQ_LIMIT;
		for (i = 0; i < mid; i++) {
			uint32_t m = count[s->cls[head + i]];

			kind[i] = m == 0 ? NO_MATCH :
				  m >= limit ? MANY_MATCH : SOME_MATCH;
		}
		s->nkept = 0;
		for (i = 0; i < mid; i++) {
			if (kind[i] == SOME_MATCH ||
			    (kind[i] == MANY_MATCH &&
			     !drop_many_match(kind, i, 0, mid - 1))) {
				s->kept[s->nkept] = (uint32_t)(head + i);
				s->kept_cls[s->nkept++] = s->cls[head + i];
			} else {
				s->chg[head + i] = 1;
			}
		}
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

/* How many classes from p and q on are equal, at most n (maybe < 0). */
static inline long equal_ahead(const uint32_t *p, const uint32_t *q, long n)
{
	long k = 0;

	while (k < n && p[k] == q[k])
		k++;
	return k;
}

/* How many classes right before p and q are equal, at most n. */
static inline long equal_behind(const uint32_t *p, const uint32_t *q, long n)
{
	long k = 0;

	while (k < n && p[-1 - k] == q[-1 - k])
		k++;
	return k;
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

		/* Equal records at both corners need no search. */
		while (x.off1 < x.lim1 && x.off2 < x.lim2 &&
		       m.h1[x.off1] == m.h2[x.off2]) {
			x.off1++;
			x.off2++;
		}
		while (x.off1 < x.lim1 && x.off2 < x.lim2 &&
		       m.h1[x.lim1 - 1] == m.h2[x.lim2 - 1]) {
			x.lim1--;
			x.lim2--;
		}
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
static bool slide_down(const struct ctx *c, struct side *s, struct group *g)
{
	if (g->end >= (long)s->n || !same_rec(c, s, g->start, g->end))
		return false;
	s->chg[g->start++] = 0;
	s->chg[g->end++] = 1;
	while (s->chg[g->end])
		g->end++;
	return true;
}

static bool slide_up(const struct ctx *c, struct side *s, struct group *g)
{
	if (g->start == 0 || !same_rec(c, s, g->start - 1, g->end - 1))
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
				while (slide_up(c, s, &g))
					group_prev(o, &go);
				earliest_end = g.end;
				if (go.end > go.start)
					facing = g.end;
				while (slide_down(c, s, &g)) {
					group_next(o, &go);
					if (go.end > go.start)
						facing = g.end;
				}
			} while (size != g.end - g.start);

			if (g.end == earliest_end) {
				/* It cannot move. */
			} else if (facing != -1) {
				while (go.end == go.start) {
					slide_up(c, s, &g);
					group_prev(o, &go);
				}
			} else {
				long to = best_end(s, &g, earliest_end);

				while (g.end > to) {
					slide_up(c, s, &g);
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

static int run(struct ctx *c, struct diff_result *out)
{
	long head, tail;
	int rc;

	c->oom = false;
	rc = prepare(c, &head, &tail, false);
	if (rc == 2)
		rc = prepare(c, &head, &tail, true);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	c->s[0].lo = c->s[1].lo = head;
	c->s[0].hi = (long)c->s[0].n - tail;
	c->s[1].hi = (long)c->s[1].n - tail;
	if (discard(c, head, tail) < 0 || myers(c) < 0)
		return -1;
	compact(c, 0);
	compact(c, 1);
	return emit(c, out);
}

int diff_buffers(struct diff_result *out, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags)
{
	struct ctx *c;
	int rc;

	out->n = 0;
	trim_tail(&alen, &blen, a, b);
	if (alen > MAX_SIDE || blen > MAX_SIDE)
		return error_set("unable to diff two blobs: files too large "
				 "for diff");
	c = ctx_get();
	if (!c)
		return error_oom();
	c->ws = (flags & DIFF_IGNORE_WHITESPACE) != 0;
	c->s[0].buf = (const unsigned char *)(alen ? a : "");
	c->s[0].len = alen;
	c->s[0].n = 0;
	c->s[1].buf = (const unsigned char *)(blen ? b : "");
	c->s[1].len = blen;
	c->s[1].n = 0;
	rc = run(c, out);
	ctx_put(c);
	if (rc < 0) {
		out->n = 0;
		return error_oom();
	}
	return 0;
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
