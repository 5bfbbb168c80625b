/*
 * attr_check REPO ATTR...: src/attr.c's answer for the NUL-separated
 * paths on stdin, from the .gitattributes files of REPO's HEAD tree, in
 * the form of `git check-attr -z --stdin ATTR...`: PATH NUL ATTR NUL
 * set|unset|unspecified|VALUE NUL. With ATTR "vendored", linguist's
 * verdict as strata takes it (attr_vendored()): "set" or "unset".
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/attr.h"
#include "strata/error.h"

static void put(const char *path, const char *attr, const char *info)
{
	fwrite(path, 1, strlen(path) + 1, stdout);
	fwrite(attr, 1, strlen(attr) + 1, stdout);
	fwrite(info, 1, strlen(info) + 1, stdout);
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_object *tree = NULL;
	struct attr *a = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int i, rc = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: attr_check REPO ATTR...\n");
		return 2;
	}
	git_libgit2_init();
	if (git_repository_open(&repo, argv[1]) < 0 ||
	    git_revparse_single(&tree, repo, "HEAD^{tree}") < 0) {
		fprintf(stderr, "attr_check: cannot read HEAD of '%s'\n",
			argv[1]);
		goto done;
	}
	if (attr_load_tree(&a, repo, git_object_id(tree)) < 0) {
		fprintf(stderr, "attr_check: %s\n", error_last());
		goto done;
	}
	while ((n = getdelim(&line, &cap, '\0', stdin)) > 0) {
		for (i = 2; i < argc; i++) {
			const char *value = NULL;

			if (!strcmp(argv[i], "vendored")) {
				put(line, argv[i], attr_vendored(a, line) ?
				    "set" : "unset");
				continue;
			}
			switch (attr_get(a, line, argv[i], &value)) {
			case ATTR_SET:
				put(line, argv[i], "set");
				break;
			case ATTR_UNSET:
				put(line, argv[i], "unset");
				break;
			case ATTR_STRING:
				put(line, argv[i], value);
				break;
			default:
				put(line, argv[i], "unspecified");
			}
		}
	}
	rc = 0;
done:
	free(line);
	attr_free(a);
	git_object_free(tree);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}
