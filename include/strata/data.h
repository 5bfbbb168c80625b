/*
 * data: the report's machine-readable files: CSV tables and report.json
 * Formats are documented in docs/data.md.
 */
#ifndef STRATA_DATA_H
#define STRATA_DATA_H

#include "strata/report.h"
#include "strata/tally.h"

/* Write files.csv, releases.csv, subsystems.csv, untouched.csv and
 * report.json into the existing directory `dir`. */
int data_write(const char *dir, const struct tally *t,
	       const struct report_info *info);

#endif
