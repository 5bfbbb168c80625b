#include "strata/repository.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/error.h"
#include "strata/util.h"
#include "strata/odb.h"

/*
 * libgit2 1.5 as Debian builds it (with mbedTLS) parses the system's whole
 * CA bundle in git_libgit2_init(), for HTTPS that strata never does:
 * milliseconds of every run's start, on a single thread. Its
 * call to mbedTLS's mbedtls_x509_crt_parse_file() binds to this definition
 * first (the executable comes first in the dynamic linker's search), which
 * parses nothing and reports no error. With a libgit2 built on another
 * TLS library, nothing calls it.
 */
int mbedtls_x509_crt_parse_file(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

/*
 * Opens the file at path for reading into *out, without blocking: 0 with
 * *out NULL when there is no such file; an error when it cannot be opened
 * or is not a regular file (a FIFO or a device in its place would hang or
 * never end).
 */
static int open_regular(FILE **out, const char *path)
{
	struct stat st;
	int fd = util_open_regular(path, &st);

	*out = NULL;
	if (fd == -1 && errno == ENOENT)
		return 0;
	if (fd == -1)
		return error_set("unable to read '%s': %s", path,
				 strerror(errno));
	if (fd == UTIL_NOT_FILE)
		return error_set("unable to read '%s': not a regular file",
				 path);
	if (!(*out = fdopen(fd, "r"))) {
		close(fd);
		return error_oom();
	}
	return 0;
}

/* Commits listed in the shallow file have their parents cut off. */
static int load_shallow(struct repository *repo)
{
	const char *gitdir = git_repository_commondir(repo->git);
	char *path = NULL, line[128];
	FILE *f = NULL;
	size_t alloc = 0;
	int rc = 0;

	if (asprintf(&path, "%sshallow", gitdir) < 0)
		return error_oom();
	/* Not fopen(): a FIFO would hang it, /dev/zero gives empty lines. */
	if ((rc = open_regular(&f, path)) < 0 || !f)
		goto done;
	while (fgets(line, sizeof(line), f)) {
		git_oid oid;

		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		if (git_oid_fromstr(&oid, line) < 0) {
			rc = error_set("malformed shallow file '%s'", path);
			goto done;
		}
		if ((rc = UTIL_GROW(repo->shallow, alloc,
				    repo->nshallow + 1)) < 0)
			goto done;
		repo->shallow[repo->nshallow++] = oid;
	}
	qsort(repo->shallow, repo->nshallow, sizeof(git_oid), oid_cmp);
done:
	if (f)
		fclose(f);
	free(path);
	return rc;
}

static int replace_cmp(const void *a, const void *b)
{
	return git_oid_cmp(&((const struct repository_replace *)a)->from,
			   &((const struct repository_replace *)b)->from);
}

static int graft_cmp(const void *a, const void *b)
{
	return git_oid_cmp(&((const struct repository_graft *)a)->commit,
			   &((const struct repository_graft *)b)->commit);
}

struct replace_walk {
	struct repository *repo;
	size_t alloc, baselen;
	int rc;
};

static int replace_cb(const char *name, void *payload)
{
	struct replace_walk *w = payload;
	struct repository *repo = w->repo;
	git_oid from, to;

	/* refs/replace/<object> names the object it replaces. */
	if (git_oid_fromstr(&from, name + w->baselen) < 0 ||
	    strlen(name + w->baselen) != GIT_OID_HEXSZ)
		return 0;
	if (git_reference_name_to_id(&to, repo->git, name) < 0)
		return 0;
	if (UTIL_GROW(repo->replace, w->alloc, repo->nreplace + 1) < 0)
		return (w->rc = STRATA_ENOMEM);
	repo->replace[repo->nreplace].from = from;
	repo->replace[repo->nreplace].to = to;
	repo->nreplace++;
	return 0;
}

/* git replace: honoured unless switched off, as git does. */
static int load_replace(struct repository *repo)
{
	struct replace_walk w = {repo, 0, 0, 0};
	const char *base = getenv("GIT_REPLACE_REF_BASE");
	git_config *cfg = NULL;
	char *glob = NULL;
	int use = 1;

	if (getenv("GIT_NO_REPLACE_OBJECTS"))
		return 0;
	if (git_repository_config_snapshot(&cfg, repo->git) == 0) {
		if (git_config_get_bool(&use, cfg, "core.useReplaceRefs") < 0)
			use = 1;
		git_config_free(cfg);
	}
	if (!use)
		return 0;
	if (!base || !*base)
		base = "refs/replace/";
	if (asprintf(&glob, "%s%s*", base,
		     base[strlen(base) - 1] == '/' ? "" : "/") < 0)
		return error_oom();
	w.baselen = strlen(glob) - 1;
	git_reference_foreach_glob(repo->git, glob, replace_cb, &w);
	free(glob);
	if (w.rc < 0)
		return w.rc;
	if (repo->nreplace)
		qsort(repo->replace, repo->nreplace, sizeof(*repo->replace),
		      replace_cmp);
	return 0;
}

/*
 * Whether line l (n bytes, its newline dropped) of packed-refs is one git
 * reads (refs/packed-backend.c): "HEX NAME", or, right after such a
 * line, "^HEX" (the object a tag peels to). A name git finds bad makes a
 * broken ref for git, not an error; libgit2 judges it when it is asked.
 */
static bool packed_line_ok(const char *l, size_t n, bool after_ref)
{
	git_oid oid;

	if (n == GIT_OID_HEXSZ + 1 && l[0] == '^')
		return after_ref && git_oid_fromstrn(&oid, l + 1,
						     GIT_OID_HEXSZ) == 0;
	return n > GIT_OID_HEXSZ + 1 && l[GIT_OID_HEXSZ] == ' ' &&
	       git_oid_fromstrn(&oid, l, GIT_OID_HEXSZ) == 0;
}

/* The lines of packed-refs file f (at `path`), each as git reads it. */
static int check_packed_lines(FILE *f, const char *path)
{
	char *line = NULL;
	size_t cap = 0, no = 0;
	bool after_ref = false;
	ssize_t n;
	int rc = 0;

	while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
		no++;
		if (line[n - 1] != '\n') {
			rc = error_set("corrupt '%s': line %zu has no end", path,
				       no);
			break;
		}
		line[--n] = '\0';
		if (no == 1 && !strncmp(line, "# pack-refs with:", 17))
			continue;
		if (!packed_line_ok(line, (size_t)n, after_ref))
			rc = error_set("corrupt '%s': unexpected line %zu",
				       path, no);
		after_ref = line[0] != '^';
	}
	free(line);
	return rc;
}

/*
 * packed-refs, checked line by line as git reads it: git dies on a line
 * it cannot read ("unexpected line in .git/packed-refs"), where libgit2
 * skips what it cannot parse and the refs after it. A FIFO in its place
 * is an error, not a hang.
 */
static int check_packed_refs(const struct repository *repo)
{
	char *path = NULL;
	FILE *f = NULL;
	int rc;

	if (asprintf(&path, "%spacked-refs",
		     git_repository_commondir(repo->git)) < 0)
		return error_oom();
	if ((rc = open_regular(&f, path)) == 0 && f) {
		rc = check_packed_lines(f, path);
		fclose(f);
	}
	free(path);
	return rc;
}

/*
 * The deprecated info/grafts file: "commit parent..." per line. A FIFO
 * or a device in its place is an error, as for packed-refs.
 */
static int load_grafts(struct repository *repo)
{
	const char *gitdir = git_repository_commondir(repo->git);
	char *path = NULL, *line = NULL;
	size_t cap = 0, alloc = 0, palloc = 0;
	FILE *f = NULL;
	int rc = 0;

	if (asprintf(&path, "%sinfo/grafts", gitdir) < 0)
		return error_oom();
	if ((rc = open_regular(&f, path)) < 0 || !f)
		goto done;
	while (getline(&line, &cap, f) > 0) {
		struct repository_graft *g;
		char *tok, *save = NULL;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if ((rc = UTIL_GROW(repo->grafts, alloc,
				    repo->ngrafts + 1)) < 0)
			goto done;
		g = &repo->grafts[repo->ngrafts];
		memset(g, 0, sizeof(*g));
		palloc = 0;
		for (tok = strtok_r(line, " \t\r\n", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			git_oid oid;

			if (strlen(tok) != GIT_OID_HEXSZ ||
			    git_oid_fromstr(&oid, tok) < 0) {
				rc = error_set("bad graft data in '%s'", path);
				free(g->parents);
				goto done;
			}
			if (tok == line) {
				g->commit = oid;
				continue;
			}
			if ((rc = UTIL_GROW(g->parents, palloc,
					    g->nparents + 1)) < 0) {
				free(g->parents);
				goto done;
			}
			g->parents[g->nparents++] = oid;
		}
		repo->ngrafts++;
	}
	if (repo->ngrafts)
		qsort(repo->grafts, repo->ngrafts, sizeof(*repo->grafts),
		      graft_cmp);
done:
	if (f)
		fclose(f);
	free(line);
	free(path);
	return rc;
}

/*
 * The project's name from remote.origin.url: its last path component
 * ("https://host/o/redis.git", "git@host:o/redis", "/srv/redis.git/"),
 * without ".git"; NULL when there is none, or it is empty or too long.
 */
static char *name_from_remote(git_repository *git)
{
	git_config *cfg = NULL;
	git_buf url = GIT_BUF_INIT;
	char *name = NULL;
	const char *p, *start;
	size_t len;

	if (git_repository_config_snapshot(&cfg, git) < 0 ||
	    git_config_get_string_buf(&url, cfg, "remote.origin.url") < 0)
		goto done;
	len = url.size;
	while (len && url.ptr[len - 1] == '/')
		len--;
	if (len > 4 && !memcmp(url.ptr + len - 4, ".git", 4))
		len -= 4;
	for (start = p = url.ptr; p < url.ptr + len; p++)
		if (*p == '/' || *p == ':' || *p == '\\')
			start = p + 1;
	len -= (size_t)(start - url.ptr);
	if (len && len <= REPOSITORY_NAME_MAX)
		name = strndup(start, len);
done:
	git_buf_dispose(&url);
	git_config_free(cfg);
	error_clear();
	return name;
}

static char *display_name(git_repository *git)
{
	const char *dir = git_repository_workdir(git);
	char buf[4096], *base, *remote = name_from_remote(git);
	size_t len;

	if (remote)
		return remote;
	if (!dir)
		dir = git_repository_path(git);
	snprintf(buf, sizeof(buf), "%s", dir);
	len = strlen(buf);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	/* A work tree's .git, or a bare "name.git", is named by the project. */
	if (len >= 5 && !strcmp(buf + len - 5, "/.git")) {
		len -= 5;
		buf[len] = '\0';
	} else if (len > 4 && !strcmp(buf + len - 4, ".git")) {
		len -= 4;
		buf[len] = '\0';
	}
	base = strrchr(buf, '/');
	return strdup(base && base[1] ? base + 1 : buf);
}

/*
 * A partial clone leaves objects out and has git fetch them from its
 * promisor remote when a command needs them; strata reads only what the
 * repository holds, so such an object is an error, and the message says
 * why. The remote is `extensions.partialClone`, or the first
 * `remote.NAME.promisor` that is true.
 */
static int load_missing_hint(struct repository *repo)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	git_buf value = { 0 };
	static const char pre[] = "remote.", suf[] = ".promisor";
	const size_t np = sizeof(pre) - 1, ns = sizeof(suf) - 1;
	char *name = NULL, msg[1024];
	int rc = 0, on;

	if (git_repository_config_snapshot(&cfg, repo->git) < 0)
		return 0;
	if (git_config_get_string_buf(&value, cfg, "extensions.partialclone")
	    == 0 && value.size) {
		if (!(name = strdup(value.ptr)))
			rc = error_oom();
	} else if (git_config_iterator_new(&it, cfg) == 0) {
		/* (libgit2's glob iterator leaks pcre2's match data) */
		while (!name && git_config_next(&e, it) == 0) {
			size_t len = strlen(e->name);

			if (len <= np + ns || strncmp(e->name, pre, np) ||
			    strcmp(e->name + len - ns, suf) ||
			    git_config_parse_bool(&on, e->value) < 0 || !on)
				continue;
			if (!(name = strndup(e->name + np, len - np - ns))) {
				rc = error_oom();
				break;
			}
		}
	}
	if (name) {
		snprintf(msg, sizeof(msg), "it is not in '%s', a partial clone "
			 "that leaves objects with its promisor remote '%s' "
			 "(strata reads only what a repository holds: clone "
			 "it without --filter, or leave the file out with "
			 "--exclude)", repo->path, name);
		if ((repo->missing_hint = strdup(msg)) != NULL)
			odb_set_missing_hint(repo->odb, repo->missing_hint);
		else
			rc = error_oom();
	}
	free(name);
	git_buf_dispose(&value);
	git_config_iterator_free(it);
	git_config_free(cfg);
	return rc;
}

static unsigned discovery_flags(void)
{
	const char *v = getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM");
	int on = 0;

	if (v && git_config_parse_bool(&on, v) == 0 && on)
		return GIT_REPOSITORY_OPEN_CROSS_FS;
	return 0;
}

int repository_open(struct repository **out, const char *path)
{
	struct repository *repo;
	int rc = 0;

	*out = NULL;
	repo = calloc(1, sizeof(*repo));
	if (!repo)
		return error_oom();
	/*
	 * Found as git finds it: in `path` or a directory above it, up to
	 * GIT_CEILING_DIRECTORIES, and on the same file system unless
	 * GIT_DISCOVERY_ACROSS_FILESYSTEM says otherwise.
	 */
	if ((rc = git_repository_open_ext(&repo->git, path, discovery_flags(),
					  getenv("GIT_CEILING_DIRECTORIES")))
	    < 0) {
		/* Not found is the usual case; say why otherwise. */
		if (rc == GIT_ENOTFOUND)
			rc = error_set("not a git repository: '%s'", path);
		else
			rc = error_git("unable to open repository '%s'", path);
		goto done;
	}
	if ((rc = odb_open(&repo->odb, repo->git, 0)) < 0)
		goto done;
	repo->path = strdup(path);
	repo->name = display_name(repo->git);
	if (!repo->path || !repo->name) {
		rc = error_oom();
		goto done;
	}
	if ((rc = check_packed_refs(repo)) < 0 ||
	    (rc = load_shallow(repo)) < 0 || (rc = load_replace(repo)) < 0 ||
	    (rc = load_missing_hint(repo)) < 0)
		goto done;
	rc = load_grafts(repo);
done:
	if (rc < 0)
		repository_free(repo);
	else
		*out = repo;
	return rc;
}

int repository_open_handle(git_repository **out,
			   const struct repository *repo)
{
	if (git_repository_open_ext(out, git_repository_path(repo->git),
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return error_git("unable to open '%s'", repo->path);
	return 0;
}

void repository_free(struct repository *repo)
{
	if (!repo)
		return;
	odb_free(repo->odb);
	git_repository_free(repo->git);
	free(repo->path);
	free(repo->name);
	free(repo->shallow);
	free(repo->replace);
	for (size_t i = 0; i < repo->ngrafts; i++)
		free(repo->grafts[i].parents);
	free(repo->grafts);
	free(repo->missing_hint);
	free(repo);
}

/*
 * `rev` as a ref name or a full object id, to the commit it names, without
 * parsing it: libgit2 refuses a commit it cannot parse with "unknown
 * revision" (and leaks what it parsed), where history_load() says what
 * is wrong with it. Anything else (a tag, "HEAD~2"): -1, no error.
 */
static int resolve_raw(git_oid *out, struct repository *repo,
		       const char *rev)
{
	git_reference *ref = NULL, *res = NULL;
	struct odb_object *obj = NULL;
	int rc = -1;

	if (strlen(rev) == GIT_OID_HEXSZ && git_oid_fromstr(out, rev) == 0) {
		rc = 0;
	} else if (git_reference_dwim(&ref, repo->git, rev) == 0 &&
		   git_reference_resolve(&res, ref) == 0 &&
		   git_reference_target(res)) {
		git_oid_cpy(out, git_reference_target(res));
		rc = 0;
	}
	git_reference_free(res);
	git_reference_free(ref);
	/* Only a commit: history_load() reads it and says what is wrong. */
	if (rc == 0 && odb_read(&obj, repo->odb, repo->git,
				repository_replacement(repo, out),
				GIT_OBJECT_COMMIT) < 0)
		rc = -1;
	odb_object_free(obj);
	error_clear();
	return rc;
}

static int resolve_unborn(struct repository *repo)
{
	git_reference *head = NULL;
	const char *branch = "HEAD";
	int rc;

	if (git_reference_lookup(&head, repo->git, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		branch = git_reference_symbolic_target(head);
		if (!strncmp(branch, "refs/heads/", 11))
			branch += 11;
	}
	rc = error_set("your current branch '%s' does not have any commits "
		       "yet", branch);
	git_reference_free(head);
	return rc;
}

int repository_resolve_commit(git_oid *out, struct repository *repo,
			      const char *rev)
{
	git_object *obj = NULL, *commit = NULL;
	int rc = 0;

	if (resolve_raw(out, repo, rev) == 0)
		return 0;
	if (git_revparse_single(&obj, repo->git, rev) < 0) {
		if (!strcmp(rev, "HEAD") &&
		    git_repository_head_unborn(repo->git) == 1)
			return resolve_unborn(repo);
		return error_set("unknown revision '%s'", rev);
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		rc = error_set("'%s' is not a commit", rev);
		goto done;
	}
	git_oid_cpy(out, git_object_id(commit));
done:
	git_object_free(commit);
	git_object_free(obj);
	return rc;
}

int repository_is_shallow_commit(const struct repository *repo,
				 const git_oid *oid)
{
	return repo->nshallow &&
	       bsearch(oid, repo->shallow, repo->nshallow, sizeof(git_oid),
		       oid_cmp) != NULL;
}

const git_oid *repository_replacement(const struct repository *repo,
				      const git_oid *oid)
{
	struct repository_replace key, *r;

	if (!repo->nreplace)
		return oid;
	key.from = *oid;
	r = bsearch(&key, repo->replace, repo->nreplace, sizeof(key),
		    replace_cmp);
	return r ? &r->to : oid;
}

const struct repository_graft *repository_graft_of(
	const struct repository *repo, const git_oid *oid)
{
	struct repository_graft key;

	if (!repo->ngrafts)
		return NULL;
	key.commit = *oid;
	return bsearch(&key, repo->grafts, repo->ngrafts, sizeof(key),
		       graft_cmp);
}
