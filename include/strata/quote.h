/*
 * quote: names as git prints them (core.quotePath).
 *
 * A name that holds a control character, '"', '\' or DEL, or (unless
 * core.quotePath is false) a byte of 0x80 or more, is printed between
 * double quotes with C escapes: \a \b \t \n \v \f \r \" \\ and three
 * octal digits for the rest ("caf\303\251"), exactly as git ls-files,
 * git diff and git status print it. Any other name is printed as it is.
 */
#ifndef STRATA_QUOTE_H
#define STRATA_QUOTE_H

#include <stddef.h>

/* How many bytes the quoted form of s takes (no NUL), or 0 if s needs no
 * quoting. `fully`: core.quotePath (bytes >= 0x80 quoted too). */
size_t quote_len(const char *s, int fully);

/*
 * Write the quoted form of s into out, which holds quote_len(s, fully)
 * bytes and a NUL; returns its length. Only for names that need it.
 */
size_t quote_write(char *out, const char *s, int fully);

/* The name as git prints it: s itself, or *buf (malloc'd, replacing what
 * it held) holding its quoted form; NULL if out of memory. */
const char *quote_name(char **buf, const char *s, int fully);

/*
 * Columns the name takes in a terminal: the bytes of its quoted form, or,
 * when it is printed as it is, its UTF-8 characters (a byte that does
 * not start one counts as none).
 */
size_t quote_width(const char *s, int fully);

#endif
