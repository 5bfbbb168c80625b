/*
 * Unit test and probe for src/releases.c.
 *
 *   releases_test check
 *	built-in assertions: the default --tags expression against version
 *	tags and non-versions, default release names, --group, bad input
 *   releases_test name [--tags ERE] [--group ERE] TAG...
 *	the release name of each TAG, one per line
 *   releases_test map REPO REV [--tags ERE] [--group ERE] [--first-parent]
 *		[--tag-scope dated|merged]
 *	"release NAME FIRST LAST COMMITS TAG:DATE,..." per release, then
 *	"skipped N", then "skipped elsewhere N later N" when one is not 0,
 *	then "OID RELEASE" per commit of REV's history in
 *	topological order; on failure "error CODE MESSAGE" and exit 1
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/history.h"
#include "strata/releases.h"
#include "strata/repository.h"

#include "check.h"

/* The documented semantics: the expression must match the whole name. */
static int whole_match(const char *ere, const char *s)
{
	regmatch_t m[1];
	regex_t re;
	int ok;

	if (regcomp(&re, ere, REG_EXTENDED))
		return -1;
	ok = !regexec(&re, s, 1, m, 0) && m[0].rm_so == 0 &&
	     (size_t)m[0].rm_eo == strlen(s);
	regfree(&re);
	return ok;
}

static void check_default_tags(void)
{
	static const char *const yes[] = {
		"v2.6.33", "v2.6.33-rc8", "1.2.3", "3.0a", "jq-1.7.1",
		"jq-1.7rc1", "curl-8_10_0", "v5.4-beta", "2.6.0-rc1",
		"v2.30.0-rc0", "v0.99.9n", "v1.0rc1", "3.0-rc", "3.1c",
		"v3.12.0a1", "v3.12.0b2", "1.0.0-alpha.1", "1.0.0-rc.1",
		"v1.0-pre", "v1.0-pre2", "OpenSSL_1_0_2k", "release-1.2",
		"go1.21.0", "go1.22rc1", "v255", "v256-rc1", "2024.01.15",
		"R_2_15_0", "php-8.3.0", "V1.2", "1.2RC3", "v1.0beta",
		"my-proj-1.0", "v2.6.33.1",
	};
	static const char *const no[] = {
		"latest", "debian/1.2-3", "upstream/1.2", "tools/v0.1.0",
		"1.2-3", "v1.2.3-1", "v2.6.11-tree", "stable", "v", "1",
		"20240101", "snapshot-20240101", "r1234", "v1.0-final",
		"1.0.0+build.5", "v1.0-", "1.", ".1.2", "v1..2", "foo",
		"junio-gpg-pub", "v1.0 ", " v1.0", "v1.0-rc1-2", "1.0.0-dev",
		"x", "",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		CHECK(whole_match(releases_default_tags, yes[i]) == 1,
		      "default --tags should match '%s'", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		CHECK(whole_match(releases_default_tags, no[i]) == 0,
		      "default --tags should not match '%s'", no[i]);
}

static void check_name(const char *tags, const char *group, const char *tag,
		       const char *want)
{
	struct releases_options o = { tags, group, RELEASES_DATED };
	char *got = NULL;
	int rc = releases_name_for_tag(&got, &o, tag);

	CHECK(rc == 0 && got && !strcmp(got, want),
	      "release of '%s' (group %s): got '%s' (rc %d), want '%s'", tag,
	      group ? group : "default", got ? got : "(null)", rc, want);
	free(got);
}

static void check_names(void)
{
	static const char *const pairs[][2] = {
		{ "v2.6.33", "v2.6.33" },
		{ "v2.6.33-rc8", "v2.6.33" },
		{ "1.2.3", "1.2.3" },
		{ "3.0a", "3.0a" },          /* tmux: a release of its own */
		{ "3.1c", "3.1c" },
		{ "3.0-rc", "3.0" },
		{ "3.0-rc2", "3.0" },
		{ "jq-1.7.1", "jq-1.7.1" },
		{ "jq-1.7rc1", "jq-1.7" },
		{ "curl-8_10_0", "curl-8_10_0" },
		{ "v5.4-beta", "v5.4" },
		{ "v5.4-beta2", "v5.4" },
		{ "2.6.0-rc1", "2.6.0" },
		{ "1.0-alpha", "1.0" },
		{ "v1.0-pre", "v1.0" },
		{ "v1.0-pre3", "v1.0" },
		{ "v1.0rc1", "v1.0" },
		{ "1.0.0-alpha.1", "1.0.0" },
		{ "1.0.0-rc.2", "1.0.0" },
		{ "1.0.0_RC2", "1.0.0" },
		{ "v3.12.0a1", "v3.12.0" },  /* PEP 440 */
		{ "v3.12.0b2", "v3.12.0" },
		{ "v3.12.0rc1", "v3.12.0" },
		{ "3.0a1", "3.0" },
		{ "1.0.2k", "1.0.2k" },
		{ "v0.99.9n", "v0.99.9n" },
		{ "v256-rc1", "v256" },
		{ "go1.22rc1", "go1.22" },
		{ "latest", "latest" },      /* no suffix: the tag itself */
		{ "rc1", "rc1" },
		{ "beta", "beta" },
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++)
		check_name(NULL, NULL, pairs[i][0], pairs[i][1]);

	/* the Linux recipe */
	{
		const char *g = "v(2\\.6\\.[0-9]+|[3-9]\\.[0-9]+).*";

		check_name(NULL, g, "v2.6.33-rc8", "2.6.33");
		check_name(NULL, g, "v2.6.33", "2.6.33");
		check_name(NULL, g, "v2.6.33.1", "2.6.33");
		check_name(NULL, g, "v3.10-rc1", "3.10");
		check_name(NULL, g, "v6.1", "6.1");
		/* no match: the default naming */
		check_name(NULL, g, "v2.4.0-rc1", "v2.4.0");
	}
	/* curl: underscores kept, the prefix dropped */
	check_name(NULL, "curl-([0-9]+_[0-9]+)_[0-9]+", "curl-7_88_1",
		   "7_88");
	/* a subexpression that does not take part falls back */
	check_name(NULL, "(x)?v.*", "v1.0-rc1", "v1.0");
	/* the whole tag must match, not a substring */
	check_name(NULL, "([0-9]+)", "v1.0", "v1.0");
	/* the first subexpression, not the last */
	check_name(NULL, "v(([0-9]+)\\.[0-9]+).*", "v2.6-rc1", "2.6");
}

/*
 * Expressions glibc would expand to gigabytes are refused (each stacked
 * '+' doubles the compiled program); those of a similar look but a
 * reasonable size still pass.
 */
static void check_too_large(void)
{
	static const char *const big[] = {
		"@+++++++++++++++++++++++", "((a{100}){100}){100}",
		"a{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}{2}",
		"(x|((v{99}){99}){99})", "@++", "z+?+?+?+?+?+?+?+?+?+?+?+?",
	};
	static const char *const fine[] = {
		"v[0-9]+(\\.[0-9]+)*", "((a{30}){30}){30}", "((((a+)+)+)+)+",
		"[+{]+", "a{1000}",
	};
	struct releases_options o = { NULL, NULL, RELEASES_DATED };
	size_t i;
	int rc;

	for (i = 0; i < sizeof(big) / sizeof(*big); i++) {
		o.tags_ere = big[i];
		rc = releases_check_options(&o);
		CHECK(rc == STRATA_EUSAGE && strstr(error_last(), "too large"),
		      "'%s' accepted: rc %d", big[i], rc);
	}
	for (i = 0; i < sizeof(fine) / sizeof(*fine); i++) {
		o.tags_ere = fine[i];
		rc = releases_check_options(&o);
		CHECK(rc == 0, "'%s' refused: %s", fine[i], error_last());
	}
	o.tags_ere = NULL;
	o.group_ere = "(@++++++++++++++++++++++)";
	rc = releases_check_options(&o);
	CHECK(rc == STRATA_EUSAGE && strstr(error_last(), "--group"),
	      "large --group accepted: rc %d", rc);
}

static void check_bad(void)
{
	struct releases_options o = { "v(", NULL, RELEASES_DATED };
	char *name = NULL;
	int rc;

	error_clear();
	rc = releases_check_options(&o);
	CHECK(rc == STRATA_EUSAGE, "bad --tags: rc %d", rc);
	CHECK(!strncmp(error_last(), "invalid --tags expression 'v(': ", 32),
	      "bad --tags message: '%s'", error_last());

	o.tags_ere = NULL;
	o.group_ere = "[z-a]";
	rc = releases_check_options(&o);
	CHECK(rc == STRATA_EUSAGE, "bad --group: rc %d", rc);
	CHECK(!strncmp(error_last(), "invalid --group expression '[z-a]': ",
		       36),
	      "bad --group message: '%s'", error_last());

	o.group_ere = "v.*";
	rc = releases_check_options(&o);
	CHECK(rc == STRATA_EUSAGE, "--group without subexpression: rc %d",
	      rc);
	CHECK(strstr(error_last(), "'v.*'") != NULL,
	      "--group without subexpression: '%s'", error_last());
	rc = releases_name_for_tag(&name, &o, "v1");
	CHECK(rc == STRATA_EUSAGE && !name, "name_for_tag with bad group");

	o.group_ere = "v([0-9]+).*";
	rc = releases_check_options(&o);
	CHECK(rc == 0, "good --group rejected: %s", error_last());
	rc = releases_check_options(NULL);
	CHECK(rc == 0, "defaults rejected: %s", error_last());
	check_too_large();
}

static int opt_args(struct releases_options *o, int *first_parent,
		    int argc, char **argv, int i)
{
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--tags") && i + 1 < argc)
			o->tags_ere = argv[++i];
		else if (!strcmp(argv[i], "--group") && i + 1 < argc)
			o->group_ere = argv[++i];
		else if (!strcmp(argv[i], "--tag-scope") && i + 1 < argc) {
			if (releases_parse_scope(&o->scope, argv[++i])) {
				printf("error %s\n", error_last());
				return -1;
			}
		}
		else if (!strcmp(argv[i], "--first-parent") && first_parent)
			*first_parent = 1;
		else
			break;
	}
	return i;
}

static int cmd_map(int argc, char **argv)
{
	struct releases_options o = { NULL, NULL, RELEASES_DATED };
	struct repository *repo = NULL;
	struct history *h = NULL;
	struct releases *r = NULL;
	int first_parent = 0, rc;
	git_oid tip;
	char hex[GIT_OID_HEXSZ + 1];

	if (argc < 4 || opt_args(&o, &first_parent, argc, argv, 4) != argc) {
		fprintf(stderr, "usage: releases_test map REPO REV [opts]\n");
		return 2;
	}
	rc = repository_open(&repo, argv[2]);
	if (!rc)
		rc = repository_resolve_commit(&tip, repo, argv[3]);
	if (!rc)
		rc = history_load(&h, repo, &tip, first_parent);
	if (!rc)
		rc = releases_compute(&r, repo, h, &o);
	if (rc) {
		printf("error %d %s\n", rc, error_last());
		history_free(h);
		repository_free(repo);
		return 1;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct release *rel = &r->list[i];

		printf("release %s %lld %lld %llu ", rel->name,
		       (long long)rel->first_date, (long long)rel->last_date,
		       (unsigned long long)rel->commits);
		for (size_t j = 0; j < rel->ntags; j++)
			printf("%s%s:%lld", j ? "," : "", rel->tags[j].name,
			       (long long)rel->tags[j].date);
		printf("%s\n", rel->unreleased ? "(unreleased)" : "");
	}
	printf("skipped %zu\n", r->nskipped);
	if (r->nelsewhere || r->nlater)
		printf("skipped elsewhere %zu later %zu\n", r->nelsewhere,
		       r->nlater);
	for (size_t i = 0; i < h->n; i++) {
		git_oid_tostr(hex, sizeof(hex), &h->commits[i].oid);
		printf("%s %s\n", hex, r->list[r->of_commit[i]].name);
	}
	releases_free(r);
	history_free(h);
	repository_free(repo);
	return 0;
}

static int cmd_name(int argc, char **argv)
{
	struct releases_options o = { NULL, NULL, RELEASES_DATED };
	int i = opt_args(&o, NULL, argc, argv, 2);

	for (; i < argc; i++) {
		char *name;

		if (releases_name_for_tag(&name, &o, argv[i])) {
			fprintf(stderr, "%s\n", error_last());
			return 2;
		}
		printf("%s\n", name);
		free(name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	git_libgit2_init();
	if (argc >= 2 && !strcmp(argv[1], "check")) {
		check_default_tags();
		check_names();
		check_bad();
		rc = failures ? 1 : 0;
		if (failures)
			fprintf(stderr, "%d check(s) failed\n", failures);
	} else if (argc >= 2 && !strcmp(argv[1], "map")) {
		rc = cmd_map(argc, argv);
	} else if (argc >= 2 && !strcmp(argv[1], "name")) {
		rc = cmd_name(argc, argv);
	} else {
		fprintf(stderr, "usage: releases_test check|map|name ...\n");
		rc = 2;
	}
	git_libgit2_shutdown();
	return rc;
}
