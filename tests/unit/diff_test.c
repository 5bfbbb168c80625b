/*
 * diff_test: src/diff.c against libgit2's git_diff_buffers, which gives
 * git 2.39's hunks once both buffers lose their common tail the way git's
 * xdiff interface trims it (docs: ENGINE.md, "The diff"), except on lines
 * with \v or \f: build with -DDIFF_SPACE_LIKE_LIBGIT2 to compare.
 *
 *   diff_test synth [ROUNDS]      built and random cases, with and without -w
 *   diff_test pairs GITDIR [-v] [-t]
 *                                 "OLD NEW" blob ids on stdin, both modes;
 *                                 prints counts and CPU time per pair (-t:
 *                                 each also a second time, caches warm)
 *   diff_test hunks A B [-w]      our hunks for two files, one a line
 *   diff_test hunks-list [-w]     the same for each "A<TAB>B" on stdin,
 *                                 each pair's after a line "== A"
 *   diff_test gen DIR COUNT       pairs of texts with \v and \f lines
 *
 * DIFF_TEST_DUMP=DIR keeps both buffers of every mismatch in DIR.
 * Exit 0 when every hunk list is the same, 1 on a mismatch, 2 on misuse.
 */
#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/diff.h"
#include "strata/error.h"
#include "strata/odb.h"

/* ---- the oracle ------------------------------------------------------- */

/* git's trim_common_tail(), written out again from its description. */
static void oracle_trim(const char *a, size_t *alen, const char *b,
			size_t *blen)
{
	size_t small = *alen < *blen ? *alen : *blen, gone = 0, back = 0;

	while (gone + 1024 <= small &&
	       memcmp(a + *alen - gone - 1024, b + *blen - gone - 1024,
		      1024) == 0)
		gone += 1024;
	while (back < gone && a[*alen - gone + back++] != '\n')
		;
	*alen -= gone - back;
	*blen -= gone - back;
}

static int oracle_hunk(const git_diff_delta *delta,
		       const git_diff_hunk *h, void *payload)
{
	struct diff_result *r = payload;
	struct diff_hunk *d;

	(void)delta;
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 64;
		r->hunks = realloc(r->hunks, r->alloc * sizeof(*r->hunks));
		if (!r->hunks)
			abort();
	}
	d = &r->hunks[r->n++];
	d->old_count = (uint32_t)h->old_lines;
	d->old_start = (uint32_t)(h->old_lines ? h->old_start - 1
					       : h->old_start);
	d->new_count = (uint32_t)h->new_lines;
	d->new_start = (uint32_t)(h->new_lines ? h->new_start - 1
					       : h->new_start);
	return 0;
}

static int oracle(struct diff_result *r, const char *a, size_t alen,
		  const char *b, size_t blen, unsigned flags)
{
	git_diff_options o;

	r->n = 0;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	oracle_trim(a, &alen, b, &blen);
	o.context_lines = 0;
	o.interhunk_lines = 0;
	o.flags = GIT_DIFF_FORCE_TEXT | GIT_DIFF_INDENT_HEURISTIC;
	if (flags & DIFF_IGNORE_WHITESPACE)
		o.flags |= GIT_DIFF_IGNORE_WHITESPACE;
	return git_diff_buffers(alen ? a : "", alen, NULL, blen ? b : "",
				blen, NULL, &o, NULL, NULL, oracle_hunk, NULL,
				r);
}

/* ---- comparing -------------------------------------------------------- */

static struct diff_result ours, theirs;
static unsigned long compared, mismatched, with_vf;

static void show(const char *who, const struct diff_result *r)
{
	size_t i;

	fprintf(stderr, "  %s (%zu):", who, r->n);
	for (i = 0; i < r->n && i < 12; i++)
		fprintf(stderr, " -%u,%u+%u,%u", r->hunks[i].old_start,
			r->hunks[i].old_count, r->hunks[i].new_start,
			r->hunks[i].new_count);
	fprintf(stderr, "%s\n", r->n > 12 ? " ..." : "");
}

static void dump(const char *name, const char *which, const char *p,
		 size_t n)
{
	const char *dir = getenv("DIFF_TEST_DUMP");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, which);
	f = fopen(path, "wb");
	if (f) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
}

static uint32_t naive_lines(const char *p, size_t n)
{
	uint32_t k = 0;
	size_t i;

	for (i = 0; i < n; i++)
		k += p[i] == '\n';
	return k + (n && p[n - 1] != '\n');
}

/*
 * Both ways on one pair and mode; returns 0 when they agree. With keys
 * (object ids), strata's side goes through diff_blobs(), which reuses the
 * lines of blobs it has seen in the calls before.
 */
static int check_keyed(const char *name, const char *a, size_t alen,
		       const unsigned char *akey, const char *b, size_t blen,
		       const unsigned char *bkey, unsigned flags)
{
	struct diff_blob A = { a, alen, akey }, B = { b, blen, bkey };
	int rc = diff_blobs(&ours, &A, &B, flags);

	if (diff_count_lines(a, alen) != naive_lines(a, alen) ||
	    diff_count_lines(b, blen) != naive_lines(b, blen)) {
		fprintf(stderr, "%s: diff_count_lines is wrong\n", name);
		mismatched++;
	}

	if (rc < 0 || oracle(&theirs, a, alen, b, blen, flags) < 0) {
		fprintf(stderr, "%s: a diff failed (%d)\n", name, rc);
		mismatched++;
		return 1;
	}
	compared++;
	if (ours.n == theirs.n &&
	    (!ours.n || !memcmp(ours.hunks, theirs.hunks,
				ours.n * sizeof(*ours.hunks))))
		return 0;
	mismatched++;
	/* where git and libgit2 disagree (see the top of src/diff.c) */
	if (memchr(a, '\v', alen) || memchr(a, '\f', alen) ||
	    memchr(b, '\v', blen) || memchr(b, '\f', blen))
		with_vf++;
	fprintf(stderr, "MISMATCH %s%s (%zu and %zu bytes)\n", name,
		flags ? " -w" : "", alen, blen);
	show("ours", &ours);
	show("libgit2", &theirs);
	dump(name, "a", a, alen);
	dump(name, "b", b, blen);
	return 1;
}

static int check(const char *name, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags)
{
	return check_keyed(name, a, alen, NULL, b, blen, NULL, flags);
}

static void check_both(const char *name, const char *a, size_t alen,
		       const char *b, size_t blen)
{
	check(name, a, alen, b, blen, 0);
	check(name, a, alen, b, blen, DIFF_IGNORE_WHITESPACE);
}

/* ---- synthetic cases -------------------------------------------------- */

static unsigned long long seed = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return n ? (unsigned)(seed % n) : 0;
}

struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (!n)
		return;
	if (t->n + n + 1 > t->cap) {
		t->cap = (t->n + n + 1) * 2;
		t->p = realloc(t->p, t->cap);
		if (!t->p)
			abort();
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
}

static void puts_(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* Lines chosen to make sliders, blank runs and indentation choices. */
static const char *const vocab[] = {
	"{\n", "}\n", "\n", "\n", "\tfoo();\n", "\tif (x) {\n",
	"\t\tbar();\n", "\t}\n", "\treturn 0;\n", "int a;\n", "x\n", "x\n",
	"/* comment */\n", "static int f(void)\n", "    spaced();\n",
	"\t\t}\n", "  \t \n", "\tfoo( );\n", "\t foo();\n", "x\r\n",
	"end\n", "\v\n", "\f\n", "\f}\n", " \f x\n", "\t\t\t\tdeep();\n",
	"\t\t\t\t\t}\n", "                          far();\n"
};
#define NVOCAB (sizeof(vocab) / sizeof(*vocab))

/* A random line: from a vocabulary of `spread` lines, or fresh. */
static void line(struct text *t, unsigned spread)
{
	char buf[64];

	if (rnd(8) == 0) {
		snprintf(buf, sizeof(buf), "line %u\n", rnd(100000));
		puts_(t, buf);
	} else {
		puts_(t, vocab[rnd(spread < NVOCAB ? spread : NVOCAB)]);
	}
}

/* An edited copy of a: insertions, deletions, changes, whitespace. */
static void edit(struct text *b, const struct text *a, unsigned rate,
		 unsigned spread)
{
	size_t i = 0;

	while (i < a->n) {
		size_t e = i;
		unsigned k = rnd(1000);

		while (e < a->n && a->p[e] != '\n')
			e++;
		if (e < a->n)
			e++;
		if (k < rate) {
			/* drop it */
		} else if (k < 2 * rate) {
			put(b, a->p + i, e - i);
			line(b, spread);
		} else if (k < 3 * rate) {
			line(b, spread);
		} else if (k < 4 * rate) {
			put(b, " ", 1);
			put(b, a->p + i, e - i);
		} else if (k < 4 * rate + rate / 2 + 1 && e - i > 1) {
			put(b, a->p + i, e - i - 1);
			puts_(b, "\r\n");
		} else {
			put(b, a->p + i, e - i);
		}
		i = e;
	}
	if (rnd(4) == 0)
		line(b, spread);
	if (rnd(6) == 0 && b->n && b->p[b->n - 1] == '\n')
		b->n--;
}

static void random_text(struct text *t, size_t lines, unsigned spread)
{
	size_t i;

	for (i = 0; i < lines; i++)
		line(t, spread);
	if (rnd(5) == 0 && t->n)
		t->n--;
}

static void pair_case(const char *name, const char *a, const char *b)
{
	check_both(name, a, strlen(a), b, strlen(b));
}

static void fixed_cases(void)
{
	pair_case("empty", "", "");
	pair_case("add-all", "", "a\nb\n");
	pair_case("del-all", "a\nb\n", "");
	pair_case("eol", "a\nb", "a\nb\n");
	pair_case("eol2", "a\nb\n", "a\nb");
	pair_case("crlf", "a\r\nb\r\n", "a\nb\n");
	pair_case("ws", "a b\n c\n", "ab\nc \n");
	pair_case("ws-eol", "a \n", "a");
	pair_case("slider",
		  "int f()\n{\n\tif (a) {\n\t\tx();\n\t}\n}\n",
		  "int f()\n{\n\tif (a) {\n\t\tx();\n\t}\n\tif (a) {\n"
		  "\t\tx();\n\t}\n}\n");
	pair_case("blank-slider", "a\n\nb\n\nc\n", "a\n\nb\n\nb\n\nc\n");
	pair_case("repeat", "x\nx\nx\n", "x\nx\nx\nx\nx\n");
	pair_case("repeat2", "x\nx\n", "x\n");
	pair_case("prefix-line", "x\nabc\n", "x\nabd\nabc\n");
	pair_case("partial", "ab", "abc");
	pair_case("partial2", "ab\n", "ab\nab");
	pair_case("formfeed", "a\n\tb\n\f\n\tc\n", "a\n\tb\n\f\n\tc\n\tb\n"
		  "\f\n\tc\n");
}

/* Texts past 1 KiB with equal tails, so the tail trim takes part. */
static void tail_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 }, tail = { 0 };
		char name[64];

		random_text(&a, 5 + rnd(60), 6 + rnd(20));
		edit(&b, &a, 30, 12);
		random_text(&tail, 40 + rnd(200), 4 + rnd(20));
		if (rnd(2) && a.n && a.p[a.n - 1] != '\n')
			put(&a, "\n", 1);
		put(&a, tail.p, tail.n);
		put(&b, tail.p, tail.n);
		snprintf(name, sizeof(name), "tail-%u", r);
		check_both(name, a.p, a.n, b.p, b.n);
		free(a.p);
		free(b.p);
		free(tail.p);
	}
}

static void random_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 };
		unsigned spread = 2 + rnd(NVOCAB + 4);
		char name[64];

		random_text(&a, rnd(4) ? rnd(80) : rnd(600), spread);
		edit(&b, &a, 10 + rnd(200), spread);
		snprintf(name, sizeof(name), "random-%u", r);
		check_both(name, a.p, a.n, b.p, b.n);
		free(a.p);
		free(b.p);
	}
}

/*
 * Big inputs: a few lines repeated thousands of times (many matches, so
 * records get discarded and the cost limits cut the search), and 20k+
 * line texts with scattered or dense edits.
 */
static void big_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 };
		char name[64];
		size_t n = r % 2 ? 20000 + rnd(15000) : 3000 + rnd(9000);
		unsigned spread = r % 3 == 0 ? 3 : r % 3 == 1 ? 8 : NVOCAB;
		unsigned rate = r % 4 == 0 ? 2 : r % 4 == 1 ? 40 :
				r % 4 == 2 ? 150 : 300;

		random_text(&a, n, spread);
		edit(&b, &a, rate, spread);
		snprintf(name, sizeof(name), "big-%u", r);
		check_both(name, a.p, a.n, b.p, b.n);
		free(a.p);
		free(b.p);
	}
}

/* Distinct lines with a block moved and long runs rewritten. */
static void long_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 };
		char name[64], buf[64];
		size_t n = 5000 + rnd(25000), i;
		size_t cut1 = rnd((unsigned)n), cut2 = rnd((unsigned)n);

		for (i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "%s%zu\n",
				 i % 7 ? "\tv" : "", i % 5000);
			puts_(&a, buf);
			if (i >= cut1 && i < cut1 + 600) {
				snprintf(buf, sizeof(buf), "w%u\n",
					 rnd(2000));
				puts_(&b, buf);
			} else if (!(i >= cut2 && i < cut2 + 300)) {
				puts_(&b, buf);
			}
		}
		snprintf(name, sizeof(name), "long-%u", r);
		check_both(name, a.p, a.n, b.p, b.n);
		free(a.p);
		free(b.p);
	}
}

/*
 * Runs of lines without a match on the other side, of one line repeated
 * about as often as the "too many matches" limit (rough sqrt of the line
 * count), and of lines common to both: records with many matches among
 * records with none get discarded, depending on the limit and the window.
 */
static void discard_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text t[2] = { { 0 }, { 0 } };
		char name[64], buf[64];
		size_t n = 200 + rnd(6000), i, k;
		unsigned lim = 1, side, reps[2];

		for (i = n; i; i >>= 2)
			lim <<= 1;
		reps[0] = lim - 1 + rnd(3);
		reps[1] = lim - 1 + rnd(3);
		for (side = 0; side < 2; side++) {
			unsigned left = reps[!side];

			for (i = 0; i < n;) {
				size_t run = 1 + rnd(rnd(2) ? 150 : 20);
				unsigned kind = rnd(10);

				for (k = 0; k < run && i < n; k++, i++) {
					if (kind < 3 && left && i + 1 < n) {
						left--;
						snprintf(buf, sizeof(buf),
							 "rep\n");
					} else if (kind == 9) {
						snprintf(buf, sizeof(buf),
							 "c%zu\n", i);
					} else {
						snprintf(buf, sizeof(buf),
							 "u%u.%zu\n", side, i);
					}
					puts_(&t[side], buf);
				}
			}
		}
		snprintf(name, sizeof(name), "discard-%u", r);
		check_both(name, t[0].p, t[0].n, t[1].p, t[1].n);
		free(t[0].p);
		free(t[1].p);
	}
}

/*
 * Dense edits between long equal runs: the search costs pass the
 * heuristic thresholds with long snakes around, so the shortcuts of the
 * split (good diagonals, giving up at the cost limit) take over.
 */
static void scatter_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 };
		char name[64], buf[64];
		size_t n = r % 2 ? 35000 + rnd(30000) : 3000 + rnd(30000);
		size_t i, until = 0;
		unsigned dup = 1 + rnd(40), rate = 0;

		for (i = 0; i < n; i++) {
			if (i == until) {
				/* alternate clean and dense stretches */
				rate = rate ? 0 : 2 + rnd(5);
				until = i + (rate ? 3 + rnd(120) :
						    15 + rnd(50));
			}
			snprintf(buf, sizeof(buf), "%sl%zu\n",
				 i % 3 ? "\t" : "", i % (n / dup + 1));
			puts_(&a, buf);
			if (rate && rnd(rate) == 0) {
				unsigned k = rnd(6);

				if (k < 2)
					continue;
				snprintf(buf, sizeof(buf), "n%u\n", rnd(1000));
				puts_(&b, buf);
				if (k < 4)
					continue;
				snprintf(buf, sizeof(buf), "l%zu\n", i);
			}
			puts_(&b, buf);
		}
		snprintf(name, sizeof(name), "scatter-%u", r);
		check_both(name, a.p, a.n, b.p, b.n);
		free(a.p);
		free(b.p);
	}
}

/* A block repeated many times, one copy more or less: far sliders. */
static void slide_cases(unsigned rounds)
{
	unsigned r;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 }, blk = { 0 }, pre = { 0 };
		struct text post = { 0 };
		unsigned reps = 1 + rnd(250), at = rnd(reps), i, size;
		unsigned extra = rnd(3) ? 0 : rnd(120);
		char name[64];

		random_text(&pre, rnd(6), NVOCAB);
		random_text(&post, rnd(6), NVOCAB);
		if (pre.n && pre.p[pre.n - 1] != '\n')
			put(&pre, "\n", 1);
		size = 1 + rnd(4);
		for (i = 0; i < size; i++)
			line(&blk, 3 + rnd(10));
		put(&a, pre.p, pre.n);
		put(&b, pre.p, pre.n);
		for (i = 0; i < reps; i++) {
			put(&a, blk.p, blk.n);
			put(&b, blk.p, blk.n);
			if (i == at)
				put(&b, blk.p, rnd(3) ? blk.n : blk.n / 2);
			if (i >= at && i < at + extra)
				put(&b, blk.p, blk.n);
		}
		put(&a, post.p, post.n);
		put(&b, post.p, post.n);
		snprintf(name, sizeof(name), "slide-%u", r);
		if (rnd(2))
			check_both(name, a.p, a.n, b.p, b.n);
		else
			check_both(name, b.p, b.n, a.p, a.n);
		free(a.p);
		free(b.p);
		free(blk.p);
		free(pre.p);
		free(post.p);
	}
}

/*
 * Short texts from a few lines that are equal but for whitespace: the
 * equal ends of -w reach past the equal bytes, into either side.
 */
static void ws_cases(unsigned rounds)
{
	static const char *const ws[] = {
		"a\n", "a \n", " a\n", "\ta\n", "b\n", " b\n", "\n", " \n",
		"a b\n", "ab\n", "a", " a", "\r\n", "a\r\n"
	};
	unsigned r, i, side;

	for (r = 0; r < rounds; r++) {
		struct text t[2] = { { 0 }, { 0 } };
		char name[64];
		unsigned common = rnd(6), spread = 2 + rnd(12);

		for (side = 0; side < 2; side++) {
			unsigned n = rnd(6);

			for (i = 0; i < n; i++)
				puts_(&t[side], ws[rnd(spread)]);
			for (i = 0; i < common; i++)
				puts_(&t[side], i % 2 ? "b\n" : "c\n");
			seed ^= side ? 0 : 0x9e37;
		}
		snprintf(name, sizeof(name), "ws-%u", r);
		check_both(name, t[0].p, t[0].n, t[1].p, t[1].n);
		free(t[0].p);
		free(t[1].p);
	}
}

/*
 * One line repeated, some copies more on one side, between a few lines
 * of other indentations (or none, at the start or end of the file): the
 * group slides over the whole run, and the indent heuristic weighs every
 * place, near the limits on how far it looks (MAX_SLIDING) too.
 */
static void far_slide_cases(unsigned rounds)
{
	static const char *const lines[] = {
		"a\n", "\n", "\tb\n", "\t\tc\n", "\t\t\td\n", "\t\t\t\te\n",
		"    f\n", "        g\n", "  \t  h\n", "}\n", "\t}\n", " \n",
		"\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\ti\n"
	};
	const unsigned nl = sizeof(lines) / sizeof(*lines);
	unsigned r, i;

	for (r = 0; r < rounds; r++) {
		struct text a = { 0 }, b = { 0 };
		const char *rep = lines[rnd(nl)];
		unsigned run = 1 + rnd(130), more = 1 + rnd(150);
		unsigned pre = rnd(4), post = rnd(4);
		char name[64];

		for (i = 0; i < pre; i++) {
			const char *l = lines[rnd(nl)];

			puts_(&a, l);
			puts_(&b, l);
		}
		for (i = 0; i < run; i++) {
			puts_(&a, rep);
			puts_(&b, rep);
		}
		for (i = 0; i < more; i++)
			puts_(&b, rep);
		for (i = 0; i < post; i++) {
			const char *l = lines[rnd(nl)];

			puts_(&a, l);
			puts_(&b, l);
		}
		snprintf(name, sizeof(name), "far-slide-%u", r);
		if (rnd(2))
			check_both(name, a.p, a.n, b.p, b.n);
		else
			check_both(name, b.p, b.n, a.p, a.n);
		free(a.p);
		free(b.p);
	}
}

/*
 * diff_buffers() runs on several threads at once in strata, each with its
 * own context: the same diffs on four threads must agree with one.
 */
#define NSHARED 200

static struct text shared[NSHARED][2];
static struct diff_result shared_want[NSHARED];

static void *diff_all(void *arg)
{
	struct diff_result r = { 0 };
	long bad = 0;
	int i, k;

	(void)arg;
	for (k = 0; k < 5; k++) {
		for (i = 0; i < NSHARED; i++) {
			const struct diff_result *w = &shared_want[i];

			if (diff_buffers(&r, shared[i][0].p, shared[i][0].n,
					 shared[i][1].p, shared[i][1].n,
					 (unsigned)i % 2) < 0 || r.n != w->n ||
			    (r.n && memcmp(r.hunks, w->hunks,
					   r.n * sizeof(*r.hunks))))
				bad++;
		}
	}
	diff_result_release(&r);
	return (void *)bad;
}

static void thread_cases(void)
{
	pthread_t t[4];
	int i;

	for (i = 0; i < NSHARED; i++) {
		/* small ones, and now and then a big one */
		random_text(&shared[i][0], i % 25 ? rnd(300) : 5000 + rnd(20000),
			    2 + rnd(NVOCAB));
		edit(&shared[i][1], &shared[i][0], 20 + rnd(100), NVOCAB);
		diff_buffers(&shared_want[i], shared[i][0].p, shared[i][0].n,
			     shared[i][1].p, shared[i][1].n, (unsigned)i % 2);
	}
	for (i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, diff_all, NULL))
			abort();
	for (i = 0; i < 4; i++) {
		void *bad;

		pthread_join(t[i], &bad);
		if (bad) {
			fprintf(stderr, "threads: %ld diffs differ\n",
				(long)bad);
			mismatched++;
		}
	}
	for (i = 0; i < NSHARED; i++) {
		free(shared[i][0].p);
		free(shared[i][1].p);
		diff_result_release(&shared_want[i]);
	}
}

static int synth(unsigned rounds)
{
	fixed_cases();
	ws_cases(rounds * 40);
	random_cases(rounds * 20);
	tail_cases(rounds * 2);
	slide_cases(rounds * 10);
	far_slide_cases(rounds * 20);
	discard_cases(rounds / 2 + 2);
	scatter_cases(rounds / 5 + 2);
	big_cases(rounds / 5 + 4);
	long_cases(rounds / 10 + 2);
	thread_cases();
	printf("synth: %lu diffs compared, %lu mismatches\n", compared,
	       mismatched);
	return mismatched ? 1 : 0;
}

/* ---- pairs from a repository ------------------------------------------ */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define BATCH 16

struct pair {
	git_blob *a, *b;
	char name[90];
};

static double t_ours[4], t_theirs[4];
static int timing_runs = 2;
static unsigned long npairs;

/* Time one implementation over a batch, in CPU seconds. */
static double time_batch(struct pair *p, int n, unsigned flags, int which)
{
	double t0 = cpu_now();
	int i;

	for (i = 0; i < n; i++) {
		const char *a = git_blob_rawcontent(p[i].a);
		const char *b = git_blob_rawcontent(p[i].b);
		size_t an = (size_t)git_blob_rawsize(p[i].a);
		size_t bn = (size_t)git_blob_rawsize(p[i].b);

		if (which)
			oracle(&theirs, a, an, b, bn, flags);
		else
			diff_buffers(&ours, a, an, b, bn, flags);
	}
	return cpu_now() - t0;
}

static void run_batch(struct pair *p, int n)
{
	static unsigned turn;
	unsigned flags[2] = { 0, DIFF_IGNORE_WHITESPACE };
	int f, i;

	for (f = 0; f < 2; f++) {
		/*
		 * Each in turn goes first on the freshly loaded batch (the
		 * second finds warmer caches), then both run it again.
		 */
		int first = (int)(turn++ % 2), r;

		for (r = 0; r < timing_runs; r++) {
			int which = (first + r) % 2;
			double t = time_batch(p, n, flags[f], which);

			if (which)
				t_theirs[f + 2 * (r / 2)] += t;
			else
				t_ours[f + 2 * (r / 2)] += t;
		}
		for (i = 0; i < n; i++)
			check_keyed(p[i].name, git_blob_rawcontent(p[i].a),
				    (size_t)git_blob_rawsize(p[i].a),
				    git_blob_id(p[i].a)->id,
				    git_blob_rawcontent(p[i].b),
				    (size_t)git_blob_rawsize(p[i].b),
				    git_blob_id(p[i].b)->id, flags[f]);
	}
	for (i = 0; i < n; i++) {
		git_blob_free(p[i].a);
		git_blob_free(p[i].b);
	}
	npairs += (unsigned long)n;
}

static int pairs(const char *gitdir, int argc, char **argv)
{
	static struct pair batch[BATCH];
	git_repository *repo;
	char l[256], x[64], y[64];
	int n = 0, i, verbose = 0;

	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-t"))
			timing_runs = 4;
	}

	if (git_repository_open_bare(&repo, gitdir) < 0) {
		fprintf(stderr, "unable to open '%s'\n", gitdir);
		return 2;
	}
	while (fgets(l, sizeof(l), stdin)) {
		git_oid ox, oy;

		if (sscanf(l, "%63s %63s", x, y) != 2 ||
		    git_oid_fromstr(&ox, x) < 0 || git_oid_fromstr(&oy, y) < 0)
			continue;
		if (git_blob_lookup(&batch[n].a, repo, &ox) < 0)
			continue;
		if (git_blob_lookup(&batch[n].b, repo, &oy) < 0) {
			git_blob_free(batch[n].a);
			continue;
		}
		snprintf(batch[n].name, sizeof(batch[n].name), "%.12s-%.12s",
			 x, y);
		if (++n == BATCH) {
			run_batch(batch, n);
			n = 0;
			if (verbose && npairs % 4096 < BATCH)
				fprintf(stderr, "%lu pairs\n", npairs);
		}
	}
	run_batch(batch, n);
	git_repository_free(repo);
	printf("pairs: %lu pairs, %lu diffs compared (with and without -w), "
	       "%lu mismatches (%lu with \\v or \\f)\n", npairs, compared,
	       mismatched, with_vf);
	for (i = 0; npairs && i < timing_runs; i += 2)
		printf("cpu us/pair, %s: ours %.1f (-w %.1f), libgit2 %.1f "
		       "(-w %.1f)\n", i ? "second run" : "first run",
		       t_ours[i] * 1e6 / npairs, t_ours[i + 1] * 1e6 / npairs,
		       t_theirs[i] * 1e6 / npairs,
		       t_theirs[i + 1] * 1e6 / npairs);
	return mismatched ? 1 : 0;
}

/* ---- blobs read from their pack deltas --------------------------------- */

/*
 * diff_stored() on each pair "OLD NEW" of stdin must give the hunks that
 * diff_buffers() gives on the blobs' bytes (as libgit2 reads them), and
 * their line counts.
 */
static int stored(const char *gitdir)
{
	git_repository *repo;
	struct odb *db;
	char l[256], x[64], y[64];
	unsigned long n = 0, bad = 0, hunks = 0;

	if (git_repository_open(&repo, gitdir) < 0 ||
	    odb_open(&db, repo, 0) < 0) {
		fprintf(stderr, "unable to open '%s'\n", gitdir);
		return 2;
	}
	while (fgets(l, sizeof(l), stdin)) {
		git_oid ox, oy;
		git_blob *a, *b;
		uint32_t al = 0, bl = 0, cl = 0;
		size_t k;
		int differ;

		if (sscanf(l, "%63s %63s", x, y) != 2 ||
		    git_oid_fromstr(&ox, x) < 0 || git_oid_fromstr(&oy, y) < 0)
			continue;
		if (git_blob_lookup(&a, repo, &ox) < 0)
			continue;
		if (git_blob_lookup(&b, repo, &oy) < 0) {
			git_blob_free(a);
			continue;
		}
		if (diff_buffers(&theirs, git_blob_rawcontent(a),
				 (size_t)git_blob_rawsize(a),
				 git_blob_rawcontent(b),
				 (size_t)git_blob_rawsize(b), 0) < 0 ||
		    diff_stored(&ours, db, repo, &ox, &oy, &al, &bl) < 0 ||
		    diff_stored_lines(&cl, db, repo, &oy) < 0) {
			fprintf(stderr, "%.12s %.12s: %s\n", x, y, error_last());
			bad++;
			goto next;
		}
		differ = ours.n != theirs.n ||
			 al != diff_count_lines(git_blob_rawcontent(a),
						(size_t)git_blob_rawsize(a)) ||
			 bl != diff_count_lines(git_blob_rawcontent(b),
						(size_t)git_blob_rawsize(b)) ||
			 cl != bl;
		for (k = 0; !differ && k < ours.n; k++)
			differ = memcmp(&ours.hunks[k], &theirs.hunks[k],
					sizeof(ours.hunks[k])) != 0;
		if (differ) {
			fprintf(stderr, "%.12s %.12s: stored blobs diff "
				"otherwise\n", x, y);
			bad++;
		}
		hunks += ours.n;
		n++;
next:
		git_blob_free(a);
		git_blob_free(b);
	}
	printf("stored: %lu pairs, %lu hunks, %lu mismatches\n", n, hunks,
	       bad);
	odb_free(db);
	git_repository_free(repo);
	return bad || !n ? 1 : 0;
}

/* ---- against git itself ---------------------------------------------- */

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n + 65536 > cap) {
			cap = (*n + 65536) * 2;
			p = realloc(p, cap);
			if (!p)
				abort();
		}
		size_t got = fread(p + *n, 1, cap - *n, f);

		if (!got)
			break;
		*n += got;
	}
	fclose(f);
	return p;
}

/* Print our hunks for two files, as "OLD_START OLD_COUNT NEW_START ...". */
static int hunks(const char *x, const char *y, unsigned flags)
{
	size_t an, bn, i;
	char *a = slurp(x, &an), *b = slurp(y, &bn);

	if (!a || !b || diff_buffers(&ours, a, an, b, bn, flags) < 0) {
		fprintf(stderr, "unable to diff '%s' and '%s'\n", x, y);
		return 2;
	}
	for (i = 0; i < ours.n; i++)
		printf("%u %u %u %u\n", ours.hunks[i].old_start,
		       ours.hunks[i].old_count, ours.hunks[i].new_start,
		       ours.hunks[i].new_count);
	free(a);
	free(b);
	return 0;
}

/*
 * The same for many pairs, one "A<TAB>B" a line on stdin (one process for
 * all, process starts being dear): "== A" and then A and B's hunks.
 */
static int hunks_list(unsigned flags)
{
	char line[8192];
	int rc = 0;

	while (!rc && fgets(line, sizeof(line), stdin)) {
		char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');

		if (!tab || !nl) {
			fprintf(stderr, "bad line: %s\n", line);
			return 2;
		}
		*tab = *nl = '\0';
		printf("== %s\n", line);
		rc = hunks(line, tab + 1, flags);
	}
	return rc;
}

/*
 * Write pairs of texts full of lines with \v and \f, which git's xdiff
 * and libgit2's do not take for the same (git: not whitespace), for the
 * test script to diff with git.
 */
static int gen(const char *dir, unsigned count)
{
	static const char *const ff[] = {
		"\f\n", "\v\n", "\t\f\n", "\f}\n", "\fx\n", " \v y\n",
		"\n", "\tx();\n", "}\n", "{\n", "\t\ty();\n", "z\n",
		"\t\fz\n"
	};
	unsigned r;

	for (r = 0; r < count; r++) {
		struct text t[2] = { { 0 }, { 0 } };
		char path[4096];
		unsigned n = 3 + rnd(40), i;

		for (i = 0; i < n; i++)
			puts_(&t[0], ff[rnd(sizeof(ff) / sizeof(*ff))]);
		edit(&t[1], &t[0], 60 + rnd(100), 6);
		for (i = rnd(4); i > 0; i--)
			puts_(&t[1], ff[rnd(7)]);
		for (i = 0; i < 2; i++) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/%u.%c", dir, r,
				 i ? 'b' : 'a');
			f = fopen(path, "wb");
			if (!f)
				return 2;
			fwrite(t[i].p, 1, t[i].n, f);
			fclose(f);
			free(t[i].p);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	git_libgit2_init();
	if (argc >= 2 && !strcmp(argv[1], "synth"))
		rc = synth(argc > 2 ? (unsigned)atoi(argv[2]) : 50);
	else if (argc >= 3 && !strcmp(argv[1], "pairs"))
		rc = pairs(argv[2], argc, argv);
	else if (argc == 3 && !strcmp(argv[1], "stored"))
		rc = stored(argv[2]);
	else if (argc >= 4 && !strcmp(argv[1], "hunks"))
		rc = hunks(argv[2], argv[3], argc > 4 ?
			   DIFF_IGNORE_WHITESPACE : 0);
	else if (argc >= 2 && !strcmp(argv[1], "hunks-list"))
		rc = hunks_list(argc > 2 ? DIFF_IGNORE_WHITESPACE : 0);
	else if (argc == 4 && !strcmp(argv[1], "gen"))
		rc = gen(argv[2], (unsigned)atoi(argv[3]));
	else
		fprintf(stderr, "usage: diff_test synth [ROUNDS] | "
				"diff_test pairs GITDIR [-v] [-t] | "
				"diff_test stored GITDIR | "
				"diff_test hunks A B [-w] | "
				"diff_test hunks-list [-w] <PAIRS | "
				"diff_test gen DIR COUNT\n");
	diff_result_release(&ours);
	diff_result_release(&theirs);
	git_libgit2_shutdown();
	return rc;
}
