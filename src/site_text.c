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

/* 1234567 -> "1,234,567" */
struct text site_count(uint64_t n)
{
	struct text t;
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);
	size_t o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			t.s[o++] = ',';
		t.s[o++] = digits[i];
	}
	t.s[o] = '\0';
	return t;
}

/*
 * part/whole in percent with `decimals` (1 or 2) digits, rounded half
 * up in integers: the same everywhere, whatever the FPU or locale.
 */
struct text site_percent(uint64_t part, uint64_t whole, int decimals)
{
	uint64_t unit = decimals == 1 ? 10 : 100, v;
	struct text t;

	v = whole ? (part * unit * 100 * 2 + whole) / (2 * whole) : 0;
	snprintf(t.s, sizeof(t.s), "%" PRIu64 ".%0*" PRIu64, v / unit,
		 decimals, v % unit);
	return t;
}

struct text site_pct(uint64_t part, uint64_t whole)
{
	return site_percent(part, whole, 2);
}

/* "1 file", "1,234 files" */
int site_set_counted(struct template_dict *d, const char *key, uint64_t n,
		     const char *one, const char *many)
{
	return template_dict_setf(d, key, "%s %s", site_count(n).s,
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

/* The length of the valid UTF-8 sequence at s, 0 if there is none. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;

#define CONT(b) ((b) >= 0x80 && (b) <= 0xbf)
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return CONT(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
		return s[1] >= lo && s[1] <= hi && CONT(s[2]) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
		return s[1] >= lo && s[1] <= hi && CONT(s[2]) && CONT(s[3]) ?
			4 : 0;
	}
	return 0;
#undef CONT
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
		size_t len = utf8_seq(s);
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
