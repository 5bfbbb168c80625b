/*
 * site cycle: cycle.html, the release cycle REV0..REV (cycle.h): who
 * wrote it, from which organisations, who reviewed and tested it, and
 * how old the code was that it replaced; and its line on the index.
 */
#include "site_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/cohorts.h"
#include "strata/cycle.h"
#include "strata/error.h"

/* Rows of the developer, organisation and credit tables. */
#define CYCLE_TABLE_TOP 20

/* The cycle's people are shown (not --no-authors). */
static int cycle_people(const struct site *s)
{
	return !s->t->cohorts || s->t->cohorts->has_authors;
}

/* "6.2.0..7.0.0", and the cycle's figures every section names. */
static int cycle_names(struct site *s, struct template_dict *d)
{
	const struct cycle *c = s->t->cycle;
	int rc;

	TRY(site_set_display(d, "SINCE", c->since));
	TRY(template_dict_set(d, "SINCE_DATE", site_date(c->since_time).s));
	if (c->fork) {
		struct template_dict *f;

		TRY(template_dict_add(&f, d, "FORK"));
		TRY(template_dict_set(f, "HASH", git_oid_tostr_s(&c->since_oid)));
	}
	/* REV0's lines are its branch's fork point's: say so in the headline. */
	TRY(template_dict_show(d, c->fork ? "AT_FORK" : "AT_SINCE"));
	TRY(site_set_counted(d, "N_CHANGESETS", c->changesets, "changeset",
			     "changesets"));
	TRY(site_set_counted(d, "N_DEVELOPERS", c->authors.n, "developer",
			     "developers"));
	TRY(site_set_counted(d, "N_ORGS", c->orgs.n, "organisation",
			     "organisations"));
	TRY(template_dict_set(d, "ADDED", util_count(c->added).s));
	TRY(template_dict_set(d, "REMOVED", util_count(c->removed).s));
	TRY(template_dict_set(d, "REPLACED", util_count(c->replaced).s));
	TRY(template_dict_set(d, "REPLACED_SHARE",
			      util_percent(c->replaced, c->lines_since, 1).s));
done:
	return rc;
}

/* The index's line: "This cycle: N changesets by M developers ...". */
int site_index_cycle(struct site *s, struct template_dict *d)
{
	const struct cycle *c = s->t->cycle;
	struct template_dict *sec;
	int rc = 0;

	if (!c || c->status != CYCLE_OK)
		return 0;
	TRY(template_dict_add(&sec, d, "CYCLE"));
	TRY(cycle_names(s, sec));
	if (cycle_people(s))
		TRY(template_dict_show(sec, "PEOPLE"));
	TRY(template_dict_add(&sec, d, "CYCLE_DATA"));
	if (cycle_people(s))
		TRY(template_dict_set(sec, "AND_AUTHOR", " and author"));
	TRY(site_chart_row(s, d, "cycle-replaced", "Code the cycle replaced, "
			   "by release"));
	if (!cycle_people(s))
		return 0;
	TRY(template_dict_show(d, "CYCLE_PEOPLE_DATA"));
	TRY(site_chart_row(s, d, "cycle-authors", "Changesets by developer"));
	TRY(site_chart_row(s, d, "cycle-authors-lines", "Lines changed by "
			   "developer"));
	TRY(site_chart_row(s, d, "cycle-orgs", "Changesets by organisation"));
	TRY(site_chart_row(s, d, "cycle-orgs-lines", "Lines changed by "
			   "organisation"));
done:
	return rc;
}

/* A table of developers or organisations: the top rows, the rest. */
static int view_table(struct template_dict *d, const char *section,
		      const struct cycle_view *v, uint64_t all,
		      const char *one, const char *many)
{
	struct template_dict *sec, *row;
	uint64_t rest[3] = { 0 };
	int rc = 0;

	TRY(template_dict_add(&sec, d, section));
	for (size_t i = 0; i < v->n; i++) {
		const struct cycle_row *r = &v->v[i];

		if (i >= CYCLE_TABLE_TOP) {
			rest[0] += r->changesets;
			rest[1] += r->added;
			rest[2] += r->removed;
			continue;
		}
		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(site_set_display(row, "NAME", *r->name ? r->name :
				     "(no name)"));
		TRY(template_dict_set(row, "CHANGESETS",
				      util_count(r->changesets).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(r->changesets, all, 2).s));
		TRY(template_dict_set(row, "ADDED", util_count(r->added).s));
		TRY(template_dict_set(row, "REMOVED",
				      util_count(r->removed).s));
	}
	if (v->n > CYCLE_TABLE_TOP) {
		TRY(template_dict_add(&row, sec, "OTHERS"));
		TRY(site_set_counted(row, "N", v->n - CYCLE_TABLE_TOP, one,
				     many));
		TRY(template_dict_set(row, "CHANGESETS",
				      util_count(rest[0]).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(rest[0], all, 2).s));
		TRY(template_dict_set(row, "ADDED", util_count(rest[1]).s));
		TRY(template_dict_set(row, "REMOVED", util_count(rest[2]).s));
	}
	TRY(site_set_counted(sec, "N_ALL", v->n, one, many));
	TRY(template_dict_setf(sec, "N_SHOWN", "%d", CYCLE_TABLE_TOP));
	if (v->n > CYCLE_TABLE_TOP)
		TRY(template_dict_show(sec, "SOME"));
	else
		TRY(template_dict_show(sec, "EVERY"));
done:
	return rc;
}

/* The credits per person (after .mailmap), none shown when none. */
static int credits_table(struct site *s, struct template_dict *d)
{
	const struct cycle *c = s->t->cycle;
	struct template_dict *sec, *row, *cell;
	int rc = 0;

	if (!c->npeople)
		return 0;
	TRY(template_dict_add(&sec, d, "CREDITS"));
	TRY(site_set_counted(sec, "N_PEOPLE", c->npeople, "person",
			     "people"));
	for (int k = 0; k < CYCLE_NTRAILERS; k++) {
		TRY(template_dict_add(&cell, sec, "KIND"));
		TRY(template_dict_set(cell, "NAME", cycle_trailer_name(k)));
		TRY(template_dict_set(cell, "N", util_count(c->credited[k]).s));
	}
	for (size_t i = 0; i < c->npeople && i < CYCLE_TABLE_TOP; i++) {
		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(site_set_display(row, "NAME", c->people[i].name));
		for (int k = 0; k < CYCLE_NTRAILERS; k++) {
			TRY(template_dict_add(&cell, row, "CELL"));
			TRY(template_dict_set(cell, "N",
				util_count(c->people[i].count[k]).s));
		}
	}
	if (c->npeople > CYCLE_TABLE_TOP) {
		TRY(template_dict_add(&row, sec, "SOME"));
		TRY(template_dict_setf(row, "N_SHOWN", "%d", CYCLE_TABLE_TOP));
	}
done:
	return rc;
}

static int lines_rows(struct template_dict *d, const char *section,
		      const struct cycle_lines *v, size_t n, uint64_t all)
{
	struct template_dict *sec, *row;
	int rc = 0;

	TRY(template_dict_add(&sec, d, section));
	for (size_t i = 0; i < n && i < CYCLE_TABLE_TOP; i++) {
		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(site_set_display(row, "NAME", *v[i].name ? v[i].name :
				     "(no name)"));
		TRY(template_dict_set(row, "LINES", util_count(v[i].lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(v[i].lines, all, 2).s));
	}
	if (n > CYCLE_TABLE_TOP) {
		TRY(template_dict_add(&row, sec, "MORE"));
		TRY(site_set_counted(row, "N_MORE", n - CYCLE_TABLE_TOP,
				     "more", "more"));
	}
done:
	return rc;
}

/* The replaced lines by release (every one with some), then headline. */
static int replaced_by_release(struct site *s, struct template_dict *d)
{
	const struct cycle *c = s->t->cycle;
	const struct tally *t = s->t;
	struct template_dict *sec, *row;
	size_t oldest = SIZE_MAX;
	int rc = 0;

	TRY(template_dict_add(&sec, d, "BY_RELEASE"));
	for (size_t r = 0; r < t->nreleases; r++) {
		if (!c->replaced_by_release[r])
			continue;
		if (oldest == SIZE_MAX)
			oldest = r;
		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(site_set_display(row, "NAME", t->releases[r].name));
		TRY(template_dict_set(row, "LINES",
				      util_count(c->replaced_by_release[r]).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(c->replaced_by_release[r],
						   c->replaced, 2).s));
	}
	if (oldest == SIZE_MAX)
		return 0;
	TRY(template_dict_add(&sec, d, "OLDEST"));
	TRY(site_set_display(sec, "NAME", t->releases[oldest].name));
	TRY(template_dict_set(sec, "SHARE",
			      util_percent(c->replaced_by_release[oldest],
					   c->replaced, 1).s));
done:
	return rc;
}

/* What REV has over REV0, and how much of it older releases wrote. */
static int arrived(struct site *s, struct template_dict *d)
{
	const struct cycle *c = s->t->cycle;
	uint64_t own = c->arrived_by_release[c->rev_release];
	struct template_dict *sec;
	int rc;

	TRY(template_dict_add(&sec, d, "ARRIVED"));
	TRY(template_dict_set(sec, "LINES", util_count(c->arrived).s));
	TRY(template_dict_set(sec, "OWN_SHARE",
			      util_percent(own, c->arrived, 1).s));
	TRY(site_set_display(sec, "OWN",
			     s->t->releases[c->rev_release].unreleased ?
			     "no release yet" :
			     s->t->releases[c->rev_release].name));
	TRY(template_dict_set(sec, "OLDER", util_count(c->arrived - own).s));
done:
	return rc;
}

/* KEY_CHART and KEY_LINES_CHART: changesets and lines by `who`. */
static int people_figures(struct site *s, struct template_dict *d,
			  const char *key, const char *chart, const char *who)
{
	char k[64], name[64], alt[256], caption[128];
	int rc;

	snprintf(k, sizeof(k), "%s_CHART", key);
	snprintf(alt, sizeof(alt), "Bar chart of the share of the changesets "
		 "by each of the top %ss. The table below has the values.",
		 who);
	snprintf(caption, sizeof(caption), "Changesets by %s.", who);
	TRY(site_figure(s, d, k, chart, alt, caption));
	snprintf(k, sizeof(k), "%s_LINES_CHART", key);
	snprintf(name, sizeof(name), "%s-lines", chart);
	snprintf(alt, sizeof(alt), "Bar chart of the share of the lines added "
		 "and removed by each of the top %ss.", who);
	snprintf(caption, sizeof(caption), "Lines changed by %s.", who);
	TRY(site_figure(s, d, k, name, alt, caption));
done:
	return rc;
}

static int cycle_sections(struct site *s, struct template_dict *d)
{
	const struct cycle *c = s->t->cycle;
	struct template_dict *sec, *ok;
	int rc = 0;

	TRY(template_dict_add(&ok, d, "OK"));
	sec = ok;
	TRY(cycle_names(s, sec));
	TRY(template_dict_set(sec, "N_MERGES", util_count(c->merges).s));
	TRY(template_dict_set(sec, "N_BINARY", util_count(c->binary).s));
	TRY(template_dict_set(sec, "LINES_SINCE",
			      util_count(c->lines_since).s));
	TRY(replaced_by_release(s, sec));
	TRY(site_figure(s, sec, "REPLACED_CHART", "cycle-replaced",
			"Bar chart of the lines at the start of the cycle that "
			"its end no longer has, by the release that wrote "
			"them. The table beside it has the values.",
			"The code the cycle replaced, by release."));
	TRY(lines_rows(sec, "BY_YEAR", c->replaced_years,
		       c->nreplaced_years, c->replaced));
	TRY(arrived(s, sec));
	if (!cycle_people(s))
		return 0;
	TRY(template_dict_add(&sec, ok, "PEOPLE"));
	TRY(lines_rows(sec, "BY_AUTHOR", c->replaced_authors,
		       c->nreplaced_authors, c->replaced));
	TRY(view_table(sec, "AUTHORS", &c->authors, c->changesets,
		       "developer", "developers"));
	TRY(view_table(sec, "ORGS", &c->orgs, c->changesets, "organisation",
		       "organisations"));
	TRY(people_figures(s, sec, "AUTHORS", "cycle-authors", "developer"));
	TRY(people_figures(s, sec, "ORGS", "cycle-orgs", "organisation"));
	TRY(credits_table(s, sec));
done:
	return rc;
}

int site_write_cycle(struct site *s)
{
	const struct cycle *c = s->t->cycle;
	struct template_dict *d = NULL, *sec;
	int rc;

	if (!c)
		return 0;
	TRY(site_page_new(&d, s, "cycle.html", "The release cycle",
			  NAV_CYCLE));
	if (c->status == CYCLE_OK) {
		TRY(cycle_sections(s, d));
	} else if (c->status == CYCLE_SAME) {
		TRY(template_dict_add(&sec, d, "SAME"));
		TRY(site_set_display(sec, "SINCE", c->since));
	} else {
		TRY(template_dict_show(d, "NO_START"));
	}
	rc = site_page_write(s, "cycle.html", "cycle.tpl", d);
done:
	template_dict_free(d);
	return rc;
}
