/*
 * cohorts: the lines at REV and the commits of its history by calendar
 * year, by author (after .mailmap) and by organisation (an org map, or
 * the email's domain). docs/cohorts.md states the rules.
 */
#ifndef STRATA_COHORTS_H
#define STRATA_COHORTS_H

#include <stddef.h>
#include <stdint.h>

#include "strata/blame.h"
#include "strata/history.h"
#include "strata/mailmap.h"

struct tally;

/* Which date of a commit puts it in a year (--date). */
enum cohorts_date { COHORTS_COMMITTER, COHORTS_AUTHOR };

struct cohort {
	char *name;              /* "2019", an author, an organisation (owned) */
	uint64_t lines;          /* lines at REV */
	uint64_t commits;        /* commits of the history */
	size_t files;            /* text files at REV with one of its lines */
	uint64_t *by_subsystem;  /* lines per subsystem (owned) */
	unsigned bot:1;          /* a bot, or "(bots)" (mailmap.h) */
};

/* One view. Years by year; authors and organisations by lines, then name. */
struct cohort_view {
	struct cohort *v;
	size_t n;
};

struct cohorts {
	/*
	 * authors: every bot in one cohort, "(bots)", for the tables,
	 * charts and headlines; author_rows: each bot on its own row too
	 * (authors.csv, with its kind).
	 */
	struct cohort_view years, authors, author_rows, orgs;
	int has_authors;         /* authors and orgs computed */
	enum cohorts_date date;
	/* The subsystems (tally level-1 directories) by_subsystem counts. */
	size_t *subsystems;      /* index into tally.dirs (owned) */
	size_t nsubsystems;
	uint64_t total_lines;
};

struct cohorts_options {
	enum cohorts_date date;
	int authors;             /* compute authors and organisations */
	const struct mailmap *mailmap;   /* NULL: none */
	const struct orgmap *orgmap;     /* NULL: the email's domain */
};

/*
 * The cohorts of the blame `b` over history `h`, for the files and
 * subsystems of tally `t` (built from the same blame). *out is the
 * caller's, freed with cohorts_free().
 */
int cohorts_build(struct cohorts **out, const struct history *h,
		  const struct blame_result *b, const struct tally *t,
		  const struct cohorts_options *o);

void cohorts_free(struct cohorts *c);

/* "committer" or "author" (inline: charts and data need no cohorts.c). */
static inline const char *cohorts_date_name(enum cohorts_date d)
{
	return d == COHORTS_AUTHOR ? "author" : "committer";
}

/* Parse a --date value; STRATA_EUSAGE on anything else. */
int cohorts_parse_date(enum cohorts_date *out, const char *s);

#endif
