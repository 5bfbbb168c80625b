/*
 * report: publishing DIR so that it is at every moment one whole report,
 * and so that strata never deletes, replaces or writes through anything
 * it did not write.
 *
 * Everything is built in a new directory .NAME.strata-XXXXXX (mode 0700
 * until the end) in DIR's parent, or in the deepest existing directory on
 * DIR's path when DIR's parents do not exist yet (they are made only once
 * the report is whole). It is then swapped in with one
 * renameat2(RENAME_EXCHANGE) (two renames where the file system cannot
 * exchange). Every step below DIR's parent is taken relative to an open
 * directory, never through a path, and no symbolic link at DIR or inside
 * it is followed: the parent's own path is the user's, and is followed as
 * given.
 *
 * DIR/.strata-report (marker.h) lists what strata wrote, each file with
 * its size and SHA-256. An entry of DIR is strata's only if the marker
 * lists it and, for a file, the file still holds exactly those bytes.
 * Everything else is foreign: it is moved into the new report before the
 * swap, at the same path, and never replaced (a new report that needs
 * one of those paths fails instead). A non-empty DIR without a marker is
 * refused unless --force (a lone .gitignore or .gitkeep does not count);
 * one with a marker strata cannot trust is refused even with --force.
 *
 * From its first change to the file system, SIGINT, SIGTERM and SIGHUP
 * only set a flag (report_signal()); the steps check it and unwind
 * through the ordinary error path, which puts moved files back and
 * removes the build directory. Before that, nothing needs undoing, and
 * the signals keep their default action. docs/site.md and
 * docs/security.md tell users the same.
 *
 * Test-only: STRATA_TEST_STOP=PHASE:PID makes strata stop itself
 * (SIGSTOP) when it reaches PHASE, if PID is its parent's process id, so
 * that a test can send a signal exactly there and then SIGCONT
 * (tests/t-publish-signals.sh). Unset, or any other value, it does
 * nothing; the parent's id keeps a variable left in an environment from
 * stopping any strata but the one a test started. The phases, in order:
 * check (report_check(), before any work: the signals' default action),
 * stage (the build directory made), data, charts, site and marker
 * (each part written into it), carry (the first of DIR's foreign entries
 * moved into it), carried (all of them), swapped (the new report in DIR,
 * the old one beside it) and removed (the old one gone).
 */
#include "strata/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "strata/data.h"
#include "strata/error.h"
#include "strata/util.h"
#include "strata/marker.h"
#include "strata/publish.h"

#define TRY(x) do { if ((rc = (x)) < 0) goto done; } while (0)

/* ---- signals ---- */

static atomic_int caught;
static const int catchable[] = {SIGINT, SIGTERM, SIGHUP};
#define NCATCH (sizeof(catchable) / sizeof(catchable[0]))

struct catcher {
	struct sigaction old[NCATCH];
	int set[NCATCH];
};

/* Async-signal-safe: a lock-free atomic, nothing else. */
static void on_signal(int sig)
{
	int none = 0;

	atomic_compare_exchange_strong(&caught, &none, sig);
}

/* A signal that is ignored (nohup, a background job) stays ignored. */
static void catch_signals(struct catcher *c)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NCATCH; i++) {
		c->set[i] = 0;
		if (sigaction(catchable[i], NULL, &c->old[i]) ||
		    c->old[i].sa_handler == SIG_IGN)
			continue;
		c->set[i] = sigaction(catchable[i], &sa, NULL) == 0;
	}
}

static void restore_signals(struct catcher *c)
{
	for (size_t i = 0; i < NCATCH; i++)
		if (c->set[i])
			sigaction(catchable[i], &c->old[i], NULL);
}

int report_signal(void)
{
	return atomic_load(&caught);
}

/* The test hook above: stop at `phase` when asked to by our parent. */
static void test_stop(const char *phase)
{
	size_t n;
	const char *v = util_test_hook("STRATA_TEST_STOP", &n);

	if (v && n == strlen(phase) && !memcmp(v, phase, n))
		kill(getpid(), SIGSTOP);
}

static int interrupted(void)
{
	int sig = atomic_load(&caught);

	if (!sig)
		return 0;
	return error_set("interrupted by %s", sig == SIGINT ? "SIGINT" :
			 sig == SIGTERM ? "SIGTERM" : "SIGHUP");
}

/* ---- lists ---- */

static char *join(const char *a, const char *b)
{
	char *s;

	if (!a || !*a)
		return strdup(b);
	return asprintf(&s, "%s/%s", a, b) < 0 ? NULL : s;
}

/* ---- directories, by descriptor ---- */

static int open_dir_at(int fd, const char *name)
{
	return openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
}

/* The names in an open directory, sorted (so walks are deterministic). */
static int list_dir(struct util_strlist *out, int fd, const char *shown)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return error_set("unable to read '%s': %s", shown,
				 strerror(errno));
	}
	rewinddir(d);
	errno = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((rc = util_strlist_push(out, e->d_name)) < 0)
			break;
	}
	if (!rc && errno)
		rc = error_set("unable to read '%s': %s", shown,
			       strerror(errno));
	closedir(d);
	util_strlist_sort(out);
	return rc;
}

/* Remove `name` under `fd` and all below it, never following a link. */
static int remove_tree_at(int fd, const char *name, const char *shown)
{
	struct util_strlist names = {0};
	int sub, rc = 0;

	sub = open_dir_at(fd, name);
	if (sub < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return error_set("unable to remove '%s': %s", shown,
					 strerror(errno));
		if (unlinkat(fd, name, 0) && errno != ENOENT)
			return error_set("unable to remove '%s': %s", shown,
					 strerror(errno));
		return 0;
	}
	rc = list_dir(&names, sub, shown);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *child = join(shown, names.v[i]);

		rc = child ? remove_tree_at(sub, names.v[i], child) :
			     error_oom();
		free(child);
	}
	close(sub);
	util_strlist_release(&names);
	if (!rc && unlinkat(fd, name, AT_REMOVEDIR) && errno != ENOENT)
		rc = error_set("unable to remove '%s': %s", shown,
			       strerror(errno));
	return rc;
}

/*
 * The directory that holds `rel` below `root`, reached without following
 * a link, its missing directories made if `make`; *name is rel's last
 * component. Returns a descriptor to close, or -1 with errno set.
 */
static int open_parent(int root, const char *rel, int make, const char **name)
{
	const char *p = rel, *slash;
	int fd = fcntl(root, F_DUPFD_CLOEXEC, 0);

	while (fd >= 0 && (slash = strchr(p, '/'))) {
		char comp[NAME_MAX + 1];
		size_t len = (size_t)(slash - p);
		int sub = -1, e;

		if (!len || len > NAME_MAX) {
			errno = EINVAL;
		} else {
			memcpy(comp, p, len);
			comp[len] = '\0';
			sub = open_dir_at(fd, comp);
			if (sub < 0 && errno == ENOENT && make &&
			    (!mkdirat(fd, comp, 0777) || errno == EEXIST))
				sub = open_dir_at(fd, comp);
		}
		e = errno;
		close(fd);
		errno = e;
		fd = sub;
		p = slash + 1;
	}
	*name = p;
	return fd;
}

/*
 * Move `name` in the directory `src` to `rel` below `root` (its
 * directories made there), never over anything: RENAME_NOREPLACE, or a
 * look first where the file system has no such flag. 0 or -1 (errno).
 */
static int move_into(int src, const char *name, int root, const char *rel)
{
	const char *to;
	int dst = open_parent(root, rel, 1, &to), rc, e;
	struct stat st;

	if (dst < 0)
		return -1;
	rc = renameat2(src, name, dst, to, RENAME_NOREPLACE);
	if (rc && errno == EINVAL) {
		if (!fstatat(dst, to, &st, AT_SYMLINK_NOFOLLOW))
			errno = EEXIST;
		else if (errno == ENOENT)
			rc = renameat(src, name, dst, to);
	}
	e = errno;
	close(dst);
	errno = e;
	return rc;
}

/* Move `rel` below `from` to the same path below `to`. */
static int move_rel(int from, int to, const char *rel)
{
	const char *name;
	int src = open_parent(from, rel, 0, &name), rc, e;

	if (src < 0)
		return -1;
	rc = move_into(src, name, to, rel);
	e = errno;
	close(src);
	errno = e;
	return rc;
}

/* A new directory .BASE.TAG-XXXXXX in `at`, mode 0700; *out its name. */
static int make_temp_dir(char **out, int at, const char *base,
			 const char *tag, const char *shown)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789";

	*out = NULL;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char suffix[7], *name;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
			unsigned long x = (unsigned long)time(NULL) ^
				(unsigned long)getpid() * 2654435761u ^
				(unsigned long)tries * 40503u;

			for (size_t i = 0; i < sizeof(r); i++, x >>= 5)
				r[i] = (unsigned char)x;
		}
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		if (asprintf(&name, ".%.200s.%s-%s", base, tag, suffix) < 0)
			return error_oom();
		if (!mkdirat(at, name, 0700)) {
			*out = name;
			return 0;
		}
		free(name);
		if (errno != EEXIST)
			break;
	}
	return error_set("unable to create a directory in '%s': %s", shown,
			 strerror(errno));
}

/* ---- the target: DIR, its parent, what is in it ---- */

/* An entry of DIR proven strata's (a directory's path ends in '/'). */
struct owned {
	char *path;
	struct stat st;
};

struct target {
	const char *given;       /* --out as the user wrote it */
	char *dir;               /* the same without trailing '/': DIR/PATH */
	int anc;                 /* deepest existing directory on DIR's path */
	char *anc_path;          /* its path, for the modules that take one */
	struct util_strlist missing;  /* directories to make in anc, for DIR */
	char *base;              /* DIR's name */
	int fd;                  /* DIR, or -1 if it does not exist */
	struct stat st;
	mode_t mode;             /* for the new directory */
	struct marker marker;
	struct owned *owned;     /* sorted by path */
	size_t nowned, owned_alloc;
	struct util_strlist foreign;  /* whole entries, sorted */
};

static void target_forget(struct target *tg)
{
	marker_release(&tg->marker);
	for (size_t i = 0; i < tg->nowned; i++)
		free(tg->owned[i].path);
	free(tg->owned);
	tg->owned = NULL;
	tg->nowned = tg->owned_alloc = 0;
	util_strlist_release(&tg->foreign);
}

static void target_release(struct target *tg)
{
	if (tg->anc >= 0)
		close(tg->anc);
	if (tg->fd >= 0)
		close(tg->fd);
	free(tg->anc_path);
	free(tg->dir);
	free(tg->base);
	util_strlist_release(&tg->missing);
	target_forget(tg);
}

static int owned_add(struct target *tg, const char *path,
		     const struct stat *st)
{
	if (UTIL_GROW(tg->owned, tg->owned_alloc, tg->nowned + 1) < 0)
		return STRATA_ENOMEM;
	if (!(tg->owned[tg->nowned].path = strdup(path)))
		return error_oom();
	tg->owned[tg->nowned++].st = *st;
	return 0;
}

static int owned_cmp(const void *a, const void *b)
{
	return strcmp(((const struct owned *)a)->path,
		      ((const struct owned *)b)->path);
}

static const struct owned *owned_find(const struct target *tg,
				      const char *path)
{
	struct owned key = {(char *)path, {0}};

	return tg->nowned ? bsearch(&key, tg->owned, tg->nowned,
				    sizeof(key), owned_cmp) : NULL;
}

/* Still the file that was proven: same inode, never written since. */
static int same_file(const struct stat *a, const struct stat *b)
{
	return S_ISREG(a->st_mode) && S_ISREG(b->st_mode) &&
	       a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * One component of DIR's parent (`comp`; the path up to it is the first
 * `shown` bytes of `parent`): go into it, or note it as missing.
 */
static int ancestor_step(struct target *tg, int *fd, const char *comp,
			 const char *parent, int shown)
{
	struct stat st;
	int sub;

	if (tg->missing.n)
		return strcmp(comp, "..") ? util_strlist_push(&tg->missing, comp) :
		       error_set("unable to create '%.*s': '..' after a "
				 "missing directory", shown, parent);
	sub = openat(*fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sub >= 0) {
		close(*fd);
		*fd = sub;
		return 0;
	}
	if (errno == ENOTDIR)
		return error_set("'%.*s' is not a directory", shown, parent);
	if (errno != ENOENT)
		return error_set("unable to use '%.*s': %s", shown, parent,
				 strerror(errno));
	if (!fstatat(*fd, comp, &st, AT_SYMLINK_NOFOLLOW))
		return error_set("'%.*s' is a broken symbolic link", shown,
				 parent);
	return util_strlist_push(&tg->missing, comp);
}

/*
 * Walk `parent` (a prefix of --out) to its deepest existing directory:
 * tg->anc; the components after it go to tg->missing. The parent's path
 * is the user's own, so links in it are followed.
 */
static int open_ancestor(struct target *tg, const char *parent)
{
	const char *p = parent;
	int fd = open(*parent == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY |
		      O_CLOEXEC), rc = 0;

	if (fd < 0)
		return error_set("unable to open '%s': %s",
				 *parent == '/' ? "/" : ".", strerror(errno));
	for (; !rc && *p; p += *p == '/') {
		size_t len = strcspn(p, "/");
		int shown = (int)(p - parent + len);
		char comp[NAME_MAX + 1];

		if (len > NAME_MAX) {
			rc = error_set("unable to use '%.*s': %s", shown,
				       parent, strerror(ENAMETOOLONG));
		} else if (len && !(len == 1 && *p == '.')) {
			memcpy(comp, p, len);
			comp[len] = '\0';
			rc = ancestor_step(tg, &fd, comp, parent, shown);
		}
		p += len;
	}
	if (rc < 0) {
		close(fd);
		return rc;
	}
	tg->anc = fd;
	return 0;
}

/* tg->anc's path: what the kernel says the descriptor is. */
static int ancestor_path(struct target *tg)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", tg->anc);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return error_set("unable to resolve the parent of '%s': %s",
				 tg->given, n < 0 ? strerror(errno) :
				 "no /proc");
	buf[n] = '\0';
	tg->anc_path = strdup(buf);
	return tg->anc_path ? 0 : error_oom();
}

/* DIR itself, if it exists: a directory, not a link to one. */
static int open_target_dir(struct target *tg)
{
	struct stat st;

	if (fstatat(tg->anc, tg->base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return error_set("unable to use '%s': %s", tg->given,
				 strerror(errno));
	}
	if (S_ISLNK(st.st_mode)) {
		if (fstatat(tg->anc, tg->base, &st, 0))
			return error_set("'%s' is a broken symbolic link",
					 tg->given);
		return error_set("refusing to write through the symbolic link "
				 "'%s': give the directory it points to",
				 tg->given);
	}
	if (!S_ISDIR(st.st_mode))
		return error_set("'%s' is not a directory", tg->given);
	tg->fd = open_dir_at(tg->anc, tg->base);
	if (tg->fd < 0 || fstat(tg->fd, &tg->st))
		return error_set("unable to read '%s': %s", tg->given,
				 strerror(errno));
	tg->mode = tg->st.st_mode & 07777;
	return 0;
}

static int target_open(struct target *tg, const char *given)
{
	char *copy, *slash, *base;
	const char *parent;
	mode_t mask = umask(0);
	size_t len;
	int rc;

	umask(mask);
	memset(tg, 0, sizeof(*tg));
	tg->anc = tg->fd = -1;
	tg->given = given;
	tg->mode = 0777 & ~mask;
	if (!given || !*given)
		return error_setc(STRATA_EUSAGE, "no output directory given");
	if (!(copy = strdup(given)))
		return error_oom();
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	if (!(tg->dir = strdup(copy))) {
		rc = error_oom();
		goto done;
	}
	slash = strrchr(copy, '/');
	base = slash ? slash + 1 : copy;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		rc = error_set("unable to use '%s' as the report directory: "
			       "name the directory itself", given);
		goto done;
	}
	if (!(tg->base = strdup(base))) {
		rc = error_oom();
		goto done;
	}
	if (slash)
		*slash = '\0';
	parent = !slash ? "." : slash == copy ? "/" : copy;
	TRY(open_ancestor(tg, parent));
	TRY(ancestor_path(tg));
	if (!tg->missing.n)
		rc = open_target_dir(tg);
done:
	free(copy);
	return rc;
}

/* Files that keep an otherwise empty directory in git. */
static int is_placeholder(const char *name)
{
	return !strcmp(name, ".gitignore") || !strcmp(name, ".gitkeep");
}

/*
 * Whether the file `name` holds what `e` says; `st` is its status, and is
 * updated. A size that differs settles it unread.
 */
static int proven(int *ok, struct stat *st, int fd, const char *name,
		  const char *shown, const struct marker_entry *e)
{
	struct marker_entry got = {0};
	int is_file, rc;

	*ok = 0;
	if ((uint64_t)st->st_size != e->size)
		return 0;
	rc = marker_hash_at(&is_file, &got, st, fd, name, shown);
	if (rc < 0)
		return rc;
	*ok = is_file && got.size == e->size &&
	      !memcmp(got.sha256, e->sha256, SHA256_BYTES);
	return 0;
}

/*
 * Sort one entry of DIR (`name` in `fd`, `path` from DIR) into owned or
 * foreign. With `verify`, a file is strata's only if its bytes are those
 * the marker lists; without, being listed is enough (the early check,
 * which decides nothing it could delete).
 */
static int inspect_entry(struct target *tg, int fd, const char *name,
			 const char *path, int verify);

static int inspect_dir(struct target *tg, int fd, const char *rel,
		       int verify)
{
	struct util_strlist names = {0};
	char *shown = join(tg->dir, rel);
	int rc;

	if (!shown)
		return error_oom();
	rc = list_dir(&names, fd, shown);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *path = join(rel, names.v[i]);

		if (!path)
			rc = error_oom();
		else if (!*rel && !strcmp(names.v[i], MARKER_NAME))
			rc = tg->marker.state == MARKER_VALID ?
			     owned_add(tg, MARKER_NAME, &tg->marker.st) : 0;
		else
			rc = inspect_entry(tg, fd, names.v[i], path, verify);
		free(path);
		if (!rc && verify)
			rc = interrupted();
	}
	util_strlist_release(&names);
	free(shown);
	return rc;
}

static int inspect_entry(struct target *tg, int fd, const char *name,
			 const char *path, int verify)
{
	const struct marker_entry *e;
	char *key = NULL, *shown = join(tg->dir, path);
	struct stat st;
	int rc = 0, ok = 0, sub;

	if (!shown)
		return error_oom();
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		rc = error_set("unable to read '%s': %s", shown,
			       strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		if (asprintf(&key, "%s/", path) < 0) {
			key = NULL;
			rc = error_oom();
		} else if (!marker_find(&tg->marker, key)) {
			rc = util_strlist_push(&tg->foreign, path);
		} else if ((sub = open_dir_at(fd, name)) < 0) {
			rc = error_set("unable to read '%s': %s", shown,
				       strerror(errno));
		} else {
			rc = owned_add(tg, key, &st);
			if (!rc)
				rc = inspect_dir(tg, sub, path, verify);
			close(sub);
		}
	} else {
		e = S_ISREG(st.st_mode) ? marker_find(&tg->marker, path) :
		    NULL;
		if (e && verify)
			rc = proven(&ok, &st, fd, name, shown, e);
		else
			ok = e != NULL;
		if (!rc)
			rc = ok ? owned_add(tg, path, &st) :
			     util_strlist_push(&tg->foreign, path);
	}
	free(key);
	free(shown);
	return rc;
}

/* Read the marker, sort DIR into owned and foreign, refuse if need be. */
static int target_inspect(struct target *tg, int force, int verify)
{
	int rc, refuse = 0;

	target_forget(tg);
	if (tg->fd < 0)
		return 0;
	if ((rc = marker_read(&tg->marker, tg->fd, tg->dir)) < 0)
		return rc;
	if (tg->marker.state == MARKER_UNTRUSTED)
		return error_set("refusing to write into '%s': its %s cannot "
				 "be trusted (%s); remove the old report, or "
				 "that file and use --force", tg->given,
				 MARKER_NAME, tg->marker.why);
	if ((rc = inspect_dir(tg, tg->fd, "", verify)) < 0)
		return rc;
	util_strlist_sort(&tg->foreign);
	if (tg->nowned)
		qsort(tg->owned, tg->nowned, sizeof(*tg->owned), owned_cmp);
	for (size_t i = 0; i < tg->foreign.n; i++)
		if (tg->marker.state == MARKER_NONE &&
		    !is_placeholder(tg->foreign.v[i]))
			refuse = 1;
	if (refuse && !force)
		return error_set("refusing to write into '%s': not a strata "
				 "report (use --force)", tg->given);
	return 0;
}

/* The parent (or the directory to make DIR's parents in) takes writes. */
static int target_writable(const struct target *tg)
{
	struct statvfs vfs;

	if (faccessat(tg->anc, ".", W_OK | X_OK, AT_EACCESS))
		return error_set("unable to write in '%s': %s", tg->anc_path,
				 strerror(errno));
	if (!fstatvfs(tg->anc, &vfs) && (vfs.f_flag & ST_RDONLY))
		return error_set("unable to write in '%s': %s", tg->anc_path,
				 strerror(EROFS));
	if (tg->fd >= 0 && (tg->nowned || tg->foreign.n) &&
	    faccessat(tg->fd, ".", W_OK | X_OK, AT_EACCESS))
		return error_set("unable to write in '%s': %s", tg->given,
				 strerror(errno));
	return 0;
}

/* ---- the new report ---- */

/* The directory the new report is built in. */
struct stage {
	char *name;              /* in tg->anc */
	char *path;              /* for the modules that take a path */
	int fd;
	size_t nmoved;           /* foreign entries carried into it */
};

static int stage_new(struct stage *s, const struct target *tg)
{
	int rc = make_temp_dir(&s->name, tg->anc, tg->base, "strata",
			       tg->anc_path);

	if (rc < 0)
		return rc;
	s->path = join(strcmp(tg->anc_path, "/") ? tg->anc_path : "",
		       s->name);
	if (!s->path)
		return error_oom();
	s->fd = open_dir_at(tg->anc, s->name);
	if (s->fd < 0)
		return error_set("unable to open '%s': %s", s->path,
				 strerror(errno));
	return 0;
}

/* List (and hash) everything under `fd` into the marker `m`. */
static int list_written(struct marker *m, int fd, const char *rel,
			const char *shown)
{
	struct util_strlist names = {0};
	int rc = list_dir(&names, fd, shown);

	for (size_t i = 0; !rc && i < names.n; i++) {
		char *path = join(rel, names.v[i]), *child;
		struct marker_entry e = {0};
		struct stat st;
		int is_file, sub;

		child = path ? join(shown, names.v[i]) : NULL;
		if (!path || !child) {
			rc = error_oom();
		} else if (fstatat(fd, names.v[i], &st, AT_SYMLINK_NOFOLLOW)) {
			rc = error_set("unable to read '%s': %s", child,
				       strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			char *key = join(path, "");

			rc = key ? marker_add(m, key, 0, NULL) : error_oom();
			free(key);
			if (!rc && (sub = open_dir_at(fd, names.v[i])) < 0)
				rc = error_set("unable to read '%s': %s",
					       child, strerror(errno));
			else if (!rc) {
				rc = list_written(m, sub, path, child);
				close(sub);
			}
		} else if (!(rc = marker_hash_at(&is_file, &e, &st, fd,
						 names.v[i], child))) {
			rc = is_file ? marker_add(m, path, e.size, e.sha256) :
			     error_set("unexpected '%s': not a file strata "
				       "wrote", child);
		}
		free(child);
		free(path);
	}
	util_strlist_release(&names);
	return rc;
}

static int write_marker(const struct stage *s)
{
	struct marker m = {0};
	int rc = list_written(&m, s->fd, "", s->path);

	if (!rc)
		rc = marker_write(&m, s->fd, s->path);
	marker_release(&m);
	return rc;
}

static int build(const struct publish_api *pub, const struct stage *s,
		 const struct tally *t, const struct report_info *info,
		 const struct report_options *opts, const char *templates)
{
	struct site_options so = {templates, opts->chart.dark};
	char *data = join(s->path, "data"), *img = join(s->path, "img");
	int rc = 0;

	if (!data || !img) {
		rc = error_oom();
		goto done;
	}
	if (mkdirat(s->fd, "data", 0777) || mkdirat(s->fd, "img", 0777)) {
		rc = error_set("unable to create a directory in '%s': %s",
			       s->path, strerror(errno));
		goto done;
	}
	test_stop("stage");
	/*
	 * The charts first: the cycle's commits are still being counted
	 * (cycle_finish()), and its charts come last.
	 */
	TRY(pub->write_charts(img, t, info, &opts->chart));
	test_stop("charts");
	TRY(interrupted());
	TRY(data_write(data, t, info));
	test_stop("data");
	TRY(interrupted());
	TRY(pub->write_site(s->path, t, info, &so));
	test_stop("site");
	TRY(interrupted());
	TRY(write_marker(s));
	test_stop("marker");
done:
	free(data);
	free(img);
	return rc;
}

/* ---- carrying, swapping, removing ---- */

/* No foreign entry may take a path the new report uses. */
static int check_collisions(const struct target *tg, const struct stage *s)
{
	for (size_t i = 0; i < tg->foreign.n; i++) {
		const char *rel = tg->foreign.v[i], *name;
		int fd = open_parent(s->fd, rel, 0, &name), taken;
		struct stat st;
		char *key;

		if (fd < 0) {
			taken = errno != ENOENT;
		} else {
			taken = !fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW);
			close(fd);
		}
		if (!taken)
			continue;
		if (asprintf(&key, "%s/", rel) < 0)
			return error_oom();
		taken = marker_find(&tg->marker, rel) ||
			marker_find(&tg->marker, key);
		free(key);
		return error_set("refusing to replace '%s/%s': %s", tg->dir,
				 rel, taken ? "it changed since strata wrote "
				 "it" : "strata did not write it");
	}
	return 0;
}

/* Move the foreign entries into the new report; s->nmoved counts them. */
static int carry_foreign(const struct target *tg, struct stage *s)
{
	for (size_t i = 0; i < tg->foreign.n; i++) {
		if (move_rel(tg->fd, s->fd, tg->foreign.v[i]))
			return error_set("unable to move '%s/%s' into the new "
					 "report: %s", tg->dir,
					 tg->foreign.v[i], strerror(errno));
		if (++s->nmoved == 1)
			test_stop("carry");
	}
	test_stop("carried");
	return 0;
}

/* Put the carried entries back, all it can; how many could not go. */
static size_t return_foreign(const struct target *tg, struct stage *s)
{
	size_t lost = 0;

	while (s->nmoved) {
		const char *rel = tg->foreign.v[--s->nmoved];

		if (move_rel(s->fd, tg->fd, rel))
			lost++;
	}
	return lost;
}

/*
 * DIR does not exist and neither do some of its parents: make them now
 * that the report is whole, and remove those made if the move fails.
 */
static int move_to_new_parents(const struct target *tg, const struct stage *s)
{
	size_t n = tg->missing.n, made = 0;
	int *fds = calloc(n + 1, sizeof(*fds)), rc = 0;
	char *shown = strdup(tg->anc_path);

	if (!fds || !shown) {
		free(fds);
		free(shown);
		return error_oom();
	}
	fds[0] = tg->anc;
	for (; made < n; made++) {
		const char *comp = tg->missing.v[made];
		char *next = join(strcmp(shown, "/") ? shown : "", comp);

		if (!next) {
			rc = error_oom();
			break;
		}
		free(shown);
		shown = next;
		if (mkdirat(fds[made], comp, 0777)) {
			rc = error_set("unable to create '%s': %s", shown,
				       strerror(errno));
			break;
		}
		if ((fds[made + 1] = open_dir_at(fds[made], comp)) < 0) {
			rc = error_set("unable to open '%s': %s", shown,
				       strerror(errno));
			unlinkat(fds[made], comp, AT_REMOVEDIR);
			break;
		}
	}
	if (!rc && renameat2(tg->anc, s->name, fds[n], tg->base,
			     RENAME_NOREPLACE) &&
	    (errno != EINVAL ||
	     renameat(tg->anc, s->name, fds[n], tg->base)))
		rc = error_set("unable to move the report into '%s': %s",
			       tg->given, strerror(errno));
	/* On failure, the directories made here go again, innermost first. */
	for (size_t i = made; i-- > 0;) {
		if (rc < 0)
			unlinkat(fds[i], tg->missing.v[i], AT_REMOVEDIR);
		close(fds[i + 1]);
	}
	free(fds);
	free(shown);
	return rc;
}

/* Two renames, where the file system cannot exchange: DIR is missing for
 * a moment. */
static int swap_by_renames(const struct target *tg, const struct stage *s,
			   char **old)
{
	char *aside;
	int rc = make_temp_dir(&aside, tg->anc, tg->base, "strata-old",
			       tg->anc_path);

	if (rc < 0)
		return rc;
	if (renameat(tg->anc, tg->base, tg->anc, aside)) {
		rc = error_set("unable to replace '%s': %s", tg->given,
			       strerror(errno));
		unlinkat(tg->anc, aside, AT_REMOVEDIR);
		free(aside);
		return rc;
	}
	if (renameat(tg->anc, s->name, tg->anc, tg->base)) {
		rc = error_set("unable to replace '%s': %s", tg->given,
			       strerror(errno));
		if (renameat(tg->anc, aside, tg->anc, tg->base))
			rc = error_set("unable to replace '%s', nor to put it "
				       "back: the previous report is in "
				       "'%s/%s'", tg->given, tg->anc_path,
				       aside);
		free(aside);
		return rc;
	}
	*old = aside;
	return 0;
}

/* Put the stage in place of DIR; *old names the old report in tg->anc. */
static int swap_in(const struct target *tg, const struct stage *s,
		   char **old)
{
	struct stat st;

	*old = NULL;
	if (fchmod(s->fd, tg->mode))
		return error_set("unable to set the mode of '%s': %s", s->path,
				 strerror(errno));
	if (tg->missing.n)
		return move_to_new_parents(tg, s);
	if (tg->fd < 0) {
		if (renameat2(tg->anc, s->name, tg->anc, tg->base,
			      RENAME_NOREPLACE) &&
		    (errno != EINVAL ||
		     renameat(tg->anc, s->name, tg->anc, tg->base)))
			return error_set("unable to move the report into "
					 "'%s': %s", tg->given,
					 strerror(errno));
		return 0;
	}
	if (fstatat(tg->anc, tg->base, &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_dev != tg->st.st_dev || st.st_ino != tg->st.st_ino)
		return error_set("unable to replace '%s': it was moved or "
				 "replaced while strata ran", tg->given);
	if (!renameat2(tg->anc, s->name, tg->anc, tg->base,
		       RENAME_EXCHANGE)) {
		*old = strdup(s->name);
		return *old ? 0 : error_oom();
	}
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return error_set("unable to replace '%s': %s", tg->given,
				 strerror(errno));
	return swap_by_renames(tg, s, old);
}

/*
 * Empty the old report, in `ofd` at `rel`: delete what was proven
 * strata's and has not changed since; move anything else (changed, or
 * new since the look at DIR) into the new report (`nfd`) at the same
 * path. *kept counts what could go neither way.
 */
static void clear_old(const struct target *tg, int ofd, int nfd,
		      const char *rel, size_t *kept)
{
	struct util_strlist names = {0};

	if (list_dir(&names, ofd, tg->given) < 0) {
		++*kept;
		return;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		char *path = join(rel, name), *key = NULL;
		const struct owned *o = NULL;
		struct stat st;
		int sub = -1;

		if (!path || fstatat(ofd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			*kept += !path || errno != ENOENT;
			free(path);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			o = owned_find(tg, path);
		else if ((key = join(path, "")))
			o = owned_find(tg, key);
		if (o && S_ISDIR(st.st_mode))
			sub = open_dir_at(ofd, name);
		if (sub >= 0) {
			clear_old(tg, sub, nfd, path, kept);
			close(sub);
			/* not empty: what is left was counted inside */
			unlinkat(ofd, name, AT_REMOVEDIR);
		} else if (o && same_file(&o->st, &st)) {
			if (unlinkat(ofd, name, 0) && errno != ENOENT)
				++*kept;
		} else if (move_into(ofd, name, nfd, path)) {
			++*kept;
		}
		free(key);
		free(path);
	}
	util_strlist_release(&names);
}

static int remove_old(const struct target *tg, const char *old)
{
	int ofd = open_dir_at(tg->anc, old), nfd = open_dir_at(tg->anc,
							      tg->base);
	size_t kept = 0;
	char *shown;

	if (ofd < 0 || nfd < 0)
		kept = 1;
	else
		clear_old(tg, ofd, nfd, "", &kept);
	if (ofd >= 0)
		close(ofd);
	if (nfd >= 0)
		close(nfd);
	if (!kept && !unlinkat(tg->anc, old, AT_REMOVEDIR))
		return 0;
	shown = join(strcmp(tg->anc_path, "/") ? tg->anc_path : "", old);
	error_set("the new report is in '%s', but what changed in it while "
		  "strata ran is left in '%s'", tg->given,
		  shown ? shown : old);
	free(shown);
	return STRATA_ERR;
}

/*
 * After a failure before the swap: put back what was carried, then remove
 * the stage; never remove it while it holds something not put back.
 */
static int unwind(const struct target *tg, struct stage *s)
{
	char why[1024];
	size_t lost;

	/* The first error is the one to tell. */
	snprintf(why, sizeof(why), "%s", error_last());
	if (!s->name)
		return STRATA_ERR;
	lost = s->nmoved ? return_foreign(tg, s) : 0;
	if (lost)
		return error_set("%s; %zu of the entries strata moved out of "
				 "'%s' could not be put back and are in '%s'",
				 why, lost, tg->given, s->path);
	if (remove_tree_at(tg->anc, s->name, s->path) < 0)
		return error_set("%s; unable to remove '%s'", why, s->path);
	return error_set("%s", why);
}

int report_check(const struct report_options *opts)
{
	struct target tg;
	int rc;

	if ((rc = target_open(&tg, opts->out_dir)) >= 0 &&
	    (rc = target_inspect(&tg, opts->force, 0)) >= 0)
		rc = target_writable(&tg);
	target_release(&tg);
	test_stop("check");
	return rc;
}

int report_publish(const struct tally *t, const struct report_info *info,
		   const struct report_options *opts)
{
	struct target tg;
	struct stage s = {NULL, NULL, -1, 0};
	struct catcher sigs;
	const struct publish_api *pub;
	char *templates = NULL, *old = NULL;
	int rc, swapped = 0;

	catch_signals(&sigs);
	TRY(target_open(&tg, opts->out_dir));
	TRY(publish_load(&pub));
	TRY(pub->find_templates(&templates, opts->templates_dir));
	TRY(target_inspect(&tg, opts->force, 0));
	TRY(interrupted());
	TRY(stage_new(&s, &tg));
	TRY(build(pub, &s, t, info, opts, templates));
	/* The look that decides, as close to the moves as can be. */
	if (tg.fd < 0 && !tg.missing.n)
		TRY(open_target_dir(&tg));
	TRY(target_inspect(&tg, opts->force, 1));
	TRY(check_collisions(&tg, &s));
	TRY(interrupted());
	TRY(carry_foreign(&tg, &s));
	TRY(interrupted());
	TRY(swap_in(&tg, &s, &old));
	swapped = 1;
	test_stop("swapped");
	if (old)
		rc = remove_old(&tg, old);
	test_stop("removed");
done:
	if (rc < 0 && !swapped)
		rc = unwind(&tg, &s);
	restore_signals(&sigs);
	if (s.fd >= 0)
		close(s.fd);
	free(s.name);
	free(s.path);
	free(old);
	free(templates);
	target_release(&tg);
	return rc;
}
