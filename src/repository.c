#include "strata/repository.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

static int oid_cmp(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
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
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT)
			rc = error_set("unable to read '%s': %s", path,
				       strerror(errno));
		goto done;
	}
	while (fgets(line, sizeof(line), f)) {
		git_oid oid;

		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		if (git_oid_fromstr(&oid, line) < 0) {
			rc = error_set("malformed shallow file '%s'", path);
			goto done;
		}
		if (repo->nshallow == alloc) {
			size_t na = alloc ? alloc * 2 : 16;
			git_oid *p = realloc(repo->shallow, na * sizeof(*p));

			if (!p) {
				rc = error_oom();
				goto done;
			}
			repo->shallow = p;
			alloc = na;
		}
		repo->shallow[repo->nshallow++] = oid;
	}
	qsort(repo->shallow, repo->nshallow, sizeof(git_oid), oid_cmp);
done:
	if (f)
		fclose(f);
	free(path);
	return rc;
}

static char *display_name(git_repository *git)
{
	const char *dir = git_repository_workdir(git);
	char buf[4096], *base;
	size_t len;

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

int repository_open(struct repository **out, const char *path)
{
	struct repository *repo;
	int rc = 0;

	*out = NULL;
	repo = calloc(1, sizeof(*repo));
	if (!repo)
		return error_oom();
	if (git_repository_open_ext(&repo->git, path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		rc = error_set("not a git repository: '%s'", path);
		goto done;
	}
	repo->path = strdup(path);
	repo->name = display_name(repo->git);
	if (!repo->path || !repo->name) {
		rc = error_oom();
		goto done;
	}
	rc = load_shallow(repo);
done:
	if (rc < 0)
		repository_free(repo);
	else
		*out = repo;
	return rc;
}

void repository_free(struct repository *repo)
{
	if (!repo)
		return;
	git_repository_free(repo->git);
	free(repo->path);
	free(repo->name);
	free(repo->shallow);
	free(repo);
}

int repository_resolve_commit(git_oid *out, struct repository *repo,
			      const char *rev)
{
	git_object *obj = NULL, *commit = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, repo->git, rev) < 0) {
		git_reference *head = NULL;

		if (!strcmp(rev, "HEAD") &&
		    git_repository_head_unborn(repo->git) == 1) {
			const char *branch = "HEAD";

			if (git_reference_lookup(&head, repo->git, "HEAD") == 0 &&
			    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
				branch = git_reference_symbolic_target(head);
				if (!strncmp(branch, "refs/heads/", 11))
					branch += 11;
			}
			rc = error_set("your current branch '%s' does not have "
				       "any commits yet", branch);
			git_reference_free(head);
			return rc;
		}
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
