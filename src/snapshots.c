/*
 * snapshots: the composition of the tree at every release (or calendar
 * boundary), counted from the lines the blame engine hands over while it
 * blames REV, and the survival of each release's lines.
 *
 * The engine calls snapshot_key() on the walking thread for every file of
 * a snapshot (its subsystem: the top-level directory) and snapshot_lines()
 * from its diff threads, once per file version, with every (snapshot,
 * subsystem) where that version stands. A version is counted once into a
 * small histogram over releases, which is then added to each of its
 * places: a file unchanged through 40 releases costs one pass over its
 * lines, not 40. Each snapshot's counts have a lock of their own, so
 * that the diff threads seldom wait for each other.
 */
#include "strata/snapshots.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/error.h"
#include "strata/util.h"

/* More snapshots than this is an error (docs/history.md). */
#define SNAPSHOTS_MAX 1000

/*
 * The counts are kept in one array, a row of releases for every
 * (snapshot, subsystem) met, when that takes at most this many bytes
 * (enough for a project of hundreds of releases); else in a hash table
 * of the counts that are not 0.
 */
/*
 * The engine keeps 28 bytes for each file of each snapshot while it runs
 * (docs/performance.md); more than this many is an error rather than
 * gigabytes.
 */
#define SNAPSHOTS_MAX_FILES ((size_t)1 << 26)

#ifndef SNAPSHOTS_DENSE_MAX
#define SNAPSHOTS_DENSE_MAX ((size_t)256 << 20)
#endif

/* A count of lines, by (pair, release), in a hash table. */
struct cell {
	uint32_t pair, release;
	uint64_t lines;            /* 0: the slot is empty */
};

/*
 * One snapshot's counts, under its lock: for survival, the lines of each
 * commit of its history (indexed by commit: the history's order puts
 * every ancestor of the snapshot's commit before it), allocated at the
 * first count; and the rows of the composition of its (snapshot,
 * subsystem) pairs in `dense`.
 */
struct kept_table {
	pthread_mutex_t lock;
	uint64_t *lines;           /* [commit], or NULL */
	size_t n;                  /* commits: the snapshot's index + 1 */
};

/* A run of a version's lines from one commit. */
struct run {
	uint32_t commit, lines;
	size_t first_base;         /* its release's (st->first_base) */
};

/* A snapshot and a subsystem where some file stands: a key of the engine. */
struct pair {
	uint32_t snapshot, subsystem;
};

struct snapshots_state {
	const struct history *h;
	const struct releases *rel;
	snapshots_filter_fn keep;
	void *keep_payload;
	uint32_t *commits;         /* per snapshot: its history index */
	size_t nfiles;             /* files of all snapshots, so far */
	/* subsystems, in the order met (walking thread only) */
	char **names;
	size_t nnames, names_alloc;
	uint32_t *name_slots;      /* open addressing: id + 1, 0 empty */
	size_t nname_slots;
	/* (snapshot, subsystem) pairs (walking thread only) */
	struct pair *pairs;
	size_t npairs, pairs_alloc;
	uint32_t *pair_slots;      /* open addressing: id + 1, 0 empty */
	size_t npair_slots;
	/*
	 * The counts (diff threads): `dense` under the lock of the pair's
	 * snapshot, `cells` under `lock`, which also guards the choice.
	 */
	pthread_mutex_t lock;
	atomic_int counting;       /* dense or cells chosen */
	uint64_t *dense;           /* [pair][release], or NULL */
	struct cell *cells;
	size_t ncells, cells_alloc; /* used, slots (a power of two) */
	/*
	 * Survival: the lines of each commit at each snapshot from its
	 * release's base on (per snapshot, under its lock), and per release
	 * the first snapshot that can be its base.
	 */
	struct kept_table *tables; /* per snapshot */
	size_t ntables;
	size_t *first_base;        /* per release; s->n for none */
};

static const char *const when_names[] = {
	"none", "releases", "year", "quarter", "month"
};

int snapshots_parse_when(enum snapshots_when *out, const char *word)
{
	for (size_t i = 0; i < sizeof(when_names) / sizeof(*when_names); i++)
		if (!strcmp(word, when_names[i])) {
			*out = (enum snapshots_when)i;
			return 0;
		}
	return error_setc(STRATA_EUSAGE, "invalid value '%s' for '--history': "
			  "expected releases, year, quarter, month or none",
			  word);
}

const char *snapshots_when_name(enum snapshots_when when)
{
	return when_names[when];
}

/* ---- choosing ---- */

static int add_snapshot(struct snapshots *s, size_t *alloc,
			const struct history *h, const char *name,
			int64_t date, uint32_t commit, size_t release)
{
	struct snapshot *p;

	if (UTIL_GROW(s->list, *alloc, s->n + 1) < 0)
		return STRATA_ENOMEM;
	p = &s->list[s->n];
	memset(p, 0, sizeof(*p));
	p->date = date;
	p->commit = commit;
	p->release = release;
	p->outside = h->commits[commit].outside;
	if (!(p->name = strdup(name)))
		return error_oom();
	s->n++;
	return 0;
}

static int snapshot_date_cmp(const void *a, const void *b)
{
	const struct snapshot *x = a, *y = b;

	if (x->date != y->date)
		return x->date < y->date ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The tag whose snapshot release r wants (--history releases): its
 * standing tag, unless it wrote nothing (no commit of REV's history) or
 * is the unreleased bucket; else NULL.
 */
static const struct release_tag *wanted_tag(const struct releases *rel,
					    size_t r)
{
	const struct release *R = &rel->list[r];

	return R->unreleased || !R->commits ? NULL : R->standing;
}

/*
 * One snapshot per release whose standing tag is in the history, in date
 * order. A release tagged at REV's commit stands in for REV.
 */
static int choose_releases(struct snapshots *s, size_t *alloc,
			   const struct history *h, const struct releases *rel)
{
	uint32_t tip = (uint32_t)(h->n - 1);
	int rc;

	if (!(s->unsnapped = malloc((rel->n ? rel->n : 1) *
				    sizeof(*s->unsnapped))))
		return error_oom();
	for (size_t r = 0; r < rel->n; r++) {
		const struct release_tag *t = wanted_tag(rel, r);

		if (!t)
			continue;
		if (t->commit >= h->n) {
			s->unsnapped[s->nunsnapped++] = r;
			continue;
		}
		if ((rc = add_snapshot(s, alloc, h, t->name, t->date, t->commit,
				       r)) < 0)
			return rc;
	}
	if (s->n)
		qsort(s->list, s->n, sizeof(*s->list), snapshot_date_cmp);
	for (size_t k = 0; k < s->n; k++) {
		if (s->list[k].commit != tip)
			continue;
		/* REV is this release: it goes last, under the tag's name. */
		struct snapshot at = s->list[k];

		memmove(&s->list[k], &s->list[k + 1],
			(s->n - k - 1) * sizeof(*s->list));
		s->list[s->n - 1] = at;
		s->list[s->n - 1].is_rev = 1;
		break;
	}
	return 0;
}

/* The start of the calendar period after the one holding t (UTC). */
static int next_boundary(int64_t *out, int64_t t, enum snapshots_when when)
{
	time_t tt = (time_t)t;
	struct tm tm;
	int step = when == SNAPSHOTS_YEAR ? 12 :
		   when == SNAPSHOTS_QUARTER ? 3 : 1;

	if ((int64_t)tt != t || !gmtime_r(&tt, &tm) || tm.tm_year > 8099)
		return -1;
	tm.tm_mon = tm.tm_mon / step * step + step;
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = 0;
	*out = (int64_t)timegm(&tm);
	return 0;
}

/*
 * The last commit of REV's first-parent chain dated before each calendar
 * boundary after the chain's root, up to REV's date: chain[] runs from
 * the root to REV, and the answer moves back as the boundaries do.
 */
static int choose_calendar(struct snapshots *s, size_t *alloc,
			   const struct history *h, enum snapshots_when when)
{
	uint32_t *chain = NULL, c = (uint32_t)(h->n - 1);
	int64_t *bounds = NULL, b, end = h->commits[c].time;
	size_t n = 0, nb = 0, balloc = 0, i;
	int rc = 0;

	if (!(chain = malloc(h->n * sizeof(*chain))))
		return error_oom();
	for (;;) {
		chain[n++] = c;
		if (!h->commits[c].nparents)
			break;
		c = history_parents(h, c)[0];
	}
	/* chain[n - 1] is the root; boundaries from after its date. */
	for (rc = next_boundary(&b, h->commits[chain[n - 1]].time, when);
	     rc == 0 && b <= end; rc = next_boundary(&b, b, when)) {
		if (nb >= SNAPSHOTS_MAX) {
			rc = error_set("--history %s gives more than %d "
				       "snapshots; choose a longer period",
				       when_names[when], SNAPSHOTS_MAX);
			goto done;
		}
		if ((rc = UTIL_GROW(bounds, balloc, nb + 1)) < 0)
			goto done;
		bounds[nb++] = b;
	}
	rc = 0;
	/* From the latest boundary back; i walks chain[] from REV. */
	for (i = 0; nb; nb--) {
		char name[16];
		time_t bt = (time_t)bounds[nb - 1];
		struct tm tm;

		while (i < n && h->commits[chain[i]].time >= bounds[nb - 1])
			i++;
		if (i == n)
			break;
		gmtime_r(&bt, &tm);
		strftime(name, sizeof(name), "%Y-%m-%d", &tm);
		if ((rc = add_snapshot(s, alloc, h, name, bounds[nb - 1],
				       chain[i], SNAPSHOT_NONE)) < 0)
			goto done;
	}
	/* Found newest first. */
	for (i = 0; i < s->n / 2; i++) {
		struct snapshot t = s->list[i];

		s->list[i] = s->list[s->n - 1 - i];
		s->list[s->n - 1 - i] = t;
	}
done:
	free(chain);
	free(bounds);
	return rc;
}

/*
 * Per release, the first snapshot that may be its base (survival_base()):
 * dated at or after its standing tag; s->n for the unreleased bucket.
 * Commits are counted for survival from there on only.
 */
static int first_bases(struct snapshots *s, const struct releases *rel)
{
	size_t *f = malloc(util_mul(rel->n ? rel->n : 1, sizeof(*f)));

	if (!f)
		return error_oom();
	for (size_t r = 0; r < rel->n; r++) {
		const struct release_tag *t = rel->list[r].standing;
		size_t k = 0;

		if (rel->list[r].unreleased || !t)
			k = s->n;
		while (k < s->n && s->list[k].date < t->date &&
		       s->list[k].release != r)
			k++;
		f[r] = k;
	}
	s->state->first_base = f;
	return 0;
}

static int state_new(struct snapshots *s, const struct history *h,
		     const struct releases *rel, snapshots_filter_fn keep,
		     void *keep_payload)
{
	struct snapshots_state *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return error_oom();
	s->state = st;
	st->h = h;
	st->rel = rel;
	st->keep = keep;
	st->keep_payload = keep_payload;
	pthread_mutex_init(&st->lock, NULL);
	atomic_init(&st->counting, 0);
	st->commits = malloc((s->n ? s->n : 1) * sizeof(*st->commits));
	s->survival = calloc(rel->n ? rel->n : 1, sizeof(*s->survival));
	st->tables = calloc(s->n ? s->n : 1, sizeof(*st->tables));
	if (!st->commits || !s->survival || !st->tables)
		return error_oom();
	for (; st->ntables < s->n; st->ntables++) {
		pthread_mutex_init(&st->tables[st->ntables].lock, NULL);
		st->tables[st->ntables].n = (size_t)s->list[st->ntables].commit
					    + 1;
	}
	if ((rc = first_bases(s, rel)) < 0)
		return rc;
	for (size_t k = 0; k < s->n; k++) {
		st->commits[k] = s->list[k].commit;
		git_oid_cpy(&s->list[k].oid, &h->commits[s->list[k].commit].oid);
		s->list[k].by_release = calloc(rel->n ? rel->n : 1,
					       sizeof(uint64_t));
		if (!s->list[k].by_release)
			return error_oom();
	}
	return 0;
}

int snapshots_extra_tips(git_oid **out, size_t *n,
			 const struct releases *rel,
			 enum snapshots_when when)
{
	*out = NULL;
	*n = 0;
	if (when != SNAPSHOTS_RELEASES)
		return 0;
	for (size_t r = 0; r < rel->n; r++) {
		const struct release_tag *t = wanted_tag(rel, r);

		if (!t || t->commit != RELEASES_OFF_HISTORY || t->contains_rev)
			continue;
		if (!*out && !(*out = malloc(rel->n * sizeof(**out))))
			return error_oom();
		git_oid_cpy(&(*out)[(*n)++], &t->oid);
	}
	return 0;
}

int snapshots_choose(struct snapshots **out, const struct history *h,
		     const struct releases *rel, enum snapshots_when when,
		     const char *rev, snapshots_filter_fn keep,
		     void *keep_payload)
{
	struct snapshots *s = calloc(1, sizeof(*s));
	size_t alloc = 0;
	int rc;

	*out = NULL;
	if (!s)
		return error_oom();
	s->when = when;
	s->nreleases = rel->n;
	if (!h->n) {
		rc = error_set("empty history");
		goto done;
	}
	rc = when == SNAPSHOTS_RELEASES ? choose_releases(s, &alloc, h, rel) :
	     choose_calendar(s, &alloc, h, when);
	if (rc < 0)
		goto done;
	if ((!s->n || !s->list[s->n - 1].is_rev) &&
	    (rc = add_snapshot(s, &alloc, h, rev, h->commits[h->n - 1].time,
			       (uint32_t)(h->n - 1), SNAPSHOT_NONE)) < 0)
		goto done;
	s->list[s->n - 1].is_rev = 1;
	if (s->n > SNAPSHOTS_MAX) {
		rc = error_set("--history %s gives %zu snapshots, more than "
			       "%d: choose fewer releases with --tags, or "
			       "--history year", when_names[when], s->n,
			       SNAPSHOTS_MAX);
		goto done;
	}
	rc = state_new(s, h, rel, keep, keep_payload);
done:
	if (rc < 0)
		snapshots_free(s);
	else
		*out = s;
	return rc;
}

/* ---- counting, as the engine hands the lines over ---- */

static uint32_t hash_name(const char *p, size_t len)
{
	uint32_t x = 2166136261u;

	while (len--)
		x = (x ^ (unsigned char)*p++) * 16777619u;
	return x;
}

static int names_grow(struct snapshots_state *st)
{
	size_t ns = st->nname_slots ? st->nname_slots * 2 : 64;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return error_oom();
	for (size_t i = 0; i < st->nnames; i++) {
		size_t k = hash_name(st->names[i], strlen(st->names[i])) &
			   (ns - 1);

		while (slots[k])
			k = (k + 1) & (ns - 1);
		slots[k] = (uint32_t)i + 1;
	}
	free(st->name_slots);
	st->name_slots = slots;
	st->nname_slots = ns;
	return 0;
}

/* The id of the subsystem name p[0, len). */
static int name_id(uint32_t *out, struct snapshots_state *st, const char *p,
		   size_t len)
{
	size_t k;
	int rc;

	if (2 * (st->nnames + 1) > st->nname_slots && (rc = names_grow(st)) < 0)
		return rc;
	k = hash_name(p, len) & (st->nname_slots - 1);
	while (st->name_slots[k]) {
		const char *n = st->names[st->name_slots[k] - 1];

		if (!strncmp(n, p, len) && !n[len]) {
			*out = st->name_slots[k] - 1;
			return 0;
		}
		k = (k + 1) & (st->nname_slots - 1);
	}
	if (UTIL_GROW(st->names, st->names_alloc, st->nnames + 1) < 0)
		return STRATA_ENOMEM;
	if (!(st->names[st->nnames] = strndup(p, len)))
		return error_oom();
	st->name_slots[k] = (uint32_t)++st->nnames;
	*out = (uint32_t)st->nnames - 1;
	return 0;
}

static size_t pair_hash(uint32_t snapshot, uint32_t subsystem, size_t n)
{
	uint64_t x = ((uint64_t)snapshot << 32 | subsystem) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(x >> 24) & (n - 1);
}

static int pairs_grow(struct snapshots_state *st)
{
	size_t ns = st->npair_slots ? st->npair_slots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof(*slots));

	if (!slots)
		return error_oom();
	for (size_t i = 0; i < st->npairs; i++) {
		size_t k = pair_hash(st->pairs[i].snapshot,
				     st->pairs[i].subsystem, ns);

		while (slots[k])
			k = (k + 1) & (ns - 1);
		slots[k] = (uint32_t)i + 1;
	}
	free(st->pair_slots);
	st->pair_slots = slots;
	st->npair_slots = ns;
	return 0;
}

/* The id of (snapshot, subsystem), made on first use. */
static int pair_id(uint32_t *out, struct snapshots_state *st,
		   uint32_t snapshot, uint32_t subsystem)
{
	size_t k;
	int rc;

	if (2 * (st->npairs + 1) > st->npair_slots &&
	    (rc = pairs_grow(st)) < 0)
		return rc;
	k = pair_hash(snapshot, subsystem, st->npair_slots);
	while (st->pair_slots[k]) {
		const struct pair *p = &st->pairs[st->pair_slots[k] - 1];

		if (p->snapshot == snapshot && p->subsystem == subsystem) {
			*out = st->pair_slots[k] - 1;
			return 0;
		}
		k = (k + 1) & (st->npair_slots - 1);
	}
	if (UTIL_GROW(st->pairs, st->pairs_alloc, st->npairs + 1) < 0)
		return STRATA_ENOMEM;
	st->pairs[st->npairs] = (struct pair){ snapshot, subsystem };
	st->pair_slots[k] = (uint32_t)++st->npairs;
	*out = (uint32_t)st->npairs - 1;
	return 0;
}

/* The engine's key of a file: its (snapshot, subsystem) pair. */
static int snapshot_key(uint32_t *key, const char *path, size_t snapshot,
			void *payload)
{
	struct snapshots_state *st = payload;
	const char *slash = strchr(path, '/');
	uint32_t sub;
	int rc;

	if (st->keep && !st->keep(path, st->keep_payload)) {
		*key = BLAME_SNAPSHOT_SKIP;
		return 0;
	}
	if (++st->nfiles > SNAPSHOTS_MAX_FILES)
		return error_set("the history's snapshots hold more than %zu "
				 "files: choose fewer (--tags, or a longer "
				 "--history period)", SNAPSHOTS_MAX_FILES);
	rc = slash ? name_id(&sub, st, path, (size_t)(slash - path)) :
		     name_id(&sub, st, ".", 1);
	if (rc < 0)
		return rc;
	return pair_id(key, st, (uint32_t)snapshot, sub);
}

static size_t cell_slot(const struct snapshots_state *st, uint32_t pair,
			uint32_t release)
{
	return pair_hash(pair, release, st->cells_alloc);
}

static int cells_grow(struct snapshots_state *st)
{
	size_t na = st->cells_alloc ? st->cells_alloc * 2 : 4096, i;
	struct cell *old = st->cells, *c;
	size_t nold = st->cells_alloc;

	if (!(c = calloc(na, sizeof(*c))))
		return error_oom();
	st->cells = c;
	st->cells_alloc = na;
	for (i = 0; i < nold; i++) {
		size_t k;

		if (!old[i].lines)
			continue;
		k = cell_slot(st, old[i].pair, old[i].release);
		while (c[k].lines)
			k = (k + 1) & (na - 1);
		c[k] = old[i];
	}
	free(old);
	return 0;
}

/*
 * Under the lock of the pair's snapshot, and st->lock too when there is
 * no dense array; lines > 0.
 */
static int cell_add(struct snapshots_state *st, uint32_t pair,
		    uint32_t release, uint64_t lines)
{
	size_t k;
	int rc;

	if (st->dense) {
		st->dense[(size_t)pair * st->rel->n + release] += lines;
		return 0;
	}
	if (2 * (st->ncells + 1) > st->cells_alloc &&
	    (rc = cells_grow(st)) < 0)
		return rc;
	k = cell_slot(st, pair, release);
	while (st->cells[k].lines && (st->cells[k].pair != pair ||
				      st->cells[k].release != release))
		k = (k + 1) & (st->cells_alloc - 1);
	if (!st->cells[k].lines) {
		st->cells[k] = (struct cell){ pair, release, 0 };
		st->ncells++;
	}
	st->cells[k].lines += lines;
	return 0;
}

/*
 * At the first count: the pairs are all known once the walk is over, so
 * the dense array's size is too.
 */
static int counting_start(struct snapshots_state *st)
{
	size_t nrel = st->rel->n ? st->rel->n : 1;
	int rc = 0;

	if (atomic_load(&st->counting))
		return 0;
	pthread_mutex_lock(&st->lock);
	if (!atomic_load(&st->counting)) {
		if (st->npairs && st->npairs <= SNAPSHOTS_DENSE_MAX /
						sizeof(uint64_t) / nrel &&
		    !(st->dense = calloc(st->npairs * nrel,
					 sizeof(uint64_t))))
			rc = error_oom();
		else
			atomic_store(&st->counting, 1);
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

/* A release and its lines in one version. */
struct share {
	uint32_t release;
	uint64_t lines;
};

/* The version's lines by release: runs of one commit are one lookup. */
static int histogram(struct share **out, size_t *nout,
		     const struct releases *rel, const uint32_t *lines,
		     uint32_t nlines)
{
	uint64_t *count = calloc(rel->n ? rel->n : 1, sizeof(*count));
	struct share *v = NULL;
	size_t n = 0;
	uint32_t x = 0;

	if (!count)
		return error_oom();
	while (x < nlines) {
		uint32_t e = x + 1;

		while (e < nlines && lines[e] == lines[x])
			e++;
		count[rel->of_commit[lines[x]]] += e - x;
		x = e;
	}
	for (size_t r = 0; r < rel->n; r++)
		n += count[r] != 0;
	if (!(v = malloc((n ? n : 1) * sizeof(*v)))) {
		free(count);
		return error_oom();
	}
	n = 0;
	for (size_t r = 0; r < rel->n; r++)
		if (count[r])
			v[n++] = (struct share){ (uint32_t)r, count[r] };
	free(count);
	*out = v;
	*nout = n;
	return 0;
}

/*
 * The version's runs of lines from one commit, in line order (a commit
 * may have several).
 */
static int version_runs(struct run **out, size_t *nout,
			const struct snapshots_state *st,
			const uint32_t *lines, uint32_t nlines)
{
	struct run *v = malloc(util_mul(nlines ? nlines : 1, sizeof(*v)));
	size_t n = 0;
	uint32_t x = 0;

	if (!v)
		return error_oom();
	while (x < nlines) {
		uint32_t e = x + 1;

		while (e < nlines && lines[e] == lines[x])
			e++;
		v[n++] = (struct run){ lines[x], e - x,
				       st->first_base[st->rel->of_commit[
					       lines[x]]] };
		x = e;
	}
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Under the snapshot's lock: the version's commits there, for survival,
 * and its releases in the row of the (snapshot, subsystem) pair.
 */
static int count_place(struct snapshots_state *st, uint32_t pair,
		       const struct share *v, size_t n,
		       const struct run *runs, size_t nruns)
{
	uint32_t snapshot = st->pairs[pair].snapshot;
	struct kept_table *t = &st->tables[snapshot];
	int rc = 0;

	if (!st->dense)
		pthread_mutex_lock(&st->lock);
	for (size_t j = 0; j < n && rc == 0; j++)
		rc = cell_add(st, pair, v[j].release, v[j].lines);
	if (!st->dense)
		pthread_mutex_unlock(&st->lock);
	if (rc < 0)
		return rc;
	for (size_t j = 0; j < nruns; j++) {
		if (snapshot < runs[j].first_base)
			continue;
		if (runs[j].commit >= t->n)
			return error_set("a line of snapshot %u is from a "
					 "commit outside its history",
					 snapshot);
		if (!t->lines && !(t->lines = calloc(t->n, sizeof(uint64_t))))
			return error_oom();
		t->lines[runs[j].commit] += runs[j].lines;
	}
	return 0;
}

static int snapshot_lines(const uint32_t *lines, uint32_t nlines,
			  const struct blame_snapshot_file *at, size_t nat,
			  void *payload)
{
	struct snapshots_state *st = payload;
	struct share *v = NULL;
	struct run *c = NULL;
	size_t n = 0, nc = 0, i, first;
	int rc;

	if ((rc = histogram(&v, &n, st->rel, lines, nlines)) < 0 ||
	    (rc = version_runs(&c, &nc, st, lines, nlines)) < 0 ||
	    (rc = counting_start(st)) < 0)
		goto done;
	/*
	 * Each thread starts at a place of its own: a file that stands in
	 * every snapshot would else have the threads queue at each lock in
	 * turn.
	 */
	first = nat ? (size_t)((uintptr_t)lines >> 4) % nat : 0;
	for (i = 0; i < nat && rc == 0; i++) {
		uint32_t pair = at[(first + i) % nat].key;
		struct kept_table *t = &st->tables[st->pairs[pair].snapshot];

		pthread_mutex_lock(&t->lock);
		rc = count_place(st, pair, v, n, c, nc);
		pthread_mutex_unlock(&t->lock);
	}
done:
	free(v);
	free(c);
	return rc;
}

void snapshots_engine_options(struct snapshots *s, struct blame_options *o)
{
	o->snapshots = s->state->commits;
	o->nsnapshots = s->n;
	o->snapshot_key = snapshot_key;
	o->snapshot_lines = snapshot_lines;
	o->snapshot_payload = s->state;
}

/* ---- the results ---- */

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* s->subsystems sorted; rank[id] is the sorted place of name id. */
static int sort_subsystems(struct snapshots *s, uint32_t **rank)
{
	struct snapshots_state *st = s->state;
	char ***by = malloc((st->nnames ? st->nnames : 1) * sizeof(*by));
	size_t i;

	*rank = malloc((st->nnames ? st->nnames : 1) * sizeof(**rank));
	if (!by || !*rank) {
		free(by);
		return error_oom();
	}
	for (i = 0; i < st->nnames; i++)
		by[i] = &st->names[i];
	qsort(by, st->nnames, sizeof(*by), str_ptr_cmp);
	s->subsystems = malloc((st->nnames ? st->nnames : 1) *
			       sizeof(*s->subsystems));
	if (!s->subsystems) {
		free(by);
		return error_oom();
	}
	for (i = 0; i < st->nnames; i++) {
		(*rank)[by[i] - st->names] = (uint32_t)i;
		s->subsystems[i] = *by[i];
	}
	s->nsubsystems = st->nnames;
	/* The names now belong to s->subsystems. */
	st->nnames = 0;
	free(by);
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct snapshot_row *x = a, *y = b;

	if (x->snapshot != y->snapshot)
		return x->snapshot < y->snapshot ? -1 : 1;
	if (x->subsystem != y->subsystem)
		return x->subsystem < y->subsystem ? -1 : 1;
	return x->release < y->release ? -1 : x->release > y->release;
}

static void add_row(struct snapshots *s, const uint32_t *rank,
		    uint32_t pair, uint32_t release, uint64_t lines)
{
	const struct pair *p = &s->state->pairs[pair];
	struct snapshot *at = &s->list[p->snapshot];

	s->rows[s->nrows++] = (struct snapshot_row){
		p->snapshot, rank[p->subsystem], release, lines
	};
	at->by_release[release] += lines;
	at->lines += lines;
}

static int collect_rows(struct snapshots *s, const uint32_t *rank)
{
	struct snapshots_state *st = s->state;
	size_t nrel = st->rel->n, i, n = 0;

	for (i = 0; st->dense && i < st->npairs * nrel; i++)
		n += st->dense[i] != 0;
	if (!st->dense)
		n = st->ncells;
	if (!(s->rows = malloc((n ? n : 1) * sizeof(*s->rows))))
		return error_oom();
	for (i = 0; st->dense && i < st->npairs * nrel; i++)
		if (st->dense[i])
			add_row(s, rank, (uint32_t)(i / nrel),
				(uint32_t)(i % nrel), st->dense[i]);
	for (i = 0; !st->dense && i < st->cells_alloc; i++)
		if (st->cells[i].lines)
			add_row(s, rank, st->cells[i].pair,
				st->cells[i].release, st->cells[i].lines);
	if (s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), row_cmp);
	return 0;
}

double snapshots_share(const struct snapshots *s, size_t r, size_t k)
{
	uint64_t based = snapshots_based(s, r, k);

	if (!based)
		return -1;
	return 100.0 * (double)snapshots_survived(s, r, k) / (double)based;
}

uint64_t snapshots_based(const struct snapshots *s, size_t r, size_t k)
{
	size_t b = s->survival[r].base;

	if (b == SNAPSHOT_NONE || k < b)
		return 0;
	return s->based[r * s->n + k];
}

uint64_t snapshots_survived(const struct snapshots *s, size_t r, size_t k)
{
	size_t b = s->survival[r].base;

	if (b == SNAPSHOT_NONE || k < b)
		return 0;
	return s->survived[r * s->n + k];
}

/*
 * anc[k * words + c / 64], bit c % 64: commit c is snapshot k's or one
 * of its ancestors. Only when a snapshot is on a release branch (the
 * history has commits outside REV's); else NULL: the snapshots are then
 * on REV's history, each later one holding the commits of the earlier.
 */
static int ancestry(uint64_t **out, size_t *words, const struct snapshots *s)
{
	const struct history *h = s->state->h;
	size_t w = HISTORY_WORDS(h);
	uint64_t *anc;
	int rc = 0;

	*out = NULL;
	*words = w;
	if (h->nrev == h->n)
		return 0;
	if (!(anc = calloc(util_mul(w, s->n), sizeof(*anc))))
		return error_oom();
	for (size_t k = 0; k < s->n && rc == 0; k++)
		rc = history_mark_ancestors(h, s->list[k].commit, anc + k * w);
	if (rc < 0)
		free(anc);
	else
		*out = anc;
	return rc;
}

/* The lines of commit c in the counts of table t. */
static uint64_t kept_at(const struct kept_table *t, uint32_t c)
{
	return t->lines && c < t->n ? t->lines[c] : 0;
}

/*
 * For snapshot k: survived[r][k] gains, for each commit of release r
 * whose base b is k or before, the lesser of its lines at b and at k;
 * based[r][k] its lines at b, when snapshot k's history has the commit.
 * A pass down k's counts and b's, in commit order.
 */
static void survived_at(struct snapshots *s, size_t k, const uint64_t *anc,
			size_t words)
{
	const struct snapshots_state *st = s->state;
	const struct kept_table *t = &st->tables[k];
	const uint32_t *of = st->rel->of_commit;

	for (uint32_t c = 0; c < st->h->n; c++) {
		size_t r = of[c], b = s->survival[r].base;
		uint64_t at_base;

		if (b == SNAPSHOT_NONE || b > k ||
		    !(at_base = kept_at(&st->tables[b], c)))
			continue;
		s->survived[r * s->n + k] += snapshots_kept(at_base,
							    kept_at(t, c));
		if (!anc || history_bit(anc + k * words, c))
			s->based[r * s->n + k] += at_base;
	}
}

/*
 * survived[r][k]: for each commit of release r, the lesser of its lines
 * at r's base and at snapshot k, summed. Lines that blame moves into r
 * after its base (a merged side history, a commit re-attributed) are
 * never counted as survivors, so the share cannot pass 100%. based[r][k]:
 * what they are a share of, r's lines at its base from the commits that
 * snapshot k's history has: all of them when k descends from the base;
 * on release branches (redis's 2.2.0, forked before 2.3-alpha0), only
 * those both lines have, so that a branch that never had a release's
 * commits does not count them as gone.
 */
static int survived_sum(struct snapshots *s)
{
	size_t cells = util_mul(s->nreleases ? s->nreleases : 1, s->n);
	uint64_t *anc = NULL;
	size_t words;
	int rc;

	if ((rc = ancestry(&anc, &words, s)) < 0)
		return rc;
	s->survived = calloc(cells, sizeof(*s->survived));
	s->based = calloc(cells, sizeof(*s->based));
	if (!s->survived || !s->based) {
		free(anc);
		return error_oom();
	}
	for (size_t k = 0; k < s->n; k++)
		survived_at(s, k, anc, words);
	free(anc);
	return 0;
}

/*
 * The base of release r: its own snapshot, or (calendar snapshots) the
 * first one dated at or after its standing tag that holds some of its
 * lines.
 */
static size_t survival_base(const struct snapshots *s,
			    const struct releases *rel, size_t r)
{
	const struct release_tag *t = rel->list[r].standing;

	if (rel->list[r].unreleased || !t)
		return SNAPSHOT_NONE;
	for (size_t k = 0; k < s->n; k++) {
		if (s->when == SNAPSHOTS_RELEASES) {
			if (s->list[k].release == r)
				return s->list[k].by_release[r] ? k :
				       SNAPSHOT_NONE;
		} else if (s->list[k].date >= t->date &&
			   s->list[k].by_release[r]) {
			return k;
		}
	}
	return SNAPSHOT_NONE;
}

/*
 * When the share first falls below 50%, between two snapshots (those
 * whose history has none of the release's commits say nothing).
 */
static void half_life(struct snapshots *s, size_t r)
{
	struct snapshot_survival *sv = &s->survival[r];
	double prev = 100.0;
	size_t last = sv->base;

	for (size_t k = sv->base + 1; k < s->n; k++) {
		double now = snapshots_share(s, r, k), t;
		int64_t t0 = s->list[last].date, t1 = s->list[k].date;

		if (now < 0)
			continue;
		if (now >= 50.0) {
			prev = now;
			last = k;
			continue;
		}
		t = (double)t0 + (prev - 50.0) / (prev - now) *
		    (double)(t1 - t0);
		t -= (double)s->list[sv->base].date;
		sv->has_half_life = 1;
		sv->half_life_days = t > 0 ? t / 86400.0 : 0.0;
		return;
	}
}

int snapshots_finish(struct snapshots *s)
{
	uint32_t *rank = NULL;
	int rc;

	if ((rc = sort_subsystems(s, &rank)) == 0)
		rc = collect_rows(s, rank);
	free(rank);
	if (rc < 0)
		return rc;
	for (size_t r = 0; r < s->nreleases; r++)
		s->survival[r].base = survival_base(s, s->state->rel, r);
	if ((rc = survived_sum(s)) < 0)
		return rc;
	for (size_t r = 0; r < s->nreleases; r++)
		if (s->survival[r].base != SNAPSHOT_NONE)
			half_life(s, r);
	return 0;
}

static void state_free(struct snapshots_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nnames; i++)
		free(st->names[i]);
	free(st->names);
	free(st->name_slots);
	free(st->pairs);
	free(st->pair_slots);
	free(st->dense);
	free(st->cells);
	for (size_t k = 0; k < st->ntables; k++) {
		free(st->tables[k].lines);
		pthread_mutex_destroy(&st->tables[k].lock);
	}
	free(st->tables);
	free(st->first_base);
	free(st->commits);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

void snapshots_free(struct snapshots *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < s->n; k++) {
		free(s->list[k].name);
		free(s->list[k].by_release);
	}
	for (size_t i = 0; i < s->nsubsystems; i++)
		free(s->subsystems[i]);
	free(s->subsystems);
	free(s->list);
	free(s->rows);
	free(s->survival);
	free(s->survived);
	free(s->based);
	free(s->unsnapped);
	state_free(s->state);
	free(s);
}
