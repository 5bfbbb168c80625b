/*
 * publish: the half of strata that draws and writes pages, loaded only
 * when a report is published.
 *
 * The charts (src/chart*.c: cairo, pango), the pages (src/site*.c,
 * template.cc: ctemplate) and the names of pages and charts (names.c)
 * are built into a shared object of their own, strata-publish.so. Those
 * libraries bring many more with them, which every start would bind and
 * map (docs/performance.md); `strata blame` and `strata table` need none
 * of them. `strata report` loads the object through publish_load() and
 * calls it through the table below.
 *
 * The object calls back into the running binary, which exports to it
 * only the functions src/publish.sym lists (error.h, util.h, a few of
 * the tally's and the history's).
 */
#ifndef STRATA_PUBLISH_H
#define STRATA_PUBLISH_H

#include "strata/chart.h"
#include "strata/report.h"
#include "strata/site.h"
#include "strata/tally.h"

/* The object's file name. */
#define PUBLISH_OBJECT "strata-publish.so"

/* The symbol of its table: a struct publish_api. */
#define PUBLISH_SYMBOL "strata_publish_api"

/*
 * The interface between the binary and the object, by number: the table
 * below, the structs it passes (tally.h, report.h, chart.h, site.h,
 * snapshots.h, cohorts.h, cycle.h) and the functions of src/publish.sym. Any
 * change to one of them is a new number. The object exports its number
 * as an int named PUBLISH_ABI_SYMBOL; the binary loads only an object
 * with its own.
 */
#define PUBLISH_ABI 8
#define PUBLISH_ABI_SYMBOL "strata_publish_abi"

struct publish_api {
	const char *version;    /* STRATA_VERSION it was built with */
	int (*check_font)(void);                        /* chart_check_font */
	int (*find_templates)(char **out, const char *given);
	int (*write_charts)(const char *img_dir, const struct tally *t,
			    const struct report_info *info,
			    const struct chart_options *o);
	int (*write_site)(const char *dir, const struct tally *t,
			  const struct report_info *info,
			  const struct site_options *o);
};

/*
 * Load the object (once; later calls return the same table) from the
 * first of: beside the running binary, `../lib/strata/` from it (an
 * installation, also a moved one), STRATA_LIBDIR. Fails if none loads or
 * if its interface is not PUBLISH_ABI ("strata-publish.so has interface
 * N, this strata needs M"); an object from before interfaces had numbers
 * is named by its version. A program linked with the chart, site and
 * template sources itself (a unit test) gets its own table. The table
 * is static: never freed.
 */
int publish_load(const struct publish_api **out);

#endif
