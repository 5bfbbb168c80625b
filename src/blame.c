/*
 * blame: the public entry points of the blame engine (strata/blame.h),
 * which run its stages (blame_int.h), and the count of the files a
 * filter left out.
 */
#include "strata/blame.h"

#include <stdlib.h>
#include <string.h>

#include "blame_int.h"
#include "strata/error.h"

static int file_cmp(const void *a, const void *b)
{
	const struct blame_file *x = a, *y = b;

	return strcmp(x->path, y->path);
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

	blame_snapset_release(&E->S, &E->pool);
	if (E->roots) {
		for (c = 0; c < E->h->n; c++)
			blame_node_decref(&E->pool, E->roots[c]);
	}
	blame_pool_free(&E->pool);
	free(E->roots);
	free(E->children_left);
	free(E->pend);
	free(E->path);
	free(E->parsed);
	free(E->runs);
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
	return blame_snapset_init(E);
}

int blame_tree(struct blame_result **out, struct repository *repo,
	       const struct history *h, const struct blame_options *opts)
{
	struct engine E;
	struct blame_result *res = NULL;
	struct tipfile *tips = NULL;
	struct marking M = { 0 };
	size_t ntips = 0, i, failed = 0;
	struct util_stages stages;
	struct reader R = { 0 };
	struct evaluation X = { 0 };
	struct odb_stats st;
	int rc = 0;

	*out = NULL;
	util_stages_start(&stages);
	if ((rc = engine_init(&E, repo, h, opts)) < 0)
		goto done;
	if (!(res = calloc(1, sizeof(*res)))) {
		rc = error_oom();
		goto done;
	}
	blame_reader_start(&R, &E);
	res->walk_cache = R.cache_bound;
	rc = blame_walk_all(&E, &R);
	blame_reader_stop(&R);
	res->nwalk_trees = E.ntrees;
	res->nhanded = E.nhanded;
	odb_set_cache_limit(repo->odb, 0);
	if (rc < 0)
		goto done;
	res->npassed_over = rename_detector_passed_over(E.rd);
	rename_detector_free(E.rd);
	E.rd = NULL;
	util_stages_end(&stages, "walk");
	/*
	 * Keep the text files and mark what they need, the tip's files
	 * first: each one's run then holds all of its history, as the
	 * pack's delta chains do; the snapshots' files add runs of what the
	 * tip does not need (files deleted since).
	 */
	if ((rc = blame_tip_roots(&E, &R, &M, &tips, &ntips)) < 0 ||
	    (rc = blame_mark_needed(&M, &E)) < 0 ||
	    (rc = blame_snapset_finish(&E)) < 0 ||
	    (rc = blame_snapshot_roots(&E, &M)) < 0 ||
	    (rc = blame_mark_needed(&M, &E)) < 0)
		goto done;
	/*
	 * Stages 2 and 3, the diffs in depth-first order: a version's
	 * origin is usually the next one diffed.
	 */
	res->nversions = M.n;
	util_stages_end(&stages, "mark");
	if ((rc = blame_evaluation_plan(&X, M.list, M.n, E.seq)) < 0)
		goto done;
	X.S = &E.S;
	X.opts = opts;
	if ((rc = blame_diff_all(&E, M.list, M.n, M.runs, M.nruns, &X,
				 &failed)) < 0) {
		blame_name_failed(&M, tips, ntips, failed);
		goto done;
	}
	util_stages_end(&stages, "diffs");
	blame_snapset_count(&E.S, res);
	odb_stats(&st, repo->odb);
	res->nreads = st.reads;
	res->ncached = st.hits;
	res->nbuilt = st.built;
	for (i = 0; i < M.n; i++)
		res->ndiffs += M.list[i]->norigins;
	res->nrenames = E.nrenames;
	if ((rc = collect_result(res, tips, ntips)) < 0)
		goto done;
	util_stages_end(&stages, "result");
	res->stages = stages;
done:
	for (i = 0; i < ntips; i++)
		free(tips[i].path);
	free(tips);
	blame_marking_release(&M);
	blame_reader_free(&R);
	blame_evaluation_free(&X);
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

struct left_walk {
	struct blame_left_out *out;
	struct repository *repo;
	git_odb *odb;
	int (*reason)(const char *path, void *payload);
	void *payload;
	char *path;
	size_t path_alloc;
	int rc;
	struct odb_walk_bound bound;
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
	if ((w->rc = odb_walk_check(&w->bound, root, e)) < 0)
		return -1;
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;
	if ((w->rc = blame_path_put(&w->path, &w->path_alloc, 0, root,
				    rlen)) < 0 ||
	    (w->rc = blame_path_put(&w->path, &w->path_alloc, rlen,
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
	if ((w->rc = blame_is_text_blob(&text, w->repo->odb, w->repo->git,
					oid)) < 0 ||
	    (text && (w->rc = odb_read(&b, w->repo->odb, w->repo->git, oid,
				       GIT_OBJECT_BLOB)) < 0)) {
		blame_name_file("of", w->path);
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
	struct left_walk w = { out, repo, NULL, reason, payload, NULL, 0, 0,
			       { tree, 0 } };
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
