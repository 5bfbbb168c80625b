/*
 * Tree objects (src/blame.c), the raw bytes of one: the check must end,
 * and an error must name the tree; a tree it takes has entries of at
 * least "M N\0" and 20 bytes each, so its size is at least 24 unless it
 * is empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/blame.h"
#include "strata/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* git_oid_tostr_s() needs libgit2's thread-local state. */
static int git_inited;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	git_oid oid;

	if (!git_inited)
		git_inited = git_libgit2_init() > 0;
	memset(&oid, 0xcd, sizeof(oid));
	if (blame_tree_check(&oid, data, size) == 0) {
		if (size && size < 24)
			abort();
	} else if (!strstr(error_last(), "corrupt tree 'cdcdcdcd")) {
		abort();
	}
	error_clear();
	return 0;
}
