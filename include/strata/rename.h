/*
 * rename: which deleted file git 2.39 blame follows into a new path.
 *
 * When blame follows path P at commit C and P is absent from parent X, git
 * runs rename detection on the whole X -> C tree diff with P as the only
 * destination; the candidate sources are the files deleted between X and C.
 * This module reproduces that choice (diffcore-rename.c with
 * single_follow = P, rename_limit 1000, rename_empty on, no copies, no
 * breaks):
 *
 *   1. Exact: a source with P's blob OID (for symlinks and gitlinks the
 *      mode must be equal too). Among several, the first one with P's
 *      basename within the first 100 tried, else the first tried; "first"
 *      is the order of git's hashmap chain, which is diff-queue order except
 *      when the source count lands on a hashmap resize (205, 3277, ...),
 *      where it is reversed.
 *   2. Basename: if exactly one source has P's basename and its similarity
 *      is at least 75% (45000 of 60000), it wins.
 *   3. Similarity: git's 4-candidate scoreboard over all sources, best
 *      (score, same basename) wins if the score is at least 50%; among
 *      equals, the scoreboard slot decides, which can favour a later
 *      source. Skipped when there are more than 1,000,000 sources
 *      (rename limit 1000, squared).
 *
 * Similarity is diffcore-delta's estimate (chunks ending at '\n' or 64
 * bytes, CR of CRLF skipped in text blobs, bytes of the source found in the
 * destination over the larger size). Only regular files are compared
 * inexactly. gitattributes (a `binary`/`-diff` path) are not consulted; such
 * a path is judged by its content like any other.
 *
 * The source list must hold every entry the diff deletes, whatever its
 * mode (symlinks, gitlinks, empty and binary files too): they all count for
 * the basename rule and for the hashmap order, even those never chosen.
 *
 * Not handled here, because git decides it before rename detection: when P
 * is present in the parent with another type (file <-> symlink <-> gitlink),
 * the diff shows P as a type change, P is no rename destination, and git
 * follows nothing. Callers must not ask in that case.
 *
 * Cost: a destination whose blob some source has is settled by a hash
 * lookup. Otherwise each source's size is read once per source list (from
 * the object header), only sources within the 50% size window are scored,
 * best bound first, and each blob's chunk index is built once and cached.
 *
 * Single-threaded: a detector (and its source sets) belongs to one thread,
 * like the git_repository it reads.
 */
#ifndef STRATA_RENAME_H
#define STRATA_RENAME_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

/* One deleted file. `path` is the full path in the parent's tree. */
struct rename_source {
	const char *path;
	uint32_t mode;  /* git mode: 0100644, 0100755, 0120000, 0160000 */
	git_oid oid;
};

/*
 * The detector: reads blobs from `repo` (borrowed; must outlive it) and
 * caches each blob's size and chunk index by OID, least recently used
 * first out once the cache passes its byte limit.
 */
struct rename_detector;

int rename_detector_new(struct rename_detector **out, git_repository *repo);

/* Frees the detector and its cache. Free its rename_sources first. */
void rename_detector_free(struct rename_detector *rd);

/*
 * Read the blobs' bytes through `db` (borrowed; must outlive the detector
 * and be of the same repository) rather than libgit2: strata's reader is
 * the faster one (docs/performance.md, "Measured choices"). Its errors
 * say "unable to read blob '...': ..." as the others do.
 */
struct odb;
void rename_detector_use_odb(struct rename_detector *rd, struct odb *db);

/*
 * What to say when a blob is in none of the repository's stores instead
 * of libgit2's "object not found" (borrowed; must outlive the detector;
 * NULL: libgit2's).
 */
void rename_detector_set_missing_hint(struct rename_detector *rd,
				      const char *hint);

/*
 * A partial clone may lack a source's blob. When it does (the read
 * fails with STRATA_EMISSING) and fn(source path, payload) returns 1,
 * the source is passed over as if it could score nothing, rather than
 * failing; git, which would fetch the blob, might have chosen it. NULL
 * (the default): never. Errors for a missing blob name its path and
 * return STRATA_EMISSING.
 */
void rename_detector_set_pass_over(struct rename_detector *rd,
				   int (*fn)(const char *path, void *payload),
				   void *payload);

/* How many sources have been passed over so far. */
size_t rename_detector_passed_over(const struct rename_detector *rd);

/* Drop every cached blob index (the detector stays usable). */
void rename_detector_clear(struct rename_detector *rd);

/*
 * Bound the cache to about `bytes` (default 128 MiB). Checked after each
 * lookup, so one lookup may go over it while it runs.
 */
void rename_detector_set_cache_limit(struct rename_detector *rd,
				     size_t bytes);

/*
 * Among srcs (files deleted between parent and commit, in git's diff-queue
 * order, i.e. byte order of their full paths), pick what git 2.39 blame
 * follows for destination dst_path / dst_mode / dst_oid. *out = index into
 * srcs, or -1 for none. Returns 0 or a negative error (see error.h).
 *
 * srcs is copied, not kept. Calls with an equal list (same paths, modes
 * and OIDs in the same order, wherever it lives) reuse the work of the
 * previous call, at the price of one comparison of the list per call;
 * rename_sources_* below avoids even that.
 */
int rename_find(int *out, struct rename_detector *rd,
		const struct rename_source *srcs, size_t nsrcs,
		const char *dst_path, uint32_t dst_mode,
		const git_oid *dst_oid);

/*
 * A prepared source list, for asking about many destinations of one
 * commit. rename_sources_new copies srcs; the set borrows `rd`, which must
 * outlive it. Owned by the caller; free with rename_sources_free.
 */
struct rename_sources;

int rename_sources_new(struct rename_sources **out, struct rename_detector *rd,
		       const struct rename_source *srcs, size_t nsrcs);

/* As rename_find, against a prepared list. */
int rename_sources_find(int *out, struct rename_sources *rs,
			const char *dst_path, uint32_t dst_mode,
			const git_oid *dst_oid);

void rename_sources_free(struct rename_sources *rs);

/*
 * git log's rename detection (diffcore-rename, no copies): every file
 * added between parent and commit a destination, dsts[] in diff-queue
 * order, srcs[] the files deleted, likewise. match[d] is the source
 * index of destination d, or -1. Exact matches first (a source serves
 * once; among several, the first with the destination's basename, else
 * the first, in srcs order), then unique basenames at 75%, then git's
 * scoreboard at 50%, skipped when the remaining sources times
 * destinations pass limit * limit (0: no limit). src/rename_pairs.c.
 */
#define RENAME_LOG_LIMIT 1000
int rename_pairs(int *match, struct rename_detector *rd,
		 const struct rename_source *srcs, size_t nsrcs,
		 const struct rename_source *dsts, size_t ndsts, size_t limit);

/* Scores are out of RENAME_MAX_SCORE, as in git (50% is 30000). */
#define RENAME_MAX_SCORE 60000

/*
 * git's estimate_similarity() for one pair, for tests and diagnostics: 0
 * unless both are regular files whose sizes pass the pre-check for
 * `min_score`, else the similarity. Returns 0 or a negative error.
 */
int rename_score(int *out, struct rename_detector *rd,
		 uint32_t src_mode, const git_oid *src_oid,
		 uint32_t dst_mode, const git_oid *dst_oid, int min_score);

#endif
