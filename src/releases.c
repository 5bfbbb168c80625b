/*
 * releases: which release wrote each commit.
 *
 * Tags are read from refs/tags/ (loose and packed), filtered by the --tags
 * expression, dated (tagger date of the tag object that points at the
 * commit, as git name-rev does; commit date for lightweight tags) and
 * sorted by (date, name). Each tag then claims its ancestors that no
 * earlier tag has claimed, so every commit is visited once and belongs to
 * the earliest-dated tag that contains it. A tag off REV's history
 * (RELEASES_DATED) walks the commits off it once between them all, and
 * claims the commits of the history it reaches the same way. See
 * docs/releases.md.
 */
#include "strata/releases.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/util.h"
#include "strata/odb.h"

/*
 * Optional project prefix ("jq-", "curl-", "OpenSSL_", "release-"), a
 * version of two or more numbers separated by '.' or '_' (letters may lead
 * it: "v", "go"), or a single number after 'v' (systemd's v255), an
 * optional patch letter (tmux's 3.0a, OpenSSL's 1.0.2k), and an optional
 * pre-release suffix. No '/': namespaced tags ("debian/1.2-3") are not
 * versions of this project.
 */
const char releases_default_tags[] =
	"([A-Za-z][A-Za-z0-9]*[-_])*"
	"([A-Za-z]*[0-9]+([._][0-9]+)+[a-z]?|[vV][0-9]+)"
	"([-_.]?(rc|RC|alpha|beta|pre)([-_.]?[0-9]+)?|[ab][0-9]+)?";

/*
 * The default grouping: a pre-release suffix after the version's last
 * digit (or patch letter) is dropped. "a"/"b" count as pre-release markers
 * only when a number follows (PEP 440's 3.12.0a1); a bare trailing letter
 * is a release of its own (tmux 3.0a).
 */
static const char prerelease_ere[] =
	"(.*[0-9][A-Za-z]?)"
	"([-_.]?(rc|RC|alpha|beta|pre)([-_.]?[0-9]+)?|[ab][0-9]+)";

#define NO_RELEASE UINT32_MAX

/* Compiled expressions for naming releases. */
struct namer {
	regex_t group;
	regex_t strip;
	unsigned has_group:1, has_strip:1;
};

/* A matching tag on its way to a release. */
struct tag_entry {
	char *name;
	int64_t date;
	uint32_t commit;      /* history index, or RELEASES_OFF_HISTORY */
	git_oid oid;          /* the tagged commit */
	char *release;        /* release name */
	uint32_t rel;         /* index into the release list */
	unsigned reaches:1;   /* contains a commit of REV's history */
	unsigned contains_rev:1; /* contains REV's commit */
};

struct collector {
	const struct history *h;
	struct repository *repo;
	git_odb *odb;
	regex_t *tags;
	enum releases_scope scope;
	int64_t rev_date;     /* REV's committer date */
	struct tag_entry *v;
	size_t n, alloc;
	size_t nmatched;      /* matching tags, wherever they point */
	size_t noutside;      /* matching commit tags off the history */
	size_t nlater;        /* of those, dated after REV (RELEASES_DATED) */
	size_t nskipped;      /* matching tags not pointing at a commit */
	int err;
};

/*
 * glibc compiles a repetition by copying what it repeats: "x+" is "xx*",
 * "x{3}" is "xxx", so each '+' stacked on another doubles the program
 * ("@" and twenty '+' take 700 MB and 2 s). The expansion is estimated
 * here, atoms times the repetitions around them, and held to a bound.
 */
#define ERE_SIZE_MAX 50000
#define ERE_DEPTH_MAX 64

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > (ERE_SIZE_MAX + 1) / b ? ERE_SIZE_MAX + 1 : a * b;
}

/* What repetition q (at *pp, moved past it) multiplies by; 0: none. */
static uint64_t repeat_of(const char **pp)
{
	const char *p = *pp;
	unsigned long m, n;
	char *end;

	if (*p == '*' || *p == '?') {
		*pp = p + 1;
		return 1;
	}
	if (*p == '+') {
		*pp = p + 1;
		return 2;
	}
	if (*p != '{' || p[1] < '0' || p[1] > '9')
		return 0;
	m = n = strtoul(p + 1, &end, 10);
	if (*end == ',') {
		n = end[1] >= '0' && end[1] <= '9' ? strtoul(end + 1, &end, 10)
						    : m + 1;
		if (*end == ',')
			end++;
	}
	if (*end != '}')
		return 0;
	*pp = end + 1;
	return (m > n ? m : n) ? (m > n ? m : n) : 1;
}

/* Past the bracket expression that starts after '[' at p. */
static const char *bracket_end(const char *p)
{
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *q = strchr(p + 2, p[1]);

			while (q && q[1] != ']')
				q = strchr(q + 1, p[1]);
			if (!q)
				return p + strlen(p);
			p = q + 2;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : p;
}

static uint64_t ere_size(const char *p)
{
	uint64_t total[ERE_DEPTH_MAX + 1] = { 0 }, last = 0, m;
	int depth = 0, repeated = 0;

	while (*p) {
		if ((m = repeat_of(&p)) != 0) {
			/*
			 * A repetition of a repetition ("a+?", "a*+"): POSIX
			 * leaves it undefined, and glibc takes minutes and
			 * gigabytes on a dozen of them in a row.
			 */
			if (repeated++)
				return ERE_SIZE_MAX + 1;
			total[depth] += sat_mul(last, m) - last;
			last = sat_mul(last, m);
			continue;
		}
		repeated = 0;
		if (*p == '(') {
			if (depth == ERE_DEPTH_MAX)
				return ERE_SIZE_MAX + 1;
			total[++depth] = 0;
			last = 0;
			p++;
		} else if (*p == ')' && depth) {
			last = total[depth--];
			total[depth] += last;
			p++;
		} else if (*p == '|') {
			last = 0;
			p++;
		} else {
			if (*p == '[')
				p = bracket_end(p + 1);
			else
				p += p[0] == '\\' && p[1] ? 2 : 1;
			last = 1;
			total[depth]++;
		}
		if (total[depth] > ERE_SIZE_MAX)
			return ERE_SIZE_MAX + 1;
	}
	return total[0];
}

static int compile(regex_t *re, const char *ere, const char *what)
{
	int rc;

	if (ere_size(ere) > ERE_SIZE_MAX)
		return error_setc(STRATA_EUSAGE,
				  "invalid %s expression '%s': too large once "
				  "its repetitions are written out (more than "
				  "%d characters), or a repetition repeated", what, ere, ERE_SIZE_MAX);
	rc = regcomp(re, ere, REG_EXTENDED);

	if (rc) {
		char msg[256];

		regerror(rc, re, msg, sizeof(msg));
		return error_setc(STRATA_EUSAGE,
				  "invalid %s expression '%s': %s", what, ere,
				  msg);
	}
	return 0;
}

/*
 * 1 if `re` matches the whole of `s`. POSIX regexec() returns the
 * leftmost-longest match, so a match spanning the string exists exactly
 * when the match found starts at 0 and ends at the end. Checking this
 * rather than wrapping the expression in ^(...)$ keeps the user's
 * subexpressions numbered as written.
 */
static int match_whole(const regex_t *re, const char *s, regmatch_t *m,
		       size_t nm)
{
	if (regexec(re, s, nm, m, 0))
		return 0;
	return m[0].rm_so == 0 && (size_t)m[0].rm_eo == strlen(s);
}

static void namer_release(struct namer *nm)
{
	if (nm->has_group)
		regfree(&nm->group);
	if (nm->has_strip)
		regfree(&nm->strip);
	nm->has_group = nm->has_strip = 0;
}

static int namer_init(struct namer *nm, const struct releases_options *opts)
{
	int rc;

	memset(nm, 0, sizeof(*nm));
	if (opts && opts->group_ere) {
		rc = compile(&nm->group, opts->group_ere, "--group");
		if (rc)
			return rc;
		nm->has_group = 1;
		if (nm->group.re_nsub < 1) {
			rc = error_setc(STRATA_EUSAGE,
					"invalid --group expression '%s': "
					"no (subexpression) to name the release",
					opts->group_ere);
			namer_release(nm);
			return rc;
		}
	}
	if (regcomp(&nm->strip, prerelease_ere, REG_EXTENDED)) {
		namer_release(nm);
		return error_set("unable to compile the pre-release expression");
	}
	nm->has_strip = 1;
	return 0;
}

/* The release name of `tag`; *grouped (when given): --group named it. */
static int namer_name(char **out, const struct namer *nm, const char *tag,
		      int *grouped)
{
	regmatch_t m[10];
	size_t so = 0, eo = strlen(tag);

	if (grouped)
		*grouped = 0;
	if (nm->has_group && match_whole(&nm->group, tag, m, 10) &&
	    m[1].rm_so >= 0 && m[1].rm_eo > m[1].rm_so) {
		so = m[1].rm_so;
		eo = m[1].rm_eo;
		if (grouped)
			*grouped = 1;
	} else if (match_whole(&nm->strip, tag, m, 10) && m[1].rm_eo > 0) {
		eo = m[1].rm_eo;
	}
	*out = strndup(tag + so, eo - so);
	return *out ? 0 : error_oom();
}

/*
 * The release a tag belongs to: its --group name when that matches,
 * else its version: its name less a pre-release suffix, trailing zero
 * components and a leading 'v' ("7.0.0", "7.0" and "7.0-rc1" are all
 * "7", "v5.2.0" is "5.2"), so that one version is one release however
 * its tags spell it. The release is shown by its standing tag's name
 * (name_releases()).
 */
static int namer_key(char **out, const struct namer *nm, const char *tag)
{
	size_t n;
	char *k;
	int rc, grouped;

	if ((rc = namer_name(out, nm, tag, &grouped)) < 0 || grouped)
		return rc;
	k = *out;
	n = strlen(k);
	for (;;) {
		size_t z = n;

		while (z > 0 && k[z - 1] == '0')
			z--;
		/* "[0-9][._]0+" at the end: drop the separator and zeros. */
		if (z == n || z < 2 || (k[z - 1] != '.' && k[z - 1] != '_') ||
		    k[z - 2] < '0' || k[z - 2] > '9')
			break;
		n = z - 1;
	}
	k[n] = '\0';
	/* "v2.0.0" and "2.0.0" are one version too. */
	if ((k[0] == 'v' || k[0] == 'V') && k[1] >= '0' && k[1] <= '9')
		memmove(k, k + 1, n);
	return 0;
}

int releases_check_options(const struct releases_options *opts)
{
	const char *tags = opts && opts->tags_ere ? opts->tags_ere
						  : releases_default_tags;
	struct namer nm;
	regex_t re;
	int rc;

	rc = compile(&re, tags, "--tags");
	if (rc)
		return rc;
	regfree(&re);
	rc = namer_init(&nm, opts);
	if (rc)
		return rc;
	namer_release(&nm);
	return 0;
}

int releases_name_for_tag(char **out, const struct releases_options *opts,
			  const char *tag)
{
	struct namer nm;
	int rc;

	*out = NULL;
	rc = namer_init(&nm, opts);
	if (rc)
		return rc;
	rc = namer_name(out, &nm, tag, NULL);
	namer_release(&nm);
	return rc;
}

static int push_tag(struct collector *c, const char *name, int64_t date,
		    uint32_t commit, const git_oid *oid)
{
	struct tag_entry *e;

	if (UTIL_GROW(c->v, c->alloc, c->n + 1) < 0)
		return STRATA_ENOMEM;
	e = &c->v[c->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return error_oom();
	e->date = date;
	e->commit = commit;
	git_oid_cpy(&e->oid, oid);
	c->n++;
	return 0;
}

/*
 * A matching tag on commit `oid` off REV's history: it counts with
 * RELEASES_DATED when dated no later than REV's commit. `dated`: the tag
 * has a tagger date; else it takes its commit's date. `idx`: the
 * commit's index when the history has it (outside REV's), else -1.
 */
static int add_outside(struct collector *c, const char *name,
		       const git_oid *oid, int64_t idx, int64_t date,
		       int dated)
{
	git_oid *parents = NULL;
	uint32_t np;
	int rc;

	c->noutside++;
	if (c->scope != RELEASES_DATED)
		return 0;
	if (!dated && idx >= 0) {
		date = c->h->commits[idx].time;
	} else if (!dated) {
		rc = history_read_parents(&parents, &np, &date, c->repo, oid,
					  c->h->first_parent);
		free(parents);
		if (rc < 0)
			return rc;
	}
	if (date > c->rev_date) {
		c->nlater++;
		return 0;
	}
	return push_tag(c, name, date,
			idx >= 0 ? (uint32_t)idx : RELEASES_OFF_HISTORY, oid);
}

/*
 * The line at *p (up to end), if it starts with `word` and a blank: its
 * value, n bytes; *p moves past the line either way.
 */
static const char *tag_line(const char **p, const char *end,
			    const char *word, size_t *n)
{
	const char *at = *p, *eol = memchr(at, '\n', (size_t)(end - at));
	size_t wl = strlen(word), ln = (size_t)((eol ? eol : end) - at);

	*p = eol ? eol + 1 : end;
	if (ln <= wl || memcmp(at, word, wl) || at[wl] != ' ')
		return NULL;
	*n = ln - wl - 1;
	return at + wl + 1;
}

static git_object_t tag_type(const char *v, size_t n)
{
	static const char *const names[] = { "commit", "tree", "blob", "tag" };
	static const git_object_t types[] = { GIT_OBJECT_COMMIT,
		GIT_OBJECT_TREE, GIT_OBJECT_BLOB, GIT_OBJECT_TAG };

	for (size_t i = 0; i < 4; i++)
		if (n == strlen(names[i]) && !memcmp(v, names[i], n))
			return types[i];
	return GIT_OBJECT_INVALID;
}

/*
 * The date after the last '>' of a tagger ident p[0, n), if it has one
 * up to HISTORY_DATE_MAX.
 */
static int tagger_date(int64_t *out, const char *p, size_t n)
{
	const char *gt = memrchr(p, '>', n), *t, *end = p + n;
	uint64_t v = 0;

	if (!gt || !memchr(p, '<', (size_t)(gt - p)))
		return 0;
	for (t = gt + 1; t < end && *t == ' '; t++)
		;
	if (t == end || *t < '0' || *t > '9')
		return 0;
	for (; t < end && *t >= '0' && *t <= '9'; t++)
		if ((v = v * 10 + (uint64_t)(*t - '0')) > HISTORY_DATE_MAX)
			return 0;
	*out = (int64_t)v;
	return 1;
}

int releases_tag_parse(struct releases_tag_object *out, const git_oid *oid,
		       const unsigned char *data, size_t len)
{
	const char *p = (const char *)data, *end = p + len, *v;
	const char *why = NULL;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!(v = tag_line(&p, end, "object", &n)) || n != GIT_OID_HEXSZ ||
	    git_oid_fromstrn(&out->target, v, n) < 0)
		why = "bad object line";
	else if (!(v = tag_line(&p, end, "type", &n)) ||
		 (out->type = tag_type(v, n)) == GIT_OBJECT_INVALID)
		why = "bad type line";
	else if (!tag_line(&p, end, "tag", &n))
		why = "no tag line";
	if (why)
		return error_set("corrupt tag '%s': %s", git_oid_tostr_s(oid),
				 why);
	if ((v = tag_line(&p, end, "tagger", &n)))
		out->dated = tagger_date(&out->date, v, n);
	return 0;
}

/*
 * The object tag `oid` (of type *type) finally points at, into *cur, its
 * type into *type, and the tagger date of the last tag of the chain, if
 * any. A chain of tags that loops (a store that lies: strata does not
 * hash what it reads) is found by Brent's method, in as many steps as the
 * chain and its loop have tags.
 */
static int peel_tag(git_oid *cur, git_object_t *type, int64_t *date,
		    int *dated, struct repository *repo, const char *name)
{
	struct releases_tag_object t;
	struct odb_object *obj = NULL;
	git_oid seen;
	size_t steps = 0, power = 1;
	int rc;

	git_oid_cpy(&seen, cur);
	while (*type == GIT_OBJECT_TAG) {
		if ((rc = odb_read(&obj, repo->odb, repo->git, cur,
				   GIT_OBJECT_TAG)) < 0 ||
		    (rc = releases_tag_parse(&t, cur, obj->data,
					     obj->len)) < 0) {
			odb_object_free(obj);
			return error_prefix("unable to read tag '%s'", name);
		}
		odb_object_free(obj);
		*date = t.date;
		*dated = t.dated;
		*type = t.type;
		git_oid_cpy(cur, &t.target);
		if (git_oid_equal(cur, &seen))
			return error_set("unable to read tag '%s': its tags "
					 "form a cycle", name);
		if (++steps == power) {
			git_oid_cpy(&seen, cur);
			power *= 2;
			steps = 0;
		}
	}
	return 0;
}

/*
 * Follow a chain of tag objects to what it finally points at. The date is
 * the tagger date of the last tag in the chain (the one naming the
 * commit), like git name-rev; a tag without a tagger line, or whose date
 * cannot be read, takes the commit's date.
 */
static int add_ref(struct collector *c, const char *name, const git_oid *oid)
{
	const struct history *h = c->h;
	git_object_t type;
	git_oid cur;
	size_t len;
	int64_t idx, date = 0;
	int dated = 0, rc;

	idx = history_find(h, oid);
	if (idx >= 0 && h->commits[idx].outside)
		return add_outside(c, name, oid, idx, 0, 0);
	if (idx >= 0) /* a lightweight tag on a commit of the history */
		return push_tag(c, name, h->commits[idx].time, (uint32_t)idx,
				oid);

	if (git_odb_read_header(&len, &type, c->odb, oid) < 0)
		return error_git("unable to read tag '%s'", name);
	git_oid_cpy(&cur, oid);
	if ((rc = peel_tag(&cur, &type, &date, &dated, c->repo, name)) < 0)
		return rc;
	if (type != GIT_OBJECT_COMMIT) {
		c->nskipped++;
		return 0;
	}
	idx = history_find(h, &cur);
	if (idx < 0 || h->commits[idx].outside)
		return add_outside(c, name, &cur, idx, date, dated);
	if (!dated)
		date = h->commits[idx].time;
	return push_tag(c, name, date, (uint32_t)idx, &cur);
}

static int collect_cb(const char *refname, git_oid *oid, void *payload)
{
	struct collector *c = payload;
	const char *name = refname;
	regmatch_t m[1];
	int rc;

	if (!strncmp(name, "refs/tags/", 10))
		name += 10;
	if (!match_whole(c->tags, name, m, 1))
		return 0;
	c->nmatched++;
	rc = add_ref(c, name, oid);
	if (rc) {
		c->err = rc;
		return 1; /* stop the iteration */
	}
	return 0;
}

static int cmp_tag(const void *a, const void *b)
{
	const struct tag_entry *x = a, *y = b;

	if (x->date != y->date)
		return x->date < y->date ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A tag's release name and position, to sort tags by release. */
struct by_name {
	const char *release;
	uint32_t tag;
};

static int cmp_by_name(const void *a, const void *b)
{
	const struct by_name *x = a, *y = b;
	int c = strcmp(x->release, y->release);

	if (c)
		return c;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void free_entries(struct tag_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].release);
	}
	free(v);
}

void releases_free(struct releases *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct release *rel = &r->list[i];

		for (size_t j = 0; j < rel->ntags; j++)
			free(rel->tags[j].name);
		free(rel->tags);
		free(rel->name);
	}
	free(r->list);
	free(r->of_commit);
	free(r);
}

/*
 * Group the sorted tags into releases, numbered in the order of their
 * first tags (order_releases() puts them in the order they shipped).
 * Sets c->v[i].rel; returns the count in *nrel.
 */
static int group_tags(struct collector *c, size_t *nrel)
{
	struct by_name *v = malloc((c->n ? c->n : 1) * sizeof(*v));
	uint32_t *first = malloc((c->n ? c->n : 1) * sizeof(*first));
	size_t n = 0;

	if (!v || !first) {
		free(v);
		free(first);
		return error_oom();
	}
	for (size_t i = 0; i < c->n; i++) {
		v[i].release = c->v[i].release;
		v[i].tag = (uint32_t)i;
		first[i] = NO_RELEASE;
	}
	qsort(v, c->n, sizeof(*v), cmp_by_name);

	/* Within a name the tags are in date order: the first one leads. */
	for (size_t i = 0; i < c->n; i++)
		if (i == 0 || strcmp(v[i - 1].release, v[i].release))
			first[v[i].tag] = 0;
	for (size_t i = 0; i < c->n; i++)
		if (first[i] != NO_RELEASE)
			first[i] = (uint32_t)n++;
	for (size_t i = 0; i < c->n; i++) {
		uint32_t t = v[i].tag;

		if (first[t] != NO_RELEASE)
			c->v[t].rel = first[t];
		else
			c->v[t].rel = c->v[v[i - 1].tag].rel;
	}
	free(v);
	free(first);
	*nrel = n;
	return 0;
}

/*
 * The marking: each tag, in (date, name) order, claims the commits of the
 * history it contains that no earlier tag has claimed. A claimed commit's
 * ancestors are all claimed, so a walk stops there and every commit of
 * the history is visited once. Tags off the history walk the commits off
 * it once between them all: a commit an earlier tag's walk went through
 * has every ancestor claimed or gone through already.
 */
enum { OFF_NEW, OFF_ACTIVE, OFF_DONE };

/* A commit off the history, met by the walk from a tag off it. */
struct off_commit {
	git_oid oid;
	uint32_t parents;     /* into marker.pool */
	uint32_t nparents;
	unsigned state:2;
	unsigned reaches:1;   /* it or an ancestor is in REV's history */
	unsigned tip:1;       /* it or an ancestor is REV's commit */
};

struct off_frame {
	uint32_t node, next;  /* the commit, its next parent to look at */
};

struct marker {
	const struct history *h;
	struct repository *repo;
	uint32_t *of_commit;  /* per history index: tag index or NO_RELEASE */
	uint32_t *stack;      /* for the walks in the history */
	/*
	 * Per history index, 1 if the commit or an ancestor is of REV's
	 * own history; NULL when every commit is (no outside ones).
	 */
	unsigned char *reach;
	struct off_commit *off;
	size_t noff, aoff;
	uint32_t *slots;      /* oid -> index into off, + 1; 0 is empty */
	size_t nslots;
	git_oid *pool;        /* the parents of the commits in off */
	size_t npool, apool;
	struct off_frame *frames;
	size_t nframes, aframes;
};

static size_t off_slot(const git_oid *oid, size_t nslots)
{
	uint32_t x;

	memcpy(&x, oid->id, sizeof(x));
	return x & (nslots - 1);
}

static int off_rehash(struct marker *m)
{
	size_t ns = m->nslots ? 2 * m->nslots : 1024;
	uint32_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return error_oom();
	for (size_t i = 0; i < m->noff; i++) {
		size_t k = off_slot(&m->off[i].oid, ns);

		while (sl[k])
			k = (k + 1) & (ns - 1);
		sl[k] = (uint32_t)i + 1;
	}
	free(m->slots);
	m->slots = sl;
	m->nslots = ns;
	return 0;
}

/* The index of commit `oid` in m->off, read and added if new. */
static int off_get(uint32_t *out, struct marker *m, const git_oid *oid)
{
	struct off_commit *c;
	git_oid *parents = NULL;
	uint32_t np;
	int64_t time;
	size_t k;
	int rc;

	if (m->nslots) {
		for (k = off_slot(oid, m->nslots); m->slots[k];
		     k = (k + 1) & (m->nslots - 1)) {
			if (git_oid_equal(&m->off[m->slots[k] - 1].oid, oid)) {
				*out = m->slots[k] - 1;
				return 0;
			}
		}
	}
	if ((m->noff + 1 > m->nslots / 2 && (rc = off_rehash(m)) < 0) ||
	    (rc = history_read_parents(&parents, &np, &time, m->repo, oid,
				       m->h->first_parent)) < 0 ||
	    (rc = UTIL_GROW(m->off, m->aoff, m->noff + 1)) < 0 ||
	    (rc = UTIL_GROW(m->pool, m->apool, m->npool + np)) < 0) {
		free(parents);
		return rc;
	}
	c = &m->off[m->noff];
	memset(c, 0, sizeof(*c));
	git_oid_cpy(&c->oid, oid);
	c->parents = (uint32_t)m->npool;
	c->nparents = np;
	if (np)
		memcpy(m->pool + m->npool, parents, np * sizeof(*parents));
	m->npool += np;
	free(parents);
	for (k = off_slot(oid, m->nslots); m->slots[k];
	     k = (k + 1) & (m->nslots - 1))
		;
	m->slots[k] = (uint32_t)m->noff + 1;
	*out = (uint32_t)m->noff++;
	return 0;
}

/* Tag t claims commit i of the history and its unclaimed ancestors. */
static void claim(struct marker *m, uint32_t i, uint32_t t)
{
	const struct history *h = m->h;
	size_t top = 0;

	if (m->of_commit[i] != NO_RELEASE)
		return;
	m->of_commit[i] = t;
	m->stack[top++] = i;
	while (top) {
		uint32_t c = m->stack[--top];
		const uint32_t *p = history_parents(h, c);

		for (uint32_t k = 0; k < h->commits[c].nparents; k++) {
			if (m->of_commit[p[k]] != NO_RELEASE)
				continue;
			m->of_commit[p[k]] = t;
			m->stack[top++] = p[k];
		}
	}
}

static int push_frame(struct marker *m, uint32_t node)
{
	int rc = UTIL_GROW(m->frames, m->aframes, m->nframes + 1);

	if (rc < 0)
		return rc;
	m->off[node].state = OFF_ACTIVE;
	m->frames[m->nframes].node = node;
	m->frames[m->nframes++].next = 0;
	return 0;
}

static int reaches_rev(const struct marker *m, size_t i)
{
	return !m->reach || m->reach[i];
}

/* A commit off the history contains what its parent contains. */
static void inherit(struct off_commit *child, const struct off_commit *p)
{
	child->reaches |= p->reaches;
	child->tip |= p->tip;
}

/*
 * Tag t off the history: a depth-first walk over the commits off the
 * history it contains, claiming those of the history it reaches. Sets
 * *reaches when it contains a commit of the history.
 */
static int walk_off(struct marker *m, uint32_t t, const git_oid *oid,
		    int *reaches, int *tip)
{
	uint32_t root, k;
	int rc;

	if ((rc = off_get(&root, m, oid)) < 0)
		return rc;
	if (m->off[root].state == OFF_NEW && (rc = push_frame(m, root)) < 0)
		return rc;
	while (m->nframes) {
		struct off_frame *f = &m->frames[m->nframes - 1];
		uint32_t node = f->node;
		git_oid p;
		int64_t i;

		if (f->next == m->off[node].nparents) {
			m->off[node].state = OFF_DONE;
			if (--m->nframes)
				inherit(&m->off[m->frames[m->nframes - 1]
						.node], &m->off[node]);
			continue;
		}
		git_oid_cpy(&p, &m->pool[m->off[node].parents + f->next++]);
		if ((i = history_find(m->h, &p)) >= 0) {
			claim(m, (uint32_t)i, t);
			m->off[node].reaches |= reaches_rev(m, (size_t)i);
			m->off[node].tip |= (size_t)i + 1 == m->h->n;
			continue;
		}
		if ((rc = off_get(&k, m, &p)) < 0)
			return rc;
		if (m->off[k].state == OFF_DONE)
			inherit(&m->off[node], &m->off[k]);
		else if (m->off[k].state == OFF_NEW &&
			 (rc = push_frame(m, k)) < 0)
			return rc; /* OFF_ACTIVE: a cycle (grafts), passed */
	}
	*reaches = m->off[root].reaches;
	*tip = m->off[root].tip;
	return 0;
}

static void marker_release(struct marker *m)
{
	free(m->of_commit);
	free(m->stack);
	free(m->reach);
	free(m->off);
	free(m->slots);
	free(m->pool);
	free(m->frames);
}

/*
 * m->reach, when the history has commits outside REV's: in the history's
 * order parents come first, so one pass finds every commit that is of
 * REV's history or descends from one.
 */
static int mark_reach(struct marker *m)
{
	const struct history *h = m->h;

	if (h->nrev == h->n)
		return 0;
	if (!(m->reach = malloc(h->n)))
		return error_oom();
	for (size_t i = 0; i < h->n; i++) {
		const uint32_t *p = history_parents(h, i);

		m->reach[i] = !h->commits[i].outside;
		for (uint32_t k = 0; k < h->commits[i].nparents; k++)
			m->reach[i] |= m->reach[p[k]];
	}
	return 0;
}

/* Mark every commit with its tag (an index into v), or NO_RELEASE. */
static int mark_commits(struct marker *m, struct tag_entry *v, size_t n)
{
	const struct history *h = m->h;
	size_t nh = h->n ? h->n : 1;
	int rc;

	m->of_commit = malloc(nh * sizeof(*m->of_commit));
	m->stack = malloc(nh * sizeof(*m->stack));
	if (!m->of_commit || !m->stack)
		return error_oom();
	if ((rc = mark_reach(m)) < 0)
		return rc;
	for (size_t i = 0; i < h->n; i++)
		m->of_commit[i] = NO_RELEASE;
	for (size_t t = 0; t < n; t++) {
		int reaches = 1, tip = 0;

		if (v[t].commit != RELEASES_OFF_HISTORY) {
			claim(m, v[t].commit, (uint32_t)t);
			reaches = reaches_rev(m, v[t].commit);
			tip = v[t].commit + 1 == h->n;
		} else if ((rc = walk_off(m, (uint32_t)t, &v[t].oid,
					  &reaches, &tip)) < 0) {
			return rc;
		}
		v[t].reaches = reaches != 0;
		v[t].contains_rev = tip != 0;
	}
	return 0;
}

/*
 * Leave out the tags that contain no commit of the history (none has
 * claimed a commit), renumbering the marks; *dropped: how many.
 */
static int drop_unreaching(size_t *dropped, struct collector *c,
			   uint32_t *of_commit)
{
	uint32_t *to = malloc((c->n ? c->n : 1) * sizeof(*to));
	size_t n = 0;

	if (!to)
		return error_oom();
	for (size_t t = 0; t < c->n; t++) {
		if (!c->v[t].reaches) {
			free(c->v[t].name);
			free(c->v[t].release);
			to[t] = NO_RELEASE;
			continue;
		}
		to[t] = (uint32_t)n;
		c->v[n++] = c->v[t];
	}
	for (size_t i = 0; i < c->h->n; i++)
		if (of_commit[i] != NO_RELEASE)
			of_commit[i] = to[of_commit[i]];
	free(to);
	*dropped = c->n - n;
	c->n = n;
	return 0;
}

/*
 * The release list from the grouped tags, and r->of_commit (taken from
 * the marks, by tag) by release.
 */
static int build(struct releases *r, struct collector *c, size_t nrel,
		 uint32_t **marks)
{
	const struct history *h = c->h;
	size_t unreleased = 0;

	r->of_commit = *marks;
	*marks = NULL;
	for (size_t i = 0; i < h->n; i++) {
		if (r->of_commit[i] == NO_RELEASE)
			unreleased++;
		else
			r->of_commit[i] = c->v[r->of_commit[i]].rel;
	}

	r->list = calloc(nrel + 1, sizeof(*r->list));
	if (!r->list)
		return error_oom();
	r->n = nrel;
	for (size_t i = 0; i < c->n; i++) {
		struct release *rel = &r->list[c->v[i].rel];

		if (!rel->name) {
			rel->name = c->v[i].release;
			c->v[i].release = NULL;
			rel->first_date = c->v[i].date;
		}
		rel->last_date = c->v[i].date;
		rel->ntags++;
	}
	for (size_t i = 0; i < nrel; i++) {
		r->list[i].tags = calloc(r->list[i].ntags,
					 sizeof(*r->list[i].tags));
		if (!r->list[i].tags) {
			for (size_t j = i; j < nrel; j++)
				r->list[j].ntags = 0;
			return error_oom();
		}
		r->list[i].ntags = 0; /* counted again as they are filled */
	}
	for (size_t i = 0; i < c->n; i++) {
		struct release *rel = &r->list[c->v[i].rel];
		struct release_tag *t = &rel->tags[rel->ntags++];

		t->name = c->v[i].name;
		c->v[i].name = NULL;
		t->date = c->v[i].date;
		t->commit = c->v[i].commit;
		git_oid_cpy(&t->oid, &c->v[i].oid);
		t->in_rev = t->commit != RELEASES_OFF_HISTORY &&
			    !h->commits[t->commit].outside;
		t->contains_rev = c->v[i].contains_rev;
	}
	if (unreleased) {
		struct release *rel = &r->list[r->n];

		rel->name = strdup("unreleased");
		if (!rel->name)
			return error_oom();
		rel->unreleased = 1;
		for (size_t i = 0; i < h->n; i++)
			if (r->of_commit[i] == NO_RELEASE)
				r->of_commit[i] = (uint32_t)r->n;
		r->n++;
	}
	for (size_t i = 0; i < h->n; i++)
		if (!h->commits[i].outside)
			r->list[r->of_commit[i]].commits++;
	return 0;
}

/*
 * Each release's standing tag: the first (in date order) whose name the
 * default rule leaves whole, i.e. no pre-release; else the latest.
 */
static int set_standing(struct releases *r)
{
	struct namer def;
	int rc;

	if ((rc = namer_init(&def, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < r->n && !rc; i++) {
		struct release *rel = &r->list[i];

		for (size_t j = 0; j < rel->ntags && !rel->standing; j++) {
			char *name;

			if ((rc = namer_name(&name, &def,
					     rel->tags[j].name, NULL)) < 0)
				break;
			if (!strcmp(name, rel->tags[j].name))
				rel->standing = &rel->tags[j];
			free(name);
		}
		if (!rel->standing && rel->ntags)
			rel->standing = &rel->tags[rel->ntags - 1];
	}
	namer_release(&def);
	return rc;
}

/*
 * The order of the list: by the date of the standing tag, the day the
 * release shipped (then its name, bytewise), the unreleased bucket last.
 * By its first tag instead, a release whose pre-releases began long
 * before it shipped would come before releases that shipped earlier
 * (redis's 3.0.0-beta1 of 2012 put 3.0.0 of 2015 before 2.6.0).
 */
static int64_t shipped(const struct release *r)
{
	return r->standing ? r->standing->date : r->first_date;
}

static int cmp_shipped(const void *a, const void *b)
{
	const struct release *x = *(const struct release *const *)a;
	const struct release *y = *(const struct release *const *)b;
	int c;

	if (x->unreleased || y->unreleased)
		return (int)x->unreleased - (int)y->unreleased;
	if (shipped(x) != shipped(y))
		return shipped(x) < shipped(y) ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return x < y ? -1 : x > y; /* as they were: by their first tags */
}

/* Sorts r->list by cmp_shipped(), and r->of_commit (n commits) along. */
static int order_releases(struct releases *r, size_t n)
{
	const struct release **by = malloc((r->n ? r->n : 1) * sizeof(*by));
	struct release *list = calloc(r->n + 1, sizeof(*list));
	uint32_t *to = malloc((r->n ? r->n : 1) * sizeof(*to));
	size_t i;
	int rc = 0;

	if (!by || !list || !to) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < r->n; i++)
		by[i] = &r->list[i];
	qsort(by, r->n, sizeof(*by), cmp_shipped);
	for (i = 0; i < r->n; i++) {
		list[i] = *by[i];
		to[by[i] - r->list] = (uint32_t)i;
	}
	for (i = 0; i < n; i++)
		r->of_commit[i] = to[r->of_commit[i]];
	free(r->list);
	r->list = list;
	list = NULL;
done:
	free(by);
	free(list);
	free(to);
	return rc;
}

int releases_parse_scope(enum releases_scope *out, const char *s)
{
	if (!strcmp(s, "dated"))
		*out = RELEASES_DATED;
	else if (!strcmp(s, "merged"))
		*out = RELEASES_MERGED;
	else
		return error_setc(STRATA_EUSAGE, "invalid value '%s' for "
				  "'--tag-scope': expected dated or merged", s);
	return 0;
}

/*
 * The length of a release key's project prefix: up to a '-' or '_' that
 * a digit follows, before any other digit ("jq-1.6": 3; "1.6": 0).
 */
static size_t key_prefix(const char *k)
{
	for (size_t i = 0; k[i] && (k[i] < '0' || k[i] > '9'); i++)
		if ((k[i] == '-' || k[i] == '_') && k[i + 1] >= '0' &&
		    k[i + 1] <= '9')
			return i + 1;
	return 0;
}

struct by_version {
	const char *key;
	size_t prefix;        /* key_prefix(key) */
	uint32_t tag;
};

static int cmp_by_version(const void *a, const void *b)
{
	const struct by_version *x = a, *y = b;
	int c = strcmp(x->key + x->prefix, y->key + y->prefix);

	if (c)
		return c;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return memcmp(x->key, y->key, x->prefix);
}

/* Tags v[i, j) share a version: the unprefixed ones take the prefix. */
static int adopt_one(struct collector *c, const struct by_version *v,
		     size_t i, size_t j)
{
	size_t k = i;

	while (k < j && !v[k].prefix)
		k++;
	/* None, or two projects' (foo-1.0, bar-1.0): nothing to adopt. */
	if (k == i || k == j || v[j - 1].prefix != v[k].prefix ||
	    memcmp(v[j - 1].key, v[k].key, v[k].prefix))
		return 0;
	for (size_t t = i; t < k; t++) {
		size_t n = v[k].prefix + strlen(v[t].key) + 1;
		char *key = malloc(n);

		if (!key)
			return error_oom();
		snprintf(key, n, "%.*s%s", (int)v[k].prefix, v[k].key,
			 v[t].key);
		free(c->v[v[t].tag].release);
		c->v[v[t].tag].release = key;
	}
	return 0;
}

/*
 * One version, one release, also when only some of its tags carry the
 * project's name (jq's 1.6rc1 and 1.6rc2, then jq-1.6): a key without a
 * prefix joins the one prefixed key of its version. Not under --group,
 * which names releases as the user says.
 */
static int adopt_prefixes(struct collector *c, const struct namer *nm)
{
	struct by_version *v;
	size_t i, j;
	int rc = 0;

	if (nm->has_group || c->n < 2)
		return 0;
	if (!(v = malloc(c->n * sizeof(*v))))
		return error_oom();
	for (i = 0; i < c->n; i++) {
		v[i].key = c->v[i].release;
		v[i].prefix = key_prefix(v[i].key);
		v[i].tag = (uint32_t)i;
	}
	qsort(v, c->n, sizeof(*v), cmp_by_version);
	for (i = 0; i < c->n && rc == 0; i = j) {
		for (j = i + 1; j < c->n && !strcmp(v[j].key + v[j].prefix,
						    v[i].key + v[i].prefix);
		     j++)
			;
		rc = adopt_one(c, v, i, j);
	}
	free(v);
	return rc;
}

/* The matching tags that count, sorted by (date, name) and named. */
static int collect_tags(struct collector *c, const struct namer *nm)
{
	int rc;

	if (git_repository_odb(&c->odb, c->repo->git) < 0)
		return error_git("unable to open the object database");
	rc = git_tag_foreach(c->repo->git, collect_cb, c);
	if (c->err)
		return c->err;
	if (rc < 0)
		return error_git("unable to list tags");
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_tag);
	for (size_t i = 0; i < c->n; i++)
		if ((rc = namer_key(&c->v[i].release, nm, c->v[i].name)) < 0)
			return rc;
	return adopt_prefixes(c, nm);
}

/* Each release named as its standing tag names it (namer_key()). */
static int name_releases(struct releases *r, const struct namer *nm)
{
	int rc;

	for (size_t i = 0; i < r->n; i++) {
		struct release *rel = &r->list[i];
		char *name;

		if (rel->unreleased || !rel->standing)
			continue;
		if ((rc = namer_name(&name, nm, rel->standing->name,
				       NULL)) < 0)
			return rc;
		free(rel->name);
		rel->name = name;
	}
	return 0;
}

/* From the collected tags to the releases of the history's commits. */
static int map_commits(struct releases *r, struct collector *c)
{
	struct marker m;
	size_t nrel = 0, dropped = 0;
	int rc;

	memset(&m, 0, sizeof(m));
	m.h = c->h;
	m.repo = c->repo;
	if ((rc = mark_commits(&m, c->v, c->n)) < 0 ||
	    (rc = drop_unreaching(&dropped, c, m.of_commit)) < 0 ||
	    (rc = group_tags(c, &nrel)) < 0)
		goto done;
	r->nskipped = c->nskipped;
	r->nmatched = c->nmatched;
	r->nlater = c->nlater;
	r->nelsewhere = c->scope == RELEASES_DATED ? dropped : c->noutside;
	if ((rc = build(r, c, nrel, &m.of_commit)) < 0)
		goto done;
	rc = set_standing(r);
done:
	marker_release(&m);
	return rc;
}

int releases_compute(struct releases **out, struct repository *repo,
		     const struct history *h,
		     const struct releases_options *opts)
{
	const char *tags_ere = opts && opts->tags_ere ? opts->tags_ere
						      : releases_default_tags;
	struct collector c;
	struct releases *r = NULL;
	struct namer nm;
	regex_t tags_re;
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	rc = compile(&tags_re, tags_ere, "--tags");
	if (rc)
		return rc;
	rc = namer_init(&nm, opts);
	if (rc) {
		regfree(&tags_re);
		return rc;
	}
	c.h = h;
	c.repo = repo;
	c.tags = &tags_re;
	c.scope = opts ? opts->scope : RELEASES_DATED;
	c.rev_date = h->n ? h->commits[h->n - 1].time : 0;
	if ((rc = collect_tags(&c, &nm)) < 0)
		goto done;
	if (!(r = calloc(1, sizeof(*r)))) {
		rc = error_oom();
		goto done;
	}
	if ((rc = map_commits(r, &c)) < 0 ||
	    (rc = name_releases(r, &nm)) < 0 ||
	    (rc = order_releases(r, h->n)) < 0)
		goto done;
	*out = r;
	r = NULL;
done:
	releases_free(r);
	free_entries(c.v, c.n);
	git_odb_free(c.odb);
	namer_release(&nm);
	regfree(&tags_re);
	return rc;
}
