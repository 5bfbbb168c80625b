/*
 * repository: an open git repository and the facts about it that the
 * pipeline needs (shallow boundary, display name).
 */
#ifndef STRATA_REPOSITORY_H
#define STRATA_REPOSITORY_H

#include <git2.h>
#include <stddef.h>

struct odb;

/* The longest name taken from remote.origin.url or --title, in bytes. */
#define REPOSITORY_NAME_MAX 200

struct repository {
	git_repository *git;
	struct odb *odb;  /* objects, fast; for any thread (see odb.h) */
	char *path;      /* as given by the user (owned) */
	/*
	 * A display name: the last path component of remote.origin.url
	 * without ".git", else the work tree's or bare dir's basename
	 */
	char *name;
	git_oid *shallow; /* commits that act as roots (.git/shallow), sorted */
	size_t nshallow;
	/* refs/replace/<X> -> Y, sorted by X (empty with
	 * GIT_NO_REPLACE_OBJECTS or core.useReplaceRefs=false) */
	struct repository_replace *replace;
	size_t nreplace;
	/* .git/info/grafts: commit -> parents, sorted by commit */
	struct repository_graft *grafts;
	size_t ngrafts;
	/*
	 * For a partial clone (a promisor remote is configured): what to say
	 * of an object it left out, in place of "object not found"; else
	 * NULL. Owned.
	 */
	char *missing_hint;
};

struct repository_replace {
	git_oid from, to;
};

struct repository_graft {
	git_oid commit;
	git_oid *parents;
	size_t nparents;
};

/*
 * Open the repository at `path`: a work tree, a .git dir or a bare
 * repository, or a directory inside one of them, found upwards as git
 * does (GIT_CEILING_DIRECTORIES, GIT_DISCOVERY_ACROSS_FILESYSTEM; not
 * GIT_DIR). *out is the caller's, freed with repository_free().
 */
int repository_open(struct repository **out, const char *path);

void repository_free(struct repository *repo);

/*
 * A libgit2 handle of its own on the repository, for another thread:
 * libgit2's repositories are not to be shared between threads, and what
 * the odb leaves to libgit2 (odb_read()'s `git`) goes through it. The
 * handle is the caller's (git_repository_free()).
 */
int repository_open_handle(git_repository **out,
			   const struct repository *repo);

/*
 * Resolve `rev` (anything git_revparse_single takes) to a commit.
 * Errors: "unknown revision 'x'", "'x' is not a commit",
 * "your current branch 'main' does not have any commits yet".
 */
int repository_resolve_commit(git_oid *out, struct repository *repo,
			      const char *rev);

/*
 * The object whose content stands for `oid` (git replace), or `oid`
 * itself. Borrowed.
 */
const git_oid *repository_replacement(const struct repository *repo,
				      const git_oid *oid);

/* The grafted parents of a commit, or NULL if it has no graft. */
const struct repository_graft *repository_graft_of(
	const struct repository *repo, const git_oid *oid);

/* 1 if `oid` is listed in .git/shallow. */
int repository_is_shallow_commit(const struct repository *repo,
				 const git_oid *oid);

#endif
