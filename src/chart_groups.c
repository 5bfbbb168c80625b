/*
 * chart groups: the bars of a chart of many releases. When releases are
 * more than the bars a chart has room for, they are grouped by version
 * ("v2.6.x") or by year, whichever gives more bars. The site groups its
 * tables the same way (chart.h).
 */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

/* ------------------------------------------------------------------ */
/* Groups of releases: the bars of a chart of many releases */

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/*
 * The end of the first `level` numbers of a version name: non-digits,
 * then numbers separated by '.' or '_' ("v2.6.39"); 0 when `s` is not
 * one. *got receives how many numbers that end takes in.
 */
static size_t version_cut(const char *s, size_t level, size_t *got)
{
	size_t i = strcspn(s, "0123456789"), k = 0;

	*got = 0;
	if (!s[i])
		return 0;
	for (;;) {
		while (is_digit(s[i]))
			i++;
		if (++k == level || (s[i] != '.' && s[i] != '_') ||
		    !is_digit(s[i + 1]))
			break;
		i++;
	}
	*got = k;
	return i;
}

/*
 * Give released release i the bar of the first with the same key, in
 * order of first appearance: the number of bars, or SIZE_MAX when that
 * is more than max.
 */
static size_t groups_assign(struct chart_groups *g, char *const *keys,
			    size_t nrel, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < nrel; i++) {
		for (j = 0; j < n && strcmp(keys[g->first[j]], keys[i]); j++)
			;
		if (j == n) {
			if (n == max)
				return SIZE_MAX;
			g->first[n++] = i;
		}
		g->of[i] = j;
	}
	return n;
}

static void keys_clear(char **keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(keys[i]);
		keys[i] = NULL;
	}
}

/* keys[i]: the first `level` numbers of release i's name, with its prefix. */
static int version_keys(char **keys, const struct tally *t, size_t nrel,
			size_t level)
{
	size_t i, got;

	keys_clear(keys, nrel);
	for (i = 0; i < nrel; i++) {
		const char *s = t->releases[i].name;

		keys[i] = strndup(s, version_cut(s, level, &got));
		if (!keys[i])
			return error_oom();
	}
	return 0;
}

/*
 * The label of bar j by version: the numbers all its names share, then
 * ".x" ("v2.6.x"); its name when it has one release.
 */
static int version_label(struct chart_groups *g, const struct tally *t,
			 size_t nrel, size_t j)
{
	const char *s = t->releases[g->first[j]].name, *sep = ".";
	size_t level, got, cut = 0, i, many = 0;

	for (level = 1;; level++) {
		size_t c = version_cut(s, level, &got);
		int all = got == level;

		for (i = g->first[j] + 1; i < nrel && all; i++) {
			const char *o = t->releases[i].name;

			if (g->of[i] == j)
				all = !strncmp(o, s, c) && !is_digit(o[c]);
		}
		if (!all)
			break;
		cut = c;
	}
	for (i = g->first[j] + 1; i < nrel; i++) {
		if (g->of[i] != j)
			continue;
		many = 1;
		if (t->releases[i].name[cut] == '_')
			sep = "_";
	}
	if (!many)
		g->labels[j] = strdup(s);
	else if (asprintf(&g->labels[j], "%.*s%sx", (int)cut, s, sep) < 0)
		g->labels[j] = NULL;
	return g->labels[j] ? 0 : error_oom();
}

/* By version (chart_groups_build): 1 when done, 0 when not possible. */
static int groups_by_version(struct chart_groups *g, const struct tally *t,
			     size_t nrel, size_t max, char **keys)
{
	size_t depth = 0, level, best = 0, got, n, j;
	int rc;

	for (j = 0; j < nrel; j++) {
		if (!version_cut(t->releases[j].name, SIZE_MAX, &got))
			return 0;
		depth = got > depth ? got : depth;
	}
	for (level = 1; level <= depth; level++) {
		if ((rc = version_keys(keys, t, nrel, level)))
			return rc;
		n = groups_assign(g, keys, nrel, max);
		if (n == SIZE_MAX)
			break;
		if (n >= 2)
			best = level;
	}
	if (!best)
		return 0;
	if ((rc = version_keys(keys, t, nrel, best)))
		return rc;
	g->nrel = groups_assign(g, keys, nrel, max);
	g->n = g->nrel;
	for (j = 0; j < g->nrel; j++)
		if ((rc = version_label(g, t, nrel, j)))
			return rc;
	g->by = CHART_BY_VERSION;
	return 1;
}

/* keys[i]: the first year of the span of `span` years of release i. */
static int year_keys(char **keys, const struct tally *t, size_t nrel,
		     int span)
{
	size_t i;

	keys_clear(keys, nrel);
	for (i = 0; i < nrel; i++) {
		const struct release *r = t->releases[i].release;
		int y = chart_year_of(r->standing ? r->standing->date
					    : r->first_date);

		y -= ((y % span) + span) % span;
		if (asprintf(&keys[i], "%d", y) < 0) {
			keys[i] = NULL;
			return error_oom();
		}
	}
	return 0;
}

/* By year (chart_groups_build): 1 when done, 0 when not possible. */
static int groups_by_year(struct chart_groups *g, const struct tally *t,
			  size_t nrel, size_t max, char **keys)
{
	static const int spans[] = { 1, 2, 5, 10, 20, 50, 100, 1000 };
	size_t i, j, n = SIZE_MAX;
	int rc;

	for (i = 0; i < nrel; i++) {
		const struct release *r = t->releases[i].release;

		if (!r || (!r->first_date && !r->standing))
			return 0;
	}
	for (i = 0; i < sizeof(spans) / sizeof(*spans) && n > max; i++) {
		if ((rc = year_keys(keys, t, nrel, spans[i])))
			return rc;
		n = groups_assign(g, keys, nrel, max);
	}
	if (n < 2 || n > max)
		return 0;
	g->n = g->nrel = n;
	for (j = 0; j < n; j++) {
		const char *k = keys[g->first[j]];
		int y = atoi(k);

		if (spans[i - 1] == 1)
			g->labels[j] = strdup(k);
		else if (asprintf(&g->labels[j], "%d\xe2\x80\x93%d", y,
				  y + spans[i - 1] - 1) < 0)
			g->labels[j] = NULL;
		if (!g->labels[j])
			return error_oom();
	}
	g->by = CHART_BY_YEAR;
	return 1;
}

void chart_groups_release(struct chart_groups *g)
{
	size_t i;

	if (g->labels)
		for (i = 0; i < g->n; i++)
			free(g->labels[i]);
	free(g->labels);
	free(g->of);
	free(g->first);
	memset(g, 0, sizeof(*g));
}

/* A bar per release from release `from` on, after the bars so far. */
static int groups_each(struct chart_groups *g, const struct tally *t,
		       size_t from)
{
	size_t i;

	for (i = from; i < t->nreleases; i++) {
		size_t j = g->n++;

		g->of[i] = j;
		g->first[j] = i;
		if (!(g->labels[j] = strdup(t->releases[i].name)))
			return error_oom();
	}
	return 0;
}

static int groups_alloc(struct chart_groups *g, size_t n)
{
	memset(g, 0, sizeof(*g));
	g->of = calloc(n + 1, sizeof(*g->of));
	g->first = calloc(n + 1, sizeof(*g->first));
	g->labels = calloc(n + 1, sizeof(*g->labels));
	return g->of && g->first && g->labels ? 0 : error_oom();
}

/*
 * By version or by year, whichever gives more bars (version on a tie):
 * 130 releases v1.0..v2.64 over ten years make ten bars, not two. 1 when
 * done, 0 when neither can.
 */
static int groups_pick(struct chart_groups *out, const struct tally *t,
		       size_t nrel, size_t max, char **keys)
{
	struct chart_groups y;
	int v, rc;

	if ((v = groups_by_version(out, t, nrel, max, keys)) < 0)
		return v;
	if ((rc = groups_alloc(&y, t->nreleases)) ||
	    (rc = groups_by_year(&y, t, nrel, max, keys)) <= 0) {
		chart_groups_release(&y);
		return rc < 0 ? rc : v;
	}
	if (!v || y.nrel > out->nrel) {
		chart_groups_release(out);
		*out = y;
	} else {
		chart_groups_release(&y);
	}
	return 1;
}

int chart_groups_build(struct chart_groups *out, const struct tally *t,
		       size_t max)
{
	size_t nrel = chart_released_count(t);
	char **keys = calloc(nrel + 1, sizeof(*keys));
	int rc;

	if ((rc = groups_alloc(out, t->nreleases)) || (!keys &&
	    (rc = error_oom())))
		goto done;
	if (max < 2)
		max = 2;
	if (nrel > max && (rc = groups_pick(out, t, nrel, max, keys)) < 0)
		goto done;
	out->n = out->nrel;
	if ((rc = groups_each(out, t, out->by == CHART_BY_RELEASE ? 0 : nrel)))
		goto done;
	if (out->by == CHART_BY_RELEASE)
		out->nrel = nrel;
done:
	if (keys)
		keys_clear(keys, nrel);
	free(keys);
	if (rc)
		chart_groups_release(out);
	return rc;
}
