/*
 * util_test: the util layer (src/util.c) on its own. Run as
 * `util_test DIR`, DIR an empty scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "strata/error.h"
#include "strata/util.h"

static void write_file(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(s, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void check_files(const char *dir)
{
	char path[4096], fifo[4096], *buf;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/small", dir);
	write_file(path, "abc\ndef\n", 8);
	rc = util_read_file(&buf, &len, path, 8, "small", 0);
	CHECK(rc == 0 && len == 8 && !memcmp(buf, "abc\ndef\n", 9),
	      "read 8 bytes: rc %d len %zu", rc, len);
	free(buf);
	rc = util_read_file(&buf, &len, path, 7, "small", 0);
	CHECK(rc == STRATA_ETOOBIG && !buf &&
	      !strcmp(error_last(), "'small' is larger than 7 bytes"),
	      "limit: rc %d '%s'", rc, error_last());
	write_file(path, "", 0);
	rc = util_read_file(&buf, &len, path, 8, NULL, 0);
	CHECK(rc == 0 && len == 0 && buf && !*buf, "empty file: rc %d", rc);
	free(buf);

	snprintf(path, sizeof(path), "%s/none", dir);
	rc = util_read_file(&buf, &len, path, 8, "none", UTIL_MISSING_OK);
	CHECK(rc == UTIL_MISSING && !buf, "missing ok: rc %d", rc);
	rc = util_read_file(&buf, &len, path, 8, "none", 0);
	CHECK(rc == STRATA_ERR &&
	      !strncmp(error_last(), "unable to open 'none': ", 23),
	      "missing: rc %d '%s'", rc, error_last());

	/* A FIFO with no writer would block open() and read(): refused. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
	rc = util_read_file(&buf, &len, fifo, 8, "fifo", 0);
	CHECK(rc == STRATA_ERR &&
	      !strcmp(error_last(), "'fifo' is not a regular file"),
	      "fifo: rc %d '%s'", rc, error_last());
	rc = util_read_file(&buf, &len, "/dev/zero", 1 << 20, "zero", 0);
	CHECK(rc == STRATA_ERR, "/dev/zero: rc %d", rc);

	/* util_read_fd() bounds what it reads, whatever fstat() said. */
	{
		int fd = open("/dev/zero", O_RDONLY);

		rc = util_read_fd(&buf, &len, fd, 100000, "zero");
		CHECK(rc == STRATA_ETOOBIG && !buf &&
		      strstr(error_last(), "larger than"),
		      "read_fd /dev/zero: rc %d '%s'", rc, error_last());
		close(fd);
	}
}

static void check_grow(void)
{
	int *v = NULL;
	size_t alloc = 0, i;
	char *c = NULL;

	for (i = 0; i < 1000; i++) {
		CHECK(UTIL_GROW(v, alloc, i + 1) == 0, "grow to %zu", i + 1);
		v[i] = (int)i;
	}
	CHECK(alloc >= 1000 && v[999] == 999, "grown: %zu", alloc);
	/* need * size overflows: refused, the array untouched. */
	CHECK(UTIL_GROW(v, alloc, SIZE_MAX / 2) == STRATA_ENOMEM &&
	      alloc >= 1000 && v[999] == 999, "overflow refused");
	free(v);
	alloc = 0;
	CHECK(UTIL_GROW(c, alloc, SIZE_MAX) == STRATA_ENOMEM && !c,
	      "SIZE_MAX bytes refused");
	CHECK(util_mul(SIZE_MAX / 2, 3) == SIZE_MAX, "util_mul overflow");
	CHECK(util_add(SIZE_MAX, 1) == SIZE_MAX, "util_add overflow");
}

static void check_text(void)
{
	static const struct {
		const char *s;
		size_t n;
	} seq[] = {
		{ "a", 1 }, { "\xc3\xa9", 2 }, { "\xe1\xbb\x85", 3 },
		{ "\xf0\x9f\x98\x80", 4 }, { "\xc0\xaf", 0 },
		{ "\xe0\x80\xaf", 0 }, { "\xed\xa0\x80", 0 },
		{ "\xf4\x90\x80\x80", 0 }, { "\xc3", 0 }, { "\x80", 0 },
	};

	for (size_t i = 0; i < sizeof(seq) / sizeof(*seq); i++)
		CHECK(util_utf8_seq((const unsigned char *)seq[i].s) ==
		      seq[i].n, "utf8_seq #%zu", i);
	CHECK(util_git_space(' ') && util_git_space('\r') &&
	      !util_git_space('\v') && !util_git_space('\f'), "git_space");
}

static void check_numbers(void)
{
	CHECK(!strcmp(util_count(0).s, "0"), "count 0");
	CHECK(!strcmp(util_count(999).s, "999"), "count 999");
	CHECK(!strcmp(util_count(1234567).s, "1,234,567"), "count 1234567");
	CHECK(!strcmp(util_count(UINT64_MAX).s,
		      "18,446,744,073,709,551,615"), "count max");
	CHECK(!strcmp(util_percent(1, 3, 2).s, "33.33"), "1/3");
	CHECK(!strcmp(util_percent(2, 3, 2).s, "66.67"), "2/3");
	CHECK(!strcmp(util_percent(1, 8, 2).s, "12.50"), "1/8");
	CHECK(!strcmp(util_percent(1, 200, 1).s, "0.5"), "half up");
	CHECK(!strcmp(util_percent(5, 0, 1).s, "0.0"), "of nothing");
	CHECK(!strcmp(util_percent(7, 7, 0).s, "100"), "whole");
	CHECK(!strcmp(util_percent(UINT64_MAX, UINT64_MAX, 3).s, "100.000"),
	      "no overflow");
	CHECK(!strcmp(util_share(1, 3).s, "33.3%"), "share");
	CHECK(!strcmp(util_share(1, 100000).s, "<0.1%"), "share tiny");
	CHECK(!strcmp(util_share(0, 100000).s, "0.0%"), "share zero");
}

struct item {
	int id;
	struct util_lru_node node;
};

static void check_lists(void)
{
	struct util_strlist l = UTIL_STRLIST_INIT;
	struct item it[3] = { { 0, { 0, 0 } }, { 1, { 0, 0 } },
			      { 2, { 0, 0 } } };
	struct util_lru lru = { NULL, NULL };

	CHECK(util_strlist_push(&l, "b") == 0 &&
	      util_strlist_push(&l, "a") == 0, "push");
	util_strlist_sort(&l);
	CHECK(l.n == 2 && !strcmp(l.v[0], "a") && !strcmp(l.v[1], "b"),
	      "sorted");
	util_strlist_release(&l);
	CHECK(!l.v && !l.n, "released");

	for (int i = 0; i < 3; i++)
		util_lru_push(&lru, &it[i].node);
	CHECK(util_container_of(lru.head, struct item, node)->id == 2 &&
	      util_container_of(lru.tail, struct item, node)->id == 0,
	      "lru order");
	util_lru_touch(&lru, &it[0].node);
	CHECK(util_container_of(lru.head, struct item, node)->id == 0 &&
	      util_container_of(lru.tail, struct item, node)->id == 1,
	      "lru touch");
	util_lru_unlink(&lru, &it[1].node);
	util_lru_unlink(&lru, &it[0].node);
	util_lru_unlink(&lru, &it[2].node);
	CHECK(!lru.head && !lru.tail, "lru empty");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: util_test DIR\n");
		return 2;
	}
	check_files(argv[1]);
	check_grow();
	check_text();
	check_numbers();
	check_lists();
	return failures ? 1 : 0;
}
