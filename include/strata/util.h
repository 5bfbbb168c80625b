/*
 * util: what every module needs and none owns: reading a file that may
 * be hostile, growing an array without overflow, UTF-8 and git's notion
 * of white space, one way to print a number, a list of strings and an
 * intrusive LRU list.
 *
 * A leaf: it depends on error.h alone. Functions that fail return a
 * negative STRATA_* code and set the last error (error.h); none prints.
 */
#ifndef STRATA_UTIL_H
#define STRATA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/stat.h>

/*
 * UTIL_ASAN: 1 in an AddressSanitizer build. gcc says so with
 * __SANITIZE_ADDRESS__, clang (14) only through __has_feature.
 */
#if defined(__SANITIZE_ADDRESS__)
#define UTIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UTIL_ASAN 1
#endif
#endif
#ifndef UTIL_ASAN
#define UTIL_ASAN 0
#endif

/* ---- files ------------------------------------------------------------ */

/* util_open_regular(): what stands at the path is not a regular file. */
#define UTIL_NOT_FILE (-2)

/*
 * Open the regular file at `path` for reading without blocking (a FIFO
 * or a device in its place can neither hang nor feed the run) and fill
 * *st. Returns the descriptor (the caller closes it); -1 with errno set
 * when it cannot be opened; UTIL_NOT_FILE, with nothing left open, when
 * it is anything but a regular file. Sets no error: the caller names the
 * file as its users know it.
 */
int util_open_regular(const char *path, struct stat *st);

/*
 * Read the open descriptor `fd` to its end into a malloc'd buffer that
 * the caller frees, NUL-terminated (the NUL not counted in *len). More
 * than `max` bytes is STRATA_ETOOBIG, "'SHOWN' is larger than N bytes"
 * (or KiB, MiB), so a file that grows while read (/dev/zero behind a link
 * the caller checked too early) stays bounded. `shown` names the file in
 * messages.
 */
int util_read_fd(char **out, size_t *len, int fd, size_t max,
		 const char *shown);

/* util_read_file(): a missing file is no error; returns UTIL_MISSING. */
#define UTIL_MISSING_OK 1u
#define UTIL_MISSING 1

/*
 * The whole regular file at `path`, at most `max` bytes, read as
 * util_read_fd() does after util_open_regular(). Errors name `shown`
 * (the path when NULL): "unable to open 'X': ...", "'X' is not a
 * regular file". With UTIL_MISSING_OK a file that is not there returns
 * UTIL_MISSING with *out NULL and no error set.
 */
int util_read_file(char **out, size_t *len, const char *path, size_t max,
		   const char *shown, unsigned flags);

/* ---- memory ----------------------------------------------------------- */

/*
 * Make the array at *pp (of `size`-byte elements, `*alloc` of them
 * allocated) hold at least `need`, growing it by half again at least.
 * Returns 0, or STRATA_ENOMEM (the last error set) when the new size
 * overflows size_t or realloc() fails; the array is then untouched.
 * Use UTIL_GROW(), which passes the pointer and the element size.
 */
int util_grow_array(void *pp, size_t *alloc, size_t need, size_t size);

#define UTIL_GROW(p, alloc, need) \
	util_grow_array(&(p), &(alloc), (need), sizeof(*(p)))

/* a * b, or SIZE_MAX when it overflows (so that malloc() fails). */
static inline size_t util_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* a + b, or SIZE_MAX when it overflows. */
static inline size_t util_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* ---- text ------------------------------------------------------------- */

/*
 * The length of the well-formed UTF-8 sequence (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF) at s, 1 for ASCII; 0 when
 * there is none. Reads no further than the NUL that ends s.
 */
size_t util_utf8_seq(const unsigned char *s);

/* git's isspace(): space, tab, LF and CR; not VT or FF. */
static inline bool util_git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- numbers ---------------------------------------------------------- */

/*
 * Every figure strata prints goes through these, so that the CSV, the
 * page, the chart and the terminal print one number one way: integers
 * only, no locale, halves rounded up.
 */
struct util_num {
	char s[32];
};

/* 1234567 -> "1,234,567". */
struct util_num util_count(uint64_t v);

/*
 * part/whole in percent with `decimals` (0 to 3) digits and no sign:
 * 1/3 with 2 -> "33.33"; 0 when whole is 0.
 */
struct util_num util_percent(uint64_t part, uint64_t whole, int decimals);

/*
 * A share as a reader sees it: util_percent() with one decimal and "%",
 * and "<0.1%" for a share that is not zero but rounds to it.
 */
struct util_num util_share(uint64_t part, uint64_t whole);

/* ---- the stages of a run ---------------------------------------------- */

/*
 * What --verbose says of each stage: its wall time and the process's
 * peak resident memory when it ended (getrusage()'s ru_maxrss: the peak
 * of the whole run so far, not of the stage alone, which the kernel does
 * not keep).
 */
struct util_stage {
	const char *name;       /* a string literal */
	double seconds;
	double cpu;             /* seconds of CPU (util_cpu_seconds()) */
	size_t peak_kib;
};

#define UTIL_STAGES_MAX 16

struct util_stages {
	struct util_stage v[UTIL_STAGES_MAX];
	size_t n;
	struct timespec start;  /* of the stage under way */
	double cpu_start;
};

/* The process's peak resident memory so far, in KiB. */
size_t util_peak_kib(void);

/*
 * The CPU time, user and system, of the process's threads and of the
 * children it has waited for, so far.
 */
double util_cpu_seconds(void);

/* The first stage starts now. */
void util_stages_start(struct util_stages *s);

/* The stage under way, `name`, ends now and the next one starts. */
void util_stages_end(struct util_stages *s, const char *name);

/*
 * Append the stages of `from` (ended elsewhere) to `to`, whose next stage
 * starts where from's last ended.
 */
void util_stages_append(struct util_stages *to,
			const struct util_stages *from);

/* ---- test hooks ------------------------------------------------------- */

/*
 * A test-only hook, environment variable `var` set to "WHAT:PPID": WHAT
 * (up to its last ':', *len bytes, not terminated) when PPID is the id of
 * this process's parent, so that a hook set for one run is not taken up
 * by the processes that run starts, nor by a run orphaned meanwhile.
 * NULL when it is unset or anything else.
 */
const char *util_test_hook(const char *var, size_t *len);

/* ---- a list of strings ------------------------------------------------ */

/* Growable; the list owns its copies of the strings. */
struct util_strlist {
	char **v;
	size_t n, alloc;
};

#define UTIL_STRLIST_INIT { NULL, 0, 0 }

/* Append a copy of s. */
int util_strlist_push(struct util_strlist *l, const char *s);

/* Sort by strcmp(). */
void util_strlist_sort(struct util_strlist *l);

/* Free the strings and the array; the list is empty again. */
void util_strlist_release(struct util_strlist *l);

/* ---- an intrusive LRU list -------------------------------------------- */

/*
 * A node lives inside the object it orders (container_of gets it back);
 * the list owns nothing. Not locked: the owner's lock guards it.
 */
struct util_lru_node {
	struct util_lru_node *prev, *next;
};

struct util_lru {
	struct util_lru_node *head, *tail; /* most recently used first */
};

#define util_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

void util_lru_unlink(struct util_lru *l, struct util_lru_node *n);
void util_lru_push(struct util_lru *l, struct util_lru_node *n);

/* Move n, which is on l, to its head. */
static inline void util_lru_touch(struct util_lru *l, struct util_lru_node *n)
{
	if (l->head != n) {
		util_lru_unlink(l, n);
		util_lru_push(l, n);
	}
}

#endif
