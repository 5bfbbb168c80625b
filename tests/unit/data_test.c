/*
 * Unit test of src/data.c: a hand-built tally, written out and compared
 * byte for byte with the documented formats (docs/data.md).
 *
 *   data_test DIR
 *	writes DIR/a, DIR/b (reproducible), DIR/c (with timings) and
 *	DIR/d (a second tally, for rounding) and checks every file; the
 *	driver then parses them with independent tools
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/data.h"
#include "strata/snapshots.h"
#include "strata/error.h"
#include "strata/releases.h"

#include "check.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, alloc = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > alloc) {
			alloc = alloc ? 2 * alloc : 8192;
			buf = realloc(buf, alloc + 1);
			if (!buf)
				abort();
		}
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void expect_file(const char *dir, const char *name, const char *want)
{
	char path[4096];
	size_t len, wl = strlen(want), i;
	char *got;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	got = slurp(path, &len);
	if (!got) {
		CHECK(0, "unable to read '%s'", path);
		return;
	}
	for (i = 0; i < len && i < wl && got[i] == want[i]; i++)
		;
	CHECK(i == len && i == wl,
	      "%s differs at byte %zu\n--- want\n%s\n--- got\n%s\n---", path,
	      i, want, got);
	free(got);
}

/* --- the tally of a small tree ----------------------------------------- */

#define T_RC1 1266000000   /* 2010-02-12T18:40:00Z */
#define T_V10 1267037537   /* 2010-02-24T18:52:17Z */
#define T_V11 1270000000   /* 2010-03-31T01:46:40Z */
#define T_RC2A 1280000000  /* 2010-07-24T19:33:20Z */
#define T_RC2B 1281000000  /* 2010-08-05T09:20:00Z */

static struct release_tag tags10[] = {
	{ "v1.0-rc1", T_RC1, 0, { { 0 } }, 1, 0 },
	{ "v1.0", T_V10, 2, { { 0 } }, 1, 0 },
};
static struct release_tag tags11[] = { { "v1,1", T_V11, 4, { { 0 } }, 1, 0 } };
static struct release_tag tags20[] = {
	{ "v2.0-rc1", T_RC2A, 6, { { 0 } }, 1, 0 },
	{ "v2.0-rc2", T_RC2B, 9, { { 0 } }, 1, 0 },
};
static struct release rels[] = {
	{ "v1.0", tags10, 2, T_RC1, T_V10, 3, &tags10[1], 0 },
	{ "v1,1", tags11, 1, T_V11, T_V11, 2, &tags11[0], 0 },
	{ "v2.0", tags20, 2, T_RC2A, T_RC2B, 5, &tags20[1], 0 },
	{ "unreleased", NULL, 0, 0, 0, 1, NULL, 1 },
};

/* lines per release: v1.0, "v1,1", v2.0, unreleased */
static uint64_t f_make[] = { 3, 0, 0, 0 };
static uint64_t f_ab[] = { 2, 3, 0, 0 };
static uint64_t f_nl[] = { 0, 0, 0, 1 };
static uint64_t f_q[] = { 0, 0, 4, 0 };
static uint64_t f_utf8[] = { 0, 1, 0, 0 };
static uint64_t f_latin1[] = { 2, 0, 0, 0 };
static uint64_t d_all[] = { 7, 4, 4, 1 };
static uint64_t d_root[] = { 5, 3, 0, 0 };
static uint64_t d_dir[] = { 2, 1, 4, 1 };
static uint64_t d_sub[] = { 0, 1, 0, 0 };

static struct tally_release trels[] = {
	{ "v1.0", &rels[0], 7, 43.75, 0 },
	{ "v1,1", &rels[1], 4, 25.0, 0 },
	{ "v2.0", &rels[2], 4, 25.0, 0 },
	{ "unreleased", &rels[3], 1, 6.25, 1 },
};

/* sorted bytewise */
static struct tally_file tfiles[] = {
	{ "Makefile", 3, f_make, 1, 1 },
	{ "a,b.c", 5, f_ab, 1, 0 },
	{ "dir/new\nline", 1, f_nl, 2, 0 },
	{ "dir/q\"uote.c", 4, f_q, 2, 0 },
	{ "dir/sub/\xc3\xa9.c", 1, f_utf8, 3, 0 },
	{ "dir/\xe9t\xe9.c", 2, f_latin1, 2, 1 },
};

static struct tally_dir tdirs[] = {
	{ "", 0, 0, 16, d_all, 6, 2, 43.75 },
	{ ".", 1, 0, 8, d_root, 2, 1, 62.5 },
	{ "dir", 1, 0, 8, d_dir, 4, 1, 25.0 },
	{ "dir/sub", 2, 2, 1, d_sub, 1, 0, 0.0 },
};

static struct tally tally = {
	trels, 4, 16, tfiles, 6, tdirs, 4, 2, 5, 2, NULL, NULL,
};

static const char *const ignore[] = {
	"fedcba9876543210fedcba9876543210fedcba98",
};
static const char *const include[] = { "*.c", "Make*" };

static struct report_info info = {
	.repo_name = "demo\t\xe2\x80\xa8\x01",
	.rev = "HEAD",
	.commit = "0123456789abcdef0123456789abcdef01234567",
	.commit_time = T_V10,
	.version = "0.1.0",
	.tags_ere = "v[0-9]+(\\.[0-9]+)*(-rc[0-9]+)?|\"v1,1\"",
	.group_ere = NULL,
	.tag_scope = "dated",
	.first_parent = 1,
	.ignore_whitespace = 0,
	.ignore_revs = ignore,
	.nignore_revs = 1,
	.include = include,
	.ninclude = 2,
	.exclude = NULL,
	.nexclude = 0,
	.skip_vendored = 1,
	.left_globs_files = 3,
	.left_globs_lines = 120,
	.left_vendored_files = 1,
	.left_vendored_lines = 900,
	.left_missing = 2,
	.passed_over = 1,
	.depth = 2,
	.jobs = 4,
	.shallow = 0,
	.nboundary = 0,
	.ncommits = 11,
	.ndiffs = 42,
	.generated = T_V10,
	.seconds_history = 0.1234,
	.seconds_blame = 1.5,
	.seconds_total = 2.25,
};

#define EOL "\r\n"

static const char files_csv[] =
	"path,release,lines" EOL
	"Makefile,v1.0,3" EOL
	"\"a,b.c\",v1.0,2" EOL
	"\"a,b.c\",\"v1,1\",3" EOL
	"\"dir/new\nline\",,1" EOL
	"\"dir/q\"\"uote.c\",v2.0,4" EOL
	"dir/sub/\xc3\xa9.c,\"v1,1\",1" EOL
	"dir/\xe9t\xe9.c,v1.0,2" EOL;

static const char releases_csv[] =
	"release,tag,date,commits,lines,share" EOL
	"v1.0,v1.0,2010-02-24T18:52:17Z,3,7,43.75" EOL
	"\"v1,1\",\"v1,1\",2010-03-31T01:46:40Z,2,4,25.00" EOL
	"v2.0,v2.0-rc2,2010-08-05T09:20:00Z,5,4,25.00" EOL
	",,,1,1,6.25" EOL;

static const char subsystems_csv[] =
	"subsystem,release,lines" EOL
	".,v1.0,5" EOL
	".,\"v1,1\",3" EOL
	"dir,v1.0,2" EOL
	"dir,\"v1,1\",1" EOL
	"dir,v2.0,4" EOL
	"dir,,1" EOL;

static const char untouched_csv[] =
	"path,lines" EOL
	"Makefile,3" EOL
	"dir/\xe9t\xe9.c,2" EOL;

#define D10 "\"2010-02-24T18:52:17Z\""
#define DRC1 "\"2010-02-12T18:40:00Z\""
#define D11 "\"2010-03-31T01:46:40Z\""
#define D20A "\"2010-07-24T19:33:20Z\""
#define D20B "\"2010-08-05T09:20:00Z\""

static const char report_json[] =
"{\n"
"  \"format\": \"strata-report/1\",\n"
"  \"version\": \"0.1.0\",\n"
"  \"generated\": " D10 ",\n"
"  \"repository\": {\n"
"    \"name\": \"demo\\t\\u2028\\u0001\",\n"
"    \"rev\": \"HEAD\",\n"
"    \"commit\": \"0123456789abcdef0123456789abcdef01234567\",\n"
"    \"commit_date\": " D10 ",\n"
"    \"commits\": 11,\n"
"    \"shallow\": false,\n"
"    \"boundary_commits\": 0\n"
"  },\n"
"  \"options\": {\n"
"    \"tags\": \"v[0-9]+(\\\\.[0-9]+)*(-rc[0-9]+)?|\\\"v1,1\\\"\",\n"
"    \"group\": null,\n"
"    \"tag_scope\": \"dated\",\n"
"    \"first_parent\": true,\n"
"    \"ignore_whitespace\": false,\n"
"    \"ignore_revs\": [\"fedcba9876543210fedcba9876543210fedcba98\"],\n"
"    \"include\": [\"*.c\", \"Make*\"],\n"
"    \"exclude\": [],\n"
"    \"skip_vendored\": true,\n"
"    \"depth\": 2,\n"
"    \"date\": \"committer\",\n"
"    \"org_map\": null,\n"
"    \"authors\": false\n"
"  },\n"
"  \"totals\": {\n"
"    \"lines\": 16,\n"
"    \"files\": 6,\n"
"    \"releases\": 4,\n"
"    \"untouched_files\": 2,\n"
"    \"untouched_lines\": 5,\n"
"    \"left_out\": {\"include_exclude\": {\"files\": 3, \"lines\": 120}, "
"\"vendored\": {\"files\": 1, \"lines\": 900}, \"missing\": 2},\n"
"    \"renames_passed_over\": 1\n"
"  },\n"
"  \"releases\": [\n"
"    {\"name\": \"v1.0\", \"unreleased\": false, \"tag\": \"v1.0\", "
"\"date\": " D10 ", \"first_date\": " DRC1 ", \"last_date\": " D10 ", "
"\"commits\": 3, \"lines\": 7, \"share\": 43.75, \"tags\": ["
"{\"name\": \"v1.0-rc1\", \"date\": " DRC1 "}, "
"{\"name\": \"v1.0\", \"date\": " D10 "}]},\n"
"    {\"name\": \"v1,1\", \"unreleased\": false, \"tag\": \"v1,1\", "
"\"date\": " D11 ", \"first_date\": " D11 ", \"last_date\": " D11 ", "
"\"commits\": 2, \"lines\": 4, \"share\": 25.00, \"tags\": ["
"{\"name\": \"v1,1\", \"date\": " D11 "}]},\n"
"    {\"name\": \"v2.0\", \"unreleased\": false, \"tag\": \"v2.0-rc2\", "
"\"date\": " D20B ", \"first_date\": " D20A ", \"last_date\": " D20B ", "
"\"commits\": 5, \"lines\": 4, \"share\": 25.00, \"tags\": ["
"{\"name\": \"v2.0-rc1\", \"date\": " D20A "}, "
"{\"name\": \"v2.0-rc2\", \"date\": " D20B "}]},\n"
"    {\"name\": \"\", \"unreleased\": true, \"tag\": null, "
"\"date\": null, \"first_date\": null, \"last_date\": null, "
"\"commits\": 1, \"lines\": 1, \"share\": 6.25, \"tags\": []}\n"
"  ],\n"
"  \"files\": [\n"
"    {\"path\": \"Makefile\", \"lines\": 3, \"untouched\": true, "
"\"releases\": {\"v1.0\": 3}},\n"
"    {\"path\": \"a,b.c\", \"lines\": 5, \"untouched\": false, "
"\"releases\": {\"v1.0\": 2, \"v1,1\": 3}},\n"
"    {\"path\": \"dir/new\\nline\", \"lines\": 1, \"untouched\": false, "
"\"releases\": {\"\": 1}},\n"
"    {\"path\": \"dir/q\\\"uote.c\", \"lines\": 4, \"untouched\": false, "
"\"releases\": {\"v2.0\": 4}},\n"
"    {\"path\": \"dir/sub/\xc3\xa9.c\", \"lines\": 1, \"untouched\": false, "
"\"releases\": {\"v1,1\": 1}},\n"
"    {\"path\": \"dir/\\ufffdt\\ufffd.c\", "
"\"path_bytes\": \"6469722fe974e92e63\", \"lines\": 2, "
"\"untouched\": true, \"releases\": {\"v1.0\": 2}}\n"
"  ],\n"
"  \"directories\": [\n"
"    {\"path\": \"\", \"level\": 0, \"lines\": 16, \"files\": 6, "
"\"untouched_files\": 2, \"first_share\": 43.75, \"releases\": "
"{\"v1.0\": 7, \"v1,1\": 4, \"v2.0\": 4, \"\": 1}},\n"
"    {\"path\": \".\", \"level\": 1, \"lines\": 8, \"files\": 2, "
"\"untouched_files\": 1, \"first_share\": 62.50, \"releases\": "
"{\"v1.0\": 5, \"v1,1\": 3}},\n"
"    {\"path\": \"dir\", \"level\": 1, \"lines\": 8, \"files\": 4, "
"\"untouched_files\": 1, \"first_share\": 25.00, \"releases\": "
"{\"v1.0\": 2, \"v1,1\": 1, \"v2.0\": 4, \"\": 1}},\n"
"    {\"path\": \"dir/sub\", \"level\": 2, \"lines\": 1, \"files\": 1, "
"\"untouched_files\": 0, \"first_share\": 0.00, \"releases\": "
"{\"v1,1\": 1}}\n"
"  ],\n"
"  \"untouched\": [\n"
"    {\"path\": \"Makefile\", \"lines\": 3},\n"
"    {\"path\": \"dir/\\ufffdt\\ufffd.c\", "
"\"path_bytes\": \"6469722fe974e92e63\", \"lines\": 2}\n"
"  ],\n"
"  \"history\": null";

static const char run_json[] =
",\n"
"  \"run\": {\n"
"    \"jobs\": 4,\n"
"    \"diffs\": 42,\n"
"    \"seconds\": {\"history\": 0.123, \"blame\": 1.500, "
"\"total\": 2.250}\n"
"  }\n"
"}\n";

/* --- a second tally: rounding, no files, only pre-releases ---------------- */

static struct release_tag tags_r[] = { { "3.0-rc", 100, 0, { { 0 } }, 1, 0 } };
static struct release_tag tags_s[] = {
	{ "3.0a", 200, 1, { { 0 } }, 1, 0 },
	{ "3.0a1", 300, 1, { { 0 } }, 1, 0 },
};
static struct release rels2[] = {
	{ "3.0", tags_r, 1, 100, 100, 1, &tags_r[0], 0 },
	{ "3.0a", tags_s, 2, 200, 300, 1, &tags_s[0], 0 },
};
static uint64_t g_all[] = { 1, 31 };
static struct tally_release trels2[] = {
	{ "3.0", &rels2[0], 1, 3.125, 0 },
	{ "3.0a", &rels2[1], 31, 96.875, 0 },
};
static struct tally_dir tdirs2[] = { { "", 0, 0, 32, g_all, 0, 0, 3.125 } };
static struct tally tally2 = { trels2, 2, 32, NULL, 0, tdirs2, 1, 0, 0, 1, NULL, NULL };

static const char releases2_csv[] =
	"release,tag,date,commits,lines,share" EOL
	"3.0,3.0-rc,1970-01-01T00:01:40Z,1,1,3.13" EOL
	"3.0a,3.0a,1970-01-01T00:03:20Z,1,31,96.88" EOL;

/* --- a history: two snapshots, names that need quoting ------------------ */

static uint64_t s0_by[] = { 6, 0, 0, 0 };
static uint64_t s1_by[] = { 2, 4, 0, 1 };
static struct snapshot snaps[] = {
	{ "v1.0", T_V10, 3, { { 0xab } }, 0, 0, 0, 6, s0_by },
	{ "HEAD,x", T_V11, 7, { { 0xcd } }, SNAPSHOT_NONE, 1, 0, 7, s1_by },
};
static char sub_dot[] = ".", sub_dir[] = "d,ir";
static char *subs[] = { sub_dot, sub_dir };
static struct snapshot_row srows[] = {
	{ 0, 0, 0, 5 }, { 0, 1, 0, 1 },
	{ 1, 0, 0, 2 }, { 1, 0, 1, 3 }, { 1, 1, 1, 1 }, { 1, 1, 3, 1 },
};
static struct snapshot_survival surv[] = {
	{ 0, 1, 404.55 }, { SNAPSHOT_NONE, 0, 0 }, { SNAPSHOT_NONE, 0, 0 },
	{ SNAPSHOT_NONE, 0, 0 },
};
/* [release * 2 + snapshot]: one of v1.0's 2 lines at HEAD arrived. */
static uint64_t survived[] = { 6, 1, 0, 0, 0, 0, 0, 0 };
/* [release * 2 + snapshot]: HEAD descends from v1.0: all 6 lines. */
static uint64_t based[] = { 6, 6, 0, 0, 0, 0, 0, 0 };
static struct snapshots history = {
	SNAPSHOTS_RELEASES, snaps, 2, 4, subs, 2, srows, 6, surv, survived,
	based, NULL, 0, NULL,
};

static const char history_csv[] =
	"snapshot,date,release,lines" EOL
	"v1.0,2010-02-24T18:52:17Z,v1.0,6" EOL
	"\"HEAD,x\",2010-03-31T01:46:40Z,v1.0,2" EOL
	"\"HEAD,x\",2010-03-31T01:46:40Z,\"v1,1\",4" EOL
	"\"HEAD,x\",2010-03-31T01:46:40Z,,1" EOL;

static const char history_subsystems_csv[] =
	"snapshot,subsystem,release,lines" EOL
	"v1.0,.,v1.0,5" EOL
	"v1.0,\"d,ir\",v1.0,1" EOL
	"\"HEAD,x\",.,v1.0,2" EOL
	"\"HEAD,x\",.,\"v1,1\",3" EOL
	"\"HEAD,x\",\"d,ir\",\"v1,1\",1" EOL
	"\"HEAD,x\",\"d,ir\",,1" EOL;

static const char survival_csv[] =
	"release,snapshot,date,lines,share,arrived" EOL
	"v1.0,v1.0,2010-02-24T18:52:17Z,6,100.00,0" EOL
	"v1.0,\"HEAD,x\",2010-03-31T01:46:40Z,1,16.67,1" EOL;

static const char history_json[] =
	",\n  \"history\": {\n    \"when\": \"releases\",\n"
	"    \"snapshots\": [\n"
	"      {\"name\": \"v1.0\", \"date\": \"2010-02-24T18:52:17Z\", "
	"\"commit\": \"ab00000000000000000000000000000000000000\", "
	"\"release\": \"v1.0\", \"rev\": false, \"branch\": false, \"lines\": 6, "
	"\"releases\": {\"v1.0\": 6}},\n"
	"      {\"name\": \"HEAD,x\", \"date\": \"2010-03-31T01:46:40Z\", "
	"\"commit\": \"cd00000000000000000000000000000000000000\", "
	"\"release\": null, \"rev\": true, \"branch\": false, \"lines\": 7, "
	"\"releases\": {\"v1.0\": 2, \"v1,1\": 4, \"\": 1}}\n"
	"    ],\n    \"survival\": [\n"
	"      {\"release\": \"v1.0\", \"snapshot\": \"v1.0\", \"lines\": 6, "
	"\"half_life_days\": 404.6}\n    ],\n"
	"    \"without_snapshot\": []\n  }\n}\n";

static int write_into(const char *base, const char *sub,
		      const struct tally *t, const struct report_info *in)
{
	char dir[4096];
	int rc;

	snprintf(dir, sizeof(dir), "%s/%s", base, sub);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		CHECK(0, "unable to create '%s'", dir);
		return -1;
	}
	error_clear();
	rc = data_write(dir, t, in);
	CHECK(rc == 0, "data_write into '%s': %d %s", dir, rc, error_last());
	return rc;
}

/* Nothing but the five files: no temporary file left behind. */
static void check_listing(const char *base, const char *sub)
{
	static const char *const names[] = {
		"files.csv", "releases.csv", "report.json",
		"subsystems.csv", "untouched.csv",
	};
	char dir[4096];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", base, sub);
	d = opendir(dir);
	if (!d) {
		CHECK(0, "unable to list '%s'", dir);
		return;
	}
	while ((e = readdir(d))) {
		int known = 0;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (size_t i = 0; i < 5; i++)
			known |= !strcmp(e->d_name, names[i]);
		CHECK(known, "unexpected file '%s' in '%s'", e->d_name, dir);
		n++;
	}
	closedir(d);
	CHECK(n == 5, "%zu files in '%s', want 5", n, dir);
}

int main(int argc, char **argv)
{
	char dir[4096], *json, *a, *b;
	size_t la, lb;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: data_test DIR\n");
		return 2;
	}

	/* a, b: reproducible; the same input gives the same bytes */
	/* main sets `reproducible` when SOURCE_DATE_EPOCH is set */
	info.reproducible = 1;
	if (!write_into(argv[1], "a", &tally, &info)) {
		snprintf(dir, sizeof(dir), "%s/a", argv[1]);
		expect_file(dir, "files.csv", files_csv);
		expect_file(dir, "releases.csv", releases_csv);
		expect_file(dir, "subsystems.csv", subsystems_csv);
		expect_file(dir, "untouched.csv", untouched_csv);
		json = malloc(sizeof(report_json) + 8);
		snprintf(json, sizeof(report_json) + 8, "%s\n}\n",
			 report_json);
		expect_file(dir, "report.json", json);
		free(json);
		check_listing(argv[1], "a");
	}
	/* written twice, over the first files */
	write_into(argv[1], "b", &tally, &info);
	write_into(argv[1], "b", &tally, &info);
	check_listing(argv[1], "b");
	{
		static const char *const names[] = {
			"files.csv", "releases.csv", "report.json",
			"subsystems.csv", "untouched.csv",
		};
		char pa[4096], pb[4096];

		for (size_t i = 0; i < 5; i++) {
			snprintf(pa, sizeof(pa), "%s/a/%s", argv[1], names[i]);
			snprintf(pb, sizeof(pb), "%s/b/%s", argv[1], names[i]);
			a = slurp(pa, &la);
			b = slurp(pb, &lb);
			CHECK(a && b && la == lb && !memcmp(a, b, la),
			      "'%s' and '%s' differ", pa, pb);
			free(a);
			free(b);
		}
	}

	/* c: a normal run keeps the timings, last, under "run" */
	info.reproducible = 0;
	if (!write_into(argv[1], "c", &tally, &info)) {
		size_t n = sizeof(report_json) - 1 + sizeof(run_json);

		snprintf(dir, sizeof(dir), "%s/c", argv[1]);
		json = malloc(n);
		snprintf(json, n, "%s%s", report_json, run_json);
		expect_file(dir, "report.json", json);
		free(json);
		expect_file(dir, "files.csv", files_csv);
	}

	/* e: the history's files, and report.json's "history" */
	info.reproducible = 1;
	tally.history = &history;
	if (!write_into(argv[1], "e", &tally, &info)) {
		snprintf(dir, sizeof(dir), "%s/e", argv[1]);
		expect_file(dir, "history.csv", history_csv);
		expect_file(dir, "history-subsystems.csv",
			    history_subsystems_csv);
		expect_file(dir, "survival.csv", survival_csv);
		snprintf(dir, sizeof(dir), "%s/e/report.json", argv[1]);
		a = slurp(dir, &la);
		CHECK(a && la > strlen(history_json) &&
		      !strcmp(a + la - strlen(history_json), history_json),
		      "report.json's history: %s", a ? a : "(none)");
		free(a);
	}
	tally.history = NULL;

	/* d: rounding half up, no files, default --tags, a --group */
	info.reproducible = 1;
	info.tags_ere = NULL;
	info.group_ere = "([0-9.]+[a-z]?).*";
	if (!write_into(argv[1], "d", &tally2, &info)) {
		snprintf(dir, sizeof(dir), "%s/d", argv[1]);
		expect_file(dir, "releases.csv", releases2_csv);
		expect_file(dir, "files.csv", "path,release,lines" EOL);
		expect_file(dir, "untouched.csv", "path,lines" EOL);
		expect_file(dir, "subsystems.csv",
			    "subsystem,release,lines" EOL);
		snprintf(dir, sizeof(dir), "%s/d/report.json", argv[1]);
		a = slurp(dir, &la);
		CHECK(a && strstr(a, "\"files\": [],\n"), "empty files array");
		CHECK(a && strstr(a, "\"untouched\": [],\n  \"history\": null\n}\n"),
		      "empty untouched array, then no history");
		CHECK(a && strstr(a, "\"group\": \"([0-9.]+[a-z]?).*\""),
		      "group in report.json");
		/* the default expression is spelled out */
		CHECK(a && strstr(a, "\"tags\": \"([A-Za-z]"),
		      "default --tags in report.json");
		CHECK(a && strstr(a, "\"share\": 3.13,") &&
		      strstr(a, "\"share\": 96.88,") &&
		      strstr(a, "\"first_share\": 3.13,"),
		      "rounding in report.json");
		free(a);
	}

	/* a directory that does not exist: an error, nothing written */
	snprintf(dir, sizeof(dir), "%s/missing/dir", argv[1]);
	error_clear();
	rc = data_write(dir, &tally, &info);
	CHECK(rc == STRATA_ERR, "data_write into a missing dir: %d", rc);
	CHECK(!strncmp(error_last(), "unable to create '", 18) &&
	      strstr(error_last(), "/missing/dir/.files.csv.tmp': "),
	      "message: '%s'", error_last());

	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
