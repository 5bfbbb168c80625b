/*
 * chart subsystems: the top-level directories as rows of horizontal
 * bars: their share of first-release code (img/subsystems) and each as a
 * 100% bar of releases (img/subsystems-stack).
 */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/util.h"

int chart_row_label(char *buf, size_t size, const struct row *r)
{
	if (!r->path)
		snprintf(buf, size, "%zu others", r->nothers);
	else if (!strcmp(r->path, "."))
		snprintf(buf, size, "(root files)");
	else
		return 0;
	return 1;
}

static int cmp_lines_desc(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->lines != y->lines)
		return x->lines < y->lines ? 1 : -1;
	return strcmp(x->path, y->path);
}

static int cmp_share_desc(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->first_share != y->first_share)
		return x->first_share < y->first_share ? 1 : -1;
	return cmp_lines_desc(a, b);
}

void chart_rows_release(struct rows *r)
{
	free(r->v);
	free(r->others);
	memset(r, 0, sizeof(*r));
}

/*
 * The subsystems, by share of first-release code. When more than `max`
 * do not fit, the largest max - 1 stay and the others share a last row.
 */
int chart_rows_build(struct rows *out, const struct tally *t, size_t max)
{
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < t->ndirs; i++)
		n += t->dirs[i].level == 1;
	if (!n)
		return 0;
	out->v = calloc(n, sizeof(*out->v));
	if (!out->v)
		return error_oom();
	for (i = 1; i < t->ndirs; i++) {
		const struct tally_dir *d = &t->dirs[i];
		struct row *r;

		if (d->level != 1)
			continue;
		r = &out->v[out->n++];
		r->path = d->path;
		r->lines = d->lines;
		r->by_release = d->by_release;
		r->first_share = d->first_share;
		r->first = chart_first_lines(t, d);
	}
	if (max < 2)
		max = 2;
	if (out->n > max) {
		struct row *o;
		size_t j, k;

		qsort(out->v, out->n, sizeof(*out->v), cmp_lines_desc);
		out->others = calloc(t->nreleases ? t->nreleases : 1,
				     sizeof(uint64_t));
		if (!out->others) {
			chart_rows_release(out);
			return error_oom();
		}
		o = &out->v[max - 1];
		for (j = max - 1; j < out->n; j++) {
			const struct row *r = &out->v[j];

			for (k = 0; k < t->nreleases; k++)
				out->others[k] += r->by_release[k];
		}
		o->nothers = out->n - (max - 1);
		o->path = NULL;
		o->lines = 0;
		for (k = 0; k < t->nreleases; k++)
			o->lines += out->others[k];
		o->by_release = out->others;
		o->first = t->nreleases ? out->others[0] : 0;
		o->first_share = o->lines && t->nreleases
			? 100.0 * (double)out->others[0] / (double)o->lines
			: 0;
		out->n = max;
		qsort(out->v, max - 1, sizeof(*out->v), cmp_share_desc);
	} else {
		qsort(out->v, out->n, sizeof(*out->v), cmp_share_desc);
	}
	return 0;
}

/*
 * Rows the charts have room for at height h, at 13px a row or more:
 * what is left of h below the title, legend and axis.
 */
size_t chart_rows_max(double h)
{
	double n = floor((h - 150) / 13);

	return n < 3 ? 3 : (size_t)n;
}

/* Each bar's value just after its end, on a patch of background. */
static int subsystems_values(struct chart *c, const struct hbars *h,
			     double xmax)
{
	int rc;

	for (size_t i = 0; i < c->rows->n; i++) {
		const struct row *r = &c->rows->v[i];
		double y0, y1, x1 = chart_share_x(h, r->first_share, xmax);
		struct text v;

		chart_hbars_row(h, i, &y0, &y1);
		if ((rc = chart_text_make(&v, c, F_VALUE, 0,
					  util_share(r->first, r->lines).s, 0,
					  PANGO_ELLIPSIZE_NONE)))
			return rc;
		chart_fill_rect(c, floor(x1 + 2), floor((y0 + y1 - v.h) / 2),
				ceil(x1 + 6 + v.w), ceil((y0 + y1 + v.h) / 2),
				c->th->bg);
		chart_text_draw(c, &v, x1 + 4, (y0 + y1) / 2, 0, 0.5,
				c->th->muted);
		chart_text_free(&v);
	}
	return 0;
}

/*
 * The share of first-release code per subsystem, with the whole tree's
 * as a dashed reference line labelled above the plot. With no code from
 * the first release at all there is nothing to refer to: no line, and
 * its band goes to the rows; the axis then runs to 100%.
 */
static int draw_subsystems(struct chart *c, const void *arg)
{
	const struct tally *t = c->t;
	const struct rows *rows = c->rows;
	struct hbars h = { 0 };
	struct text reflab = { 0 }, xtitle = { 0 };
	double top, bottom, maxv, step, xmax, ref, value_w, tick_h;
	char title[256], sub[512], buf[128];
	struct util_num pct;
	int rc;

	(void)arg;
	ref = t->ndirs ? t->dirs[0].first_share
		       : (t->nreleases ? t->releases[0].share : 0);
	pct = t->ndirs ? util_share(chart_first_lines(t, &t->dirs[0]),
				    t->dirs[0].lines)
		       : util_share(t->nreleases ? t->releases[0].lines : 0,
				    t->total_lines);
	snprintf(title, sizeof(title), "Code from %s by subsystem",
		 chart_first_name(t));
	snprintf(sub, sizeof(sub),
		 "Share of each top-level directory's lines at %s that date "
		 "back to %s",
		 chart_rev_of(c->info), chart_first_name(t));
	rc = chart_draw_frame(c, title, sub, &top, &bottom);
	if (rc)
		return rc;
	if (!rows->n)
		return chart_draw_message(c, "no directories", top, bottom);

	maxv = ref;
	for (size_t i = 0; i < rows->n; i++)
		maxv = fmax(maxv, rows->v[i].first_share);
	if (!(maxv > 0))
		maxv = 100;
	step = chart_nice_step(maxv, c->w < 560 ? 4 : 5);
	xmax = fmin(chart_nice_max(maxv, step), 100);
	if (xmax < maxv)
		xmax = maxv;

	if ((rc = chart_hbars_labels(&h, c)) ||
	    (rc = chart_text_width(c, F_VALUE, 0, "100.0%", &value_w)) ||
	    (rc = chart_text_height(c, F_TICK, &tick_h)))
		goto done;
	snprintf(buf, sizeof(buf), "share of lines from %s",
		 chart_first_name(t));
	if ((rc = chart_text_make(&xtitle, c, F_AXIS, 0, buf, c->w - 2 * PAD,
				  PANGO_ELLIPSIZE_END)))
		goto done;
	snprintf(buf, sizeof(buf), "whole tree %s", pct.s);
	if (ref > 0 && (rc = chart_text_make(&reflab, c, F_VALUE, 0, buf, 0,
					     PANGO_ELLIPSIZE_NONE)))
		goto done;

	h.pl = round(PAD + h.label_w + 9);
	h.pr = round(c->w - PAD - value_w - 6);
	h.pt = round(top + (ref > 0 ? reflab.h + 6 : 2));
	h.pb = round(bottom - xtitle.h - 6 - tick_h - 8);
	chart_hbars_fit(&h);
	c->spare = h.spare;
	if (h.pr - h.pl < 40 || h.pitch < 2) {
		rc = error_set("chart 'subsystems' has no room for its plot");
		goto done;
	}

	if ((rc = chart_subsystems_axis(c, &h, step, xmax, tick_h, &xtitle)))
		goto done;
	for (size_t i = 0; i < rows->n; i++) {
		double y0, y1;
		double x1 = chart_share_x(&h, rows->v[i].first_share, xmax);

		chart_hbars_row(&h, i, &y0, &y1);
		chart_fill_rect(c, h.pl, y0, x1, y1,
				chart_release_rgb(t, c->th, 0));
	}
	chart_hbars_draw_labels(c, &h);
	chart_vline(c, h.pl - 1, h.pt, h.pb, c->th->axis);

	/* the whole tree over the bars, the values over it */
	if (ref > 0) {
		double col = round(h.pl + ref / xmax * (h.pr - h.pl)) - 1;
		double lx = col + 0.5;

		chart_vline_dashed(c, col, h.pt - 3, h.pb, c->th->text, 4, 3);
		lx = fmax(lx, PAD + reflab.w / 2);
		lx = fmin(lx, c->w - PAD - reflab.w / 2);
		chart_text_draw(c, &reflab, lx, h.pt - 4, 0.5, 1, c->th->text);
	}
	rc = subsystems_values(c, &h, xmax);
done:
	chart_hbars_release(&h);
	chart_text_free(&reflab);
	chart_text_free(&xtitle);
	return rc;
}

/*
 * Beyond LEGEND_SWATCHES releases, the legend's ramp names only a few:
 * each release named in its widest segment, where its name fits.
 */
static int stack_names(struct chart *c, const struct hbars *h)
{
	const struct tally *t = c->t;
	const struct rows *rows = c->rows;
	double pw = h->pr - h->pl;
	size_t i, r;
	int rc = 0;

	/* the unreleased bucket (past c->nrel) has its own swatch */
	for (r = 0; r < c->nrel && !rc; r++) {
		double best = 0, bx = 0, by = 0, y0, y1;
		struct band_name b;

		for (i = 0; i < rows->n; i++) {
			const struct row *row = &rows->v[i];
			uint64_t cum = 0;
			double a, e;
			size_t k;

			if (!row->lines || !row->by_release[r])
				continue;
			for (k = 0; k < r; k++)
				cum += row->by_release[k];
			a = round(h->pl + pw * (double)cum / (double)row->lines);
			cum += row->by_release[r];
			e = round(h->pl + pw * (double)cum / (double)row->lines);
			chart_hbars_row(h, i, &y0, &y1);
			if (e - a > best) {
				best = e - a;
				bx = (a + e) / 2;
				by = (y0 + y1) / 2;
			}
		}
		if (best <= 0)
			continue;
		if ((rc = chart_band_name_make(&b, c, r)))
			break;
		chart_hbars_row(h, 0, &y0, &y1);
		if (b.t.w + 4 <= best && b.ink_h + 1 <= y1 - y0)
			chart_band_name_draw(c, &b, bx, by,
					     chart_release_rgb(t, c->th, r));
		chart_text_free(&b.t);
	}
	return rc;
}

static int draw_subsystems_stack(struct chart *c, const void *arg)
{
	const struct tally *t = c->t;
	const struct theme *th = c->th;
	const struct rows *rows = c->rows;
	struct hbars h = { 0 };
	struct text xtitle = { 0 };
	double top, bottom, lines_w = 0, tick_h, legend_h, pw, w;
	char title[256], sub[512], buf[64];
	size_t i, r;
	int rc;

	(void)arg;
	snprintf(title, sizeof(title), "Subsystems by release");
	snprintf(sub, sizeof(sub),
		 "Each top-level directory's lines at %s by the release that "
		 "wrote them, oldest first",
		 chart_rev_of(c->info));
	rc = chart_draw_frame(c, title, sub, &top, &bottom);
	if (rc)
		return rc;
	if (!rows->n)
		return chart_draw_message(c, "no directories", top, bottom);

	if ((rc = chart_draw_legend(c, top - 2, &legend_h)))
		goto done;
	if ((rc = chart_hbars_labels(&h, c)) ||
	    (rc = chart_text_height(c, F_TICK, &tick_h)))
		goto done;
	for (i = 0; i < rows->n; i++) {
		chart_fmt_short(buf, sizeof(buf), rows->v[i].lines);
		if ((rc = chart_text_width(c, F_VALUE, 0, buf, &w)))
			goto done;
		lines_w = fmax(lines_w, w);
	}
	if ((rc = chart_text_width(c, F_VALUE, 0, "lines", &w)))
		goto done;
	lines_w = fmax(lines_w, w);
	if ((rc = chart_text_make(&xtitle, c, F_AXIS, 0, "share of lines", 0,
				  PANGO_ELLIPSIZE_NONE)))
		goto done;

	h.pl = round(PAD + h.label_w + 9);
	h.pr = round(c->w - PAD - lines_w - 7);
	h.pt = round(top + legend_h + 14);
	h.pb = round(bottom - xtitle.h - 6 - tick_h - 8);
	chart_hbars_fit(&h);
	c->spare = h.spare;
	pw = h.pr - h.pl;
	if (pw < 40 || h.pitch < 2) {
		rc = error_set(
			"chart 'subsystems-stack' has no room for its plot");
		goto done;
	}

	for (i = 0; i < rows->n; i++) {
		const struct row *row = &rows->v[i];
		uint64_t cum = 0;
		double y0, y1;

		chart_hbars_row(&h, i, &y0, &y1);
		for (r = 0; r < t->nreleases && row->lines; r++) {
			double a = round(h.pl + pw * (double)cum /
							(double)row->lines);
			double b;

			cum += row->by_release[r];
			b = round(h.pl + pw * (double)cum / (double)row->lines);
			chart_fill_rect(c, a, y0, b, y1,
					chart_release_rgb(t, th, r));
		}
		chart_fmt_short(buf, sizeof(buf), row->lines);
		if ((rc = chart_text_put(c, F_VALUE, 0, buf, 0, h.pr + 5,
					 (y0 + y1) / 2, 0, 0.5, th->muted, NULL,
					 NULL)))
			goto done;
	}
	if ((rc = chart_text_put(c, F_VALUE, 0, "lines", 0, h.pr + 5, h.pt - 3,
				 0, 1, th->muted, NULL, NULL)))
		goto done;
	if (c->nrel > LEGEND_SWATCHES && (rc = stack_names(c, &h)))
		goto done;
	chart_hbars_draw_labels(c, &h);
	chart_vline(c, h.pl - 1, h.pt, h.pb, th->axis);
	for (i = 0; i <= 4; i++) {
		double col = round(h.pl + pw * (double)i / 4) - 1;

		chart_vline(c, col, h.pb, h.pb + 4, th->axis);
		chart_fmt_tick(buf, sizeof(buf), 25.0 * (double)i);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, col + 0.5,
					 h.pb + 6,
					 0.5, 0, th->muted, NULL, NULL)))
			goto done;
	}
	chart_text_draw(c, &xtitle, h.pl + pw / 2, h.pb + 6 + tick_h + 5, 0.5,
			0, th->muted);
	rc = 0;
done:
	chart_hbars_release(&h);
	chart_text_free(&xtitle);
	return rc;
}

/* img/subsystems and img/subsystems-stack, as high as their rows need. */
int chart_subsystems(struct charts *x)
{
	int rc = chart_emit_fit(x, "subsystems", draw_subsystems, NULL, 1);

	return rc ? rc : chart_emit_fit(x, "subsystems-stack",
					draw_subsystems_stack, NULL, 1);
}
