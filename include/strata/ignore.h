/*
 * ignore: where git blame sends the lines an ignored revision changed.
 *
 * With --ignore-rev / --ignore-revs-file, git 2.39 first runs the normal
 * passes for an ignored commit C (each parent takes the lines its diff
 * leaves unchanged). The lines C still holds are then offered once more to
 * each parent in order (parents without the file, and later parents whose
 * blob equals an earlier parent's, are skipped as in the normal passes).
 * For one parent, every target line inside a hunk of diff(parent -> C) is
 * matched to a parent line by comparing "fingerprints" (multisets of
 * lower-cased byte pairs): a matched line moves to that parent line and
 * carries on into the parent's history; an unmatched line stays and is
 * offered to the next parent; what no parent takes is blamed on C.
 *
 * Facts the caller must honour (from git's blame.c):
 * - The guess for a line does not depend on which lines C still holds:
 *   git guesses every hunk of the diff, in order, whatever the blame
 *   entries are. It does depend on the earlier hunks of the same diff,
 *   because a match consumes part of the parent line's fingerprint.
 * - Each (C, parent) pass starts from fresh fingerprints; nothing carries
 *   over between parents or between back-to-back ignored commits.
 * - A line can be matched to ANY parent line (also one outside the hunk,
 *   and one that other target lines already map to), so several lines of
 *   C may land on one parent line; each then follows that line's history.
 * - Hunks with an empty parent side (pure additions) are still guessed:
 *   their lines are compared with the whole parent.
 * - The hunks are the ones of the normal passes (same diff, -w included);
 *   the fingerprints themselves ignore -w (whitespace is always folded).
 */
#ifndef STRATA_IGNORE_H
#define STRATA_IGNORE_H

#include <stddef.h>
#include <stdint.h>

#include "strata/diff.h"

enum {
	IGNORE_STAYS = -1,     /* no parent line found: stays on the commit */
	IGNORE_NOT_ASKED = -2  /* in a hunk, but want[] did not ask for it */
};

/*
 * Guess, for one parent of an ignored commit, where the target's lines
 * come from.
 *
 * `p` is the parent blob, `t` the target (ignored commit's) blob, and
 * `hunks` the `nhunks` hunks of diff(p -> t) in order, as diff_buffers()
 * returns them (with the same flags as the normal passes). `out` has one
 * entry per target line (diff_count_lines(t, tlen) of them). `want` is
 * NULL (every line) or has one flag per target line; lines with a zero
 * flag inside hunks are not guessed (IGNORE_NOT_ASKED), which saves work
 * but never changes the answer for the other lines.
 *
 * On return, out[i] is:
 * - for a line outside every hunk: its unchanged parent line;
 * - for a wanted line inside a hunk: the 0-based parent line it is guessed
 *   to come from, or IGNORE_STAYS.
 *
 * Returns 0, STRATA_ENOMEM, or STRATA_ERR if the hunks do not fit the
 * blobs. Nothing is kept between calls; safe to call from many threads.
 */
int ignore_guess(int32_t *out, const char *p, size_t plen,
		 const char *t, size_t tlen,
		 const struct diff_hunk *hunks, size_t nhunks,
		 const unsigned char *want);

#endif
