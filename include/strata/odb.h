/*
 * odb: reading objects out of a repository's pack files, fast.
 *
 * The engine reads every version of every file the tip depends on, one
 * after another along each file's history. In a pack those versions are
 * mostly deltas against each other, chains up to 50 deep, and libgit2
 * keeps only the bottom of a chain: every read re-applies the whole chain.
 * Like git's own delta base cache, this reader keeps what it has built,
 * intermediate bases included, in one cache shared by all threads and
 * bounded in bytes, so that each object of a chain is built once.
 *
 * Objects that are in no pack (loose ones, those of an alternate store
 * the reader does not know) are read with libgit2, through the
 * git_repository that the caller passes with each read: libgit2 handles
 * are not shared between threads, the reader is.
 */
#ifndef STRATA_ODB_H
#define STRATA_ODB_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "strata/error.h"

struct odb;

/*
 * The largest object strata reads whole: git's core.bigFileThreshold.
 * A larger one is an error to read, but a blob's size and first bytes
 * can still be had (odb_read_prefix()): strata counts such a file as
 * binary, as git's diff does.
 */
#define ODB_MAX_OBJECT ((size_t)512 << 20)

/*
 * How deep trees may nest: a tree further down is an error, so that every
 * walk over a tree's directories, each recursive, stays within its
 * thread's stack; a tree that contains itself (the object under its name
 * in a damaged store) ends there too. git's core.maxTreeDepth default.
 */
#define ODB_MAX_TREE_DEPTH 2048

/*
 * The most directories one commit's tree may hold, each subtree counted
 * wherever it is held: a tree can hold one subtree under many names, and
 * a few levels of that (a "tree bomb", a few kilobytes) name more paths
 * than any walk can visit. Linux holds about 5,000.
 */
#define ODB_MAX_TREES (1u << 20)

/* Set the error for tree `tree`, found deeper than that; returns it. */
static inline int odb_too_deep(const git_oid *tree)
{
	return error_set("corrupt tree '%s': trees nest deeper than %d (or "
			 "it contains itself)", git_oid_tostr_s(tree),
			 ODB_MAX_TREE_DEPTH);
}

/* Set the error for tree `tree`, holding more than that; returns it. */
static inline int odb_too_many_trees(const git_oid *tree)
{
	error_set("tree '%s' holds more than %u directories, each held "
		  "subtree counted", git_oid_tostr_s(tree), ODB_MAX_TREES);
	return STRATA_ETOOBIG;
}

/*
 * The bounds of a walk with git_tree_walk() (which recurses), as
 * strata's own walks keep them: set root (the tree walked, to name) and
 * 0 directories counted.
 */
struct odb_walk_bound {
	const git_oid *root;
	size_t trees;
};

/*
 * At each entry of such a walk: 0 to go on past entry `e` under
 * directory `dir` (as the walk gives it, "a/b/"), or the error, set, of a
 * directory deeper than ODB_MAX_TREE_DEPTH (naming it) or one more than
 * ODB_MAX_TREES (naming the root). Inline: attr.c, built alone in the
 * unit tests, needs it without the reader.
 */
static inline int odb_walk_check(struct odb_walk_bound *b, const char *dir,
				 const git_tree_entry *e)
{
	unsigned depth = 1;

	if (git_tree_entry_filemode(e) != GIT_FILEMODE_TREE)
		return 0;
	for (; *dir; dir++)
		if (*dir == '/' && ++depth > ODB_MAX_TREE_DEPTH)
			return odb_too_deep(git_tree_entry_id(e));
	if (++b->trees >= ODB_MAX_TREES)
		return odb_too_many_trees(b->root);
	return 0;
}

/* An object's content. Read-only; freed with odb_object_free(). */
struct odb_object {
	const unsigned char *data;  /* len bytes, then a NUL */
	size_t len;
	git_object_t type;
};

/*
 * Open the packs of the repository `git` (and of its alternates) for
 * reading, with a cache of at most `cache_bytes` (0: the default, 16 MiB;
 * more buys few hits and costs about three times its size in peak memory:
 * docs/performance.md, "Memory").
 * *out is the caller's, freed with odb_free() after every object read
 * from it.
 */
int odb_open(struct odb **out, git_repository *git, size_t cache_bytes);

/*
 * A reader over one pack and its index held in memory (borrowed: both
 * must outlive *out), for the fuzzers. With no repository behind it, an
 * object in no pack is missing (pass NULL as odb_read()'s `git`).
 */
int odb_open_memory(struct odb **out, const unsigned char *idx,
		    size_t idxlen, const unsigned char *pack, size_t packlen,
		    size_t cache_bytes);

void odb_free(struct odb *db);

/*
 * What to say when an object is in none of the repository's stores
 * instead of libgit2's "object not found" (borrowed; must outlive db;
 * NULL: libgit2's). Set it before any thread reads.
 */
void odb_set_missing_hint(struct odb *db, const char *hint);

/*
 * Change the cache's bound (0: back to the one odb_open() set), evicting
 * down to it at once. Safe while other threads read.
 */
void odb_set_cache_limit(struct odb *db, size_t cache_bytes);

/*
 * Read object `oid`. `git` is the calling thread's own handle on the same
 * repository, for objects in no pack (NULL: there are none). `want` is
 * the type expected, or GIT_OBJECT_ANY; another type is an error. Safe to
 * call from several threads at once. Errors: "unable to read object 'HEX'" and the reason.
 */
int odb_read(struct odb_object **out, struct odb *db, git_repository *git,
	     const git_oid *oid, git_object_t want);

/*
 * The size of blob `oid` (*size) and its first bytes: up to `cap` of
 * them into buf, *got of them (fewer only when the blob is shorter). A
 * blob stored whole, loose or in a pack, is inflated no further than
 * that, and one larger than ODB_MAX_OBJECT is not read at all (*got is
 * 0): enough to tell text from binary. Errors as odb_read()'s.
 */
int odb_read_prefix(unsigned char *buf, size_t cap, size_t *got,
		    size_t *size, struct odb *db, git_repository *git,
		    const git_oid *oid);

/*
 * Parse loose object file z[0, n) as git does: a header "TYPE SIZE\0"
 * (one of the four types, a canonical decimal size within
 * ODB_MAX_OBJECT), then exactly SIZE bytes, the end of the zlib stream,
 * and nothing after it. Errors name `path`. For the fuzzers; odb_read()
 * reads loose objects this way.
 */
int odb_loose_parse(struct odb_object **out, const unsigned char *z,
		    size_t n, const char *path);

/* Drop a reference; NULL is fine. */
void odb_object_free(struct odb_object *obj);
/* One more reference to obj (not NULL), for any thread: obj itself. */
struct odb_object *odb_object_dup(struct odb_object *obj);

/*
 * Stored forms, for a reader that works on deltas itself: diff.c numbers
 * a blob's lines from its delta base's numbers and the delta, without
 * building the blob's bytes. An entry of a pack is named by its place.
 */
struct odb_place {
	uint32_t pack;
	uint64_t offset;
};

enum odb_form {
	ODB_WHOLE,      /* the object itself, deflated */
	ODB_DELTA,      /* a delta against `base`, an entry of the same pack */
	ODB_OTHER       /* anything else: read it with odb_read_place() */
};

struct odb_stored {
	enum odb_form form;
	struct odb_place at, base;
	git_object_t type;          /* ODB_WHOLE's */
	size_t size;                /* what the entry inflates to */
	size_t data;                /* where its deflated bytes start */
};

/* Where `oid` is stored: 0, or GIT_ENOTFOUND when it is in no pack. */
int odb_locate(struct odb_place *out, const struct odb *db,
	       const git_oid *oid);

/*
 * How many entries the pack of `at` holds: a chain of ODB_DELTA entries
 * (each in the pack of the one before) longer than that loops. 0 for no
 * such pack.
 */
size_t odb_pack_entries(const struct odb *db, struct odb_place at);

/* The form of the entry at `at`. Errors: a corrupt entry. */
int odb_stored_at(struct odb_stored *out, const struct odb *db,
		  struct odb_place at);

/*
 * Inflate entry s (ODB_WHOLE or ODB_DELTA) into buf, which has room for
 * s->size bytes. Safe to call from several threads at once.
 */
int odb_stored_inflate(unsigned char *buf, const struct odb *db,
		       const struct odb_stored *s);

/*
 * Reading a delta (as odb_stored_inflate() gives it): its two sizes, then
 * its instructions one by one.
 */
struct odb_delta {
	const unsigned char *d, *end;
	size_t base_len, len;       /* of the base, of the object it makes */
	size_t at;                  /* bytes made so far */
};

/* Start reading delta d[0, n). Returns false when its header is bad. */
bool odb_delta_start(struct odb_delta *it, const unsigned char *d, size_t n);

enum odb_op {
	ODB_OP_END,                 /* done: every byte made */
	ODB_OP_COPY,                /* the base's bytes [*off, *off + *n) */
	ODB_OP_INSERT,              /* the *n bytes at *lit */
	ODB_OP_BAD                  /* malformed */
};

/* The next instruction, checked against both sizes. */
enum odb_op odb_delta_next(struct odb_delta *it, size_t *off, size_t *n,
			   const unsigned char **lit);

/* Set the error for a corrupt entry at `at` (why: "bad entry" if NULL)
 * and return it. */
int odb_place_corrupt(const struct odb *db, struct odb_place at,
		      const char *why);

/* odb_read() of the object at a place (through the cache). */
int odb_read_place(struct odb_object **out, struct odb *db,
		   git_repository *git, struct odb_place at);

/*
 * The commits that lead the packs. git writes a pack's commits (and tags)
 * before its trees and blobs, newest first, so nearly all of a packed
 * history lies in a few runs of entries whose ends the index gives: they
 * can be read in any order, on several threads at once, where a walk
 * along the parents reads one after another. The list holds the commits
 * stored whole in those runs; a commit that is loose, stored as a delta or
 * in a pack laid out otherwise is not in it (odb_read() reads it).
 */
struct odb_commits;

/*
 * List them, each pack's in the order they lie in it: newest first, so
 * that the history of a commit is mostly the run of the list after it.
 * *out is the caller's, freed with odb_commits_free().
 */
int odb_commits_list(struct odb_commits **out, struct odb *db);

size_t odb_commits_count(const struct odb_commits *c);

/* The index of commit `oid` in the list, or -1. */
int64_t odb_commits_find(const struct odb_commits *c, const git_oid *oid);

/*
 * The content of commit i of the list, in *buf (grown with realloc to
 * *cap bytes as needed, NUL-terminated; the caller's), *len bytes.
 * Returns 0 or a negative error code. Safe to call from several threads
 * at once, each with a buffer of its own.
 */
int odb_commits_read(const struct odb_commits *c, size_t i,
		     unsigned char **buf, size_t *cap, size_t *len);

void odb_commits_free(struct odb_commits *c);

/* Counters, for --verbose and the tests. */
struct odb_stats {
	size_t packs;
	size_t reads;         /* odb_read() calls */
	size_t hits;          /* answered from the cache */
	size_t built;         /* objects inflated or built from deltas */
	size_t fallback;      /* read with libgit2 */
	size_t cached;        /* bytes the cache holds now */
};

void odb_stats(struct odb_stats *out, struct odb *db);

#endif
