/*
 * The CSV and JSON escapers of the report's data files (src/data.c): the
 * CSV field must read back as the input, the JSON string must be valid
 * JSON that reads back as the input when the input is valid UTF-8.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *render(void (*fn)(FILE *, const char *), const char *s,
		    size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	if (!f)
		abort();
	fn(f, s);
	if (fclose(f))
		abort();
	return out;
}

static void check_csv(const char *s)
{
	size_t len, i, k = 0;
	char *out = render(data_csv_field, s, &len);

	if (len == 0 || out[0] != '"') {
		if (strcmp(out, s) || strpbrk(out, ",\"\r\n"))
			abort();
		free(out);
		return;
	}
	if (len < 2 || out[len - 1] != '"')
		abort();
	for (i = 1; i + 1 < len; i++, k++) {
		if (out[i] == '"' && out[++i] != '"')
			abort();
		if (out[i] != s[k])
			abort();
	}
	if (s[k])
		abort();
	free(out);
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else
			abort();
	}
	return v;
}

/* Decode the JSON string; abort() on anything JSON does not allow. */
static void check_json(const char *s)
{
	size_t len, i, k = 0, slen = strlen(s);
	char *out = render(data_json_string, s, &len);
	int same = 1;

	if (len < 2 || out[0] != '"' || out[len - 1] != '"')
		abort();
	for (i = 1; i + 1 < len; i++) {
		unsigned char c = (unsigned char)out[i];
		unsigned u;

		if (c < 0x20 || c == '"')
			abort();
		if (c != '\\') {
			same = same && k < slen && s[k] == (char)c;
			k++;
			continue;
		}
		c = (unsigned char)out[++i];
		if (i + 1 >= len)
			abort();
		switch (c) {
		case '"': case '\\': case 'b': case 'f': case 'n': case 'r':
		case 't':
			same = same && k < slen && (unsigned char)s[k] ==
				(c == 'b' ? '\b' : c == 'f' ? '\f' :
				 c == 'n' ? '\n' : c == 'r' ? '\r' :
				 c == 't' ? '\t' : c);
			k++;
			break;
		case 'u':
			if (i + 5 > len - 1)
				abort();
			u = hex4(out + i + 1);
			i += 4;
			if (u >= 0xd800 && u <= 0xdfff)
				abort();
			if (u < 0x80)
				same = same && k < slen && (unsigned char)s[k] == u;
			k += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
			break;
		default:
			abort();
		}
	}
	/* Every byte accounted for: as many out as in. */
	if (k < slen && same)
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_csv(s);
	check_json(s);
	free(s);
	return 0;
}
