/*
 * options: the command line, from one table (include/strata/options.h).
 *
 * Modelled on git's parse-options and curl's option table: a row says
 * everything about an option, and the parser, the help texts, the man
 * page's OPTIONS section and the checks for options that would do
 * nothing all read the rows.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/chart.h"
#include "strata/cohorts.h"
#include "strata/error.h"
#include "strata/history.h"
#include "strata/options.h"
#include "strata/releases.h"
#include "strata/repository.h"
#include "strata/snapshots.h"

#define FOR(c) OPTIONS_FOR(OPTIONS_##c)
#define AT(field) offsetof(struct options, field)
#define BY(v) (1u << OPTIONS_BY_##v)

static const struct options_value by_values[] = {
	{ "release", OPTIONS_BY_RELEASE }, { "year", OPTIONS_BY_YEAR },
	{ "author", OPTIONS_BY_AUTHOR }, { "org", OPTIONS_BY_ORG },
	{ NULL, 0 }
};

static const struct options_value date_values[] = {
	{ "committer", COHORTS_COMMITTER }, { "author", COHORTS_AUTHOR },
	{ NULL, 0 }
};

static const struct options_value scope_values[] = {
	{ "dated", RELEASES_DATED }, { "merged", RELEASES_MERGED },
	{ NULL, 0 }
};

static const struct options_value history_values[] = {
	{ "releases", SNAPSHOTS_RELEASES }, { "year", SNAPSHOTS_YEAR },
	{ "quarter", SNAPSHOTS_QUARTER }, { "month", SNAPSHOTS_MONTH },
	{ "none", SNAPSHOTS_NONE }, { NULL, 0 }
};

static const struct options_value theme_values[] = {
	{ "light", 0 }, { "dark", 1 }, { NULL, 0 }
};

/*
 * Where an option would do nothing (docs/usage.md, "Options that would
 * do nothing"). The table of --by release shows neither years, authors
 * nor organisations; the others show no directories and no release
 * unless --history adds its matrix; a report without authors has no
 * organisations.
 */
static const struct options_conflict release_only[] = {
	{ FOR(TABLE), "--by", BY(YEAR) | BY(AUTHOR) | BY(ORG), "--history" },
	{ 0, NULL, 0, NULL }
};

static const struct options_conflict depth_conflicts[] = {
	{ FOR(TABLE), "--by", BY(YEAR) | BY(AUTHOR) | BY(ORG), NULL },
	{ 0, NULL, 0, NULL }
};

static const struct options_conflict date_conflicts[] = {
	{ FOR(TABLE), "--by", BY(RELEASE) | BY(AUTHOR) | BY(ORG), NULL },
	{ 0, NULL, 0, NULL }
};

static const struct options_conflict org_map_conflicts[] = {
	{ FOR(TABLE), "--by", BY(RELEASE) | BY(YEAR) | BY(AUTHOR), NULL },
	{ FOR(REPORT), "--no-authors", 0, NULL },
	{ 0, NULL, 0, NULL }
};

/* The cycle is table's with --cycle, report's unless --no-cycle. */
static const struct options_conflict since_conflicts[] = {
	{ FOR(TABLE), "--by", BY(RELEASE) | BY(YEAR) | BY(AUTHOR) | BY(ORG),
	  "--cycle" },
	{ FOR(REPORT), "--no-cycle", 0, NULL },
	{ 0, NULL, 0, NULL }
};

const struct options_spec options_table[] = {
	/* ---- every command ---- */
	{ .name = "--rev", .cmds = OPTIONS_ALL, .kind = OPTIONS_STRING,
	  .offset = AT(rev), .arg = "REV",
	  .help = "revision to examine (default: HEAD)\n",
	  .man = "The revision to examine (default:\n"
		 ".BR HEAD ).\n" },
	{ .name = "--first-parent", .cmds = OPTIONS_ALL, .kind = OPTIONS_FLAG,
	  .offset = AT(first_parent),
	  .help = "follow only first parents (git blame\n"
		  "--first-parent)\n",
	  .man = "Follow only first parents, as\n"
		 ".BR \"git blame \\-\\-first\\-parent\" .\n" },
	{ .short_name = 'w', .cmds = OPTIONS_ALL, .kind = OPTIONS_FLAG,
	  .offset = AT(ignore_ws),
	  .help = "ignore whitespace when comparing lines\n",
	  .man = "Ignore whitespace when comparing lines.\n" },
	{ .name = "--ignore-rev", .cmds = OPTIONS_ALL, .kind = OPTIONS_LIST,
	  .offset = AT(ignore_revs), .arg = "REV",
	  .help = "blame lines changed by REV on earlier commits\n"
		  "(repeatable)\n",
	  .man = "Blame the lines that\n"
		 ".I REV\n"
		 "changed on the commits before it (repeatable).\n" },
	{ .name = "--ignore-revs-file", .cmds = OPTIONS_ALL,
	  .kind = OPTIONS_LIST, .offset = AT(ignore_files), .arg = "FILE",
	  .help = "the same for every commit listed in FILE;\n"
		  "blame.ignoreRevsFile is read as git does\n",
	  .man = "The same for every commit listed in\n"
		 ".I FILE\n"
		 "(repeatable; an empty name clears the list).\n"
		 ".B blame.ignoreRevsFile\n"
		 "is read as git reads it.\n"
		 ".I FILE\n"
		 "must be a regular file of at most 64 MiB.\n" },
	{ .name = "--include", .cmds = OPTIONS_ALL, .kind = OPTIONS_LIST,
	  .offset = AT(include), .arg = "GLOB",
	  .help = "keep only matching files (repeatable)\n",
	  .man = "Keep only the files that match (repeatable); see\n"
		 ".BR GLOBS .\n" },
	{ .name = "--exclude", .cmds = OPTIONS_ALL, .kind = OPTIONS_LIST,
	  .offset = AT(exclude), .arg = "GLOB",
	  .help = "leave matching files out (repeatable)\n",
	  .man = "Leave the files that match out (repeatable).\n" },
	{ .name = "--skip-vendored", .cmds = OPTIONS_ALL,
	  .kind = OPTIONS_FLAG, .offset = AT(skip_vendored),
	  .help = "leave out files that REV's .gitattributes\n"
		  "mark linguist-vendored or linguist-generated\n"
		  "(the default of table and report)\n",
	  .man = "Leave out the files that the\n"
		 ".I .gitattributes\n"
		 "files of\n"
		 ".IR REV 's\n"
		 "tree mark\n"
		 ".B linguist\\-vendored\n"
		 "or\n"
		 ".B linguist\\-generated\n"
		 "(set, or given any value but\n"
		 ".BR false ),\n"
		 "as GitHub's language statistics do. The default of\n"
		 ".B table\n"
		 "and\n"
		 ".BR report ;\n"
		 ".B blame\n"
		 "prints every file unless it is given. See\n"
		 ".BR ATTRIBUTES .\n" },
	{ .name = "--jobs", .cmds = OPTIONS_ALL, .kind = OPTIONS_INT,
	  .offset = AT(jobs), .arg = "N", .min = 1, .max = 64,
	  .help = "threads (default: all cores)\n",
	  .man = "Threads, 1 to 64 (default: every core).\n"
		 "Memory grows with it.\n" },
	{ .name = "--quiet", .short_name = 'q', .cmds = OPTIONS_ALL,
	  .kind = OPTIONS_FLAG, .offset = AT(quiet),
	  .help = "no progress bar\n",
	  .man = "No progress bar (there is none when standard error is not "
		 "a terminal).\n" },
	{ .name = "--verbose", .cmds = OPTIONS_ALL, .kind = OPTIONS_FLAG,
	  .offset = AT(verbose),
	  .help = "print what the engine did, each stage's time and memory\n",
	  .man = "Print what the engine did, and each stage's wall time, CPU "
		 "time and\nthe process's peak memory so far when it ended, "
		 "on standard error.\n" },

	/* ---- blame ---- */
	{ .short_name = 'z', .cmds = FOR(BLAME), .kind = OPTIONS_FLAG,
	  .offset = AT(nul),
	  .help = "end each run with NUL, paths unquoted\n",
	  .man = "End each run with a NUL byte rather than a newline, and "
		 "print paths as\nthey are, unquoted.\n" },

	/* ---- table and report ---- */
	{ .name = "--tags", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_STRING, .offset = AT(tags), .arg = "ERE",
	  .conflicts = release_only,
	  .help = "tags that mark releases (POSIX extended\n"
		  "regular expression, whole tag name)\n",
	  .man = "The tags that mark releases: a POSIX extended regular "
		 "expression that\nmust match the whole tag name.\n"
		 "The default takes version-like tags such as\n"
		 ".BR v1.2 ,\n"
		 ".BR 2.6.33\\-rc1 \" or \" jq\\-1.5 .\n" },
	{ .name = "--group", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_STRING, .offset = AT(group), .arg = "ERE",
	  .conflicts = release_only,
	  .help = "its first subexpression names the release\n"
		  "of a matching tag\n",
	  .man = "Its first subexpression names the release of a matching "
		 "tag, so that\nseveral tags make one release (default: a "
		 "tag's name without its\npre-release suffix).\n" },
	{ .name = "--title", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_STRING, .offset = AT(title), .arg = "TEXT",
	  .min = 1, .max = REPOSITORY_NAME_MAX,
	  .help = "the project's name (default: from\n"
		  "remote.origin.url, else the directory)\n",
	  .man = "The project's name on the pages, in\n"
		 ".B report.json\n"
		 "and in the table, 1 to 200 bytes (default: the last path "
		 "component of\n"
		 ".B remote.origin.url\n"
		 "without\n"
		 ".BR .git ,\n"
		 "else the directory's name; a bare\n"
		 ".I NAME\\c\n"
		 ".B .git\n"
		 "gives\n"
		 ".IR NAME ).\n" },
	{ .name = "--tag-scope", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_ENUM, .offset = AT(tag_scope), .arg = "SCOPE",
	  .values = scope_values, .conflicts = release_only,
	  .help = "the tags that count: those REV contains\n"
		  "and every other dated no later than REV\n"
		  "(dated, the default), or only those REV\n"
		  "contains (merged)\n",
	  .man = "The tags that count:\n"
		 ".B dated\n"
		 "(the default) takes the tags that\n"
		 ".I REV\n"
		 "contains and every other matching tag dated no later than\n"
		 ".IR REV 's\n"
		 "commit, so that a commit belongs to the release that first "
		 "shipped it,\neven from a release branch never merged back;\n"
		 ".B merged\n"
		 "takes only the tags that\n"
		 ".I REV\n"
		 "contains.\n" },
	{ .name = "--depth", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_INT, .offset = AT(depth), .arg = "N",
	  .min = 1, .max = 64, .conflicts = depth_conflicts,
	  .help = "directory levels tallied (default: 1)\n",
	  .man = "Directory levels tallied, and given pages by\n"
		 ".BR report ,\n"
		 "1 to 64 (default: 1, the top-level directories).\n" },
	{ .name = "--history", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_ENUM, .offset = AT(history), .arg = "WHEN",
	  .values = history_values,
	  .help = "snapshots for the history: releases, year,\n"
		  "quarter, month or none (report: releases;\n"
		  "table: none; with it the table shows them)\n",
	  .man = "The snapshots of the history: each line of every text file "
		 "attributed\nat each release's standing tag\n"
		 ".RB ( releases ),\n"
		 "or at the last commit before each calendar\n"
		 ".BR year ,\n"
		 ".B quarter\n"
		 "or\n"
		 ".B month\n"
		 "(UTC), then at REV, in the same pass over the history;\n"
		 ".B none\n"
		 "for no history. Default:\n"
		 ".B releases\n"
		 "for\n"
		 ".BR report ,\n"
		 ".B none\n"
		 "for\n"
		 ".BR table ,\n"
		 "which with another value prints the matrix of snapshots by "
		 "release and\neach release's half-life.\n" },
	{ .name = "--date", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_ENUM, .offset = AT(date), .values = date_values,
	  .conflicts = date_conflicts,
	  .help = "the date that puts a commit in a year\n"
		  "(default: committer)\n",
	  .man = "The date that puts a commit in a calendar year (UTC) for "
		 "the years view:\nthe committer's (when the code entered "
		 "the history, the default) or the\nauthor's.\n" },
	{ .name = "--org-map", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_STRING, .offset = AT(org_map), .arg = "FILE",
	  .conflicts = org_map_conflicts,
	  .help = "organisations of email addresses and\n"
		  "domains, in gitdm's format (default: the\n"
		  "email's domain)\n",
	  .man = "Organisations of email addresses and domains, one\n"
		 ".RI \\(dq ADDRESS-OR-DOMAIN \" \" ORGANISATION \\(dq\n"
		 "a line in gitdm's format, optionally ending in\n"
		 ".RI \"< \" YYYY-MM-DD\n"
		 "(the affiliation ends that day);\n"
		 ".B #\n"
		 "starts a comment. The most specific entry wins (the "
		 "address, its\ndomain, then each parent domain). Without a "
		 "map, or without a matching\nentry, an author's organisation "
		 "is the domain of the email. A line that\nis not an entry "
		 "is an error naming the file and line, before any work.\n"
		 "See docs/cohorts.md.\n" },

	{ .name = "--no-skip-vendored", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_UNSET, .offset = AT(skip_vendored),
	  .help = "count the vendored and generated files too\n",
	  .man = "Count the files marked\n"
		 ".B linguist\\-vendored\n"
		 "or\n"
		 ".B linguist\\-generated\n"
		 "too (of\n"
		 ".B \\-\\-skip\\-vendored\n"
		 "and this, the last given wins).\n" },
	{ .name = "--since", .cmds = FOR(TABLE) | FOR(REPORT),
	  .kind = OPTIONS_STRING, .offset = AT(since), .arg = "REV0",
	  .conflicts = since_conflicts,
	  .help = "the release cycle starts at REV0, a commit\n"
		  "REV contains (default: the standing tag of\n"
		  "the release before REV's)\n",
	  .man = "Where the release cycle of the cycle page and of\n"
		 ".B table \\-\\-cycle\n"
		 "starts: any revision that REV contains (default: the "
		 "standing tag of the\nrelease before REV's, or of the newest "
		 "release when REV is past it).\nSee docs/cycle.md.\n" },

	/* ---- table ---- */
	{ .name = "--by", .cmds = FOR(TABLE), .kind = OPTIONS_ENUM,
	  .offset = AT(by), .values = by_values,
	  .help = "the cohort of the table (default:\n"
		  "release)\n",
	  .man = "The cohort of the table (default:\n"
		 ".BR release ):\n"
		 "lines, share and commits per calendar year, per author "
		 "(the name after\nREV's\n"
		 ".IR .mailmap ,\n"
		 "as\n"
		 ".B git shortlog\n"
		 "names authors) or per organisation.\n" },
	{ .name = "--cycle", .cmds = FOR(TABLE), .kind = OPTIONS_FLAG,
	  .offset = AT(cycle),
	  .help = "also print the release cycle: changesets,\n"
		  "lines, credits and the code it replaced\n",
	  .man = "Also print the release cycle that ends at REV (see\n"
		 ".BR \\-\\-since ):\n"
		 "changesets and lines per developer and organisation, "
		 "review and test\ncredits, and the lines of REV0 it "
		 "replaced by release, year and author.\n" },

	/* ---- report ---- */
	{ .name = "--out", .cmds = FOR(REPORT), .kind = OPTIONS_STRING,
	  .offset = AT(out), .arg = "DIR",
	  .help = "where to publish (default: output)\n",
	  .man = "Where to publish (default:\n"
		 ".IR output ).\n" },
	{ .name = "--force", .cmds = FOR(REPORT), .kind = OPTIONS_FLAG,
	  .offset = AT(force),
	  .help = "write into a non-empty DIR not made by strata\n",
	  .man = "Publish into a non-empty\n"
		 ".I DIR\n"
		 "that strata did not create.\n" },
	{ .name = "--templates", .cmds = FOR(REPORT), .kind = OPTIONS_STRING,
	  .offset = AT(templates), .arg = "DIR",
	  .help = "use these templates instead of the built-in\n",
	  .man = "Use the ctemplate templates in\n"
		 ".I DIR\n"
		 "instead of the installed ones.\n" },
	{ .name = "--chart-width", .cmds = FOR(REPORT), .kind = OPTIONS_INT,
	  .offset = AT(chart_width), .arg = "N", .min = CHART_MIN_WIDTH,
	  .max = CHART_MAX_WIDTH,
	  .help = "chart width in CSS pixels (default: 720)\n",
	  .man = "Chart width in CSS pixels, 320 to 2000 (default: 720).\n" },
	{ .name = "--chart-height", .cmds = FOR(REPORT), .kind = OPTIONS_INT,
	  .offset = AT(chart_height), .arg = "N", .min = CHART_MIN_HEIGHT,
	  .max = CHART_MAX_HEIGHT,
	  .help = "chart height in CSS pixels (default: 480)\n",
	  .man = "Chart height in CSS pixels, 240 to 2000 (default: 480).\n" },
	{ .name = "--theme", .cmds = FOR(REPORT), .kind = OPTIONS_ENUM,
	  .offset = AT(dark), .values = theme_values,
	  .help = "chart colours (default: light)\n",
	  .man = "Chart colours (default: light).\n" },
	{ .name = "--no-authors", .cmds = FOR(REPORT), .kind = OPTIONS_FLAG,
	  .offset = AT(no_authors),
	  .help = "leave out the views of authors and\n"
		  "organisations\n",
	  .man = "Leave out every view of authors and organisations: no\n"
		 ".IR authors.html ,\n"
		 "no charts\n"
		 ".I img/authors.*\n"
		 "or\n"
		 ".IR img/orgs.* ,\n"
		 "no\n"
		 ".I authors.csv\n"
		 "or\n"
		 ".I orgs.csv\n"
		 "(some projects publish no rankings of people).\n" },
	{ .name = "--no-cycle", .cmds = FOR(REPORT), .kind = OPTIONS_FLAG,
	  .offset = AT(no_cycle),
	  .help = "leave out the release cycle's page\n",
	  .man = "Leave out the release cycle: no\n"
		 ".IR cycle.html ,\n"
		 "no\n"
		 ".I data/cycle-*.csv\n"
		 "and no REV0 snapshot in the pass over the history.\n" },
};

const size_t options_count = sizeof(options_table) / sizeof(*options_table);

/* struct options' `given` has a bit a row. */
_Static_assert(sizeof(options_table) / sizeof(*options_table) <= 64,
	       "more options than bits in options.given");

/* ---- defaults and lookup ---- */

static const char *const cmd_names[] = { "blame", "table", "report" };

int options_command(enum options_cmd *out, const char *name)
{
	for (size_t i = 0; i < sizeof(cmd_names) / sizeof(*cmd_names); i++) {
		if (!strcmp(name, cmd_names[i])) {
			*out = (enum options_cmd)i;
			return 0;
		}
	}
	return error_setc(STRATA_EUSAGE, "'%s' is not a strata command (see "
			  "'strata --help')", name);
}

int options_wants_help(int argc, char **argv)
{
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

static void options_defaults(struct options *o, enum options_cmd cmd)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->cmd_name = cmd_names[cmd];
	o->rev = "HEAD";
	o->depth = 1;
	o->jobs = cores > 0 ? (cores > 64 ? 64 : cores) : 1;
	o->out = "output";
	o->chart_width = 720;
	o->chart_height = 480;
	o->generated = -1;
	/* As GitHub's language statistics: blame prints every file. */
	o->skip_vendored = cmd != OPTIONS_BLAME;
	o->history = cmd == OPTIONS_REPORT ? SNAPSHOTS_RELEASES
					   : SNAPSHOTS_NONE;
}

/* The row named `name` ("--by", "-q"), or NULL. */
static const struct options_spec *spec_find(const char *name, size_t len,
					    size_t *index)
{
	for (size_t i = 0; i < options_count; i++) {
		const struct options_spec *s = &options_table[i];
		int hit = s->name ? strlen(s->name) == len &&
				    !strncmp(name, s->name, len) : 0;

		if (!hit && s->short_name)
			hit = len == 2 && name[0] == '-' &&
			      name[1] == s->short_name;
		if (hit) {
			if (index)
				*index = i;
			return s;
		}
	}
	return NULL;
}

static void *field(struct options *o, const struct options_spec *s)
{
	return (char *)o + s->offset;
}

static int field_int(const struct options *o, const struct options_spec *s)
{
	return *(const int *)(const void *)((const char *)o + s->offset);
}

/* An option that takes no value. */
static int is_flag(const struct options_spec *s)
{
	return s->kind == OPTIONS_FLAG || s->kind == OPTIONS_UNSET;
}

/* "--by" or "-w", for messages. */
static const char *spec_name(const struct options_spec *s, char *buf)
{
	if (s->name)
		return s->name;
	buf[0] = '-';
	buf[1] = s->short_name;
	buf[2] = '\0';
	return buf;
}

/* ---- values ---- */

static int parse_long(long *out, const char *opt, const char *val, long min,
		      long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno || !*val || *end || v < min || v > max)
		return error_setc(STRATA_EUSAGE,
				  "invalid value '%s' for '%s': expected an "
				  "integer from %ld to %ld", val, opt, min, max);
	*out = v;
	return 0;
}

/* "release, year, author or org" */
static void values_list(FILE *f, const struct options_value *v,
			const char *sep, const char *last)
{
	for (size_t i = 0; v[i].name; i++)
		fprintf(f, "%s%s", i == 0 ? "" : v[i + 1].name ? sep : last,
			v[i].name);
}

static int parse_enum(int *out, const struct options_spec *s, const char *v)
{
	char *words = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	for (size_t i = 0; s->values[i].name; i++) {
		if (!strcmp(v, s->values[i].name)) {
			*out = s->values[i].value;
			return 0;
		}
	}
	if (!(f = open_memstream(&words, &len)))
		return error_oom();
	values_list(f, s->values, ", ", " or ");
	if (fclose(f))
		return error_oom();
	rc = error_setc(STRATA_EUSAGE, "invalid value '%s' for '%s': "
			"expected %s", v, s->name, words);
	free(words);
	return rc;
}

/* Store the value `v` of option `s`, checked. */
static int spec_set(struct options *o, const struct options_spec *s,
		    const char *v)
{
	switch (s->kind) {
	case OPTIONS_FLAG:
	case OPTIONS_UNSET:
		*(int *)field(o, s) = s->kind == OPTIONS_FLAG;
		return 0;
	case OPTIONS_INT:
		return parse_long(field(o, s), s->name, v, s->min, s->max);
	case OPTIONS_STRING:
		if (s->max && (strlen(v) < (size_t)s->min ||
			       strlen(v) > (size_t)s->max))
			return error_setc(STRATA_EUSAGE, "invalid value for "
					  "'%s': expected %ld to %ld bytes",
					  s->name, s->min, s->max);
		*(const char **)field(o, s) = v;
		return 0;
	case OPTIONS_LIST:
		return util_strlist_push(field(o, s), v);
	case OPTIONS_ENUM:
		return parse_enum(field(o, s), s, v);
	}
	return 0;
}

/* ---- the command line ---- */

/*
 * argv[*i], an option: its row's value stored. A value comes as
 * "--opt VALUE" or "--opt=VALUE"; a flag takes none.
 */
static int parse_option(struct options *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a), index;
	const struct options_spec *s = spec_find(a, len, &index);

	if (s && !(s->cmds & OPTIONS_FOR(o->cmd)))
		return error_setc(STRATA_EUSAGE, "option '%.*s' does not "
				  "apply to 'strata %s' (see 'strata %s "
				  "--help')", (int)len, a, o->cmd_name,
				  o->cmd_name);
	if (!s || (is_flag(s) && eq))
		return error_setc(STRATA_EUSAGE, "unknown option '%s' (see "
				  "'strata %s --help')", a, o->cmd_name);
	o->given |= (uint64_t)1 << index;
	if (is_flag(s))
		return spec_set(o, s, NULL);
	if (eq)
		return spec_set(o, s, eq + 1);
	if (*i + 1 >= argc)
		return error_setc(STRATA_EUSAGE, "option '%s' requires a value",
				  a);
	return spec_set(o, s, argv[++*i]);
}

/* The value's name, for a message: "author" for --by author. */
static const char *value_name(const struct options_spec *s, int v)
{
	for (size_t i = 0; s->values && s->values[i].name; i++)
		if (s->values[i].value == v)
			return s->values[i].name;
	return "";
}

/* Whether option `with` holds one of `values` (a flag: is set). */
static int holds(const struct options *o, const struct options_spec *w,
		 unsigned values)
{
	int v = field_int(o, w);

	if (w->kind == OPTIONS_FLAG)
		return v != 0;
	return v >= 0 && v < 32 && (values & (1u << v));
}

/* An option given where it would do nothing is a usage error. */
static int check_conflicts(const struct options *o)
{
	struct options def;
	char buf[3];

	options_defaults(&def, o->cmd);
	for (size_t i = 0; i < options_count; i++) {
		const struct options_spec *s = &options_table[i];
		const struct options_conflict *c;

		if (!(o->given & ((uint64_t)1 << i)) || !s->conflicts)
			continue;
		for (c = s->conflicts; c->with; c++) {
			const struct options_spec *w, *u = NULL;

			w = spec_find(c->with, strlen(c->with), NULL);
			if (c->unless)
				u = spec_find(c->unless, strlen(c->unless),
					      NULL);
			if (!(c->cmds & OPTIONS_FOR(o->cmd)) ||
			    !holds(o, w, c->values) ||
			    (u && field_int(o, u) != field_int(&def, u)))
				continue;
			return error_setc(STRATA_EUSAGE, "%s has no effect "
					  "with %s%s%s%s%s",
					  spec_name(s, buf), w->name,
					  w->kind == OPTIONS_ENUM ? " " : "",
					  value_name(w, field_int(o, w)),
					  u ? " without " : "",
					  u ? u->name : "");
		}
	}
	return 0;
}

int options_parse(struct options *o, enum options_cmd cmd, int argc,
		  char **argv)
{
	int i, rc;

	options_defaults(o, cmd);
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		rc = 0;
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				if ((rc = util_strlist_push(&o->paths,
							    argv[i])) < 0)
					return rc;
			break;
		}
		if (a[0] == '-' && a[1])
			rc = parse_option(o, argc, argv, &i);
		else if (!o->repo)
			o->repo = a;
		else
			rc = error_setc(STRATA_EUSAGE, "unexpected argument "
					"'%s' (paths go after '--')", a);
		if (rc < 0)
			return rc;
	}
	if (!o->repo)
		o->repo = ".";
	if (o->paths.n && o->cmd != OPTIONS_BLAME)
		return error_setc(STRATA_EUSAGE,
				  "paths after '--' are only taken by 'strata "
				  "blame'; use --include for a tally");
	return 0;
}

/*
 * SOURCE_DATE_EPOCH, for report: decimal seconds since 1970-01-01 UTC up
 * to the end of year 9999 (dates are printed with four digits), or -1
 * when unset or empty.
 */
static int source_date(int64_t *out)
{
	const char *v = getenv("SOURCE_DATE_EPOCH"), *p;
	int64_t n = 0;

	*out = -1;
	if (!v || !*v)
		return 0;
	for (p = v; *p >= '0' && *p <= '9' && n <= HISTORY_DATE_MAX; p++)
		n = n * 10 + (*p - '0');
	if (*p || n > HISTORY_DATE_MAX)
		return error_setc(STRATA_EUSAGE, "invalid value '%s' for "
				  "SOURCE_DATE_EPOCH: expected seconds since "
				  "1970-01-01 00:00 UTC, from 0 to %lld", v,
				  (long long)HISTORY_DATE_MAX);
	*out = n;
	return 0;
}

/*
 * Every value checked before any work, the same way whatever the
 * command: the globs, the expressions, SOURCE_DATE_EPOCH and the org
 * map (numbers and words are checked as they are parsed); then whether
 * an option would do nothing. Values come first so that a bad value is
 * named as such, whatever else the command line holds.
 */
int options_check(struct options *o)
{
	struct releases_options ro = {o->tags, o->group,
				      (enum releases_scope)o->tag_scope};
	size_t i;
	int rc;

	for (i = 0; i < o->include.n; i++)
		if ((rc = filter_glob_check(o->include.v[i], "--include")) < 0)
			return rc;
	for (i = 0; i < o->exclude.n; i++)
		if ((rc = filter_glob_check(o->exclude.v[i], "--exclude")) < 0)
			return rc;
	if (o->cmd != OPTIONS_BLAME && (rc = releases_check_options(&ro)) < 0)
		return rc;
	if (o->cmd == OPTIONS_REPORT && (rc = source_date(&o->generated)) < 0)
		return rc;
	/* A bad line of the map is bad input: exit 1, before the engine. */
	if (o->org_map && (rc = orgmap_load(&o->orgmap, o->org_map)) < 0)
		return rc;
	o->filter.include = (const char *const *)o->include.v;
	o->filter.ninclude = o->include.n;
	o->filter.exclude = (const char *const *)o->exclude.v;
	o->filter.nexclude = o->exclude.n;
	return check_conflicts(o);
}

void options_release(struct options *o)
{
	util_strlist_release(&o->ignore_revs);
	util_strlist_release(&o->ignore_files);
	util_strlist_release(&o->include);
	util_strlist_release(&o->exclude);
	util_strlist_release(&o->paths);
	orgmap_free(o->orgmap);
	o->orgmap = NULL;
}

/* ---- help ---- */

static const char help_intro[] =
	"usage: strata <command> [REPO] [options] [-- PATH...]\n"
	"\n"
	"Which release wrote the code at a revision? strata blames every line\n"
	"of every text file exactly as 'git blame' does, maps each commit to\n"
	"the release that first shipped it, and tallies or publishes it.\n"
	"\n"
	"commands:\n"
	"  blame    print the commit of every line, as runs:\n"
	"           COMMIT<TAB>START<TAB>COUNT<TAB>PATH\n"
	"  table    print lines per release, old code per directory and\n"
	"           untouched files in the terminal\n"
	"  report   publish data, charts and a static site into a directory\n"
	"\n"
	"REPO is a work tree (or a directory in one), a .git directory or a\n"
	"bare repository (default: the current directory).\n";

static const char help_outro[] =
	"\n"
	"An option given to a command it does not apply to, or where it\n"
	"would have no effect, is an error.\n"
	"Exit status: 0 success, 1 failure, 2 usage error.\n"
	"\n"
	"environment: SOURCE_DATE_EPOCH dates the report; strata adds\n"
	"glibc.malloc.hugetlb=1 to GLIBC_TUNABLES unless it is set there\n"
	"(huge pages for the heap; see strata(1))\n"
	"\n"
	"  strata --help, strata COMMAND --help, strata --version\n"
	"The manual: man strata, and docs/ (start with docs/README.md).\n";

static const char *const help_cmd[] = {
	"usage: strata blame [REPO] [--rev REV] [options] [-- PATH...]\n"
	"\n"
	"Prints, for every text file at REV (or those under the PATHs), the\n"
	"maximal runs of consecutive lines that git blame gives to one commit:\n"
	"  COMMIT<TAB>START<TAB>COUNT<TAB>PATH\n"
	"sorted by path (bytewise), then by START (1-based). A text file is a\n"
	"regular, non-empty file with no NUL byte in its first 8000 bytes.\n"
	"A path is quoted as git quotes it (core.quotePath); with -z, runs\n"
	"end with NUL instead of a newline and paths are printed as they are.\n",

	"usage: strata table [REPO] [--rev REV] [options]\n"
	"\n"
	"Prints the lines and share of the code at REV written in each\n"
	"release, the share of first-release code in each directory down to\n"
	"--depth levels and how many files are untouched since the first\n"
	"release. Under its first line it says which tags count and what\n"
	"--include, --exclude and --skip-vendored (on by default) left out.\n"
	"\n"
	"With --by year, author or org, the table gives the lines, share and\n"
	"commits of each calendar year, author (after .mailmap) or\n"
	"organisation instead of each release; authors and organisations\n"
	"with their share of the commits, authors with their files too.\n",

	"usage: strata report [REPO] [--rev REV] [--out DIR] [options]\n"
	"\n"
	"Publishes a report into DIR (default: output): data/ (CSV and JSON),\n"
	"img/ (charts in SVG and PNG) and a static HTML site. The site is\n"
	"built beside DIR and swapped in whole; strata refuses a non-empty DIR\n"
	"that it did not create unless --force is given, and deletes only the\n"
	"files its DIR/.strata-report proves it wrote. The charts and pages\n"
	"are drawn by strata-publish.so, found beside the binary or in\n"
	"../lib/strata/ from it.\n",
};

/* "every command", "table and report" */
static void cmds_name(FILE *f, unsigned cmds)
{
	const char *sep = "";

	if (cmds == OPTIONS_ALL) {
		fputs("every command", f);
		return;
	}
	for (size_t c = 0; c < sizeof(cmd_names) / sizeof(*cmd_names); c++) {
		if (cmds & (1u << c)) {
			fprintf(f, "%s%s", sep, cmd_names[c]);
			sep = " and ";
		}
	}
}

/* "--quiet, -q", "--rev REV", "--theme light|dark" */
static void help_label(FILE *f, const struct options_spec *s)
{
	if (s->name)
		fputs(s->name, f);
	if (s->short_name)
		fprintf(f, "%s-%c", s->name ? ", " : "", s->short_name);
	if (s->arg)
		fprintf(f, " %s", s->arg);
	else if (s->kind == OPTIONS_ENUM) {
		fputc(' ', f);
		values_list(f, s->values, "|", "|");
	}
}

/* One option: its label, then its help in a column. */
static void help_option(FILE *f, const struct options_spec *s)
{
	char label[64];
	FILE *lf = fmemopen(label, sizeof(label), "w");
	const char *p = s->help, *nl;

	label[0] = '\0';
	if (lf) {
		help_label(lf, s);
		fclose(lf);
	}
	if (strlen(label) > 22)
		fprintf(f, "  %s  ", label);
	else
		fprintf(f, "  %-22s ", label);
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		fprintf(f, "%s%.*s\n", p == s->help ? "" : "                  "
			"       ", (int)(nl - p), p);
	}
}

/* The options of `cmd` (all when negative), by the commands they serve. */
static void help_options(FILE *f, int cmd)
{
	const struct options_spec *prev = NULL;

	for (size_t i = 0; i < options_count; i++) {
		const struct options_spec *s = &options_table[i];

		if (cmd >= 0 && !(s->cmds & OPTIONS_FOR(cmd)))
			continue;
		if (cmd >= 0 && !prev) {
			fputs("\noptions:\n", f);
		} else if (cmd < 0 && (!prev || s->cmds != prev->cmds)) {
			fputs("\noptions for ", f);
			cmds_name(f, s->cmds);
			fputs(":\n", f);
		}
		help_option(f, s);
		prev = s;
	}
}

int options_help(char **out, int cmd)
{
	size_t len;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return error_oom();
	fputs(cmd < 0 ? help_intro : help_cmd[cmd], f);
	help_options(f, cmd);
	fputs(cmd < 0 ? help_outro : "\n(see strata --help and man strata)\n",
	      f);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return error_oom();
	}
	return 0;
}

/* ---- the man page ---- */

static const char man_intro[] =
	".SH OPTIONS\n"
	".\\\" Generated from src/options.c by 'make man'; edit the table there.\n"
	"Options take their value as\n"
	".B \\-\\-opt\n"
	".I VALUE\n"
	"or\n"
	".BR \\-\\-opt=\\fIVALUE\\fR .\n"
	"Every value is checked before any work, the same way by every "
	"command.\n"
	"An option given to a command it does not apply to, or where it would\n"
	"have no effect, is a usage error.\n";

/* A name for roff: each '-' as "\-". */
static void man_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '-' ? "\\-" : (char[2]){*s, 0}, f);
}

static void man_header(FILE *f, const struct options_spec *s)
{
	char shortname[3] = { '-', s->short_name, 0 };
	const char *name = s->name ? s->name : shortname;

	if (is_flag(s) && s->name && s->short_name) {
		fputs(".BR ", f);
		man_name(f, name);
		fputs(" \", \" ", f);
		man_name(f, shortname);
	} else if (is_flag(s)) {
		fputs(".B ", f);
		man_name(f, name);
	} else {
		fputs(s->arg ? ".BI " : ".BR ", f);
		man_name(f, name);
		fputs(" \" ", f);
		if (s->arg)
			fputs(s->arg, f);
		else
			values_list(f, s->values, "|", "|");
		fputc('"', f);
	}
	fputc('\n', f);
}

/* The modes where the option is refused, from its conflict rules. */
static void man_conflicts(FILE *f, const struct options_spec *s)
{
	const struct options_conflict *c;

	for (c = s->conflicts; c && c->with; c++) {
		const struct options_spec *w, *u = NULL;
		const char *sep = " ";
		size_t n = 0, k;

		w = spec_find(c->with, strlen(c->with), NULL);
		if (c->unless)
			u = spec_find(c->unless, strlen(c->unless), NULL);
		fputs("Refused (a usage error, as it would have no effect) "
		      "in\n.B strata ", f);
		cmds_name(f, c->cmds);
		fputs("\nwith\n.BR \"", f);
		man_name(f, w->name);
		for (k = 0; w->kind == OPTIONS_ENUM && w->values[k].name; k++)
			n += !!(c->values & (1u << w->values[k].value));
		for (k = 0; w->kind == OPTIONS_ENUM && w->values[k].name; k++) {
			if (!(c->values & (1u << w->values[k].value)))
				continue;
			fprintf(f, "%s%s", sep, w->values[k].name);
			sep = --n == 1 ? " or " : ", ";
		}
		fputc('"', f);
		if (u) {
			fputs("\nunless\n.B ", f);
			man_name(f, u->name);
			fputs("\nis given.\n", f);
		} else {
			fputs(" .\n", f);
		}
	}
}

int options_man(char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return error_oom();
	fputs(man_intro, f);
	for (size_t i = 0; i < options_count; i++) {
		const struct options_spec *s = &options_table[i];

		if (i == 0 || s->cmds != options_table[i - 1].cmds) {
			fputs(".SS Options for ", f);
			cmds_name(f, s->cmds);
			fputc('\n', f);
		}
		fputs(".TP\n", f);
		man_header(f, s);
		fputs(s->man, f);
		man_conflicts(f, s);
	}
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return error_oom();
	}
	return 0;
}
