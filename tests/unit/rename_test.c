/*
 * rename_test: drives src/rename.c for tests/t-rename-*.sh.
 *
 *   rename_test unit REPO
 *       self-checks on blobs it writes into REPO (scores worked out by
 *       hand from diffcore-delta's rules, cache and API behaviour)
 *   rename_test pick REPO COMMIT PATH... < DELETIONS
 *       DELETIONS is `git diff-tree -z -r --no-renames --diff-filter=D
 *       PARENT COMMIT`; prints, per PATH, the source rename_find picks
 *       for COMMIT:PATH, or "-"
 *   rename_test pick2 REPO COMMIT PATH... < DELETIONS
 *       the same twice in one process (process starts are dear): the
 *       blobs read through libgit2, then (as with RENAME_TEST_ODB=1)
 *       through strata's object reader, each with a detector of its own
 *   rename_test score REPO SRC_OID DST_OID MIN_SCORE
 *       prints rename_score() of two regular blobs
 *   rename_test scores REPO MIN_SCORE < PAIRS
 *       the same for each "SRC_OID DST_OID" line of PAIRS
 */
#include "strata/error.h"
#include "strata/odb.h"
#include "strata/rename.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void die(const char *what)
{
	const char *msg = error_last();
	const git_error *e = git_error_last();

	fprintf(stderr, "rename_test: %s: %s\n", what,
		*msg ? msg : e && e->message ? e->message : "failed");
	exit(2);
}

/* ---- unit ---- */

static git_repository *repo;
static struct odb *db;          /* RENAME_TEST_ODB=1: blobs read through it */
static int use_odb;             /* the same, for the second half of pick2 */

/* A detector on repo, reading through strata's odb when asked to. */
static int detector_new(struct rename_detector **rd)
{
	if (rename_detector_new(rd, repo) < 0)
		return -1;
	if (use_odb || getenv("RENAME_TEST_ODB")) {
		if (!db && odb_open(&db, repo, 0) < 0)
			return -1;
		rename_detector_use_odb(*rd, db);
	}
	return 0;
}

static git_oid blob(const char *data, size_t len)
{
	git_oid oid;

	if (git_blob_create_from_buffer(&oid, repo, data, len) < 0)
		die("git_blob_create_from_buffer");
	return oid;
}

static git_oid sblob(const char *s)
{
	return blob(s, strlen(s));
}

/* `n` lines "tag-NN\n" (tags of 4 chars: 8 bytes a line), from `from` */
static git_oid lines(const char *tag, int from, int n)
{
	char buf[4096];
	size_t len = 0;
	int i;

	for (i = from; i < from + n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s-%02d\n", tag, i);
	return blob(buf, len);
}

static int score(struct rename_detector *rd, git_oid s, git_oid d, int min)
{
	int out = -1;

	if (rename_score(&out, rd, 0100644, &s, 0100644, &d, min) < 0)
		die("rename_score");
	return out;
}

static int pick(struct rename_detector *rd, const struct rename_source *srcs,
		size_t n, const char *path, uint32_t mode, git_oid oid)
{
	struct rename_sources *rs;
	int a, b;

	if (rename_find(&a, rd, srcs, n, path, mode, &oid) < 0)
		die("rename_find");
	if (rename_sources_new(&rs, rd, srcs, n) < 0)
		die("rename_sources_new");
	if (rename_sources_find(&b, rs, path, mode, &oid) < 0)
		die("rename_sources_find");
	rename_sources_free(rs);
	CHECK(a == b, "rename_find %d but rename_sources_find %d for '%s'",
	      a, b, path);
	return a;
}

static void unit_scores(struct rename_detector *rd)
{
	char big[300];
	git_oid a, b;

	/* 10 lines, 5 kept, 5 new, same size: 40 of 80 bytes = 50% */
	a = lines("aaaa", 0, 10);
	{
		char buf[256];
		size_t len = 0;
		int i;

		for (i = 0; i < 5; i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"aaaa-%02d\n", i);
		for (i = 0; i < 5; i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"bbbb-%02d\n", i);
		b = blob(buf, len);
	}
	CHECK(score(rd, a, b, 30000) == 30000, "half kept: %d",
	      score(rd, a, b, 30000));
	CHECK(score(rd, a, a, 30000) == 60000, "identical");

	/* CR of CRLF is skipped in text: 40 bytes of 50 found = 48000 */
	a = sblob("abc\nabc\nabc\nabc\nabc\nabc\nabc\nabc\nabc\nabc\n");
	b = sblob("abc\r\nabc\r\nabc\r\nabc\r\nabc\r\nabc\r\nabc\r\n"
		  "abc\r\nabc\r\nabc\r\n");
	CHECK(score(rd, a, b, 30000) == 48000, "crlf: %d",
	      score(rd, a, b, 30000));
	/* ...and the other way round, the copied bytes are the same 40 */
	CHECK(score(rd, b, a, 30000) == 48000, "crlf reversed: %d",
	      score(rd, b, a, 30000));

	/* but not in a binary blob (a NUL up front): "\r\n" != "\n" */
	a = blob("\0bc\nxyz\nxyz\nxyz\n", 16);
	b = blob("\0bc\nxyz\r\nxyz\r\nxyz\r\n", 19);
	CHECK(score(rd, a, b, 30000) == 12631, "binary crlf: %d",
	      score(rd, a, b, 30000));

	/*
	 * 64-byte chunks; an unterminated tail is not hashed: 130 x's versus
	 * 130 x's and a newline share the two full chunks, 128 of 131 bytes.
	 */
	memset(big, 'x', 130);
	big[130] = '\n';
	a = blob(big, 130);
	b = blob(big, 131);
	CHECK(score(rd, a, b, 30000) == 58625, "long line: %d",
	      score(rd, a, b, 30000));
	/* a blob of one unterminated chunk has no chunks at all */
	a = sblob("no newline");
	CHECK(score(rd, a, a, 30000) == 0, "unterminated: %d",
	      score(rd, a, a, 30000));

	/*
	 * Size pre-check: a 50-byte source in a 100-byte destination passes
	 * at 50% (and scores exactly 30000); in 101 bytes it fails, even
	 * with a lower minimum for the score itself... which git never asks.
	 */
	a = lines("pppp", 0, 6);     /* 48 bytes */
	{
		char buf[256];
		git_oid d96, d97;

		memcpy(buf, "pppp-00\npppp-01\npppp-02\npppp-03\npppp-04\n"
			    "pppp-05\n", 48);
		memcpy(buf + 48, "qqqq-00\nqqqq-01\nqqqq-02\nqqqq-03\n"
				 "qqqq-04\nqqqq-05\n", 48);
		d96 = blob(buf, 96);
		buf[96] = '\n';
		d97 = blob(buf, 97);
		CHECK(score(rd, a, d96, 30000) == 30000, "48 of 96: %d",
		      score(rd, a, d96, 30000));
		CHECK(score(rd, a, d97, 30000) == 0, "48 of 97: %d",
		      score(rd, a, d97, 30000));
		CHECK(score(rd, a, d97, 29000) == 29690, "48 of 97 at 29000: %d",
		      score(rd, a, d97, 29000));
		/* 75% pre-check for the basename step */
		CHECK(score(rd, a, d96, 45000) == 0, "75%% pre-check: %d",
		      score(rd, a, d96, 45000));
	}

	/* empty blobs score 0, and so do symlinks */
	a = sblob("");
	CHECK(score(rd, a, a, 30000) == 0, "empty");
	{
		int s = -1;

		b = sblob("abc\n");
		if (rename_score(&s, rd, 0120000, &b, 0100644, &b, 30000) < 0)
			die("rename_score");
		CHECK(s == 0, "symlink scored %d", s);
	}
}

static void unit_picks(struct rename_detector *rd)
{
	struct rename_source s[8];
	git_oid t = sblob("same\n"), e = sblob(""), other = sblob("other\n");
	git_oid half = lines("hhhh", 0, 10), part;
	int i;

	/* no sources */
	CHECK(pick(rd, s, 0, "p", 0100644, t) == -1, "no sources");

	/* exact: first in order, unless one has the basename */
	s[0] = (struct rename_source){ "a/x.txt", 0100644, t };
	s[1] = (struct rename_source){ "b/y.txt", 0100755, t };
	CHECK(pick(rd, s, 2, "c/z.txt", 0100644, t) == 0, "exact first");
	CHECK(pick(rd, s, 2, "c/y.txt", 0100644, t) == 1, "exact basename");
	/* "y.txt" is not the basename of "by.txt" */
	CHECK(pick(rd, s, 2, "by.txt", 0100644, t) == 0, "suffix is no basename");
	CHECK(pick(rd, s, 2, "y.txt", 0100644, t) == 1, "top-level basename");

	/* modes: a symlink pairs only with a symlink */
	s[0] = (struct rename_source){ "l", 0120000, t };
	s[1] = (struct rename_source){ "m", 0100644, t };
	CHECK(pick(rd, s, 2, "p", 0100644, t) == 1, "regular skips symlink");
	CHECK(pick(rd, s, 2, "p", 0120000, t) == 0, "symlink to symlink");
	CHECK(pick(rd, s, 1, "p", 0100644, t) == -1, "symlink only");

	/* empty files rename exactly */
	s[0] = (struct rename_source){ "a/e", 0100644, e };
	s[1] = (struct rename_source){ "b/f", 0100644, e };
	CHECK(pick(rd, s, 2, "c/f", 0100644, e) == 1, "empty basename");
	CHECK(pick(rd, s, 2, "c/g", 0100644, e) == 0, "empty first");
	CHECK(pick(rd, s, 2, "c/g", 0100644, t) == -1, "empty to non-empty");

	/* an equal list at another address reuses the memo */
	{
		struct rename_source copy[2];
		char p0[] = "a/e", p1[] = "b/f";

		copy[0] = (struct rename_source){ p0, 0100644, e };
		copy[1] = (struct rename_source){ p1, 0100644, e };
		CHECK(pick(rd, copy, 2, "c/f", 0100644, e) == 1, "copy");
		/* same address, changed text: must not use stale data */
		p1[2] = 'x';
		CHECK(pick(rd, copy, 2, "c/f", 0100644, e) == 0, "changed");
	}

	/* 75% basename rule: 8 of 10 lines kept beats a better other */
	part = lines("hhhh", 2, 10);  /* 8 of half's lines, 2 new */
	{
		git_oid nine = lines("hhhh", 1, 10); /* 9 of 10 */

		s[0] = (struct rename_source){ "a/other.txt", 0100644, nine };
		s[1] = (struct rename_source){ "b/p.txt", 0100644, part };
		CHECK(pick(rd, s, 2, "c/p.txt", 0100644, half) == 1,
		      "unique basename at 80%%");
		/* a second p.txt (even an empty one) disables it */
		s[2] = (struct rename_source){ "d/p.txt", 0100644, e };
		CHECK(pick(rd, s, 3, "c/p.txt", 0100644, half) == 0,
		      "non-unique basename");
		/* a symlink counts too */
		s[2] = (struct rename_source){ "d/p.txt", 0120000, t };
		CHECK(pick(rd, s, 3, "c/p.txt", 0100644, half) == 0,
		      "non-unique basename (symlink)");
	}

	/* below 50%: nothing */
	s[0] = (struct rename_source){ "a", 0100644, lines("hhhh", 6, 10) };
	CHECK(pick(rd, s, 1, "b", 0100644, half) == -1, "40%%");
	s[0] = (struct rename_source){ "a", 0100644, lines("hhhh", 5, 10) };
	CHECK(pick(rd, s, 1, "b", 0100644, half) == 0, "50%%");

	/*
	 * Scoreboard ties: sources at 10%, 60%, 10%, 10%, 60% (5 entries in
	 * 4 slots). The fifth replaces the first 10% (slot 0) and so wins
	 * the tie against the second.
	 */
	{
		git_oid lo = lines("hhhh", 9, 10);   /* 1 of 10 */
		git_oid hi1 = lines("hhhh", 4, 10);  /* 6 of 10 */
		git_oid hi2 = lines("hhhh", -4, 10); /* 6 of 10 */
		git_oid lo2 = lines("hhhh", -9, 10); /* 1 of 10 */
		git_oid lo3 = lines("hhhh", 8, 10);  /* 2 of 10 */

		s[0] = (struct rename_source){ "s0", 0100644, lo };
		s[1] = (struct rename_source){ "s1", 0100644, hi1 };
		s[2] = (struct rename_source){ "s2", 0100644, lo2 };
		s[3] = (struct rename_source){ "s3", 0100644, lo };
		s[4] = (struct rename_source){ "s4", 0100644, hi2 };
		CHECK(pick(rd, s, 5, "dst", 0100644, half) == 4,
		      "late tie winner");
		/* if slot 0 is not the worst, the newcomer lands elsewhere */
		s[0] = (struct rename_source){ "s0", 0100644, lo3 };
		CHECK(pick(rd, s, 5, "dst", 0100644, half) == 1,
		      "early tie winner");
		/* equal scores: the same basename ranks first */
		s[0] = (struct rename_source){ "a/s", 0100644, hi1 };
		s[1] = (struct rename_source){ "b/dst", 0100644, hi2 };
		s[2] = (struct rename_source){ "c/dst", 0100644, other };
		CHECK(pick(rd, s, 3, "d/dst", 0100644, half) == 1,
		      "name score");
	}

	/* the cache can be cleared or starved without changing answers */
	s[0] = (struct rename_source){ "a", 0100644, lines("hhhh", 5, 10) };
	rename_detector_clear(rd);
	rename_detector_set_cache_limit(rd, 0);
	for (i = 0; i < 3; i++)
		CHECK(pick(rd, s, 1, "b", 0100644, half) == 0, "no cache");
	rename_detector_set_cache_limit(rd, (size_t)64 << 20);

	/* a missing blob is an error with a message, not a guess */
	{
		git_oid bogus;
		int out = 7;

		git_oid_fromstr(&bogus, "1234567890123456789012345678901234567890");
		s[0] = (struct rename_source){ "a", 0100644, bogus };
		error_clear();
		CHECK(rename_find(&out, rd, s, 1, "b", 0100644, &half) < 0,
		      "missing blob accepted");
		CHECK(out == -1 && strstr(error_last(), "1234567890"),
		      "missing blob: out %d, message '%s'", out, error_last());
	}
}

/*
 * git's diffcore-delta, a byte at a time, as git writes it: the chunk
 * counts of a blob (hash -> bytes) into `counts` (SPAN_MOD of them).
 */
#define REF_MOD 107927u
static void ref_counts(const unsigned char *buf, size_t len, uint32_t *counts)
{
	size_t probe = len < 8000 ? len : 8000, i;
	int text = !memchr(buf, 0, probe);
	uint32_t a1 = 0, a2 = 0, n = 0;

	for (i = 0; i < len; i++) {
		uint32_t c = buf[i], carry;

		if (text && c == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		carry = a1 >> 25;
		a1 = ((a1 << 7) ^ (a2 >> 25)) + c;
		a2 = (a2 << 7) ^ carry;
		if (++n < 64 && c != '\n')
			continue;
		counts[(a1 + a2 * 0x61u) % REF_MOD] += n;
		n = a1 = a2 = 0;
	}
}

/* The score of src -> dst by ref_counts(), with no size pre-check. */
static int ref_score(const unsigned char *s, size_t slen,
		     const unsigned char *d, size_t dlen)
{
	static uint32_t cs[REF_MOD], cd[REF_MOD];
	uint64_t copied = 0;
	size_t max = slen > dlen ? slen : dlen, h;

	memset(cs, 0, sizeof(cs));
	memset(cd, 0, sizeof(cd));
	ref_counts(s, slen, cs);
	ref_counts(d, dlen, cd);
	for (h = 0; h < REF_MOD; h++)
		copied += cs[h] < cd[h] ? cs[h] : cd[h];
	return dlen ? (int)((double)copied * 60000.0 / (double)max) : 0;
}

/* Random text of lines short and long (past 64 bytes), CRs, a NUL. */
static size_t random_blob(unsigned char *buf, size_t cap, unsigned *seed)
{
	size_t len = (size_t)rand_r(seed) % cap, i;
	int kind = rand_r(seed) % 4;

	for (i = 0; i < len; i++) {
		int r = rand_r(seed) % 100;

		buf[i] = (unsigned char)('a' + rand_r(seed) % 3);
		if (kind == 1 ? r < 1 : r < 4)
			buf[i] = '\n';
		else if (kind != 2 && r < 8)
			buf[i] = '\r';
		else if (kind == 3 && r < 9)
			buf[i] = '\0';
	}
	return len;
}

/*
 * rename_score() against ref_counts() on random pairs, the second a
 * changed copy of the first: the detector indexes a line at a time.
 */
static void unit_random_scores(struct rename_detector *rd)
{
	static unsigned char a[6000], b[6000];
	unsigned seed = 7;
	int i;

	for (i = 0; i < 300; i++) {
		size_t na = random_blob(a, sizeof(a), &seed), nb = na, k;
		int want, got;

		memcpy(b, a, na);
		for (k = 0; nb && k < 5; k++)
			b[(size_t)rand_r(&seed) % nb] = (unsigned char)
				"\r\nxa"[rand_r(&seed) % 4];
		if (i % 3 == 0)
			nb = random_blob(b, sizeof(b), &seed);
		want = ref_score(a, na, b, nb);
		got = score(rd, blob((const char *)a, na),
			    blob((const char *)b, nb), 0);
		CHECK(got == want, "random pair %d (%zu, %zu bytes): %d, "
		      "git's rules say %d", i, na, nb, got, want);
	}
}

static int run_unit(void)
{
	struct rename_detector *rd;

	if (detector_new(&rd) < 0)
		die("rename_detector_new");
	unit_scores(rd);
	unit_random_scores(rd);
	unit_picks(rd);
	rename_detector_free(rd);
	if (failures) {
		fprintf(stderr, "rename_test: %d failure(s)\n", failures);
		return 1;
	}
	return 0;
}

/* ---- pick ---- */

static char *read_all(FILE *f, size_t *len)
{
	size_t alloc = 1 << 16, n = 0, r;
	char *buf = malloc(alloc);

	while (buf && (r = fread(buf + n, 1, alloc - n, f)) > 0) {
		n += r;
		if (n == alloc)
			buf = realloc(buf, alloc *= 2);
	}
	if (!buf)
		die("out of memory");
	*len = n;
	return buf;
}

/* Records ":MODE MODE OID OID D\0PATH\0". */
static size_t parse_deletions(struct rename_source **out, char *buf,
			      size_t len)
{
	size_t n = 0, alloc = 16, i = 0;
	struct rename_source *v = malloc(alloc * sizeof(*v));

	while (v && i < len) {
		char *meta = buf + i, *path;
		unsigned mode;
		char hex[41];

		i += strlen(meta) + 1;
		path = buf + i;
		i += strlen(path) + 1;
		if (sscanf(meta, ":%o %*o %40s", &mode, hex) != 2)
			die("bad diff-tree record");
		if (n == alloc)
			v = realloc(v, (alloc *= 2) * sizeof(*v));
		if (!v)
			break;
		v[n].path = path;
		v[n].mode = mode;
		if (git_oid_fromstr(&v[n].oid, hex) < 0)
			die("bad oid");
		n++;
	}
	if (!v)
		die("out of memory");
	*out = v;
	return n;
}

static int run_pick(const char *rev, char **paths, int npaths)
{
	struct rename_detector *rd;
	struct rename_source *srcs;
	git_object *obj;
	git_commit *commit;
	git_tree *tree;
	size_t len, n;
	static char *buf;
	static size_t buf_len;
	int i;

	/* (read once: pick2 runs this twice on the same deletions) */
	if (!buf)
		buf = read_all(stdin, &buf_len);
	len = buf_len;

	n = parse_deletions(&srcs, buf, len);
	if (git_revparse_single(&obj, repo, rev) < 0 ||
	    git_commit_lookup(&commit, repo, git_object_id(obj)) < 0 ||
	    git_commit_tree(&tree, commit) < 0)
		die(rev);
	if (detector_new(&rd) < 0)
		die("rename_detector_new");
	for (i = 0; i < npaths; i++) {
		git_tree_entry *te;
		int out;

		if (git_tree_entry_bypath(&te, tree, paths[i]) < 0)
			die(paths[i]);
		if (rename_find(&out, rd, srcs, n, paths[i],
				(uint32_t)git_tree_entry_filemode(te),
				git_tree_entry_id(te)) < 0)
			die("rename_find");
		printf("%s\n", out < 0 ? "-" : srcs[out].path);
		git_tree_entry_free(te);
	}
	rename_detector_free(rd);
	git_tree_free(tree);
	git_commit_free(commit);
	git_object_free(obj);
	free(srcs);
	return 0;
}

static int run_score(const char *s, const char *d, const char *min)
{
	struct rename_detector *rd;
	git_oid so, dso;
	int out;

	if (git_oid_fromstr(&so, s) < 0 || git_oid_fromstr(&dso, d) < 0)
		die("bad oid");
	if (detector_new(&rd) < 0)
		die("rename_detector_new");
	if (rename_score(&out, rd, 0100644, &so, 0100644, &dso, atoi(min)) < 0)
		die("rename_score");
	printf("%d\n", out);
	rename_detector_free(rd);
	return 0;
}

/*
 * run_score for each "SRC_OID DST_OID" line of stdin, one score a line,
 * each with a detector of its own as if run alone: one process for all.
 */
static int run_scores(const char *min)
{
	char line[256], s[GIT_OID_HEXSZ + 1], d[GIT_OID_HEXSZ + 1];
	int rc = 0;

	while (!rc && fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%40s %40s", s, d) != 2) {
			fprintf(stderr, "rename_test: bad line: %s", line);
			return 2;
		}
		rc = run_score(s, d, min);
	}
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: rename_test unit|pick|pick2|score|scores REPO ...\n");
		return 2;
	}
	git_libgit2_init();
	if (git_repository_open(&repo, argv[2]) < 0)
		die(argv[2]);
	if (!strcmp(argv[1], "unit"))
		rc = run_unit();
	else if (!strcmp(argv[1], "pick") && argc >= 5)
		rc = run_pick(argv[3], argv + 4, argc - 4);
	else if (!strcmp(argv[1], "pick2") && argc >= 5) {
		rc = run_pick(argv[3], argv + 4, argc - 4);
		fflush(stdout);
		use_odb = 1;
		if (!rc)
			rc = run_pick(argv[3], argv + 4, argc - 4);
	}
	else if (!strcmp(argv[1], "score") && argc == 6)
		rc = run_score(argv[3], argv[4], argv[5]);
	else if (!strcmp(argv[1], "scores") && argc == 4)
		rc = run_scores(argv[3]);
	else {
		fprintf(stderr, "rename_test: bad arguments\n");
		rc = 2;
	}
	odb_free(db);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}
