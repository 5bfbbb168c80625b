/*
 * site: the report's HTML pages, expanded from the templates in
 * `templates/` (or --templates DIR) through the ctemplate bridge.
 *
 * Pages: index.html, dir-SLUG.html for every tallied directory below the
 * root (SLUG from tally_slug()), untouched.html, releases.html,
 * history.html with a history, authors.html with the cohorts' authors
 * (not with --no-authors), and the stylesheet strata.css copied from the
 * templates. Every link is
 * relative, to a page, to data/ or to img/, so the site works from
 * file:// and from any sub-path of a server. docs/site.md describes the
 * pages and the values each template gets.
 */
#ifndef STRATA_SITE_H
#define STRATA_SITE_H

#include "strata/report.h"
#include "strata/tally.h"

/* The templates every report needs; each must start with SITE_PRAGMA. */
extern const char *const site_templates[];

#define SITE_PRAGMA "{{%AUTOESCAPE context=\"HTML\"}}"

struct site_options {
	const char *templates_dir;   /* as found by site_find_templates() */
	int dark;                    /* the charts are drawn dark */
};

/*
 * The templates directory: `given` (--templates) if not NULL, else the
 * first of these that holds index.tpl: `templates/` beside the running
 * binary, `../../templates` from it (a binary in build/MODE/ of a source
 * tree), `../share/strata/templates` from it (a moved installation),
 * then STRATA_DATADIR/templates. Also checks that every template in
 * site_templates[] is there, starts with SITE_PRAGMA and parses (through
 * ctemplate, as the pages will be expanded), so a bad --templates fails
 * before any work. *out is malloc'd.
 */
int site_find_templates(char **out, const char *given);

/*
 * Write the pages and strata.css into `dir`, which already holds the
 * charts (img/NAME.png gives each <img> its size) and data/.
 */
int site_write(const char *dir, const struct tally *t,
	       const struct report_info *info, const struct site_options *o);

#endif
