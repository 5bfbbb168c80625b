#include "strata/attr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/util.h"
#include "strata/odb.h"
#include "strata/wildmatch.h"

/* git's limits (attr.h): longer lines and bigger files are ignored. */
#define ATTR_MAX_LINE 2048
#define ATTR_MAX_FILE ((size_t)100 << 20)

#define PAT_NODIR     1u   /* no '/': matched against the base name */
#define PAT_ENDSWITH  2u   /* "*literal" */
#define PAT_MUSTBEDIR 4u   /* "dir/": directories only */

/* What a line decides for the file, before anything else has. */
enum { V_UNKNOWN, V_UNSPECIFIED, V_SET, V_UNSET, V_STRING };

struct state {
	uint32_t id;         /* interned name */
	uint8_t kind;        /* V_UNSPECIFIED (!a), V_SET, V_UNSET, V_STRING */
	char *value;         /* V_STRING (owned) */
};

struct line {
	int is_macro;
	uint32_t macro;      /* the name it defines */
	char *pat;           /* pattern (owned) */
	size_t plen, prefix; /* length, literal prefix */
	unsigned flags;
	struct state *st;
	size_t nst;
};

struct frame {
	char *dir;           /* "" for the root, else "a/b" (owned) */
	size_t dirlen;
	struct line *lines;
	size_t n, alloc;
};

struct attr {
	char **names;
	size_t nnames, names_alloc, macro_alloc;
	struct frame builtin;
	struct frame *frames;    /* sorted by dir */
	size_t nframes, frames_alloc;
	/* per name: the line defining it as a macro, or NULL */
	const struct line **macro;
	int vendored, generated;  /* names of linguist's two, or -1 */
};

static const char blank[] = " \t\r\n";

/* ---- names ---- */

static int name_valid(const char *s, size_t len)
{
	size_t i;

	if (!len || *s == '-')
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(c == '-' || c == '.' || c == '_' ||
		      (c >= '0' && c <= '9') || ((c | 32) >= 'a' &&
						 (c | 32) <= 'z')))
			return 0;
	}
	return 1;
}

static int name_find(const struct attr *a, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < a->nnames; i++)
		if (!strncmp(a->names[i], s, len) && !a->names[i][len])
			return (int)i;
	return -1;
}

static int intern(uint32_t *out, struct attr *a, const char *s, size_t len)
{
	int i = name_find(a, s, len);

	if (i >= 0) {
		*out = (uint32_t)i;
		return 0;
	}
	if (UTIL_GROW(a->names, a->names_alloc, a->nnames + 1) < 0 ||
	    UTIL_GROW(a->macro, a->macro_alloc, a->nnames + 1) < 0)
		return STRATA_ENOMEM;
	if (!(a->names[a->nnames] = strndup(s, len)))
		return error_oom();
	a->macro[a->nnames] = NULL;
	*out = (uint32_t)a->nnames++;
	return 0;
}

/* ---- parsing ---- */

/*
 * git's unquote_c_style() of the quoted string at s: the bytes into *out
 * (malloc'd, NUL-terminated), the end after the closing quote into *end.
 * -1 if it is not a well-formed quoted string.
 */
static int unquote(char **out, size_t *outlen, const char *s,
		   const char **end)
{
	size_t n = 0;
	char *buf = malloc(strlen(s) + 1);

	if (!buf || *s++ != '"')
		goto fail;
	for (;;) {
		int ch = (unsigned char)*s++;

		if (ch == '"')
			break;
		if (!ch)
			goto fail;
		if (ch == '\\') {
			ch = (unsigned char)*s++;
			switch (ch) {
			case 'a': ch = '\a'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'v': ch = '\v'; break;
			case '\\': case '"': break;
			case '0': case '1': case '2': case '3':
				if (s[0] < '0' || s[0] > '7' || s[1] < '0' ||
				    s[1] > '7')
					goto fail;
				ch = ((ch - '0') << 6) | ((s[0] - '0') << 3) |
				     (s[1] - '0');
				s += 2;
				break;
			default:
				goto fail;
			}
		}
		buf[n++] = (char)ch;
	}
	buf[n] = '\0';
	*out = buf;
	*outlen = n;
	*end = s;
	return 0;
fail:
	free(buf);
	return -1;
}

/* One "attr", "-attr", "!attr" or "attr=value" at cp; NULL if invalid. */
static const char *parse_state(struct attr *a, const char *cp,
			       struct state *e, int *rc)
{
	const char *ep = cp + strcspn(cp, blank), *eq = strchr(cp, '=');
	size_t len;

	if (eq && ep < eq)
		eq = NULL;
	len = (size_t)((eq ? eq : ep) - cp);
	if (*cp == '-' || *cp == '!') {
		if (e)
			e->kind = *cp == '-' ? V_UNSET : V_UNSPECIFIED;
		cp++;
		len--;
	} else if (e && !eq) {
		e->kind = V_SET;
	} else if (e) {
		e->kind = V_STRING;
		if (!(e->value = strndup(eq + 1, (size_t)(ep - eq - 1)))) {
			*rc = error_oom();
			return NULL;
		}
	}
	if (!name_valid(cp, len))
		return NULL;
	if (e && (*rc = intern(&e->id, a, cp, len)) < 0) {
		if (e->kind == V_STRING)
			free(e->value);
		e->kind = V_SET;
		return NULL;
	}
	return ep + strspn(ep, blank);
}

static size_t simple_length(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '*' && s[n] != '?' && s[n] != '[' &&
	       s[n] != '\\')
		n++;
	return n;
}

/* parse_path_pattern(): 0, or 1 for a negative pattern (ignored). */
static int parse_pattern(struct line *l, char *p)
{
	size_t len;
	char *pat = p;

	if (*pat == '!')
		return 1;
	len = strlen(pat);
	l->flags = 0;
	if (len && pat[len - 1] == '/') {
		len--;
		l->flags |= PAT_MUSTBEDIR;
	}
	if (!memchr(pat, '/', len))
		l->flags |= PAT_NODIR;
	l->prefix = simple_length(pat);
	if (l->prefix > len)
		l->prefix = len;
	if (*pat == '*' && !pat[1 + simple_length(pat + 1)])
		l->flags |= PAT_ENDSWITH;
	l->plen = len;
	return 0;
}

static void line_release(struct line *l)
{
	size_t i;

	for (i = 0; i < l->nst; i++)
		if (l->st[i].kind == V_STRING)
			free(l->st[i].value);
	free(l->st);
	free(l->pat);
}

/*
 * The pattern or macro name that starts the line at cp, into l; *states
 * is set to what follows it. 1: not a line to keep.
 */
static int parse_head(struct attr *a, struct line *l, const char *cp,
		      const char **states, int macro_ok)
{
	static const char prefix[] = "[attr]";
	const size_t np = sizeof(prefix) - 1;
	char *name = NULL;
	size_t namelen;

	if (*cp != '"' || unquote(&name, &namelen, cp, states) < 0) {
		namelen = strcspn(cp, blank);
		if (!(name = strndup(cp, namelen)))
			return error_oom();
		*states = cp + namelen;
	}
	if (namelen > np && !strncmp(name, prefix, np)) {
		const char *m = name + np;
		size_t mlen = strcspn(m, blank);
		int rc = 1;

		if (macro_ok && name_valid(m, mlen)) {
			l->is_macro = 1;
			rc = intern(&l->macro, a, m, mlen);
		}
		free(name);
		return rc;
	}
	l->pat = name;
	return parse_pattern(l, name);
}

/* One line of a file; l is filled when it returns 0. */
static int parse_line(struct attr *a, struct line *l, const char *line,
		      int macro_ok)
{
	const char *cp = line + strspn(line, blank), *states = NULL, *s;
	size_t n;
	int rc = 0;

	memset(l, 0, sizeof(*l));
	if (!*cp || *cp == '#' || strlen(line) >= ATTR_MAX_LINE)
		return 1;
	if ((rc = parse_head(a, l, cp, &states, macro_ok)) != 0)
		goto fail;
	states += strspn(states, blank);
	for (s = states, n = 0; *s; n++)
		if (!(s = parse_state(a, s, NULL, &rc)))
			goto fail;
	if (n && !(l->st = calloc(n, sizeof(*l->st)))) {
		rc = error_oom();
		goto fail;
	}
	for (s = states; *s; l->nst++)
		if (!(s = parse_state(a, s, &l->st[l->nst], &rc)))
			goto fail;
	return 0;
fail:
	line_release(l);
	return rc < 0 ? rc : 1;
}

static int frame_add_line(struct frame *f, const struct line *l)
{
	if (UTIL_GROW(f->lines, f->alloc, f->n + 1) < 0)
		return STRATA_ENOMEM;
	f->lines[f->n++] = *l;
	return 0;
}

/* Lines as git reads a file: LF or CRLF ends one, a NUL cuts it short. */
static int parse_file(struct attr *a, struct frame *f, const char *buf,
		      size_t len, int macro_ok)
{
	char *copy;
	size_t at = 0;
	int rc = 0;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		at = 3;
	if (!(copy = malloc(len + 1)))
		return error_oom();
	while (at < len && rc >= 0) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - buf) : len, n = end - at;
		struct line l;

		memcpy(copy, buf + at, n);
		if (nl && n && copy[n - 1] == '\r')
			n--;
		copy[n] = '\0';
		at = end + 1;
		rc = parse_line(a, &l, copy, macro_ok);
		if (rc == 0 && (rc = frame_add_line(f, &l)) < 0)
			line_release(&l);
	}
	free(copy);
	return rc < 0 ? rc : 0;
}

/* The macros: the root file's last definition, else the built-in one. */
static void find_macros(struct attr *a)
{
	const struct frame *order[2] = { NULL, &a->builtin };
	size_t i, k;

	if (a->nframes && !a->frames[0].dirlen)
		order[0] = &a->frames[0];
	a->vendored = name_find(a, "linguist-vendored", 17);
	a->generated = name_find(a, "linguist-generated", 18);
	for (i = 0; i < a->nnames; i++)
		a->macro[i] = NULL;
	for (k = 0; k < 2; k++) {
		const struct frame *f = order[k];

		for (i = f ? f->n : 0; i-- > 0;) {
			const struct line *l = &f->lines[i];

			if (l->is_macro && !a->macro[l->macro])
				a->macro[l->macro] = l;
		}
	}
}

static int dir_cmp(const char *d, size_t dlen, const struct frame *f)
{
	size_t m = dlen < f->dirlen ? dlen : f->dirlen;
	int c = memcmp(d, f->dir, m);

	if (c)
		return c;
	return dlen < f->dirlen ? -1 : dlen > f->dirlen;
}

/* Index of the frame for dir (or where it would go); *found set. */
static size_t frame_find(const struct attr *a, const char *dir, size_t dlen,
			 int *found)
{
	size_t lo = 0, hi = a->nframes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = dir_cmp(dir, dlen, &a->frames[mid]);

		if (!c) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = 0;
	return lo;
}

int attr_new(struct attr **out)
{
	static const char builtin[] = "[attr]binary -diff -merge -text\n";
	struct attr *a = calloc(1, sizeof(*a));
	int rc;

	*out = NULL;
	if (!a)
		return error_oom();
	if ((rc = parse_file(a, &a->builtin, builtin, sizeof(builtin) - 1,
			     1)) < 0) {
		attr_free(a);
		return rc;
	}
	find_macros(a);
	*out = a;
	return 0;
}

int attr_add_file(struct attr *a, const char *dir, const char *buf,
		  size_t len)
{
	size_t dlen = strlen(dir), at;
	int found, rc;
	struct frame *f;

	if (len >= ATTR_MAX_FILE)
		return 0;
	at = frame_find(a, dir, dlen, &found);
	if (!found) {
		if (UTIL_GROW(a->frames, a->frames_alloc, a->nframes + 1) < 0)
			return STRATA_ENOMEM;
		memmove(&a->frames[at + 1], &a->frames[at],
			(a->nframes - at) * sizeof(*a->frames));
		f = &a->frames[at];
		memset(f, 0, sizeof(*f));
		a->nframes++;
		if (!(f->dir = strdup(dir)))
			return error_oom();
		f->dirlen = dlen;
	}
	f = &a->frames[at];
	rc = parse_file(a, f, buf, len, !dlen);
	find_macros(a);
	return rc;
}

static void frame_release(struct frame *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		line_release(&f->lines[i]);
	free(f->lines);
	free(f->dir);
}

void attr_free(struct attr *a)
{
	size_t i;

	if (!a)
		return;
	frame_release(&a->builtin);
	for (i = 0; i < a->nframes; i++)
		frame_release(&a->frames[i]);
	free(a->frames);
	for (i = 0; i < a->nnames; i++)
		free(a->names[i]);
	free(a->names);
	free(a->macro);
	free(a);
}

/* ---- reading a tree ---- */

struct tree_walk {
	struct attr *a;
	git_repository *repo;
	int rc;
	struct odb_walk_bound bound;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct tree_walk *w = payload;
	git_filemode_t mode = git_tree_entry_filemode(e);
	git_blob *blob = NULL;
	char *dir;
	size_t len = strlen(root);

	/* libgit2's walk recurses: stop it where strata's own walks stop. */
	if ((w->rc = odb_walk_check(&w->bound, root, e)) < 0)
		return -1;
	if (strcmp(git_tree_entry_name(e), ".gitattributes") ||
	    (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE))
		return 0;
	if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(e)) < 0) {
		w->rc = error_git("unable to read '%s.gitattributes'", root);
		return -1;
	}
	if (!(dir = strndup(root, len ? len - 1 : 0))) {
		w->rc = error_oom();
	} else {
		w->rc = attr_add_file(w->a, dir,
				      git_blob_rawcontent(blob),
				      (size_t)git_blob_rawsize(blob));
		free(dir);
	}
	git_blob_free(blob);
	return w->rc < 0 ? -1 : 0;
}

int attr_load_tree(struct attr **out, git_repository *repo,
		   const git_oid *tree)
{
	struct tree_walk w = { NULL, repo, 0, { tree, 0 } };
	git_tree *t = NULL;
	int rc;

	*out = NULL;
	if ((rc = attr_new(&w.a)) < 0)
		return rc;
	if (git_tree_lookup(&t, repo, tree) < 0) {
		rc = error_git("unable to read tree");
		goto done;
	}
	if (git_tree_walk(t, GIT_TREEWALK_PRE, walk_cb, &w) < 0)
		rc = w.rc < 0 ? w.rc : error_git("unable to read a tree");
done:
	git_tree_free(t);
	if (rc < 0)
		attr_free(w.a);
	else
		*out = w.a;
	return rc;
}

/* ---- looking up ---- */

static int match_line(const struct line *l, const char *path, size_t plen,
		      size_t boff, const struct frame *f)
{
	const char *pat = l->pat, *name;
	size_t len = l->plen, prefix = l->prefix, nlen;

	if (l->flags & PAT_MUSTBEDIR)
		return 0;
	if (l->flags & PAT_NODIR) {
		const char *base = path + boff;
		size_t blen = plen - boff;

		if (prefix == len)
			return len == blen && !memcmp(pat, base, blen);
		if (l->flags & PAT_ENDSWITH)
			return len - 1 <= blen &&
			       !memcmp(pat + 1, base + blen - (len - 1),
				       len - 1);
		return wildmatch(pat, len, base, blen, 0);
	}
	/* A path pattern is relative to its file's directory. */
	if (*pat == '/') {
		pat++;
		len--;
		prefix = prefix ? prefix - 1 : 0;
	}
	if (plen < f->dirlen + 1 || (f->dirlen && path[f->dirlen] != '/') ||
	    memcmp(path, f->dir, f->dirlen))
		return 0;
	nlen = f->dirlen ? plen - f->dirlen - 1 : plen;
	name = path + plen - nlen;
	if (prefix) {
		if (prefix > nlen || memcmp(pat, name, prefix))
			return 0;
		pat += prefix;
		len -= prefix;
		name += prefix;
		nlen -= prefix;
		if (!len && !nlen)
			return 1;
	}
	return wildmatch(pat, len, name, nlen, WILDMATCH_PATHNAME);
}

struct fill {
	const struct attr *a;
	const struct state **val;    /* per name: the deciding state */
	const struct line **stack;   /* macros being expanded */
	size_t *at;
};

/*
 * git's fill_one(): the line's attributes, last first, each that nothing
 * has decided yet; a macro set this way is expanded there and then.
 */
static void fill_one(struct fill *F, const struct line *l)
{
	size_t sp = 0;

	F->stack[0] = l;
	F->at[0] = l->nst;
	while (1) {
		const struct line *cur = F->stack[sp];
		const struct state *s;
		const struct line *m;

		if (!F->at[sp]) {
			if (!sp)
				return;
			sp--;
			continue;
		}
		s = &cur->st[--F->at[sp]];
		if (F->val[s->id])
			continue;
		F->val[s->id] = s;
		m = F->a->macro[s->id];
		if (m && s->kind == V_SET) {
			/* Each push decides a new name: at most nnames deep. */
			sp++;
			F->stack[sp] = m;
			F->at[sp] = m->nst;
		}
	}
}

static int decided(const struct fill *F, const uint32_t *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!F->val[want[i]])
			return 0;
	return 1;
}

static void fill_frame(struct fill *F, const struct frame *f,
		       const char *path, size_t plen, size_t boff,
		       const uint32_t *want, size_t nwant)
{
	size_t i;

	for (i = f->n; i-- > 0 && !decided(F, want, nwant);) {
		const struct line *l = &f->lines[i];

		if (!l->is_macro && match_line(l, path, plen, boff, f))
			fill_one(F, l);
	}
}

/*
 * The states deciding the names `want` for `path` into out[] (NULL where
 * nothing does): the frames of its directories, deepest first, then the
 * built-in one. -1 if out of memory.
 */
static int lookup(const struct attr *a, const char *path,
		  const uint32_t *want, size_t nwant,
		  const struct state **out)
{
	struct fill F;
	size_t plen = strlen(path), boff, d, i;
	const char *slash = strrchr(path, '/');
	int found;

	F.a = a;
	F.val = calloc(a->nnames + 1, sizeof(*F.val));
	F.stack = malloc((a->nnames + 1) * sizeof(*F.stack));
	F.at = malloc((a->nnames + 1) * sizeof(*F.at));
	if (!F.val || !F.stack || !F.at) {
		free(F.val);
		free(F.stack);
		free(F.at);
		return -1;
	}
	boff = slash ? (size_t)(slash - path) + 1 : 0;
	d = slash ? (size_t)(slash - path) : 0;
	/* path[0..d) is a directory of the path, deepest first. */
	for (;;) {
		size_t k = frame_find(a, path, d, &found);

		if (found)
			fill_frame(&F, &a->frames[k], path, plen, boff, want,
				   nwant);
		if (!d)
			break;
		do
			d--;
		while (d && path[d] != '/');
	}
	fill_frame(&F, &a->builtin, path, plen, boff, want, nwant);
	for (i = 0; i < nwant; i++)
		out[i] = F.val[want[i]];
	free(F.val);
	free(F.stack);
	free(F.at);
	return 0;
}

static enum attr_value value_of(const struct state *s, const char **value)
{
	if (!s || s->kind == V_UNSPECIFIED)
		return ATTR_UNSPECIFIED;
	if (s->kind == V_SET)
		return ATTR_SET;
	if (s->kind == V_UNSET)
		return ATTR_UNSET;
	if (value)
		*value = s->value;
	return ATTR_STRING;
}

enum attr_value attr_get(const struct attr *a, const char *path,
			 const char *name, const char **value)
{
	const struct state *s = NULL;
	int id = name_find(a, name, strlen(name));
	uint32_t want;

	if (id < 0)
		return ATTR_UNSPECIFIED;
	want = (uint32_t)id;
	if (lookup(a, path, &want, 1, &s) < 0)
		return ATTR_UNSPECIFIED;
	return value_of(s, value);
}

/* linguist's boolean_attribute(): present and not false nor "false". */
static int linguist_true(const struct state *s)
{
	const char *v = NULL;

	switch (value_of(s, &v)) {
	case ATTR_SET:
		return 1;
	case ATTR_STRING:
		return strcmp(v, "false") != 0;
	default:
		return 0;
	}
}

int attr_vendored(const struct attr *a, const char *path)
{
	int v = a->vendored, g = a->generated;
	const struct state *s[2] = { NULL, NULL };
	uint32_t want[2];
	size_t n = 0;

	if (v >= 0)
		want[n++] = (uint32_t)v;
	if (g >= 0)
		want[n++] = (uint32_t)g;
	if (!n || lookup(a, path, want, n, s) < 0)
		return 0;
	return linguist_true(s[0]) || (n > 1 && linguist_true(s[1]));
}
