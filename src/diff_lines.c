/*
 * diff_lines: the line dictionary and the line tables (git's xprepare):
 * each thread's context, hashing, numbering the lines of a blob, and
 * copying a table from another version's.
 */
#include "diff_int.h"

void *diff_reserve_grow(struct buf *b, size_t bytes)
{
	if (util_grow_array(&b->p, &b->cap, bytes, 1) < 0)
		return NULL;
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

void diff_table_free(struct table *t)
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
		diff_table_free(&c->tab[i]);
	if (c->placed.t)
		for (i = 0; i < PLACED; i++)
			diff_table_free(&c->placed.t[i]);
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

struct ctx *diff_ctx_get(void)
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

void diff_ctx_put(struct ctx *c)
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
			diff_table_free(&c->tab[i]);
}

/*
 * git's xdiff interface drops the common tail of both buffers before
 * diffing: whole 1 KiB blocks, then it gives back bytes up to and including
 * the first newline so that only complete lines are dropped. Which of two
 * identical lines gets blamed depends on this, so we do the same, from
 * `same`, the length of the buffers' common tail. What is left of each
 * buffer is a run of its whole first lines.
 */
void diff_trim_tail(size_t *alen, size_t *blen, const char *a,
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

/*
 * Room for twice as many numbers: slots for them, and the arrays grown if
 * they are short (the counts of the new ones zero).
 */
static int dict_grow(struct dict *d)
{
	/* A power of two: the slots are twice as many, found by a mask. */
	size_t room = d->room ? 2 * (size_t)d->room : 4096, a;

	if (room > UINT32_MAX)
		return -1;
	if (room > d->cap) {
		if ((a = d->cap, UTIL_GROW(d->e, a, room)) < 0 ||
		    (a = d->cap, UTIL_GROW(d->count, a, room)) < 0)
			return -1;
		memset(d->count + d->cap, 0,
		       (room - d->cap) * sizeof(*d->count));
		if ((a = d->cap, UTIL_GROW(d->pos, a, room)) < 0)
			return -1;
		d->cap = (uint32_t)room;
	}
	if (dict_rehash(d, 2 * room) < 0)
		return -1;
	d->room = (uint32_t)room;
	return 0;
}

/*
 * Empty slots for the numbers to come: room for what a dictionary that
 * starts over early holds (past DICT_FEW_IDS by the lines of the blobs of
 * one call), fewer than a big one had, as a lookup in them goes anywhere
 * in them. Without memory for new ones, the old ones.
 */
static void dict_empty(struct dict *d)
{
	uint32_t room = 4096;

	while (room < 2 * DICT_FEW_IDS)
		room *= 2;
	if (d->room > room && dict_rehash(d, 2 * (size_t)room) == 0)
		d->room = room;
	else if (d->slot)
		memset(d->slot, 0, ((size_t)d->mask + 1) * sizeof(*d->slot));
}

/* Numbers for mode `ws` from here on, starting over if need be. */
void diff_dict_start(struct ctx *c, bool ws)
{
	struct dict *d = &c->dict;

	if (d->ws == (int)ws && d->text_len <= DICT_MAX_TEXT &&
	    (d->n <= DICT_FEW_IDS ||
	     (d->n <= DICT_MAX_IDS && d->found >= d->n)))
		return;
	d->n = 0;
	d->found = 0;
	d->text_len = 0;
	d->gen++;
	d->ws = ws;
	diff_placed_clear(&c->placed);
	dict_empty(d);
}

/* The number of the record p[0, n), whose hash is h; NO_ID: no memory. */
static uint32_t intern_hashed(struct dict *d, const unsigned char *p,
			      size_t n, uint64_t h)
{
	struct line_entry *e;
	uint32_t at, id;
	uint64_t v;

	if (d->n == d->room && dict_grow(d) < 0)
		return NO_ID;
	for (at = (uint32_t)(h >> d->shift); (v = d->slot[at]) != 0;
	     at = (at + 1) & d->mask) {
		if ((v >> 32) != (h & 0xffffffffu))
			continue;
		e = &d->e[(uint32_t)v - 1];
		if (e->hash == h && e->len == n &&
		    same_bytes(d->text + e->at, p, n)) {
			d->found++;
			return (uint32_t)v - 1;
		}
	}
	/* (An empty record, -w's blank lines, still needs a text to be in.) */
	if ((d->text_len + n > d->text_cap || !d->text) &&
	    UTIL_GROW(d->text, d->text_cap, d->text_len + n < (size_t)1 << 16 ?
			  (size_t)1 << 16 : d->text_len + n) < 0)
		return NO_ID;
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
uint32_t diff_intern(struct ctx *c, const unsigned char *p, size_t n,
		     const unsigned char *end)
{
	if (c->dict.ws) {
		unsigned char *q = diff_reserve(&c->norm, n + 16);

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
int diff_table_room(struct table *t, size_t n)
{
	size_t cap = t->cap, a = t->cap, need = t->cap ? t->cap : 256;

	if (n + 2 <= t->cap)
		return 0;
	/*
	 * Doubling from 256: a table is filled from nothing whenever its
	 * slot is taken for another blob, and growing by half from
	 * UTIL_GROW's 8 copied the starts and numbers over and over.
	 */
	while (need < n + 2 && need != SIZE_MAX)
		need = util_mul(need, 2);
	/* Both grow to the same size, or t->cap stays. */
	if (UTIL_GROW(t->off, cap, need) < 0 || UTIL_GROW(t->id, a, cap) < 0)
		return -1;
	t->cap = cap;
	return 0;
}

/* The table of a blob, if the thread still has it. */
struct table *diff_table_find(struct ctx *c, const unsigned char *key,
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
struct table *diff_table_take(struct ctx *c, const unsigned char *key,
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

	if (diff_table_room(t, 16) < 0)
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
			if (diff_table_room(t, 2 * n + 64) < 0)
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
			if (diff_table_room(t, 2 * n + 16) < 0)
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
int diff_number_lines(struct ctx *c, struct table *t, uint32_t from,
		      const unsigned char *p, size_t at,
		      const unsigned char *end)
{
	struct dict *d = &c->dict;
	uint32_t x, n = t->n - from;
	uint64_t *h;

	if (!(h = diff_reserve(&c->hashes, ((size_t)n + 1) * sizeof(*h))))
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
int diff_table_build(struct ctx *c, struct table *t,
		     const unsigned char *p, size_t len)
{
	uint32_t i, n;

	if (table_split(t, p, len) < 0)
		return -1;
	n = t->n;
	if (c->dict.ws) {
		for (i = 0; i < n; i++) {
			t->id[i] = diff_intern(c, p + t->off[i],
					       t->off[i + 1] - t->off[i],
					       p + len);
			if (t->id[i] == NO_ID)
				return -1;
		}
		return 0;
	}
	return diff_number_lines(c, t, 0, p, 0, p + len);
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
size_t diff_common_tail(const unsigned char *a, size_t an,
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
	return diff_common_tail(a, alen, b, blen, n);
}

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
	r = diff_first_start_from(ko, i + 1, whole + 1, ko[i] + len + 1) - 1;
	r -= i;
	if (diff_table_room(t, j + (size_t)r) < 0)
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
		if (diff_table_room(t, j + 1) < 0)
			goto fail;
		id = diff_intern(c, buf + pb, next - pb, buf + len);
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
int diff_table_copy(struct ctx *c, struct table *t,
		    const unsigned char *buf, size_t len,
		    const struct known *k, size_t same)
{
	const struct table *kt = k->t;
	size_t klen = kt->len, small = klen < len ? klen : len, p, e, q, base;
	long nk = kt->n, head, first, i;

	/* Records ending (newline included) within the common head. */
	p = common_head(k->buf, buf, small);
	head = diff_first_start_from(kt->off, 1, nk + 1, p + 1) - 1;
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
	first = diff_first_start_from(kt->off, head, nk, base);
	if (first < nk && kt->off[first] == base) {
		size_t at = len - q;

		if (at > 0 && buf[at - 1] != '\n')
			first++;
	}

	if (diff_table_room(t, (size_t)head) < 0)
		return -1;
	memcpy(t->off, kt->off, (size_t)head * sizeof(*t->off));
	memcpy(t->id, kt->id, (size_t)head * sizeof(*t->id));
	t->n = (uint32_t)head;
	if (copy_middle(c, t, buf, len, k, head, first, e,
			kt->off[first] + len - klen) < 0)
		return -1;
	if (diff_table_room(t, t->n + (size_t)(nk - first)) < 0)
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
