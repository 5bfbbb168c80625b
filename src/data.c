/*
 * data: the report's machine-readable files.
 *
 * Everything written here is a function of the tally and the report's
 * parameters, so the same input gives byte-identical files: no floating
 * point (shares are computed from the integer counts), no locale, sorted
 * input. The one exception is report.json's "run" object (timings, jobs),
 * which is left out when SOURCE_DATE_EPOCH is set. docs/data.md is the
 * reference for every format.
 */
#include "strata/data.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "strata/cohorts.h"
#include "strata/cycle.h"
#include "strata/error.h"
#include "strata/util.h"
#include "strata/releases.h"
#include "strata/snapshots.h"

/* RFC 4180: records end with CRLF. */
#define EOL "\r\n"

/* An output file, written under a temporary name and renamed when whole. */
struct out {
	FILE *f;
	char *path;
	char *tmp;
};

static int out_open(struct out *o, const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 16;

	memset(o, 0, sizeof(*o));
	o->path = malloc(len);
	o->tmp = malloc(len);
	if (!o->path || !o->tmp) {
		free(o->path);
		free(o->tmp);
		return error_oom();
	}
	snprintf(o->path, len, "%s/%s", dir, name);
	snprintf(o->tmp, len, "%s/.%s.tmp", dir, name);
	o->f = fopen(o->tmp, "wb");
	if (!o->f) {
		int rc = error_set("unable to create '%s': %s", o->tmp,
				   strerror(errno));

		free(o->path);
		free(o->tmp);
		return rc;
	}
	return 0;
}

/* Finish the file: renamed into place if `rc` is 0, removed otherwise. */
static int out_close(struct out *o, int rc)
{
	if (!o->f)
		return rc;
	if (!rc && ferror(o->f))
		rc = error_set("unable to write '%s'", o->tmp);
	if (fclose(o->f) && !rc)
		rc = error_set("unable to write '%s': %s", o->tmp,
			       strerror(errno));
	if (!rc && rename(o->tmp, o->path))
		rc = error_set("unable to rename '%s' to '%s': %s", o->tmp,
			       o->path, strerror(errno));
	if (rc)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return rc;
}

/* "2010-02-24T18:52:17Z" */
static void iso_date(char *buf, size_t size, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "1970-01-01T00:00:00Z");
}

/* Seconds with three decimals, without printf's locale-dependent %f. */
static void seconds(char *buf, size_t size, double s)
{
	long long ms = isfinite(s) && s > 0 ? llround(s * 1000.0) : 0;

	snprintf(buf, size, "%lld.%03lld", ms / 1000, ms % 1000);
}

/* --- CSV ----------------------------------------------------------------- */

/* A field, quoted when it holds a comma, a quote, CR or LF. */
void data_csv_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

/* --- JSON ---------------------------------------------------------------- */


static int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = util_utf8_seq(p);

		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

/*
 * A JSON string. Valid UTF-8 is written as is, except for the escapes JSON
 * needs, other control characters and DEL as \u00XX, and U+2028/U+2029
 * escaped so that the text is also valid JavaScript. A byte that does not
 * start a well-formed sequence becomes \ufffd.
 */
void data_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', f);
	while (*p) {
		size_t n = util_utf8_seq(p);

		if (!n) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (n == 1) {
			switch (*p) {
			case '"': fputs("\\\"", f); break;
			case '\\': fputs("\\\\", f); break;
			case '\b': fputs("\\b", f); break;
			case '\f': fputs("\\f", f); break;
			case '\n': fputs("\\n", f); break;
			case '\r': fputs("\\r", f); break;
			case '\t': fputs("\\t", f); break;
			default:
				if (*p < 0x20 || *p == 0x7f)
					fprintf(f, "\\u%04x", *p);
				else
					putc(*p, f);
			}
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 &&
			   (p[2] == 0xa8 || p[2] == 0xa9)) {
			fprintf(f, "\\u%04x", p[2] == 0xa8 ? 0x2028 : 0x2029);
		} else {
			fwrite(p, 1, n, f);
		}
		p += n;
	}
	putc('"', f);
}

/* "key": "value", plus "key_bytes": "<hex>" when value is not UTF-8. */
static void json_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, "\"%s\": ", key);
	data_json_string(f, value);
	if (!utf8_valid(value)) {
		fprintf(f, ", \"%s_bytes\": \"", key);
		for (const unsigned char *p = (const unsigned char *)value;
		     *p; p++)
			fprintf(f, "%02x", *p);
		putc('"', f);
	}
}

static void json_opt_str(FILE *f, const char *key, const char *value)
{
	if (value)
		json_field(f, key, value);
	else
		fprintf(f, "\"%s\": null", key);
}

static void json_date(FILE *f, const char *key, int64_t t, int present)
{
	char buf[40];

	if (!present) {
		fprintf(f, "\"%s\": null", key);
		return;
	}
	iso_date(buf, sizeof(buf), t);
	fprintf(f, "\"%s\": \"%s\"", key, buf);
}

static void json_str_array(FILE *f, const char *key, const char *const *v,
			   size_t n)
{
	fprintf(f, "\"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		data_json_string(f, v[i]);
	}
	putc(']', f);
}

static const char *bool_str(int b)
{
	return b ? "true" : "false";
}

/*
 * A release as the data files name it: the bucket of unreleased commits
 * is "", which no tag can be called, so that a tag named "unreleased" is
 * never taken for it.
 */
static const char *release_key(const struct tally_release *tr)
{
	return tr->unreleased ? "" : tr->name;
}

/* {"release": lines, ...} for the releases with lines > 0 */
static void json_by_release(FILE *f, const struct tally *t,
			    const uint64_t *by_release)
{
	int first = 1;

	putc('{', f);
	for (size_t r = 0; r < t->nreleases; r++) {
		if (!by_release[r])
			continue;
		if (!first)
			fputs(", ", f);
		first = 0;
		data_json_string(f, release_key(&t->releases[r]));
		fprintf(f, ": %" PRIu64, by_release[r]);
	}
	putc('}', f);
}

/* --- what is shared by several files ------------------------------------ */

/* Each release's standing tag (releases.h), or NULL. */
static int main_tags(const struct release_tag ***out, const struct tally *t)
{
	const struct release_tag **v = calloc(t->nreleases + 1, sizeof(*v));

	*out = NULL;
	if (!v)
		return error_oom();
	for (size_t r = 0; r < t->nreleases; r++)
		v[r] = t->releases[r].release ?
		       t->releases[r].release->standing : NULL;
	*out = v;
	return 0;
}

/* Index of the first release, or -1 if there is none but "unreleased". */
static long first_release(const struct tally *t)
{
	return t->nreleases && !t->releases[0].unreleased ? 0 : -1;
}

/* --- the files ----------------------------------------------------------- */

static int write_files_csv(const char *dir, const struct tally *t)
{
	struct out o;
	int rc = out_open(&o, dir, "files.csv");

	if (rc)
		return rc;
	fputs("path,release,lines" EOL, o.f);
	for (size_t i = 0; i < t->nfiles; i++) {
		const struct tally_file *file = &t->files[i];

		for (size_t r = 0; r < t->nreleases; r++) {
			if (!file->by_release[r])
				continue;
			data_csv_field(o.f, file->path);
			putc(',', o.f);
			data_csv_field(o.f, release_key(&t->releases[r]));
			fprintf(o.f, ",%" PRIu64 EOL, file->by_release[r]);
		}
	}
	return out_close(&o, 0);
}

static int write_releases_csv(const char *dir, const struct tally *t,
			      const struct release_tag **tags)
{
	struct out o;
	int rc = out_open(&o, dir, "releases.csv");

	if (rc)
		return rc;
	fputs("release,tag,date,commits,lines,share" EOL, o.f);
	for (size_t r = 0; r < t->nreleases; r++) {
		const struct tally_release *tr = &t->releases[r];
		char date[40] = "";
		struct util_num share;

		data_csv_field(o.f, release_key(tr));
		putc(',', o.f);
		if (tags[r]) {
			data_csv_field(o.f, tags[r]->name);
			iso_date(date, sizeof(date), tags[r]->date);
		}
		share = util_percent(tr->lines, t->total_lines, 2);
		fprintf(o.f, ",%s,%" PRIu64 ",%" PRIu64 ",%s" EOL, date,
			tr->release ? tr->release->commits : 0, tr->lines,
			share.s);
	}
	return out_close(&o, 0);
}

static int write_subsystems_csv(const char *dir, const struct tally *t)
{
	struct out o;
	int rc = out_open(&o, dir, "subsystems.csv");

	if (rc)
		return rc;
	fputs("subsystem,release,lines" EOL, o.f);
	for (size_t i = 0; i < t->ndirs; i++) {
		const struct tally_dir *d = &t->dirs[i];

		if (d->level != 1)
			continue;
		for (size_t r = 0; r < t->nreleases; r++) {
			if (!d->by_release[r])
				continue;
			data_csv_field(o.f, d->path);
			putc(',', o.f);
			data_csv_field(o.f, release_key(&t->releases[r]));
			fprintf(o.f, ",%" PRIu64 EOL, d->by_release[r]);
		}
	}
	return out_close(&o, 0);
}

/* years.csv, authors.csv, orgs.csv: a row per cohort, in its order. */
/* With `people`: the files column and the kind, person or bot. */
static int write_cohort_csv(const char *dir, const char *name,
			    const char *head, const struct cohort_view *v,
			    uint64_t total, int people)
{
	struct out o;
	struct util_num share;
	int rc = out_open(&o, dir, name);

	if (rc)
		return rc;
	fprintf(o.f, "%s,lines,share,commits%s" EOL, head,
		people ? ",files,kind" : "");
	for (size_t i = 0; i < v->n; i++) {
		const struct cohort *c = &v->v[i];

		share = util_percent(c->lines, total, 2);
		data_csv_field(o.f, c->name);
		fprintf(o.f, ",%" PRIu64 ",%s,%" PRIu64, c->lines, share.s,
			c->commits);
		if (people)
			fprintf(o.f, ",%zu,%s", c->files,
				c->bot ? "bot" : "person");
		fputs(EOL, o.f);
	}
	return out_close(&o, 0);
}

/* years-subsystems.csv: a row per subsystem and year with lines. */
static int write_years_subsystems_csv(const char *dir, const struct tally *t)
{
	const struct cohorts *c = t->cohorts;
	struct out o;
	int rc = out_open(&o, dir, "years-subsystems.csv");

	if (rc)
		return rc;
	fputs("subsystem,year,lines" EOL, o.f);
	for (size_t s = 0; s < c->nsubsystems; s++) {
		for (size_t y = 0; y < c->years.n; y++) {
			uint64_t n = c->years.v[y].by_subsystem[s];

			if (!n)
				continue;
			data_csv_field(o.f, t->dirs[c->subsystems[s]].path);
			fprintf(o.f, ",%s,%" PRIu64 EOL, c->years.v[y].name, n);
		}
	}
	return out_close(&o, 0);
}

static int write_cohorts(const char *dir, const struct tally *t)
{
	const struct cohorts *c = t->cohorts;
	int rc;

	if (!c)
		return 0;
	if ((rc = write_cohort_csv(dir, "years.csv", "year", &c->years,
				   c->total_lines, 0)) ||
	    (rc = write_years_subsystems_csv(dir, t)) || !c->has_authors)
		return rc;
	if ((rc = write_cohort_csv(dir, "authors.csv", "author",
				   &c->author_rows, c->total_lines, 1)))
		return rc;
	return write_cohort_csv(dir, "orgs.csv", "organisation", &c->orgs,
				c->total_lines, 0);
}

static int write_untouched_csv(const char *dir, const struct tally *t)
{
	struct out o;
	int rc = out_open(&o, dir, "untouched.csv");

	if (rc)
		return rc;
	fputs("path,lines" EOL, o.f);
	for (size_t i = 0; i < t->nfiles; i++) {
		if (!t->files[i].untouched)
			continue;
		data_csv_field(o.f, t->files[i].path);
		fprintf(o.f, ",%" PRIu64 EOL, t->files[i].lines);
	}
	return out_close(&o, 0);
}

/* --- the history (snapshots.h) ------------------------------------------ */

static int write_history_csv(const char *dir, const struct tally *t,
			     const struct snapshots *s)
{
	struct out o;
	int rc = out_open(&o, dir, "history.csv");

	if (rc)
		return rc;
	fputs("snapshot,date,release,lines" EOL, o.f);
	for (size_t k = 0; k < s->n; k++) {
		char date[40];

		iso_date(date, sizeof(date), s->list[k].date);
		for (size_t r = 0; r < t->nreleases; r++) {
			if (!s->list[k].by_release[r])
				continue;
			data_csv_field(o.f, s->list[k].name);
			fprintf(o.f, ",%s,", date);
			data_csv_field(o.f, release_key(&t->releases[r]));
			fprintf(o.f, ",%" PRIu64 EOL, s->list[k].by_release[r]);
		}
	}
	return out_close(&o, 0);
}

static int write_history_subsystems_csv(const char *dir,
					const struct tally *t,
					const struct snapshots *s)
{
	struct out o;
	int rc = out_open(&o, dir, "history-subsystems.csv");

	if (rc)
		return rc;
	fputs("snapshot,subsystem,release,lines" EOL, o.f);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct snapshot_row *row = &s->rows[i];

		data_csv_field(o.f, s->list[row->snapshot].name);
		putc(',', o.f);
		data_csv_field(o.f, s->subsystems[row->subsystem]);
		putc(',', o.f);
		data_csv_field(o.f, release_key(&t->releases[row->release]));
		fprintf(o.f, ",%" PRIu64 EOL, row->lines);
	}
	return out_close(&o, 0);
}

static int write_survival_csv(const char *dir, const struct tally *t,
			      const struct snapshots *s)
{
	struct out o;
	int rc = out_open(&o, dir, "survival.csv");

	if (rc)
		return rc;
	fputs("release,snapshot,date,lines,share,arrived" EOL, o.f);
	for (size_t r = 0; r < t->nreleases; r++) {
		size_t b = s->survival[r].base;

		for (size_t k = b; b != SNAPSHOT_NONE && k < s->n; k++) {
			char date[40];
			struct util_num share;
			uint64_t n = snapshots_survived(s, r, k);
			uint64_t of = snapshots_based(s, r, k);

			if (!of) /* none of its commits on this line */
				continue;
			iso_date(date, sizeof(date), s->list[k].date);
			share = util_percent(n, of, 2);
			data_csv_field(o.f, release_key(&t->releases[r]));
			putc(',', o.f);
			data_csv_field(o.f, s->list[k].name);
			fprintf(o.f, ",%s,%" PRIu64 ",%s,%" PRIu64 EOL, date, n,
				share.s, s->list[k].by_release[r] - n);
		}
	}
	return out_close(&o, 0);
}

static int write_history(const char *dir, const struct tally *t)
{
	int rc;

	if (!t->history)
		return 0;
	if ((rc = write_history_csv(dir, t, t->history)) < 0 ||
	    (rc = write_history_subsystems_csv(dir, t, t->history)) < 0)
		return rc;
	return write_survival_csv(dir, t, t->history);
}

/* --- the release cycle (cycle.h) ---------------------------------------- */

/* Whether the report names people (not --no-authors). */
static int cycle_people(const struct tally *t)
{
	return !t->cohorts || t->cohorts->has_authors;
}

/* cycle-authors.csv, cycle-orgs.csv: every row, share of changesets. */
static int write_cycle_view(const char *dir, const char *name,
			    const char *what, const struct cycle_view *v,
			    uint64_t all)
{
	struct out o;
	int rc = out_open(&o, dir, name);

	if (rc)
		return rc;
	fprintf(o.f, "%s,changesets,added,removed,share" EOL, what);
	for (size_t i = 0; i < v->n; i++) {
		const struct cycle_row *r = &v->v[i];

		data_csv_field(o.f, r->name);
		fprintf(o.f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s" EOL,
			r->changesets, r->added, r->removed,
			util_percent(r->changesets, all, 2).s);
	}
	return out_close(&o, 0);
}

/* cycle-trailers.csv: each trailer value as written, counted. */
static int write_cycle_trailers(const char *dir, const struct cycle *c)
{
	struct out o;
	int rc = out_open(&o, dir, "cycle-trailers.csv");

	if (rc)
		return rc;
	fputs("trailer,person,count" EOL, o.f);
	for (size_t i = 0; i < c->ncredits; i++) {
		fprintf(o.f, "%s,", cycle_trailer_name(c->credits[i].trailer));
		data_csv_field(o.f, c->credits[i].person);
		fprintf(o.f, ",%" PRIu64 EOL, c->credits[i].count);
	}
	return out_close(&o, 0);
}

static void removed_rows(FILE *f, const char *kind,
			 const struct cycle_lines *v, size_t n,
			 uint64_t all)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s,", kind);
		data_csv_field(f, v[i].name);
		fprintf(f, ",%" PRIu64 ",%s" EOL, v[i].lines,
			util_percent(v[i].lines, all, 2).s);
	}
}

/* cycle-removed.csv: the replaced lines by release, year and author. */
static int write_cycle_removed(const char *dir, const struct tally *t)
{
	const struct cycle *c = t->cycle;
	struct out o;
	int rc = out_open(&o, dir, "cycle-removed.csv");

	if (rc)
		return rc;
	fputs("cohort_kind,cohort,lines,share" EOL, o.f);
	for (size_t r = 0; r < t->nreleases; r++) {
		if (!c->replaced_by_release[r])
			continue;
		fputs("release,", o.f);
		data_csv_field(o.f, t->releases[r].name);
		fprintf(o.f, ",%" PRIu64 ",%s" EOL, c->replaced_by_release[r],
			util_percent(c->replaced_by_release[r], c->replaced,
				     2).s);
	}
	removed_rows(o.f, "year", c->replaced_years, c->nreplaced_years,
		     c->replaced);
	if (cycle_people(t))
		removed_rows(o.f, "author", c->replaced_authors,
			     c->nreplaced_authors, c->replaced);
	return out_close(&o, 0);
}

static int write_cycle(const char *dir, const struct tally *t)
{
	const struct cycle *c = t->cycle;
	int rc;

	if (!c || c->status != CYCLE_OK)
		return 0;
	if ((rc = write_cycle_removed(dir, t)) || !cycle_people(t))
		return rc;
	if ((rc = write_cycle_view(dir, "cycle-authors.csv", "author",
				   &c->author_rows, c->changesets)) ||
	    (rc = write_cycle_view(dir, "cycle-orgs.csv", "organisation",
				   &c->orgs, c->changesets)))
		return rc;
	return write_cycle_trailers(dir, c);
}

/* "cycle": REV0 and the cycle's totals, or null. */
static void json_cycle(FILE *f, const struct tally *t)
{
	const struct cycle *c = t->cycle;
	char hex[GIT_OID_HEXSZ + 1];

	if (!c) {
		fputs(",\n  \"cycle\": null", f);
		return;
	}
	fputs(",\n  \"cycle\": {\n    ", f);
	fprintf(f, "\"status\": \"%s\"", c->status == CYCLE_OK ? "ok" :
		c->status == CYCLE_SAME ? "empty" : "no start");
	if (c->status != CYCLE_NO_START) {
		fputs(",\n    ", f);
		json_field(f, "since", c->since);
		fprintf(f, ",\n    \"since_commit\": \"%s\"",
			git_oid_tostr(hex, sizeof(hex), &c->since_oid));
	}
	fprintf(f, ",\n    \"commits\": %" PRIu64 ", \"merges\": %" PRIu64
		", \"changesets\": %" PRIu64 ",\n    \"added\": %" PRIu64
		", \"removed\": %" PRIu64 ", \"binary\": %" PRIu64
		", \"missing\": %" PRIu64
		",\n    \"lines_since\": %" PRIu64 ", \"replaced\": %" PRIu64
		", \"arrived\": %" PRIu64 "\n  }", c->commits, c->merges,
		c->changesets, c->added, c->removed, c->binary, c->missing,
		c->lines_since, c->replaced, c->arrived);
}

/* --date, --org-map and --no-authors, as the cohorts were built. */
static void json_cohort_options(FILE *f, const struct tally *t,
				const struct report_info *info)
{
	const struct cohorts *c = t->cohorts;

	json_field(f, "date", cohorts_date_name(c ? c->date :
						COHORTS_COMMITTER));
	fputs(",\n    ", f);
	json_opt_str(f, "org_map", info->org_map);
	fprintf(f, ",\n    \"authors\": %s",
		bool_str(c && c->has_authors));
}

static void json_head(FILE *f, const struct tally *t,
		      const struct report_info *info)
{
	char date[40];

	fputs("{\n  \"format\": \"strata-report/1\",\n  ", f);
	json_opt_str(f, "version", info->version);
	iso_date(date, sizeof(date), info->generated);
	fprintf(f, ",\n  \"generated\": \"%s\",\n", date);

	fputs("  \"repository\": {\n    ", f);
	json_opt_str(f, "name", info->repo_name);
	fputs(",\n    ", f);
	json_opt_str(f, "rev", info->rev);
	fputs(",\n    ", f);
	json_field(f, "commit", info->commit);
	fputs(",\n    ", f);
	json_date(f, "commit_date", info->commit_time, 1);
	fprintf(f, ",\n    \"commits\": %zu,\n    \"shallow\": %s,\n"
		"    \"boundary_commits\": %zu\n  },\n", info->ncommits,
		bool_str(info->shallow), info->nboundary);

	fputs("  \"options\": {\n    ", f);
	json_field(f, "tags", info->tags_ere ? info->tags_ere
					     : releases_default_tags);
	fputs(",\n    ", f);
	json_opt_str(f, "group", info->group_ere);
	fputs(",\n    ", f);
	json_opt_str(f, "tag_scope", info->tag_scope);
	fprintf(f, ",\n    \"first_parent\": %s,\n"
		"    \"ignore_whitespace\": %s,\n    ",
		bool_str(info->first_parent),
		bool_str(info->ignore_whitespace));
	json_str_array(f, "ignore_revs", info->ignore_revs,
		       info->nignore_revs);
	fputs(",\n    ", f);
	json_str_array(f, "include", info->include, info->ninclude);
	fputs(",\n    ", f);
	json_str_array(f, "exclude", info->exclude, info->nexclude);
	fprintf(f, ",\n    \"skip_vendored\": %s",
		bool_str(info->skip_vendored));
	fprintf(f, ",\n    \"depth\": %u,\n    ", info->depth);
	json_cohort_options(f, t, info);
	fputs("\n  },\n", f);

	fprintf(f, "  \"totals\": {\n    \"lines\": %" PRIu64 ",\n"
		"    \"files\": %zu,\n    \"releases\": %zu,\n"
		"    \"untouched_files\": %zu,\n"
		"    \"untouched_lines\": %" PRIu64 ",\n",
		t->total_lines, t->nfiles, t->nreleases, t->nuntouched,
		t->untouched_lines);
	fprintf(f, "    \"left_out\": {\"include_exclude\": {\"files\": %zu, "
		"\"lines\": %" PRIu64 "}, \"vendored\": {\"files\": %zu, "
		"\"lines\": %" PRIu64 "}, \"missing\": %zu},\n"
		"    \"renames_passed_over\": %zu\n  },\n",
		info->left_globs_files, info->left_globs_lines,
		info->left_vendored_files, info->left_vendored_lines,
		info->left_missing, info->passed_over);
}

static void json_releases(FILE *f, const struct tally *t,
			  const struct release_tag **tags)
{
	fputs("  \"releases\": [", f);
	for (size_t r = 0; r < t->nreleases; r++) {
		const struct tally_release *tr = &t->releases[r];
		const struct release *rel = tr->release;
		int dated = rel && rel->ntags;
		struct util_num share;

		fputs(r ? ",\n    {" : "\n    {", f);
		json_field(f, "name", release_key(tr));
		fprintf(f, ", \"unreleased\": %s, ", bool_str(tr->unreleased));
		json_opt_str(f, "tag", tags[r] ? tags[r]->name : NULL);
		fputs(", ", f);
		json_date(f, "date", tags[r] ? tags[r]->date : 0, !!tags[r]);
		fputs(", ", f);
		json_date(f, "first_date", dated ? rel->first_date : 0, dated);
		fputs(", ", f);
		json_date(f, "last_date", dated ? rel->last_date : 0, dated);
		share = util_percent(tr->lines, t->total_lines, 2);
		fprintf(f, ", \"commits\": %" PRIu64 ", \"lines\": %" PRIu64
			", \"share\": %s, \"tags\": [",
			rel ? rel->commits : 0, tr->lines, share.s);
		for (size_t i = 0; rel && i < rel->ntags; i++) {
			fputs(i ? ", {" : "{", f);
			json_field(f, "name", rel->tags[i].name);
			fputs(", ", f);
			json_date(f, "date", rel->tags[i].date, 1);
			putc('}', f);
		}
		fputs("]}", f);
	}
	fputs(t->nreleases ? "\n  ],\n" : "],\n", f);
}

static void json_files(FILE *f, const struct tally *t)
{
	fputs("  \"files\": [", f);
	for (size_t i = 0; i < t->nfiles; i++) {
		const struct tally_file *file = &t->files[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		json_field(f, "path", file->path);
		fprintf(f, ", \"lines\": %" PRIu64 ", \"untouched\": %s, "
			"\"releases\": ", file->lines,
			bool_str(file->untouched));
		json_by_release(f, t, file->by_release);
		putc('}', f);
	}
	fputs(t->nfiles ? "\n  ],\n" : "],\n", f);
}

static void json_dirs(FILE *f, const struct tally *t)
{
	long first = first_release(t);

	fputs("  \"directories\": [", f);
	for (size_t i = 0; i < t->ndirs; i++) {
		const struct tally_dir *d = &t->dirs[i];
		struct util_num share;

		share = util_percent(first < 0 ? 0 : d->by_release[first],
				     d->lines, 2);
		fputs(i ? ",\n    {" : "\n    {", f);
		json_field(f, "path", d->path);
		fprintf(f, ", \"level\": %u, \"lines\": %" PRIu64
			", \"files\": %zu, \"untouched_files\": %zu"
			", \"first_share\": %s, \"releases\": ", d->level,
			d->lines, d->nfiles, d->nuntouched, share.s);
		json_by_release(f, t, d->by_release);
		putc('}', f);
	}
	fputs(t->ndirs ? "\n  ],\n" : "],\n", f);
}

/* Days with one decimal, without printf's locale-dependent %f. */
static void days(char *buf, size_t size, double d)
{
	long long tenths = isfinite(d) && d > 0 ? llround(d * 10.0) : 0;

	snprintf(buf, size, "%lld.%lld", tenths / 10, tenths % 10);
}

static void json_snapshots(FILE *f, const struct tally *t,
			   const struct snapshots *s)
{
	char hex[GIT_OID_HEXSZ + 1];

	for (size_t k = 0; k < s->n; k++) {
		const struct snapshot *p = &s->list[k];

		fputs(k ? ",\n      {" : "\n      {", f);
		json_field(f, "name", p->name);
		fputs(", ", f);
		json_date(f, "date", p->date, 1);
		git_oid_tostr(hex, sizeof(hex), &p->oid);
		fprintf(f, ", \"commit\": \"%s\", ", hex);
		json_opt_str(f, "release", p->release == SNAPSHOT_NONE ? NULL :
			     release_key(&t->releases[p->release]));
		fprintf(f, ", \"rev\": %s, \"branch\": %s, \"lines\": %"
			PRIu64 ", \"releases\": ", bool_str(p->is_rev),
			bool_str(p->outside), p->lines);
		json_by_release(f, t, p->by_release);
		putc('}', f);
	}
}

static void json_survival(FILE *f, const struct tally *t,
			  const struct snapshots *s)
{
	int first = 1;

	for (size_t r = 0; r < t->nreleases; r++) {
		const struct snapshot_survival *sv = &s->survival[r];
		char d[32];

		if (sv->base == SNAPSHOT_NONE)
			continue;
		fputs(first ? "\n      {" : ",\n      {", f);
		first = 0;
		json_field(f, "release", release_key(&t->releases[r]));
		fputs(", ", f);
		json_field(f, "snapshot", s->list[sv->base].name);
		days(d, sizeof(d), sv->half_life_days);
		fprintf(f, ", \"lines\": %" PRIu64 ", \"half_life_days\": %s}",
			s->list[sv->base].by_release[r],
			sv->has_half_life ? d : "null");
	}
	fputs(first ? "]" : "\n    ]", f);
}

/* "history": the snapshots and the half-lives, or null. */
static void json_history(FILE *f, const struct tally *t)
{
	const struct snapshots *s = t->history;

	if (!s) {
		fputs(",\n  \"history\": null", f);
		return;
	}
	fprintf(f, ",\n  \"history\": {\n    \"when\": \"%s\",\n"
		"    \"snapshots\": [", snapshots_when_name(s->when));
	json_snapshots(f, t, s);
	fputs(s->n ? "\n    ],\n    \"survival\": [" :
		     "],\n    \"survival\": [", f);
	json_survival(f, t, s);
	fputs(",\n    \"without_snapshot\": [", f);
	for (size_t i = 0; i < s->nunsnapped; i++) {
		fputs(i ? ", " : "", f);
		data_json_string(f, release_key(&t->releases[s->unsnapped[i]]));
	}
	fputs("]\n  }", f);
}

static void json_untouched(FILE *f, const struct tally *t)
{
	int first = 1;

	fputs("  \"untouched\": [", f);
	for (size_t i = 0; i < t->nfiles; i++) {
		if (!t->files[i].untouched)
			continue;
		fputs(first ? "\n    {" : ",\n    {", f);
		first = 0;
		json_field(f, "path", t->files[i].path);
		fprintf(f, ", \"lines\": %" PRIu64 "}", t->files[i].lines);
	}
	fputs(first ? "]" : "\n  ]", f);
}

/*
 * Facts about this run rather than the input: they change from run to run
 * and machine to machine. Reproducible builds set SOURCE_DATE_EPOCH; then
 * they are left out and the file is byte-identical for the same input.
 */
static void json_run(FILE *f, const struct report_info *info)
{
	char h[32], b[32], total[32];

	if (info->reproducible) {
		fputs("\n}\n", f);
		return;
	}
	seconds(h, sizeof(h), info->seconds_history);
	seconds(b, sizeof(b), info->seconds_blame);
	seconds(total, sizeof(total), info->seconds_total);
	fprintf(f, ",\n  \"run\": {\n    \"jobs\": %u,\n"
		"    \"diffs\": %" PRIu64 ",\n"
		"    \"seconds\": {\"history\": %s, \"blame\": %s, "
		"\"total\": %s}\n  }\n}\n",
		info->jobs, info->ndiffs, h, b, total);
}

static int write_report_json(const char *dir, const struct tally *t,
			     const struct report_info *info,
			     const struct release_tag **tags)
{
	struct out o;
	int rc = out_open(&o, dir, "report.json");

	if (rc)
		return rc;
	json_head(o.f, t, info);
	json_releases(o.f, t, tags);
	json_files(o.f, t);
	json_dirs(o.f, t);
	json_untouched(o.f, t);
	json_history(o.f, t);
	json_cycle(o.f, t);
	json_run(o.f, info);
	return out_close(&o, 0);
}

int data_write(const char *dir, const struct tally *t,
	       const struct report_info *info)
{
	const struct release_tag **tags = NULL;
	int rc;

	if ((rc = cycle_wait(t->cycle)) < 0)
		return rc;
	rc = main_tags(&tags, t);
	if (!rc)
		rc = write_files_csv(dir, t);
	if (!rc)
		rc = write_releases_csv(dir, t, tags);
	if (!rc)
		rc = write_subsystems_csv(dir, t);
	if (!rc)
		rc = write_untouched_csv(dir, t);
	if (!rc)
		rc = write_history(dir, t);
	if (!rc)
		rc = write_cohorts(dir, t);
	if (!rc)
		rc = write_cycle(dir, t);
	if (!rc)
		rc = write_report_json(dir, t, info, tags);
	free(tags);
	return rc;
}
