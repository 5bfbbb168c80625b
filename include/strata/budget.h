/*
 * budget: the memory a run will take, estimated before the heavy work
 * from the counts that are cheap to get (the history's length, REV's
 * files, its lines from a sample of its blobs, the snapshots), against
 * the memory the machine offers. The account behind the estimate is in
 * docs/performance.md, "Memory".
 */
#ifndef STRATA_BUDGET_H
#define STRATA_BUDGET_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/repository.h"

struct budget_counts {
	size_t commits;          /* in the history */
	size_t files;            /* regular files at REV */
	uint64_t lines;          /* REV's lines, estimated (budget_count) */
	size_t snapshots;        /* of --history; 0 without */
	unsigned jobs;           /* threads of the diffs */
	uint64_t mapped;         /* bytes of pack files mapped (address
				    space, not memory) */
};

/*
 * Count REV's files (tree `tree`), estimate its lines
 * from its first 1,024 blobs and every 16th after, and sum the packs'
 * bytes; the caller sets commits, snapshots and jobs. A blob that cannot
 * be read is left out of the sample (the blame says what is wrong with
 * it). Errors: a tree that cannot be read or is corrupt; more than
 * ODB_MAX_TREES trees to read is STRATA_ETOOBIG.
 */
int budget_count(struct budget_counts *c, struct repository *repo,
		 const git_oid *tree);

/* The peak resident memory of a run with these counts, in bytes. */
uint64_t budget_estimate(const struct budget_counts *c);

/*
 * 0 if the estimate fits in what the machine offers (MemAvailable of
 * /proc/meminfo, the cgroup's memory.max; for the address space, with
 * the packs mapped, RLIMIT_AS), or when nothing says; else an error
 * naming both figures. The environment variable STRATA_MEMORY_MIB, when
 * set, is the memory offered instead (0: no check).
 */
int budget_check(const struct budget_counts *c);

#endif
