/*
 * site index: index.html, the report's front page: the headline
 * figures, the charts, and a row per subsystem.
 */
#include "site_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/chart.h"
#include "strata/error.h"
#include "strata/names.h"
#include "strata/snapshots.h"

static int tags_summary(char **out, const struct release *rel)
{
	char *first, *last = NULL;
	int n;

	*out = NULL;
	if (!rel || !rel->ntags)
		return (*out = strdup("")) ? 0 : error_oom();
	first = site_display(rel->tags[0].name);
	if (rel->ntags > 1)
		last = site_display(rel->tags[rel->ntags - 1].name);
	if (!first || (rel->ntags > 1 && !last)) {
		free(first);
		free(last);
		return error_oom();
	}
	if (rel->ntags == 1)
		n = asprintf(out, "%s", first);
	else if (rel->ntags == 2)
		n = asprintf(out, "%s, %s", first, last);
	else
		n = asprintf(out, "%s … %s (%zu tags)", first, last,
			     rel->ntags);
	free(first);
	free(last);
	if (n < 0) {
		*out = NULL;
		return error_oom();
	}
	return 0;
}

/*
 * A release's tag dates: FROM, and UNTIL (with TO) when its tags span
 * more than a day; nothing for the unreleased bucket. Pages keep each
 * date whole, so a range breaks only at its dash.
 */
int site_release_dates(struct template_dict *d, const struct release *rel)
{
	struct template_dict *until;
	struct text first, last;
	int rc;

	if (!rel || rel->unreleased || !rel->ntags)
		return template_dict_set(d, "FROM", "");
	first = site_date(rel->first_date);
	last = site_date(rel->last_date);
	TRY(template_dict_set(d, "FROM", first.s));
	if (strcmp(first.s, last.s)) {
		TRY(template_dict_add(&until, d, "UNTIL"));
		TRY(template_dict_set(until, "TO", last.s));
	}
done:
	return rc;
}

size_t site_real_releases(const struct tally *t)
{
	size_t n = 0;

	for (size_t r = 0; r < t->nreleases; r++)
		n += !t->releases[r].unreleased;
	return n;
}

int site_chart_row(struct site *s, struct template_dict *d,
		   const char *name, const char *title)
{
	struct template_dict *row;
	int rc;

	TRY(template_dict_add(&row, d, "CHART"));
	TRY(site_set_img_href(row, "SVG", s, name, ".svg"));
	TRY(site_set_img_href(row, "PNG", s, name, ".png"));
	TRY(site_set_img_href(row, "PNG2X", s, name, "@2x.png"));
	TRY(site_set_display(row, "TITLE", title));
done:
	return rc;
}

/*
 * The newest real release (not the first) that wrote something REV holds,
 * or t->nreleases when none.
 */
static size_t newest_release(const struct tally *t)
{
	for (size_t r = t->nreleases; r-- > 1;)
		if (!t->releases[r].unreleased && !tally_release_silent(t, r))
			return r;
	return t->nreleases;
}

/* The figures at the top: lines, files, and where they come from. */
static int index_headline(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	const struct tally_dir *root = &t->dirs[0];
	struct template_dict *sec;
	size_t newest = newest_release(t);
	int rc;

	TRY(template_dict_set(d, "LINES", util_count(t->total_lines).s));
	TRY(template_dict_set(d, "FILES", util_count(t->nfiles).s));
	TRY(site_set_counted(d, "N_LINES", t->total_lines, "line", "lines"));
	TRY(site_set_counted(d, "N_FILES", t->nfiles, "file", "files"));
	TRY(site_set_counted(d, "N_RELEASES", site_real_releases(t) -
			     s->nsilent, "release", "releases"));
	TRY(template_dict_set(d, "FIRST_SHARE",
			      util_percent(site_first_lines(s, root),
					   t->total_lines, 2).s));
	if (t->total_lines) {
		TRY(template_dict_add(&sec, d, "HEADLINE"));
		TRY(template_dict_set(sec, "FIRST_SHARE",
			util_percent(site_first_lines(s, root), t->total_lines,
				     1).s));
	} else {
		TRY(template_dict_show(d, "NO_LINES"));
	}
	if (newest < t->nreleases) {
		TRY(template_dict_add(&sec, d, "NEWEST"));
		TRY(site_set_display(sec, "NAME", t->releases[newest].name));
		TRY(template_dict_set(sec, "SHARE",
			util_percent(t->releases[newest].lines, t->total_lines,
				     1).s));
	}
	if (t->nreleases && t->releases[t->nreleases - 1].unreleased &&
	    t->releases[t->nreleases - 1].lines) {
		const struct tally_release *u = &t->releases[t->nreleases - 1];

		TRY(template_dict_add(&sec, d, "UNRELEASED"));
		TRY(template_dict_set(sec, "SHARE",
				      util_percent(u->lines, t->total_lines,
						   1).s));
		TRY(site_set_counted(sec, "N_LINES", u->lines, "line",
				     "lines"));
	}
	TRY(template_dict_set(d, "UNTOUCHED_FILES",
			      util_count(t->nuntouched).s));
	TRY(template_dict_set(d, "UNTOUCHED_LINES",
			      util_count(t->untouched_lines).s));
	if (t->nuntouched) {
		TRY(template_dict_add(&sec, d, "UNTOUCHED"));
		TRY(site_set_counted(sec, "N_FILES", t->nuntouched, "file",
				     "files"));
		TRY(site_set_counted(sec, "N_LINES", t->untouched_lines, "line",
				     "lines"));
	}
done:
	return rc;
}

/* The releases chart, described by its largest share. */
static int releases_figure(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	const struct tally_dir *root = &t->dirs[0];
	size_t newest = newest_release(t);
	size_t b = site_biggest(s, root->by_release);
	char *alt = NULL;
	int rc;

	if (asprintf(&alt, "Bar chart of the lines at %s by the release that "
		     "wrote them, from %s to %s; the largest share, %s%%, "
		     "comes from %s. The table beside it has every value.",
		     s->info->rev ? s->info->rev : s->info->commit, s->first,
		     newest < t->nreleases ? t->releases[newest].name :
		     s->first,
		     util_percent(root->by_release[b], root->lines, 1).s,
		     t->releases[b].name) < 0)
		return error_oom();
	rc = site_figure(s, d, "RELEASES_CHART", "releases", alt,
			 "The share of today's lines written in each "
			 "release.");
	free(alt);
	return rc;
}

/* A row per release, and their chart. */
static int index_releases(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	char *text = NULL;
	uint64_t commits = 0;
	int rc;

	for (size_t k = 0; k < s->nshown; k++) {
		size_t r = s->shown[k];
		const struct tally_release *tr = &t->releases[r];
		struct template_dict *row;

		TRY(template_dict_add(&row, d, "RELEASE"));
		TRY(site_set_display(row, "NAME", tr->name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(template_dict_set(row, "CLASS", tr->unreleased ?
				      "unreleased" : "release"));
		TRY(tags_summary(&text, tr->release));
		/* the tags, unless the name says it all */
		if (*text && strcmp(text, tr->name)) {
			struct template_dict *tags;

			TRY(template_dict_add(&tags, row, "TAGS"));
			TRY(site_set_display(tags, "LIST", text));
		}
		free(text);
		text = NULL;
		TRY(site_release_dates(row, tr->release));
		TRY(template_dict_set(row, "COMMITS", util_count(tr->release ?
				      tr->release->commits : 0).s));
		TRY(template_dict_set(row, "LINES", util_count(tr->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(tr->lines, t->total_lines,
						   2).s));
		commits += tr->release ? tr->release->commits : 0;
	}
	TRY(template_dict_set(d, "COMMITS", util_count(commits).s));
	if (s->nsilent) {
		struct template_dict *sec;

		TRY(template_dict_add(&sec, d, "SILENT"));
		TRY(site_set_counted(sec, "N_RELEASES", s->nsilent, "release",
				     "releases"));
	}
	if (t->nreleases)
		TRY(releases_figure(s, d));
done:
	free(text);
	return rc;
}

/*
 * The alternative text of the subsystems chart: the subsystem with the
 * highest share of old code (compared without division), or NULL in
 * *out when there is none.
 */
static int subsystems_alt(char **out, struct site *s)
{
	const struct tally *t = s->t;
	const struct tally_dir *root = &t->dirs[0], *b;
	size_t best = 0;

	*out = NULL;
	for (size_t i = 1; i < t->ndirs; i++) {
		const struct tally_dir *dir = &t->dirs[i];

		if (dir->level != 1)
			continue;
		if (!best || site_first_lines(s, dir) * t->dirs[best].lines >
			     site_first_lines(s, &t->dirs[best]) * dir->lines)
			best = i;
	}
	if (!best)
		return 0;
	b = &t->dirs[best];
	if (asprintf(out, "Bar chart of the share of each subsystem's lines "
		     "that %s wrote; the highest is %s at %s%%, and the "
		     "whole tree's %s%% is a reference line. The table "
		     "beside it has every value.", s->first, site_dir_label(b),
		     util_percent(site_first_lines(s, b), b->lines, 1).s,
		     util_percent(site_first_lines(s, root), root->lines,
				  1).s) < 0) {
		*out = NULL;
		return error_oom();
	}
	return 0;
}

/*
 * The table of the stacked chart: the subsystems with the most lines (a
 * row for the rest) by the newest releases with lines at REV (a column
 * for the older ones), in lines.
 */
#define STACK_ROWS 12
#define STACK_COLS 8

static int by_lines(const void *a, const void *b, void *payload)
{
	const struct tally *t = payload;
	const struct tally_dir *da = &t->dirs[*(const size_t *)a];
	const struct tally_dir *db = &t->dirs[*(const size_t *)b];

	if (da->lines != db->lines)
		return da->lines > db->lines ? -1 : 1;
	return strcmp(da->path, db->path);
}

/* One row: the lines of `by` in each column, then the older ones. */
static int stack_row(struct template_dict *row, const uint64_t *by,
		     const size_t *cols, size_t ncols, int older,
		     uint64_t total)
{
	struct template_dict *cell;
	uint64_t rest = total;
	int rc = 0;

	for (size_t c = 0; c < ncols; c++) {
		rest -= by[cols[c]];
		TRY(template_dict_add(&cell, row, "CELL"));
		TRY(template_dict_set(cell, "LINES", by[cols[c]] ?
				      util_count(by[cols[c]]).s : ""));
	}
	if (older) {
		TRY(template_dict_add(&cell, row, "CELL"));
		TRY(template_dict_set(cell, "LINES", rest ?
				      util_count(rest).s : ""));
	}
	TRY(template_dict_set(row, "LINES", util_count(total).s));
done:
	return rc;
}

static int index_stack_table(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	struct template_dict *sec, *col, *row;
	size_t *subs = NULL, nsubs = 0, cols[STACK_COLS], ncols = 0, nolder = 0;
	uint64_t *rest = NULL, rest_lines = 0;
	int rc = 0;

	for (size_t k = s->nshown; k-- > 0;) {
		size_t r = s->shown[k];

		if (!t->dirs[0].by_release[r])
			continue;
		if (ncols < STACK_COLS)
			cols[ncols++] = r;
		else
			nolder++;
	}
	subs = malloc((t->ndirs + 1) * sizeof(size_t));
	rest = calloc(t->nreleases + 1, sizeof(uint64_t));
	if (!subs || !rest) {
		rc = error_oom();
		goto done;
	}
	for (size_t i = 1; i < t->ndirs; i++)
		if (t->dirs[i].level == 1 && t->dirs[i].lines)
			subs[nsubs++] = i;
	if (!nsubs || !ncols)
		goto done;
	qsort_r(subs, nsubs, sizeof(size_t), by_lines, (void *)t);
	TRY(template_dict_add(&sec, d, "STACK_TABLE"));
	if (nsubs > STACK_ROWS) {
		TRY(template_dict_add(&row, sec, "TOP"));
		TRY(site_set_counted(row, "N_TOP", STACK_ROWS, "subsystem",
				     "subsystems"));
	}
	for (size_t c = 0; c < ncols; c++) {
		TRY(template_dict_add(&col, sec, "COL"));
		TRY(site_set_display(col, "NAME", t->releases[cols[c]].name));
		TRY(template_dict_set(col, "ID", s->release_id[cols[c]]));
	}
	if (nolder) {
		TRY(template_dict_add(&col, sec, "OLDER"));
		TRY(site_set_counted(col, "N_RELEASES", nolder,
				     "older release", "older releases"));
	}
	for (size_t k = 0; k < nsubs; k++) {
		const struct tally_dir *dir = &t->dirs[subs[k]];

		if (k >= STACK_ROWS) {
			for (size_t r = 0; r < t->nreleases; r++)
				rest[r] += dir->by_release[r];
			rest_lines += dir->lines;
			continue;
		}
		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(site_set_display(row, "NAME", site_dir_label(dir)));
		TRY(site_set_dir_href(row, "HREF", s, subs[k]));
		TRY(stack_row(row, dir->by_release, cols, ncols, nolder > 0,
			      dir->lines));
	}
	if (nsubs > STACK_ROWS) {
		TRY(template_dict_add(&row, sec, "MORE"));
		TRY(site_set_counted(row, "N_MORE", nsubs - STACK_ROWS,
				     "more subsystem", "more subsystems"));
		TRY(stack_row(row, rest, cols, ncols, nolder > 0, rest_lines));
	}
	TRY(template_dict_add(&row, sec, "ALL"));
	TRY(stack_row(row, t->dirs[0].by_release, cols, ncols, nolder > 0,
		      t->dirs[0].lines));
done:
	free(subs);
	free(rest);
	return rc;
}

/* A row per subsystem (the level-1 directories), and their charts. */
static int index_subsystems(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	char *alt = NULL;
	int rc;

	for (size_t i = 1; i < t->ndirs; i++) {
		const struct tally_dir *dir = &t->dirs[i];
		struct template_dict *row;

		if (dir->level != 1)
			continue;
		TRY(template_dict_add(&row, d, "SUBSYSTEM"));
		TRY(site_set_display(row, "NAME", site_dir_label(dir)));
		TRY(site_set_dir_href(row, "HREF", s, i));
		TRY(template_dict_set(row, "FILES", util_count(dir->nfiles).s));
		TRY(template_dict_set(row, "LINES", util_count(dir->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(dir->lines, t->total_lines,
						   2).s));
		TRY(template_dict_set(row, "FIRST_SHARE",
				      util_percent(site_first_lines(s, dir),
						   dir->lines, 2).s));
		TRY(template_dict_set(row, "UNTOUCHED",
				      util_count(site_below_count(s, i)).s));
	}
	TRY(subsystems_alt(&alt, s));
	TRY(site_figure(s, d, "SUBSYSTEMS_CHART", "subsystems", alt ? alt :
			"Bar chart of the share of each subsystem's lines from "
			"the first release.",
			"Old code by subsystem: the share of each top-level "
			"directory's lines from the first release."));
	TRY(site_figure(s, d, "STACK_CHART", "subsystems-stack", "Stacked "
			"bars, one per subsystem, each divided into the "
			"shares of its lines written in each release, oldest "
			"first. The table below it has the lines of the "
			"largest subsystems by the newest releases.", "What each subsystem is made of, release "
			"by release."));
	TRY(index_stack_table(s, d));
done:
	free(alt);
	return rc;
}

/* The list of every chart with its data, at the end of the page. */
static int index_charts(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	char *text = NULL;
	int rc;

	TRY(site_chart_row(s, d, "releases", "Lines by release"));
	TRY(site_chart_row(s, d, "subsystems", "Old code by subsystem"));
	TRY(site_chart_row(s, d, "subsystems-stack", "Subsystems by release"));
	if (t->history) {
		TRY(template_dict_show(d, "HISTORY_DATA"));
		TRY(site_chart_row(s, d, "history", "Lines by release at each "
				   "snapshot"));
		TRY(site_chart_row(s, d, "history-share", "The same at 100%"));
		TRY(site_chart_row(s, d, "survival",
				   "Survival of each release's "
				   "lines"));
	}
	TRY(site_index_years(s, d));
	for (size_t i = 1; i < t->ndirs; i++) {
		char *name;

		TRY(names_get(&name, s->names, t->dirs[i].path, NAMES_CHART));
		if (asprintf(&text, "Directory %s",
			     site_dir_label(&t->dirs[i])) < 0)
			text = NULL;
		rc = text ? site_chart_row(s, d, name, text) : error_oom();
		free(name);
		free(text);
		text = NULL;
		if (rc < 0)
			goto done;
	}
done:
	free(text);
	return rc;
}

int site_write_index(struct site *s)
{
	struct template_dict *d = NULL;
	int rc;

	TRY(site_page_new(&d, s, "index.html", "How old is the code",
			  NAV_INDEX));
	TRY(index_headline(s, d));
	TRY(index_releases(s, d));
	TRY(index_subsystems(s, d));
	TRY(site_history_summary(s, d, "OVER_TIME"));
	TRY(index_charts(s, d));
	rc = site_page_write(s, "index.html", "index.tpl", d);
done:
	template_dict_free(d);
	return rc;
}
