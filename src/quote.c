#include "strata/quote.h"

#include <stdlib.h>
#include <string.h>

/*
 * Per byte: 0 printed as it is; 1 three octal digits; else the letter
 * after the backslash. Bytes of 0x80 and more are 0, or 1 when quoting
 * fully.
 */
static unsigned char how(unsigned char c, int fully)
{
	static const char letter[14] = {
		1, 1, 1, 1, 1, 1, 1, 'a', 'b', 't', 'n', 'v', 'f', 'r'
	};

	if (c < 14)
		return (unsigned char)letter[c];
	if (c < 0x20 || c == 0x7f)
		return 1;
	if (c == '"' || c == '\\')
		return c;
	return c >= 0x80 && fully;
}

size_t quote_len(const char *s, int fully)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 2, special = 0;

	for (; *p; p++) {
		unsigned char h = how(*p, fully);

		n += !h ? 1 : h == 1 ? 4 : 2;
		special |= h;
	}
	return special ? n : 0;
}

size_t quote_write(char *out, const char *s, int fully)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;

	*o++ = '"';
	for (; *p; p++) {
		unsigned char h = how(*p, fully);

		if (!h) {
			*o++ = (char)*p;
		} else if (h == 1) {
			*o++ = '\\';
			*o++ = (char)('0' + (*p >> 6));
			*o++ = (char)('0' + ((*p >> 3) & 7));
			*o++ = (char)('0' + (*p & 7));
		} else {
			*o++ = '\\';
			*o++ = (char)h;
		}
	}
	*o++ = '"';
	*o = '\0';
	return (size_t)(o - out);
}

const char *quote_name(char **buf, const char *s, int fully)
{
	size_t n = quote_len(s, fully);
	char *b;

	if (!n)
		return s;
	if (!(b = realloc(*buf, n + 1)))
		return NULL;
	*buf = b;
	quote_write(b, s, fully);
	return b;
}

size_t quote_width(const char *s, int fully)
{
	size_t n = quote_len(s, fully), w = 0;

	if (n)
		return n;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}
