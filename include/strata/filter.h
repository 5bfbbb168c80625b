/*
 * filter: which paths of REV a run keeps: the policy of --include,
 * --exclude and --skip-vendored, above the glob matcher (wildmatch.h)
 * and the attributes (attr.h).
 *
 * Pure functions of their arguments: no I/O, safe on any thread.
 */
#ifndef STRATA_FILTER_H
#define STRATA_FILTER_H

#include <stddef.h>

struct attr;

/*
 * 0 if `pat` is a well-formed glob; else STRATA_EUSAGE, with the message
 * "invalid glob 'PAT' for 'OPT': WHY".
 */
int filter_glob_check(const char *pat, const char *opt);

/*
 * The --include/--exclude rule for one glob, .gitignore's: a glob with
 * '/' at its start or in its middle is matched against the whole path
 * from the root (a leading '/' only anchors it), one without against the
 * base name at any depth; `*`, `?` and brackets never match '/', and
 * `**` then '/' matches any number of directories, none too. A
 * trailing '/' matches directories only, and a directory that matches
 * takes every file under it.
 */
int filter_glob_path(const char *glob, const char *path);

/* What a run keeps: a file is kept when filter_path() says FILTER_KEEP. */
struct filter {
	const char *const *include;  /* --include: keep only what matches */
	size_t ninclude;
	const char *const *exclude;  /* --exclude: leave out what matches */
	size_t nexclude;
	/* --skip-vendored: REV's attributes, or NULL (borrowed) */
	const struct attr *attr;
};

enum filter_reason {
	FILTER_KEEP = 0,
	FILTER_GLOBS,       /* left out by --include/--exclude */
	FILTER_VENDORED     /* marked linguist-vendored or -generated */
};

enum filter_reason filter_path(const struct filter *f, const char *path);

/* 1 if the filter leaves anything out at all. */
int filter_active(const struct filter *f);

/*
 * A pathspec after "--" (strata blame): the file itself, or a directory
 * above it ("." and "" are the whole tree).
 */
int filter_pathspec_match(const char *spec, const char *path);

#endif
