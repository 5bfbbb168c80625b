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

/*
 * The object name lists of --ignore-revs-file and blame.ignoreRevsFile.
 *
 * git reads any file, whole: /dev/zero or a FIFO no one writes hangs it.
 * strata reads a regular file (a symbolic link to one is followed) of at
 * most IGNORE_REVS_MAX bytes, opened without blocking, so a FIFO, a
 * device or a directory is an error, and so is a larger file.
 */
#define IGNORE_REVS_MAX ((size_t)64 << 20)

/*
 * Read `path` whole into *out (malloc'd, the caller frees; NUL after its
 * *len bytes). Returns 0, or STRATA_ERR ("could not open object name list
 * 'F': WHY", "object name list 'F' is not a regular file", "... is larger
 * than 64 MiB") or STRATA_ENOMEM.
 */
int ignore_revs_read(char **out, size_t *len, const char *path);

/*
 * Parse a list as git 2.39 does (oidset_parse_file): each line, a '#' and
 * what follows it removed and then spaces, tabs, CRs and LFs at either
 * end, is empty or a full object name of 40 hex digits. `fn` gets each
 * name (20 bytes) in order, and stops the parse by returning < 0. Returns
 * 0, fn's code, or STRATA_ERR with "invalid object name 'NAME' in 'FILE'"
 * (the name cut to 64 bytes, control characters as '?').
 */
int ignore_revs_parse(const char *buf, size_t len, const char *file,
		      int (*fn)(const unsigned char *oid, void *payload),
		      void *payload);

#endif
