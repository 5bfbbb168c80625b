/*
 * rename pairs: git log's rename detection over a whole tree diff, every
 * added file a destination (rename.h, rename_pairs()).
 *
 * git 2.39's diffcore_rename() without copies, in its three steps: exact
 * matches (same blob; a source serves once), then basenames held by one
 * remaining source and one remaining destination (at least 75%), then
 * the matrix: each destination keeps its four best sources (score, then
 * same basename), all kept pairs are sorted stably by the same order,
 * and taken best first while neither side is used and the score is at
 * least 50%. The matrix is skipped when it would be larger than the
 * rename limit squared. Scores are rename_score()'s, git's
 * estimate_similarity().
 */
#include "strata/rename.h"

#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/util.h"

#define MIN_SCORE (RENAME_MAX_SCORE / 2)
#define BASENAME_SCORE (MIN_SCORE + (RENAME_MAX_SCORE - MIN_SCORE) / 2)
#define CANDIDATES 4
#define EXACT_TRIES 100

static int regular(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int same_base(const char *a, const char *b)
{
	return !strcmp(base_of(a), base_of(b));
}

/* Step 1: for each destination, an unused source with its blob. */
static void exact(int *match, char *used, const struct rename_source *srcs,
		  size_t nsrcs, const struct rename_source *dsts, size_t ndsts)
{
	for (size_t d = 0; d < ndsts; d++) {
		int best = -1, best_score = -1, tries = EXACT_TRIES;

		for (size_t s = 0; s < nsrcs && tries; s++) {
			int score;

			if (used[s] || !git_oid_equal(&srcs[s].oid, &dsts[d].oid))
				continue;
			if ((!regular(srcs[s].mode) || !regular(dsts[d].mode)) &&
			    srcs[s].mode != dsts[d].mode)
				continue;
			score = 1 + same_base(srcs[s].path, dsts[d].path);
			if (score > best_score) {
				best = (int)s;
				best_score = score;
				if (score == 2)
					break;
			}
			tries--;
		}
		if (best >= 0) {
			match[d] = best;
			used[best] = 1;
		}
	}
}

/* How many of the remaining paths have the basename of `path`. */
static size_t base_count(const struct rename_source *v, size_t n,
			 const char *skip, int dsts, const int *match,
			 const char *path)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (dsts ? match[i] >= 0 : skip[i])
			continue;
		k += same_base(v[i].path, path);
	}
	return k;
}

/* Step 2: a basename that one source and one destination have. */
static int basenames(int *match, char *used, struct rename_detector *rd,
		     const struct rename_source *srcs, size_t nsrcs,
		     const struct rename_source *dsts, size_t ndsts)
{
	/* The uniqueness is judged before this step's matches. */
	char *gone = malloc(nsrcs ? nsrcs : 1);
	int *open = malloc((ndsts ? ndsts : 1) * sizeof(*open));
	int rc = 0;

	if (!gone || !open) {
		rc = error_oom();
		goto done;
	}
	memcpy(gone, used, nsrcs);
	memcpy(open, match, ndsts * sizeof(*open));
	for (size_t s = 0; s < nsrcs && rc == 0; s++) {
		size_t d;
		int score;

		if (gone[s] || base_count(srcs, nsrcs, gone, 0, NULL,
					  srcs[s].path) != 1 ||
		    base_count(dsts, ndsts, NULL, 1, open, srcs[s].path) != 1)
			continue;
		for (d = 0; d < ndsts; d++)
			if (open[d] < 0 && same_base(dsts[d].path,
						     srcs[s].path))
				break;
		if (match[d] >= 0)
			continue;
		rc = rename_score(&score, rd, srcs[s].mode, &srcs[s].oid,
				  dsts[d].mode, &dsts[d].oid, MIN_SCORE);
		if (rc == 0 && score >= BASENAME_SCORE) {
			match[d] = (int)s;
			used[s] = 1;
		}
	}
done:
	free(gone);
	free(open);
	return rc;
}

struct cand {
	int score, name;
	int dst, src;           /* dst < 0: an empty slot */
	size_t order;           /* its place, for a stable sort */
};

/* git's score_compare(): > 0 when a ranks after b. */
static int cand_rank(const struct cand *a, const struct cand *b)
{
	if (a->dst < 0)
		return b->dst >= 0;
	if (b->dst < 0)
		return -1;
	if (a->score == b->score)
		return b->name - a->name;
	return b->score - a->score;
}

static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	int r = cand_rank(a, b);

	if (r)
		return r;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* git's record_if_better(): replace the worst of m[] if o beats it. */
static void keep_better(struct cand *m, const struct cand *o)
{
	int worst = 0;

	for (int i = 1; i < CANDIDATES; i++)
		if (cand_rank(&m[i], &m[worst]) > 0)
			worst = i;
	if (cand_rank(&m[worst], o) > 0)
		m[worst] = *o;
}

/* Step 3: the matrix of the rest. */
static int matrix(int *match, char *used, struct rename_detector *rd,
		  const struct rename_source *srcs, size_t nsrcs,
		  const struct rename_source *dsts, size_t ndsts, size_t limit)
{
	size_t ns = 0, nd = 0, k = 0;
	struct cand *mx;
	int rc = 0;

	for (size_t s = 0; s < nsrcs; s++)
		ns += !used[s];
	for (size_t d = 0; d < ndsts; d++)
		nd += match[d] < 0;
	if (!ns || !nd || (limit && util_mul(ns, nd) > util_mul(limit, limit)))
		return 0;
	if (!(mx = malloc(util_mul(nd * CANDIDATES, sizeof(*mx)))))
		return error_oom();
	for (size_t d = 0; d < ndsts && rc == 0; d++) {
		struct cand *m = &mx[k * CANDIDATES];

		if (match[d] >= 0)
			continue;
		for (int j = 0; j < CANDIDATES; j++)
			m[j] = (struct cand){ 0, 0, -1, -1, 0 };
		for (size_t s = 0; s < nsrcs && rc == 0; s++) {
			struct cand c = { 0, same_base(srcs[s].path,
						       dsts[d].path),
					  (int)d, (int)s, 0 };

			if (used[s])
				continue;
			rc = rename_score(&c.score, rd, srcs[s].mode,
					  &srcs[s].oid, dsts[d].mode,
					  &dsts[d].oid, MIN_SCORE);
			keep_better(m, &c);
		}
		k++;
	}
	for (size_t i = 0; i < k * CANDIDATES; i++)
		mx[i].order = i;
	if (rc == 0)
		qsort(mx, k * CANDIDATES, sizeof(*mx), cand_cmp);
	for (size_t i = 0; rc == 0 && i < k * CANDIDATES; i++) {
		if (mx[i].dst < 0 || mx[i].score < MIN_SCORE)
			break;
		if (match[mx[i].dst] >= 0 || used[mx[i].src])
			continue;
		match[mx[i].dst] = mx[i].src;
		used[mx[i].src] = 1;
	}
	free(mx);
	return rc;
}

int rename_pairs(int *match, struct rename_detector *rd,
		 const struct rename_source *srcs, size_t nsrcs,
		 const struct rename_source *dsts, size_t ndsts, size_t limit)
{
	char *used;
	int rc;

	for (size_t d = 0; d < ndsts; d++)
		match[d] = -1;
	if (!nsrcs || !ndsts)
		return 0;
	if (!(used = calloc(nsrcs, 1)))
		return error_oom();
	exact(match, used, srcs, nsrcs, dsts, ndsts);
	rc = basenames(match, used, rd, srcs, nsrcs, dsts, ndsts);
	if (rc == 0)
		rc = matrix(match, used, rd, srcs, nsrcs, dsts, ndsts, limit);
	free(used);
	return rc;
}
