/*
 * blame: the commit behind every line of every text file at a revision,
 * exactly as git 2.39's `git blame` attributes it.
 *
 * One forward pass over the history: each commit's blame is derived from
 * its parents' blames by git's rules (same path, then renames; a parent
 * with the identical blob takes everything; otherwise each parent in order
 * takes the lines its diff leaves unchanged). States are shared between
 * commits and freed when the last child has used them.
 */
#ifndef STRATA_BLAME_H
#define STRATA_BLAME_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/history.h"
#include "strata/odb.h"
#include "strata/repository.h"
#include "strata/util.h"

/* Where a file version stands among the snapshots (blame_options). */
struct blame_snapshot_file {
	uint32_t snapshot;        /* index into blame_options.snapshots */
	uint32_t key;             /* from snapshot_key() */
};

#define BLAME_SNAPSHOT_SKIP UINT32_MAX

struct blame_options {
	int ignore_whitespace;          /* -w */
	const git_oid *ignore;          /* --ignore-rev(s): sorted, unique */
	size_t nignore;
	unsigned jobs;                  /* worker threads for diffs; 0 = 1 */
	/*
	 * Keep only these paths of the tip (exact file paths); NULL = every
	 * text file. A file left out is never read: not checked for text,
	 * not diffed. (The walk still looks at every path of the history:
	 * git's rename detection offers every deleted file as a source.)
	 */
	int (*want_path)(const char *path, void *payload);
	/*
	 * In a partial clone, a rename source whose blob is missing and for
	 * which this returns 1 is passed over (rename.h) rather than an
	 * error; NULL: never. Same payload.
	 */
	int (*pass_over)(const char *path, void *payload);
	void *want_payload;
	/*
	 * Progress, called from the calling thread: `stage` is "history"
	 * (commits walked out of h->n) or "diff" (file versions diffed).
	 */
	void (*progress)(const char *stage, size_t done, size_t total,
			 void *payload);
	void *progress_payload;
	/*
	 * Snapshots: history indices of commits whose every text file is
	 * blamed too, exactly as `git blame SNAPSHOT` would (same options),
	 * in the same pass. snapshots[i] is snapshot i; the tip and repeated
	 * commits may be among them. Without snapshot_lines, none is taken.
	 */
	const uint32_t *snapshots;
	size_t nsnapshots;
	/*
	 * The caller's key for a file of snapshot `snapshot` (a regular
	 * file that want_path keeps), or BLAME_SNAPSHOT_SKIP to leave it out.
	 * Called on the calling thread, during the walk. Optional: without
	 * it every key is 0.
	 */
	int (*snapshot_key)(uint32_t *key, const char *path, size_t snapshot,
			    void *payload);
	/*
	 * The lines of a text file version (history index of each line's
	 * commit, as in struct blame_file) and every (snapshot, key) where
	 * it stands. Called once per version, from any of the diff threads
	 * and concurrently; `lines` and `at` are borrowed for the call.
	 * A negative return stops the blame with that error.
	 */
	int (*snapshot_lines)(const uint32_t *lines, uint32_t nlines,
			      const struct blame_snapshot_file *at, size_t nat,
			      void *payload);
	void *snapshot_payload;
};

struct blame_file {
	char *path;           /* full path in the tree at the tip (owned) */
	uint32_t nlines;
	uint32_t *lines;      /* history index of the commit of each line */
};

struct blame_result {
	struct blame_file *files; /* text files at the tip, sorted bytewise */
	size_t nfiles;
	uint64_t nlines;
	/* statistics for the report */
	uint64_t ndiffs;          /* blob pairs diffed */
	uint64_t nrenames;        /* renames followed */
	size_t nversions;         /* file versions the tip depends on */
	/*
	 * The engine's stages: "walk" (the forward walk over the history),
	 * "mark" (the text files and what they need), "diffs" (diffing the
	 * versions and computing their lines, all threads), "result"
	 * (putting it together).
	 */
	struct util_stages stages;
	/* object reads: in all, from the cache, built from the packs */
	size_t nreads, ncached, nbuilt;
	size_t walk_cache;        /* the object cache's bound in the walk */
	/* trees the walk read, and those of them the reader handed over */
	size_t nwalk_trees, nhanded;
	size_t nsnapshot_files;   /* text files of all snapshots */
	size_t nsnapshot_versions;  /* distinct versions among them */
	size_t npassed_over;      /* rename sources passed over (pass_over) */
};

/*
 * Blame every text file of the tip commit of `h` (the last commit). The
 * history decides --first-parent (load it that way). *out is the
 * caller's, freed with blame_result_free().
 */
int blame_tree(struct blame_result **out, struct repository *repo,
	       const struct history *h, const struct blame_options *opts);

void blame_result_free(struct blame_result *r);

/*
 * The text files of a tree that the caller's filter left out, and their
 * lines, by reason: reason(path) is 0 for a file kept, else the reason
 * (1 to BLAME_LEFT_OUT_REASONS - 1) it was left out. Counting the lines
 * reads those blobs (they are not blamed). A blob that a partial clone
 * left out is counted in `missing` only.
 */
#define BLAME_LEFT_OUT_REASONS 3

struct blame_left_out {
	size_t files[BLAME_LEFT_OUT_REASONS];
	uint64_t lines[BLAME_LEFT_OUT_REASONS];
	size_t missing;
};

int blame_count_left_out(struct blame_left_out *out, struct repository *repo,
			 const git_oid *tree,
			 int (*reason)(const char *path, void *payload),
			 void *payload);

/*
 * 1 if a blob counts as a text file: non-empty and no NUL byte in its
 * first BLAME_TEXT_PREFIX bytes, as git (the mode is checked by the
 * caller).
 */
#define BLAME_TEXT_PREFIX 8000
int blame_is_text(const void *data, size_t len);

/*
 * Check raw tree data[0, len) (named `oid`, for the error) entry by entry
 * as the blame reads trees: each "MODE NAME\0" and 20 bytes, a name that
 * is no empty, ".", ".." or '/'-holding one, a mode of a type git knows,
 * in git's order with no name twice (a file and a directory of one name,
 * wherever they stand, included). Returns 0 or an error
 * ("corrupt tree 'X': entry 'a' is out of order"). Reads the bytes only;
 * for the fuzzers.
 */
int blame_tree_check(const git_oid *oid, const unsigned char *data,
		     size_t len);

/* A file that differs between two trees (blame_tree_diff()). */
struct blame_tree_change {
	const char *path;         /* borrowed: valid during the call only */
	uint32_t old_mode, new_mode;  /* 0: none on that side */
	git_oid old_oid, new_oid;
};

/* A negative return ends the diff, which returns it. */
typedef int (*blame_tree_change_fn)(const struct blame_tree_change *ch,
				    void *payload);

/*
 * The files (regular, links, gitlinks) that differ between tree a (NULL:
 * the empty tree) and tree b, as `git diff-tree -r` lists them, passed to
 * fn in path order: a file of the same mode and blob on both sides is
 * left out, a directory of the same tree is not read, a file that became
 * a directory (or the reverse) is a delete and adds. The trees are read
 * through db (git: the calling thread's handle; safe on any thread) and
 * checked as blame_tree_check() says.
 */
int blame_tree_diff(struct odb *db, git_repository *git, const git_oid *a,
		    const git_oid *b, blame_tree_change_fn fn, void *payload);

#endif
