/*
 * blame_diff.c: stages 2 and 3 of the blame engine. The versions the
 * tip needs are diffed against their origins on --jobs threads, and each
 * group of versions that origins link is evaluated, line by line, by the
 * thread that finishes its last diffs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blame_int.h"
#include "strata/error.h"
#include "strata/ignore.h"

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
 * repeats, so each version goes straight to its place (qsort() would
 * chase a pointer for every comparison).
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

static uint32_t group_root(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

void blame_evaluation_free(struct evaluation *X)
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
int blame_evaluation_plan(struct evaluation *X, struct version **list,
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
		blame_evaluation_free(X);
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
		/* (A snapshot's file found binary in stage 2 counts nothing.) */
		if (v->snap && v->text &&
		    (rc = blame_snapset_report(X->S, X->opts, v)) < 0)
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
 * Whether v is a snapshot's file whose check for text was left to its
 * diff (blame_snapset_finish()): a version the tip needs, whose blob is
 * read here anyway.
 */
static bool text_later(const struct version *v)
{
	return v->snap && !v->text_known;
}

static void text_told(struct version *v, bool text)
{
	v->text = text;
	v->text_known = 1;
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
	bool text;

	if (!v->norigins) {
		if ((rc = diff_stored_lines(&v->nlines, db, git,
					    &v->oid)) < 0)
			return rc;
		v->counted = 1;
	}
	for (k = 0; k < v->norigins; k++) {
		struct origin *o = &v->origins[k];

		if ((rc = diff_stored(dr, db, git, &o->src->oid, &v->oid, NULL,
				      NULL)) < 0 ||
		    (rc = keep_hunks(o, dr)) < 0)
			return rc;
	}
	if (text_later(v)) {
		if ((rc = diff_stored_text(&text, db, git, &v->oid,
					   BLAME_TEXT_PREFIX)) < 0)
			return rc;
		text_told(v, text);
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
	if (text_later(v))
		text_told(v, blame_is_text_sized(t, tlen, tlen));
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
 * them from the pack, down the delta chain. Fixed runs of neighbours
 * instead, split with no regard to files, had the threads build many
 * tables on both (docs/design.md, stage 2). A run is split still
 * when it is more than a quarter of a thread's share, so that the
 * threads end together.
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
/*
 * A condition variable whose timed waits run on the monotonic clock: the
 * wall clock can jump (NTP, a user setting the date), and a jump back
 * would stop the progress bar for as long.
 */
static void cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(c, &ca);
	pthread_condattr_destroy(&ca);
}

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

	if (repository_open_handle(&git, W->E->repo) < 0) {
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
 * ones. Working here rather than waiting is faster: one thread less to
 * start, and this thread's heap has memory from the walk to give, which
 * spares page faults.
 */
int blame_diff_all(struct engine *E, struct version **list, size_t n,
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
	cond_init_monotonic(&W.finished_cond);
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
		clock_gettime(CLOCK_MONOTONIC, &ts);
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
