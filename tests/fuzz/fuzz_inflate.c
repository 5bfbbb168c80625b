/*
 * fuzz_inflate: inflating and parsing a loose object (src/odb.c). The
 * input is a loose object's file: zlib data holding "TYPE SIZE\0" and
 * the content. Bad zlib data, bad headers, sizes that lie, bombs and
 * garbage after the stream must all come out as errors; an object read
 * must be exactly as long as its header says.
 */
#include <stdint.h>
#include <stdlib.h>

#include "strata/odb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct odb_object *o = NULL;

	if (odb_loose_parse(&o, data, size, "fuzz") == 0) {
		/* Touch every byte, and the NUL after them. */
		volatile unsigned char sum = o->data[o->len];
		size_t i;

		for (i = 0; i < o->len; i++)
			sum ^= o->data[i];
		odb_object_free(o);
	}
	return 0;
}
