/*
 * cycle trailers: a commit message's trailer block, found and split as
 * git 2.39's trailer.c does with its default configuration (separators
 * ":", no configured trailer keys, '#' comments): interpret-trailers'
 * find_trailer_end(), find_trailer_start() and the folding of
 * continuation lines, with pretty.c's no_divider (a "---" line is text in
 * a commit message, not the start of a patch).
 */
#include "strata/cycle.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

/* git's cut line, after the comment character and a space. */
static const char scissors[] =
	"------------------------ >8 ------------------------\n";

/* Lines git makes itself: a block holding one needs only 25% trailers. */
static const char *const git_prefixes[] = {
	"Signed-off-by: ", "(cherry picked from commit ", NULL
};

static int c_space(char c)
{
	return isspace((unsigned char)c);
}

/* The start of the line after the one at s (or the end of the text). */
static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : s + strlen(s);
}

/* The start of the last line of buf[0, len), -1 for none (git's). */
static long last_line(const char *buf, size_t len)
{
	long i;

	if (!len)
		return -1;
	if (len == 1)
		return 0;
	for (i = (long)len - 2; i >= 0; i--)
		if (buf[i] == '\n')
			return i + 1;
	return 0;
}

static int blank_line(const char *s)
{
	while (*s && *s != '\n' && c_space(*s))
		s++;
	return !*s || *s == '\n';
}

/*
 * Where the token of a trailer line ends: its first ':' when only
 * letters, digits and '-', then maybe white space, come before; -1 else.
 */
static long find_separator(const char *line)
{
	int white = 0;

	for (const char *c = line; *c; c++) {
		if (*c == ':')
			return c - line;
		if (!white && (isalnum((unsigned char)*c) || *c == '-'))
			continue;
		if (c != line && (*c == ' ' || *c == '\t')) {
			white = 1;
			continue;
		}
		break;
	}
	return -1;
}

/* git's wt_status_locate_end(): the scissors line ends the message. */
static size_t locate_end(const char *buf, size_t len)
{
	char pat[sizeof(scissors) + 3];
	const char *p;

	pat[0] = '\n';
	pat[1] = '#';
	pat[2] = ' ';
	memcpy(pat + 3, scissors, sizeof(scissors));
	if (!strncmp(buf, pat + 1, strlen(pat + 1)))
		return 0;
	p = strstr(buf, pat);
	return p && (size_t)(p - buf) < len ? (size_t)(p - buf) + 1 : len;
}

/*
 * git's ignore_non_trailer(): the length of the tail made of comment
 * lines, blank lines and an old "Conflicts:" block.
 */
static size_t non_trailer_tail(const char *buf, size_t len)
{
	size_t boc = 0, bol = 0, cutoff = locate_end(buf, len);
	int conflicts = 0;

	while (bol < cutoff) {
		const char *nl = memchr(buf + bol, '\n', len - bol);
		size_t next = nl ? (size_t)(nl - buf) + 1 : len;

		if (buf[bol] == '#' || buf[bol] == '\n') {
			if (!boc)
				boc = bol;
		} else if (!strncmp(buf + bol, "Conflicts:\n", 11)) {
			conflicts = 1;
			if (!boc)
				boc = bol;
		} else if (conflicts && buf[bol] == '\t') {
			;
		} else if (boc) {
			boc = 0;
			conflicts = 0;
		}
		bol = next;
	}
	return boc ? len - boc : len - cutoff;
}

/* git's find_trailer_start(), on buf[0, len). */
static size_t trailer_start(const char *buf, size_t len)
{
	const char *s;
	long end_of_title, l;
	int only_spaces = 1, git_made = 0;
	long trailers = 0, others = 0, maybe_cont = 0;

	/* The first paragraph is the title: never trailers. */
	for (s = buf; s < buf + len; s = next_line(s)) {
		if (s[0] == '#')
			continue;
		if (blank_line(s))
			break;
	}
	end_of_title = s - buf;
	for (l = last_line(buf, len); l >= end_of_title;
	     l = last_line(buf, (size_t)l)) {
		const char *bol = buf + l;
		long sep;
		int k;

		if (bol[0] == '#') {
			others += maybe_cont;
			maybe_cont = 0;
			continue;
		}
		if (blank_line(bol)) {
			if (only_spaces)
				continue;
			others += maybe_cont;
			if ((git_made && trailers * 3 >= others) ||
			    (trailers && !others))
				return (size_t)(next_line(bol) - buf);
			return len;
		}
		only_spaces = 0;
		for (k = 0; git_prefixes[k]; k++)
			if (!strncmp(bol, git_prefixes[k],
				     strlen(git_prefixes[k])))
				break;
		if (git_prefixes[k]) {
			trailers++;
			maybe_cont = 0;
			git_made = 1;
			continue;
		}
		sep = find_separator(bol);
		if (sep >= 1 && !c_space(bol[0])) {
			trailers++;
			maybe_cont = 0;
		} else if (c_space(bol[0])) {
			maybe_cont++;
		} else {
			others += 1 + maybe_cont;
			maybe_cont = 0;
		}
	}
	return len;
}

/* s[0, *n) without white space at either end. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && c_space(*s)) {
		s++;
		(*n)--;
	}
	while (*n && c_space(s[*n - 1]))
		(*n)--;
	return s;
}

/*
 * One trailer (its continuation lines included) at t[0, n): token and
 * value trimmed, the value unfolded as git's unfold_value() does.
 */
static int emit(const char *t, size_t n, char *buf,
		int (*fn)(const char *, size_t, const char *, size_t, void *),
		void *payload)
{
	long sep = find_separator(t);
	size_t tl = (size_t)sep, vl = n - (size_t)sep - 1, k = 0;
	const char *tok = trim(t, &tl), *val = trim(t + sep + 1, &vl);

	for (size_t i = 0; i < vl;) {
		char c = val[i++];

		if (c != '\n') {
			buf[k++] = c;
			continue;
		}
		while (i < vl && c_space(val[i]))
			i++;
		buf[k++] = ' ';
	}
	val = trim(buf, &k);
	return fn(tok, tl, val, k, payload);
}

int cycle_trailers_parse(const char *msg, size_t len,
			 int (*fn)(const char *token, size_t tlen,
				   const char *value, size_t vlen,
				   void *payload),
			 void *payload)
{
	const char *nul = memchr(msg, '\0', len);
	char *s = NULL, *buf = NULL;
	size_t end, start, at, last = SIZE_MAX, lend = 0;
	int rc = 0;

	if (nul)
		len = (size_t)(nul - msg);
	if (!(s = malloc(len + 1)) || !(buf = malloc(len + 1))) {
		rc = error_oom();
		goto done;
	}
	memcpy(s, msg, len);
	s[len] = '\0';
	end = len - non_trailer_tail(s, len);
	start = trailer_start(s, end);
	/*
	 * The block's lines: one starting with white space after a trailer
	 * continues it; `last` is the trailer being gathered.
	 */
	for (at = start; at < end && rc == 0;) {
		const char *nl = memchr(s + at, '\n', end - at);
		size_t next = nl ? (size_t)(nl - s) + 1 : end;

		if (last != SIZE_MAX && c_space(s[at])) {
			lend = next;
			at = next;
			continue;
		}
		if (last != SIZE_MAX)
			rc = emit(s + last, lend - last, buf, fn, payload);
		last = SIZE_MAX;
		if (find_separator(s + at) >= 1) {
			last = at;
			lend = next;
		}
		at = next;
	}
	if (rc == 0 && last != SIZE_MAX)
		rc = emit(s + last, lend - last, buf, fn, payload);
done:
	free(s);
	free(buf);
	return rc;
}
