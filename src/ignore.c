#include "strata/ignore.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/error.h"
#include "strata/util.h"
#include "strata/odb.h"

/*
 * The numbers below are git 2.39's (blame.c). They decide ties and
 * thresholds, so they are part of the answer, not tuning knobs.
 */
#define SEARCH_RADIUS 10     /* parent lines looked at either side */
#define SCAN_THRESHOLD 10    /* least similarity for a whole-file match */
#define DISTANCE_WEIGHT 1000 /* similarity is scaled by this minus distance */
#define NOT_CALCULATED (-1)
#define NOTHING_MATCHES (-2)
#define KEYS 65536           /* a key is a byte pair */

/*
 * git does this arithmetic in int. Where a product overflows (hunks of
 * tens of thousands of lines on both sides, lines of megabytes) the
 * machine wraps it, and git's choices follow the wrapped value; wrapping
 * explicitly keeps us on the same side of every comparison.
 */
static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/*
 * The fingerprints of one blob, made on first use. Line i keeps its sorted
 * distinct byte-pair keys and their counts at slot start[i] + i of the
 * arena: a line of len bytes has at most len + 1 pairs, so the slots never
 * overlap. A match consumes counts of a parent line (they only go down;
 * a zero count is the same as an absent pair).
 */
struct prints {
	const unsigned char *buf;
	uint32_t n;
	size_t *start;    /* n + 1 offsets; start[n] is the blob size */
	uint32_t *nkeys;  /* distinct pairs of line i; UINT32_MAX: not made */
	int64_t *total;   /* sum of the counts of line i, once made */
	uint16_t *key;
	int32_t *count;
	int32_t *tally;   /* KEYS zeroed counters, shared scratch */
};

static int prints_init(struct prints *f, const char *buf, size_t len,
		       int32_t *tally)
{
	size_t i, n = 0, at;

	memset(f, 0, sizeof(*f));
	f->buf = (const unsigned char *)buf;
	f->tally = tally;
	for (i = 0; i < len; i++)
		if (buf[i] == '\n')
			n++;
	if (len && buf[len - 1] != '\n')
		n++;
	/* git numbers lines with int */
	if (n > INT32_MAX / 2)
		return error_set("blob of %zu lines is too large to guess", n);
	f->n = (uint32_t)n;
	f->start = malloc((n + 1) * sizeof(*f->start));
	f->nkeys = malloc((n ? n : 1) * sizeof(*f->nkeys));
	f->total = malloc((n ? n : 1) * sizeof(*f->total));
	f->key = malloc((len + n + 1) * sizeof(*f->key));
	f->count = malloc((len + n + 1) * sizeof(*f->count));
	if (!f->start || !f->nkeys || !f->total || !f->key || !f->count)
		return error_oom();
	at = 0;
	for (i = 0; i < n; i++) {
		const char *nl = memchr(buf + at, '\n', len - at);

		f->start[i] = at;
		at = nl ? (size_t)(nl - buf) + 1 : len;
		f->nkeys[i] = UINT32_MAX;
	}
	f->start[n] = len;
	return 0;
}

static void prints_release(struct prints *f)
{
	free(f->start);
	free(f->nkeys);
	free(f->total);
	free(f->key);
	free(f->count);
	memset(f, 0, sizeof(*f));
}

static int key_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/*
 * git folds with its own locale-free ctype: only space, tab, LF and CR
 * are whitespace (not VT or FF), and only ASCII letters have a case.
 */
static unsigned fold_byte(unsigned char c)
{
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return 0;
	if (c >= 'A' && c <= 'Z')
		return c + ('a' - 'A');
	return c;
}

/*
 * The pairs run over the whole line with its '\n' and a closing blank, so
 * "\n" and the end of the buffer read alike: a last line without newline
 * prints the same as with one, and CR before LF changes nothing.
 */
static void prints_make(struct prints *f, uint32_t i)
{
	const unsigned char *p = f->buf + f->start[i];
	const unsigned char *end = f->buf + f->start[i + 1];
	size_t slot = f->start[i] + i;
	uint16_t *keys = f->key + slot;
	uint32_t n = 0, j;
	unsigned prev = 0, cur;
	int64_t total = 0;

	for (;; p++) {
		unsigned k;

		cur = p == end ? 0 : fold_byte(*p);
		k = prev | cur << 8;
		/* a blank pair says nothing about the text */
		if (k && !f->tally[k]++)
			keys[n++] = (uint16_t)k;
		prev = cur;
		if (p == end)
			break;
	}
	if (n < 16) {
		for (j = 1; j < n; j++) {
			uint16_t v = keys[j];
			uint32_t m = j;

			for (; m && keys[m - 1] > v; m--)
				keys[m] = keys[m - 1];
			keys[m] = v;
		}
	} else {
		qsort(keys, n, sizeof(*keys), key_cmp);
	}
	for (j = 0; j < n; j++) {
		f->count[slot + j] = f->tally[keys[j]];
		total += f->tally[keys[j]];
		f->tally[keys[j]] = 0;
	}
	f->nkeys[i] = n;
	f->total[i] = total;
}

static inline void prints_need(struct prints *f, uint32_t i)
{
	if (f->nkeys[i] == UINT32_MAX)
		prints_make(f, i);
}

/*
 * Similarity is the size of a multiset intersection: over the pairs two
 * lines share, the sum of the smaller counts. One line is compared with
 * many (a window of parent lines, or the whole parent), so its counts are
 * first laid out by key in `dense`, KEYS counters that are zero between
 * uses: each other line then costs one pass over its own keys, where a
 * merge of two sorted key lists costs a hard-to-predict branch per key of
 * both: several times faster on a file of tens of thousands of lines.
 */
static void prints_spread(int32_t *dense, struct prints *f, uint32_t i,
			  bool on)
{
	const uint16_t *k;
	const int32_t *c;
	uint32_t x, n;

	prints_need(f, i);
	k = f->key + f->start[i] + i;
	c = f->count + f->start[i] + i;
	n = f->nkeys[i];
	for (x = 0; x < n; x++)
		dense[k[x]] = on ? c[x] : 0;
}

/* The similarity of line j of f with the line spread in dense. */
static int32_t prints_against(const int32_t *dense, struct prints *f,
			      uint32_t j)
{
	const uint16_t *k;
	const int32_t *c;
	uint32_t x, n;
	int64_t sum = 0;

	prints_need(f, j);
	k = f->key + f->start[j] + j;
	c = f->count + f->start[j] + j;
	n = f->nkeys[j];
	for (x = 0; x < n; x++) {
		int32_t d = dense[k[x]];

		sum += d < c[x] ? d : c[x];
	}
	return wrap32(sum);
}

/*
 * Take the pairs of target line j out of parent line i, so that other
 * target lines cannot match the same part of it again.
 */
static void prints_subtract(struct prints *a, uint32_t i,
			    struct prints *b, uint32_t j)
{
	uint16_t *ka, *kb;
	int32_t *ca, *cb;
	uint32_t x = 0, y = 0, na, nb;

	prints_need(a, i);
	prints_need(b, j);
	ka = a->key + a->start[i] + i;
	ca = a->count + a->start[i] + i;
	kb = b->key + b->start[j] + j;
	cb = b->count + b->start[j] + j;
	na = a->nkeys[i];
	nb = b->nkeys[j];
	while (x < na && y < nb) {
		if (ka[x] < kb[y]) {
			x++;
		} else if (ka[x] > kb[y]) {
			y++;
		} else {
			ca[x] = ca[x] <= cb[y] ? 0 : ca[x] - cb[y];
			x++;
			y++;
		}
	}
}

/*
 * A stretch of the hunk still to be matched: target lines [bs, bs + lb)
 * (relative to the hunk) against parent lines [sa, sa + la) (absolute).
 * la may come out empty or negative, exactly as in git.
 */
struct window {
	int32_t sa, la, bs, lb;
};

/*
 * One hunk's matching. Per target line: the best parent line, the second
 * best (used to undo matches that would cross a chosen one), and how
 * certain the best is. sim caches the distance-scaled similarities of a
 * target line with the parent lines within the radius of the parent line
 * at the same relative position in the hunk.
 */
struct fuzzy {
	struct prints *pa, *pb;
	int32_t sa0, la0, sb0, lb0;
	int32_t da, db, width;
	int32_t *sim;
	int32_t *cert, *second, *result;
	struct window *stack;
	int32_t *dense;           /* KEYS zeroed counters */
};

/*
 * The parent line at the same fraction of the hunk as target line b,
 * taking the middle one when several are equally close.
 */
static int32_t fuzzy_closest(const struct fuzzy *z, int32_t b)
{
	int32_t num = wrap32((int64_t)wrap32(((int64_t)b - z->sb0) * 2 + 1) *
			     z->la0);
	int32_t den = wrap32((int64_t)z->lb0 * 2);

	return wrap32((int64_t)(num / den) + z->sa0);
}

static void fuzzy_best(struct fuzzy *z, int32_t sa, int32_t la, int32_t bi)
{
	int32_t *row = z->sim + (size_t)bi * (size_t)z->width;
	int32_t best = 0, next = 0;
	int64_t c, lo, hi, j, best_at = 0, next_at = 0;
	bool spread = false;

	/* computed answers (also "nothing") hold until invalidated */
	if (z->cert[bi] != NOT_CALCULATED)
		return;
	c = (int64_t)wrap32((int64_t)fuzzy_closest(z, z->sb0 + bi) - sa);
	lo = c - z->da < 0 ? 0 : c - z->da;
	hi = c + z->da + 1 > la ? la : c + z->da + 1;
	for (j = lo; j < hi; j++) {
		int32_t *s = &row[j - c + z->da];

		if (*s == -1) {
			int64_t dist = j - c < 0 ? c - j : j - c;
			int32_t sim;

			if (!spread) {
				prints_spread(z->dense, z->pb,
					      (uint32_t)(z->sb0 + bi), true);
				spread = true;
			}
			sim = prints_against(z->dense, z->pa,
					     (uint32_t)(sa + j));
			*s = wrap32((int64_t)sim * (DISTANCE_WEIGHT - dist));
		}
		/* strict: the first of equal candidates wins */
		if (*s > best) {
			next = best;
			next_at = best_at;
			best = *s;
			best_at = j;
		} else if (*s > next) {
			next = *s;
			next_at = j;
		}
	}
	if (spread)
		prints_spread(z->dense, z->pb, (uint32_t)(z->sb0 + bi), false);
	if (best == 0) {
		z->cert[bi] = NOTHING_MATCHES;
		z->result[bi] = -1;
		return;
	}
	/*
	 * A line that fits two parent lines equally is less certain; one
	 * that fits well still beats one that fits poorly. With no runner-up
	 * the "second best" is the window's first line, as in git.
	 */
	z->cert[bi] = wrap32((int64_t)best * 2 - next);
	z->result[bi] = wrap32(sa + best_at);
	z->second[bi] = wrap32(sa + next_at);
}

/*
 * Match the most certain line of a window, then split the window there
 * (both halves keep the matched parent line) so matches never cross.
 */
static void fuzzy_window(struct fuzzy *z, const struct window *w,
			 size_t *depth)
{
	int32_t i, mcb = -1, mcc = -1, mca, lo, hi;

	for (i = 0; i < w->lb; i++) {
		int32_t bi = w->bs + i;

		fuzzy_best(z, w->sa, w->la, bi);
		if (z->cert[bi] > mcc) {
			mcc = z->cert[bi];
			mcb = i;
		}
	}
	if (mcb < 0)
		return;
	mca = z->result[w->bs + mcb];
	prints_subtract(z->pa, (uint32_t)mca, z->pb,
			(uint32_t)(z->sb0 + w->bs + mcb));

	/* Forget what the changed parent line scored with nearby lines. */
	lo = mcb - z->db < 0 ? 0 : mcb - z->db;
	hi = (int64_t)mcb + z->db + 1 > w->lb ? w->lb : mcb + z->db + 1;
	for (i = lo; i < hi; i++) {
		int64_t c = wrap32((int64_t)fuzzy_closest(z,
				z->sb0 + w->bs + i) - w->sa);
		int64_t d = (int64_t)mca - w->sa - c;

		if (d > z->da || -d > z->da)
			continue;
		z->sim[(size_t)(w->bs + i) * (size_t)z->width +
		       (size_t)(d + z->da)] = -1;
	}
	/* Redo nearby answers that would now cross the chosen match. */
	for (i = mcb - 1; i >= lo; i--) {
		int32_t bi = w->bs + i;

		if (z->cert[bi] >= 0 &&
		    (z->result[bi] >= mca || z->second[bi] >= mca))
			z->cert[bi] = NOT_CALCULATED;
	}
	for (i = mcb + 1; i < hi; i++) {
		int32_t bi = w->bs + i;

		if (z->cert[bi] >= 0 &&
		    (z->result[bi] <= mca || z->second[bi] <= mca))
			z->cert[bi] = NOT_CALCULATED;
	}

	/* git recurses into the first half, then the second: same order */
	if (mcb + 1 < w->lb) {
		struct window *n = &z->stack[(*depth)++];

		n->sa = mca;
		n->la = wrap32((int64_t)w->la + w->sa - mca);
		n->bs = w->bs + mcb + 1;
		n->lb = w->lb - mcb - 1;
	}
	if (mcb > 0) {
		struct window *n = &z->stack[(*depth)++];

		n->sa = w->sa;
		n->la = wrap32((int64_t)mca + 1 - w->sa);
		n->bs = w->bs;
		n->lb = mcb;
	}
}

/*
 * Match the target lines of one hunk to its parent lines, preserving
 * their order. result[k] is the parent line of target line sb + k, or -1.
 */
static int fuzzy_run(int32_t *result, struct prints *pa, struct prints *pb,
		     int32_t *dense, int32_t sa, int32_t la, int32_t sb,
		     int32_t lb)
{
	struct fuzzy z;
	size_t depth = 0, cells, k;
	int rc = 0;

	memset(&z, 0, sizeof(z));
	z.pa = pa;
	z.pb = pb;
	z.dense = dense;
	z.sa0 = sa;
	z.la0 = la;
	z.sb0 = sb;
	z.lb0 = lb;
	z.result = result;
	z.da = SEARCH_RADIUS >= la ? la - 1 : SEARCH_RADIUS;
	/* how far apart two target lines can be and share a parent line */
	z.db = wrap32((int64_t)wrap32((int64_t)(2 * z.da + 1) * lb) - 1) / la;
	z.width = 2 * z.da + 1;
	cells = (size_t)lb * (size_t)z.width;
	z.sim = malloc(cells * sizeof(*z.sim));
	z.cert = malloc((size_t)lb * sizeof(*z.cert));
	z.second = malloc((size_t)lb * sizeof(*z.second));
	z.stack = malloc(((size_t)lb + 2) * sizeof(*z.stack));
	if (!z.sim || !z.cert || !z.second || !z.stack) {
		rc = error_oom();
		goto done;
	}
	for (k = 0; k < cells; k++)
		z.sim[k] = -1;
	for (k = 0; k < (size_t)lb; k++) {
		z.result[k] = -1;
		z.second[k] = -1;
		z.cert[k] = NOT_CALCULATED;
	}
	z.stack[depth].sa = sa;
	z.stack[depth].la = la;
	z.stack[depth].bs = 0;
	z.stack[depth].lb = lb;
	depth++;
	/*
	 * Pending windows cover disjoint, non-empty target stretches, so
	 * the stack never holds more than lb + 1 of them.
	 */
	while (depth) {
		struct window w = z.stack[--depth];

		fuzzy_window(&z, &w, &depth);
	}
done:
	free(z.sim);
	free(z.cert);
	free(z.second);
	free(z.stack);
	return rc;
}

/*
 * The fallback for a target line with no match in its hunk: the most
 * similar line anywhere in the parent (at least SCAN_THRESHOLD), ties
 * going to the line whose number is nearest the target line's number.
 */
static int32_t scan_parent(struct prints *pa, struct prints *pb, int32_t t,
			   int32_t *dense)
{
	int32_t best = SCAN_THRESHOLD, best_at = -1, p;

	prints_need(pb, (uint32_t)t);
	if (pb->total[t] < SCAN_THRESHOLD)
		return -1;
	prints_spread(dense, pb, (uint32_t)t, true);
	for (p = 0; p < (int32_t)pa->n; p++) {
		int32_t s;

		/*
		 * A line's total as made bounds its similarity (matches only
		 * lower counts), and below `best` a line is passed over.
		 */
		prints_need(pa, (uint32_t)p);
		if (pa->total[p] < best)
			continue;
		s = prints_against(dense, pa, (uint32_t)p);
		if (s < best)
			continue;
		if (s == best && best_at != -1 &&
		    labs((long)best_at - t) < labs((long)p - t))
			continue;
		best = s;
		best_at = p;
	}
	prints_spread(dense, pb, (uint32_t)t, false);
	return best_at;
}

static int hunks_check(const struct diff_hunk *hunks, size_t nhunks,
		       uint32_t pn, uint32_t tn)
{
	uint64_t pe = 0, te = 0;
	size_t k;

	for (k = 0; k < nhunks; k++) {
		const struct diff_hunk *h = &hunks[k];

		if (h->old_start < pe || h->new_start < te ||
		    h->old_start - pe != h->new_start - te ||
		    (uint64_t)h->old_start + h->old_count > pn ||
		    (uint64_t)h->new_start + h->new_count > tn)
			goto bad;
		pe = (uint64_t)h->old_start + h->old_count;
		te = (uint64_t)h->new_start + h->new_count;
	}
	if (pn - pe != tn - te)
		goto bad;
	return 0;
bad:
	return error_set("diff hunks do not fit blobs of %u and %u lines",
			 pn, tn);
}

int ignore_guess(int32_t *out, const char *p, size_t plen,
		 const char *t, size_t tlen,
		 const struct diff_hunk *hunks, size_t nhunks,
		 const unsigned char *want)
{
	struct prints pa, pb;
	int32_t *tally = NULL, *dense = NULL, *fuzzy = NULL;
	size_t k, last = 0, maxb = 0;
	uint32_t i, tline = 0;
	int64_t shift = 0;
	int rc, any = 0;

	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	tally = calloc(KEYS, sizeof(*tally));
	dense = calloc(KEYS, sizeof(*dense));
	if (!tally || !dense) {
		rc = error_oom();
		goto done;
	}
	if ((rc = prints_init(&pa, p, plen, tally)) < 0 ||
	    (rc = prints_init(&pb, t, tlen, tally)) < 0 ||
	    (rc = hunks_check(hunks, nhunks, pa.n, pb.n)) < 0)
		goto done;

	/* Unchanged lines keep their counterpart; hunk lines wait. */
	for (k = 0; k <= nhunks; k++) {
		uint32_t end = k < nhunks ? hunks[k].new_start : pb.n;

		for (; tline < end; tline++)
			out[tline] = (int32_t)(tline + shift);
		if (k == nhunks)
			break;
		for (i = 0; i < hunks[k].new_count; i++, tline++) {
			out[tline] = IGNORE_NOT_ASKED;
			if (!want || want[tline]) {
				any = 1;
				last = k;
			}
		}
		if (hunks[k].new_count > maxb)
			maxb = hunks[k].new_count;
		shift += (int64_t)hunks[k].old_count - hunks[k].new_count;
	}
	if (!any)
		goto done;
	fuzzy = malloc(maxb * sizeof(*fuzzy));
	if (!fuzzy) {
		rc = error_oom();
		goto done;
	}

	/*
	 * git guesses every hunk in order, held lines or not, and a match
	 * uses up the parent line: so the earlier hunks must run even when
	 * none of their lines is wanted. Hunks after the last wanted line
	 * cannot change anything and are skipped.
	 */
	for (k = 0; k <= last; k++) {
		const struct diff_hunk *h = &hunks[k];
		int32_t sb = (int32_t)h->new_start, lb = (int32_t)h->new_count;
		int32_t j;
		int fuzzed = 0;

		if (!lb)
			continue;
		if (h->old_count) {
			rc = fuzzy_run(fuzzy, &pa, &pb, dense,
				       (int32_t)h->old_start,
				       (int32_t)h->old_count, sb, lb);
			if (rc < 0)
				goto done;
			fuzzed = 1;
		}
		/* The fallback reads the parent as this hunk left it. */
		for (j = 0; j < lb; j++) {
			if (want && !want[sb + j])
				continue;
			if (fuzzed && fuzzy[j] >= 0)
				out[sb + j] = fuzzy[j];
			else
				out[sb + j] = scan_parent(&pa, &pb, sb + j,
							  dense);
		}
	}
	rc = 0;
done:
	free(fuzzy);
	free(tally);
	free(dense);
	prints_release(&pa);
	prints_release(&pb);
	return rc;
}

/* ---- object name lists ---- */

static int too_large(const char *path)
{
	return error_set("object name list '%s' is larger than %zu MiB", path,
			 IGNORE_REVS_MAX >> 20);
}

int ignore_revs_read(char **out, size_t *len, const char *path)
{
	struct stat st;
	int fd = util_open_regular(path, &st);
	int rc;

	if (fd == -1)
		return error_set("could not open object name list '%s': %s",
				 path, strerror(errno));
	if (fd == UTIL_NOT_FILE)
		return error_set("object name list '%s' is not a regular file",
				 path);
	if ((uint64_t)st.st_size > IGNORE_REVS_MAX)
		rc = too_large(path);
	else if ((rc = util_read_fd(out, len, fd, IGNORE_REVS_MAX, path)) ==
		 STRATA_ETOOBIG)
		rc = too_large(path);
	else if (rc < 0)
		rc = error_prefix("could not read object name list");
	close(fd);
	return rc;
}


static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 32) >= 'a' && (c | 32) <= 'f')
		return (c | 32) - 'a' + 10;
	return -1;
}

/*
 * The line s[0..n) as git reads it: cut at a '#' (git looks for it as in
 * a C string, so not past a NUL), trimmed. 1 and the name in oid if it is
 * one, 0 if it is empty, -1 if it is neither.
 */
static int parse_line(unsigned char *oid, const char **sp, size_t *np)
{
	const char *s = *sp, *hash;
	size_t n = *np, i;

	hash = memchr(s, '#', strnlen(s, n));
	if (hash)
		n = (size_t)(hash - s);
	while (n && util_git_space(*s))
		s++, n--;
	while (n && util_git_space(s[n - 1]))
		n--;
	*sp = s;
	*np = n;
	if (!n)
		return 0;
	/* 40 hex digits, then the end or a NUL (git stops there). */
	if (n < 40 || (n > 40 && s[40]))
		return -1;
	for (i = 0; i < 40; i += 2) {
		int hi = hex_val(s[i]), lo = hex_val(s[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		oid[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return 1;
}

static int invalid_name(const char *s, size_t n, const char *file)
{
	char shown[65];
	size_t i;

	for (i = 0; i < n && i < sizeof(shown) - 1; i++)
		shown[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?'
								  : s[i];
	shown[i] = '\0';
	return error_set("invalid object name '%s%s' in '%s'", shown,
			 n > i ? "..." : "", file);
}

int ignore_revs_parse(const char *buf, size_t len, const char *file,
		      int (*fn)(const unsigned char *oid, void *payload),
		      void *payload)
{
	const char *end = buf + len, *eol, *s;
	unsigned char oid[20];
	size_t n;
	int r;

	for (; buf < end; buf = eol + 1) {
		eol = memchr(buf, '\n', (size_t)(end - buf));
		if (!eol)
			eol = end;
		s = buf;
		n = (size_t)(eol - buf);
		r = parse_line(oid, &s, &n);
		if (r < 0)
			return invalid_name(s, n, file);
		if (r > 0 && (r = fn(oid, payload)) < 0)
			return r;
	}
	return 0;
}
