/*
 * chart: cairo bar charts of a tally, in SVG and PNG.
 *
 * Every chart is one drawing function working in CSS pixels; chart_emit()
 * runs it on an image surface at scale 1 and 2 and on an SVG surface.
 * Layout decisions come from pango measurements made with fixed font
 * options on a context of our own, whatever the surface, so the three
 * files have the same layout.
 *
 * Crisp edges: bars have whole-pixel edges; 1px lines are drawn at
 * half-pixel centres. A value v maps to the pixel edge Y(v) (or X(v));
 * a bar of value v covers the rows from Y(v) down to the baseline, and
 * the grid line of v is the row Y(v), so a bar ending on a grid value
 * covers its line and the row above it shows the background.
 */
#include "strata/chart.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/cohorts.h"
#include "strata/error.h"
#include "strata/names.h"
#include "strata/snapshots.h"

/* ------------------------------------------------------------------ */
/* Colours */

struct rgb {
	unsigned char r, g, b;
};

/*
 * viridis (matplotlib, CC0) sampled at 17 of its 256 entries; t of entry
 * k is k/255. Ordered, perceptually uniform, readable with the common
 * colour-vision deficiencies and in greyscale.
 */
static const double viridis[17][4] = {
	{ 0 / 255.0, 0.267004, 0.004874, 0.329415 },
	{ 16 / 255.0, 0.282327, 0.094955, 0.417331 },
	{ 32 / 255.0, 0.278826, 0.175490, 0.483397 },
	{ 48 / 255.0, 0.258965, 0.251537, 0.524736 },
	{ 64 / 255.0, 0.229739, 0.322361, 0.545706 },
	{ 80 / 255.0, 0.199430, 0.387607, 0.554642 },
	{ 96 / 255.0, 0.172719, 0.448791, 0.557885 },
	{ 112 / 255.0, 0.149039, 0.508051, 0.557250 },
	{ 128 / 255.0, 0.127568, 0.566949, 0.550556 },
	{ 144 / 255.0, 0.120638, 0.625828, 0.533488 },
	{ 160 / 255.0, 0.157851, 0.683765, 0.501686 },
	{ 176 / 255.0, 0.246070, 0.738910, 0.452024 },
	{ 192 / 255.0, 0.369214, 0.788888, 0.382914 },
	{ 208 / 255.0, 0.515992, 0.831158, 0.294279 },
	{ 224 / 255.0, 0.678489, 0.863742, 0.189503 },
	{ 240 / 255.0, 0.845561, 0.887322, 0.099702 },
	{ 255 / 255.0, 0.993248, 0.906157, 0.143936 },
};

struct theme {
	struct rgb bg, text, muted, grid, axis, unreleased;
	double lo, hi; /* the part of the ramp used, oldest to newest */
};

/*
 * Each theme leaves out the end of the ramp that would vanish into its
 * background: the palest yellows on white, the darkest purples on black.
 */
static const struct theme theme_light = {
	.bg = { 0xff, 0xff, 0xff },
	.text = { 0x1f, 0x23, 0x28 },
	.muted = { 0x5c, 0x63, 0x6b },
	.grid = { 0xe3, 0xe6, 0xea },
	.axis = { 0x6b, 0x72, 0x7a },
	.unreleased = { 0x9a, 0x9a, 0x9a },
	.lo = 0.0,
	.hi = 0.88,
};

static const struct theme theme_dark = {
	.bg = { 0x17, 0x1a, 0x1f },
	.text = { 0xe6, 0xe8, 0xeb },
	.muted = { 0xa3, 0xa9, 0xb1 },
	.grid = { 0x2e, 0x33, 0x3b },
	.axis = { 0x8b, 0x93, 0x9c },
	.unreleased = { 0x8a, 0x8a, 0x8a },
	.lo = 0.16,
	.hi = 1.0,
};

static unsigned char channel(double v)
{
	if (v <= 0)
		return 0;
	if (v >= 1)
		return 255;
	return (unsigned char)lround(v * 255);
}

static struct rgb ramp(double t)
{
	struct rgb c;
	size_t k = 0;
	double f;

	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	while (k + 2 < 17 && t > viridis[k + 1][0])
		k++;
	f = (t - viridis[k][0]) / (viridis[k + 1][0] - viridis[k][0]);
	c.r = channel(viridis[k][1] + f * (viridis[k + 1][1] - viridis[k][1]));
	c.g = channel(viridis[k][2] + f * (viridis[k + 1][2] - viridis[k][2]));
	c.b = channel(viridis[k][3] + f * (viridis[k + 1][3] - viridis[k][3]));
	return c;
}

/* Releases before the unreleased bucket. */
static size_t released_count(const struct tally *t)
{
	size_t n = t->nreleases;

	while (n && t->releases[n - 1].unreleased)
		n--;
	return n;
}

static struct rgb release_rgb(const struct tally *t, const struct theme *th,
			      size_t i)
{
	size_t n = released_count(t);
	double pos;

	if (i >= n)
		return th->unreleased;
	pos = n > 1 ? (double)i / (double)(n - 1) : 0;
	return ramp(th->lo + (th->hi - th->lo) * pos);
}

void chart_release_color(char out[8], const struct tally *t, size_t i,
			 int dark)
{
	struct rgb c = release_rgb(t, dark ? &theme_dark : &theme_light, i);

	snprintf(out, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}

/* ------------------------------------------------------------------ */
/* Numbers, formatted without the locale */

static void fmt_count(char *buf, size_t size, uint64_t v)
{
	char digits[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* 1234 -> "1.2k", 1234567 -> "1.2M". */
static void fmt_short(char *buf, size_t size, uint64_t v)
{
	static const char unit[] = { 'k', 'M', 'G', 'T' };
	uint64_t scale = 1000;
	size_t u = 0;
	uint64_t tenths;

	if (v < 1000) {
		snprintf(buf, size, "%" PRIu64, v);
		return;
	}
	while (u + 1 < sizeof(unit) && (v + scale / 2) / scale >= 1000) {
		scale *= 1000;
		u++;
	}
	tenths = (v * 10 + scale / 2) / scale;
	if (tenths >= 100)
		snprintf(buf, size, "%" PRIu64 "%c", (v + scale / 2) / scale,
			 unit[u]);
	else
		snprintf(buf, size, "%" PRIu64 ".%" PRIu64 "%c", tenths / 10,
			 tenths % 10, unit[u]);
}

/* A tick value: as many decimals as it has (up to 2), then "%". */
static void fmt_tick(char *buf, size_t size, double v)
{
	long long h = llround(v * 100);

	if (h % 100 == 0)
		snprintf(buf, size, "%lld%%", h / 100);
	else if (h % 10 == 0)
		snprintf(buf, size, "%lld.%lld%%", h / 100, (h % 100) / 10);
	else
		snprintf(buf, size, "%lld.%02lld%%", h / 100, h % 100);
}

/* A share with one decimal; a share too small for it is "<0.1%". */
static void fmt_share(char *buf, size_t size, double v)
{
	long long tenths = llround(v * 10);

	if (v > 0 && tenths == 0)
		snprintf(buf, size, "<0.1%%");
	else
		snprintf(buf, size, "%lld.%lld%%", tenths / 10, tenths % 10);
}

/*
 * The smallest step of 1, 2, 2.5 or 5 x 10^k giving at most `max` steps
 * over a range of percentages; 0.1 at least, as ticks have 2 decimals.
 */
static double nice_step(double range, int max)
{
	static const double mult[] = { 1, 2, 2.5, 5 };
	double p;
	size_t i;

	if (!(range > 0))
		return 1;
	if (range < 0.1 * max)
		return 0.1;
	p = pow(10, floor(log10(range / max)));
	for (;;) {
		for (i = 0; i < 4; i++)
			if (range / (mult[i] * p) <= max + 1e-9)
				return mult[i] * p;
		p *= 10;
	}
}

static double nice_max(double v, double step)
{
	double m = ceil(v / step - 1e-9) * step;

	return m > 0 ? m : step;
}

/* ------------------------------------------------------------------ */
/* Text */

/*
 * Paths are bytes: make them valid UTF-8 for pango (which would warn on
 * stderr otherwise), with U+FFFD for bad bytes and control characters.
 */
static char *clean_text(const char *s)
{
	size_t len = strlen(s), o = 0;
	const char *p = s, *end = s + len;
	char *out = malloc(len * 3 + 1);

	if (!out)
		return NULL;
	while (p < end) {
		gunichar u = g_utf8_get_char_validated(p, end - p);

		if (u == (gunichar)-1 || u == (gunichar)-2 || u < 0x20 ||
		    (u >= 0x7f && u < 0xa0)) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			if (u == (gunichar)-1 || u == (gunichar)-2)
				p++;
			else
				p = g_utf8_next_char(p);
			continue;
		}
		{
			const char *next = g_utf8_next_char(p);

			memcpy(out + o, p, (size_t)(next - p));
			o += (size_t)(next - p);
			p = next;
		}
	}
	out[o] = '\0';
	return out;
}

enum font {
	F_TITLE,
	F_SUBTITLE,
	F_TICK,
	F_AXIS,
	F_VALUE,
	F_LABEL,
	F_SOURCE,
	F_LEGEND
};

static const struct {
	double px;
	int bold;
} fonts[] = {
	/* few sizes: each is a set of glyph outlines in every SVG */
	[F_TITLE] = { 15.5, 1 },
	[F_SUBTITLE] = { 11, 0 },
	[F_TICK] = { 10.5, 0 },
	[F_AXIS] = { 10.5, 0 },
	[F_VALUE] = { 10, 0 },
	[F_LABEL] = { 11, 0 },
	[F_SOURCE] = { 10, 0 },
	[F_LEGEND] = { 10.5, 0 },
};

struct text {
	PangoLayout *layout;
	double x, y;  /* logical rectangle's offset */
	double w, h;  /* and size */
};

struct chart {
	cairo_t *cr;
	PangoContext *pc;
	const struct tally *t;
	const struct report_info *info;
	const struct theme *th;
	double w, h;
	const struct rows *rows;
	size_t nrel;   /* releases before the unreleased bucket */
	double spare;  /* height left unused, set by charts that can shrink */
	const struct chart_groups *groups; /* bars of release charts */
};

static void text_free(struct text *t)
{
	if (t->layout)
		g_object_unref(t->layout);
	t->layout = NULL;
}

/* An array of n texts and the array (NULL: nothing). */
static void texts_free(struct text *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		text_free(&v[i]);
	free(v);
}

/* The logical box of a laid out text. */
static void text_measure(struct text *t)
{
	PangoRectangle log;

	pango_layout_get_extents(t->layout, NULL, &log);
	t->x = (double)log.x / PANGO_SCALE;
	t->y = (double)log.y / PANGO_SCALE;
	t->w = (double)log.width / PANGO_SCALE;
	t->h = (double)log.height / PANGO_SCALE;
}

/*
 * Lay out `s` in one line; with max_w > 0, ellipsize it to that width.
 * On failure *t is empty and the error is set.
 */
static int text_make(struct text *t, struct chart *c, enum font f,
		     int italic, const char *s, double max_w,
		     PangoEllipsizeMode mode)
{
	PangoFontDescription *d;
	char *clean;

	memset(t, 0, sizeof(*t));
	clean = clean_text(s);
	if (!clean)
		return error_oom();
	t->layout = pango_layout_new(c->pc);
	d = pango_font_description_new();
	pango_font_description_set_family_static(d, CHART_FONT);
	pango_font_description_set_absolute_size(d,
						 fonts[f].px * PANGO_SCALE);
	pango_font_description_set_weight(
		d, fonts[f].bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
	pango_font_description_set_style(
		d, italic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL);
	pango_layout_set_font_description(t->layout, d);
	pango_font_description_free(d);
	/* Right-to-left names must not move the layout within its width. */
	pango_layout_set_auto_dir(t->layout, FALSE);
	pango_layout_set_single_paragraph_mode(t->layout, TRUE);
	if (max_w > 0) {
		pango_layout_set_width(t->layout, (int)(max_w * PANGO_SCALE));
		pango_layout_set_ellipsize(t->layout, mode);
	}
	pango_layout_set_text(t->layout, clean, -1);
	free(clean);
	text_measure(t);
	return 0;
}

/*
 * Lay out `s` wrapped at words into at most `lines` lines of max_w, the
 * last one ellipsized if that is not enough: titles on narrow charts.
 */
static int text_make_lines(struct text *t, struct chart *c, enum font f,
			   const char *s, double max_w, int lines)
{
	int rc = text_make(t, c, f, 0, s, max_w, PANGO_ELLIPSIZE_END);

	if (rc)
		return rc;
	pango_layout_set_wrap(t->layout, PANGO_WRAP_WORD_CHAR);
	pango_layout_set_height(t->layout, -lines);
	text_measure(t);
	return 0;
}

static void set_rgb(struct chart *c, struct rgb col)
{
	cairo_set_source_rgb(c->cr, col.r / 255.0, col.g / 255.0,
			     col.b / 255.0);
}

/* Draw with the logical box's point (ax, ay) (0..1 of its size) at x, y. */
static void text_draw(struct chart *c, const struct text *t, double x,
		      double y, double ax, double ay, struct rgb col)
{
	set_rgb(c, col);
	cairo_move_to(c->cr, x - ax * t->w - t->x, y - ay * t->h - t->y);
	pango_cairo_show_layout(c->cr, t->layout);
}

/* Draw reading upwards, the end of the text at (x, y), centred on x. */
static void text_draw_up(struct chart *c, const struct text *t, double x,
			 double y, struct rgb col)
{
	cairo_save(c->cr);
	cairo_translate(c->cr, x, y);
	cairo_rotate(c->cr, -M_PI / 2);
	set_rgb(c, col);
	cairo_move_to(c->cr, -t->w - t->x, -t->h / 2 - t->y);
	pango_cairo_show_layout(c->cr, t->layout);
	cairo_restore(c->cr);
}

/* Make and draw a text at once. */
static int text_put(struct chart *c, enum font f, int italic, const char *s,
		    double max_w, double x, double y, double ax, double ay,
		    struct rgb col, double *w, double *h)
{
	struct text t;
	int rc = text_make(&t, c, f, italic, s, max_w, PANGO_ELLIPSIZE_END);

	if (rc)
		return rc;
	text_draw(c, &t, x, y, ax, ay, col);
	if (w)
		*w = t.w;
	if (h)
		*h = t.h;
	text_free(&t);
	return 0;
}

/* The height of a line of text in font f. */
static int text_height(struct chart *c, enum font f, double *h)
{
	struct text t;
	int rc = text_make(&t, c, f, 0, "0%", 0, PANGO_ELLIPSIZE_NONE);

	if (rc)
		return rc;
	*h = t.h;
	text_free(&t);
	return 0;
}

static int text_width(struct chart *c, enum font f, int italic,
		      const char *s, double *w)
{
	struct text t;
	int rc = text_make(&t, c, f, italic, s, 0, PANGO_ELLIPSIZE_NONE);

	if (rc)
		return rc;
	*w = t.w;
	text_free(&t);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shapes */

#define PAD 14.0

static void fill_rect(struct chart *c, double x0, double y0, double x1,
		      double y1, struct rgb col)
{
	if (x1 <= x0 || y1 <= y0)
		return;
	set_rgb(c, col);
	cairo_rectangle(c->cr, x0, y0, x1 - x0, y1 - y0);
	cairo_fill(c->cr);
}

/* A 1px line along pixel row `row` (or column), from x0 to x1. */
static void hline(struct chart *c, double x0, double x1, double row,
		  struct rgb col)
{
	set_rgb(c, col);
	cairo_set_line_width(c->cr, 1);
	cairo_move_to(c->cr, x0, row + 0.5);
	cairo_line_to(c->cr, x1, row + 0.5);
	cairo_stroke(c->cr);
}

static void vline(struct chart *c, double col_x, double y0, double y1,
		  struct rgb col)
{
	set_rgb(c, col);
	cairo_set_line_width(c->cr, 1);
	cairo_move_to(c->cr, col_x + 0.5, y0);
	cairo_line_to(c->cr, col_x + 0.5, y1);
	cairo_stroke(c->cr);
}

static void vline_dashed(struct chart *c, double col_x, double y0,
			 double y1, struct rgb col, double on, double off)
{
	double dash[2] = { on, off };

	cairo_set_dash(c->cr, dash, 2, 0);
	vline(c, col_x, y0, y1, col);
	cairo_set_dash(c->cr, NULL, 0, 0);
}

/* ------------------------------------------------------------------ */
/* Frame: background, title, subtitle, source line */

static const char *rev_of(const struct report_info *info)
{
	return info && info->rev && *info->rev ? info->rev : "HEAD";
}

static const char *repo_of(const struct report_info *info)
{
	return info && info->repo_name && *info->repo_name ? info->repo_name
							    : "repository";
}

static const char *first_name(const struct tally *t)
{
	return t->nreleases ? t->releases[0].name : "the first release";
}

/*
 * Draw the frame; *top and *bottom receive the band left for the chart.
 */
static int draw_frame(struct chart *c, const char *title,
		      const char *subtitle, double *top, double *bottom)
{
	const struct report_info *info = c->info;
	char src[512], commit[16] = "";
	struct text t;
	double y = PAD - 2, h;
	int rc;

	set_rgb(c, c->th->bg);
	cairo_paint(c->cr);

	rc = text_make_lines(&t, c, F_TITLE, title, c->w - 2 * PAD, 2);
	if (rc)
		return rc;
	text_draw(c, &t, PAD, y, 0, 0, c->th->text);
	y += t.h + 1;
	text_free(&t);
	if (subtitle) {
		rc = text_make_lines(&t, c, F_SUBTITLE, subtitle,
				     c->w - 2 * PAD, 2);
		if (rc)
			return rc;
		text_draw(c, &t, PAD, y, 0, 0, c->th->muted);
		h = t.h;
		text_free(&t);
		y += h;
	}
	*top = y + 10;

	if (info && info->commit[0] &&
	    strncmp(info->commit, rev_of(info), strlen(rev_of(info))))
		snprintf(commit, sizeof(commit), " (%.12s)", info->commit);
	snprintf(src, sizeof(src), "Source: %s at %s%s \xc2\xb7 strata",
		 repo_of(info), rev_of(info), commit);
	rc = text_make(&t, c, F_SOURCE, 0, src, c->w - 2 * PAD,
		       PANGO_ELLIPSIZE_MIDDLE);
	if (rc)
		return rc;
	text_draw(c, &t, c->w - PAD, c->h - 7, 1, 1, c->th->muted);
	*bottom = c->h - 7 - t.h - 4;
	text_free(&t);
	return 0;
}

static int draw_message(struct chart *c, const char *msg, double top,
			double bottom)
{
	return text_put(c, F_AXIS, 1, msg, c->w - 2 * PAD, c->w / 2,
			(top + bottom) / 2, 0.5, 0.5, c->th->muted, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* Rows of the subsystem charts */

struct row {
	const char *path;      /* NULL for the "others" row */
	size_t nothers;
	uint64_t lines;
	const uint64_t *by_release;
	double first_share;
};

struct rows {
	struct row *v;
	size_t n;
	uint64_t *others;      /* by_release of the "others" row (owned) */
};

static int row_label(char *buf, size_t size, const struct row *r)
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

static void rows_release(struct rows *r)
{
	free(r->v);
	free(r->others);
	memset(r, 0, sizeof(*r));
}

/*
 * The subsystems, by share of first-release code. When more than `max`
 * do not fit, the largest max - 1 stay and the others share a last row.
 */
static int rows_build(struct rows *out, const struct tally *t, size_t max)
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
			rows_release(out);
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
static size_t rows_max(double h)
{
	double n = floor((h - 150) / 13);

	return n < 3 ? 3 : (size_t)n;
}

/* ------------------------------------------------------------------ */
/* Groups of releases: the bars of a chart of many releases */

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/*
 * The end of the first `level` numbers of a version name: non-digits,
 * then numbers separated by '.' or '_' ("v2.6.39"); 0 when `s` is not
 * one. *got receives how many numbers that end takes in.
 */
static size_t version_cut(const char *s, size_t level, size_t *got)
{
	size_t i = strcspn(s, "0123456789"), k = 0;

	*got = 0;
	if (!s[i])
		return 0;
	for (;;) {
		while (is_digit(s[i]))
			i++;
		if (++k == level || (s[i] != '.' && s[i] != '_') ||
		    !is_digit(s[i + 1]))
			break;
		i++;
	}
	*got = k;
	return i;
}

/*
 * Give released release i the bar of the first with the same key, in
 * order of first appearance: the number of bars, or SIZE_MAX when that
 * is more than max.
 */
static size_t groups_assign(struct chart_groups *g, char *const *keys,
			    size_t nrel, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < nrel; i++) {
		for (j = 0; j < n && strcmp(keys[g->first[j]], keys[i]); j++)
			;
		if (j == n) {
			if (n == max)
				return SIZE_MAX;
			g->first[n++] = i;
		}
		g->of[i] = j;
	}
	return n;
}

static void keys_clear(char **keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(keys[i]);
		keys[i] = NULL;
	}
}

/* keys[i]: the first `level` numbers of release i's name, with its prefix. */
static int version_keys(char **keys, const struct tally *t, size_t nrel,
			size_t level)
{
	size_t i, got;

	keys_clear(keys, nrel);
	for (i = 0; i < nrel; i++) {
		const char *s = t->releases[i].name;

		keys[i] = strndup(s, version_cut(s, level, &got));
		if (!keys[i])
			return error_oom();
	}
	return 0;
}

/*
 * The label of bar j by version: the numbers all its names share, then
 * ".x" ("v2.6.x"); its name when it has one release.
 */
static int version_label(struct chart_groups *g, const struct tally *t,
			 size_t nrel, size_t j)
{
	const char *s = t->releases[g->first[j]].name, *sep = ".";
	size_t level, got, cut = 0, i, many = 0;

	for (level = 1;; level++) {
		size_t c = version_cut(s, level, &got);
		int all = got == level;

		for (i = g->first[j] + 1; i < nrel && all; i++) {
			const char *o = t->releases[i].name;

			if (g->of[i] == j)
				all = !strncmp(o, s, c) && !is_digit(o[c]);
		}
		if (!all)
			break;
		cut = c;
	}
	for (i = g->first[j] + 1; i < nrel; i++) {
		if (g->of[i] != j)
			continue;
		many = 1;
		if (t->releases[i].name[cut] == '_')
			sep = "_";
	}
	if (!many)
		g->labels[j] = strdup(s);
	else if (asprintf(&g->labels[j], "%.*s%sx", (int)cut, s, sep) < 0)
		g->labels[j] = NULL;
	return g->labels[j] ? 0 : error_oom();
}

/* By version (chart_groups_build): 1 when done, 0 when not possible. */
static int groups_by_version(struct chart_groups *g, const struct tally *t,
			     size_t nrel, size_t max, char **keys)
{
	size_t depth = 0, level, best = 0, got, n, j;
	int rc;

	for (j = 0; j < nrel; j++) {
		if (!version_cut(t->releases[j].name, SIZE_MAX, &got))
			return 0;
		depth = got > depth ? got : depth;
	}
	for (level = 1; level <= depth; level++) {
		if ((rc = version_keys(keys, t, nrel, level)))
			return rc;
		n = groups_assign(g, keys, nrel, max);
		if (n == SIZE_MAX)
			break;
		if (n >= 2)
			best = level;
	}
	if (!best)
		return 0;
	if ((rc = version_keys(keys, t, nrel, best)))
		return rc;
	g->nrel = groups_assign(g, keys, nrel, max);
	g->n = g->nrel;
	for (j = 0; j < g->nrel; j++)
		if ((rc = version_label(g, t, nrel, j)))
			return rc;
	g->by = CHART_BY_VERSION;
	return 1;
}

static int year_of(int64_t t);

/* keys[i]: the first year of the span of `span` years of release i. */
static int year_keys(char **keys, const struct tally *t, size_t nrel,
		     int span)
{
	size_t i;

	keys_clear(keys, nrel);
	for (i = 0; i < nrel; i++) {
		const struct release *r = t->releases[i].release;
		int y = year_of(r->standing ? r->standing->date
					    : r->first_date);

		y -= ((y % span) + span) % span;
		if (asprintf(&keys[i], "%d", y) < 0) {
			keys[i] = NULL;
			return error_oom();
		}
	}
	return 0;
}

/* By year (chart_groups_build): 1 when done, 0 when not possible. */
static int groups_by_year(struct chart_groups *g, const struct tally *t,
			  size_t nrel, size_t max, char **keys)
{
	static const int spans[] = { 1, 2, 5, 10, 20, 50, 100, 1000 };
	size_t i, j, n = SIZE_MAX;
	int rc;

	for (i = 0; i < nrel; i++) {
		const struct release *r = t->releases[i].release;

		if (!r || (!r->first_date && !r->standing))
			return 0;
	}
	for (i = 0; i < sizeof(spans) / sizeof(*spans) && n > max; i++) {
		if ((rc = year_keys(keys, t, nrel, spans[i])))
			return rc;
		n = groups_assign(g, keys, nrel, max);
	}
	if (n < 2 || n > max)
		return 0;
	g->n = g->nrel = n;
	for (j = 0; j < n; j++) {
		const char *k = keys[g->first[j]];
		int y = atoi(k);

		if (spans[i - 1] == 1)
			g->labels[j] = strdup(k);
		else if (asprintf(&g->labels[j], "%d\xe2\x80\x93%d", y,
				  y + spans[i - 1] - 1) < 0)
			g->labels[j] = NULL;
		if (!g->labels[j])
			return error_oom();
	}
	g->by = CHART_BY_YEAR;
	return 1;
}

void chart_groups_release(struct chart_groups *g)
{
	size_t i;

	if (g->labels)
		for (i = 0; i < g->n; i++)
			free(g->labels[i]);
	free(g->labels);
	free(g->of);
	free(g->first);
	memset(g, 0, sizeof(*g));
}

/* A bar per release from release `from` on, after the bars so far. */
static int groups_each(struct chart_groups *g, const struct tally *t,
		       size_t from)
{
	size_t i;

	for (i = from; i < t->nreleases; i++) {
		size_t j = g->n++;

		g->of[i] = j;
		g->first[j] = i;
		if (!(g->labels[j] = strdup(t->releases[i].name)))
			return error_oom();
	}
	return 0;
}

static int groups_alloc(struct chart_groups *g, size_t n)
{
	memset(g, 0, sizeof(*g));
	g->of = calloc(n + 1, sizeof(*g->of));
	g->first = calloc(n + 1, sizeof(*g->first));
	g->labels = calloc(n + 1, sizeof(*g->labels));
	return g->of && g->first && g->labels ? 0 : error_oom();
}

/*
 * By version or by year, whichever gives more bars (version on a tie):
 * 130 releases v1.0..v2.64 over ten years make ten bars, not two. 1 when
 * done, 0 when neither can.
 */
static int groups_pick(struct chart_groups *out, const struct tally *t,
		       size_t nrel, size_t max, char **keys)
{
	struct chart_groups y;
	int v, rc;

	if ((v = groups_by_version(out, t, nrel, max, keys)) < 0)
		return v;
	if ((rc = groups_alloc(&y, t->nreleases)) ||
	    (rc = groups_by_year(&y, t, nrel, max, keys)) <= 0) {
		chart_groups_release(&y);
		return rc < 0 ? rc : v;
	}
	if (!v || y.nrel > out->nrel) {
		chart_groups_release(out);
		*out = y;
	} else {
		chart_groups_release(&y);
	}
	return 1;
}

int chart_groups_build(struct chart_groups *out, const struct tally *t,
		       size_t max)
{
	size_t nrel = released_count(t);
	char **keys = calloc(nrel + 1, sizeof(*keys));
	int rc;

	if ((rc = groups_alloc(out, t->nreleases)) || (!keys &&
	    (rc = error_oom())))
		goto done;
	if (max < 2)
		max = 2;
	if (nrel > max && (rc = groups_pick(out, t, nrel, max, keys)) < 0)
		goto done;
	out->n = out->nrel;
	if ((rc = groups_each(out, t, out->by == CHART_BY_RELEASE ? 0 : nrel)))
		goto done;
	if (out->by == CHART_BY_RELEASE)
		out->nrel = nrel;
done:
	if (keys)
		keys_clear(keys, nrel);
	free(keys);
	if (rc)
		chart_groups_release(out);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Chart: distribution of lines over releases (whole tree or a directory) */

struct dist {
	const char *title, *subtitle;
	const uint64_t *counts;  /* per release */
	uint64_t total;
};

/* Where bar i lies, in whole pixels. */
struct bars {
	double left, slot, gap_unrel, ux;  /* ux: first unreleased slot */
	size_t nrel, n;
	double maxw;
};

static double bar_slot_left(const struct bars *b, size_t i)
{
	if (i < b->nrel)
		return b->left + (double)i * b->slot;
	return b->ux + (double)(i - b->nrel) * b->slot;
}

static void bar_edges(const struct bars *b, size_t i, double *x0, double *x1)
{
	double l = round(bar_slot_left(b, i));
	double r = round(bar_slot_left(b, i) + b->slot);
	double g = 0, w;

	if (b->slot >= 3)
		g = fmax(1, round(b->slot * 0.22));
	*x0 = l + floor(g / 2);
	*x1 = r - (g - floor(g / 2));
	if (*x1 <= *x0)
		*x1 = *x0 + 1;
	w = *x1 - *x0;
	if (w > b->maxw) {
		*x0 += floor((w - b->maxw) / 2);
		*x1 = *x0 + b->maxw;
	}
}

static double bar_centre(const struct bars *b, size_t i)
{
	double x0, x1;

	bar_edges(b, i, &x0, &x1);
	return (x0 + x1) / 2;
}

/*
 * Every k-th release is labelled, and the unreleased bucket always, so
 * that the nearest release label before it may give way.
 */
static int label_shown(const struct bars *b, size_t i, size_t k,
		       double lab_h)
{
	if (i >= b->nrel)
		return 1;
	if (i % k)
		return 0;
	return k == 1 || b->nrel == b->n ||
	       bar_centre(b, b->nrel) - bar_centre(b, i) >= lab_h + 2;
}

/* The centre of an upright label under the first unreleased bar. */
static double unrel_label_x(const struct bars *b, const struct text *l,
			    double chart_w)
{
	return fmin(bar_centre(b, b->nrel), chart_w - PAD / 2 - l->w / 2);
}

/* The x labels of a distribution chart. */
struct xlabels {
	struct text *v;          /* per bar; only those drawn are laid out */
	size_t n, k;             /* every k-th release bar is labelled */
	int across;              /* written across, else turned upright */
	double h, band;          /* a line's height; the height they take */
};

static void xlabels_release(struct xlabels *L)
{
	texts_free(L->v, L->n);
	L->v = NULL;
}

static int xlabel_make(struct chart *c, const struct chart_groups *g,
		       struct xlabels *L, size_t i)
{
	if (L->v[i].layout)
		return 0;
	return text_make(&L->v[i], c, F_TICK, i >= g->nrel, g->labels[i],
			 fmin(130, 0.24 * c->h), PANGO_ELLIPSIZE_END);
}

/*
 * Across when every name fits under its bar, else turned upright and
 * thinned. Only names that are drawn are laid out: with hundreds of
 * releases, most are not.
 */
static int xlabels_layout(struct xlabels *L, struct chart *c,
			  const struct chart_groups *g, const struct bars *b)
{
	size_t i;
	int rc;

	L->n = g->n;
	L->k = 1;
	if (!(L->v = calloc(g->n ? g->n : 1, sizeof(*L->v))))
		return error_oom();
	if ((rc = text_height(c, F_TICK, &L->h)))
		return rc;
	L->across = b->slot >= 16;
	for (i = 0; L->across && i < g->n; i++) {
		if ((rc = xlabel_make(c, g, L, i)))
			return rc;
		if (i < b->nrel && L->v[i].w + 6 > b->slot)
			L->across = 0;
	}
	/* "unreleased" may reach into the gap before it and the margin */
	if (L->across && b->nrel < g->n) {
		const struct text *u = &L->v[b->nrel];
		double l = unrel_label_x(b, u, c->w) - u->w / 2;
		double r = b->nrel ? bar_centre(b, b->nrel - 1) +
					     L->v[b->nrel - 1].w / 2
				   : b->left;

		L->across = g->n == 1 || l >= r + 8;
	}
	L->band = L->h;
	if (L->across)
		return 0;
	L->k = (size_t)ceil((L->h + 2) / b->slot);
	for (L->band = 0, i = 0; i < g->n; i++) {
		if (!label_shown(b, i, L->k, L->h))
			continue;
		if ((rc = xlabel_make(c, g, L, i)))
			return rc;
		L->band = fmax(L->band, L->v[i].w);
	}
	return 0;
}

/* The labels under the bars, with ticks under the labelled ones. */
static void xlabels_draw(struct chart *c, const struct xlabels *L,
			 const struct bars *b, double pb)
{
	size_t i;

	for (i = 0; i < L->n; i++) {
		double x = bar_centre(b, i);
		int unrel = i >= b->nrel;
		struct rgb col = unrel ? c->th->muted : c->th->text;

		if (!label_shown(b, i, L->k, L->h))
			continue;
		vline(c, floor(x), pb + 1, pb + 5, c->th->axis);
		if (L->across)
			text_draw(c, &L->v[i],
				  unrel ? unrel_label_x(b, &L->v[i], c->w) : x,
				  pb + 7, 0.5, 0, col);
		else
			text_draw_up(c, &L->v[i], x, pb + 7, col);
	}
}

/* The slots of n bars from pl to pr, the unreleased ones after a gap. */
static void bars_place(struct bars *b, double pl, double pr, size_t n,
		       size_t nrel)
{
	double w = pr - pl;

	memset(b, 0, sizeof(*b));
	b->nrel = nrel;
	b->n = n;
	b->left = pl;
	if (nrel < n && nrel)
		b->gap_unrel = fmin(fmax(12, 0.8 * w / ((double)n + 0.8)), 48);
	b->slot = (w - b->gap_unrel) / (double)n;
	b->ux = pl + (double)nrel * b->slot + b->gap_unrel;
	b->maxw = 72;
}

static double dist_share(const struct dist *d, size_t i)
{
	return 100.0 * (double)d->counts[i] / (double)d->total;
}

/* Values over the bars when the widest fits its slot. */
static int dist_values_fit(struct chart *c, const struct dist *d,
			   const struct bars *b, int *fit)
{
	char buf[64];
	size_t i;
	double w;
	int rc;

	*fit = b->slot >= 24;
	for (i = 0; *fit && i < b->n; i++) {
		fmt_share(buf, sizeof(buf), dist_share(d, i));
		if ((rc = text_width(c, F_VALUE, 0, buf, &w)))
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
	*step = nice_step(maxv, c->h < 360 ? 4 : 5);
	*ymax = fmax(fmin(nice_max(maxv, *step), 100), maxv);
	*tick_w = 0;
	for (i = 0; *step * (double)i <= *ymax + 1e-9; i++) {
		fmt_tick(buf, sizeof(buf), *step * (double)i);
		if ((rc = text_width(c, F_TICK, 0, buf, &w)))
			return rc;
		*tick_w = fmax(*tick_w, w);
	}
	return 0;
}

/* Grid lines and y ticks of a plot from pb up to pb - ph. */
static int dist_grid(struct chart *c, double step, double ymax, double pl,
		     double pr, double pb, double ph)
{
	char buf[64];
	size_t i;
	int rc;

	for (i = 0; step * (double)i <= ymax + 1e-9; i++) {
		double v = step * (double)i;
		double row = round(pb - v / ymax * ph);

		if (i)
			hline(c, pl, pr, row, c->th->grid);
		fmt_tick(buf, sizeof(buf), v);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, pl - 7, row + 0.5, 1,
				   0.5, c->th->muted, NULL, NULL)))
			return rc;
	}
	return 0;
}

/* The bars, each in the colour of its first release, and their values. */
static int dist_bars(struct chart *c, const struct dist *d,
		     const struct chart_groups *g, const struct bars *b,
		     double pb, double ph, double ymax, int values)
{
	char buf[64];
	size_t i;
	int rc;

	for (i = 0; i < g->n; i++) {
		double v = dist_share(d, i);
		double x0, x1, y0 = round(pb - v / ymax * ph);

		if (d->counts[i] && y0 >= pb)
			y0 = pb - 1;
		bar_edges(b, i, &x0, &x1);
		fill_rect(c, x0, y0, x1, pb, release_rgb(c->t, c->th,
							 g->first[i]));
		if (!values || !d->counts[i])
			continue;
		fmt_share(buf, sizeof(buf), v);
		if ((rc = text_put(c, F_VALUE, 0, buf, 0, (x0 + x1) / 2,
				   y0 - 2, 0.5, 1, c->th->muted, NULL, NULL)))
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

	if ((rc = draw_frame(c, d->title, d->subtitle, &top, &bottom)))
		return rc;
	if (!g->n || !d->total)
		return draw_message(c, "no lines", top, bottom);
	if ((rc = dist_scale(c, d, g->n, &step, &ymax, &tick_w)) ||
	    (rc = text_height(c, F_TICK, &tick_h)) ||
	    (rc = text_height(c, F_VALUE, &value_h)) ||
	    (rc = text_make(&ytitle, c, F_AXIS, 0, "share of lines", 0,
			    PANGO_ELLIPSIZE_NONE)) ||
	    (rc = text_make(&xtitle, c, F_AXIS, 0, "release", 0,
			    PANGO_ELLIPSIZE_NONE)))
		goto done;
	pl = round(PAD + ytitle.h + 8 + tick_w + 7);
	pr = round(c->w - PAD);
	bars_place(&b, pl, pr, g->n, g->nrel);
	if ((rc = xlabels_layout(&L, c, g, &b)) ||
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
	if ((rc = dist_grid(c, step, ymax, pl, pr, pb, ph)))
		goto done;
	text_draw_up(c, &ytitle, PAD + ytitle.h / 2, pt + ph / 2 - ytitle.w / 2,
		     th->muted);
	if ((rc = dist_bars(c, d, g, &b, pb, ph, ymax, values)))
		goto done;
	hline(c, pl, pr, pb, th->axis);
	if (b.gap_unrel > 0)
		vline_dashed(c, floor(b.ux - b.gap_unrel / 2), pt, pb + 8,
			     th->axis, 2, 2);
	xlabels_draw(c, &L, &b, pb);
	text_draw(c, &xtitle, pl + (b.ux - pl) / 2, pb + 8 + L.band + 4, 0.5, 0,
		  th->muted);
done:
	xlabels_release(&L);
	text_free(&ytitle);
	text_free(&xtitle);
	return rc;
}

/* ------------------------------------------------------------------ */
/*
 * A bar per release, or per group of releases when there are too many
 * (c->groups), which the subtitle then says.
 */
static int draw_dist(struct chart *c, const void *arg)
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

/* ------------------------------------------------------------------ */
/* Horizontal bar layout shared by the two subsystem charts */

struct hbars {
	double pl, pr, pt, pb, pitch;
	double spare;           /* height the rows leave unused */
	double label_w;
	struct text *labels;
	size_t n;
};

static void hbars_release(struct hbars *h)
{
	texts_free(h->labels, h->n);
	h->labels = NULL;
}

static int hbars_labels(struct hbars *h, struct chart *c)
{
	const struct rows *rows = c->rows;
	size_t i;
	int rc;

	h->n = rows->n;
	h->labels = calloc(rows->n ? rows->n : 1, sizeof(*h->labels));
	if (!h->labels)
		return error_oom();
	h->label_w = 0;
	for (i = 0; i < rows->n; i++) {
		char buf[64];
		const struct row *r = &rows->v[i];
		int special = row_label(buf, sizeof(buf), r);

		rc = text_make(&h->labels[i], c, F_LABEL, !r->path,
			       special ? buf : r->path,
			       fmax(60, 0.28 * c->w), PANGO_ELLIPSIZE_MIDDLE);
		if (rc)
			return rc;
		h->label_w = fmax(h->label_w, h->labels[i].w);
	}
	return 0;
}

/*
 * Fit rows between pt and pb, at most 44 px apart; rows that leave room
 * are centred, and the room is in h->spare for the chart to shrink by.
 */
static void hbars_fit(struct hbars *h)
{
	double avail = h->pb - h->pt;

	h->pitch = h->n ? fmin(avail / (double)h->n, 44) : avail;
	h->spare = 0;
	if (h->n) {
		double used = h->pitch * (double)h->n;
		double shift = floor((avail - used) / 2);

		h->spare = avail - used;
		h->pt += shift;
		h->pb = round(h->pt + used);
	}
}

static void hbars_row(const struct hbars *h, size_t i, double *y0,
		      double *y1)
{
	double r0 = round(h->pt + (double)i * h->pitch);
	double r1 = round(h->pt + (double)(i + 1) * h->pitch);
	double th = round(fmin(fmax((r1 - r0) * 0.72, 1), 24));

	*y0 = r0 + floor((r1 - r0 - th) / 2);
	*y1 = *y0 + th;
}

static void hbars_draw_labels(struct chart *c, const struct hbars *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		double y0, y1;

		hbars_row(h, i, &y0, &y1);
		text_draw(c, &h->labels[i], h->pl - 8, (y0 + y1) / 2, 1, 0.5,
			  c->rows->v[i].path ? c->th->text : c->th->muted);
	}
}

/* ------------------------------------------------------------------ */
/* Chart: share of first-release code per subsystem */

/* The end of a bar of share v; a share above 0 shows at least 1px. */
static double share_x(const struct hbars *h, double v, double xmax)
{
	double x = round(h->pl + v / xmax * (h->pr - h->pl));

	return v > 0 && x <= h->pl ? h->pl + 1 : x;
}

/* The x axis of shares: grid, ticks and the axis title under the plot. */
static int subsystems_axis(struct chart *c, const struct hbars *h,
			   double step, double xmax, double tick_h,
			   const struct text *xtitle)
{
	double pw = h->pr - h->pl;
	char buf[32];
	int rc;

	for (size_t i = 0; step * (double)i <= xmax + 1e-9; i++) {
		double v = step * (double)i;
		double col = round(h->pl + v / xmax * pw) - 1;

		if (i)
			vline(c, col, h->pt, h->pb, c->th->grid);
		vline(c, col, h->pb, h->pb + 4, c->th->axis);
		fmt_tick(buf, sizeof(buf), v);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, col + 0.5, h->pb + 6,
				   0.5, 0, c->th->muted, NULL, NULL)))
			return rc;
	}
	text_draw(c, xtitle, h->pl + pw / 2, h->pb + 6 + tick_h + 5, 0.5, 0,
		  c->th->muted);
	return 0;
}

/* Each bar's value just after its end, on a patch of background. */
static int subsystems_values(struct chart *c, const struct hbars *h,
			     double xmax)
{
	char buf[32];
	int rc;

	for (size_t i = 0; i < c->rows->n; i++) {
		const struct row *r = &c->rows->v[i];
		double y0, y1, x1 = share_x(h, r->first_share, xmax);
		struct text v;

		hbars_row(h, i, &y0, &y1);
		fmt_share(buf, sizeof(buf), r->first_share);
		if ((rc = text_make(&v, c, F_VALUE, 0, buf, 0,
				    PANGO_ELLIPSIZE_NONE)))
			return rc;
		fill_rect(c, floor(x1 + 2), floor((y0 + y1 - v.h) / 2),
			  ceil(x1 + 6 + v.w), ceil((y0 + y1 + v.h) / 2),
			  c->th->bg);
		text_draw(c, &v, x1 + 4, (y0 + y1) / 2, 0, 0.5, c->th->muted);
		text_free(&v);
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
	char title[256], sub[512], buf[128], pct[32];
	int rc;

	(void)arg;
	ref = t->ndirs ? t->dirs[0].first_share
		       : (t->nreleases ? t->releases[0].share : 0);
	snprintf(title, sizeof(title), "Code from %s by subsystem",
		 first_name(t));
	snprintf(sub, sizeof(sub),
		 "Share of each top-level directory's lines at %s that date "
		 "back to %s",
		 rev_of(c->info), first_name(t));
	rc = draw_frame(c, title, sub, &top, &bottom);
	if (rc)
		return rc;
	if (!rows->n)
		return draw_message(c, "no directories", top, bottom);

	maxv = ref;
	for (size_t i = 0; i < rows->n; i++)
		maxv = fmax(maxv, rows->v[i].first_share);
	if (!(maxv > 0))
		maxv = 100;
	step = nice_step(maxv, c->w < 560 ? 4 : 5);
	xmax = fmin(nice_max(maxv, step), 100);
	if (xmax < maxv)
		xmax = maxv;

	if ((rc = hbars_labels(&h, c)) ||
	    (rc = text_width(c, F_VALUE, 0, "100.0%", &value_w)) ||
	    (rc = text_height(c, F_TICK, &tick_h)))
		goto done;
	snprintf(buf, sizeof(buf), "share of lines from %s", first_name(t));
	if ((rc = text_make(&xtitle, c, F_AXIS, 0, buf, c->w - 2 * PAD,
			    PANGO_ELLIPSIZE_END)))
		goto done;
	fmt_share(pct, sizeof(pct), ref);
	snprintf(buf, sizeof(buf), "whole tree %s", pct);
	if (ref > 0 && (rc = text_make(&reflab, c, F_VALUE, 0, buf, 0,
				       PANGO_ELLIPSIZE_NONE)))
		goto done;

	h.pl = round(PAD + h.label_w + 9);
	h.pr = round(c->w - PAD - value_w - 6);
	h.pt = round(top + (ref > 0 ? reflab.h + 6 : 2));
	h.pb = round(bottom - xtitle.h - 6 - tick_h - 8);
	hbars_fit(&h);
	c->spare = h.spare;
	if (h.pr - h.pl < 40 || h.pitch < 2) {
		rc = error_set("chart 'subsystems' has no room for its plot");
		goto done;
	}

	if ((rc = subsystems_axis(c, &h, step, xmax, tick_h, &xtitle)))
		goto done;
	for (size_t i = 0; i < rows->n; i++) {
		double y0, y1;

		hbars_row(&h, i, &y0, &y1);
		fill_rect(c, h.pl, y0, share_x(&h, rows->v[i].first_share,
					       xmax), y1,
			  release_rgb(t, c->th, 0));
	}
	hbars_draw_labels(c, &h);
	vline(c, h.pl - 1, h.pt, h.pb, c->th->axis);

	/* the whole tree over the bars, the values over it */
	if (ref > 0) {
		double col = round(h.pl + ref / xmax * (h.pr - h.pl)) - 1;
		double lx = col + 0.5;

		vline_dashed(c, col, h.pt - 3, h.pb, c->th->text, 4, 3);
		lx = fmax(lx, PAD + reflab.w / 2);
		lx = fmin(lx, c->w - PAD - reflab.w / 2);
		text_draw(c, &reflab, lx, h.pt - 4, 0.5, 1, c->th->text);
	}
	rc = subsystems_values(c, &h, xmax);
done:
	hbars_release(&h);
	text_free(&reflab);
	text_free(&xtitle);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Chart: each subsystem as a 100% bar of releases */

/*
 * The legend: a swatch and name per release when they fit on one line,
 * else a ramp between the oldest and newest names; the unreleased bucket
 * apart. Returns its height in *h.
 */
static int draw_legend(struct chart *c, double y, double *h)
{
	const struct tally *t = c->t;
	const struct theme *th = c->th;
	size_t n = t->nreleases, i;
	double sw = 10, x = PAD, total = 0, lh, avail = c->w - 2 * PAD;
	struct text *names = NULL;
	int rc;

	*h = 0;
	if (!n)
		return 0;
	names = calloc(n, sizeof(*names));
	if (!names)
		return error_oom();
	/* a swatch and a name each, if they can fit (names of 1 char: 7px) */
	if ((double)n * (sw + 4 + 7 + 12) > avail)
		total = avail + 12 + 1;
	for (i = 0; i < n && total - 12 <= avail; i++) {
		rc = text_make(&names[i], c, F_LEGEND, i >= c->nrel,
			       t->releases[i].name, 120, PANGO_ELLIPSIZE_END);
		if (rc)
			goto done;
		total += sw + 4 + names[i].w + 12;
	}
	if ((rc = text_height(c, F_LEGEND, &lh)))
		goto done;
	*h = lh;
	if (total - 12 <= avail) {
		for (i = 0; i < n; i++) {
			double sy = round(y + (lh - sw) / 2);

			fill_rect(c, x, sy, x + sw, sy + sw,
				  release_rgb(t, th, i));
			text_draw(c, &names[i], x + sw + 4, y, 0, 0,
				  i >= c->nrel ? th->muted : th->text);
			x = round(x + sw + 4 + names[i].w + 12);
		}
		rc = 0;
		goto done;
	}

	/* oldest [ramp] newest   [] unreleased */
	{
		size_t last = c->nrel ? c->nrel - 1 : 0;
		size_t ends[3] = { 0, last, c->nrel };
		double unrel_w = 0, rw, rx0, sy = round(y + (lh - sw) / 2);

		for (i = 0; i < 3; i++)
			if (ends[i] < n && !names[ends[i]].layout &&
			    (rc = text_make(&names[ends[i]], c, F_LEGEND,
					    ends[i] >= c->nrel,
					    t->releases[ends[i]].name, 120,
					    PANGO_ELLIPSIZE_END)))
				goto done;
		if (c->nrel < n)
			unrel_w = 18 + sw + 4 + names[c->nrel].w;
		text_draw(c, &names[0], x, y, 0, 0, th->text);
		rx0 = round(x + names[0].w + 6);
		rw = fmin(320, avail - (rx0 - PAD) - 6 - names[last].w -
				       unrel_w);
		if (rw < 20)
			rw = 20;
		for (i = 0; i < c->nrel; i++) {
			double a = round(rx0 + rw * (double)i /
						   (double)c->nrel);
			double b = round(rx0 + rw * (double)(i + 1) /
						   (double)c->nrel);

			fill_rect(c, a, sy, b, sy + sw, release_rgb(t, th, i));
		}
		x = rx0 + round(rw);
		text_draw(c, &names[last], x + 6, y, 0, 0, th->text);
		x = round(x + 6 + names[last].w + 18);
		if (c->nrel < n) {
			fill_rect(c, x, sy, x + sw, sy + sw,
				  release_rgb(t, th, c->nrel));
			text_draw(c, &names[c->nrel], x + sw + 4, y, 0, 0,
				  th->muted);
		}
	}
	rc = 0;
done:
	for (i = 0; i < n; i++)
		text_free(&names[i]);
	free(names);
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
		 rev_of(c->info));
	rc = draw_frame(c, title, sub, &top, &bottom);
	if (rc)
		return rc;
	if (!rows->n)
		return draw_message(c, "no directories", top, bottom);

	if ((rc = draw_legend(c, top - 2, &legend_h)))
		goto done;
	if ((rc = hbars_labels(&h, c)) ||
	    (rc = text_height(c, F_TICK, &tick_h)))
		goto done;
	for (i = 0; i < rows->n; i++) {
		fmt_short(buf, sizeof(buf), rows->v[i].lines);
		if ((rc = text_width(c, F_VALUE, 0, buf, &w)))
			goto done;
		lines_w = fmax(lines_w, w);
	}
	if ((rc = text_width(c, F_VALUE, 0, "lines", &w)))
		goto done;
	lines_w = fmax(lines_w, w);
	if ((rc = text_make(&xtitle, c, F_AXIS, 0, "share of lines", 0,
			    PANGO_ELLIPSIZE_NONE)))
		goto done;

	h.pl = round(PAD + h.label_w + 9);
	h.pr = round(c->w - PAD - lines_w - 7);
	h.pt = round(top + legend_h + 14);
	h.pb = round(bottom - xtitle.h - 6 - tick_h - 8);
	hbars_fit(&h);
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

		hbars_row(&h, i, &y0, &y1);
		for (r = 0; r < t->nreleases && row->lines; r++) {
			double a = round(h.pl + pw * (double)cum /
							(double)row->lines);
			double b;

			cum += row->by_release[r];
			b = round(h.pl + pw * (double)cum / (double)row->lines);
			fill_rect(c, a, y0, b, y1, release_rgb(t, th, r));
		}
		fmt_short(buf, sizeof(buf), row->lines);
		if ((rc = text_put(c, F_VALUE, 0, buf, 0, h.pr + 5,
				   (y0 + y1) / 2, 0, 0.5, th->muted, NULL,
				   NULL)))
			goto done;
	}
	if ((rc = text_put(c, F_VALUE, 0, "lines", 0, h.pr + 5, h.pt - 3, 0,
			   1, th->muted, NULL, NULL)))
		goto done;
	hbars_draw_labels(c, &h);
	vline(c, h.pl - 1, h.pt, h.pb, th->axis);
	for (i = 0; i <= 4; i++) {
		double col = round(h.pl + pw * (double)i / 4) - 1;

		vline(c, col, h.pb, h.pb + 4, th->axis);
		fmt_tick(buf, sizeof(buf), 25.0 * (double)i);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, col + 0.5, h.pb + 6,
				   0.5, 0, th->muted, NULL, NULL)))
			goto done;
	}
	text_draw(c, &xtitle, h.pl + pw / 2, h.pb + 6 + tick_h + 5, 0.5, 0,
		  th->muted);
	rc = 0;
done:
	hbars_release(&h);
	text_free(&xtitle);
	return rc;
}

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

/* The year of a date, UTC. */
static int year_of(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if ((int64_t)tt != t || !gmtime_r(&tt, &tm))
		return 1970;
	return tm.tm_year + 1900;
}

static int64_t year_start(int y)
{
	struct tm tm = { 0 };

	tm.tm_year = y - 1900;
	tm.tm_mday = 1;
	return (int64_t)timegm(&tm);
}

/*
 * The x axis: under release snapshots their names, upright and thinned
 * to what fits (REV always); under calendar snapshots, the years.
 * *band is the height the labels take.
 */
static int history_labels(struct chart *c, const double *xs, double pb,
			  int draw, double *band)
{
	const struct snapshots *s = c->t->history;
	double next = -1e9, lab_h, w;
	size_t k;
	int rc;

	if ((rc = text_height(c, F_TICK, &lab_h)))
		return rc;
	*band = lab_h;
	if (s->when != SNAPSHOTS_RELEASES) {
		int y0 = year_of(s->list[0].date), y1 = year_of(
			s->list[s->n - 1].date), step = 1, y;
		double span = xs[s->n - 1] - xs[0];

		while ((double)(y1 - y0) / step * 40 > span && step < 1000)
			step = step == 1 ? 2 : step == 2 ? 5 : step * 2;
		for (y = y0 - y0 % step + step; draw && y <= y1; y += step) {
			double d0 = (double)s->list[0].date;
			double d1 = (double)s->list[s->n - 1].date;
			double x = d1 > d0 ? xs[0] + ((double)year_start(y) -
					  d0) / (d1 - d0) * span : xs[0];
			char buf[16];

			if (x < xs[0] || x > xs[s->n - 1] + 0.5)
				continue;
			snprintf(buf, sizeof(buf), "%d", y);
			vline(c, floor(x), pb + 1, pb + 5, c->th->axis);
			if ((rc = text_put(c, F_TICK, 0, buf, 0, x, pb + 7, 0.5,
					   0, c->th->text, NULL, NULL)))
				return rc;
		}
		return 0;
	}
	*band = 0;
	for (k = s->n; k-- > 0;) {
		struct text t;

		if (!s->list[k].is_rev && xs[k] > next - lab_h - 2)
			continue;
		if ((rc = text_make(&t, c, F_TICK, s->list[k].is_rev,
				    s->list[k].name, fmin(110, 0.22 * c->h),
				    PANGO_ELLIPSIZE_END)))
			return rc;
		w = t.w;
		*band = fmax(*band, w);
		if (draw) {
			vline(c, floor(xs[k]), pb + 1, pb + 5, c->th->axis);
			text_draw_up(c, &t, fmin(xs[k], c->w - PAD / 2 -
						 lab_h / 2), pb + 7,
				     s->list[k].is_rev ? c->th->muted :
							 c->th->text);
		}
		text_free(&t);
		next = xs[k];
	}
	return 0;
}

/* The y axis of lines or shares: ticks, grid, and the widest tick. */
static void layers_tick(char *buf, size_t size, const struct layers *L,
			double v)
{
	if (L->share)
		fmt_tick(buf, size, v);
	else
		fmt_short(buf, size, (uint64_t)llround(v));
}

/*
 * A hairline in the background's colour along the top of the releases
 * below r (top[] holds their sums by now), so that neighbouring bands of
 * close colours stay apart.
 */
static void layers_edge(struct chart *c, const struct layers *L,
			const uint64_t *top, size_t r, const double *xs,
			double pb, double ph, double ymax)
{
	const struct snapshots *s = c->t->history;
	struct rgb bg = c->th->bg;
	size_t k;

	if (!r || s->n < 2)
		return;
	for (k = 0; k < s->n; k++) {
		double v = L->share ? (L->totals[k] ? 100.0 * (double)top[k] /
				       (double)L->totals[k] : 0) :
			   (double)top[k];
		double y = pb - v / ymax * ph;

		if (k)
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
 * The areas, newest release first, each from the baseline to its top
 * (what it and every older release hold), so that no seam shows between
 * neighbours. top[k] starts as snapshot k's whole and loses each release
 * once drawn.
 */
static int layers_fill(struct chart *c, const struct layers *L,
		       const double *xs, double pb, double ph, double ymax)
{
	const struct snapshots *s = c->t->history;
	size_t nrel = c->t->nreleases, r, k;
	uint64_t *top = malloc(s->n * sizeof(*top));

	if (!top)
		return error_oom();
	for (k = 0; k < s->n; k++)
		top[k] = L->totals[k];
	for (r = nrel; r-- > 0;) {
		int any = 0;

		for (k = 0; k < s->n && !any; k++)
			any = L->counts[k * nrel + r] != 0;
		if (!any)
			continue;
		set_rgb(c, release_rgb(c->t, c->th, r));
		cairo_move_to(c->cr, s->n == 1 ? xs[0] - 1 : xs[0], pb);
		for (k = 0; k < s->n; k++) {
			double v = L->share ? (L->totals[k] ? 100.0 *
				(double)top[k] / (double)L->totals[k] : 0) :
				(double)top[k];
			double y = pb - v / ymax * ph;

			if (s->n == 1)
				cairo_line_to(c->cr, xs[0] - 1, y);
			cairo_line_to(c->cr, xs[k], y);
			top[k] -= L->counts[k * nrel + r];
		}
		cairo_line_to(c->cr, xs[s->n - 1], pb);
		cairo_close_path(c->cr);
		cairo_fill(c->cr);
	}
	/* The edges over the areas, from the top down again. */
	for (k = 0; k < s->n; k++)
		top[k] = L->totals[k];
	for (r = nrel; r-- > 1;) {
		for (k = 0; k < s->n; k++)
			top[k] -= L->counts[k * nrel + r];
		layers_edge(c, L, top, r, xs, pb, ph, ymax);
	}
	free(top);
	return 0;
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

	if ((rc = draw_frame(c, L->title, L->subtitle, &top, &bottom)))
		return rc;
	for (k = 0; k < s->n; k++)
		maxv = fmax(maxv, (double)L->totals[k]);
	if (!maxv)
		return draw_message(c, "no lines", top, bottom);
	if ((rc = draw_legend(c, top - 2, &legend_h)))
		return rc;
	maxv = L->share ? 100 : maxv;
	step = nice_step(maxv, c->h < 360 ? 4 : 5);
	ymax = L->share ? 100 : nice_max(maxv, step);
	for (i = 0; step * (double)i <= ymax + 1e-9; i++) {
		layers_tick(buf, sizeof(buf), L, step * (double)i);
		if ((rc = text_width(c, F_TICK, 0, buf, &w)))
			return rc;
		tick_w = fmax(tick_w, w);
	}
	if ((rc = text_make(&ytitle, c, F_AXIS, 0, L->share ? "share of lines"
			    : "lines", 0, PANGO_ELLIPSIZE_NONE)))
		return rc;
	if (!(xs = malloc(s->n * sizeof(*xs)))) {
		rc = error_oom();
		goto done;
	}
	pl = round(PAD + ytitle.h + 8 + tick_w + 7);
	pr = round(c->w - PAD - 4);
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
			hline(c, pl, pr, row, th->grid);
		layers_tick(buf, sizeof(buf), L, v);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, pl - 7, row + 0.5, 1,
				   0.5, th->muted, NULL, NULL)))
			goto done;
	}
	hline(c, pl, pr, pb, th->axis);
	text_draw_up(c, &ytitle, PAD + ytitle.h / 2, pt + ph / 2 - ytitle.w / 2,
		     th->muted);
	rc = history_labels(c, xs, pb, 1, &band);
done:
	free(xs);
	text_free(&ytitle);
	return rc;
}

/* The releases whose curves stand out: the oldest and the newest three. */
static int survival_emphasis(const struct snapshots *s, size_t r,
			     size_t nrel)
{
	size_t first = nrel, shown = 0, i;

	for (i = 0; i < nrel; i++)
		if (s->survival[i].base != SNAPSHOT_NONE) {
			if (first == nrel)
				first = i;
		}
	if (r == first)
		return 1;
	for (i = nrel; i-- > r + 1;)
		if (s->survival[i].base != SNAPSHOT_NONE &&
		    s->survival[i].base + 1 < s->n)
			shown++;
	return shown < 3 && s->survival[r].base + 1 < s->n;
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
	return P->pb - fmin(snapshots_share(s, r, k), P->ymax) / P->ymax *
			       (P->pb - P->pt);
}

/* One release's curve, from its base snapshot on. */
static void survival_curve(struct chart *c, const struct survival_plot *P,
			   size_t r)
{
	const struct snapshots *s = c->t->history;
	size_t k;

	for (k = s->survival[r].base; k < s->n; k++) {
		double x = survival_x(P, s, r, k), y = survival_y(P, s, r, k);

		if (k == s->survival[r].base)
			cairo_move_to(c->cr, x, y);
		else
			cairo_line_to(c->cr, x, y);
	}
	cairo_stroke(c->cr);
}

/* The scales: time in years, months or days as the span asks; shares
 * up to 100%, or more (to 200%) when a release grew. */
static void survival_scales(struct survival_plot *P,
			    const struct snapshots *s)
{
	double span = 0, ymax = 100;
	size_t r, k;

	for (r = 0; r < s->nreleases; r++) {
		size_t b = s->survival[r].base;

		if (b == SNAPSHOT_NONE)
			continue;
		span = fmax(span, (double)s->list[s->n - 1].date -
				  (double)s->list[b].date);
		for (k = b; k < s->n; k++)
			ymax = fmax(ymax, snapshots_share(s, r, k));
	}
	P->ymax = fmin(200, ceil(ymax / 25) * 25);
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
	double xstep = nice_step(P->xmax, 8), v;
	char buf[32];
	int rc;

	for (v = 0; v <= P->ymax + 1e-9; v += 25) {
		double row = round(P->pb - v / P->ymax * (P->pb - P->pt));

		if (v > 0)
			hline(c, P->pl, P->pr, row, c->th->grid);
		fmt_tick(buf, sizeof(buf), v);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, P->pl - 7, row + 0.5,
				   1, 0.5, c->th->muted, NULL, NULL)))
			return rc;
	}
	for (v = 0; v <= P->xmax + 1e-9; v += xstep) {
		double col = round(P->pl + v / P->xmax * (P->pr - P->pl));

		vline(c, col, P->pb + 1, P->pb + 5, c->th->axis);
		snprintf(buf, sizeof(buf), "%g", v);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, col, P->pb + 7, 0.5,
				   0, c->th->muted, NULL, NULL)))
			return rc;
	}
	hline(c, P->pl, P->pr, P->pb, c->th->axis);
	return 0;
}

/* A label at the end of a bold curve. */
struct end_label {
	size_t r;
	double x, y;
};

static int end_label_cmp(const void *a, const void *b)
{
	const struct end_label *x = a, *y = b;

	if (x->y != y->y)
		return x->y < y->y ? -1 : 1;
	return x->r < y->r ? -1 : x->r > y->r;
}

/* The bold curves' names at their ends, moved apart where they meet. */
static int survival_labels(struct chart *c, const struct survival_plot *P)
{
	const struct snapshots *s = c->t->history;
	struct end_label v[4];
	size_t n = 0, r, i;
	double h;
	int rc;

	if ((rc = text_height(c, F_VALUE, &h)))
		return rc;
	for (r = 0; r < s->nreleases && n < 4; r++)
		if (s->survival[r].base != SNAPSHOT_NONE &&
		    survival_emphasis(s, r, s->nreleases))
			v[n++] = (struct end_label){ r,
				survival_x(P, s, r, s->n - 1),
				survival_y(P, s, r, s->n - 1) };
	qsort(v, n, sizeof(*v), end_label_cmp);
	for (i = 1; i < n; i++)
		v[i].y = fmax(v[i].y, v[i - 1].y + h);
	for (i = 0; i < n; i++) {
		int right = v[i].x + 4 > c->w - PAD - 40;

		if ((rc = text_put(c, F_VALUE, 0, c->t->releases[v[i].r].name,
				   90, right ? v[i].x - 4 : v[i].x + 4,
				   v[i].y, right, 0.5, c->th->text, NULL,
				   NULL)))
			return rc;
	}
	return 0;
}

static void survival_curves(struct chart *c, const struct survival_plot *P)
{
	const struct snapshots *s = c->t->history;
	size_t nrel = c->t->nreleases, r;
	int pass;

	cairo_save(c->cr);
	cairo_rectangle(c->cr, P->pl, P->pt - 2, P->pr - P->pl + 2,
			P->pb - P->pt + 2);
	cairo_clip(c->cr);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_ROUND);
	for (pass = 0; pass < 2; pass++)
		for (r = 0; r < nrel; r++) {
			struct rgb col = release_rgb(c->t, c->th, r);

			if (s->survival[r].base == SNAPSHOT_NONE ||
			    survival_emphasis(s, r, nrel) != pass)
				continue;
			cairo_set_source_rgba(c->cr, col.r / 255.0,
					      col.g / 255.0, col.b / 255.0,
					      pass ? 1.0 : 0.45);
			cairo_set_line_width(c->cr, pass ? 2.5 : 1.0);
			survival_curve(c, P, r);
		}
	cairo_restore(c->cr);
}

static int draw_survival(struct chart *c, const void *arg)
{
	const struct snapshots *s = c->t->history;
	struct survival_plot P;
	double top, bottom, tick_h, w;
	int rc;

	(void)arg;
	if ((rc = draw_frame(c, "How long each release's lines live",
			     "Share of each release's lines still there at "
			     "each later snapshot; the oldest and the newest "
			     "releases drawn bold", &top, &bottom)))
		return rc;
	survival_scales(&P, s);
	if ((rc = text_height(c, F_TICK, &tick_h)) ||
	    (rc = text_width(c, F_TICK, 0, "200%", &w)))
		return rc;
	P.pl = round(PAD + w + 8);
	P.pr = round(c->w - PAD - 60);
	P.pt = round(top + 6);
	P.pb = round(bottom - 2 * tick_h - 16);
	if (P.pb - P.pt < 20 || P.pr - P.pl < 40)
		return error_set("chart 'survival' has no room for its plot");
	if ((rc = draw_survival_axes(c, &P)) ||
	    (rc = text_put(c, F_AXIS, 0, P.unit_name, 0, (P.pl + P.pr) / 2,
			   P.pb + tick_h + 12, 0.5, 0, c->th->muted, NULL,
			   NULL)))
		return rc;
	survival_curves(c, &P);
	return survival_labels(c, &P);
}

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

	v->step = nice_step(maxv, c->h < 360 ? 4 : 5);
	v->max = fmin(nice_max(maxv, v->step), 100);
	if (v->max < maxv)
		v->max = maxv;
	v->tick_w = 0;
	for (size_t i = 0; v->step * (double)i <= v->max + 1e-9; i++) {
		double w;

		fmt_tick(buf, sizeof(buf), v->step * (double)i);
		if ((rc = text_width(c, F_TICK, 0, buf, &w)))
			return rc;
		v->tick_w = fmax(v->tick_w, w);
	}
	if ((rc = text_height(c, F_TICK, &v->tick_h)))
		return rc;
	return text_height(c, F_VALUE, &v->value_h);
}

/* Grid lines and ticks of a vertical scale from pb (0) up to pt. */
static int vscale_draw(struct chart *c, const struct vscale *v, double pl,
		       double pr, double pt, double pb,
		       const struct text *ytitle)
{
	char buf[32];
	int rc;

	for (size_t i = 0; v->step * (double)i <= v->max + 1e-9; i++) {
		double val = v->step * (double)i;
		double row = round(pb - val / v->max * (pb - pt));

		if (i)
			hline(c, pl, pr, row, c->th->grid);
		fmt_tick(buf, sizeof(buf), val);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, pl - 7, row + 0.5, 1,
				   0.5, c->th->muted, NULL, NULL)))
			return rc;
	}
	text_draw_up(c, ytitle, PAD + ytitle->h / 2,
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
	char buf[32];
	int rc;

	*show = b->slot >= 24;
	for (size_t i = 0; *show && i < y->n; i++) {
		double w;

		fmt_share(buf, sizeof(buf), year_share(y, i));
		if ((rc = text_width(c, F_VALUE, 0, buf, &w)))
			return rc;
		*show = w + 2 <= b->slot;
	}
	return 0;
}

static struct rgb year_rgb(const struct chart *c, size_t i, size_t n)
{
	double pos = n > 1 ? (double)i / (double)(n - 1) : 0;

	return ramp(c->th->lo + (c->th->hi - c->th->lo) * pos);
}

static int years_bars(struct chart *c, const struct yearly *y,
		      const struct bars *b, const struct vscale *v,
		      double pt, double pb, int show_values)
{
	char buf[32];
	int rc;

	for (size_t i = 0; i < y->n; i++) {
		double val = year_share(y, i), x0, x1;
		double y0 = round(pb - val / v->max * (pb - pt));

		if (y->lines[i] && y0 >= pb)
			y0 = pb - 1;
		bar_edges(b, i, &x0, &x1);
		fill_rect(c, x0, y0, x1, pb, year_rgb(c, i, y->n));
		if (!show_values || !y->lines[i])
			continue;
		fmt_share(buf, sizeof(buf), val);
		if ((rc = text_put(c, F_VALUE, 0, buf, 0, (x0 + x1) / 2,
				   y0 - 2, 0.5, 1, c->th->muted, NULL, NULL)))
			return rc;
	}
	hline(c, b->left, b->left + b->slot * (double)b->n, pb, c->th->axis);
	return 0;
}

/* The years under their bars, every k-th, with a tick each. */
static int years_labels(struct chart *c, const struct yearly *y,
			const struct bars *b, size_t k, double pb)
{
	char buf[16];
	int rc;

	for (size_t i = 0; i < y->n; i++) {
		double x = bar_centre(b, i);

		if (y->years[i] % (int)k)
			continue;
		vline(c, floor(x), pb + 1, pb + 5, c->th->axis);
		snprintf(buf, sizeof(buf), "%d", y->years[i]);
		if ((rc = text_put(c, F_TICK, 0, buf, 0, x, pb + 7, 0.5, 0,
				   c->th->text, NULL, NULL)))
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

	if ((rc = draw_frame(c, y->title, y->subtitle, &top, &bottom)))
		return rc;
	if (!y->n || !y->total)
		return draw_message(c, "no lines", top, bottom);
	for (size_t i = 0; i < y->n; i++)
		maxv = fmax(maxv, year_share(y, i));
	if ((rc = vscale_make(c, &v, maxv)) ||
	    (rc = text_width(c, F_TICK, 0, "0000", &label_w)) ||
	    (rc = text_make(&ytitle, c, F_AXIS, 0, "share of lines", 0,
			    PANGO_ELLIPSIZE_NONE)) ||
	    (rc = text_make(&xtitle, c, F_AXIS, 0, "year last changed", 0,
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
	text_draw(c, &xtitle, b.left + (c->w - PAD - b.left) / 2,
		  pb + 8 + v.tick_h + 4, 0.5, 0, c->th->muted);
done:
	text_free(&ytitle);
	text_free(&xtitle);
	return rc;
}

/*
 * The top cohorts of a view by lines, one row each, and the rest in one
 * last row, "N others".
 */
struct ranked {
	const char *title, *subtitle;
	const struct cohort_view *v;
	uint64_t total;
	size_t ntop;            /* rows of their own */
};

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
	char buf[64], n[32];
	int rc;

	h->n = ranked_rows(r);
	h->labels = calloc(h->n ? h->n : 1, sizeof(*h->labels));
	if (!h->labels)
		return error_oom();
	h->label_w = 0;
	for (size_t i = 0; i < h->n; i++) {
		const char *name = i < r->ntop ? r->v->v[i].name : buf;

		if (i >= r->ntop) {
			fmt_count(n, sizeof(n), r->v->n - r->ntop);
			snprintf(buf, sizeof(buf), "%s others", n);
		}
		if ((rc = text_make(&h->labels[i], c, F_LABEL, i >= r->ntop,
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
	struct rgb bar = ramp(c->th->lo + 0.42 * (c->th->hi - c->th->lo));
	char buf[32];
	int rc;

	for (size_t i = 0; i < h->n; i++) {
		int others = i >= r->ntop;
		double y0, y1, x1 = share_x(h, ranked_share(r, i), xmax);

		hbars_row(h, i, &y0, &y1);
		fill_rect(c, h->pl, y0, x1, y1,
			  others ? c->th->unreleased : bar);
		text_draw(c, &h->labels[i], h->pl - 8, (y0 + y1) / 2, 1, 0.5,
			  others ? c->th->muted : c->th->text);
		fmt_share(buf, sizeof(buf), ranked_share(r, i));
		if ((rc = text_put(c, F_VALUE, 0, buf, 0, x1 + 4,
				   (y0 + y1) / 2, 0, 0.5, c->th->muted, NULL,
				   NULL)))
			return rc;
	}
	vline(c, h->pl - 1, h->pt, h->pb, c->th->axis);
	return 0;
}

/* Horizontal bars of the top cohorts' shares of all lines. */
static int draw_ranked(struct chart *c, const void *arg)
{
	const struct ranked *r = arg;
	struct hbars h = { 0 };
	struct text xtitle = { 0 };
	double top, bottom, maxv = 0, step, xmax, value_w, tick_h;
	int rc;

	if ((rc = draw_frame(c, r->title, r->subtitle, &top, &bottom)))
		return rc;
	if (!r->v->n || !r->total)
		return draw_message(c, "no lines", top, bottom);
	for (size_t i = 0; i < ranked_rows(r); i++)
		maxv = fmax(maxv, ranked_share(r, i));
	step = nice_step(maxv, c->w < 560 ? 4 : 5);
	xmax = fmax(fmin(nice_max(maxv, step), 100), maxv);
	if ((rc = ranked_labels(c, r, &h)) ||
	    (rc = text_width(c, F_VALUE, 0, "100.0%", &value_w)) ||
	    (rc = text_height(c, F_TICK, &tick_h)) ||
	    (rc = text_make(&xtitle, c, F_AXIS, 0, "share of lines", 0,
			    PANGO_ELLIPSIZE_NONE)))
		goto done;
	h.pl = round(PAD + h.label_w + 9);
	h.pr = round(c->w - PAD - value_w - 6);
	h.pt = round(top + 2);
	h.pb = round(bottom - xtitle.h - 6 - tick_h - 8);
	hbars_fit(&h);
	c->spare = h.spare;
	if (h.pr - h.pl < 40 || h.pitch < 2) {
		rc = error_set("chart '%s' has no room for its plot", r->title);
		goto done;
	}
	if ((rc = subsystems_axis(c, &h, step, xmax, tick_h, &xtitle)) == 0)
		rc = ranked_bars(c, r, &h, xmax);
done:
	hbars_release(&h);
	text_free(&xtitle);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Output */

struct buf {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

static cairo_status_t buf_write(void *closure, const unsigned char *data,
				unsigned int len)
{
	struct buf *b = closure;

	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		unsigned char *p;

		while (cap < b->n + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return CAIRO_STATUS_NO_MEMORY;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
	return CAIRO_STATUS_SUCCESS;
}

static void png_write(png_structp png, png_bytep data, png_size_t len)
{
	struct buf *b = png_get_io_ptr(png);

	if (buf_write(b, data, (unsigned int)len))
		png_error(png, "out of memory");
}

/* libpng prints its errors and warnings unless told otherwise. */
static void png_fail(png_structp png, png_const_charp msg)
{
	(void)msg;
	png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static int write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return error_set("unable to create '%s': %s", path,
				 strerror(errno));
	if (fwrite(p, 1, n, f) != n) {
		int e = errno;

		fclose(f);
		return error_set("unable to write '%s': %s", path,
				 strerror(e));
	}
	if (fclose(f))
		return error_set("unable to write '%s': %s", path,
				 strerror(errno));
	return 0;
}

/*
 * cairo names each SVG surface after a process-wide counter
 * ("surface42"): number such names in order of first appearance instead.
 */
static int svg_normalise(struct buf *out, const struct buf *in)
{
	static const char *const prefixes[] = { "surface", "source-",
						"image" };
	unsigned long *seen = NULL;
	size_t nseen = 0, cap = 0, i = 0, p;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (i < in->n) {
		const char *s = (const char *)in->p + i;
		size_t rest = in->n - i, plen = 0, d;
		int ref = 0;

		if (rest > 4 && !memcmp(s, "id=\"", 4))
			ref = 4;
		else if (*s == '#')
			ref = 1;
		for (p = 0; ref && p < sizeof(prefixes) / sizeof(*prefixes);
		     p++) {
			plen = strlen(prefixes[p]);
			if (rest > ref + plen &&
			    !memcmp(s + ref, prefixes[p], plen))
				break;
		}
		if (ref && p < sizeof(prefixes) / sizeof(*prefixes) &&
		    (d = ref + plen) < rest && s[d] >= '0' && s[d] <= '9') {
			unsigned long num = 0, id;
			char tmp[32];
			size_t k;

			while (d < rest && s[d] >= '0' && s[d] <= '9')
				num = num * 10 + (unsigned long)(s[d++] - '0');
			for (k = 0; k < nseen; k++)
				if (seen[k] == num)
					break;
			if (k == nseen) {
				if (nseen == cap) {
					size_t nc = cap ? cap * 2 : 16;
					unsigned long *ns =
						realloc(seen, nc * sizeof(*ns));

					if (!ns) {
						rc = error_oom();
						goto done;
					}
					seen = ns;
					cap = nc;
				}
				seen[nseen++] = num;
			}
			id = (unsigned long)k + 1;
			snprintf(tmp, sizeof(tmp), "%lu", id);
			if (buf_write(out, (const unsigned char *)s,
				      (unsigned)(ref + plen)) ||
			    buf_write(out, (const unsigned char *)tmp,
				      (unsigned)strlen(tmp))) {
				rc = error_oom();
				goto done;
			}
			i += d;
			continue;
		}
		if (buf_write(out, (const unsigned char *)s, 1)) {
			rc = error_oom();
			goto done;
		}
		i++;
	}
done:
	free(seen);
	return rc;
}

typedef int (*draw_fn)(struct chart *c, const void *arg);

struct charts {
	const char *dir;
	const struct tally *t;
	const struct report_info *info;
	const struct theme *th;
	unsigned w, h;
	PangoFontMap *fm;
	PangoContext *pc;
	struct rows rows;
	size_t nrel;
	char *path;
	size_t path_cap;
	struct names *names;
	double spare;           /* of the last render */
	struct chart_groups groups;
};

static int render(struct charts *x, cairo_surface_t *s, const char *name,
		  draw_fn fn, const void *arg)
{
	struct chart c;
	cairo_status_t st;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cr = cairo_create(s);
	c.pc = x->pc;
	c.t = x->t;
	c.info = x->info;
	c.th = x->th;
	c.w = x->w;
	c.h = x->h;
	c.rows = &x->rows;
	c.nrel = x->nrel;
	c.groups = &x->groups;
	pango_cairo_update_context(c.cr, c.pc);
	rc = fn(&c, arg);
	x->spare = c.spare;
	st = cairo_status(c.cr);
	cairo_destroy(c.cr);
	if (!rc && st)
		rc = st == CAIRO_STATUS_NO_MEMORY
			? error_oom()
			: error_set("unable to draw chart '%s': %s", name,
				    cairo_status_to_string(st));
	return rc;
}

static const char *out_path(struct charts *x, const char *name,
			    const char *suffix)
{
	size_t need = strlen(x->dir) + strlen(name) + strlen(suffix) + 2;

	if (need > x->path_cap) {
		char *p = realloc(x->path, need);

		if (!p)
			return NULL;
		x->path = p;
		x->path_cap = need;
	}
	snprintf(x->path, need, "%s/%s%s", x->dir, name, suffix);
	return x->path;
}

/*
 * PNG through libpng rather than cairo's writer, whose adaptive row
 * filters and zlib level 6 made encoding most of the time spent on a
 * report: charts are flat colour, which compresses nearly as well
 * without filters at level 3, several times faster. No time or text
 * chunks, so the bytes depend only on the pixels.
 */
static int png_encode(struct buf *out, cairo_surface_t *s)
{
	int w = cairo_image_surface_get_width(s);
	int h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *data;
	png_structp png = NULL;
	png_infop info = NULL;
	unsigned char *volatile row = NULL;
	volatile int rc = 0;
	int x, y;

	cairo_surface_flush(s);
	data = cairo_image_surface_get_data(s);
	row = malloc((size_t)w * 3);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
				      png_fail, png_quiet);
	if (png)
		info = png_create_info_struct(png);
	if (!row || !png || !info) {
		rc = error_oom();
		goto done;
	}
	if (setjmp(png_jmpbuf(png))) {
		rc = out->oom ? error_oom() : error_set("unable to encode PNG");
		goto done;
	}
	png_set_write_fn(png, out, png_write, NULL);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	for (y = 0; y < h; y++) {
		const unsigned char *src = data + (size_t)y * (size_t)stride;

		for (x = 0; x < w; x++) {
			uint32_t v;

			memcpy(&v, src + 4 * x, 4);
			row[3 * x] = (unsigned char)(v >> 16);
			row[3 * x + 1] = (unsigned char)(v >> 8);
			row[3 * x + 2] = (unsigned char)v;
		}
		png_write_row(png, row);
	}
	png_write_end(png, info);
done:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	free(row);
	return rc;
}

static int emit_png(struct charts *x, const char *name, int scale,
		    draw_fn fn, const void *arg)
{
	cairo_surface_t *s;
	struct buf b = { 0 };
	const char *path;
	cairo_status_t st;
	int rc;

	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
				       (int)x->w * scale, (int)x->h * scale);
	if ((st = cairo_surface_status(s))) {
		cairo_surface_destroy(s);
		return st == CAIRO_STATUS_NO_MEMORY
			? error_oom()
			: error_set("unable to make chart '%s': %s", name,
				    cairo_status_to_string(st));
	}
	cairo_surface_set_device_scale(s, scale, scale);
	rc = render(x, s, name, fn, arg);
	if (!rc)
		rc = png_encode(&b, s);
	cairo_surface_destroy(s);
	if (!rc) {
		path = out_path(x, name, scale == 1 ? ".png" : "@2x.png");
		rc = path ? write_file(path, b.p, b.n) : error_oom();
	}
	free(b.p);
	return rc;
}

static int emit_svg(struct charts *x, const char *name, const char *suffix,
		    draw_fn fn, const void *arg)
{
	cairo_surface_t *s;
	struct buf b = { 0 }, norm = { 0 };
	const char *path;
	cairo_status_t st;
	int rc;

	s = cairo_svg_surface_create_for_stream(buf_write, &b, x->w, x->h);
	if ((st = cairo_surface_status(s))) {
		cairo_surface_destroy(s);
		return error_set("unable to make chart '%s': %s", name,
				 cairo_status_to_string(st));
	}
	cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
	rc = render(x, s, name, fn, arg);
	cairo_surface_finish(s);
	st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (!rc && st)
		rc = b.oom ? error_oom()
			   : error_set("unable to write chart '%s': %s", name,
				       cairo_status_to_string(st));
	if (!rc)
		rc = svg_normalise(&norm, &b);
	if (!rc) {
		path = out_path(x, name, suffix);
		rc = path ? write_file(path, norm.p, norm.n) : error_oom();
	}
	free(b.p);
	free(norm.p);
	return rc;
}

/*
 * A chart that can shrink (c->spare) is drawn once without output to
 * learn its height: x->h less what it would leave unused.
 */
static int fit_height(struct charts *x, const char *name, draw_fn fn,
		      const void *arg)
{
	cairo_surface_t *s;
	int rc;

	s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR, NULL);
	rc = render(x, s, name, fn, arg);
	cairo_surface_destroy(s);
	if (!rc && x->spare >= 1)
		x->h -= (unsigned)floor(x->spare);
	return rc;
}

/*
 * NAME.svg, NAME.png and NAME@2x.png; and, when the chart is wider than
 * a phone, NAME@narrow.svg drawn CHART_NARROW_WIDTH wide for one. With
 * `fit`, each as high as its content needs, up to the height asked for.
 */
static int chart_emit_fit(struct charts *x, const char *name, draw_fn fn,
			  const void *arg, int fit)
{
	unsigned w = x->w, h = x->h;
	int rc;

	if ((fit && (rc = fit_height(x, name, fn, arg))) ||
	    (rc = emit_svg(x, name, ".svg", fn, arg)) ||
	    (rc = emit_png(x, name, 1, fn, arg)) ||
	    (rc = emit_png(x, name, 2, fn, arg)))
		goto done;
	if (w >= CHART_NARROW_WIDTH + CHART_NARROW_MARGIN) {
		x->w = CHART_NARROW_WIDTH;
		x->h = h;
		if ((fit && (rc = fit_height(x, name, fn, arg))) ||
		    (rc = emit_svg(x, name, "@narrow.svg", fn, arg)))
			goto done;
	}
done:
	x->w = w;
	x->h = h;
	return rc;
}

static int chart_emit(struct charts *x, const char *name, draw_fn fn,
		      const void *arg)
{
	return chart_emit_fit(x, name, fn, arg, 0);
}

/* ------------------------------------------------------------------ */
/* Fonts */

/*
 * A font map and context of our own with every font option fixed, so
 * that neither the surface nor the environment changes glyph shapes or
 * metrics. Advances are hinted to whole CSS pixels: cairo 1.16 puts
 * glyphs on whole device pixels, and fractional advances would space
 * small text unevenly at 1x.
 */
static void fonts_open(PangoFontMap **fm, PangoContext **pc)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	*fm = pango_cairo_font_map_new();
	*pc = pango_font_map_create_context(*fm);
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_subpixel_order(fo, CAIRO_SUBPIXEL_ORDER_DEFAULT);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
	pango_cairo_context_set_font_options(*pc, fo);
	cairo_font_options_destroy(fo);
	pango_cairo_context_set_resolution(*pc, 96);
	pango_context_set_round_glyph_positions(*pc, TRUE);
	pango_context_set_language(*pc, pango_language_from_string("en"));
	pango_context_set_base_dir(*pc, PANGO_DIRECTION_LTR);
}

static void fonts_close(PangoFontMap *fm, PangoContext *pc)
{
	if (pc)
		g_object_unref(pc);
	if (fm)
		g_object_unref(fm);
}

int chart_check_font(void)
{
	PangoFontMap *fm;
	PangoContext *pc;
	PangoFontDescription *want, *got = NULL;
	PangoFont *font;
	PangoLayout *l = NULL;
	const char *family;
	int rc = 0;

	fonts_open(&fm, &pc);
	want = pango_font_description_from_string(CHART_FONT);
	pango_font_description_set_absolute_size(want, 12 * PANGO_SCALE);
	font = pango_font_map_load_font(fm, pc, want);
	if (!font) {
		rc = error_set("font '%s' not found: install fonts-dejavu-core",
			       CHART_FONT);
		goto done;
	}
	got = pango_font_describe(font);
	family = pango_font_description_get_family(got);
	if (!family || g_ascii_strcasecmp(family, CHART_FONT)) {
		rc = error_set("font '%s' not found (got '%s'): install "
			       "fonts-dejavu-core",
			       CHART_FONT, family ? family : "none");
		goto done;
	}
	l = pango_layout_new(pc);
	pango_layout_set_font_description(l, want);
	pango_layout_set_text(l, "0123456789% ABCXYZ abcxyz.-_", -1);
	if (pango_layout_get_unknown_glyphs_count(l)) {
		rc = error_set("font '%s' draws no glyphs: install "
			       "fonts-dejavu-core",
			       CHART_FONT);
		goto done;
	}
done:
	if (l)
		g_object_unref(l);
	if (got)
		pango_font_description_free(got);
	if (font)
		g_object_unref(font);
	pango_font_description_free(want);
	fonts_close(fm, pc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Entry points */

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

static const char *dir_display(const char *path)
{
	return strcmp(path, ".") ? path : "the root directory";
}

static int chart_dir(struct charts *x, size_t i)
{
	const struct tally_dir *d = &x->t->dirs[i];
	char *name = NULL, *title = NULL, *sub = NULL;
	char count[32];
	struct dist dist;
	size_t len;
	int rc;

	if ((rc = names_get(&name, x->names, d->path, NAMES_CHART)) < 0 ||
	    (rc = names_make_parents(x->dir, name)) < 0)
		goto done;
	len = strlen(d->path) + strlen(rev_of(x->info)) + 128;
	title = malloc(len);
	sub = malloc(len);
	if (!title || !sub) {
		rc = error_oom();
		goto done;
	}
	fmt_count(count, sizeof(count), d->lines);
	if (!strcmp(d->path, "."))
		snprintf(title, len, "Files in the root directory by release");
	else
		snprintf(title, len, "%s/ by release", d->path);
	snprintf(sub, len,
		 "Share of the %s %s in %s at %s by the release that "
		 "wrote them",
		 count, d->lines == 1 ? "line" : "lines", dir_display(d->path),
		 rev_of(x->info));
	dist.title = title;
	dist.subtitle = sub;
	dist.counts = d->by_release;
	dist.total = d->lines;
	rc = chart_emit(x, name, draw_dist, &dist);
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
 * tests/t-chart.sh once saw. A directory chart takes a few milliseconds.
 */
static int chart_dirs(struct charts *x)
{
	size_t i;
	int rc;

	for (i = 1; i < x->t->ndirs; i++)
		if (x->t->dirs[i].level >= 1 && (rc = chart_dir(x, i)))
			return rc;
	return 0;
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

/* img/history*, img/survival*, and a history per subsystem. */
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
static int chart_history(struct charts *x)
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
	char title[256], sub[512], count[32];
	int rc;

	if ((rc = years_fill(&y, &co->years)))
		return rc;
	fmt_count(count, sizeof(count), co->total_lines);
	snprintf(title, sizeof(title),
		 "Lines at %s by the year they were last changed",
		 rev_of(x->info));
	snprintf(sub, sizeof(sub), "Share of all %s %s in %s by the year "
		 "(UTC) of the %s date of the commit git blame gives them",
		 count, co->total_lines == 1 ? "line" : "lines",
		 repo_of(x->info), cohorts_date_name(co->date));
	y.title = title;
	y.subtitle = sub;
	y.total = co->total_lines;
	rc = chart_emit(x, "years", draw_years, &y);
	free((int *)y.years);
	free((uint64_t *)y.lines);
	return rc;
}

/* Rows of their own in the author and organisation charts, at most. */
#define RANKED_TOP 20

static int chart_ranked(struct charts *x, const char *name,
			const struct cohort_view *v, const char *what,
			const char *plural, const char *how)
{
	const struct cohorts *co = x->t->cohorts;
	struct ranked r = { 0 };
	char title[256], sub[512], count[32], all[32];
	size_t fit = rows_max(x->h) - 1;

	r.v = v;
	r.total = co->total_lines;
	r.ntop = fit < RANKED_TOP ? fit : RANKED_TOP;
	/* "1 others" would take the row of the one it stands for */
	if (v->n == r.ntop + 1)
		r.ntop++;
	fmt_count(count, sizeof(count), co->total_lines);
	snprintf(title, sizeof(title), "Lines at %s by %s", rev_of(x->info),
		 what);
	fmt_count(all, sizeof(all), v->n);
	snprintf(sub, sizeof(sub), "Share of all %s %s in %s by %s; the "
		 "top %zu of %s %s", count, co->total_lines == 1 ? "line" :
		 "lines", repo_of(x->info), how,
		 r.ntop < v->n ? r.ntop : v->n, all, plural);
	r.title = title;
	r.subtitle = sub;
	return chart_emit_fit(x, name, draw_ranked, &r, 1);
}

/* img/years*, and without --no-authors img/authors* and img/orgs*. */
static int chart_cohorts(struct charts *x)
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

int chart_write_all(const char *img_dir, const struct tally *t,
		    const struct report_info *info,
		    const struct chart_options *o)
{
	struct charts x;
	uint64_t *counts = NULL;
	char title[256], sub[512], count[32];
	struct dist dist;
	size_t i;
	int rc;

	memset(&x, 0, sizeof(x));
	if ((rc = chart_check_options(o)))
		return rc;
	x.dir = img_dir;
	x.t = t;
	x.info = info;
	x.th = o->dark ? &theme_dark : &theme_light;
	x.w = o->width;
	x.h = o->height;
	x.nrel = released_count(t);
	fonts_open(&x.fm, &x.pc);
	if ((rc = names_new(&x.names, t)) < 0 ||
	    (rc = rows_build(&x.rows, t, rows_max(o->height))) ||
	    (rc = chart_groups_build(&x.groups, t, CHART_MAX_BARS)))
		goto done;

	counts = calloc(t->nreleases ? t->nreleases : 1, sizeof(*counts));
	if (!counts) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < t->nreleases; i++)
		counts[i] = t->releases[i].lines;
	fmt_count(count, sizeof(count), t->total_lines);
	snprintf(title, sizeof(title),
		 "Lines at %s by the release that wrote them", rev_of(info));
	snprintf(sub, sizeof(sub), "Share of all %s %s in %s%s", count,
		 t->total_lines == 1 ? "line" : "lines", repo_of(info),
		 x.nrel < t->nreleases
			 ? "; the last bar is code not yet in a release"
			 : "");
	dist.title = title;
	dist.subtitle = sub;
	dist.counts = counts;
	dist.total = t->total_lines;
	if ((rc = chart_emit(&x, "releases", draw_dist, &dist)) ||
	    (rc = chart_emit_fit(&x, "subsystems", draw_subsystems, NULL,
				 1)) ||
	    (rc = chart_emit_fit(&x, "subsystems-stack",
				 draw_subsystems_stack, NULL, 1)))
		goto done;
	if ((rc = chart_dirs(&x)) == 0 && (rc = chart_history(&x)) == 0)
		rc = chart_cohorts(&x);
done:
	free(counts);
	free(x.path);
	names_free(x.names);
	rows_release(&x.rows);
	chart_groups_release(&x.groups);
	fonts_close(x.fm, x.pc);
	return rc;
}
