/*
 * blame_list.c: the files of a mirrored tree that the blame reports, the
 * tip's and the snapshots', and the versions they need, listed in the
 * order the diffs take them.
 */
#include <stdlib.h>
#include <string.h>

#include "blame_int.h"
#include "strata/error.h"
#include "strata/util.h"

/* Whether a file of the tip (not a tree) at `path` is one to blame. */
bool blame_tip_wanted(const struct blame_options *o, uint32_t mode,
		      const char *path)
{
	/* Regular files only: 100644 and 100755. */
	if (mode != 0100644 && mode != 0100755)
		return false;
	return !o->want_path || o->want_path(path, o->want_payload);
}

/* A file of a mirror that the options want; its path is at E->path. */
typedef int (*tree_file_fn)(struct engine *E, const struct entry *e,
			    void *payload);

/*
 * Call fn for every regular file of mirror `n` (at E->path[0..base)) that
 * the options want, in tree order: the tip's files and each snapshot's
 * are chosen and ordered alike.
 */
static int tree_visit(struct engine *E, const struct node *n, size_t base,
		      tree_file_fn fn, void *payload)
{
	uint32_t i;
	int rc;

	for (i = 0; i < n->n; i++) {
		const struct entry *e = &n->e[i];
		enum kind k = e->kind;

		/* fn counts a reference: the versions are all over memory. */
		if (i + PREFETCH_AHEAD < n->n &&
		    n->e[i + PREFETCH_AHEAD].kind == K_FILE &&
		    n->e[i + PREFETCH_AHEAD].ptr)
			__builtin_prefetch(n->e[i + PREFETCH_AHEAD].ptr, 1);
		if (k != K_TREE && k != K_FILE)
			continue;
		if ((rc = blame_path_push(E, base, e->name, e->namelen)) < 0)
			return rc;
		if (k == K_TREE) {
			E->path[base + e->namelen] = '/';
			rc = tree_visit(E, e->ptr, base + e->namelen + 1, fn,
					payload);
			if (rc < 0)
				return rc;
			continue;
		}
		if (blame_tip_wanted(E->opts, entry_mode(e), E->path) &&
		    (rc = fn(E, e, payload)) < 0)
			return rc;
	}
	return 0;
}

/* The tip's regular files: their paths and versions, in tree order. */
struct tiplist {
	struct tipfile *v;
	size_t n, alloc;
};

static int tip_add(struct engine *E, const struct entry *e, void *payload)
{
	struct tiplist *L = payload;
	int rc;

	if ((rc = UTIL_GROW(L->v, L->alloc, L->n + 1)) < 0)
		return rc;
	if (!(L->v[L->n].path = strdup(E->path)))
		return error_oom();
	L->v[L->n++].v = e->ptr;
	return 0;
}

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
int blame_snapset_init(struct engine *E)
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

void blame_snapset_release(struct snapset *S, struct pool *P)
{
	size_t i;

	for (i = 0; i < S->n; i++)
		blame_version_decref(P, S->f[i].v);
	free(S->f);
	free(S->order);
	free(S->seq);
	free(S->at);
	memset(S, 0, sizeof(*S));
}

static int snap_add(struct snapset *S, struct version *v, uint32_t snapshot,
		    uint32_t key)
{
	int rc;

	if ((rc = UTIL_GROW(S->f, S->alloc, S->n + 1)) < 0)
		return rc;
	v->refs++;
	S->f[S->n++] = (struct snapfile){ v, snapshot, key };
	return 0;
}

/* A file of snapshot *payload (a uint32_t), with the caller's key. */
static int snapshot_add(struct engine *E, const struct entry *e,
			void *payload)
{
	const struct blame_options *o = E->opts;
	uint32_t snapshot = *(const uint32_t *)payload, key = 0;
	int rc;

	if (o->snapshot_key &&
	    (rc = o->snapshot_key(&key, E->path, snapshot,
				  o->snapshot_payload)) < 0)
		return rc;
	if (key != BLAME_SNAPSHOT_SKIP &&
	    (rc = snap_add(&E->S, e->ptr, snapshot, key)) < 0)
		return rc;
	return 0;
}

/* After the walk has mirrored commit c: list the snapshots taken at c. */
int blame_snapset_take(struct engine *E, uint32_t c)
{
	struct snapset *S = &E->S;
	int rc;

	while (S->order && S->next < E->opts->nsnapshots &&
	       E->opts->snapshots[S->order[S->next]] == c) {
		uint32_t snapshot = S->order[S->next];

		if ((rc = tree_visit(E, E->roots[c], 0, snapshot_add,
				     &snapshot)) < 0)
			return rc;
		S->next++;
	}
	return 0;
}

/*
 * S->f in creation order of the versions, S->seq alongside: a radix sort
 * of 16 bits a pass on the seqs, read from the versions once (a qsort
 * reads them at every comparison, a cache miss each: on the history of
 * Linux's files, 5.2 million files of 88 snapshots took a second). It
 * is stable; what shares a version keeps its listing order, which the
 * callers' sums do not depend on.
 */
static int snapset_sort(struct snapset *S)
{
	size_t n = S->n, i, pass, sum;
	struct snapfile *f2 = malloc(n * sizeof(*f2)), *fs;
	uint32_t *seq = malloc(n * sizeof(*seq)), *seq2, *ss, max = 0;
	size_t *cnt = malloc(65536 * sizeof(*cnt));
	int rc = 0;

	seq2 = malloc(n * sizeof(*seq2));
	if (!f2 || !seq || !seq2 || !cnt) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < n; i++) {
		seq[i] = S->f[i].v->seq;
		max = seq[i] > max ? seq[i] : max;
	}
	for (pass = 0; pass < 2 && (!pass || max >> 16); pass++) {
		unsigned shift = (unsigned)pass * 16;

		memset(cnt, 0, 65536 * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[(seq[i] >> shift) & 0xffff]++;
		for (i = 0, sum = 0; i < 65536; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			size_t k = cnt[(seq[i] >> shift) & 0xffff]++;

			f2[k] = S->f[i];
			seq2[k] = seq[i];
		}
		fs = S->f, S->f = f2, f2 = fs;
		ss = seq, seq = seq2, seq2 = ss;
	}
	S->alloc = n;
	S->seq = seq;
	seq = NULL;
done:
	free(f2);
	free(seq);
	free(seq2);
	free(cnt);
	return rc;
}

/*
 * Whether each snapshot file's blob is text, where the tip's check did not
 * tell already: each distinct version read once. A version the tip's
 * files need is left to stage 2, which reads its blob anyway (text_later()
 * in blame_diff.c): on a history whose files mostly live on, that is
 * nearly all of them.
 */
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

		if (v->text_known || v->needed)
			continue;
		v->text_known = 1;      /* listed once; told below */
		todo[n].path = NULL;
		todo[n++].v = v;
	}
	if (!(text = malloc(n ? n : 1))) {
		rc = error_oom();
		goto done;
	}
	if (n && (rc = blame_check_text(text, E, todo, n, NULL)) < 0)
		goto done;
	for (i = 0; i < n; i++)
		todo[i].v->text = text[i] != 0;
done:
	free(todo);
	free(text);
	return rc;
}

/*
 * Keep the snapshots' text files, and those to be told in stage 2, in
 * creation order of their versions.
 */
int blame_snapset_finish(struct engine *E)
{
	struct snapset *S = &E->S;
	size_t i, k = 0;
	int rc;

	if (!S->n)
		return 0;
	if ((rc = snapset_check_text(E)) < 0)
		return rc;
	for (i = 0; i < S->n; i++) {
		struct version *v = S->f[i].v;

		if (v->text || !v->text_known)
			S->f[k++] = S->f[i];
		else
			blame_version_decref(&E->pool, v);
	}
	S->n = k;
	if (!k)
		return 0;
	if ((rc = snapset_sort(S)) < 0)
		return rc;
	if (!(S->at = malloc(k * sizeof(*S->at))))
		return error_oom();
	for (i = 0; i < k; i++) {
		S->at[i].snapshot = S->f[i].snapshot;
		S->at[i].key = S->f[i].key;
		S->f[i].v->snap = 1;
	}
	return 0;
}

/* After stage 2, which told the rest: the snapshots' text files, counted. */
void blame_snapset_count(const struct snapset *S, struct blame_result *res)
{
	for (size_t i = 0; i < S->n; i++) {
		const struct version *v = S->f[i].v;

		if (!v->text)
			continue;
		res->nsnapshot_files++;
		if (!i || v != S->f[i - 1].v)
			res->nsnapshot_versions++;
	}
}

/* Stage 3's hand-over of a snapshot version's lines to the caller. */
int blame_snapset_report(const struct snapset *S,
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

static int push_version(struct version ***v, size_t *n, size_t *alloc,
			struct version *x)
{
	int rc;

	if (*n == *alloc && (rc = UTIL_GROW(*v, *alloc, *n + 1)) < 0)
		return rc;
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
int blame_mark_needed(struct marking *M, const struct engine *E)
{
	size_t roots_left = M->sp, most = M->nruns + M->sp + 1;
	int rc;

	/* A run for each root at most. */
	if ((rc = UTIL_GROW(M->runs, M->runs_alloc, most)) < 0 ||
	    (rc = UTIL_GROW(M->run_root, M->run_root_alloc, most)) < 0)
		return rc;
	while (M->sp) {
		struct version *v = M->stack[--M->sp];
		uint32_t k;

		if (v->broken)
			return blame_broken_error(E, v);
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

void blame_marking_release(struct marking *M)
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
void blame_name_failed(const struct marking *M, const struct tipfile *tips,
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
			blame_name_file("in the history of", tips[i].path);
			return;
		}
}

/* The tip's text files; their versions are the first roots. */
int blame_tip_roots(struct engine *E, struct reader *R, struct marking *M,
		    struct tipfile **tips, size_t *ntips)
{
	struct tiplist L = { NULL, 0, 0 };
	unsigned char *text = NULL;
	size_t i;
	int rc;

	rc = tree_visit(E, E->roots[E->h->n - 1], 0, tip_add, &L);
	/* The caller frees what was listed, done or not. */
	*tips = L.v;
	*ntips = L.n;
	if (rc < 0)
		return rc;
	if (!(text = malloc(*ntips ? *ntips : 1)))
		return error_oom();
	rc = blame_check_text(text, E, *tips, *ntips,
			      blame_tips_known(R, *tips, *ntips));
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
int blame_snapshot_roots(struct engine *E, struct marking *M)
{
	size_t i;
	int rc;

	for (i = 0; i < E->S.n; i++)
		if ((rc = mark_root(M, E->S.f[i].v)) < 0)
			return rc;
	return 0;
}
