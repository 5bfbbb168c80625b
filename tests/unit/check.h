/*
 * check.h: the one assertion the C unit tests share. CHECK(cond, fmt, ...)
 * reports a failed condition with its place and counts it in `failures`;
 * a test's main() returns non-zero when failures > 0.
 */
#ifndef STRATA_TEST_CHECK_H
#define STRATA_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			failures++;                                       \
		}                                                         \
	} while (0)

#endif
