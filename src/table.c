/*
 * table: the tables `strata table` prints (include/strata/table.h).
 */
#include <math.h>
#include <stdint.h>
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
#include "strata/cycle.h"
#include "strata/table.h"
#include "strata/tally.h"
#include "strata/util.h"

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
 * How a name is shown: `fully` is core.quotePath for the names git
 * itself quotes (paths, refs, the repository's); NAME_TEXT for a
 * person's or an organisation's name, which git shortlog prints as it
 * is: valid UTF-8 goes to the terminal as it is (a reader sees
 * "Nguyễn", not "Nguy\341\273\205n"), and only a name holding a control
 * character (C0, DEL or C1) or a byte that is not UTF-8 is quoted, as
 * git quotes, so that no name can drive the terminal.
 */
#define NAME_TEXT 2

/* The code point of the well-formed sequence of n bytes at p. */
static uint32_t utf8_decode(const unsigned char *p, size_t n)
{
	static const unsigned char lead_mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t c = p[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		c = c << 6 | (p[i] & 0x3f);
	return c;
}

/* A control character: C0, DEL or C1. */
static int is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

/* 1 if s must be quoted to be shown as text (see NAME_TEXT). */
static int text_needs_quote(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = util_utf8_seq(p);
		uint32_t c;

		if (!n)
			return 1;
		c = utf8_decode(p, n);
		if (is_control(c))
			return 1;
		p += n;
	}
	return 0;
}

/* s quoted as git quotes, keeping valid UTF-8 text that is no control. */
static char *text_quote(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(util_add(util_mul(strlen(s), 8), 3)), *o = out;

	if (!out)
		return NULL;
	*o++ = '"';
	while (*p) {
		size_t n = util_utf8_seq(p), k;
		uint32_t c = n ? utf8_decode(p, n) : 0x80;

		if (n && !is_control(c) && c != '"' && c != '\\') {
			memcpy(o, p, n);
			o += n;
			p += n;
			continue;
		}
		/* One byte escaped: a control, or one that is not UTF-8. */
		for (k = 0; k < (n ? n : 1); k++, p++) {
			char tmp[8];
			size_t len = quote_write(tmp, (const char[2]){
						   (char)*p, 0 }, 1);

			/* tmp is "\"X\"": the escape between the quotes. */
			memcpy(o, tmp + 1, len - 2);
			o += len - 2;
		}
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

/* The name as shown: name itself, or *buf holding it quoted (or NULL). */
static const char *shown_name(char **buf, const char *name, int fully)
{
	if (fully != NAME_TEXT)
		return quote_name(buf, name, fully);
	if (!text_needs_quote(name))
		return name;
	free(*buf);
	return (*buf = text_quote(name));
}

/*
 * Columns a code point takes in a terminal, as wcwidth() gives them for
 * the common cases but with no locale: combining marks and zero-width
 * characters none, East Asian wide and full-width characters two.
 */
static int cp_width(uint32_t c)
{
	static const uint32_t zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
		{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x0e31, 0x0e31 },
		{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
		{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff },
		{ 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
	};
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff },
		{ 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
		{ 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe30, 0xfe4f },
		{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd },
		{ 0x30000, 0x3fffd },
	};
	size_t i;

	for (i = 0; i < sizeof(zero) / sizeof(*zero); i++)
		if (c >= zero[i][0] && c <= zero[i][1])
			return 0;
	for (i = 0; i < sizeof(wide) / sizeof(*wide); i++)
		if (c >= wide[i][0] && c <= wide[i][1])
			return 2;
	return 1;
}

/* Columns the shown string s takes (a byte not UTF-8 counts one). */
static size_t display_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, n;

	for (; *p; p += n ? n : 1) {
		n = util_utf8_seq(p);
		w += n ? (size_t)cp_width(utf8_decode(p, n)) : 1;
	}
	return w;
}

/* Columns the name takes as shown. */
static size_t name_width(const char *name, int fully)
{
	char *q = NULL;
	const char *shown = shown_name(&q, name, fully);
	size_t w = shown ? display_width(shown) : 1;

	free(q);
	return w;
}

/*
 * A name from the repository as shown (see NAME_TEXT), padded with
 * spaces to `width` columns (left-aligned).
 */
static void put_name(FILE *out, const char *name, size_t width, int fully)
{
	char *q = NULL;
	const char *shown = shown_name(&q, name, fully);
	size_t w = shown ? display_width(shown) : 1;

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

/* Why some releases are not in the table, so that none goes unsaid. */
static void print_empty_releases(FILE *out, const struct tally *t,
				 const struct report_info *in, int fully)
{
	size_t i, off = 0, on = 0;

	for (i = 0; i < t->nreleases; i++) {
		enum tally_silence why = tally_release_silent(t, i);

		off += why == TALLY_SILENT_ELSEWHERE;
		on += why == TALLY_SILENT_ON_HISTORY;
	}
	if (off) {
		fprintf(out, "%zu %s on other branches shipped no commit of ",
			off, plural(off, "release", "releases"));
		put_name(out, in->rev, 0, fully);
		fputs(" (left out; see releases.csv)\n", out);
	}
	if (on) {
		fprintf(out, "%zu %s on the history of ", on,
			plural(on, "release", "releases"));
		put_name(out, in->rev, 0, fully);
		fprintf(out, " %s no commit of %s own (left out; see "
			"releases.csv)\n", plural(on, "holds", "hold"),
			plural(on, "its", "their"));
	}
}

static void print_releases(FILE *out, const struct tally *t, int fully)
{
	size_t i, wname = strlen("release");
	int wlines = (int)strlen("lines"), wcommits = (int)strlen("commits");

	for (i = 0; i < t->nreleases; i++) {
		const struct tally_release *r = &t->releases[i];
		size_t w = name_width(r->name, fully);

		if (tally_release_silent(t, i))
			continue;

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

		if (tally_release_silent(t, i))
			continue;
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
		size_t w = 2 * (d->level - 1) + name_width(d->path, fully);

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

/*
 * How the table was made, under its first line: the tags that count and
 * how they group into releases (when it shows releases), and what the
 * filters left out, so that a table pasted elsewhere says it.
 */
static void print_how(FILE *out, const struct report_info *in,
		      int releases)
{
	if (releases) {
		fputs("tags: ", out);
		if (!strcmp(in->tags_ere, releases_default_tags)) {
			fputs("default --tags", out);
		} else {
			fputs("--tags '", out);
			put_name(out, in->tags_ere, 0, NAME_TEXT);
			fputc('\'', out);
		}
		fprintf(out, ", --tag-scope %s, ", in->tag_scope);
		if (in->group_ere) {
			fputs("--group '", out);
			put_name(out, in->group_ere, 0, NAME_TEXT);
			fputc('\'', out);
		} else {
			fputs("default grouping", out);
		}
		fputc('\n', out);
	}
	if (in->ninclude || in->nexclude)
		print_left(out, "by --include/--exclude", in->left_globs_files,
			   in->left_globs_lines);
	if (in->skip_vendored) {
		fprintf(out, "left out as vendored or generated: %zu text %s "
			"(%llu %s)", in->left_vendored_files,
			plural(in->left_vendored_files, "file", "files"),
			(unsigned long long)in->left_vendored_lines,
			plural(in->left_vendored_lines, "line", "lines"));
		fputs(in->left_vendored_files ? "; --no-skip-vendored counts "
		      "them\n" : "\n", out);
	}
	if (!in->ninclude && !in->nexclude && !in->skip_vendored)
		fputs("left out: nothing (--no-skip-vendored)\n", out);
}

/* What else the run passed over, so that a figure can be defended. */
static void print_left_out(FILE *out, const struct report_info *in)
{
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

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/*
 * Lines per year, author or organisation (--by), in the view's order,
 * with their share of the lines and their commits; `shares` adds the
 * share of the history's commits (authors, organisations) and `files`
 * the text files holding one of their lines and the share of the
 * `nfiles` at REV (authors), the columns git-fame's readers look for.
 */
/*
 * Rows of the author and organisation tables: a table pasted into an
 * article must stay readable (redis has 680 authors); the rest are
 * summed on one line, and authors.csv and orgs.csv list every one.
 */
#define COHORT_ROWS 25

static void print_cohorts(FILE *out, const struct cohort_view *v,
			  const char *head, uint64_t total, int shares,
			  int files, size_t nfiles, int fully)
{
	size_t i, wname = strlen(head);
	size_t nrows = shares && v->n > COHORT_ROWS ? COHORT_ROWS : v->n;
	int wlines = (int)strlen("lines"), wcommits = (int)strlen("commits");
	int wfiles = (int)strlen("files");
	uint64_t ncommits = 0, more_lines = 0, more_commits = 0;

	for (i = 0; i < v->n; i++) {
		/* Each commit of the history is in one cohort of a view. */
		ncommits += v->v[i].commits;
		if (i >= nrows) {
			more_lines += v->v[i].lines;
			more_commits += v->v[i].commits;
		}
	}
	for (i = 0; i < nrows; i++) {
		size_t w = name_width(v->v[i].name, fully);

		if (w > wname)
			wname = w;
		if (digits(v->v[i].lines) > wlines)
			wlines = digits(v->v[i].lines);
		if (digits(v->v[i].commits) > wcommits)
			wcommits = digits(v->v[i].commits);
		if (digits(v->v[i].files) > wfiles)
			wfiles = digits(v->v[i].files);
	}
	fprintf(out, "%-*s  %*s  %7s  %*s", (int)wname, head, wlines, "lines",
		shares ? "% lines" : "share", wcommits, "commits");
	if (shares)
		fprintf(out, "  %9s", "% commits");
	if (files)
		fprintf(out, "  %*s  %7s", wfiles, "files", "% files");
	fputc('\n', out);
	for (i = 0; i < nrows; i++) {
		const struct cohort *c = &v->v[i];

		put_name(out, c->name, wname, fully);
		fprintf(out, "  %*llu  %6.2f%%  %*llu", wlines,
			(unsigned long long)c->lines, percent(c->lines, total),
			wcommits, (unsigned long long)c->commits);
		if (shares)
			fprintf(out, "  %8.2f%%", percent(c->commits, ncommits));
		if (files)
			fprintf(out, "  %*zu  %6.2f%%", wfiles, c->files,
				percent(c->files, nfiles));
		fputc('\n', out);
	}
	if (nrows < v->n)
		fprintf(out, "%zu more %s: %llu %s (%.2f%%), %llu %s "
			"(%.2f%%); strata report lists every one in %s\n",
			v->n - nrows, files ? "authors" : "organisations",
			(unsigned long long)more_lines,
			plural(more_lines, "line", "lines"),
			percent(more_lines, total),
			(unsigned long long)more_commits,
			plural(more_commits, "commit", "commits"),
			percent(more_commits, ncommits),
			files ? "authors.csv" : "orgs.csv");
}

/* The table of --by year, author or org: the cohorts and what was left. */
static void print_by(FILE *out, const struct tally *t, int by)
{
	const struct cohorts *c = t->cohorts;
	const struct cohort_view *v = by == OPTIONS_BY_YEAR ? &c->years :
				      by == OPTIONS_BY_AUTHOR ? &c->authors :
				      &c->orgs;
	const char *head = by == OPTIONS_BY_YEAR ? "year" :
			   by == OPTIONS_BY_AUTHOR ? "author" : "organisation";

	print_cohorts(out, v, head, c->total_lines, by != OPTIONS_BY_YEAR,
		      by == OPTIONS_BY_AUTHOR, t->nfiles, NAME_TEXT);
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
	fprintf(out, " (%.12s): %llu %s in %zu text %s\n", in->commit,
	       (unsigned long long)t->total_lines,
	       plural(t->total_lines, "line", "lines"), t->nfiles,
	       plural(t->nfiles, "file", "files"));
	print_how(out, in, by == OPTIONS_BY_RELEASE || t->history);
	fputc('\n', out);
	if (by != OPTIONS_BY_RELEASE) {
		print_by(out, t, by);
		goto notes;
	}
	print_releases(out, t, fully);
	print_empty_releases(out, t, in, fully);
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
 * in release order (one release each when there are few). The releases
 * that wrote nothing at REV have none (their lines are 0 at every
 * snapshot of REV's history); the newest release, and the unreleased
 * lines, always have their own, so that the code of the latest cycle is
 * never folded into an older release's column: older releases fold
 * when space is short.
 */
#define HISTORY_COLUMNS 10

struct history_cols {
	size_t n;
	size_t *of;                       /* per release, or SIZE_MAX */
	size_t first[HISTORY_COLUMNS];    /* its first release */
	size_t count[HISTORY_COLUMNS];    /* how many it folds */
	int width;                        /* of each column */
	int folded;                       /* some column holds several */
};

static int history_cols_init(struct history_cols *hc, const struct tally *t,
			     int fully)
{
	size_t r, nshown = 0, nown = 0, newest = SIZE_MAX, nold, j = 0, c;

	memset(hc, 0, sizeof(*hc));
	hc->width = 8;
	if (!(hc->of = malloc((t->nreleases ? t->nreleases : 1) *
			      sizeof(*hc->of))))
		return error_oom();
	for (r = 0; r < t->nreleases; r++) {
		hc->of[r] = SIZE_MAX;
		if (tally_release_silent(t, r))
			continue;
		nshown++;
		if (t->releases[r].unreleased)
			nown++;
		else
			newest = r;
	}
	if (newest != SIZE_MAX)
		nown++;
	if (nshown <= HISTORY_COLUMNS)
		nown = 0;
	nold = nshown - nown;
	hc->n = nshown < HISTORY_COLUMNS ? nshown : HISTORY_COLUMNS;
	for (r = 0; r < t->nreleases; r++) {
		if (tally_release_silent(t, r))
			continue;
		if (nown && (r == newest || t->releases[r].unreleased))
			c = hc->n - nown + (r == newest ? 0 : nown - 1);
		else if (nshown <= HISTORY_COLUMNS)
			c = j++;
		else
			c = j++ * (HISTORY_COLUMNS - nown) / nold;
		if (!hc->count[c]++)
			hc->first[c] = r;
		hc->of[r] = c;
	}
	for (c = 0; c < hc->n; c++) {
		int w = (int)name_width(t->releases[hc->first[c]].name, fully) +
			(hc->count[c] > 1);

		if (hc->count[c] > 1)
			hc->folded = 1;
		if (w > hc->width)
			hc->width = w;
	}
	return 0;
}

/* The widest snapshot name, "snapshot" at least. */
static size_t history_name_width(const struct snapshots *s, int fully)
{
	size_t w = strlen("snapshot"), k;

	for (k = 0; k < s->n; k++)
		if (name_width(s->list[k].name, fully) > w)
			w = name_width(s->list[k].name, fully);
	return w;
}

static void print_history_head(FILE *out, const struct tally *t,
			       const struct history_cols *hc, size_t wname,
			       int fully)
{
	size_t c;

	fprintf(out, "\nshare of the lines at each snapshot by the release "
		"that "
	       "wrote them (%%)\n%-*s  %-10s  %12s", (int)wname, "snapshot",
	       "date", "lines");
	for (c = 0; c < hc->n; c++) {
		const char *name = t->releases[hc->first[c]].name;
		int plus = hc->count[c] > 1;

		fprintf(out, " %*s", hc->width - (int)name_width(name, fully) -
			plus, "");
		put_name(out, name, 0, fully);
		if (plus)
			fputc('+', out);
	}
	fputc('\n', out);
}

static void print_history_row(FILE *out, const struct tally *t,
			      const struct snapshot *p,
			      const struct history_cols *hc,
			      size_t wname, int fully)
{
	uint64_t col[HISTORY_COLUMNS] = {0};
	char day[16];
	size_t c, r;

	for (r = 0; r < t->nreleases; r++)
		if (hc->of[r] != SIZE_MAX)
			col[hc->of[r]] += p->by_release[r];
	print_day(day, sizeof(day), p->date);
	put_name(out, p->name, wname, fully);
	fprintf(out, "  %-10s  %12llu", day, (unsigned long long)p->lines);
	for (c = 0; c < hc->n; c++) {
		if (!col[c])
			fprintf(out, " %*s", hc->width, "");
		else
			fprintf(out, " %*.1f", hc->width, 100.0 *
				(double)col[c] / (double)p->lines);
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
		    name_width(t->releases[r].name, fully) > wrel)
			wrel = name_width(t->releases[r].name, fully);
	fprintf(out, "\n%-*s  %-*s  %12s  %8s  %s\n", (int)wrel, "release",
	       (int)wname, "counted at", "lines then", "left", "half-life");
	for (r = 0; r < t->nreleases; r++) {
		const struct snapshot_survival *sv = &s->survival[r];
		double left = snapshots_share(s, r, s->n - 1);
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
		fprintf(out, "  %12llu  ",
			(unsigned long long)s->list[sv->base].by_release[r]);
		if (left < 0)
			fprintf(out, "%8s  %s\n", "-", hl);
		else
			fprintf(out, "%7.2f%%  %s\n", left, hl);
	}
	fputs("(\"left\": the share still there at ", out);
	put_name(out, s->list[s->n - 1].name, 0, fully);
	fputs(", of those lines whose commits it has)\n", out);
}

int table_print_history(FILE *out, const struct tally *t,
			const struct snapshots *s, int fully)
{
	struct history_cols hc;
	size_t wname = history_name_width(s, fully), k;
	int rc;

	if ((rc = history_cols_init(&hc, t, fully)) < 0)
		return rc;
	print_history_head(out, t, &hc, wname, fully);
	for (k = 0; k < s->n; k++)
		print_history_row(out, t, &s->list[k], &hc, wname, fully);
	if (hc.folded)
		fprintf(out, "(a column \"NAME+\" is that release and those "
			"after it, up to the next column's)\n");
	print_survival(out, t, s, wname, fully);
	free(hc.of);
	return 0;
}

/* ---- the release cycle ---- */

/* Rows of their own in the cycle's tables. */
#define CYCLE_TOP 20

void table_cycle_status(char *buf, size_t size, const struct cycle *c)
{
	if (c->status == CYCLE_SAME)
		snprintf(buf, size, "the release cycle is empty: %s is %s's "
			 "own commit", c->since, c->rev);
	else
		snprintf(buf, size, "no release cycle: no release before "
			 "%s's has its tag in %s's history (--since REV0 "
			 "names a start)", c->rev, c->rev);
}

/* A view's top rows: changesets, share, added, removed. */
static void print_cycle_view(FILE *out, const struct cycle_view *v,
			     const char *what, uint64_t all)
{
	size_t w = strlen(what), n = v->n < CYCLE_TOP ? v->n : CYCLE_TOP;
	uint64_t rest[3] = {0};

	for (size_t i = 0; i < n; i++)
		if (name_width(v->v[i].name, NAME_TEXT) > w)
			w = name_width(v->v[i].name, NAME_TEXT);
	fprintf(out, "\n%-*s  %10s  %7s  %10s  %10s\n", (int)w, what,
		"changesets", "share", "added", "removed");
	for (size_t i = 0; i < v->n; i++) {
		const struct cycle_row *r = &v->v[i];

		if (i >= n) {
			rest[0] += r->changesets;
			rest[1] += r->added;
			rest[2] += r->removed;
			continue;
		}
		put_name(out, *r->name ? r->name : "(no name)", w, NAME_TEXT);
		fprintf(out, "  %10s  %6s%%  %10s  %10s\n",
			util_count(r->changesets).s,
			util_percent(r->changesets, all, 2).s,
			util_count(r->added).s, util_count(r->removed).s);
	}
	if (v->n > n)
		fprintf(out, "(%zu more: %s changesets, %s added, %s "
			"removed)\n", v->n - n, util_count(rest[0]).s,
			util_count(rest[1]).s, util_count(rest[2]).s);
}

/* The credits per person (after .mailmap), a column per trailer. */
static void print_cycle_credits(FILE *out, const struct cycle *c)
{
	size_t w = strlen("person"), n = c->npeople;

	if (!c->npeople)
		return;
	n = n < CYCLE_TOP ? n : CYCLE_TOP;
	for (size_t i = 0; i < n; i++)
		if (name_width(c->people[i].name, NAME_TEXT) > w)
			w = name_width(c->people[i].name, NAME_TEXT);
	fprintf(out, "\n%-*s", (int)w, "person");
	for (int k = 0; k < CYCLE_NTRAILERS; k++)
		fprintf(out, "  %s", cycle_trailer_name(k));
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		put_name(out, c->people[i].name, w, NAME_TEXT);
		for (int k = 0; k < CYCLE_NTRAILERS; k++)
			fprintf(out, "  %*s",
				(int)strlen(cycle_trailer_name(k)),
				util_count(c->people[i].count[k]).s);
		fputc('\n', out);
	}
	if (c->npeople > n)
		fprintf(out, "(%zu more)\n", c->npeople - n);
	fputs("(Signed-off-by only when not the author's own)\n", out);
}

static void print_cycle_lines(FILE *out, const char *what,
			      const struct cycle_lines *v, size_t nv,
			      uint64_t all, int fully)
{
	size_t w = strlen(what), n = nv < CYCLE_TOP ? nv : CYCLE_TOP;

	for (size_t i = 0; i < n; i++)
		if (name_width(v[i].name, fully) > w)
			w = name_width(v[i].name, fully);
	fprintf(out, "\n%-*s  %10s  %7s\n", (int)w, what, "replaced",
		"share");
	for (size_t i = 0; i < n; i++) {
		put_name(out, *v[i].name ? v[i].name : "(no name)", w, fully);
		fprintf(out, "  %10s  %6s%%\n", util_count(v[i].lines).s,
			util_percent(v[i].lines, all, 2).s);
	}
	if (nv > n)
		fprintf(out, "(%zu more)\n", nv - n);
}

/* The replaced lines by release, year and author; what arrived. */
static int print_cycle_replaced(FILE *out, const struct tally *t,
				const struct cycle *c, int fully)
{
	struct cycle_lines *rel = calloc(t->nreleases ? t->nreleases : 1,
					 sizeof(*rel));
	size_t n = 0;

	if (!rel)
		return error_oom();
	fprintf(out, "\nreplaced: %s of the %s lines %s",
		util_count(c->replaced).s, util_count(c->lines_since).s,
		c->fork ? "where " : "at ");
	put_name(out, c->since, 0, fully);
	/* REV0's lines are its branch's fork point's: say so. */
	if (c->fork) {
		fputs("'s branch left ", out);
		put_name(out, c->rev, 0, fully);
		fputs("'s history", out);
	}
	fprintf(out, " (%s%%) are gone at ",
		util_percent(c->replaced, c->lines_since, 1).s);
	put_name(out, c->rev, 0, fully);
	fputs("\n", out);
	for (size_t r = 0; r < t->nreleases; r++)
		if (c->replaced_by_release[r])
			rel[n++] = (struct cycle_lines){
				(char *)t->releases[r].name,
				c->replaced_by_release[r] };
	print_cycle_lines(out, "release", rel, n, c->replaced, fully);
	print_cycle_lines(out, "year", c->replaced_years, c->nreplaced_years,
			  c->replaced, NAME_TEXT);
	print_cycle_lines(out, "author", c->replaced_authors,
			  c->nreplaced_authors, c->replaced, NAME_TEXT);
	fprintf(out, "\narrived: %s lines at ", util_count(c->arrived).s);
	put_name(out, c->rev, 0, fully);
	fputs(" were not there at ", out);
	put_name(out, c->since, 0, fully);
	fprintf(out, "; %s of them (%s%%) by ",
		util_count(c->arrived_by_release[c->rev_release]).s,
		util_percent(c->arrived_by_release[c->rev_release],
			     c->arrived, 1).s);
	put_name(out, t->releases[c->rev_release].name, 0, fully);
	fputs("'s commits, the rest by older releases' (merged)\n", out);
	free(rel);
	return 0;
}

int table_print_cycle(FILE *out, const struct tally *t, int fully)
{
	const struct cycle *c = t->cycle;
	char note[512];
	char day0[16];

	fputs("\nrelease cycle ", out);
	if (c->status != CYCLE_OK) {
		table_cycle_status(note, sizeof(note), c);
		fprintf(out, "(none): %s\n", note);
		return 0;
	}
	print_day(day0, sizeof(day0), c->since_time);
	put_name(out, c->since, 0, fully);
	fputs("..", out);
	put_name(out, c->rev, 0, fully);
	fprintf(out, " (from %s", day0);
	if (c->fork) {
		fprintf(out, ", where %s's branch left ", c->since);
		put_name(out, c->rev, 0, fully);
		fprintf(out, "'s history: %s", git_oid_tostr_s(&c->since_oid));
	}
	fprintf(out, "): %s changesets by %s developers (%s merges "
		"left out); %s lines added, %s removed",
		util_count(c->changesets).s,
		util_count(c->authors.n).s, util_count(c->merges).s,
		util_count(c->added).s, util_count(c->removed).s);
	if (c->binary)
		fprintf(out, " (%s binary file changes left out)",
			util_count(c->binary).s);
	if (c->missing)
		fprintf(out, " (%s file changes missing from the partial "
			"clone and left out by the filters not counted)",
			util_count(c->missing).s);
	fputc('\n', out);
	print_cycle_view(out, &c->authors, "developer", c->changesets);
	print_cycle_view(out, &c->orgs, "organisation", c->changesets);
	print_cycle_credits(out, c);
	return print_cycle_replaced(out, t, c, fully);
}
