#include "strata/cohorts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/error.h"
#include "strata/util.h"
#include "strata/tally.h"

int cohorts_parse_date(enum cohorts_date *out, const char *s)
{
	if (!strcmp(s, "committer"))
		*out = COHORTS_COMMITTER;
	else if (!strcmp(s, "author"))
		*out = COHORTS_AUTHOR;
	else
		return error_setc(STRATA_EUSAGE, "invalid value '%s' for "
				  "'--date': expected committer or author", s);
	return 0;
}

/* A view while it is built: its names, each once, found by hash. */
struct builder {
	struct cohort_view *view;
	size_t alloc;
	uint32_t *slots;            /* index + 1; 0 is empty */
	size_t nslots;
	size_t nsub;
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int builder_grow(struct builder *b)
{
	struct cohort_view *v = b->view;
	size_t ns, i;
	uint32_t *s;

	if (UTIL_GROW(v->v, b->alloc, v->n + 1) < 0)
		return STRATA_ENOMEM;
	if (v->n + 1 <= b->nslots / 2)
		return 0;
	ns = b->nslots ? 2 * b->nslots : 256;
	if (!(s = calloc(ns, sizeof(*s))))
		return error_oom();
	for (i = 0; i < v->n; i++) {
		size_t k = name_hash(v->v[i].name) & (ns - 1);

		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = ns;
	return 0;
}

/* The index of cohort `name` in the view, added when new. */
static int builder_intern(struct builder *b, const char *name,
			  uint32_t *out)
{
	struct cohort_view *v = b->view;
	struct cohort *c;
	size_t k;
	int rc;

	if ((rc = builder_grow(b)) < 0)
		return rc;
	for (k = name_hash(name) & (b->nslots - 1); b->slots[k];
	     k = (k + 1) & (b->nslots - 1)) {
		if (!strcmp(v->v[b->slots[k] - 1].name, name)) {
			*out = b->slots[k] - 1;
			return 0;
		}
	}
	c = &v->v[v->n];
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	c->by_subsystem = calloc(b->nsub ? b->nsub : 1,
				 sizeof(*c->by_subsystem));
	if (!c->name || !c->by_subsystem) {
		free(c->name);
		free(c->by_subsystem);
		return error_oom();
	}
	b->slots[k] = (uint32_t)v->n + 1;
	*out = (uint32_t)v->n++;
	return 0;
}

static void view_release(struct cohort_view *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].name);
		free(v->v[i].by_subsystem);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}

void cohorts_free(struct cohorts *c)
{
	if (!c)
		return;
	view_release(&c->years);
	view_release(&c->authors);
	view_release(&c->author_rows);
	view_release(&c->orgs);
	free(c->subsystems);
	free(c);
}

/* What the walk over the lines needs: each commit's cohort per view. */
struct build {
	const struct history *h;
	const struct cohorts_options *o;
	struct cohorts *c;
	struct builder years, authors, rows, orgs;
	/* per commit; rows: authors with each bot on its own */
	uint32_t *year_of, *author_of, *row_of, *org_of;
	size_t *sub_of_dir;                        /* per tally dir */
};

static int year_of_time(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm))
		return 1970;
	return tm.tm_year + 1900;
}

static int commit_years(struct build *B)
{
	const struct history *h = B->h;
	char name[16];
	int rc;

	for (size_t i = 0; i < h->n; i++) {
		const struct history_commit *hc = &h->commits[i];
		int64_t t = B->o->date == COHORTS_AUTHOR ? hc->author_time
							 : hc->time;

		B->year_of[i] = UINT32_MAX;
		if (hc->outside) /* no one's: no year of its own */
			continue;
		snprintf(name, sizeof(name), "%d", year_of_time(t));
		if ((rc = builder_intern(&B->years, name, &B->year_of[i])) < 0)
			return rc;
		B->c->years.v[B->year_of[i]].commits++;
	}
	return 0;
}

/*
 * An ident's author after the mailmap: its row (authors.csv) and its
 * cohort, where every bot is one, "(bots)".
 */
static int ident_author(struct build *B, const struct history_ident *id,
			uint32_t *row, uint32_t *author)
{
	const char *name, *email;
	int rc, bot;

	mailmap_resolve(B->o->mailmap, id->name, id->email, &name, &email);
	bot = orgmap_is_bot(name, id->email);
	if ((rc = builder_intern(&B->rows, name, row)) < 0 ||
	    (rc = builder_intern(&B->authors, bot ? ORGMAP_BOTS : name,
				 author)) < 0)
		return rc;
	B->c->author_rows.v[*row].bot = bot;
	B->c->authors.v[*author].bot = bot;
	return 0;
}

/*
 * The authors of the idents that commits of REV's history use: the
 * commits only a release branch's snapshot has (history.h, `outside`)
 * are no one's and make no row. of_ident[2i], [2i+1]: ident i's row and
 * author; UINT32_MAX when unused.
 */
static int ident_authors(struct build *B, uint32_t *of_ident)
{
	const struct history *h = B->h;
	int rc = 0;

	for (size_t i = 0; i < 2 * h->nidents; i++)
		of_ident[i] = UINT32_MAX;
	for (size_t i = 0; i < h->n && rc == 0; i++) {
		uint32_t a = h->commits[i].author;

		if (h->commits[i].outside || of_ident[2 * a] != UINT32_MAX)
			continue;
		rc = ident_author(B, &h->idents[a], &of_ident[2 * a],
				  &of_ident[2 * a + 1]);
	}
	return rc;
}

/* Authors: one name per ident after the mailmap; orgs per commit. */
static int commit_authors(struct build *B)
{
	const struct history *h = B->h;
	size_t ni = h->nidents ? h->nidents : 1;
	uint32_t *of_ident = malloc(util_mul(ni, 2 * sizeof(*of_ident)));
	char domain[256];
	size_t i;
	int rc;

	if (!of_ident)
		return error_oom();
	rc = ident_authors(B, of_ident);
	for (i = 0; i < h->n && rc == 0; i++) {
		const struct history_commit *hc = &h->commits[i];
		const struct history_ident *id = &h->idents[hc->author];
		const char *org;

		B->row_of[i] = of_ident[2 * hc->author];
		B->author_of[i] = of_ident[2 * hc->author + 1];
		B->org_of[i] = UINT32_MAX;
		if (hc->outside)
			continue;
		B->c->author_rows.v[B->row_of[i]].commits++;
		B->c->authors.v[B->author_of[i]].commits++;
		org = orgmap_resolve(B->o->orgmap, id->email, hc->author_time,
				     domain, sizeof(domain));
		/* A bot's organisation is "(bots)", unless a map names it. */
		if (B->c->authors.v[B->author_of[i]].bot &&
		    (org == domain || !strcmp(org, ORGMAP_UNKNOWN)))
			org = ORGMAP_BOTS;
		if ((rc = builder_intern(&B->orgs, org, &B->org_of[i])) == 0)
			B->c->orgs.v[B->org_of[i]].commits++;
	}
	free(of_ident);
	return rc;
}

/* The subsystems of the tally, and which one each directory is in. */
static int find_subsystems(struct build *B, const struct tally *t)
{
	struct cohorts *c = B->c;
	size_t i;

	c->subsystems = malloc((t->ndirs ? t->ndirs : 1) *
			       sizeof(*c->subsystems));
	B->sub_of_dir = calloc(t->ndirs ? t->ndirs : 1,
			       sizeof(*B->sub_of_dir));
	if (!c->subsystems || !B->sub_of_dir)
		return error_oom();
	for (i = 0; i < t->ndirs; i++)
		if (t->dirs[i].level == 1)
			c->subsystems[c->nsubsystems++] = i;
	for (i = 0; i < c->nsubsystems; i++)
		B->sub_of_dir[c->subsystems[i]] = i;
	B->years.nsub = B->authors.nsub = B->rows.nsub = B->orgs.nsub =
		c->nsubsystems;
	return 0;
}

/* One line of an author (or a row) in a file; `stamp` marks those met. */
static void count_author(struct cohort *a, size_t *stamp, size_t file_no,
			 size_t sub)
{
	a->lines++;
	a->by_subsystem[sub]++;
	if (*stamp != file_no) {
		*stamp = file_no;
		a->files++;
	}
}

/* Count one file's lines; `stamp` marks the authors and rows met in it. */
static void count_file(struct build *B, const struct blame_file *f,
		       size_t sub, size_t *stamp, size_t file_no)
{
	struct cohorts *c = B->c;

	for (uint32_t l = 0; l < f->nlines; l++) {
		uint32_t k = f->lines[l];
		struct cohort *y = &c->years.v[B->year_of[k]];

		y->lines++;
		y->by_subsystem[sub]++;
		if (!c->has_authors)
			continue;
		struct cohort *o = &c->orgs.v[B->org_of[k]];

		count_author(&c->authors.v[B->author_of[k]],
			     &stamp[B->author_of[k]], file_no, sub);
		count_author(&c->author_rows.v[B->row_of[k]],
			     &stamp[c->authors.n + B->row_of[k]], file_no,
			     sub);
		o->lines++;
		o->by_subsystem[sub]++;
	}
}

/* The tally's files are the blame's, both sorted bytewise. */
static int count_lines(struct build *B, const struct blame_result *b,
		       const struct tally *t)
{
	size_t *stamp = calloc(B->c->authors.n + B->c->author_rows.n + 1,
			       sizeof(*stamp));
	size_t i, k = 0;

	if (!stamp)
		return error_oom();
	for (i = 0; i < b->nfiles; i++) {
		const struct blame_file *f = &b->files[i];
		int cmp = 1;

		while (k < t->nfiles &&
		       (cmp = strcmp(t->files[k].path, f->path)) < 0)
			k++;
		if (k >= t->nfiles || cmp)
			continue;
		count_file(B, f, B->sub_of_dir[tally_subsystem_of(
					 t, t->files[k].dir)],
			   stamp, i + 1);
		B->c->total_lines += f->nlines;
	}
	free(stamp);
	return 0;
}

static int cmp_year(const void *a, const void *b)
{
	long x = atol(((const struct cohort *)a)->name);
	long y = atol(((const struct cohort *)b)->name);

	return (x > y) - (x < y);
}

static int cmp_lines(const void *a, const void *b)
{
	const struct cohort *x = a, *y = b;

	if (x->lines != y->lines)
		return x->lines > y->lines ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cohorts_build(struct cohorts **out, const struct history *h,
		  const struct blame_result *b, const struct tally *t,
		  const struct cohorts_options *o)
{
	struct build B;
	size_t n = h->n ? h->n : 1;
	int rc;

	*out = NULL;
	memset(&B, 0, sizeof(B));
	B.h = h;
	B.o = o;
	B.c = calloc(1, sizeof(*B.c));
	B.year_of = malloc(n * sizeof(*B.year_of));
	B.author_of = malloc(n * sizeof(*B.author_of));
	B.row_of = malloc(n * sizeof(*B.row_of));
	B.org_of = malloc(n * sizeof(*B.org_of));
	if (!B.c || !B.year_of || !B.author_of || !B.row_of || !B.org_of) {
		rc = error_oom();
		goto done;
	}
	B.c->date = o->date;
	B.c->has_authors = o->authors;
	B.years.view = &B.c->years;
	B.authors.view = &B.c->authors;
	B.rows.view = &B.c->author_rows;
	B.orgs.view = &B.c->orgs;
	if ((rc = find_subsystems(&B, t)) < 0 || (rc = commit_years(&B)) < 0 ||
	    (o->authors && (rc = commit_authors(&B)) < 0) ||
	    (rc = count_lines(&B, b, t)) < 0)
		goto done;
	if (B.c->years.n)
		qsort(B.c->years.v, B.c->years.n, sizeof(*B.c->years.v),
		      cmp_year);
	if (B.c->authors.n)
		qsort(B.c->authors.v, B.c->authors.n,
		      sizeof(*B.c->authors.v), cmp_lines);
	if (B.c->author_rows.n)
		qsort(B.c->author_rows.v, B.c->author_rows.n,
		      sizeof(*B.c->author_rows.v), cmp_lines);
	if (B.c->orgs.n)
		qsort(B.c->orgs.v, B.c->orgs.n, sizeof(*B.c->orgs.v),
		      cmp_lines);
done:
	free(B.years.slots);
	free(B.authors.slots);
	free(B.rows.slots);
	free(B.orgs.slots);
	free(B.row_of);
	free(B.year_of);
	free(B.author_of);
	free(B.org_of);
	free(B.sub_of_dir);
	if (rc < 0)
		cohorts_free(B.c);
	else
		*out = B.c;
	return rc;
}
