/*
 * chart cycle: the release cycle REV0..REV (cycle.h): developers and
 * organisations by changesets and by lines changed, as the authors'
 * charts draw them (img/cycle-authors, cycle-authors-lines, cycle-orgs,
 * cycle-orgs-lines), and the lines of REV0 it replaced by the release
 * that wrote them, as the releases' chart draws them
 * (img/cycle-replaced).
 */
#include "chart_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/cohorts.h"
#include "strata/cycle.h"
#include "strata/error.h"
#include "strata/util.h"

static uint64_t row_value(const struct cycle_row *r, int lines)
{
	return lines ? r->added + r->removed : r->changesets;
}

static int cohort_rank(const void *a, const void *b)
{
	const struct cohort *x = a, *y = b;

	if (x->lines != y->lines)
		return x->lines > y->lines ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One view as ranked cohorts: `lines` holds the value drawn. */
static int ranked_view(struct cohort_view *out, uint64_t *total,
		       const struct cycle_view *v, int lines)
{
	out->n = 0;
	*total = 0;
	if (!(out->v = calloc(v->n ? v->n : 1, sizeof(*out->v))))
		return error_oom();
	for (size_t i = 0; i < v->n; i++) {
		uint64_t n = row_value(&v->v[i], lines);

		*total += n;
		if (!n)
			continue;
		out->v[out->n].name = v->v[i].name;
		out->v[out->n].lines = n;
		out->v[out->n++].bot = v->v[i].bot;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cohort_rank);
	return 0;
}

static int chart_people(struct charts *x, const char *name,
			const struct cycle_view *v, int lines,
			const char *what, const char *plural)
{
	const struct cycle *c = x->full->cycle;
	struct cohort_view cv = { 0 };
	struct ranked r = { 0 };
	uint64_t total;
	char title[256], sub[512];
	size_t fit = chart_rows_max(x->h) - 1;
	int rc;

	if ((rc = ranked_view(&cv, &total, v, lines)) < 0)
		goto done;
	r.v = &cv;
	r.total = total;
	r.ntop = fit < RANKED_TOP ? fit : RANKED_TOP;
	if (cv.n == r.ntop + 1)
		r.ntop++;
	r.xtitle = lines ? "share of lines changed" : "share of changesets";
	snprintf(title, sizeof(title), "%s %s..%s by %s",
		 lines ? "Lines changed in" : "Changesets of", c->since,
		 chart_rev_of(x->info), what);
	snprintf(sub, sizeof(sub), "Share of all %s %s (%s) of the non-merge "
		 "commits, by the %s of their author; the top %zu of %s %s",
		 util_count(total).s, lines ? "lines added and removed" :
		 "changesets", lines ? "git log --numstat" : "git log "
		 "--no-merges", what, r.ntop < cv.n ? r.ntop : cv.n,
		 util_count(cv.n).s, plural);
	r.title = title;
	r.subtitle = sub;
	rc = chart_emit_fit(x, name, chart_draw_ranked, &r, 1);
done:
	free(cv.v);
	return rc;
}

/* img/cycle-replaced: counted in the view's releases. */
static int chart_replaced(struct charts *x)
{
	const struct cycle *c = x->full->cycle;
	const struct tally *t = x->t, *full = x->full;
	uint64_t *counts = calloc(t->nreleases ? t->nreleases : 1,
				  sizeof(*counts));
	struct dist d = { 0 };
	char title[256], sub[512];
	int rc;

	if (!counts)
		return error_oom();
	for (size_t i = 0; i < t->nreleases; i++)
		for (size_t j = 0; j < full->nreleases; j++)
			if (full->releases[j].release == t->releases[i].release)
				counts[i] = c->replaced_by_release[j];
	snprintf(title, sizeof(title), "Lines of %s gone at %s, by the "
		 "release that wrote them", c->since, chart_rev_of(x->info));
	snprintf(sub, sizeof(sub), "Share of the %s lines of %s that %s "
		 "changed or deleted (of its %s)", util_count(c->replaced).s,
		 c->since, chart_rev_of(x->info),
		 util_count(c->lines_since).s);
	d.title = title;
	d.subtitle = sub;
	d.ytitle = "share of the lines replaced";
	d.counts = counts;
	d.total = c->replaced;
	rc = chart_emit(x, "cycle-replaced", chart_draw_dist, &d);
	free(counts);
	return rc;
}

int chart_cycle(struct charts *x)
{
	const struct cycle *c = x->full->cycle;
	const struct cohorts *co = x->full->cohorts;
	int rc;

	if (!c || c->status != CYCLE_OK)
		return 0;
	/* The replaced lines are the blame's; the rest waits for the log. */
	if ((rc = chart_replaced(x)) || (rc = cycle_wait(c)) ||
	    (co && !co->has_authors))
		return rc;
	if ((rc = chart_people(x, "cycle-authors", &c->authors, 0,
			       "developer", "developers")) ||
	    (rc = chart_people(x, "cycle-authors-lines", &c->authors, 1,
			       "developer", "developers")) ||
	    (rc = chart_people(x, "cycle-orgs", &c->orgs, 0, "organisation",
			       "organisations")))
		return rc;
	return chart_people(x, "cycle-orgs-lines", &c->orgs, 1,
			    "organisation", "organisations");
}
