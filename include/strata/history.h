/*
 * history: the commit graph reachable from one revision, in an order where
 * every commit comes after its parents.
 */
#ifndef STRATA_HISTORY_H
#define STRATA_HISTORY_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/repository.h"

/*
 * The last second of the year 9999 (UTC). Every date strata prints has a
 * four-digit year, so a later one is no date: a commit dated after it is
 * an error, a tag's date falls back to its commit's, SOURCE_DATE_EPOCH
 * is refused.
 */
#define HISTORY_DATE_MAX INT64_C(253402300799)

/*
 * A commit's author as git splits the ident (ident.c split_ident_line):
 * the name before '<' less trailing blanks, the email between '<' and
 * the first '>' after it; both empty when the ident has no "<...>".
 */
struct history_ident {
	char *name;           /* owned */
	char *email;          /* owned */
};

struct history_commit {
	git_oid oid;
	git_oid tree;
	int64_t time;         /* committer time, seconds since the epoch */
	int64_t author_time;  /* author time, the same */
	uint32_t author;      /* index into history.idents */
	uint32_t parents;     /* index of the first parent in history.parents */
	uint32_t nparents;    /* 0 for roots and shallow boundaries */
	uint32_t nchildren;   /* commits in this history that list it as parent */
	unsigned boundary:1;  /* a shallow commit whose parents are missing */
	/*
	 * Not in REV's own history: only an extra tip's (a snapshot's tag
	 * on a release branch, history_load_union()). Counted nowhere;
	 * its lines are a snapshot's.
	 */
	unsigned outside:1;
};

struct history {
	struct history_commit *commits; /* parents before children; tip last */
	size_t n;
	size_t nrev;          /* commits of REV's own history (not outside) */
	uint32_t *parents;    /* parent indices, in each commit's parent order */
	size_t nparents;
	int first_parent;     /* loaded with only first parents */
	size_t nboundary;     /* commits cut off by a shallow clone */
	/* The distinct author idents (by their bytes), in order of first
	 * sight; every commit's `author` points here. */
	struct history_ident *idents;
	size_t nidents;
	/* private: OID lookup */
	uint32_t *slots;
	size_t nslots;
};

/*
 * Load every commit reachable from `tip` (only first parents when
 * `first_parent`). Commits listed in the repository's shallow file act as
 * roots. *out is the caller's, freed with history_free().
 */
int history_load(struct history **out, struct repository *repo,
		 const git_oid *tip, int first_parent);

/*
 * The same, reading the commits at the head of the packs on up to `jobs`
 * threads (see odb.h) and calling progress("commits", read, 0, payload)
 * now and then from the calling thread (0: the total is not known while
 * reading).
 */
int history_load_progress(struct history **out, struct repository *repo,
			  const git_oid *tip, int first_parent, unsigned jobs,
			  void (*progress)(const char *stage, size_t done,
					   size_t total, void *payload),
			  void *payload);

/*
 * The same, for the union of REV's history and the histories of the
 * `nextra` extra tips (none of which may contain `tip`; checked): the
 * commits only they reach are marked `outside`, and `tip` is still last.
 */
int history_load_union(struct history **out, struct repository *repo,
		       const git_oid *tip, const git_oid *extra,
		       size_t nextra, int first_parent, unsigned jobs,
		       void (*progress)(const char *stage, size_t done,
					size_t total, void *payload),
		       void *payload);

/*
 * Read one commit, in or out of any history, as history_load() reads it
 * (replace refs, grafts, a shallow boundary; only the first parent when
 * `first_parent`): its parents into *parents (malloc'd, the caller's;
 * NULL when it has none) and its committer time into *time.
 */
int history_read_parents(git_oid **parents, uint32_t *nparents,
			 int64_t *time, struct repository *repo,
			 const git_oid *oid, int first_parent);

/*
 * Check raw commit data[0, len) as history_load() reads one: a tree
 * line first, parent lines right after it, an author and a committer
 * line each with "<...>" and a time. Returns 0, or an error naming `oid`
 * and what is wrong ("corrupt commit 'X': bad parent line"). Reads the
 * bytes only; for the fuzzers.
 */
int history_commit_check(const git_oid *oid, const unsigned char *data,
			 size_t len);

void history_free(struct history *h);

/* Index of `oid` in h->commits, or -1 if it is not in this history. */
int64_t history_find(const struct history *h, const git_oid *oid);

/*
 * A set of commits as bits: commit i is bit i % 64 of word i / 64
 * (HISTORY_WORDS(h) words for the whole history).
 */
#define HISTORY_WORDS(h) (((h)->n + 63) / 64)

static inline int history_bit(const uint64_t *bits, size_t i)
{
	return (int)(bits[i / 64] >> (i % 64) & 1);
}

/*
 * Add commit `from` and all its ancestors to `bits`. A commit already in
 * is taken to have its ancestors in too (so that several calls build one
 * closed set), and is not walked again.
 */
int history_mark_ancestors(const struct history *h, uint32_t from,
			   uint64_t *bits);

/* The parent indices of commit i (borrowed). */
static inline const uint32_t *history_parents(const struct history *h,
					      size_t i)
{
	return h->parents + h->commits[i].parents;
}

#endif
