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

int filter_glob_path(const char *glob, const char *path)
{
	size_t glen = strlen(glob), plen = strlen(path);
	const char *p, *end = path + plen;

	if (!memchr(glob, '/', glen)) {
		const char *base = strrchr(path, '/');

		base = base ? base + 1 : path;
		if (wildmatch(glob, glen, base, (size_t)(end - base),
				      0))
			return 1;
		/* A bare directory name matches anywhere on the path. */
		for (p = path; p < base; p += strcspn(p, "/") + 1)
			if (wildmatch(glob, glen, p, strcspn(p, "/"),
					      0))
				return 1;
		return 0;
	}
	if (wildmatch(glob, glen, path, plen, 0))
		return 1;
	/* "dir/" or "dir/sub": everything under it. */
	if (glob[glen - 1] == '/')
		glen--;
	for (p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		if (wildmatch(glob, glen, path, (size_t)(p - path), 0))
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
