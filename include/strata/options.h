/*
 * options: the command line, from one table.
 *
 * Each option is one row of options_table (src/options.c): its names,
 * the commands it applies to, its kind (a flag, an integer in a range, a
 * string, a repeatable list, one word of a set), its help and the text
 * of its entry in strata(1), and the modes in which it would do nothing.
 * Parsing, `strata --help`, `strata COMMAND --help`, the OPTIONS section
 * of docs/strata.1 (`strata --help-man`, `make man`) and the conflict
 * checks all come from that table, so that none can drift from another.
 *
 * Like every module, it prints nothing: a bad command line is an error
 * STRATA_EUSAGE with its message set (error.h), and the help texts are
 * handed to main as strings.
 */
#ifndef STRATA_OPTIONS_H
#define STRATA_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "strata/filter.h"
#include "strata/mailmap.h"
#include "strata/util.h"

enum options_cmd { OPTIONS_BLAME, OPTIONS_TABLE, OPTIONS_REPORT };

#define OPTIONS_FOR(c) (1u << (c))
#define OPTIONS_ALL \
	(OPTIONS_FOR(OPTIONS_BLAME) | OPTIONS_FOR(OPTIONS_TABLE) | \
	 OPTIONS_FOR(OPTIONS_REPORT))

/* The cohort of `strata table --by`. */
enum options_by {
	OPTIONS_BY_RELEASE,
	OPTIONS_BY_YEAR,
	OPTIONS_BY_AUTHOR,
	OPTIONS_BY_ORG
};

/*
 * What the command line asks for. A word of a set (--by, --date,
 * --tag-scope, --history, --theme) is kept as an int holding the value
 * of the module's enum: enum options_by, enum cohorts_date, enum
 * releases_scope, enum snapshots_when, and 1 for a dark theme.
 */
struct options {
	enum options_cmd cmd;
	const char *cmd_name;       /* "blame", "table" or "report" */
	const char *repo;
	const char *rev;
	const char *tags, *group;
	const char *title;          /* --title, or NULL */
	int tag_scope;
	int first_parent, ignore_ws, quiet, force, verbose;
	int nul;
	int skip_vendored;          /* default: table and report, not blame */
	struct util_strlist ignore_revs, ignore_files, include, exclude, paths;
	struct filter filter;       /* from include, exclude, skip_vendored */
	int quote_fully;            /* core.quotePath, set by main */
	int64_t generated;          /* SOURCE_DATE_EPOCH, or -1 */
	long depth, jobs;
	const char *out, *templates;
	long chart_width, chart_height;
	int dark;
	int history;
	int date;                   /* --date */
	int no_authors;             /* --no-authors */
	const char *org_map;        /* --org-map FILE */
	struct orgmap *orgmap;      /* read from it by options_check() */
	int by;                     /* --by */
	const char *since;          /* --since REV0, or NULL */
	int cycle;                  /* table --cycle */
	int no_cycle;               /* report --no-cycle */
	uint64_t given;             /* bit i: options_table[i] was given */
};

/* ---- the table ---------------------------------------------------------- */

enum options_kind {
	OPTIONS_FLAG,    /* int, set to 1 */
	OPTIONS_UNSET,   /* int, set to 0: --no-X of a flag on by default */
	OPTIONS_INT,     /* long, from min to max */
	OPTIONS_STRING,  /* const char *; min to max bytes when max > 0 */
	OPTIONS_LIST,    /* struct util_strlist, one entry each time given */
	OPTIONS_ENUM     /* int, the value of one of `values` */
};

struct options_value {
	const char *name;
	int value;
};

/*
 * A mode in which the option would do nothing: given to one of `cmds`
 * while option `with` is set (a flag) or holds one of the `values` (bit
 * 1 << value; its default counts as held), unless option `unless` is set
 * to something else than its default. A usage error, "--depth has no
 * effect with --by author": nothing given is silently ignored.
 */
struct options_conflict {
	unsigned cmds;
	const char *with;
	unsigned values;
	const char *unless;
};

struct options_spec {
	const char *name;           /* "--rev"; NULL for a short one alone */
	char short_name;            /* 'q' for -q, or 0 */
	unsigned cmds;              /* OPTIONS_FOR() of the commands */
	enum options_kind kind;
	size_t offset;              /* of the value in struct options */
	const char *arg;            /* "REV" (for an enum: NULL lists values) */
	long min, max;
	const struct options_value *values;  /* OPTIONS_ENUM; ends at NULL */
	const char *help;           /* for --help: lines ended by '\n' */
	const char *man;            /* its entry's roff body in strata(1) */
	const struct options_conflict *conflicts;  /* ends at with == NULL */
};

extern const struct options_spec options_table[];
extern const size_t options_count;

/* ---- parsing ------------------------------------------------------------ */

/*
 * The command of argv[1]; STRATA_EUSAGE, with the message set, when it
 * is none.
 */
int options_command(enum options_cmd *out, const char *name);

/* 1 when argv (before any "--") asks for the command's help. */
int options_wants_help(int argc, char **argv);

/*
 * Parse argv[2...] for the command `cmd` into *o, which starts with the
 * defaults. Numbers and words are checked as they are parsed; an option
 * given to a command it does not apply to is STRATA_EUSAGE.
 * options_release() frees *o even after a failure.
 */
int options_parse(struct options *o, enum options_cmd cmd, int argc,
		  char **argv);

/*
 * What can be checked before any work: globs, --tags and --group,
 * SOURCE_DATE_EPOCH (report), and the org map, which it reads (a bad
 * line is an error naming the file and line). Fills o->filter's globs.
 * Then an option given where it would have no effect (its row's
 * conflicts) is STRATA_EUSAGE.
 */
int options_check(struct options *o);

void options_release(struct options *o);

/* ---- what the table gives ---------------------------------------------- */

/*
 * The help text: strata --help when `cmd` is negative, else the
 * command's. *out is malloc'd, the caller's.
 */
int options_help(char **out, int cmd);

/* The OPTIONS section of strata(1), in roff, up to the next .SH. */
int options_man(char **out);

#endif
