/*
 * The globs of --include/--exclude (src/wildmatch.c, src/filter.c): input "PATTERN\0PATH".
 * A pattern that wildmatch_check() refuses is never matched, as in
 * strata itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/filter.h"
#include "strata/wildmatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 2), *pat, *path;
	size_t plen;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = '\0';
	pat = buf;
	plen = strlen(pat);
	path = buf + plen + (plen < size ? 1 : 0);
	if (filter_glob_check(pat, "--include") == 0) {
		wildmatch(pat, plen, path, strlen(path), 0);
		wildmatch(pat, plen, path, strlen(path),
				  WILDMATCH_PATHNAME);
		filter_glob_path(pat, path);
	}
	filter_pathspec_match(pat, path);
	error_clear();
	free(buf);
	return 0;
}
