/*
 * site releases: releases.html, each release with its lines today and
 * the directories where they are now.
 */
#include "site_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/chart.h"
#include "strata/error.h"

/* Directories listed under "where its lines are now" on releases.html. */
#define WHERE_TOP 10

/* ---- releases.html ---- */

struct release_sort {
	const struct tally *t;
	size_t r;
};

/* Subsystems by lines of one release, most first, then by path. */
static int by_release_lines(const void *a, const void *b, void *payload)
{
	const struct release_sort *rs = payload;
	const struct tally_dir *da = &rs->t->dirs[*(const size_t *)a];
	const struct tally_dir *db = &rs->t->dirs[*(const size_t *)b];
	uint64_t la = da->by_release[rs->r];
	uint64_t lb = db->by_release[rs->r];

	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(da->path, db->path);
}

static int release_where(struct site *s, struct template_dict *d, size_t r,
			 size_t *subs, size_t nsubs)
{
	const struct tally *t = s->t;
	const struct tally_release *tr = &t->releases[r];
	struct template_dict *sec, *row;
	size_t shown = 0, more = 0;
	uint64_t more_lines = 0;
	int rc = 0;

	if (!tr->lines)
		return 0;
	struct release_sort rs = {t, r};
	qsort_r(subs, nsubs, sizeof(size_t), by_release_lines, &rs);
	TRY(template_dict_add(&sec, d, "WHERE"));
	for (size_t k = 0; k < nsubs; k++) {
		const struct tally_dir *dir = &t->dirs[subs[k]];
		uint64_t lines = dir->by_release[r];

		if (!lines)
			break;
		if (shown == WHERE_TOP) {
			more++;
			more_lines += lines;
			continue;
		}
		TRY(template_dict_add(&row, sec, "DIR"));
		TRY(site_set_display(row, "NAME", site_dir_label(dir)));
		TRY(site_set_dir_href(row, "HREF", s, subs[k]));
		TRY(template_dict_set(row, "LINES", util_count(lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(lines, tr->lines, 2).s));
		TRY(template_dict_set(row, "DIR_SHARE",
				      util_percent(lines, dir->lines, 2).s));
		shown++;
	}
	if (more) {
		TRY(template_dict_add(&row, sec, "MORE"));
		TRY(template_dict_set(row, "COUNT", util_count(more).s));
		TRY(template_dict_set(row, "LINES", util_count(more_lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(more_lines, tr->lines,
						   2).s));
	}
done:
	return rc;
}

/*
 * The releases left out (tally_release_silent()), by why: those on other
 * branches, and those on REV's history whose commits another holds.
 */
static int releases_silent(struct site *s, struct template_dict *d)
{
	size_t off = s->nsilent - s->nsilent_on, on = s->nsilent_on;
	struct template_dict *sec, *why;
	int rc;

	TRY(template_dict_add(&sec, d, "SILENT"));
	if (off) {
		TRY(template_dict_add(&why, sec, "OFF"));
		TRY(site_set_counted(why, "N_RELEASES", off, "release",
				     "releases"));
	}
	if (off && on)
		TRY(template_dict_show(sec, "BOTH"));
	if (on) {
		TRY(template_dict_add(&why, sec, "ON"));
		TRY(site_set_counted(why, "N_RELEASES", on, "release",
				     "releases"));
		TRY(template_dict_set(why, "HOLD", on == 1 ? "holds" : "hold"));
		TRY(template_dict_set(why, "ITS", on == 1 ? "its" : "their"));
	}
done:
	return rc;
}

int site_write_releases(struct site *s)
{
	const struct tally *t = s->t;
	struct template_dict *d = NULL, *row, *sec, *tag;
	size_t *subs = NULL, nsubs = 0, nreal = 0;
	int rc;

	TRY(site_page_new(&d, s, "releases.html", "Releases", NAV_RELEASES));
	nreal = site_real_releases(t);
	TRY(site_set_counted(d, "N_LINES", t->total_lines, "line", "lines"));
	TRY(site_set_counted(d, "N_RELEASES", nreal - s->nsilent, "release",
			     "releases"));
	if (s->nsilent)
		TRY(releases_silent(s, d));
	if (nreal - s->nsilent > 1) {
		size_t last = s->nshown - 1;

		if (t->releases[s->shown[last]].unreleased)
			last--;
		TRY(template_dict_show(d, "RANGE"));
		TRY(site_set_display(d, "LAST",
				     t->releases[s->shown[last]].name));
	}
	if (t->nreleases) {
		size_t b = site_biggest(s, t->dirs[0].by_release);
		char *alt;

		if (asprintf(&alt, "Bar chart of the lines at %s by release; "
			     "the largest share, %s%%, comes from %s. The "
			     "table beside it has every value.", s->info->rev ?
			     s->info->rev : s->info->commit,
			     util_percent(t->releases[b].lines, t->total_lines,
					  1).s,
			     t->releases[b].name) < 0)
			return error_oom();
		rc = site_figure(s, d, "CHART", "releases", alt,
				 "The share of today's lines written in each "
				 "release.");
		free(alt);
		if (rc < 0)
			goto done;
	}

	subs = malloc((t->ndirs + 1) * sizeof(size_t));
	if (!subs) {
		rc = error_oom();
		goto done;
	}
	for (size_t i = 1; i < t->ndirs; i++)
		if (t->dirs[i].level == 1)
			subs[nsubs++] = i;

	for (size_t k = 0; k < s->nshown; k++) {
		size_t r = s->shown[k];
		const struct tally_release *tr = &t->releases[r];
		const struct release *rel = tr->release;

		TRY(template_dict_add(&row, d, "RELEASE"));
		TRY(site_set_display(row, "NAME", tr->name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(template_dict_set(row, "CLASS", tr->unreleased ?
				      "unreleased" : "release"));
		TRY(template_dict_set(row, "LINES", util_count(tr->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(tr->lines, t->total_lines,
						   2).s));
		TRY(template_dict_show(row, tr->lines ? "SURVIVES" :
				       rel && !rel->commits ? "NO_COMMIT" :
				       "GONE"));
		TRY(site_set_counted(row, "N_COMMITS", rel ? rel->commits : 0,
				     "commit", "commits"));
		if (rel && !tr->unreleased && rel->ntags) {
			TRY(template_dict_add(&sec, row, "TAGGED"));
			TRY(site_release_dates(sec, rel));
			TRY(template_dict_add(&sec, row, "TAGS"));
			for (size_t k = 0; k < rel->ntags; k++) {
				TRY(template_dict_add(&tag, sec, "TAG"));
				TRY(site_set_display(tag, "NAME",
						     rel->tags[k].name));
				TRY(template_dict_set(tag, "DATE",
					site_date(rel->tags[k].date).s));
			}
		} else {
			TRY(template_dict_show(row, "NOT_TAGGED"));
		}
		TRY(release_where(s, row, r, subs, nsubs));
	}
	rc = site_page_write(s, "releases.html", "releases.tpl", d);
done:
	free(subs);
	template_dict_free(d);
	return rc;
}
