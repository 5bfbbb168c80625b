/*
 * site untouched: untouched.html, the files every line of which is
 * still from the first release, grouped by directory.
 */
#include "site_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/names.h"

/* ---- untouched.html ---- */

/* Length of a path's directory part ("a/b/c" -> 3, "c" -> 0). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/* By directory, then by name: bytewise path order splits a directory. */
static int by_dir_then_name(const void *a, const void *b, void *payload)
{
	const struct tally *t = payload;
	const char *pa = t->files[*(const size_t *)a].path;
	const char *pb = t->files[*(const size_t *)b].path;
	size_t la = dir_len(pa), lb = dir_len(pb);
	int c = memcmp(pa, pb, la < lb ? la : lb);

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(pa + la, pb + lb);
}

/* Start a group of untouched files: those of the directory of `f`. */
static int untouched_group(struct template_dict **out, struct site *s,
			   struct template_dict *groups,
			   const struct tally_file *f, const char *id)
{
	size_t dl = dir_len(f->path);
	char *name = dl ? strndup(f->path, dl) : strdup(".");
	int rc;

	if (!name)
		return error_oom();
	TRY(template_dict_add(out, groups, "GROUP"));
	TRY(site_set_display(*out, "NAME", dl ? name : "(root directory)"));
	TRY(template_dict_set(*out, "ID", id));
	/* The page of the deepest tallied directory that holds it. */
	TRY(site_set_dir_href(*out, "PAGE_HREF", s, f->dir));
	TRY(site_set_display(*out, "PAGE_NAME", f->dir ?
			     site_dir_label(&s->t->dirs[f->dir]) :
			     "the whole tree"));
done:
	free(name);
	return rc;
}

/*
 * The anchors of the groups of the n untouched files order[], one per
 * directory in the order met ("in-" and the readable path); *out has
 * *ngroups of them.
 */
static int untouched_ids(char ***out, size_t *ngroups, const struct tally *t,
			 const size_t *order, size_t n)
{
	char **keys = calloc(n + 1, sizeof(*keys));
	char **ids = calloc(n + 1, sizeof(*ids));
	size_t g = 0;
	int rc = 0;

	*out = NULL;
	*ngroups = 0;
	if (!keys || !ids) {
		rc = error_oom();
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		const char *p = t->files[order[k]].path;
		size_t dl = dir_len(p);

		if (g && strlen(keys[g - 1]) == (dl ? dl : 1) &&
		    !memcmp(keys[g - 1], dl ? p : ".", dl ? dl : 1))
			continue;
		keys[g] = dl ? strndup(p, dl) : strdup(".");
		if (!keys[g++]) {
			rc = error_oom();
			goto done;
		}
	}
	TRY(names_ids(ids, (const char *const *)keys, g, "in-", 1));
	*out = ids;
	*ngroups = g;
	ids = NULL;
done:
	for (size_t k = 0; keys && k < g; k++)
		free(keys[k]);
	free(keys);
	free(ids);
	return rc;
}

static int group_totals(struct template_dict *group, size_t files,
			uint64_t lines)
{
	int rc;

	TRY(template_dict_set(group, "COUNT", util_count(files).s));
	TRY(template_dict_set(group, "LINES", util_count(lines).s));
	TRY(site_set_counted(group, "N_FILES", files, "file", "files"));
	TRY(site_set_counted(group, "N_LINES", lines, "line", "lines"));
done:
	return rc;
}

int site_write_untouched(struct site *s)
{
	const struct tally *t = s->t;
	struct template_dict *d = NULL, *groups = NULL, *group = NULL, *row;
	size_t *order = NULL, n = 0, ngroups = 0, gfiles = 0, glen = 0;
	size_t nids = 0;
	const char *gpath = NULL;   /* a path in the current group */
	char **ids = NULL;
	uint64_t glines = 0;
	int rc;

	TRY(site_page_new(&d, s, "untouched.html", "Untouched files",
			  NAV_UNTOUCHED));
	TRY(template_dict_set(d, "COUNT", util_count(t->nuntouched).s));
	TRY(site_set_counted(d, "N_FILES", t->nfiles, "file", "files"));
	TRY(template_dict_set(d, "LINES", util_count(t->untouched_lines).s));
	TRY(site_set_counted(d, "N_TOTAL_LINES", t->total_lines, "line",
			     "lines"));

	order = malloc((t->nfiles + 1) * sizeof(size_t));
	if (!order) {
		rc = error_oom();
		goto done;
	}
	for (size_t f = 0; f < t->nfiles; f++)
		if (t->files[f].untouched)
			order[n++] = f;
	qsort_r(order, n, sizeof(size_t), by_dir_then_name, (void *)t);
	TRY(untouched_ids(&ids, &nids, t, order, n));
	if (n)
		TRY(template_dict_add(&groups, d, "GROUPS"));
	else
		TRY(template_dict_show(d, "NONE"));

	for (size_t k = 0; k < n; k++) {
		const struct tally_file *f = &t->files[order[k]];
		size_t dl = dir_len(f->path);

		if (!gpath || dl != glen || memcmp(gpath, f->path, dl)) {
			if (group)
				TRY(group_totals(group, gfiles, glines));
			TRY(untouched_group(&group, s, groups, f,
					    ids[ngroups]));
			gpath = f->path;
			glen = dl;
			gfiles = 0;
			glines = 0;
			ngroups++;
		}
		TRY(template_dict_add(&row, group, "FILE"));
		TRY(site_set_display(row, "NAME", site_base_name(f->path)));
		TRY(template_dict_set(row, "LINES", util_count(f->lines).s));
		gfiles++;
		glines += f->lines;
	}
	if (group) {
		TRY(group_totals(group, gfiles, glines));
		TRY(site_set_counted(groups, "N_FILES", n, "file", "files"));
		TRY(site_set_counted(groups, "N_DIRS", ngroups, "directory",
				     "directories"));
	}
	rc = site_page_write(s, "untouched.html", "untouched.tpl", d);
done:
	for (size_t k = 0; k < nids; k++)
		free(ids[k]);
	free(ids);
	free(order);
	template_dict_free(d);
	return rc;
}
