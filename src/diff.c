/*
 * diff: the entry points: diffing two buffers or two stored blobs, and
 * counting lines.
 */
#include "diff_int.h"

/* ---- the whole diff --------------------------------------------------- */

/* The tables of both blobs: found, copied from the other's, or made. */
static int tables(struct ctx *c, const struct diff_blob *A,
		  const struct diff_blob *B, size_t same, struct table **ta,
		  struct table **tb)
{
	const unsigned char *abuf = (const unsigned char *)A->data;
	const unsigned char *bbuf = (const unsigned char *)B->data;
	struct known k;

	*ta = diff_table_find(c, A->key, A->len);
	*tb = diff_table_find(c, B->key, B->len);
	if (!*ta && !*tb) {
		*ta = diff_table_take(c, A->key, A->len, NULL);
		if (diff_table_build(c, *ta, abuf, A->len) < 0)
			goto fail;
	}
	if (!*ta) {
		k.t = *tb;
		k.buf = bbuf;
		*ta = diff_table_take(c, A->key, A->len, *tb);
		if (diff_table_copy(c, *ta, abuf, A->len, &k, same) < 0)
			goto fail;
	}
	if (!*tb) {
		k.t = *ta;
		k.buf = abuf;
		*tb = diff_table_take(c, B->key, B->len, *ta);
		if (diff_table_copy(c, *tb, bbuf, B->len, &k, same) < 0)
			goto fail;
	}
	return 0;
fail:
	/* A table half made is no table. */
	if (*ta)
		(*ta)->used = 0;
	if (*tb)
		(*tb)->used = 0;
	return error_oom();
}

static int run(struct ctx *c, struct diff_result *out,
	       const struct diff_blob *A, const struct diff_blob *B,
	       size_t same, size_t alen, size_t blen)
{
	struct table *ta, *tb;
	int rc;

	if ((rc = tables(c, A, B, same, &ta, &tb)) < 0)
		return rc;
	return diff_tables(c, out, ta, tb, (const unsigned char *)A->data,
			   (const unsigned char *)B->data, alen, blen);
}

int diff_blobs(struct diff_result *out, const struct diff_blob *a,
	       const struct diff_blob *b, unsigned flags)
{
	struct diff_blob A = *a, B = *b;
	size_t alen = a->len, blen = b->len, same;
	struct ctx *c;
	int rc;

	out->n = 0;
	if (A.len > MAX_SIDE || B.len > MAX_SIDE)
		return error_set("unable to diff two blobs: files too large "
				 "for diff");
	if (!A.len)
		A.data = "";
	if (!B.len)
		B.data = "";
	same = diff_common_tail((const unsigned char *)A.data, alen,
				(const unsigned char *)B.data, blen,
				alen < blen ? alen : blen);
	if (same == alen && same == blen)
		return 0;
	if (!(flags & DIFF_NO_TAIL_TRIM))
		diff_trim_tail(&alen, &blen, A.data, same);
	if (!(c = diff_ctx_get()))
		return error_oom();
	diff_dict_start(c, (flags & DIFF_IGNORE_WHITESPACE) != 0);
	rc = run(c, out, &A, &B, same, alen, blen);
	diff_ctx_put(c);
	if (rc < 0)
		out->n = 0;
	return rc;
}

int diff_buffers(struct diff_result *out, const char *a, size_t alen,
		 const char *b, size_t blen, unsigned flags)
{
	struct diff_blob A = { a, alen, NULL }, B = { b, blen, NULL };

	return diff_blobs(out, &A, &B, flags);
}

/* ---- diffing stored blobs --------------------------------------------- */

/* The length of the common tail of the blobs of tables a and b. */
static size_t tables_tail(const struct dict *d, const struct table *a,
			  const struct table *b)
{
	long i = (long)a->n, j = (long)b->n, k;
	size_t same, ka, kb;

	k = diff_equal_behind(a->id + i, b->id + j, i < j ? i : j);
	i -= k;
	j -= k;
	same = a->len - a->off[i];
	/* Then byte by byte, from the ends of the first lines that differ. */
	if (!i || !j)
		return same;
	i--;
	j--;
	ka = a->off[i + 1] - a->off[i];
	kb = b->off[j + 1] - b->off[j];
	for (;;) {
		if (!ka) {
			if (--i < 0)
				break;
			ka = a->off[i + 1] - a->off[i];
		}
		if (!kb) {
			if (--j < 0)
				break;
			kb = b->off[j + 1] - b->off[j];
		}
		if (diff_line_text(d, a, i)[ka - 1] !=
		    diff_line_text(d, b, j)[kb - 1])
			break;
		ka--;
		kb--;
		same++;
	}
	return same;
}

/*
 * diff_trim_tail() on tables: the length that is left of a (a's whole first
 * lines), given their common tail.
 */
static size_t tables_trim(const struct table *a, size_t same)
{
	size_t cut = same / 1024 * 1024;
	long k;

	if (!cut)
		return a->len;
	/* The line that holds the first byte cut, kept whole. */
	k = diff_first_start_from(a->off, 0, (long)a->n + 1,
				  a->len - cut + 1) - 1;
	return a->off[k + 1];
}

int diff_stored(struct diff_result *out, struct odb *db, git_repository *git,
		const git_oid *a, const git_oid *b, uint32_t *alines,
		uint32_t *blines)
{
	struct table *ta, *tb;
	size_t same, alen, blen;
	struct ctx *c;
	int rc;

	out->n = 0;
	if (!(c = diff_ctx_get()))
		return error_oom();
	diff_dict_start(c, false);
	if ((rc = diff_stored_table(c, db, git, a, NULL, &ta)) < 0)
		goto done;
	ta->pins++;
	rc = diff_stored_table(c, db, git, b, ta, &tb);
	ta->pins--;
	if (rc < 0)
		goto done;
	if (alines)
		*alines = ta->n;
	if (blines)
		*blines = tb->n;
	same = tables_tail(&c->dict, ta, tb);
	if (same == ta->len && same == tb->len)
		goto done;
	alen = tables_trim(ta, same);
	blen = tb->len - (ta->len - alen);
	rc = diff_tables(c, out, ta, tb, NULL, NULL, alen, blen);
done:
	diff_ctx_put(c);
	if (rc < 0)
		out->n = 0;
	return rc;
}

/* Whether t's first `prefix` bytes hold a NUL: their lines' text. */
static bool table_has_nul(const struct dict *d, const struct table *t,
			  size_t prefix)
{
	for (uint32_t i = 0; i < t->n && t->off[i] < prefix; i++) {
		size_t end = t->off[i + 1] < prefix ? t->off[i + 1] : prefix;

		if (memchr(diff_line_text(d, t, i), 0, end - t->off[i]))
			return true;
	}
	return false;
}

/* Blob oid's line count (lines) or whether it is text (text), or both. */
static int stored_facts(uint32_t *lines, bool *text, size_t prefix,
			struct odb *db, git_repository *git, const git_oid *oid)
{
	struct table *t;
	struct ctx *c;
	int rc;

	if (!(c = diff_ctx_get()))
		return error_oom();
	diff_dict_start(c, false);
	if ((rc = diff_stored_table(c, db, git, oid, NULL, &t)) == 0) {
		if (lines)
			*lines = t->n;
		if (text)
			*text = t->len > 0 && t->len <= ODB_MAX_OBJECT &&
				!table_has_nul(&c->dict, t, prefix);
	}
	diff_ctx_put(c);
	return rc;
}

int diff_stored_lines(uint32_t *out, struct odb *db, git_repository *git,
		      const git_oid *oid)
{
	return stored_facts(out, NULL, 0, db, git, oid);
}

int diff_stored_text(bool *out, struct odb *db, git_repository *git,
		     const git_oid *oid, size_t prefix)
{
	return stored_facts(NULL, out, prefix, db, git, oid);
}

void diff_result_release(struct diff_result *r)
{
	free(r->hunks);
	r->hunks = NULL;
	r->n = r->alloc = 0;
}

uint32_t diff_count_lines(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, n = 0;

#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

	while (i + 16 <= len) {
		/* Byte counters, summed before any can pass 255. */
		__m128i acc = zero, sum;
		int k;

		for (k = 0; k < 255 && i + 16 <= len; k++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(
				_mm_loadu_si128((const __m128i *)(p + i)), nl));
		sum = _mm_sad_epu8(acc, zero);
		n += (size_t)_mm_cvtsi128_si32(sum) +
		     (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
	}
#endif
	for (; i < len; i++)
		n += p[i] == '\n';
	if (len && p[len - 1] != '\n')
		n++;
	return (uint32_t)n;
}
