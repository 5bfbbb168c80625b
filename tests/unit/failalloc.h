/*
 * failalloc.h: allocation that fails on demand, for the unit tests'
 * out-of-memory sweeps. Compiled into every file of a test with
 * `-include tests/unit/failalloc.h -DFAILALLOC_IMPL` in the test's main
 * file only; failalloc_after = N makes the N+1-th allocation from then
 * on fail (-1: never).
 */
#ifndef STRATA_TEST_FAILALLOC_H
#define STRATA_TEST_FAILALLOC_H

#include <stdlib.h>
#include <string.h>

extern long failalloc_after;

static inline int failalloc_fail(void)
{
	if (failalloc_after < 0)
		return 0;
	return failalloc_after-- == 0;
}

static inline void *failalloc_malloc(size_t n)
{
	return failalloc_fail() ? NULL : malloc(n);
}

static inline void *failalloc_calloc(size_t n, size_t m)
{
	return failalloc_fail() ? NULL : calloc(n, m);
}

static inline void *failalloc_realloc(void *p, size_t n)
{
	return failalloc_fail() ? NULL : realloc(p, n);
}

static inline char *failalloc_strdup(const char *s)
{
	return failalloc_fail() ? NULL : strdup(s);
}

static inline char *failalloc_strndup(const char *s, size_t n)
{
	return failalloc_fail() ? NULL : strndup(s, n);
}

#define malloc(n) failalloc_malloc(n)
#define calloc(n, m) failalloc_calloc(n, m)
#define realloc(p, n) failalloc_realloc(p, n)
#define strdup(s) failalloc_strdup(s)
#define strndup(s, n) failalloc_strndup(s, n)

#endif
