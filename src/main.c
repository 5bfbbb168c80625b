/*
 * strata: which release wrote the code we ship today?
 *
 * main orchestrates: it reads the command line (options.c), runs the
 * engine and hands the result to the table (table.c) or the report.
 * Only this file prints messages and chooses exit codes: 0 on success, 1
 * on failure, 2 on a usage error.
 */
#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "strata/attr.h"
#include "strata/blame.h"
#include "strata/budget.h"
#include "strata/cycle.h"
#include "strata/error.h"
#include "strata/filter.h"
#include "strata/heap.h"
#include "strata/history.h"
#include "strata/ignore.h"
#include "strata/options.h"
#include "strata/publish.h"
#include "strata/quote.h"
#include "strata/releases.h"
#include "strata/report.h"
#include "strata/repository.h"
#include "strata/snapshots.h"
#include "strata/table.h"
#include "strata/cohorts.h"
#include "strata/mailmap.h"
#include "strata/tally.h"

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

/*
 * "--include, --skip-vendored": the filters that left files out, for
 * messages; `vendored` says whether to name --skip-vendored.
 */
static const char *filters_given(const struct options *o, int vendored,
				 char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s%s", o->include.n ? "--include" : "",
		 o->include.n && o->exclude.n ? ", " : "",
		 o->exclude.n ? "--exclude" : "",
		 (o->include.n || o->exclude.n) && vendored ? ", " : "",
		 vendored ? "--skip-vendored" : "");
	return buf;
}

/* 1 if the command line names the option `name`. */
static int option_given(const struct options *o, const char *name)
{
	for (size_t i = 0; i < options_count; i++)
		if (options_table[i].name &&
		    !strcmp(options_table[i].name, name))
			return !!(o->given & ((uint64_t)1 << i));
	return 0;
}

/* ---- ignore revs ---- */

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static int add_ignore(git_oid **list, size_t *n, size_t *alloc,
		      const git_oid *oid)
{
	int rc = UTIL_GROW(*list, *alloc, *n + 1);

	if (rc < 0)
		return rc;
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

/*
 * An ignore-revs file, in git's order (the config's, then ours): an
 * empty name clears the list so far; a configured name is relative to
 * the top of the work tree.
 */
static int file_list_add(struct util_strlist *l, struct repository *repo,
			 const char *name, int config)
{
	char *path;
	int rc;

	if (!*name) {
		util_strlist_release(l);
		return 0;
	}
	if (!config)
		return util_strlist_push(l, name);
	if (!(path = resolve_config_path(repo, name)))
		return error_oom();
	rc = util_strlist_push(l, path);
	free(path);
	return rc;
}

/* Raw blame.ignoreRevsFile values, before git's ordering. */
struct cfg_values {
	struct util_strlist list;
	int rc;
};

static int cfg_file_cb(const git_config_entry *e, void *payload)
{
	struct cfg_values *c = payload;

	return (c->rc = util_strlist_push(&c->list, e->value));
}

static int load_ignores(git_oid **out, size_t *nout, struct repository *repo,
			const struct options *o)
{
	struct util_strlist fl = UTIL_STRLIST_INIT;
	struct cfg_values cv = {UTIL_STRLIST_INIT, 0};
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
	util_strlist_sort(&cv.list);
	for (i = 0; i < cv.list.n; i++) {
		if (i && !strcmp(cv.list.v[i], cv.list.v[i - 1]))
			continue;
		if ((rc = file_list_add(&fl, repo, cv.list.v[i], 1)) < 0)
			goto done;
	}
	for (i = 0; i < o->ignore_files.n; i++)
		if ((rc = file_list_add(&fl, repo, o->ignore_files.v[i],
					0)) < 0)
			goto done;
	for (i = 0; i < fl.n; i++)
		if ((rc = read_ignore_file(repo, fl.v[i], &list, &n,
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
	util_strlist_release(&fl);
	util_strlist_release(&cv.list);
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
		if ((rc = UTIL_GROW(buf, cap, plen + 128)) < 0)
			goto done;
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
	rep->chart.jobs = (unsigned)o->jobs;
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
	char heap[PATH_MAX + 64];

	fprintf(stderr, "strata: %zu commits (%zu cut off by a shallow "
		"clone) read in %.2fs; %zu file versions, %llu diffs, "
		"%llu renames\n",
		h->n, h->nboundary, info->seconds_history,
		b->nversions, (unsigned long long)b->ndiffs,
		(unsigned long long)b->nrenames);
	fprintf(stderr, "strata: %zu object reads, %zu from the cache, "
		"%zu objects built from packs; a cache of %zu KiB for "
		"the walk\n", b->nreads, b->ncached, b->nbuilt,
		b->walk_cache >> 10);
	fprintf(stderr, "strata: the walk read %zu trees, %zu of them "
		"handed over by the reader thread\n", b->nwalk_trees,
		b->nhanded);
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
	heap_describe(heap, sizeof(heap));
	fprintf(stderr, "strata: %s\n", heap);
}

/*
 * The run's stages, for --verbose: main's own (history, releases,
 * snapshots, tally, output) and the engine's between them.
 */
static struct util_stages run_stages;

static void print_stages(void)
{
	double total = 0, cpu = 0;
	size_t i;

	fprintf(stderr, "strata: stage: wall time, CPU time (threads and "
		"drawing processes), peak memory of the process so far\n");
	for (i = 0; i < run_stages.n; i++) {
		const struct util_stage *s = &run_stages.v[i];

		total += s->seconds;
		cpu += s->cpu;
		fprintf(stderr, "strata: stage %-9s %8.2f s %8.2f s CPU "
			"%9.1f MiB\n", s->name, s->seconds, s->cpu,
			(double)s->peak_kib / 1024.0);
	}
	fprintf(stderr, "strata: stage %-9s %8.2f s %8.2f s CPU %9.1f MiB\n",
		"total", total, cpu, (double)util_peak_kib() / 1024.0);
}

/*
 * One rule for every command: a run with no text file left fails. The
 * message names --skip-vendored when it was given, or when, on by
 * default, it left some file out.
 */
static int check_found(struct options *o, const struct blame_result *b,
		       struct repository *repo, const struct history *h)
{
	struct blame_left_out lo = {0};
	char given[64];
	int vendored = o->skip_vendored, rc;

	if (b->nfiles)
		return 0;
	if (vendored && !option_given(o, "--skip-vendored")) {
		rc = blame_count_left_out(&lo, repo,
					  &h->commits[h->n - 1].tree,
					  left_out_reason, o);
		if (rc < 0)
			return rc;
		vendored = lo.files[FILTER_VENDORED] > 0;
	}
	if (!o->include.n && !o->exclude.n && !vendored)
		return error_set("no text file at '%s'", o->rev);
	return error_set("no text file at '%s' is left by %s", o->rev,
			 filters_given(o, vendored, given, sizeof(given)));
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
	if (o->cmd == OPTIONS_TABLE && o->by == OPTIONS_BY_RELEASE)
		return 0;
	co.date = o->date;
	co.authors = o->cmd == OPTIONS_TABLE ? o->by >= OPTIONS_BY_AUTHOR
					     : !o->no_authors;
	co.orgmap = o->orgmap;
	if (co.authors &&
	    (rc = mailmap_load(&mm, repo, &h->commits[h->n - 1].tree)) < 0)
		return rc;
	co.mailmap = mm;
	rc = cohorts_build(out, h, b, t, &co);
	mailmap_free(mm);
	return rc;
}

/* What the filters left out, counted from REV's tree, for the info. */
static int count_left_out(struct report_info *info, struct options *o,
			  struct repository *repo, const struct history *h)
{
	struct blame_left_out lo;
	int rc;

	if (!filter_active(&o->filter))
		return 0;
	rc = blame_count_left_out(&lo, repo, &h->commits[h->n - 1].tree,
				  left_out_reason, o);
	if (rc < 0)
		return rc;
	info->left_globs_files = lo.files[FILTER_GLOBS];
	info->left_globs_lines = lo.lines[FILTER_GLOBS];
	info->left_vendored_files = lo.files[FILTER_VENDORED];
	info->left_vendored_lines = lo.lines[FILTER_VENDORED];
	info->left_missing = lo.missing;
	return 0;
}

/* The ignored commits in hex, for report.json; freed by free_hex(). */
static int ignore_hex_of(char ***out, const git_oid *ignore, size_t n)
{
	char **hex = calloc(n ? n : 1, sizeof(*hex));
	size_t i;

	*out = hex;
	if (!hex)
		return error_oom();
	for (i = 0; i < n; i++) {
		if (!(hex[i] = malloc(GIT_OID_HEXSZ + 1)))
			return error_oom();
		git_oid_tostr(hex[i], GIT_OID_HEXSZ + 1, &ignore[i]);
	}
	return 0;
}

static void free_hex(char **hex, size_t n)
{
	for (size_t i = 0; hex && i < n; i++)
		free(hex[i]);
	free(hex);
}

/* How the run was asked for and what it found, as report and table say. */
static void describe_run(struct report_info *info, const struct options *o,
			 struct repository *repo, const struct history *h,
			 const struct blame_result *b,
			 const struct releases *rel)
{
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
	info->include = (const char *const *)o->include.v;
	info->ninclude = o->include.n;
	info->exclude = (const char *const *)o->exclude.v;
	info->nexclude = o->exclude.n;
	info->skip_vendored = o->skip_vendored;
	info->org_map = o->org_map;
	info->passed_over = b->npassed_over;
	info->depth = (unsigned)o->depth;
	info->jobs = (unsigned)o->jobs;
	info->shallow = h->nboundary > 0;
	info->nboundary = h->nboundary;
	info->ncommits = h->nrev;
	info->ndiffs = b->ndiffs;
	/* The same input gives the same report: no wall clock by default. */
	info->generated = o->generated >= 0 ? o->generated : info->commit_time;
	info->reproducible = o->generated >= 0;
}

/* The tally printed (table) or published (report). */
static int show_tally(const struct tally *t, const struct options *o,
		      const struct snapshots *snap,
		      const struct report_info *info)
{
	struct report_options rep;
	char note[256];
	int rc;

	if (o->cmd == OPTIONS_TABLE) {
		if ((rc = cycle_wait(t->cycle)) < 0)
			return rc;
		rc = table_print(stdout, t, info, o->by, o->quote_fully);
		if (rc == 0 && snap)
			rc = table_print_history(stdout, t, snap,
						 o->quote_fully);
		if (rc == 0 && t->cycle)
			rc = table_print_cycle(stdout, t, o->quote_fully);
		return rc;
	}
	report_options_of(&rep, o);
	rc = report_publish(t, info, &rep);
	if (rc == 0 && !o->quiet && table_no_release(t)) {
		table_no_release_note(note, sizeof(note), info);
		fprintf(stderr, "strata: note: %s\n", note);
	}
	return rc;
}

/* The tally and what table and report say about the run. */
static int run_tally(struct options *o, struct repository *repo,
		     const struct history *h, const struct blame_result *b,
		     const struct releases *rel, const struct snapshots *snap,
		     const struct cycle *cyc, const git_oid *ignore,
		     size_t nignore, struct report_info *info,
		     const struct timespec *t0)
{
	struct tally *t = NULL;
	struct cohorts *coh = NULL;
	char **ignore_hex = NULL;
	int rc;

	if ((rc = tally_build(&t, b, rel, (unsigned)o->depth, NULL, NULL)) < 0)
		goto done;
	t->history = snap;
	t->cycle = cyc;
	if ((rc = build_cohorts(&coh, o, repo, h, b, t)) < 0)
		goto done;
	t->cohorts = coh;
	if ((rc = count_left_out(info, o, repo, h)) < 0 ||
	    (rc = ignore_hex_of(&ignore_hex, ignore, nignore)) < 0)
		goto done;
	describe_run(info, o, repo, h, b, rel);
	info->ignore_revs = (const char *const *)ignore_hex;
	info->nignore_revs = nignore;
	info->seconds_total = seconds_since(t0);
	util_stages_end(&run_stages, "tally");
	rc = show_tally(t, o, snap, info);
	util_stages_end(&run_stages, o->cmd == OPTIONS_TABLE ? "table"
							      : "publish");
done:
	free_hex(ignore_hex, nignore);
	tally_free(t);
	cohorts_free(coh);
	return rc;
}

/*
 * --history releases on release branches: the history again, now with
 * the standing tags that REV does not contain, and the releases on it
 * (the same releases; their tags now in the history).
 */
static int load_release_branches(struct options *o, struct repository *repo,
				 struct history **h, struct releases **rel,
				 const struct blame_options *bo)
{
	struct releases_options ro = {o->tags, o->group, o->tag_scope};
	struct history *u = NULL;
	git_oid *extra = NULL;
	size_t nextra;
	int rc;

	if ((rc = snapshots_extra_tips(&extra, &nextra, *rel,
				       o->history)) < 0 || !nextra)
		goto done;
	if ((rc = history_load_union(&u, repo,
				     &(*h)->commits[(*h)->n - 1].oid, extra,
				     nextra, o->first_parent,
				     (unsigned)o->jobs, bo->progress,
				     bo->progress_payload)) < 0)
		goto done;
	releases_free(*rel);
	*rel = NULL;
	history_free(*h);
	*h = u;
	rc = releases_compute(rel, repo, u, &ro);
done:
	free(extra);
	return rc;
}

/*
 * Before the blame: the releases (table, report) and the snapshots of the
 * history, whose lines the engine hands over as it blames.
 */
static int prepare_cohorts(struct options *o, struct repository *repo,
			   struct history **h, struct releases **rel,
			   struct snapshots **snap, struct blame_options *bo)
{
	struct releases_options ro = {o->tags, o->group, o->tag_scope};
	int rc;

	if (o->cmd == OPTIONS_BLAME)
		return 0;
	if ((rc = releases_compute(rel, repo, *h, &ro)) < 0)
		return rc;
	if (o->history == SNAPSHOTS_NONE)
		return 0;
	if ((rc = load_release_branches(o, repo, h, rel, bo)) < 0)
		return rc;
	if ((rc = snapshots_choose(snap, *h, *rel, o->history, o->rev, NULL,
				   NULL)) < 0)
		return rc;
	snapshots_engine_options(*snap, bo);
	return 0;
}

/*
 * The release cycle (table --cycle, report unless --no-cycle): REV0, and
 * its snapshot chained after the history's in the engine's options.
 */
static int prepare_cycle(struct options *o, struct repository *repo,
			 const struct history *h, const struct releases *rel,
			 struct cycle **cyc, struct blame_options *bo)
{
	struct cycle_options co = {0};
	int rc;

	if (o->cmd == OPTIONS_BLAME ||
	    (o->cmd == OPTIONS_TABLE ? !o->cycle : o->no_cycle))
		return 0;
	co.rev = o->rev;
	co.since = o->since;
	co.date = o->date;
	co.orgmap = o->orgmap;
	co.pass_over = bo->pass_over;
	co.pass_payload = bo->want_payload;
	co.jobs = (unsigned)o->jobs;
	if ((rc = cycle_choose(cyc, repo, h, rel, &co)) < 0)
		return rc;
	return cycle_engine_options(*cyc, bo);
}

/*
 * A run that would not fit in memory stops here, before the walk, with
 * the estimate and what the machine offers (budget.h), or a tree of
 * more directories than anything can walk. A tree that cannot be
 * counted is left to the blame, which says what is wrong.
 */
static int check_memory(const struct options *o, struct repository *repo,
			const struct history *h, const struct snapshots *snap,
			const struct cycle *cyc)
{
	struct budget_counts c = { 0 };
	int rc = budget_count(&c, repo, &h->commits[h->n - 1].tree);

	if (rc == STRATA_ETOOBIG)
		return rc;
	if (rc < 0) {
		error_clear();
		return 0;
	}
	c.commits = h->n;
	c.snapshots = (snap ? snap->n : 0) + (cyc != NULL);
	c.jobs = (unsigned)o->jobs;
	return budget_check(&c);
}

/* A copy of the last error's message, to report it later. */
static int keep_error(char **out)
{
	const char *msg = error_last();

	if (!(*out = strdup(msg ? msg : "unable to read the attributes")))
		return error_oom();
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
	struct cycle *cyc = NULL;
	struct progress prog = {0};
	struct blame_options bo = {0};
	struct report_info info = {0};
	struct timespec t0, t1;
	git_oid tip, *ignore = NULL;
	size_t nignore = 0;
	char *attr_error = NULL;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	util_stages_start(&run_stages);
	if ((rc = options_check(o)) < 0 ||
	    (o->cmd == OPTIONS_REPORT && (rc = check_publish(o)) < 0))
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
		rc = attr_load_tree(&attr, repo->git,
				    &h->commits[h->n - 1].tree);
		if (rc < 0 && option_given(o, "--skip-vendored"))
			goto done;
		/*
		 * On by default, a tree libgit2 cannot parse is named by the
		 * blame's own reader first, which says what is wrong with it;
		 * the error stands when the blame gets through.
		 */
		if (rc < 0 && (rc = keep_error(&attr_error)) < 0)
			goto done;
		o->filter.attr = attr;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	info.seconds_history = seconds_since(&t0);
	util_stages_end(&run_stages, "history");
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
	if ((rc = prepare_cohorts(o, repo, &h, &rel, &snap, &bo)) < 0 ||
	    (rc = prepare_cycle(o, repo, h, rel, &cyc, &bo)) < 0)
		goto done;
	if (o->cmd != OPTIONS_BLAME)
		util_stages_end(&run_stages, "releases");
	if ((rc = check_memory(o, repo, h, snap, cyc)) < 0)
		goto done;
	util_stages_end(&run_stages, "budget");
	rc = blame_tree(&b, repo, h, &bo);
	progress_end(&prog);
	if (rc == 0)
		util_stages_append(&run_stages, &b->stages);
	if (rc == 0 && snap) {
		rc = snapshots_finish(snap);
		util_stages_end(&run_stages, "snapshots");
	}
	if (rc == 0 && cyc) {
		rc = cycle_finish(cyc, repo, b);
		util_stages_end(&run_stages, "cycle");
	}
	if (rc == 0 && attr_error)
		rc = error_set("%s", attr_error);
	if (rc < 0)
		goto done;
	info.seconds_blame = seconds_since(&t1);
	if (o->verbose)
		print_verbose(h, b, snap, &info);
	if ((o->cmd == OPTIONS_BLAME && (rc = check_pathspecs(o, b)) < 0) ||
	    (rc = check_found(o, b, repo, h)) < 0)
		goto done;
	if (o->cmd == OPTIONS_BLAME) {
		rc = print_blame(b, h, o);
		util_stages_end(&run_stages, "output");
	} else {
		git_oid_tostr(info.commit, sizeof(info.commit), &tip);
		rc = run_tally(o, repo, h, b, rel, snap, cyc, ignore,
			       nignore, &info, &t0);
	}
	if (rc == 0 && o->verbose)
		print_stages();
done:
	free(attr_error);
	free(ignore);
	cycle_free(cyc);
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

/* Help on stdout (asked for) or stderr (no command given). */
static int print_help(FILE *f, int cmd, int code)
{
	char *text = NULL;

	int failed;

	if (options_help(&text, cmd) < 0) {
		print_error(error_last());
		return 1;
	}
	/* A text longer than stdout's buffer fails here, not at the end. */
	errno = 0;
	failed = fputs(text, f) == EOF && f == stdout;
	free(text);
	if (failed) {
		write_error();
		print_error(error_last());
		return 1;
	}
	return f == stdout ? finish_stdout(code) : code;
}

/* strata --help-man: the OPTIONS section of strata(1), for make man. */
static int print_man(void)
{
	char *text = NULL;

	if (options_man(&text) < 0) {
		print_error(error_last());
		return 1;
	}
	fputs(text, stdout);
	free(text);
	return finish_stdout(0);
}

/* libgit2 as strata reads repositories. */
static void git_setup(void)
{
	/*
	 * Partial clones made by git before 2.29 carry this extension,
	 * which libgit2 refuses by default. strata only reads objects, and
	 * says what a missing one means (repository.c).
	 */
	const char *ext[] = { "partialclone" };

	git_libgit2_init();
	/*
	 * Objects come from the repository's own store; re-hashing every
	 * blob we read would cost as much as the diffs.
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, ext, (size_t)1);
}

int main(int argc, char **argv)
{
	struct options o;
	enum options_cmd cmd;
	int rc, sig;

	memset(&o, 0, sizeof(o));
	if (argc < 2)
		return print_help(stderr, -1, 2);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return print_help(stdout, -1, 0);
	if (!strcmp(argv[1], "--help-man"))
		return print_man();
	if (!strcmp(argv[1], "--version")) {
		printf("strata %s\n", STRATA_VERSION);
		return finish_stdout(0);
	}
	if (options_command(&cmd, argv[1]) < 0) {
		print_error(error_last());
		return 2;
	}
	if (options_wants_help(argc, argv))
		return print_help(stdout, (int)cmd, 0);
	heap_huge_pages(argv);
	heap_tune();
	git_setup();
	rc = options_parse(&o, cmd, argc, argv);
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
	if ((sig = report_signal())) {
		fflush(NULL);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	if (rc == STRATA_EUSAGE)
		return 2;
	return finish_stdout(rc < 0 ? 1 : 0);
}
