#include "strata/tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The directory of `path` at `level` (1-based), or NULL when the file is
 * not that deep. Root files have "." at level 1 and nothing below.
 */
static char *dir_at(const char *path, unsigned level)
{
	const char *p = path;
	unsigned l;

	for (l = 0; l < level; l++) {
		p = strchr(p, '/');
		if (!p)
			return level == 1 && l == 0 ? strdup(".") : NULL;
		if (l + 1 < level)
			p++;
	}
	return strndup(path, (size_t)(p - path));
}

/* How many directory levels a file contributes to (at least ".", 1). */
static int file_dir_depth(const char *path, unsigned depth)
{
	unsigned slashes = 0;
	const char *p;

	for (p = path; (p = strchr(p, '/')); p++)
		slashes++;
	if (!slashes)
		return 1; /* "." */
	return slashes < depth ? (int)slashes : (int)depth;
}

size_t tally_find_dir(const struct tally *t, const char *path, size_t len)
{
	size_t lo = 1, hi = t->ndirs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(t->dirs[mid].path, path, len);

		if (!c && t->dirs[mid].path[len])
			c = 1;
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int add_counts(struct tally *t, size_t dir, const struct tally_file *f)
{
	size_t r;
	struct tally_dir *d = &t->dirs[dir];

	d->lines += f->lines;
	d->nfiles++;
	d->nuntouched += f->untouched;
	for (r = 0; r < t->nreleases; r++)
		d->by_release[r] += f->by_release[r];
	return 0;
}

int tally_build(struct tally **out, const struct blame_result *blame,
		const struct releases *rel, unsigned depth,
		tally_filter_fn keep, void *keep_payload)
{
	struct tally *t;
	char **names = NULL;
	size_t nnames = 0, alloc = 0, i, r;
	unsigned l;
	int rc = 0;

	*out = NULL;
	if (depth < 1)
		depth = 1;
	t = calloc(1, sizeof(*t));
	if (!t)
		return error_oom();
	t->depth = depth;
	t->nreleases = rel->n;
	t->releases = calloc(rel->n ? rel->n : 1, sizeof(*t->releases));
	t->files = calloc(blame->nfiles ? blame->nfiles : 1, sizeof(*t->files));
	if (!t->releases || !t->files) {
		rc = error_oom();
		goto done;
	}
	for (r = 0; r < rel->n; r++) {
		t->releases[r].name = rel->list[r].name;
		t->releases[r].release = &rel->list[r];
		t->releases[r].unreleased = rel->list[r].unreleased;
	}
	/* Files and the directories they need. */
	for (i = 0; i < blame->nfiles; i++) {
		const struct blame_file *bf = &blame->files[i];
		struct tally_file *f;
		uint32_t x;

		if (keep && !keep(bf->path, keep_payload))
			continue;
		f = &t->files[t->nfiles];
		f->path = strdup(bf->path);
		f->by_release = calloc(rel->n ? rel->n : 1, sizeof(uint64_t));
		if (!f->path || !f->by_release) {
			free(f->path);
			free(f->by_release);
			rc = error_oom();
			goto done;
		}
		t->nfiles++;
		for (x = 0; x < bf->nlines; x++)
			f->by_release[rel->of_commit[bf->lines[x]]]++;
		f->lines = bf->nlines;
		/* The first release is never the unreleased bucket. */
		f->untouched = rel->n && !rel->list[0].unreleased &&
			       f->by_release[0] == f->lines;
		for (l = 1; l <= depth; l++) {
			char *d = dir_at(bf->path, l);

			if (!d)
				break;
			if (nnames == alloc) {
				size_t na = alloc ? alloc * 2 : 64;
				char **p = realloc(names, na * sizeof(*p));

				if (!p) {
					free(d);
					rc = error_oom();
					goto done;
				}
				names = p;
				alloc = na;
			}
			names[nnames++] = d;
			if (!strcmp(d, "."))
				break;
		}
	}
	if (nnames)
		qsort(names, nnames, sizeof(*names), str_cmp);
	t->dirs = calloc(nnames + 1, sizeof(*t->dirs));
	if (!t->dirs) {
		rc = error_oom();
		goto done;
	}
	t->dirs[0].path = strdup("");
	if (!t->dirs[0].path) {
		rc = error_oom();
		goto done;
	}
	t->ndirs = 1;
	for (i = 0; i < nnames; i++) {
		struct tally_dir *d;
		const char *p;

		if (t->ndirs > 1 && !strcmp(names[i], t->dirs[t->ndirs - 1].path))
			continue;
		d = &t->dirs[t->ndirs++];
		d->path = names[i];
		names[i] = NULL;
		d->level = 1;
		for (p = d->path; (p = strchr(p, '/')); p++)
			d->level++;
	}
	for (i = 0; i < t->ndirs; i++) {
		t->dirs[i].by_release = calloc(rel->n ? rel->n : 1,
					       sizeof(uint64_t));
		if (!t->dirs[i].by_release) {
			rc = error_oom();
			goto done;
		}
	}
	/* Parents: the directory one level up, or the root. */
	for (i = 1; i < t->ndirs; i++) {
		struct tally_dir *d = &t->dirs[i];
		char *slash = strrchr(d->path, '/');

		d->parent = 0;
		if (slash) {
			char *up = strndup(d->path, (size_t)(slash - d->path));

			if (!up) {
				rc = error_oom();
				goto done;
			}
			d->parent = tally_find_dir(t, up, strlen(up));
			free(up);
		}
	}
	for (i = 0; i < t->nfiles; i++) {
		struct tally_file *f = &t->files[i];
		int deepest = file_dir_depth(f->path, depth);
		size_t dir = 0;

		add_counts(t, 0, f);
		for (l = 1; l <= (unsigned)deepest; l++) {
			char *d = dir_at(f->path, l);

			if (!d) {
				rc = error_oom();
				goto done;
			}
			dir = tally_find_dir(t, d, strlen(d));
			free(d);
			add_counts(t, dir, f);
		}
		f->dir = dir;
		t->total_lines += f->lines;
		if (f->untouched) {
			t->nuntouched++;
			t->untouched_lines += f->lines;
		}
	}
	for (r = 0; r < t->nreleases; r++) {
		t->releases[r].lines = t->dirs[0].by_release[r];
		t->releases[r].share = t->total_lines ?
			100.0 * (double)t->releases[r].lines /
			(double)t->total_lines : 0.0;
	}
	for (i = 0; i < t->ndirs; i++) {
		struct tally_dir *d = &t->dirs[i];

		d->first_share = d->lines && t->nreleases &&
				 !t->releases[0].unreleased ?
			100.0 * (double)d->by_release[0] / (double)d->lines :
			0.0;
	}
done:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (rc < 0)
		tally_free(t);
	else
		*out = t;
	return rc;
}

void tally_free(struct tally *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		free(t->files[i].by_release);
	}
	for (i = 0; i < t->ndirs; i++) {
		free(t->dirs[i].path);
		free(t->dirs[i].by_release);
	}
	free(t->files);
	free(t->dirs);
	free(t->releases);
	free(t);
}

size_t tally_subsystem_of(const struct tally *t, size_t dir)
{
	while (dir && t->dirs[dir].level > 1)
		dir = t->dirs[dir].parent;
	return dir;
}
