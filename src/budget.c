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

#define MIB ((uint64_t)1 << 20)

/* One blob in SAMPLE is read to estimate REV's lines. */
#define SAMPLE 16

struct count_walk {
	struct budget_counts *c;
	struct repository *repo;
	size_t blobs;
	uint64_t sampled_lines;
	size_t sampled;
	int rc;
	unsigned char buf[64 * 1024];
};

static int count_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct count_walk *w = payload;
	git_filemode_t mode = git_tree_entry_filemode(e);
	size_t got, size;

	/* libgit2's walk recurses: stop it where the blame stops. */
	if (mode == GIT_FILEMODE_TREE) {
		if (odb_tree_too_deep(root, e)) {
			w->rc = STRATA_ERR;
			return -1;
		}
		w->c->dirs++;
		return 0;
	}
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;
	w->c->files++;
	if (w->blobs++ % SAMPLE)
		return 0;
	/*
	 * Its first bytes (a blob stored whole is inflated no further) give
	 * its lines per byte; one that cannot be read is the blame's to
	 * report, and a binary one has no lines.
	 */
	if (odb_read_prefix(w->buf, sizeof(w->buf), &got, &size,
			    w->repo->odb, w->repo->git,
			    git_tree_entry_id(e)) < 0) {
		error_clear();
		return 0;
	}
	w->sampled++;
	if (got && !memchr(w->buf, 0, got < 8000 ? got : 8000))
		w->sampled_lines += (uint64_t)diff_count_lines(
			(const char *)w->buf, got) * size / got;
	return 0;
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
	git_tree *t = NULL;
	int rc = 0;

	if (!w)
		return error_oom();
	w->c = c;
	w->repo = repo;
	c->files = 0;
	c->dirs = 1;
	c->lines = 0;
	if (git_tree_lookup(&t, repo->git, tree) < 0) {
		rc = error_git("unable to read the tree of '%s'", repo->path);
		goto done;
	}
	if (git_tree_walk(t, GIT_TREEWALK_PRE, count_cb, w) < 0)
		rc = w->rc < 0 ? w->rc : error_git("unable to read a tree");
	if (w->sampled)
		c->lines = w->sampled_lines * c->files / w->sampled;
	c->mapped = pack_bytes(repo);
done:
	git_tree_free(t);
	free(w);
	return rc;
}

/*
 * The account (docs/performance.md, "Memory"): a base for the program,
 * its libraries and heap; the object cache at about three times its
 * bound in the walk (64 KiB a directory of REV, 16 to 64 MiB, 64 MiB
 * with one job); per diff thread its dictionary and tables; then per
 * commit, per file, per line, and per snapshot.
 */
uint64_t budget_estimate(const struct budget_counts *c)
{
	uint64_t bound = (uint64_t)c->dirs * 64 * 1024, n;

	if (bound < 16 * MIB)
		bound = 16 * MIB;
	if (bound > 64 * MIB || c->jobs <= 1)
		bound = 64 * MIB;
	n = 40 * MIB + 3 * bound;
	n += (uint64_t)(c->jobs ? c->jobs : 1) * 36 * MIB;
	n += (uint64_t)c->commits * 900;
	n += (uint64_t)c->files * 400;
	n += c->lines * 12;
	n += (uint64_t)c->snapshots * c->files * 32;
	n += (uint64_t)c->snapshots * c->commits * 16;
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
