/*
 * attr_check REPO ATTR...: src/attr.c's answer for the NUL-separated
 * paths on stdin, from the .gitattributes files of REPO's HEAD tree, in
 * the form of `git check-attr -z --stdin ATTR...`: PATH NUL ATTR NUL
 * set|unset|unspecified|VALUE NUL. With ATTR "vendored", linguist's
 * verdict as strata takes it (attr_vendored()): "set" or "unset".
 *
 * attr_check --each LIST ATTR...: the same for many repositories in one
 * process (process starts are dear): each line of the file LIST is
 * "REPO<TAB>IN<TAB>OUT", the paths read from the file IN and the answer
 * written to the file OUT, each repository on its own as if alone.
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/attr.h"
#include "strata/error.h"

static void put(FILE *out, const char *path, const char *attr,
		const char *info)
{
	fwrite(path, 1, strlen(path) + 1, out);
	fwrite(attr, 1, strlen(attr) + 1, out);
	fwrite(info, 1, strlen(info) + 1, out);
}

/* One repository: paths from `in`, answers to `out`; 0 or 1. */
static int check(const char *path, FILE *in, FILE *out, int nattr,
		 char **attrs)
{
	git_repository *repo = NULL;
	git_object *tree = NULL;
	struct attr *a = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int i, rc = 1;

	if (git_repository_open(&repo, path) < 0 ||
	    git_revparse_single(&tree, repo, "HEAD^{tree}") < 0) {
		fprintf(stderr, "attr_check: cannot read HEAD of '%s'\n",
			path);
		goto done;
	}
	if (attr_load_tree(&a, repo, git_object_id(tree)) < 0) {
		fprintf(stderr, "attr_check: %s\n", error_last());
		goto done;
	}
	while ((n = getdelim(&line, &cap, '\0', in)) > 0) {
		for (i = 0; i < nattr; i++) {
			const char *value = NULL;

			if (!strcmp(attrs[i], "vendored")) {
				put(out, line, attrs[i], attr_vendored(a, line) ?
				    "set" : "unset");
				continue;
			}
			switch (attr_get(a, line, attrs[i], &value)) {
			case ATTR_SET:
				put(out, line, attrs[i], "set");
				break;
			case ATTR_UNSET:
				put(out, line, attrs[i], "unset");
				break;
			case ATTR_STRING:
				put(out, line, attrs[i], value);
				break;
			default:
				put(out, line, attrs[i], "unspecified");
			}
		}
	}
	rc = 0;
done:
	free(line);
	attr_free(a);
	git_object_free(tree);
	git_repository_free(repo);
	return rc;
}

/* --each LIST: every "REPO<TAB>IN<TAB>OUT" line of LIST. */
static int each(const char *list, int nattr, char **attrs)
{
	FILE *l = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	if (!l) {
		fprintf(stderr, "attr_check: cannot open '%s'\n", list);
		return 1;
	}
	while (!rc && (n = getline(&line, &cap, l)) > 0) {
		char *in = strchr(line, '\t'), *out = in ? strchr(in + 1, '\t') : NULL;
		FILE *fi, *fo;

		if (!out || line[n - 1] != '\n') {
			fprintf(stderr, "attr_check: bad line in '%s'\n", list);
			rc = 1;
			break;
		}
		*in++ = '\0';
		*out++ = '\0';
		line[n - 1] = '\0';
		fi = fopen(in, "rb");
		fo = fopen(out, "wb");
		if (!fi || !fo) {
			fprintf(stderr, "attr_check: cannot open '%s' or '%s'\n",
				in, out);
			rc = 1;
		} else {
			rc = check(line, fi, fo, nattr, attrs);
		}
		if (fi)
			fclose(fi);
		if (fo && fclose(fo) != 0)
			rc = 1;
	}
	free(line);
	fclose(l);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 3 || (!strcmp(argv[1], "--each") && argc < 4)) {
		fprintf(stderr, "usage: attr_check REPO ATTR... | "
			"attr_check --each LIST ATTR...\n");
		return 2;
	}
	git_libgit2_init();
	if (!strcmp(argv[1], "--each"))
		rc = each(argv[2], argc - 3, argv + 3);
	else
		rc = check(argv[1], stdin, stdout, argc - 2, argv + 2);
	git_libgit2_shutdown();
	return rc;
}
