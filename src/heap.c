/*
 * heap: glibc's heap set up for strata's runs (include/strata/heap.h).
 */
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "strata/heap.h"
#include "strata/util.h"

/*
 * The heap on transparent huge pages. A run fills hundreds of megabytes
 * of fresh heap with objects and tables, and each 4 KiB page of it costs
 * a page fault: on tmux, 19,500 faults and 18% of the CPU time spent in
 * the kernel. glibc advises huge pages for its heap only when the
 * glibc.malloc.hugetlb tunable asks, and it reads tunables from the
 * environment before main(); so strata runs itself once more with the
 * tunable added to GLIBC_TUNABLES (docs/design.md). It does not when
 * GLIBC_TUNABLES already names the tunable (the user chose), when the
 * kernel's huge pages are off, in a set-uid run, under ASan (whose
 * allocator is not glibc's), or when started by ld.so (/proc/self/exe is
 * then ld.so); if the exec fails, the run goes on as it is.
 */
#define HUGETLB_TUNABLE "glibc.malloc.hugetlb"
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35) && \
	!UTIL_ASAN
#define HEAP_TUNABLE 1
#else
#define HEAP_TUNABLE 0
#endif

static int thp_enabled(void)
{
	char line[128];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	int on;

	if (!f)
		return 0;
	on = fgets(line, sizeof(line), f) && !strstr(line, "[never]");
	fclose(f);
	return on;
}

void heap_huge_pages(char **argv)
{
#if HEAP_TUNABLE
	const char *env = getenv("GLIBC_TUNABLES");
	char exe[PATH_MAX], *old = NULL, *set = NULL;
	ssize_t n;

	if ((env && strstr(env, HUGETLB_TUNABLE)) || getauxval(AT_SECURE) ||
	    !getauxval(AT_BASE) || !thp_enabled())
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	if ((env && !(old = strdup(env))) ||
	    asprintf(&set, "%s%s" HUGETLB_TUNABLE "=1", old ? old : "",
		     old && *old ? ":" : "") < 0)
		goto done;
	if (!setenv("GLIBC_TUNABLES", set, 1))
		execv(exe, argv);
	if (old)
		setenv("GLIBC_TUNABLES", old, 1);
	else
		unsetenv("GLIBC_TUNABLES");
done:
	free(old);
	free(set);
#else
	(void)argv;
#endif
}

void heap_describe(char *buf, size_t size)
{
	const char *env = getenv("GLIBC_TUNABLES");
	const char *t = env ? strstr(env, HUGETLB_TUNABLE "=") : NULL;
	int huge = HEAP_TUNABLE && t && t[sizeof(HUGETLB_TUNABLE)] != '0' &&
		   thp_enabled();

	snprintf(buf, size, "heap on %s pages%s%s%s",
		 huge ? "huge" : "small",
		 env ? " (GLIBC_TUNABLES=" : "", env ? env : "",
		 env ? ")" : "");
}

/*
 * glibc's malloc grows a thread's heap a few pages at a time and gives
 * freed memory back as soon as it can, only to ask for it again: on tmux
 * that was 3,900 mprotect and 340 brk calls, and the kernel's time went to
 * them, to page faults and to interrupting the other core. Growing by 32
 * MiB and keeping what is freed took them to between 60 and 1,400 and to
 * 5, and the run from 475 ms to 454 ms (median of 16 runs each way), for
 * the same peak memory on tmux and git. (git's run stayed within noise:
 * 5.08 s and 5.15 s, median of 8.) Allocations up to 32 MiB (large
 * blobs) come from the heap, as glibc's own adaptive threshold would have
 * them: setting the other two turns it off.
 */
void heap_tune(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TOP_PAD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
