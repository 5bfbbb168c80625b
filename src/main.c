/*
 * strata: which release wrote the code we ship today?
 *
 * The command line. Only this file prints and chooses exit codes: 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <git2.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "strata/blame.h"
#include "strata/error.h"
#include "strata/history.h"
#include "strata/publish.h"
#include "strata/releases.h"
#include "strata/report.h"
#include "strata/repository.h"
#include "strata/snapshots.h"
#include "strata/tally.h"

enum command { CMD_BLAME, CMD_TABLE, CMD_REPORT };

struct strlist {
	const char **v;
	size_t n, alloc;
};

struct options {
	enum command cmd;
	const char *repo;
	const char *rev;
	const char *tags, *group;
	int first_parent, ignore_ws, quiet, force, verbose;
	struct strlist ignore_revs, ignore_files, include, exclude, paths;
	long depth, jobs;
	const char *out, *templates;
	long chart_width, chart_height;
	int dark;
	enum snapshots_when history;
};

static const char usage_main[] =
	"usage: strata <command> [REPO] [options] [-- PATH...]\n"
	"\n"
	"Which release wrote the code at a revision? strata blames every line\n"
	"of every text file exactly as 'git blame' does, maps each commit to\n"
	"the release that first shipped it, and tallies or publishes it.\n"
	"\n"
	"commands:\n"
	"  blame    print the commit of every line, as runs:\n"
	"           COMMIT<TAB>START<TAB>COUNT<TAB>PATH\n"
	"  table    print lines per release, old code per subsystem and\n"
	"           untouched files in the terminal\n"
	"  report   publish data, charts and a static site into a directory\n"
	"\n"
	"REPO is a work tree, a .git directory or a bare repository\n"
	"(default: the current directory).\n"
	"\n"
	"options for every command:\n"
	"  --rev REV              revision to examine (default: HEAD)\n"
	"  --first-parent         follow only first parents (git blame\n"
	"                         --first-parent)\n"
	"  -w                     ignore whitespace when comparing lines\n"
	"  --ignore-rev REV       blame lines changed by REV on earlier commits\n"
	"                         (repeatable)\n"
	"  --ignore-revs-file F   the same for every commit listed in F;\n"
	"                         blame.ignoreRevsFile is read as git does\n"
	"  --tags ERE             tags that mark releases (POSIX extended\n"
	"                         regular expression, whole tag name)\n"
	"  --group ERE            its first subexpression names the release\n"
	"                         of a matching tag\n"
	"  --include GLOB         tally only matching files (repeatable)\n"
	"  --exclude GLOB         leave matching files out (repeatable)\n"
	"  --depth N              directory levels tallied (default: 1)\n"
	"  --history WHEN         snapshots for the history: releases, year,\n"
	"                         quarter, month or none (report: releases;\n"
	"                         table: none; with it the table shows them)\n"
	"  --jobs N               threads (default: all cores)\n"
	"  --quiet                no progress bar\n"
	"  --verbose              print what the engine did, with timings\n"
	"\n"
	"options for report:\n"
	"  --out DIR              where to publish (default: output)\n"
	"  --force                write into a non-empty DIR not made by strata\n"
	"  --templates DIR        use these templates instead of the built-in\n"
	"  --chart-width N        chart width in CSS pixels (default: 960)\n"
	"  --chart-height N       chart height in CSS pixels (default: 480)\n"
	"  --theme light|dark     chart colours (default: light)\n"
	"\n"
	"environment: SOURCE_DATE_EPOCH dates the report; strata adds\n"
	"glibc.malloc.hugetlb=1 to GLIBC_TUNABLES unless it is set there\n"
	"(huge pages for the heap; see docs/usage.md)\n"
	"\n"
	"  strata --help, strata COMMAND --help, strata --version\n"
	"The manual is in docs/ (start with docs/README.md).\n";

static const char usage_blame[] =
	"usage: strata blame [REPO] [--rev REV] [options] [-- PATH...]\n"
	"\n"
	"Prints, for every text file at REV (or those under the PATHs), the\n"
	"maximal runs of consecutive lines that git blame gives to one commit:\n"
	"  COMMIT<TAB>START<TAB>COUNT<TAB>PATH\n"
	"sorted by path (bytewise), then by START (1-based). A text file is a\n"
	"regular, non-empty file with no NUL byte in its first 8000 bytes.\n"
	"\n"
	"options: --first-parent, -w, --ignore-rev REV, --ignore-revs-file F,\n"
	"--include GLOB, --exclude GLOB, --jobs N, --quiet (see strata --help)\n";

static const char usage_table[] =
	"usage: strata table [REPO] [--rev REV] [options]\n"
	"\n"
	"Prints the lines and share of the code at REV written in each\n"
	"release, the share of first-release code in each subsystem (top-level\n"
	"directory), and how many files are untouched since the first release.\n"
	"\n"
	"options: --tags ERE, --group ERE, --first-parent, -w, --ignore-rev,\n"
	"--ignore-revs-file, --include, --exclude, --depth N, --jobs N,\n"
	"--quiet (see strata --help)\n";

static const char usage_report[] =
	"usage: strata report [REPO] [--rev REV] [--out DIR] [options]\n"
	"\n"
	"Publishes a report into DIR (default: output): data/ (CSV and JSON),\n"
	"img/ (charts in SVG and PNG) and a static HTML site. The site is\n"
	"built beside DIR and swapped in whole; strata refuses a non-empty DIR\n"
	"that it did not create unless --force is given. The charts and pages\n"
	"are drawn by strata-publish.so, found beside the binary or in\n"
	"../lib/strata/ from it.\n"
	"\n"
	"options: --out DIR, --force, --templates DIR, --chart-width N,\n"
	"--chart-height N, --theme light|dark, and every common option\n"
	"(see strata --help)\n";

static int push(struct strlist *l, const char *s)
{
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 8;
		const char **p = realloc(l->v, na * sizeof(*p));

		if (!p)
			return error_oom();
		l->v = p;
		l->alloc = na;
	}
	l->v[l->n++] = s;
	return 0;
}

static int parse_long(long *out, const char *opt, const char *val, long min,
		      long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno || !*val || *end || v < min || v > max)
		return error_setc(STRATA_EUSAGE,
				  "invalid value '%s' for '%s': expected an "
				  "integer from %ld to %ld", val, opt, min, max);
	*out = v;
	return 0;
}

/*
 * Options take their value as "--opt VALUE" or "--opt=VALUE". Returns the
 * value, or NULL when `arg` is not this option.
 */
static const char *option_value(const char *arg, const char *name, int argc,
				char **argv, int *i, int *missing)
{
	size_t len = strlen(name);

	if (strncmp(arg, name, len))
		return NULL;
	if (arg[len] == '=')
		return arg + len + 1;
	if (arg[len])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int parse_args(struct options *o, int argc, char **argv)
{
	int i, rc = 0;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;

#define VALUE(name) \
	((v = option_value(a, name, argc, argv, &i, &missing)) || missing)
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				if ((rc = push(&o->paths, argv[i])) < 0)
					return rc;
			break;
		} else if (!strcmp(a, "--first-parent")) {
			o->first_parent = 1;
		} else if (!strcmp(a, "-w")) {
			o->ignore_ws = 1;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			o->quiet = 1;
		} else if (!strcmp(a, "--verbose")) {
			o->verbose = 1;
		} else if (!strcmp(a, "--force") && o->cmd == CMD_REPORT) {
			o->force = 1;
		} else if (VALUE("--rev")) {
			o->rev = v;
		} else if (VALUE("--tags")) {
			o->tags = v;
		} else if (VALUE("--group")) {
			o->group = v;
		} else if (VALUE("--ignore-rev")) {
			rc = v ? push(&o->ignore_revs, v) : 0;
		} else if (VALUE("--ignore-revs-file")) {
			rc = v ? push(&o->ignore_files, v) : 0;
		} else if (VALUE("--include")) {
			rc = v ? push(&o->include, v) : 0;
		} else if (VALUE("--exclude")) {
			rc = v ? push(&o->exclude, v) : 0;
		} else if (VALUE("--depth")) {
			rc = v ? parse_long(&o->depth, "--depth", v, 1, 64) : 0;
		} else if (VALUE("--history")) {
			rc = v ? snapshots_parse_when(&o->history, v) : 0;
		} else if (VALUE("--jobs")) {
			rc = v ? parse_long(&o->jobs, "--jobs", v, 1, 64) : 0;
		} else if (o->cmd == CMD_REPORT && VALUE("--out")) {
			o->out = v;
		} else if (o->cmd == CMD_REPORT && VALUE("--templates")) {
			o->templates = v;
		} else if (o->cmd == CMD_REPORT && VALUE("--chart-width")) {
			rc = v ? parse_long(&o->chart_width, "--chart-width", v,
					    CHART_MIN_WIDTH, CHART_MAX_WIDTH) : 0;
		} else if (o->cmd == CMD_REPORT && VALUE("--chart-height")) {
			rc = v ? parse_long(&o->chart_height, "--chart-height",
					    v, CHART_MIN_HEIGHT, CHART_MAX_HEIGHT) : 0;
		} else if (o->cmd == CMD_REPORT && VALUE("--theme")) {
			if (v && !strcmp(v, "dark"))
				o->dark = 1;
			else if (v && !strcmp(v, "light"))
				o->dark = 0;
			else if (v)
				return error_setc(STRATA_EUSAGE,
						  "invalid value '%s' for "
						  "'--theme': expected light "
						  "or dark", v);
		} else if (a[0] == '-' && a[1]) {
			return error_setc(STRATA_EUSAGE,
					  "unknown option '%s' (see 'strata %s "
					  "--help')", a, argv[1]);
		} else if (!o->repo) {
			o->repo = a;
		} else {
			return error_setc(STRATA_EUSAGE,
					  "unexpected argument '%s' (paths go "
					  "after '--')", a);
		}
#undef VALUE
		if (missing)
			return error_setc(STRATA_EUSAGE,
					  "option '%s' requires a value", a);
		if (rc < 0)
			return rc;
	}
	if (o->history != SNAPSHOTS_NONE && o->cmd == CMD_BLAME)
		return error_setc(STRATA_EUSAGE, "'--history' is only taken by "
				  "'strata table' and 'strata report'");
	if (o->paths.n && o->cmd != CMD_BLAME)
		return error_setc(STRATA_EUSAGE,
				  "paths after '--' are only taken by 'strata "
				  "blame'; use --include for a tally");
	return 0;
}

/* ---- progress ---- */

struct progress {
	int on;
	struct timespec start;
	const char *stage;
	int drawn;
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
	       (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void progress_cb(const char *stage, size_t done, size_t total,
			void *payload)
{
	struct progress *p = payload;
	char bar[31];
	double frac, el, eta;
	size_t fill, i;

	if (!p->on)
		return;
	if (p->stage != stage) {
		p->stage = stage;
		clock_gettime(CLOCK_MONOTONIC, &p->start);
	}
	if (!total) {
		/* Counting what is not known in advance: no bar, no ETA. */
		fprintf(stderr, "\r%-8s %zu %-40s", stage, done, "");
		p->drawn = 1;
		return;
	}
	frac = total ? (double)done / (double)total : 1.0;
	fill = (size_t)(frac * 30.0);
	for (i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = '\0';
	el = seconds_since(&p->start);
	eta = frac > 0.01 ? el / frac - el : -1;
	if (eta >= 0)
		fprintf(stderr, "\r%-8s [%s] %3d%% %zu/%zu eta %02d:%02d ",
			stage, bar, (int)(frac * 100), done, total,
			(int)eta / 60, (int)eta % 60);
	else
		fprintf(stderr, "\r%-8s [%s] %3d%% %zu/%zu eta --:-- ", stage,
			bar, (int)(frac * 100), done, total);
	p->drawn = 1;
}

static void progress_end(struct progress *p)
{
	if (p->on && p->drawn)
		fprintf(stderr, "\r%80s\r", "");
	p->drawn = 0;
}

/* ---- path filters ---- */

/* A glob without '/' matches a base name; with '/', the whole path. A
 * match on a leading directory takes everything below it. */
static int glob_match(const char *pat, const char *path)
{
	const char *p;

	if (!strchr(pat, '/')) {
		const char *base = strrchr(path, '/');

		if (!fnmatch(pat, base ? base + 1 : path, 0))
			return 1;
		/* A bare directory name matches anywhere in the path. */
		for (p = path; p && *p; p = strchr(p, '/')) {
			size_t len;
			char *comp;
			int m;

			if (*p == '/')
				p++;
			len = strcspn(p, "/");
			if (!p[len])
				break;
			comp = strndup(p, len);
			if (!comp)
				return 0;
			m = !fnmatch(pat, comp, 0);
			free(comp);
			if (m)
				return 1;
		}
		return 0;
	}
	if (!fnmatch(pat, path, 0))
		return 1;
	/* "dir/" or "dir/sub": everything under it. */
	for (p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		char *prefix = strndup(path, (size_t)(p - path));
		size_t plen = strlen(pat);
		int m;

		if (!prefix)
			return 0;
		if (plen && pat[plen - 1] == '/') {
			char *trim = strndup(pat, plen - 1);

			m = trim && !fnmatch(trim, prefix, 0);
			free(trim);
		} else {
			m = !fnmatch(pat, prefix, 0);
		}
		free(prefix);
		if (m)
			return 1;
	}
	return 0;
}

static int keep_path(const char *path, void *payload)
{
	const struct options *o = payload;
	size_t i;
	int keep = !o->include.n;

	for (i = 0; i < o->include.n && !keep; i++)
		keep = glob_match(o->include.v[i], path);
	for (i = 0; keep && i < o->exclude.n; i++)
		if (glob_match(o->exclude.v[i], path))
			keep = 0;
	return keep;
}

/* A pathspec after "--": the file itself or a directory above it. */
static int pathspec_match(const char *spec, const char *path)
{
	size_t len = strlen(spec);

	while (len > 1 && spec[len - 1] == '/')
		len--;
	if (len == 1 && spec[0] == '.')
		return 1;
	return !strncmp(spec, path, len) && (!path[len] || path[len] == '/');
}

static int want_path(const char *path, void *payload)
{
	const struct options *o = payload;
	size_t i;

	if (o->paths.n) {
		for (i = 0; i < o->paths.n; i++)
			if (pathspec_match(o->paths.v[i], path))
				break;
		if (i == o->paths.n)
			return 0;
	}
	return keep_path(path, payload);
}

/* ---- ignore revs ---- */

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static int add_ignore(git_oid **list, size_t *n, size_t *alloc,
		      const git_oid *oid)
{
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 16;
		git_oid *p = realloc(*list, na * sizeof(*p));

		if (!p)
			return error_oom();
		*list = p;
		*alloc = na;
	}
	git_oid_cpy(&(*list)[(*n)++], oid);
	return 0;
}

/* Like git: each line a full object name, '#' starts a comment. */
static int read_ignore_file(struct repository *repo, const char *file,
			    git_oid **list, size_t *n, size_t *alloc)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	int rc = 0;

	if (!f)
		return error_set("could not open object name list '%s': %s",
				 file, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *e, *hash = strchr(line, '#');
		git_oid oid;
		git_object *obj = NULL, *c = NULL;

		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*s)
			continue;
		if (strlen(s) != GIT_OID_HEXSZ || git_oid_fromstr(&oid, s) < 0) {
			rc = error_set("invalid object name '%s' in '%s'", s,
				       file);
			break;
		}
		/* Names of missing objects are skipped, as git does. */
		if (git_object_lookup(&obj, repo->git, &oid, GIT_OBJECT_ANY) < 0)
			continue;
		if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) == 0)
			rc = add_ignore(list, n, alloc, git_object_id(c));
		git_object_free(c);
		git_object_free(obj);
		if (rc < 0)
			break;
	}
	fclose(f);
	return rc;
}

static char *resolve_config_path(struct repository *repo, const char *p)
{
	const char *wd = git_repository_workdir(repo->git);
	char *out = NULL;

	if (p[0] == '~' && p[1] == '/' && getenv("HOME")) {
		if (asprintf(&out, "%s%s", getenv("HOME"), p + 1) < 0)
			return NULL;
		return out;
	}
	/* git runs in the top of the work tree, or in a bare repository. */
	if (!wd)
		wd = git_repository_path(repo->git);
	if (p[0] == '/')
		return strdup(p);
	if (asprintf(&out, "%s%s", wd, p) < 0)
		return NULL;
	return out;
}

/* The ignore-revs files in git's order: the config's, then ours; an
 * empty name clears the list so far. */
struct file_list {
	struct repository *repo;
	char **files;
	size_t n, alloc;
	int rc;
};

static int file_list_add(struct file_list *l, const char *name, int config)
{
	size_t i;

	if (!*name) {
		for (i = 0; i < l->n; i++)
			free(l->files[i]);
		l->n = 0;
		return 0;
	}
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 4;
		char **p = realloc(l->files, na * sizeof(*p));

		if (!p)
			return (l->rc = error_oom());
		l->files = p;
		l->alloc = na;
	}
	l->files[l->n] = config ? resolve_config_path(l->repo, name)
				: strdup(name);
	if (!l->files[l->n])
		return (l->rc = error_oom());
	l->n++;
	return 0;
}

/* Raw blame.ignoreRevsFile values, before git's ordering. */
struct cfg_values {
	char **v;
	size_t n, alloc;
	int rc;
};

static int cfg_file_cb(const git_config_entry *e, void *payload)
{
	struct cfg_values *c = payload;

	if (c->n == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 4;
		char **p = realloc(c->v, na * sizeof(*p));

		if (!p)
			return (c->rc = error_oom());
		c->v = p;
		c->alloc = na;
	}
	if (!(c->v[c->n] = strdup(e->value)))
		return (c->rc = error_oom());
	c->n++;
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_ignores(git_oid **out, size_t *nout, struct repository *repo,
			const struct options *o)
{
	struct file_list fl = {repo, NULL, 0, 0, 0};
	struct cfg_values cv = {NULL, 0, 0, 0};
	git_config *cfg = NULL;
	git_oid *list = NULL;
	size_t n = 0, alloc = 0, i;
	int rc = 0;

	if (git_repository_config_snapshot(&cfg, repo->git) == 0) {
		git_config_get_multivar_foreach(cfg, "blame.ignoreRevsFile",
						NULL, cfg_file_cb, &cv);
		git_config_free(cfg);
		if ((rc = cv.rc) < 0)
			goto done;
	}
	/*
	 * git keeps the configured names in a sorted list without duplicates,
	 * so an empty value (sorted first) clears only what comes before it
	 * on the command line's side, not the other configured files.
	 */
	if (cv.n)
		qsort(cv.v, cv.n, sizeof(*cv.v), str_cmp);
	for (i = 0; i < cv.n; i++) {
		if (i && !strcmp(cv.v[i], cv.v[i - 1]))
			continue;
		if ((rc = file_list_add(&fl, cv.v[i], 1)) < 0)
			goto done;
	}
	for (i = 0; i < o->ignore_files.n; i++)
		if ((rc = file_list_add(&fl, o->ignore_files.v[i], 0)) < 0)
			goto done;
	for (i = 0; i < fl.n; i++)
		if ((rc = read_ignore_file(repo, fl.files[i], &list, &n,
					   &alloc)) < 0)
			goto done;
	for (i = 0; i < o->ignore_revs.n; i++) {
		git_oid oid;
		const char *r = o->ignore_revs.v[i];

		if (repository_resolve_commit(&oid, repo, r) < 0) {
			rc = error_set("cannot find revision '%s' to ignore", r);
			goto done;
		}
		if ((rc = add_ignore(&list, &n, &alloc, &oid)) < 0)
			goto done;
	}
	if (n)
		qsort(list, n, sizeof(*list), oid_cmp);
	*out = list;
	*nout = n;
	list = NULL;
done:
	for (i = 0; i < fl.n; i++)
		free(fl.files[i]);
	free(fl.files);
	for (i = 0; i < cv.n; i++)
		free(cv.v[i]);
	free(cv.v);
	free(list);
	return rc;
}

/* ---- commands ---- */

/* v in decimal at p; returns the end. */
static char *put_u32(char *p, uint32_t v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/*
 * The runs, formatted by hand: printf took 52 million instructions for
 * tmux's 34,000 runs.
 */
static int print_blame(const struct blame_result *b, const struct history *h)
{
	static const char hexdigit[] = "0123456789abcdef";
	char *buf = NULL;
	size_t i, cap = 0;
	uint32_t s, e;
	int rc = 0;

	for (i = 0; i < b->nfiles; i++) {
		const struct blame_file *f = &b->files[i];
		size_t plen = strlen(f->path);

		if (cap < plen + 128) {
			char *nb = realloc(buf, plen + 128);

			if (!nb) {
				rc = error_oom();
				goto done;
			}
			buf = nb;
			cap = plen + 128;
		}
		for (s = 0; s < f->nlines; s = e) {
			const unsigned char *id;
			char *p = buf;
			int k;

			for (e = s + 1; e < f->nlines &&
			     f->lines[e] == f->lines[s]; e++)
				;
			id = h->commits[f->lines[s]].oid.id;
			for (k = 0; k < GIT_OID_RAWSZ; k++) {
				*p++ = hexdigit[id[k] >> 4];
				*p++ = hexdigit[id[k] & 15];
			}
			*p++ = '\t';
			p = put_u32(p, s + 1);
			*p++ = '\t';
			p = put_u32(p, e - s);
			*p++ = '\t';
			memcpy(p, f->path, plen);
			p += plen;
			*p++ = '\n';
			fwrite(buf, 1, (size_t)(p - buf), stdout);
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = error_set("unable to write the output: %s",
			       strerror(errno));
done:
	free(buf);
	return rc;
}

static int check_pathspecs(const struct options *o,
			   const struct blame_result *b)
{
	size_t i, j;

	for (i = 0; i < o->paths.n; i++) {
		for (j = 0; j < b->nfiles; j++)
			if (pathspec_match(o->paths.v[i], b->files[j].path))
				break;
		if (j == b->nfiles)
			return error_set("pathspec '%s' did not match any "
					 "text file", o->paths.v[i]);
	}
	return 0;
}

static void print_table(const struct tally *t, const struct report_info *in)
{
	size_t i;
	const char *first = t->nreleases ? t->releases[0].name : "-";

	printf("%s at %s (%.12s): %llu lines in %zu text files\n\n",
	       in->repo_name, in->rev, in->commit,
	       (unsigned long long)t->total_lines, t->nfiles);
	printf("%-20s %-10s %12s %8s %9s\n", "release", "date", "lines",
	       "share", "commits");
	for (i = 0; i < t->nreleases; i++) {
		const struct tally_release *r = &t->releases[i];
		char day[16] = "-";
		time_t when = (time_t)r->release->last_date;
		struct tm tm;

		/* The day of its last tag: the release itself, after its rcs. */
		if (!r->unreleased && gmtime_r(&when, &tm))
			strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		printf("%-20s %-10s %12llu %7.2f%% %9llu\n", r->name, day,
		       (unsigned long long)r->lines, r->share,
		       (unsigned long long)r->release->commits);
	}
	printf("\n%-32s %12s %14s\n", "subsystem", "lines", "from first");
	for (i = 1; i < t->ndirs; i++) {
		const struct tally_dir *d = &t->dirs[i];

		if (d->level != 1)
			continue;
		printf("%-32s %12llu %13.2f%%\n", d->path,
		       (unsigned long long)d->lines, d->first_share);
	}
	printf("%-32s %12llu %13.2f%%\n", "(all)",
	       (unsigned long long)t->total_lines, t->dirs[0].first_share);
	printf("\nfiles untouched since %s: %zu of %zu (%llu lines)\n", first,
	       t->nuntouched, t->nfiles,
	       (unsigned long long)t->untouched_lines);
}

/* "2010-02-24" */
static void print_day(char *buf, size_t size, int64_t t)
{
	time_t when = (time_t)t;
	struct tm tm;

	snprintf(buf, size, "-");
	if ((int64_t)when == t && gmtime_r(&when, &tm))
		strftime(buf, size, "%Y-%m-%d", &tm);
}

/*
 * The columns of the history table: at most 10, each a run of releases
 * in release order (one release each when there are few).
 */
#define HISTORY_COLUMNS 10

static size_t history_column(size_t r, size_t nrel)
{
	return nrel <= HISTORY_COLUMNS ? r : r * HISTORY_COLUMNS / nrel;
}

static void print_history_head(const struct tally *t, size_t ncols)
{
	size_t c, r;

	printf("\nshare of the lines at each snapshot by the release that "
	       "wrote them (%%)\n%-20s %-10s %12s", "snapshot", "date",
	       "lines");
	for (c = 0; c < ncols; c++) {
		for (r = 0; history_column(r, t->nreleases) != c; r++)
			;
		printf(" %7.7s%s", t->releases[r].name,
		       t->nreleases > HISTORY_COLUMNS ? "+" : " ");
	}
	putchar('\n');
}

static void print_history_row(const struct tally *t,
			      const struct snapshot *p, size_t ncols)
{
	uint64_t col[HISTORY_COLUMNS] = {0};
	char day[16];
	size_t c, r;

	for (r = 0; r < t->nreleases; r++)
		col[history_column(r, t->nreleases)] += p->by_release[r];
	print_day(day, sizeof(day), p->date);
	printf("%-20s %-10s %12llu", p->name, day,
	       (unsigned long long)p->lines);
	for (c = 0; c < ncols; c++) {
		if (!col[c])
			printf(" %8s", "");
		else
			printf(" %8.1f", 100.0 * (double)col[c] /
			       (double)p->lines);
	}
	putchar('\n');
}

static void print_survival(const struct tally *t, const struct snapshots *s)
{
	const struct snapshot *last = &s->list[s->n - 1];
	size_t r;

	printf("\n%-20s %-20s %12s %10s %10s\n", "release", "counted at",
	       "lines then", "at last", "half-life");
	for (r = 0; r < t->nreleases; r++) {
		const struct snapshot_survival *sv = &s->survival[r];
		char hl[32] = "-";

		if (sv->base == SNAPSHOT_NONE)
			continue;
		if (sv->has_half_life)
			snprintf(hl, sizeof(hl), "%.0f days",
				 sv->half_life_days);
		printf("%-20s %-20s %12llu %9.2f%% %10s\n", t->releases[r].name,
		       s->list[sv->base].name,
		       (unsigned long long)s->list[sv->base].by_release[r],
		       snapshots_share(s, r, s->n - 1), hl);
	}
	printf("(\"at last\": share still there at %s)\n", last->name);
}

static void print_history(const struct tally *t, const struct snapshots *s)
{
	size_t ncols = t->nreleases < HISTORY_COLUMNS ? t->nreleases :
		       HISTORY_COLUMNS, k;

	print_history_head(t, ncols);
	for (k = 0; k < s->n; k++)
		print_history_row(t, &s->list[k], ncols);
	if (t->nreleases > HISTORY_COLUMNS)
		printf("(a column \"NAME+\" is that release and those after it, "
		       "up to the next column's)\n");
	print_survival(t, s);
}

/*
 * The heap on transparent huge pages. A run fills hundreds of megabytes
 * of fresh heap with objects and tables, and each 4 KiB page of it costs
 * a page fault: on tmux, 19,500 faults and 18% of the CPU time spent in
 * the kernel. glibc advises huge pages for its heap only when the
 * glibc.malloc.hugetlb tunable asks, and it reads tunables from the
 * environment before main(); so strata runs itself once more with the
 * tunable added to GLIBC_TUNABLES (docs/design.md). It does not when
 * GLIBC_TUNABLES already names the tunable (the user chose), when the
 * kernel's huge pages are off, in a set-uid run, under ASan (whose
 * allocator is not glibc's), or when started by ld.so (/proc/self/exe is
 * then ld.so); if the exec fails, the run goes on as it is.
 */
#define HUGETLB_TUNABLE "glibc.malloc.hugetlb"
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35) && \
	!defined(__SANITIZE_ADDRESS__)
#define HEAP_TUNABLE 1
#else
#define HEAP_TUNABLE 0
#endif

static int thp_enabled(void)
{
	char line[128];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	int on;

	if (!f)
		return 0;
	on = fgets(line, sizeof(line), f) && !strstr(line, "[never]");
	fclose(f);
	return on;
}

static void heap_huge_pages(char **argv)
{
#if HEAP_TUNABLE
	const char *env = getenv("GLIBC_TUNABLES");
	char exe[PATH_MAX], *old = NULL, *set = NULL;
	ssize_t n;

	if ((env && strstr(env, HUGETLB_TUNABLE)) || getauxval(AT_SECURE) ||
	    !getauxval(AT_BASE) || !thp_enabled())
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	if ((env && !(old = strdup(env))) ||
	    asprintf(&set, "%s%s" HUGETLB_TUNABLE "=1", old ? old : "",
		     old && *old ? ":" : "") < 0)
		goto done;
	if (!setenv("GLIBC_TUNABLES", set, 1))
		execv(exe, argv);
	if (old)
		setenv("GLIBC_TUNABLES", old, 1);
	else
		unsetenv("GLIBC_TUNABLES");
done:
	free(old);
	free(set);
#else
	(void)argv;
#endif
}

/* For --verbose: the pages the heap asked for, and GLIBC_TUNABLES. */
static void print_heap_pages(void)
{
	const char *env = getenv("GLIBC_TUNABLES");
	const char *t = env ? strstr(env, HUGETLB_TUNABLE "=") : NULL;
	int huge = HEAP_TUNABLE && t && t[sizeof(HUGETLB_TUNABLE)] != '0' &&
		   thp_enabled();

	fprintf(stderr, "strata: heap on %s pages%s%s%s\n",
		huge ? "huge" : "small",
		env ? " (GLIBC_TUNABLES=" : "", env ? env : "", env ? ")" : "");
}

static int run(struct options *o)
{
	struct repository *repo = NULL;
	struct history *h = NULL;
	struct blame_result *b = NULL;
	struct releases *rel = NULL;
	struct tally *t = NULL;
	struct snapshots *snap = NULL;
	struct progress prog = {0};
	struct blame_options bo = {0};
	struct releases_options ro = {o->tags, o->group};
	struct report_info info = {0};
	struct report_options rep = {0};
	struct timespec t0, t1;
	git_oid tip, *ignore = NULL;
	size_t nignore = 0, i;
	char **ignore_hex = NULL;
	const char *sde;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o->cmd != CMD_BLAME && (rc = releases_check_options(&ro)) < 0)
		return rc;
	if (o->cmd == CMD_REPORT) {
		const struct publish_api *pub;
		char *found = NULL;

		/*
		 * Fail on a missing font, bad templates or no
		 * strata-publish.so before any work.
		 */
		if ((rc = publish_load(&pub)) < 0 ||
		    (rc = pub->check_font()) < 0 ||
		    (rc = pub->find_templates(&found, o->templates)) < 0)
			return rc;
		free(found);
	}
	if ((rc = repository_open(&repo, o->repo)) < 0)
		return rc;
	if ((rc = repository_resolve_commit(&tip, repo, o->rev)) < 0)
		goto done;
	if ((rc = load_ignores(&ignore, &nignore, repo, o)) < 0)
		goto done;
	prog.on = !o->quiet && isatty(2);
	rc = history_load_progress(&h, repo, &tip, o->first_parent, o->jobs,
				   prog.on ? progress_cb : NULL, &prog);
	if (rc < 0)
		goto done;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	info.seconds_history = seconds_since(&t0);
	if (o->cmd != CMD_BLAME &&
	    (rc = releases_compute(&rel, repo, h, &ro)) < 0)
		goto done;
	bo.ignore_whitespace = o->ignore_ws;
	bo.ignore = ignore;
	bo.nignore = nignore;
	bo.jobs = (unsigned)o->jobs;
	bo.want_path = o->cmd == CMD_BLAME ? want_path : NULL;
	bo.want_payload = o;
	bo.progress = prog.on ? progress_cb : NULL;
	bo.progress_payload = &prog;
	if (o->history != SNAPSHOTS_NONE) {
		rc = snapshots_choose(&snap, h, rel, o->history, o->rev,
				      o->include.n || o->exclude.n ? keep_path :
				      NULL, o);
		if (rc < 0)
			goto done;
		snapshots_engine_options(snap, &bo);
	}
	rc = blame_tree(&b, repo, h, &bo);
	progress_end(&prog);
	if (rc == 0 && snap)
		rc = snapshots_finish(snap);
	if (rc < 0)
		goto done;
	info.seconds_blame = seconds_since(&t1);
	if (o->verbose)
		fprintf(stderr, "strata: %zu commits (%zu cut off by a shallow "
			"clone) read in %.2fs; %zu file versions, %llu diffs, "
			"%llu renames; walk %.2fs, diffs and lines %.2fs, "
			"result %.2fs\n",
			h->n, h->nboundary, info.seconds_history,
			b->nversions, (unsigned long long)b->ndiffs,
			(unsigned long long)b->nrenames, b->seconds_walk,
			b->seconds_diff, b->seconds_eval);
	if (o->verbose)
		fprintf(stderr, "strata: %zu object reads, %zu from the cache, "
			"%zu objects built from packs; a cache of %zu KiB for "
			"the walk\n", b->nreads, b->ncached, b->nbuilt,
			b->walk_cache >> 10);
	if (o->verbose && snap)
		fprintf(stderr, "strata: %zu snapshots (%s): %zu text files, "
			"%zu distinct versions\n", snap->n,
			snapshots_when_name(snap->when), b->nsnapshot_files,
			b->nsnapshot_versions);
	if (o->verbose)
		print_heap_pages();
	if (o->cmd == CMD_BLAME) {
		if ((rc = check_pathspecs(o, b)) < 0)
			goto done;
		rc = print_blame(b, h);
		goto done;
	}
	rc = tally_build(&t, b, rel, (unsigned)o->depth,
			 o->include.n || o->exclude.n ? keep_path : NULL, o);
	if (rc < 0)
		goto done;
	t->history = snap;
	if (!t->nfiles) {
		rc = error_set("no text file at '%s'%s", o->rev,
			       o->include.n || o->exclude.n ?
			       " matches --include/--exclude" : "");
		goto done;
	}
	info.repo_name = repo->name;
	info.rev = o->rev;
	git_oid_tostr(info.commit, sizeof(info.commit), &tip);
	info.commit_time = h->commits[h->n - 1].time;
	info.version = STRATA_VERSION;
	info.tags_ere = o->tags ? o->tags : releases_default_tags;
	info.group_ere = o->group;
	info.first_parent = o->first_parent;
	info.ignore_whitespace = o->ignore_ws;
	ignore_hex = calloc(nignore ? nignore : 1, sizeof(*ignore_hex));
	if (!ignore_hex) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < nignore; i++) {
		ignore_hex[i] = malloc(GIT_OID_HEXSZ + 1);
		if (!ignore_hex[i]) {
			rc = error_oom();
			goto done;
		}
		git_oid_tostr(ignore_hex[i], GIT_OID_HEXSZ + 1, &ignore[i]);
	}
	info.ignore_revs = (const char *const *)ignore_hex;
	info.nignore_revs = nignore;
	info.include = o->include.v;
	info.ninclude = o->include.n;
	info.exclude = o->exclude.v;
	info.nexclude = o->exclude.n;
	info.depth = (unsigned)o->depth;
	info.jobs = (unsigned)o->jobs;
	info.shallow = h->nboundary > 0;
	info.nboundary = h->nboundary;
	info.ncommits = h->n;
	info.ndiffs = b->ndiffs;
	sde = getenv("SOURCE_DATE_EPOCH");
	/* The same input gives the same report: no wall clock by default. */
	info.generated = sde && *sde ? strtoll(sde, NULL, 10) : info.commit_time;
	info.reproducible = sde && *sde;
	info.seconds_total = seconds_since(&t0);
	if (o->cmd == CMD_TABLE) {
		print_table(t, &info);
		if (snap)
			print_history(t, snap);
		if (h->nboundary)
			printf("note: shallow clone: %zu commit%s cut off; "
			       "their lines count as theirs\n", h->nboundary,
			       h->nboundary == 1 ? "" : "s");
		goto done;
	}
	rep.out_dir = o->out;
	rep.templates_dir = o->templates;
	rep.force = o->force;
	rep.chart.width = (unsigned)o->chart_width;
	rep.chart.height = (unsigned)o->chart_height;
	rep.chart.dark = o->dark;
	rc = report_publish(t, &info, &rep);
done:
	if (ignore_hex)
		for (i = 0; i < nignore; i++)
			free(ignore_hex[i]);
	free(ignore_hex);
	free(ignore);
	tally_free(t);
	snapshots_free(snap);
	releases_free(rel);
	blame_result_free(b);
	history_free(h);
	repository_free(repo);
	return rc;
}

static void options_release(struct options *o)
{
	free(o->ignore_revs.v);
	free(o->ignore_files.v);
	free(o->include.v);
	free(o->exclude.v);
	free(o->paths.v);
}

/*
 * glibc's malloc grows a thread's heap a few pages at a time and gives
 * freed memory back as soon as it can, only to ask for it again: on tmux
 * that was 3,900 mprotect and 340 brk calls, and the kernel's time went to
 * them, to page faults and to interrupting the other core. Growing by 32
 * MiB and keeping what is freed took them to between 60 and 1,400 and to
 * 5, and the run from 475 ms to 454 ms (median of 16 runs each way), for
 * the same peak memory on tmux and git. (git's run stayed within noise:
 * 5.08 s and 5.15 s, median of 8.) Allocations up to 32 MiB (large
 * blobs) come from the heap, as glibc's own adaptive threshold would have
 * them: setting the other two turns it off.
 */
static void malloc_tune(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TOP_PAD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int main(int argc, char **argv)
{
	struct options o;
	const char *help = NULL;
	int rc, i;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&o, 0, sizeof(o));
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("strata %s\n", STRATA_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "blame")) {
		o.cmd = CMD_BLAME;
		help = usage_blame;
	} else if (!strcmp(argv[1], "table")) {
		o.cmd = CMD_TABLE;
		help = usage_table;
	} else if (!strcmp(argv[1], "report")) {
		o.cmd = CMD_REPORT;
		help = usage_report;
	} else {
		fprintf(stderr, "strata: '%s' is not a strata command "
			"(see 'strata --help')\n", argv[1]);
		return 2;
	}
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(help, stdout);
			return 0;
		}
	}
	o.rev = "HEAD";
	o.repo = NULL;
	o.depth = 1;
	o.jobs = cores > 0 ? (cores > 64 ? 64 : cores) : 1;
	o.out = "output";
	o.chart_width = 960;
	o.chart_height = 480;
	o.history = o.cmd == CMD_REPORT ? SNAPSHOTS_RELEASES : SNAPSHOTS_NONE;
	heap_huge_pages(argv);
	malloc_tune();
	git_libgit2_init();
	/*
	 * Objects come from the repository's own store; re-hashing every
	 * blob we read would cost as much as the diffs.
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	{
		/*
		 * Partial clones made by git before 2.29 carry this extension,
		 * which libgit2 refuses by default. strata only reads objects,
		 * and says what a missing one means (repository.c).
		 */
		const char *ext[] = { "partialclone" };

		git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, ext, (size_t)1);
	}
	rc = parse_args(&o, argc, argv);
	if (!o.repo)
		o.repo = ".";
	if (rc == 0)
		rc = run(&o);
	if (rc < 0)
		fprintf(stderr, "strata: %s\n", error_last());
	options_release(&o);
	git_libgit2_shutdown();
	if (rc == STRATA_EUSAGE)
		return 2;
	return rc < 0 ? 1 : 0;
}
