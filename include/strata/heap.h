/*
 * heap: glibc's heap set up for a run that fills hundreds of megabytes
 * once: on transparent huge pages (by running strata again with the
 * glibc.malloc.hugetlb tunable, which glibc reads only at start-up) and
 * grown in large steps. docs/usage.md, "Environment", says when.
 */
#ifndef STRATA_HEAP_H
#define STRATA_HEAP_H

#include <stddef.h>

/*
 * Run the program again (execv, so it returns only when it does not)
 * with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, unless the user
 * named the tunable, the kernel's huge pages are off, the run is
 * set-uid, under ASan, or started by ld.so. Call it before any work.
 */
void heap_huge_pages(char **argv);

/* Grow the heap by 32 MiB and keep what is freed (mallopt). */
void heap_tune(void);

/*
 * For --verbose: "heap on huge pages (GLIBC_TUNABLES=...)" or "heap on
 * small pages", into buf.
 */
void heap_describe(char *buf, size_t size);

#endif
