/*
 * blame_read.c: the walk's reader thread, which reads the trees of the
 * commits ahead of the walk into the object cache (those that differ
 * from the first parent's, as the walk reads them) and meanwhile
 * checks the tip's files for text; and that check, on --jobs threads,
 * for the files it left.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame_int.h"
#include "strata/diff.h"
#include "strata/error.h"
#include "strata/util.h"

/*
 * The object cache's bound during the walk. Packs chain trees from new to
 * old and the walk reads them from old to new, so a tree read builds the
 * newer trees of its chain, which the walk wants later, each directory
 * its own chain: with many directories, a small cache lets them go before
 * they are used, and they are built again. With few directories the
 * chains fit in less, and the memory the cache does not take is memory
 * the diffs find already touched (docs/design.md gives the measures).
 * So the bound comes from the count of REV's directories, which the
 * reader lists before the walk starts: WALK_CACHE_PER_TREE each, within
 * these limits; without a reader it is the most. The diffs then go back
 * to the usual bound.
 */
#define WALK_CACHE_MIN ((size_t)16 << 20)
#define WALK_CACHE_MAX ((size_t)64 << 20)
#define WALK_CACHE_PER_TREE ((size_t)64 << 10)

static size_t walk_cache(size_t ntrees)
{
	size_t bytes = ntrees * WALK_CACHE_PER_TREE;

	return bytes < WALK_CACHE_MIN ? WALK_CACHE_MIN :
	       bytes > WALK_CACHE_MAX ? WALK_CACHE_MAX : bytes;
}

/*
 * The regular files under tree `oid` (at R->path[0..base)) that the
 * options want, into R->tips: the choice and order of blame_tip_roots(),
 * from the trees rather than from the mirror, which the walk has yet to
 * build.
 */
static int reader_list(struct reader *R, const git_oid *oid, size_t base)
{
	const struct engine *E = R->E;
	struct odb_object *raw = NULL;
	struct entry e, prev;
	size_t at = 0;
	int rc;

	if (R->depth > ODB_MAX_TREE_DEPTH)
		return odb_too_deep(oid);
	if (R->ntrees >= ODB_MAX_TREES)
		return odb_too_many_trees(&E->h->commits[E->h->n - 1].tree);
	if ((rc = odb_read(&raw, E->repo->odb, R->git, oid,
			   GIT_OBJECT_TREE)) < 0)
		return rc;
	R->ntrees++;
	while (at < raw->len && !atomic_load(&R->stop)) {
		if ((rc = blame_parse_entry(&e, raw, &at, oid,
					    at ? &prev : NULL)) < 0 ||
		    (rc = blame_path_put(&R->path, &R->path_alloc, base, e.name,
					 e.namelen)) < 0)
			break;
		prev = e;
		if (e.kind == K_TREE) {
			R->path[base + e.namelen] = '/';
			R->depth++;
			rc = reader_list(R, entry_oid(&e),
					 base + e.namelen + 1);
			R->depth--;
			if (rc < 0)
				break;
			continue;
		}
		if (!blame_tip_wanted(E->opts, entry_mode(&e), R->path))
			continue;
		if ((rc = UTIL_GROW(R->tips, R->tips_alloc, R->ntips + 1)) < 0)
			break;
		git_oid_cpy(&R->tips[R->ntips].oid, entry_oid(&e));
		R->tips[R->ntips++].text = -1;
	}
	odb_object_free(raw);
	return rc < 0 ? rc : 0;
}

/* Look at one more of the tip's files; false when none is left. */
static bool reader_check_tip(struct reader *R)
{
	size_t i = R->tips_checked;
	int text;

	if (!R->tips_listed || i >= R->ntips)
		return false;
	R->tips_checked++;
	/* A failure is left to blame_check_text(), which reports it. */
	if (blame_is_text_blob(&text, R->E->repo->odb, R->git,
			       &R->tips[i].oid) == 0)
		R->tips[i].text = (signed char)text;
	return true;
}

/*
 * Whether the reader may read commit c's tree, or is to stop. (The bound
 * is what keeps the reader off the walk's slot of the ring, HANDOFF_RING.)
 */
static bool reader_may_go(struct reader *R, size_t c)
{
	return c <= atomic_load(&R->walked) + READ_AHEAD ||
	       atomic_load(&R->stop);
}

/* Whether the sleeping reader is to wake: the walk has come near. */
static bool reader_may_wake(struct reader *R)
{
	return atomic_load(&R->walked) >= atomic_load(&R->wake_at) ||
	       atomic_load(&R->stop);
}

/*
 * Far enough ahead of the walk: check the tip's files, and when none is
 * left, sleep until the walk is READ_AGAIN commits from commit c (or the
 * reader is to stop). `wake_at` and then `waiting` are stored before
 * `walked` is looked at, and the walk stores `walked` before it looks at
 * `waiting` and `wake_at` (all sequentially consistent): either the
 * reader sees the walk's commit, or the walk sees the reader waiting and
 * signals it under the lock, which the reader holds until it waits.
 */
static void reader_wait(struct reader *R, size_t c)
{
	while (!reader_may_go(R, c)) {
		if (reader_check_tip(R))
			continue;
		pthread_mutex_lock(&R->lock);
		atomic_store(&R->wake_at, c - READ_AGAIN);
		atomic_store(&R->waiting, true);
		while (!reader_may_wake(R))
			pthread_cond_wait(&R->moved, &R->lock);
		atomic_store(&R->waiting, false);
		pthread_mutex_unlock(&R->lock);
	}
}

/* An entry of a raw tree as the reader skims it: no checks (the walk's). */
struct skim {
	const unsigned char *base, *at, *end;
	const unsigned char *start;   /* of the entry */
	const char *name;
	size_t len;
	const unsigned char *oid;
	bool tree;
};

static void skim_init(struct skim *s, const struct odb_object *o)
{
	s->base = s->at = o->data;
	s->end = o->data + o->len;
}

/* The next entry; false at the end or at bytes the walk will refuse. */
static bool skim_next(struct skim *s)
{
	const unsigned char *p = s->at, *nul;

	if (!p || p >= s->end)
		return false;
	s->start = p;
	while (p < s->end && p - s->start < 7 && *p != ' ')
		p++;
	if (p >= s->end || *p != ' ' ||
	    !(nul = memchr(p, 0, (size_t)(s->end - p))) ||
	    (size_t)(s->end - nul) < 1 + GIT_OID_RAWSZ)
		return false;
	/* A directory's mode is "40000" (or "040000"). */
	s->tree = p - s->start >= 5 && !memcmp(p - 5, "40000", 5);
	s->name = (const char *)p + 1;
	s->len = (size_t)(nul - p - 1);
	s->oid = nul + 1;
	s->at = nul + 1 + GIT_OID_RAWSZ;
	return true;
}

/* Whether p (before end) starts one of the modes git writes, and a space. */
static bool skim_mode_at(const unsigned char *p, const unsigned char *end)
{
	static const char *const modes[] = {
		"100644 ", "100755 ", "40000 ", "120000 ", "160000 "
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++) {
		size_t n = strlen(modes[i]);

		if ((size_t)(end - p) >= n && !memcmp(p, modes[i], n))
			return true;
	}
	return false;
}

/*
 * Where to start skimming y to find its entry that holds byte `at`: an
 * entry starts 21 bytes after the NUL that ends the name before it, with
 * a mode, so the nearest such place at or before `at` (within
 * SKIM_BACK bytes), else y's start. A NUL in an object name can fake one;
 * what the reader finds is only a guide (the walk checks what it is
 * handed), and a place that does not lead to `at` costs nothing more.
 */
#define SKIM_BACK 1024

static const unsigned char *skim_near(const struct skim *y, size_t at)
{
	const unsigned char *d = y->base;
	size_t q;

	for (q = at; q > 0 && at - q <= SKIM_BACK; q--)
		if (q >= 1 + GIT_OID_RAWSZ && !d[q - 1 - GIT_OID_RAWSZ] &&
		    skim_mode_at(d + q, y->end))
			return d + q;
	return d;
}

/*
 * The first entries of x (old) and y (new) not in the raw trees' common
 * head: the entries before it are the same bytes on both sides, so only
 * y is skimmed, from the entry that holds the first differing byte where
 * skim_near() can tell it. *ends: the common head and tail, as raw_ends()
 * finds them (the tail clear of the head's whole entries), known unless
 * y's bytes stop the skim.
 */
static void skim_head(struct skim *x, struct skim *y, bool *hx, bool *hy,
		      struct handed_ends *ends)
{
	size_t xl = (size_t)(x->end - x->base), yl = (size_t)(y->end - y->base);
	size_t small = xl < yl ? xl : yl, head;

	head = diff_common_prefix(x->base, y->base, small);
	y->at = skim_near(y, head);
	while ((*hy = skim_next(y)) && (size_t)(y->at - y->base) <= head)
		;
	ends->known = *hy || y->at == y->end;
	ends->head = head;
	ends->at = *hy ? (size_t)(y->start - y->base) : yl;
	ends->tail = diff_common_suffix(x->base, xl, y->base, yl,
					ends->at < small ? small - ends->at : 0);
	x->at = x->base + (*hy ? y->start - y->base : (ptrdiff_t)xl);
	*hx = skim_next(x);
}

/*
 * x and y are just past entries of one name and the same object: the
 * trees likely go on alike (a commit that changes two entries of a big
 * directory far apart leaves those between as they were). Put y past its
 * whole entries that repeat x's bytes, up to the common tail (the last
 * `tail` bytes), and x at the same place: the same bytes hold the same
 * entries, with no subtree to read. Where the entry that holds the
 * first differing byte starts is found as skim_head() finds it.
 */
static void skim_alike(struct skim *x, struct skim *y, size_t tail)
{
	const unsigned char *y0 = y->at, *stop, *near;
	size_t xl = (size_t)(x->end - x->at), yl = (size_t)(y->end - y->at);
	size_t most = xl < yl ? xl : yl;
	struct skim t;

	if (tail < yl && yl - tail < most)
		most = yl - tail;
	stop = y0 + diff_common_prefix(x->at, y->at, most);
	/* From the entry that holds `stop`, if it can be told (skim_near()). */
	near = skim_near(y, (size_t)(stop - y->base));
	if (near > y0)
		y->at = near;
	t = *y;
	while (skim_next(&t) && t.at <= stop)
		*y = t;
	x->at += y->at - y0;
}

/* Drop what slot s (or NULL) still holds. */
static void handoff_empty(struct handoff *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		odb_object_free(s->obj[i]);
	s->n = 0;
	s->bytes = 0;
}

/*
 * Hand tree `oid`, read as o, to the walk too, if the slot has room,
 * with what it shares with the tree it was compared with.
 */
static void handoff_put(struct handoff *s, const git_oid *oid,
			struct odb_object *o, const struct handed_ends *ends)
{
	if (!s || s->n == HANDOFF_TREES || o->len > HANDOFF_BYTES - s->bytes)
		return;
	git_oid_cpy(&s->oid[s->n], oid);
	s->ends[s->n] = *ends;
	s->obj[s->n++] = odb_object_dup(o);
	s->bytes += o->len;
}

/*
 * The walk's: tree `oid` from slot s, with its reference, or NULL; and
 * in *ends what the reader found it shares with the tree before.
 */
struct odb_object *blame_handoff_take(struct handoff *s, const git_oid *oid,
				      struct handed_ends *ends)
{
	ends->known = false;
	for (uint32_t i = 0; s && i < s->n; i++) {
		if (s->obj[i] && git_oid_equal(&s->oid[i], oid)) {
			struct odb_object *o = s->obj[i];

			s->obj[i] = NULL;
			*ends = s->ends[i];
			return o;
		}
	}
	return NULL;
}

/*
 * Read tree `new` and those of its subtrees that differ from old's (NULL:
 * all), as the walk will read them when it mirrors the commit: its reads
 * then find them in the cache. Errors are the walk's to meet and report;
 * a tree too deep (or the walk's end) ends the commit's reads: -1.
 */
static int reader_trees(struct reader *R, const git_oid *old,
			const git_oid *new, unsigned depth)
{
	struct odb *db = R->E->repo->odb;
	struct odb_object *a = NULL, *b = NULL;
	struct skim x = { 0 }, y = { 0 };
	struct handed_ends ends = { .known = false, .tail = 0 };
	bool hx = false, hy;
	int rc = 0;

	if (depth > ODB_MAX_TREE_DEPTH || ++R->ahead > ODB_MAX_TREES ||
	    atomic_load(&R->stop))
		return -1;
	if (odb_read(&b, db, R->git, new, GIT_OBJECT_TREE) < 0)
		return 0;
	skim_init(&y, b);
	if (old && odb_read(&a, db, R->git, old, GIT_OBJECT_TREE) == 0) {
		skim_init(&x, a);
		skim_head(&x, &y, &hx, &hy, &ends);
		git_oid_cpy(&ends.from, old);
	} else {
		hy = skim_next(&y);
	}
	handoff_put(R->slot, new, b, &ends);
	while (hy && rc == 0) {
		int c = hx ? blame_name_cmp(x.name, x.len, x.tree, y.name,
					    y.len, y.tree) : 1;
		git_oid o, n;

		/* The rest is the common tail: the same on both sides. */
		if (hx && (size_t)(y.end - y.start) <= ends.tail &&
		    y.end - y.start == x.end - x.start)
			break;
		if (c < 0) {
			hx = skim_next(&x);
			continue;
		}
		if (y.tree && (c || memcmp(x.oid, y.oid, GIT_OID_RAWSZ))) {
			if (!c)
				memcpy(o.id, x.oid, GIT_OID_RAWSZ);
			memcpy(n.id, y.oid, GIT_OID_RAWSZ);
			rc = reader_trees(R, c ? NULL : &o, &n, depth + 1);
		}
		if (!c && x.tree == y.tree &&
		    !memcmp(x.oid, y.oid, GIT_OID_RAWSZ))
			skim_alike(&x, &y, ends.tail);
		if (!c)
			hx = skim_next(&x);
		hy = skim_next(&y);
	}
	odb_object_free(a);
	odb_object_free(b);
	return rc;
}

static void *reader_main(void *arg)
{
	struct reader *R = arg;
	const struct history *h = R->E->h;
	size_t c;

	for (c = 0; c < h->n && !atomic_load(&R->stop); c++) {
		const struct history_commit *hc;
		const git_oid *first;
		size_t lead = atomic_load(&R->walked) + READ_LEAD;

		/* Behind the walk, or too near it: leap ahead (READ_LEAD). */
		if (c < lead)
			c = lead;
		if (c >= h->n)
			break;
		hc = &h->commits[c];
		first = hc->nparents ?
			&h->commits[history_parents(h, (uint32_t)c)[0]].tree :
			NULL;
		reader_wait(R, c);
		R->ahead = 0;
		R->slot = R->ring ? &R->ring[c % HANDOFF_RING] : NULL;
		handoff_empty(R->slot);
		if (R->slot)
			R->slot->commit = c;
		if (!first || !git_oid_equal(&hc->tree, first))
			(void)reader_trees(R, first, &hc->tree, 0);
		atomic_store(&R->read, c + 1);
	}
	atomic_store(&R->read_all, true);
	while (!atomic_load(&R->stop) && reader_check_tip(R))
		;
	return NULL;
}

/*
 * STRATA_TEST_HANDOFF=wait:PPID (util_test_hook()): before each commit
 * the walk waits for the reader to have read it or a later one, so that
 * a test sees trees handed over whatever the threads' timing.
 */
static bool blame_test_wait(void)
{
	size_t n;
	const char *v = util_test_hook("STRATA_TEST_HANDOFF", &n);

	return v && n == 4 && !memcmp(v, "wait", 4);
}

/* Bound the walk's cache, and start a reader if there is a thread to spare. */
void blame_reader_start(struct reader *R, const struct engine *E)
{
	memset(R, 0, sizeof(*R));
	R->E = E;
	atomic_init(&R->walked, 0);
	atomic_init(&R->stop, 0);
	atomic_init(&R->waiting, false);
	atomic_init(&R->wake_at, 0);
	R->cache_bound = WALK_CACHE_MAX;
	/*
	 * The tip's files are listed before the walk starts, so that the
	 * walk's cache is bounded by the count of REV's directories whatever
	 * the threads' timing.
	 */
	atomic_init(&R->read, 0);
	atomic_init(&R->read_all, false);
	R->test_wait = blame_test_wait();
	if (E->opts->jobs >= 2 &&
	    repository_open_handle(&R->git, E->repo) == 0) {
		/* Without a ring the reader only warms the cache. */
		R->ring = calloc(HANDOFF_RING, sizeof(*R->ring));
		for (size_t i = 0; R->ring && i < HANDOFF_RING; i++)
			R->ring[i].commit = SIZE_MAX;
		const git_oid *tip = &E->h->commits[E->h->n - 1].tree;

		R->tips_listed = reader_list(R, tip, 0) == 0;
		if (R->tips_listed)
			R->cache_bound = walk_cache(R->ntrees);
	}
	odb_set_cache_limit(E->repo->odb, R->cache_bound);
	if (!R->git)
		return;
	pthread_mutex_init(&R->lock, NULL);
	pthread_cond_init(&R->moved, NULL);
	if (pthread_create(&R->th, NULL, reader_main, R) == 0)
		return;
	pthread_cond_destroy(&R->moved);
	pthread_mutex_destroy(&R->lock);
	git_repository_free(R->git);
	R->git = NULL;
	free(R->ring);
	R->ring = NULL;
}

/* Wake the reader. */
static void reader_signal(struct reader *R)
{
	pthread_mutex_lock(&R->lock);
	pthread_cond_signal(&R->moved);
	pthread_mutex_unlock(&R->lock);
}

/*
 * The walk is to mirror commit c: the slot of its trees if the reader has
 * handed them over, or NULL. The slot is the walk's until it has walked c.
 */
struct handoff *blame_reader_handed(struct reader *R, size_t c)
{
	struct handoff *s;

	while (R->test_wait && R->ring && atomic_load(&R->read) <= c &&
	       !atomic_load(&R->read_all))
		sched_yield();
	if (!R->ring || atomic_load(&R->read) <= c)
		return NULL;
	s = &R->ring[c % HANDOFF_RING];
	return s->commit == c ? s : NULL;
}

/*
 * The walk has mirrored n commits (reader_wait() says how they meet);
 * `handed`: commit n - 1's slot if it had it, to empty first.
 */
void blame_reader_walked(struct reader *R, size_t n, struct handoff *handed)
{
	handoff_empty(handed);
	atomic_store(&R->walked, n);
	if (R->git && atomic_load(&R->waiting) &&
	    n >= atomic_load(&R->wake_at))
		reader_signal(R);
}

void blame_reader_stop(struct reader *R)
{
	if (!R->git)
		return;
	atomic_store(&R->stop, 1);
	reader_signal(R);
	pthread_join(R->th, NULL);
	for (size_t i = 0; R->ring && i < HANDOFF_RING; i++)
		handoff_empty(&R->ring[i]);
	free(R->ring);
	R->ring = NULL;
	pthread_cond_destroy(&R->moved);
	pthread_mutex_destroy(&R->lock);
	git_repository_free(R->git);
	R->git = NULL;
}

/* The reader's findings on the tip's files, if they are these files. */
const struct tipcheck *blame_tips_known(const struct reader *R,
					  const struct tipfile *tips, size_t n)
{
	size_t i;

	if (!R->tips_listed || R->ntips != n)
		return NULL;
	for (i = 0; i < n; i++)
		if (!git_oid_equal(&R->tips[i].oid, &tips[i].v->oid))
			return NULL;
	return R->tips;
}

void blame_reader_free(struct reader *R)
{
	free(R->tips);
	free(R->path);
}

int blame_is_text(const void *data, size_t len)
{
	return len > 0 && !memchr(data, 0, len < BLAME_TEXT_PREFIX ? len
							 : BLAME_TEXT_PREFIX);
}

/*
 * Say which file the stored "unable to read blob 'X': why" was about:
 * "unable to read blob 'X' <how> 'PATH': why".
 */
int blame_name_file(const char *how, const char *path)
{
	static const char pre[] = "unable to read ";
	const char *m = error_last(), *q = strstr(m, "': ");
	char buf[1024];

	if (strncmp(m, pre, sizeof(pre) - 1) || !q)
		return error_prefix("%s '%s'", how, path);
	snprintf(buf, sizeof(buf), "%.*s' %s '%s'%s", (int)(q - m), m, how,
		 path, q + 1);
	return error_set("%s", buf);
}

/*
 * Whether a blob of `size` bytes whose first `got` are at `head` is
 * text: no NUL in its first 8,000 bytes, as git says, and no larger than
 * strata reads (ODB_MAX_OBJECT; git's diff too counts a file above
 * core.bigFileThreshold as binary).
 */
bool blame_is_text_sized(const void *head, size_t got, size_t size)
{
	return size <= ODB_MAX_OBJECT && blame_is_text(head, got);
}

/*
 * Whether blob `oid` is text (blame_is_text_sized()). Only its first
 * bytes are inflated of a blob stored whole and longer than them.
 */
int blame_is_text_blob(int *out, struct odb *db, git_repository *git,
		       const git_oid *oid)
{
	unsigned char buf[BLAME_TEXT_PREFIX];
	size_t got, size;
	int rc;

	if ((rc = odb_read_prefix(buf, sizeof(buf), &got, &size, db, git,
				  oid)) < 0)
		return rc;
	*out = blame_is_text_sized(buf, got, size);
	return 0;
}

/*
 * Which of the tip's files are text: every blob read once, on up to
 * `jobs` threads. Should several fail, the first in tree order is the one
 * reported, as it would be without threads: the files are handed out in
 * order, and a thread that has taken one checks it before it stops, so
 * every file before a failed one has been checked too.
 */
struct textcheck {
	struct engine *E;
	const struct tipfile *tips;
	const struct tipcheck *known;  /* per file, or NULL */
	unsigned char *text;
	size_t n;
	atomic_size_t next;
	atomic_int failed;
	pthread_mutex_t lock;
	size_t err_at;            /* under lock */
	char err[512];
};

/* One thread's share; git: its own repository handle, or NULL to open one. */
static void textcheck_run(struct textcheck *T, git_repository *git)
{
	git_repository *own = NULL;
	size_t i = T->n;
	int text, rc;

	if (!git) {
		if (repository_open_handle(&own, T->E->repo) < 0)
			goto fail;
		git = own;
	}
	while (!atomic_load(&T->failed)) {
		if ((i = atomic_fetch_add(&T->next, 1)) >= T->n)
			break;
		if (T->known && T->known[i].text >= 0) {
			T->text[i] = (unsigned char)T->known[i].text;
			continue;
		}
		rc = blame_is_text_blob(&text, T->E->repo->odb, git,
					&T->tips[i].v->oid);
		if (rc < 0)
			goto fail;
		T->text[i] = (unsigned char)text;
	}
	goto out;
fail:
	if (i < T->n)
		blame_name_file("of", T->tips[i].path);
	pthread_mutex_lock(&T->lock);
	if (i <= T->err_at) {
		T->err_at = i;
		snprintf(T->err, sizeof(T->err), "%s", error_last());
	}
	pthread_mutex_unlock(&T->lock);
	atomic_store(&T->failed, 1);
out:
	git_repository_free(own);
}

static void *textcheck_main(void *arg)
{
	textcheck_run(arg, NULL);
	return NULL;
}

/*
 * `known`: what the walk's reader found for the same files, or NULL.
 * Threads are started for the files left to read, if there are enough.
 */
int blame_check_text(unsigned char *text, struct engine *E,
		     const struct tipfile *tips, size_t n,
		     const struct tipcheck *known)
{
	struct textcheck T;
	pthread_t th[15];
	unsigned jobs = E->opts->jobs ? E->opts->jobs : 1, started = 0, i;
	size_t left = n, k;
	int rc = 0;

	if (known)
		for (k = 0, left = 0; k < n; k++)
			left += known[k].text < 0;
	memset(&T, 0, sizeof(T));
	T.E = E;
	T.tips = tips;
	T.known = known;
	T.text = text;
	T.n = n;
	T.err_at = SIZE_MAX;
	atomic_init(&T.next, 0);
	atomic_init(&T.failed, 0);
	pthread_mutex_init(&T.lock, NULL);
	if (jobs > 16)
		jobs = 16;
	for (i = 1; i < jobs && i < left; i++)
		if (pthread_create(&th[started], NULL, textcheck_main, &T) == 0)
			started++;
	textcheck_run(&T, E->repo->git);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&T.failed))
		rc = error_set("%s", T.err);
	pthread_mutex_destroy(&T.lock);
	return rc;
}
