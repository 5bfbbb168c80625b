/*
 * chart_int.h: what the parts of the chart module share, and nothing
 * outside src/chart*.c may use (the module's API is strata/chart.h).
 *
 * Every chart is one drawing function (a draw_fn) working in CSS pixels;
 * chart_emit() (chart_out.c) runs it on an image surface at scale 1 and 2
 * and on an SVG surface. Layout decisions come from pango measurements
 * made with fixed font options on a context of our own, whatever the
 * surface, so the three files have the same layout.
 *
 * Crisp edges: bars have whole-pixel edges; 1px lines are drawn at
 * half-pixel centres. A value v maps to the pixel edge Y(v) (or X(v));
 * a bar of value v covers the rows from Y(v) down to the baseline, and
 * the grid line of v is the row Y(v), so a bar ending on a grid value
 * covers its line and the row above it shows the background.
 *
 *   chart.c             the entry points: options, chart_write_all()
 *   chart_kit.c         colours, numbers, text, shapes, the frame, axes
 *                       and legend that every chart draws with
 *   chart_out.c         surfaces and files (PNG, @2x PNG, SVG), fonts
 *   chart_proc.c        drawing in child processes
 *   chart_groups.c      the bars of a chart of many releases
 *   chart_bars.c        releases and dir-NAME: lines over releases
 *   chart_subsystems.c  subsystems and subsystems-stack
 *   chart_history.c     history*, survival: the snapshots
 *   chart_cohorts.c     years, authors, orgs
 *   chart_cycle.c       the release cycle: developers, organisations,
 *                       the code it replaced
 */
#ifndef STRATA_CHART_INT_H
#define STRATA_CHART_INT_H

#include <cairo.h>
#include <pango/pangocairo.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/chart.h"
#include "strata/tally.h"

/* Colours: the viridis ramp and two themes (chart_kit.c). */
struct rgb {
	unsigned char r, g, b;
};

struct theme {
	struct rgb bg, text, muted, grid, axis, unreleased;
	double lo, hi; /* the part of the ramp used, oldest to newest */
};

/* The few text sizes: each is a set of glyph outlines in every SVG. */
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

struct text {
	PangoLayout *layout;
	double x, y;  /* logical rectangle's offset */
	double w, h;  /* and size */
};

/* One drawing of one chart on one surface. */
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

/* The margin round every chart. */
#define PAD 14.0

/* A row of the subsystem charts: a top-level directory, or the rest. */
struct row {
	const char *path;      /* NULL for the "others" row */
	size_t nothers;
	uint64_t lines;
	const uint64_t *by_release;
	double first_share;
	uint64_t first;        /* its lines from the first release */
};

struct rows {
	struct row *v;
	size_t n;
	uint64_t *others;      /* by_release of the "others" row (owned) */
};

/* Where bar i lies, in whole pixels. */
struct bars {
	double left, slot, gap_unrel, ux;  /* ux: first unreleased slot */
	size_t nrel, n;
	double maxw;
};

/* The x labels of a distribution chart. */
struct xlabels {
	struct text *v;          /* per bar; only those drawn are laid out */
	size_t n, k;             /* every k-th release bar is labelled */
	int across;              /* written across, else turned upright */
	double h, band;          /* a line's height; the height they take */
};

/* Rows of horizontal bars: the subsystem charts, authors and orgs. */
struct hbars {
	double pl, pr, pt, pb, pitch;
	double spare;           /* height the rows leave unused */
	double label_w;
	struct text *labels;
	size_t n;
};

/* A chart: draws itself from `arg` in CSS pixels, sets c->spare. */
typedef int (*draw_fn)(struct chart *c, const void *arg);

/* A run of chart_write_all(): what every chart of a report shares. */
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
	const struct tally *full;   /* t before the view left releases out */
	unsigned part, parts;   /* this process's, of the processes drawing */
	size_t emits;           /* chart_emit() calls so far */
	/*
	 * With parts > 1, the charts are handed out as the processes come
	 * for them: *claims (shared by all of them) counts the emits taken,
	 * and this process draws emit `mine` next (chart_emit_fit()).
	 * Without shared memory, emit k is part k % parts's.
	 */
	atomic_size_t *claims;
	size_t mine;
	bool claimed;
	const char *fail;       /* test hook: the chart to fail (chart.c) */
	const char *trace;      /* test hook: the file of charts drawn */
};

/* ---- chart_proc.c --------------------------------------------------- */

/* A child process drawing charts, and the pipe of its error message. */
struct chart_child {
	int pid;
	int fd;
};

/* Fork a child that runs fn(arg) and exits: 0 or an error. */
int chart_child_start(struct chart_child *c, int (*fn)(void *), void *arg);

/*
 * Wait for c (after SIGKILL if kill_it: then its end is not an error)
 * and return its result: 0, or its error as this process's. A child
 * never started (pid -1) is 0.
 */
int chart_child_finish(struct chart_child *c, int kill_it);

/* ---- chart_kit.c ---------------------------------------------------- */

extern const struct theme chart_theme_light;
extern const struct theme chart_theme_dark;
struct rgb chart_ramp(double t);
/* Up to RAMP_PLAIN releases the ramp alone; beyond, every other release
 * RAMP_LIGHTEN of the way to white. */
#define RAMP_PLAIN 5
#define RAMP_LIGHTEN 0.3
size_t chart_released_count(const struct tally *t);
struct rgb chart_release_rgb(const struct tally *t, const struct theme *th,
			     size_t i);
void chart_fmt_short(char *buf, size_t size, uint64_t v);
void chart_fmt_tick(char *buf, size_t size, double v);
double chart_nice_step(double range, int max);
double chart_nice_max(double v, double step);
void chart_text_free(struct text *t);
int chart_text_make(struct text *t, struct chart *c, enum font f,
		    int italic, const char *s, double max_w,
		    PangoEllipsizeMode mode);
void chart_set_rgb(struct chart *c, struct rgb col);
void chart_text_draw(struct chart *c, const struct text *t, double x,
		     double y, double ax, double ay, struct rgb col);
void chart_text_draw_up(struct chart *c, const struct text *t, double x,
			double y, struct rgb col);
int chart_text_put(struct chart *c, enum font f, int italic, const char *s,
		   double max_w, double x, double y, double ax, double ay,
		   struct rgb col, double *w, double *h);
int chart_text_height(struct chart *c, enum font f, double *h);
int chart_text_width(struct chart *c, enum font f, int italic,
		     const char *s, double *w);
void chart_fill_rect(struct chart *c, double x0, double y0, double x1,
		     double y1, struct rgb col);
void chart_hline(struct chart *c, double x0, double x1, double row,
		 struct rgb col);
void chart_vline(struct chart *c, double col_x, double y0, double y1,
		 struct rgb col);
void chart_vline_dashed(struct chart *c, double col_x, double y0,
			double y1, struct rgb col, double on, double off);
const char *chart_rev_of(const struct report_info *info);
const char *chart_repo_of(const struct report_info *info);
const char *chart_first_name(const struct tally *t);
uint64_t chart_first_lines(const struct tally *t, const struct tally_dir *d);
int chart_draw_frame(struct chart *c, const char *title,
		     const char *subtitle, double *top, double *bottom);
int chart_draw_message(struct chart *c, const char *msg, double top,
		       double bottom);
void chart_bar_edges(const struct bars *b, size_t i, double *x0, double *x1);
double chart_bar_centre(const struct bars *b, size_t i);
void chart_xlabels_release(struct xlabels *L);
int chart_xlabels_layout(struct xlabels *L, struct chart *c,
			 const struct chart_groups *g, const struct bars *b);
void chart_xlabels_draw(struct chart *c, const struct xlabels *L,
			const struct bars *b, double pb);
int chart_y_grid(struct chart *c, double step, double ymax, double pl,
		 double pr, double pb, double ph);
void chart_bars_place(struct bars *b, double pl, double pr, size_t n,
		      size_t nrel);
void chart_hbars_release(struct hbars *h);
int chart_hbars_labels(struct hbars *h, struct chart *c);
void chart_hbars_fit(struct hbars *h);
void chart_hbars_row(const struct hbars *h, size_t i, double *y0,
		     double *y1);
void chart_hbars_draw_labels(struct chart *c, const struct hbars *h);
double chart_share_x(const struct hbars *h, double v, double xmax);
int chart_subsystems_axis(struct chart *c, const struct hbars *h,
			  double step, double xmax, double tick_h,
			  const struct text *xtitle);
/* The legend of the releases: swatches up to LEGEND_SWATCHES releases,
 * else a ramp named at some of its releases. */
#define LEGEND_SWATCHES 20
#define LEGEND_SWATCH 10.0
#define LEGEND_LEADING 4.0

struct legend_item {
	size_t r;               /* release of t */
	double x, y, w, h;      /* its box: swatch and name, or name */
	struct text name;
};

struct legend {
	struct legend_item *v;  /* in drawing order */
	size_t n;
	int ramp;               /* v[] are names under the ramp (and
				   unreleased's entry, last) */
	double rx0, rx1, ry;    /* the ramp's ends and top */
	double h;               /* the height it takes */
};

int chart_legend_layout(struct legend *L, struct chart *c, double y);
void chart_legend_release(struct legend *L);
int chart_draw_legend(struct chart *c, double y, double *h);

void chart_axis_thin(const double *x, size_t n, double w, double gap,
		     double lo, double hi, double *at, unsigned char *keep);

/* Names inside the bands of stacked releases, beyond LEGEND_SWATCHES. */
struct band_name {
	struct text t;
	double ink_y, ink_h;    /* the ink's top in the layout, its height */
};

int chart_band_place(const double *x, const double *top, const double *bot,
		     size_t n, double w, double h, double x_lo, double x_hi,
		     double *cx, double *cy);
int chart_band_name_make(struct band_name *b, struct chart *c, size_t r);
void chart_band_name_draw(struct chart *c, const struct band_name *b,
			  double cx, double cy, struct rgb bg);

/* Calendar years in UTC, for the groups by year and the history's axis. */
int chart_year_of(int64_t t);
int64_t chart_year_start(int y);

/* ---- chart_subsystems.c: the rows, built once for every chart ------- */

int chart_row_label(char *buf, size_t size, const struct row *r);
void chart_rows_release(struct rows *r);
int chart_rows_build(struct rows *out, const struct tally *t, size_t max);
size_t chart_rows_max(double h);

/* ---- the charts: chart_bars.c, chart_history.c, chart_cohorts.c ----- */

int chart_releases(struct charts *x);
int chart_dirs(struct charts *x);
int chart_subsystems(struct charts *x);
int chart_history(struct charts *x);

/* The survival chart's names at the ends of their curves (chart_history.c):
 * at most SURVIVAL_CURVES curves, each named; a name moves at most
 * SURVIVAL_REACH lines off its curve's end. */
#define SURVIVAL_CURVES 16
#define SURVIVAL_REACH 8

struct end_label {
	size_t r;               /* release */
	double ex, ey;          /* the end of its curve */
	double x, y, w, h;      /* its box, when placed */
	int placed;
};

void chart_labels_place(struct end_label *v, size_t n, double x0,
			double x1, double y0, double y1);
int chart_labels_stack(struct end_label *v, size_t n, double x, double y0,
		       double y1);
int chart_cohorts(struct charts *x);
int chart_cycle(struct charts *x);

struct cohort_view;

/* A bar per release (or group of them) of counts[] (chart_bars.c). */
struct dist {
	const char *title, *subtitle;
	const char *ytitle;      /* NULL: "share of lines" */
	const uint64_t *counts;  /* per release of the chart's tally */
	uint64_t total;
};

int chart_draw_dist(struct chart *c, const void *arg);

/*
 * The top cohorts of a view, one row each, and the rest in one last row,
 * "N others" (chart_cohorts.c): each cohort's `lines` counted.
 */
struct ranked {
	const char *title, *subtitle;
	const char *xtitle;     /* NULL: "share of lines" */
	const struct cohort_view *v;
	uint64_t total;
	size_t ntop;            /* rows of their own */
};

/* Rows of their own in the ranked charts, at most. */
#define RANKED_TOP 20

int chart_draw_ranked(struct chart *c, const void *arg);

/* ---- chart_out.c ------------------------------------------------------ */

int chart_emit_fit(struct charts *x, const char *name, draw_fn fn,
		   const void *arg, int fit);
int chart_emit(struct charts *x, const char *name, draw_fn fn,
	       const void *arg);
void chart_fonts_open(PangoFontMap **fm, PangoContext **pc);
void chart_fonts_close(PangoFontMap *fm, PangoContext *pc);

#endif
