/*
 * cycle log: the commits of REV0..REV as `git log --no-merges --numstat
 * REV0..REV` shows them: per non-merge commit, the tree diff against its
 * first parent (the empty tree for a root), renames detected as git log
 * does by default (rename.h, rename_pairs()), and each changed text
 * file's lines added and removed by git's diff with context (no tail
 * trim); a binary side ("-" in numstat) leaves the file out. Then the
 * commit's trailers (cycle_trailers.c) for the credits.
 */
#include "cycle_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strata/blame.h"
#include "strata/diff.h"
#include "strata/error.h"
#include "strata/odb.h"
#include "strata/rename.h"
#include "strata/util.h"

/* git's buffer_is_binary(): a NUL among the first 8000 bytes. */
#define BINARY_PREFIX 8000

/* A trailer as written, while the credits are gathered. */
struct credit {
	enum cycle_trailer trailer;
	char *person;           /* owned */
	char *name;             /* after .mailmap (owned) */
};

struct log {
	struct cycle *c;
	struct repository *repo;    /* its odb and path */
	git_repository *git;        /* this thread's handle */
	const struct mailmap *mm;
	struct rename_detector *rd;
	git_odb *godb;              /* for pass_over's existence check */
	struct cycle_sum *authors, *orgs;
	size_t n, alloc, oalloc;
	struct util_strlist orgnames;   /* the orgs' names, kept */
	struct credit *credits;
	size_t ncredits, calloc;
	/* the commit being read */
	const char *author_name, *author_email;
	struct rename_source *srcs, *dsts;
	size_t nsrcs, ndsts, salloc, dalloc;
	struct util_strlist paths;  /* of srcs and dsts */
	int *match;
	size_t malloc_;
	/* the file pairs to count, once every commit is read */
	struct pair_job *jobs;
	size_t njobs, jalloc;
};

/*
 * A file pair of one commit (row) whose lines are counted after the tree
 * diffs: on the diff threads, which read blobs through strata's reader
 * and never touch libgit2's objects (those stay on one thread).
 */
struct pair_job {
	uint32_t row;             /* into log.authors */
	uint32_t amode, bmode;    /* 0: no such side (an add, a delete) */
	git_oid a, b;
	uint64_t added, removed;  /* the results */
	unsigned binary:1;
};

/* ---- numstat ---- */

/* One side of a file pair: its bytes, as git's diff reads them. */
struct side {
	struct odb_object *obj;
	const char *data;
	size_t len;
	char link[64];          /* a gitlink's "Subproject commit HEX\n" */
	const unsigned char *key;   /* the blob's id, for diff_blobs() */
};

/* A blob a partial clone lacks, at a path the options leave out. */
static int passed_over(struct log *L, const struct rename_source *f)
{
	const struct cycle_options *o = &L->c->state->o;

	return o->pass_over && L->godb && f->mode != 0160000 &&
	       o->pass_over(f->path, o->pass_payload) &&
	       !git_odb_exists(L->godb, &f->oid);
}

/* Read a side; *binary when git would call it binary. */
static int side_read(struct side *s, struct odb *db, git_repository *git,
		     uint32_t mode, const git_oid *oid, int *binary)
{
	unsigned char head[BINARY_PREFIX];
	size_t got, size;
	int rc;

	memset(s, 0, sizeof(*s));
	if (mode == 0160000) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), oid);
		s->len = (size_t)snprintf(s->link, sizeof(s->link),
					  "Subproject commit %s\n", hex);
		s->data = s->link;
		return 0;
	}
	/* Read whole but for a blob too large to: that one's header only. */
	if (odb_read(&s->obj, db, git, oid, GIT_OBJECT_BLOB) < 0) {
		rc = odb_read_prefix(head, sizeof(head), &got, &size, db, git,
				     oid);
		if (rc < 0)
			return rc;
		if (size <= ODB_MAX_OBJECT)
			return error_set("unable to read blob '%s'",
					 git_oid_tostr_s(oid));
		*binary = 1;
		return 0;
	}
	s->data = (const char *)s->obj->data;
	s->len = s->obj->len;
	s->key = oid->id;
	if (memchr(s->data, 0, s->len < BINARY_PREFIX ? s->len
						      : BINARY_PREFIX))
		*binary = 1;
	return 0;
}

/*
 * The pair a (NULL: none) to b (NULL: none), queued for pairs_count();
 * a side a partial clone lacks (passed_over()) is counted now.
 */
static int pair_count(struct log *L, const struct rename_source *a,
		      const struct rename_source *b)
{
	struct pair_job *j;

	if (a && b && git_oid_equal(&a->oid, &b->oid))
		return 0;
	if ((a && passed_over(L, a)) || (b && passed_over(L, b))) {
		L->c->missing++;
		return 0;
	}
	if (UTIL_GROW(L->jobs, L->jalloc, L->njobs + 1) < 0)
		return STRATA_ENOMEM;
	j = &L->jobs[L->njobs++];
	memset(j, 0, sizeof(*j));
	j->row = (uint32_t)L->n;
	if (a) {
		j->amode = a->mode;
		git_oid_cpy(&j->a, &a->oid);
	}
	if (b) {
		j->bmode = b->mode;
		git_oid_cpy(&j->b, &b->oid);
	}
	return 0;
}

/* Lines added and removed by one pair, into the job; git: this thread's. */
static int pair_run(struct pair_job *j, struct odb *db, git_repository *git,
		    struct diff_result *dr)
{
	struct side x = { 0 }, y = { 0 };
	int binary = 0, rc = 0;

	if ((j->amode &&
	     (rc = side_read(&x, db, git, j->amode, &j->a, &binary)) < 0) ||
	    (j->bmode &&
	     (rc = side_read(&y, db, git, j->bmode, &j->b, &binary)) < 0))
		goto done;
	if (binary) {
		j->binary = 1;
		goto done;
	}
	if (!j->amode || !j->bmode) {
		uint32_t n = diff_count_lines(j->amode ? x.data : y.data,
					      j->amode ? x.len : y.len);

		*(j->amode ? &j->removed : &j->added) = n;
		goto done;
	}
	if ((rc = diff_blobs(dr, &(struct diff_blob){ x.data, x.len, x.key },
			     &(struct diff_blob){ y.data, y.len, y.key },
			     DIFF_NO_TAIL_TRIM)) < 0)
		goto done;
	for (size_t i = 0; i < dr->n; i++) {
		j->added += dr->hunks[i].new_count;
		j->removed += dr->hunks[i].old_count;
	}
done:
	odb_object_free(x.obj);
	odb_object_free(y.obj);
	return rc;
}

struct pairs_run {
	struct log *L;
	atomic_size_t next;
	atomic_int stop;
	pthread_mutex_t lock;
	int rc;
	char *msg;            /* the first error's message (thread-local) */
};

static void pairs_fail(struct pairs_run *P, int rc)
{
	pthread_mutex_lock(&P->lock);
	if (!P->rc) {
		P->rc = rc;
		P->msg = strdup(error_last() ? error_last() : "");
	}
	pthread_mutex_unlock(&P->lock);
	atomic_store(&P->stop, 1);
}

/* Pairs until none is left, on a thread whose libgit2 handle is git. */
static void pairs_work(struct pairs_run *P, git_repository *git)
{
	struct diff_result dr = { 0 };
	size_t i;
	int rc;

	while (!atomic_load(&P->stop) &&
	       (i = atomic_fetch_add(&P->next, 1)) < P->L->njobs)
		if ((rc = pair_run(&P->L->jobs[i], P->L->repo->odb, git,
				   &dr)) < 0)
			pairs_fail(P, rc);
	diff_result_release(&dr);
}

/* A thread started for the pairs: with a handle of its own. */
static void *pairs_main(void *arg)
{
	struct pairs_run *P = arg;
	git_repository *git = NULL;
	int rc;

	if ((rc = repository_open_handle(&git, P->L->repo)) < 0)
		pairs_fail(P, rc);
	else
		pairs_work(P, git);
	git_repository_free(git);
	return NULL;
}

/*
 * Count every queued pair on up to `jobs` threads (this one among them),
 * then sum them per commit and into the cycle's totals.
 */
static int pairs_count(struct log *L, unsigned jobs)
{
	struct pairs_run P = { .L = L };
	pthread_t th[15];
	unsigned started = 0;
	struct cycle *c = L->c;

	atomic_init(&P.next, 0);
	atomic_init(&P.stop, 0);
	pthread_mutex_init(&P.lock, NULL);
	while (started + 1 < jobs && started < 15 && started + 1 < L->njobs &&
	       pthread_create(&th[started], NULL, pairs_main, &P) == 0)
		started++;
	pairs_work(&P, L->git);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&P.lock);
	if (P.rc) {
		int rc = P.msg ? error_setc(P.rc, "%s", P.msg) : error_oom();

		free(P.msg);
		return rc;
	}
	for (size_t i = 0; i < L->njobs; i++) {
		const struct pair_job *j = &L->jobs[i];

		if (j->binary) {
			c->binary++;
			continue;
		}
		L->authors[j->row].v[1] += j->added;
		L->authors[j->row].v[2] += j->removed;
	}
	for (size_t r = 0; r < L->n; r++) {
		c->added += L->authors[r].v[1];
		c->removed += L->authors[r].v[2];
		L->orgs[r].v[1] = L->authors[r].v[1];
		L->orgs[r].v[2] = L->authors[r].v[2];
	}
	return 0;
}

/* An add or a delete, kept (its path copied) for the rename search. */
static int file_push(struct log *L, struct rename_source **v, size_t *n,
		     size_t *alloc, const struct rename_source *f)
{
	if (UTIL_GROW(*v, *alloc, *n + 1) < 0 ||
	    util_strlist_push(&L->paths, f->path) < 0)
		return STRATA_ENOMEM;
	(*v)[*n] = *f;
	(*v)[(*n)++].path = L->paths.v[L->paths.n - 1];
	return 0;
}

/* A file of the tree diff: a pair counted now, an add or delete kept. */
static int on_change(const struct blame_tree_change *ch, void *payload)
{
	struct log *L = payload;
	struct rename_source a = { ch->path, ch->old_mode, ch->old_oid };
	struct rename_source b = { ch->path, ch->new_mode, ch->new_oid };

	/* No rename candidate: git would fetch it, strata cannot. */
	if ((!a.mode && passed_over(L, &b)) ||
	    (!b.mode && passed_over(L, &a))) {
		L->c->missing++;
		return 0;
	}
	if (!a.mode)
		return file_push(L, &L->dsts, &L->ndsts, &L->dalloc, &b);
	if (!b.mode)
		return file_push(L, &L->srcs, &L->nsrcs, &L->salloc, &a);
	return pair_count(L, &a, &b);
}

/* The adds and deletes, paired by git log's rename detection. */
static int renamed(struct log *L)
{
	char *used = calloc(L->nsrcs ? L->nsrcs : 1, 1);
	int rc;

	if (!used)
		return error_oom();
	if ((rc = UTIL_GROW(L->match, L->malloc_, L->ndsts + 1)) < 0 ||
	    (rc = rename_pairs(L->match, L->rd, L->srcs, L->nsrcs, L->dsts,
			       L->ndsts, RENAME_LOG_LIMIT)) < 0)
		goto done;
	for (size_t d = 0; d < L->ndsts && rc == 0; d++) {
		if (L->match[d] >= 0)
			used[L->match[d]] = 1;
		rc = pair_count(L, L->match[d] >= 0 ? &L->srcs[L->match[d]]
						    : NULL, &L->dsts[d]);
	}
	for (size_t s = 0; s < L->nsrcs && rc == 0; s++)
		if (!used[s])
			rc = pair_count(L, &L->srcs[s], NULL);
done:
	free(used);
	return rc;
}

static int numstat(struct log *L, const git_oid *from, const git_oid *to)
{
	int rc;

	L->nsrcs = L->ndsts = 0;
	if ((rc = blame_tree_diff(L->repo->odb, L->git, from, to, on_change,
				  L)) == 0)
		rc = renamed(L);
	util_strlist_release(&L->paths);
	return rc;
}

/* ---- credits ---- */

/* name and email of "Name <email>", as git splits an ident. */
static void split_person(const char *v, char *name, char *email,
			 size_t size)
{
	const char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	size_t n = lt && gt ? (size_t)(lt - v) : strlen(v);

	while (n && util_git_space(v[n - 1]))
		n--;
	snprintf(name, size, "%.*s", (int)n, v);
	snprintf(email, size, "%.*s", lt && gt ? (int)(gt - lt - 1) : 0,
		 lt ? lt + 1 : "");
}

static int trailer_of(const char *tok, size_t len)
{
	for (int k = 0; k < CYCLE_NTRAILERS; k++)
		if (strlen(cycle_trailer_name(k)) == len &&
		    !strncasecmp(tok, cycle_trailer_name(k), len))
			return k;
	return -1;
}

/* A trailer of the commit: kept when it credits someone. */
static int on_trailer(const char *tok, size_t tlen, const char *val,
		      size_t vlen, void *payload)
{
	struct log *L = payload;
	int k = trailer_of(tok, tlen);
	char *person, name[256], email[256];
	const char *mname, *memail;
	struct credit *cr;

	if (k < 0 || !vlen)
		return 0;
	if (!(person = strndup(val, vlen)))
		return error_oom();
	split_person(person, name, email, sizeof(name));
	mailmap_resolve(L->mm, name, email, &mname, &memail);
	/* Signing one's own patch is authorship, not credit. */
	if (k == CYCLE_SIGNED &&
	    (*memail ? !strcasecmp(memail, L->author_email)
		     : !strcasecmp(mname, L->author_name))) {
		free(person);
		return 0;
	}
	if (UTIL_GROW(L->credits, L->calloc, L->ncredits + 1) < 0) {
		free(person);
		return STRATA_ENOMEM;
	}
	cr = &L->credits[L->ncredits];
	cr->trailer = (enum cycle_trailer)k;
	cr->person = person;
	if (!(cr->name = strdup(*mname ? mname : memail))) {
		free(person);
		return error_oom();
	}
	L->ncredits++;
	return 0;
}

/* The message of raw commit data[0, len): after the header, blank
 * lines skipped. *nparents: its parent lines. */
static const char *message_of(const char *data, size_t len, size_t *mlen,
			      uint32_t *nparents)
{
	const char *p = data, *end = data + len;

	*nparents = 0;
	while (p < end && *p != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if ((size_t)(end - p) > 7 && !memcmp(p, "parent ", 7))
			(*nparents)++;
		p = nl ? nl + 1 : end;
	}
	for (;;) {
		const char *q = p, *nl;

		while (q < end && *q != '\n' && util_git_space(*q))
			q++;
		if (q >= end || *q != '\n')
			break;
		nl = q;
		p = nl + 1;
	}
	*mlen = (size_t)(end - p);
	return p;
}

/* ---- the commits ---- */

static int add_row(struct log *L, const struct history_commit *hc)
{
	const struct history_ident *id = &L->c->state->h->idents[hc->author];
	const char *email;
	char domain[256];
	unsigned bot;
	int rc;

	if (UTIL_GROW(L->authors, L->alloc, L->n + 1) < 0 ||
	    UTIL_GROW(L->orgs, L->oalloc, L->n + 1) < 0)
		return STRATA_ENOMEM;
	L->authors[L->n] = (struct cycle_sum){
		cycle_author(L->mm, id, &bot), { 1, 0, 0 }, bot };
	mailmap_resolve(L->mm, id->name, id->email, &L->author_name, &email);
	L->author_email = email;
	rc = util_strlist_push(&L->orgnames,
			       orgmap_author(L->c->state->o.orgmap, id->email,
					     hc->author_time, (int)bot, domain,
					     sizeof(domain)));
	if (rc < 0)
		return rc;
	L->orgs[L->n] = (struct cycle_sum){
		L->orgnames.v[L->orgnames.n - 1], { 1, 0, 0 }, bot };
	return 0;
}

static int one_commit(struct log *L, uint32_t i)
{
	const struct history *h = L->c->state->h;
	const struct history_commit *hc = &h->commits[i];
	struct odb_object *obj = NULL;
	const char *msg;
	size_t mlen;
	uint32_t np;
	int rc;

	if ((rc = odb_read(&obj, L->repo->odb, L->git, &hc->oid,
			   GIT_OBJECT_COMMIT)) < 0)
		return rc;
	msg = message_of((const char *)obj->data, obj->len, &mlen, &np);
	L->c->commits++;
	if (!h->first_parent)
		np = hc->nparents;
	if (np > 1) {
		L->c->merges++;
		goto done;
	}
	if ((rc = add_row(L, hc)) < 0 ||
	    (rc = numstat(L, hc->nparents ?
			  &h->commits[history_parents(h, i)[0]].tree : NULL,
			  &hc->tree)) < 0 ||
	    (rc = cycle_trailers_parse(msg, mlen, on_trailer, L)) < 0)
		goto done;
	L->c->changesets++;
	L->n++;
done:
	odb_object_free(obj);
	return rc;
}

/* ---- the sums ---- */

static int credit_cmp(const void *a, const void *b)
{
	const struct credit *x = a, *y = b;

	if (x->trailer != y->trailer)
		return x->trailer < y->trailer ? -1 : 1;
	return strcmp(x->person, y->person);
}

static int credit_rank(const void *a, const void *b)
{
	const struct cycle_credit *x = a, *y = b;

	if (x->trailer != y->trailer)
		return x->trailer < y->trailer ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->person, y->person);
}

/* The credits as written: each (trailer, value) once, counted. */
static int credits_make(struct log *L)
{
	struct cycle *c = L->c;
	size_t n = L->ncredits;

	if (n)
		qsort(L->credits, n, sizeof(*L->credits), credit_cmp);
	if (!(c->credits = calloc(n ? n : 1, sizeof(*c->credits))))
		return error_oom();
	for (size_t i = 0; i < n; i++) {
		struct credit *cr = &L->credits[i];
		struct cycle_credit *last = c->ncredits ?
			&c->credits[c->ncredits - 1] : NULL;

		c->credited[cr->trailer]++;
		if (last && last->trailer == cr->trailer &&
		    !strcmp(last->person, cr->person)) {
			last->count++;
			continue;
		}
		c->credits[c->ncredits++] = (struct cycle_credit){
			cr->trailer, cr->person, 1 };
		cr->person = NULL;
	}
	if (c->ncredits)
		qsort(c->credits, c->ncredits, sizeof(*c->credits),
		      credit_rank);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct credit *)a)->name,
		      ((const struct credit *)b)->name);
}

static int person_rank(const void *a, const void *b)
{
	const struct cycle_person *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The same credits per person after .mailmap, every trailer a column. */
static int people_make(struct log *L)
{
	struct cycle *c = L->c;
	size_t n = L->ncredits;

	if (n)
		qsort(L->credits, n, sizeof(*L->credits), name_cmp);
	if (!(c->people = calloc(n ? n : 1, sizeof(*c->people))))
		return error_oom();
	for (size_t i = 0; i < n; i++) {
		struct credit *cr = &L->credits[i];
		struct cycle_person *p = c->npeople ?
			&c->people[c->npeople - 1] : NULL;

		if (!p || strcmp(p->name, cr->name)) {
			p = &c->people[c->npeople++];
			p->name = cr->name;
			cr->name = NULL;
		}
		p->count[cr->trailer]++;
		p->total++;
	}
	if (c->npeople)
		qsort(c->people, c->npeople, sizeof(*c->people), person_rank);
	return 0;
}

static void log_release(struct log *L)
{
	for (size_t i = 0; i < L->ncredits; i++) {
		free(L->credits[i].person);
		free(L->credits[i].name);
	}
	free(L->credits);
	free(L->authors);
	free(L->orgs);
	free(L->srcs);
	free(L->dsts);
	free(L->match);
	free(L->jobs);
	util_strlist_release(&L->orgnames);
	rename_detector_free(L->rd);
	git_odb_free(L->godb);
}

static int cycle_log(struct cycle *c)
{
	const struct cycle_state *st = c->state;
	struct log L = { 0 };
	int rc;

	L.c = c;
	L.repo = st->repo;
	L.git = st->git;
	L.mm = st->mm;
	if ((rc = rename_detector_new(&L.rd, L.git)) < 0)
		return rc;
	rename_detector_use_odb(L.rd, L.repo->odb);
	if (st->o.pass_over && git_repository_odb(&L.godb, L.git) < 0)
		L.godb = NULL;
	/* Not the commits only a release branch's snapshot has. */
	for (size_t i = 0; i < st->h->n && rc == 0; i++)
		if (!history_bit(st->before, i) && !st->h->commits[i].outside)
			rc = one_commit(&L, (uint32_t)i);
	if (rc == 0)
		rc = pairs_count(&L, st->o.jobs ? st->o.jobs : 1);
	if (rc == 0 &&
	    (rc = cycle_view_make(&c->orgs, L.orgs, L.n)) == 0 &&
	    (rc = cycle_view_make(&c->author_rows, L.authors, L.n)) == 0) {
		/* The same sums with every bot one: "(bots)". */
		for (size_t i = 0; i < L.n; i++)
			if (L.authors[i].bot)
				L.authors[i].name = ORGMAP_BOTS;
		rc = cycle_view_make(&c->authors, L.authors, L.n);
	}
	if (rc == 0 &&
	    (rc = credits_make(&L)) == 0)
		rc = people_make(&L);
	log_release(&L);
	return rc;
}

/* ---- on a thread of its own ---- */

static void *log_main(void *arg)
{
	struct cycle *c = arg;
	struct cycle_state *st = c->state;

	if ((st->log_rc = cycle_log(c)) < 0 &&
	    !(st->log_msg = strdup(error_last() ? error_last() : "")))
		st->log_rc = STRATA_ENOMEM;
	return NULL;
}

static void log_join(struct cycle_state *st)
{
	if (st->running) {
		pthread_join(st->thread, NULL);
		st->running = 0;
	}
}

static int log_wait(const struct cycle *c)
{
	struct cycle_state *st = c->state;

	log_join(st);
	if (st->log_rc >= 0)
		return 0;
	if (!st->log_msg)
		return error_oom();
	return error_setc(st->log_rc, "%s", st->log_msg);
}

int cycle_log_start(struct cycle *c, struct repository *repo,
		    struct mailmap *mm)
{
	struct cycle_state *st = c->state;
	int rc;

	st->mm = mm;
	st->repo = repo;
	if ((rc = repository_open_handle(&st->git, repo)) < 0)
		return rc;
	c->wait = log_wait;
	if (st->o.jobs > 1 &&
	    pthread_create(&st->thread, NULL, log_main, c) == 0) {
		st->running = 1;
		return 0;
	}
	log_main(c);
	return log_wait(c);
}

void cycle_log_release(struct cycle *c)
{
	struct cycle_state *st = c->state;

	log_join(st);
	free(st->log_msg);
	st->log_msg = NULL;
	mailmap_free(st->mm);
	st->mm = NULL;
	git_repository_free(st->git);
	st->git = NULL;
}
