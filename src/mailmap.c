#include "strata/mailmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "strata/error.h"
#include "strata/util.h"

static int fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* strcasecmp in the C locale: ASCII letters only, as git compares. */
static int fold_cmp(const char *a, const char *b)
{
	for (; *a && fold((unsigned char)*a) == fold((unsigned char)*b);
	     a++, b++)
		;
	return fold((unsigned char)*a) - fold((unsigned char)*b);
}

/* ------------------------------------------------------------------ */
/* .mailmap */

/* One line of a .mailmap: "New <new> Old <old>" and its shorter forms. */
struct mm_line {
	char *new_name, *new_email, *old_name, *old_email; /* owned or NULL */
	size_t seq;                 /* the order lines were read in */
};

/* An entry with an old name (git's "complex" entry). */
struct mm_named {
	const char *old_name, *name, *email;
};

/* Every line for one old email (case-insensitive). */
struct mm_entry {
	const char *old_email;
	const char *name, *email;   /* by email only; NULL: no change */
	struct mm_named *named;     /* sorted by old name, unique */
	size_t nnamed;
};

struct mailmap {
	struct mm_line *lines;
	size_t nlines, alloc;
	struct mm_entry *entries;   /* sorted by old email, unique */
	size_t nentries;
};

int mailmap_new(struct mailmap **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : error_oom();
}

/*
 * git's parse_name_and_email(): the name (trimmed, NULL when empty) and
 * email of "Name <email>" at s; returns what follows the '>', or NULL.
 */
static char *parse_pair(char *s, char **name, char **email, int allow_empty)
{
	char *left, *right, *ns, *ne;

	*name = *email = NULL;
	if (!(left = strchr(s, '<')) || !(right = strchr(left + 1, '>')))
		return NULL;
	if (!allow_empty && left + 1 == right)
		return NULL;
	for (ns = s; ns < left && util_git_space(*ns); ns++)
		;
	for (ne = left - 1; ne > ns && util_git_space(*ne); ne--)
		;
	*name = ns <= ne ? ns : NULL;
	*email = left + 1;
	ne[1] = '\0';
	*right++ = '\0';
	return *right ? right : NULL;
}

static int dup_or_null(char **out, const char *s)
{
	*out = NULL;
	if (s && !(*out = strdup(s)))
		return error_oom();
	return 0;
}

/* git's read_mailmap_line(): a line (NUL-ended, writable). */
static int add_line(struct mailmap *m, char *s)
{
	char *n1, *e1, *n2 = NULL, *e2 = NULL, *rest;
	struct mm_line *l;

	if (s[0] == '#')
		return 0;
	if ((rest = parse_pair(s, &n1, &e1, 0)))
		parse_pair(rest, &n2, &e2, 1);
	if (!e1)
		return 0;
	if (UTIL_GROW(m->lines, m->alloc, m->nlines + 1) < 0)
		return STRATA_ENOMEM;
	l = &m->lines[m->nlines];
	memset(l, 0, sizeof(*l));
	l->seq = m->nlines++;
	/* git's add_mapping(): without an old email, the new one is old. */
	if (!e2) {
		e2 = e1;
		e1 = NULL;
	}
	if (dup_or_null(&l->new_name, n1) || dup_or_null(&l->new_email, e1) ||
	    dup_or_null(&l->old_name, n2) || dup_or_null(&l->old_email, e2))
		return STRATA_ENOMEM;
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct mm_line *x = a, *y = b;
	int c = fold_cmp(x->old_email, y->old_email);

	if (c)
		return c;
	if (!x->old_name || !y->old_name) {
		c = (x->old_name != NULL) - (y->old_name != NULL);
		if (c)
			return c;
	} else if ((c = fold_cmp(x->old_name, y->old_name))) {
		return c;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void entries_free(struct mailmap *m)
{
	for (size_t i = 0; i < m->nentries; i++)
		free(m->entries[i].named);
	free(m->entries);
	m->entries = NULL;
	m->nentries = 0;
}

/* One entry from lines[b, e), sorted: email-only lines, then by name. */
static int entry_build(struct mm_entry *en, const struct mm_line *v,
		       size_t b, size_t e)
{
	size_t i;

	memset(en, 0, sizeof(*en));
	en->old_email = v[b].old_email;
	en->named = malloc((e - b) * sizeof(*en->named));
	if (!en->named)
		return error_oom();
	for (i = b; i < e; i++) {
		const struct mm_line *l = &v[i];

		if (!l->old_name) {
			/* A later simple line replaces only what it gives. */
			if (l->new_name)
				en->name = l->new_name;
			if (l->new_email)
				en->email = l->new_email;
			continue;
		}
		/* The same old name again: the later line wins. */
		if (en->nnamed &&
		    !fold_cmp(en->named[en->nnamed - 1].old_name, l->old_name))
			en->nnamed--;
		en->named[en->nnamed].old_name = l->old_name;
		en->named[en->nnamed].name = l->new_name;
		en->named[en->nnamed].email = l->new_email;
		en->nnamed++;
	}
	return 0;
}

/* Sort the lines and group them into entries. */
static int mailmap_index(struct mailmap *m)
{
	size_t i, b;
	int rc;

	entries_free(m);
	qsort(m->lines, m->nlines, sizeof(*m->lines), line_cmp);
	/* Keep the reading order for the next sort. */
	for (i = 0; i < m->nlines; i++)
		m->lines[i].seq = i;
	m->entries = calloc(m->nlines ? m->nlines : 1, sizeof(*m->entries));
	if (!m->entries)
		return error_oom();
	for (b = 0; b < m->nlines; b = i) {
		for (i = b + 1; i < m->nlines &&
		     !fold_cmp(m->lines[i].old_email, m->lines[b].old_email);
		     i++)
			;
		if ((rc = entry_build(&m->entries[m->nentries], m->lines, b,
				      i)) < 0)
			return rc;
		m->nentries++;
	}
	return 0;
}

int mailmap_add_buffer(struct mailmap *m, const char *buf, size_t len)
{
	char *copy = malloc(len + 1), *s, *eol;
	int rc = 0;

	if (!copy)
		return error_oom();
	memcpy(copy, buf, len);
	copy[len] = '\0';
	/* Lines as git splits them: at '\n' (a NUL ends the text). */
	for (s = copy; *s && rc == 0; s = eol ? eol + 1 : s + strlen(s)) {
		if ((eol = strchr(s, '\n')))
			*eol = '\0';
		rc = add_line(m, s);
		if (!eol)
			break;
	}
	free(copy);
	return rc < 0 ? rc : mailmap_index(m);
}

static int named_cmp(const void *key, const void *item)
{
	return fold_cmp(key, ((const struct mm_named *)item)->old_name);
}

static int entry_cmp(const void *key, const void *item)
{
	return fold_cmp(key, ((const struct mm_entry *)item)->old_email);
}

void mailmap_resolve(const struct mailmap *m, const char *name,
		     const char *email, const char **name_out,
		     const char **email_out)
{
	const struct mm_entry *en = NULL;
	const struct mm_named *nm = NULL;
	const char *nn, *ne;

	*name_out = name;
	*email_out = email;
	if (m && m->nentries)
		en = bsearch(email, m->entries, m->nentries,
			     sizeof(*m->entries), entry_cmp);
	if (!en)
		return;
	if (en->nnamed)
		nm = bsearch(name, en->named, en->nnamed, sizeof(*en->named),
			     named_cmp);
	nn = nm ? nm->name : en->name;
	ne = nm ? nm->email : en->email;
	if (nn)
		*name_out = nn;
	if (ne)
		*email_out = ne;
}

void mailmap_free(struct mailmap *m)
{
	if (!m)
		return;
	entries_free(m);
	for (size_t i = 0; i < m->nlines; i++) {
		free(m->lines[i].new_name);
		free(m->lines[i].new_email);
		free(m->lines[i].old_name);
		free(m->lines[i].old_email);
	}
	free(m->lines);
	free(m);
}

static int add_blob(struct mailmap *m, git_repository *repo,
		    const git_oid *id)
{
	git_blob *blob = NULL;
	int rc;

	/* Not a blob, or missing: git skips it too. */
	if (git_blob_lookup(&blob, repo, id) < 0) {
		error_clear();
		return 0;
	}
	rc = mailmap_add_buffer(m, git_blob_rawcontent(blob),
				(size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return rc;
}

static int add_rev_tree(struct mailmap *m, git_repository *repo,
			const git_oid *tree_id)
{
	git_tree *tree = NULL;
	const git_tree_entry *e;
	int rc = 0;

	if (git_tree_lookup(&tree, repo, tree_id) < 0)
		return error_set("unable to read the tree of the revision");
	e = git_tree_entry_byname(tree, ".mailmap");
	if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB)
		rc = add_blob(m, repo, git_tree_entry_id(e));
	git_tree_free(tree);
	return rc;
}

static int add_config_blob(struct mailmap *m, git_repository *repo,
			   git_config *cfg)
{
	git_buf spec = {0};
	git_object *obj = NULL;
	int rc = 0;

	if (git_config_get_string_buf(&spec, cfg, "mailmap.blob") < 0) {
		error_clear();
		return 0;
	}
	if (git_revparse_single(&obj, repo, spec.ptr) == 0 &&
	    git_object_type(obj) == GIT_OBJECT_BLOB)
		rc = add_blob(m, repo, git_object_id(obj));
	error_clear();
	git_object_free(obj);
	git_buf_dispose(&spec);
	return rc;
}

static int add_config_file(struct mailmap *m, git_config *cfg)
{
	git_buf path = {0};
	char *data = NULL;
	size_t len;
	int rc;

	if (git_config_get_path(&path, cfg, "mailmap.file") < 0) {
		error_clear();
		return 0;
	}
	/* As git: a file that is not there is no error. */
	rc = util_read_file(&data, &len, path.ptr, MAILMAP_FILE_MAX, NULL,
			    UTIL_MISSING_OK);
	if (rc == 0)
		rc = mailmap_add_buffer(m, data, len);
	else if (rc < 0)
		error_prefix("mailmap.file");
	free(data);
	git_buf_dispose(&path);
	return rc < 0 ? rc : 0;
}

int mailmap_load(struct mailmap **out, struct repository *repo,
		 const git_oid *rev_tree)
{
	struct mailmap *m = NULL;
	git_config *cfg = NULL;
	int rc;

	*out = NULL;
	if ((rc = mailmap_new(&m)) < 0)
		return rc;
	if ((rc = add_rev_tree(m, repo->git, rev_tree)) < 0)
		goto done;
	if (git_repository_config_snapshot(&cfg, repo->git) == 0) {
		if ((rc = add_config_blob(m, repo->git, cfg)) < 0 ||
		    (rc = add_config_file(m, cfg)) < 0)
			goto done;
	}
	error_clear();
done:
	git_config_free(cfg);
	if (rc < 0)
		mailmap_free(m);
	else
		*out = m;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Organisation maps */

struct org_entry {
	char *key;                  /* address or domain, lower case */
	char *org;
	int64_t end;                /* INT64_MAX: no end */
	size_t seq;
};

struct orgmap {
	struct org_entry *v;        /* by key, then end, then line */
	size_t n, alloc;
};

static int org_cmp(const void *a, const void *b)
{
	const struct org_entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "YYYY-MM-DD" at 00:00 UTC, or -1. */
static int64_t parse_day(const char *s)
{
	struct tm tm;
	int y, mo, d, n = 0;

	if (strlen(s) != 10 ||
	    sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 ||
	    s[4] != '-' || s[7] != '-' || mo < 1 || mo > 12 || d < 1 ||
	    d > 31)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	return (int64_t)timegm(&tm);
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*e = '\0';
	return s;
}

/* One line, comment already cut; blank lines are no entry. */
static int org_line(struct orgmap *m, const char *path, size_t no, char *s)
{
	char *key, *org, *lt;
	int64_t end = INT64_MAX;
	struct org_entry *e;

	if (!*(s = trim(s)))
		return 0;
	key = s;
	s += strcspn(s, " \t");
	if (!*s)
		return error_set("'%s' line %zu: expected 'ADDRESS-OR-DOMAIN "
				 "ORGANISATION'", path, no);
	*s++ = '\0';
	org = trim(s);
	if ((lt = strrchr(org, '<'))) {
		char *day = trim(lt + 1);

		if ((end = parse_day(day)) < 0)
			return error_set("'%s' line %zu: expected a date "
					 "YYYY-MM-DD after '<', not '%s'",
					 path, no, day);
		*lt = '\0';
		org = trim(org);
	}
	if (!*org)
		return error_set("'%s' line %zu: no organisation for '%s'",
				 path, no, key);
	if (UTIL_GROW(m->v, m->alloc, m->n + 1) < 0)
		return STRATA_ENOMEM;
	e = &m->v[m->n];
	if (!(e->key = strdup(key)) || !(e->org = strdup(org))) {
		free(e->key);
		return error_oom();
	}
	for (char *k = e->key; *k; k++)
		*k = (char)fold((unsigned char)*k);
	e->end = end;
	e->seq = m->n++;
	return 0;
}

int orgmap_parse(struct orgmap **out, const char *path, const char *buf,
		 size_t len)
{
	struct orgmap *m = calloc(1, sizeof(*m));
	char *copy = malloc(len + 1), *s, *eol;
	size_t no = 0, i, k;
	int rc = 0;

	*out = NULL;
	if (!m || !copy) {
		rc = error_oom();
		goto done;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	if (strlen(copy) != len) {
		rc = error_set("'%s': not a text file (NUL byte)", path);
		goto done;
	}
	for (s = copy; rc == 0 && *s; s = eol + 1) {
		if ((eol = strchr(s, '\n')))
			*eol = '\0';
		s[strcspn(s, "#")] = '\0';
		rc = org_line(m, path, ++no, s);
		if (!eol)
			break;
	}
	if (rc < 0)
		goto done;
	qsort(m->v, m->n, sizeof(*m->v), org_cmp);
	/* The same key and end twice: the later line wins. */
	for (i = k = 0; i < m->n; i++) {
		if (k && !strcmp(m->v[k - 1].key, m->v[i].key) &&
		    m->v[k - 1].end == m->v[i].end) {
			free(m->v[k - 1].key);
			free(m->v[k - 1].org);
			k--;
		}
		m->v[k++] = m->v[i];
	}
	m->n = k;
done:
	free(copy);
	if (rc < 0)
		orgmap_free(m);
	else
		*out = m;
	return rc;
}

int orgmap_load(struct orgmap **out, const char *path)
{
	char *data = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = util_read_file(&data, &len, path, MAILMAP_FILE_MAX, NULL,
				 0)) == 0)
		rc = orgmap_parse(out, path, data, len);
	free(data);
	return rc;
}

/* The entry of key[0, len) (compared folded) in force at `when`. */
static const char *org_find(const struct orgmap *m, const char *key,
			    size_t len, int64_t when)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *k = m->v[mid].key;
		size_t i;
		int c = 0;

		for (i = 0; i < len && !c; i++)
			c = fold((unsigned char)key[i]) - (unsigned char)k[i];
		if (!c && k[len])
			c = -1;
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->n && strlen(m->v[lo].key) == len &&
	       !strncasecmp(m->v[lo].key, key, len); lo++)
		if (when < m->v[lo].end)
			return m->v[lo].org;
	return NULL;
}

const char *orgmap_resolve(const struct orgmap *m, const char *email,
			   int64_t when, char *buf, size_t size)
{
	const char *at = strrchr(email, '@'), *d, *org;
	size_t i;

	if (m && m->n) {
		if ((org = org_find(m, email, strlen(email), when)))
			return org;
		for (d = at ? at + 1 : NULL; d && *d;
		     d = strchr(d, '.') ? strchr(d, '.') + 1 : NULL)
			if ((org = org_find(m, d, strlen(d), when)))
				return org;
	}
	if (!at || !at[1] || !size)
		return ORGMAP_UNKNOWN;
	for (i = 0; at[1 + i] && i + 1 < size; i++)
		buf[i] = (char)fold((unsigned char)at[1 + i]);
	buf[i] = '\0';
	return orgmap_is_free_mail(buf) ? ORGMAP_UNKNOWN : buf;
}

/*
 * Domains anyone can have an address at: they tell no employer. Web
 * mail, the forges' no-reply addresses, and what a machine without a
 * configured address writes. Lower case, sorted (bsearch).
 */
static const char *const free_mail[] = {
	"126.com", "139.com", "163.com", "aol.com", "fastmail.com",
	"fastmail.fm", "foxmail.com", "gmail.com", "gmx.at", "gmx.ch",
	"gmx.com", "gmx.de", "gmx.net", "googlemail.com", "hey.com",
	"hotmail.co.uk", "hotmail.com", "hotmail.de", "hotmail.fr",
	"icloud.com", "live.com", "localhost", "localhost.localdomain",
	"mac.com", "mail.com", "mail.ru", "me.com", "msn.com", "naver.com",
	"outlook.com", "pm.me", "proton.me", "protonmail.ch",
	"protonmail.com", "qq.com", "rambler.ru", "sina.com", "tutanota.com",
	"users.noreply.github.com", "users.noreply.gitlab.com", "web.de",
	"ya.ru", "yahoo.co.jp", "yahoo.co.uk", "yahoo.com", "yahoo.de",
	"yahoo.fr", "yandex.com", "yandex.ru", "zoho.com",
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Does s[0, n) end with `end`? */
static int ends_with(const char *s, size_t n, const char *end)
{
	size_t e = strlen(end);

	return n >= e && !memcmp(s + n - e, end, e);
}

int orgmap_is_free_mail(const char *domain)
{
	size_t n = strlen(domain);

	/* git's default address on a host without a domain: host.(none) */
	if (ends_with(domain, n, "(none)") ||
	    ends_with(domain, n, ".localdomain") ||
	    ends_with(domain, n, ".local"))
		return 1;
	return bsearch(&domain, free_mail, sizeof(free_mail) /
		       sizeof(*free_mail), sizeof(*free_mail), str_cmp) != NULL;
}

/* Addresses of bots that carry no "[bot]". */
static const char *const bot_mail[] = {
	"bot@renovateapp.com", "noreply@github.com",
	"support@dependabot.com",
};

int orgmap_is_bot(const char *name, const char *email)
{
	const char *at = strrchr(email, '@');
	size_t i;

	if (ends_with(name, strlen(name), "[bot]") ||
	    (at && ends_with(email, (size_t)(at - email), "[bot]")))
		return 1;
	for (i = 0; i < sizeof(bot_mail) / sizeof(*bot_mail); i++)
		if (!strcasecmp(email, bot_mail[i]))
			return 1;
	return 0;
}

void orgmap_free(struct orgmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].org);
	}
	free(m->v);
	free(m);
}

const char *orgmap_author(const struct orgmap *m, const char *email,
			  int64_t when, int bot, char *buf, size_t size)
{
	const char *org = orgmap_resolve(m, email, when, buf, size);

	/* A bot's organisation is "(bots)", unless a map names it. */
	if (bot && (org == buf || !strcmp(org, ORGMAP_UNKNOWN)))
		return ORGMAP_BOTS;
	return org;
}
