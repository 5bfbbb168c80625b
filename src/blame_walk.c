/*
 * blame_walk.c: stage 1 of the blame engine, the walk over the history
 * (docs/design.md, "The blame engine"). Each commit gets a mirror of its
 * tree, shared with its first parent's wherever they agree; each changed
 * file a version, whose origins git's rules find (same path, renames).
 * Versions come from a pool; raw trees are parsed and checked here.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "blame_int.h"
#include "strata/error.h"
#include "strata/util.h"
#include "strata/quote.h"

#if UTIL_ASAN
#include <sanitizer/asan_interface.h>
#endif

/*
 * Versions come from chunks of a pool, not a malloc() each: the walk
 * makes them among its trees and nodes, which scattered them over the
 * heap, and the pass that marks what the tip needs (on one core, while
 * the others wait) then spent much of its time on the first touch of
 * each origin. A freed version waits in the pool for the next one;
 * under ASan it is poisoned meanwhile, so that a use after free is
 * still caught.
 */
#define POOL_CHUNK 1024

/* The fewest bytes a raw tree entry takes: "40000 a\0" and an id. */
#define MIN_ENTRY (8 + GIT_OID_RAWSZ)

#if UTIL_ASAN
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

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
			if (UTIL_GROW(P->chunk, P->alloc, P->nchunks + 1) < 0)
				return NULL;
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
			if (*sp == *salloc &&
			    UTIL_GROW(*stack, *salloc, *sp + 1) < 0)
				continue; /* leak rather than crash */
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
void blame_version_decref(struct pool *P, struct version *v)
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
void blame_pool_free(struct pool *P)
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

void blame_node_decref(struct pool *P, struct node *n)
{
	uint32_t i, to;

	if (!n || --n->refs)
		return;
	to = n->live_to < n->n ? n->live_to : n->n;
	for (i = n->live_from; i < to; i++) {
		struct entry *e = &n->e[i];
		const struct entry *a = i + PREFETCH_AHEAD < to ?
					&n->e[i + PREFETCH_AHEAD] : NULL;

		if (a && a->ptr && !a->moved)
			__builtin_prefetch(a->ptr, 1);
		if (!e->ptr || e->moved)
			continue;
		if (e->kind == K_TREE)
			blame_node_decref(P, e->ptr);
		else
			blame_version_decref(P, e->ptr);
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
		int etree = e->kind == K_TREE;
		int c = blame_name_cmp(e->name, e->namelen, etree, name, len,
				       tree);

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
int blame_path_put(char **path, size_t *alloc, size_t base,
		   const char *name, size_t len)
{
	size_t need = util_add(util_add(base, len), 2);
	int rc;

	if (need > *alloc && (rc = UTIL_GROW(*path, *alloc, need)) < 0)
		return rc;
	memcpy(*path + base, name, len);
	(*path)[base + len] = '\0';
	return 0;
}

int blame_path_push(struct engine *E, size_t base, const char *name,
		    size_t len)
{
	return blame_path_put(&E->path, &E->path_alloc, base, name, len);
}

static int add_pending(struct engine *E, struct node *node, uint32_t index)
{
	struct pending *p;
	int rc;

	if ((rc = UTIL_GROW(E->pend, E->pend_alloc, E->npend + 1)) < 0)
		return rc;
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
	if (blame_name_cmp(a->name, a->namelen, a->kind == K_TREE,
			   b->name, b->namelen,
			   b->kind == K_TREE) >= 0)
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
int blame_parse_entry(struct entry *e, const struct odb_object *raw,
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
	mode = canon_mode(mode);
	e->kind = (uint8_t)kind_of(mode);
	e->exec = mode == 0100755;
	e->name = (const char *)d + i + 1;
	e->namelen = (uint32_t)(nul - (d + i + 1));
	*at = (size_t)(nul + 1 + GIT_OID_RAWSZ - d);
	e->ptr = NULL;
	e->moved = false;
	if (!e->namelen)
		return error_set("corrupt tree '%s': an entry with an empty "
				 "name", git_oid_tostr_s(tree));
	if (!strcmp(e->name, ".") || !strcmp(e->name, "..") ||
	    memchr(e->name, '/', e->namelen))
		return bad_entry(tree, e, "is no file name");
	if (!mode)
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

		if (d->kind != K_TREE || p->namelen <= d->namelen ||
		    (unsigned char)p->name[d->namelen] >= '/' ||
		    memcmp(p->name, d->name, d->namelen))
			continue;
		if (entries_find(e, i - 1, d->name, d->namelen, 0))
			return bad_entry(tree, d, "is there twice");
	}
	return 0;
}

/*
 * check_twins() for a node whose entries all came over from nodes already
 * checked but for entries parsed[0, np): a file and a directory of one
 * name, both from one checked node, would have been refused there, so
 * each twin is looked for from a parsed entry, by bisection (a file
 * sorts before its directory). The first directory in order is named,
 * as check_twins() names it.
 */
static int check_twins_of(const struct entry *e, size_t n,
			  const uint32_t *parsed, size_t np,
			  const git_oid *tree)
{
	const struct entry *first = NULL, *d;
	size_t k;

	for (k = 0; k < np; k++) {
		const struct entry *p = &e[parsed[k]];

		if (p->kind == K_TREE)
			d = entries_find(e, parsed[k], p->name, p->namelen, 0) ?
			    p : NULL;
		else
			d = entries_find(p + 1, n - parsed[k] - 1, p->name,
					 p->namelen, 1);
		if (d && (!first || d < first))
			first = d;
	}
	return first ? bad_entry(tree, first, "is there twice") : 0;
}

int blame_tree_parse(struct entry **e, size_t *n, size_t *alloc,
		     const struct odb_object *raw, const git_oid *oid)
{
	size_t at = 0;
	int rc;

	*n = 0;
	while (at < raw->len) {
		if ((rc = UTIL_GROW(*e, *alloc, *n + 1)) < 0 ||
		    (rc = blame_parse_entry(&(*e)[*n], raw, &at, oid,
					    *n ? &(*e)[*n - 1] : NULL)) < 0)
			return rc;
		(*n)++;
	}
	return check_twins(*e, *n, oid);
}

int blame_tree_check(const git_oid *oid, const unsigned char *data,
		     size_t len)
{
	const struct odb_object raw = { data, len, GIT_OBJECT_TREE };
	struct entry *e = NULL;
	size_t n, alloc = 0;
	int rc = blame_tree_parse(&e, &n, &alloc, &raw, oid);

	free(e);
	return rc;
}

/*
 * Entry `e` of `old`, unchanged in n: the same state, one more reference,
 * or (take) the reference of old, which is on its way out: the shared
 * runs are at old's ends, which old's live_from and live_to then leave
 * out, so e is not marked. Its name lies `shift` bytes further on in n's
 * raw tree than in old's: negative when the bytes before it shrank, so
 * the offset is summed before it is added to the pointer (a pointer moved
 * past its object and back is undefined).
 */
static void entry_share(struct entry *to, const struct entry *e,
			const struct node *old, const struct node *n,
			ptrdiff_t shift, bool take)
{
	ptrdiff_t at = (const unsigned char *)e->name - old->raw->data;

	*to = *e;
	to->moved = false;
	to->name = (const char *)n->raw->data + (at + shift);
	if (!e->ptr || take)
		return;
	if (e->kind == K_TREE)
		((struct node *)e->ptr)->refs++;
	else
		((struct version *)e->ptr)->refs++;
}

/* Room for `need` entries in n (*alloc of them now): one per entry parsed. */
static int node_room(struct node *n, size_t *alloc, size_t need)
{
	return need <= *alloc ? 0 : UTIL_GROW(n->e, *alloc, need);
}

/*
 * build_node()'s state in one tree: node n, being built for raw tree
 * `oid` from old (NULL: none), the first parent's mirror of the same
 * directory.
 */
struct build {
	struct engine *E;
	struct node *n, *old;
	const git_oid *oid;
	size_t alloc;             /* entries allocated in n */
	size_t at;                /* bytes of n's raw tree parsed */
	size_t oi;                /* old's entries the parse has passed */
	size_t tail;              /* old's first entry of the common tail */
	ptrdiff_t shift;          /* where old's tail lies in n, less in old */
	bool take;                /* old's references move to n */
	uint32_t last_run;        /* 1 + the index of n's last run, or 0 */
};

/*
 * Share old's entries [from, to) as n's next ones, `shift` bytes on, and
 * say so in E->runs.
 */
static int build_share(struct build *B, size_t from, size_t to,
		       ptrdiff_t shift)
{
	struct engine *E = B->E;
	struct node *old = B->old;
	size_t i;

	if (from >= to)
		return 0;
	if (UTIL_GROW(E->runs, E->runs_alloc, E->nruns + 1) < 0)
		return STRATA_ENOMEM;
	E->runs[E->nruns++] = (struct shared_run){
		.old = old, .n = B->n, .from = (uint32_t)from,
		.to = (uint32_t)to, .at = B->n->n };
	/* Linked in order: nested builds put theirs in between. */
	if (B->last_run)
		E->runs[B->last_run - 1].next = (uint32_t)E->nruns;
	else
		B->n->run = (uint32_t)E->nruns;
	B->last_run = (uint32_t)E->nruns;
	for (i = from; i < to; i++) {
		/* The counts are all over memory: ask for them early. */
		if (!B->take && i + PREFETCH_AHEAD < old->n &&
		    old->e[i + PREFETCH_AHEAD].ptr)
			__builtin_prefetch(old->e[i + PREFETCH_AHEAD].ptr, 1);
		entry_share(&B->n->e[B->n->n++], &old->e[i], old, B->n, shift,
			    B->take);
	}
	return 0;
}

/*
 * How many of n's entries end by byte `at` of its raw tree: entries lie
 * in order, so a search by halves (a big directory has thousands).
 */
static size_t entries_ending_by(const struct node *n, size_t at)
{
	size_t lo = 0, hi = n->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (entry_end(n, &n->e[mid]) <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first of n's entries from `from` on that starts at byte `at` or on. */
static size_t first_starting_from(const struct node *n, size_t from,
				      size_t at)
{
	size_t lo = from, hi = n->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (entry_start(n, &n->e[mid]) < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The entries of old that the raw trees of old and `raw` (a tree to
 * mirror or compare with it) share byte for byte at both ends: old's [0,
 * *head) at the head, and its [*tail, old->n) at the tail, clear of the
 * head. `known` (or NULL): the bytes the reader found the two share, for
 * the same two trees.
 */
static void raw_ends(const struct node *old, const struct odb_object *raw,
		     const struct handed_ends *known, size_t *head,
		     size_t *tail)
{
	size_t olen = old->raw->len, len = raw->len;
	size_t small = olen < len ? olen : len, p, q, h = 0, t, at;

	if (known && known->head <= small)
		p = known->head;
	else
		p = diff_common_prefix(old->raw->data, raw->data, small);
	h = entries_ending_by(old, p);
	at = h ? entry_end(old, &old->e[h - 1]) : 0;
	if (known && known->head == p && known->at == at &&
	    known->tail <= small - at)
		q = known->tail;
	else
		q = diff_common_suffix(old->raw->data, olen, raw->data, len,
				       small - at);
	t = first_starting_from(old, h, olen - q);
	*head = h;
	*tail = t;
}

/*
 * The entries that the raw trees of old and n share at both ends: the
 * head is taken over now, the tail (from B->tail) when the parse gets to
 * it.
 */
static int build_ends(struct build *B, const struct handed_ends *known)
{
	const struct node *old = B->old;
	size_t head;

	if (known && (!known->known || !git_oid_equal(&known->from, &old->oid)))
		known = NULL;
	raw_ends(old, B->n->raw, known, &head, &B->tail);
	if (build_share(B, 0, head, 0) < 0)
		return STRATA_ENOMEM;
	if (B->take)
		B->old->live_from = (uint32_t)head;
	B->oi = head;
	B->at = head ? entry_end(old, &old->e[head - 1]) : 0;
	B->shift = (ptrdiff_t)B->n->raw->len - (ptrdiff_t)old->raw->len;
	return 0;
}

/*
 * Where the parse meets an entry of old's tail, the rest of the tree is
 * old's, byte for byte: take it over. 1 if it did, 0 if the parse goes
 * on.
 */
static int build_tail(struct build *B)
{
	struct node *old = B->old, *n = B->n;
	int rc;

	if (!old)
		return 0;
	while (B->tail < old->n &&
	       (ptrdiff_t)entry_start(old, &old->e[B->tail]) + B->shift <
	       (ptrdiff_t)B->at)
		B->tail++;
	if (B->tail >= old->n ||
	    (ptrdiff_t)entry_start(old, &old->e[B->tail]) + B->shift !=
	    (ptrdiff_t)B->at)
		return 0;
	/* old's tail is in order; so must be where it joins. */
	if (n->n && (rc = check_join(&n->e[n->n - 1], &old->e[B->tail],
				     B->oid)) < 0)
		return rc;
	if ((rc = node_room(n, &B->alloc, n->n + (old->n - B->tail))) < 0)
		return rc;
	if ((rc = build_share(B, B->tail, old->n, B->shift)) < 0)
		return rc;
	if (B->take)
		old->live_to = (uint32_t)B->tail;
	return 1;
}

/*
 * How far raw tree bytes `raw` from byte `at` on repeat old's own, from
 * the end of its entry oi - 1 (or its start) on: old's entries [oi, k)
 * are repeated whole, and k is returned (at most `limit`). The same bytes
 * parse as the same entries in the same order, so where two raw trees
 * went on alike after a change (a commit that changes two entries of a
 * big directory far apart leaves all those between them as they were),
 * the entries between need not be parsed or compared by name.
 */
static size_t repeated_run(const struct node *old, size_t oi, size_t limit,
			   const struct odb_object *raw, size_t at)
{
	size_t from = oi ? entry_end(old, &old->e[oi - 1]) : 0, run, k;

	if (oi >= limit || at >= raw->len)
		return oi;
	run = entry_end(old, &old->e[limit - 1]) - from;
	if (run > raw->len - at)
		run = raw->len - at;
	run = diff_common_prefix(old->raw->data + from, raw->data + at, run);
	k = entries_ending_by(old, from + run);
	return k > oi ? k : oi;
}

/*
 * n's last entry came over unchanged from old's entry B->oi - 1: take
 * over old's entries that n's raw tree repeats from there on, up to old's
 * common tail, which build_tail() takes.
 */
static int build_resync(struct build *B)
{
	struct node *old = B->old, *n = B->n;
	size_t oi = B->oi, from = entry_end(old, &old->e[oi - 1]), k, i;
	int rc;

	k = repeated_run(old, oi, B->tail < old->n ? B->tail : old->n, n->raw,
			 B->at);
	if (k == oi)
		return 0;
	if ((rc = node_room(n, &B->alloc, n->n + (k - oi))) < 0)
		return rc;
	if ((rc = build_share(B, oi, k, (ptrdiff_t)B->at -
			     (ptrdiff_t)from)) < 0)
		return rc;
	if (B->take)
		for (i = oi; i < k; i++)
			old->e[i].moved = true;
	B->at += entry_end(old, &old->e[k - 1]) - from;
	B->oi = k;
	return 0;
}

/* old's entry of e's name and kind, if any: both lists are in order. */
static struct entry *build_old_match(struct build *B, const struct entry *e)
{
	struct node *old = B->old;
	int tree = e->kind == K_TREE;

	while (old && B->oi < old->n) {
		struct entry *o = &old->e[B->oi];
		int c = blame_name_cmp(o->name, o->namelen,
				       o->kind == K_TREE, e->name,
				       e->namelen, tree);

		if (c > 0)
			break;
		B->oi++;
		if (c == 0)
			return o;
	}
	return NULL;
}

static int build_node(struct node **out, struct engine *E, struct node *old,
		      const git_oid *oid, size_t base, bool take);

/*
 * n's new entry e (at E->path[0..base)), parsed, with old's entry of its
 * name oe (or NULL): a subtree is mirrored, a file the same as oe's
 * shares its version, a changed file is queued.
 */
static int build_entry(struct engine *E, struct build *B, struct entry *e,
		       struct entry *oe, size_t base)
{
	enum kind k = e->kind;
	int rc;

	if (k == K_TREE) {
		struct node *sub, *os = NULL;

		if (oe && oe->kind == K_TREE)
			os = oe->ptr;
		if ((rc = blame_path_push(E, base, e->name, e->namelen)) < 0)
			return rc;
		E->path[base + e->namelen] = '/';
		/* os goes with old unless something else holds it. */
		E->depth++;
		rc = build_node(&sub, E, os, entry_oid(e),
				base + e->namelen + 1,
				B->take && os && os->refs == 1);
		E->depth--;
		if (rc < 0)
			return rc;
		if (B->take && sub == os) {
			/* Unchanged: old's reference moves over. */
			sub->refs--;
			oe->moved = true;
		}
		e->ptr = sub;
	} else if (k == K_FILE) {
		if (oe && oe->kind == K_FILE &&
		    git_oid_equal(entry_oid(oe), entry_oid(e))) {
			struct version *v = oe->ptr;

			if (B->take)
				oe->moved = true;
			else
				v->refs++;
			e->ptr = v;
		} else if ((rc = blame_path_push(E, base, e->name,
						 e->namelen)) < 0 ||
			   (rc = add_pending(E, B->n, B->n->n - 1)) < 0) {
			return rc;
		}
	}
	return 0;
}

/*
 * Parse n's entries from B->at on, up to old's common tail: each parsed
 * one's place goes on E->parsed (check_twins_of()); past an unchanged
 * one, the run both raw trees repeat is taken over (build_resync()).
 */
static int build_middle(struct engine *E, struct build *B, size_t base)
{
	struct node *n = B->n;
	int rc;

	while (B->at < n->raw->len) {
		struct entry *e, *oe;

		if ((rc = build_tail(B)) != 0)
			return rc < 0 ? rc : 0;
		if ((rc = node_room(n, &B->alloc, n->n + 1)) < 0 ||
		    (rc = UTIL_GROW(E->parsed, E->parsed_alloc,
				    E->nparsed + 1)) < 0)
			return rc;
		e = &n->e[n->n];
		if ((rc = blame_parse_entry(e, n->raw, &B->at, B->oid,
					    n->n ? &n->e[n->n - 1] : NULL)) < 0)
			return rc;
		E->parsed[E->nparsed++] = n->n++;
		oe = build_old_match(B, e);
		if ((rc = build_entry(E, B, e, oe, base)) < 0)
			return rc;
		if (oe && entry_mode(oe) == entry_mode(e) &&
		    e->ptr == oe->ptr && (rc = build_resync(B)) < 0)
			return rc;
	}
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
	struct build B = { .E = E, .old = old, .oid = oid, .take = take };
	struct handed_ends ends;
	struct node *n = NULL;
	size_t np0 = E->nparsed, np;
	int rc = 0;

	*out = NULL;
	if (old && git_oid_equal(&old->oid, oid)) {
		old->refs++;
		*out = old;
		return 0;
	}
	if (E->depth > ODB_MAX_TREE_DEPTH)
		return odb_too_deep(oid);
	if (++E->built > ODB_MAX_TREES) {
		error_set("the tree of commit '%s' holds more than %u "
			  "directories", git_oid_tostr_s(
				  &E->h->commits[E->walking].oid),
			  ODB_MAX_TREES);
		return STRATA_ETOOBIG;
	}
	if (!(n = B.n = calloc(1, sizeof(*n))))
		return error_oom();
	n->refs = 1;
	n->live_to = UINT32_MAX;
	git_oid_cpy(&n->oid, oid);
	E->ntrees++;
	if ((n->raw = blame_handoff_take(E->handed, oid, &ends)))
		E->nhanded++;
	else if ((rc = odb_read(&n->raw, E->repo->odb, E->repo->git, oid,
				GIT_OBJECT_TREE)) < 0)
		goto done;
	if ((rc = node_room(n, &B.alloc, old ? old->n + 8 :
			    n->raw->len / MIN_ENTRY + 1)) < 0)
		goto done;
	if ((old && (rc = build_ends(&B, &ends)) < 0) ||
	    (rc = build_middle(E, &B, base)) < 0)
		goto done;
	np = E->nparsed - np0;
	if (!old || np * 16 >= n->n)
		rc = check_twins(n->e, n->n, oid);
	else
		rc = check_twins_of(n->e, n->n, E->parsed + np0, np, oid);
	if (rc < 0)
		goto done;
	*out = n;
	n = NULL;
done:
	E->nparsed = np0;
	if (n) {
		/* Entries not yet filled are NULL and skipped. */
		blame_node_decref(&E->pool, n);
	}
	return rc < 0 ? rc : 0;
}

/* Files deleted between a parent's mirror and the commit's, in order. */
struct deleted {
	struct rename_source *src;
	struct version **ver;
	char **paths;
	size_t n, src_alloc, ver_alloc, paths_alloc;
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
	int rc;

	if ((rc = UTIL_GROW(d->src, d->src_alloc, d->n + 1)) < 0 ||
	    (rc = UTIL_GROW(d->ver, d->ver_alloc, d->n + 1)) < 0 ||
	    (rc = UTIL_GROW(d->paths, d->paths_alloc, d->n + 1)) < 0)
		return rc;
	d->paths[d->n] = strdup(path);
	if (!d->paths[d->n])
		return error_oom();
	d->src[d->n].path = d->paths[d->n];
	d->src[d->n].mode = entry_mode(e);
	git_oid_cpy(&d->src[d->n].oid, entry_oid(e));
	d->ver[d->n] = e->kind == K_FILE ? e->ptr : NULL;
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

		if ((rc = blame_path_push(E, base, e->name, e->namelen)) < 0)
			return rc;
		if (e->kind == K_TREE) {
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

/*
 * The entries of old that new has too, byte for byte, at both ends of
 * their raw trees (raw_ends()): old's [0, *head) are new's [0, *head),
 * old's [*tail, old->n) new's last ones. A tail is taken only where new's
 * own parse has an entry at the same place from the end.
 */
static void common_entries(const struct node *old, const struct node *new,
			   size_t *head, size_t *tail)
{
	size_t olen = old->raw->len, len = new->raw->len, t, k;

	raw_ends(old, new->raw, NULL, head, &t);
	/* new's entry k for old's entry t, where new's parse lines up */
	for (; t < old->n; t++) {
		k = new->n - (old->n - t);
		if (old->n - t <= new->n && k >= *head &&
		    olen - entry_start(old, &old->e[t]) ==
		    len - entry_start(new, &new->e[k]))
			break;
	}
	*tail = t;
}

static int collect_deleted(struct engine *E, struct deleted *d,
			   const struct node *old, const struct node *new,
			   size_t base);

/*
 * What old's entries [i, end) have that new's [j, jend) lack, the two
 * merged by name. With `resync`, past an entry both have unchanged, the
 * run both raw trees repeat is passed over (repeated_run()).
 */
static int collect_range(struct engine *E, struct deleted *d,
			 const struct node *old, const struct node *new,
			 size_t i, size_t end, size_t j, size_t jend,
			 size_t base, bool resync)
{
	int rc;

	for (; i < end; i++) {
		const struct entry *o = &old->e[i];
		int otree = o->kind == K_TREE, c = -1;

		while (new && j < jend) {
			const struct entry *e = &new->e[j];

			c = blame_name_cmp(o->name, o->namelen, otree,
					   e->name, e->namelen,
					   e->kind == K_TREE);
			if (c <= 0)
				break;
			j++;
			c = -1;
		}
		if (!new || j >= jend)
			c = -1;
		/*
		 * Of one name on both sides: a file is not deleted. Unchanged,
		 * the entries after it are likely the same too.
		 */
		if (c == 0 && o->ptr == new->e[j].ptr) {
			size_t k = resync ? repeated_run(old, i + 1, end,
					new->raw, entry_end(new, &new->e[j]))
					  : i + 1;

			j += k - i;
			i = k - 1;
			continue;
		}
		if (c == 0 && !otree)
			continue;
		if ((rc = blame_path_push(E, base, o->name, o->namelen)) < 0)
			return rc;
		if (otree)
			E->path[base + o->namelen] = '/';
		if (c == 0)
			rc = collect_deleted(E, d, o->ptr, new->e[j].ptr,
					     base + o->namelen + 1);
		else if (otree)
			rc = collect_all(E, d, o->ptr, base + o->namelen + 1);
		else
			rc = deleted_add(d, E->path, o);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * collect_range() between the runs new took over from old when it was
 * built for this commit (from new->run on); 0 if it was not built from
 * old. A node built for an earlier commit has a run of its own there
 * only by chance, which the run's node tells.
 */
static int collect_between_runs(struct engine *E, struct deleted *d,
				const struct node *old,
				const struct node *new, size_t base)
{
	size_t r = new->run, i = 0, j = 0;
	int rc;

	if (!r || r > E->nruns || E->runs[r - 1].n != new ||
	    E->runs[r - 1].old != old)
		return 0;
	for (; r; r = E->runs[r - 1].next) {
		const struct shared_run *run = &E->runs[r - 1];

		if ((rc = collect_range(E, d, old, new, i, run->from, j,
					run->at, base, false)) < 0)
			return rc;
		i = run->to;
		j = run->at + (run->to - run->from);
	}
	rc = collect_range(E, d, old, new, i, old->n, j, new->n, base, false);
	return rc < 0 ? rc : 1;
}

/*
 * git's diff-tree: what `old` has that `new` lacks, depth first. The
 * entries new took over from old, or both raw trees share at their ends,
 * are passed over unread.
 */
static int collect_deleted(struct engine *E, struct deleted *d,
			   const struct node *old, const struct node *new,
			   size_t base)
{
	size_t j = 0, end = old->n;
	int rc;

	if (old == new || (new && git_oid_equal(&old->oid, &new->oid)))
		return 0;
	if (new && (rc = collect_between_runs(E, d, old, new, base)) != 0)
		return rc < 0 ? rc : 0;
	if (new)
		common_entries(old, new, &j, &end);
	return collect_range(E, d, old, new, j, end, j, new ? new->n : 0,
			     base, true);
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
	int rc;

	if ((rc = UTIL_GROW(E->broken, E->broken_alloc, E->nbroken + 1)) < 0) {
		free(msg);
		return rc;
	}
	E->broken[E->nbroken].seq = v->seq;
	E->broken[E->nbroken++].msg = msg;
	v->broken = 1;
	return 0;
}

/* The error of a broken version that the tip needs. */
int blame_broken_error(const struct engine *E, const struct version *v)
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
 * resolve()'s search for the origins of a changed file of np parents: the
 * version each parent offers (sgp[i], NULL for none), whether the path is
 * there at all (present[i]), and a version of the very blob (share).
 */
struct search {
	struct version *sg[64], **sgp, *share;
	unsigned char present_buf[64], *present;
	uint32_t np;
	uint32_t *tab;            /* over 64 parents: first_of_blob()'s hash */
	size_t mask;
	char *missing;            /* what to say if the tip needs the version */
};

static int search_init(struct search *S, uint32_t np)
{
	S->sgp = S->sg;
	S->present = S->present_buf;
	S->share = NULL;
	S->np = np;
	S->tab = NULL;
	S->mask = 0;
	S->missing = NULL;
	if (np > 64) {
		for (S->mask = 127; S->mask < 2 * (size_t)np;
		     S->mask = 2 * S->mask + 1)
			;
		S->sgp = calloc(np, sizeof(*S->sgp));
		S->present = calloc(np, 1);
		S->tab = calloc(S->mask + 1, sizeof(*S->tab));
		if (!S->sgp || !S->present || !S->tab)
			return error_oom();
	}
	memset(S->sgp, 0, np * sizeof(*S->sgp));
	memset(S->present, 0, np);
	return 0;
}

static void search_release(struct search *S)
{
	free(S->missing);
	free(S->tab);
	if (S->sgp != S->sg)
		free(S->sgp);
	if (S->present != S->present_buf)
		free(S->present);
}

/* Pass 0: the same path in each parent. */
static void search_same_path(struct search *S, const struct engine *E,
			     const uint32_t *par, const char *path,
			     const struct entry *e)
{
	uint32_t i;

	for (i = 0; i < S->np; i++) {
		const struct entry *pe = lookup_path(E->roots[par[i]], path);

		if (!pe)
			continue;
		/*
		 * Present in any form, the path is no rename target in this
		 * parent: a type change gives no origin at all.
		 */
		S->present[i] = 1;
		if (pe->kind != K_FILE)
			continue;
		if (git_oid_equal(entry_oid(pe), entry_oid(e))) {
			S->share = pe->ptr;
			return;
		}
		if (first_of_blob(S->sgp, i, entry_oid(pe), S->tab, S->mask))
			S->sgp[i] = pe->ptr;
	}
}

/* The files parent `parent` has and commit c lacks, ready to search. */
static int deleted_prepare(struct engine *E, struct deleted *d,
			   uint32_t parent, uint32_t c)
{
	int rc;

	if (d->ready)
		return 0;
	rc = collect_deleted(E, d, E->roots[parent], E->roots[c], 0);
	if (rc == 0 && d->n)
		rc = rename_sources_new(&d->prepared, E->rd, d->src, d->n);
	if (rc < 0)
		return rc;
	d->ready = 1;
	return 0;
}

/* Pass 1: renames, for parents that have nothing at the path. */
static int search_renames(struct search *S, struct engine *E, uint32_t c,
			  const char *path, const struct entry *e,
			  struct deleted *del)
{
	const uint32_t *par = history_parents(E->h, c);
	uint32_t i;
	int rc;

	for (i = 0; i < S->np; i++) {
		int idx = -1;

		if (S->sgp[i] || S->present[i])
			continue;
		if ((rc = deleted_prepare(E, &del[i], par[i], c)) < 0)
			return rc;
		if (!del[i].n)
			continue;
		rc = rename_sources_find(&idx, del[i].prepared, path,
					 entry_mode(e), entry_oid(e));
		/*
		 * A blob a partial clone left out: an error only if the tip
		 * needs this version. (No exact match was found, so a later
		 * parent's identical blob still decides as it would.)
		 */
		if (rc == STRATA_EMISSING) {
			if (!S->missing &&
			    !(S->missing = broken_message(E, c, path)))
				return error_oom();
			continue;
		}
		if (rc < 0)
			return rc;
		if (idx < 0 || !del[i].ver[idx])
			continue;
		E->nrenames++;
		if (git_oid_equal(&del[i].src[idx].oid, entry_oid(e))) {
			S->share = del[i].ver[idx];
			return 0;
		}
		/* Like pass 0, git compares with the parents before it. */
		if (first_of_blob(S->sgp, i, &del[i].src[idx].oid, S->tab,
				  S->mask))
			S->sgp[i] = del[i].ver[idx];
	}
	return 0;
}

/* A version of e at commit c, from the origins the search found. */
static int search_version(struct version **out, struct search *S,
			  struct engine *E, uint32_t c, const struct entry *e)
{
	struct version *v = version_new(E, c, entry_oid(e));
	uint32_t i, k;

	if (!v)
		return error_oom();
	for (i = 0; i < S->np; i++)
		if (S->sgp[i])
			v->norigins++;
	/* Mostly one origin: the version holds it. */
	if (v->norigins == 1) {
		v->origins = &v->one;
	} else if (v->norigins) {
		v->origins = calloc(v->norigins, sizeof(*v->origins));
		if (!v->origins) {
			v->norigins = 0;
			blame_version_decref(&E->pool, v);
			return error_oom();
		}
	}
	for (i = 0, k = 0; i < S->np; i++) {
		if (!S->sgp[i])
			continue;
		S->sgp[i]->refs++;
		v->origins[k++].src = S->sgp[i];
	}
	v->ignored = E->opts->nignore &&
		     is_ignored(E->opts, &E->h->commits[c].oid);
	*out = v;
	return 0;
}

/*
 * Find the version for a changed file of commit c by git's rules, and
 * store it in the entry.
 */
static int resolve(struct engine *E, uint32_t c, struct pending *p,
		   struct deleted *del)
{
	struct entry *e = &p->node->e[p->index];
	struct search S;
	struct version *v = NULL;
	int rc;

	if ((rc = search_init(&S, E->h->commits[c].nparents)) < 0)
		goto done;
	search_same_path(&S, E, history_parents(E->h, c), p->path, e);
	if (!S.share && (rc = search_renames(&S, E, c, p->path, e, del)) < 0)
		goto done;
	if (S.share) {
		S.share->refs++;
		e->ptr = S.share;
		goto done;
	}
	if ((rc = search_version(&v, &S, E, c, e)) < 0)
		goto done;
	e->ptr = v;
	if (S.missing) {
		rc = mark_broken(E, v, S.missing);
		S.missing = NULL;
	}
done:
	search_release(&S);
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
	E->walking = c;
	E->built = 0;
	E->nruns = 0;
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
			blame_node_decref(&E->pool, E->roots[p]);
			E->roots[p] = NULL;
		}
	}
	return rc;
}

/* Stage 1: the walk, with the trees read ahead and the snapshots listed. */
int blame_walk_all(struct engine *E, struct reader *R)
{
	const struct history *h = E->h;
	const struct blame_options *opts = E->opts;
	uint32_t c;
	int rc = 0;

	for (c = 0; c < h->n; c++) {
		E->handed = blame_reader_handed(R, c);
		rc = walk_commit(E, c);
		if (rc >= 0)
			rc = blame_snapset_take(E, c);
		blame_reader_walked(R, (size_t)c + 1, E->handed);
		E->handed = NULL;
		if (rc < 0)
			break;
		if (opts->progress && (c % 256 == 0 || c + 1 == h->n))
			opts->progress("history", c + 1, h->n,
				       opts->progress_payload);
	}
	return rc;
}
