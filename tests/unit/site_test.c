/*
 * site_test: publish a report of a hand-made tally, without a repository.
 *
 *   site_test OUT TEMPLATES [force] [dark]
 *
 * The tally comes from tally_build() over a made-up blame (one "commit"
 * per release), with the hostile names the site must escape. Exit 0 when
 * report_publish() succeeds, else 1 with its error on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/blame.h"
#include "strata/error.h"
#include "strata/releases.h"
#include "strata/report.h"
#include "strata/tally.h"

struct spec {
	const char *path;
	uint32_t by_release[4];   /* lines from 1.0, 1.1, 2.0, unreleased */
};

static const struct spec files[] = {
	{"<img src=x onerror=alert(1)>.c", {4, 0, 0, 0}},
	{"<img src=x onerror=alert(1)>/z.c", {0, 0, 0, 3}},
	{"Net/x.c", {0, 5, 0, 0}},
	{"README", {10, 0, 0, 0}},
	{"net/deep/er/y.c", {10, 0, 10, 0}},
	{"src/a&b \"q\"/a&b \"q\".c", {8, 0, 0, 0}},
	{"src/a&b \"q\"/\x1b[31mred.c", {2, 0, 0, 0}},
	{"src/caf\xe9.c", {6, 0, 0, 0}},
	{"src/main.c", {10, 10, 5, 5}},
	{"src/sub/z.c", {1, 2, 3, 4}},
};

#define NFILES (sizeof(files) / sizeof(files[0]))

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct blame_file *)a)->path,
		      ((const struct blame_file *)b)->path);
}

int main(int argc, char **argv)
{
	static struct release_tag t10[] = {
		{.name = "v1.0", .date = 1262304000, .commit = 0}};
	static struct release_tag t11[] = {
		{.name = "v1.1-rc1", .date = 1270000000, .commit = 1},
		{.name = "v1.1", .date = 1272000000, .commit = 1}};
	static struct release_tag t20[] = {
		{.name = "v2.0", .date = 1300000000, .commit = 2}};
	struct release list[] = {
		{.name = "1.0", .tags = t10, .ntags = 1,
		 .first_date = 1262304000, .last_date = 1262304000,
		 .commits = 12},
		{.name = "1.1", .tags = t11, .ntags = 2,
		 .first_date = 1270000000, .last_date = 1272000000,
		 .commits = 7},
		{.name = "2.0", .tags = t20, .ntags = 1,
		 .first_date = 1300000000, .last_date = 1300000000,
		 .commits = 3},
		{.name = "unreleased", .commits = 2, .unreleased = 1},
	};
	uint32_t of_commit[] = {0, 1, 2, 3};
	struct releases rel = {.list = list, .n = 4, .of_commit = of_commit};
	struct blame_file bf[NFILES];
	struct blame_result blame = {.files = bf, .nfiles = NFILES,
				     .ndiffs = 40};
	struct tally *t = NULL;
	struct report_info info = {0};
	struct report_options opts = {0};
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: site_test OUT TEMPLATES [force] [dark]\n");
		return 2;
	}
	for (size_t i = 0; i < NFILES; i++) {
		uint32_t n = 0;

		bf[i].path = (char *)files[i].path;
		for (int r = 0; r < 4; r++)
			n += files[i].by_release[r];
		bf[i].nlines = n;
		bf[i].lines = malloc(n * sizeof(uint32_t));
		n = 0;
		for (uint32_t r = 0; r < 4; r++)
			for (uint32_t k = 0; k < files[i].by_release[r]; k++)
				bf[i].lines[n++] = r;
		blame.nlines += n;
	}
	qsort(bf, NFILES, sizeof(bf[0]), by_path);
	if (tally_build(&t, &blame, &rel, 2, NULL, NULL) < 0) {
		fprintf(stderr, "tally: %s\n", error_last());
		return 1;
	}

	info.repo_name = "<b>demo</b> & co";
	info.rev = "v2.0+\"x\"";
	snprintf(info.commit, sizeof(info.commit), "%040d", 7);
	info.commit_time = 1300000000;
	info.version = "0.1.0";
	info.tags_ere = "v[0-9]+(\\.[0-9]+)*(-rc[0-9]+)?";
	info.depth = 2;
	info.jobs = 2;
	info.ncommits = 24;
	info.ndiffs = 40;
	info.generated = 1700000000;

	opts.out_dir = argv[1];
	opts.templates_dir = argv[2];
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "force"))
			opts.force = 1;
		if (!strcmp(argv[i], "dark"))
			opts.chart.dark = 1;
	}
	opts.chart.width = 800;
	opts.chart.height = 400;
	rc = report_publish(t, &info, &opts);
	if (rc < 0)
		fprintf(stderr, "strata: %s\n", error_last());
	tally_free(t);
	for (size_t i = 0; i < NFILES; i++)
		free(bf[i].lines);
	return rc < 0 ? 1 : 0;
}
