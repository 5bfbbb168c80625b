/*
 * wildmatch: git's glob matcher (the matcher of .gitignore and
 * .gitattributes patterns), a leaf that depends on nothing.
 *
 * `*`, `?`, `[...]` with ranges, `!` or `^` for negation and `[:class:]`,
 * and `\` quoting the next character. With WILDMATCH_PATHNAME, `*`, `?`
 * and a bracket never match '/', and `**` between slashes (or at either
 * end) spans directories; without it, `*` matches '/' too. A malformed
 * glob (an unterminated bracket, an unknown class, a trailing backslash)
 * never matches anything; wildmatch_check() tells why, so that a caller
 * can refuse it before any work. Matching takes time in the glob's length
 * times the text's, whatever the stars (git's own backtracking takes
 * minutes and more over some globs).
 *
 * Pure functions of their arguments: no I/O, no error slot, safe on any
 * thread.
 */
#ifndef STRATA_WILDMATCH_H
#define STRATA_WILDMATCH_H

#include <stddef.h>

#define WILDMATCH_PATHNAME 1u

/*
 * 1 if the glob pat[0..plen) matches text[0..tlen), else 0. Neither
 * needs a NUL at its end.
 */
int wildmatch(const char *pat, size_t plen, const char *text, size_t tlen,
	      unsigned flags);

/*
 * NULL if `pat` is a well-formed glob, else why not ("it is empty", "it
 * ends with a backslash", ...: a static string).
 */
const char *wildmatch_check(const char *pat);

#endif
