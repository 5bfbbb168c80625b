#include "strata/tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/snapshots.h"
#include "strata/util.h"

/*
 * *out: the directory of `path` at `level` (1-based), malloc'd, or NULL
 * when the file is not that deep. Root files have "." at level 1 and
 * nothing below. Fails only when out of memory.
 */
static int dir_at(char **out, const char *path, unsigned level)
{
	const char *p = path;
	unsigned l;

	*out = NULL;
	for (l = 0; l < level; l++) {
		p = strchr(p, '/');
		if (!p) {
			if (level != 1 || l != 0)
				return 0;
			p = path + 1;
			path = ".";
			break;
		}
		if (l + 1 < level)
			p++;
	}
	if (!(*out = strndup(path, (size_t)(p - path))))
		return error_oom();
	return 0;
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

/* The releases' rows, in the order of `rel`. */
static int releases_init(struct tally *t, const struct releases *rel)
{
	size_t r;

	t->nreleases = rel->n;
	t->releases = calloc(rel->n ? rel->n : 1, sizeof(*t->releases));
	if (!t->releases)
		return error_oom();
	for (r = 0; r < rel->n; r++) {
		t->releases[r].name = rel->list[r].name;
		t->releases[r].release = &rel->list[r];
		t->releases[r].unreleased = rel->list[r].unreleased;
	}
	return 0;
}

/* Every directory (to `depth`) on the path, appended to `names`. */
static int names_add(struct util_strlist *names, const char *path,
		     unsigned depth)
{
	unsigned l;
	char *d;
	int rc;

	for (l = 1; l <= depth; l++) {
		if ((rc = dir_at(&d, path, l)) < 0)
			return rc;
		if (!d)
			break;
		rc = UTIL_GROW(names->v, names->alloc, names->n + 1);
		if (rc < 0) {
			free(d);
			return rc;
		}
		names->v[names->n++] = d;
		if (!strcmp(d, "."))
			break;
	}
	return 0;
}

/* The kept files with their lines by release, and their directories. */
static int files_add(struct tally *t, struct util_strlist *names,
		     const struct blame_result *blame,
		     const struct releases *rel, tally_filter_fn keep,
		     void *keep_payload)
{
	size_t i;
	int rc;

	t->files = calloc(blame->nfiles ? blame->nfiles : 1,
			  sizeof(*t->files));
	if (!t->files)
		return error_oom();
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
			return error_oom();
		}
		t->nfiles++;
		for (x = 0; x < bf->nlines; x++)
			f->by_release[rel->of_commit[bf->lines[x]]]++;
		f->lines = bf->nlines;
		/* The first release is never the unreleased bucket. */
		f->untouched = rel->n && !rel->list[0].unreleased &&
			       f->by_release[0] == f->lines;
		if ((rc = names_add(names, bf->path, t->depth)) < 0)
			return rc;
	}
	return 0;
}

/* The directories, sorted and once each, the root first; their parents. */
static int dirs_make(struct tally *t, struct util_strlist *names)
{
	size_t i;

	util_strlist_sort(names);
	t->dirs = calloc(names->n + 1, sizeof(*t->dirs));
	if (!t->dirs || !(t->dirs[0].path = strdup("")))
		return error_oom();
	t->ndirs = 1;
	for (i = 0; i < names->n; i++) {
		struct tally_dir *d;
		const char *p;

		if (t->ndirs > 1 &&
		    !strcmp(names->v[i], t->dirs[t->ndirs - 1].path))
			continue;
		d = &t->dirs[t->ndirs++];
		d->path = names->v[i];
		names->v[i] = NULL;
		d->level = 1;
		for (p = d->path; (p = strchr(p, '/')); p++)
			d->level++;
	}
	for (i = 0; i < t->ndirs; i++) {
		t->dirs[i].by_release = calloc(t->nreleases ? t->nreleases : 1,
					       sizeof(uint64_t));
		if (!t->dirs[i].by_release)
			return error_oom();
	}
	/* Parents: the directory one level up, or the root. */
	for (i = 1; i < t->ndirs; i++) {
		struct tally_dir *d = &t->dirs[i];
		char *slash = strrchr(d->path, '/');

		d->parent = slash ? tally_find_dir(t, d->path,
						   (size_t)(slash - d->path)) :
			    0;
	}
	return 0;
}

/* Each file counted in every directory above it, and in the whole. */
static int counts_add(struct tally *t)
{
	size_t i;
	unsigned l;
	int rc;

	for (i = 0; i < t->nfiles; i++) {
		struct tally_file *f = &t->files[i];
		int deepest = file_dir_depth(f->path, t->depth);
		size_t dir = 0;
		char *d;

		add_counts(t, 0, f);
		for (l = 1; l <= (unsigned)deepest; l++) {
			if ((rc = dir_at(&d, f->path, l)) < 0)
				return rc;
			dir = d ? tally_find_dir(t, d, strlen(d)) : 0;
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
	return 0;
}

static void shares_set(struct tally *t)
{
	size_t i, r;

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
}

int tally_build(struct tally **out, const struct blame_result *blame,
		const struct releases *rel, unsigned depth,
		tally_filter_fn keep, void *keep_payload)
{
	struct util_strlist names = UTIL_STRLIST_INIT;
	struct tally *t;
	int rc;

	*out = NULL;
	if (!(t = calloc(1, sizeof(*t))))
		return error_oom();
	t->depth = depth < 1 ? 1 : depth;
	if ((rc = releases_init(t, rel)) < 0 ||
	    (rc = files_add(t, &names, blame, rel, keep, keep_payload)) < 0 ||
	    (rc = dirs_make(t, &names)) < 0 ||
	    (rc = counts_add(t)) < 0)
		goto done;
	shares_set(t);
done:
	util_strlist_release(&names);
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

enum tally_silence tally_release_silent(const struct tally *t, size_t r)
{
	const struct tally_release *tr = &t->releases[r];
	const struct snapshots *h = t->history;

	if (tr->unreleased || !tr->release || tr->lines ||
	    tr->release->commits)
		return TALLY_WROTE;
	for (size_t k = 0; h && h->nreleases == t->nreleases && k < h->n; k++)
		if (h->list[k].by_release[r])
			return TALLY_WROTE;
	for (size_t k = 0; k < tr->release->ntags; k++)
		if (tr->release->tags[k].in_rev)
			return TALLY_SILENT_ON_HISTORY;
	return TALLY_SILENT_ELSEWHERE;
}
