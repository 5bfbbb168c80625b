/*
 * wildmatch: git's glob matcher, a leaf (include/strata/wildmatch.h).
 */
#include "strata/wildmatch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/*
 * git's wildmatch, written over explicit ends, with its two early exits:
 * ABORT_ALL (the text ran out, or the pattern is malformed: nothing can
 * match) and ABORT_TO_STARSTAR (a '*' that cannot cross '/' gives up to
 * an enclosing '**'). Its backtracking is fast on the globs people write
 * but exponential in the stars on some (minutes for '*a' fourteen times
 * and 'b' against sixty a's and a c), so it runs on a budget of steps;
 * past it, the glob runs as an automaton instead (below), in time its
 * length times the text's. Both give wildmatch's answers.
 */
enum { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR,
       WM_GIVE_UP };

typedef unsigned char uchar;

struct wild {
	const uchar *pstart, *pend, *tend;
	unsigned flags;
	size_t budget;          /* calls of dowild() left */
};

/* git's locale-independent ASCII classes (ctype.c). */
static int in_class(const uchar *name, size_t len, uchar c)
{
#define IS(s) (len == sizeof(s) - 1 && !memcmp(name, s, len))
	if (c >= 0x80)
		return IS("alnum") || IS("alpha") || IS("blank") ||
		       IS("cntrl") || IS("digit") || IS("graph") ||
		       IS("lower") || IS("print") || IS("punct") ||
		       IS("space") || IS("upper") || IS("xdigit") ? 0 : -1;
	if (IS("alnum"))
		return (c >= '0' && c <= '9') || ((c | 32) >= 'a' &&
						  (c | 32) <= 'z');
	if (IS("alpha"))
		return (c | 32) >= 'a' && (c | 32) <= 'z';
	if (IS("blank"))
		return c == ' ' || c == '\t';
	if (IS("cntrl"))
		return c < 0x20 || c == 0x7f;
	if (IS("digit"))
		return c >= '0' && c <= '9';
	if (IS("graph"))
		return c > 0x20 && c < 0x7f;
	if (IS("lower"))
		return c >= 'a' && c <= 'z';
	if (IS("print"))
		return c >= 0x20 && c < 0x7f;
	if (IS("punct"))
		return c > 0x20 && c < 0x7f &&
		       !((c >= '0' && c <= '9') ||
			 ((c | 32) >= 'a' && (c | 32) <= 'z'));
	if (IS("space"))
		return c == ' ' || c == '\t' || c == '\n' || c == '\r';
	if (IS("upper"))
		return c >= 'A' && c <= 'Z';
	if (IS("xdigit"))
		return (c >= '0' && c <= '9') || ((c | 32) >= 'a' &&
						  (c | 32) <= 'f');
	return -1;
#undef IS
}

static int glob_special(uchar c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

/*
 * A bracket expression at *pp (just after '['), against t_ch: 1 if it
 * matches, 0 if not, -1 if it is malformed. *pp ends on its ']'.
 */
static int bracket(const struct wild *w, const uchar **pp, uchar t_ch)
{
	const uchar *p = *pp, *pe = w->pend;
	uchar p_ch, prev_ch = 0;
	int matched = 0, negated;

	/* The byte at q, or 0 past the end, as git reads its NUL. */
#define AT(q) ((q) < pe ? *(q) : 0)
	p_ch = AT(p);
	if (p_ch == '^')
		p_ch = '!';
	negated = p_ch == '!';
	if (negated) {
		p++;
		p_ch = AT(p);
	}
	do {
		if (!p_ch)
			return -1;
		if (p_ch == '\\') {
			p++;
			p_ch = AT(p);
			if (!p_ch)
				return -1;
			if (t_ch == p_ch)
				matched = 1;
		} else if (p_ch == '-' && prev_ch && AT(p + 1) &&
			   AT(p + 1) != ']') {
			p++;
			p_ch = AT(p);
			if (p_ch == '\\') {
				p++;
				p_ch = AT(p);
				if (!p_ch)
					return -1;
			}
			if (t_ch <= p_ch && t_ch >= prev_ch)
				matched = 1;
			p_ch = 0;
		} else if (p_ch == '[' && AT(p + 1) == ':') {
			const uchar *s;
			int in;

			for (s = p += 2; (p_ch = AT(p)) && p_ch != ']'; p++)
				;
			if (!p_ch)
				return -1;
			if (p - s < 1 || p[-1] != ':') {
				/* No ":]": an ordinary '[' in the set. */
				p = s - 2;
				p_ch = '[';
				if (t_ch == p_ch)
					matched = 1;
				continue;
			}
			in = in_class(s, (size_t)(p - s - 1), t_ch);
			if (in < 0)
				return -1;
			if (in)
				matched = 1;
			p_ch = 0;
		} else if (t_ch == p_ch) {
			matched = 1;
		}
	} while (prev_ch = p_ch, p++, (p_ch = AT(p)) != ']');
#undef AT
	*pp = p;
	return matched != negated;
}

static int dowild(struct wild *w, const uchar *p, const uchar *t);

/* The '*' or '**' at p (text at t); returns like dowild(), or -1 to go on
 * with the pattern and text in *pp and *tp, each before the '/' to take. */
static int star(struct wild *w, const uchar **pp, const uchar **tp)
{
	const uchar *p = *pp, *t = *tp, *pe = w->pend, *te = w->tend;
	const uchar *q = p + 1;
	int match_slash, matched;

	if (q < pe && *q == '*') {
		const uchar *prev = p - 1;

		while (q < pe && *q == '*')
			q++;
		if (!(w->flags & WILDMATCH_PATHNAME)) {
			match_slash = 1;
		} else if ((prev < w->pstart || *prev == '/') &&
			   (q == pe || *q == '/' ||
			    (q + 1 < pe && q[0] == '\\' && q[1] == '/'))) {
			/* "**" + '/': also nothing at all. */
			if (q < pe && *q == '/' &&
			    ((matched = dowild(w, q + 1, t)) == WM_MATCH ||
			     matched == WM_GIVE_UP))
				return matched;
			match_slash = 1;
		} else {
			match_slash = 0;
		}
	} else {
		match_slash = !(w->flags & WILDMATCH_PATHNAME);
	}
	p = q;
	if (p == pe)
		return match_slash || !memchr(t, '/', (size_t)(te - t)) ?
		       WM_MATCH : WM_NOMATCH;
	if (!match_slash && *p == '/') {
		const uchar *slash = memchr(t, '/', (size_t)(te - t));

		if (!slash)
			return WM_NOMATCH;
		*pp = p;
		*tp = slash;
		return -1;
	}
	while (t < te) {
		if (!glob_special(*p)) {
			while (t < te && (match_slash || *t != '/') && *t != *p)
				t++;
			if (t == te || *t != *p)
				return WM_NOMATCH;
		}
		matched = dowild(w, p, t);
		if (matched != WM_NOMATCH) {
			if (!match_slash || matched != WM_ABORT_TO_STARSTAR)
				return matched;
		} else if (!match_slash && *t == '/') {
			return WM_ABORT_TO_STARSTAR;
		}
		t++;
	}
	return WM_ABORT_ALL;
}

static int dowild(struct wild *w, const uchar *p, const uchar *t)
{
	const uchar *pe = w->pend, *te = w->tend;

	if (!w->budget--)
		return WM_GIVE_UP;

	for (; p < pe; t++, p++) {
		uchar p_ch = *p, t_ch;
		int r;

		if (t == te && p_ch != '*')
			return WM_ABORT_ALL;
		t_ch = t < te ? *t : 0;
		switch (p_ch) {
		case '\\':
			/* At the end of the pattern, p_ch 0 matches nothing. */
			p_ch = ++p < pe ? *p : 0;
			if (t_ch != p_ch)
				return WM_NOMATCH;
			break;
		case '?':
			if ((w->flags & WILDMATCH_PATHNAME) && t_ch == '/')
				return WM_NOMATCH;
			break;
		case '*':
			if ((r = star(w, &p, &t)) >= 0)
				return r;
			break;
		case '[':
			++p;
			r = bracket(w, &p, t_ch);
			if (r < 0)
				return WM_ABORT_ALL;
			if (!r || ((w->flags & WILDMATCH_PATHNAME) && t_ch == '/'))
				return WM_NOMATCH;
			break;
		default:
			if (t_ch != p_ch)
				return WM_NOMATCH;
			break;
		}
	}
	return t < te ? WM_NOMATCH : WM_MATCH;
}

/*
 * The automaton: its states are the glob's tokens (a byte, '?', a
 * bracket expression, a run of stars), each at its offset, and the end;
 * it runs with the set of the states reached so far. Its answers are
 * wildmatch's, whose early exits only cut work short (checked against
 * it on every glob of up to six characters).
 */
enum tok_kind { TOK_BYTE, TOK_ANY, TOK_BRACKET, TOK_STAR };

struct tok {
	enum tok_kind kind;
	const uchar *next;      /* the token after it */
	uchar ch;               /* TOK_BYTE: the byte */
	int slash;              /* TOK_STAR: it takes '/' too */
	int skip;               /* TOK_STAR: "**" and '/' may match nothing */
};

/* The run of stars at p, with wildmatch's rules for "**". */
static void tok_star(const struct wild *w, const uchar *p, struct tok *k)
{
	const uchar *q = p + 1, *pe = w->pend;

	k->kind = TOK_STAR;
	k->skip = 0;
	k->slash = !(w->flags & WILDMATCH_PATHNAME);
	while (q < pe && *q == '*')
		q++;
	k->next = q;
	if (q - p < 2 || k->slash)
		return;
	if ((p == w->pstart || p[-1] == '/') &&
	    (q == pe || *q == '/' ||
	     (q + 1 < pe && q[0] == '\\' && q[1] == '/'))) {
		k->slash = 1;
		k->skip = q < pe && *q == '/';
	}
}

/* The token at p (p < pend): 0, or -1 for a malformed bracket. */
static int tok_read(const struct wild *w, const uchar *p, struct tok *k)
{
	const uchar *q = p + 1;

	k->kind = TOK_BYTE;
	k->ch = *p;
	k->next = q;
	switch (*p) {
	case '*':
		tok_star(w, p, k);
		break;
	case '?':
		k->kind = TOK_ANY;
		break;
	case '[':
		if (bracket(w, &q, 0) < 0)
			return -1;
		k->kind = TOK_BRACKET;
		k->next = q + 1;
		break;
	case '\\':
		/* At the end of the glob, it quotes the NUL after it. */
		k->ch = q < w->pend ? *q : 0;
		k->next = q < w->pend ? q + 1 : q;
		break;
	}
	return 0;
}

/* 1 if the token k at p takes the text byte c. */
static int tok_takes(const struct wild *w, const uchar *p,
		     const struct tok *k, uchar c)
{
	int slash = c == '/' && (w->flags & WILDMATCH_PATHNAME);

	switch (k->kind) {
	case TOK_BYTE:
		return c == k->ch;
	case TOK_ANY:
		return !slash;
	case TOK_BRACKET:
		p++;
		return !slash && bracket(w, &p, c) == 1;
	case TOK_STAR:
		return k->slash || c != '/';
	}
	return 0;
}

/*
 * A run of stars has one state at its offset, or with `skip` two: its
 * entry (which also reaches past its '/') and, one further, the star
 * taking bytes. In the set `nxt`, the states it reaches by taking
 * nothing.
 */
static void tok_close(const struct wild *w, const struct tok *k,
		      size_t i, uchar *nxt)
{
	size_t loop = i + (size_t)k->skip, q = (size_t)(k->next - w->pstart);

	if (nxt[i] && k->skip) {
		nxt[loop] = 1;
		nxt[q + 1] = 1;
	}
	if (nxt[loop])
		nxt[q] = 1;
}

/*
 * From the set cur, whose first token is at *lo, the set after the text
 * byte c (or, with c < 0, cur closed) in nxt; *lo becomes nxt's first
 * token. Returns 0 if nxt is empty. Every move goes forward but a
 * star's taking a byte, so one pass closes the set.
 */
static int wild_step(const struct wild *w, const uchar *cur, uchar *nxt,
		     size_t *lo, int c)
{
	size_t plen = (size_t)(w->pend - w->pstart), first = plen, i, from;
	const uchar *p;
	struct tok k;

	if (c >= 0)
		memset(nxt + *lo, 0, plen + 1 - *lo);
	for (p = w->pstart + *lo; p < w->pend; p = k.next) {
		i = (size_t)(p - w->pstart);
		tok_read(w, p, &k);
		from = k.kind == TOK_STAR ? i + (size_t)k.skip : i;
		if (c >= 0 && cur[from] && tok_takes(w, p, &k, (uchar)c))
			nxt[k.kind == TOK_STAR ? from :
			    (size_t)(k.next - w->pstart)] = 1;
		if (k.kind == TOK_STAR)
			tok_close(w, &k, i, nxt);
		if ((nxt[i] || nxt[from]) && first == plen)
			first = i;
	}
	*lo = first;
	return first < plen || nxt[plen];
}

/* 1 if every bracket of the glob is well formed (else it never matches). */
static int wild_sound(const struct wild *w)
{
	const uchar *p;
	struct tok k;

	for (p = w->pstart; p < w->pend; p = k.next)
		if (tok_read(w, p, &k) < 0)
			return 0;
	return 1;
}

#define WILD_STACK 512

/* dowild()'s budget (tests/t-filter-unit.sh sets it to 0, to check the
 * automaton alone). */
#ifndef WILD_BUDGET
#define WILD_BUDGET(plen, tlen) (2 * ((plen) + (tlen)) + 256)
#endif

static int wild_run(const struct wild *w, const char *text, size_t tlen)
{
	size_t plen = (size_t)(w->pend - w->pstart), i, lo = 0;
	uchar stack[2 * (WILD_STACK + 1)], *a = stack, *b, *swap;
	int ok;

	if (!wild_sound(w))
		return 0;
	/* Out of memory for a glob this long: no match, as for a bad one. */
	if (plen > WILD_STACK && !(a = malloc(2 * (plen + 1))))
		return 0;
	b = a + plen + 1;
	memset(a, 0, plen + 1);
	a[0] = 1;
	ok = wild_step(w, a, a, &lo, -1);
	for (i = 0; ok && i < tlen; i++) {
		ok = wild_step(w, a, b, &lo, (uchar)text[i]);
		swap = a;
		a = b;
		b = swap;
	}
	ok = ok && a[plen];
	if (plen > WILD_STACK)
		free(a < b ? a : b);
	return ok;
}

int wildmatch(const char *pat, size_t plen, const char *text, size_t tlen,
	      unsigned flags)
{
	struct wild w;
	int r;

	w.pstart = (const uchar *)pat;
	w.pend = w.pstart + plen;
	w.tend = (const uchar *)text + tlen;
	w.flags = flags;
	w.budget = WILD_BUDGET(plen, tlen);
	r = dowild(&w, w.pstart, (const uchar *)text);
	return r == WM_GIVE_UP ? wild_run(&w, text, tlen) : r == WM_MATCH;
}

const char *wildmatch_check(const char *pat)
{
	struct wild w;
	const uchar *p;

	if (!*pat)
		return "it is empty";
	w.pstart = (const uchar *)pat;
	w.pend = w.pstart + strlen(pat);
	w.tend = NULL;
	w.flags = 0;
	for (p = w.pstart; p < w.pend; p++) {
		if (*p == '\\') {
			if (++p == w.pend)
				return "it ends with a backslash";
		} else if (*p == '[') {
			++p;
			if (bracket(&w, &p, 0) < 0)
				return "unterminated or malformed bracket "
				       "expression";
		}
	}
	return NULL;
}
