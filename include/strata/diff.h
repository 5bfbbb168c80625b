/*
 * diff: the line diff that git blame uses.
 *
 * Zero context, Myers with the indent heuristic, optionally ignoring all
 * whitespace (-w). Both buffers are first trimmed of their common tail the
 * way git's xdiff interface does (whole 1 KiB blocks, then forward to a line
 * end), so the hunks are the ones git 2.39 would compute.
 */
#ifndef STRATA_DIFF_H
#define STRATA_DIFF_H

#include <stddef.h>
#include <stdint.h>

/*
 * One hunk. Starts are 0-based line numbers. A hunk with old_count == 0 is
 * a pure insertion before old line `old_start`; new_count == 0 a pure
 * deletion before new line `new_start`. Lines between hunks are unchanged,
 * as is everything after the last hunk.
 */
struct diff_hunk {
	uint32_t old_start, old_count;
	uint32_t new_start, new_count;
};

/* A growable list of hunks; owned by the caller, reusable across calls. */
struct diff_result {
	struct diff_hunk *hunks;
	size_t n, alloc;
};

enum {
	DIFF_IGNORE_WHITESPACE = 1 << 0
};

/*
 * Diff `a` (old) against `b` (new) into `out` (emptied first).
 * Returns 0 or a negative error code.
 */
int diff_buffers(struct diff_result *out, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags);

void diff_result_release(struct diff_result *r);

/* Length of the common prefix of a[0, n) and b[0, n), fast. */
size_t diff_common_prefix(const void *a, const void *b, size_t n);

/* Length of the common suffix of a[0, alen) and b[0, blen), at most n. */
size_t diff_common_suffix(const void *a, size_t alen, const void *b,
			  size_t blen, size_t n);

/* Number of lines in a buffer: '\n'-terminated, plus a last unterminated. */
uint32_t diff_count_lines(const char *buf, size_t len);

#endif
