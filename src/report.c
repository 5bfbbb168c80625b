/*
 * report: publishing DIR atomically.
 *
 * Everything is built in PARENT/.NAME.strata-XXXXXX beside DIR, then
 * swapped in with one renameat2(RENAME_EXCHANGE) (two renames where the
 * file system cannot exchange), so DIR is at every moment either the
 * old report or the new one.
 *
 * DIR/.strata-report marks a directory strata made and lists every path
 * strata wrote into it. Only those are ever deleted. Anything else in DIR
 * (a .gitignore, a CNAME, a .git, a file a user dropped into img/) is
 * "foreign": it is moved into the new report before the swap, at the
 * same path, and never replaced; a new report that would need one of
 * those paths fails instead. A non-empty DIR without the marker is
 * refused unless --force (a lone .gitignore or .gitkeep does not count).
 * docs/site.md tells users the same.
 */
#include "strata/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/data.h"
#include "strata/error.h"
#include "strata/publish.h"

#define MARKER ".strata-report"
#define MARKER_HEAD "strata report"

/* A growable, sortable list of strings. */
struct strlist {
	char **v;
	size_t n, alloc;
};

static int strlist_push(struct strlist *l, const char *s)
{
	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? l->alloc * 2 : 16;
		char **v = realloc(l->v, alloc * sizeof(*v));

		if (!v)
			return error_oom();
		l->v = v;
		l->alloc = alloc;
	}
	if (!(l->v[l->n] = strdup(s)))
		return error_oom();
	l->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strlist_sort(struct strlist *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

static int strlist_has(const struct strlist *l, const char *s)
{
	return l->n && bsearch(&s, l->v, l->n, sizeof(*l->v), cmp_str);
}

static void strlist_release(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The names in an open directory, sorted (so walks are deterministic). */
static int list_dir(struct strlist *out, int fd, const char *shown)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return error_set("unable to read '%s': %s", shown,
				 strerror(errno));
	}
	rewinddir(d);
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((rc = strlist_push(out, e->d_name)) < 0)
			break;
	}
	if (!rc && errno)
		rc = error_set("unable to read '%s': %s", shown,
			       strerror(errno));
	closedir(d);
	strlist_sort(out);
	return rc;
}

static char *join(const char *a, const char *b)
{
	char *s;

	if (!a || !*a)
		return strdup(b);
	return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

/* Remove `name` under `fd` and all below it, never following a link. */
static int remove_tree_at(int fd, const char *name, const char *shown)
{
	struct strlist names = {0};
	int sub, rc = 0;

	sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return error_set("unable to remove '%s': %s", shown,
					 strerror(errno));
		if (unlinkat(fd, name, 0) && errno != ENOENT)
			return error_set("unable to remove '%s': %s", shown,
					 strerror(errno));
		return 0;
	}
	rc = list_dir(&names, sub, shown);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *child = join(shown, names.v[i]);

		rc = child ? remove_tree_at(sub, names.v[i], child) :
			     error_oom();
		free(child);
	}
	close(sub);
	strlist_release(&names);
	if (!rc && unlinkat(fd, name, AT_REMOVEDIR) && errno != ENOENT)
		rc = error_set("unable to remove '%s': %s", shown,
			       strerror(errno));
	return rc;
}

static int remove_tree(const char *path)
{
	return remove_tree_at(AT_FDCWD, path, path);
}

/* mkdir -p */
static int make_dirs(const char *path, mode_t mode)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return error_oom();
	for (char *s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			rc = error_set("unable to create '%s': %s", p,
				       strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

/* Where the report goes, and what is there now. */
struct target {
	const char *given;      /* DIR as the user wrote it, for messages */
	char *path;             /* absolute, symbolic links resolved */
	char *parent;
	char *base;
	int exists;
	mode_t mode;            /* for the new directory */
	int ours;               /* holds a valid marker */
	struct strlist wrote;   /* the marker's list: what strata wrote */
	struct strlist foreign; /* what strata did not write, to keep */
};

static void target_release(struct target *tg)
{
	free(tg->path);
	free(tg->parent);
	free(tg->base);
	strlist_release(&tg->wrote);
	strlist_release(&tg->foreign);
}

static int target_resolve(struct target *tg, const char *given)
{
	char *copy = NULL, *slash, *real = NULL;
	size_t len;
	struct stat st;
	int rc = 0;
	mode_t mask = umask(0);

	umask(mask);
	tg->given = given;
	tg->mode = 0777 & ~mask;
	if (!given || !*given)
		return error_setc(STRATA_EUSAGE, "no output directory given");
	copy = strdup(given);
	if (!copy)
		return error_oom();
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';

	if (stat(copy, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			rc = error_set("'%s' is not a directory", given);
			goto done;
		}
		real = realpath(copy, NULL);
		if (!real) {
			rc = error_set("unable to resolve '%s': %s", given,
				       strerror(errno));
			goto done;
		}
		tg->exists = 1;
		tg->mode = st.st_mode & 07777;
	} else if (errno == ENOENT && lstat(copy, &st) == 0) {
		rc = error_set("'%s' is a broken symbolic link", given);
		goto done;
	} else if (errno != ENOENT) {
		rc = error_set("unable to use '%s': %s", given,
			       strerror(errno));
		goto done;
	} else {
		const char *base;
		char *parent_real;

		slash = strrchr(copy, '/');
		base = slash ? slash + 1 : copy;
		if (!strcmp(base, ".") || !strcmp(base, "..")) {
			rc = error_set("unable to use '%s' as the report "
				       "directory", given);
			goto done;
		}
		if (slash && slash != copy) {
			*slash = '\0';
			if ((rc = make_dirs(copy, 0777)) < 0)
				goto done;
		}
		parent_real = realpath(slash ? (slash == copy ? "/" : copy) :
				       ".", NULL);
		if (!parent_real) {
			rc = error_set("unable to resolve the parent of '%s': "
				       "%s", given, strerror(errno));
			goto done;
		}
		if (asprintf(&real, "%s/%s", strcmp(parent_real, "/") ?
			     parent_real : "", base) < 0)
			real = NULL;
		free(parent_real);
		if (!real) {
			rc = error_oom();
			goto done;
		}
	}
	slash = strrchr(real, '/');
	if (!slash || !slash[1]) {
		rc = error_set("unable to use '%s' as the report directory",
			       given);
		goto done;
	}
	tg->path = real;
	real = NULL;
	tg->base = strdup(slash + 1);
	tg->parent = slash == tg->path ? strdup("/") :
		     strndup(tg->path, (size_t)(slash - tg->path));
	if (!tg->base || !tg->parent)
		rc = error_oom();
done:
	free(real);
	free(copy);
	return rc;
}

/* Read DIR/.strata-report; tg->ours stays 0 if there is none. */
static int read_marker(struct target *tg)
{
	char *path, *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int rc = 0;

	if (asprintf(&path, "%s/%s", tg->path, MARKER) < 0)
		return error_oom();
	f = fopen(path, "r");
	free(path);
	if (!f)
		return 0;
	n = getline(&line, &cap, f);
	if (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	if (n < 0 || strcmp(line, MARKER_HEAD))
		goto done;
	tg->ours = 1;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n && (rc = strlist_push(&tg->wrote, line)) < 0)
			break;
	}
	strlist_sort(&tg->wrote);
done:
	free(line);
	fclose(f);
	return rc;
}

/*
 * Collect what strata did not write under DIR/rel: whole entries, not
 * descending into a directory that is not strata's.
 */
static int find_foreign(struct target *tg, int fd, const char *rel)
{
	struct strlist names = {0};
	char *shown = join(tg->path, rel);
	int rc;

	if (!shown)
		return error_oom();
	rc = list_dir(&names, fd, shown);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *path = join(rel, names.v[i]), *key = NULL;
		struct stat st;
		int sub;

		if (!path) {
			rc = error_oom();
			break;
		}
		if (!*rel && !strcmp(names.v[i], MARKER)) {
			free(path);
			continue;
		}
		if (fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW)) {
			rc = error_set("unable to read '%s/%s': %s", tg->path,
				       path, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (asprintf(&key, "%s/", path) < 0) {
				key = NULL;
				rc = error_oom();
			} else if (!strlist_has(&tg->wrote, key)) {
				rc = strlist_push(&tg->foreign, path);
			} else if ((sub = openat(fd, names.v[i], O_RDONLY |
					O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC)) < 0) {
				rc = error_set("unable to read '%s/%s': %s",
					       tg->path, path, strerror(errno));
			} else {
				rc = find_foreign(tg, sub, path);
				close(sub);
			}
		} else if (!S_ISREG(st.st_mode) ||
			   !strlist_has(&tg->wrote, path)) {
			rc = strlist_push(&tg->foreign, path);
		}
		free(key);
		free(path);
	}
	strlist_release(&names);
	free(shown);
	return rc;
}

/* Files that keep an otherwise empty directory in git. */
static int is_placeholder(const char *name)
{
	return !strcmp(name, ".gitignore") || !strcmp(name, ".gitkeep");
}

static int target_inspect(struct target *tg, int force)
{
	int fd, rc;
	int refuse = 0;

	if (!tg->exists)
		return 0;
	if ((rc = read_marker(tg)) < 0)
		return rc;
	fd = open(tg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_set("unable to read '%s': %s", tg->given,
				 strerror(errno));
	rc = find_foreign(tg, fd, "");
	close(fd);
	if (rc < 0)
		return rc;
	for (size_t i = 0; !tg->ours && i < tg->foreign.n; i++)
		if (!is_placeholder(tg->foreign.v[i]))
			refuse = 1;
	if (refuse && !force)
		return error_set("refusing to write into '%s': not a strata "
				 "report (use --force)", tg->given);
	return 0;
}

/* Every path under `dir` (directories with a trailing '/'), sorted. */
static int list_tree(struct strlist *out, int fd, const char *rel,
		     const char *shown)
{
	struct strlist names = {0};
	int rc = list_dir(&names, fd, shown);

	for (size_t i = 0; !rc && i < names.n; i++) {
		char *path = join(rel, names.v[i]), *key = NULL;
		struct stat st;
		int sub;

		if (!path) {
			rc = error_oom();
			break;
		}
		if (fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW)) {
			rc = error_set("unable to read '%s/%s': %s", shown,
				       names.v[i], strerror(errno));
		} else if (!S_ISDIR(st.st_mode)) {
			rc = strlist_push(out, path);
		} else if (asprintf(&key, "%s/", path) < 0) {
			key = NULL;
			rc = error_oom();
		} else if (!(rc = strlist_push(out, key))) {
			sub = openat(fd, names.v[i], O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				rc = error_set("unable to read '%s/%s': %s",
					       shown, names.v[i],
					       strerror(errno));
			} else {
				rc = list_tree(out, sub, path, shown);
				close(sub);
			}
		}
		free(key);
		free(path);
	}
	strlist_release(&names);
	return rc;
}

/* The marker, written last: the list of what this run wrote. */
static int write_marker(const char *dir)
{
	struct strlist paths = {0};
	char *path = NULL;
	FILE *f = NULL;
	int fd, rc;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return error_set("unable to read '%s': %s", dir,
				 strerror(errno));
	rc = list_tree(&paths, fd, "", dir);
	close(fd);
	if (rc < 0)
		goto done;
	strlist_sort(&paths);
	for (size_t i = 0; i < paths.n; i++)
		if (strchr(paths.v[i], '\n')) {
			rc = error_set("unexpected file name in '%s'", dir);
			goto done;
		}
	if (asprintf(&path, "%s/%s", dir, MARKER) < 0) {
		path = NULL;
		rc = error_oom();
		goto done;
	}
	f = fopen(path, "w");
	if (!f) {
		rc = error_set("unable to create '%s': %s", path,
			       strerror(errno));
		goto done;
	}
	fprintf(f, "%s\n", MARKER_HEAD);
	for (size_t i = 0; i < paths.n; i++)
		fprintf(f, "%s\n", paths.v[i]);
	if (ferror(f) | fclose(f))
		rc = error_set("unable to write '%s': %s", path,
			       strerror(errno));
done:
	free(path);
	strlist_release(&paths);
	return rc;
}

static int build(const struct publish_api *pub, const char *tmp,
		 const struct tally *t, const struct report_info *info,
		 const struct report_options *opts, const char *templates)
{
	struct site_options so = {templates, opts->chart.dark};
	char *data = join(tmp, "data"), *img = join(tmp, "img");
	int rc = 0;

	if (!data || !img) {
		rc = error_oom();
		goto done;
	}
	if (mkdir(data, 0777) || mkdir(img, 0777)) {
		rc = error_set("unable to create a directory in '%s': %s", tmp,
			       strerror(errno));
		goto done;
	}
	if ((rc = data_write(data, t, info)) < 0 ||
	    (rc = pub->write_charts(img, t, info, &opts->chart)) < 0 ||
	    (rc = pub->write_site(tmp, t, info, &so)) < 0 ||
	    (rc = write_marker(tmp)) < 0)
		goto done;
done:
	free(data);
	free(img);
	return rc;
}

/*
 * Move the foreign entries from DIR into the new report (nmoved counts
 * them); first check that none would replace something of the report.
 */
static int carry_foreign(const struct target *tg, const char *tmp,
			 size_t *nmoved)
{
	int rc = 0;

	*nmoved = 0;
	for (size_t i = 0; i < tg->foreign.n; i++) {
		char *to = join(tmp, tg->foreign.v[i]);
		struct stat st;
		int taken;

		if (!to)
			return error_oom();
		taken = lstat(to, &st) == 0;
		free(to);
		if (taken)
			return error_set("refusing to replace '%s/%s': strata "
					 "did not write it", tg->given,
					 tg->foreign.v[i]);
	}
	for (size_t i = 0; !rc && i < tg->foreign.n; i++) {
		const char *rel = tg->foreign.v[i];
		char *from = join(tg->path, rel), *to = join(tmp, rel);
		char *slash = to ? strrchr(to, '/') : NULL;

		if (!from || !to) {
			rc = error_oom();
		} else {
			/* a directory strata no longer writes: make it */
			*slash = '\0';
			rc = make_dirs(to, 0777);
			*slash = '/';
			if (!rc && rename(from, to))
				rc = error_set("unable to move '%s' into the new "
					       "report: %s", from,
					       strerror(errno));
			if (!rc)
				++*nmoved;
		}
		free(from);
		free(to);
	}
	return rc;
}

/* Put the first n carried entries back; 0 if all went back. */
static int return_foreign(const struct target *tg, const char *tmp, size_t n)
{
	int lost = 0;

	while (n--) {
		char *from = join(tmp, tg->foreign.v[n]);
		char *to = join(tg->path, tg->foreign.v[n]);

		if (!from || !to || rename(from, to))
			lost = -1;
		free(from);
		free(to);
	}
	return lost;
}

/* Delete what the old report's marker lists, then its directory. */
static void remove_old(const struct target *tg, const char *old)
{
	int fd = open(old, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	/* In reverse order a directory comes after what is inside it. */
	for (size_t i = tg->wrote.n; i-- > 0;) {
		char *p = tg->wrote.v[i];
		size_t len = strlen(p);

		if (len && p[len - 1] == '/') {
			p[len - 1] = '\0';
			unlinkat(fd, p, AT_REMOVEDIR);
			p[len - 1] = '/';
		} else {
			unlinkat(fd, p, 0);
		}
	}
	if (tg->ours)
		unlinkat(fd, MARKER, 0);
	close(fd);
	/* Anything left was not strata's: then the directory stays. */
	rmdir(old);
}

/* Put `tmp` in place of tg->path; *old says where the old report is. */
static int swap_in(const struct target *tg, const char *tmp, char **old)
{
	char *aside;

	*old = NULL;
	if (!tg->exists) {
		if (rename(tmp, tg->path))
			return error_set("unable to move the report into '%s': "
					 "%s", tg->given, strerror(errno));
		return 0;
	}
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, tg->path, RENAME_EXCHANGE)) {
		*old = strdup(tmp);
		return *old ? 0 : error_oom();
	}
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return error_set("unable to replace '%s': %s", tg->given,
				 strerror(errno));

	/* No exchange here: DIR is missing for a moment. */
	if (asprintf(&aside, "%s/.%.200s.strata-old-XXXXXX", tg->parent,
		     tg->base) < 0)
		return error_oom();
	if (!mkdtemp(aside) || rename(tg->path, aside)) {
		int e = errno;

		rmdir(aside);
		free(aside);
		return error_set("unable to replace '%s': %s", tg->given,
				 strerror(e));
	}
	if (rename(tmp, tg->path)) {
		int e = errno;

		rename(aside, tg->path);
		free(aside);
		return error_set("unable to replace '%s': %s", tg->given,
				 strerror(e));
	}
	*old = aside;
	return 0;
}

int report_publish(const struct tally *t, const struct report_info *info,
		   const struct report_options *opts)
{
	struct target tg = {0};
	const struct publish_api *pub;
	char *templates = NULL, *tmp = NULL, *old = NULL;
	size_t nmoved = 0;
	int rc;

	if ((rc = publish_load(&pub)) < 0 ||
	    (rc = pub->find_templates(&templates, opts->templates_dir)) < 0 ||
	    (rc = target_resolve(&tg, opts->out_dir)) < 0 ||
	    (rc = target_inspect(&tg, opts->force)) < 0)
		goto done;

	if (asprintf(&tmp, "%s/.%.200s.strata-XXXXXX", tg.parent, tg.base) < 0) {
		tmp = NULL;
		rc = error_oom();
		goto done;
	}
	if (!mkdtemp(tmp)) {
		rc = error_set("unable to create a directory beside '%s': %s",
			       opts->out_dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto done;
	}
	if (chmod(tmp, tg.mode)) {
		rc = error_set("unable to set the mode of '%s': %s", tmp,
			       strerror(errno));
		goto done;
	}
	if ((rc = build(pub, tmp, t, info, opts, templates)) < 0 ||
	    (rc = carry_foreign(&tg, tmp, &nmoved)) < 0 ||
	    (rc = swap_in(&tg, tmp, &old)) < 0)
		goto done;
	if (old)
		remove_old(&tg, old);
	free(tmp);
	tmp = NULL;
done:
	if (rc < 0 && tmp) {
		char why[512];

		/* The first error is the one to tell; clean-up keeps quiet. */
		snprintf(why, sizeof(why), "%s", error_last());
		if (nmoved && return_foreign(&tg, tmp, nmoved) < 0) {
			/* Never delete what could not be put back. */
			error_set("%s; some files of '%s' are still in '%s'",
				  why, opts->out_dir, tmp);
		} else {
			remove_tree(tmp);
			error_set("%s", why);
		}
	}
	free(tmp);
	free(old);
	free(templates);
	target_release(&tg);
	return rc;
}
