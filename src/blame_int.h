/*
 * blame_int.h: what the files of the blame engine share; nothing outside
 * them includes it (the API is include/strata/blame.h).
 *
 *   blame_walk.c  stage 1, the mirror walk: versions and their pool, the
 *                 tree mirrors, the origins of changed files
 *   blame_read.c  the walk's reader thread, and the text check of files
 *   blame_diff.c  stages 2 and 3: the diff threads and the evaluation
 *   blame_tree.c  the files that differ between two trees (the cycle's)
 *   blame_list.c  the files of a mirrored tree (the tip's, the
 *                 snapshots') and the versions they need
 *   blame.c       the public entry points, which run the stages
 */
#ifndef STRATA_BLAME_INT_H
#define STRATA_BLAME_INT_H

#include <git2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "strata/blame.h"
#include "strata/diff.h"
#include "strata/history.h"
#include "strata/odb.h"
#include "strata/rename.h"
#include "strata/repository.h"

/*
 * The engine works in three stages.
 *
 * 1. A forward walk over the history (parents first) keeps, for every
 *    commit still needed by a child, a mirror of its tree in which every
 *    regular file points at a "version": the (commit, path) origin of
 *    git's blame. A file whose blob equals its first parent's shares the
 *    parent's version, so does a whole unchanged subtree. A changed file
 *    gets a new version whose origins are found by git's rules (same path
 *    in each parent, then renames), or shares the version of the first
 *    parent with the identical blob.
 * 2. The versions that the tip's text files depend on are diffed against
 *    their origins, in parallel: each is a pure function of two blobs.
 * 3. The versions are evaluated in creation order (origins first): each
 *    line takes its origin's commit, or the version's own commit. Groups
 *    of versions that origins link (a file's history, with its renames)
 *    are independent: each is evaluated as soon as its diffs are done, by
 *    the diff thread that did the last of them.
 *
 * Only file versions reachable from the tip are ever diffed, and a line
 * array lives only until the last version that copies from it is done.
 */

struct version;

struct origin {
	struct version *src;
	struct diff_hunk *hunks;
	uint32_t nhunks;
	int32_t *guess;           /* ignored commits: per target line, or NULL */
};

struct version {
	uint32_t refs;
	uint32_t commit;          /* history index */
	uint32_t seq;             /* creation order */
	uint32_t nlines;
	uint32_t pending;         /* stage 3: dependents not yet evaluated */
	uint32_t slot;            /* stage 3: index in creation order */
	/*
	 * One per parent at most: a commit of 512 MiB (ODB_MAX_OBJECT)
	 * names at most 11.2 million parents, less than 2^24.
	 */
	unsigned norigins:24;
	unsigned needed:1, ignored:1, output:1;
	unsigned counted:1;       /* nlines read off the blob (stage 2) */
	unsigned broken:1;        /* origins unknown: see struct broken */
	unsigned snap:1;          /* a text file of some snapshot */
	unsigned text_known:1, text:1;  /* whether its blob is text */
	git_oid oid;              /* blob */
	struct origin *origins;   /* &one when there is one */
	struct origin one;
	union {
		uint32_t *lines;
		struct version *next_free;   /* in the pool, once freed */
	};
};

struct pool {
	struct version **chunk;
	size_t nchunks, alloc;
	size_t used;              /* of the last chunk */
	struct version *free;     /* freed versions, through next_free */
};

/*
 * How many entries ahead a pass over a node's entries asks for the
 * version or node an entry points to, whose count it will change: the
 * counts are all over memory, and a miss takes about as long as the pass
 * over dozens of entries. On A in performance.md, blame_version_decref
 * took 4.3% to 5.0% of a one-job blame's samples 8 entries ahead, 1.8%
 * to 2.0% 32 ahead, 1.2% to 1.6% 64 ahead.
 */
#define PREFETCH_AHEAD 64

/*
 * A tree entry of the mirror: 24 bytes, for a mirror copies millions of
 * them. Its object name is not copied: it follows the name's NUL in the
 * raw tree (entry_oid()).
 */
struct entry {
	const char *name;         /* in the node's raw tree, NUL-terminated */
	void *ptr;                /* struct node (tree), struct version (file) */
	uint32_t namelen;
	uint8_t kind;             /* enum kind */
	bool exec;                /* a regular file of mode 100755 */
	uint8_t modelen;          /* digits of the mode in the raw tree */
	bool moved;               /* its reference went to a successor node */
};

struct node {
	uint32_t refs;
	uint32_t n;
	/*
	 * The entries before `live_from` and from `live_to` on all moved to
	 * a successor (or hold nothing): letting go of the node need not
	 * look at them. A big directory changed in one entry moves nearly all.
	 */
	uint32_t live_from, live_to;
	git_oid oid;
	/*
	 * 1 + the first of E->runs its build recorded, while the commit it
	 * was built for is walked; 0: none (it fills the padding after oid).
	 */
	uint32_t run;
	struct entry *e;
	struct odb_object *raw;   /* the tree object the entries point into */
};

enum kind { K_TREE, K_FILE, K_LINK, K_GITLINK };

static inline enum kind kind_of(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0040000: return K_TREE;
	case 0120000: return K_LINK;
	case 0160000: return K_GITLINK;
	default: return K_FILE;
	}
}

/* Entry e's object name, in its node's raw tree. */
static inline const git_oid *entry_oid(const struct entry *e)
{
	return (const git_oid *)(const void *)(e->name + e->namelen + 1);
}

/* Entry e's mode as git reads it (canon_mode()). */
static inline uint32_t entry_mode(const struct entry *e)
{
	static const uint32_t mode[] = { 0040000, 0100644, 0120000, 0160000 };

	return e->exec ? 0100755 : mode[e->kind];
}

/*
 * The snapshots' files: each (version, snapshot, key) where a regular file
 * stands in a snapshot's tree. Listed during the walk; after it, only the
 * text files are kept (and those stage 2 is to tell: text_known 0),
 * sorted by the versions' creation order, so that stage 3 finds a
 * version's places by its seq.
 */
struct snapfile {
	struct version *v;
	uint32_t snapshot, key;
};

struct snapset {
	struct snapfile *f;
	size_t n, alloc;
	uint32_t *order;          /* snapshot indices, by commit */
	size_t next;              /* the next of order[] to list */
	uint32_t *seq;            /* after the walk: f[i].v->seq, ascending */
	struct blame_snapshot_file *at;  /* and f[i]'s place */
};

/*
 * A version whose origins could not be found because a partial clone left
 * out a blob that rename detection had to read. It is an error only if
 * the tip needs it; until then, this is what to say.
 */
struct broken {
	uint32_t seq;             /* the version's */
	char *msg;
};

struct engine {
	struct repository *repo;
	const struct history *h;
	const struct blame_options *opts;
	struct rename_detector *rd;
	struct node **roots;      /* per commit, while a child needs it */
	uint32_t *children_left;
	struct pool pool;
	uint32_t seq;
	uint64_t nrenames;
	struct broken *broken;
	size_t nbroken, broken_alloc;
	/* scratch */
	char *path;
	size_t path_alloc;
	uint32_t *parsed;         /* entries build_node() parsed, a stack */
	size_t nparsed, parsed_alloc;
	struct shared_run *runs;  /* what the walked commit's nodes took over */
	size_t nruns, runs_alloc;
	unsigned depth;           /* of the tree build_node() is at */
	uint32_t walking;         /* the commit being mirrored */
	uint32_t built;           /* the nodes built for it */
	struct handoff *handed;   /* its trees from the reader, or NULL */
	size_t ntrees, nhanded;   /* trees read, of them handed over */
	/* versions to finish in stage 1 */
	struct pending *pend;
	size_t npend, pend_alloc;
	struct snapset S;
};

/*
 * A run of entries that node n, built for the commit being walked, took
 * over from old: old's [from, to) are n's from `at` on; `next` is 1 + the
 * index of n's next run, in order (0: the last). Listing the files a
 * commit deleted passes over them (collect_deleted()).
 */
struct shared_run {
	const struct node *old, *n;
	uint32_t from, to, at, next;
};

struct pending {
	struct node *node;
	uint32_t index;
	char *path;
};

/* A blob of the tip, and whether it is text: 0, 1, or -1 (not read). */
struct tipcheck {
	git_oid oid;
	signed char text;
};

/* A file of the tip, as blame_tip_roots() lists them. */
struct tipfile {
	char *path;
	struct version *v;
};

/*
 * While the walk mirrors commit c on the calling thread, another thread
 * (when --jobs allows two) reads the trees of the commits after it that
 * differ from their first parent's, as the walk will read them, into the
 * object cache (READ_LEAD says how they share the commits).
 * It hands each commit's trees to the walk too (struct handoff): the walk
 * then takes them without searching the pack index and the cache again.
 * What it fails to read is left to the walk to report. docs/design.md
 * ("The blame engine", "More cores") gives the measures.
 */

/*
 * How many commits the reader may be ahead of the walk; once that far,
 * it sleeps until the walk is READ_AGAIN commits from it (a wake-up for
 * each commit the walk mirrors is a system call and a switch of threads
 * each time).
 */
#define READ_AHEAD 64
#define READ_AGAIN 16

/*
 * Where the reader goes on when the walk has come within READ_LEAD
 * commits of it: that far ahead of the walk, not to the next commit.
 * Building a tree costs the reader about what it costs the walk, so a
 * reader that read every commit in turn fell behind, and then read what
 * the walk had built already (on the synthetic history of
 * docs/performance.md, 2.5% of the commits were handed over in time).
 * Leaping ahead, the two share the commits: the reader takes those it
 * can have ready, the walk builds the rest itself (8 to 32 all hand over
 * about 60% on that history; 1 about 20%, 64 about 33%).
 */
#define READ_LEAD 16

/*
 * The trees the reader read for one commit, each with a reference, for
 * the walk to take: at most HANDOFF_TREES of them and HANDOFF_BYTES in
 * all (what is over goes through the cache alone), so that the ring of
 * HANDOFF_RING commits holds at most 65 x 1 MiB beside the cache (most
 * of it is in the cache too). A commit of Linux's shape can change a
 * hundred directories, some of thousands of entries: with 64 trees and
 * 256 KiB a slot, a third of the walk's trees on the history of Linux's
 * files (A, docs/performance.md) were left out of their slots.
 * Commit c's slot is the reader's until it has stored `read` past c, then
 * the walk's, if it saw that before it started c, until it stores
 * `walked` past c (having emptied it). The reader is never more than
 * READ_AHEAD commits ahead of the walk (reader_may_go()), and the ring
 * has one slot more, so the two never hold one slot at once; a reader
 * told to stop goes no further, and `stop` is set only once the walk has
 * ended. The reader empties a slot the walk did not take when it comes
 * round to it again, and blame_reader_stop() empties them all.
 */
#define HANDOFF_TREES 256
#define HANDOFF_BYTES ((size_t)1 << 20)
#define HANDOFF_RING (READ_AHEAD + 1)

/*
 * What the reader found a handed tree shares with the first parent's tree
 * at its path (`from`), as raw_ends() would find it: the bytes of their
 * common head, and of their common tail clear of the head's whole
 * entries. The walk builds from that same tree, and then need not
 * compare them again (it takes the tail only where it finds the same
 * `at`).
 */
struct handed_ends {
	bool known;
	git_oid from;
	size_t head;              /* bytes */
	size_t at;                /* where the head's last whole entry ends */
	size_t tail;              /* bytes, within the last (shorter - at) */
};

struct handoff {
	size_t commit;            /* whose trees these are; SIZE_MAX: none */
	uint32_t n;
	size_t bytes;
	git_oid oid[HANDOFF_TREES];
	struct odb_object *obj[HANDOFF_TREES];
	struct handed_ends ends[HANDOFF_TREES];
};

struct reader {
	const struct engine *E;
	git_repository *git;     /* the reader's own handle */
	atomic_size_t walked;    /* commits the walk has mirrored */
	atomic_int stop;
	pthread_t th;
	/*
	 * The reader waits on `moved` for the walk to come near, until it
	 * has mirrored `wake_at` commits, and the walk signals it only when
	 * `waiting` says so (set under the lock) and it has got there: no
	 * lock or wake-up a commit while the reader is busy, nor while it
	 * sleeps.
	 */
	pthread_mutex_t lock;
	pthread_cond_t moved;
	atomic_bool waiting;
	atomic_size_t wake_at;
	/*
	 * The tip's files as blame_tip_roots() will list them, in order, and
	 * whether each is text. The reader fills them in while it waits for
	 * the walk, so that after it only what is left is read; read by
	 * others only after the reader has ended.
	 */
	struct tipcheck *tips;
	size_t ntips, tips_alloc, tips_checked;
	bool tips_listed;
	size_t ntrees;           /* the trees listed: REV's directories */
	size_t cache_bound;      /* the object cache's bound in the walk */
	char *path;
	size_t path_alloc;
	unsigned depth;          /* of the tree reader_list() is at */
	uint32_t ahead;          /* trees read ahead for one commit */
	struct handoff *ring;    /* HANDOFF_RING slots, or NULL */
	atomic_size_t read;      /* one past the last commit read (not all
				    below it were: the reader leaps) */
	atomic_bool read_all;    /* the reader has read what it will */
	bool test_wait;          /* STRATA_TEST_HANDOFF: the walk waits */
	struct handoff *slot;    /* the one the reader is filling */
};

/*
 * Stage 3 runs inside stage 2. A version depends only on its origins, so
 * the versions split into groups linked by origins (a file's history,
 * joined to others by renames), and each group can be evaluated on its
 * own, in creation order, with nothing shared. The diff thread that
 * finishes a group's last run of diffs evaluates the group at once, while
 * its hunks are fresh, instead of all threads waiting for all the diffs
 * and starting over on all the groups, a stage of its own.
 */
struct evaluation {
	struct version **list;    /* all versions, in creation order */
	uint32_t *order;          /* slots, group after group */
	uint32_t *start;          /* group g: order[start[g], start[g + 1]) */
	uint32_t *group;          /* per slot: its group */
	size_t ngroups;
	const struct snapset *S;  /* the snapshots' files, or empty */
	const struct blame_options *opts;
};

/* A stack of versions, and the list of what is needed. */
struct marking {
	struct version **stack, **list;
	size_t sp, stack_alloc, n, alloc;
	uint32_t *runs;
	struct version **run_root;   /* the root each run started from */
	size_t nruns, runs_alloc, run_root_alloc;
};

/* git's tree order: a tree's name compares as if followed by '/'. */
static inline int blame_name_cmp(const char *a, size_t alen, int atree,
				 const char *b, size_t blen, int btree)
{
	size_t m = alen < blen ? alen : blen;
	int c = memcmp(a, b, m);
	unsigned ca, cb;

	if (c)
		return c;
	ca = alen > m ? (unsigned char)a[m] : (atree ? '/' : 0);
	cb = blen > m ? (unsigned char)b[m] : (btree ? '/' : 0);
	return (int)ca - (int)cb;
}

/* ---- blame_walk.c: stage 1 ---- */

void blame_version_decref(struct pool *P, struct version *v);
void blame_pool_free(struct pool *P);
void blame_node_decref(struct pool *P, struct node *n);
int blame_path_put(char **path, size_t *alloc, size_t base,
		   const char *name, size_t len);
int blame_path_push(struct engine *E, size_t base, const char *name,
		    size_t len);
int blame_parse_entry(struct entry *e, const struct odb_object *raw,
		      size_t *at, const git_oid *tree,
		      const struct entry *prev);
/*
 * Every entry of raw tree `oid` into (*e)[0, *n), checked as
 * blame_tree_check() says; *e (*alloc entries) grows as needed and is the
 * caller's, also on error. The names point into raw.
 */
int blame_tree_parse(struct entry **e, size_t *n, size_t *alloc,
		     const struct odb_object *raw, const git_oid *oid);
int blame_broken_error(const struct engine *E, const struct version *v);
int blame_walk_all(struct engine *E, struct reader *R);

/* ---- blame_read.c: the reader, the text check ---- */

void blame_reader_start(struct reader *R, const struct engine *E);
void blame_reader_walked(struct reader *R, size_t n, struct handoff *handed);
struct handoff *blame_reader_handed(struct reader *R, size_t c);
struct odb_object *blame_handoff_take(struct handoff *s, const git_oid *oid,
				      struct handed_ends *ends);
void blame_reader_stop(struct reader *R);
const struct tipcheck *blame_tips_known(const struct reader *R,
					  const struct tipfile *tips, size_t n);
void blame_reader_free(struct reader *R);
int blame_name_file(const char *how, const char *path);
bool blame_is_text_sized(const void *head, size_t got, size_t size);
int blame_is_text_blob(int *out, struct odb *db, git_repository *git,
		       const git_oid *oid);
int blame_check_text(unsigned char *text, struct engine *E,
		     const struct tipfile *tips, size_t n,
		     const struct tipcheck *known);

/* ---- blame_diff.c: stages 2 and 3 ---- */

void blame_evaluation_free(struct evaluation *X);
int blame_evaluation_plan(struct evaluation *X, struct version **list,
			  size_t n, uint32_t nseq);
int blame_diff_all(struct engine *E, struct version **list, size_t n,
		   const uint32_t *runs, size_t nruns,
		   const struct evaluation *X, size_t *failed_at);

/* ---- blame_list.c: the files of a tree, what they need ---- */

bool blame_tip_wanted(const struct blame_options *o, uint32_t mode,
		      const char *path);
int blame_snapset_init(struct engine *E);
void blame_snapset_release(struct snapset *S, struct pool *P);
int blame_snapset_take(struct engine *E, uint32_t c);
int blame_snapset_finish(struct engine *E);
void blame_snapset_count(const struct snapset *S, struct blame_result *res);
int blame_snapset_report(const struct snapset *S,
			 const struct blame_options *o,
			 const struct version *v);
int blame_mark_needed(struct marking *M, const struct engine *E);
void blame_marking_release(struct marking *M);
void blame_name_failed(const struct marking *M, const struct tipfile *tips,
		       size_t ntips, size_t failed);
int blame_tip_roots(struct engine *E, struct reader *R, struct marking *M,
		    struct tipfile **tips, size_t *ntips);
int blame_snapshot_roots(struct engine *E, struct marking *M);

#endif
