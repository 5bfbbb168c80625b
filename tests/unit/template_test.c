/*
 * template_test DIR: the ctemplate bridge (src/template.cc).
 *
 * Writes templates into DIR (which must exist and be empty) and checks
 * escaping by context, sections, includes, errors as messages (ctemplate
 * must print nothing: the caller checks that stderr stays empty), and that
 * two template sets never share a template. Prints "ok" and exits 0, or
 * names the first failure and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/error.h"
#include "strata/template.h"

#define PRAGMA "{{%AUTOESCAPE context=\"HTML\"}}"

static const char *dir;

static void fail(const char *what, const char *detail)
{
	printf("FAIL: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static void put(const char *sub, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		fail("unable to write", path);
}

static char *expand(const char *sub, const char *name,
		    const struct template_dict *d)
{
	struct template_set *set;
	char path[4096], *out;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (template_set_new(&set, path) < 0)
		fail("template_set_new", error_last());
	if (template_expand(&out, NULL, set, name, d) < 0) {
		template_set_free(set);
		return NULL;
	}
	template_set_free(set);
	return out;
}

static void expect(const char *got, const char *want)
{
	if (!got)
		fail("expansion failed", error_last());
	if (strcmp(got, want)) {
		printf("got:  %s\nwant: %s\n", got, want);
		fail("unexpected output", NULL);
	}
}

int main(int argc, char **argv)
{
	struct template_dict *d, *row, *inc;
	char *out, big[300];

	if (argc != 2) {
		fprintf(stderr, "usage: template_test DIR\n");
		return 2;
	}
	dir = argv[1];

	/* Escaping follows the context: text, attribute, URL. */
	put("a", "page.tpl", PRAGMA "<p title=\"{{V}}\">{{V}}</p>"
	    "<a href=\"{{URL}}\">x</a><a href=\"p.html#{{V}}\">y</a>\n");
	if (template_dict_new(&d) < 0)
		fail("template_dict_new", error_last());
	template_dict_set(d, "V", "<b>&\"'");
	template_dict_set(d, "URL", "javascript:alert(1)");
	out = expand("a", "page.tpl", d);
	expect(out, "<p title=\"&lt;b&gt;&amp;&quot;&#39;\">&lt;b&gt;&amp;"
	       "&quot;&#39;</p><a href=\"#\">x</a>"
	       "<a href=\"p.html#&lt;b&gt;&amp;&quot;&#39;\">y</a>\n");
	free(out);
	template_dict_free(d);

	/* Sections, repeated; shared values reach included templates. */
	put("b", "list.tpl", PRAGMA "\n{{>HEAD}}\n"
	    "{{#ROW}}[{{N}}]{{/ROW}}{{#NONE}}none{{/NONE}}\n");
	put("b", "head.tpl", PRAGMA "\n<h1>{{TITLE}} {{REPO}}</h1>\n");
	template_dict_new(&d);
	template_dict_set_shared(d, "REPO", "r&r");
	for (int i = 1; i <= 3; i++) {
		template_dict_add(&row, d, "ROW");
		template_dict_setf(row, "N", "%d", i);
	}
	template_dict_include(&inc, d, "HEAD", "head.tpl");
	template_dict_set(inc, "TITLE", "T");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	template_dict_setf(d, "BIG", "%s", big);
	out = expand("b", "list.tpl", d);
	expect(out, "<h1>T r&amp;r</h1>\n[1][2][3]\n");
	free(out);
	template_dict_free(d);

	/* Two sets, same name, different directories: each its own. */
	put("c1", "same.tpl", PRAGMA "one\n");
	put("c2", "same.tpl", PRAGMA "two\n");
	template_dict_new(&d);
	out = expand("c1", "same.tpl", d);
	expect(out, "one\n");
	free(out);
	out = expand("c2", "same.tpl", d);
	expect(out, "two\n");
	free(out);
	/* A changed file is read again by a new set, whatever its mtime. */
	put("c1", "same.tpl", PRAGMA "uno\n");
	out = expand("c1", "same.tpl", d);
	expect(out, "uno\n");
	free(out);

	/* Errors are messages, and ctemplate prints nothing. */
	out = expand("c1", "missing.tpl", d);
	if (out || !strstr(error_last(), "template 'missing.tpl' not found in"))
		fail("missing template", error_last());
	put("e", "open.tpl", PRAGMA "{{#OPEN}}never closed\n");
	out = expand("e", "open.tpl", d);
	if (out || !strstr(error_last(), "open.tpl': file ended before all "
			   "sections were closed"))
		fail("unclosed section", error_last());
	put("e", "inc.tpl", PRAGMA "{{>X}}\n");
	template_dict_include(&inc, d, "X", "absent.tpl");
	out = expand("e", "inc.tpl", d);
	if (out || !strstr(error_last(), "absent.tpl"))
		fail("missing include", error_last());
	template_dict_free(d);

	puts("ok");
	return 0;
}
