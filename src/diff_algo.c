/*
 * diff_algo: the diff itself (git's xdiffi): both sides' views, trimming
 * equal ends, discarding records that cannot match, Myers' divide and
 * conquer, sliding the change groups, and the hunks.
 */
#include "diff_int.h"

/* ---- preparing both sides --------------------------------------------- */

/*
 * Side `which` as xdiff sees it: the first records of its table, up to
 * `len` bytes (what the tail trim left, always whole records).
 */
static int side_view(struct ctx *c, int which, const struct table *t,
		     const unsigned char *buf, size_t len)
{
	struct side *s = &c->s[which];
	long n = diff_first_start_from(t->off, 0, (long)t->n + 1, len);

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
	s->chg = diff_reserve(&c->chg[which], (size_t)n + 2);
	s->kept = diff_reserve(&c->kept[which],
			       ((size_t)n + 1) * sizeof(uint32_t));
	s->kept_cls = diff_reserve(&c->kept_cls[which],
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
long diff_equal_behind(const uint32_t *p, const uint32_t *q, long n)
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
	*tail = diff_equal_behind(a->cls + na, b->cls + nb, lim - *head);
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
		unsigned char *kind = diff_reserve(&c->dis, (size_t)mid + 1);
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
			x0 = diff_equal_behind(h1 + x, h2 + y,
					       x - b->off1 < y - b->off2 ?
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

	kv = diff_reserve(&c->kv, (size_t)(2 * ndiags + 2) * sizeof(*kv));
	todo = diff_reserve(&c->todo, 64 * sizeof(*todo));
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
		e1 = diff_equal_behind(m.h1 + x.lim1, m.h2 + x.lim2, eq - e1);
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
			todo = diff_reserve(&c->todo, (size_t)(depth + 2) *
						       sizeof(*todo));
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

	if (UTIL_GROW(r->hunks, r->alloc, r->n + 1) < 0)
		return -1;
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

/* ---- the algorithm on two tables ------------------------------------- */

/*
 * The diff of the first alen and blen bytes of the blobs of tables ta and
 * tb, whose bytes are abuf and bbuf (NULL: the dictionary's).
 */
int diff_tables(struct ctx *c, struct diff_result *out,
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
