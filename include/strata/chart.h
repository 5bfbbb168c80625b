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
 *   releases          share of all lines by the release that wrote them
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
 * safe ramp (viridis) from oldest to newest, grey for the unreleased
 * bucket.
 */
void chart_release_color(char out[8], const struct tally *t, size_t i,
			 int dark);

#endif
