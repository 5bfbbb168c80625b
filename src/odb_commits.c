/*
 * odb_commits: the commits that lead each pack, listed from the index so
 * that the history can read them on several threads at once.
 */
#include "odb_int.h"

/* ---- the commits at the head of each pack ----------------------------- */

struct run_entry {
	uint64_t offset;
	uint32_t pos;               /* in the pack's index */
	uint32_t pack;
};

struct odb_commits {
	struct odb *db;
	struct run_entry *e;
	size_t n, alloc;
	uint32_t *slot;             /* by name: entry + 1, or 0 */
	size_t mask;
};

/*
 * Add to c the whole commits that lead pack pi: those before its first
 * tree or blob. The index gives every entry's offset; the first tree or
 * blob is looked for below a bound that doubles until there is one,
 * starting from an eighth of the pack (a real history's commits take a
 * few hundredths of its pack: docs/performance.md).
 */
static int list_pack_commits(struct odb_commits *c, uint32_t pi)
{
	const struct pack *p = &c->db->packs[pi];
	uint64_t bound = p->size / 8 > ((uint64_t)1 << 20) ? p->size / 8
							     : (uint64_t)1 << 20;
	uint64_t end, off;
	size_t first = c->n, k, kept = first;
	uint32_t i;
	int t, rc;

	/* One pass over the index: the commits, and where they end. */
	for (;;) {
		end = bound;
		c->n = first;
		for (i = 0; i < p->n; i++) {
			if (!odb_offset_at(p, i, &off) || off >= end)
				continue;
			t = odb_type_at(p, off);
			if (t == GIT_OBJECT_TREE || t == GIT_OBJECT_BLOB) {
				end = off;
				continue;
			}
			if (t != GIT_OBJECT_COMMIT)
				continue;
			if ((rc = UTIL_GROW(c->e, c->alloc, c->n + 1)) < 0)
				return rc;
			c->e[c->n].offset = off;
			c->e[c->n].pos = i;
			c->e[c->n++].pack = pi;
		}
		if (end < bound || bound >= p->size)
			break;
		bound *= 2;
	}
	/* Those found before the end was known may lie past it. */
	for (k = first; k < c->n; k++)
		if (c->e[k].offset < end)
			c->e[kept++] = c->e[k];
	c->n = kept;
	return 0;
}

/*
 * Put c->e[from, to) (one pack's) in the order of their offsets: the
 * index lists them by name. A radix sort, 16 bits of the offset at a
 * time: a pack below 4 GiB takes two passes.
 */
static int sort_by_offset(struct odb_commits *c, size_t from, size_t to)
{
	size_t n = to - from, i, sum;
	uint64_t top = 0;
	struct run_entry *tmp, *src, *dst;
	uint32_t *count;
	unsigned shift;

	if (n < 2)
		return 0;
	src = c->e + from;
	for (i = 0; i < n; i++)
		top |= src[i].offset;
	if (!top)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(65536 * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return error_oom();
	}
	dst = tmp;
	for (shift = 0; shift < 64 && top >> shift; shift += 16) {
		struct run_entry *swap;

		memset(count, 0, 65536 * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(src[i].offset >> shift) & 0xffff]++;
		for (i = 0, sum = 0; i < 65536; i++) {
			size_t k = count[i];

			count[i] = (uint32_t)sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].offset >> shift) & 0xffff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != c->e + from)
		memcpy(c->e + from, src, n * sizeof(*src));
	free(tmp);
	free(count);
	return 0;
}

static const unsigned char *entry_name(const struct odb_commits *c, size_t i)
{
	return odb_name_at(&c->db->packs[c->e[i].pack], c->e[i].pos);
}

/* Names are uniform: their first bytes make a hash. */
static size_t name_slot(const unsigned char *id, size_t mask)
{
	uint64_t h;

	memcpy(&h, id, sizeof(h));
	return (size_t)h & mask;
}

int odb_commits_list(struct odb_commits **out, struct odb *db)
{
	struct odb_commits *c = calloc(1, sizeof(*c));
	size_t i, slots = 1;
	int rc = 0;

	*out = NULL;
	if (!c)
		return error_oom();
	c->db = db;
	for (i = 0; i < db->npacks; i++) {
		size_t from = c->n;

		if ((rc = list_pack_commits(c, (uint32_t)i)) < 0 ||
		    (rc = sort_by_offset(c, from, c->n)) < 0)
			goto fail;
	}
	while (slots < 2 * c->n)
		slots *= 2;
	if (!(c->slot = calloc(slots, sizeof(*c->slot)))) {
		rc = error_oom();
		goto fail;
	}
	c->mask = slots - 1;
	for (i = 0; i < c->n; i++) {
		size_t s = name_slot(entry_name(c, i), c->mask);

		while (c->slot[s])
			s = (s + 1) & c->mask;
		c->slot[s] = (uint32_t)i + 1;
	}
	*out = c;
	return 0;
fail:
	odb_commits_free(c);
	return rc;
}

size_t odb_commits_count(const struct odb_commits *c)
{
	return c->n;
}

int64_t odb_commits_find(const struct odb_commits *c, const git_oid *oid)
{
	size_t s;

	if (!c->n)
		return -1;
	for (s = name_slot(oid->id, c->mask); c->slot[s];
	     s = (s + 1) & c->mask) {
		size_t i = c->slot[s] - 1;

		if (!memcmp(entry_name(c, i), oid->id, GIT_OID_RAWSZ))
			return (int64_t)i;
	}
	return -1;
}

int odb_commits_read(const struct odb_commits *c, size_t i,
		     unsigned char **buf, size_t *cap, size_t *len)
{
	const struct run_entry *r = &c->e[i];
	const struct pack *p = &c->db->packs[r->pack];
	struct entry e;
	int rc;

	if ((rc = odb_parse_entry(&e, p, r->offset)) < 0 ||
	    (rc = odb_check_entry_size(p, r->offset, e.size)) < 0)
		return rc;
	if (*cap < e.size + 1) {
		unsigned char *nb = realloc(*buf, e.size + 1);

		if (!nb)
			return error_oom();
		*buf = nb;
		*cap = e.size + 1;
	}
	if ((rc = odb_inflate_entry(*buf, p, &e, r->offset)) < 0)
		return rc;
	(*buf)[e.size] = '\0';
	*len = e.size;
	return 0;
}

void odb_commits_free(struct odb_commits *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->slot);
	free(c);
}
