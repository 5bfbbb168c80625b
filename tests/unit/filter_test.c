/*
 * filter_test: the globs of src/filter.c and the quoting of src/quote.c.
 *
 * 1. Hand-checked cases of git's wildmatch, with and without
 *    WILDMATCH_PATHNAME, and of the --include rules.
 * 2. Malformed globs are refused and never match.
 * 3. Random globs against random names: where filter_glob_check()
 *    accepts a glob made of characters whose meaning glibc's fnmatch()
 *    shares with wildmatch, both give the same answer without
 *    WILDMATCH_PATHNAME. (The fuzz target: FILTER_FUZZ=N rounds.)
 * 4. Quoting of names as git prints them.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "strata/error.h"
#include "strata/filter.h"
#include "strata/wildmatch.h"
#include "strata/quote.h"

static int m(const char *pat, const char *text, unsigned flags)
{
	return wildmatch(pat, strlen(pat), text, strlen(text), flags);
}

#define P WILDMATCH_PATHNAME

static void wildmatch_cases(void)
{
	static const struct {
		const char *pat, *text;
		unsigned flags;
		int want;
	} c[] = {
		{ "foo", "foo", 0, 1 },
		{ "foo", "bar", 0, 0 },
		{ "", "", 0, 1 },
		{ "???", "foo", 0, 1 },
		{ "??", "foo", 0, 0 },
		{ "*", "foo", 0, 1 },
		{ "f*", "foo", 0, 1 },
		{ "*f", "foo", 0, 0 },
		{ "*foo*", "foo", 0, 1 },
		{ "*ob*a*r*", "foobar", 0, 1 },
		{ "*ab", "aaaaaaabababab", 0, 1 },
		{ "foo\\*", "foo*", 0, 1 },
		{ "foo\\*bar", "foobar", 0, 0 },
		{ "f\\\\oo", "f\\oo", 0, 1 },
		{ "*[al]?", "ball", 0, 1 },
		{ "[ten]", "ten", 0, 0 },
		{ "**[!te]", "ten", 0, 1 },
		{ "**[!ten]", "ten", 0, 0 },
		{ "t[a-g]n", "ten", 0, 1 },
		{ "t[!a-g]n", "ten", 0, 0 },
		{ "t[!a-g]n", "ton", 0, 1 },
		{ "t[^a-g]n", "ton", 0, 1 },
		{ "a[]]b", "a]b", 0, 1 },
		{ "a[]-]b", "a-b", 0, 1 },
		{ "a[]-]b", "a]b", 0, 1 },
		{ "a[]-]b", "aab", 0, 0 },
		{ "a[]a-]b", "aab", 0, 1 },
		{ "]", "]", 0, 1 },
		/* '*' crosses '/' only without WILDMATCH_PATHNAME */
		{ "foo*bar", "foo/baz/bar", 0, 1 },
		{ "foo*bar", "foo/baz/bar", P, 0 },
		{ "foo?bar", "foo/bar", 0, 1 },
		{ "foo?bar", "foo/bar", P, 0 },
		{ "foo[/]bar", "foo/bar", P, 0 },
		{ "foo[^a-z]bar", "foo/bar", P, 0 },
		{ "f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", 0, 1 },
		{ "**/foo", "foo", P, 1 },
		{ "**/foo", "XXX/foo", P, 1 },
		{ "**/foo", "bar/baz/foo", P, 1 },
		{ "*/foo", "bar/baz/foo", P, 0 },
		{ "**/bar*", "foo/bar/baz", P, 0 },
		{ "**/bar/*", "deep/foo/bar/baz", P, 1 },
		{ "**/bar/*", "deep/foo/bar/baz/", P, 0 },
		{ "**/bar/**", "deep/foo/bar/baz/", P, 1 },
		{ "**/bar/*", "deep/foo/bar", P, 0 },
		{ "**/bar/**", "deep/foo/bar/", P, 1 },
		{ "**/bar**", "foo/bar/baz", P, 0 },
		{ "*/bar/**", "deep/foo/bar/baz/x", P, 0 },
		{ "**/bar/*/*", "deep/foo/bar/baz/x", P, 1 },
		{ "a/**/b", "a/b", P, 1 },
		{ "a/**/b", "a/x/y/b", P, 1 },
		{ "a/**", "a/x/y", P, 1 },
		{ "a/**", "a", P, 0 },
		{ "a**b", "a/x/b", P, 0 },
		{ "a**b", "axb", P, 1 },
		{ "**", "a/b/c", P, 1 },
		{ "*", "a/b", P, 0 },
		{ "*/*", "a/b", P, 1 },
		/* classes, ASCII only as in git */
		{ "[[:alpha:]][[:digit:]][[:upper:]]", "a1B", 0, 1 },
		{ "[[:digit:][:upper:][:space:]]", "1", 0, 1 },
		{ "[[:digit:][:upper:][:space:]]", "a", 0, 0 },
		{ "[[:space:]]", "\t", 0, 1 },
		{ "[[:space:]]", "\v", 0, 0 },
		{ "[[:punct:]]", "_", 0, 1 },
		{ "[[:xdigit:]]", "F", 0, 1 },
		{ "[[:alpha:]]", "\xe9", 0, 0 },
		{ "[[:alpha:]]", "\xe9", 0, 0 },
		{ "[a-c[:digit:]x-z]", "5", 0, 1 },
		{ "[a-c[:digit:]x-z]", "y", 0, 1 },
		{ "[a-c[:digit:]x-z]", "q", 0, 0 },
		/* a range's first character, even of an empty range */
		{ "[b-a]", "b", 0, 1 },
		{ "[b-a]", "a", 0, 0 },
		/* malformed: never a match */
		{ "[", "[", 0, 0 },
		{ "a[", "a[", 0, 0 },
		{ "[!", "x", 0, 0 },
		{ "[[:foo:]]", "f", 0, 0 },
		{ "a\\", "a\\", 0, 0 },
		/* a '[:' without ':]' is an ordinary '[' in the set */
		{ "[[:]", ":", 0, 1 },
		{ "[[:]", "[", 0, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(*c); i++)
		CHECK(m(c[i].pat, c[i].text, c[i].flags) == c[i].want,
		      "'%s' against '%s' (flags %u): want %d", c[i].pat,
		      c[i].text, c[i].flags, c[i].want);
}

static void check_cases(void)
{
	static const char *const good[] = {
		"*.c", "a[bc]d", "[]]", "[!]]", "[[:alpha:]_]", "\\[", "a\\*",
		"**/x", "[a-]", "[[:]", "x]",
	};
	static const char *const bad[] = {
		"", "[", "a[bc", "[!", "[[:alpha:]", "[[:nope:]]", "a\\",
		"[a\\", "[a-\\",
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		CHECK(filter_glob_check(good[i], "--include") == 0,
		      "'%s' refused: %s", good[i], error_last());
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(filter_glob_check(bad[i], "--exclude") == STRATA_EUSAGE,
		      "'%s' accepted", bad[i]);
		CHECK(strstr(error_last(), "for '--exclude'") != NULL,
		      "message '%s'", error_last());
	}
}

static void path_cases(void)
{
	static const struct {
		const char *glob, *path;
		int want;
	} c[] = {
		{ "*.c", "a/b/x.c", 1 },
		{ "*.c", "a/b/x.h", 0 },
		{ "test", "a/test/x.c", 1 },
		{ "test", "test", 1 },
		{ "test", "a/testing/x.c", 0 },
		{ "t*", "a/testing/x.c", 1 },
		{ "drivers/net", "drivers/net/e1000/a.c", 1 },
		{ "drivers/net", "drivers/network/a.c", 0 },
		{ "drivers/*/", "drivers/net/a.c", 1 },
		{ "drivers/*/", "drivers/a.c", 0 },
		/* .gitignore's rules, as git check-ignore gives them. */
		{ "src/*.c", "src/a/b.c", 0 },
		{ "src/*.c", "src/b.c", 1 },
		{ "/src", "src/a.c", 1 },
		{ "/src", "a/src/b.c", 0 },
		{ "/diff.c", "diff.c", 1 },
		{ "/diff.c", "builtin/diff.c", 0 },
		{ "**/diff.c", "diff.c", 1 },
		{ "**/diff.c", "builtin/diff.c", 1 },
		{ "**/diff.c", "a/b/diff.c", 1 },
		{ "a/**/c.txt", "a/c.txt", 1 },
		{ "a/**/c.txt", "a/b/d/c.txt", 1 },
		{ "a/**", "a/b/c.txt", 1 },
		{ "test/", "a/test/x.c", 1 },
		{ "test/", "a/test", 0 },
		{ "x.c/", "a/x.c", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(*c); i++)
		CHECK(filter_glob_path(c[i].glob, c[i].path) == c[i].want,
		      "glob '%s', path '%s': want %d", c[i].glob, c[i].path,
		      c[i].want);
	CHECK(filter_pathspec_match("d", "d/x"), "pathspec d");
	CHECK(!filter_pathspec_match("d", "dx"), "pathspec d vs dx");
	CHECK(filter_pathspec_match("d/", "d/x"), "pathspec d/");
	CHECK(filter_pathspec_match(".", "d/x"), "pathspec .");
}

/* Random globs and names over an alphabet both matchers read alike. */
static void fuzz(unsigned rounds)
{
	static const char pat_chars[] = "ab*?[]!^-\\/";
	static const char text_chars[] = "ab-]!^\\/[";
	unsigned r, seed = 12345, checked = 0;
	char pat[12], text[10];

	for (r = 0; r < rounds; r++) {
		size_t pl, tl, i;
		int a, b;

		seed = seed * 1103515245u + 12345u;
		pl = (seed >> 16) % sizeof(pat);
		for (i = 0; i < pl; i++) {
			seed = seed * 1103515245u + 12345u;
			pat[i] = pat_chars[(seed >> 16) % (sizeof(pat_chars) - 1)];
		}
		pat[pl] = '\0';
		seed = seed * 1103515245u + 12345u;
		tl = (seed >> 16) % sizeof(text);
		for (i = 0; i < tl; i++) {
			seed = seed * 1103515245u + 12345u;
			text[i] = text_chars[(seed >> 16) %
					     (sizeof(text_chars) - 1)];
		}
		text[tl] = '\0';
		if (!pl)
			continue;
		if (filter_glob_check(pat, "--include") < 0) {
			CHECK(!m(pat, text, 0) && !m(pat, text, P),
			      "malformed '%s' matched '%s'", pat, text);
			continue;
		}
		/*
		 * wildmatch counts a range's first character in the set
		 * even when the range is empty ("[b-a]" takes 'b'), POSIX
		 * does not: leave reversed ranges out.
		 */
		for (i = 1; i + 1 < pl; i++)
			if (pat[i] == '-' && (unsigned char)pat[i + 1] <
					     (unsigned char)pat[i - 1])
				break;
		if (i + 1 < pl)
			continue;
		checked++;
		a = m(pat, text, 0);
		b = fnmatch(pat, text, 0) == 0;
		CHECK(a == b, "'%s' against '%s': wildmatch %d, fnmatch %d",
		      pat, text, a, b);
		/* With WILDMATCH_PATHNAME a name without '/' matches the same. */
		if (!strchr(text, '/'))
			CHECK(m(pat, text, P) == a || strstr(pat, "/"),
			      "'%s' against '%s': pathname differs", pat, text);
	}
	CHECK(checked > rounds / 8, "only %u of %u globs were compared",
	      checked, rounds);
}

static void quote_cases(void)
{
	static const struct {
		const char *name, *full, *part;
	} c[] = {
		{ "plain/a.c", "plain/a.c", "plain/a.c" },
		{ "tab\there", "\"tab\\there\"", "\"tab\\there\"" },
		{ "new\nline", "\"new\\nline\"", "\"new\\nline\"" },
		{ "q\"d", "\"q\\\"d\"", "\"q\\\"d\"" },
		{ "b\\s", "\"b\\\\s\"", "\"b\\\\s\"" },
		{ "caf\xc3\xa9", "\"caf\\303\\251\"", "caf\xc3\xa9" },
		{ "\x1b[2J", "\"\\033[2J\"", "\"\\033[2J\"" },
		{ "del\x7f", "\"del\\177\"", "\"del\\177\"" },
		{ "\a\b\v\f\r", "\"\\a\\b\\v\\f\\r\"", "\"\\a\\b\\v\\f\\r\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(*c); i++) {
		char *buf = NULL;
		const char *q = quote_name(&buf, c[i].name, 1);

		CHECK(q && !strcmp(q, c[i].full), "quoted '%s': '%s'",
		      c[i].full, q ? q : "(null)");
		CHECK(quote_width(c[i].name, 1) == strlen(c[i].full),
		      "width of '%s'", c[i].full);
		q = quote_name(&buf, c[i].name, 0);
		CHECK(q && !strcmp(q, c[i].part), "quoted '%s': '%s'",
		      c[i].part, q ? q : "(null)");
		free(buf);
	}
	CHECK(quote_width("caf\xc3\xa9", 0) == 4, "UTF-8 width");
}

int main(void)
{
	const char *env = getenv("FILTER_FUZZ");

	wildmatch_cases();
	check_cases();
	path_cases();
	fuzz(env ? (unsigned)strtoul(env, NULL, 10) : 200000);
	quote_cases();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures != 0;
}
