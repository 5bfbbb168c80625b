#include "strata/error.h"

#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last[1024];

static void store(const char *fmt, va_list ap)
{
	vsnprintf(last, sizeof(last), fmt, ap);
}

int error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	store(fmt, ap);
	va_end(ap);
	return STRATA_ERR;
}

int error_setc(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	store(fmt, ap);
	va_end(ap);
	return code;
}

int error_git(const char *fmt, ...)
{
	const git_error *e = git_error_last();
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	store(fmt, ap);
	va_end(ap);
	len = strlen(last);
	if (e && e->message && *e->message && len + 3 < sizeof(last)) {
		char msg[512];
		size_t m;

		snprintf(msg, sizeof(msg), "%s", e->message);
		m = strlen(msg);
		while (m && (msg[m - 1] == '\n' || msg[m - 1] == '.'))
			msg[--m] = '\0';
		snprintf(last + len, sizeof(last) - len, ": %s", msg);
	}
	return STRATA_ERR;
}

int error_prefix(const char *fmt, ...)
{
	char was[sizeof(last)];
	size_t len;
	va_list ap;

	memcpy(was, last, sizeof(last));
	va_start(ap, fmt);
	store(fmt, ap);
	va_end(ap);
	len = strlen(last);
	if (len + 3 < sizeof(last)) {
		size_t n = strlen(was), room = sizeof(last) - len - 3;

		if (n > room)
			n = room;   /* truncated, as store() truncates */
		memcpy(last + len, ": ", 2);
		memcpy(last + len + 2, was, n);
		last[len + 2 + n] = '\0';
	}
	return STRATA_ERR;
}

int error_oom(void)
{
	snprintf(last, sizeof(last), "out of memory");
	return STRATA_ENOMEM;
}

const char *error_last(void)
{
	return last;
}

void error_clear(void)
{
	last[0] = '\0';
}
