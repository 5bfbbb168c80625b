/*
 * For the targets over one object's raw bytes (fuzz_commit, fuzz_tree):
 * run `check` on data[0, size) as the object named `fill` 20 times over.
 * An error must name it ("corrupt KIND 'HEX...'"), or be "out of memory";
 * anything else aborts. Returns whether `check` took the object.
 */
#ifndef FUZZ_OBJECT_H
#define FUZZ_OBJECT_H

#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

static inline int fuzz_object(int (*check)(const git_oid *,
					   const unsigned char *, size_t),
			      unsigned char fill, const char *kind,
			      const uint8_t *data, size_t size)
{
	/* git_oid_tostr_s() needs libgit2's thread-local state. */
	static int git_inited;
	char want[64];
	git_oid oid;
	int rc;

	if (!git_inited)
		git_inited = git_libgit2_init() > 0;
	memset(&oid, fill, sizeof(oid));
	snprintf(want, sizeof(want), "corrupt %s '%02x%02x", kind, fill, fill);
	rc = check(&oid, data, size);
	if (rc < 0 && !strstr(error_last(), want) &&
	    strcmp(error_last(), "out of memory"))
		abort();
	error_clear();
	return rc == 0;
}

#endif
