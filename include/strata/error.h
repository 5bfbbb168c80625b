/*
 * error: the last-error slot.
 *
 * Modules never print. A failing function stores a one-line message here
 * (lowercase, no full stop, subject quoted: "unable to read 'foo'") and
 * returns a negative code; main() prints it. The slot is thread-local.
 */
#ifndef STRATA_ERROR_H
#define STRATA_ERROR_H

enum {
	STRATA_OK = 0,
	STRATA_ERR = -1,     /* runtime failure: exit 1 */
	STRATA_EUSAGE = -2,  /* bad option or option value: exit 2 */
	STRATA_ENOMEM = -3,
	STRATA_EMISSING = -4, /* an object a partial clone left out: exit 1 */
	STRATA_ETOOBIG = -5   /* a file over its bound (util_read_fd): exit 1 */
};

/* Store a printf-style message; returns STRATA_ERR. */
int error_set(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Like error_set() but returns `code`. */
int error_setc(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Store a message followed by ": " and libgit2's last error (if any);
 * returns STRATA_ERR.
 */
int error_git(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * Put a message and ": " before the one stored ("unable to read blob 'X'"
 * before the reason); returns STRATA_ERR.
 */
int error_prefix(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Store "out of memory"; returns STRATA_ENOMEM. */
int error_oom(void);

/* The last message stored on this thread, or "" (borrowed). */
const char *error_last(void);

/* Empty the slot. */
void error_clear(void);

#endif
