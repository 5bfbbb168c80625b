/*
 * strata: which release wrote the code we ship today?
 *
 * The command line. Only this file prints and chooses exit codes: 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "strata/attr.h"
#include "strata/blame.h"
#include "strata/error.h"
#include "strata/filter.h"
#include "strata/history.h"
#include "strata/ignore.h"
#include "strata/publish.h"
#include "strata/quote.h"
#include "strata/releases.h"
#include "strata/report.h"
#include "strata/repository.h"
#include "strata/snapshots.h"
#include "strata/cohorts.h"
#include "strata/mailmap.h"
#include "strata/tally.h"

enum command { CMD_BLAME, CMD_TABLE, CMD_REPORT };

/* The cohort of `strata table --by`. */
enum table_by { BY_RELEASE, BY_YEAR, BY_AUTHOR, BY_ORG };

struct strlist {
	const char **v;
	size_t n, alloc;
};

struct options {
	enum command cmd;
	const char *repo;
	const char *rev;
	const char *tags, *group;
	const char *title;          /* --title, or NULL */
	enum releases_scope tag_scope;
	int first_parent, ignore_ws, quiet, force, verbose;
	int nul, skip_vendored;
	struct strlist ignore_revs, ignore_files, include, exclude, paths;
	struct filter filter;       /* from include, exclude, skip_vendored */
	int quote_fully;            /* core.quotePath */
	int64_t generated;          /* SOURCE_DATE_EPOCH, or -1 */
	long depth, jobs;
	const char *out, *templates;
	long chart_width, chart_height;
	int dark;
	enum snapshots_when history;
	enum cohorts_date date;     /* --date */
	int no_authors;             /* --no-authors */
	const char *org_map;        /* --org-map FILE */
	struct orgmap *orgmap;      /* read from it before any work */
	enum table_by by;           /* --by */
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
	"  table    print lines per release, old code per directory and\n"
	"           untouched files in the terminal\n"
	"  report   publish data, charts and a static site into a directory\n"
	"\n"
	"REPO is a work tree (or a directory in one), a .git directory or a\n"
	"bare repository (default: the current directory).\n"
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
	"  --include GLOB         keep only matching files (repeatable)\n"
	"  --exclude GLOB         leave matching files out (repeatable)\n"
	"  --skip-vendored        leave out files that REV's .gitattributes\n"
	"                         mark linguist-vendored or linguist-generated\n"
	"  --jobs N               threads (default: all cores)\n"
	"  --quiet, -q            no progress bar\n"
	"  --verbose              print what the engine did, with timings\n"
	"\n"
	"options for blame:\n"
	"  -z                     end each run with NUL, paths unquoted\n"
	"\n"
	"options for table and report:\n"
	"  --tags ERE             tags that mark releases (POSIX extended\n"
	"                         regular expression, whole tag name)\n"
	"  --group ERE            its first subexpression names the release\n"
	"                         of a matching tag\n"
	"  --tag-scope SCOPE      the tags that count: those REV contains\n"
	"                         and every other dated no later than REV\n"
	"                         (dated, the default), or only those REV\n"
	"                         contains (merged)\n"
	"  --title TEXT           the project's name (default: from\n"
	"                         remote.origin.url, else the directory)\n"
	"  --depth N              directory levels tallied (default: 1)\n"
	"  --history WHEN         snapshots for the history: releases, year,\n"
	"                         quarter, month or none (report: releases;\n"
	"                         table: none; with it the table shows them)\n"
	"  --date committer|author  the date that puts a commit in a year\n"
	"                         (default: committer)\n"
	"  --org-map FILE         organisations of email addresses and\n"
	"                         domains, in gitdm's format (default: the\n"
	"                         email's domain)\n"
	"\n"
	"options for table:\n"
	"  --by release|year|author|org  the cohort of the table (default:\n"
	"                         release)\n"
	"\n"
	"options for report:\n"
	"  --out DIR              where to publish (default: output)\n"
	"  --force                write into a non-empty DIR not made by strata\n"
	"  --templates DIR        use these templates instead of the built-in\n"
	"  --chart-width N        chart width in CSS pixels (default: 720)\n"
	"  --chart-height N       chart height in CSS pixels (default: 480)\n"
	"  --theme light|dark     chart colours (default: light)\n"
	"  --no-authors           leave out the views of authors and\n"
	"                         organisations\n"
	"\n"
	"An option given to a command it does not apply to is an error.\n"
	"Exit status: 0 success, 1 failure, 2 usage error.\n"
	"\n"
	"environment: SOURCE_DATE_EPOCH dates the report; strata adds\n"
	"glibc.malloc.hugetlb=1 to GLIBC_TUNABLES unless it is set there\n"
	"(huge pages for the heap; see strata(1))\n"
	"\n"
	"  strata --help, strata COMMAND --help, strata --version\n"
	"The manual: man strata, and docs/ (start with docs/README.md).\n";

static const char usage_blame[] =
	"usage: strata blame [REPO] [--rev REV] [options] [-- PATH...]\n"
	"\n"
	"Prints, for every text file at REV (or those under the PATHs), the\n"
	"maximal runs of consecutive lines that git blame gives to one commit:\n"
	"  COMMIT<TAB>START<TAB>COUNT<TAB>PATH\n"
	"sorted by path (bytewise), then by START (1-based). A text file is a\n"
	"regular, non-empty file with no NUL byte in its first 8000 bytes.\n"
	"A path is quoted as git quotes it (core.quotePath); with -z, runs\n"
	"end with NUL instead of a newline and paths are printed as they are.\n"
	"\n"
	"options: -z, --rev REV, --first-parent, -w, --ignore-rev REV,\n"
	"--ignore-revs-file F, --include GLOB, --exclude GLOB,\n"
	"--skip-vendored, --jobs N, --quiet, --verbose (see strata --help)\n";

static const char usage_table[] =
	"usage: strata table [REPO] [--rev REV] [options]\n"
	"\n"
	"Prints the lines and share of the code at REV written in each\n"
	"release, the share of first-release code in each directory down to\n"
	"--depth levels, how many files are untouched since the first\n"
	"release, and what --include, --exclude and --skip-vendored left out.\n"
	"\n"
	"With --by year, author or org, the table gives the lines, share and\n"
	"commits of each calendar year, author (after .mailmap) or\n"
	"organisation instead of each release.\n"
	"\n"
	"options: --by release|year|author|org, --date committer|author,\n"
	"--org-map FILE, --tags ERE, --group ERE, --tag-scope SCOPE,\n"
	"--title TEXT, --depth N, --rev REV, --first-parent, -w,\n"
	"--ignore-rev REV, --ignore-revs-file F, --include GLOB,\n"
	"--exclude GLOB, --skip-vendored, --jobs N, --quiet, --verbose\n"
	"(see strata --help)\n";

static const char usage_report[] =
	"usage: strata report [REPO] [--rev REV] [--out DIR] [options]\n"
	"\n"
	"Publishes a report into DIR (default: output): data/ (CSV and JSON),\n"
	"img/ (charts in SVG and PNG) and a static HTML site. The site is\n"
	"built beside DIR and swapped in whole; strata refuses a non-empty DIR\n"
	"that it did not create unless --force is given, and deletes only the\n"
	"files its DIR/.strata-report proves it wrote. The charts and pages\n"
	"are drawn by strata-publish.so, found beside the binary or in\n"
	"../lib/strata/ from it.\n"
	"\n"
	"options: --out DIR, --force, --templates DIR, --chart-width N,\n"
	"--chart-height N, --theme light|dark, --no-authors,\n"
	"--date committer|author, --org-map FILE, --tags ERE, --group ERE,\n"
	"--tag-scope SCOPE, --title TEXT, --depth N, --rev REV,\n"
	"--first-parent, -w, --ignore-rev REV, --ignore-revs-file F,\n"
	"--include GLOB, --exclude GLOB, --skip-vendored, --jobs N, --quiet,\n"
	"--verbose (see strata --help)\n";

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

/*
 * The commands an option applies to; one not listed applies to every
 * command. Given to another command, it is a usage error: no option is
 * silently ignored.
 */
#define FOR(c) (1u << (c))
static const struct {
	const char *name;
	unsigned cmds;
} option_scope[] = {
	{ "-z", FOR(CMD_BLAME) },
	{ "--tags", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--group", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--tag-scope", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--title", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--depth", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--history", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--out", FOR(CMD_REPORT) },
	{ "--force", FOR(CMD_REPORT) },
	{ "--templates", FOR(CMD_REPORT) },
	{ "--chart-width", FOR(CMD_REPORT) },
	{ "--chart-height", FOR(CMD_REPORT) },
	{ "--theme", FOR(CMD_REPORT) },
	{ "--date", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--org-map", FOR(CMD_TABLE) | FOR(CMD_REPORT) },
	{ "--by", FOR(CMD_TABLE) },
	{ "--no-authors", FOR(CMD_REPORT) },
};

static int check_scope(const char *arg, enum command cmd, const char *name)
{
	size_t len = strcspn(arg, "="), i;

	for (i = 0; i < sizeof(option_scope) / sizeof(*option_scope); i++) {
		if (strlen(option_scope[i].name) != len ||
		    strncmp(arg, option_scope[i].name, len))
			continue;
		if (option_scope[i].cmds & FOR(cmd))
			return 0;
		return error_setc(STRATA_EUSAGE, "option '%.*s' does not "
				  "apply to 'strata %s' (see 'strata %s "
				  "--help')", (int)len, arg, name, name);
	}
	return 0;
}

static int parse_by(enum table_by *out, const char *v)
{
	static const char *const names[] = {"release", "year", "author",
					    "org"};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		if (!strcmp(v, names[i])) {
			*out = (enum table_by)i;
			return 0;
		}
	}
	return error_setc(STRATA_EUSAGE, "invalid value '%s' for '--by': "
			  "expected release, year, author or org", v);
}

static int parse_args(struct options *o, int argc, char **argv)
{
	int i, rc = 0;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;

		if (a[0] == '-' && (rc = check_scope(a, o->cmd, argv[1])) < 0)
			return rc;
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
		} else if (!strcmp(a, "--force")) {
			o->force = 1;
		} else if (!strcmp(a, "-z")) {
			o->nul = 1;
		} else if (!strcmp(a, "--skip-vendored")) {
			o->skip_vendored = 1;
		} else if (!strcmp(a, "--no-authors")) {
			o->no_authors = 1;
		} else if (VALUE("--date")) {
			rc = v ? cohorts_parse_date(&o->date, v) : 0;
		} else if (VALUE("--org-map")) {
			o->org_map = v;
		} else if (VALUE("--by")) {
			rc = v ? parse_by(&o->by, v) : 0;
		} else if (VALUE("--rev")) {
			o->rev = v;
		} else if (VALUE("--tags")) {
			o->tags = v;
		} else if (VALUE("--group")) {
			o->group = v;
		} else if (VALUE("--title")) {
			o->title = v;
			if (v && (!*v || strlen(v) > REPOSITORY_NAME_MAX))
				return error_setc(STRATA_EUSAGE, "invalid value "
						  "for '--title': expected 1 to "
						  "%d bytes", REPOSITORY_NAME_MAX);
		} else if (VALUE("--tag-scope")) {
			rc = v ? releases_parse_scope(&o->tag_scope, v) : 0;
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
		} else if (VALUE("--out")) {
			o->out = v;
		} else if (VALUE("--templates")) {
			o->templates = v;
		} else if (VALUE("--chart-width")) {
			rc = v ? parse_long(&o->chart_width, "--chart-width", v,
					    CHART_MIN_WIDTH, CHART_MAX_WIDTH) : 0;
		} else if (VALUE("--chart-height")) {
			rc = v ? parse_long(&o->chart_height, "--chart-height",
					    v, CHART_MIN_HEIGHT, CHART_MAX_HEIGHT) : 0;
		} else if (VALUE("--theme")) {
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

/* The engine's filter: the pathspecs after "--", then the options'. */
static int want_path(const char *path, void *payload)
{
	const struct options *o = payload;
	size_t i;

	if (o->paths.n) {
		for (i = 0; i < o->paths.n; i++)
			if (filter_pathspec_match(o->paths.v[i], path))
				break;
		if (i == o->paths.n)
			return 0;
	}
	return filter_path(&o->filter, path) == FILTER_KEEP;
}

/* What the options (not the pathspecs) leave out may be passed over. */
static int left_out(const char *path, void *payload)
{
	const struct options *o = payload;

	return filter_path(&o->filter, path) != FILTER_KEEP;
}

/* For blame_count_left_out(): the reason, 1 or 2. */
static int left_out_reason(const char *path, void *payload)
{
	const struct options *o = payload;

	return (int)filter_path(&o->filter, path);
}

/* "--include, --skip-vendored": the filters given, for messages. */
static const char *filters_given(const struct options *o, char *buf,
				 size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", o->include.n ? "--include" : "",
		 o->include.n && o->exclude.n ? ", " : "",
		 o->exclude.n ? "--exclude" : "",
		 (o->include.n || o->exclude.n) && o->skip_vendored ? ", " : "",
		 o->skip_vendored ? "--skip-vendored" : "");
	return buf;
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

struct ignore_names {
	struct repository *repo;
	git_oid **list;
	size_t *n, *alloc;
};

/* A name of the list: names of missing objects are skipped, as git does. */
static int ignore_name(const unsigned char *raw, void *payload)
{
	struct ignore_names *in = payload;
	git_object *obj = NULL, *c = NULL;
	git_oid oid;
	int rc = 0;

	git_oid_fromraw(&oid, raw);
	if (git_object_lookup(&obj, in->repo->git, &oid, GIT_OBJECT_ANY) < 0)
		return 0;
	if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) == 0)
		rc = add_ignore(in->list, in->n, in->alloc, git_object_id(c));
	git_object_free(c);
	git_object_free(obj);
	return rc;
}

/* The commits an object name list (src/ignore.c reads it) names. */
static int read_ignore_file(struct repository *repo, const char *file,
			    git_oid **list, size_t *n, size_t *alloc)
{
	struct ignore_names in = {repo, list, n, alloc};
	char *buf;
	size_t len;
	int rc;

	if ((rc = ignore_revs_read(&buf, &len, file)) < 0)
		return rc;
	rc = ignore_revs_parse(buf, len, file, ignore_name, &in);
	free(buf);
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

/* A failed write to stdout, as an error (said once). */
static int write_failed;

static int write_error(void)
{
	write_failed = 1;
	return error_set("write error: %s", strerror(errno ? errno : EIO));
}

/*
 * The runs, formatted by hand: printf took 52 million instructions for
 * tmux's 34,000 runs. A path is quoted (or, with -z, not) once per file,
 * and only a path that needs it costs more than a scan.
 */
static int print_blame(const struct blame_result *b, const struct history *h,
		       const struct options *o)
{
	static const char hexdigit[] = "0123456789abcdef";
	char *buf = NULL, *quoted = NULL;
	size_t i, cap = 0;
	uint32_t s, e;
	int rc = 0;
	const char end = o->nul ? '\0' : '\n';

	for (i = 0; i < b->nfiles; i++) {
		const struct blame_file *f = &b->files[i];
		const char *name = f->path;
		size_t plen;

		if (!o->nul && !(name = quote_name(&quoted, f->path,
						   o->quote_fully))) {
			rc = error_oom();
			goto done;
		}
		plen = strlen(name);
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
			memcpy(p, name, plen);
			p += plen;
			*p++ = end;
			fwrite(buf, 1, (size_t)(p - buf), stdout);
		}
		if (ferror(stdout)) {
			rc = write_error();
			goto done;
		}
	}
done:
	free(buf);
	free(quoted);
	return rc;
}

static int check_pathspecs(const struct options *o,
			   const struct blame_result *b)
{
	size_t i, j;

	for (i = 0; i < o->paths.n; i++) {
		for (j = 0; j < b->nfiles; j++)
			if (filter_pathspec_match(o->paths.v[i],
						  b->files[j].path))
				break;
		if (j == b->nfiles)
			return error_set("pathspec '%s' did not match any "
					 "text file", o->paths.v[i]);
	}
	return 0;
}

/* ---- the terminal table ---- */

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/*
 * A name from the repository as git prints it (control characters and
 * the like quoted: a name must not drive the terminal), padded with
 * spaces to `width` columns (left-aligned).
 */
static void put_name(const char *name, size_t width, int fully)
{
	char *q = NULL;
	const char *shown = quote_name(&q, name, fully);
	size_t w = quote_width(name, fully);

	fputs(shown ? shown : "?", stdout);
	for (; w < width; w++)
		putchar(' ');
	free(q);
}

/* The date of the tag that stands for a release, as the data give it. */
static void release_day(char *day, size_t size, const struct release *rel)
{
	const struct release_tag *tag = NULL;
	time_t when;
	struct tm tm;

	snprintf(day, size, "-");
	if (!(tag = rel->standing))
		return;
	when = (time_t)tag->date;
	if (gmtime_r(&when, &tm))
		strftime(day, size, "%Y-%m-%d", &tm);
}

static void print_releases(const struct tally *t, int fully)
{
	size_t i, wname = strlen("release");
	int wlines = (int)strlen("lines"), wcommits = (int)strlen("commits");

	for (i = 0; i < t->nreleases; i++) {
		const struct tally_release *r = &t->releases[i];
		size_t w = quote_width(r->name, fully);

		if (w > wname)
			wname = w;
		if (digits(r->lines) > wlines)
			wlines = digits(r->lines);
		if (digits(r->release->commits) > wcommits)
			wcommits = digits(r->release->commits);
	}
	printf("%-*s  %-10s  %*s  %7s  %*s\n", (int)wname, "release", "date",
	       wlines, "lines", "share", wcommits, "commits");
	for (i = 0; i < t->nreleases; i++) {
		const struct tally_release *r = &t->releases[i];
		char day[16];

		release_day(day, sizeof(day), r->release);
		put_name(r->name, wname, fully);
		printf("  %-10s  %*llu  %6.2f%%  %*llu\n", day, wlines,
		       (unsigned long long)r->lines, r->share, wcommits,
		       (unsigned long long)r->release->commits);
	}
}

/*
 * The directories in tree order, each after its parent: the tally keeps
 * them sorted by path, where "a-b" comes between "a" and "a/b".
 */
static int dir_order(size_t **out, const struct tally *t)
{
	size_t *first = malloc(t->ndirs * sizeof(*first));
	size_t *next = malloc(t->ndirs * sizeof(*next));
	size_t *order = malloc(t->ndirs * sizeof(*order));
	size_t *stack = malloc(t->ndirs * sizeof(*stack));
	size_t i, n = 0, sp = 0;
	const size_t none = (size_t)-1;

	if (!first || !next || !order || !stack) {
		free(first);
		free(next);
		free(order);
		free(stack);
		return error_oom();
	}
	for (i = 0; i < t->ndirs; i++)
		first[i] = next[i] = none;
	/* Children listed in path order: put each at the front, last first. */
	for (i = t->ndirs; i-- > 1;) {
		size_t p = t->dirs[i].parent;

		next[i] = first[p];
		first[p] = i;
	}
	for (i = first[0]; i != none; i = next[i])
		stack[sp++] = i;
	/* The stack holds the level-1 directories last first: reverse. */
	for (i = 0; i < sp / 2; i++) {
		size_t x = stack[i];

		stack[i] = stack[sp - 1 - i];
		stack[sp - 1 - i] = x;
	}
	while (sp) {
		size_t d = stack[--sp], c, k = sp;

		order[n++] = d;
		for (c = first[d]; c != none; c = next[c])
			stack[sp++] = c;
		/* Reverse what was just pushed, so the first child pops first. */
		for (c = 0; c < (sp - k) / 2; c++) {
			size_t x = stack[k + c];

			stack[k + c] = stack[sp - 1 - c];
			stack[sp - 1 - c] = x;
		}
	}
	free(first);
	free(next);
	free(stack);
	*out = order;
	return (int)n;
}

static int print_dirs(const struct tally *t, int fully)
{
	size_t *order = NULL, i, wname = strlen("(all)");
	const char *head = t->depth > 1 ? "directory" : "subsystem";
	int n = dir_order(&order, t), wlines = (int)strlen("lines");

	if (n < 0)
		return n;
	if (strlen(head) > wname)
		wname = strlen(head);
	for (i = 0; i < (size_t)n; i++) {
		const struct tally_dir *d = &t->dirs[order[i]];
		size_t w = 2 * (d->level - 1) + quote_width(d->path, fully);

		if (w > wname)
			wname = w;
	}
	if (digits(t->total_lines) > wlines)
		wlines = digits(t->total_lines);
	printf("\n%-*s  %*s  %10s\n", (int)wname, head, wlines, "lines",
	       "from first");
	for (i = 0; i < (size_t)n; i++) {
		const struct tally_dir *d = &t->dirs[order[i]];
		size_t indent = 2 * (d->level - 1);

		printf("%*s", (int)indent, "");
		put_name(d->path, wname - indent, fully);
		printf("  %*llu  %9.2f%%\n", wlines,
		       (unsigned long long)d->lines, d->first_share);
	}
	printf("%-*s  %*llu  %9.2f%%\n", (int)wname, "(all)", wlines,
	       (unsigned long long)t->total_lines, t->dirs[0].first_share);
	free(order);
	return 0;
}

static void print_left(const char *why, size_t files, uint64_t lines)
{
	printf("left out %s: %zu text %s (%llu %s)\n", why, files,
	       plural(files, "file", "files"), (unsigned long long)lines,
	       plural(lines, "line", "lines"));
}

/* What the filters left out, so that a figure can be defended. */
static void print_left_out(const struct report_info *in)
{
	if (in->ninclude || in->nexclude)
		print_left("by --include/--exclude", in->left_globs_files,
			   in->left_globs_lines);
	if (in->skip_vendored)
		print_left("as vendored or generated (--skip-vendored)",
			   in->left_vendored_files, in->left_vendored_lines);
	if (in->left_missing)
		printf("left out and missing from the partial clone (not "
		       "counted): %zu %s\n", in->left_missing,
		       plural(in->left_missing, "file", "files"));
	if (in->passed_over)
		printf("note: %zu rename %s missing from the partial clone "
		       "and left out by the filters passed over; git blame, "
		       "which fetches them, might follow one\n",
		       in->passed_over,
		       plural(in->passed_over, "source", "sources"));
}

/* 1 if no tag counted: every line is unreleased. */
static int no_release(const struct tally *t)
{
	return !t->nreleases || (t->nreleases == 1 && t->releases[0].unreleased);
}

/* Why no tag counted, for a note. */
static void no_release_note(char *buf, size_t size,
			    const struct report_info *in)
{
	if (!in->tags_matched)
		snprintf(buf, size, "no tag matches --tags: every line is "
			 "unreleased");
	else
		snprintf(buf, size, "no matching tag counts as a release "
			 "(%zu elsewhere, %zu after REV, %zu not on a "
			 "commit): every line is unreleased",
			 in->tags_elsewhere, in->tags_later, in->tags_skipped);
}

/* Lines per year, author or organisation (--by), in the view's order. */
static void print_cohorts(const struct cohort_view *v, const char *head,
			  uint64_t total, int fully)
{
	size_t i, wname = strlen(head);
	int wlines = (int)strlen("lines"), wcommits = (int)strlen("commits");

	for (i = 0; i < v->n; i++) {
		size_t w = quote_width(v->v[i].name, fully);

		if (w > wname)
			wname = w;
		if (digits(v->v[i].lines) > wlines)
			wlines = digits(v->v[i].lines);
		if (digits(v->v[i].commits) > wcommits)
			wcommits = digits(v->v[i].commits);
	}
	printf("%-*s  %*s  %7s  %*s\n", (int)wname, head, wlines, "lines",
	       "share", wcommits, "commits");
	for (i = 0; i < v->n; i++) {
		const struct cohort *c = &v->v[i];

		put_name(c->name, wname, fully);
		printf("  %*llu  %6.2f%%  %*llu\n", wlines,
		       (unsigned long long)c->lines,
		       total ? 100.0 * (double)c->lines / (double)total : 0.0,
		       wcommits, (unsigned long long)c->commits);
	}
}

/* The table of --by year, author or org: the cohorts and what was left. */
static void print_by(const struct tally *t, enum table_by by, int fully)
{
	const struct cohorts *c = t->cohorts;

	if (by == BY_YEAR)
		print_cohorts(&c->years, "year", c->total_lines, fully);
	else if (by == BY_AUTHOR)
		print_cohorts(&c->authors, "author", c->total_lines, fully);
	else
		print_cohorts(&c->orgs, "organisation", c->total_lines, fully);
}

static int print_table(const struct tally *t, const struct report_info *in,
		       enum table_by by, int fully)
{
	char note[256];
	const char *first = t->nreleases ? t->releases[0].name : "-";
	int rc;

	put_name(in->repo_name, 0, fully);
	fputs(" at ", stdout);
	put_name(in->rev, 0, fully);
	printf(" (%.12s): %llu %s in %zu text %s\n\n", in->commit,
	       (unsigned long long)t->total_lines,
	       plural(t->total_lines, "line", "lines"), t->nfiles,
	       plural(t->nfiles, "file", "files"));
	if (by != BY_RELEASE) {
		print_by(t, by, fully);
		goto notes;
	}
	print_releases(t, fully);
	if ((rc = print_dirs(t, fully)) < 0)
		return rc;
	if (no_release(t)) {
		no_release_note(note, sizeof(note), in);
		printf("\nnote: %s\n", note);
	} else {
		fputs("\nfiles untouched since ", stdout);
		put_name(first, 0, fully);
		printf(": %zu of %zu (%llu %s)\n", t->nuntouched, t->nfiles,
		       (unsigned long long)t->untouched_lines,
		       plural(t->untouched_lines, "line", "lines"));
	}
notes:
	print_left_out(in);
	if (in->nboundary)
		printf("note: shallow clone: %zu %s cut off; their lines "
		       "count as theirs\n", in->nboundary,
		       plural(in->nboundary, "commit", "commits"));
	return 0;
}

/* "2010-02-24", or "-" */
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

/* The widest snapshot name, "snapshot" at least. */
static size_t history_name_width(const struct snapshots *s, int fully)
{
	size_t w = strlen("snapshot"), k;

	for (k = 0; k < s->n; k++)
		if (quote_width(s->list[k].name, fully) > w)
			w = quote_width(s->list[k].name, fully);
	return w;
}

static void print_history_head(const struct tally *t, size_t ncols,
			       size_t wname, int fully)
{
	size_t c, r;

	printf("\nshare of the lines at each snapshot by the release that "
	       "wrote them (%%)\n%-*s  %-10s  %12s", (int)wname, "snapshot",
	       "date", "lines");
	for (c = 0; c < ncols; c++) {
		char *q = NULL;
		const char *name;

		for (r = 0; history_column(r, t->nreleases) != c; r++)
			;
		name = quote_name(&q, t->releases[r].name, fully);
		printf(" %8.*s%s", t->nreleases > HISTORY_COLUMNS ? 7 : 8,
		       name ? name : "?",
		       t->nreleases > HISTORY_COLUMNS ? "+" : "");
		free(q);
	}
	putchar('\n');
}

static void print_history_row(const struct tally *t,
			      const struct snapshot *p, size_t ncols,
			      size_t wname, int fully)
{
	uint64_t col[HISTORY_COLUMNS] = {0};
	char day[16];
	size_t c, r;

	for (r = 0; r < t->nreleases; r++)
		col[history_column(r, t->nreleases)] += p->by_release[r];
	print_day(day, sizeof(day), p->date);
	put_name(p->name, wname, fully);
	printf("  %-10s  %12llu", day, (unsigned long long)p->lines);
	for (c = 0; c < ncols; c++) {
		if (!col[c])
			printf(" %8s", "");
		else
			printf(" %8.1f", 100.0 * (double)col[c] /
			       (double)p->lines);
	}
	putchar('\n');
}

static void print_survival(const struct tally *t, const struct snapshots *s,
			   size_t wname, int fully)
{
	size_t r, wrel = strlen("release");

	for (r = 0; r < t->nreleases; r++)
		if (s->survival[r].base != SNAPSHOT_NONE &&
		    quote_width(t->releases[r].name, fully) > wrel)
			wrel = quote_width(t->releases[r].name, fully);
	printf("\n%-*s  %-*s  %12s  %8s  %s\n", (int)wrel, "release",
	       (int)wname, "counted at", "lines then", "left", "half-life");
	for (r = 0; r < t->nreleases; r++) {
		const struct snapshot_survival *sv = &s->survival[r];
		char hl[32] = "-";

		if (sv->base == SNAPSHOT_NONE)
			continue;
		if (sv->has_half_life)
			snprintf(hl, sizeof(hl), "%.0f %s", sv->half_life_days,
				 llround(sv->half_life_days) == 1 ? "day" :
				 "days");
		put_name(t->releases[r].name, wrel, fully);
		fputs("  ", stdout);
		put_name(s->list[sv->base].name, wname, fully);
		printf("  %12llu  %7.2f%%  %s\n",
		       (unsigned long long)s->list[sv->base].by_release[r],
		       snapshots_share(s, r, s->n - 1), hl);
	}
	fputs("(\"left\": the share still there at ", stdout);
	put_name(s->list[s->n - 1].name, 0, fully);
	fputs(")\n", stdout);
}

static void print_history(const struct tally *t, const struct snapshots *s,
			  int fully)
{
	size_t ncols = t->nreleases < HISTORY_COLUMNS ? t->nreleases :
		       HISTORY_COLUMNS, k;
	size_t wname = history_name_width(s, fully);

	print_history_head(t, ncols, wname, fully);
	for (k = 0; k < s->n; k++)
		print_history_row(t, &s->list[k], ncols, wname, fully);
	if (t->nreleases > HISTORY_COLUMNS)
		printf("(a column \"NAME+\" is that release and those after "
		       "it, up to the next column's)\n");
	print_survival(t, s, wname, fully);
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

/*
 * SOURCE_DATE_EPOCH, for report: decimal seconds since 1970-01-01 UTC up
 * to the end of year 9999 (dates are printed with four digits), or -1
 * when unset or empty.
 */
static int source_date(int64_t *out)
{
	const char *v = getenv("SOURCE_DATE_EPOCH"), *p;
	int64_t n = 0;

	*out = -1;
	if (!v || !*v)
		return 0;
	for (p = v; *p >= '0' && *p <= '9' && n <= HISTORY_DATE_MAX; p++)
		n = n * 10 + (*p - '0');
	if (*p || n > HISTORY_DATE_MAX)
		return error_setc(STRATA_EUSAGE, "invalid value '%s' for "
				  "SOURCE_DATE_EPOCH: expected seconds since "
				  "1970-01-01 00:00 UTC, from 0 to %lld", v,
				  (long long)HISTORY_DATE_MAX);
	*out = n;
	return 0;
}

/*
 * Every value checked before any work, the same way whatever the
 * command: the globs, the expressions and SOURCE_DATE_EPOCH. (Numbers
 * and words are checked as they are parsed.)
 */
static int check_options(struct options *o)
{
	struct releases_options ro = {o->tags, o->group, o->tag_scope};
	size_t i;
	int rc;

	for (i = 0; i < o->include.n; i++)
		if ((rc = filter_glob_check(o->include.v[i], "--include")) < 0)
			return rc;
	for (i = 0; i < o->exclude.n; i++)
		if ((rc = filter_glob_check(o->exclude.v[i], "--exclude")) < 0)
			return rc;
	if (o->cmd != CMD_BLAME && (rc = releases_check_options(&ro)) < 0)
		return rc;
	if (o->cmd == CMD_REPORT && (rc = source_date(&o->generated)) < 0)
		return rc;
	/* A bad line of the map is bad input: exit 1, before the engine. */
	if (o->org_map && (rc = orgmap_load(&o->orgmap, o->org_map)) < 0)
		return rc;
	o->filter.include = o->include.v;
	o->filter.ninclude = o->include.n;
	o->filter.exclude = o->exclude.v;
	o->filter.nexclude = o->exclude.n;
	return 0;
}

/* Where and how report publishes. */
static void report_options_of(struct report_options *rep,
			      const struct options *o)
{
	memset(rep, 0, sizeof(*rep));
	rep->out_dir = o->out;
	rep->templates_dir = o->templates;
	rep->force = o->force;
	rep->chart.width = (unsigned)o->chart_width;
	rep->chart.height = (unsigned)o->chart_height;
	rep->chart.dark = o->dark;
}

/*
 * Fail on an output directory strata may not use, a missing font,
 * templates that do not parse or no strata-publish.so before any work:
 * the blame can take minutes.
 */
static int check_publish(const struct options *o)
{
	const struct publish_api *pub;
	struct report_options rep;
	char *found = NULL;
	int rc;

	report_options_of(&rep, o);
	if ((rc = report_check(&rep)) < 0 || (rc = publish_load(&pub)) < 0 ||
	    (rc = pub->check_font()) < 0 ||
	    (rc = pub->find_templates(&found, o->templates)) < 0)
		return rc;
	free(found);
	return 0;
}

/* core.quotePath (default true), as git reads it. */
static int quote_path_fully(struct repository *repo)
{
	git_config *cfg = NULL;
	int v = 1;

	if (git_repository_config_snapshot(&cfg, repo->git) == 0) {
		if (git_config_get_bool(&v, cfg, "core.quotePath") < 0)
			v = 1;
		git_config_free(cfg);
	}
	return v;
}

static void print_verbose(const struct history *h,
			  const struct blame_result *b,
			  const struct snapshots *snap,
			  const struct report_info *info)
{
	fprintf(stderr, "strata: %zu commits (%zu cut off by a shallow "
		"clone) read in %.2fs; %zu file versions, %llu diffs, "
		"%llu renames; walk %.2fs, diffs and lines %.2fs, "
		"result %.2fs\n",
		h->n, h->nboundary, info->seconds_history,
		b->nversions, (unsigned long long)b->ndiffs,
		(unsigned long long)b->nrenames, b->seconds_walk,
		b->seconds_diff, b->seconds_eval);
	fprintf(stderr, "strata: %zu object reads, %zu from the cache, "
		"%zu objects built from packs; a cache of %zu KiB for "
		"the walk\n", b->nreads, b->ncached, b->nbuilt,
		b->walk_cache >> 10);
	if (b->npassed_over)
		fprintf(stderr, "strata: %zu rename %s missing from the "
			"partial clone and left out by the filters passed "
			"over\n", b->npassed_over,
			b->npassed_over == 1 ? "source" : "sources");
	if (snap)
		fprintf(stderr, "strata: %zu snapshots (%s): %zu text files, "
			"%zu distinct versions\n", snap->n,
			snapshots_when_name(snap->when), b->nsnapshot_files,
			b->nsnapshot_versions);
	print_heap_pages();
}

/* One rule for every command: a run with no text file left fails. */
static int check_found(const struct options *o, const struct blame_result *b)
{
	char given[64];

	if (b->nfiles)
		return 0;
	if (!filter_active(&o->filter))
		return error_set("no text file at '%s'", o->rev);
	return error_set("no text file at '%s' is left by %s", o->rev,
			 filters_given(o, given, sizeof(given)));
}

/* The years, authors and organisations, when the command shows them. */
static int build_cohorts(struct cohorts **out, const struct options *o,
			 struct repository *repo, const struct history *h,
			 const struct blame_result *b, const struct tally *t)
{
	struct cohorts_options co = {0};
	struct mailmap *mm = NULL;
	int rc;

	*out = NULL;
	if (o->cmd == CMD_TABLE && o->by == BY_RELEASE)
		return 0;
	co.date = o->date;
	co.authors = o->cmd == CMD_TABLE ? o->by >= BY_AUTHOR : !o->no_authors;
	co.orgmap = o->orgmap;
	if (co.authors &&
	    (rc = mailmap_load(&mm, repo, &h->commits[h->n - 1].tree)) < 0)
		return rc;
	co.mailmap = mm;
	rc = cohorts_build(out, h, b, t, &co);
	mailmap_free(mm);
	return rc;
}

/* The tally and what table and report say about the run. */
static int run_tally(struct options *o, struct repository *repo,
		     const struct history *h, const struct blame_result *b,
		     const struct releases *rel, const struct snapshots *snap,
		     const git_oid *ignore, size_t nignore,
		     struct report_info *info, const struct timespec *t0)
{
	struct tally *t = NULL;
	struct cohorts *coh = NULL;
	struct report_options rep = {0};
	char **ignore_hex = NULL;
	size_t i;
	int rc;

	if ((rc = tally_build(&t, b, rel, (unsigned)o->depth, NULL, NULL)) < 0)
		goto done;
	t->history = snap;
	if ((rc = build_cohorts(&coh, o, repo, h, b, t)) < 0)
		goto done;
	t->cohorts = coh;
	if (filter_active(&o->filter)) {
		struct blame_left_out lo;

		rc = blame_count_left_out(&lo, repo,
					  &h->commits[h->n - 1].tree,
					  left_out_reason, o);
		if (rc < 0)
			goto done;
		info->left_globs_files = lo.files[FILTER_GLOBS];
		info->left_globs_lines = lo.lines[FILTER_GLOBS];
		info->left_vendored_files = lo.files[FILTER_VENDORED];
		info->left_vendored_lines = lo.lines[FILTER_VENDORED];
		info->left_missing = lo.missing;
	}
	info->repo_name = o->title ? o->title : repo->name;
	info->rev = o->rev;
	info->commit_time = h->commits[h->n - 1].time;
	info->version = STRATA_VERSION;
	info->tags_ere = o->tags ? o->tags : releases_default_tags;
	info->group_ere = o->group;
	info->tag_scope = o->tag_scope == RELEASES_MERGED ? "merged" : "dated";
	info->tags_matched = rel->nmatched;
	info->tags_elsewhere = rel->nelsewhere;
	info->tags_later = rel->nlater;
	info->tags_skipped = rel->nskipped;
	info->first_parent = o->first_parent;
	info->ignore_whitespace = o->ignore_ws;
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
	info->ignore_revs = (const char *const *)ignore_hex;
	info->nignore_revs = nignore;
	info->include = o->include.v;
	info->ninclude = o->include.n;
	info->exclude = o->exclude.v;
	info->nexclude = o->exclude.n;
	info->skip_vendored = o->skip_vendored;
	info->org_map = o->org_map;
	info->passed_over = b->npassed_over;
	info->depth = (unsigned)o->depth;
	info->jobs = (unsigned)o->jobs;
	info->shallow = h->nboundary > 0;
	info->nboundary = h->nboundary;
	info->ncommits = h->n;
	info->ndiffs = b->ndiffs;
	/* The same input gives the same report: no wall clock by default. */
	info->generated = o->generated >= 0 ? o->generated : info->commit_time;
	info->reproducible = o->generated >= 0;
	info->seconds_total = seconds_since(t0);
	if (o->cmd == CMD_TABLE) {
		rc = print_table(t, info, o->by, o->quote_fully);
		if (rc == 0 && snap)
			print_history(t, snap, o->quote_fully);
		goto done;
	}
	report_options_of(&rep, o);
	rc = report_publish(t, info, &rep);
	if (rc == 0 && !o->quiet && no_release(t)) {
		char note[256];

		no_release_note(note, sizeof(note), info);
		fprintf(stderr, "strata: note: %s\n", note);
	}
done:
	if (ignore_hex)
		for (i = 0; i < nignore; i++)
			free(ignore_hex[i]);
	free(ignore_hex);
	tally_free(t);
	cohorts_free(coh);
	return rc;
}

/*
 * Before the blame: the releases (table, report) and the snapshots of the
 * history, whose lines the engine hands over as it blames.
 */
static int prepare_cohorts(struct options *o, struct repository *repo,
			   const struct history *h, struct releases **rel,
			   struct snapshots **snap, struct blame_options *bo)
{
	struct releases_options ro = {o->tags, o->group, o->tag_scope};
	int rc;

	if (o->cmd == CMD_BLAME)
		return 0;
	if ((rc = releases_compute(rel, repo, h, &ro)) < 0)
		return rc;
	if (o->history == SNAPSHOTS_NONE)
		return 0;
	if ((rc = snapshots_choose(snap, h, *rel, o->history, o->rev, NULL,
				   NULL)) < 0)
		return rc;
	snapshots_engine_options(*snap, bo);
	return 0;
}

static int run(struct options *o)
{
	struct repository *repo = NULL;
	struct history *h = NULL;
	struct blame_result *b = NULL;
	struct attr *attr = NULL;
	struct releases *rel = NULL;
	struct snapshots *snap = NULL;
	struct progress prog = {0};
	struct blame_options bo = {0};
	struct report_info info = {0};
	struct timespec t0, t1;
	git_oid tip, *ignore = NULL;
	size_t nignore = 0;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = check_options(o)) < 0 ||
	    (o->cmd == CMD_REPORT && (rc = check_publish(o)) < 0))
		return rc;
	if ((rc = repository_open(&repo, o->repo)) < 0)
		return rc;
	o->quote_fully = quote_path_fully(repo);
	if ((rc = repository_resolve_commit(&tip, repo, o->rev)) < 0)
		goto done;
	if ((rc = load_ignores(&ignore, &nignore, repo, o)) < 0)
		goto done;
	prog.on = !o->quiet && isatty(2);
	rc = history_load_progress(&h, repo, &tip, o->first_parent, o->jobs,
				   prog.on ? progress_cb : NULL, &prog);
	if (rc < 0)
		goto done;
	if (o->skip_vendored) {
		if ((rc = attr_load_tree(&attr, repo->git,
					 &h->commits[h->n - 1].tree)) < 0)
			goto done;
		o->filter.attr = attr;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	info.seconds_history = seconds_since(&t0);
	bo.ignore_whitespace = o->ignore_ws;
	bo.ignore = ignore;
	bo.nignore = nignore;
	bo.jobs = (unsigned)o->jobs;
	bo.want_path = o->paths.n || filter_active(&o->filter) ? want_path
							      : NULL;
	bo.pass_over = filter_active(&o->filter) ? left_out : NULL;
	bo.want_payload = o;
	bo.progress = prog.on ? progress_cb : NULL;
	bo.progress_payload = &prog;
	if ((rc = prepare_cohorts(o, repo, h, &rel, &snap, &bo)) < 0)
		goto done;
	rc = blame_tree(&b, repo, h, &bo);
	progress_end(&prog);
	if (rc == 0 && snap)
		rc = snapshots_finish(snap);
	if (rc < 0)
		goto done;
	info.seconds_blame = seconds_since(&t1);
	if (o->verbose)
		print_verbose(h, b, snap, &info);
	if ((o->cmd == CMD_BLAME && (rc = check_pathspecs(o, b)) < 0) ||
	    (rc = check_found(o, b)) < 0)
		goto done;
	if (o->cmd == CMD_BLAME) {
		rc = print_blame(b, h, o);
		goto done;
	}
	git_oid_tostr(info.commit, sizeof(info.commit), &tip);
	rc = run_tally(o, repo, h, b, rel, snap, ignore, nignore, &info, &t0);
done:
	free(ignore);
	snapshots_free(snap);
	releases_free(rel);
	blame_result_free(b);
	history_free(h);
	attr_free(attr);
	repository_free(repo);
	return rc;
}

/*
 * What went to stdout must have arrived: a full disk or a closed pipe is
 * an error (exit 1), said once, even when all else went well.
 */
static int finish_stdout(int code)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return code;
	if (!write_failed)
		fprintf(stderr, "strata: write error: %s\n",
			strerror(errno ? errno : EIO));
	return 1;
}

static void options_release(struct options *o)
{
	free(o->ignore_revs.v);
	free(o->ignore_files.v);
	free(o->include.v);
	free(o->exclude.v);
	free(o->paths.v);
	orgmap_free(o->orgmap);
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

/*
 * The error, on one line whatever names it holds: a control character
 * (a newline in a path, an escape sequence) as a C escape, as git quotes
 * names, so that no name can forge a line or drive the terminal.
 */
static void print_error(const char *msg)
{
	const unsigned char *p = (const unsigned char *)msg;

	fputs("strata: ", stderr);
	for (; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p == '\t')
			fputs("\\t", stderr);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\%03o", *p);
		else
			fputc(*p, stderr);
	}
	fputc('\n', stderr);
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
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("strata %s\n", STRATA_VERSION);
		return finish_stdout(0);
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
		error_set("'%s' is not a strata command (see 'strata "
			  "--help')", argv[1]);
		print_error(error_last());
		return 2;
	}
	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(help, stdout);
			return finish_stdout(0);
		}
	}
	o.rev = "HEAD";
	o.repo = NULL;
	o.depth = 1;
	o.jobs = cores > 0 ? (cores > 64 ? 64 : cores) : 1;
	o.out = "output";
	o.chart_width = 720;
	o.chart_height = 480;
	o.generated = -1;
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
		print_error(error_last());
	options_release(&o);
	git_libgit2_shutdown();
	/*
	 * A signal caught while publishing, once everything is cleaned up:
	 * end as it would have ended us, so the caller sees 128 + N.
	 */
	if ((i = report_signal())) {
		fflush(NULL);
		signal(i, SIG_DFL);
		raise(i);
		return 128 + i;
	}
	if (rc == STRATA_EUSAGE)
		return 2;
	return finish_stdout(rc < 0 ? 1 : 0);
}
