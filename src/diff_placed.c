/*
 * diff_placed: tables of pack entries, made from their delta base's table
 * and the delta's instructions without building the blob's bytes, kept
 * per thread by their place in the pack.
 */
#include "diff_int.h"

/* ---- tables from pack deltas ------------------------------------------ */

/*
 * Most versions of a file are stored as deltas: instructions that copy
 * byte ranges of a base object and insert new bytes. Building a blob's
 * bytes from them and then finding its lines (the way above) moves every
 * byte twice, and that was most of a diff thread's time. Here a
 * table is made from the base's table and the instructions instead: the
 * lines that a copy holds whole are the base's lines, moved; only the
 * lines that an instruction cuts or inserts are put together and looked
 * up. The bytes of a line are the dictionary's (without -w it holds them
 * as they are), so a blob's bytes are never built at all. Each thread
 * keeps such tables for the pack entries it has met, delta bases
 * included, keyed by their place in the pack.
 */

void diff_placed_clear(struct placed *P)
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
	P->lru.head = P->lru.tail = NULL;
	diff_placed_clear(P);
	return 0;
}

static unsigned place_bucket(struct odb_place at)
{
	uint64_t h = (at.offset ^ (uint64_t)at.pack << 40) *
		     0x9e3779b97f4a7c15ull;

	return (unsigned)(h >> 54) & (PLACE_BUCKETS - 1);
}

static struct table *lru_table(struct util_lru_node *n)
{
	return util_container_of(n, struct table, lru);
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
			util_lru_touch(&P->lru, &t->lru);
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
		util_lru_push(&P->lru, &P->t[i].lru);
	} else {
		/* The oldest, whose arrays are reused. */
		struct util_lru_node *n = P->lru.tail;

		while (lru_table(n)->pins)
			n = n->prev;
		i = (int)(lru_table(n) - P->t);
		bucket_unlink(P, i);
		util_lru_touch(&P->lru, n);
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
	struct util_lru_node *n, *prev;

	P->bytes += (t->cap - t->counted) * 2 * sizeof(uint32_t);
	t->counted = t->cap;
	for (n = P->lru.tail; n && P->bytes > PLACED_BYTES; n = prev) {
		struct table *o = lru_table(n);
		int i = (int)(o - P->t);

		prev = n->prev;
		if (o->pins || o == t)
			continue;
		bucket_unlink(P, i);
		util_lru_unlink(&P->lru, n);
		P->bytes -= o->counted * 2 * sizeof(uint32_t);
		diff_table_free(o);
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
	return diff_first_start_from(off, lo, hi, pos + 1);
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
		*hint = diff_first_start_from(b->off, 0, h < n ? h : n,
					      pos + 1) - 1;
	}
	return *hint;
}

/*
 * Copy to t the run of b's whole lines (those ending in a newline) from
 * line i on that end by `end`, their starts moved by `shift`. A scan, not
 * a search for the run's end: its lines are read to be copied anyway, and
 * a search reads more of them.
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
	if (diff_table_room(t, t->n + (size_t)(stop - i)) < 0)
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
	if (t->n + 2 > t->cap && diff_table_room(t, t->n + 1) < 0)
		return -1;
	t->off[t->n] = (uint32_t)start;
	t->id[t->n++] = id;
	return 0;
}

static int pend_add(struct ctx *c, struct pend *p, const unsigned char *b,
		    size_t n)
{
	unsigned char *q = diff_reserve(&c->pend, p->len + n + 8);

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
	return pend_add(c, p, diff_line_text(&c->dict, b, i), n);
}

/* The pending line is complete: look it up and add it. */
static int pend_close(struct ctx *c, struct table *t, struct pend *p)
{
	const unsigned char *q = c->pend.p;
	uint32_t id = diff_intern(c, q, p->len, q + p->len + 8);

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
		if (diff_number_lines(c, t, first, lit, out, e) < 0)
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
			if (pend_add(c, p, diff_line_text(&c->dict, b, i) +
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

	if (!(d = diff_reserve(&c->raw, s->size + 1)))
		return error_oom();
	if ((rc = odb_stored_inflate(d, db, s)) < 0)
		return rc;
	if (!odb_delta_start(&it, d, s->size) || it.base_len != b->len)
		return odb_place_corrupt(db, s->at, NULL);
	if (it.len > MAX_SIDE)
		return error_set("files too large for diff");
	t->len = it.len;
	if (diff_table_room(t, b->n + 16) < 0)
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
	return diff_table_build(c, t, p, len) < 0 ? error_oom() : 0;
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
	if (!(p = diff_reserve(&c->raw, s->size + 1)))
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
		stack = diff_reserve(&c->chain, (n + 1) * sizeof(*stack));
		if (!stack)
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
int diff_stored_table(struct ctx *c, struct odb *db, git_repository *git,
		      const git_oid *oid, const struct table *keep,
		      struct table **out)
{
	struct odb_place at;
	int rc;

	if (placed_init(&c->placed) < 0)
		return error_oom();
	if (c->db != db) {
		diff_placed_clear(&c->placed);
		memset(c->located, 0, sizeof(c->located));
		c->db = db;
	}
	if (locate(c, &at, db, oid) != 0) {
		/* odb_read()'s errors name the blob already. */
		if ((*out = diff_table_find(c, oid->id, SIZE_MAX)) != NULL)
			return 0;
		*out = diff_table_take(c, oid->id, SIZE_MAX, keep);
		if ((rc = table_read(c, *out, db, git, NULL, oid)) < 0)
			(*out)->used = 0;
		return rc;
	}
	if ((rc = placed_table(c, db, git, at, out)) < 0)
		return error_prefix("unable to read blob '%s'",
				    git_oid_tostr_s(oid));
	return 0;
}
