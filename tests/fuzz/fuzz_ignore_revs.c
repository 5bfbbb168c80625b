/*
 * The object name lists of --ignore-revs-file (src/ignore.c): the input
 * is a list's bytes. Each name given must be the 40 hex digits at the
 * start of a line (after its spaces), there can be no more of them than
 * lines, and a refusal is one line of at most the error slot's length.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/ignore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const char *buf;
	size_t len, names;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	abort();
}

/* The name must be spelled, in either case, somewhere in the input. */
static int on_name(const unsigned char *oid, void *payload)
{
	struct seen *s = payload;
	size_t i, k;

	s->names++;
	for (i = 0; i + 40 <= s->len; i++) {
		for (k = 0; k < 40; k++) {
			char c = s->buf[i + k];

			if (!strchr("0123456789abcdefABCDEF", c) || !c)
				break;
			if (((oid[k / 2] >> (k % 2 ? 0 : 4)) & 15) !=
			    hexval(c))
				break;
		}
		if (k == 40)
			return 0;
	}
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = {(const char *)data, size, 0};
	size_t lines = 1;
	int rc;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	rc = ignore_revs_parse((const char *)data, size, "f", on_name, &s);
	if (s.names > lines)
		abort();
	if (rc < 0 && (!*error_last() || strchr(error_last(), '\n') ||
		       strncmp(error_last(), "invalid object name '", 21)))
		abort();
	if (rc == 0 && s.names * 40 > size)
		abort();
	error_clear();
	return 0;
}
