/*
 * chart kit: what every chart draws with. Colours (the viridis ramp and
 * the two themes), numbers as ticks print them, text laid out by pango
 * with fixed font options, 1px lines on pixel centres, the frame (title,
 * subtitle, source line), the axes: bar slots and x labels of the charts
 * of releases and years, rows of horizontal bars, and the legend of
 * releases.
 */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/util.h"

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

/*
 * Each theme leaves out the end of the ramp that would vanish into its
 * background: the palest yellows on white, the darkest purples on black.
 */
const struct theme chart_theme_light = {
	.bg = { 0xff, 0xff, 0xff },
	.text = { 0x1f, 0x23, 0x28 },
	.muted = { 0x5c, 0x63, 0x6b },
	.grid = { 0xe3, 0xe6, 0xea },
	.axis = { 0x6b, 0x72, 0x7a },
	.unreleased = { 0x9a, 0x9a, 0x9a },
	.lo = 0.0,
	.hi = 0.88,
};

const struct theme chart_theme_dark = {
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

struct rgb chart_ramp(double t)
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
size_t chart_released_count(const struct tally *t)
{
	size_t n = t->nreleases;

	while (n && t->releases[n - 1].unreleased)
		n--;
	return n;
}

/*
 * Release i takes the ramp at its rank among the releases that wrote
 * something (tally_release_silent()), so that the pages, which
 * ask with the whole tally, get the colours of the charts, which draw
 * only those. Beyond RAMP_PLAIN releases, neighbours on the ramp are
 * too close to tell apart (jq-1.5 and jq-1.6 of ten), so every other
 * release is lightened: the bands alternate, and the ramp's order holds
 * among the odd and among the even ones.
 */
struct rgb chart_release_rgb(const struct tally *t, const struct theme *th,
			     size_t i)
{
	size_t n = chart_released_count(t), rank = 0, m = 0, j;
	struct rgb c;
	double pos;

	if (i >= n)
		return th->unreleased;
	for (j = 0; j < n; j++)
		if (j == i || !tally_release_silent(t, j)) {
			rank += j < i;
			m++;
		}
	pos = m > 1 ? (double)rank / (double)(m - 1) : 0;
	c = chart_ramp(th->lo + (th->hi - th->lo) * pos);
	if (m > RAMP_PLAIN && rank % 2) {
		c.r = (unsigned char)lround(c.r + (255 - c.r) * RAMP_LIGHTEN);
		c.g = (unsigned char)lround(c.g + (255 - c.g) * RAMP_LIGHTEN);
		c.b = (unsigned char)lround(c.b + (255 - c.b) * RAMP_LIGHTEN);
	}
	return c;
}

void chart_release_color(char out[8], const struct tally *t, size_t i,
			 int dark)
{
	const struct theme *th = dark ? &chart_theme_dark : &chart_theme_light;
	struct rgb c = chart_release_rgb(t, th, i);

	snprintf(out, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}

/* ------------------------------------------------------------------ */
/*
 * Numbers of the axes, formatted without the locale. Counts and shares
 * go through util_count() and util_share(), as on the pages and in the
 * CSV, so that a chart and its table print one figure one way.
 */

/* 1234 -> "1.2k", 1234567 -> "1.2M". */
void chart_fmt_short(char *buf, size_t size, uint64_t v)
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
void chart_fmt_tick(char *buf, size_t size, double v)
{
	long long h = llround(v * 100);

	if (h % 100 == 0)
		snprintf(buf, size, "%lld%%", h / 100);
	else if (h % 10 == 0)
		snprintf(buf, size, "%lld.%lld%%", h / 100, (h % 100) / 10);
	else
		snprintf(buf, size, "%lld.%02lld%%", h / 100, h % 100);
}

/*
 * The smallest step of 1, 2, 2.5 or 5 x 10^k giving at most `max` steps
 * over a range of percentages; 0.1 at least, as ticks have 2 decimals.
 */
double chart_nice_step(double range, int max)
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

double chart_nice_max(double v, double step)
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

void chart_text_free(struct text *t)
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
		chart_text_free(&v[i]);
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
int chart_text_make(struct text *t, struct chart *c, enum font f,
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
	int rc = chart_text_make(t, c, f, 0, s, max_w, PANGO_ELLIPSIZE_END);

	if (rc)
		return rc;
	pango_layout_set_wrap(t->layout, PANGO_WRAP_WORD_CHAR);
	pango_layout_set_height(t->layout, -lines);
	text_measure(t);
	return 0;
}

void chart_set_rgb(struct chart *c, struct rgb col)
{
	cairo_set_source_rgb(c->cr, col.r / 255.0, col.g / 255.0,
			     col.b / 255.0);
}

/* Draw with the logical box's point (ax, ay) (0..1 of its size) at x, y. */
void chart_text_draw(struct chart *c, const struct text *t, double x,
		     double y, double ax, double ay, struct rgb col)
{
	chart_set_rgb(c, col);
	cairo_move_to(c->cr, x - ax * t->w - t->x, y - ay * t->h - t->y);
	pango_cairo_show_layout(c->cr, t->layout);
}

/* Draw reading upwards, the end of the text at (x, y), centred on x. */
void chart_text_draw_up(struct chart *c, const struct text *t, double x,
			double y, struct rgb col)
{
	cairo_save(c->cr);
	cairo_translate(c->cr, x, y);
	cairo_rotate(c->cr, -M_PI / 2);
	chart_set_rgb(c, col);
	cairo_move_to(c->cr, -t->w - t->x, -t->h / 2 - t->y);
	pango_cairo_show_layout(c->cr, t->layout);
	cairo_restore(c->cr);
}

/* Make and draw a text at once. */
int chart_text_put(struct chart *c, enum font f, int italic, const char *s,
		   double max_w, double x, double y, double ax, double ay,
		   struct rgb col, double *w, double *h)
{
	struct text t;
	int rc = chart_text_make(&t, c, f, italic, s, max_w,
				 PANGO_ELLIPSIZE_END);

	if (rc)
		return rc;
	chart_text_draw(c, &t, x, y, ax, ay, col);
	if (w)
		*w = t.w;
	if (h)
		*h = t.h;
	chart_text_free(&t);
	return 0;
}

/* The height of a line of text in font f. */
int chart_text_height(struct chart *c, enum font f, double *h)
{
	struct text t;
	int rc = chart_text_make(&t, c, f, 0, "0%", 0, PANGO_ELLIPSIZE_NONE);

	if (rc)
		return rc;
	*h = t.h;
	chart_text_free(&t);
	return 0;
}

int chart_text_width(struct chart *c, enum font f, int italic,
		     const char *s, double *w)
{
	struct text t;
	int rc = chart_text_make(&t, c, f, italic, s, 0, PANGO_ELLIPSIZE_NONE);

	if (rc)
		return rc;
	*w = t.w;
	chart_text_free(&t);
	return 0;
}

void chart_fill_rect(struct chart *c, double x0, double y0, double x1,
		     double y1, struct rgb col)
{
	if (x1 <= x0 || y1 <= y0)
		return;
	chart_set_rgb(c, col);
	cairo_rectangle(c->cr, x0, y0, x1 - x0, y1 - y0);
	cairo_fill(c->cr);
}

/* A 1px line along pixel row `row` (or column), from x0 to x1. */
void chart_hline(struct chart *c, double x0, double x1, double row,
		 struct rgb col)
{
	chart_set_rgb(c, col);
	cairo_set_line_width(c->cr, 1);
	cairo_move_to(c->cr, x0, row + 0.5);
	cairo_line_to(c->cr, x1, row + 0.5);
	cairo_stroke(c->cr);
}

void chart_vline(struct chart *c, double col_x, double y0, double y1,
		 struct rgb col)
{
	chart_set_rgb(c, col);
	cairo_set_line_width(c->cr, 1);
	cairo_move_to(c->cr, col_x + 0.5, y0);
	cairo_line_to(c->cr, col_x + 0.5, y1);
	cairo_stroke(c->cr);
}

void chart_vline_dashed(struct chart *c, double col_x, double y0,
			double y1, struct rgb col, double on, double off)
{
	double dash[2] = { on, off };

	cairo_set_dash(c->cr, dash, 2, 0);
	chart_vline(c, col_x, y0, y1, col);
	cairo_set_dash(c->cr, NULL, 0, 0);
}

/* ------------------------------------------------------------------ */
/* Frame: background, title, subtitle, source line */

const char *chart_rev_of(const struct report_info *info)
{
	return info && info->rev && *info->rev ? info->rev : "HEAD";
}

const char *chart_repo_of(const struct report_info *info)
{
	return info && info->repo_name && *info->repo_name ? info->repo_name
							    : "repository";
}

const char *chart_first_name(const struct tally *t)
{
	return t->nreleases ? t->releases[0].name : "the first release";
}

/* Lines of d from the first release, as tally's d->first_share counts them. */
uint64_t chart_first_lines(const struct tally *t, const struct tally_dir *d)
{
	return t->nreleases && !t->releases[0].unreleased ? d->by_release[0]
							  : 0;
}

/*
 * Draw the frame; *top and *bottom receive the band left for the chart.
 */
int chart_draw_frame(struct chart *c, const char *title,
		     const char *subtitle, double *top, double *bottom)
{
	const struct report_info *info = c->info;
	char src[512], commit[16] = "";
	struct text t;
	double y = PAD - 2, h;
	int rc;

	chart_set_rgb(c, c->th->bg);
	cairo_paint(c->cr);

	rc = text_make_lines(&t, c, F_TITLE, title, c->w - 2 * PAD, 2);
	if (rc)
		return rc;
	chart_text_draw(c, &t, PAD, y, 0, 0, c->th->text);
	y += t.h + 1;
	chart_text_free(&t);
	if (subtitle) {
		rc = text_make_lines(&t, c, F_SUBTITLE, subtitle,
				     c->w - 2 * PAD, 2);
		if (rc)
			return rc;
		chart_text_draw(c, &t, PAD, y, 0, 0, c->th->muted);
		h = t.h;
		chart_text_free(&t);
		y += h;
	}
	*top = y + 10;

	if (info && info->commit[0] &&
	    strncmp(info->commit, chart_rev_of(info),
		    strlen(chart_rev_of(info))))
		snprintf(commit, sizeof(commit), " (%.12s)", info->commit);
	snprintf(src, sizeof(src), "Source: %s at %s%s \xc2\xb7 strata",
		 chart_repo_of(info), chart_rev_of(info), commit);
	rc = chart_text_make(&t, c, F_SOURCE, 0, src, c->w - 2 * PAD,
			     PANGO_ELLIPSIZE_MIDDLE);
	if (rc)
		return rc;
	chart_text_draw(c, &t, c->w - PAD, c->h - 7, 1, 1, c->th->muted);
	*bottom = c->h - 7 - t.h - 4;
	chart_text_free(&t);
	return 0;
}

int chart_draw_message(struct chart *c, const char *msg, double top,
		       double bottom)
{
	return chart_text_put(c, F_AXIS, 1, msg, c->w - 2 * PAD, c->w / 2,
			      (top + bottom) / 2, 0.5, 0.5, c->th->muted, NULL,
			      NULL);
}

static double bar_slot_left(const struct bars *b, size_t i)
{
	if (i < b->nrel)
		return b->left + (double)i * b->slot;
	return b->ux + (double)(i - b->nrel) * b->slot;
}

void chart_bar_edges(const struct bars *b, size_t i, double *x0, double *x1)
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

double chart_bar_centre(const struct bars *b, size_t i)
{
	double x0, x1;

	chart_bar_edges(b, i, &x0, &x1);
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
	       chart_bar_centre(b, b->nrel) - chart_bar_centre(b,
							       i) >= lab_h + 2;
}

/* The centre of an upright label under the first unreleased bar. */
static double unrel_label_x(const struct bars *b, const struct text *l,
			    double chart_w)
{
	return fmin(chart_bar_centre(b, b->nrel), chart_w - PAD / 2 - l->w / 2);
}

void chart_xlabels_release(struct xlabels *L)
{
	texts_free(L->v, L->n);
	L->v = NULL;
}

static int xlabel_make(struct chart *c, const struct chart_groups *g,
		       struct xlabels *L, size_t i)
{
	if (L->v[i].layout)
		return 0;
	return chart_text_make(&L->v[i], c, F_TICK, i >= g->nrel, g->labels[i],
			       fmin(130, 0.24 * c->h), PANGO_ELLIPSIZE_END);
}

/*
 * Across when every name fits under its bar, else turned upright and
 * thinned. Only names that are drawn are laid out: with hundreds of
 * releases, most are not.
 */
int chart_xlabels_layout(struct xlabels *L, struct chart *c,
			 const struct chart_groups *g, const struct bars *b)
{
	size_t i;
	int rc;

	L->n = g->n;
	L->k = 1;
	if (!(L->v = calloc(g->n ? g->n : 1, sizeof(*L->v))))
		return error_oom();
	if ((rc = chart_text_height(c, F_TICK, &L->h)))
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
		double r = b->nrel ? chart_bar_centre(b, b->nrel - 1) +
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
void chart_xlabels_draw(struct chart *c, const struct xlabels *L,
			const struct bars *b, double pb)
{
	size_t i;

	for (i = 0; i < L->n; i++) {
		double x = chart_bar_centre(b, i);
		int unrel = i >= b->nrel;
		struct rgb col = unrel ? c->th->muted : c->th->text;

		if (!label_shown(b, i, L->k, L->h))
			continue;
		chart_vline(c, floor(x), pb + 1, pb + 5, c->th->axis);
		if (L->across)
			chart_text_draw(c, &L->v[i],
					unrel ? unrel_label_x(b, &L->v[i],
							      c->w) : x,
					pb + 7, 0.5, 0, col);
		else
			chart_text_draw_up(c, &L->v[i], x, pb + 7, col);
	}
}

/*
 * Grid lines and y ticks of a plot of shares from pb (0) up to pb - ph
 * (ymax), a tick every `step`: the charts of releases and of years.
 */
int chart_y_grid(struct chart *c, double step, double ymax, double pl,
		 double pr, double pb, double ph)
{
	char buf[64];
	size_t i;
	int rc;

	for (i = 0; step * (double)i <= ymax + 1e-9; i++) {
		double v = step * (double)i;
		double row = round(pb - v / ymax * ph);

		if (i)
			chart_hline(c, pl, pr, row, c->th->grid);
		chart_fmt_tick(buf, sizeof(buf), v);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, pl - 7,
					 row + 0.5, 1, 0.5, c->th->muted, NULL,
					 NULL)))
			return rc;
	}
	return 0;
}

/* The slots of n bars from pl to pr, the unreleased ones after a gap. */
void chart_bars_place(struct bars *b, double pl, double pr, size_t n,
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

void chart_hbars_release(struct hbars *h)
{
	texts_free(h->labels, h->n);
	h->labels = NULL;
}

int chart_hbars_labels(struct hbars *h, struct chart *c)
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
		int special = chart_row_label(buf, sizeof(buf), r);

		rc = chart_text_make(&h->labels[i], c, F_LABEL, !r->path,
				     special ? buf : r->path,
				     fmax(60, 0.28 * c->w),
				     PANGO_ELLIPSIZE_MIDDLE);
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
void chart_hbars_fit(struct hbars *h)
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

void chart_hbars_row(const struct hbars *h, size_t i, double *y0,
		     double *y1)
{
	double r0 = round(h->pt + (double)i * h->pitch);
	double r1 = round(h->pt + (double)(i + 1) * h->pitch);
	double th = round(fmin(fmax((r1 - r0) * 0.72, 1), 24));

	*y0 = r0 + floor((r1 - r0 - th) / 2);
	*y1 = *y0 + th;
}

void chart_hbars_draw_labels(struct chart *c, const struct hbars *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		double y0, y1;

		chart_hbars_row(h, i, &y0, &y1);
		chart_text_draw(c, &h->labels[i], h->pl - 8, (y0 + y1) / 2, 1,
				0.5, c->rows->v[i].path ? c->th->text
							: c->th->muted);
	}
}

/* ------------------------------------------------------------------ */
/* Chart: share of first-release code per subsystem */

/* The end of a bar of share v; a share above 0 shows at least 1px. */
double chart_share_x(const struct hbars *h, double v, double xmax)
{
	double x = round(h->pl + v / xmax * (h->pr - h->pl));

	return v > 0 && x <= h->pl ? h->pl + 1 : x;
}

/* The x axis of shares: grid, ticks and the axis title under the plot. */
int chart_subsystems_axis(struct chart *c, const struct hbars *h,
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
			chart_vline(c, col, h->pt, h->pb, c->th->grid);
		chart_vline(c, col, h->pb, h->pb + 4, c->th->axis);
		chart_fmt_tick(buf, sizeof(buf), v);
		if ((rc = chart_text_put(c, F_TICK, 0, buf, 0, col + 0.5,
					 h->pb + 6,
					 0.5, 0, c->th->muted, NULL, NULL)))
			return rc;
	}
	chart_text_draw(c, xtitle, h->pl + pw / 2, h->pb + 6 + tick_h + 5, 0.5,
			0, c->th->muted);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Chart: each subsystem as a 100% bar of releases */

/*
 * The legend over a chart of releases. Up to LEGEND_SWATCHES releases, a
 * swatch and name each, in lines as many as they need: a ramp would name
 * only its ends, and neighbours could not be told apart. Beyond, a ramp
 * with as many of its releases named under it as fit apart, the first
 * and the last always. The unreleased bucket is an entry of its own.
 */
void chart_legend_release(struct legend *L)
{
	size_t i;

	for (i = 0; i < L->n; i++)
		chart_text_free(&L->v[i].name);
	free(L->v);
	memset(L, 0, sizeof(*L));
}

static int legend_item(struct legend *L, struct chart *c, size_t r)
{
	struct legend_item *it = &L->v[L->n];
	int rc;

	memset(it, 0, sizeof(*it));
	it->r = r;
	if ((rc = chart_text_make(&it->name, c, F_LEGEND, r >= c->nrel,
				  c->t->releases[r].name, 120,
				  PANGO_ELLIPSIZE_END)))
		return rc;
	L->n++;
	return 0;
}

/* A swatch and a name per release, wrapped onto as many lines as need. */
static int legend_swatches(struct legend *L, struct chart *c, double y,
			   double lh)
{
	double x = PAD, right = c->w - PAD;
	size_t i;
	int rc;

	L->h = lh;
	for (i = 0; i < c->t->nreleases; i++) {
		struct legend_item *it = &L->v[L->n];

		if ((rc = legend_item(L, c, i)))
			return rc;
		it->w = LEGEND_SWATCH + 4 + it->name.w;
		it->h = lh;
		if (x > PAD && x + it->w > right) {
			x = PAD;
			y += lh + LEGEND_LEADING;
			L->h += lh + LEGEND_LEADING;
		}
		it->x = x;
		it->y = y;
		x = round(x + it->w + 12);
	}
	return 0;
}

/* Centre of release i's band on the ramp. */
static double legend_band(const struct legend *L, size_t i, size_t n)
{
	return L->rx0 + (L->rx1 - L->rx0) * ((double)i + 0.5) / (double)n;
}

/*
 * Name q releases spread evenly under the ramp: their boxes, centred on
 * their bands and kept within it, 8 px apart at least; 0 if they cannot.
 */
static int legend_ticks_fit(struct legend *L, size_t q, size_t n)
{
	double prev = -1e9;
	size_t j;

	for (j = 0; j < q; j++) {
		struct legend_item *it = &L->v[j];
		size_t r = q > 1 ? (size_t)llround((double)j * (double)(n - 1) /
						   (double)(q - 1)) : 0;

		it->r = r;
		it->w = it->name.w;
		it->x = fmin(fmax(round(legend_band(L, r, n) - it->w / 2),
				  L->rx0), L->rx1 - it->w);
		if (it->x < prev + 8)
			return 0;
		prev = it->x + it->w;
	}
	return 1;
}

static int legend_ramp(struct legend *L, struct chart *c, double y,
		       double lh)
{
	const struct tally *t = c->t;
	size_t n = c->nrel, q, j;
	double right = c->w - PAD;
	int rc;

	L->ramp = 1;
	L->ry = round(y + (lh - LEGEND_SWATCH) / 2);
	L->h = LEGEND_SWATCH + 4 + lh;
	if (n < t->nreleases) {
		struct legend_item *u = &L->v[n < 12 ? n : 12];

		/* the unreleased entry, right of the ramp, on its line */
		if ((rc = chart_text_make(&u->name, c, F_LEGEND, 1,
					  t->releases[n].name, 120,
					  PANGO_ELLIPSIZE_END)))
			return rc;
		u->r = n;
		u->w = LEGEND_SWATCH + 4 + u->name.w;
		u->h = lh;
		u->x = round(right - u->w);
		u->y = y;
		right = u->x - 18;
	}
	L->rx0 = PAD;
	L->rx1 = right;
	for (q = n < 12 ? n : 12; q >= 2; q--) {
		for (j = 0; j < q; j++) {
			size_t r = (size_t)llround((double)j * (double)(n - 1) /
						   (double)(q - 1));

			chart_text_free(&L->v[j].name);
			if ((rc = chart_text_make(&L->v[j].name, c, F_LEGEND,
						  0, t->releases[r].name, 120,
						  PANGO_ELLIPSIZE_END)))
				return rc;
		}
		if (legend_ticks_fit(L, q, n))
			break;
	}
	if (q < 2) {
		q = 1;
		legend_ticks_fit(L, 1, n);
	}
	for (j = 0; j < q; j++) {
		L->v[j].y = L->ry + LEGEND_SWATCH + 4;
		L->v[j].h = lh;
	}
	for (j = q; j < 12 && j < n; j++)
		chart_text_free(&L->v[j].name);
	if (n < t->nreleases && q < (n < 12 ? n : 12)) {
		L->v[q] = L->v[n < 12 ? n : 12];
		memset(&L->v[n < 12 ? n : 12], 0, sizeof(L->v[0]));
	}
	L->n = q + (n < t->nreleases);
	return 0;
}

int chart_legend_layout(struct legend *L, struct chart *c, double y)
{
	double lh;
	int rc;

	memset(L, 0, sizeof(*L));
	if (!c->t->nreleases)
		return 0;
	if ((rc = chart_text_height(c, F_LEGEND, &lh)))
		return rc;
	L->v = calloc(c->t->nreleases + 13, sizeof(*L->v));
	if (!L->v)
		return error_oom();
	rc = c->nrel <= LEGEND_SWATCHES ? legend_swatches(L, c, y, lh)
					: legend_ramp(L, c, y, lh);
	if (rc)
		chart_legend_release(L);
	return rc;
}

/* Draws the legend at y; *h is the height it takes. */
int chart_draw_legend(struct chart *c, double y, double *h)
{
	const struct theme *th = c->th;
	struct legend L;
	size_t i, n = c->nrel;
	int rc;

	*h = 0;
	if ((rc = chart_legend_layout(&L, c, y)))
		return rc;
	if (L.ramp)
		for (i = 0; i < n; i++)
			chart_fill_rect(c, round(L.rx0 + (L.rx1 - L.rx0) *
						 (double)i / (double)n),
					L.ry,
					round(L.rx0 + (L.rx1 - L.rx0) *
					      (double)(i + 1) / (double)n),
					L.ry + LEGEND_SWATCH,
					chart_release_rgb(c->t, th, i));
	for (i = 0; i < L.n; i++) {
		const struct legend_item *it = &L.v[i];
		int unrel = it->r >= n;

		if (L.ramp && !unrel) {
			double bx = floor(legend_band(&L, it->r, n)) + 0.5;

			chart_vline(c, bx, L.ry + LEGEND_SWATCH,
				    L.ry + LEGEND_SWATCH + 3, th->axis);
			chart_text_draw(c, &it->name, it->x, it->y, 0, 0,
					th->text);
			continue;
		}
		{
			double sy = round(it->y + (it->h - LEGEND_SWATCH) / 2);

			chart_fill_rect(c, it->x, sy, it->x + LEGEND_SWATCH,
					sy + LEGEND_SWATCH,
					chart_release_rgb(c->t, th, it->r));
			chart_text_draw(c, &it->name, it->x + LEGEND_SWATCH + 4,
					it->y, 0, 0, unrel ? th->muted : th->text);
		}
	}
	*h = L.h;
	chart_legend_release(&L);
	return 0;
}

/*
 * Labels of width w (across the axis) at x[0..n), ascending: where each
 * goes (at[], kept within lo..hi) and which to draw (keep[]), so that no
 * two drawn come closer than `gap`. The first and the last are always
 * drawn (the oldest snapshot and REV); the others from the newest back,
 * each where it stands apart from those drawn, so a crowd of early
 * snapshots leaves its first. Only a plot too narrow for two labels
 * drops the first.
 */
void chart_axis_thin(const double *x, size_t n, double w, double gap,
		     double lo, double hi, double *at, unsigned char *keep)
{
	double room = w + gap, right;
	size_t k;

	for (k = 0; k < n; k++) {
		at[k] = fmin(fmax(x[k], lo + w / 2), hi - w / 2);
		keep[k] = 0;
	}
	if (!n)
		return;
	keep[n - 1] = 1;
	if (n == 1)
		return;
	keep[0] = at[n - 1] - at[0] >= room;
	right = at[n - 1];
	for (k = n - 1; k-- > 1;) {
		if (right - at[k] < room ||
		    (keep[0] && at[k] - at[0] < room))
			continue;
		keep[k] = 1;
		right = at[k];
	}
}

/* ------------------------------------------------------------------ */
/*
 * Names inside bands. Beyond LEGEND_SWATCHES releases the legend is a
 * ramp that names only some of them, so the charts of stacked releases
 * name each band in itself where it is thick enough: a name a band can
 * hold, in black or white, whichever stands out more on its colour.
 */

/* The first j with x[j] >= at, n if none (x ascending). */
static size_t first_at(const double *x, size_t n, double at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The band y = top(x)..bot(x), both straight between the points x[j]. */
static double band_at(const double *x, const double *y, size_t n, double at)
{
	size_t j;

	if (at <= x[0])
		return y[0];
	if ((j = first_at(x, n, at)) >= n)
		return y[n - 1];
	if (x[j] <= x[j - 1])
		return y[j];
	return y[j - 1] + (y[j] - y[j - 1]) * (at - x[j - 1]) /
			  (x[j] - x[j - 1]);
}

/* The room a box x0..x1 has in the band: its lowest top and highest
 * bottom there (a band bends only at the points x[j]). */
static void band_room(const double *x, const double *top, const double *bot,
		      size_t n, double x0, double x1, double *t, double *b)
{
	size_t j;

	*t = fmax(band_at(x, top, n, x0), band_at(x, top, n, x1));
	*b = fmin(band_at(x, bot, n, x0), band_at(x, bot, n, x1));
	for (j = first_at(x, n, x0); j < n && x[j] <= x1; j++) {
		*t = fmax(*t, top[j]);
		*b = fmin(*b, bot[j]);
	}
}

/*
 * Where a box w by h fits inside the band between top[] and bot[] (y
 * grows downwards) at the points x[0..n), ascending, within x_lo..x_hi:
 * centred on the point where the band has the most room around it, and
 * half a pixel clear of its edges. *cx, *cy: the box's centre; 0 if it fits
 * nowhere.
 */
int chart_band_place(const double *x, const double *top, const double *bot,
		     size_t n, double w, double h, double x_lo, double x_hi,
		     double *cx, double *cy)
{
	double best = -1;
	size_t k;

	if (!n || w > x_hi - x_lo)
		return 0;
	/* The room anywhere is at most the band's thickest point. */
	for (k = 0; k < n && bot[k] - top[k] < h + 1; k++)
		;
	if (k == n)
		return 0;
	for (k = 0; k < n; k++) {
		double c = fmin(fmax(x[k], x_lo + w / 2), x_hi - w / 2);
		double t, b;

		band_room(x, top, bot, n, c - w / 2, c + w / 2, &t, &b);
		if (b - t >= h + 1 && b - t > best) {
			best = b - t;
			*cx = c;
			*cy = (t + b) / 2;
		}
	}
	return best >= 0;
}

/* A release's name to draw in its band: its text and its ink's height. */
int chart_band_name_make(struct band_name *b, struct chart *c, size_t r)
{
	PangoRectangle ink;
	int rc;

	if ((rc = chart_text_make(&b->t, c, F_VALUE, 0, c->t->releases[r].name,
				  120, PANGO_ELLIPSIZE_END)))
		return rc;
	pango_layout_get_extents(b->t.layout, &ink, NULL);
	b->ink_y = (double)ink.y / PANGO_SCALE;
	b->ink_h = (double)ink.height / PANGO_SCALE;
	return 0;
}

/* The name with its ink centred at cx, cy, on colour bg. */
void chart_band_name_draw(struct chart *c, const struct band_name *b,
			  double cx, double cy, struct rgb bg)
{
	static const struct rgb black = { 0x10, 0x12, 0x14 };
	static const struct rgb white = { 0xff, 0xff, 0xff };
	/* relative luminance, roughly: black wins above about 0.18 */
	double l = (0.2126 * bg.r * bg.r + 0.7152 * bg.g * bg.g +
		    0.0722 * bg.b * bg.b) / (255.0 * 255.0);

	chart_text_draw(c, &b->t, cx, cy - b->ink_y - b->ink_h / 2 + b->t.y,
			0.5, 0, l > 0.18 ? black : white);
}

/* The year of a date, UTC. */
int chart_year_of(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if ((int64_t)tt != t || !gmtime_r(&tt, &tm))
		return 1970;
	return tm.tm_year + 1900;
}

int64_t chart_year_start(int y)
{
	struct tm tm = { 0 };

	tm.tm_year = y - 1900;
	tm.tm_mday = 1;
	return (int64_t)timegm(&tm);
}
