/*
 * releases: which release wrote each commit.
 *
 * Tags are read from refs/tags/ (loose and packed), filtered by the --tags
 * expression, dated (tagger date of the tag object that points at the
 * commit, as git name-rev does; commit date for lightweight tags) and
 * sorted by (date, name). Each tag then claims its ancestors that no
 * earlier tag has claimed, so every commit is visited once and belongs to
 * the earliest-dated tag that contains it. See docs/releases.md.
 */
#include "strata/releases.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

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
	uint32_t commit;
	char *release;        /* release name */
	uint32_t rel;         /* index into the release list */
};

struct collector {
	const struct history *h;
	git_repository *git;
	git_odb *odb;
	regex_t *tags;
	struct tag_entry *v;
	size_t n, alloc;
	size_t nmatched;      /* matching tags, wherever they point */
	size_t noutside;      /* matching commit tags not in the history */
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

static int namer_name(char **out, const struct namer *nm, const char *tag)
{
	regmatch_t m[10];
	size_t so = 0, eo = strlen(tag);

	if (nm->has_group && match_whole(&nm->group, tag, m, 10) &&
	    m[1].rm_so >= 0 && m[1].rm_eo > m[1].rm_so) {
		so = m[1].rm_so;
		eo = m[1].rm_eo;
	} else if (match_whole(&nm->strip, tag, m, 10) && m[1].rm_eo > 0) {
		eo = m[1].rm_eo;
	}
	*out = strndup(tag + so, eo - so);
	return *out ? 0 : error_oom();
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
	rc = namer_name(out, &nm, tag);
	namer_release(&nm);
	return rc;
}

static int push_tag(struct collector *c, const char *name, int64_t date,
		    uint32_t commit)
{
	struct tag_entry *e;

	if (c->n == c->alloc) {
		size_t na = c->alloc ? 2 * c->alloc : 64;
		struct tag_entry *nv = realloc(c->v, na * sizeof(*nv));

		if (!nv)
			return error_oom();
		c->v = nv;
		c->alloc = na;
	}
	e = &c->v[c->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return error_oom();
	e->date = date;
	e->commit = commit;
	c->n++;
	return 0;
}

/*
 * Follow a chain of tag objects to what it finally points at. The date is
 * the tagger date of the last tag in the chain (the one naming the
 * commit), like git name-rev; a tag without a tagger line takes the
 * commit's date.
 */
static int add_ref(struct collector *c, const char *name, const git_oid *oid)
{
	const struct history *h = c->h;
	git_object_t type;
	git_oid cur;
	size_t len;
	int64_t idx, date = 0;
	int dated = 0;

	idx = history_find(h, oid);
	if (idx >= 0) /* a lightweight tag on a commit of the history */
		return push_tag(c, name, h->commits[idx].time, (uint32_t)idx);

	if (git_odb_read_header(&len, &type, c->odb, oid) < 0)
		return error_git("unable to read tag '%s'", name);
	git_oid_cpy(&cur, oid);
	while (type == GIT_OBJECT_TAG) {
		const git_signature *sig;
		git_tag *tag;

		if (git_tag_lookup(&tag, c->git, &cur) < 0)
			return error_git("unable to read tag '%s'", name);
		sig = git_tag_tagger(tag);
		dated = sig != NULL;
		date = sig ? (int64_t)sig->when.time : 0;
		type = git_tag_target_type(tag);
		git_oid_cpy(&cur, git_tag_target_id(tag));
		git_tag_free(tag);
	}
	if (type != GIT_OBJECT_COMMIT) {
		c->nskipped++;
		return 0;
	}
	idx = history_find(h, &cur);
	if (idx < 0) {
		c->noutside++;
		return 0;
	}
	if (!dated)
		date = h->commits[idx].time;
	return push_tag(c, name, date, (uint32_t)idx);
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
 * Group the sorted tags into releases: a release's position is that of its
 * first tag, so releases come out ordered by their earliest tag's date
 * (then that tag's name). Sets c->v[i].rel; returns the count in *nrel.
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

/* Each tag claims its unclaimed ancestors; claimed commits stop the walk. */
static int mark_commits(uint32_t *of_commit, const struct history *h,
			const struct tag_entry *v, size_t n)
{
	uint32_t *stack = malloc((h->n ? h->n : 1) * sizeof(*stack));

	if (!stack)
		return error_oom();
	for (size_t i = 0; i < h->n; i++)
		of_commit[i] = NO_RELEASE;
	for (size_t t = 0; t < n; t++) {
		size_t top = 0;

		if (of_commit[v[t].commit] != NO_RELEASE)
			continue;
		of_commit[v[t].commit] = v[t].rel;
		stack[top++] = v[t].commit;
		while (top) {
			uint32_t c = stack[--top];
			const uint32_t *p = history_parents(h, c);

			for (uint32_t k = 0; k < h->commits[c].nparents; k++) {
				if (of_commit[p[k]] != NO_RELEASE)
					continue;
				of_commit[p[k]] = v[t].rel;
				stack[top++] = p[k];
			}
		}
	}
	free(stack);
	return 0;
}

static int build(struct releases *r, struct collector *c, size_t nrel,
		 const struct history *h)
{
	size_t unreleased = 0;
	int rc;

	r->of_commit = malloc((h->n ? h->n : 1) * sizeof(*r->of_commit));
	if (!r->of_commit)
		return error_oom();
	rc = mark_commits(r->of_commit, h, c->v, c->n);
	if (rc)
		return rc;
	for (size_t i = 0; i < h->n; i++)
		if (r->of_commit[i] == NO_RELEASE)
			unreleased++;

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
					     rel->tags[j].name)) < 0)
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
	size_t nrel = 0;
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
	c.git = repo->git;
	c.tags = &tags_re;
	if (git_repository_odb(&c.odb, repo->git) < 0) {
		rc = error_git("unable to open the object database");
		goto done;
	}
	rc = git_tag_foreach(repo->git, collect_cb, &c);
	if (c.err) {
		rc = c.err;
		goto done;
	}
	if (rc < 0) {
		rc = error_git("unable to list tags");
		goto done;
	}
	if (!c.n) {
		if (c.nmatched)
			rc = error_set("no tag matches '%s' in the history "
				       "(%zu matching elsewhere, %zu not on a "
				       "commit)", tags_ere, c.noutside,
				       c.nskipped);
		else
			rc = error_set("no tag matches '%s'", tags_ere);
		goto done;
	}
	qsort(c.v, c.n, sizeof(*c.v), cmp_tag);
	for (size_t i = 0; i < c.n; i++) {
		rc = namer_name(&c.v[i].release, &nm, c.v[i].name);
		if (rc)
			goto done;
	}
	rc = group_tags(&c, &nrel);
	if (rc)
		goto done;

	r = calloc(1, sizeof(*r));
	if (!r) {
		rc = error_oom();
		goto done;
	}
	r->nskipped = c.nskipped;
	rc = build(r, &c, nrel, h);
	if (!rc)
		rc = set_standing(r);
	if (rc)
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
