#include "strata/publish.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/error.h"

#ifndef STRATA_LIBDIR
#define STRATA_LIBDIR "/usr/local/lib/strata"
#endif
#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

static const struct publish_api *loaded;

/*
 * Defined by site.c: in strata-publish.so, or in a program linked with
 * the publishing half itself (the unit tests), which then needs no object.
 */
extern const struct publish_api strata_publish_api __attribute__((weak));

/*
 * dlopen() `path`; on the first failure, keep "'path': reason" in why
 * (dlerror() puts the path before its reason already).
 */
static void *open_object(const char *path, char *why, size_t whylen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const char *reason;
	size_t n = strlen(path);

	if (h || why[0])
		return h;
	reason = dlerror();
	if (!reason)
		reason = "unknown error";
	if (!strncmp(reason, path, n) && !strncmp(reason + n, ": ", 2))
		reason += n + 2;
	snprintf(why, whylen, "'%s': %s", path, reason);
	return h;
}

/*
 * The table of the loaded object `h`, if its interface is this binary's.
 * The number decides, not the version: an object built from other
 * sources with the same interface works. One from before interfaces had
 * numbers must be of this very version, as it always had to be.
 */
static int check_object(void *h, const struct publish_api **api)
{
	const int *abi = dlsym(h, PUBLISH_ABI_SYMBOL);

	*api = dlsym(h, PUBLISH_SYMBOL);
	if (!*api)
		return error_set("unable to load '%s': %s not found",
				 PUBLISH_OBJECT, PUBLISH_SYMBOL);
	if (!abi && strcmp((*api)->version, STRATA_VERSION))
		return error_set("'%s' is from strata %s, not %s",
				 PUBLISH_OBJECT, (*api)->version,
				 STRATA_VERSION);
	if (!abi || *abi != PUBLISH_ABI)
		return error_set("%s has interface %d, this strata needs %d",
				 PUBLISH_OBJECT, abi ? *abi : 0, PUBLISH_ABI);
	return 0;
}

int publish_load(const struct publish_api **out)
{
	static const char *const beside_binary[] = {
		"", "../lib/strata/"
	};
	char exe[PATH_MAX], why[512] = "";
	const struct publish_api *api;
	void *h = NULL;
	ssize_t n;
	int rc;

	*out = NULL;
	if (!loaded && &strata_publish_api)
		loaded = &strata_publish_api;
	if (loaded) {
		*out = loaded;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, path[PATH_MAX + 64];

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; !h && i < 2; i++) {
			snprintf(path, sizeof(path), "%s/%s%s", exe,
				 beside_binary[i], PUBLISH_OBJECT);
			if (access(path, F_OK) == 0)
				h = open_object(path, why, sizeof(why));
		}
	}
	if (!h && access(STRATA_LIBDIR "/" PUBLISH_OBJECT, F_OK) == 0)
		h = open_object(STRATA_LIBDIR "/" PUBLISH_OBJECT, why,
				sizeof(why));
	if (!h) {
		if (why[0])
			return error_set("unable to load %s", why);
		return error_set("'%s' not found beside the strata binary nor "
				 "in '%s'", PUBLISH_OBJECT, STRATA_LIBDIR);
	}
	if ((rc = check_object(h, &api)) < 0) {
		dlclose(h);
		return rc;
	}
	loaded = api;
	*out = api;
	return 0;
}
