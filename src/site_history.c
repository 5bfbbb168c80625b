/*
 * site history: history.html and the history on each subsystem's page:
 * the snapshots, their figures, and how long lines survive.
 */
#include "site_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/names.h"
#include "strata/snapshots.h"

/* ---- history.html ---- */

/*
 * The table of snapshots by release has at most this many columns of
 * releases; past it each column is a run of consecutive releases.
 */
#define HISTORY_COLUMNS 60

static size_t history_column(size_t r, size_t nrel)
{
	return nrel <= HISTORY_COLUMNS ? r : r * HISTORY_COLUMNS / nrel;
}

/*
 * The snapshot nearest half-way back in time from REV to the first one
 * (by date: releases come faster in some years than in others); on a
 * tie, the older. Never REV itself.
 */
static size_t halfway_snapshot(const struct snapshots *h)
{
	int64_t first = h->list[0].date, last = h->list[h->n - 1].date;
	int64_t mid = first + (last - first) / 2;
	uint64_t best_gap = UINT64_MAX;
	size_t best = 0;

	for (size_t k = 0; k + 1 < h->n; k++) {
		int64_t dt = h->list[k].date - mid;
		uint64_t gap = dt < 0 ? (uint64_t)-dt : (uint64_t)dt;

		if (gap < best_gap) {
			best_gap = gap;
			best = k;
		}
	}
	return best;
}

/* The snapshot half-way, and REV: "at X, 60% dated back to FIRST". */
int site_history_summary(struct site *s, struct template_dict *d,
			 const char *section)
{
	const struct snapshots *h = s->t->history;
	const struct snapshot *mid, *rev;
	struct template_dict *sec;
	int rc = 0;

	if (!h || h->n < 2 || !s->t->nreleases ||
	    s->t->releases[0].unreleased)
		return 0;
	mid = &h->list[halfway_snapshot(h)];
	rev = &h->list[h->n - 1];
	TRY(template_dict_add(&sec, d, section));
	TRY(site_set_display(sec, "MID", mid->name));
	TRY(template_dict_set(sec, "MID_SHARE",
			      util_percent(mid->by_release[0], mid->lines,
					   1).s));
	TRY(site_set_display(sec, "LAST", rev->name));
	TRY(template_dict_set(sec, "LAST_SHARE",
			      util_percent(rev->by_release[0], rev->lines,
					   1).s));
done:
	return rc;
}

/*
 * The shown releases (s->shown), by position, in columns, newest first:
 * on a narrow screen the first columns are what matters.
 */
static int history_columns(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	struct template_dict *col;
	size_t k, e, n = s->nshown;
	int rc = 0;

	for (e = n; e > 0; e = k) {
		size_t c = history_column(e - 1, n), r = s->shown[e - 1];

		for (k = e - 1; k > 0 && history_column(k - 1, n) == c; k--)
			;
		TRY(template_dict_add(&col, d, "COL"));
		TRY(site_set_display(col, "NAME", t->releases[r].name));
		TRY(template_dict_set(col, "ID", s->release_id[r]));
		if (e - k > 1) {
			TRY(template_dict_add(&col, col, "RUN"));
			TRY(site_set_display(col, "LAST",
					     t->releases[s->shown[k]].name));
		}
	}
done:
	return rc;
}

static int history_row(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally *t = s->t;
	const struct snapshot *p = &t->history->list[i];
	struct template_dict *row, *cell;
	uint64_t sum = 0;
	size_t k, n = s->nshown;
	int rc = 0;

	TRY(template_dict_add(&row, d, "ROW"));
	TRY(site_set_display(row, "NAME", p->name));
	TRY(template_dict_set(row, "DATE", site_date(p->date).s));
	TRY(template_dict_set(row, "LINES", util_count(p->lines).s));
	TRY(template_dict_set(row, "CLASS", p->is_rev ? "rev" : "snapshot"));
	for (k = n; k-- > 0;) {
		sum += p->by_release[s->shown[k]];
		if (k > 0 && history_column(k - 1, n) == history_column(k, n))
			continue;
		TRY(template_dict_add(&cell, row, "CELL"));
		TRY(template_dict_set(cell, "SHARE", sum ?
				      util_percent(sum, p->lines, 1).s : ""));
		sum = 0;
	}
done:
	return rc;
}

/* "812 days (2.2 years)" */
static struct text half_life(double days)
{
	struct text t;
	long long d = llround(days), tenths = llround(days / 36.525);

	snprintf(t.s, sizeof(t.s), "%lld day%s (%lld.%lld years)", d,
		 d == 1 ? "" : "s", tenths / 10, tenths % 10);
	return t;
}

static int history_survival(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	const struct snapshots *h = t->history;
	struct template_dict *row;
	int rc = 0;

	for (size_t r = 0; r < t->nreleases; r++) {
		const struct snapshot_survival *sv = &h->survival[r];
		uint64_t base;

		if (sv->base == SNAPSHOT_NONE)
			continue;
		base = h->list[sv->base].by_release[r];
		TRY(template_dict_add(&row, d, "SURVIVAL"));
		TRY(site_set_display(row, "NAME", t->releases[r].name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(site_set_display(row, "BASE", h->list[sv->base].name));
		TRY(template_dict_set(row, "LINES", util_count(base).s));
		TRY(template_dict_set(row, "LEFT", util_percent(
			snapshots_survived(h, r, h->n - 1),
			snapshots_based(h, r, h->n - 1), 1).s));
		TRY(template_dict_set(row, "HALF_LIFE", sv->has_half_life ?
			half_life(sv->half_life_days).s : "not yet"));
	}
done:
	return rc;
}

/*
 * The snapshots on release branches, and the releases without one (their
 * tag contains REV's commit), named so that none goes unsaid.
 */
static int history_branches(struct site *s, struct template_dict *d)
{
	const struct snapshots *h = s->t->history;
	struct template_dict *sec;
	size_t nbranch = 0;
	int rc = 0;

	for (size_t k = 0; k < h->n; k++)
		nbranch += h->list[k].outside;
	if (nbranch) {
		TRY(template_dict_add(&sec, d, "BRANCHES"));
		TRY(site_set_counted(sec, "N_BRANCH", nbranch, "of them",
				     "of them"));
	}
	for (size_t i = 0; i < h->nunsnapped; i++) {
		TRY(template_dict_add(&sec, d, "UNSNAPPED"));
		TRY(site_set_display(sec, "NAME",
				     s->t->releases[h->unsnapped[i]].name));
	}
done:
	return rc;
}

static int history_figures(struct site *s, struct template_dict *d)
{
	const struct snapshots *h = s->t->history;
	int rc;

	TRY(site_figure(s, d, "LINES_CHART", "history", "Stacked areas of "
			"the lines at each snapshot by the release that "
			"wrote them, oldest at the bottom. The table below "
			"has the shares.", "The layers: lines by release at "
			"each snapshot."));
	TRY(site_figure(s, d, "SHARE_CHART", "history-share", "The same "
			"stacked to 100%: each release's share of each "
			"snapshot's lines.", "The layers at 100%."));
	TRY(site_figure(s, d, "SURVIVAL_CHART", "survival", "Lines, one per "
			"release, of the share of its lines still there at "
			"each later snapshot. The table beside it has the "
			"half-lives.", "How long each release's lines live."));
	TRY(site_set_counted(d, "N_SNAPSHOTS", h->n, "snapshot", "snapshots"));
	TRY(template_dict_show(d, h->when == SNAPSHOTS_RELEASES ? "RELEASES" :
			       "CALENDAR"));
	/* "release after release", "year after year" */
	TRY(template_dict_set(d, "PERIOD", h->when == SNAPSHOTS_RELEASES ?
			      "release" : snapshots_when_name(h->when)));
	TRY(history_branches(s, d));
done:
	return rc;
}

int site_write_history(struct site *s)
{
	const struct snapshots *h = s->t->history;
	struct template_dict *d = NULL;
	int rc;

	if (!h || !h->n)
		return 0;
	TRY(site_page_new(&d, s, "history.html", "History", NAV_HISTORY));
	TRY(site_history_summary(s, d, "SUMMARY"));
	TRY(history_figures(s, d));
	TRY(history_columns(s, d));
	/* newest first, like the columns: REV's row on top */
	for (size_t k = h->n; k-- > 0;)
		TRY(history_row(s, d, k));
	TRY(history_survival(s, d));
	rc = site_page_write(s, "history.html", "history.tpl", d);
done:
	template_dict_free(d);
	return rc;
}

/* A subsystem's layers on its page, when it has a history. */
int site_dir_history(struct site *s, struct template_dict *d, size_t i)
{
	const struct snapshots *h = s->t->history;
	const char *path = s->t->dirs[i].path;
	struct template_dict *sec;
	char *name = NULL;
	size_t lo = 0, hi = h ? h->nsubsystems : 0;
	int rc = 0;

	if (s->t->dirs[i].level != 1)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->subsystems[mid], path);

		if (!c)
			break;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= hi)
		return 0;
	if ((rc = names_get(&name, s->names, path,
			    NAMES_HISTORY_CHART)) < 0)
		return rc;
	TRY(template_dict_add(&sec, d, "HISTORY"));
	TRY(site_figure(s, sec, "HISTORY_CHART", name, "Stacked areas of "
			"this directory's lines at each snapshot by the "
			"release that wrote them, oldest at the bottom.",
			"This directory's layers: its lines by release at "
			"each snapshot."));
done:
	free(name);
	return rc;
}
