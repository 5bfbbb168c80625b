/*
 * table: the tables `strata table` prints (include/strata/table.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/error.h"
#include "strata/options.h"
#include "strata/quote.h"
#include "strata/releases.h"
#include "strata/report.h"
#include "strata/snapshots.h"
#include "strata/cohorts.h"
#include "strata/table.h"
#include "strata/tally.h"

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
static void put_name(FILE *out, const char *name, size_t width, int fully)
{
	char *q = NULL;
	const char *shown = quote_name(&q, name, fully);
	size_t w = quote_width(name, fully);

	fputs(shown ? shown : "?", out);
	for (; w < width; w++)
		fputc(' ', out);
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

static void print_releases(FILE *out, const struct tally *t, int fully)
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
	fprintf(out, "%-*s  %-10s  %*s  %7s  %*s\n", (int)wname, "release",
		"date", wlines, "lines", "share", wcommits, "commits");
	for (i = 0; i < t->nreleases; i++) {
		const struct tally_release *r = &t->releases[i];
		char day[16];

		release_day(day, sizeof(day), r->release);
		put_name(out, r->name, wname, fully);
		fprintf(out, "  %-10s  %*llu  %6.2f%%  %*llu\n", day, wlines,
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
		/* Reverse what was just pushed: the first child pops first. */
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

static int print_dirs(FILE *out, const struct tally *t, int fully)
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
	fprintf(out, "\n%-*s  %*s  %10s\n", (int)wname, head, wlines, "lines",
	       "from first");
	for (i = 0; i < (size_t)n; i++) {
		const struct tally_dir *d = &t->dirs[order[i]];
		size_t indent = 2 * (d->level - 1);

		fprintf(out, "%*s", (int)indent, "");
		put_name(out, d->path, wname - indent, fully);
		fprintf(out, "  %*llu  %9.2f%%\n", wlines,
		       (unsigned long long)d->lines, d->first_share);
	}
	fprintf(out, "%-*s  %*llu  %9.2f%%\n", (int)wname, "(all)", wlines,
	       (unsigned long long)t->total_lines, t->dirs[0].first_share);
	free(order);
	return 0;
}

static void print_left(FILE *out, const char *why, size_t files, uint64_t lines)
{
	fprintf(out, "left out %s: %zu text %s (%llu %s)\n", why, files,
	       plural(files, "file", "files"), (unsigned long long)lines,
	       plural(lines, "line", "lines"));
}

/* What the filters left out, so that a figure can be defended. */
static void print_left_out(FILE *out, const struct report_info *in)
{
	if (in->ninclude || in->nexclude)
		print_left(out, "by --include/--exclude", in->left_globs_files,
			   in->left_globs_lines);
	if (in->skip_vendored)
		print_left(out, "as vendored or generated (--skip-vendored)",
			   in->left_vendored_files, in->left_vendored_lines);
	if (in->left_missing)
		fprintf(out, "left out and missing from the partial clone (not "
		       "counted): %zu %s\n", in->left_missing,
		       plural(in->left_missing, "file", "files"));
	if (in->passed_over)
		fprintf(out, "note: %zu rename %s missing from the partial "
			"clone "
		       "and left out by the filters passed over; git blame, "
		       "which fetches them, might follow one\n",
		       in->passed_over,
		       plural(in->passed_over, "source", "sources"));
}

/* 1 if no tag counted: every line is unreleased. */
int table_no_release(const struct tally *t)
{
	return !t->nreleases ||
	       (t->nreleases == 1 && t->releases[0].unreleased);
}

/* Why no tag counted, for a note. */
void table_no_release_note(char *buf, size_t size,
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
static void print_cohorts(FILE *out, const struct cohort_view *v,
			  const char *head,
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
	fprintf(out, "%-*s  %*s  %7s  %*s\n", (int)wname, head, wlines, "lines",
	       "share", wcommits, "commits");
	for (i = 0; i < v->n; i++) {
		const struct cohort *c = &v->v[i];

		put_name(out, c->name, wname, fully);
		fprintf(out, "  %*llu  %6.2f%%  %*llu\n", wlines,
		       (unsigned long long)c->lines,
		       total ? 100.0 * (double)c->lines / (double)total : 0.0,
		       wcommits, (unsigned long long)c->commits);
	}
}

/* The table of --by year, author or org: the cohorts and what was left. */
static void print_by(FILE *out, const struct tally *t, int by, int fully)
{
	const struct cohorts *c = t->cohorts;

	if (by == OPTIONS_BY_YEAR)
		print_cohorts(out, &c->years, "year", c->total_lines, fully);
	else if (by == OPTIONS_BY_AUTHOR)
		print_cohorts(out, &c->authors, "author", c->total_lines,
			      fully);
	else
		print_cohorts(out, &c->orgs, "organisation", c->total_lines,
			      fully);
}

int table_print(FILE *out, const struct tally *t, const struct report_info *in,
		       int by, int fully)
{
	char note[256];
	const char *first = t->nreleases ? t->releases[0].name : "-";
	int rc;

	put_name(out, in->repo_name, 0, fully);
	fputs(" at ", out);
	put_name(out, in->rev, 0, fully);
	fprintf(out, " (%.12s): %llu %s in %zu text %s\n\n", in->commit,
	       (unsigned long long)t->total_lines,
	       plural(t->total_lines, "line", "lines"), t->nfiles,
	       plural(t->nfiles, "file", "files"));
	if (by != OPTIONS_BY_RELEASE) {
		print_by(out, t, by, fully);
		goto notes;
	}
	print_releases(out, t, fully);
	if ((rc = print_dirs(out, t, fully)) < 0)
		return rc;
	if (table_no_release(t)) {
		table_no_release_note(note, sizeof(note), in);
		fprintf(out, "\nnote: %s\n", note);
	} else {
		fputs("\nfiles untouched since ", out);
		put_name(out, first, 0, fully);
		fprintf(out, ": %zu of %zu (%llu %s)\n", t->nuntouched,
			t->nfiles,
		       (unsigned long long)t->untouched_lines,
		       plural(t->untouched_lines, "line", "lines"));
	}
notes:
	print_left_out(out, in);
	if (in->nboundary)
		fprintf(out, "note: shallow clone: %zu %s cut off; their lines "
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

static void print_history_head(FILE *out, const struct tally *t, size_t ncols,
			       size_t wname, int fully)
{
	size_t c, r;

	fprintf(out, "\nshare of the lines at each snapshot by the release "
		"that "
	       "wrote them (%%)\n%-*s  %-10s  %12s", (int)wname, "snapshot",
	       "date", "lines");
	for (c = 0; c < ncols; c++) {
		char *q = NULL;
		const char *name;

		for (r = 0; history_column(r, t->nreleases) != c; r++)
			;
		name = quote_name(&q, t->releases[r].name, fully);
		fprintf(out, " %8.*s%s", t->nreleases > HISTORY_COLUMNS ? 7 : 8,
		       name ? name : "?",
		       t->nreleases > HISTORY_COLUMNS ? "+" : "");
		free(q);
	}
	fputc('\n', out);
}

static void print_history_row(FILE *out, const struct tally *t,
			      const struct snapshot *p, size_t ncols,
			      size_t wname, int fully)
{
	uint64_t col[HISTORY_COLUMNS] = {0};
	char day[16];
	size_t c, r;

	for (r = 0; r < t->nreleases; r++)
		col[history_column(r, t->nreleases)] += p->by_release[r];
	print_day(day, sizeof(day), p->date);
	put_name(out, p->name, wname, fully);
	fprintf(out, "  %-10s  %12llu", day, (unsigned long long)p->lines);
	for (c = 0; c < ncols; c++) {
		if (!col[c])
			fprintf(out, " %8s", "");
		else
			fprintf(out, " %8.1f", 100.0 * (double)col[c] /
			       (double)p->lines);
	}
	fputc('\n', out);
}

static void print_survival(FILE *out, const struct tally *t,
			   const struct snapshots *s,
			   size_t wname, int fully)
{
	size_t r, wrel = strlen("release");

	for (r = 0; r < t->nreleases; r++)
		if (s->survival[r].base != SNAPSHOT_NONE &&
		    quote_width(t->releases[r].name, fully) > wrel)
			wrel = quote_width(t->releases[r].name, fully);
	fprintf(out, "\n%-*s  %-*s  %12s  %8s  %s\n", (int)wrel, "release",
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
		put_name(out, t->releases[r].name, wrel, fully);
		fputs("  ", out);
		put_name(out, s->list[sv->base].name, wname, fully);
		fprintf(out, "  %12llu  %7.2f%%  %s\n",
		       (unsigned long long)s->list[sv->base].by_release[r],
		       snapshots_share(s, r, s->n - 1), hl);
	}
	fputs("(\"left\": the share still there at ", out);
	put_name(out, s->list[s->n - 1].name, 0, fully);
	fputs(")\n", out);
}

void table_print_history(FILE *out, const struct tally *t,
			 const struct snapshots *s,
			  int fully)
{
	size_t ncols = t->nreleases < HISTORY_COLUMNS ? t->nreleases :
		       HISTORY_COLUMNS, k;
	size_t wname = history_name_width(s, fully);

	print_history_head(out, t, ncols, wname, fully);
	for (k = 0; k < s->n; k++)
		print_history_row(out, t, &s->list[k], ncols, wname, fully);
	if (t->nreleases > HISTORY_COLUMNS)
		fprintf(out, "(a column \"NAME+\" is that release and those "
			"after "
		       "it, up to the next column's)\n");
	print_survival(out, t, s, wname, fully);
}

