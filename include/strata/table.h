/*
 * table: the terminal tables of `strata table`: the releases and the
 * directories (or, with --by, the years, authors or organisations), what
 * the filters left out, and with --history the snapshots and each
 * release's half-life. Names from the repository are quoted as git
 * quotes paths (core.quotePath), so that none can drive the terminal.
 *
 * It writes to the stream main gives it and decides nothing else: main
 * checks the stream for write errors.
 */
#ifndef STRATA_TABLE_H
#define STRATA_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct tally;
struct report_info;
struct snapshots;
struct cycle;

/*
 * The table of tally `t` for `strata table --by BY` (enum options_by);
 * `fully` is core.quotePath. STRATA_ENOMEM is its only error.
 */
int table_print(FILE *out, const struct tally *t,
		const struct report_info *in, int by, int fully);

/*
 * The snapshots of --history: shares by release, then survival.
 * STRATA_ENOMEM is its only error.
 */
int table_print_history(FILE *out, const struct tally *t,
			const struct snapshots *s, int fully);

/*
 * The release cycle of t->cycle (cycle.h): changesets and lines per
 * developer and organisation, credits, the replaced lines. A cycle with
 * nothing to count says why. STRATA_ENOMEM is its only error.
 */
int table_print_cycle(FILE *out, const struct tally *t, int fully);

/* One line on a cycle that cannot be counted (cycle.h's status). */
void table_cycle_status(char *buf, size_t size, const struct cycle *c);

/* 1 if no tag counted: every line is unreleased. */
int table_no_release(const struct tally *t);

/* Why no tag counted, for a note. */
void table_no_release_note(char *buf, size_t size,
			   const struct report_info *in);

#endif
