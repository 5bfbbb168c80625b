/*
 * ignore_xcheck: blame one file the way git 2.39 does, ignore revs
 * included, so tests/t-ignore-unit.sh can hold ignore_guess() against
 * `git blame --porcelain --ignore-rev`.
 *
 *   ignore_xcheck [-w] [--first-parent] REPO REV PATH [IGNORED-REV...]
 *
 * Prints the full commit id of every line of PATH at REV, one per line.
 *
 * A small model of git's pass_blame, not the engine: one path, no renames.
 * Commits come child-first (topological walk), each handing its lines on:
 * a parent with the identical blob takes all; otherwise each parent in
 * order takes the unchanged lines; for an ignored commit each parent in
 * order is then offered the rest through ignore_guess(); what is left is
 * the commit's.
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/diff.h"
#include "strata/error.h"
#include "strata/ignore.h"

struct sus {
	uint32_t final, line;
};

struct node {
	git_oid oid;
	struct sus *s;
	size_t n, alloc;
};

static struct node *nodes;
static size_t nnodes, anodes;

static void die(const char *what)
{
	const git_error *e = git_error_last();

	fprintf(stderr, "ignore_xcheck: %s%s%s%s%s\n", what,
		*error_last() ? ": " : "", error_last(),
		e && e->message ? ": " : "", e && e->message ? e->message : "");
	exit(1);
}

static struct node *node_get(const git_oid *oid)
{
	size_t i;

	for (i = 0; i < nnodes; i++)
		if (git_oid_equal(&nodes[i].oid, oid))
			return &nodes[i];
	if (nnodes == anodes) {
		anodes = anodes ? anodes * 2 : 64;
		nodes = realloc(nodes, anodes * sizeof(*nodes));
		if (!nodes)
			die("out of memory");
	}
	memset(&nodes[nnodes], 0, sizeof(nodes[nnodes]));
	git_oid_cpy(&nodes[nnodes].oid, oid);
	return &nodes[nnodes++];
}

static void node_push(const git_oid *oid, uint32_t final, uint32_t line)
{
	struct node *nd = node_get(oid);

	if (nd->n == nd->alloc) {
		nd->alloc = nd->alloc ? nd->alloc * 2 : 16;
		nd->s = realloc(nd->s, nd->alloc * sizeof(*nd->s));
		if (!nd->s)
			die("out of memory");
	}
	nd->s[nd->n].final = final;
	nd->s[nd->n].line = line;
	nd->n++;
}

/* The regular-file blob at path in commit c, or NULL. */
static git_blob *blob_at(git_repository *repo, git_commit *c,
			 const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	git_filemode_t mode;

	if (git_commit_tree(&tree, c) < 0)
		die("tree");
	if (git_tree_entry_bypath(&te, tree, path) == 0) {
		mode = git_tree_entry_filemode(te);
		if ((mode == GIT_FILEMODE_BLOB ||
		     mode == GIT_FILEMODE_BLOB_EXECUTABLE) &&
		    git_blob_lookup(&blob, repo, git_tree_entry_id(te)) < 0)
			die("blob");
		git_tree_entry_free(te);
	}
	git_tree_free(tree);
	return blob;
}

int main(int argc, char **argv)
{
	git_repository *repo;
	git_object *tip;
	git_revwalk *walk;
	git_oid oid, *ignored;
	size_t nignored, i, k, a = 1;
	unsigned dflags = 0;
	int first_parent = 0;
	git_oid *final;
	uint32_t nfinal;
	git_blob *b;
	const char *path;

	while (a < (size_t)argc && argv[a][0] == '-') {
		if (!strcmp(argv[a], "-w"))
			dflags |= DIFF_IGNORE_WHITESPACE;
		else if (!strcmp(argv[a], "--first-parent"))
			first_parent = 1;
		else
			break;
		a++;
	}
	if ((size_t)argc < a + 3) {
		fprintf(stderr, "usage: ignore_xcheck [-w] [--first-parent] "
			"REPO REV PATH [IGNORED...]\n");
		return 2;
	}
	git_libgit2_init();
	if (git_repository_open(&repo, argv[a]) < 0)
		die("open");
	if (git_revparse_single(&tip, repo, argv[a + 1]) < 0)
		die("rev");
	path = argv[a + 2];
	nignored = (size_t)argc - a - 3;
	ignored = calloc(nignored + 1, sizeof(*ignored));
	for (i = 0; i < nignored; i++) {
		git_object *o;

		if (git_revparse_single(&o, repo, argv[a + 3 + i]) < 0)
			die("ignored rev");
		git_oid_cpy(&ignored[i], git_object_id(o));
		git_object_free(o);
	}

	b = blob_at(repo, (git_commit *)tip, path);
	if (!b)
		die("no such file at rev");
	nfinal = diff_count_lines(git_blob_rawcontent(b),
				  (size_t)git_blob_rawsize(b));
	git_blob_free(b);
	final = calloc(nfinal + 1, sizeof(*final));
	for (i = 0; i < nfinal; i++)
		node_push(git_object_id(tip), (uint32_t)i, (uint32_t)i);

	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_push(walk, git_object_id(tip)) < 0)
		die("walk");
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	if (first_parent)
		git_revwalk_simplify_first_parent(walk);
	while (git_revwalk_next(&oid, walk) == 0) {
		struct node *nd = node_get(&oid);
		git_commit *c, *pc[16];
		git_blob *cb, *pb[16];
		const char *cbuf;
		size_t clen, np, held, s;
		int is_ignored = 0, whole = -1;
		struct sus *sv;

		if (!nd->n)
			continue;
		if (git_commit_lookup(&c, repo, &oid) < 0)
			die("commit");
		cb = blob_at(repo, c, path);
		if (!cb)
			die("lines reached a commit without the file");
		cbuf = git_blob_rawcontent(cb);
		clen = (size_t)git_blob_rawsize(cb);
		np = git_commit_parentcount(c);
		if (first_parent && np > 1)
			np = 1;
		if (np > 16)
			die("too many parents");
		for (k = 0; k < np; k++) {
			if (git_commit_parent(&pc[k], c, (unsigned)k) < 0)
				die("parent");
			pb[k] = blob_at(repo, pc[k], path);
		}
		for (i = 0; i < nignored; i++)
			if (git_oid_equal(&ignored[i], &oid))
				is_ignored = 1;
		/* The first parent with the same blob takes everything. */
		for (k = 0; k < np && whole < 0; k++)
			if (pb[k] && git_oid_equal(git_blob_id(pb[k]),
						   git_blob_id(cb)))
				whole = (int)k;
		/* A parent whose blob an earlier parent has is skipped. */
		for (k = 0; k < np; k++) {
			size_t j;

			for (j = 0; pb[k] && j < k; j++)
				if (pb[j] && git_oid_equal(git_blob_id(pb[j]),
							   git_blob_id(pb[k]))) {
					git_blob_free(pb[k]);
					pb[k] = NULL;
				}
		}

		/* Take the list: pushing to parents may move nodes. */
		sv = nd->s;
		held = nd->n;
		nd->s = NULL;
		nd->n = nd->alloc = 0;
		if (whole >= 0) {
			for (s = 0; s < held; s++)
				node_push(git_commit_id(pc[whole]),
					  sv[s].final, sv[s].line);
			held = 0;
		}
		for (int pass = 0; pass < 2 && held; pass++) {
			if (pass == 1 && !is_ignored)
				break;
			for (k = 0; k < np && held; k++) {
				struct diff_result dr = {0};
				const char *pbuf;
				size_t plen, kept = 0;
				uint32_t tn = diff_count_lines(cbuf, clen);
				int32_t *map;
				unsigned char *want;

				if (!pb[k])
					continue;
				map = malloc((tn + 1) * sizeof(*map));
				want = calloc(tn + 1, 1);
				if (!map || !want)
					die("out of memory");
				pbuf = git_blob_rawcontent(pb[k]);
				plen = (size_t)git_blob_rawsize(pb[k]);
				if (diff_buffers(&dr, pbuf, plen, cbuf, clen,
						 dflags) < 0)
					die("diff");
				if (pass == 0) {
					/* unchanged lines: counterpart */
					uint32_t t = 0;
					int64_t shift = 0;

					for (size_t h = 0; h <= dr.n; h++) {
						uint32_t end = h < dr.n ?
							dr.hunks[h].new_start : tn;

						for (; t < end; t++)
							map[t] = (int32_t)(t + shift);
						if (h == dr.n)
							break;
						for (uint32_t x = 0;
						     x < dr.hunks[h].new_count; x++)
							map[t++] = -1;
						shift += (int64_t)dr.hunks[h].old_count -
							 dr.hunks[h].new_count;
					}
				} else {
					for (s = 0; s < held; s++)
						want[sv[s].line] = 1;
					if (ignore_guess(map, pbuf, plen, cbuf, clen,
							 dr.hunks, dr.n, want) < 0)
						die("ignore_guess");
				}
				for (s = 0; s < held; s++) {
					if (map[sv[s].line] >= 0)
						node_push(git_commit_id(pc[k]),
							  sv[s].final,
							  (uint32_t)map[sv[s].line]);
					else
						sv[kept++] = sv[s];
				}
				held = kept;
				diff_result_release(&dr);
				free(map);
				free(want);
			}
		}
		for (s = 0; s < held; s++)
			git_oid_cpy(&final[sv[s].final], &oid);
		free(sv);
		for (k = 0; k < np; k++) {
			git_blob_free(pb[k]);
			git_commit_free(pc[k]);
		}
		git_blob_free(cb);
		git_commit_free(c);
	}
	for (i = 0; i < nfinal; i++) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &final[i]);
		printf("%s\n", hex);
	}
	for (i = 0; i < nnodes; i++)
		free(nodes[i].s);
	free(nodes);
	free(final);
	free(ignored);
	git_revwalk_free(walk);
	git_object_free(tip);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}
