/*
 * chart: the entry points of the chart module (strata/chart.h). The
 * charts are drawn by the families chart_bars.c, chart_subsystems.c,
 * chart_history.c and chart_cohorts.c with the kit of chart_kit.c, onto
 * the surfaces of chart_out.c (chart_int.h says what each holds).
 */
#include "chart_int.h"

#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/names.h"
#include "strata/snapshots.h"

int chart_check_options(const struct chart_options *o)
{
	if (o->width < CHART_MIN_WIDTH || o->width > CHART_MAX_WIDTH)
		return error_setc(STRATA_EUSAGE,
				  "chart width '%u' out of range (%d to %d)",
				  o->width, CHART_MIN_WIDTH, CHART_MAX_WIDTH);
	if (o->height < CHART_MIN_HEIGHT || o->height > CHART_MAX_HEIGHT)
		return error_setc(STRATA_EUSAGE,
				  "chart height '%u' out of range (%d to %d)",
				  o->height, CHART_MIN_HEIGHT,
				  CHART_MAX_HEIGHT);
	return 0;
}

/*
 * What the charts draw: `t` without the releases that wrote nothing
 * (tally_release_silent()), the same for its history. Only what the charts read is copied;
 * the rest is borrowed from `t`.
 */
struct view {
	struct tally t;
	struct snapshots s;
	uint64_t *counts;       /* every by_release array, end to end */
};

static void view_release(struct view *v)
{
	free(v->t.releases);
	free(v->t.dirs);
	free(v->s.list);
	free(v->s.rows);
	free(v->s.survival);
	free(v->s.survived);
	free(v->s.based);
	free(v->counts);
}

/* a[keep[j]] for the m releases kept, into out. */
static void view_pick(uint64_t *out, const uint64_t *a, const size_t *keep,
		      size_t m)
{
	size_t j;

	for (j = 0; j < m; j++)
		out[j] = a[keep[j]];
}

static int view_history(struct view *v, const struct snapshots *h,
			const size_t *keep, const size_t *to, size_t m)
{
	struct snapshots *s = &v->s;
	uint64_t *next;
	size_t k, i, j;

	*s = *h;
	s->nreleases = m;
	s->list = calloc(h->n + 1, sizeof(*s->list));
	s->rows = calloc(h->nrows + 1, sizeof(*s->rows));
	s->survival = calloc(m + 1, sizeof(*s->survival));
	s->survived = calloc(m * h->n + 1, sizeof(*s->survived));
	s->based = calloc(m * h->n + 1, sizeof(*s->based));
	next = v->counts + m * v->t.ndirs;
	if (!s->list || !s->rows || !s->survival || !s->survived ||
	    !s->based)
		return error_oom();
	for (k = 0; k < h->n; k++) {
		s->list[k] = h->list[k];
		s->list[k].by_release = next;
		view_pick(next, h->list[k].by_release, keep, m);
		next += m;
		if (h->list[k].release != SNAPSHOT_NONE)
			s->list[k].release = to[h->list[k].release];
	}
	for (i = s->nrows = 0; i < h->nrows; i++)
		if (to[h->rows[i].release] != SNAPSHOT_NONE) {
			s->rows[s->nrows] = h->rows[i];
			s->rows[s->nrows++].release =
				(uint32_t)to[h->rows[i].release];
		}
	for (j = 0; j < m; j++) {
		s->survival[j] = h->survival[keep[j]];
		if (h->survived)
			memcpy(s->survived + j * h->n,
			       h->survived + keep[j] * h->n,
			       h->n * sizeof(*s->survived));
		if (h->based)
			memcpy(s->based + j * h->n, h->based + keep[j] * h->n,
			       h->n * sizeof(*s->based));
	}
	v->t.history = s;
	return 0;
}

static int view_build(struct view *v, const struct tally *t)
{
	const struct snapshots *h = t->history;
	size_t *keep = calloc(t->nreleases + 1, sizeof(*keep));
	size_t *to = calloc(t->nreleases + 1, sizeof(*to));
	size_t m = 0, i, n;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->t = *t;
	if (!keep || !to) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < t->nreleases; i++) {
		to[i] = SNAPSHOT_NONE;
		if (!tally_release_silent(t, i)) {
			to[i] = m;
			keep[m++] = i;
		}
	}
	n = m * (t->ndirs + (h ? h->n : 0)) + 1;
	v->t.nreleases = m;
	v->t.releases = calloc(m + 1, sizeof(*v->t.releases));
	v->t.dirs = calloc(t->ndirs + 1, sizeof(*v->t.dirs));
	v->counts = calloc(n, sizeof(*v->counts));
	if (!v->t.releases || !v->t.dirs || !v->counts) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < m; i++)
		v->t.releases[i] = t->releases[keep[i]];
	for (i = 0; i < t->ndirs; i++) {
		v->t.dirs[i] = t->dirs[i];
		v->t.dirs[i].by_release = v->counts + i * m;
		view_pick(v->t.dirs[i].by_release, t->dirs[i].by_release,
			  keep, m);
	}
	if (h && h->nreleases == t->nreleases)
		rc = view_history(v, h, keep, to, m);
done:
	free(keep);
	free(to);
	return rc;
}

int chart_write_all(const char *img_dir, const struct tally *full,
		    const struct report_info *info,
		    const struct chart_options *o)
{
	struct charts x;
	struct view v;
	const struct tally *t = &v.t;
	int rc;

	memset(&x, 0, sizeof(x));
	if ((rc = chart_check_options(o)))
		return rc;
	if ((rc = view_build(&v, full))) {
		view_release(&v);
		return rc;
	}
	x.dir = img_dir;
	x.t = t;
	x.info = info;
	x.th = o->dark ? &chart_theme_dark : &chart_theme_light;
	x.w = o->width;
	x.h = o->height;
	x.nrel = chart_released_count(t);
	chart_fonts_open(&x.fm, &x.pc);
	if ((rc = names_new(&x.names, full)) < 0 ||
	    (rc = chart_rows_build(&x.rows, t, chart_rows_max(o->height))) ||
	    (rc = chart_groups_build(&x.groups, t, CHART_MAX_BARS)))
		goto done;
	if ((rc = chart_releases(&x)) || (rc = chart_subsystems(&x)) ||
	    (rc = chart_dirs(&x)) || (rc = chart_history(&x)))
		goto done;
	rc = chart_cohorts(&x);
done:
	free(x.path);
	names_free(x.names);
	chart_rows_release(&x.rows);
	chart_groups_release(&x.groups);
	chart_fonts_close(x.fm, x.pc);
	view_release(&v);
	return rc;
}
