/*
 * diff_int.h: what the stages of the line diff share (private to src/diff*.c).
 */
#ifndef STRATA_DIFF_INT_H
#define STRATA_DIFF_INT_H

#include "strata/diff.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "strata/error.h"
#include "strata/odb.h"
#include "strata/util.h"

/*
 * Our own implementation of the line diff in git 2.39's xdiff (the same
 * one libgit2 1.5 bundles): classify records, trim equal ends, diff_discard
 * records that cannot match, Myers' divide and conquer with xdiff's cost
 * heuristics, then slide the change groups with the indent heuristic.
 * Every rule and constant below is xdiff's; the data structures are not.
 * Hunks must come out exactly as git's would, so any change here has to
 * pass tests/t-diff-unit.sh, which diffs real histories both ways.
 */

/* git and libgit2 refuse larger blobs ("files too large for diff"). */
#define MAX_SIDE ((size_t)1023 << 20)

#define NO_CLASS UINT32_MAX

enum {
	/* Discarding records without a match (xprepare.c). */
	EQ_LIMIT = 1024,        /* cap on the "too many matches" level */
	SCAN_WINDOW = 100,      /* records looked at around a multimatch */
	KEEP_RUN = 4,           /* ratio that discards a multimatch */

	/* Myers' split (xdiffi.c). */
	MIN_MAX_COST = 256,     /* floor of the cost where we give up */
	HEUR_MIN_COST = 256,    /* cost above which snakes are sampled */
	SNAKE_LEN = 20,         /* length of a "good" snake */
	K_HEUR = 4,             /* how far along a good diagonal must be */

	/* Indent heuristic (xdiffi.c). */
	MAX_INDENT = 200,
	MAX_BLANKS = 20,
	MAX_SLIDING = 100,
	START_OF_FILE_PENALTY = 1,
	END_OF_FILE_PENALTY = 21,
	TOTAL_BLANK_WEIGHT = -30,
	POST_BLANK_WEIGHT = 6,
	RELATIVE_INDENT_PENALTY = -4,
	RELATIVE_INDENT_WITH_BLANK_PENALTY = 10,
	RELATIVE_OUTDENT_PENALTY = 24,
	RELATIVE_OUTDENT_WITH_BLANK_PENALTY = 17,
	RELATIVE_DEDENT_PENALTY = 23,
	RELATIVE_DEDENT_WITH_BLANK_PENALTY = 17,
	INDENT_WEIGHT = 60
};

/*
 * Whitespace as xdiff sees it (for -w and for indentation): git's own
 * locale-free isspace(), that is space, \t, \n and \r. libgit2's copy of
 * xdiff calls the C library's isspace(), which adds \v and \f, so lines
 * with those can come out differently there; define DIFF_SPACE_LIKE_LIBGIT2
 * to get libgit2's hunks instead (tests/t-diff-unit.sh compares both ways).
 */
static const bool is_space[256] = {
	['\t'] = true, ['\n'] = true, ['\r'] = true, [' '] = true,
#ifdef DIFF_SPACE_LIKE_LIBGIT2
	['\v'] = true, ['\f'] = true,
#endif
};

#ifdef __SSE2__
/* The bytes of v that is_space[] holds, as 0xff. */
static inline __m128i space_mask(__m128i v)
{
	__m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
				 _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
#ifdef DIFF_SPACE_LIKE_LIBGIT2
	/* \t \n \v \f are 9 to 12 */
	__m128i t = _mm_subs_epu8(_mm_sub_epi8(v, _mm_set1_epi8(9)),
				  _mm_set1_epi8(3));

	return _mm_or_si128(m, _mm_cmpeq_epi8(t, _mm_setzero_si128()));
#else
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
	return _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
#endif
}
#endif

/* A buffer that only grows, kept from call to call. */
struct buf {
	void *p;
	size_t cap;
};

#define NO_ID UINT32_MAX

/*
 * The line dictionary: a number for every distinct line the thread has
 * met, kept from call to call. Equal lines (with -w, lines equal but for
 * whitespace) get equal numbers, so the numbers serve as xdiff's classes
 * in every diff, and a line is hashed only the first time it is seen.
 */
struct line_entry {
	uint64_t hash;
	uint32_t at, len;       /* its bytes in text (for -w, without spaces) */
};

/* One of the two buffers being compared. */
struct side {
	const unsigned char *buf;   /* NULL: the lines are the dictionary's */
	const unsigned char *text;
	const struct line_entry *e;
	size_t len;
	uint32_t n;             /* records */
	const uint32_t *off;    /* n + 1 starts, off[n] == len */
	const uint32_t *cls;    /* class of each record */
	unsigned char *chg;     /* changed flags; chg[-1] and chg[n] are 0 */
	uint32_t *kept;         /* records that go through Myers */
	uint32_t *kept_cls;
	long nkept;
	/* Every changed record lies in [lo, hi). */
	long lo, hi;
};

static inline const unsigned char *rec_ptr(const struct side *s, long i)
{
	return s->buf ? s->buf + s->off[i] : s->text + s->e[s->cls[i]].at;
}

static inline uint32_t rec_len(const struct side *s, long i)
{
	return s->off[i + 1] - s->off[i];
}

/* Two counts side by side: a number's in the old and in the new side. */
struct pair {
	uint32_t c[2];
};

struct dict {
	struct line_entry *e;
	uint32_t n, cap;        /* numbers, and the room of e, count, pos */
	uint32_t room;          /* numbers the slots hold: half as many */
	/*
	 * Number + 1 (0: empty) in the low half, the low half of its hash in
	 * the high half: a probe that meets another line's slot moves on
	 * without loading its entry. Most lines looked up are new ones, whose
	 * probes all miss, so a lookup costs about one cache miss, not one
	 * per probe and another for the text.
	 */
	uint64_t *slot;
	uint32_t mask;
	int shift;
	unsigned char *text;
	size_t text_len, text_cap;
	/* Per number: records of it in each side, 0 between calls. */
	struct pair *count;
	uint32_t *pos;          /* scratch: where a number was seen */
	uint32_t gen;           /* changes whenever the numbers start over */
	uint64_t found;         /* lines found in it since it started */
	int ws;                 /* the mode the numbers are for, -1: none */
};

/*
 * Past DICT_MAX_IDS numbers or DICT_MAX_TEXT bytes of text, the dictionary
 * starts over at the next call, so that a thread's share of memory stays
 * bounded (docs/performance.md, "Memory"). It starts over sooner, past
 * DICT_FEW_IDS, when fewer lines were found in it than it holds: most
 * lines looked up are then new ones, each a cache miss in a dictionary
 * bigger than the processor's caches, and the blobs streaming through
 * push it out (docs/design.md, "Lines as numbers").
 */
#ifndef DICT_MAX_IDS            /* tests set tiny ones */
#define DICT_MAX_IDS ((uint32_t)1 << 18)
#define DICT_MAX_TEXT ((size_t)12 << 20)
#endif
#define DICT_FEW_IDS (DICT_MAX_IDS / 8)

/*
 * A blob's lines, as starts and numbers, made once and reused by the next
 * diffs the blob is in: the versions of a file come one after another, so
 * a side of one diff is usually a side of the next. A new blob's table is
 * mostly copied from the other side's: runs of equal bytes are runs of
 * equal lines, and only the lines in between are looked up.
 */
struct table {
	unsigned char key[DIFF_KEY_SIZE];
	bool keyed;
	size_t len;             /* bytes of the blob */
	uint32_t n;             /* its records */
	uint32_t *off;          /* n + 1 starts */
	uint32_t *id;           /* n numbers */
	size_t cap;             /* room for this many starts */
	uint32_t gen;           /* the dictionary's when made */
	uint64_t used;          /* for least recently used; 0: empty */
	/* Tables of pack entries (see "tables from pack deltas"). */
	struct odb_place at;
	bool nl_end;            /* its last line ends in a newline (or none) */
	int pins;               /* in use: not to be taken */
	size_t counted;         /* cap when last counted in placed.bytes */
	int hnext, next;        /* in its bucket, in the free list; -1 ends */
	struct util_lru_node lru;
};

#define TABLES 8

/*
 * The tables of pack entries that a thread keeps, at most (more keeps
 * tables that are not met again).
 */
#ifndef PLACED                  /* tests set tiny ones */
#define PLACED 512
#define PLACED_BYTES ((size_t)8 << 20)
#endif
#define PLACE_BUCKETS 1024

struct placed {
	struct table *t;        /* PLACED of them, once used */
	int bucket[PLACE_BUCKETS];
	struct util_lru lru;    /* those in use, most recently used first */
	int free;               /* the others, empty, through `next` */
	size_t bytes;           /* of the starts and numbers they hold */
};

/*
 * Where the blobs of the last diffs are stored: a version is the new side
 * of one diff and the old side of the next, and looking it up in the pack
 * index again cost a cache miss or more per step of the search; most of
 * those searches are saved.
 * Direct-mapped by a byte of the name.
 */
#define LOCATED 64

struct located {
	git_oid oid;
	struct odb_place at;
	bool valid;
};

/* Bits for the classes of a diff's middle (count_ends()). */
#define MIDDLE_BITS 32768

/* Everything one thread's calls need, kept from call to call. */
struct ctx {
	struct side s[2];
	struct dict dict;
	struct table tab[TABLES];
	struct placed placed;
	struct located located[LOCATED];
	uint64_t seen[MIDDLE_BITS / 64];  /* diff_count_classes() */
	const struct odb *db;   /* what the places above are places in */
	uint64_t clock;
	struct buf chg[2], kept[2], kept_cls[2], dis, kv, todo, hashes, norm,
		   raw, pend, chain;
};

static inline const unsigned char *diff_line_text(const struct dict *d,
						  const struct table *t, long i)
{
	return d->text + d->e[t->id[i]].at;
}

/* The other version of a file that a new table is copied from. */
struct known {
	const struct table *t;
	const unsigned char *buf;
};

void *diff_reserve_grow(struct buf *b, size_t bytes);

/*
 * b's memory, with room for `bytes` at least (NULL: no memory). Inline:
 * called for every buffer of every diff, it grows them only now and then.
 */
static inline void *diff_reserve(struct buf *b, size_t bytes)
{
	return bytes > b->cap ? diff_reserve_grow(b, bytes) : b->p;
}

/*
 * The first index in [lo, hi) whose start is at least pos, or hi. Inline:
 * the walk of a delta's copies calls it for every copy.
 */
static inline long diff_first_start_from(const uint32_t *off, long lo,
					 long hi, size_t pos)
{
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (off[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* diff_lines.c */
void diff_table_free(struct table *t);
struct ctx *diff_ctx_get(void);
void diff_ctx_put(struct ctx *c);
void diff_trim_tail(size_t *alen, size_t *blen, const char *a,
		    size_t same);
void diff_dict_start(struct ctx *c, bool ws);
uint32_t diff_intern(struct ctx *c, const unsigned char *p, size_t n,
		     const unsigned char *end);
int diff_table_room(struct table *t, size_t n);
struct table *diff_table_find(struct ctx *c, const unsigned char *key,
			      size_t len);
struct table *diff_table_take(struct ctx *c, const unsigned char *key,
			      size_t len, const struct table *keep);
int diff_number_lines(struct ctx *c, struct table *t, uint32_t from,
		      const unsigned char *p, size_t at,
		      const unsigned char *end);
int diff_table_build(struct ctx *c, struct table *t,
		     const unsigned char *p, size_t len);
size_t diff_common_tail(const unsigned char *a, size_t an,
			const unsigned char *b, size_t bn, size_t n);
int diff_table_copy(struct ctx *c, struct table *t,
		    const unsigned char *buf, size_t len,
		    const struct known *k, size_t same);

/* diff_placed.c */
void diff_placed_clear(struct placed *P);
int diff_stored_table(struct ctx *c, struct odb *db, git_repository *git,
		      const git_oid *oid, const struct table *keep,
		      struct table **out);

/* diff_algo.c */
int diff_tables(struct ctx *c, struct diff_result *out,
		const struct table *ta, const struct table *tb,
		const unsigned char *abuf, const unsigned char *bbuf,
		size_t alen, size_t blen);
long diff_equal_behind(const uint32_t *p, const uint32_t *q, long n);

#endif
