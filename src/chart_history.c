/*
 * chart history: the snapshots of the history as layers of rock (lines
 * and shares by the release that wrote them, for the whole tree and per
 * subsystem) and the survival of each release's lines.
 */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/names.h"
#include "strata/snapshots.h"

/* ------------------------------------------------------------------ */
/* Charts of the history: layers of rock, and survival */

/* A stacked history: counts[k * nrel + r] lines of release r at snapshot k. */
struct layers {
	const char *title, *subtitle;
	const uint64_t *counts;
	const uint64_t *totals;       /* per snapshot */
	int share;                    /* stacked to 100% */
};

/* Snapshot dates along x, never going back (REV may predate a tag). */
static void history_xs(const struct snapshots *s, double pl, double pr,
		       double *xs)
{
	double d0 = (double)s->list[0].date, last = d0, span;
	size_t k;

	for (k = 0; k < s->n; k++) {
		last = fmax(last, (double)s->list[k].date);
		xs[k] = last;
	}
	span = last - d0;
	for (k = 0; k < s->n; k++)
		xs[k] = s->n == 1 ? pr :
			span > 0 ? pl + (xs[k] - d0) / span * (pr - pl) :
			pl + (pr - pl) * (double)k / (double)(s->n - 1);
}

/* The x axis under calendar snapshots: the years, as many as fit. */
static int history_years(struct chart *c, const double *xs, double pb)
{
	const struct snapshots *s = c->t->history;
	int y0 = chart_year_of(s->list[0].date), y1 = chart_year_of(
		s->list[s->n - 1].date), step = 1, y, rc;
	double span = xs[s->n - 1] - xs[0];
	double d0 = (double)s->list[0].date;
	double d1 = (double)s->list[s->n - 1].date;

	while ((double)(y1 - y0) / step * 40 > span && step < 1000)
		step = step == 1 ? 2 : step == 2 ? 5 : step * 2;
	for (y = y0 - y0 % step + step; y <= y1; y += step) {
		double ys = (double)chart_year_start(y);
		double x = d1 > d0 ? xs[0] + (ys - d0) / (d1 - d0) * span
				   : xs[0];
		char buf[16];

		if (x < xs[0] || x > xs[s->n - 1] + 0.5)
			continue;
		snprintf(buf, sizeof(buf), "%d", y);
		chart_vline(c, floor(x), pb + 1, pb + 5, c->th->axis);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, x, pb + 7, 0.5,
					 0, c->th->text, NULL, NULL)))
			return rc;
	}
	return 0;
}

/*
 * The x axis: under release snapshots their names, upright, as many as
 * stand apart (chart_axis_thin(): the first and REV always), and a tick
 * at every snapshot; under calendar snapshots, the years. *band is the
 * height the labels take.
 */
static int history_labels(struct chart *c, const double *xs, double pb,
			  int draw, double *band)
{
	const struct snapshots *s = c->t->history;
	double lab_h, *at = NULL;
	unsigned char *keep = NULL;
	size_t k;
	int rc;

	if ((rc = chart_text_height(c, F_TICK, &lab_h)))
		return rc;
	*band = lab_h;
	if (s->when != SNAPSHOTS_RELEASES)
		return draw ? history_years(c, xs, pb) : 0;
	at = malloc(s->n * sizeof(*at));
	keep = malloc(s->n);
	if (!at || !keep) {
		rc = error_oom();
		goto done;
	}
	chart_axis_thin(xs, s->n, lab_h, 2, PAD / 2, c->w - PAD / 2, at,
			keep);
	*band = 0;
	for (k = 0; k < s->n; k++) {
		struct text t;

		if (draw)
			chart_vline(c, floor(xs[k]), pb + 1, pb + 4,
				    c->th->axis);
		if (!keep[k])
			continue;
		if ((rc = chart_text_make(&t, c, F_TICK, s->list[k].is_rev,
					  s->list[k].name,
					  fmin(110, 0.22 * c->h),
					  PANGO_ELLIPSIZE_END)))
			goto done;
		*band = fmax(*band, t.w);
		if (draw) {
			chart_vline(c, floor(xs[k]), pb + 1, pb + 6,
				    c->th->axis);
			chart_text_draw_up(c, &t, at[k], pb + 7,
					   s->list[k].is_rev ? c->th->muted :
							       c->th->text);
		}
		chart_text_free(&t);
	}
done:
	free(at);
	free(keep);
	return rc;
}

/* The y axis of lines or shares: ticks, grid, and the widest tick. */
static void layers_tick(char *buf, size_t size, const struct layers *L,
			double v)
{
	if (L->share)
		chart_fmt_tick(buf, size, v);
	else
		chart_fmt_short(buf, size, (uint64_t)llround(v));
}

/* Snapshot k's height of v lines (or shares) in pixels. */
static double layers_y(const struct layers *L, size_t k, uint64_t v,
		       double pb, double ph, double ymax)
{
	double f = L->share ? (L->totals[k] ? 100.0 * (double)v /
			       (double)L->totals[k] : 0) : (double)v;

	return pb - f / ymax * ph;
}

/*
 * The snapshots [*from, *to) where release r's band has lines or rises
 * from none or falls to none; *from == *to if it has none anywhere.
 */
static void layers_span(const struct layers *L, size_t nrel, size_t n,
			size_t r, size_t *from, size_t *to)
{
	size_t k, first = n, last = 0;

	for (k = 0; k < n; k++) {
		if (!L->counts[k * nrel + r])
			continue;
		if (first == n)
			first = k;
		last = k;
	}
	*from = first == n ? 0 : first ? first - 1 : 0;
	*to = first == n ? 0 : last + 2 < n ? last + 2 : n;
}

/*
 * A hairline in the background's colour along the top of the releases
 * below r (top[] holds their sums by now), so that neighbouring bands of
 * close colours stay apart: over snapshots [from, to), at least two.
 */
static void layers_edge(struct chart *c, const struct layers *L,
			const uint64_t *top, size_t r, const double *xs,
			double pb, double ph, double ymax, size_t from,
			size_t to)
{
	struct rgb bg = c->th->bg;
	size_t k;

	if (!r || to < from + 2)
		return;
	for (k = from; k < to; k++) {
		double y = layers_y(L, k, top[k], pb, ph, ymax);

		if (k > from)
			cairo_line_to(c->cr, xs[k], y);
		else
			cairo_move_to(c->cr, xs[k], y);
	}
	cairo_set_source_rgba(c->cr, bg.r / 255.0, bg.g / 255.0, bg.b / 255.0,
			      0.35);
	cairo_set_line_width(c->cr, 0.75);
	cairo_stroke(c->cr);
}

/*
 * How far down an area is filled under its bottom: every pixel the band
 * below touches along its top, within LAYERS_REACH pixels left and right
 * and LAYERS_REACH down, is the area's colour before that band is drawn
 * over it, as if the area went down to the baseline.
 */
#define LAYERS_REACH 3.0

static void layers_floor(double *floor, const double *bot, const double *xs,
			 size_t n, double pb)
{
	for (size_t k = 0; k < n; k++) {
		double m = bot[k];

		for (size_t j = k; j-- > 0 &&
		     (j + 1 == k || xs[k] - xs[j] <= LAYERS_REACH);)
			m = fmax(m, bot[j]);
		for (size_t j = k + 1; j < n &&
		     (j == k + 1 || xs[j] - xs[k] <= LAYERS_REACH); j++)
			m = fmax(m, bot[j]);
		floor[k] = fmin(pb, m + LAYERS_REACH);
	}
}

/*
 * The areas, newest release first, each from its top down past its
 * bottom (layers_floor()), so that no seam shows between neighbours and
 * none is filled under the whole stack; each only where it has lines
 * (layers_span()): a band of none has nothing to show, and leaving it
 * out spares most of the points of the bands of a long history's newer
 * releases. top[k] starts as snapshot k's whole and loses each release
 * once drawn.
 */
static int layers_fill(struct chart *c, const struct layers *L,
		       const double *xs, double pb, double ph, double ymax)
{
	const struct snapshots *s = c->t->history;
	size_t nrel = c->t->nreleases, n = s->n, r, k;
	uint64_t *top = malloc(n * sizeof(*top));
	double *y = malloc(3 * n * sizeof(*y)), *bot = y + n, *floor = bot + n;

	if (!top || !y) {
		free(top);
		free(y);
		return error_oom();
	}
	for (k = 0; k < n; k++)
		top[k] = L->totals[k];
	for (r = nrel; r-- > 0;) {
		size_t from, to;

		layers_span(L, nrel, n, r, &from, &to);
		if (from == to)
			continue;
		chart_set_rgb(c, chart_release_rgb(c->t, c->th, r));
		for (k = 0; k < n; k++) {
			y[k] = layers_y(L, k, top[k], pb, ph, ymax);
			top[k] -= L->counts[k * nrel + r];
			bot[k] = layers_y(L, k, top[k], pb, ph, ymax);
		}
		if (n == 1) {
			cairo_rectangle(c->cr, xs[0] - 1, y[0], 1, pb - y[0]);
			cairo_fill(c->cr);
			continue;
		}
		layers_floor(floor, bot, xs, n, pb);
		cairo_move_to(c->cr, xs[from], y[from]);
		for (k = from + 1; k < to; k++)
			cairo_line_to(c->cr, xs[k], y[k]);
		for (k = to; k-- > from;)
			cairo_line_to(c->cr, xs[k], floor[k]);
		cairo_close_path(c->cr);
		cairo_fill(c->cr);
	}
	/*
	 * The edges over the areas, from the top down again, each where its
	 * release has lines: elsewhere the edge of the next release above
	 * that has lines is the same line (or it would be the stack's top,
	 * which has none). A newest release with no lines anywhere leaves
	 * the stack's top its edge.
	 */
	for (k = 0; k < n; k++)
		top[k] = L->totals[k];
	for (r = nrel; r-- > 1;) {
		size_t from, to;

		for (k = 0; k < n; k++)
			top[k] -= L->counts[k * nrel + r];
		layers_span(L, nrel, n, r, &from, &to);
		if (from == to && r + 1 == nrel)
			to = n;
		layers_edge(c, L, top, r, xs, pb, ph, ymax, from, to);
	}
	free(top);
	free(y);
	return 0;
}

/*
 * Names beside their curves or bands (placed by chart_labels_place()),
 * with a leader from the end to a name moved off it.
 */
static void end_labels_draw(struct chart *c, const struct end_label *v,
			    const struct text *tx, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double cy = v[i].y + v[i].h / 2;
		int left = v[i].x < v[i].ex;

		if (!v[i].placed)
			continue;
		if (fabs(cy - v[i].ey) > 1) {
			chart_set_rgb(c, c->th->muted);
			cairo_set_line_width(c->cr, 0.75);
			cairo_move_to(c->cr, v[i].ex + (left ? -2 : 2),
				      v[i].ey);
			cairo_line_to(c->cr, left ? v[i].x + v[i].w + 1
						  : v[i].x - 1, cy);
			cairo_stroke(c->cr);
		}
		chart_text_draw(c, &tx[i], v[i].x, v[i].y, 0, 0, c->th->text);
	}
}

/*
 * The room right of the plot for the names of the bands at REV, beyond
 * LEGEND_SWATCHES releases (layers_names()); 0 otherwise.
 */
static int layers_margin(struct chart *c, const struct layers *L,
			 double *out)
{
	const struct snapshots *s = c->t->history;
	size_t nrel = c->t->nreleases, r;
	double w;
	int rc;

	*out = 0;
	if (c->nrel <= LEGEND_SWATCHES || s->n < 2)
		return 0;
	for (r = 0; r < c->nrel; r++) {
		if (!L->counts[(s->n - 1) * nrel + r])
			continue;
		if ((rc = chart_text_width(c, F_VALUE, 0,
					   c->t->releases[r].name, &w)))
			return rc;
		*out = fmax(*out, fmin(w, 120) + 7);
	}
	return 0;
}

/*
 * The bands named right of the plot (chart_labels_stack()), the thickest
 * at REV first; their thickness is in .h until then.
 */
static int layers_ends(struct chart *c, struct end_label *v,
		       const struct text *tx, size_t m, double x0,
		       double y0, double y1)
{
	struct end_label *by = malloc((m + 1) * sizeof(*by));
	struct text *tb = malloc((m + 1) * sizeof(*tb));
	size_t i, j;
	int rc = 0;

	if (!by || !tb) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < m; i++) {
		for (j = i; j > 0 && by[j - 1].h < v[i].h; j--) {
			by[j] = by[j - 1];
			tb[j] = tb[j - 1];
		}
		by[j] = v[i];
		tb[j] = tx[i];
	}
	for (i = 0; i < m; i++)
		by[i].h = tb[i].h;
	if (chart_labels_stack(by, m, x0 + 5, y0, y1) < 0)
		rc = error_oom();
	else
		end_labels_draw(c, by, tb, m);
done:
	free(by);
	free(tb);
	return rc;
}

/*
 * Beyond LEGEND_SWATCHES releases, the legend's ramp names only a few,
 * so each band is named in itself where it is thick enough
 * (chart_band_place()), and else, when it is there at REV, right of the
 * plot beside its end, as many as stand apart: a band named nowhere
 * could not be told from its neighbours.
 */
static int layers_names(struct chart *c, const struct layers *L,
			const double *xs, double pt, double pb, double ymax)
{
	const struct snapshots *s = c->t->history;
	size_t nrel = c->t->nreleases, n = s->n, r, k, m = 0;
	uint64_t *below = calloc(n + 1, sizeof(*below));
	double *top = malloc((n + 1) * sizeof(*top));
	double *bot = malloc((n + 1) * sizeof(*bot));
	struct end_label *v = calloc(nrel + 1, sizeof(*v));
	struct text *tx = calloc(nrel + 1, sizeof(*tx));
	int rc = 0;

	if (!below || !top || !bot || !v || !tx) {
		rc = error_oom();
		goto done;
	}
	for (r = 0; r < nrel && !rc; r++) {
		struct band_name b;
		double cx, cy;

		for (k = 0; k < n; k++) {
			bot[k] = layers_y(L, k, below[k], pb, pb - pt, ymax);
			below[k] += L->counts[k * nrel + r];
			top[k] = layers_y(L, k, below[k], pb, pb - pt, ymax);
		}
		/* the unreleased bucket has its own swatch */
		if (r >= c->nrel)
			break;
		if ((rc = chart_band_name_make(&b, c, r)))
			break;
		if (chart_band_place(xs, top, bot, n, b.t.w + 4, b.ink_h,
				     xs[0], xs[n - 1], &cx, &cy)) {
			chart_band_name_draw(c, &b, cx, cy,
					     chart_release_rgb(c->t, c->th, r));
			chart_text_free(&b.t);
		} else if (bot[n - 1] - top[n - 1] >= 1) {
			v[m] = (struct end_label){ .r = r, .ex = xs[n - 1],
				.ey = (top[n - 1] + bot[n - 1]) / 2,
				.w = b.t.w, .h = bot[n - 1] - top[n - 1] };
			tx[m++] = b.t;
		} else {
			chart_text_free(&b.t);
		}
	}
	if (!rc)
		rc = layers_ends(c, v, tx, m, xs[n - 1], pt - 6, pb);
done:
	for (k = 0; tx && k < m; k++)
		chart_text_free(&tx[k]);
	free(below);
	free(top);
	free(bot);
	free(v);
	free(tx);
	return rc;
}

static int draw_layers(struct chart *c, const void *arg)
{
	const struct layers *L = arg;
	const struct snapshots *s = c->t->history;
	const struct theme *th = c->th;
	struct text ytitle = { 0 };
	double top, bottom, legend_h, maxv = 0, step, ymax, tick_w = 0, w;
	double band, pl, pr, pt, pb, ph, *xs = NULL;
	char buf[64];
	size_t k, i;
	int rc;

	if ((rc = chart_draw_frame(c, L->title, L->subtitle, &top, &bottom)))
		return rc;
	for (k = 0; k < s->n; k++)
		maxv = fmax(maxv, (double)L->totals[k]);
	if (!maxv)
		return chart_draw_message(c, "no lines", top, bottom);
	if ((rc = chart_draw_legend(c, top - 2, &legend_h)))
		return rc;
	maxv = L->share ? 100 : maxv;
	step = chart_nice_step(maxv, c->h < 360 ? 4 : 5);
	ymax = L->share ? 100 : chart_nice_max(maxv, step);
	for (i = 0; step * (double)i <= ymax + 1e-9; i++) {
		layers_tick(buf, sizeof(buf), L, step * (double)i);
		if ((rc = chart_text_width(c, F_TICK, 0, buf, &w)))
			return rc;
		tick_w = fmax(tick_w, w);
	}
	if ((rc = chart_text_make(&ytitle, c, F_AXIS, 0,
				  L->share ? "share of lines"
				  : "lines", 0, PANGO_ELLIPSIZE_NONE)))
		return rc;
	if (!(xs = malloc(s->n * sizeof(*xs)))) {
		rc = error_oom();
		goto done;
	}
	if ((rc = layers_margin(c, L, &w)))
		goto done;
	pl = round(PAD + ytitle.h + 8 + tick_w + 7);
	pr = round(c->w - PAD - 4 - w);
	history_xs(s, pl, pr, xs);
	if ((rc = history_labels(c, xs, 0, 0, &band)))
		goto done;
	pt = round(top + legend_h + 12);
	pb = round(bottom - band - 12);
	ph = pb - pt;
	if (ph < 20 || pr - pl < 40) {
		rc = error_set("chart '%s' has no room for its plot", L->title);
		goto done;
	}
	if ((rc = layers_fill(c, L, xs, pb, ph, ymax)))
		goto done;
	for (i = 0; step * (double)i <= ymax + 1e-9; i++) {
		double v = step * (double)i, row = round(pb - v / ymax * ph);

		if (i && v < ymax)
			chart_hline(c, pl, pr, row, th->grid);
		layers_tick(buf, sizeof(buf), L, v);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, pl - 7,
					 row + 0.5, 1,
					 0.5, th->muted, NULL, NULL)))
			goto done;
	}
	if (c->nrel > LEGEND_SWATCHES && s->n > 1 &&
	    (rc = layers_names(c, L, xs, pt, pb, ymax)))
		goto done;
	chart_hline(c, pl, pr, pb, th->axis);
	chart_text_draw_up(c, &ytitle, PAD + ytitle.h / 2,
			   pt + ph / 2 - ytitle.w / 2, th->muted);
	rc = history_labels(c, xs, pb, 1, &band);
done:
	free(xs);
	chart_text_free(&ytitle);
	return rc;
}

/* The survival chart's plot: its box and its scales. */
struct survival_plot {
	double pl, pr, pt, pb;
	double xmax, ymax;        /* in units of time; percent */
	double unit;              /* seconds in a unit: a year, month or day */
	const char *unit_name;
};

static double survival_x(const struct survival_plot *P,
			 const struct snapshots *s, size_t r, size_t k)
{
	double t = ((double)s->list[k].date -
		    (double)s->list[s->survival[r].base].date) / P->unit;

	return P->pl + fmin(fmax(t, 0), P->xmax) / P->xmax * (P->pr - P->pl);
}

static double survival_y(const struct survival_plot *P,
			 const struct snapshots *s, size_t r, size_t k)
{
	return P->pb - snapshots_share(s, r, k) / P->ymax * (P->pb - P->pt);
}

/* One release's curve, from its base snapshot on. */
static void survival_curve(struct chart *c, const struct survival_plot *P,
			   size_t r)
{
	const struct snapshots *s = c->t->history;
	size_t k;

	for (k = s->survival[r].base; k < s->n; k++) {
		double x = survival_x(P, s, r, k), y = survival_y(P, s, r, k);

		if (snapshots_share(s, r, k) < 0) /* no point on this line */
			continue;
		if (k == s->survival[r].base)
			cairo_move_to(c->cr, x, y);
		else
			cairo_line_to(c->cr, x, y);
	}
	cairo_stroke(c->cr);
}

/* The scales: time in years, months or days as the span asks; shares
 * from 0 to 100% (snapshots_share() never passes 100%). */
static void survival_scales(struct survival_plot *P,
			    const struct snapshots *s)
{
	double span = 0;
	size_t r;

	for (r = 0; r < s->nreleases; r++) {
		size_t b = s->survival[r].base;

		if (b == SNAPSHOT_NONE)
			continue;
		span = fmax(span, (double)s->list[s->n - 1].date -
				  (double)s->list[b].date);
	}
	P->ymax = 100;
	P->unit = 365.25 * 86400;
	P->unit_name = "years since the release";
	if (span < 2 * P->unit) {
		P->unit = 30.4375 * 86400;
		P->unit_name = "months since the release";
	}
	if (span < 60 * 86400.0) {
		P->unit = 86400;
		P->unit_name = "days since the release";
	}
	P->xmax = span > 0 ? span / P->unit : 1;
}

static int draw_survival_axes(struct chart *c, const struct survival_plot *P)
{
	double xstep = chart_nice_step(P->xmax, 8), v;
	char buf[32];
	int rc;

	for (v = 0; v <= P->ymax + 1e-9; v += 25) {
		double row = round(P->pb - v / P->ymax * (P->pb - P->pt));

		if (v > 0)
			chart_hline(c, P->pl, P->pr, row, c->th->grid);
		chart_fmt_tick(buf, sizeof(buf), v);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, P->pl - 7,
					 row + 0.5,
					 1, 0.5, c->th->muted, NULL, NULL)))
			return rc;
	}
	for (v = 0; v <= P->xmax + 1e-9; v += xstep) {
		double col = round(P->pl + v / P->xmax * (P->pr - P->pl));

		chart_vline(c, col, P->pb + 1, P->pb + 5, c->th->axis);
		snprintf(buf, sizeof(buf), "%g", v);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, col, P->pb + 7,
					 0.5, 0, c->th->muted, NULL, NULL)))
			return rc;
	}
	chart_hline(c, P->pl, P->pr, P->pb, c->th->axis);
	return 0;
}

/* Whether box a meets box b, with a pixel between them. */
static int label_meets(const struct end_label *a, const struct end_label *b)
{
	return a->x < b->x + b->w + 1 && b->x < a->x + a->w + 1 &&
	       a->y < b->y + b->h + 1 && b->y < a->y + a->h + 1;
}

/*
 * Each name at the end of its curve (ex, ey), to the right or, without
 * room there, to the left; where it would meet a name placed before, or
 * leave the box x0..x1, y0..y1, moved up or down a line at a time (up
 * to SURVIVAL_REACH lines), else left out (placed 0). Names earlier in
 * v[] go first.
 */
void chart_labels_place(struct end_label *v, size_t n, double x0,
			double x1, double y0, double y1)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		struct end_label *L = &v[i];

		L->placed = 0;
		for (k = 0; k <= 2 * SURVIVAL_REACH && !L->placed; k++) {
			double d = (double)((k + 1) / 2) * (k % 2 ? 1 : -1);

			L->y = round(L->ey - L->h / 2 + d * L->h);
			L->x = round(L->ex + 5);
			if (L->x + L->w > x1)
				L->x = round(L->ex - 5 - L->w);
			if (L->y < y0 || L->y + L->h > y1 || L->x < x0)
				continue;
			L->placed = 1;
			for (j = 0; j < i && L->placed; j++)
				if (v[j].placed && label_meets(L, &v[j]))
					L->placed = 0;
		}
	}
}

/*
 * The labels idx[0..m) of v (by their ends' ey, top down) in one column,
 * in that order, 1 px apart: each at its end where there is room, and a
 * run that would overlap spread round the mean of its ends (the place
 * that moves them least), within y0..y1. Sets their y; 1 if every one
 * stays within `reach` of its end.
 */
static int stack_fit(struct end_label *v, const size_t *idx, size_t m,
		     double y0, double y1, double reach)
{
	size_t *first = malloc((m + 1) * sizeof(*first)), nc = 0, i, j;
	double *top = malloc((m + 1) * sizeof(*top));
	double *sum = malloc((m + 1) * sizeof(*sum));
	double *hh = malloc((m + 1) * sizeof(*hh));
	int ok = first && top && sum && hh;

	for (i = 0; ok && i < m; i++) {
		const struct end_label *L = &v[idx[i]];

		first[nc] = i;
		sum[nc] = L->ey - L->h / 2;
		hh[nc] = L->h + 1;
		top[nc] = fmin(fmax(sum[nc], y0), y1 - hh[nc]);
		nc++;
		/* merge with the runs above while they meet */
		while (nc > 1 && top[nc - 2] + hh[nc - 2] > top[nc - 1]) {
			size_t a = nc - 2, na = first[nc - 1] - first[a];
			size_t nb = i + 1 - first[nc - 1];

			/* each label's wish for the run's top: its own less
			 * its offset in the run */
			sum[a] += sum[nc - 1] - (double)nb * hh[a];
			hh[a] += hh[nc - 1];
			top[a] = fmin(fmax(sum[a] / (double)(na + nb), y0),
				      y1 - hh[a]);
			nc--;
		}
	}
	for (j = 0; ok && j < nc; j++) {
		size_t end = j + 1 < nc ? first[j + 1] : m;
		double y = top[j];

		for (i = first[j]; i < end; i++) {
			struct end_label *L = &v[idx[i]];

			L->y = round(y);
			y += L->h + 1;
			if (fabs(L->y + L->h / 2 - L->ey) > reach || L->y < y0 ||
			    L->y + L->h > y1)
				ok = 0;
		}
	}
	free(first);
	free(top);
	free(sum);
	free(hh);
	return ok;
}

/*
 * Names in one column at x beside the ends of bands (ex, ey), in the
 * bands' order, within y0..y1 and at most SURVIVAL_REACH lines off their
 * ends: v[] in the order to try them (the most telling first), each kept
 * if it leaves room for those kept before (placed 1). 0, or -1 out of
 * memory.
 */
int chart_labels_stack(struct end_label *v, size_t n, double x, double y0,
		       double y1)
{
	size_t *idx = calloc(n + 1, sizeof(*idx)), m = 0, i, j;
	double used = 0;

	if (!idx)
		return -1;
	for (i = 0; i < n; i++) {
		v[i].placed = 0;
		if (used + v[i].h + 1 > y1 - y0)
			continue;
		/* insert i by ey, try, and take it out again if it fails */
		for (j = m; j > 0 && v[idx[j - 1]].ey > v[i].ey; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
		m++;
		if (stack_fit(v, idx, m, y0, y1, SURVIVAL_REACH * v[i].h)) {
			v[i].placed = 1;
			used += v[i].h + 1;
			continue;
		}
		memmove(&idx[j], &idx[j + 1], (m - j - 1) * sizeof(*idx));
		m--;
	}
	stack_fit(v, idx, m, y0, y1, INFINITY);
	for (i = 0; i < m; i++)
		v[idx[i]].x = round(x);
	free(idx);
	return 0;
}

/*
 * The curves to try, most telling first: the oldest, the newest, then
 * the others spread between (halves, quarters ...). A release whose base
 * is the last snapshot has no curve.
 */
static size_t survival_order(const struct snapshots *s, size_t *out)
{
	size_t *c = malloc((s->nreleases + 1) * sizeof(*c));
	char *taken;
	size_t n = 0, m = 0, r, step;

	taken = calloc(s->nreleases + 1, 1);
	if (!c || !taken) {
		free(c);
		free(taken);
		return SIZE_MAX;
	}
	for (r = 0; r < s->nreleases; r++)
		if (s->survival[r].base != SNAPSHOT_NONE &&
		    s->survival[r].base + 1 < s->n)
			c[n++] = r;
	for (step = n; n && step >= 1; step /= 2) {
		size_t i;

		for (i = 0; i < n; i += step) {
			if (m == 1 && !taken[n - 1]) {
				out[m++] = c[n - 1];
				taken[n - 1] = 1;
			}
			if (!taken[i]) {
				out[m++] = c[i];
				taken[i] = 1;
			}
		}
		if (step == 1)
			break;
	}
	if (n && !taken[n - 1])
		out[m++] = c[n - 1];
	free(c);
	free(taken);
	return m;
}

/*
 * The curves and their names: as many as can be named, up to
 * SURVIVAL_CURVES, so that every line drawn has its name. *labels and
 * *texts are the caller's to free.
 */
static int survival_layout(struct chart *c, const struct survival_plot *P,
			   struct end_label **labels, struct text **texts,
			   size_t *n, size_t *of)
{
	const struct snapshots *s = c->t->history;
	size_t *order = malloc((s->nreleases + 1) * sizeof(*order));
	struct end_label *v = NULL;
	struct text *tx = NULL;
	size_t m, i, k = 0;
	int rc = 0;

	*labels = NULL;
	*texts = NULL;
	*n = *of = 0;
	if (!order)
		return error_oom();
	if ((m = survival_order(s, order)) == SIZE_MAX) {
		free(order);
		return error_oom();
	}
	v = calloc(m + 1, sizeof(*v));
	tx = calloc(m + 1, sizeof(*tx));
	if (!v || !tx) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < m; i++) {
		size_t r = order[i];

		if ((rc = chart_text_make(&tx[i], c, F_VALUE, 0,
					  c->t->releases[r].name, 90,
					  PANGO_ELLIPSIZE_END)))
			goto done;
		v[i] = (struct end_label){ .r = r,
			.ex = survival_x(P, s, r, s->n - 1),
			.ey = survival_y(P, s, r, s->n - 1),
			.w = tx[i].w, .h = tx[i].h };
	}
	chart_labels_place(v, m, PAD, c->w - PAD, P->pt - 6, P->pb - 1);
	/* keep the placed, up to SURVIVAL_CURVES, their texts alongside */
	for (i = 0; i < m; i++) {
		if (!v[i].placed || k == SURVIVAL_CURVES) {
			chart_text_free(&tx[i]);
			continue;
		}
		v[k] = v[i];
		tx[k++] = tx[i];
	}
	*n = k;
	*of = m;
done:
	free(order);
	if (rc) {
		for (i = 0; i < m && tx; i++)
			chart_text_free(&tx[i]);
		free(v);
		free(tx);
		return rc;
	}
	*labels = v;
	*texts = tx;
	return 0;
}

/* The curves named, oldest under newest, and their names, with a leader
 * from the curve's end to a name moved off it. */
static void survival_draw(struct chart *c, const struct survival_plot *P,
			  const struct end_label *v, const struct text *tx,
			  size_t n)
{
	size_t i, j;

	cairo_save(c->cr);
	cairo_rectangle(c->cr, P->pl, P->pt - 2, P->pr - P->pl + 2,
			P->pb - P->pt + 2);
	cairo_clip(c->cr);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_width(c->cr, 2);
	for (j = c->t->history->nreleases; j-- > 0;)
		for (i = 0; i < n; i++)
			if (v[i].r == j) {
				chart_set_rgb(c, chart_release_rgb(c->t, c->th,
								   j));
				survival_curve(c, P, j);
			}
	cairo_restore(c->cr);
	end_labels_draw(c, v, tx, n);
}

static int draw_survival(struct chart *c, const void *arg)
{
	const struct snapshots *s = c->t->history;
	struct survival_plot P;
	struct end_label *v = NULL;
	struct text *tx = NULL;
	double top, bottom, tick_h, w;
	char xtitle[160];
	size_t n = 0, of = 0, i;
	int rc;

	(void)arg;
	if ((rc = chart_draw_frame(c, "How long each release's lines live",
				   "Share of each release's lines still there "
				   "at each later snapshot, each curve named "
				   "at its end", &top, &bottom)))
		return rc;
	survival_scales(&P, s);
	if ((rc = chart_text_height(c, F_TICK, &tick_h)) ||
	    (rc = chart_text_width(c, F_TICK, 0, "100%", &w)))
		return rc;
	P.pl = round(PAD + w + 8);
	P.pr = round(c->w - PAD - 60);
	P.pt = round(top + 6);
	P.pb = round(bottom - 2 * tick_h - 16);
	if (P.pb - P.pt < 20 || P.pr - P.pl < 40)
		return error_set("chart 'survival' has no room for its plot");
	if ((rc = survival_layout(c, &P, &v, &tx, &n, &of)))
		return rc;
	/* the releases left out, when their names found no room */
	if (n < of)
		snprintf(xtitle, sizeof(xtitle), "%s (%zu of %zu releases)",
			 P.unit_name, n, of);
	else
		snprintf(xtitle, sizeof(xtitle), "%s", P.unit_name);
	if ((rc = draw_survival_axes(c, &P)) ||
	    (rc = chart_text_put(c, F_AXIS, 0, xtitle, 0, (P.pl + P.pr) / 2,
				 P.pb + tick_h + 12, 0.5, 0, c->th->muted, NULL,
				 NULL)))
		goto done;
	survival_draw(c, &P, v, tx, n);
done:
	for (i = 0; i < n; i++)
		chart_text_free(&tx[i]);
	free(tx);
	free(v);
	return rc;
}

/* Counts of every snapshot, whole tree or one subsystem (SIZE_MAX). */
static int layers_counts(uint64_t **counts, uint64_t **totals,
			 const struct snapshots *s, size_t nrel, size_t sub)
{
	size_t k, i;

	*counts = calloc(s->n * nrel + 1, sizeof(**counts));
	*totals = calloc(s->n + 1, sizeof(**totals));
	if (!*counts || !*totals)
		return error_oom();
	for (k = 0; k < s->n && sub == SIZE_MAX; k++) {
		memcpy(*counts + k * nrel, s->list[k].by_release,
		       nrel * sizeof(**counts));
		(*totals)[k] = s->list[k].lines;
	}
	for (i = 0; i < s->nrows && sub != SIZE_MAX; i++) {
		const struct snapshot_row *row = &s->rows[i];

		if (row->subsystem != sub)
			continue;
		(*counts)[row->snapshot * nrel + row->release] += row->lines;
		(*totals)[row->snapshot] += row->lines;
	}
	return 0;
}

static int chart_layers(struct charts *x, const char *name,
			const char *share_name, size_t sub, const char *what)
{
	const struct snapshots *s = x->t->history;
	struct layers L = { 0 };
	uint64_t *counts = NULL, *totals = NULL;
	char title[512], sub_title[512];
	int rc;

	if ((rc = layers_counts(&counts, &totals, s, x->t->nreleases, sub)))
		goto done;
	L.counts = counts;
	L.totals = totals;
	L.title = title;
	L.subtitle = sub_title;
	snprintf(title, sizeof(title), "%s by the release that wrote them, at "
		 "each %s", what, s->when == SNAPSHOTS_RELEASES ? "release" :
		 snapshots_when_name(s->when));
	snprintf(sub_title, sizeof(sub_title), "Lines at %zu snapshots up to "
		 "%s, each exactly as git blame gives them there; oldest "
		 "release at the bottom", s->n, s->list[s->n - 1].name);
	if ((rc = chart_emit(x, name, draw_layers, &L)))
		goto done;
	L.share = 1;
	snprintf(title, sizeof(title), "%s by the release that wrote them, "
		 "at each %s, in shares", what, s->when == SNAPSHOTS_RELEASES ?
		 "release" : snapshots_when_name(s->when));
	snprintf(sub_title, sizeof(sub_title), "The same at 100%%: the share "
		 "of each release in the lines of each snapshot");
	rc = chart_emit(x, share_name, draw_layers, &L);
done:
	free(counts);
	free(totals);
	return rc;
}

/* The subsystem of snapshots `s` that is directory `path`, or SIZE_MAX. */
static size_t history_subsystem(const struct snapshots *s, const char *path)
{
	size_t lo = 0, hi = s->nsubsystems;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->subsystems[mid], path);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/*
 * img/history*, img/survival*, and the layers of each subsystem at REV
 * that the snapshots hold (its page shows them).
 */
int chart_history(struct charts *x)
{
	const struct snapshots *s = x->t->history;
	char *name = NULL, *share = NULL, what[600];
	size_t i, sub;
	int rc = 0;

	if (!s || !s->n)
		return 0;
	if ((rc = chart_layers(x, "history", "history-share", SIZE_MAX,
			       "Lines")) ||
	    (rc = chart_emit(x, "survival", draw_survival, NULL)))
		return rc;
	for (i = 1; i < x->t->ndirs && !rc; i++) {
		const char *path = x->t->dirs[i].path;

		if (x->t->dirs[i].level != 1 ||
		    (sub = history_subsystem(s, path)) == SIZE_MAX)
			continue;
		if ((rc = names_get(&name, x->names, path,
				    NAMES_HISTORY_CHART)) < 0)
			break;
		if (asprintf(&share, "%s@share", name) < 0) {
			share = NULL;
			rc = error_oom();
		} else {
			snprintf(what, sizeof(what), "%.500s%s",
				 strcmp(path, ".") ? path : "Root files",
				 strcmp(path, ".") ? "/" : "");
			rc = chart_layers(x, name, share, sub, what);
		}
		free(name);
		free(share);
		name = share = NULL;
	}
	return rc;
}
