/*
 * site_int.h: what the parts of the site module share, and nothing
 * outside src/site*.c may use (the module's API is strata/site.h).
 *
 *   site.c            templates, set-up, site_write()
 *   site_text.c       dates, durations, names fit to show
 *   site_page.c       links, figures, header and footer, writing a page
 *   site_index.c      index.html
 *   site_authors.c    years, authors.html, the authors of a subsystem
 *   site_dirs.c       a page per directory
 *   site_untouched.c  untouched.html
 *   site_releases.c   releases.html
 *   site_history.c    history.html, the history of a subsystem
 */
#ifndef STRATA_SITE_INT_H
#define STRATA_SITE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "strata/site.h"
#include "strata/tally.h"
#include "strata/template.h"
#include "strata/util.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

/* The stylesheet, copied from the templates' directory. */
#define SITE_CSS "strata.css"

/* A template or the stylesheet larger than this is refused. */
#define SITE_TEMPLATE_MAX ((size_t)1 << 20)

/* Run x; on an error, goto done with rc set. */
#define TRY(x) do { if ((rc = (x)) < 0) goto done; } while (0)

/*
 * A date or a duration as a page prints it (site_text.c); counts and
 * shares are util_count() and util_percent(), as in charts and the CSV.
 */
struct text {
	char s[48];
};

/* The site being written. */
struct site {
	const char *dir;
	const struct tally *t;
	const struct report_info *info;
	const struct site_options *o;
	struct template_set *set;
	struct names *names;
	char **dir_page;        /* per dirs[i]: its page, from the top */
	char **release_id;      /* per release: its anchor on pages */
	const char *root;       /* the page being made to the top: "../.." */
	/* untouched files below each directory, in path order (CSR) */
	size_t *below_start;    /* ndirs + 1 */
	size_t *below;          /* file indices */
	uint64_t *below_lines;  /* per dir: lines of those files */
	const char *first;      /* name of the first release */
	/*
	 * the releases the pages' tables show, and how many they leave out
	 * (tally_release_silent()): in all, and of those on REV's history
	 */
	size_t *shown, nshown;
	size_t nsilent, nsilent_on;
};

/* The page a page's header marks as the current one. */
enum nav {
	NAV_NONE, NAV_INDEX, NAV_RELEASES, NAV_HISTORY, NAV_AUTHORS,
	NAV_UNTOUCHED
};

/* ---- site.c: set-up --------------------------------------------------- */

size_t site_below_count(const struct site *s, size_t d);
size_t site_biggest(const struct site *s, const uint64_t *by);

/* ---- site_text.c ------------------------------------------------------ */

int site_set_counted(struct template_dict *d, const char *key, uint64_t n,
		     const char *one, const char *many);
struct text site_date(int64_t when);
struct text site_date_time(int64_t when);
struct text site_seconds(double s);
char *site_display(const char *raw);
int site_set_display(struct template_dict *d, const char *key,
		     const char *raw);
const char *site_base_name(const char *path);

/* ---- site_page.c ------------------------------------------------------ */

int site_has_authors(const struct site *s);
int site_set_dir_href(struct template_dict *d, const char *key,
		      struct site *s, size_t i);
int site_copy_css(struct site *s);
int site_set_img_href(struct template_dict *d, const char *key,
		      struct site *s, const char *name, const char *suffix);
int site_figure(struct site *s, struct template_dict *d, const char *key,
		const char *name, const char *alt, const char *caption);
int site_page_new(struct template_dict **out, struct site *s,
		  const char *file, const char *title, enum nav current);
int site_page_write(struct site *s, const char *file, const char *tpl,
		    struct template_dict *d);
const char *site_dir_label(const struct tally_dir *dir);
uint64_t site_first_lines(const struct site *s, const struct tally_dir *d);

/* ---- site_index.c ----------------------------------------------------- */

int site_release_dates(struct template_dict *d, const struct release *rel);
size_t site_real_releases(const struct tally *t);
int site_chart_row(struct site *s, struct template_dict *d,
		   const char *name, const char *title);
int site_write_index(struct site *s);

/* ---- site_authors.c --------------------------------------------------- */

int site_index_years(struct site *s, struct template_dict *d);
int site_dir_cohorts(struct site *s, struct template_dict *d, size_t i);
int site_write_authors(struct site *s);

/* ---- site_dirs.c ------------------------------------------------------ */

int site_write_dir(struct site *s, size_t i);

/* ---- site_untouched.c ------------------------------------------------- */

int site_write_untouched(struct site *s);

/* ---- site_releases.c -------------------------------------------------- */

int site_write_releases(struct site *s);

/* ---- site_history.c --------------------------------------------------- */

int site_history_summary(struct site *s, struct template_dict *d,
			 const char *section);
int site_write_history(struct site *s);
int site_dir_history(struct site *s, struct template_dict *d, size_t i);

#endif
