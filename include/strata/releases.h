/*
 * releases: which release wrote each commit.
 *
 * A release is a group of tags (a version and its pre-releases). A commit
 * belongs to the release of the earliest-dated matching tag that contains
 * it; commits in no such tag are "unreleased".
 */
#ifndef STRATA_RELEASES_H
#define STRATA_RELEASES_H

#include <stddef.h>
#include <stdint.h>

#include "strata/history.h"
#include "strata/repository.h"

/* The default --tags expression. */
extern const char releases_default_tags[];

struct release_tag {
	char *name;           /* tag name without refs/tags/ (owned) */
	int64_t date;         /* tagger date, or commit date if lightweight */
	uint32_t commit;      /* history index of the tagged commit */
};

struct release {
	char *name;           /* "2.6.33", or "unreleased" (owned) */
	struct release_tag *tags; /* by date, then name (owned) */
	size_t ntags;
	int64_t first_date, last_date; /* 0 for the unreleased bucket */
	uint64_t commits;     /* commits of the history in this release */
	/*
	 * The tag that stands for the release (in releases.csv, the pages
	 * and the history's snapshots): its first tag without a pre-release
	 * suffix, else its latest; NULL for the unreleased bucket. Points
	 * into `tags`.
	 */
	const struct release_tag *standing;
	unsigned unreleased:1;
};

struct releases {
	struct release *list; /* by first date; "unreleased" last if present */
	size_t n;
	uint32_t *of_commit;  /* per history index: index into list */
	size_t nskipped;      /* matching tags not pointing at a commit */
};

struct releases_options {
	const char *tags_ere;   /* NULL: releases_default_tags */
	const char *group_ere;  /* NULL: strip a pre-release suffix */
};

/*
 * Check the expressions (STRATA_EUSAGE on a bad one), so that a usage
 * error is reported before any work.
 */
int releases_check_options(const struct releases_options *opts);

/* The release name for a tag name under the options; *out is malloc'd. */
int releases_name_for_tag(char **out, const struct releases_options *opts,
			  const char *tag);

/*
 * Map every commit of `h` to a release. Fails with "no tag matches 'ERE'"
 * when no tag in the history matches. *out is the caller's, freed with
 * releases_free().
 */
int releases_compute(struct releases **out, struct repository *repo,
		     const struct history *h,
		     const struct releases_options *opts);


void releases_free(struct releases *r);

#endif
