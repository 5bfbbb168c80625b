/*
 * report: publishing a report directory (data/, img/, the pages).
 *
 * Everything is written into a temporary directory beside DIR, then
 * swapped in, so an interrupted run leaves the previous report whole.
 */
#ifndef STRATA_REPORT_H
#define STRATA_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "strata/tally.h"

/* What was measured and how: shown on the pages and in report.json. */
struct report_info {
	const char *repo_name;     /* display name of the repository */
	const char *rev;           /* REV as given */
	char commit[41];           /* its commit */
	int64_t commit_time;
	const char *version;       /* strata version */
	const char *tags_ere, *group_ere;
	const char *tag_scope;     /* "dated" or "merged" */
	/*
	 * Matching tags that do not count (struct releases): elsewhere,
	 * dated after REV, not on a commit; and how many matched at all.
	 */
	size_t tags_matched, tags_elsewhere, tags_later, tags_skipped;
	int first_parent, ignore_whitespace;
	const char *const *ignore_revs;  /* hex, as resolved */
	size_t nignore_revs;
	const char *const *include, *const *exclude;
	size_t ninclude, nexclude;
	int skip_vendored;         /* --skip-vendored */
	const char *org_map;       /* --org-map FILE as given, or NULL */
	/*
	 * The text files at REV those left out, and their lines: by
	 * --include/--exclude, by --skip-vendored; and how many left-out
	 * files a partial clone lacks (not counted).
	 */
	size_t left_globs_files, left_vendored_files, left_missing;
	uint64_t left_globs_lines, left_vendored_lines;
	/* rename sources missing from a partial clone, passed over */
	size_t passed_over;
	unsigned depth, jobs;
	int shallow;               /* some history was cut off */
	size_t nboundary;
	size_t ncommits;           /* commits in the history walked */
	uint64_t ndiffs;
	int64_t generated;         /* SOURCE_DATE_EPOCH or the commit time */
	int reproducible;          /* SOURCE_DATE_EPOCH set: leave out timings */
	double seconds_history, seconds_blame, seconds_total;
};

struct chart_options {
	unsigned width, height;    /* CSS pixels */
	int dark;                  /* --theme dark */
	unsigned jobs;             /* processes that draw (0 or 1: this one) */
};

struct report_options {
	const char *out_dir;
	const char *templates_dir; /* NULL: the installed or in-tree ones */
	int force;                 /* write into a non-empty foreign DIR */
	struct chart_options chart;
};

/*
 * Check, before any work, what can be checked of publishing into
 * opts->out_dir: that it is not a file, a symbolic link or a broken one;
 * that it is strata's (or empty, or opts->force); that its parent (or the
 * directory its missing parents would be made in) takes writes. Makes
 * nothing.
 */
int report_check(const struct report_options *opts);

/*
 * Publish the report of `t` into opts->out_dir. Refuses a non-empty
 * directory that strata did not create unless opts->force, and one whose
 * marker it cannot trust. Deletes only what the marker proves strata
 * wrote; moves everything else into the new report.
 *
 * While it runs, SIGINT, SIGTERM and SIGHUP (those not ignored) are
 * caught: it then stops at the next step, puts DIR back as it was,
 * removes what it made and fails with "interrupted by SIG...". A signal
 * that comes once the new report is in place lets it finish.
 *
 * Test-only: STRATA_TEST_STOP=PHASE:PPID stops the process (SIGSTOP) at
 * a named phase of publishing when PPID is its parent's id; src/report.c
 * lists the phases. Any other value is ignored.
 */
int report_publish(const struct tally *t, const struct report_info *info,
		   const struct report_options *opts);

/*
 * The first signal report_publish() caught, or 0. The caller should end
 * with it (after its own clean-up): exit status 128 + the signal.
 */
int report_signal(void);

#endif
