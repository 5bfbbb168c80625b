/*
 * chart bars: the distribution of lines over releases, a bar per release
 * (or group of releases): img/releases for the whole tree and one chart
 * per directory.
 */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/names.h"
#include "strata/util.h"


static double dist_share(const struct dist *d, size_t i)
{
	return 100.0 * (double)d->counts[i] / (double)d->total;
}

/* Values over the bars when the widest fits its slot. */
static int dist_values_fit(struct chart *c, const struct dist *d,
			   const struct bars *b, int *fit)
{
	size_t i;
	double w;
	int rc;

	*fit = b->slot >= 24;
	for (i = 0; *fit && i < b->n; i++) {
		struct util_num v = util_share(d->counts[i], d->total);

		if ((rc = chart_text_width(c, F_VALUE, 0, v.s, &w)))
			return rc;
		*fit = w + 2 <= b->slot;
	}
	return 0;
}

/* The y axis: the step between ticks, the top, the widest tick. */
static int dist_scale(struct chart *c, const struct dist *d, size_t n,
		      double *step, double *ymax, double *tick_w)
{
	double maxv = 0, w;
	char buf[64];
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		maxv = fmax(maxv, dist_share(d, i));
	*step = chart_nice_step(maxv, c->h < 360 ? 4 : 5);
	*ymax = fmax(fmin(chart_nice_max(maxv, *step), 100), maxv);
	*tick_w = 0;
	for (i = 0; *step * (double)i <= *ymax + 1e-9; i++) {
		chart_fmt_tick(buf, sizeof(buf), *step * (double)i);
		if ((rc = chart_text_width(c, F_TICK, 0, buf, &w)))
			return rc;
		*tick_w = fmax(*tick_w, w);
	}
	return 0;
}

/* The bars, each in the colour of its first release, and their values. */
static int dist_bars(struct chart *c, const struct dist *d,
		     const struct chart_groups *g, const struct bars *b,
		     double pb, double ph, double ymax, int values)
{
	struct util_num share;
	size_t i;
	int rc;

	for (i = 0; i < g->n; i++) {
		double v = dist_share(d, i);
		double x0, x1, y0 = round(pb - v / ymax * ph);

		if (d->counts[i] && y0 >= pb)
			y0 = pb - 1;
		chart_bar_edges(b, i, &x0, &x1);
		chart_fill_rect(c, x0, y0, x1, pb,
				chart_release_rgb(c->t, c->th, g->first[i]));
		if (!values || !d->counts[i])
			continue;
		share = util_share(d->counts[i], d->total);
		if ((rc = chart_text_put(c, F_VALUE, 0, share.s, 0,
					 (x0 + x1) / 2, y0 - 2, 0.5, 1,
					 c->th->muted, NULL, NULL)))
			return rc;
	}
	return 0;
}

/* The chart of d->counts, a count per bar of `g`. */
static int dist_plot(struct chart *c, const struct dist *d,
		     const struct chart_groups *g)
{
	const struct theme *th = c->th;
	struct text ytitle = { 0 }, xtitle = { 0 };
	struct xlabels L = { 0 };
	double top, bottom, step, ymax, tick_w, tick_h, value_h;
	double pl, pr, pt, pb, ph;
	struct bars b;
	int rc, values;

	if ((rc = chart_draw_frame(c, d->title, d->subtitle, &top, &bottom)))
		return rc;
	if (!g->n || !d->total)
		return chart_draw_message(c, "no lines", top, bottom);
	if ((rc = dist_scale(c, d, g->n, &step, &ymax, &tick_w)) ||
	    (rc = chart_text_height(c, F_TICK, &tick_h)) ||
	    (rc = chart_text_height(c, F_VALUE, &value_h)) ||
	    (rc = chart_text_make(&ytitle, c, F_AXIS, 0,
				  d->ytitle ? d->ytitle : "share of lines", 0,
				  PANGO_ELLIPSIZE_NONE)) ||
	    (rc = chart_text_make(&xtitle, c, F_AXIS, 0, "release", 0,
				  PANGO_ELLIPSIZE_NONE)))
		goto done;
	pl = round(PAD + ytitle.h + 8 + tick_w + 7);
	pr = round(c->w - PAD);
	chart_bars_place(&b, pl, pr, g->n, g->nrel);
	if ((rc = chart_xlabels_layout(&L, c, g, &b)) ||
	    (rc = dist_values_fit(c, d, &b, &values)))
		goto done;
	pb = round(bottom - xtitle.h - 6 - L.band - 8);
	pt = round(top + (values ? value_h + 4 : tick_h / 2 + 2));
	ph = pb - pt;
	if (ph < 20) {
		rc = error_set("chart '%s' has no room for its plot",
			       d->title);
		goto done;
	}
	if ((rc = chart_y_grid(c, step, ymax, pl, pr, pb, ph)))
		goto done;
	chart_text_draw_up(c, &ytitle, PAD + ytitle.h / 2,
			   pt + ph / 2 - ytitle.w / 2, th->muted);
	if ((rc = dist_bars(c, d, g, &b, pb, ph, ymax, values)))
		goto done;
	chart_hline(c, pl, pr, pb, th->axis);
	if (b.gap_unrel > 0)
		chart_vline_dashed(c, floor(b.ux - b.gap_unrel / 2), pt, pb + 8,
				   th->axis, 2, 2);
	chart_xlabels_draw(c, &L, &b, pb);
	chart_text_draw(c, &xtitle, pl + (b.ux - pl) / 2, pb + 8 + L.band + 4,
			0.5, 0, th->muted);
done:
	chart_xlabels_release(&L);
	chart_text_free(&ytitle);
	chart_text_free(&xtitle);
	return rc;
}

/* ------------------------------------------------------------------ */
/*
 * A bar per release, or per group of releases when there are too many
 * (c->groups), which the subtitle then says.
 */
int chart_draw_dist(struct chart *c, const void *arg)
{
	const struct chart_groups *g = c->groups;
	const struct dist *d = arg;
	struct dist grouped = *d;
	uint64_t *counts = NULL;
	char *sub = NULL;
	size_t i;
	int rc;

	if (!(counts = calloc(g->n + 1, sizeof(*counts))))
		return error_oom();
	for (i = 0; i < c->t->nreleases; i++)
		counts[g->of[i]] += d->counts[i];
	grouped.counts = counts;
	if (g->by != CHART_BY_RELEASE) {
		if (asprintf(&sub, "%s%s%zu releases, grouped by %s",
			     d->subtitle ? d->subtitle : "",
			     d->subtitle ? "; " : "", c->nrel,
			     g->by == CHART_BY_YEAR ? "year" : "version") < 0) {
			free(counts);
			return error_oom();
		}
		grouped.subtitle = sub;
	}
	rc = dist_plot(c, &grouped, g);
	free(sub);
	free(counts);
	return rc;
}

static const char *dir_display(const char *path)
{
	return strcmp(path, ".") ? path : "the root directory";
}

static int chart_dir(struct charts *x, size_t i)
{
	const struct tally_dir *d = &x->t->dirs[i];
	char *name = NULL, *title = NULL, *sub = NULL;
	struct util_num count = util_count(d->lines);
	struct dist dist = { 0 };
	size_t len;
	int rc;

	if ((rc = names_get(&name, x->names, d->path, NAMES_CHART)) < 0 ||
	    (rc = names_make_parents(x->dir, name)) < 0)
		goto done;
	len = strlen(d->path) + strlen(chart_rev_of(x->info)) + 128;
	title = malloc(len);
	sub = malloc(len);
	if (!title || !sub) {
		rc = error_oom();
		goto done;
	}
	if (!strcmp(d->path, "."))
		snprintf(title, len, "Files in the root directory by release");
	else
		snprintf(title, len, "%s/ by release", d->path);
	snprintf(sub, len,
		 "Share of the %s %s in %s at %s by the release that "
		 "wrote them",
		 count.s, d->lines == 1 ? "line" : "lines",
		 dir_display(d->path), chart_rev_of(x->info));
	dist.title = title;
	dist.subtitle = sub;
	dist.counts = d->by_release;
	dist.total = d->lines;
	rc = chart_emit(x, name, chart_draw_dist, &dist);
done:
	free(name);
	free(title);
	free(sub);
	return rc;
}

/*
 * The directory charts, one after the other. Not on several threads:
 * cairo 1.16 shares a scaled font between threads that ask for the same
 * face and size, whatever pango font map they go through, and a glyph
 * cache frozen by one thread while another drops the font aborts the
 * process (cairo-scaled-font.c: "! scaled_font->cache_frozen"), as
 * tests/t-chart.sh once saw. A directory chart is small, so drawing them
 * in turn costs the report little.
 */
int chart_dirs(struct charts *x)
{
	size_t i;
	int rc;

	for (i = 1; i < x->t->ndirs; i++)
		if (x->t->dirs[i].level >= 1 && (rc = chart_dir(x, i)))
			return rc;
	return 0;
}

/* img/releases: the whole tree. */
int chart_releases(struct charts *x)
{
	const struct tally *t = x->t;
	uint64_t *counts = NULL;
	struct util_num count = util_count(t->total_lines);
	char title[256], sub[512];
	struct dist dist = { 0 };
	size_t i;
	int rc;

	counts = calloc(t->nreleases ? t->nreleases : 1, sizeof(*counts));
	if (!counts)
		return error_oom();
	for (i = 0; i < t->nreleases; i++)
		counts[i] = t->releases[i].lines;
	snprintf(title, sizeof(title),
		 "Lines at %s by the release that wrote them",
		 chart_rev_of(x->info));
	snprintf(sub, sizeof(sub), "Share of all %s %s in %s%s", count.s,
		 t->total_lines == 1 ? "line" : "lines", chart_repo_of(x->info),
		 x->nrel < t->nreleases
			 ? "; the last bar is code not yet in a release"
			 : "");
	dist.title = title;
	dist.subtitle = sub;
	dist.counts = counts;
	dist.total = t->total_lines;
	rc = chart_emit(x, "releases", chart_draw_dist, &dist);
	free(counts);
	return rc;
}
