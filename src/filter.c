#include "strata/filter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/attr.h"
#include "strata/error.h"
#include "strata/wildmatch.h"

int filter_glob_check(const char *pat, const char *opt)
{
	const char *why = wildmatch_check(pat);

	if (why)
		return error_setc(STRATA_EUSAGE, "invalid glob '%s' for '%s': "
				  "%s", pat, opt, why);
	return 0;
}

/* One candidate of filter_glob_path(): the file, or a directory above it. */
static int glob_at(const char *glob, size_t glen, int anchored,
		   const char *path, size_t len)
{
	const char *base = path + len;

	if (anchored)
		return wildmatch(glob, glen, path, len, WILDMATCH_PATHNAME);
	while (base > path && base[-1] != '/')
		base--;
	return wildmatch(glob, glen, base, (size_t)(path + len - base),
			 WILDMATCH_PATHNAME);
}

int filter_glob_path(const char *glob, const char *path)
{
	size_t glen = strlen(glob), plen = strlen(path);
	int dir_only = 0, anchored;
	const char *p;

	if (glen > 1 && glob[glen - 1] == '/') {
		dir_only = 1;
		glen--;
	}
	/* A '/' at the start or in the middle anchors it to the root. */
	anchored = memchr(glob, '/', glen) != NULL;
	if (glob[0] == '/') {
		glob++;
		glen--;
	}
	if (!dir_only && glob_at(glob, glen, anchored, path, plen))
		return 1;
	/* A directory that matches takes everything under it. */
	for (p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		if (glob_at(glob, glen, anchored, path, (size_t)(p - path)))
			return 1;
	return 0;
}

int filter_active(const struct filter *f)
{
	return f->ninclude || f->nexclude || f->attr;
}

enum filter_reason filter_path(const struct filter *f, const char *path)
{
	size_t i;
	int keep = !f->ninclude;

	for (i = 0; i < f->ninclude && !keep; i++)
		keep = filter_glob_path(f->include[i], path);
	for (i = 0; keep && i < f->nexclude; i++)
		if (filter_glob_path(f->exclude[i], path))
			keep = 0;
	if (!keep)
		return FILTER_GLOBS;
	if (f->attr && attr_vendored(f->attr, path))
		return FILTER_VENDORED;
	return FILTER_KEEP;
}

int filter_pathspec_match(const char *spec, const char *path)
{
	size_t len = strlen(spec);

	while (len > 1 && spec[len - 1] == '/')
		len--;
	if (!len || (len == 1 && spec[0] == '.'))
		return 1;
	return !strncmp(spec, path, len) && (!path[len] || path[len] == '/');
}
