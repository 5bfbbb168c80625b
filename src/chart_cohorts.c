/*
 * chart cohorts: lines by the calendar year they were last changed
 * (img/years), and unless --no-authors by author and organisation
 * (img/authors, img/orgs), ranked.
 */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/cohorts.h"
#include "strata/error.h"
#include "strata/util.h"

/* ------------------------------------------------------------------ */
/* Cohort charts: lines by calendar year, by author, by organisation */

/* Lines per calendar year, oldest on the left; years[i] labels bar i. */
struct yearly {
	const char *title, *subtitle;
	const int *years;
	const uint64_t *lines;
	size_t n;
	uint64_t total;
};

/* A vertical percent scale: its step, top and widest tick label. */
struct vscale {
	double step, max, tick_w, tick_h, value_h;
};

static int vscale_make(struct chart *c, struct vscale *v, double maxv)
{
	char buf[32];
	int rc;

	v->step = chart_nice_step(maxv, c->h < 360 ? 4 : 5);
	v->max = fmin(chart_nice_max(maxv, v->step), 100);
	if (v->max < maxv)
		v->max = maxv;
	v->tick_w = 0;
	for (size_t i = 0; v->step * (double)i <= v->max + 1e-9; i++) {
		double w;

		chart_fmt_tick(buf, sizeof(buf), v->step * (double)i);
		if ((rc = chart_text_width(c, F_TICK, 0, buf, &w)))
			return rc;
		v->tick_w = fmax(v->tick_w, w);
	}
	if ((rc = chart_text_height(c, F_TICK, &v->tick_h)))
		return rc;
	return chart_text_height(c, F_VALUE, &v->value_h);
}

/* Grid lines and ticks of a vertical scale from pb (0) up to pt. */
static int vscale_draw(struct chart *c, const struct vscale *v, double pl,
		       double pr, double pt, double pb,
		       const struct text *ytitle)
{
	int rc;

	if ((rc = chart_y_grid(c, v->step, v->max, pl, pr, pb, pb - pt)))
		return rc;
	chart_text_draw_up(c, ytitle, PAD + ytitle->h / 2,
			   pt + (pb - pt) / 2 - ytitle->w / 2, c->th->muted);
	return 0;
}

static double year_share(const struct yearly *y, size_t i)
{
	return 100.0 * (double)y->lines[i] / (double)y->total;
}

/* Every k-th year is named, k from 1, 2, 5, 10, ... as the slots allow. */
static size_t years_every(const struct bars *b, double label_w)
{
	static const size_t ks[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500 };
	size_t i;

	for (i = 0; i + 1 < sizeof(ks) / sizeof(*ks); i++)
		if ((double)ks[i] * b->slot >= label_w + 6)
			break;
	return ks[i];
}

/* Values over the bars, when the widest fits its slot. */
static int years_show_values(struct chart *c, const struct yearly *y,
			     const struct bars *b, int *show)
{
	int rc;

	*show = b->slot >= 24;
	for (size_t i = 0; *show && i < y->n; i++) {
		struct util_num v = util_share(y->lines[i], y->total);
		double w;

		if ((rc = chart_text_width(c, F_VALUE, 0, v.s, &w)))
			return rc;
		*show = w + 2 <= b->slot;
	}
	return 0;
}

static struct rgb year_rgb(const struct chart *c, size_t i, size_t n)
{
	double pos = n > 1 ? (double)i / (double)(n - 1) : 0;

	return chart_ramp(c->th->lo + (c->th->hi - c->th->lo) * pos);
}

static int years_bars(struct chart *c, const struct yearly *y,
		      const struct bars *b, const struct vscale *v,
		      double pt, double pb, int show_values)
{
	struct util_num share;
	int rc;

	for (size_t i = 0; i < y->n; i++) {
		double val = year_share(y, i), x0, x1;
		double y0 = round(pb - val / v->max * (pb - pt));

		if (y->lines[i] && y0 >= pb)
			y0 = pb - 1;
		chart_bar_edges(b, i, &x0, &x1);
		chart_fill_rect(c, x0, y0, x1, pb, year_rgb(c, i, y->n));
		if (!show_values || !y->lines[i])
			continue;
		share = util_share(y->lines[i], y->total);
		if ((rc = chart_text_put(c, F_VALUE, 0, share.s, 0,
					 (x0 + x1) / 2, y0 - 2, 0.5, 1,
					 c->th->muted, NULL, NULL)))
			return rc;
	}
	chart_hline(c, b->left, b->left + b->slot * (double)b->n, pb,
		    c->th->axis);
	return 0;
}

/* The years under their bars, every k-th, with a tick each. */
static int years_labels(struct chart *c, const struct yearly *y,
			const struct bars *b, size_t k, double pb)
{
	char buf[16];
	int rc;

	for (size_t i = 0; i < y->n; i++) {
		double x = chart_bar_centre(b, i);

		if (y->years[i] % (int)k)
			continue;
		chart_vline(c, floor(x), pb + 1, pb + 5, c->th->axis);
		snprintf(buf, sizeof(buf), "%d", y->years[i]);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, x, pb + 7, 0.5,
					 0, c->th->text, NULL, NULL)))
			return rc;
	}
	return 0;
}

/* The share of all lines by the calendar year of their commits. */
static int draw_years(struct chart *c, const void *arg)
{
	const struct yearly *y = arg;
	struct text ytitle = { 0 }, xtitle = { 0 };
	struct vscale v;
	struct bars b;
	double top, bottom, maxv = 0, label_w, pt, pb;
	int rc, show_values;

	if ((rc = chart_draw_frame(c, y->title, y->subtitle, &top, &bottom)))
		return rc;
	if (!y->n || !y->total)
		return chart_draw_message(c, "no lines", top, bottom);
	for (size_t i = 0; i < y->n; i++)
		maxv = fmax(maxv, year_share(y, i));
	if ((rc = vscale_make(c, &v, maxv)) ||
	    (rc = chart_text_width(c, F_TICK, 0, "0000", &label_w)) ||
	    (rc = chart_text_make(&ytitle, c, F_AXIS, 0, "share of lines", 0,
				  PANGO_ELLIPSIZE_NONE)) ||
	    (rc = chart_text_make(&xtitle, c, F_AXIS, 0, "year last changed", 0,
				  PANGO_ELLIPSIZE_NONE)))
		goto done;
	memset(&b, 0, sizeof(b));
	b.left = round(PAD + ytitle.h + 8 + v.tick_w + 7);
	b.n = b.nrel = y->n;
	b.slot = (round(c->w - PAD) - b.left) / (double)y->n;
	b.maxw = 72;
	if ((rc = years_show_values(c, y, &b, &show_values)))
		goto done;
	pb = round(bottom - xtitle.h - 6 - v.tick_h - 8);
	pt = round(top + (show_values ? v.value_h + 4 : v.tick_h / 2 + 2));
	if (pb - pt < 20) {
		rc = error_set("chart '%s' has no room for its plot", y->title);
		goto done;
	}
	if ((rc = vscale_draw(c, &v, b.left, round(c->w - PAD), pt, pb,
			      &ytitle)) ||
	    (rc = years_bars(c, y, &b, &v, pt, pb, show_values)) ||
	    (rc = years_labels(c, y, &b, years_every(&b, label_w), pb)))
		goto done;
	chart_text_draw(c, &xtitle, b.left + (c->w - PAD - b.left) / 2,
			pb + 8 + v.tick_h + 4, 0.5, 0, c->th->muted);
done:
	chart_text_free(&ytitle);
	chart_text_free(&xtitle);
	return rc;
}


static size_t ranked_rows(const struct ranked *r)
{
	return r->v->n > r->ntop ? r->ntop + 1 : r->v->n;
}

static uint64_t ranked_lines(const struct ranked *r, size_t i)
{
	uint64_t n = 0;

	if (i < r->ntop)
		return r->v->v[i].lines;
	for (size_t k = r->ntop; k < r->v->n; k++)
		n += r->v->v[k].lines;
	return n;
}

static double ranked_share(const struct ranked *r, size_t i)
{
	return 100.0 * (double)ranked_lines(r, i) / (double)r->total;
}

/* The names of the rows, shortened to 28% of the width at most. */
static int ranked_labels(struct chart *c, const struct ranked *r,
			 struct hbars *h)
{
	char buf[64];
	int rc;

	h->n = ranked_rows(r);
	h->labels = calloc(h->n ? h->n : 1, sizeof(*h->labels));
	if (!h->labels)
		return error_oom();
	h->label_w = 0;
	for (size_t i = 0; i < h->n; i++) {
		const char *name = i < r->ntop ? r->v->v[i].name : buf;

		if (i >= r->ntop) {
			snprintf(buf, sizeof(buf), "%s others",
				 util_count(r->v->n - r->ntop).s);
		}
		if ((rc = chart_text_make(&h->labels[i], c, F_LABEL,
					  i >= r->ntop,
					  *name ? name : "(no name)",
					  fmax(60, 0.28 * c->w),
					  PANGO_ELLIPSIZE_END)))
			return rc;
		h->label_w = fmax(h->label_w, h->labels[i].w);
	}
	return 0;
}

/* The bars, their names, and each value after its bar. */
static int ranked_bars(struct chart *c, const struct ranked *r,
		       const struct hbars *h, double xmax)
{
	struct rgb bar = chart_ramp(c->th->lo + 0.42 * (c->th->hi - c->th->lo));
	struct util_num share;
	int rc;

	for (size_t i = 0; i < h->n; i++) {
		int others = i >= r->ntop;
		double y0, y1, x1 = chart_share_x(h, ranked_share(r, i), xmax);

		chart_hbars_row(h, i, &y0, &y1);
		chart_fill_rect(c, h->pl, y0, x1, y1,
				others ? c->th->unreleased : bar);
		chart_text_draw(c, &h->labels[i], h->pl - 8, (y0 + y1) / 2, 1,
				0.5, others ? c->th->muted : c->th->text);
		share = util_share(ranked_lines(r, i), r->total);
		if ((rc = chart_text_put(c, F_VALUE, 0, share.s, 0, x1 + 4,
					 (y0 + y1) / 2, 0, 0.5, c->th->muted,
					 NULL, NULL)))
			return rc;
	}
	chart_vline(c, h->pl - 1, h->pt, h->pb, c->th->axis);
	return 0;
}

/* Horizontal bars of the top cohorts' shares of all lines. */
int chart_draw_ranked(struct chart *c, const void *arg)
{
	const struct ranked *r = arg;
	struct hbars h = { 0 };
	struct text xtitle = { 0 };
	double top, bottom, maxv = 0, step, xmax, value_w, tick_h;
	int rc;

	if ((rc = chart_draw_frame(c, r->title, r->subtitle, &top, &bottom)))
		return rc;
	if (!r->v->n || !r->total)
		return chart_draw_message(c, "no lines", top, bottom);
	for (size_t i = 0; i < ranked_rows(r); i++)
		maxv = fmax(maxv, ranked_share(r, i));
	step = chart_nice_step(maxv, c->w < 560 ? 4 : 5);
	xmax = fmax(fmin(chart_nice_max(maxv, step), 100), maxv);
	if ((rc = ranked_labels(c, r, &h)) ||
	    (rc = chart_text_width(c, F_VALUE, 0, "100.0%", &value_w)) ||
	    (rc = chart_text_height(c, F_TICK, &tick_h)) ||
	    (rc = chart_text_make(&xtitle, c, F_AXIS, 0,
				  r->xtitle ? r->xtitle : "share of lines", 0,
				  PANGO_ELLIPSIZE_NONE)))
		goto done;
	h.pl = round(PAD + h.label_w + 9);
	h.pr = round(c->w - PAD - value_w - 6);
	h.pt = round(top + 2);
	h.pb = round(bottom - xtitle.h - 6 - tick_h - 8);
	chart_hbars_fit(&h);
	c->spare = h.spare;
	if (h.pr - h.pl < 40 || h.pitch < 2) {
		rc = error_set("chart '%s' has no room for its plot", r->title);
		goto done;
	}
	if ((rc = chart_subsystems_axis(c, &h, step, xmax, tick_h,
					&xtitle)) == 0)
		rc = ranked_bars(c, r, &h, xmax);
done:
	chart_hbars_release(&h);
	chart_text_free(&xtitle);
	return rc;
}

/*
 * The years from the first to the last, a bar each, with none left out:
 * a gap in a history is worth seeing. A span too long to draw (a commit
 * dated 1970 or 2100 by a broken clock) keeps only the years with commits.
 */
#define YEARS_MAX_SPAN 150

static int years_fill(struct yearly *y, const struct cohort_view *v)
{
	int first = v->n ? atoi(v->v[0].name) : 0;
	int last = v->n ? atoi(v->v[v->n - 1].name) : 0;
	/* years from gmtime() fit an int; their difference may not */
	int whole = v->n && (long long)last - first < YEARS_MAX_SPAN;
	size_t n = whole ? (size_t)(last - first + 1) : v->n;
	int *years = calloc(n ? n : 1, sizeof(*years));
	uint64_t *lines = calloc(n ? n : 1, sizeof(*lines));

	if (!years || !lines) {
		free(years);
		free(lines);
		return error_oom();
	}
	for (size_t i = 0; whole && i < n; i++)
		years[i] = first + (int)i;
	for (size_t i = 0; i < v->n; i++) {
		size_t k = whole ? (size_t)(atoi(v->v[i].name) - first) : i;

		years[k] = atoi(v->v[i].name);
		lines[k] = v->v[i].lines;
	}
	y->years = years;
	y->lines = lines;
	y->n = n;
	return 0;
}

static int chart_years(struct charts *x)
{
	const struct cohorts *co = x->t->cohorts;
	struct yearly y = { 0 };
	struct util_num count = util_count(co->total_lines);
	char title[256], sub[512];
	int rc;

	if ((rc = years_fill(&y, &co->years)))
		return rc;
	snprintf(title, sizeof(title),
		 "Lines at %s by the year they were last changed",
		 chart_rev_of(x->info));
	snprintf(sub, sizeof(sub), "Share of all %s %s in %s by the year "
		 "(UTC) of the %s date of the commit git blame gives them",
		 count.s, co->total_lines == 1 ? "line" : "lines",
		 chart_repo_of(x->info), cohorts_date_name(co->date));
	y.title = title;
	y.subtitle = sub;
	y.total = co->total_lines;
	rc = chart_emit(x, "years", draw_years, &y);
	free((int *)y.years);
	free((uint64_t *)y.lines);
	return rc;
}

static int chart_ranked(struct charts *x, const char *name,
			const struct cohort_view *v, const char *what,
			const char *plural, const char *how)
{
	const struct cohorts *co = x->t->cohorts;
	struct ranked r = { 0 };
	struct util_num count = util_count(co->total_lines);
	struct util_num all = util_count(v->n);
	char title[256], sub[512];
	size_t fit = chart_rows_max(x->h) - 1;

	r.v = v;
	r.total = co->total_lines;
	r.ntop = fit < RANKED_TOP ? fit : RANKED_TOP;
	/* "1 others" would take the row of the one it stands for */
	if (v->n == r.ntop + 1)
		r.ntop++;
	snprintf(title, sizeof(title), "Lines at %s by %s",
		 chart_rev_of(x->info), what);
	snprintf(sub, sizeof(sub), "Share of all %s %s in %s by %s; the "
		 "top %zu of %s %s", count.s, co->total_lines == 1 ? "line" :
		 "lines", chart_repo_of(x->info), how,
		 r.ntop < v->n ? r.ntop : v->n, all.s, plural);
	r.title = title;
	r.subtitle = sub;
	return chart_emit_fit(x, name, chart_draw_ranked, &r, 1);
}

/* img/years*, and without --no-authors img/authors* and img/orgs*. */
int chart_cohorts(struct charts *x)
{
	const struct cohorts *co = x->t->cohorts;
	int rc;

	if (!co)
		return 0;
	if ((rc = chart_years(x)) || !co->has_authors)
		return rc;
	if ((rc = chart_ranked(x, "authors", &co->authors, "author",
			       "authors", "the author of the commit git "
			       "blame gives them (after .mailmap)")))
		return rc;
	return chart_ranked(x, "orgs", &co->orgs, "organisation",
			    "organisations", "the organisation of the "
			    "author of the commit git blame gives them");
}
