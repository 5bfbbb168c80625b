/*
 * cycle_int.h: what the parts of the cycle module share, and nothing
 * outside src/cycle*.c may use (the module's API is strata/cycle.h).
 *
 *   cycle.c           REV0, the engine's extra snapshot, the replaced
 *                     lines, the rows' sums
 *   cycle_log.c       the commits of REV0..REV: changesets, numstat,
 *                     credits
 *   cycle_trailers.c  git's trailer block of a message
 */
#ifndef STRATA_CYCLE_INT_H
#define STRATA_CYCLE_INT_H

#include <pthread.h>

#include "strata/cycle.h"

struct cycle_state {
	const struct history *h;
	const struct releases *rel;
	struct cycle_options o;
	uint64_t *before;           /* REV0's commits (history_bit()) */
	uint64_t *at_since;         /* per commit: its lines at REV0 */
	pthread_mutex_t lock;
	/* the engine's snapshots before REV0's, and their callbacks */
	uint32_t *snapshots;
	size_t nprev;
	int (*prev_key)(uint32_t *, const char *, size_t, void *);
	int (*prev_lines)(const uint32_t *, uint32_t,
			  const struct blame_snapshot_file *, size_t, void *);
	void *prev_payload;
	/* the commits' count (cycle_log.c) */
	struct repository *repo;    /* its odb and path (borrowed) */
	git_repository *git;        /* its own libgit2 handle */
	struct mailmap *mm;         /* REV's .mailmap */
	pthread_t thread;
	int running;                /* started and not yet joined */
	int log_rc;                 /* its result */
	char *log_msg;              /* and its error's message */
};

/* A named count while the sums are made: name borrowed. */
struct cycle_sum {
	const char *name;
	uint64_t v[3];
	unsigned bot:1;
};

/*
 * The sums of v[0, n) merged by name into *out, malloc'd names: rows of
 * a view (v[] = changesets, added, removed), ranked by v[0], v[1] +
 * v[2], then name.
 */
int cycle_view_make(struct cycle_view *out, const struct cycle_sum *v,
		    size_t n);

/* Sums into lines (v[0]; v is sorted and merged in place), by lines
 * then name, or by name. */
int cycle_lines_make(struct cycle_lines **out, size_t *nout,
		     struct cycle_sum *v, size_t n, int by_name);

/* The author's name after .mailmap; *bot: orgmap_is_bot(). */
const char *cycle_author(const struct mailmap *mm,
			 const struct history_ident *id, unsigned *bot);

#endif
