/*
 * Tag objects (src/releases.c), the raw bytes of one: the parse must end,
 * an error must name the tag, and a tag it takes names one of the four
 * types and, when dated, a date from 0 to the year 9999.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/releases.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* git_oid_tostr_s() needs libgit2's thread-local state. */
static int git_inited;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct releases_tag_object t;
	git_oid oid;

	if (!git_inited)
		git_inited = git_libgit2_init() > 0;
	memset(&oid, 0xef, sizeof(oid));
	if (releases_tag_parse(&t, &oid, data, size) == 0) {
		if (t.type < GIT_OBJECT_COMMIT || t.type > GIT_OBJECT_TAG ||
		    (t.dated && (t.date < 0 || t.date > INT64_C(253402300799))))
			abort();
	} else if (!strstr(error_last(), "corrupt tag 'efefefef")) {
		abort();
	}
	error_clear();
	return 0;
}
