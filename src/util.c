/*
 * util: files, arrays, text, numbers and lists for every module
 * (include/strata/util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "strata/error.h"
#include "strata/util.h"

/* ---- files ------------------------------------------------------------ */

int util_open_regular(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return UTIL_NOT_FILE;
	}
	return fd;
}

static int too_large(const char *shown, size_t max)
{
	if (max >= (1u << 20) && max % (1u << 20) == 0)
		return error_setc(STRATA_ETOOBIG, "'%s' is larger than %zu MiB",
				  shown, max >> 20);
	if (max >= 1024 && max % 1024 == 0)
		return error_setc(STRATA_ETOOBIG, "'%s' is larger than %zu KiB",
				  shown, max >> 10);
	return error_setc(STRATA_ETOOBIG, "'%s' is larger than %zu bytes",
			  shown, max);
}

int util_read_fd(char **out, size_t *len, int fd, size_t max,
		 const char *shown)
{
	size_t cap = 0, got = 0, hint = 4096;
	char *buf = NULL;
	struct stat st;
	int rc = 0;

	*out = NULL;
	*len = 0;
	/* The size as a hint, plus one byte to see the end at once. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= max)
		hint = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t r;

		if (got == cap) {
			size_t want = !cap ? hint : cap + cap / 2;

			if (cap > max) {
				rc = too_large(shown, max);
				goto done;
			}
			if (want > util_add(max, 1))
				want = util_add(max, 1);
			if ((rc = util_grow_array(&buf, &cap, want, 1)) < 0)
				goto done;
		}
		r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			rc = error_set("unable to read '%s': it would block",
				       shown);
			goto done;
		}
		if (r < 0) {
			rc = error_set("unable to read '%s': %s", shown,
				       strerror(errno));
			goto done;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > max) {
			rc = too_large(shown, max);
			goto done;
		}
	}
	if ((rc = util_grow_array(&buf, &cap, got + 1, 1)) < 0)
		goto done;
	buf[got] = '\0';
	*out = buf;
	*len = got;
	buf = NULL;
done:
	free(buf);
	return rc;
}

int util_read_file(char **out, size_t *len, const char *path, size_t max,
		   const char *shown, unsigned flags)
{
	struct stat st;
	int fd, rc;

	*out = NULL;
	*len = 0;
	if (!shown)
		shown = path;
	fd = util_open_regular(path, &st);
	if (fd == -1 && errno == ENOENT && (flags & UTIL_MISSING_OK))
		return UTIL_MISSING;
	if (fd == -1)
		return error_set("unable to open '%s': %s", shown,
				 strerror(errno));
	if (fd == UTIL_NOT_FILE)
		return error_set("'%s' is not a regular file", shown);
	if ((uint64_t)st.st_size > max)
		rc = too_large(shown, max);
	else
		rc = util_read_fd(out, len, fd, max, shown);
	close(fd);
	return rc;
}

/* ---- memory ----------------------------------------------------------- */

int util_grow_array(void *pp, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc, bytes;
	void *p, *q;

	if (need <= n)
		return 0;
	n = n < 8 ? 8 : util_add(n, n / 2);
	if (n < need)
		n = need;
	bytes = util_mul(n, size);
	if (bytes == SIZE_MAX)
		return error_oom();
	memcpy(&p, pp, sizeof(p));
	if (!(q = realloc(p, bytes)))
		return error_oom();
	memcpy(pp, &q, sizeof(q));
	*alloc = n;
	return 0;
}

/* ---- text ------------------------------------------------------------- */

size_t util_utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;

#define CONT(b) ((b) >= 0x80 && (b) <= 0xbf)
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return CONT(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
		return s[1] >= lo && s[1] <= hi && CONT(s[2]) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
		return s[1] >= lo && s[1] <= hi && CONT(s[2]) && CONT(s[3]) ?
			4 : 0;
	}
	return 0;
#undef CONT
}

/* ---- numbers ---------------------------------------------------------- */

struct util_num util_count(uint64_t v)
{
	char digits[24];
	struct util_num t;
	size_t n, i, o = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			t.s[o++] = ',';
		t.s[o++] = digits[i];
	}
	t.s[o] = '\0';
	return t;
}

struct util_num util_percent(uint64_t part, uint64_t whole, int decimals)
{
	static const uint64_t unit[] = { 1, 10, 100, 1000 };
	struct util_num t;
	uint64_t u, v = 0;
	unsigned __int128 num;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 3)
		decimals = 3;
	u = unit[decimals];
	/* In 128 bits: part * 100 * 1000 * 2 overflows 64 past 9e13. */
	if (whole) {
		num = (unsigned __int128)part * u * 100 * 2 + whole;
		v = (uint64_t)(num / ((unsigned __int128)whole * 2));
	}
	if (decimals)
		snprintf(t.s, sizeof(t.s), "%" PRIu64 ".%0*" PRIu64, v / u,
			 decimals, v % u);
	else
		snprintf(t.s, sizeof(t.s), "%" PRIu64, v);
	return t;
}

struct util_num util_share(uint64_t part, uint64_t whole)
{
	struct util_num t = util_percent(part, whole, 1);

	if (part && !strcmp(t.s, "0.0"))
		snprintf(t.s, sizeof(t.s), "<0.1%%");
	else
		strcat(t.s, "%");
	return t;
}

/* ---- a list of strings ------------------------------------------------ */

int util_strlist_push(struct util_strlist *l, const char *s)
{
	char *copy;
	int rc;

	if ((rc = UTIL_GROW(l->v, l->alloc, l->n + 1)) < 0)
		return rc;
	if (!(copy = strdup(s)))
		return error_oom();
	l->v[l->n++] = copy;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void util_strlist_sort(struct util_strlist *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

void util_strlist_release(struct util_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* ---- the stages of a run ---------------------------------------------- */

size_t util_peak_kib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (size_t)ru.ru_maxrss;
}

static double tv_seconds(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

double util_cpu_seconds(void)
{
	struct rusage self, kids;

	if (getrusage(RUSAGE_SELF, &self) < 0 ||
	    getrusage(RUSAGE_CHILDREN, &kids) < 0)
		return 0;
	return tv_seconds(self.ru_utime) + tv_seconds(self.ru_stime) +
	       tv_seconds(kids.ru_utime) + tv_seconds(kids.ru_stime);
}

void util_stages_start(struct util_stages *s)
{
	s->n = 0;
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	s->cpu_start = util_cpu_seconds();
}

void util_stages_end(struct util_stages *s, const char *name)
{
	struct timespec now;
	double cpu = util_cpu_seconds();

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (s->n < UTIL_STAGES_MAX) {
		s->v[s->n].name = name;
		s->v[s->n].seconds = (double)(now.tv_sec - s->start.tv_sec) +
				     (double)(now.tv_nsec - s->start.tv_nsec) /
				     1e9;
		s->v[s->n].cpu = cpu - s->cpu_start;
		s->v[s->n].peak_kib = util_peak_kib();
		s->n++;
	}
	s->start = now;
	s->cpu_start = cpu;
}

void util_stages_append(struct util_stages *to,
			const struct util_stages *from)
{
	for (size_t i = 0; i < from->n && to->n < UTIL_STAGES_MAX; i++)
		to->v[to->n++] = from->v[i];
	to->start = from->start;
	to->cpu_start = from->cpu_start;
}

/* ---- an intrusive LRU list -------------------------------------------- */

void util_lru_unlink(struct util_lru *l, struct util_lru_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		l->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		l->tail = n->prev;
	n->prev = n->next = NULL;
}

void util_lru_push(struct util_lru *l, struct util_lru_node *n)
{
	n->prev = NULL;
	n->next = l->head;
	if (l->head)
		l->head->prev = n;
	else
		l->tail = n;
	l->head = n;
}

const char *util_test_hook(const char *var, size_t *len)
{
	const char *v = getenv(var), *colon;
	char *end;
	long pid;

	if (!v || !(colon = strrchr(v, ':')))
		return NULL;
	errno = 0;
	pid = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || pid <= 1 ||
	    pid != (long)getppid())
		return NULL;
	*len = (size_t)(colon - v);
	return v;
}
