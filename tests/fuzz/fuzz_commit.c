/*
 * Commit objects (src/history.c), the raw bytes of one: the check must
 * end, and an error must name the commit; a commit it takes has a tree
 * line first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* git_oid_tostr_s() needs libgit2's thread-local state. */
static int git_inited;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	git_oid oid;

	if (!git_inited)
		git_inited = git_libgit2_init() > 0;
	memset(&oid, 0xab, sizeof(oid));
	if (history_commit_check(&oid, data, size) == 0) {
		if (size < 46 || memcmp(data, "tree ", 5))
			abort();
	} else if (!strstr(error_last(), "corrupt commit 'abababab") &&
		   strcmp(error_last(), "out of memory")) {
		abort();
	}
	error_clear();
	return 0;
}
