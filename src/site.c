/*
 * site: the entry points of the site module (strata/site.h): finding the
 * templates, setting up what every page needs (the names of the pages,
 * the anchors of releases, the untouched files below each directory),
 * and site_write(), which writes the pages one by one (site_int.h says
 * which file writes which).
 */
#include "site_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/chart.h"
#include "strata/cycle.h"
#include "strata/error.h"
#include "strata/util.h"
#include "strata/names.h"
#include "strata/publish.h"
#include "strata/snapshots.h"

#ifndef STRATA_DATADIR

#define STRATA_DATADIR "/usr/local/share/strata"

#endif

const char *const site_templates[] = {
	"header.tpl", "footer.tpl", "figure.tpl", "index.tpl",
	"dir.tpl", "untouched.tpl", "releases.tpl", "history.tpl",
	"authors.tpl", "cycle.tpl", NULL
};

/* ---- finding the templates ---- */

static int readable(const char *dir, const char *name)
{
	char *p;
	int ok;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return 0;
	ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

/*
 * A template without the pragma is expanded without escaping, and one
 * included from an escaping template is not escaped either: refuse it
 * rather than publish a page that a file name can inject into.
 */
static int check_pragma(const char *dir, const char *name)
{
	static const char pragma[] = SITE_PRAGMA;
	char *p, *data = NULL;
	size_t n;
	int rc;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return error_oom();
	/* Not fopen(): a FIFO among the templates would hang the run. */
	rc = util_read_file(&data, &n, p, SITE_TEMPLATE_MAX, NULL, 0);
	if (rc < 0)
		error_prefix("unable to read template");
	else if (n < sizeof(pragma) - 1 ||
		 memcmp(data, pragma, sizeof(pragma) - 1))
		rc = error_set("template '%s' does not start with %s", p,
			       pragma);
	free(data);
	free(p);
	return rc;
}

/*
 * Every template is parsed here, before any work: a syntax error would
 * otherwise show only when the pages are written, after the whole blame.
 */
static int check_templates(const char *dir)
{
	struct template_set *set = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && site_templates[i]; i++)
		rc = check_pragma(dir, site_templates[i]);
	if (!rc)
		rc = template_set_new(&set, dir);
	for (size_t i = 0; !rc && site_templates[i]; i++)
		rc = template_set_load(set, site_templates[i]);
	template_set_free(set);
	if (rc < 0)
		return rc;
	if (!readable(dir, SITE_CSS))
		return error_set("unable to read '%s/%s': %s", dir, SITE_CSS,
				 strerror(errno));
	return 0;
}

int site_find_templates(char **out, const char *given)
{
	static const char *const beside_binary[] = {
		"templates", "../../templates", "../share/strata/templates"
	};
	char exe[PATH_MAX];
	char *found = NULL;
	ssize_t n;
	int rc;

	*out = NULL;
	if (given) {
		if (!readable(given, "index.tpl"))
			return error_set("no templates in '%s': "
					 "index.tpl not found", given);
		found = strdup(given);
		if (!found)
			return error_oom();
	}
	n = found ? -1 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; !found && i < 3; i++) {
			char *dir;

			if (asprintf(&dir, "%s/%s", exe, beside_binary[i]) < 0)
				return error_oom();
			if (readable(dir, "index.tpl"))
				found = dir;
			else
				free(dir);
		}
	}
	if (!found && readable(STRATA_DATADIR "/templates", "index.tpl")) {
		found = strdup(STRATA_DATADIR "/templates");
		if (!found)
			return error_oom();
	}
	if (!found)
		return error_set("templates not found beside the strata binary "
				 "nor in '%s': use --templates DIR",
				 STRATA_DATADIR "/templates");
	rc = check_templates(found);
	if (rc < 0) {
		free(found);
		return rc;
	}
	*out = found;
	return 0;
}

/* ---- set-up: names and the untouched files below each directory ---- */

/*
 * Anchors of releases: "r-" and the readable name (names_ids()); the
 * bucket of unreleased commits is "unreleased", which no name can give,
 * so a tag named "unreleased" is told apart from it.
 */
static int release_ids(struct site *s)
{
	const struct tally *t = s->t;
	const char **keys = calloc(t->nreleases + 1, sizeof(*keys));
	char **ids = calloc(t->nreleases + 1, sizeof(*ids));
	size_t n = 0;
	int rc = 0;

	if (!keys || !ids) {
		rc = error_oom();
		goto done;
	}
	for (size_t r = 0; r < t->nreleases; r++)
		if (!t->releases[r].unreleased)
			keys[n++] = t->releases[r].name;
	TRY(names_ids(ids, keys, n, "r-", 0));
	for (size_t r = 0, k = 0; r < t->nreleases; r++)
		s->release_id[r] = t->releases[r].unreleased ?
			strdup("unreleased") : ids[k++];
	for (size_t r = 0; r < t->nreleases; r++)
		if (!s->release_id[r])
			rc = error_oom();
done:
	free(keys);
	free(ids);
	return rc;
}

static int site_prepare(struct site *s)
{
	const struct tally *t = s->t;
	size_t *fill = NULL;
	int rc = 0;

	s->dir_page = calloc(t->ndirs ? t->ndirs : 1, sizeof(char *));
	s->release_id = calloc(t->nreleases ? t->nreleases : 1,
			       sizeof(char *));
	s->below_start = calloc(t->ndirs + 1, sizeof(size_t));
	s->below_lines = calloc(t->ndirs ? t->ndirs : 1, sizeof(uint64_t));
	fill = calloc(t->ndirs ? t->ndirs : 1, sizeof(size_t));
	if (!s->dir_page || !s->release_id || !s->below_start ||
	    !s->below_lines || !fill) {
		rc = error_oom();
		goto done;
	}
	TRY(names_new(&s->names, t));
	for (size_t i = 0; i < t->ndirs; i++) {
		const struct tally_dir *d = &t->dirs[i];

		/* Walks up the tree below must end. */
		if (i && (d->parent >= i ||
			  t->dirs[d->parent].level + 1 != d->level)) {
			rc = error_set("BUG: directory '%s' has a bad parent",
				       d->path);
			goto done;
		}
		TRY(names_get(&s->dir_page[i], s->names, d->path,
			      NAMES_PAGE));
	}
	TRY(release_ids(s));

	/* Count, then place: each untouched file under all its ancestors. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t f = 0; f < t->nfiles; f++) {
			const struct tally_file *file = &t->files[f];
			size_t d = file->dir;

			if (!file->untouched)
				continue;
			while (d != 0 && d < t->ndirs) {
				if (pass == 0) {
					s->below_start[d + 1]++;
					s->below_lines[d] += file->lines;
				} else {
					s->below[s->below_start[d] + fill[d]++] = f;
				}
				d = t->dirs[d].parent;
			}
		}
		if (pass == 0) {
			for (size_t d = 0; d < t->ndirs; d++)
				s->below_start[d + 1] += s->below_start[d];
			s->below = malloc((s->below_start[t->ndirs] + 1) *
					  sizeof(size_t));
			if (!s->below) {
				rc = error_oom();
				goto done;
			}
		}
	}
	s->first = t->nreleases ? t->releases[0].name : "the first release";
	s->shown = malloc((t->nreleases ? t->nreleases : 1) * sizeof(size_t));
	if (!s->shown) {
		rc = error_oom();
		goto done;
	}
	for (size_t r = 0; r < t->nreleases; r++) {
		enum tally_silence why = tally_release_silent(t, r);

		if (why == TALLY_WROTE)
			s->shown[s->nshown++] = r;
		s->nsilent += why != TALLY_WROTE;
		s->nsilent_on += why == TALLY_SILENT_ON_HISTORY;
	}
done:
	free(fill);
	return rc;
}

static void site_release(struct site *s)
{
	free(s->shown);
	for (size_t i = 0; s->dir_page && i < s->t->ndirs; i++)
		free(s->dir_page[i]);
	for (size_t r = 0; s->release_id && r < s->t->nreleases; r++)
		free(s->release_id[r]);
	free(s->dir_page);
	free(s->release_id);
	free((char *)s->root);
	names_free(s->names);
	free(s->below_start);
	free(s->below);
	free(s->below_lines);
	template_set_free(s->set);
}

size_t site_below_count(const struct site *s, size_t d)
{
	return s->below_start[d + 1] - s->below_start[d];
}

/* The release with the most lines in `by` (the first on a tie). */
size_t site_biggest(const struct site *s, const uint64_t *by)
{
	size_t best = 0;

	for (size_t r = 1; r < s->t->nreleases; r++)
		if (by[r] > by[best])
			best = r;
	return best;
}

int site_write(const char *dir, const struct tally *t,
	       const struct report_info *info, const struct site_options *o)
{
	struct site s = {.dir = dir, .t = t, .info = info, .o = o};
	int rc;

	if (!t->ndirs)
		return error_set("nothing to publish: the tally has no "
				 "directories");
	TRY(cycle_wait(t->cycle));
	TRY(site_prepare(&s));
	TRY(template_set_new(&s.set, o->templates_dir));
	TRY(site_copy_css(&s));
	for (size_t i = 1; i < t->ndirs; i++)
		TRY(site_write_dir(&s, i));
	TRY(site_write_untouched(&s));
	TRY(site_write_releases(&s));
	TRY(site_write_history(&s));
	TRY(site_write_authors(&s));
	TRY(site_write_cycle(&s));
	/* last: its time taken counts the publishing of the rest */
	TRY(site_write_index(&s));
done:
	site_release(&s);
	return rc;
}

/* ---- the entry points of strata-publish.so (publish.h) ---- */

const int strata_publish_abi = PUBLISH_ABI;

const struct publish_api strata_publish_api = {
	STRATA_VERSION,
	chart_check_font,
	site_find_templates,
	chart_write_all,
	site_write,
};
