/*
 * site dirs: a page per directory: its contents, its largest entries,
 * its releases and its untouched files.
 */
#include "site_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/chart.h"
#include "strata/error.h"
#include "strata/names.h"

/* ---- a directory's page ---- */

/* An entry of a directory: a subdirectory or a file directly in it. */
struct child {
	const char *name;       /* in the path of its first file */
	size_t len;
	int is_dir;
	size_t page;            /* the dirs[] index of its page, or 0 */
	size_t nfiles;
	uint64_t lines, first;
};

/* The first file whose path is not below `key` in byte order. */
static size_t files_from(const struct tally *t, const char *key)
{
	size_t lo = 0, hi = t->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->files[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t file_first(const struct site *s, const struct tally_file *f)
{
	return s->t->nreleases && !s->t->releases[0].unreleased ?
	       f->by_release[0] : 0;
}

/* Directories first, then files, each in byte order of their names. */
static int by_kind_then_name(const void *a, const void *b)
{
	const struct child *x = a, *y = b;
	int c;

	if (x->is_dir != y->is_dir)
		return x->is_dir ? -1 : 1;
	c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Add file f under `name` (a file, or the subdirectory it is in). */
static int child_add(struct child **v, size_t *n, size_t *alloc,
		     struct site *s, const struct tally_file *f,
		     const char *name, size_t len, int is_dir)
{
	struct child *c = *n ? &(*v)[*n - 1] : NULL;

	if (!c || !is_dir || !c->is_dir || c->len != len ||
	    memcmp(c->name, name, len)) {
		int rc = UTIL_GROW(*v, *alloc, *n + 1);

		if (rc < 0)
			return rc;
		c = &(*v)[(*n)++];
		memset(c, 0, sizeof(*c));
		c->name = name;
		c->len = len;
		c->is_dir = is_dir;
		if (is_dir)
			c->page = tally_find_dir(s->t, f->path,
						 (size_t)(name + len - f->path));
	}
	c->nfiles++;
	c->lines += f->lines;
	c->first += file_first(s, f);
	return 0;
}

/*
 * What is directly in dirs[i]: its subdirectories (with or without pages
 * of their own) and its files, from the files below it, which are
 * contiguous in byte order. "." has the files of the root.
 */
static int children_of(struct child **out, size_t *n, struct site *s,
		       size_t i)
{
	const struct tally *t = s->t;
	const char *path = t->dirs[i].path;
	int root_files = !strcmp(path, ".");
	size_t alloc = 0, plen = root_files ? 0 : strlen(path) + 1, f = 0;
	char *prefix = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!root_files) {
		if (asprintf(&prefix, "%s/", path) < 0)
			return error_oom();
		f = files_from(t, prefix);
	}
	for (; f < t->nfiles && rc == 0; f++) {
		const struct tally_file *file = &t->files[f];
		const char *rest = file->path + plen, *slash;

		if (prefix && strncmp(file->path, prefix, plen))
			break;
		slash = strchr(rest, '/');
		if (root_files && slash)
			continue;
		rc = child_add(out, n, &alloc, s, file, rest,
			       slash ? (size_t)(slash - rest) : strlen(rest),
			       slash != NULL);
	}
	free(prefix);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		return rc;
	}
	qsort(*out, *n, sizeof(**out), by_kind_then_name);
	return 0;
}

/*
 * One row of the contents table. The bar is the entry's lines against
 * the largest entry's, the part from the first release darker.
 */
static int child_row(struct site *s, struct template_dict *sec,
		     const struct child *c, uint64_t dir_lines,
		     uint64_t most)
{
	struct template_dict *row, *link;
	char *name;
	int rc;

	if (asprintf(&name, "%.*s%s", (int)c->len, c->name,
		     c->is_dir ? "/" : "") < 0)
		return error_oom();
	TRY(template_dict_add(&row, sec, "ENTRY"));
	TRY(template_dict_set(row, "KIND", c->is_dir ? "dir" : "file"));
	if (c->page) {
		TRY(template_dict_add(&link, row, "LINK"));
		TRY(site_set_display(link, "NAME", name));
		TRY(site_set_dir_href(link, "HREF", s, c->page));
	} else {
		TRY(template_dict_add(&link, row, "NO_LINK"));
		TRY(site_set_display(link, "NAME", name));
	}
	TRY(template_dict_set(row, "FILES", c->is_dir ?
			      util_count(c->nfiles).s : ""));
	TRY(template_dict_set(row, "LINES", util_count(c->lines).s));
	TRY(template_dict_set(row, "SHARE",
			      util_percent(c->lines, dir_lines, 2).s));
	TRY(template_dict_set(row, "FIRST_SHARE",
			      util_percent(c->first, c->lines, 2).s));
	TRY(template_dict_set(row, "BAR", util_percent(c->lines, most, 1).s));
	TRY(template_dict_set(row, "OLD", util_percent(c->first, c->lines,
						       1).s));
done:
	free(name);
	return rc;
}

static int dir_contents(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally_dir *dir = &s->t->dirs[i];
	struct template_dict *sec, *what;
	struct child *v = NULL;
	size_t n = 0, ndirs = 0;
	uint64_t most = 0;
	int rc;

	TRY(children_of(&v, &n, s, i));
	for (size_t k = 0; k < n; k++) {
		most = v[k].lines > most ? v[k].lines : most;
		ndirs += v[k].is_dir;
	}
	TRY(template_dict_add(&sec, d, "CONTENTS"));
	TRY(template_dict_show(sec, strcmp(dir->path, ".") ? "IN_DIR" :
			       "IN_ROOT"));
	if (ndirs) {
		TRY(template_dict_add(&what, sec, "DIRS"));
		TRY(site_set_counted(what, "N_DIRS", ndirs, "directory",
				     "directories"));
		if (n > ndirs)
			TRY(template_dict_show(what, "AND"));
	}
	if (n > ndirs) {
		TRY(template_dict_add(&what, sec, "FILES"));
		TRY(site_set_counted(what, "N_FILES", n - ndirs, "file",
				     "files"));
	}
	for (size_t k = 0; k < n; k++)
		TRY(child_row(s, sec, &v[k], dir->lines, most));
done:
	free(v);
	return rc;
}

/* The path back up, the headline and the numbers of dirs[i]. */
static int dir_top(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally *t = s->t;
	const struct tally_dir *dir = &t->dirs[i];
	struct template_dict *sec, *row;
	size_t chain[64], nchain = 0;
	int root_files = !strcmp(dir->path, ".");
	char *up = NULL;
	int rc;

	for (size_t a = dir->parent; a != 0 && nchain < 64;
	     a = t->dirs[a].parent)
		chain[nchain++] = a;
	while (nchain--) {
		const char *path = t->dirs[chain[nchain]].path;

		TRY(template_dict_add(&row, d, "CRUMB"));
		TRY(site_set_display(row, "NAME", site_base_name(path)));
		TRY(site_set_dir_href(row, "HREF", s, chain[nchain]));
	}
	TRY(site_set_display(d, "NAME", root_files ? "root files" :
			     site_base_name(dir->path)));
	TRY(site_set_display(d, "PATH", dir->path));
	TRY(template_dict_show(d, root_files ? "ROOT_FILES" : "DIRECTORY"));
	TRY(template_dict_show(d, dir->lines ? "HAS_LINES" : "NO_LINES"));
	TRY(template_dict_set(d, "FIRST_SHARE",
			      util_percent(site_first_lines(s, dir),
					   dir->lines, 1).s));
	TRY(template_dict_set(d, "LINES", util_count(dir->lines).s));
	TRY(site_set_counted(d, "N_LINES", dir->lines, "line", "lines"));
	TRY(site_set_counted(d, "N_FILES", dir->nfiles, "file", "files"));
	TRY(template_dict_set(d, "SHARE",
			      util_percent(dir->lines, t->total_lines, 2).s));
	if (site_below_count(s, i)) {
		TRY(template_dict_add(&sec, d, "UNTOUCHED"));
		TRY(site_set_counted(sec, "N_FILES", site_below_count(s, i),
				     "file",
				     "files"));
		TRY(site_set_counted(sec, "N_LINES", s->below_lines[i], "line",
				     "lines"));
	} else {
		TRY(template_dict_show(d, "NONE_UNTOUCHED"));
	}
	TRY(site_set_dir_href(d, "UP_HREF", s, dir->parent));
	if (dir->parent == 0) {
		TRY(template_dict_set(d, "UP_NAME", "the whole tree"));
	} else if (asprintf(&up, "%s/", t->dirs[dir->parent].path) < 0) {
		up = NULL;
		rc = error_oom();
	} else {
		rc = site_set_display(d, "UP_NAME", up);
	}
done:
	free(up);
	return rc;
}

/* dirs[i]'s chart and the table of its lines by release. */
static int dir_releases(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally *t = s->t;
	const struct tally_dir *dir = &t->dirs[i];
	struct template_dict *sec, *row;
	size_t skipped = 0;
	char *alt = NULL, *chart = NULL;
	int rc;

	TRY(names_get(&chart, s->names, dir->path, NAMES_CHART));
	if (t->nreleases) {
		size_t b = site_biggest(s, dir->by_release);

		if (asprintf(&alt, "Bar chart of the lines in %s by the "
			     "release that wrote them; the largest share, "
			     "%s%%, comes from %s. The table beside it has "
			     "every value.", strcmp(dir->path, ".") ?
			     dir->path : "the root files",
			     util_percent(dir->by_release[b], dir->lines, 1).s,
			     t->releases[b].name) < 0) {
			alt = NULL;
			rc = error_oom();
			goto done;
		}
	}
	TRY(site_figure(s, d, "CHART", chart,
			alt ? alt : "Bar chart of lines by "
			"release.", "The share of these lines written in each "
			"release."));
	for (size_t r = 0; r < t->nreleases; r++) {
		if (!dir->by_release[r]) {
			skipped++;
			continue;
		}
		TRY(template_dict_add(&row, d, "RELEASE"));
		TRY(site_set_display(row, "NAME", t->releases[r].name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(template_dict_set(row, "CLASS", t->releases[r].unreleased ?
				      "unreleased" : "release"));
		TRY(template_dict_set(row, "LINES",
				      util_count(dir->by_release[r]).s));
		TRY(template_dict_set(row, "SHARE",
				      util_percent(dir->by_release[r],
						   dir->lines, 2).s));
	}
	if (skipped) {
		TRY(template_dict_add(&sec, d, "SKIPPED"));
		TRY(site_set_counted(sec, "N_RELEASES", skipped, "release",
				     "releases"));
	}
done:
	free(alt);
	free(chart);
	return rc;
}

/* Every untouched file below dirs[i]. */
static int dir_untouched(struct site *s, struct template_dict *d, size_t i)
{
	struct template_dict *sec, *row;
	int rc = 0;

	if (!site_below_count(s, i))
		return 0;
	TRY(template_dict_add(&sec, d, "UNTOUCHED_LIST"));
	TRY(site_set_counted(sec, "N_FILES", site_below_count(s, i), "file",
			     "files"));
	for (size_t k = s->below_start[i]; k < s->below_start[i + 1]; k++) {
		const struct tally_file *f = &s->t->files[s->below[k]];

		TRY(template_dict_add(&row, sec, "FILE"));
		TRY(site_set_display(row, "PATH", f->path));
		TRY(template_dict_set(row, "LINES", util_count(f->lines).s));
	}
done:
	return rc;
}

int site_write_dir(struct site *s, size_t i)
{
	const struct tally_dir *dir = &s->t->dirs[i];
	const char *file = s->dir_page[i];
	struct template_dict *d = NULL;
	char *title = NULL;
	int rc;

	if (!strcmp(dir->path, "."))
		title = strdup("Files in the root");
	else if (asprintf(&title, "%s/", dir->path) < 0)
		title = NULL;
	if (!title)
		return error_oom();
	TRY(names_make_parents(s->dir, file));
	TRY(site_page_new(&d, s, file, title, NAV_NONE));
	TRY(dir_top(s, d, i));
	TRY(dir_releases(s, d, i));
	TRY(site_dir_history(s, d, i));
	TRY(site_dir_cohorts(s, d, i));
	TRY(dir_contents(s, d, i));
	TRY(dir_untouched(s, d, i));
	rc = site_page_write(s, file, "dir.tpl", d);
done:
	free(title);
	template_dict_free(d);
	return rc;
}
