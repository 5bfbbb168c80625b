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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <git2.h>

struct odb;

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
	DIFF_IGNORE_WHITESPACE = 1 << 0,
	/*
	 * No tail trim: git's xdiff interface trims only diffs of zero
	 * context (blame's); `git diff --numstat` diffs with context.
	 */
	DIFF_NO_TAIL_TRIM = 1 << 1
};

/*
 * Diff `a` (old) against `b` (new) into `out` (emptied first).
 * Returns 0 or a negative error code.
 */
int diff_buffers(struct diff_result *out, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags);

/*
 * A blob to diff, and its object id if the caller has one: a key that
 * only blobs with the same bytes share. Each thread keeps the lines of
 * the last few keyed blobs it diffed, numbered, so that a blob diffed
 * again (a file's versions one after another: each new side is the old
 * side of the next diff) is not split and hashed again.
 */
#define DIFF_KEY_SIZE 20

struct diff_blob {
	const char *data;
	size_t len;
	const unsigned char *key;   /* DIFF_KEY_SIZE bytes, or NULL */
};

/* diff_buffers() on two blobs, reusing what it knows of keyed ones. */
int diff_blobs(struct diff_result *out, const struct diff_blob *a,
	       const struct diff_blob *b, unsigned flags);

/*
 * diff_blobs() without -w on blobs a (old) and b (new) of db, read with
 * the calling thread's handle git. A blob stored in a pack is not built:
 * its lines are numbered from its delta base's and the delta's, and each
 * thread keeps the numbered lines of the pack entries it has met (delta
 * bases included, up to 8 MiB). The blobs' line counts go to
 * *alines and *blines (either may be NULL). Errors: "unable to read blob
 * 'HEX'" and the reason.
 */
int diff_stored(struct diff_result *out, struct odb *db, git_repository *git,
		const git_oid *a, const git_oid *b, uint32_t *alines,
		uint32_t *blines);

/* The line count of blob `oid`, as diff_stored() numbers it. */
int diff_stored_lines(uint32_t *out, struct odb *db, git_repository *git,
		      const git_oid *oid);

/*
 * Whether blob `oid` is text as blame_is_text_sized() says: not empty,
 * no NUL in its first `prefix` bytes, at most ODB_MAX_OBJECT bytes; read
 * off the lines diff_stored() numbers (the calling thread's, when it has
 * just diffed the blob).
 */
int diff_stored_text(bool *out, struct odb *db, git_repository *git,
		     const git_oid *oid, size_t prefix);

void diff_result_release(struct diff_result *r);

/*
 * Free the calling thread's diff context (its line numbers and tables)
 * now, not when the thread ends: for a long-lived thread done diffing.
 */
void diff_thread_end(void);

/* Length of the common prefix of a[0, n) and b[0, n), fast. */
size_t diff_common_prefix(const void *a, const void *b, size_t n);

/* Length of the common suffix of a[0, alen) and b[0, blen), at most n. */
size_t diff_common_suffix(const void *a, size_t alen, const void *b,
			  size_t blen, size_t n);

/* Number of lines in a buffer: '\n'-terminated, plus a last unterminated. */
uint32_t diff_count_lines(const char *buf, size_t len);

#endif
