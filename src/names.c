#include "strata/names.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/error.h"
#include "strata/util.h"

const char *const names_reserved[] = {
	"index", "releases", "untouched", "history", "authors", "root",
	"data", "img", "strata", "404", NULL
};

/* Windows refuses these as a name's part before its first dot. */
static const char *const devices[] = {
	"con", "prn", "aux", "nul", NULL
};

/* Parent stems longer than this keep only a suffix per level. */
#define DEEP 400
/* "-" and six hex digits */
#define SUFFIX_LEN 7

static const struct {
	const char *prefix, *suffix;
} kinds[] = {
	[NAMES_PAGE] = {"", ".html"},
	[NAMES_CHART] = {"dir-", ""},
	[NAMES_HISTORY_CHART] = {"history-dir-", ""},
};

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int fold_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int d = lower((unsigned char)*a) - lower((unsigned char)*b);

		if (d || !*a)
			return d;
	}
}

static int keep_byte(unsigned char c, int keep_slash)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ||
	       (keep_slash && c == '/');
}

static int edge_byte(char c)
{
	return c == '.' || c == '-' || c == '_' || c == '/';
}

/* Whether the part of s before its first dot is a Windows device name. */
static int is_device(const char *s)
{
	size_t len = strcspn(s, ".");

	for (size_t i = 0; devices[i]; i++)
		if (len == 3 && !strncmp(s, devices[i], 3))
			return 1;
	if (len == 4 && (!strncmp(s, "com", 3) || !strncmp(s, "lpt", 3)) &&
	    s[3] >= '0' && s[3] <= '9')
		return 1;
	return 0;
}

/* Endings a stem must not have: a stem is also a directory beside files. */
static const char *const endings[] = {".html", ".png", ".svg", NULL};

/*
 * The readable form of s (at most `max` bytes) into `out` (room for
 * strlen(s) + 1); returns whether anything was lost, or must be told
 * apart by a suffix.
 */
static int readable(char *out, const char *s, size_t max, int keep_slash)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, start = 0;
	int lossy = 0, replaced = 0;
	char folded[8];

	for (; *p; p++) {
		if (keep_byte(*p, keep_slash)) {
			out[o++] = (char)*p;
			replaced = 0;
			continue;
		}
		lossy = 1;
		if (!replaced)
			out[o++] = '_';
		replaced = 1;
	}
	while (start < o && edge_byte(out[start]))
		start++;
	if (start) {
		lossy = 1;
		memmove(out, out + start, o - start);
		o -= start;
	}
	if (o > max) {
		lossy = 1;
		o = max;
		while (o && edge_byte(out[o - 1]))
			o--;
	}
	while (o && (out[o - 1] == '.' || out[o - 1] == '/')) {
		lossy = 1;
		o--;
	}
	out[o] = '\0';
	if (keep_slash)
		return lossy;
	for (size_t i = 0; i < sizeof(folded) - 1 && i < o; i++)
		folded[i] = (char)lower((unsigned char)out[i]);
	folded[o < sizeof(folded) - 1 ? o : sizeof(folded) - 1] = '\0';
	if (is_device(folded))
		lossy = 1;
	for (size_t i = 0; endings[i]; i++) {
		size_t len = strlen(endings[i]);

		if (o >= len && !fold_cmp(out + o - len, endings[i]))
			lossy = 1;
	}
	return lossy;
}

/* FNV-1a of the salt (when not 0) and s: six hex digits of it. */
static uint32_t hash6(const char *s, unsigned salt)
{
	uint32_t h = 2166136261u;

	for (unsigned k = salt; k; k >>= 8) {
		h ^= k & 0xff;
		h *= 16777619u;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	return (h ^ (h >> 24)) & 0xffffff;
}

/* A claim on a stem within one group of siblings (or of ids). */
struct claim {
	const char *text;      /* made readable */
	const char *id;        /* the whole path: hashed, and orders ties */
	char *base;            /* readable form of text */
	int lossy;
	char *stem;            /* the result */
};

/* base, cut to leave room for the suffix, then "-xxxxxx". */
static char *suffixed(const struct claim *c, unsigned salt, size_t max,
		      const char *fallback)
{
	size_t len = strlen(c->base);
	char *s;

	if (len + SUFFIX_LEN > max)
		len = max > SUFFIX_LEN ? max - SUFFIX_LEN : 0;
	while (len && edge_byte(c->base[len - 1]))
		len--;
	if (!len && !*fallback) {
		if (asprintf(&s, "%06x", (unsigned)hash6(c->id, salt)) < 0)
			return NULL;
		return s;
	}
	if (asprintf(&s, "%.*s-%06x", (int)(len ? len : strlen(fallback)),
		     len ? c->base : fallback,
		     (unsigned)hash6(c->id, salt)) < 0)
		return NULL;
	return s;
}

/* A sorted set of strings compared ignoring ASCII case. */
struct taken {
	const char **v;
	size_t n, alloc;
};

static size_t taken_find(const struct taken *t, const char *s, int *found)
{
	size_t lo = 0, hi = t->n;

	*found = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = fold_cmp(t->v[mid], s);

		if (!c) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Add s unless taken; 1 if added, 0 if taken, < 0 on error. */
static int taken_add(struct taken *t, const char *s)
{
	int found, rc;
	size_t at = taken_find(t, s, &found);

	if (found)
		return 0;
	if ((rc = UTIL_GROW(t->v, t->alloc, t->n + 1)) < 0)
		return rc;
	memmove(t->v + at + 1, t->v + at, (t->n - at) * sizeof(*t->v));
	t->v[at] = s;
	t->n++;
	return 1;
}

/* By candidate stem ignoring case, then by id bytewise. */
static int by_stem(const void *a, const void *b, void *claims)
{
	const struct claim *x = (const struct claim *)claims +
				*(const size_t *)a;
	const struct claim *y = (const struct claim *)claims +
				*(const size_t *)b;
	int c = fold_cmp(x->stem, y->stem);

	return c ? c : strcmp(x->id, y->id);
}

static int by_id(const void *a, const void *b, void *claims)
{
	const struct claim *c = claims;

	return strcmp(c[*(const size_t *)a].id, c[*(const size_t *)b].id);
}

/* Give each losing claim a suffix no other stem of the group has. */
static int settle(struct claim *c, const size_t *losers, size_t nlosers,
		  struct taken *taken, size_t max, const char *fallback)
{
	for (size_t k = 0; k < nlosers; k++) {
		struct claim *l = &c[losers[k]];
		int rc = 0;

		for (unsigned salt = 1; rc == 0; salt++) {
			if (salt > 100000)
				return error_set("no free name for '%s'",
						 l->id);
			free(l->stem);
			l->stem = suffixed(l, salt, max, fallback);
			if (!l->stem)
				return error_oom();
			rc = taken_add(taken, l->stem);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/*
 * Stems for n claims of one group: unique ignoring case, none of
 * `reserved` (NULL-terminated, or NULL).
 */
static int assign(struct claim *c, size_t n, const char *const *reserved,
		  size_t max, int keep_slash, const char *fallback)
{
	struct taken taken = {0};
	size_t *order = NULL, nlosers = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		c[i].base = malloc(strlen(c[i].text) + 1);
		if (!c[i].base)
			return error_oom();
		c[i].lossy = readable(c[i].base, c[i].text,
				      max < SUFFIX_LEN ? 0 : max, keep_slash);
		c[i].stem = c[i].lossy || !*c[i].base ?
			suffixed(&c[i], 0, max, fallback) : strdup(c[i].base);
		if (!c[i].stem)
			return error_oom();
	}
	order = malloc((n + 1) * sizeof(*order));
	if (!order)
		return error_oom();
	for (size_t i = 0; reserved && reserved[i]; i++)
		if ((rc = taken_add(&taken, reserved[i])) < 0)
			goto done;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_stem, c);
	/* The first of a run of equal stems keeps it, if it is free. */
	for (size_t i = 0; i < n; i++) {
		if ((rc = taken_add(&taken, c[order[i]].stem)) < 0)
			goto done;
		if (rc == 0)
			order[nlosers++] = order[i];
	}
	qsort_r(order, nlosers, sizeof(*order), by_id, c);
	rc = settle(c, order, nlosers, &taken, max, fallback);
done:
	free(order);
	free(taken.v);
	return rc < 0 ? rc : 0;
}

static void claims_free(struct claim *c, size_t n, int keep_stems)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].base);
		if (!keep_stems)
			free(c[i].stem);
	}
	free(c);
}

int names_ids(char **out, const char *const *keys, size_t n,
	      const char *prefix, int keep_slash)
{
	struct claim *c = calloc(n + 1, sizeof(*c));
	int rc;

	if (!c)
		return error_oom();
	for (size_t i = 0; i < n; i++) {
		c[i].text = strcmp(keys[i], ".") ? keys[i] : "root";
		c[i].id = keys[i];
	}
	rc = assign(c, n, NULL, 4 * NAMES_STEM_MAX, keep_slash, "");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (asprintf(&out[i], "%s%s", prefix, c[i].stem) < 0) {
			while (i--)
				free(out[i]);
			rc = error_oom();
		}
	}
	claims_free(c, n, 0);
	return rc;
}

/* ---- the names of directories ---- */

struct entry {
	char *path;
	size_t parent;         /* index, or SIZE_MAX at the top */
	unsigned level;
	char *stem_path;       /* "arch/x86" */
};

struct names {
	struct entry *v;       /* sorted by path */
	size_t n;
};

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A path's first len bytes, to look up. */
struct key {
	const char *path;
	size_t len;
};

static int cmp_key(const void *k, const void *e)
{
	const struct key *key = k;
	const char *path = ((const struct entry *)e)->path;
	int c = strncmp(key->path, path, key->len);

	return c ? c : -(path[key->len] != '\0');
}

static size_t find(const struct names *n, const char *path, size_t len)
{
	struct key key = {path, len};
	const struct entry *e = bsearch(&key, n->v, n->n, sizeof(*n->v),
					cmp_key);

	return e ? (size_t)(e - n->v) : SIZE_MAX;
}

/* Every directory of the tally and each of its parents, sorted, once. */
static int collect(struct names *n, const struct tally *t)
{
	char **paths;
	size_t np = 0, alloc = 16;

	paths = malloc(alloc * sizeof(*paths));
	if (!paths)
		return error_oom();
	for (size_t i = 0; i < t->ndirs; i++) {
		const char *p = t->dirs[i].path, *s = p;

		if (!*p)
			continue;
		do {
			s = strchr(s + 1, '/');
			if (UTIL_GROW(paths, alloc, np + 1) < 0)
				goto oom;
			paths[np] = s ? strndup(p, (size_t)(s - p)) :
				    strdup(p);
			if (!paths[np++])
				goto oom;
		} while (s);
	}
	qsort(paths, np, sizeof(*paths), cmp_path);
	n->v = calloc(np + 1, sizeof(*n->v));
	if (!n->v)
		goto oom;
	for (size_t i = 0; i < np; i++) {
		if (n->n && !strcmp(n->v[n->n - 1].path, paths[i])) {
			free(paths[i]);
			continue;
		}
		n->v[n->n++].path = paths[i];
	}
	free(paths);
	return 0;
oom:
	while (np--)
		free(paths[np]);
	free(paths);
	return error_oom();
}

/* By level, then parent, then path: each group of siblings in a run. */
static int by_group(const void *a, const void *b, void *entries)
{
	const struct entry *x = (const struct entry *)entries +
				*(const size_t *)a;
	const struct entry *y = (const struct entry *)entries +
				*(const size_t *)b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Stems for the siblings order[0..m), whose parents are named. */
static int name_group(struct names *n, const size_t *order, size_t m)
{
	const struct entry *first = &n->v[order[0]];
	const char *parent = first->parent == SIZE_MAX ? NULL :
			     n->v[first->parent].stem_path;
	struct claim *c = calloc(m + 1, sizeof(*c));
	size_t nc = 0;
	int rc;

	if (!c)
		return error_oom();
	for (size_t k = 0; k < m; k++) {
		struct entry *e = &n->v[order[k]];
		const char *slash = strrchr(e->path, '/');

		if (!parent && !strcmp(e->path, ".")) {
			if (!(e->stem_path = strdup("root"))) {
				claims_free(c, nc, 0);
				return error_oom();
			}
			continue;
		}
		c[nc].text = slash ? slash + 1 : e->path;
		c[nc++].id = e->path;
	}
	rc = assign(c, nc, parent ? NULL : names_reserved,
		    parent && strlen(parent) > DEEP ? 0 : NAMES_STEM_MAX, 0,
		    "dir");
	for (size_t k = 0, i = 0; rc == 0 && k < m; k++) {
		struct entry *e = &n->v[order[k]];

		if (e->stem_path)
			continue;
		if (asprintf(&e->stem_path, "%s%s%s", parent ? parent : "",
			     parent ? "/" : "", c[i++].stem) < 0) {
			e->stem_path = NULL;
			rc = error_oom();
		}
	}
	claims_free(c, nc, 0);
	return rc;
}

int names_new(struct names **out, const struct tally *t)
{
	struct names *n = calloc(1, sizeof(*n));
	size_t *order = NULL;
	int rc;

	*out = NULL;
	if (!n)
		return error_oom();
	if ((rc = collect(n, t)) < 0)
		goto done;
	for (size_t i = 0; i < n->n; i++) {
		struct entry *e = &n->v[i];
		const char *slash = strrchr(e->path, '/');

		e->level = 1;
		for (const char *p = e->path; (p = strchr(p, '/')); p++)
			e->level++;
		e->parent = slash ? find(n, e->path,
					 (size_t)(slash - e->path)) :
			    SIZE_MAX;
	}
	order = malloc((n->n + 1) * sizeof(*order));
	if (!order) {
		rc = error_oom();
		goto done;
	}
	for (size_t i = 0; i < n->n; i++)
		order[i] = i;
	qsort_r(order, n->n, sizeof(*order), by_group, n->v);
	for (size_t i = 0, j; i < n->n; i = j) {
		const struct entry *e = &n->v[order[i]];

		for (j = i + 1; j < n->n && n->v[order[j]].level == e->level &&
		     n->v[order[j]].parent == e->parent; j++)
			;
		if ((rc = name_group(n, order + i, j - i)) < 0)
			goto done;
	}
	*out = n;
	n = NULL;
done:
	free(order);
	names_free(n);
	return rc;
}

void names_free(struct names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		free(n->v[i].path);
		free(n->v[i].stem_path);
	}
	free(n->v);
	free(n);
}

int names_get(char **out, const struct names *n, const char *path,
	      enum names_kind kind)
{
	const char *stem;
	size_t i;

	*out = NULL;
	if (!*path) {
		stem = kind == NAMES_PAGE ? "index" : "releases";
		if (asprintf(out, "%s%s", stem,
			     kind == NAMES_PAGE ? ".html" : "") < 0)
			*out = NULL;
		return *out ? 0 : error_oom();
	}
	i = find(n, path, strlen(path));
	if (i == SIZE_MAX)
		return error_set("no name for directory '%s'", path);
	if (asprintf(out, "%s%s%s", kinds[kind].prefix, n->v[i].stem_path,
		     kinds[kind].suffix) < 0) {
		*out = NULL;
		return error_oom();
	}
	return 0;
}

int names_make_parents(const char *base, const char *rel)
{
	char *p;
	int rc = 0;

	if (asprintf(&p, "%s/%s", base, rel) < 0)
		return error_oom();
	for (char *s = p + strlen(base) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			rc = error_set("unable to create '%s': %s", p,
				       strerror(errno));
			break;
		}
		*s = '/';
	}
	free(p);
	return rc;
}
