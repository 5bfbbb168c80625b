/*
 * Commit objects (src/history.c), the raw bytes of one: the check must
 * end, and an error must name the commit; a commit it takes has a tree
 * line first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "strata/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_object(history_commit_check, 0xab, "commit", data, size) &&
	    (size < 46 || memcmp(data, "tree ", 5)))
		abort();
	return 0;
}
