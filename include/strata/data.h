/*
 * data: the report's machine-readable files: CSV tables and report.json
 * Formats are documented in docs/data.md.
 */
#ifndef STRATA_DATA_H
#define STRATA_DATA_H

#include <stdio.h>

#include "strata/report.h"
#include "strata/tally.h"

/* Write files.csv, releases.csv, subsystems.csv, untouched.csv and
 * report.json into the existing directory `dir`. */
int data_write(const char *dir, const struct tally *t,
	       const struct report_info *info);

/*
 * The escapers the files use (exposed for the fuzz targets): s as one CSV
 * field, quoted when it holds a comma, a quote, CR or LF; s as a JSON
 * string, with invalid UTF-8 as U+FFFD and U+2028/U+2029 escaped.
 */
void data_csv_field(FILE *f, const char *s);
void data_json_string(FILE *f, const char *s);

#endif
