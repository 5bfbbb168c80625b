/*
 * Unit tests for ignore_guess(): hand-checked cases (the expected parent
 * lines were worked out on paper from git 2.39's rules, see each case),
 * then random inputs for properties (want[] never changes an answer,
 * answers stay in range) and for the sanitizers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/ignore.h"

static int failures, cases;

static uint32_t count_lines(const char *s, size_t len)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == '\n')
			n++;
	if (len && s[len - 1] != '\n')
		n++;
	return n;
}

/* Run one guess and compare every line with `expect` (n entries). */
static void check(const char *name, const char *p, const char *t,
		  const struct diff_hunk *h, size_t nh,
		  const unsigned char *want, const int32_t *expect, uint32_t n)
{
	int32_t out[64];
	uint32_t tn = count_lines(t, strlen(t)), i;
	int rc;

	cases++;
	if (tn != n || n > 64) {
		printf("FAIL %s: test has %u expectations for %u lines\n",
		       name, n, tn);
		failures++;
		return;
	}
	rc = ignore_guess(out, p, strlen(p), t, strlen(t), h, nh, want);
	if (rc < 0) {
		printf("FAIL %s: rc %d (%s)\n", name, rc, error_last());
		failures++;
		return;
	}
	for (i = 0; i < n; i++) {
		if (out[i] != expect[i]) {
			printf("FAIL %s: line %u: got %d, want %d\n", name, i,
			       out[i], expect[i]);
			failures++;
			return;
		}
	}
	printf("ok %s\n", name);
}

#define H(os, oc, ns, nc) { (os), (oc), (ns), (nc) }
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define S IGNORE_STAYS
#define Q IGNORE_NOT_ASKED

static void hand_cases(void)
{
	{
		/* short unrelated lines: nothing in the hunk, under the
		 * whole-file threshold; the others keep their counterpart */
		struct diff_hunk h[] = { H(1, 1, 1, 2) };
		int32_t e[] = { 0, S, S, 2, 3 };

		check("outside-hunks", "a\nb\nc\nd\n", "a\nX\nY\nc\nd\n",
		      h, N(h), NULL, e, N(e));
	}
	{
		struct diff_hunk h[] = { H(0, 1, 0, 1) };
		int32_t e[] = { 0 };

		check("renamed-variable", "int count = 0;\n",
		      "int total = 0;\n", h, N(h), NULL, e, N(e));
	}
	{
		/*
		 * One parent line, two target lines with its fingerprint:
		 * the first takes it and uses it up, so the second finds
		 * nothing in the hunk nor in the (now empty) parent line.
		 */
		struct diff_hunk h[] = { H(0, 1, 0, 2) };
		int32_t e[] = { 0, S };

		check("match-uses-up-parent", "alpha alpha alpha\n",
		      "ALPHA alpha alpha\nalpha ALPHA alpha\n", h, N(h), NULL,
		      e, N(e));
	}
	{
		/* The first hunk uses up parent line 0 before the second
		 * hunk's fallback scan looks at it. */
		struct diff_hunk h[] = { H(0, 1, 0, 1), H(2, 1, 2, 1) };
		int32_t e[] = { 0, 1, S };
		unsigned char want[] = { 0, 0, 1 };
		int32_t e2[] = { Q, 1, S };

		check("earlier-hunk-uses-up",
		      "alpha alpha alpha\nmiddle line\nzzz\n",
		      "ALPHA alpha alpha\nmiddle line\nalpha alpha ALPHA\n",
		      h, N(h), NULL, e, N(e));
		check("earlier-hunk-uses-up-unwanted",
		      "alpha alpha alpha\nmiddle line\nzzz\n",
		      "ALPHA alpha alpha\nmiddle line\nalpha alpha ALPHA\n",
		      h, N(h), want, e2, N(e2));
	}
	{
		/* Same line 2 without the first hunk: it finds line 0. */
		struct diff_hunk h[] = { H(2, 1, 2, 1) };
		int32_t e[] = { 0, 1, 0 };

		check("fallback-finds-far-line",
		      "alpha alpha alpha\nmiddle line\nzzz\n",
		      "alpha alpha alpha\nmiddle line\nalpha alpha ALPHA\n",
		      h, N(h), NULL, e, N(e));
	}
	{
		/*
		 * Swapped lines. Certainties: "alpha.." (target 1) 32964 vs
		 * "beta.." (target 0) 26970, so target 1 takes parent 0;
		 * target 0 is then confined to parent 0 (now empty) and the
		 * whole-file scan gives it parent 1 (similarity 15).
		 */
		struct diff_hunk h[] = { H(0, 2, 0, 2) };
		int32_t e[] = { 1, 0 };

		check("swapped-lines",
		      "alpha alpha alpha\nbeta beta beta\n",
		      "beta beta beta\nalpha alpha alpha\n", h, N(h), NULL,
		      e, N(e));
	}
	{
		/* whole-file scan threshold: 9 shared pairs stay, 10 go */
		struct diff_hunk h[] = { H(1, 0, 1, 1) };
		int32_t e9[] = { 0, S };
		int32_t e10[] = { 0, 0 };

		check("threshold-9", "abcdefghiz\n", "abcdefghiz\nabcdefghi\n",
		      h, N(h), NULL, e9, N(e9));
		check("threshold-10", "abcdefghi xyz\n",
		      "abcdefghi xyz\nabcdefghi\n", h, N(h), NULL, e10,
		      N(e10));
	}
	{
		/* ASCII case and runs of space, tab, CR fold away */
		struct diff_hunk h[] = { H(1, 0, 1, 1) };
		int32_t e[] = { 0, 0 };

		check("fold-case-blanks", "ABCDEFGHI\n",
		      "ABCDEFGHI\n\t abcdefghi \r\n", h, N(h), NULL, e, N(e));
	}
	{
		/* git's ctype: VT and FF are not blanks, bytes >= 0x80 have
		 * no case; each leaves 9 or 8 shared pairs */
		struct diff_hunk h[] = { H(1, 0, 1, 1) };
		int32_t e[] = { 0, S };
		int32_t same[] = { 0, 0 };

		check("formfeed-not-blank", "abcdefghi\f\n",
		      "abcdefghi\f\nabcdefghi\n", h, N(h), NULL, e, N(e));
		check("vtab-not-blank", "abcdefghi\v\n",
		      "abcdefghi\v\nabcdefghi\n", h, N(h), NULL, e, N(e));
		check("latin1-no-case", "\xc0" "bcdefghi\n",
		      "\xc0" "bcdefghi\n\xe0" "bcdefghi\n", h, N(h), NULL, e,
		      N(e));
		check("latin1-same", "\xe0" "bcdefghi\n",
		      "\xe0" "bcdefghi\n\xe0" "bcdefghi\n", h, N(h), NULL,
		      same, N(same));
	}
	{
		/* a last line without newline prints like one with */
		struct diff_hunk h[] = { H(1, 0, 1, 1) };
		int32_t e[] = { 0, 0 };

		check("no-final-newline", "abcdefghi",
		      "abcdefghi\nabcdefghi\n", h, N(h), NULL, e, N(e));
	}
	{
		/* scan ties go to the parent line number nearest the target
		 * line number, and the later line when equally near */
		struct diff_hunk h1[] = { H(1, 0, 1, 1) };
		int32_t e1[] = { 0, 2, 1, 2 };
		struct diff_hunk h0[] = { H(0, 0, 0, 1) };
		int32_t e0[] = { 0, 0, 1, 2 };

		check("scan-tie-equidistant",
		      "same text here\nzzz\nsame text here\n",
		      "same text here\nsame text here!\nzzz\nsame text here\n",
		      h1, N(h1), NULL, e1, N(e1));
		check("scan-tie-nearest",
		      "same text here\nzzz\nsame text here\n",
		      "same text here!\nsame text here\nzzz\nsame text here\n",
		      h0, N(h0), NULL, e0, N(e0));
	}
	{
		/* the parent side is empty or the target side is */
		struct diff_hunk h1[] = { H(0, 0, 0, 1) };
		int32_t e1[] = { S };
		struct diff_hunk h2[] = { H(0, 1, 0, 0) };
		struct diff_hunk h3[] = { H(1, 1, 1, 0) };
		int32_t e3[] = { 0, 2 };

		check("empty-parent", "", "hello world again\n", h1, N(h1),
		      NULL, e1, N(e1));
		check("empty-target", "a\n", "", h2, N(h2), NULL, NULL, 0);
		check("pure-deletion", "a\nb\nc\n", "a\nc\n", h3, N(h3), NULL,
		      e3, N(e3));
	}
	{
		/* A reformatted block keeps its order line for line. */
		static char p[4096], t[4096];
		struct diff_hunk h[] = { H(1, 30, 1, 30) };
		int32_t e[32];
		size_t pl = 0, tl = 0;
		int i;

		pl += (size_t)sprintf(p + pl, "head\n");
		tl += (size_t)sprintf(t + tl, "head\n");
		e[0] = 0;
		for (i = 0; i < 30; i++) {
			pl += (size_t)sprintf(p + pl,
				"\tvalue_%d = compute(item_%d, %d);\n", i, i,
				i * 7);
			tl += (size_t)sprintf(t + tl,
				"    val_%d=compute( item_%d,%d );\n", i, i,
				i * 7);
			e[i + 1] = i + 1;
		}
		sprintf(p + pl, "tail\n");
		sprintf(t + tl, "tail\n");
		e[31] = 31;
		check("reformatted-block", p, t, h, N(h), NULL, e, 32);
	}
}

static void error_cases(void)
{
	int32_t out[8];
	struct diff_hunk past[] = { H(0, 3, 0, 1) };
	struct diff_hunk order[] = { H(2, 1, 2, 1), H(0, 1, 0, 1) };
	struct diff_hunk skew[] = { H(1, 1, 0, 1) };

	cases++;
	if (ignore_guess(out, "a\nb\n", 4, "a\nb\n", 4, past, 1, NULL) !=
		    STRATA_ERR ||
	    ignore_guess(out, "a\nb\nc\n", 6, "a\nb\nc\n", 6, order, 2,
			 NULL) != STRATA_ERR ||
	    ignore_guess(out, "a\nb\n", 4, "a\nb\n", 4, skew, 1, NULL) !=
		    STRATA_ERR ||
	    ignore_guess(out, "a\nb\n", 4, "a\n", 2, NULL, 0, NULL) !=
		    STRATA_ERR) {
		printf("FAIL bad-hunks: accepted\n");
		failures++;
		return;
	}
	if (!strstr(error_last(), "hunks")) {
		printf("FAIL bad-hunks: message '%s'\n", error_last());
		failures++;
		return;
	}
	printf("ok bad-hunks\n");
}

/* --- random inputs ------------------------------------------------------ */

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static const char *words[] = {
	"int", "count", "total", "return", "if", "x", "y", "foo", "bar",
	"Count", "TOTAL", "(", ")", "{", "}", ";", "=", "+", "buf", "len",
	"\t", "  ", "\xc3\xa9t\xc3\xa9", "\r", "\f", "ab", "ba"
};

static size_t random_line(char *o)
{
	size_t n = 0, k = rnd(8), i;

	for (i = 0; i < k; i++) {
		const char *w = words[rnd(N(words))];

		memcpy(o + n, w, strlen(w));
		n += strlen(w);
		if (rnd(2))
			o[n++] = ' ';
	}
	o[n++] = '\n';
	return n;
}

/*
 * Build a parent and a target from shared and fresh lines, with the
 * hunks that describe it (not a minimal diff; ignore_guess does not care).
 */
static void random_case(void)
{
	static char p[1 << 16], t[1 << 16];
	static struct diff_hunk h[256];
	static int32_t all[4096], some[4096];
	static unsigned char want[4096];
	static size_t pstart[4096];
	size_t pl = 0, tl = 0, nh = 0, k;
	uint32_t pn = 0, tn = 0, segs = 1 + rnd(12), s, i;

	for (s = 0; s < segs; s++) {
		uint32_t same = rnd(5), oc = rnd(6), nc = rnd(9);

		for (i = 0; i < same; i++) {
			size_t n;

			pstart[pn] = pl;
			n = random_line(p + pl);

			memcpy(t + tl, p + pl, n);
			pl += n;
			tl += n;
			pn++;
			tn++;
		}
		if (!oc && !nc)
			continue;
		h[nh].old_start = pn;
		h[nh].old_count = oc;
		h[nh].new_start = tn;
		h[nh].new_count = nc;
		nh++;
		for (i = 0; i < oc; i++, pn++) {
			pstart[pn] = pl;
			pl += random_line(p + pl);
		}
		for (i = 0; i < nc; i++, tn++) {
			/* often a reworked copy of a parent line */
			if (pn && rnd(3)) {
				uint32_t from = rnd(pn);
				size_t at = pstart[from], j = 0;

				while (p[at + j] != '\n')
					j++;
				memcpy(t + tl, p + at, j);
				if (j && rnd(2))
					t[tl + rnd((uint32_t)j)] = ' ';
				else if (j)
					t[tl + rnd((uint32_t)j)] ^= 0x20;
				tl += j;
				t[tl++] = '\n';
			} else {
				tl += random_line(t + tl);
			}
		}
	}
	/* no final newline (unless that would drop an empty last line) */
	if (rnd(4) == 0 && tl > 1 && t[tl - 2] != '\n')
		tl--;
	for (i = 0; i < tn; i++)
		want[i] = (unsigned char)rnd(2);
	cases++;
	if (ignore_guess(all, p, pl, t, tl, h, nh, NULL) < 0 ||
	    ignore_guess(some, p, pl, t, tl, h, nh, want) < 0) {
		printf("FAIL random: %s\n", error_last());
		failures++;
		return;
	}
	for (i = 0; i < tn; i++) {
		int in_hunk = 0;

		for (k = 0; k < nh; k++)
			if (i >= h[k].new_start &&
			    i < h[k].new_start + h[k].new_count)
				in_hunk = 1;
		if (all[i] < (in_hunk ? -1 : 0) || all[i] >= (int32_t)pn ||
		    (want[i] || !in_hunk ? some[i] != all[i]
					 : some[i] != IGNORE_NOT_ASKED)) {
			printf("FAIL random: line %u: all %d, wanted %d (%s)\n",
			       i, all[i], some[i], in_hunk ? "hunk" : "same");
			failures++;
			return;
		}
	}
}

int main(void)
{
	int i, before;

	hand_cases();
	error_cases();
	before = failures;
	for (i = 0; i < 3000; i++)
		random_case();
	if (failures == before)
		printf("ok random (3000 cases)\n");
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
