#include "strata/history.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/error.h"
#include "strata/util.h"
#include "strata/odb.h"

/* A commit as first read, before the topological order is known. */
struct raw {
	git_oid oid, tree;
	int64_t time, author_time;
	uint32_t author;             /* into the ident table */
	uint32_t first_parent_oid;   /* into the oid pool */
	uint32_t nparents;
	unsigned boundary:1;
};

static size_t slot_of(const git_oid *oid, size_t nslots)
{
	uint32_t h;

	memcpy(&h, oid->id, sizeof(h));
	return h & (nslots - 1);
}

/* slots hold index + 1; 0 is empty. */
static int64_t lookup(const uint32_t *slots, size_t nslots,
		      const void *items, size_t stride, const git_oid *oid)
{
	size_t s = slot_of(oid, nslots);

	while (slots[s]) {
		const git_oid *o = (const git_oid *)((const char *)items +
			(size_t)(slots[s] - 1) * stride);

		if (git_oid_equal(o, oid))
			return slots[s] - 1;
		s = (s + 1) & (nslots - 1);
	}
	return -1;
}

static void insert(uint32_t *slots, size_t nslots, const git_oid *oid,
		   uint32_t index)
{
	size_t s = slot_of(oid, nslots);

	while (slots[s])
		s = (s + 1) & (nslots - 1);
	slots[s] = index + 1;
}

/*
 * The distinct author idents, each kept once: a history has a few
 * thousand authors for tens of thousands of commits.
 */
struct idents {
	struct history_ident *v;
	char **key;                 /* the ident's bytes, NUL-ended */
	size_t n, alloc, key_alloc;
	uint32_t *slots;            /* index + 1; 0 is empty */
	size_t nslots;
};

struct loader {
	struct raw *raw;
	size_t n, alloc;
	git_oid *pool;              /* parent oids, per commit consecutive */
	size_t npool, pool_alloc;
	uint32_t *slots;
	size_t nslots;
	struct idents idents;
	size_t nrev;                /* raw[0, nrev): REV's own history */
};

static uint32_t ident_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* git's isspace() (sane_ctype): not \f nor \v. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Split an ident as git's split_ident_line() does (history.h). */
static int ident_split(struct history_ident *out, const char *id)
{
	const char *lt = strchr(id, '<'), *gt = lt ? strchr(lt + 1, '>') : NULL;
	const char *ne = lt;

	if (!gt)
		lt = ne = gt = id;
	else
		while (ne > id && is_blank(ne[-1]))
			ne--;
	out->name = strndup(id, (size_t)(ne - id));
	out->email = strndup(lt == gt ? gt : lt + 1,
			     lt == gt ? 0 : (size_t)(gt - lt - 1));
	if (!out->name || !out->email) {
		free(out->name);
		free(out->email);
		return error_oom();
	}
	return 0;
}

static int idents_grow(struct idents *I)
{
	size_t ns = I->nslots ? I->nslots * 2 : 256, i;
	uint32_t *s;

	if (UTIL_GROW(I->v, I->alloc, I->n + 1) < 0 ||
	    UTIL_GROW(I->key, I->key_alloc, I->n + 1) < 0)
		return STRATA_ENOMEM;
	if (I->n + 1 <= I->nslots / 2)
		return 0;
	if (!(s = calloc(ns, sizeof(*s))))
		return error_oom();
	for (i = 0; i < I->n; i++) {
		size_t k = ident_hash(I->key[i]) & (ns - 1);

		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(I->slots);
	I->slots = s;
	I->nslots = ns;
	return 0;
}

/* The index of ident `id` (NULL: a commit without author), added once. */
static int idents_intern(struct idents *I, const char *id, uint32_t *out)
{
	size_t k;
	int rc;

	if (!id)
		id = "";
	if ((rc = idents_grow(I)) < 0)
		return rc;
	for (k = ident_hash(id) & (I->nslots - 1); I->slots[k];
	     k = (k + 1) & (I->nslots - 1)) {
		if (!strcmp(I->key[I->slots[k] - 1], id)) {
			*out = I->slots[k] - 1;
			return 0;
		}
	}
	if (!(I->key[I->n] = strdup(id)))
		return error_oom();
	if ((rc = ident_split(&I->v[I->n], id)) < 0) {
		free(I->key[I->n]);
		return rc;
	}
	I->slots[k] = (uint32_t)I->n + 1;
	*out = (uint32_t)I->n++;
	return 0;
}

static void idents_release(struct idents *I)
{
	size_t i;

	for (i = 0; i < I->n; i++) {
		free(I->key[i]);
		free(I->v[i].name);
		free(I->v[i].email);
	}
	free(I->v);
	free(I->key);
	free(I->slots);
	memset(I, 0, sizeof(*I));
}

static int grow_slots(struct loader *L)
{
	size_t ns = L->nslots ? L->nslots * 2 : 1024;
	uint32_t *s = calloc(ns, sizeof(*s));
	size_t i;

	if (!s)
		return error_oom();
	for (i = 0; i < L->n; i++)
		insert(s, ns, &L->raw[i].oid, (uint32_t)i);
	free(L->slots);
	L->slots = s;
	L->nslots = ns;
	return 0;
}

static int pool_room(struct loader *L, size_t more)
{
	return UTIL_GROW(L->pool, L->pool_alloc, util_add(L->npool, more));
}

/* A header line "NAME <40 hex>" at p (of len bytes): the name. */
static bool header_oid(git_oid *out, const char *p, size_t len,
		       const char *name)
{
	size_t nl = strlen(name);

	return len >= nl + 1 + GIT_OID_HEXSZ && !memcmp(p, name, nl) &&
	       p[nl] == ' ' && git_oid_fromstrn(out, p + nl + 1,
						 GIT_OID_HEXSZ) == 0 &&
	       (len == nl + 1 + GIT_OID_HEXSZ ||
		p[nl + 1 + GIT_OID_HEXSZ] == '\n');
}

/* "committer NAME <EMAIL> TIME TZ": the time follows the last '>'. */
static int64_t committer_time(const char *p, size_t len)
{
	const char *gt = memrchr(p, '>', len), *t, *end = p + len;
	int64_t v = 0;

	for (t = gt ? gt + 1 : end; t < end && *t == ' '; t++)
		;
	while (t < end && *t >= '0' && *t <= '9' && v < INT64_MAX / 10 - 9)
		v = v * 10 + (*t++ - '0');
	return v;
}

enum { IDENT_OK, IDENT_NO_EMAIL, IDENT_BAD_DATE, IDENT_FAR_DATE };

/*
 * Whether ident line p[0, len) (after "author " or "committer ") has a
 * "<...>" and after it a time: decimal digits, then the end of the line
 * or a blank; a time past HISTORY_DATE_MAX is IDENT_FAR_DATE (git reads
 * times up to 2^63, strata prints four-digit years).
 */
static int ident_check(const char *p, size_t len)
{
	const char *lt = memchr(p, '<', len), *end = p + len, *t;
	const char *gt = memrchr(p, '>', len);
	uint64_t v = 0;

	if (!lt || !gt || gt < lt)
		return IDENT_NO_EMAIL;
	for (t = gt + 1; t < end && *t == ' '; t++)
		;
	if (t == end || *t < '0' || *t > '9')
		return IDENT_BAD_DATE;
	for (; t < end && *t >= '0' && *t <= '9'; t++) {
		v = v * 10 + (uint64_t)(*t - '0');
		if (v > INT64_MAX)
			return IDENT_BAD_DATE;
	}
	if (t != end && *t != ' ')
		return IDENT_BAD_DATE;
	return v > (uint64_t)HISTORY_DATE_MAX ? IDENT_FAR_DATE : IDENT_OK;
}

/*
 * What the history needs of a commit's headers: its tree, its parents,
 * the committer's time, as libgit2 parses them, and the author: its
 * ident (up to the last '>') and time, from the last "author" header, as
 * git's pretty formats (%aN, %at) take them.
 */
struct parsed {
	git_oid tree;
	int64_t time, author_time;
	char *ident;                /* malloc'd, NUL-ended; NULL: none */
	uint32_t nparents;
	git_oid two[2];             /* the parents, up to two */
	git_oid *more;              /* all of them when more (malloc'd) */
	bool ok;                    /* read ahead and parsed */
};

static const git_oid *parsed_parents(const struct parsed *c)
{
	return c->nparents > 2 ? c->more : c->two;
}

static void parsed_release(struct parsed *c)
{
	free(c->more);
	c->more = NULL;
	free(c->ident);
	c->ident = NULL;
}

/* "author NAME <EMAIL> TIME TZ" (p, n bytes, without "author "). */
static int parse_author(struct parsed *c, const char *p, size_t n)
{
	const char *gt = memrchr(p, '>', n);
	size_t len = gt ? (size_t)(gt + 1 - p) : n;
	char *id = malloc(len + 1);

	if (!id)
		return error_oom();
	memcpy(id, p, len);
	id[len] = '\0';
	free(c->ident);
	c->ident = id;
	c->author_time = gt ? committer_time(p, n) : 0;
	return 0;
}

static int add_parent(struct parsed *c, const git_oid *id)
{
	uint32_t n = c->nparents;

	if (n < 2) {
		git_oid_cpy(&c->two[n], id);
	} else {
		/* Room doubles at each power of two from 4 on. */
		if (n == 2 || (n >= 4 && !(n & (n - 1)))) {
			git_oid *m = realloc(c->more,
					     (n == 2 ? 4 : 2 * (size_t)n) *
					     sizeof(*m));

			if (!m)
				return error_oom();
			if (n == 2)
				memcpy(m, c->two, sizeof(c->two));
			c->more = m;
		}
		git_oid_cpy(&c->more[n], id);
	}
	c->nparents = n + 1;
	return 0;
}

/* Starts line p[0, n) with `word` and a blank? */
static bool starts(const char *p, size_t n, const char *word)
{
	size_t wl = strlen(word);

	return n > wl && !memcmp(p, word, wl) && p[wl] == ' ';
}

/*
 * An "author" or "committer" line p[0, n) into *c, *seen set: 0, 1 with
 * *why when it is bad, or a negative error code. Other lines: 0.
 */
static int parse_ident_line(struct parsed *c, const char *p, size_t n,
			    unsigned *seen, const char **why)
{
	static const char *const bad[2][4] = {
		{ NULL, "author without <email>", "bad author date",
		  "author date after the year 9999" },
		{ NULL, "committer without <email>", "bad committer date",
		  "committer date after the year 9999" },
	};
	int who = starts(p, n, "author") ? 0 :
		  starts(p, n, "committer") ? 1 : -1;
	size_t skip = who ? 10 : 7;
	int k;

	if (who < 0)
		return 0;
	*seen |= 1u << who;
	if ((k = ident_check(p + skip, n - skip)) != IDENT_OK) {
		*why = bad[who][k];
		return 1;
	}
	if (who)
		c->time = committer_time(p, n);
	else if (parse_author(c, p + 7, n - 7) < 0)
		return STRATA_ENOMEM;
	return 0;
}

/*
 * Parse the raw commit p[0, len) into *c. Returns 0; 1 when it is no
 * commit git would read or one without a readable author or committer,
 * with *why saying what is wrong; or a negative error code.
 */
static int parse_commit(struct parsed *c, const char *p, size_t len,
			const char **why)
{
	const char *end = p + len;
	bool tree = false, parents = true;
	unsigned seen = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	*why = NULL;
	while (p < end && *p != '\n') {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((eol ? eol : end) - p);
		git_oid id;

		if (!tree) {
			if (!header_oid(&c->tree, p, n, "tree")) {
				*why = starts(p, n, "tree") ? "bad tree line" :
				       "no tree";
				return 1;
			}
			tree = true;
		} else if (parents && starts(p, n, "parent")) {
			/* Parents only right after the tree, as git reads them. */
			if (!header_oid(&id, p, n, "parent")) {
				*why = "bad parent line";
				return 1;
			}
			if (add_parent(c, &id) < 0)
				return STRATA_ENOMEM;
		} else {
			parents = false;
			if ((rc = parse_ident_line(c, p, n, &seen, why)) != 0)
				return rc;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	if (seen != 3)
		*why = !tree ? "no tree" : !(seen & 1) ? "no author" :
		       "no committer";
	return seen == 3 ? 0 : 1;
}

int history_commit_check(const git_oid *oid, const unsigned char *data,
			 size_t len)
{
	struct parsed c;
	const char *why;
	int rc = parse_commit(&c, (const char *)data, len, &why);

	parsed_release(&c);
	if (rc > 0)
		rc = error_set("corrupt commit '%s': %s", git_oid_tostr_s(oid),
			       why);
	return rc;
}

/*
 * Commits parsed alongside the walk along the parents: those at the head
 * of the packs (odb.h). Up to `jobs` - 1 helper threads parse them in the
 * list's order, from the tip on (the commits before it in a pack are
 * mostly newer ones, which the walk does not want) and round to the
 * start, while the walk goes on; the walk parses one itself when it
 * needs it first, or waits the few microseconds until a helper is done
 * with it. A commit not in the list, or that fails to parse here, is read
 * by the walk, which reports any error. (A release's commits lie
 * nearly all in one run of the pack's entries from the tip on: in the
 * order of their names the helper would parse the commits of other
 * branches as they came. docs/performance.md has the figures.)
 */
enum { TODO, BUSY, DONE };

struct ahead {
	struct odb_commits *list;
	struct parsed *c;           /* per entry of the list */
	atomic_uchar *state;        /* per entry: TODO, BUSY or DONE */
	size_t n;
	size_t start;               /* the tip's entry, where the helpers begin */
	atomic_size_t next;         /* the helpers' next run, from start */
	atomic_size_t walk_at;      /* the walk's last entry, from start */
	atomic_int stop;            /* the walk is done */
	pthread_t th[16];
	unsigned started;
	unsigned char *buf;         /* the walk's */
	size_t cap;
};

#define AHEAD_CHUNK 64

/*
 * The helpers leave the entries just after the walk's last one to the
 * walk: the walk goes down the list about as they do, and without a gap
 * it would often find the entry it wants in a helper's hands and wait.
 */
#define AHEAD_GAP 16

/* Parse entry i into A->c[i], with buffer *buf of *cap bytes. */
static void ahead_parse(struct ahead *A, size_t i, unsigned char **buf,
			size_t *cap)
{
	const char *why;
	size_t len;

	if (odb_commits_read(A->list, i, buf, cap, &len) < 0 ||
	    parse_commit(&A->c[i], (const char *)*buf, len, &why) != 0) {
		parsed_release(&A->c[i]);
		/* The walk reads it again, and reports the error. */
		error_clear();
	} else {
		A->c[i].ok = true;
	}
}

static void *ahead_main(void *arg)
{
	struct ahead *A = arg;
	unsigned char *buf = NULL;
	size_t cap = 0, b, i;

	while (!atomic_load(&A->stop) &&
	       (b = atomic_fetch_add(&A->next, AHEAD_CHUNK)) < A->n) {
		size_t e = b + AHEAD_CHUNK < A->n ? b + AHEAD_CHUNK : A->n;

		/* Stopped between entries: the walk joins the helpers. */
		for (i = b; i < e && !atomic_load(&A->stop); i++) {
			size_t k = (A->start + i) % A->n;
			size_t w = atomic_load_explicit(&A->walk_at,
							memory_order_relaxed);
			unsigned char todo = TODO;

			if ((i >= w && i - w < AHEAD_GAP) ||
			    !atomic_compare_exchange_strong(&A->state[k],
							    &todo, BUSY))
				continue;
			ahead_parse(A, k, &buf, &cap);
			atomic_store(&A->state[k], DONE);
		}
	}
	free(buf);
	return NULL;
}

/*
 * Entry i, parsed: by a helper, or now by the caller. A helper still at
 * it is waited for a while, not for as long as the host keeps its thread
 * off the processor: then the entry comes back not parsed, and the walk
 * reads the commit itself.
 */
static const struct parsed *ahead_get(struct ahead *A, size_t i)
{
	static const struct parsed not_yet = { .ok = false };
	struct timespec t0, now;
	unsigned char todo = TODO;

	atomic_store_explicit(&A->walk_at, (i + A->n - A->start) % A->n,
			      memory_order_relaxed);
	if (atomic_compare_exchange_strong(&A->state[i], &todo, BUSY)) {
		ahead_parse(A, i, &A->buf, &A->cap);
		atomic_store(&A->state[i], DONE);
		return &A->c[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&A->state[i]) != DONE) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* A parse takes a few microseconds. */
		if ((now.tv_sec - t0.tv_sec) * 1000000000L +
		    (now.tv_nsec - t0.tv_nsec) > 200000L)
			return &not_yet;
	}
	return &A->c[i];
}

/* Stop and join the helpers, then free it all. */
static void ahead_release(struct ahead *A)
{
	size_t i;

	atomic_store(&A->stop, 1);
	for (i = 0; i < A->started; i++)
		pthread_join(A->th[i], NULL);
	if (A->c)
		for (i = 0; i < A->n; i++)
			parsed_release(&A->c[i]);
	free(A->c);
	free(A->state);
	free(A->buf);
	odb_commits_free(A->list);
	memset(A, 0, sizeof(*A));
}

/*
 * List the commits at the head of the packs, and start the helpers at
 * commit `tip`.
 */
static int ahead_start(struct ahead *A, struct repository *repo,
		       const git_oid *tip, unsigned jobs)
{
	size_t i;
	int64_t k;
	int rc;

	memset(A, 0, sizeof(*A));
	/* On one thread, the walk along the parents reads fewer commits. */
	if (jobs < 2)
		return 0;
	if ((rc = odb_commits_list(&A->list, repo->odb)) < 0)
		return rc;
	A->n = odb_commits_count(A->list);
	if (!A->n)
		return 0;
	k = odb_commits_find(A->list, repository_replacement(repo, tip));
	A->start = k >= 0 ? (size_t)k : 0;
	A->c = calloc(A->n, sizeof(*A->c));
	A->state = malloc(A->n * sizeof(*A->state));
	if (!A->c || !A->state)
		return error_oom();
	for (i = 0; i < A->n; i++)
		atomic_init(&A->state[i], TODO);
	atomic_init(&A->next, 0);
	atomic_init(&A->walk_at, 0);
	atomic_init(&A->stop, 0);
	if (jobs > 16)
		jobs = 16;
	while (A->started + 1 < jobs &&
	       pthread_create(&A->th[A->started], NULL, ahead_main, A) == 0)
		A->started++;
	return 0;
}

/*
 * Read and parse commit `oid`, whose content is `content` (git replace),
 * into *c; *obj is the caller's to free, even on failure.
 */
static int read_commit(struct parsed *c, struct odb_object **obj,
		       struct repository *repo, const git_oid *oid,
		       const git_oid *content)
{
	const char *why;
	int rc;

	if ((rc = odb_read(obj, repo->odb, repo->git, content,
			   GIT_OBJECT_COMMIT)) < 0)
		return rc;
	rc = parse_commit(c, (const char *)(*obj)->data, (*obj)->len, &why);
	if (rc > 0)
		rc = error_set("corrupt commit '%s': %s", git_oid_tostr_s(oid),
			       why);
	return rc;
}

/*
 * Add commit `oid` to the history: from what was parsed ahead, or read
 * now. Its parents go to the pool from L->npool on.
 */
static int add_commit(struct loader *L, struct repository *repo,
		      struct ahead *A, const git_oid *oid, int first_parent)
{
	const struct repository_graft *graft;
	/* git replace swaps the content; the commit keeps its name. */
	const git_oid *content = repository_replacement(repo, oid);
	struct odb_object *obj = NULL;
	struct parsed own;
	const struct parsed *c = &own;
	const git_oid *parents;
	struct raw *r;
	int64_t k = A->n ? odb_commits_find(A->list, content) : -1;
	unsigned np, i;
	int rc = 0;

	memset(&own, 0, sizeof(own));
	if (L->n + 1 > L->nslots / 2 && grow_slots(L) < 0)
		return STRATA_ENOMEM;
	if ((rc = UTIL_GROW(L->raw, L->alloc, L->n + 1)) < 0)
		return rc;
	if (k >= 0)
		c = ahead_get(A, (size_t)k);
	if (!c->ok) {
		/* Not in a pack's head, or it did not parse there. */
		c = &own;
		if ((rc = read_commit(&own, &obj, repo, oid, content)) < 0)
			goto done;
	}
	r = &L->raw[L->n];
	memset(r, 0, sizeof(*r));
	git_oid_cpy(&r->oid, oid);
	git_oid_cpy(&r->tree, &c->tree);
	r->time = c->time;
	r->author_time = c->author_time;
	if ((rc = idents_intern(&L->idents, c->ident, &r->author)) < 0)
		goto done;
	graft = repository_graft_of(repo, oid);
	np = graft ? (unsigned)graft->nparents : c->nparents;
	parents = graft ? graft->parents : parsed_parents(c);
	if (np && repository_is_shallow_commit(repo, oid)) {
		r->boundary = 1;
		np = 0;
	}
	if (first_parent && np > 1)
		np = 1;
	if ((rc = pool_room(L, np)) < 0)
		goto done;
	r->first_parent_oid = (uint32_t)L->npool;
	r->nparents = np;
	for (i = 0; i < np; i++)
		git_oid_cpy(&L->pool[L->npool + i], &parents[i]);
	L->npool += np;
	insert(L->slots, L->nslots, oid, (uint32_t)L->n);
	L->n++;
done:
	parsed_release(&own);
	odb_object_free(obj);
	return rc;
}

int history_read_parents(git_oid **parents, uint32_t *nparents,
			 int64_t *time, struct repository *repo,
			 const git_oid *oid, int first_parent)
{
	const struct repository_graft *graft;
	struct odb_object *obj = NULL;
	struct parsed c;
	const git_oid *from;
	uint32_t np;
	int rc;

	*parents = NULL;
	*nparents = 0;
	memset(&c, 0, sizeof(c));
	if ((rc = read_commit(&c, &obj, repo, oid,
			      repository_replacement(repo, oid))) < 0)
		goto done;
	*time = c.time;
	graft = repository_graft_of(repo, oid);
	np = graft ? (uint32_t)graft->nparents : c.nparents;
	from = graft ? graft->parents : parsed_parents(&c);
	if (repository_is_shallow_commit(repo, oid))
		np = 0;
	if (first_parent && np > 1)
		np = 1;
	if (np && !(*parents = malloc(np * sizeof(**parents)))) {
		rc = error_oom();
		goto done;
	}
	if (np)
		memcpy(*parents, from, np * sizeof(**parents));
	*nparents = np;
done:
	parsed_release(&c);
	odb_object_free(obj);
	return rc;
}

int history_load(struct history **out, struct repository *repo,
		 const git_oid *tip, int first_parent)
{
	return history_load_progress(out, repo, tip, first_parent, 1, NULL,
				     NULL);
}

typedef void (*progress_fn)(const char *stage, size_t done, size_t total,
			    void *payload);

/*
 * Breadth-first over parents from `tip`, adding what is not in yet;
 * every commit read once.
 */
static int load_walk(struct loader *L, struct repository *repo,
		     struct ahead *A, const git_oid *tip, int first_parent,
		     progress_fn progress, void *payload)
{
	size_t i = L->n, j;
	int rc;

	if (L->nslots && lookup(L->slots, L->nslots, L->raw, sizeof(*L->raw),
				tip) >= 0)
		return 0;
	if ((rc = add_commit(L, repo, A, tip, first_parent)) < 0)
		return rc;
	for (; i < L->n; i++) {
		if (progress && i % 4096 == 0)
			progress("commits", i, 0, payload);
		for (j = 0; j < L->raw[i].nparents; j++) {
			/* A copy: add_commit() may move the pool. */
			git_oid p = L->pool[L->raw[i].first_parent_oid + j];

			if (lookup(L->slots, L->nslots, L->raw,
				   sizeof(*L->raw), &p) >= 0)
				continue;
			if ((rc = add_commit(L, repo, A, &p,
					      first_parent)) < 0)
				return rc;
		}
	}
	return 0;
}

/*
 * Post-order depth-first from loader index `root`, first parents first,
 * appending to order[] (*done_n so far) what no earlier walk reached.
 */
static void order_from(const struct loader *L, const uint32_t *rparents,
		       uint32_t root, uint32_t *stack, uint32_t *next,
		       uint32_t *order, uint32_t *pos, size_t *done_n)
{
	size_t sp = 0;

	if (pos[root] != UINT32_MAX)
		return;
	stack[sp++] = root;
	pos[root] = UINT32_MAX - 1; /* on the stack */
	while (sp) {
		uint32_t c = stack[sp - 1];

		if (next[c] < L->raw[c].nparents) {
			uint32_t p = rparents[L->raw[c].first_parent_oid +
					      next[c]++];

			if (pos[p] == UINT32_MAX) {
				pos[p] = UINT32_MAX - 1;
				stack[sp++] = p;
			}
			continue;
		}
		sp--;
		pos[c] = (uint32_t)*done_n;
		order[(*done_n)++] = c;
	}
}

/*
 * order[]: the commits in post-order depth-first, first parents first:
 * a side branch comes right before the merge that brings it in, which
 * keeps few blame states alive at once in the forward pass. The walks
 * start at the extra tips outside REV's history (loader indices from
 * L->nrev on), in the caller's order, and end at REV (index 0), which
 * comes last: no extra tip contains it (history_load_union()).
 * pos[]: the inverse. rparents[]: the pool's parents as loader indexes.
 */
static int load_order(const struct loader *L, uint32_t *rparents,
		      const uint32_t *roots, size_t nroots, uint32_t *order,
		      uint32_t *pos)
{
	uint32_t *stack = malloc(util_mul(L->n, sizeof(*stack)));
	uint32_t *next = calloc(L->n, sizeof(*next));
	size_t i, done_n = 0;

	if (!stack || !next) {
		free(stack);
		free(next);
		return error_oom();
	}
	for (i = 0; i < L->npool; i++)
		rparents[i] = (uint32_t)lookup(L->slots, L->nslots, L->raw,
					       sizeof(*L->raw), &L->pool[i]);
	for (i = 0; i < L->n; i++)
		pos[i] = UINT32_MAX;
	for (i = 0; i < nroots; i++)
		if (roots[i] >= L->nrev)
			order_from(L, rparents, roots[i], stack, next, order,
				   pos, &done_n);
	order_from(L, rparents, 0, stack, next, order, pos, &done_n);
	free(stack);
	free(next);
	if (L->n && order[L->n - 1] != 0)
		return error_set("a snapshot's tag contains the revision "
				 "blamed");
	return 0;
}

/* h->commits and h->parents in the order load_order() chose. */
static int load_commits(struct history *h, struct loader *L,
			uint32_t *rparents, const uint32_t *order,
			const uint32_t *pos)
{
	size_t i, j;

	h->n = L->n;
	h->nrev = L->nrev;
	h->commits = calloc(L->n ? L->n : 1, sizeof(*h->commits));
	h->parents = malloc(util_mul(L->npool + 1, sizeof(*h->parents)));
	if (!h->commits || !h->parents)
		return error_oom();
	for (i = 0; i < L->n; i++) {
		struct raw *r = &L->raw[order[i]];
		struct history_commit *c = &h->commits[i];
		uint32_t *rp = rparents + r->first_parent_oid;
		size_t kept = 0;

		/*
		 * Grafts and replace refs can make a cycle; a parent that
		 * comes later in the order closes one, and is dropped (in
		 * one pass: one by one was quadratic).
		 */
		for (j = 0; j < r->nparents; j++)
			if (pos[rp[j]] < i)
				rp[kept++] = rp[j];
		r->nparents = (uint32_t)kept;

		git_oid_cpy(&c->oid, &r->oid);
		git_oid_cpy(&c->tree, &r->tree);
		c->time = r->time;
		c->author_time = r->author_time;
		c->author = r->author;
		c->boundary = r->boundary;
		c->outside = order[i] >= L->nrev;
		c->parents = (uint32_t)h->nparents;
		c->nparents = r->nparents;
		for (j = 0; j < r->nparents; j++) {
			uint32_t p = pos[rp[j]];

			h->parents[h->nparents++] = p;
			h->commits[p].nchildren++;
		}
		if (r->boundary)
			h->nboundary++;
	}
	return 0;
}

/* The history's own name index; the names and emails move to it. */
static int load_index(struct history *h, struct loader *L)
{
	size_t i;

	h->nslots = L->nslots;
	h->slots = calloc(h->nslots, sizeof(*h->slots));
	if (!h->slots)
		return error_oom();
	for (i = 0; i < h->n; i++)
		insert(h->slots, h->nslots, &h->commits[i].oid, (uint32_t)i);
	h->idents = L->idents.v;
	h->nidents = L->idents.n;
	for (i = 0; i < L->idents.n; i++)
		free(L->idents.key[i]);
	L->idents.v = NULL;
	L->idents.n = 0;
	return 0;
}

int history_load_progress(struct history **out, struct repository *repo,
			  const git_oid *tip, int first_parent, unsigned jobs,
			  progress_fn progress, void *payload)
{
	return history_load_union(out, repo, tip, NULL, 0, first_parent,
				  jobs, progress, payload);
}

/* REV's history, then what the extra tips add; roots[]: their indices. */
static int load_all(struct loader *L, struct ahead *A, uint32_t *roots,
		    struct repository *repo, const git_oid *tip,
		    const git_oid *extra, size_t nextra, int first_parent,
		    progress_fn progress, void *payload)
{
	int rc;

	if ((rc = load_walk(L, repo, A, tip, first_parent, progress,
			    payload)) < 0)
		return rc;
	L->nrev = L->n;
	for (size_t i = 0; i < nextra; i++) {
		if ((rc = load_walk(L, repo, A, &extra[i], first_parent,
				    progress, payload)) < 0)
			return rc;
		roots[i] = (uint32_t)lookup(L->slots, L->nslots, L->raw,
					    sizeof(*L->raw), &extra[i]);
	}
	return 0;
}

int history_load_union(struct history **out, struct repository *repo,
		       const git_oid *tip, const git_oid *extra,
		       size_t nextra, int first_parent, unsigned jobs,
		       progress_fn progress, void *payload)
{
	struct loader L = {0};
	struct ahead A = {0};
	struct history *h = NULL;
	uint32_t *rparents = NULL, *order = NULL, *pos = NULL, *roots = NULL;
	int rc = 0;

	*out = NULL;
	if (!(roots = malloc(util_mul(nextra + 1, sizeof(*roots))))) {
		rc = error_oom();
		goto done;
	}
	if ((rc = ahead_start(&A, repo, tip, jobs ? jobs : 1)) < 0 ||
	    (rc = load_all(&L, &A, roots, repo, tip, extra, nextra,
			   first_parent, progress, payload)) < 0)
		goto done;
	/* Every commit is in: the helpers can stop. */
	ahead_release(&A);
	rparents = malloc(util_mul(L.npool + 1, sizeof(*rparents)));
	order = malloc(util_mul(L.n, sizeof(*order)));
	pos = malloc(util_mul(L.n, sizeof(*pos)));
	if (!rparents || !order || !pos || !(h = calloc(1, sizeof(*h)))) {
		rc = error_oom();
		goto done;
	}
	h->first_parent = first_parent;
	if ((rc = load_order(&L, rparents, roots, nextra, order, pos)) < 0 ||
	    (rc = load_commits(h, &L, rparents, order, pos)) < 0 ||
	    (rc = load_index(h, &L)) < 0)
		goto done;
done:
	ahead_release(&A);
	idents_release(&L.idents);
	free(L.raw);
	free(L.pool);
	free(L.slots);
	free(rparents);
	free(order);
	free(pos);
	free(roots);
	if (rc < 0)
		history_free(h);
	else
		*out = h;
	return rc;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nidents; i++) {
		free(h->idents[i].name);
		free(h->idents[i].email);
	}
	free(h->idents);
	free(h->commits);
	free(h->parents);
	free(h->slots);
	free(h);
}

int64_t history_find(const struct history *h, const git_oid *oid)
{
	if (!h->nslots)
		return -1;
	return lookup(h->slots, h->nslots, h->commits,
		      sizeof(*h->commits), oid);
}

int history_mark_ancestors(const struct history *h, uint32_t from,
			   uint64_t *bits)
{
	uint32_t *stack;
	size_t top = 0;

	if (history_bit(bits, from))
		return 0;
	if (!(stack = malloc(util_mul(h->n, sizeof(*stack)))))
		return error_oom();
	bits[from / 64] |= UINT64_C(1) << (from % 64);
	stack[top++] = from;
	while (top) {
		uint32_t c = stack[--top];
		const uint32_t *p = history_parents(h, c);

		for (uint32_t j = 0; j < h->commits[c].nparents; j++) {
			if (history_bit(bits, p[j]))
				continue;
			bits[p[j] / 64] |= UINT64_C(1) << (p[j] % 64);
			stack[top++] = p[j];
		}
	}
	free(stack);
	return 0;
}
