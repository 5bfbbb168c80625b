#include "strata/diff.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

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

static int push_hunk(struct diff_result *r, const git_diff_hunk *h)
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
	/* A zero-length side names the line after which the change sits. */
	d->old_count = (uint32_t)h->old_lines;
	d->old_start = (uint32_t)(h->old_lines ? h->old_start - 1
						: h->old_start);
	d->new_count = (uint32_t)h->new_lines;
	d->new_start = (uint32_t)(h->new_lines ? h->new_start - 1
						: h->new_start);
	return 0;
}

static int hunk_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   void *payload)
{
	(void)delta;
	return push_hunk(payload, hunk);
}

int diff_buffers(struct diff_result *out, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags)
{
	git_diff_options opts;
	int rc;

	out->n = 0;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	trim_tail(&alen, &blen, a, b);
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	opts.flags = GIT_DIFF_FORCE_TEXT | GIT_DIFF_INDENT_HEURISTIC;
	if (flags & DIFF_IGNORE_WHITESPACE)
		opts.flags |= GIT_DIFF_IGNORE_WHITESPACE;
	rc = git_diff_buffers(alen ? a : "", alen, NULL, blen ? b : "", blen,
			      NULL, &opts, NULL, NULL, hunk_cb, NULL, out);
	if (rc < 0)
		return error_git("unable to diff two blobs");
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
	uint32_t n = 0;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}
