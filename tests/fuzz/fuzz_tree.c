/*
 * Tree objects (src/blame_walk.c), the raw bytes of one: the check must end,
 * and an error must name the tree; a tree it takes has entries of at
 * least "M N\0" and 20 bytes each, so its size is at least 24 unless it
 * is empty.
 */
#include <stdint.h>
#include <stdlib.h>

#include "object.h"
#include "strata/blame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_object(blame_tree_check, 0xcd, "tree", data, size) && size &&
	    size < 24)
		abort();
	return 0;
}
