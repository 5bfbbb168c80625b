/*
 * site text: what pages print, formatted without the locale so that
 * pages are the same everywhere: dates, durations, names made safe to
 * show on a UTF-8 page.
 */
#include "site_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strata/error.h"
#include "strata/util.h"

/* "1 file", "1,234 files" */
int site_set_counted(struct template_dict *d, const char *key, uint64_t n,
		     const char *one, const char *many)
{
	return template_dict_setf(d, key, "%s %s", util_count(n).s,
				  n == 1 ? one : many);
}

struct text site_date(int64_t when)
{
	struct text t;
	time_t tt = (time_t)when;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(t.s, sizeof(t.s), "%Y-%m-%d", &tm))
		snprintf(t.s, sizeof(t.s), "?");
	return t;
}

struct text site_date_time(int64_t when)
{
	struct text t;
	time_t tt = (time_t)when;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(t.s, sizeof(t.s), "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(t.s, sizeof(t.s), "?");
	return t;
}

struct text site_seconds(double s)
{
	struct text t;
	long long tenths = s > 0 ? llround(s * 10) : 0;

	snprintf(t.s, sizeof(t.s), "%lld.%lld", tenths / 10, tenths % 10);
	return t;
}

/*
 * A name as it can be shown on a UTF-8 page: bytes that are not UTF-8,
 * and control characters (C0, DEL, C1), become \xNN. HTML escaping is
 * the template's job. malloc'd; NULL when out of memory.
 */
char *site_display(const char *raw)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t n = strlen(raw);
	char *out = malloc(n * 4 + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		size_t len = util_utf8_seq(s);
		int control = len == 1 ? (*s < 0x20 || *s == 0x7f) :
			      len == 2 && s[0] == 0xc2 && s[1] < 0xa0;

		if (len && !control) {
			memcpy(o, s, len);
			o += len;
			s += len;
			continue;
		}
		if (!len)
			len = 1;
		for (size_t i = 0; i < len; i++)
			o += sprintf(o, "\\x%02x", s[i]);
		s += len;
	}
	*o = '\0';
	return out;
}

int site_set_display(struct template_dict *d, const char *key,
		     const char *raw)
{
	char *s = site_display(raw);
	int rc;

	if (!s)
		return error_oom();
	rc = template_dict_set(d, key, s);
	free(s);
	return rc;
}

const char *site_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
