/*
 * chart: the entry points of the chart module (strata/chart.h). The
 * charts are drawn by the families chart_bars.c, chart_subsystems.c,
 * chart_history.c and chart_cohorts.c with the kit of chart_kit.c, onto
 * the surfaces of chart_out.c (chart_int.h says what each holds).
 */
#include "chart_int.h"

#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/names.h"

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

int chart_write_all(const char *img_dir, const struct tally *t,
		    const struct report_info *info,
		    const struct chart_options *o)
{
	struct charts x;
	int rc;

	memset(&x, 0, sizeof(x));
	if ((rc = chart_check_options(o)))
		return rc;
	x.dir = img_dir;
	x.t = t;
	x.info = info;
	x.th = o->dark ? &chart_theme_dark : &chart_theme_light;
	x.w = o->width;
	x.h = o->height;
	x.nrel = chart_released_count(t);
	chart_fonts_open(&x.fm, &x.pc);
	if ((rc = names_new(&x.names, t)) < 0 ||
	    (rc = chart_rows_build(&x.rows, t, chart_rows_max(o->height))) ||
	    (rc = chart_groups_build(&x.groups, t, CHART_MAX_BARS)))
		goto done;
	if ((rc = chart_releases(&x)) || (rc = chart_subsystems(&x)) ||
	    (rc = chart_dirs(&x)) || (rc = chart_history(&x)))
		goto done;
	rc = chart_cohorts(&x);
done:
	free(x.path);
	names_free(x.names);
	chart_rows_release(&x.rows);
	chart_groups_release(&x.groups);
	chart_fonts_close(x.fm, x.pc);
	return rc;
}
