/*
 * budget: the memory a run will take, against what the machine offers
 * (include/strata/budget.h). The figures per commit, file, line and
 * snapshot are the account of docs/performance.md, "Memory", checked
 * there against measured peaks.
 */
#include "strata/budget.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "strata/diff.h"
#include "strata/error.h"
#include "strata/odb.h"
#include "strata/util.h"

#define MIB ((uint64_t)1 << 20)

/* REV's first ALL blobs, then one in SAMPLE, are read to estimate its
 * lines. */
#define ALL 1024
#define SAMPLE 16

struct count_tree {
	git_oid oid;
	unsigned depth;
};

struct count_walk {
	struct budget_counts *c;
	struct repository *repo;
	struct count_tree *stack;  /* trees still to read */
	size_t sp, alloc, blobs, sampled, trees;
	uint64_t lines;           /* of the first ALL blobs */
	uint64_t sampled_lines;   /* of one in SAMPLE of the others */
	git_oid last;             /* the blob sampled last, and its lines */
	uint64_t last_lines;
	bool have_last;
	unsigned char buf[64 * 1024];
};

/*
 * A blob of the sample: its first bytes (a blob stored whole is inflated
 * no further) give its lines per byte. One that cannot be read is the
 * blame's to report, and a binary one has no lines.
 */
static void sample_blob(struct count_walk *w, const git_oid *oid)
{
	size_t got, size;
	uint64_t n;

	/* The same blob again (a tree held many times) is not read again. */
	if (w->have_last && git_oid_equal(&w->last, oid)) {
		n = w->last_lines;
	} else if (odb_read_prefix(w->buf, sizeof(w->buf), &got, &size,
				   w->repo->odb, w->repo->git, oid) < 0) {
		error_clear();
		return;
	} else {
		if (!got || memchr(w->buf, 0, got < 8000 ? got : 8000))
			n = 0;
		else
			n = (uint64_t)diff_count_lines((const char *)w->buf,
						       got) * size / got;
		git_oid_cpy(&w->last, oid);
		w->last_lines = n;
		w->have_last = true;
	}
	if (w->blobs <= ALL) {
		w->lines += n;
	} else {
		w->sampled++;
		w->sampled_lines += n;
	}
}

/*
 * The entries of one tree, read through strata's own reader (libgit2's
 * would map the packs a second time): its files counted and sampled,
 * its subtrees pushed.
 */
static int count_tree(struct count_walk *w, const git_oid *oid,
		      unsigned depth)
{
	struct odb_object *t = NULL;
	const unsigned char *d, *end, *nul;
	int rc;

	if ((rc = odb_read(&t, w->repo->odb, w->repo->git, oid,
			   GIT_OBJECT_TREE)) < 0)
		return rc;
	for (d = t->data, end = d + t->len; d < end; d = nul + 21) {
		unsigned mode = 0;
		git_oid id;

		while (d < end && *d >= '0' && *d <= '7')
			mode = mode * 8 + (unsigned)(*d++ - '0');
		nul = memchr(d, 0, (size_t)(end - d));
		if (!nul || end - nul < 21) {
			rc = error_set("corrupt tree '%s'", git_oid_tostr_s(oid));
			break;
		}
		git_oid_fromraw(&id, nul + 1);
		if (mode == 040000) {
			if ((rc = UTIL_GROW(w->stack, w->alloc, w->sp + 1)) < 0)
				break;
			w->stack[w->sp++] =
				(struct count_tree){ id, depth + 1 };
		} else if ((mode & 0170000) == 0100000) {
			w->c->files++;
			if (++w->blobs <= ALL || w->blobs % SAMPLE == 0)
				sample_blob(w, &id);
		}
	}
	odb_object_free(t);
	return rc;
}

/* The bytes of the pack files and their indexes (mapped whole). */
static uint64_t pack_bytes(struct repository *repo)
{
	char dir[4096];
	struct dirent *d;
	struct stat st;
	uint64_t n = 0;
	DIR *dh;

	if (snprintf(dir, sizeof(dir), "%sobjects/pack",
		     git_repository_path(repo->git)) >= (int)sizeof(dir) ||
	    !(dh = opendir(dir)))
		return 0;
	while ((d = readdir(dh))) {
		size_t len = strlen(d->d_name);
		char path[4096 + 256];

		if (len < 5 || (strcmp(d->d_name + len - 5, ".pack") &&
				strcmp(d->d_name + len - 4, ".idx")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			n += (uint64_t)st.st_size;
	}
	closedir(dh);
	return n;
}

int budget_count(struct budget_counts *c, struct repository *repo,
		 const git_oid *tree)
{
	struct count_walk *w = calloc(1, sizeof(*w));
	int rc = 0;

	if (!w)
		return error_oom();
	w->c = c;
	w->repo = repo;
	c->files = 0;
	c->lines = 0;
	rc = count_tree(w, tree, 0);
	while (rc == 0 && w->sp) {
		const struct count_tree *t = &w->stack[--w->sp];

		if (t->depth > ODB_MAX_TREE_DEPTH)
			rc = odb_too_deep(&t->oid);
		else if (++w->trees >= ODB_MAX_TREES)
			rc = odb_too_many_trees(tree);
		else
			rc = count_tree(w, &t->oid, t->depth);
	}
	c->lines = w->lines;
	if (w->sampled)
		c->lines += w->sampled_lines * (c->files - ALL) / w->sampled;
	c->mapped = pack_bytes(repo);
	free(w->stack);
	free(w);
	return rc;
}

/*
 * The account (docs/performance.md, "Memory"): a base for the program,
 * its libraries, the object cache and the heap's slack; per commit its
 * entry and the file versions it makes; per file of REV its entries in
 * the mirrors and its version; per line its commit in the result and in
 * its version's lines; per diff thread beyond the first its dictionary
 * and tables, which fill only with lines to hold; per snapshot its files
 * and, for survival, a count for each commit of its history (at most
 * the history's length). Bytes of anonymous memory:
 * the packs are mapped, page cache the kernel can take back.
 */
uint64_t budget_estimate(const struct budget_counts *c)
{
	uint64_t n = 80 * MIB, thread = c->lines * 40;

	if (thread > 64 * MIB)
		thread = 64 * MIB;
	n += (uint64_t)c->commits * 700;
	n += (uint64_t)c->files * 600;
	n += c->lines * 7;
	n += (uint64_t)(c->jobs > 1 ? c->jobs - 1 : 0) * thread;
	n += (uint64_t)c->snapshots * c->files * 32;
	n += (uint64_t)c->snapshots * c->commits * 8;
	return n;
}

/* A number after `key` in a /proc or /sys file, times `unit`; 0 if none. */
static uint64_t read_figure(const char *path, const char *key,
			    uint64_t unit)
{
	char line[256];
	unsigned long long v;
	uint64_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t k = strlen(key);

		if (strncmp(line, key, k))
			continue;
		if (sscanf(line + k, " %llu", &v) == 1)
			n = (uint64_t)v * unit;
		break;
	}
	fclose(f);
	return n;
}

/* The memory offered, and what says so; 0 if nothing does. */
static uint64_t offered(const char **what)
{
	const char *env = getenv("STRATA_MEMORY_MIB");
	uint64_t avail, cg;

	if (env && *env) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(env, &end, 10);
		if (!errno && !*end && v < ((uint64_t)1 << 44)) {
			*what = "STRATA_MEMORY_MIB";
			return (uint64_t)v * MIB;
		}
	}
	avail = read_figure("/proc/meminfo", "MemAvailable:", 1024);
	*what = "MemAvailable in /proc/meminfo";
	cg = read_figure("/sys/fs/cgroup/memory.max", "", 1);
	if (cg && (!avail || cg < avail)) {
		avail = cg;
		*what = "the cgroup's memory.max";
	}
	return avail;
}

int budget_check(const struct budget_counts *c)
{
	uint64_t need = budget_estimate(c), have, space;
	const char *what = NULL;
	struct rlimit rl;

	have = offered(&what);
	if (have && need > have)
		return error_set("this run needs about %llu MiB (%zu commits, "
				 "%zu files, about %llu lines at REV, %zu "
				 "snapshots) and %llu MiB is available (%s): "
				 "set STRATA_MEMORY_MIB to run anyway",
				 (unsigned long long)(need / MIB), c->commits,
				 c->files, (unsigned long long)c->lines,
				 c->snapshots,
				 (unsigned long long)(have / MIB), what);
	if (getrlimit(RLIMIT_AS, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    (getenv("STRATA_MEMORY_MIB") && *getenv("STRATA_MEMORY_MIB")))
		return 0;
	/*
	 * The address space holds the packs, mapped whole, and glibc's
	 * arenas reserve 64 MiB each for the threads.
	 */
	space = need + c->mapped + (uint64_t)(c->jobs + 3) * 72 * MIB +
		256 * MIB;
	if (space > (uint64_t)rl.rlim_cur)
		return error_set("this run needs about %llu MiB of address "
				 "space (%llu MiB of it the packs, mapped) and "
				 "its limit (ulimit -v) is %llu MiB: set "
				 "STRATA_MEMORY_MIB to run anyway",
				 (unsigned long long)(space / MIB),
				 (unsigned long long)(c->mapped / MIB),
				 (unsigned long long)(rl.rlim_cur / MIB));
	return 0;
}
