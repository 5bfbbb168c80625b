#include "strata/blame.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/diff.h"
#include "strata/error.h"
#include "strata/ignore.h"
#include "strata/odb.h"
#include "strata/quote.h"
#include "strata/rename.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

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

/*
 * Versions come from chunks of a pool, not a malloc() each: the walk
 * makes them among its trees and nodes, which scattered them over the
 * heap, and half of blame_tree()'s own time on tmux went to the first
 * touch of each origin in the pass that marks what the tip needs. A
 * freed version waits in the pool for the next one; under ASan it is
 * poisoned meanwhile, so that a use after free is still caught.
 */
#define POOL_CHUNK 1024

#ifdef __SANITIZE_ADDRESS__
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct pool {
	struct version **chunk;
	size_t nchunks, alloc;
	size_t used;              /* of the last chunk */
	struct version *free;     /* freed versions, through next_free */
};

/* A tree entry of the mirror. */
struct entry {
	const char *name;         /* in the node's raw tree, NUL-terminated */
	uint32_t namelen;
	uint32_t mode;
	git_oid oid;
	uint8_t modelen;          /* digits of the mode in the raw tree */
	bool moved;               /* its reference went to a successor node */
	void *ptr;                /* struct node (tree), struct version (file) */
};

struct node {
	uint32_t refs;
	uint32_t n;
	git_oid oid;
	struct entry *e;
	struct odb_object *raw;   /* the tree object the entries point into */
};

enum kind { K_TREE, K_FILE, K_LINK, K_GITLINK };

static enum kind kind_of(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0040000: return K_TREE;
	case 0120000: return K_LINK;
	case 0160000: return K_GITLINK;
	default: return K_FILE;
	}
}

/* git's tree order: a tree's name compares as if followed by '/'. */
static int name_cmp(const char *a, size_t alen, int atree,
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

/*
 * The snapshots' files: each (version, snapshot, key) where a regular file
 * stands in a snapshot's tree. Listed during the walk; after it, only the
 * text files are kept, sorted by the versions' creation order, so that
 * stage 3 finds a version's places by its seq.
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
	size_t nversions;         /* distinct versions among them */
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
	unsigned depth;           /* of the tree build_node() is at */
	/* versions to finish in stage 1 */
	struct pending *pend;
	size_t npend, pend_alloc;
	struct snapset S;
};

struct pending {
	struct node *node;
	uint32_t index;
	char *path;
};

static void version_decref(struct pool *P, struct version *v);
static void node_decref(struct pool *P, struct node *n);

static struct version *version_new(struct engine *E, uint32_t commit,
				   const git_oid *oid)
{
	struct pool *P = &E->pool;
	struct version *v = P->free;

	if (v) {
		POOL_UNPOISON(v, sizeof(*v));
		P->free = v->next_free;
	} else {
		if (!P->nchunks || P->used == POOL_CHUNK) {
			if (P->nchunks == P->alloc) {
				size_t na = P->alloc ? 2 * P->alloc : 16;
				void *q = realloc(P->chunk,
						  na * sizeof(*P->chunk));

				if (!q)
					return NULL;
				P->chunk = q;
				P->alloc = na;
			}
			if (!(P->chunk[P->nchunks] = malloc(
				      POOL_CHUNK * sizeof(struct version))))
				return NULL;
			P->nchunks++;
			P->used = 0;
		}
		v = &P->chunk[P->nchunks - 1][P->used++];
	}
	memset(v, 0, sizeof(*v));
	v->refs = 1;
	v->commit = commit;
	v->seq = E->seq++;
	git_oid_cpy(&v->oid, oid);
	return v;
}

static void version_free_one(struct pool *P, struct version *v,
			     struct version ***stack, size_t *sp,
			     size_t *salloc)
{
	uint32_t i;

	for (i = 0; i < v->norigins; i++) {
		struct version *s = v->origins[i].src;

		free(v->origins[i].hunks);
		free(v->origins[i].guess);
		if (s && --s->refs == 0) {
			if (*sp == *salloc) {
				size_t na = *salloc ? *salloc * 2 : 64;
				struct version **p = realloc(*stack,
							     na * sizeof(*p));

				if (!p)
					continue; /* leak rather than crash */
				*stack = p;
				*salloc = na;
			}
			(*stack)[(*sp)++] = s;
		}
	}
	if (v->origins != &v->one)
		free(v->origins);
	free(v->lines);
	v->next_free = P->free;
	P->free = v;
	POOL_POISON(v, sizeof(*v));
}

/* Iterative: a file's chain of versions can be as long as its history. */
static void version_decref(struct pool *P, struct version *v)
{
	struct version **stack = NULL;
	size_t sp = 0, salloc = 0;

	if (!v || --v->refs)
		return;
	version_free_one(P, v, &stack, &sp, &salloc);
	while (sp)
		version_free_one(P, stack[--sp], &stack, &sp, &salloc);
	free(stack);
}

/* The pool's memory; its versions are all freed by now. */
static void pool_free(struct pool *P)
{
	size_t i;

	for (i = 0; i < P->nchunks; i++) {
		/* The memory goes back to malloc() clean. */
		POOL_UNPOISON(P->chunk[i], POOL_CHUNK * sizeof(struct version));
		free(P->chunk[i]);
	}
	free(P->chunk);
	memset(P, 0, sizeof(*P));
}

static void node_decref(struct pool *P, struct node *n)
{
	uint32_t i;

	if (!n || --n->refs)
		return;
	for (i = 0; i < n->n; i++) {
		struct entry *e = &n->e[i];

		if (i + 8 < n->n && n->e[i + 8].ptr && !n->e[i + 8].moved)
			__builtin_prefetch(n->e[i + 8].ptr, 1);
		if (!e->ptr || e->moved)
			continue;
		if (kind_of(e->mode) == K_TREE)
			node_decref(P, e->ptr);
		else
			version_decref(P, e->ptr);
	}
	free(n->e);
	odb_object_free(n->raw);
	free(n);
}

/* The entry of es[0, n), in git's order, named `name` (a tree or not). */
static const struct entry *entries_find(const struct entry *es, size_t n,
					const char *name, size_t len, int tree)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct entry *e = &es[mid];
		int etree = kind_of(e->mode) == K_TREE;
		int c = name_cmp(e->name, e->namelen, etree, name, len, tree);

		if (!c)
			return e;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct entry *node_find(const struct node *n, const char *name,
				     size_t len, int tree)
{
	return n ? entries_find(n->e, n->n, name, len, tree) : NULL;
}

/* The non-tree entry at `path` under `root`, or NULL. */
static const struct entry *lookup_path(const struct node *root,
				       const char *path)
{
	const struct node *n = root;

	for (;;) {
		const char *slash = strchr(path, '/');
		const struct entry *e;

		if (!slash)
			return node_find(n, path, strlen(path), 0);
		e = node_find(n, path, (size_t)(slash - path), 1);
		if (!e)
			return NULL;
		n = e->ptr;
		path = slash + 1;
	}
}

/*
 * name[0..len) at (*path)[base], NUL-terminated, with room for one more
 * byte (a '/') before the NUL.
 */
static int path_put(char **path, size_t *alloc, size_t base,
		    const char *name, size_t len)
{
	size_t need = base + len + 2;

	if (need > *alloc) {
		size_t na = *alloc ? *alloc : 256;
		char *p;

		while (na < need)
			na *= 2;
		p = realloc(*path, na);
		if (!p)
			return error_oom();
		*path = p;
		*alloc = na;
	}
	memcpy(*path + base, name, len);
	(*path)[base + len] = '\0';
	return 0;
}

static int path_push(struct engine *E, size_t base, const char *name,
		     size_t len)
{
	return path_put(&E->path, &E->path_alloc, base, name, len);
}

/* Whether a file of the tip (not a tree) at `path` is one to blame. */
static bool tip_wanted(const struct blame_options *o, uint32_t mode,
		       const char *path)
{
	/* Regular files only: 100644 and 100755. */
	if (mode != 0100644 && mode != 0100755)
		return false;
	return !o->want_path || o->want_path(path, o->want_payload);
}

static int add_pending(struct engine *E, struct node *node, uint32_t index)
{
	struct pending *p;

	if (E->npend == E->pend_alloc) {
		size_t na = E->pend_alloc ? E->pend_alloc * 2 : 64;
		void *q = realloc(E->pend, na * sizeof(*E->pend));

		if (!q)
			return error_oom();
		E->pend = q;
		E->pend_alloc = na;
	}
	p = &E->pend[E->npend];
	p->node = node;
	p->index = index;
	p->path = strdup(E->path);
	if (!p->path)
		return error_oom();
	E->npend++;
	return 0;
}

/* Where an entry starts and ends in its node's raw tree. */
static size_t entry_start(const struct node *n, const struct entry *e)
{
	return (size_t)((const unsigned char *)e->name - n->raw->data) -
	       e->modelen - 1;
}

static size_t entry_end(const struct node *n, const struct entry *e)
{
	return (size_t)((const unsigned char *)e->name - n->raw->data) +
	       e->namelen + 1 + GIT_OID_RAWSZ;
}

/*
 * A mode as git reads it (canon_mode): a regular file is 100644 or 100755
 * by its owner's execute bit, whatever else its permissions say (git
 * once wrote 100664); a directory, a link or a gitlink, as it is. Any
 * other type: 0 (git reads it as a gitlink; fsck calls it bad).
 */
static uint32_t canon_mode(uint32_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return mode & 0100 ? 0100755 : 0100644;
	case 0040000: return 0040000;
	case 0120000: return 0120000;
	case 0160000: return 0160000;
	default: return 0;
	}
}

/* Set the error for entry e of tree `tree`, `what` is wrong with it. */
static int bad_entry(const git_oid *tree, const struct entry *e,
		     const char *what)
{
	char *buf = NULL;
	const char *name = quote_name(&buf, e->name, 1);
	int rc;

	rc = error_set("corrupt tree '%s': entry '%s' %s",
		       git_oid_tostr_s(tree), name ? name : "?", what);
	free(buf);
	return rc;
}

/* Whether entry b may follow entry a (of tree `tree`) in git's order. */
static int check_join(const struct entry *a, const struct entry *b,
		      const git_oid *tree)
{
	if (a->namelen == b->namelen && !memcmp(a->name, b->name, a->namelen))
		return bad_entry(tree, b, "is there twice");
	if (name_cmp(a->name, a->namelen, kind_of(a->mode) == K_TREE, b->name,
		     b->namelen, kind_of(b->mode) == K_TREE) >= 0)
		return bad_entry(tree, b, "is out of order");
	return 0;
}

/*
 * Parse the raw tree entry at *at of tree `tree`: "MODE NAME\0" and 20
 * bytes of name, after `prev` (NULL: the first) in git's order. A name
 * that is empty, ".", "..", or holds a '/', a duplicate or an entry out
 * of order (which git fsck reports as errors or warnings, and git reads),
 * and a mode of no type git knows, are errors naming the tree.
 */
static int parse_tree_entry(struct entry *e, const struct odb_object *raw,
			    size_t *at, const git_oid *tree,
			    const struct entry *prev)
{
	const unsigned char *d = raw->data, *nul;
	size_t i = *at, len = raw->len, ms = i;
	uint32_t mode = 0;

	while (i < len && d[i] >= '0' && d[i] <= '7' && i - ms < 7)
		mode = mode * 8 + (uint32_t)(d[i++] - '0');
	nul = i < len ? memchr(d + i, 0, len - i) : NULL;
	if (i == ms || i >= len || d[i] != ' ' || !nul ||
	    (size_t)(d + len - nul) < 1 + GIT_OID_RAWSZ)
		return error_set("corrupt tree '%s': truncated entry",
				 git_oid_tostr_s(tree));
	e->modelen = (uint8_t)(i - ms);
	e->mode = canon_mode(mode);
	e->name = (const char *)d + i + 1;
	e->namelen = (uint32_t)(nul - (d + i + 1));
	memcpy(e->oid.id, nul + 1, GIT_OID_RAWSZ);
	*at = (size_t)(nul + 1 + GIT_OID_RAWSZ - d);
	e->ptr = NULL;
	e->moved = false;
	if (!e->namelen)
		return error_set("corrupt tree '%s': an entry with an empty "
				 "name", git_oid_tostr_s(tree));
	if (!strcmp(e->name, ".") || !strcmp(e->name, "..") ||
	    memchr(e->name, '/', e->namelen))
		return bad_entry(tree, e, "is no file name");
	if (!e->mode)
		return bad_entry(tree, e, "has a bad mode");
	/* A file and a directory of the same name are duplicates too. */
	return prev ? check_join(prev, e, tree) : 0;
}

/*
 * A file and a directory of one name need not be neighbours: "a-b" and
 * "a.c" sort between file "a" and directory "a" (which sorts as "a/").
 * In entries e[0, n) of tree `tree`, in git's order, a directory can have
 * such a twin only if the entry before it is its name and a byte below
 * '/'; the twin is then found by bisection (git fsck: duplicateEntries).
 */
static int check_twins(const struct entry *e, size_t n, const git_oid *tree)
{
	size_t i;

	for (i = 1; i < n; i++) {
		const struct entry *d = &e[i], *p = &e[i - 1];

		if (kind_of(d->mode) != K_TREE || p->namelen <= d->namelen ||
		    (unsigned char)p->name[d->namelen] >= '/' ||
		    memcmp(p->name, d->name, d->namelen))
			continue;
		if (entries_find(e, i - 1, d->name, d->namelen, 0))
			return bad_entry(tree, d, "is there twice");
	}
	return 0;
}

int blame_tree_check(const git_oid *oid, const unsigned char *data,
		     size_t len)
{
	const struct odb_object raw = { data, len, GIT_OBJECT_TREE };
	struct entry *e = NULL;
	size_t at = 0, n = 0, alloc = 0;
	int rc = 0;

	while (at < len) {
		if (n == alloc) {
			void *q = realloc(e, (alloc = alloc ? 2 * alloc : 64) *
					  sizeof(*e));

			if (!q) {
				rc = error_oom();
				goto done;
			}
			e = q;
		}
		if ((rc = parse_tree_entry(&e[n], &raw, &at, oid,
					   n ? &e[n - 1] : NULL)) < 0)
			goto done;
		n++;
	}
	rc = check_twins(e, n, oid);
done:
	free(e);
	return rc;
}

/*
 * Entry `e` of `old`, unchanged in n: the same state, one more reference,
 * or (take) the reference of old, which is on its way out. Its name lies
 * `shift` bytes further on in n's raw tree than in old's: negative when
 * the bytes before it shrank, so the offset is summed before it is added
 * to the pointer (a pointer moved past its object and back is undefined).
 */
static void entry_share(struct entry *to, struct entry *e,
			const struct node *old, const struct node *n,
			ptrdiff_t shift, bool take)
{
	ptrdiff_t at = (const unsigned char *)e->name - old->raw->data;

	*to = *e;
	to->moved = false;
	to->name = (const char *)n->raw->data + (at + shift);
	if (!e->ptr)
		return;
	if (take) {
		e->moved = true;
		return;
	}
	if (kind_of(e->mode) == K_TREE)
		((struct node *)e->ptr)->refs++;
	else
		((struct version *)e->ptr)->refs++;
}

static int node_room(struct node *n, size_t *alloc, size_t need)
{
	struct entry *e;
	size_t na;

	if (need <= *alloc)
		return 0;
	na = *alloc * 2 > need ? *alloc * 2 : need;
	if (!(e = realloc(n->e, na * sizeof(*e))))
		return error_oom();
	n->e = e;
	*alloc = na;
	return 0;
}

/*
 * Mirror tree `oid` (at E->path[0..base)) for the commit being walked,
 * sharing what is unchanged from `old`, the first parent's mirror of the
 * same directory. Changed regular files are left NULL and queued.
 *
 * Most commits change a few entries of a directory: the runs of raw tree
 * bytes that old and new share at both ends are taken over from `old`
 * wholesale, and only the entries in between are parsed and looked at.
 *
 * `take`: old goes once this commit is done (its only holder is the mirror
 * of a parent whose last child this is), so the entries shared with it
 * take over its references instead of adding their own. In a history that
 * is mostly a line, that spares an increment now and a decrement later for
 * every entry of every directory on a changed path, each a cache miss.
 * Old is still read (origins, deleted files) until then: its entries
 * stay as they were, only marked as moved.
 */
static int build_node(struct node **out, struct engine *E, struct node *old,
		      const git_oid *oid, size_t base, bool take)
{
	struct node *n = NULL;
	size_t alloc = 0, at = 0, len, oi = 0, tail = 0, i;
	ptrdiff_t shift = 0;
	int rc = 0;

	*out = NULL;
	if (old && git_oid_equal(&old->oid, oid)) {
		((struct node *)old)->refs++;
		*out = (struct node *)old;
		return 0;
	}
	if (E->depth > ODB_MAX_TREE_DEPTH)
		return odb_too_deep(oid);
	if (!(n = calloc(1, sizeof(*n))))
		return error_oom();
	n->refs = 1;
	git_oid_cpy(&n->oid, oid);
	if ((rc = odb_read(&n->raw, E->repo->odb, E->repo->git, oid,
			   GIT_OBJECT_TREE)) < 0)
		goto done;
	len = n->raw->len;
	if ((rc = node_room(n, &alloc, old ? old->n + 8 : 16)) < 0)
		goto done;
	if (old) {
		size_t olen = old->raw->len, small = olen < len ? olen : len;
		size_t p = diff_common_prefix(old->raw->data, n->raw->data,
					      small), q;

		while (oi < old->n && entry_end(old, &old->e[oi]) <= p) {
			/* The counts are all over memory: ask for them early. */
			if (!take && oi + 8 < old->n && old->e[oi + 8].ptr)
				__builtin_prefetch(old->e[oi + 8].ptr, 1);
			entry_share(&n->e[oi], &old->e[oi], old, n, 0, take);
			n->n = (uint32_t)++oi;
		}
		at = oi ? entry_end(old, &old->e[oi - 1]) : 0;
		/* The common tail, clear of the head, in whole entries of old. */
		q = diff_common_suffix(old->raw->data, olen, n->raw->data, len,
				       small - at);
		tail = old->n;
		while (tail > oi && entry_start(old, &old->e[tail - 1]) >=
				    olen - q)
			tail--;
		shift = (ptrdiff_t)len - (ptrdiff_t)olen;
	}
	while (at < len) {
		struct entry *e, *oe = NULL;
		enum kind k;

		/*
		 * Where the parse meets an entry of old's tail, the rest of
		 * the tree is old's, byte for byte.
		 */
		while (tail < (old ? old->n : 0) &&
		       (ptrdiff_t)entry_start(old, &old->e[tail]) + shift <
		       (ptrdiff_t)at)
			tail++;
		if (old && tail < old->n &&
		    (ptrdiff_t)entry_start(old, &old->e[tail]) + shift ==
		    (ptrdiff_t)at) {
			/* old's tail is in order; so must be where it joins. */
			if (n->n && (rc = check_join(&n->e[n->n - 1],
						     &old->e[tail], oid)) < 0)
				goto done;
			if ((rc = node_room(n, &alloc,
					    n->n + (old->n - tail))) < 0)
				goto done;
			for (i = tail; i < old->n; i++) {
				if (!take && i + 8 < old->n &&
				    old->e[i + 8].ptr)
					__builtin_prefetch(old->e[i + 8].ptr,
							   1);
				entry_share(&n->e[n->n], &old->e[i], old, n,
					    shift, take);
				n->n++;
			}
			break;
		}
		if ((rc = node_room(n, &alloc, n->n + 1)) < 0)
			goto done;
		e = &n->e[n->n];
		if ((rc = parse_tree_entry(e, n->raw, &at, oid,
					   n->n ? &n->e[n->n - 1] : NULL)) < 0)
			goto done;
		n->n++;
		k = kind_of(e->mode);
		/* Both lists are in tree order: advance the old one alongside. */
		while (old && oi < old->n) {
			struct entry *o = &old->e[oi];
			int c = name_cmp(o->name, o->namelen,
					 kind_of(o->mode) == K_TREE, e->name,
					 e->namelen, k == K_TREE);

			if (c > 0)
				break;
			oi++;
			if (c == 0) {
				oe = o;
				break;
			}
		}
		if (k == K_TREE) {
			struct node *sub, *os = NULL;

			if (oe && kind_of(oe->mode) == K_TREE)
				os = oe->ptr;
			if ((rc = path_push(E, base, e->name, e->namelen)) < 0)
				goto done;
			E->path[base + e->namelen] = '/';
			/* os goes with old unless something else holds it. */
			E->depth++;
			rc = build_node(&sub, E, os, &e->oid,
					base + e->namelen + 1,
					take && os && os->refs == 1);
			E->depth--;
			if (rc < 0)
				goto done;
			if (take && sub == os) {
				/* Unchanged: old's reference moves over. */
				sub->refs--;
				oe->moved = true;
			}
			n->e[n->n - 1].ptr = sub;
		} else if (k == K_FILE) {
			if (oe && kind_of(oe->mode) == K_FILE &&
			    git_oid_equal(&oe->oid, &e->oid)) {
				struct version *v = oe->ptr;

				if (take)
					oe->moved = true;
				else
					v->refs++;
				e->ptr = v;
			} else {
				if ((rc = path_push(E, base, e->name,
						    e->namelen)) < 0 ||
				    (rc = add_pending(E, n, n->n - 1)) < 0)
					goto done;
			}
		}
	}
	if ((rc = check_twins(n->e, n->n, oid)) < 0)
		goto done;
	*out = n;
	n = NULL;
done:
	if (n) {
		/* Entries not yet filled are NULL and skipped. */
		node_decref(&E->pool, n);
	}
	return rc;
}

/* Files deleted between a parent's mirror and the commit's, in order. */
struct deleted {
	struct rename_source *src;
	struct version **ver;
	char **paths;
	size_t n, alloc;
	int ready;
	struct rename_sources *prepared; /* for many destinations */
};

static void deleted_release(struct deleted *d)
{
	size_t i;

	rename_sources_free(d->prepared);
	for (i = 0; i < d->n; i++)
		free(d->paths[i]);
	free(d->src);
	free(d->ver);
	free(d->paths);
	memset(d, 0, sizeof(*d));
}

static int deleted_add(struct deleted *d, const char *path,
		       const struct entry *e)
{
	if (d->n == d->alloc) {
		size_t na = d->alloc ? d->alloc * 2 : 32;
		void *a = realloc(d->src, na * sizeof(*d->src));
		void *b, *c;

		if (!a)
			return error_oom();
		d->src = a;
		b = realloc(d->ver, na * sizeof(*d->ver));
		if (!b)
			return error_oom();
		d->ver = b;
		c = realloc(d->paths, na * sizeof(*d->paths));
		if (!c)
			return error_oom();
		d->paths = c;
		d->alloc = na;
	}
	d->paths[d->n] = strdup(path);
	if (!d->paths[d->n])
		return error_oom();
	d->src[d->n].path = d->paths[d->n];
	d->src[d->n].mode = e->mode;
	git_oid_cpy(&d->src[d->n].oid, &e->oid);
	d->ver[d->n] = kind_of(e->mode) == K_FILE ? e->ptr : NULL;
	d->n++;
	return 0;
}

static int collect_all(struct engine *E, struct deleted *d,
		       const struct node *n, size_t base)
{
	uint32_t i;
	int rc;

	for (i = 0; i < n->n; i++) {
		const struct entry *e = &n->e[i];

		if ((rc = path_push(E, base, e->name, e->namelen)) < 0)
			return rc;
		if (kind_of(e->mode) == K_TREE) {
			E->path[base + e->namelen] = '/';
			rc = collect_all(E, d, e->ptr, base + e->namelen + 1);
		} else {
			rc = deleted_add(d, E->path, e);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* git's diff-tree: what `old` has that `new` lacks, depth first. */
static int collect_deleted(struct engine *E, struct deleted *d,
			   const struct node *old, const struct node *new,
			   size_t base)
{
	uint32_t i = 0, j = 0;
	int rc;

	if (old == new || (new && git_oid_equal(&old->oid, &new->oid)))
		return 0;
	while (i < old->n) {
		const struct entry *o = &old->e[i];
		int otree = kind_of(o->mode) == K_TREE, c = -1;

		while (new && j < new->n) {
			const struct entry *e = &new->e[j];

			c = name_cmp(o->name, o->namelen, otree, e->name,
				     e->namelen, kind_of(e->mode) == K_TREE);
			if (c <= 0)
				break;
			j++;
			c = -1;
		}
		if (!new || j >= new->n)
			c = -1;
		if ((rc = path_push(E, base, o->name, o->namelen)) < 0)
			return rc;
		if (c == 0) {
			if (otree) {
				E->path[base + o->namelen] = '/';
				rc = collect_deleted(E, d, o->ptr, new->e[j].ptr,
						     base + o->namelen + 1);
				if (rc < 0)
					return rc;
			}
		} else if (otree) {
			E->path[base + o->namelen] = '/';
			rc = collect_all(E, d, o->ptr, base + o->namelen + 1);
			if (rc < 0)
				return rc;
		} else if ((rc = deleted_add(d, E->path, o)) < 0) {
			return rc;
		}
		i++;
	}
	return 0;
}

static int is_ignored(const struct blame_options *o, const git_oid *oid)
{
	size_t lo = 0, hi = o->nignore;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = git_oid_cmp(&o->ignore[mid], oid);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * The rename search for `path` at commit c failed on a blob that a
 * partial clone left out: what to say should the tip need the version.
 */
static char *broken_message(const struct engine *E, uint32_t c,
			    const char *path)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), &E->h->commits[c].oid);
	error_prefix("looking for where '%s' of commit %.12s came from", path,
		     hex);
	return strdup(error_last());
}

static int mark_broken(struct engine *E, struct version *v, char *msg)
{
	if (E->nbroken == E->broken_alloc) {
		size_t na = E->broken_alloc ? E->broken_alloc * 2 : 8;
		void *p = realloc(E->broken, na * sizeof(*E->broken));

		if (!p) {
			free(msg);
			return error_oom();
		}
		E->broken = p;
		E->broken_alloc = na;
	}
	E->broken[E->nbroken].seq = v->seq;
	E->broken[E->nbroken++].msg = msg;
	v->broken = 1;
	return 0;
}

/* The error of a broken version that the tip needs. */
static int broken_error(const struct engine *E, const struct version *v)
{
	size_t i;

	for (i = 0; i < E->nbroken; i++)
		if (E->broken[i].seq == v->seq)
			return error_setc(STRATA_EMISSING, "%s",
					  E->broken[i].msg);
	return error_set("internal error: a broken version without a cause");
}

/*
 * Whether blob `oid`, the origin that parent i offers, is new among those
 * of the parents before it (sgp[0, i)): git keeps only the first parent
 * of each blob. Over 64 parents, a hash of them (tab, mask + 1 slots of
 * indices + 1, those of later parents skipped) keeps a merge of a million
 * parents linear.
 */
static bool first_of_blob(struct version *const *sgp, uint32_t i,
			  const git_oid *oid, uint32_t *tab, size_t mask)
{
	size_t h;
	uint32_t k;

	if (!tab) {
		for (k = 0; k < i; k++)
			if (sgp[k] && git_oid_equal(&sgp[k]->oid, oid))
				return false;
		return true;
	}
	memcpy(&h, oid->id, sizeof(h));
	/* Pass 1 looks at parents before i only, as git does. */
	for (h &= mask; tab[h]; h = (h + 1) & mask)
		if (tab[h] - 1 < i && git_oid_equal(&sgp[tab[h] - 1]->oid, oid))
			return false;
	tab[h] = i + 1;
	return true;
}

/*
 * Find the version for a changed file of commit c by git's rules, and
 * store it in the entry.
 */
static int resolve(struct engine *E, uint32_t c, struct pending *p,
		   struct deleted *del)
{
	const struct history_commit *hc = &E->h->commits[c];
	const uint32_t *par = history_parents(E->h, c);
	struct entry *e = &p->node->e[p->index];
	struct version *sg[64], **sgp = sg, *share = NULL, *v = NULL;
	unsigned char present_buf[64], *present = present_buf;
	char *missing = NULL;
	uint32_t i, np = hc->nparents, k, *tab = NULL;
	size_t mask = 0;
	int rc = 0;

	if (np > 64) {
		for (mask = 127; mask < 2 * (size_t)np; mask = 2 * mask + 1)
			;
		sgp = calloc(np, sizeof(*sgp));
		present = calloc(np, 1);
		tab = calloc(mask + 1, sizeof(*tab));
		if (!sgp || !present || !tab) {
			rc = error_oom();
			goto done;
		}
	}
	memset(sgp, 0, np * sizeof(*sgp));
	memset(present, 0, np);
	/* Pass 0: the same path in each parent. */
	for (i = 0; i < np && !share; i++) {
		const struct entry *pe = lookup_path(E->roots[par[i]], p->path);

		if (!pe)
			continue;
		/*
		 * Present in any form, the path is no rename target in this
		 * parent: a type change gives no origin at all.
		 */
		present[i] = 1;
		if (kind_of(pe->mode) != K_FILE)
			continue;
		if (git_oid_equal(&pe->oid, &e->oid)) {
			share = pe->ptr;
			break;
		}
		if (first_of_blob(sgp, i, &pe->oid, tab, mask))
			sgp[i] = pe->ptr;
	}
	/* Pass 1: renames, for parents that have nothing at the path. */
	for (i = 0; i < np && !share; i++) {
		int idx = -1;

		if (sgp[i] || present[i])
			continue;
		if (!del[i].ready) {
			rc = collect_deleted(E, &del[i], E->roots[par[i]],
					     E->roots[c], 0);
			if (rc == 0 && del[i].n)
				rc = rename_sources_new(&del[i].prepared, E->rd,
							del[i].src, del[i].n);
			if (rc < 0)
				goto done;
			del[i].ready = 1;
		}
		if (!del[i].n)
			continue;
		rc = rename_sources_find(&idx, del[i].prepared, p->path,
					 e->mode, &e->oid);
		/*
		 * A blob a partial clone left out: an error only if the tip
		 * needs this version. (No exact match was found, so a later
		 * parent's identical blob still decides as it would.)
		 */
		if (rc == STRATA_EMISSING) {
			if (!missing &&
			    !(missing = broken_message(E, c, p->path))) {
				rc = error_oom();
				goto done;
			}
			rc = 0;
			continue;
		}
		if (rc < 0)
			goto done;
		if (idx < 0 || !del[i].ver[idx])
			continue;
		E->nrenames++;
		if (git_oid_equal(&del[i].src[idx].oid, &e->oid)) {
			share = del[i].ver[idx];
			break;
		}
		/* Like pass 0, git compares with the parents before it. */
		if (first_of_blob(sgp, i, &del[i].src[idx].oid, tab, mask))
			sgp[i] = del[i].ver[idx];
	}
	if (share) {
		share->refs++;
		e->ptr = share;
		goto done;
	}
	v = version_new(E, c, &e->oid);
	if (!v) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < np; i++)
		if (sgp[i])
			v->norigins++;
	/* Mostly one origin: the version holds it. */
	if (v->norigins == 1) {
		v->origins = &v->one;
	} else if (v->norigins) {
		v->origins = calloc(v->norigins, sizeof(*v->origins));
		if (!v->origins) {
			v->norigins = 0;
			version_decref(&E->pool, v);
			rc = error_oom();
			goto done;
		}
	}
	for (i = 0, k = 0; i < np; i++) {
		if (!sgp[i])
			continue;
		sgp[i]->refs++;
		v->origins[k++].src = sgp[i];
	}
	v->ignored = E->opts->nignore && is_ignored(E->opts, &hc->oid);
	e->ptr = v;
	if (missing) {
		rc = mark_broken(E, v, missing);
		missing = NULL;
	}
done:
	free(missing);
	free(tab);
	if (sgp != sg)
		free(sgp);
	if (present != present_buf)
		free(present);
	return rc;
}

static int walk_commit(struct engine *E, uint32_t c)
{
	const struct history_commit *hc = &E->h->commits[c];
	const uint32_t *par = history_parents(E->h, c);
	struct deleted dstack[4], *del = dstack;
	struct node *old;
	size_t i;
	int rc;

	E->npend = 0;
	old = hc->nparents ? E->roots[par[0]] : NULL;
	rc = build_node(&E->roots[c], E, old, &hc->tree, 0,
			old && old->refs == 1 &&
			E->children_left[par[0]] == 1);
	if (rc < 0)
		goto done;
	if (hc->nparents > 4) {
		del = calloc(hc->nparents, sizeof(*del));
		if (!del) {
			rc = error_oom();
			goto done;
		}
	} else {
		memset(dstack, 0, sizeof(dstack));
	}
	for (i = 0; i < E->npend; i++) {
		if ((rc = resolve(E, c, &E->pend[i], del)) < 0)
			break;
	}
	for (i = 0; i < hc->nparents; i++)
		deleted_release(&del[i]);
	if (del != dstack)
		free(del);
done:
	for (i = 0; i < E->npend; i++)
		free(E->pend[i].path);
	E->npend = 0;
	/* A parent's mirror goes once its last child has been built. */
	for (i = 0; i < hc->nparents; i++) {
		uint32_t p = par[i];

		if (--E->children_left[p] == 0) {
			node_decref(&E->pool, E->roots[p]);
			E->roots[p] = NULL;
		}
	}
	return rc;
}

/*
 * A libgit2 handle on the repository for another thread (libgit2's
 * repositories are not to be shared): what the odb leaves to libgit2, loose
 * objects, goes through it.
 */
static int open_handle(git_repository **out, const struct engine *E)
{
	if (git_repository_open_ext(out, git_repository_path(E->repo->git),
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return error_git("unable to open '%s'", E->repo->path);
	return 0;
}

/* ---- stage 1's reader: root trees read ahead of the walk ---- */

/* A blob of the tip, and whether it is text: 0, 1, or -1 (not read). */
struct tipcheck {
	git_oid oid;
	signed char text;
};

/* A file of the tip, as list_tip() lists them. */
struct tipfile {
	char *path;
	struct version *v;
};

/*
 * While the walk mirrors commit c on the calling thread, another thread
 * (when --jobs allows two) builds the root trees of the commits after it
 * that differ from their first parent's, so that the walk finds them in
 * the object cache: a root tree is read for nearly every commit, and on
 * tmux this took the walk from 0.09 s to 0.06 s. (Reading the changed
 * subtrees too made it slower: the reader had to parse every entry and
 * fell behind.) It only warms the cache; what it fails to read is left to
 * the walk to report.
 */
struct reader {
	const struct engine *E;
	git_repository *git;     /* the reader's own handle */
	atomic_size_t walked;    /* commits the walk has mirrored */
	atomic_int stop;
	pthread_t th;
	/*
	 * The tip's files as list_tip() will list them, in its order, and
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
};

/*
 * The object cache's bound during the walk. Packs chain trees from new to
 * old and the walk reads them from old to new, so a tree read builds the
 * newer trees of its chain, which the walk wants later, each directory
 * its own chain: with many directories, 16 MiB lets them go before they
 * are used. 64 MiB took a synthetic history of 500,000 commits and 1,073
 * directories from 24 million objects built to 8 million (walk 39 s to
 * 18 s). With few directories the chains fit in less, and the memory the
 * cache does not take is memory the diffs find already touched: tmux (18
 * directories at 3.5) runs 4% faster with 16 MiB, git at v2.30.0 (203)
 * as fast with 48 MiB less (docs/design.md). So the bound comes
 * from the count of REV's directories, which the reader lists before the
 * walk starts: 64 KiB each, within these limits; without a reader it is
 * the most. The diffs then go back to the usual bound.
 */
#define WALK_CACHE_MIN ((size_t)16 << 20)
#define WALK_CACHE_MAX ((size_t)64 << 20)
#define WALK_CACHE_PER_TREE ((size_t)64 << 10)

static size_t walk_cache(size_t ntrees)
{
	size_t bytes = ntrees * WALK_CACHE_PER_TREE;

	return bytes < WALK_CACHE_MIN ? WALK_CACHE_MIN :
	       bytes > WALK_CACHE_MAX ? WALK_CACHE_MAX : bytes;
}

/* How many commits the reader may be ahead of the walk. */
#define READ_AHEAD 64

static int is_text_blob(int *out, struct odb *db, git_repository *git,
			const git_oid *oid);

/*
 * The regular files under tree `oid` (at R->path[0..base)) that the
 * options want, into R->tip_oid: list_tip()'s choice and order, from the
 * trees rather than from the mirror, which the walk has yet to build.
 */
static int reader_list(struct reader *R, const git_oid *oid, size_t base)
{
	const struct engine *E = R->E;
	struct odb_object *raw = NULL;
	struct entry e, prev;
	size_t at = 0;
	int rc;

	if (R->depth > ODB_MAX_TREE_DEPTH)
		return odb_too_deep(oid);
	if ((rc = odb_read(&raw, E->repo->odb, R->git, oid,
			   GIT_OBJECT_TREE)) < 0)
		return rc;
	R->ntrees++;
	while (at < raw->len && !atomic_load(&R->stop)) {
		if ((rc = parse_tree_entry(&e, raw, &at, oid,
					   at ? &prev : NULL)) < 0 ||
		    (rc = path_put(&R->path, &R->path_alloc, base, e.name,
				   e.namelen)) < 0)
			break;
		prev = e;
		if (kind_of(e.mode) == K_TREE) {
			R->path[base + e.namelen] = '/';
			R->depth++;
			rc = reader_list(R, &e.oid, base + e.namelen + 1);
			R->depth--;
			if (rc < 0)
				break;
			continue;
		}
		if (!tip_wanted(E->opts, e.mode, R->path))
			continue;
		if (R->ntips == R->tips_alloc) {
			size_t na = R->tips_alloc ? R->tips_alloc * 2 : 256;
			struct tipcheck *t = realloc(R->tips, na * sizeof(*t));

			if (!t) {
				rc = error_oom();
				break;
			}
			R->tips = t;
			R->tips_alloc = na;
		}
		git_oid_cpy(&R->tips[R->ntips].oid, &e.oid);
		R->tips[R->ntips++].text = -1;
	}
	odb_object_free(raw);
	return rc < 0 ? rc : 0;
}

/* Look at one more of the tip's files; false when none is left. */
static bool reader_check_tip(struct reader *R)
{
	size_t i = R->tips_checked;
	int text;

	if (!R->tips_listed || i >= R->ntips)
		return false;
	R->tips_checked++;
	/* A failure is left to check_text(), which reports it. */
	if (is_text_blob(&text, R->E->repo->odb, R->git,
			 &R->tips[i].oid) == 0)
		R->tips[i].text = (signed char)text;
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *R = arg;
	const struct history *h = R->E->h;
	size_t c;

	for (c = 0; c < h->n && !atomic_load(&R->stop); c++) {
		const struct history_commit *hc = &h->commits[c];
		struct odb_object *o = NULL;

		/* Far enough ahead: check the tip's files, or wait. */
		while (c > atomic_load(&R->walked) + READ_AHEAD &&
		       !atomic_load(&R->stop)) {
			struct timespec ts = { 0, 50 * 1000 };

			if (!reader_check_tip(R))
				nanosleep(&ts, NULL);
		}
		if (hc->nparents &&
		    git_oid_equal(&hc->tree, &h->commits[history_parents(
					h, (uint32_t)c)[0]].tree))
			continue;
		if (odb_read(&o, R->E->repo->odb, R->git, &hc->tree,
			     GIT_OBJECT_TREE) == 0)
			odb_object_free(o);
	}
	while (!atomic_load(&R->stop) && reader_check_tip(R))
		;
	return NULL;
}

/* Bound the walk's cache, and start a reader if there is a thread to spare. */
static void reader_start(struct reader *R, const struct engine *E)
{
	memset(R, 0, sizeof(*R));
	R->E = E;
	atomic_init(&R->walked, 0);
	atomic_init(&R->stop, 0);
	R->cache_bound = WALK_CACHE_MAX;
	/*
	 * The tip's files are listed before the walk starts, so that the
	 * walk's cache is bounded by the count of REV's directories whatever
	 * the threads' timing.
	 */
	if (E->opts->jobs >= 2 && open_handle(&R->git, E) == 0) {
		const git_oid *tip = &E->h->commits[E->h->n - 1].tree;

		R->tips_listed = reader_list(R, tip, 0) == 0;
		if (R->tips_listed)
			R->cache_bound = walk_cache(R->ntrees);
	}
	odb_set_cache_limit(E->repo->odb, R->cache_bound);
	if (R->git && pthread_create(&R->th, NULL, reader_main, R) == 0)
		return;
	git_repository_free(R->git);
	R->git = NULL;
}

static void reader_stop(struct reader *R)
{
	if (!R->git)
		return;
	atomic_store(&R->stop, 1);
	pthread_join(R->th, NULL);
	git_repository_free(R->git);
	R->git = NULL;
}

/* The reader's findings on the tip's files, if they are these files. */
static const struct tipcheck *tips_known(const struct reader *R,
					  const struct tipfile *tips, size_t n)
{
	size_t i;

	if (!R->tips_listed || R->ntips != n)
		return NULL;
	for (i = 0; i < n; i++)
		if (!git_oid_equal(&R->tips[i].oid, &tips[i].v->oid))
			return NULL;
	return R->tips;
}

static void reader_free(struct reader *R)
{
	free(R->tips);
	free(R->path);
}

/* ---- stage 3: evaluation, run by stage 2's threads ---- */

/*
 * The lines of a version that stage 2 did not count: its first origin's
 * (counted before, in creation order) plus what the hunks add, less what
 * they take. git's tail trim cuts both blobs right after the same line
 * end, so the hunks of the trimmed blobs tell the difference in full.
 */
static int count_lines(struct version *v)
{
	const struct origin *o;
	int64_t n;
	uint32_t h;

	if (v->counted)
		return 0;
	o = &v->origins[0];
	if (!o->src->counted)
		return error_set("internal error: an origin comes after its "
				 "version");
	n = o->src->nlines;
	for (h = 0; h < o->nhunks; h++)
		n += (int64_t)o->hunks[h].new_count -
		     (int64_t)o->hunks[h].old_count;
	if (n < 0 || n > UINT32_MAX)
		return error_set("internal error: diff hunks do not fit the "
				 "blobs");
	v->nlines = (uint32_t)n;
	v->counted = 1;
	return 0;
}

static int evaluate(struct version *v, unsigned char *taken)
{
	/* Most versions: one origin, nothing ignored, no need for taken[]. */
	bool single = v->norigins == 1 && !v->ignored;
	uint32_t k;
	uint32_t x;

	v->lines = malloc((v->nlines ? v->nlines : 1) * sizeof(*v->lines));
	if (!v->lines)
		return error_oom();
	if (!single)
		memset(taken, 0, v->nlines);
	for (k = 0; k < v->norigins; k++) {
		const struct origin *o = &v->origins[k];
		const uint32_t *src = o->src->lines;
		uint32_t nprev = 0, oprev = 0, h;

		for (h = 0; h <= o->nhunks; h++) {
			uint32_t nend, oend;

			if (h < o->nhunks) {
				nend = o->hunks[h].new_start;
				oend = o->hunks[h].old_start;
			} else {
				nend = v->nlines;
				oend = o->src->nlines;
			}
			if (nend < nprev || oend < oprev ||
			    nend - nprev != oend - oprev || nend > v->nlines ||
			    oend > o->src->nlines)
				return error_set("internal error: diff hunks "
						 "do not fit the blobs");
			if (k == 0) {
				/* Nothing is taken before the first origin. */
				memcpy(v->lines + nprev, src + oprev,
				       (size_t)(nend - nprev) * sizeof(*src));
				if (!single)
					memset(taken + nprev, 1, nend - nprev);
			} else {
				for (x = nprev; x < nend; x++) {
					if (!taken[x]) {
						taken[x] = 1;
						v->lines[x] =
							src[oprev + (x - nprev)];
					}
				}
			}
			if (h < o->nhunks) {
				nprev = nend + o->hunks[h].new_count;
				oprev = oend + o->hunks[h].old_count;
				if (nprev > v->nlines || nprev < nend)
					return error_set("internal error: diff "
							 "hunks do not fit the "
							 "blobs");
				for (x = nend; single && x < nprev; x++)
					v->lines[x] = v->commit;
			}
		}
	}
	if (single)
		return 0;
	for (k = 0; k < v->norigins && v->ignored; k++) {
		const struct origin *o = &v->origins[k];

		for (x = 0; x < v->nlines; x++) {
			if (taken[x] || !o->guess || o->guess[x] < 0)
				continue;
			if ((uint32_t)o->guess[x] >= o->src->nlines)
				return error_set("internal error: guessed line "
						 "out of range");
			taken[x] = 1;
			v->lines[x] = o->src->lines[o->guess[x]];
		}
	}
	for (x = 0; x < v->nlines; x++)
		if (!taken[x])
			v->lines[x] = v->commit;
	return 0;
}

/*
 * Put list[0..n) in creation order. Every seq is below nseq and none
 * repeats, so each version goes straight to its place (qsort() took 8.5
 * million instructions on tmux's 19,739 versions, a pointer chase per
 * comparison).
 */
static int creation_order(struct version **list, size_t n, uint32_t nseq)
{
	struct version **at;
	size_t i, k = 0;

	if (!n)
		return 0;
	if (!(at = calloc(nseq, sizeof(*at))))
		return error_oom();
	for (i = 0; i < n; i++)
		at[list[i]->seq] = list[i];
	for (i = 0; i < nseq; i++)
		if (at[i])
			list[k++] = at[i];
	free(at);
	return 0;
}

/*
 * Stage 3 runs inside stage 2. A version depends only on its origins, so
 * the versions split into groups linked by origins (a file's history,
 * joined to others by renames), and each group can be evaluated on its
 * own, in creation order, with nothing shared. The diff thread that
 * finishes a group's last run of diffs evaluates the group at once, while
 * its hunks are fresh, instead of all threads waiting for all the diffs
 * and starting over on all the groups (on tmux, that stage took 15 to 25
 * ms of the run on its own).
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

static int snapset_report(const struct snapset *S,
			  const struct blame_options *o,
			  const struct version *v);

static uint32_t group_root(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static void evaluation_free(struct evaluation *X)
{
	free(X->list);
	free(X->order);
	free(X->start);
	free(X->group);
	memset(X, 0, sizeof(*X));
}

/*
 * The groups of versions list[0..n), each in creation order; every
 * version's slot becomes its index in creation order. nseq: the engine's
 * count of versions made.
 */
static int evaluation_plan(struct evaluation *X, struct version **list,
			   size_t n, uint32_t nseq)
{
	uint32_t *up = NULL, *placed = NULL;
	size_t i;
	int rc = 0;

	memset(X, 0, sizeof(*X));
	X->list = malloc((n ? n : 1) * sizeof(*X->list));
	X->order = malloc((n ? n : 1) * sizeof(*X->order));
	X->start = malloc((n + 1) * sizeof(*X->start));
	X->group = malloc((n ? n : 1) * sizeof(*X->group));
	up = malloc((n ? n : 1) * sizeof(*up));
	placed = calloc(n + 1, sizeof(*placed));
	if (!X->list || !X->order || !X->start || !X->group || !up ||
	    !placed) {
		rc = error_oom();
		goto done;
	}
	if (n)
		memcpy(X->list, list, n * sizeof(*list));
	if ((rc = creation_order(X->list, n, nseq)) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		X->list[i]->slot = (uint32_t)i;
		up[i] = (uint32_t)i;
	}
	for (i = 0; i < n; i++) {
		uint32_t k;

		for (k = 0; k < X->list[i]->norigins; k++) {
			uint32_t a = group_root(up, (uint32_t)i);
			uint32_t b = group_root(up,
					X->list[i]->origins[k].src->slot);

			if (a != b)
				up[a > b ? a : b] = a < b ? a : b;
		}
	}
	/* Groups numbered by their first version; then their sizes. */
	for (i = 0; i < n; i++) {
		uint32_t r = group_root(up, (uint32_t)i);

		if (r == i)
			X->group[i] = (uint32_t)X->ngroups++;
		else
			X->group[i] = X->group[r];
		placed[X->group[i] + 1]++;
	}
	X->start[0] = 0;
	for (i = 0; i < X->ngroups; i++)
		X->start[i + 1] = X->start[i] + placed[i + 1];
	memset(placed, 0, (n + 1) * sizeof(*placed));
	for (i = 0; i < n; i++) {
		uint32_t g = X->group[i];

		X->order[X->start[g] + placed[g]++] = (uint32_t)i;
	}
done:
	free(up);
	free(placed);
	if (rc < 0)
		evaluation_free(X);
	return rc;
}

/*
 * Evaluate group g in creation order, with the calling thread's scratch
 * (*taken, *have bytes), and free what no later version reads.
 */
static int evaluate_group(const struct evaluation *X, size_t g,
			  unsigned char **taken, size_t *have)
{
	size_t i;
	int rc;

	for (i = X->start[g]; i < X->start[g + 1]; i++) {
		struct version *v = X->list[X->order[i]];
		uint32_t k;

		if ((rc = count_lines(v)) < 0)
			return rc;
		if (v->nlines > *have || !*taken) {
			free(*taken);
			*have = v->nlines > 2 * *have ? v->nlines : 2 * *have;
			if (!(*taken = malloc(*have ? *have : 1)))
				return error_oom();
		}
		if ((rc = evaluate(v, *taken)) < 0)
			return rc;
		if (v->snap && (rc = snapset_report(X->S, X->opts, v)) < 0)
			return rc;
		/* A snapshot's file that nothing reads: its lines are told. */
		if (!v->pending && !v->output) {
			free(v->lines);
			v->lines = NULL;
		}
		/*
		 * Nothing reads v's hunks again: free them here, on this
		 * thread and while they are in its cache, not all at the end.
		 */
		for (k = 0; k < v->norigins; k++) {
			struct version *src = v->origins[k].src;

			free(v->origins[k].hunks);
			free(v->origins[k].guess);
			v->origins[k].hunks = NULL;
			v->origins[k].guess = NULL;
			if (--src->pending == 0 && !src->output) {
				free(src->lines);
				src->lines = NULL;
			}
		}
	}
	return 0;
}

/* ---- stage 2: diffs, in parallel ---- */

/* A run of the list that one thread diffs: list[start, start + n). */
struct work_unit {
	uint32_t start, n;
	uint32_t group;                /* the versions' group (stage 3) */
};

struct work {
	struct engine *E;
	struct version **list;
	size_t n;
	struct work_unit *units;       /* largest first */
	size_t nunits;
	atomic_size_t next;            /* the next unit to take */
	const struct evaluation *X;
	atomic_uint *left;             /* per group: units not diffed yet */
	atomic_size_t done;
	atomic_int failed;
	unsigned flags;
	pthread_mutex_t lock;
	pthread_cond_t finished_cond;  /* a worker has finished */
	unsigned finished;             /* under lock */
	char err[512];
	size_t err_at;                 /* the version that failed, or n */
};

static int load_blob(struct odb_object **out, struct odb *db,
		     git_repository *git, const git_oid *oid)
{
	return odb_read(out, db, git, oid, GIT_OBJECT_BLOB);
}

static int apply_ignore(struct version *v, const char *t, size_t tlen,
			const char **pbuf, const size_t *plen)
{
	unsigned char *want = NULL;
	uint32_t k, x;
	int rc = 0;

	want = malloc(v->nlines ? v->nlines : 1);
	if (!want)
		return error_oom();
	memset(want, 1, v->nlines);
	/* What the normal passes leave with the commit. */
	for (k = 0; k < v->norigins; k++) {
		const struct origin *o = &v->origins[k];
		uint32_t nprev = 0, h;

		for (h = 0; h <= o->nhunks; h++) {
			uint32_t end = h < o->nhunks ? o->hunks[h].new_start
						     : v->nlines;

			for (x = nprev; x < end && x < v->nlines; x++)
				want[x] = 0;
			if (h < o->nhunks)
				nprev = o->hunks[h].new_start +
					o->hunks[h].new_count;
		}
	}
	for (k = 0; k < v->norigins; k++) {
		struct origin *o = &v->origins[k];

		o->guess = malloc((v->nlines ? v->nlines : 1) *
				  sizeof(*o->guess));
		if (!o->guess) {
			rc = error_oom();
			goto done;
		}
		rc = ignore_guess(o->guess, pbuf[k], plen[k], t, tlen,
				  o->hunks, o->nhunks, want);
		if (rc < 0)
			goto done;
		for (x = 0; x < v->nlines; x++) {
			if (want[x] && o->guess[x] >= 0)
				want[x] = 0;
			else
				o->guess[x] = -1;
		}
	}
done:
	free(want);
	return rc;
}

/* Keep the hunks of dr as origin o's. */
static int keep_hunks(struct origin *o, const struct diff_result *dr)
{
	o->nhunks = (uint32_t)dr->n;
	if (dr->n) {
		o->hunks = malloc(dr->n * sizeof(*o->hunks));
		if (!o->hunks)
			return error_oom();
		memcpy(o->hunks, dr->hunks, dr->n * sizeof(*o->hunks));
	}
	return 0;
}

/*
 * Without -w and outside ignored commits, the diffs need only the lines
 * of the blobs, which diff_stored() numbers from the pack's deltas.
 */
static int diff_version_stored(struct version *v, struct odb *db,
			       git_repository *git, struct diff_result *dr)
{
	uint32_t k;
	int rc;

	if (!v->norigins) {
		if ((rc = diff_stored_lines(&v->nlines, db, git,
					    &v->oid)) < 0)
			return rc;
		v->counted = 1;
		return 0;
	}
	for (k = 0; k < v->norigins; k++) {
		struct origin *o = &v->origins[k];

		if ((rc = diff_stored(dr, db, git, &o->src->oid, &v->oid, NULL,
				      NULL)) < 0 ||
		    (rc = keep_hunks(o, dr)) < 0)
			return rc;
	}
	return 0;
}

static int diff_version(struct version *v, struct odb *db,
			git_repository *git, struct diff_result *dr,
			unsigned flags)
{
	struct odb_object *tb = NULL, *pb_buf[8], **pb = pb_buf;
	const char *pbuf[8], **pbufs = pbuf;
	size_t plen[8], *plens = plen;
	const char *t;
	size_t tlen;
	uint32_t k;
	int rc;

	if (!(flags & DIFF_IGNORE_WHITESPACE) && !v->ignored)
		return diff_version_stored(v, db, git, dr);
	if ((rc = load_blob(&tb, db, git, &v->oid)) < 0)
		return rc;
	t = (const char *)tb->data;
	tlen = tb->len;
	/*
	 * A version with an origin has as many lines as it, give or take
	 * the hunks: counted in stage 3, not here on every blob.
	 */
	if (!v->norigins || v->ignored) {
		v->nlines = diff_count_lines(t, tlen);
		v->counted = 1;
	}
	if (v->norigins > 8) {
		pbufs = calloc(v->norigins, sizeof(*pbufs));
		plens = calloc(v->norigins, sizeof(*plens));
		pb = calloc(v->norigins, sizeof(*pb));
		if (!pbufs || !plens || !pb) {
			rc = error_oom();
			goto done;
		}
	} else {
		memset(pb_buf, 0, sizeof(pb_buf));
	}
	for (k = 0; k < v->norigins; k++) {
		struct origin *o = &v->origins[k];

		if ((rc = load_blob(&pb[k], db, git, &o->src->oid)) < 0)
			goto done;
		pbufs[k] = (const char *)pb[k]->data;
		plens[k] = pb[k]->len;
		{
			struct diff_blob from = { pbufs[k], plens[k],
						  o->src->oid.id };
			struct diff_blob to = { t, tlen, v->oid.id };

			rc = diff_blobs(dr, &from, &to, flags);
		}
		if (rc < 0)
			goto done;
		/* The guesses for ignored commits need every parent at once. */
		if (!v->ignored) {
			odb_object_free(pb[k]);
			pb[k] = NULL;
		}
		if ((rc = keep_hunks(o, dr)) < 0)
			goto done;
	}
	if (v->ignored && v->norigins)
		rc = apply_ignore(v, t, tlen, pbufs, plens);
done:
	if (pb) {
		for (k = 0; k < v->norigins; k++)
			odb_object_free(pb[k]);
	}
	if (pbufs != pbuf) {
		free(pbufs);
		free(plens);
		free(pb);
	}
	odb_object_free(tb);
	return rc;
}

/*
 * The list comes in runs, one for each tip file: the versions its
 * depth-first search reached first, which are mostly its own history, as
 * are the pack's delta chains. Each thread takes a whole run at a time,
 * largest first, so that a chain is built once, on one thread: the first
 * diff of a run rarely has either blob's lines numbered yet and builds
 * them from the pack, down the delta chain. Runs of 256 neighbours
 * instead, split with no regard to files, had tmux's threads build 4,836
 * tables twice, a fifth of them all. A run is split still when it is
 * more than a quarter of a thread's share, so that the threads end
 * together.
 */
#define WORK_UNIT_MIN 8

static int unit_size_cmp(const void *a, const void *b)
{
	const struct work_unit *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * W->units from the runs that start at list indices runs[0..nruns)
 * (runs[0] == 0), for `jobs` threads.
 */
static int work_units(struct work *W, const uint32_t *runs, size_t nruns,
		      unsigned jobs)
{
	size_t cap = W->n / (4 * (size_t)jobs), i, k = 0, total = 0;

	if (cap < WORK_UNIT_MIN)
		cap = WORK_UNIT_MIN;
	for (i = 0; i < nruns; i++) {
		size_t e = i + 1 < nruns ? runs[i + 1] : W->n;

		total += (e - runs[i] + cap - 1) / cap;
	}
	W->units = malloc((total ? total : 1) * sizeof(*W->units));
	W->left = calloc(W->X->ngroups ? W->X->ngroups : 1, sizeof(*W->left));
	if (!W->units || !W->left)
		return error_oom();
	for (i = 0; i < nruns; i++) {
		size_t b = runs[i], e = i + 1 < nruns ? runs[i + 1] : W->n;
		size_t pieces = (e - b + cap - 1) / cap, p;
		/* A run is reached from its first version: one group. */
		uint32_t g = W->X->group[W->list[b]->slot];

		/* Even pieces: no crumb left at the end of a long run. */
		for (p = 0; p < pieces; p++) {
			size_t from = b + (e - b) * p / pieces;
			size_t to = b + (e - b) * (p + 1) / pieces;

			W->units[k++] = (struct work_unit){ (uint32_t)from,
							    (uint32_t)(to - from),
							    g };
			atomic_fetch_add(&W->left[g], 1);
		}
	}
	W->nunits = k;
	qsort(W->units, k, sizeof(*W->units), unit_size_cmp);
	return 0;
}

/* `at`: the version of the list whose diff failed, or W->n. */
static void work_fail(struct work *W, size_t at)
{
	pthread_mutex_lock(&W->lock);
	if (!atomic_load(&W->failed)) {
		snprintf(W->err, sizeof(W->err), "%s", error_last());
		W->err_at = at;
	}
	atomic_store(&W->failed, 1);
	pthread_mutex_unlock(&W->lock);
}

static void work_finished(struct work *W)
{
	pthread_mutex_lock(&W->lock);
	W->finished++;
	pthread_cond_signal(&W->finished_cond);
	pthread_mutex_unlock(&W->lock);
}

/*
 * Take runs of the list until none is left. The calling thread reports
 * progress too (`report`) about ten times a second, between runs.
 */
static void work_run(struct work *W, git_repository *git, bool report)
{
	const struct blame_options *o = W->E->opts;
	struct diff_result dr = {0};
	struct timespec last = {0}, now;
	unsigned char *taken = NULL;
	size_t have = 0;

	for (;;) {
		size_t u = atomic_fetch_add(&W->next, 1), i, e, counted;

		if (u >= W->nunits || atomic_load(&W->failed))
			break;
		i = counted = W->units[u].start;
		e = i + W->units[u].n;
		for (; i < e; i++) {
			if (diff_version(W->list[i], W->E->repo->odb, git, &dr,
					 W->flags) < 0) {
				work_fail(W, i);
				goto out;
			}
			/* Progress in steps of 64 versions: a run can be long. */
			if (i + 1 - counted < 64 && i + 1 < e)
				continue;
			atomic_fetch_add(&W->done, i + 1 - counted);
			counted = i + 1;
			if (!report || !o->progress)
				continue;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec - last.tv_sec) * 1000000000L +
			    (now.tv_nsec - last.tv_nsec) >= 100000000L) {
				o->progress("diff", atomic_load(&W->done), W->n,
					    o->progress_payload);
				last = now;
			}
		}
		/* The group's last unit: all its hunks are there. */
		if (atomic_fetch_sub(&W->left[W->units[u].group], 1) == 1 &&
		    evaluate_group(W->X, W->units[u].group, &taken,
				   &have) < 0) {
			work_fail(W, W->n);
			goto out;
		}
	}
out:
	free(taken);
	diff_result_release(&dr);
	work_finished(W);
}

/* A diff thread, with its own libgit2 handle. */
static void *worker(void *arg)
{
	struct work *W = arg;
	git_repository *git = NULL;

	if (open_handle(&git, W->E) < 0) {
		work_fail(W, W->n);
		work_finished(W);
		return NULL;
	}
	work_run(W, git, false);
	git_repository_free(git);
	return NULL;
}

/*
 * Stage 2 on --jobs threads: the calling thread and jobs - 1 started
 * ones. Working here rather than waiting took tmux's whole run (--jobs
 * 2) from 341 to 331 ms and from 371 to 353 ms, p10 of 25 and 30 runs
 * each in turn: one thread less to start, and this thread's heap has
 * memory from the walk to give (1,500 fewer page faults).
 */
static int diff_all(struct engine *E, struct version **list, size_t n,
		    const uint32_t *runs, size_t nruns,
		    const struct evaluation *X, size_t *failed_at)
{
	struct work W;
	pthread_t th[64];
	unsigned jobs = E->opts->jobs ? E->opts->jobs : 1, i, started = 0;
	int rc = 0;

	if (jobs > 64)
		jobs = 64;
	if (jobs > n)
		jobs = n ? (unsigned)n : 1;
	memset(&W, 0, sizeof(W));
	W.E = E;
	W.list = list;
	W.n = n;
	W.flags = E->opts->ignore_whitespace ? DIFF_IGNORE_WHITESPACE : 0;
	W.X = X;
	W.err_at = n;
	if ((rc = work_units(&W, runs, nruns, jobs)) < 0) {
		free(W.units);
		free(W.left);
		return rc;
	}
	atomic_init(&W.next, 0);
	atomic_init(&W.done, 0);
	atomic_init(&W.failed, 0);
	pthread_mutex_init(&W.lock, NULL);
	pthread_cond_init(&W.finished_cond, NULL);
	for (i = 0; i + 1 < jobs; i++) {
		if (pthread_create(&th[i], NULL, worker, &W))
			break;
		started++;
	}
	work_run(&W, E->repo->git, true);
	diff_thread_end();
	/* Progress ten times a second, and not a moment after the end. */
	pthread_mutex_lock(&W.lock);
	while (W.finished < started + 1) {
		struct timespec ts;

		if (E->opts->progress) {
			pthread_mutex_unlock(&W.lock);
			E->opts->progress("diff", atomic_load(&W.done), n,
					  E->opts->progress_payload);
			pthread_mutex_lock(&W.lock);
			if (W.finished >= started + 1)
				break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000 * 1000 * 1000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000 * 1000 * 1000;
		}
		pthread_cond_timedwait(&W.finished_cond, &W.lock, &ts);
	}
	pthread_mutex_unlock(&W.lock);
	if (E->opts->progress)
		E->opts->progress("diff", atomic_load(&W.done), n,
				  E->opts->progress_payload);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&W.failed))
		rc = error_set("%s", W.err);
	*failed_at = W.err_at;
	pthread_cond_destroy(&W.finished_cond);
	pthread_mutex_destroy(&W.lock);
	free(W.units);
	free(W.left);
	return rc;
}


static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}


static int file_cmp(const void *a, const void *b)
{
	const struct blame_file *x = a, *y = b;

	return strcmp(x->path, y->path);
}

int blame_is_text(const void *data, size_t len)
{
	return len > 0 && !memchr(data, 0, len < BLAME_TEXT_PREFIX ? len
							 : BLAME_TEXT_PREFIX);
}

/* The tip's regular files: their paths and versions, in tree order. */
static int list_tip(struct engine *E, const struct node *n, size_t base,
		    struct tipfile **out, size_t *nout, size_t *alloc)
{
	uint32_t i;
	int rc;

	for (i = 0; i < n->n; i++) {
		const struct entry *e = &n->e[i];
		enum kind k = kind_of(e->mode);

		if (k != K_TREE && k != K_FILE)
			continue;
		if ((rc = path_push(E, base, e->name, e->namelen)) < 0)
			return rc;
		if (k == K_TREE) {
			E->path[base + e->namelen] = '/';
			rc = list_tip(E, e->ptr, base + e->namelen + 1, out,
				      nout, alloc);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!tip_wanted(E->opts, e->mode, E->path))
			continue;
		if (*nout == *alloc) {
			size_t na = *alloc ? *alloc * 2 : 256;
			void *p = realloc(*out, na * sizeof(**out));

			if (!p)
				return error_oom();
			*out = p;
			*alloc = na;
		}
		(*out)[*nout].path = strdup(E->path);
		if (!(*out)[*nout].path)
			return error_oom();
		(*out)[*nout].v = e->ptr;
		(*nout)++;
	}
	return 0;
}

/*
 * Say which file the stored "unable to read blob 'X': why" was about:
 * "unable to read blob 'X' <how> 'PATH': why".
 */
static int name_file(const char *how, const char *path)
{
	static const char pre[] = "unable to read ";
	const char *m = error_last(), *q = strstr(m, "': ");
	char buf[1024];

	if (strncmp(m, pre, sizeof(pre) - 1) || !q)
		return error_prefix("%s '%s'", how, path);
	snprintf(buf, sizeof(buf), "%.*s' %s '%s'%s", (int)(q - m), m, how,
		 path, q + 1);
	return error_set("%s", buf);
}

/*
 * Whether blob `oid` is text: no NUL in its first 8,000 bytes, as git
 * says, and no larger than strata reads (ODB_MAX_OBJECT; git's diff too
 * counts a file above core.bigFileThreshold as binary). Only those bytes
 * are inflated of a blob stored whole.
 */
static int is_text_blob(int *out, struct odb *db, git_repository *git,
			const git_oid *oid)
{
	unsigned char buf[BLAME_TEXT_PREFIX];
	size_t got, size;
	int rc;

	if ((rc = odb_read_prefix(buf, sizeof(buf), &got, &size, db, git,
				  oid)) < 0)
		return rc;
	*out = size <= ODB_MAX_OBJECT && blame_is_text(buf, got);
	return 0;
}

/*
 * Which of the tip's files are text: every blob read once, on up to
 * `jobs` threads. Should several fail, the first in tree order is the one
 * reported, as it would be without threads: the files are handed out in
 * order, and a thread that has taken one checks it before it stops, so
 * every file before a failed one has been checked too.
 */
struct textcheck {
	struct engine *E;
	const struct tipfile *tips;
	const struct tipcheck *known;  /* per file, or NULL */
	unsigned char *text;
	size_t n;
	atomic_size_t next;
	atomic_int failed;
	pthread_mutex_t lock;
	size_t err_at;            /* under lock */
	char err[512];
};

/* One thread's share; git: its own repository handle, or NULL to open one. */
static void textcheck_run(struct textcheck *T, git_repository *git)
{
	git_repository *own = NULL;
	size_t i = T->n;
	int text, rc;

	if (!git) {
		if (open_handle(&own, T->E) < 0)
			goto fail;
		git = own;
	}
	while (!atomic_load(&T->failed)) {
		if ((i = atomic_fetch_add(&T->next, 1)) >= T->n)
			break;
		if (T->known && T->known[i].text >= 0) {
			T->text[i] = (unsigned char)T->known[i].text;
			continue;
		}
		rc = is_text_blob(&text, T->E->repo->odb, git,
				  &T->tips[i].v->oid);
		if (rc < 0)
			goto fail;
		T->text[i] = (unsigned char)text;
	}
	goto out;
fail:
	if (i < T->n)
		name_file("of", T->tips[i].path);
	pthread_mutex_lock(&T->lock);
	if (i <= T->err_at) {
		T->err_at = i;
		snprintf(T->err, sizeof(T->err), "%s", error_last());
	}
	pthread_mutex_unlock(&T->lock);
	atomic_store(&T->failed, 1);
out:
	git_repository_free(own);
}

static void *textcheck_main(void *arg)
{
	textcheck_run(arg, NULL);
	return NULL;
}

/*
 * `known`: what the walk's reader found for the same files, or NULL.
 * Threads are started for the files left to read, if there are enough.
 */
static int check_text(unsigned char *text, struct engine *E,
		      const struct tipfile *tips, size_t n,
		      const struct tipcheck *known)
{
	struct textcheck T;
	pthread_t th[15];
	unsigned jobs = E->opts->jobs ? E->opts->jobs : 1, started = 0, i;
	size_t left = n, k;
	int rc = 0;

	if (known)
		for (k = 0, left = 0; k < n; k++)
			left += known[k].text < 0;
	memset(&T, 0, sizeof(T));
	T.E = E;
	T.tips = tips;
	T.known = known;
	T.text = text;
	T.n = n;
	T.err_at = SIZE_MAX;
	atomic_init(&T.next, 0);
	atomic_init(&T.failed, 0);
	pthread_mutex_init(&T.lock, NULL);
	if (jobs > 16)
		jobs = 16;
	for (i = 1; i < jobs && i < left; i++)
		if (pthread_create(&th[started], NULL, textcheck_main, &T) == 0)
			started++;
	textcheck_run(&T, E->repo->git);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&T.failed))
		rc = error_set("%s", T.err);
	pthread_mutex_destroy(&T.lock);
	return rc;
}

/* ---- snapshots ---- */

struct snap_order {
	uint32_t commit, index;
};

static int snap_order_cmp(const void *a, const void *b)
{
	const struct snap_order *x = a, *y = b;

	if (x->commit != y->commit)
		return x->commit < y->commit ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The snapshots in the order the walk meets them. */
static int snapset_init(struct engine *E)
{
	const struct blame_options *o = E->opts;
	struct snapset *S = &E->S;
	struct snap_order *v;
	size_t i;

	if (!o->snapshot_lines || !o->nsnapshots)
		return 0;
	if (o->nsnapshots >= UINT32_MAX)
		return error_set("too many snapshots");
	if (!(v = malloc(o->nsnapshots * sizeof(*v))) ||
	    !(S->order = malloc(o->nsnapshots * sizeof(*S->order)))) {
		free(v);
		return error_oom();
	}
	for (i = 0; i < o->nsnapshots; i++) {
		if (o->snapshots[i] >= E->h->n) {
			free(v);
			return error_set("internal error: snapshot %zu is not "
					 "in the history", i);
		}
		v[i].commit = o->snapshots[i];
		v[i].index = (uint32_t)i;
	}
	qsort(v, o->nsnapshots, sizeof(*v), snap_order_cmp);
	for (i = 0; i < o->nsnapshots; i++)
		S->order[i] = v[i].index;
	free(v);
	return 0;
}

static void snapset_release(struct snapset *S, struct pool *P)
{
	size_t i;

	for (i = 0; i < S->n; i++)
		version_decref(P, S->f[i].v);
	free(S->f);
	free(S->order);
	free(S->seq);
	free(S->at);
	memset(S, 0, sizeof(*S));
}

static int snap_add(struct snapset *S, struct version *v, uint32_t snapshot,
		    uint32_t key)
{
	if (S->n == S->alloc) {
		size_t na = S->alloc ? S->alloc * 2 : 1024;
		void *p = realloc(S->f, na * sizeof(*S->f));

		if (!p)
			return error_oom();
		S->f = p;
		S->alloc = na;
	}
	v->refs++;
	S->f[S->n++] = (struct snapfile){ v, snapshot, key };
	return 0;
}

/* Every wanted regular file of mirror `n` (at E->path[0..base)). */
static int list_snapshot(struct engine *E, const struct node *n, size_t base,
			 uint32_t snapshot)
{
	const struct blame_options *o = E->opts;
	uint32_t i, key;
	int rc;

	for (i = 0; i < n->n; i++) {
		const struct entry *e = &n->e[i];
		enum kind k = kind_of(e->mode);

		if (k != K_TREE && k != K_FILE)
			continue;
		if ((rc = path_push(E, base, e->name, e->namelen)) < 0)
			return rc;
		if (k == K_TREE) {
			E->path[base + e->namelen] = '/';
			rc = list_snapshot(E, e->ptr, base + e->namelen + 1,
					   snapshot);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!tip_wanted(o, e->mode, E->path))
			continue;
		key = 0;
		if (o->snapshot_key &&
		    (rc = o->snapshot_key(&key, E->path, snapshot,
					  o->snapshot_payload)) < 0)
			return rc;
		if (key != BLAME_SNAPSHOT_SKIP &&
		    (rc = snap_add(&E->S, e->ptr, snapshot, key)) < 0)
			return rc;
	}
	return 0;
}

/* After the walk has mirrored commit c: list the snapshots taken at c. */
static int snapset_take(struct engine *E, uint32_t c)
{
	struct snapset *S = &E->S;
	int rc;

	while (S->order && S->next < E->opts->nsnapshots &&
	       E->opts->snapshots[S->order[S->next]] == c) {
		if ((rc = list_snapshot(E, E->roots[c], 0,
					S->order[S->next])) < 0)
			return rc;
		S->next++;
	}
	return 0;
}

static int snapfile_seq_cmp(const void *a, const void *b)
{
	const struct snapfile *x = a, *y = b;

	if (x->v->seq != y->v->seq)
		return x->v->seq < y->v->seq ? -1 : 1;
	if (x->snapshot != y->snapshot)
		return x->snapshot < y->snapshot ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Whether each snapshot file's blob is text, where the tip's check did not
 * tell already: each distinct version read once. */
static int snapset_check_text(struct engine *E)
{
	struct snapset *S = &E->S;
	struct tipfile *todo = NULL;
	unsigned char *text = NULL;
	size_t i, n = 0;
	int rc = 0;

	if (!(todo = malloc((S->n ? S->n : 1) * sizeof(*todo)))) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < S->n; i++) {
		struct version *v = S->f[i].v;

		if (v->text_known)
			continue;
		v->text_known = 1;      /* listed once; told below */
		todo[n].path = NULL;
		todo[n++].v = v;
	}
	if (!(text = malloc(n ? n : 1))) {
		rc = error_oom();
		goto done;
	}
	if (n && (rc = check_text(text, E, todo, n, NULL)) < 0)
		goto done;
	for (i = 0; i < n; i++)
		todo[i].v->text = text[i] != 0;
done:
	free(todo);
	free(text);
	return rc;
}

/* Keep the snapshots' text files, in creation order of their versions. */
static int snapset_finish(struct engine *E, struct blame_result *res)
{
	struct snapset *S = &E->S;
	size_t i, k = 0;
	int rc;

	if (!S->n)
		return 0;
	if ((rc = snapset_check_text(E)) < 0)
		return rc;
	for (i = 0; i < S->n; i++) {
		if (S->f[i].v->text)
			S->f[k++] = S->f[i];
		else
			version_decref(&E->pool, S->f[i].v);
	}
	S->n = k;
	if (!k)
		return 0;
	qsort(S->f, k, sizeof(*S->f), snapfile_seq_cmp);
	S->seq = malloc(k * sizeof(*S->seq));
	S->at = malloc(k * sizeof(*S->at));
	if (!S->seq || !S->at)
		return error_oom();
	for (i = 0; i < k; i++) {
		S->seq[i] = S->f[i].v->seq;
		S->at[i].snapshot = S->f[i].snapshot;
		S->at[i].key = S->f[i].key;
		if (!i || S->f[i].v != S->f[i - 1].v)
			S->nversions++;
		S->f[i].v->snap = 1;
	}
	res->nsnapshot_files = k;
	res->nsnapshot_versions = S->nversions;
	return 0;
}

/* Stage 3's hand-over of a snapshot version's lines to the caller. */
static int snapset_report(const struct snapset *S,
			  const struct blame_options *o,
			  const struct version *v)
{
	size_t lo = 0, hi = S->n, b;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (S->seq[mid] < v->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (b = lo; b < S->n && S->seq[b] == v->seq; b++)
		;
	if (b == lo)
		return error_set("internal error: a snapshot version is not "
				 "listed");
	return o->snapshot_lines(v->lines, v->nlines, S->at + lo, b - lo,
				 o->snapshot_payload);
}

/* ---- the whole blame ---- */

/* A stack of versions, and the list of what is needed. */
struct marking {
	struct version **stack, **list;
	size_t sp, stack_alloc, n, alloc;
	uint32_t *runs;
	struct version **run_root;   /* the root each run started from */
	size_t nruns;
};

static int push_version(struct version ***v, size_t *n, size_t *alloc,
			struct version *x)
{
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 256;
		void *p = realloc(*v, na * sizeof(**v));

		if (!p)
			return error_oom();
		*v = p;
		*alloc = na;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int mark_root(struct marking *M, struct version *v)
{
	if (v->needed)
		return 0;
	v->needed = 1;
	return push_version(&M->stack, &M->sp, &M->stack_alloc, v);
}

/*
 * List what the roots on M's stack need, depth first: a version's origin
 * is usually the next one listed. The roots lie at the stack's bottom, so
 * popping one starts a run (M->runs). Called again with more roots, it
 * goes on with the list.
 */
static int mark_needed(struct marking *M, const struct engine *E)
{
	size_t roots_left = M->sp;
	uint32_t *runs;
	struct version **roots;
	int rc;

	runs = realloc(M->runs, (M->nruns + M->sp + 1) * sizeof(*M->runs));
	if (runs)
		M->runs = runs;
	roots = realloc(M->run_root, (M->nruns + M->sp + 1) * sizeof(*roots));
	if (roots)
		M->run_root = roots;
	if (!runs || !roots)
		return error_oom();
	while (M->sp) {
		struct version *v = M->stack[--M->sp];
		uint32_t k;

		if (v->broken)
			return broken_error(E, v);
		if (M->sp < roots_left) {
			roots_left = M->sp;
			M->run_root[M->nruns] = v;
			M->runs[M->nruns++] = (uint32_t)M->n;
		}
		if ((rc = push_version(&M->list, &M->n, &M->alloc, v)) < 0)
			return rc;
		for (k = 0; k < v->norigins; k++) {
			struct version *s = v->origins[k].src;

			s->pending++;
			if ((rc = mark_root(M, s)) < 0)
				return rc;
		}
	}
	return 0;
}

static void marking_release(struct marking *M)
{
	free(M->stack);
	free(M->list);
	free(M->runs);
	free(M->run_root);
}

/*
 * After a failed diff of list[failed]: name the tip's file whose history
 * it was in (a run of a snapshot's file deleted since names none).
 */
static void name_failed(const struct marking *M, const struct tipfile *tips,
			size_t ntips, size_t failed)
{
	size_t lo = 0, hi = M->nruns, i;

	if (failed >= M->n || !M->nruns)
		return;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (M->runs[mid] <= failed)
			lo = mid;
		else
			hi = mid;
	}
	for (i = 0; i < ntips; i++)
		if (tips[i].path && tips[i].v == M->run_root[lo]) {
			name_file("in the history of", tips[i].path);
			return;
		}
}

/* Stage 1: the walk, with the trees read ahead and the snapshots listed. */
static int walk_all(struct engine *E, struct reader *R)
{
	const struct history *h = E->h;
	const struct blame_options *opts = E->opts;
	uint32_t c;
	int rc = 0;

	for (c = 0; c < h->n; c++) {
		if ((rc = walk_commit(E, c)) < 0 ||
		    (rc = snapset_take(E, c)) < 0)
			break;
		atomic_store(&R->walked, (size_t)c + 1);
		if (opts->progress && (c % 256 == 0 || c + 1 == h->n))
			opts->progress("history", c + 1, h->n,
				       opts->progress_payload);
	}
	return rc;
}

/* The tip's text files; their versions are the first roots. */
static int tip_roots(struct engine *E, struct reader *R, struct marking *M,
		     struct tipfile **tips, size_t *ntips)
{
	size_t alloc = 0, i;
	unsigned char *text = NULL;
	int rc;

	if ((rc = list_tip(E, E->roots[E->h->n - 1], 0, tips, ntips,
			   &alloc)) < 0)
		return rc;
	if (!(text = malloc(*ntips ? *ntips : 1)))
		return error_oom();
	rc = check_text(text, E, *tips, *ntips, tips_known(R, *tips, *ntips));
	for (i = 0; rc == 0 && i < *ntips; i++) {
		struct version *v = (*tips)[i].v;

		v->text_known = 1;
		v->text = text[i] != 0;
		if (!text[i]) {
			free((*tips)[i].path);
			(*tips)[i].path = NULL;
			continue;
		}
		v->output = 1;
		rc = mark_root(M, v);
	}
	free(text);
	return rc;
}

/* The snapshots' versions, after the tip's, as roots too. */
static int snapshot_roots(struct engine *E, struct marking *M)
{
	size_t i;
	int rc;

	for (i = 0; i < E->S.n; i++)
		if ((rc = mark_root(M, E->S.f[i].v)) < 0)
			return rc;
	return 0;
}

/* The result: the tip's text files and their lines, by path. */
static int collect_result(struct blame_result *res, struct tipfile *tips,
			  size_t ntips)
{
	size_t i;

	res->files = calloc(ntips ? ntips : 1, sizeof(*res->files));
	if (!res->files)
		return error_oom();
	for (i = 0; i < ntips; i++) {
		struct blame_file *f;
		struct version *v = tips[i].v;

		if (!tips[i].path)
			continue;
		f = &res->files[res->nfiles++];
		f->path = tips[i].path;
		tips[i].path = NULL;
		f->nlines = v->nlines;
		f->lines = malloc((v->nlines ? v->nlines : 1) *
				  sizeof(*f->lines));
		if (!f->lines)
			return error_oom();
		memcpy(f->lines, v->lines, v->nlines * sizeof(*f->lines));
		res->nlines += v->nlines;
	}
	qsort(res->files, res->nfiles, sizeof(*res->files), file_cmp);
	return 0;
}

static void engine_release(struct engine *E)
{
	uint32_t c;

	snapset_release(&E->S, &E->pool);
	if (E->roots) {
		for (c = 0; c < E->h->n; c++)
			node_decref(&E->pool, E->roots[c]);
	}
	pool_free(&E->pool);
	free(E->roots);
	free(E->children_left);
	free(E->pend);
	free(E->path);
	for (size_t i = 0; i < E->nbroken; i++)
		free(E->broken[i].msg);
	free(E->broken);
	rename_detector_free(E->rd);
}

static int engine_init(struct engine *E, struct repository *repo,
		       const struct history *h,
		       const struct blame_options *opts)
{
	uint32_t c;
	int rc;

	memset(E, 0, sizeof(*E));
	E->repo = repo;
	E->h = h;
	E->opts = opts;
	if (!h->n)
		return error_set("empty history");
	E->roots = calloc(h->n, sizeof(*E->roots));
	E->children_left = malloc(h->n * sizeof(*E->children_left));
	if (!E->roots || !E->children_left)
		return error_oom();
	if ((rc = rename_detector_new(&E->rd, repo->git)) < 0)
		return rc;
	rename_detector_set_missing_hint(E->rd, repo->missing_hint);
	rename_detector_use_odb(E->rd, repo->odb);
	rename_detector_set_pass_over(E->rd, opts->pass_over,
				      opts->want_payload);
	for (c = 0; c < h->n; c++)
		E->children_left[c] = h->commits[c].nchildren;
	return snapset_init(E);
}

int blame_tree(struct blame_result **out, struct repository *repo,
	       const struct history *h, const struct blame_options *opts)
{
	struct engine E;
	struct blame_result *res = NULL;
	struct tipfile *tips = NULL;
	struct marking M = { 0 };
	size_t ntips = 0, i, failed = 0;
	struct timespec t0;
	struct reader R = { 0 };
	struct evaluation X = { 0 };
	struct odb_stats st;
	int rc = 0;

	*out = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = engine_init(&E, repo, h, opts)) < 0)
		goto done;
	if (!(res = calloc(1, sizeof(*res)))) {
		rc = error_oom();
		goto done;
	}
	reader_start(&R, &E);
	res->walk_cache = R.cache_bound;
	rc = walk_all(&E, &R);
	reader_stop(&R);
	odb_set_cache_limit(repo->odb, 0);
	if (rc < 0)
		goto done;
	res->npassed_over = rename_detector_passed_over(E.rd);
	res->npassed_over = rename_detector_passed_over(E.rd);
	rename_detector_free(E.rd);
	E.rd = NULL;
	res->seconds_walk = elapsed(&t0);
	/* Keep the text files; mark what they need. */
	/*
	 * The tip's files first: each one's run then holds all of its
	 * history, as the pack's delta chains do; the snapshots' files add
	 * runs of what the tip does not need (files deleted since).
	 */
	if ((rc = tip_roots(&E, &R, &M, &tips, &ntips)) < 0 ||
	    (rc = mark_needed(&M, &E)) < 0 ||
	    (rc = snapset_finish(&E, res)) < 0 ||
	    (rc = snapshot_roots(&E, &M)) < 0 ||
	    (rc = mark_needed(&M, &E)) < 0)
		goto done;
	/*
	 * Stages 2 and 3, the diffs in depth-first order: a version's
	 * origin is usually the next one diffed.
	 */
	res->nversions = M.n;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = evaluation_plan(&X, M.list, M.n, E.seq)) < 0)
		goto done;
	X.S = &E.S;
	X.opts = opts;
	if ((rc = diff_all(&E, M.list, M.n, M.runs, M.nruns, &X,
			   &failed)) < 0) {
		name_failed(&M, tips, ntips, failed);
		goto done;
	}
	res->seconds_diff = elapsed(&t0);
	odb_stats(&st, repo->odb);
	res->nreads = st.reads;
	res->ncached = st.hits;
	res->nbuilt = st.built;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < M.n; i++)
		res->ndiffs += M.list[i]->norigins;
	res->nrenames = E.nrenames;
	if ((rc = collect_result(res, tips, ntips)) < 0)
		goto done;
	res->seconds_eval = elapsed(&t0);
done:
	for (i = 0; i < ntips; i++)
		free(tips[i].path);
	free(tips);
	marking_release(&M);
	reader_free(&R);
	evaluation_free(&X);
	engine_release(&E);
	if (rc < 0)
		blame_result_free(res);
	else
		*out = res;
	return rc;
}

void blame_result_free(struct blame_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		free(r->files[i].lines);
	}
	free(r->files);
	free(r);
}

/* ---- the files a filter left out ---- */

struct left_walk {
	struct blame_left_out *out;
	struct repository *repo;
	git_odb *odb;
	int (*reason)(const char *path, void *payload);
	void *payload;
	char *path;
	size_t path_alloc;
	int rc;
};

static int left_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct left_walk *w = payload;
	git_filemode_t mode = git_tree_entry_filemode(e);
	const git_oid *oid = git_tree_entry_id(e);
	struct odb_object *b = NULL;
	size_t rlen = strlen(root);
	int why, text;

	/* libgit2's walk recurses: stop it where build_node() stops. */
	if (mode == GIT_FILEMODE_TREE && odb_tree_too_deep(root, e)) {
		w->rc = STRATA_ERR;
		return -1;
	}
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;
	if ((w->rc = path_put(&w->path, &w->path_alloc, 0, root, rlen)) < 0 ||
	    (w->rc = path_put(&w->path, &w->path_alloc, rlen,
			      git_tree_entry_name(e),
			      strlen(git_tree_entry_name(e)))) < 0)
		return -1;
	why = w->reason(w->path, w->payload);
	if (why <= 0 || why >= BLAME_LEFT_OUT_REASONS)
		return 0;
	/* Left with a partial clone's promisor: said, not counted. */
	if (w->repo->missing_hint && !git_odb_exists(w->odb, oid)) {
		w->out->missing++;
		return 0;
	}
	if ((w->rc = is_text_blob(&text, w->repo->odb, w->repo->git,
				  oid)) < 0 ||
	    (text && (w->rc = odb_read(&b, w->repo->odb, w->repo->git, oid,
				       GIT_OBJECT_BLOB)) < 0)) {
		name_file("of", w->path);
		return -1;
	}
	if (text) {
		w->out->files[why]++;
		w->out->lines[why] += diff_count_lines((const char *)b->data,
						       b->len);
	}
	odb_object_free(b);
	return 0;
}

int blame_count_left_out(struct blame_left_out *out, struct repository *repo,
			 const git_oid *tree,
			 int (*reason)(const char *path, void *payload),
			 void *payload)
{
	struct left_walk w = { out, repo, NULL, reason, payload, NULL, 0, 0 };
	git_tree *t = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (git_repository_odb(&w.odb, repo->git) < 0 ||
	    git_tree_lookup(&t, repo->git, tree) < 0) {
		rc = error_git("unable to read the tree of '%s'", repo->path);
		goto done;
	}
	if (git_tree_walk(t, GIT_TREEWALK_PRE, left_cb, &w) < 0)
		rc = w.rc < 0 ? w.rc : error_git("unable to read a tree");
done:
	git_tree_free(t);
	git_odb_free(w.odb);
	free(w.path);
	return rc;
}
