/*
 * blame_tree.c: the files that differ between two trees, as git diff-tree
 * -r lists them, for the release cycle's count of each commit. A
 * directory whose tree is the same on both sides is never read (libgit2's
 * tree diff opens every one: on a tree of Linux's 88,000 files, tens of
 * milliseconds a commit). Trees are read with strata's reader and
 * checked as the walk checks them.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "blame_int.h"
#include "strata/error.h"

struct tdiff {
	struct odb *db;
	git_repository *git;
	blame_tree_change_fn fn;
	void *payload;
	char *path;
	size_t alloc;
	unsigned depth;
};

/* One side's tree, read and parsed (none: no entries). */
struct tside {
	struct odb_object *raw;
	struct entry *e;
	size_t n, alloc;
};

static int side_load(struct tside *s, struct tdiff *D, const git_oid *oid)
{
	int rc;

	if (!oid)
		return 0;
	if ((rc = odb_read(&s->raw, D->db, D->git, oid, GIT_OBJECT_TREE)) < 0)
		return rc;
	return blame_tree_parse(&s->e, &s->n, &s->alloc, s->raw, oid);
}

static int diff_trees(struct tdiff *D, const git_oid *a, const git_oid *b,
		      size_t base);

/*
 * Entries x of the old tree and y of the new one (either NULL: none on
 * that side), of one name and both trees or both not: a file that became
 * a directory is two calls, a delete and an add.
 */
static int diff_entry(struct tdiff *D, const struct entry *x,
		      const struct entry *y, size_t base)
{
	const struct entry *any = x ? x : y;
	struct blame_tree_change ch = { 0 };
	int rc;

	if (x && y && entry_mode(x) == entry_mode(y) &&
	    git_oid_equal(entry_oid(x), entry_oid(y)))
		return 0;
	if ((rc = blame_path_put(&D->path, &D->alloc, base, any->name,
				 any->namelen)) < 0)
		return rc;
	if (any->kind == K_TREE) {
		D->path[base + any->namelen] = '/';
		return diff_trees(D, x ? entry_oid(x) : NULL,
				  y ? entry_oid(y) : NULL,
				  base + any->namelen + 1);
	}
	ch.path = D->path;
	if (x) {
		ch.old_mode = entry_mode(x);
		git_oid_cpy(&ch.old_oid, entry_oid(x));
	}
	if (y) {
		ch.new_mode = entry_mode(y);
		git_oid_cpy(&ch.new_oid, entry_oid(y));
	}
	return D->fn(&ch, D->payload);
}

/* Old tree a against new tree b (either NULL: empty), at D->path[0, base). */
static int diff_trees(struct tdiff *D, const git_oid *a, const git_oid *b,
		      size_t base)
{
	struct tside x = { 0 }, y = { 0 };
	size_t i = 0, j = 0;
	int rc;

	if (++D->depth > ODB_MAX_TREE_DEPTH + 1) {
		rc = odb_too_deep(b ? b : a);
		goto done;
	}
	if ((rc = side_load(&x, D, a)) < 0 || (rc = side_load(&y, D, b)) < 0)
		goto done;
	while (rc >= 0 && (i < x.n || j < y.n)) {
		const struct entry *p = i < x.n ? &x.e[i] : NULL;
		const struct entry *q = j < y.n ? &y.e[j] : NULL;
		int c = !p ? 1 : !q ? -1 :
			blame_name_cmp(p->name, p->namelen,
				       p->kind == K_TREE, q->name,
				       q->namelen, q->kind == K_TREE);

		rc = diff_entry(D, c <= 0 ? p : NULL, c >= 0 ? q : NULL, base);
		i += c <= 0;
		j += c >= 0;
	}
done:
	D->depth--;
	free(x.e);
	free(y.e);
	odb_object_free(x.raw);
	odb_object_free(y.raw);
	return rc;
}

int blame_tree_diff(struct odb *db, git_repository *git, const git_oid *a,
		    const git_oid *b, blame_tree_change_fn fn, void *payload)
{
	struct tdiff D = { db, git, fn, payload, NULL, 0, 0 };
	int rc;

	if (a && git_oid_equal(a, b))
		return 0;
	rc = diff_trees(&D, a, b, 0);
	free(D.path);
	return rc;
}
