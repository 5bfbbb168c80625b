/*
 * site authors: when and by whom the lines were written: the years on
 * the index and on each subsystem's page, and authors.html (authors and
 * organisations, overall and per subsystem).
 */
#include "site_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/cohorts.h"
#include "strata/error.h"

/* ---- years on the index, and authors.html ---- */

/* Rows of the author and organisation tables on authors.html. */
#define COHORT_TABLE_TOP 50

/* Authors listed per subsystem on authors.html. */
#define SUBSYSTEM_AUTHORS 10

/* Rows of their own in img/authors and img/orgs (chart.c draws as many). */
#define COHORT_CHART_TOP 20

/* The whole tree, where a subsystem's index is asked for. */
#define ALL_SUBSYSTEMS SIZE_MAX

/* Lines of cohort c in subsystem `sub` (or all of them). */
static uint64_t cohort_lines(const struct cohort *c, size_t sub)
{
	return sub == ALL_SUBSYSTEMS ? c->lines : c->by_subsystem[sub];
}

/* The lines of the years before `year`, and the median line's year. */
static uint64_t years_before(const struct cohort_view *v, int year,
			     size_t sub)
{
	uint64_t n = 0;

	for (size_t i = 0; i < v->n && atoi(v->v[i].name) < year; i++)
		n += cohort_lines(&v->v[i], sub);
	return n;
}

static const char *years_median(const struct cohort_view *v, uint64_t total,
				size_t sub)
{
	uint64_t n = 0;

	for (size_t i = 0; i < v->n; i++)
		if ((n += cohort_lines(&v->v[i], sub)) * 2 >= total)
			return v->v[i].name;
	return v->n ? v->v[v->n - 1].name : "";
}

/*
 * "45.0% of the lines at REV were last changed before 2016" (five
 * calendar years before REV's own), "half of them in 2012 or earlier":
 * of the whole tree, or of subsystem `sub`'s `total` lines.
 */
static int years_summary(struct site *s, struct template_dict *d, size_t sub,
			 uint64_t total)
{
	const struct cohorts *co = s->t->cohorts;
	int year = atoi(site_date(s->info->commit_time).s) - 4;
	uint64_t old = years_before(&co->years, year, sub);
	struct template_dict *sec;
	int rc = 0;

	if (!total)
		return 0;
	TRY(template_dict_set(d, "MEDIAN",
			      years_median(&co->years, total, sub)));
	if (!old)
		return template_dict_show(d, "NO_OLD");
	TRY(template_dict_add(&sec, d, "OLD"));
	TRY(template_dict_setf(sec, "YEAR", "%d", year));
	TRY(template_dict_set(sec, "SHARE", util_percent(old, total, 1).s));
done:
	return rc;
}

int site_index_years(struct site *s, struct template_dict *d)
{
	const struct cohorts *co = s->t->cohorts;
	struct template_dict *sec, *row;
	int rc = 0;

	if (!co)
		return 0;
	TRY(template_dict_add(&sec, d, "YEARS"));
	TRY(template_dict_set(sec, "DATE", cohorts_date_name(co->date)));
	TRY(years_summary(s, sec, ALL_SUBSYSTEMS, co->total_lines));
	for (size_t i = 0; i < co->years.n; i++) {
		const struct cohort *y = &co->years.v[i];

		TRY(template_dict_add(&row, sec, "YEAR"));
		TRY(template_dict_set(row, "NAME", y->name));
		TRY(template_dict_set(row, "COMMITS",
				      util_count(y->commits).s));
		TRY(template_dict_set(row, "LINES", util_count(y->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(y->lines, co->total_lines,
						   2).s));
	}
	TRY(site_figure(s, sec, "YEARS_CHART", "years", "Bar chart of the "
			"share of the lines by the calendar year of the "
			"commit that last changed them, oldest on the left. "
			"The table beside it has every value.", "The share "
			"of today's lines last changed in each year."));
	TRY(template_dict_show(d, "YEARS_DATA"));
	TRY(site_chart_row(s, d, "years", "Lines by year"));
	if (site_has_authors(s)) {
		TRY(template_dict_show(d, "AUTHORS_DATA"));
		TRY(site_chart_row(s, d, "authors", "Lines by author"));
		TRY(site_chart_row(s, d, "orgs", "Lines by organisation"));
	}
done:
	return rc;
}

/* One row of a table of cohorts. */
static int cohort_row(struct template_dict *d, const struct cohort *c,
		      uint64_t total)
{
	struct template_dict *row;
	int rc;

	TRY(template_dict_add(&row, d, "ROW"));
	TRY(site_set_display(row, "NAME", *c->name ? c->name : "(no name)"));
	TRY(template_dict_set(row, "FILES", util_count(c->files).s));
	TRY(template_dict_set(row, "LINES", util_count(c->lines).s));
	TRY(template_dict_set(row, "SHARE", util_percent(c->lines, total,
							 2).s));
	TRY(template_dict_set(row, "COMMITS", util_count(c->commits).s));
done:
	return rc;
}

/* The top rows of a view into `section`, one row for the others, all. */
static int cohort_table(struct template_dict *d, const char *section,
			const struct cohort_view *v, uint64_t total,
			const char *one, const char *many)
{
	uint64_t lines = 0, commits = 0, all = 0;
	struct template_dict *sec, *others;
	int rc = 0;

	TRY(template_dict_add(&sec, d, section));
	for (size_t i = 0; i < v->n; i++) {
		all += v->v[i].commits;
		if (i < COHORT_TABLE_TOP) {
			TRY(cohort_row(sec, &v->v[i], total));
		} else {
			lines += v->v[i].lines;
			commits += v->v[i].commits;
		}
	}
	if (v->n > COHORT_TABLE_TOP) {
		TRY(template_dict_add(&others, sec, "OTHERS"));
		TRY(site_set_counted(others, "N", v->n - COHORT_TABLE_TOP, one,
				     many));
		TRY(template_dict_set(others, "LINES", util_count(lines).s));
		TRY(template_dict_set(others, "SHARE",
				      util_percent(lines, total, 2).s));
		TRY(template_dict_set(others, "COMMITS",
				      util_count(commits).s));
	}
	TRY(site_set_counted(sec, "N_ALL", v->n, one, many));
	if (v->n > COHORT_TABLE_TOP) {
		TRY(template_dict_add(&others, sec, "SOME"));
		TRY(site_set_counted(others, "N_SHOWN", COHORT_TABLE_TOP, one,
				     many));
	} else {
		TRY(template_dict_show(sec, "EVERY"));
	}
	TRY(template_dict_set(sec, "LINES", util_count(total).s));
	TRY(template_dict_set(sec, "COMMITS", util_count(all).s));
done:
	return rc;
}

/* Authors by their lines in subsystem `sub` (qsort_r payload). */
static int by_subsystem_lines(const void *a, const void *b, void *payload)
{
	const struct cohort *v = ((const struct cohort_view *)
				  ((const void *const *)payload)[0])->v;
	size_t sub = *(const size_t *)((const void *const *)payload)[1];
	const struct cohort *x = &v[*(const size_t *)a];
	const struct cohort *y = &v[*(const size_t *)b];

	if (x->by_subsystem[sub] != y->by_subsystem[sub])
		return x->by_subsystem[sub] > y->by_subsystem[sub] ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A subsystem's top authors, by the lines they wrote in it. */
static int subsystem_authors(struct site *s, struct template_dict *d,
			     size_t sub, size_t *idx)
{
	const struct cohorts *co = s->t->cohorts;
	const struct tally_dir *dir = &s->t->dirs[co->subsystems[sub]];
	const void *payload[2] = { &co->authors, &sub };
	struct template_dict *sec, *row;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < co->authors.n; i++)
		if (co->authors.v[i].by_subsystem[sub])
			idx[n++] = i;
	if (!n)
		return 0;
	qsort_r(idx, n, sizeof(*idx), by_subsystem_lines, payload);
	TRY(template_dict_add(&sec, d, "SUBSYSTEM"));
	TRY(site_set_display(sec, "NAME", site_dir_label(dir)));
	TRY(site_set_dir_href(sec, "HREF", s, co->subsystems[sub]));
	TRY(site_set_counted(sec, "N_LINES", dir->lines, "line", "lines"));
	TRY(site_set_counted(sec, "N_AUTHORS", n, "author", "authors"));
	if (n > SUBSYSTEM_AUTHORS) {
		struct template_dict *top;

		TRY(template_dict_add(&top, sec, "TOP"));
		TRY(template_dict_setf(top, "N_TOP", "%d", SUBSYSTEM_AUTHORS));
	}
	for (size_t k = 0; k < n && k < SUBSYSTEM_AUTHORS; k++) {
		const struct cohort *a = &co->authors.v[idx[k]];

		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(site_set_display(row, "NAME",
				     *a->name ? a->name : "(no name)"));
		TRY(template_dict_set(row, "LINES",
				      util_count(a->by_subsystem[sub]).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(a->by_subsystem[sub],
						   dir->lines, 2).s));
	}
done:
	return rc;
}

static int authors_by_subsystem(struct site *s, struct template_dict *d)
{
	const struct cohorts *co = s->t->cohorts;
	size_t *idx = malloc((co->authors.n ? co->authors.n : 1) *
			     sizeof(*idx));
	int rc = 0;

	if (!idx)
		return error_oom();
	for (size_t sub = 0; sub < co->nsubsystems && rc == 0; sub++)
		rc = subsystem_authors(s, d, sub, idx);
	free(idx);
	return rc;
}

/*
 * A subsystem's page (a top-level directory): its years, and unless
 * --no-authors, its top authors, as authors.html shows them.
 */
int site_dir_cohorts(struct site *s, struct template_dict *d, size_t i)
{
	const struct cohorts *co = s->t->cohorts;
	struct template_dict *sec;
	size_t sub = 0, *idx = NULL;
	int rc = 0;

	while (co && sub < co->nsubsystems && co->subsystems[sub] != i)
		sub++;
	if (!co || sub == co->nsubsystems || !s->t->dirs[i].lines)
		return 0;
	TRY(template_dict_add(&sec, d, "COHORTS"));
	TRY(template_dict_set(sec, "DATE", cohorts_date_name(co->date)));
	TRY(years_summary(s, sec, sub, s->t->dirs[i].lines));
	if (!site_has_authors(s))
		goto done;
	if (!(idx = malloc((co->authors.n ? co->authors.n : 1) *
			   sizeof(*idx)))) {
		rc = error_oom();
		goto done;
	}
	rc = subsystem_authors(s, sec, sub, idx);
done:
	free(idx);
	return rc;
}

/* "NAME wrote the most: 9.4%; the top 20 authors, 50.3%" */
static int authors_headline(struct site *s, struct template_dict *d)
{
	const struct cohort_view *v = &s->t->cohorts->authors;
	uint64_t total = s->t->cohorts->total_lines, lines = 0;
	struct template_dict *sec, *top;
	int rc = 0;

	if (!v->n || !total)
		return 0;
	TRY(template_dict_add(&sec, d, "HEADLINE"));
	TRY(site_set_display(sec, "NAME", *v->v[0].name ? v->v[0].name :
			     "(no name)"));
	TRY(template_dict_set(sec, "SHARE",
			      util_percent(v->v[0].lines, total, 1).s));
	if (v->n <= COHORT_CHART_TOP)
		return 0;
	for (size_t i = 0; i < COHORT_CHART_TOP; i++)
		lines += v->v[i].lines;
	TRY(template_dict_add(&top, sec, "TOP"));
	TRY(site_set_counted(top, "N_TOP", COHORT_CHART_TOP, "author",
			     "authors"));
	TRY(template_dict_set(top, "TOP_SHARE", util_percent(lines, total,
							     1).s));
done:
	return rc;
}

/* How many authors and organisations, and what names the latter. */
static int authors_counts(struct site *s, struct template_dict *d)
{
	struct template_dict *sec;
	int rc;

	TRY(site_set_counted(d, "N_AUTHORS", s->t->cohorts->authors.n, "author",
			     "authors"));
	TRY(site_set_counted(d, "N_ORGS", s->t->cohorts->orgs.n, "organisation",
			     "organisations"));
	if (s->info->org_map) {
		TRY(template_dict_add(&sec, d, "ORG_MAP"));
		TRY(site_set_display(sec, "FILE",
				     site_base_name(s->info->org_map)));
	} else {
		TRY(template_dict_show(d, "NO_ORG_MAP"));
	}
done:
	return rc;
}

int site_write_authors(struct site *s)
{
	const struct cohorts *co = s->t->cohorts;
	struct template_dict *d = NULL;
	int rc;

	if (!site_has_authors(s))
		return 0;
	TRY(site_page_new(&d, s, "authors.html", "Authors", NAV_AUTHORS));
	TRY(authors_headline(s, d));
	TRY(authors_counts(s, d));
	TRY(site_figure(s, d, "AUTHORS_CHART", "authors", "Bar chart of the "
			"share of the lines written by each of the top "
			"authors, and by all the others together. The table "
			"beside it has the values.", "The share of today's "
			"lines by author."));
	TRY(site_figure(s, d, "ORGS_CHART", "orgs", "Bar chart of the share "
			"of the lines written by the authors of each of the "
			"top organisations, and by all the others together. "
			"The table beside it has the values.", "The share of "
			"today's lines by organisation."));
	TRY(cohort_table(d, "AUTHORS", &co->authors, co->total_lines,
			 "author", "authors"));
	TRY(cohort_table(d, "ORGS", &co->orgs, co->total_lines,
			 "organisation", "organisations"));
	TRY(authors_by_subsystem(s, d));
	TRY(site_set_counted(d, "N_PER_SUBSYSTEM", SUBSYSTEM_AUTHORS, "author",
			     "authors"));
	rc = site_page_write(s, "authors.html", "authors.tpl", d);
done:
	template_dict_free(d);
	return rc;
}
