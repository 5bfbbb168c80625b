/*
 * cycle: REV0, its lines as the blame's one pass hands them over (one
 * more snapshot, chained after the history's), and what the cycle
 * replaced of them. The commits of the cycle are cycle_log.c's.
 */
#include "cycle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/error.h"
#include "strata/snapshots.h"
#include "strata/util.h"

/* ---- REV0 ---- */

static int mark_before(struct cycle_state *st, uint32_t since);

/*
 * The release before REV's (in the release list's order) with a standing
 * tag: REV's own release when REV is past the newest tag ("unreleased")
 * is the newest tag's successor.
 */
static const struct release_tag *previous_tag(const struct history *h,
					      const struct releases *rel,
					      size_t *from)
{
	while ((*from)-- > 0) {
		const struct release *R = &rel->list[*from];

		if (!R->unreleased && R->standing &&
		    R->standing->commit != h->n - 1)
			return R->standing;
	}
	return NULL;
}

/*
 * A tag on a branch REV does not contain: the commits both contain are
 * the ancestors of their merge bases, and the cycle, `git log TAG..REV`,
 * is the rest. The lines of REV0 are taken at their best merge base.
 * *since is h->n when they have none.
 */
static int fork_point(struct cycle_state *st, struct repository *repo,
		      const struct release_tag *t, uint32_t *since)
{
	const struct history *h = st->h;
	git_oid tag, best;
	git_oidarray bases = { 0 };
	char ref[1024];
	int rc = 0;

	*since = (uint32_t)h->n;
	snprintf(ref, sizeof(ref), "refs/tags/%s", t->name);
	if (repository_resolve_commit(&tag, repo, ref) < 0 ||
	    git_merge_base(&best, repo->git, &tag,
			   &h->commits[h->n - 1].oid) < 0 ||
	    git_merge_bases(&bases, repo->git, &tag,
			    &h->commits[h->n - 1].oid) < 0)
		return 0;
	for (size_t i = 0; i < bases.count && rc == 0; i++) {
		int64_t at = history_find(h, &bases.ids[i]);

		if (at >= 0)
			rc = mark_before(st, (uint32_t)at);
		if (at >= 0 && git_oid_equal(&bases.ids[i], &best))
			*since = (uint32_t)at;
	}
	git_oidarray_dispose(&bases);
	return rc;
}
/* --since: a commit of REV's history, else a usage error. */
static int given_since(uint32_t *out, struct repository *repo,
		       const struct history *h, const struct cycle_options *o)
{
	git_oid oid;
	int64_t at;

	if (repository_resolve_commit(&oid, repo, o->since) < 0)
		return error_setc(STRATA_EUSAGE, "cannot find revision '%s' "
				  "for '--since'", o->since);
	if ((at = history_find(h, &oid)) < 0 || h->commits[at].outside)
		return error_setc(STRATA_EUSAGE, "'--since %s' is not in the "
				  "%shistory of '%s'", o->since,
				  h->first_parent ? "first-parent " : "",
				  o->rev);
	*out = (uint32_t)at;
	return 0;
}

/* before: commit `since` and its ancestors added (a set of bits). */
static int mark_before(struct cycle_state *st, uint32_t since)
{
	const struct history *h = st->h;

	if (!st->before &&
	    !(st->before = calloc(HISTORY_WORDS(h), sizeof(*st->before))))
		return error_oom();
	return history_mark_ancestors(h, since, st->before);
}

static int state_new(struct cycle *c, const struct history *h,
		     const struct releases *rel, const struct cycle_options *o)
{
	struct cycle_state *st = calloc(1, sizeof(*st));

	if (!st)
		return error_oom();
	c->state = st;
	st->h = h;
	st->rel = rel;
	st->o = *o;
	pthread_mutex_init(&st->lock, NULL);
	c->nreleases = rel->n;
	c->rev_release = rel->of_commit[h->n - 1];
	c->replaced_by_release = calloc(rel->n ? rel->n : 1, sizeof(uint64_t));
	c->arrived_by_release = calloc(rel->n ? rel->n : 1, sizeof(uint64_t));
	if (!c->replaced_by_release || !c->arrived_by_release ||
	    !(c->rev = strdup(o->rev)))
		return error_oom();
	return 0;
}

/*
 * The standing tag of the release before REV's: REV's history holds it,
 * or it holds the fork point of the tag's branch (c->fork).
 */
static int default_since(struct cycle *c, struct repository *repo,
			 uint32_t *since, const struct release_tag **out)
{
	const struct history *h = c->state->h;
	const struct releases *rel = c->state->rel;
	size_t from = rel->of_commit[h->n - 1];
	const struct release_tag *t;
	int rc;

	while ((t = previous_tag(h, rel, &from))) {
		/* On a release branch, even one the history holds for a
		 * snapshot: from the fork point, as below. */
		if (t->commit < h->n && !h->commits[t->commit].outside) {
			*since = t->commit;
			break;
		}
		if ((rc = fork_point(c->state, repo, t, since)) < 0)
			return rc;
		if (*since < h->n) {
			c->fork = 1;
			break;
		}
	}
	if (!t)
		c->status = CYCLE_NO_START;
	*out = t;
	return 0;
}

static int choose(struct cycle *c, struct repository *repo,
		  const struct history *h, const struct releases *rel,
		  const struct cycle_options *o)
{
	const struct release_tag *t = NULL;
	uint32_t since = 0;
	int rc;

	if ((rc = state_new(c, h, rel, o)) < 0)
		return rc;
	if (o->since) {
		if ((rc = given_since(&since, repo, h, o)) < 0)
			return rc;
		c->given = 1;
	} else {
		rc = default_since(c, repo, &since, &t);
		if (rc < 0 || c->status == CYCLE_NO_START)
			return rc;
	}
	if (!(c->since = strdup(t ? t->name : o->since)))
		return error_oom();
	c->since_commit = since;
	git_oid_cpy(&c->since_oid, &h->commits[since].oid);
	c->since_time = h->commits[since].time;
	if (since == h->n - 1) {
		c->status = CYCLE_SAME;
		return 0;
	}
	if (!(c->state->at_since = calloc(h->n, sizeof(uint64_t))))
		return error_oom();
	return c->fork ? 0 : mark_before(c->state, since);
}

int cycle_choose(struct cycle **out, struct repository *repo,
		 const struct history *h, const struct releases *rel,
		 const struct cycle_options *o)
{
	struct cycle *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c)
		return error_oom();
	if (!h->n) {
		free(c);
		return error_set("empty history");
	}
	if ((rc = choose(c, repo, h, rel, o)) < 0) {
		cycle_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* ---- REV0's lines, from the engine ---- */

static int cycle_key(uint32_t *key, const char *path, size_t snapshot,
		     void *payload)
{
	struct cycle_state *st = payload;

	*key = 0;
	if (snapshot < st->nprev && st->prev_key)
		return st->prev_key(key, path, snapshot, st->prev_payload);
	return 0;
}

/* The version's lines at REV0, once for each path it stands at there. */
static void count_since(struct cycle_state *st, const uint32_t *lines,
			uint32_t nlines, uint64_t times)
{
	uint32_t x = 0;

	pthread_mutex_lock(&st->lock);
	while (x < nlines) {
		uint32_t e = x + 1;

		while (e < nlines && lines[e] == lines[x])
			e++;
		st->at_since[lines[x]] += (uint64_t)(e - x) * times;
		x = e;
	}
	pthread_mutex_unlock(&st->lock);
}

/* Hand the other snapshots' places to their own callback. */
static int cycle_lines(const uint32_t *lines, uint32_t nlines,
		       const struct blame_snapshot_file *at, size_t nat,
		       void *payload)
{
	struct cycle_state *st = payload;
	struct blame_snapshot_file *theirs;
	size_t mine = 0, k = 0;
	int rc;

	for (size_t i = 0; i < nat; i++)
		mine += at[i].snapshot == st->nprev;
	if (mine)
		count_since(st, lines, nlines, mine);
	if (mine == nat || !st->prev_lines)
		return 0;
	if (!mine)
		return st->prev_lines(lines, nlines, at, nat,
				      st->prev_payload);
	if (!(theirs = malloc(util_mul(nat, sizeof(*theirs)))))
		return error_oom();
	for (size_t i = 0; i < nat; i++)
		if (at[i].snapshot != st->nprev)
			theirs[k++] = at[i];
	rc = st->prev_lines(lines, nlines, theirs, k, st->prev_payload);
	free(theirs);
	return rc;
}

int cycle_engine_options(struct cycle *c, struct blame_options *o)
{
	struct cycle_state *st = c->state;
	size_t n = o->snapshot_lines ? o->nsnapshots : 0;

	if (c->status != CYCLE_OK)
		return 0;
	if (!(st->snapshots = malloc((n + 1) * sizeof(*st->snapshots))))
		return error_oom();
	if (n)
		memcpy(st->snapshots, o->snapshots, n * sizeof(*o->snapshots));
	st->snapshots[n] = c->since_commit;
	st->nprev = n;
	st->prev_key = n ? o->snapshot_key : NULL;
	st->prev_lines = n ? o->snapshot_lines : NULL;
	st->prev_payload = n ? o->snapshot_payload : NULL;
	o->snapshots = st->snapshots;
	o->nsnapshots = n + 1;
	o->snapshot_key = cycle_key;
	o->snapshot_lines = cycle_lines;
	o->snapshot_payload = st;
	return 0;
}

/* ---- sums ---- */

static int sum_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cycle_sum *)a)->name,
		      ((const struct cycle_sum *)b)->name);
}

/* Merge v[] by name in place; returns how many are left. */
static size_t sum_merge(struct cycle_sum *v, size_t n)
{
	size_t k = 0;

	if (n)
		qsort(v, n, sizeof(*v), sum_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1].name, v[i].name)) {
			for (int j = 0; j < 3; j++)
				v[k - 1].v[j] += v[i].v[j];
			v[k - 1].bot |= v[i].bot;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cycle_row *x = a, *y = b;

	if (x->changesets != y->changesets)
		return x->changesets > y->changesets ? -1 : 1;
	if (x->added + x->removed != y->added + y->removed)
		return x->added + x->removed > y->added + y->removed ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cycle_view_make(struct cycle_view *out, const struct cycle_sum *in,
		    size_t n)
{
	struct cycle_sum *v = malloc(util_mul(n ? n : 1, sizeof(*v)));

	if (!v)
		return error_oom();
	if (n)
		memcpy(v, in, n * sizeof(*v));
	n = sum_merge(v, n);
	if (!(out->v = calloc(n ? n : 1, sizeof(*out->v)))) {
		free(v);
		return error_oom();
	}
	for (size_t i = 0; i < n; i++) {
		struct cycle_row *r = &out->v[out->n];

		if (!(r->name = strdup(v[i].name))) {
			free(v);
			return error_oom();
		}
		r->changesets = v[i].v[0];
		r->added = v[i].v[1];
		r->removed = v[i].v[2];
		r->bot = v[i].bot;
		out->n++;
	}
	free(v);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), row_cmp);
	return 0;
}

static int lines_cmp(const void *a, const void *b)
{
	const struct cycle_lines *x = a, *y = b;

	if (x->lines != y->lines)
		return x->lines > y->lines ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cycle_lines_make(struct cycle_lines **out, size_t *nout,
		     struct cycle_sum *v, size_t n, int by_name)
{
	size_t k = 0;

	n = sum_merge(v, n);
	if (!(*out = calloc(n ? n : 1, sizeof(**out))))
		return error_oom();
	for (size_t i = 0; i < n; i++) {
		if (!v[i].v[0])
			continue;
		if (!((*out)[k].name = strdup(v[i].name))) {
			*nout = k;
			return error_oom();
		}
		(*out)[k++].lines = v[i].v[0];
	}
	*nout = k;
	if (!by_name && k)
		qsort(*out, k, sizeof(**out), lines_cmp);
	return 0;
}

const char *cycle_author(const struct mailmap *mm,
			 const struct history_ident *id, unsigned *bot)
{
	const char *name, *email;

	mailmap_resolve(mm, id->name, id->email, &name, &email);
	*bot = (unsigned)orgmap_is_bot(name, id->email);
	return name;
}

/* ---- what the cycle replaced ---- */

/* Each commit's lines at REV, from the blame. */
static int lines_at_rev(uint64_t **out, const struct history *h,
			const struct blame_result *b)
{
	uint64_t *at = calloc(h->n, sizeof(*at));

	if (!(*out = at))
		return error_oom();
	for (size_t f = 0; f < b->nfiles; f++)
		for (uint32_t i = 0; i < b->files[f].nlines; i++)
			at[b->files[f].lines[i]]++;
	return 0;
}

static void year_name(char *buf, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	snprintf(buf, size, "%d", gmtime_r(&tt, &tm) ? tm.tm_year + 1900
						    : 1970);
}

/*
 * Per commit: replaced = its lines at REV0 less what it kept at REV;
 * arrived = its lines at REV less what it kept. The years' names are
 * written into names[] (16 bytes a commit).
 */
static int replaced_sums(struct cycle *c, const uint64_t *at_rev,
			 const struct mailmap *mm, struct cycle_sum *years,
			 struct cycle_sum *authors, char *names, size_t *nout)
{
	const struct cycle_state *st = c->state;
	const struct history *h = st->h;
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++) {
		uint64_t s = st->at_since[i], r = at_rev[i];
		uint64_t kept = snapshots_kept(s, r);
		size_t rel = st->rel->of_commit[i];
		const struct history_commit *hc = &h->commits[i];
		unsigned bot;

		c->lines_since += s;
		c->lines_rev += r;
		c->arrived += r - kept;
		c->arrived_by_release[rel] += r - kept;
		if (s == kept)
			continue;
		c->replaced += s - kept;
		c->replaced_by_release[rel] += s - kept;
		year_name(names + 16 * n, 16, st->o.date == COHORTS_AUTHOR ?
			  hc->author_time : hc->time);
		years[n] = (struct cycle_sum){ names + 16 * n, { s - kept },
					       0 };
		authors[n] = (struct cycle_sum){
			cycle_author(mm, &h->idents[hc->author], &bot),
			{ s - kept }, bot };
		n++;
	}
	*nout = n;
	return 0;
}

static int replaced(struct cycle *c, const struct blame_result *b,
		    const struct mailmap *mm)
{
	const struct history *h = c->state->h;
	struct cycle_sum *years = malloc(util_mul(h->n, sizeof(*years)));
	struct cycle_sum *authors = malloc(util_mul(h->n, sizeof(*authors)));
	char *names = malloc(util_mul(h->n, 16));
	uint64_t *at_rev = NULL;
	size_t n = 0;
	int rc;

	if (!years || !authors || !names) {
		rc = error_oom();
		goto done;
	}
	if ((rc = lines_at_rev(&at_rev, h, b)) < 0 ||
	    (rc = replaced_sums(c, at_rev, mm, years, authors, names,
				&n)) < 0 ||
	    (rc = cycle_lines_make(&c->replaced_years, &c->nreplaced_years,
				   years, n, 1)) < 0)
		goto done;
	rc = cycle_lines_make(&c->replaced_authors, &c->nreplaced_authors,
			      authors, n, 0);
done:
	free(at_rev);
	free(years);
	free(authors);
	free(names);
	return rc;
}

int cycle_finish(struct cycle *c, struct repository *repo,
		 const struct blame_result *b)
{
	struct mailmap *mm = NULL;
	const struct history *h = c->state->h;
	int rc;

	if (c->status != CYCLE_OK)
		return 0;
	if ((rc = mailmap_load(&mm, repo, &h->commits[h->n - 1].tree)) < 0)
		return rc;
	if ((rc = replaced(c, b, mm)) < 0) {
		mailmap_free(mm);
		return rc;
	}
	return cycle_log_start(c, repo, mm);
}

/* ---- freeing ---- */

static void view_free(struct cycle_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].name);
	free(v->v);
}

static void lines_free(struct cycle_lines *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void cycle_free(struct cycle *c)
{
	if (!c)
		return;
	if (c->state) {
		cycle_log_release(c);
		pthread_mutex_destroy(&c->state->lock);
		free(c->state->before);
		free(c->state->at_since);
		free(c->state->snapshots);
		free(c->state);
	}
	view_free(&c->authors);
	view_free(&c->author_rows);
	view_free(&c->orgs);
	for (size_t i = 0; i < c->ncredits; i++)
		free(c->credits[i].person);
	free(c->credits);
	for (size_t i = 0; i < c->npeople; i++)
		free(c->people[i].name);
	free(c->people);
	lines_free(c->replaced_years, c->nreplaced_years);
	lines_free(c->replaced_authors, c->nreplaced_authors);
	free(c->replaced_by_release);
	free(c->arrived_by_release);
	free(c->since);
	free(c->rev);
	free(c);
}
