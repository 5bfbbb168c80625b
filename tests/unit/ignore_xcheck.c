/*
 * ignore_xcheck: blame one file the way git 2.39 does, ignore revs
 * included, so tests/t-ignore-unit.sh can hold ignore_guess() against
 * `git blame --porcelain --ignore-rev`.
 *
 *   ignore_xcheck [-w] [--first-parent] [--libgit2] REPO REV PATH
 *                 [IGNORED-REV...]
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

static int use_libgit2;

/*
 * With --libgit2, hunks come from libgit2 instead of src/diff.c, after
 * dropping the common tail as git's xdiff interface does (whole 1 KiB
 * blocks, then forward again to just past a newline): a way to tell a
 * problem in ignore.c from one in diff.c.
 */
static int hunk_cb(const git_diff_delta *d, const git_diff_hunk *h, void *pl)
{
	struct diff_result *r = pl;
	struct diff_hunk *o;

	(void)d;
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? r->alloc * 2 : 16;
		r->hunks = realloc(r->hunks, r->alloc * sizeof(*r->hunks));
		if (!r->hunks)
			return -1;
	}
	o = &r->hunks[r->n++];
	/* an empty side names the line after which the change sits */
	o->old_count = (uint32_t)h->old_lines;
	o->old_start = (uint32_t)(h->old_start - (h->old_lines ? 1 : 0));
	o->new_count = (uint32_t)h->new_lines;
	o->new_start = (uint32_t)(h->new_start - (h->new_lines ? 1 : 0));
	return 0;
}

static int hunks_get(struct diff_result *r, const char *a, size_t alen,
		     const char *b, size_t blen, unsigned flags)
{
	git_diff_options o;
	size_t cut = 0, back = 0, small = alen < blen ? alen : blen;

	if (!use_libgit2)
		return diff_buffers(r, a, alen, b, blen, flags);
	r->n = 0;
	while (cut + 1024 <= small &&
	       !memcmp(a + alen - cut - 1024, b + blen - cut - 1024, 1024))
		cut += 1024;
	while (back < cut && a[alen - cut + back++] != '\n')
		;
	alen -= cut - back;
	blen -= cut - back;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.context_lines = 0;
	o.interhunk_lines = 0;
	o.flags = GIT_DIFF_FORCE_TEXT | GIT_DIFF_INDENT_HEURISTIC;
	if (flags & DIFF_IGNORE_WHITESPACE)
		o.flags |= GIT_DIFF_IGNORE_WHITESPACE;
	return git_diff_buffers(alen ? a : "", alen, NULL, blen ? b : "", blen,
				NULL, &o, NULL, NULL, hunk_cb, NULL, r);
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

/*
 * Offer the `held` lines in sv to parent pc (blob pb): unchanged lines,
 * or with `ignoring`, the guessed ones, move to it. Returns how many stay
 * (compacted at the front of sv).
 */
static size_t pass_parent(struct sus *sv, size_t held, git_commit *pc,
			  git_blob *pb, const char *cbuf, size_t clen,
			  unsigned dflags, int ignoring)
{
	struct diff_result dr = {0};
	const char *pbuf = git_blob_rawcontent(pb);
	size_t plen = (size_t)git_blob_rawsize(pb), kept = 0, s, h;
	uint32_t tn = diff_count_lines(cbuf, clen), t = 0;
	int32_t *map = malloc((tn + 1) * sizeof(*map));
	unsigned char *want = calloc(tn + 1, 1);
	int64_t shift = 0;

	if (!map || !want)
		die("out of memory");
	if (hunks_get(&dr, pbuf, plen, cbuf, clen, dflags) < 0)
		die("diff");
	if (ignoring) {
		for (s = 0; s < held; s++)
			want[sv[s].line] = 1;
		if (ignore_guess(map, pbuf, plen, cbuf, clen, dr.hunks, dr.n,
				 want) < 0)
			die("ignore_guess");
	} else {
		/* unchanged lines keep their counterpart, the rest stay */
		for (h = 0; h < dr.n; h++) {
			const struct diff_hunk *x = &dr.hunks[h];
			uint32_t i;

			for (; t < x->new_start; t++)
				map[t] = (int32_t)(t + shift);
			for (i = 0; i < x->new_count; i++)
				map[t++] = -1;
			shift += (int64_t)x->old_count - x->new_count;
		}
		for (; t < tn; t++)
			map[t] = (int32_t)(t + shift);
	}
	for (s = 0; s < held; s++) {
		if (map[sv[s].line] >= 0)
			node_push(git_commit_id(pc), sv[s].final,
				  (uint32_t)map[sv[s].line]);
		else
			sv[kept++] = sv[s];
	}
	diff_result_release(&dr);
	free(map);
	free(want);
	return kept;
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
		else if (!strcmp(argv[a], "--libgit2"))
			use_libgit2 = 1;
		else
			break;
		a++;
	}
	if ((size_t)argc < a + 3) {
		fprintf(stderr, "usage: ignore_xcheck [-w] [--first-parent] "
			"[--libgit2] REPO REV PATH [IGNORED...]\n");
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

			for (j = 0; pb[k] && j < k; j++) {
				const git_oid *a, *b2 = git_blob_id(pb[k]);

				a = pb[j] ? git_blob_id(pb[j]) : NULL;
				if (!a || !git_oid_equal(a, b2))
					continue;
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
		for (k = 0; k < np && held; k++)
			if (pb[k])
				held = pass_parent(sv, held, pc[k], pb[k],
						   cbuf, clen, dflags, 0);
		for (k = 0; k < np && held && is_ignored; k++)
			if (pb[k])
				held = pass_parent(sv, held, pc[k], pb[k],
						   cbuf, clen, dflags, 1);
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
