/*
 * The pages' HTML escaping: ctemplate's auto-escaping (through
 * src/template.cc) in the places the templates put a name: text, a
 * quoted attribute and a link. The input is the name (to its first NUL).
 * Each value, cut out of the page, must hold no '<', '>', quote or '&'
 * that starts no entity, and decode to the input, with tab, LF, VT, FF
 * and CR as spaces; a link may instead be "#", and must be when its
 * scheme is other than ftp, http or https.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "strata/error.h"
#include "strata/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char page[] =
	"{{%AUTOESCAPE context=\"HTML\"}}\n"
	"<p>{{T}}</p><a class=\"{{T}}\" href=\"{{T}}\">x</a>\n";

static struct template_set *set;
static char dir[] = "/tmp/strata-fuzz-html-XXXXXX";
static char file[sizeof(dir) + 8];

static void cleanup(void)
{
	template_set_free(set);
	unlink(file);
	rmdir(dir);
}

static void setup(void)
{
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	strcpy(file, dir);
	strcat(file, "/t.tpl");
	if (!(f = fopen(file, "w")) || fputs(page, f) < 0 || fclose(f))
		abort();
	if (template_set_new(&set, dir) < 0)
		abort();
	atexit(cleanup);
}

/* The value out[0..n) decoded into d; 0 if it holds what it must not. */
static int decode(char *d, const char *out, size_t n)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'},
		    {"&quot;", '"'}, {"&#39;", '\''}};
	size_t i = 0, k = 0, e;

	while (i < n) {
		if (strchr("<>\"'", out[i]))
			return 0;
		if (out[i] != '&') {
			d[k++] = out[i++];
			continue;
		}
		for (e = 0; e < sizeof(ents) / sizeof(*ents); e++)
			if (!strncmp(out + i, ents[e].ent, strlen(ents[e].ent)))
				break;
		if (e == sizeof(ents) / sizeof(*ents))
			return 0;
		d[k++] = ents[e].c;
		i += strlen(ents[e].ent);
	}
	d[k] = '\0';
	return 1;
}

/* 1 if the link has a scheme other than ctemplate's safe ones (ftp,
 * http, https). */
static int other_scheme(const char *url)
{
	size_t s = strcspn(url, ":/?#");

	return url[s] == ':' &&
	       !(s == 3 && !strncasecmp(url, "ftp", 3)) &&
	       !(s == 4 && !strncasecmp(url, "http", 4)) &&
	       !(s == 5 && !strncasecmp(url, "https", 5));
}

/* The value between `open` and `close` in the page, from *at on. */
static void check(const char **at, const char *open, const char *close,
		  const char *want, int link)
{
	const char *b = strstr(*at, open), *e;
	size_t n;
	char *d;

	if (!b || !(e = strstr(b += strlen(open), close)))
		abort();
	n = (size_t)(e - b);
	*at = e;
	if (link && n == 1 && *b == '#')
		return;
	if (!(d = malloc(n + 1)) || !decode(d, b, n) || strcmp(d, want))
		abort();
	/* A link that is kept has no scheme, or http(s). */
	if (link && other_scheme(d))
		abort();
	free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct template_dict *dict = NULL;
	char *s = malloc(size + 1), *want, *out = NULL;
	const char *at;

	if (!s)
		return 0;
	if (!set)
		setup();
	memcpy(s, data, size);
	s[size] = '\0';
	want = strdup(s);
	for (char *p = want; p && *p; p++)
		if (strchr("\t\n\v\f\r", *p))
			*p = ' ';
	if (!want || template_dict_new(&dict) < 0 ||
	    template_dict_set(dict, "T", s) < 0 ||
	    template_expand(&out, NULL, set, "t.tpl", dict) < 0)
		abort();
	at = out;
	check(&at, "<p>", "</p>", want, 0);
	check(&at, "class=\"", "\"", want, 0);
	check(&at, "href=\"", "\"", want, 1);
	free(out);
	template_dict_free(dict);
	free(want);
	free(s);
	error_clear();
	return 0;
}
