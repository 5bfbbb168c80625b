/*
 * --tags and --group (src/releases.c): input "TAGS\0GROUP\0TAG". The
 * expressions are checked as strata checks them before the engine runs;
 * when they pass, the release named for TAG must be part of TAG.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/releases.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct releases_options o = { 0 };
	char *buf, *p, *end, *name = NULL;
	const char *part[3] = { "", "", "" };
	int i;

	/* Expressions are typed by a person: a line, not a book. */
	if (size > 512 || !(buf = malloc(size + 1)))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	end = buf + size;
	for (i = 0, p = buf; i < 3 && p <= end; i++) {
		part[i] = p;
		p += strlen(p) + 1;
	}
	o.tags_ere = *part[0] ? part[0] : NULL;
	o.group_ere = *part[1] ? part[1] : NULL;
	if (releases_check_options(&o) == 0 &&
	    releases_name_for_tag(&name, &o, part[2]) == 0) {
		if (!name || !strstr(part[2], name))
			abort();
	}
	free(name);
	error_clear();
	free(buf);
	return 0;
}
