/*
 * tally_test: tally_build() on a made-up blame, and its out-of-memory
 * sweep: whichever allocation fails, the build fails with STRATA_ENOMEM
 * or gives the same tally as with memory enough; never a tally with
 * directories missing.
 */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "failalloc.h"
#include "strata/blame.h"
#include "strata/error.h"
#include "strata/releases.h"
#include "strata/tally.h"

long failalloc_after = -1;

static uint32_t lines_a[] = { 0, 0, 1 }, lines_b[] = { 1, 1 },
		lines_c[] = { 0 }, lines_d[] = { 0, 1, 1, 1 };
static struct blame_file files[] = {
	{ (char *)"README", 3, lines_a },
	{ (char *)"src/a/x.c", 2, lines_b },
	{ (char *)"src/a/y.c", 1, lines_c },
	{ (char *)"src/b/deep/z.c", 4, lines_d },
};

/* The tally as one line of text, to compare two builds. */
static void describe(char *buf, size_t size, const struct tally *t)
{
	size_t i, o = 0;

	o += (size_t)snprintf(buf + o, size - o, "%zu %zu %llu %zu|",
			      t->nfiles, t->ndirs,
			      (unsigned long long)t->total_lines,
			      t->nuntouched);
	for (i = 0; i < t->ndirs && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s:%llu:%llu:%zu ",
				      t->dirs[i].path,
				      (unsigned long long)t->dirs[i].lines,
				      (unsigned long long)
				      t->dirs[i].by_release[0],
				      t->dirs[i].parent);
}

int main(void)
{
	struct release list[2] = { { 0 }, { 0 } };
	uint32_t of_commit[2] = { 0, 1 };
	struct releases rel = { 0 };
	struct blame_result blame = { 0 };
	struct tally *t = NULL;
	char want[2048], got[2048];
	long n, total;
	int rc, fails = 0;

	list[0].name = (char *)"1.0";
	list[1].name = (char *)"2.0";
	rel.list = list;
	rel.n = 2;
	rel.of_commit = of_commit;
	blame.files = files;
	blame.nfiles = sizeof(files) / sizeof(*files);

	rc = tally_build(&t, &blame, &rel, 3, NULL, NULL);
	CHECK(rc == 0 && t, "build: %d", rc);
	if (!t)
		return 1;
	describe(want, sizeof(want), t);
	CHECK(t->ndirs == 6 && t->total_lines == 10 && t->nuntouched == 1,
	      "tally: %s", want);
	tally_free(t);

	/* How many allocations a build makes, then each of them failing. */
	failalloc_after = 1L << 40;
	rc = tally_build(&t, &blame, &rel, 3, NULL, NULL);
	total = (1L << 40) - failalloc_after;
	failalloc_after = -1;
	tally_free(t);
	for (n = 0; n < total; n++) {
		failalloc_after = n;
		t = NULL;
		rc = tally_build(&t, &blame, &rel, 3, NULL, NULL);
		failalloc_after = -1;
		if (rc == 0) {
			describe(got, sizeof(got), t);
			CHECK(!strcmp(got, want),
			      "allocation %ld failed, yet a tally: %s", n, got);
			tally_free(t);
		} else {
			CHECK(rc == STRATA_ENOMEM && !t,
			      "allocation %ld: rc %d", n, rc);
			fails++;
		}
	}
	CHECK(total > 10 && fails == total,
	      "%d of %ld failed allocations failed the build", fails, total);
	return failures ? 1 : 0;
}
