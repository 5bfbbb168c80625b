/*
 * chart: the report's bar charts, drawn with cairo and pango.
 *
 * Every chart is drawn by one function onto three surfaces: NAME.svg (px
 * units), NAME.png at the requested size in CSS pixels, and NAME@2x.png
 * at twice that size for high-density screens and print; and, when the
 * chart is at least CHART_NARROW_WIDTH + CHART_NARROW_MARGIN wide, onto a
 * fourth, NAME@narrow.svg, CHART_NARROW_WIDTH wide, which pages show on a
 * phone. The charts are
 *
 *   releases          share of all lines by the release that wrote them,
 *                     by group of releases beyond CHART_MAX_BARS
 *   subsystems        share of first-release code per top-level directory,
 *                     sorted, with the whole tree as a reference line
 *   subsystems-stack  each top-level directory as a 100% bar of releases
 *   dir-NAME          the release distribution of every directory of
 *                     level >= 1, named by names_get(.., NAMES_CHART):
 *                     dir-Documentation, dir-arch/x86, dir-root
 *   history, history-share, survival, history-dir-NAME
 *                     with a history (snapshots.h)
 *   years             share of all lines by the calendar year of their
 *                     commit, a bar for every year of the span
 *   authors, orgs     the top 20 authors and organisations by lines and
 *                     one bar for the others, unless cohorts->has_authors
 *                     is 0 (--no-authors); with t->cohorts only
 *
 * The two subsystem charts, authors and orgs are as high as their rows
 * need, up to the height asked for: a few rows leave no empty band. Names only
 * ever get `@` and a suffix added, a byte no directory's name (names.h)
 * can hold.
 *
 * The same input gives byte-identical files. Text is set in DejaVu Sans,
 * which chart_check_font() checks for. docs/charts.md shows the charts.
 */
#ifndef STRATA_CHART_H
#define STRATA_CHART_H

#include <stddef.h>

#include "strata/report.h"
#include "strata/tally.h"

/* Limits of chart_options width and height, in CSS pixels. */
#define CHART_MIN_WIDTH 320
#define CHART_MAX_WIDTH 2000
#define CHART_MIN_HEIGHT 240
#define CHART_MAX_HEIGHT 2000

/* The width of the charts for phones (NAME@narrow.svg), and by how much a
 * chart must be wider to get one. */
#define CHART_NARROW_WIDTH 400
#define CHART_NARROW_MARGIN 80

/* The font every chart is set in (Debian fonts-dejavu-core). */
#define CHART_FONT "DejaVu Sans"

/*
 * The most bars a chart of releases has. Beyond, its bars are groups of
 * releases (chart_groups_build); the data files keep every release.
 */
#define CHART_MAX_BARS 60

enum chart_grouping {
	CHART_BY_RELEASE,       /* a bar per release */
	CHART_BY_VERSION,       /* v2.6.x, v3.x: a version's leading numbers */
	CHART_BY_YEAR           /* 2019, or spans of years: 2000-2004 */
};

/* The bars of a chart of releases; the unreleased bucket is its own. */
struct chart_groups {
	enum chart_grouping by;
	size_t n;               /* bars */
	size_t nrel;            /* bars of releases, before the unreleased */
	size_t *of;             /* bar of each t->releases[] (owned) */
	size_t *first;          /* first release of each bar (owned) */
	char **labels;          /* name of each bar (owned) */
};

/*
 * The bars for the releases of `t`, at most `max` of released code
 * (>= 2). Up to `max` releases, a bar each. Beyond, groups:
 *  - by version, when every release's name is a prefix of non-digits
 *    and numbers separated by '.' or '_' ("v2.6.39", "2021.04"): the
 *    releases that share their first L numbers make a bar, for the
 *    largest L that gives between 2 and `max` bars, labelled with the
 *    numbers all its names share ("v2.6.x"), or its one release's name;
 *  - by the year of each release's tag (releases.csv's date), or by
 *    spans of 2, 5, 10... years ("2000-2004", an en dash) when too many;
 * whichever gives more bars, version on a tie; when neither can (no
 * versions, and no dates or a single year), a bar per release. Bars are
 * in the order of their first release; the unreleased bucket has its
 * own, last. Free with chart_groups_release().
 */
int chart_groups_build(struct chart_groups *out, const struct tally *t,
		       size_t max);

void chart_groups_release(struct chart_groups *g);

/*
 * Fail unless pango resolves CHART_FONT and it has glyphs for digits and
 * letters: without a font cairo silently draws no text. Call at start-up.
 */
int chart_check_font(void);

/* STRATA_EUSAGE with a message if a width or height is out of limits. */
int chart_check_options(const struct chart_options *o);

/*
 * Draw every chart of `t` into the existing directory `img_dir`,
 * replacing files of the same names.
 */
int chart_write_all(const char *img_dir, const struct tally *t,
		    const struct report_info *info,
		    const struct chart_options *o);

/*
 * The colour of t->releases[i] in every chart under the theme, as
 * "#rrggbb" (for legends and tables in pages): an ordered, colour-blind
 * safe ramp (viridis) from oldest to newest over the releases that
 * wrote something (tally_release_silent()), grey for the unreleased
 * bucket.
 */
void chart_release_color(char out[8], const struct tally *t, size_t i,
			 int dark);

#endif
