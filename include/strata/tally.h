/*
 * tally: lines per release for the whole tree, every directory and every
 * file, the files untouched since the first release, and commits per
 * release cycle. Everything a report shows is read from here.
 */
#ifndef STRATA_TALLY_H
#define STRATA_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "strata/blame.h"
#include "strata/releases.h"

struct snapshots;
struct cohorts;

struct tally_release {
	const char *name;        /* borrowed from struct releases */
	const struct release *release;
	uint64_t lines;          /* lines at the tip written in this release */
	double share;            /* percent of all lines */
	unsigned unreleased:1;
};

struct tally_file {
	char *path;              /* owned */
	uint64_t lines;
	uint64_t *by_release;    /* nreleases counts (owned) */
	size_t dir;              /* index of its deepest tallied directory */
	unsigned untouched:1;    /* every line from the first release */
};

/*
 * A directory. Level 1 are the "subsystems": the top-level directories,
 * plus "." for the files in the root. Deeper levels go down to --depth.
 * dirs[0] is the whole tree (path "", level 0).
 */
struct tally_dir {
	char *path;              /* "" root, "." root files, "a/b" (owned) */
	unsigned level;
	size_t parent;           /* index; dirs[0] has itself as parent */
	uint64_t lines;
	uint64_t *by_release;    /* nreleases counts (owned) */
	size_t nfiles;           /* text files below it */
	size_t nuntouched;       /* untouched files below it */
	double first_share;      /* percent of its lines from the 1st release */
};

struct tally {
	struct tally_release *releases; /* release order; unreleased last */
	size_t nreleases;
	uint64_t total_lines;
	struct tally_file *files;       /* sorted by path bytewise */
	size_t nfiles;
	struct tally_dir *dirs;         /* [0] root, then sorted by path */
	size_t ndirs;
	size_t nuntouched;
	uint64_t untouched_lines;
	unsigned depth;                 /* directory levels tallied (>= 1) */
	/* The snapshots of the history, or NULL (borrowed; snapshots.h). */
	const struct snapshots *history;
	/* Years, authors, organisations, or NULL (borrowed; cohorts.h). */
	const struct cohorts *cohorts;
};

/* Keep a file in the tally? (--include/--exclude); NULL keeps all. */
typedef int (*tally_filter_fn)(const char *path, void *payload);

/*
 * Build the tally from a blame and a release map. `depth` >= 1.
 * *out is the caller's, freed with tally_free().
 */
int tally_build(struct tally **out, const struct blame_result *blame,
		const struct releases *rel, unsigned depth,
		tally_filter_fn keep, void *keep_payload);

void tally_free(struct tally *t);

/*
 * The index in dirs[] of the directory path[0..len) (below the root), or
 * 0 when it is not tallied.
 */
size_t tally_find_dir(const struct tally *t, const char *path, size_t len);

/* Index of the subsystem (level-1 directory) of dirs[i], or 0 for root. */
size_t tally_subsystem_of(const struct tally *t, size_t dir);

/*
 * Whether release r wrote nothing REV's history holds, and why: no
 * commit of REV's history (every tag that contains its commits is dated
 * earlier), no line at REV and none at any snapshot of t->history (the
 * snapshot of a release branch may hold lines of commits only that
 * branch has). The one rule for what the terminal table, the charts and
 * the pages leave out and count as left out; releases.csv and
 * report.json keep every release. The unreleased bucket and a release
 * the tally knows no struct release of always wrote.
 */
enum tally_silence {
	TALLY_WROTE = 0,
	TALLY_SILENT_ELSEWHERE,  /* every tag of it is off REV's history */
	TALLY_SILENT_ON_HISTORY, /* a tag on it, on another's commit */
};

enum tally_silence tally_release_silent(const struct tally *t, size_t r);

#endif
