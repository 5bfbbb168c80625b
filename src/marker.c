/*
 * marker: reading, checking and writing DIR/.strata-report (the format is
 * in include/strata/marker.h).
 *
 * Reading is strict on purpose: the marker decides what strata may
 * delete, so anything strata itself would not have written (an unknown
 * first line, a stray space, a path out of order, a missing final
 * newline) makes the whole marker untrusted rather than half-read.
 */
#include "strata/marker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/error.h"
#include "strata/util.h"

#define HEAD_V1 "strata report"
#define HEAD_V2 "strata report 2"

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct marker_entry *)a)->path,
		      ((const struct marker_entry *)b)->path);
}

int marker_add(struct marker *m, const char *path, uint64_t size,
	       const unsigned char *sha256)
{
	struct marker_entry *e;

	if (UTIL_GROW(m->v, m->alloc, m->n + 1) < 0)
		return STRATA_ENOMEM;
	e = &m->v[m->n];
	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(path)))
		return error_oom();
	e->size = size;
	if (sha256)
		memcpy(e->sha256, sha256, SHA256_BYTES);
	m->n++;
	return 0;
}

void marker_release(struct marker *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const struct marker_entry *marker_find(const struct marker *m,
				       const char *path)
{
	struct marker_entry key = {0};

	if (m->state != MARKER_VALID || !m->n)
		return NULL;
	key.path = (char *)path;
	return bsearch(&key, m->v, m->n, sizeof(*m->v), entry_cmp);
}

int marker_path_ok(const char *path, size_t len, int dir)
{
	const char *p = path, *end;

	if (dir) {
		if (!len || path[len - 1] != '/')
			return 0;
		len--;
	}
	end = path + len;
	if (!len)
		return 0;
	/* NUL, newline, any control character: strata writes none */
	for (const char *c = path; c < end; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return 0;
	for (;;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		const char *stop = slash ? slash : end;

		/* empty, ".", ".." and hidden components alike */
		if (stop == p || *p == '.')
			return 0;
		if (!slash)
			return 1;
		p = slash + 1;
	}
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "SIZE " in decimal as strata writes it (no sign, no leading zero). */
static const char *parse_size(uint64_t *out, const char *s, const char *end)
{
	uint64_t v = 0;
	const char *p = s;

	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || p == end || *p != ' ' || (*s == '0' && p - s > 1))
		return NULL;
	*out = v;
	return p + 1;
}

/* "HEX " : SHA256_BYTES bytes in lowercase hex. */
static const char *parse_sha(unsigned char *out, const char *s,
			     const char *end)
{
	if (end - s < 2 * SHA256_BYTES + 1 || s[2 * SHA256_BYTES] != ' ')
		return NULL;
	for (int i = 0; i < SHA256_BYTES; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return NULL;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return s + 2 * SHA256_BYTES + 1;
}

static int untrusted(struct marker *m, const char *fmt, size_t line)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	m->n = 0;
	m->state = MARKER_UNTRUSTED;
	snprintf(m->why, sizeof(m->why), fmt, line);
	return 0;
}

/* One entry line, [s, end) without its newline. */
static int parse_line(struct marker *m, const char *s, const char *end,
		      size_t line)
{
	struct marker_entry e = {0};
	const char *p;
	char *path;
	int dir, rc;

	if (end - s < 3 || (s[0] != 'd' && s[0] != 'f') || s[1] != ' ')
		return untrusted(m, "line %zu is not an entry", line);
	dir = s[0] == 'd';
	p = s + 2;
	if (!dir && (!(p = parse_size(&e.size, p, end)) ||
		     !(p = parse_sha(e.sha256, p, end))))
		return untrusted(m, "line %zu: bad size or SHA-256", line);
	if (!marker_path_ok(p, (size_t)(end - p), dir))
		return untrusted(m, "line %zu names a path outside the "
				 "directory or one strata never writes", line);
	if (!(path = strndup(p, (size_t)(end - p))))
		return error_oom();
	if (m->n && strcmp(m->v[m->n - 1].path, path) >= 0) {
		free(path);
		return untrusted(m, "line %zu is out of order", line);
	}
	rc = marker_add(m, path, e.size, dir ? NULL : e.sha256);
	free(path);
	return rc;
}

static int parse(struct marker *m, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	size_t line = 1;
	int rc;

	nl = memchr(p, '\n', len);
	if (!len || buf[len - 1] != '\n')
		return untrusted(m, "it is empty or does not end in a "
				 "newline", 0);
	if ((size_t)(nl - p) == strlen(HEAD_V1) &&
	    !memcmp(p, HEAD_V1, strlen(HEAD_V1)))
		return untrusted(m, "an older strata wrote it, and its list "
				 "proves nothing", 0);
	if ((size_t)(nl - p) != strlen(HEAD_V2) ||
	    memcmp(p, HEAD_V2, strlen(HEAD_V2)))
		return untrusted(m, "its first line is not '" HEAD_V2 "'", 0);
	m->state = MARKER_VALID;
	for (p = nl + 1; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if ((rc = parse_line(m, p, nl, ++line)) < 0)
			return rc;
		if (m->state != MARKER_VALID)
			return 0;
	}
	return 0;
}

int marker_read(struct marker *m, int dirfd, const char *shown)
{
	struct stat st;
	char *path = NULL, *buf = NULL;
	size_t len = 0;
	int fd = -1, rc = 0;

	memset(m, 0, sizeof(*m));
	if (fstatat(dirfd, MARKER_NAME, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return error_set("unable to read '%s/%s': %s", shown,
				 MARKER_NAME, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return untrusted(m, S_ISLNK(st.st_mode) ?
				 "it is a symbolic link" :
				 "it is not a regular file", 0);
	if (asprintf(&path, "%s/%s", shown, MARKER_NAME) < 0)
		return error_oom();
	fd = openat(dirfd, MARKER_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0) {
		rc = errno == ELOOP ? untrusted(m, "it is a symbolic link", 0) :
		     error_set("unable to read '%s': %s", path,
			       strerror(errno));
		goto done;
	}
	if (fstat(fd, &m->st) || !S_ISREG(m->st.st_mode)) {
		rc = untrusted(m, "it is not a regular file", 0);
		goto done;
	}
	rc = util_read_fd(&buf, &len, fd, MARKER_MAX_BYTES, path);
	if (rc == STRATA_ETOOBIG)
		rc = untrusted(m, "it is larger than %zu MiB",
			       (size_t)MARKER_MAX_BYTES >> 20);
	else if (rc == 0)
		rc = parse(m, buf, len);
done:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(path);
	return rc;
}

int marker_hash_at(int *is_file, struct marker_entry *out, struct stat *st,
		   int dirfd, const char *name, const char *shown)
{
	unsigned char buf[1 << 16];
	struct sha256 h;
	uint64_t size = 0;
	int fd, rc = 0;

	*is_file = 0;
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW))
		return error_set("unable to read '%s': %s", shown,
				 strerror(errno));
	if (!S_ISREG(st->st_mode))
		return 0;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? 0 :
		       error_set("unable to read '%s': %s", shown,
				 strerror(errno));
	sha256_init(&h);
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = error_set("unable to read '%s': %s", shown,
				       strerror(errno));
			goto done;
		}
		if (!got)
			break;
		sha256_update(&h, buf, (size_t)got);
		size += (uint64_t)got;
	}
	/* Its status after the read: a later change shows in st_ctim. */
	if (fstat(fd, st)) {
		rc = error_set("unable to read '%s': %s", shown,
			       strerror(errno));
		goto done;
	}
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size == size) {
		*is_file = 1;
		out->size = size;
		sha256_final(&h, out->sha256);
	}
done:
	close(fd);
	return rc;
}

int marker_write(struct marker *m, int dirfd, const char *shown)
{
	FILE *f = NULL;
	int fd, rc = 0;

	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), entry_cmp);
	for (size_t i = 0; i < m->n; i++) {
		const char *p = m->v[i].path;
		size_t len = strlen(p);

		if (!marker_path_ok(p, len, len && p[len - 1] == '/') ||
		    (i && !strcmp(m->v[i - 1].path, p)))
			return error_set("unable to list '%s/%s' in %s: strata "
					 "does not write such names", shown, p,
					 MARKER_NAME);
	}
	fd = openat(dirfd, MARKER_NAME, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = error_set("unable to create '%s/%s': %s", shown,
			       MARKER_NAME, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	fprintf(f, "%s\n", HEAD_V2);
	for (size_t i = 0; i < m->n; i++) {
		const struct marker_entry *e = &m->v[i];
		size_t len = strlen(e->path);

		if (e->path[len - 1] == '/') {
			fprintf(f, "d %s\n", e->path);
			continue;
		}
		fprintf(f, "f %llu ", (unsigned long long)e->size);
		for (int k = 0; k < SHA256_BYTES; k++)
			fprintf(f, "%02x", e->sha256[k]);
		fprintf(f, " %s\n", e->path);
	}
	if (ferror(f) | fclose(f))
		rc = error_set("unable to write '%s/%s': %s", shown,
			       MARKER_NAME, strerror(errno));
	return rc;
}
