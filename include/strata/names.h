/*
 * names: the file names of a report's pages and charts of directories,
 * and readable unique ids for anchors. Only the charts and the pages
 * need them, so names.c is built into strata-publish.so (publish.h).
 *
 * A directory's page is named after its path, one file-name component
 * per directory level, so that a person can type and share it:
 * `Documentation.html`, `arch/x86.html`, `root.html` for the files in
 * the root directory. Its charts follow the same rule under img/:
 * `img/dir-Documentation.svg`, `img/dir-arch/x86.png`. One function,
 * names_get(), gives the name of any page or chart of a directory from
 * its path and a kind; a new kind is a line in names.c's kinds[]. A
 * component (a "stem") is the directory's own name where that is safe,
 * else a readable form of it with a short stable suffix:
 *
 *   - bytes other than A-Z, a-z, 0-9, `.`, `-`, `_` become `_` (a run of
 *     them one `_`), a leading `.`, `-` or `_` and a trailing `.` are
 *     dropped, the result is cut to NAMES_STEM_MAX bytes; a name that
 *     lost anything this way, that ends in `.html`, `.png` or `.svg` (a
 *     stem also names the directory of its subdirectories' pages and
 *     charts, beside those files) or that Windows reserves (`con`, `nul`,
 *     `com1`, ...) gets `-` and six hex digits of a hash of its whole
 *     path: `my dir` -> `my_dir-06e1f6`; a name with nothing left is
 *     `dir-` and the digits (`日本` -> `dir-26eece`);
 *   - stems are unique among siblings ignoring ASCII case (file systems
 *     that fold case), and at the top level they avoid names_reserved[]:
 *     when two directories claim one stem, the first in byte order keeps
 *     it and the others get the suffix (`Net.html`, `net-93b929.html`);
 *     a suffix that is taken is hashed again with a counter;
 *   - below more than 400 bytes of parent stems a level keeps only
 *     `dir-` and the suffix, so every name is bounded: 64 levels of the
 *     longest names make less than 1.2 KB.
 *
 * Stems use only [A-Za-z0-9._-], so a name is a valid relative URL as it
 * is; whoever adds to a name (chart_out.c: `@2x.png`, `@narrow.svg`) adds
 * a byte no stem holds first, `@`, so that no two files can meet. The
 * same tally gives the same names, in the charts and the pages alike. Pages other
 * modules add at the top of a report must be listed in names_reserved[]
 * so that no directory takes their name.
 */
#ifndef STRATA_NAMES_H
#define STRATA_NAMES_H

#include <stddef.h>

#include "strata/tally.h"

/* Longest stem, suffix included. */
#define NAMES_STEM_MAX 56

/*
 * Stems no top-level directory gets (compared ignoring case): the site's
 * own pages and directories. NULL-terminated.
 */
extern const char *const names_reserved[];

enum names_kind {
	NAMES_PAGE,    /* "arch/x86.html", relative to the report */
	NAMES_CHART,   /* "dir-arch/x86", relative to img/, without the
			  .svg/.png/@2x.png that chart_out.c adds */
	NAMES_HISTORY_CHART, /* "history-dir-arch", the same for the
				layers of a subsystem (snapshots.h) */
};

struct names;

/*
 * The names of every directory of `t` (and of their parents). *out is
 * the caller's, freed with names_free().
 */
int names_new(struct names **out, const struct tally *t);
void names_free(struct names *n);

/*
 * The file name of the page or chart of directory `path` (a path of
 * t->dirs: "" is the whole tree, whose page is index.html and chart
 * "releases"; "." the root files). *out is malloc'd. Fails for a path
 * that is not in the tally.
 */
int names_get(char **out, const struct names *n, const char *path,
	      enum names_kind kind);

/*
 * Readable ids, unique ignoring ASCII case, for n strings (anchors of
 * release names, of directory paths): out[i] is `prefix` and the
 * readable form of keys[i] (as a stem, `/` kept when keep_slash), with
 * the suffix when it is lossy or taken. `out` has room for n pointers;
 * each is malloc'd. On failure none is left allocated.
 */
int names_ids(char **out, const char *const *keys, size_t n,
	      const char *prefix, int keep_slash);

/*
 * Create the directories that `rel` (a name from names_get()) needs
 * under `base`: "arch/x86.html" makes base/arch.
 */
int names_make_parents(const char *base, const char *rel);

#endif
