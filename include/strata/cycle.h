/*
 * cycle: the release cycle that ends at REV, from REV0 (the standing tag
 * of the release before REV's, or --since) to REV, as gitdm's development
 * statistics count it, and the age of the code it replaced.
 *
 *   - changesets and lines: the non-merge commits of REV0..REV (git log
 *     REV0..REV --no-merges), their lines added and removed over text
 *     files as `git log --numstat` counts them (renames detected), per
 *     author after REV's .mailmap and per organisation (the cohorts' map
 *     and defaults);
 *   - credits: the Reviewed-by, Tested-by, Reported-by, Acked-by and
 *     Signed-off-by (by another than the author) trailers of those
 *     commits, read as `git interpret-trailers` reads them;
 *   - replaced: per commit, its lines at REV0 less those it still has at
 *     REV (never below zero: snapshots_kept()), by the release, year and
 *     author of the commit; and the lines REV has over REV0 per release.
 *
 * The lines at REV0 come from the blame's one pass: REV0 is one more
 * snapshot (blame.h), chained after whatever snapshots the options
 * already hold. docs/cycle.md states every rule.
 *
 * Ownership: a struct cycle and everything it points to is the caller's,
 * freed with cycle_free(); the history and releases it is chosen for are
 * borrowed and must outlive it.
 */
#ifndef STRATA_CYCLE_H
#define STRATA_CYCLE_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/blame.h"
#include "strata/cohorts.h"
#include "strata/history.h"
#include "strata/mailmap.h"
#include "strata/releases.h"
#include "strata/repository.h"

/* The trailers credited, in the order the tables show them. */
enum cycle_trailer {
	CYCLE_REVIEWED,
	CYCLE_TESTED,
	CYCLE_REPORTED,
	CYCLE_ACKED,
	CYCLE_SIGNED,
	CYCLE_NTRAILERS
};

/* "Reviewed-by", ... (static; inline: the pages need no cycle.c). */
static inline const char *cycle_trailer_name(enum cycle_trailer t)
{
	static const char *const names[CYCLE_NTRAILERS] = {
		"Reviewed-by", "Tested-by", "Reported-by", "Acked-by",
		"Signed-off-by"
	};

	return names[t];
}

/* What there is to say about the cycle. */
enum cycle_status {
	CYCLE_OK,
	CYCLE_SAME,          /* REV0 is REV's commit: an empty cycle */
	CYCLE_NO_START       /* no release before REV's: nothing to start at */
};

/* An author or an organisation over the cycle. */
struct cycle_row {
	char *name;                  /* owned */
	uint64_t changesets, added, removed;
	unsigned bot:1;              /* a bot, or "(bots)" (mailmap.h) */
};

/* Rows by changesets, then lines added and removed, then name. */
struct cycle_view {
	struct cycle_row *v;
	size_t n;
};

/* One trailer value as written, and how many commits carry it. */
struct cycle_credit {
	enum cycle_trailer trailer;
	char *person;                /* the value, unfolded (owned) */
	uint64_t count;
};

/* A person's credits with their addresses merged by .mailmap. */
struct cycle_person {
	char *name;                  /* after .mailmap (owned) */
	uint64_t count[CYCLE_NTRAILERS];
	uint64_t total;
};

/* Lines of one cohort (a year, an author): name owned. */
struct cycle_lines {
	char *name;
	uint64_t lines;
};

struct cycle {
	enum cycle_status status;
	char *since;                 /* REV0: as given, or the tag (owned) */
	char *rev;                   /* REV as given (owned) */
	git_oid since_oid;
	int64_t since_time;          /* REV0's committer time */
	uint32_t since_commit;       /* its history index */
	int given;                   /* --since gave REV0 */
	/*
	 * REV0 is the tag of a branch REV does not contain: the cycle is
	 * `git log REV0..REV`, and REV0's lines are taken where that
	 * branch left REV's history (their merge base, since_oid).
	 */
	int fork;
	size_t nreleases;            /* as in the release map */
	/*
	 * The commits of REV0..REV: from `commits` to `npeople`, counted
	 * after the blame on a thread of their own (cycle_finish()); read
	 * them only once cycle_wait() has returned 0.
	 */
	uint64_t commits, merges;
	uint64_t changesets, added, removed;  /* the non-merge commits */
	uint64_t binary;             /* file changes left out as binary */
	uint64_t missing;            /* and as missing (pass_over) */
	/*
	 * authors: every bot in one row, "(bots)" (the pages, the table);
	 * author_rows: each author as named (cycle-authors.csv).
	 */
	struct cycle_view authors, author_rows, orgs;
	/* by trailer, then count (most first), then value */
	struct cycle_credit *credits;
	size_t ncredits;
	uint64_t credited[CYCLE_NTRAILERS];   /* trailers of each kind */
	/* by total, then name */
	struct cycle_person *people;
	size_t npeople;
	/* what the cycle replaced: lines at REV0 gone at REV */
	uint64_t lines_since, lines_rev;      /* all lines at REV0, at REV */
	uint64_t replaced;
	uint64_t *replaced_by_release;        /* nreleases (owned) */
	struct cycle_lines *replaced_years;   /* by year */
	size_t nreplaced_years;
	struct cycle_lines *replaced_authors; /* by lines, then name */
	size_t nreplaced_authors;
	/* lines REV has over REV0, per commit, never below zero */
	uint64_t arrived;
	uint64_t *arrived_by_release;         /* nreleases (owned) */
	size_t rev_release;          /* REV's release (the cycle's own) */
	/* cycle_wait()'s: NULL while nothing is being counted */
	int (*wait)(const struct cycle *c);
	struct cycle_state *state;   /* private */
};

struct cycle_options {
	const char *rev;             /* REV as given, for the pages */
	const char *since;           /* --since REV0, or NULL */
	enum cohorts_date date;      /* the year of a replaced line */
	const struct orgmap *orgmap; /* NULL: the email's domain */
	/*
	 * A blob a partial clone lacks, at a path for which this returns 1
	 * (the options leave it out), is left out of the lines rather than
	 * an error (counted in `missing`); NULL: never. blame.h's
	 * pass_over, for the cycle's commits.
	 */
	int (*pass_over)(const char *path, void *payload);
	void *pass_payload;
	unsigned jobs;               /* threads for the blob diffs; 0 = 1 */
};

/*
 * Choose REV0 for the history `h` of REV (its tip) and the release map
 * `rel`: o->since, which must be a commit of h (else STRATA_EUSAGE), or
 * the standing tag of the release before REV's (when REV does not
 * contain it, c->fork). A cycle with nothing to count says so in its
 * status. *out is the caller's.
 */
int cycle_choose(struct cycle **out, struct repository *repo,
		 const struct history *h, const struct releases *rel,
		 const struct cycle_options *o);

/*
 * Add REV0 to the engine's snapshots, after those the options already
 * hold (their callbacks still get their own): the engine then hands REV0's
 * lines to the cycle. `c` must outlive the blame. Nothing for a cycle
 * that is not CYCLE_OK.
 */
int cycle_engine_options(struct cycle *c, struct blame_options *o);

/*
 * After the blame `b` of REV: the replaced lines; then the commits of
 * REV0..REV (changesets, lines, trailers), with REV's .mailmap, counted on
 * a thread of their own when o->jobs > 1 (here otherwise), so that the
 * caller goes on publishing what does not need them. That thread reads
 * objects through repo->odb and a libgit2 handle of its own; the caller
 * may go on using `repo`, which must outlive cycle_wait() or cycle_free().
 */
int cycle_finish(struct cycle *c, struct repository *repo,
		 const struct blame_result *b);

/*
 * Wait for the commits' count: 0, or its error (again on every call).
 * Cheap once it is done; inline, so that the pages need no cycle.c.
 */
static inline int cycle_wait(const struct cycle *c)
{
	return c && c->wait ? c->wait(c) : 0;
}

void cycle_free(struct cycle *c);

/* ---- cycle_log.c: the commits of the cycle ---- */

/*
 * Count the commits of REV0..REV into c's changesets, lines, authors and
 * organisations, and credits, with the mailmap `mm` (taken: freed by
 * cycle_free()): on a thread of their own when the options' jobs > 1,
 * else here (called by cycle_finish()). Then c->wait is cycle_wait()'s.
 */
int cycle_log_start(struct cycle *c, struct repository *repo,
		    struct mailmap *mm);

/* The count's end: joins its thread; frees what it held. */
void cycle_log_release(struct cycle *c);

/* ---- cycle_trailers.c ---- */

/*
 * The trailers of commit message msg[0, len) as `git interpret-trailers
 * --parse` (git 2.39, default configuration) finds them: the last
 * paragraph after the title, when all its lines are trailers, or it has
 * a git-made one ("Signed-off-by: ", "(cherry picked from commit ") and
 * at least a quarter of its lines are trailers; continuation lines
 * (starting with white space) fold into the trailer before. fn gets each
 * trailer's token and value, trimmed, the value unfolded (a line end and
 * the white space after it one space), as `%(trailers:unfold)` prints
 * them. The message ends at its first NUL byte, as git reads it.
 * A negative return from fn stops the parse with it.
 */
int cycle_trailers_parse(const char *msg, size_t len,
			 int (*fn)(const char *token, size_t tlen,
				   const char *value, size_t vlen,
				   void *payload),
			 void *payload);

#endif
