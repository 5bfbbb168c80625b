/*
 * publish: the half of strata that draws and writes pages, loaded only
 * when a report is published.
 *
 * The charts (chart.c: cairo, pango) and the pages (site.c, template.cc:
 * ctemplate) are built into a shared object of their own,
 * strata-publish.so. Those libraries bring about forty more with them,
 * and binding and mapping them took about 8 ms of every start; `strata
 * blame` and `strata table` need none of them. `strata report` loads the
 * object through publish_load() and calls it through the table below.
 *
 * The object finds strata's own functions (error.h, names.h) in the
 * running binary, which exports its symbols for it.
 */
#ifndef STRATA_PUBLISH_H
#define STRATA_PUBLISH_H

#include "strata/chart.h"
#include "strata/report.h"
#include "strata/site.h"
#include "strata/tally.h"

/* The object's file name. */
#define PUBLISH_OBJECT "strata-publish.so"

/* The one symbol it exports: a struct publish_api. */
#define PUBLISH_SYMBOL "strata_publish_api"

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
 * if it is from another version of strata. A program linked with
 * chart.c, site.c and template.cc itself (a unit test) gets its own
 * table. The table is static: never freed.
 */
int publish_load(const struct publish_api **out);

#endif
