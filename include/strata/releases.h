/*
 * releases: which release wrote each commit.
 *
 * A release is a group of tags (a version and its pre-releases). A commit
 * belongs to the release of the earliest-dated matching tag that contains
 * it, among the tags that count (see enum releases_scope); commits in no
 * such tag are "unreleased".
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
	/*
	 * History index of the tagged commit, or RELEASES_OFF_HISTORY for a
	 * tag off the history (RELEASES_DATED). A tag that REV does not
	 * contain is off the history unless the history was loaded with
	 * it as an extra tip (the commit is then `outside`).
	 */
	uint32_t commit;
	git_oid oid;          /* the tagged commit */
	unsigned in_rev:1;    /* REV contains it */
	unsigned contains_rev:1; /* it contains REV's commit */
};

#define RELEASES_OFF_HISTORY UINT32_MAX

struct release {
	char *name;           /* "2.6.33", or "unreleased" (owned) */
	struct release_tag *tags; /* by date, then name (owned) */
	size_t ntags;
	int64_t first_date, last_date; /* 0 for the unreleased bucket */
	uint64_t commits;     /* commits of REV's history in this release */
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
	/*
	 * By the date each shipped (its standing tag's), then name;
	 * "unreleased" last if present. Every output lists them so.
	 */
	struct release *list;
	size_t n;
	uint32_t *of_commit;  /* per history index: index into list */
	size_t nskipped;      /* matching tags not pointing at a commit */
	size_t nmatched;      /* tags matching --tags, wherever they point */
	/*
	 * Matching tags on commits off REV's history that do not count:
	 * those that contain no commit of it (RELEASES_DATED; any off it
	 * with RELEASES_MERGED), and those dated after REV's commit.
	 */
	size_t nelsewhere, nlater;
};

/* Which tags count. */
enum releases_scope {
	/*
	 * The tags REV contains and every other matching tag dated no later
	 * than REV's commit (git name-rev's rule, bounded by REV's date). A
	 * tag off REV's history claims the commits of the history it
	 * contains, as any other.
	 */
	RELEASES_DATED = 0,
	RELEASES_MERGED,      /* only the tags REV contains */
};

struct releases_options {
	const char *tags_ere;   /* NULL: releases_default_tags */
	const char *group_ere;  /* NULL: strip a pre-release suffix */
	enum releases_scope scope;
};

/* Parse a --tag-scope value ("dated", "merged"); STRATA_EUSAGE if bad. */
int releases_parse_scope(enum releases_scope *out, const char *s);

/*
 * Check the expressions (STRATA_EUSAGE on a bad one), so that a usage
 * error is reported before any work.
 */
int releases_check_options(const struct releases_options *opts);

/* The release name for a tag name under the options; *out is malloc'd. */
int releases_name_for_tag(char **out, const struct releases_options *opts,
			  const char *tag);

/*
 * Map every commit of `h` to a release. When no tag counts, every commit
 * is "unreleased" (the counts in *out say where the matching tags were).
 * *out is the caller's, freed with releases_free().
 */
int releases_compute(struct releases **out, struct repository *repo,
		     const struct history *h,
		     const struct releases_options *opts);


void releases_free(struct releases *r);

/*
 * A tag object's headers, as git reads them (parse_tag_buffer): "object
 * HEX", "type TYPE", "tag NAME", then maybe "tagger IDENT DATE TZ".
 */
struct releases_tag_object {
	git_oid target;
	git_object_t type;    /* the target's, as the tag says */
	int64_t date;         /* the tagger's, when `dated` */
	int dated;            /* a tagger line with a date up to 9999 */
};

/*
 * Parse tag object data[0, len) (named `oid`, for the error) into *out.
 * A tagger date that is missing, garbled or past the year 9999 leaves the
 * tag undated (git shows it as 1970); a missing or garbled object, type
 * or tag line is an error ("corrupt tag 'X': bad object line"). Reads
 * the bytes only; for the fuzzers too.
 */
int releases_tag_parse(struct releases_tag_object *out, const git_oid *oid,
		       const unsigned char *data, size_t len);

#endif
