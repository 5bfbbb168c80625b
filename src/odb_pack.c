/*
 * odb_pack: the entries of a pack: their headers, inflating them, and
 * reading and applying deltas.
 */
#include "odb_int.h"

int odb_corrupt_why(const struct pack *p, uint64_t offset,
		    const char *why)
{
	return error_set("corrupt object at offset %llu in '%s': %s",
			 (unsigned long long)offset, p->path, why);
}

static int corrupt(const struct pack *p, uint64_t offset)
{
	return odb_corrupt_why(p, offset, "bad entry");
}

/* An entry may be read whole only within the limit. */
int odb_check_entry_size(const struct pack *p, uint64_t offset,
			 size_t size)
{
	if (size <= ODB_MAX_OBJECT)
		return 0;
	return error_set("object at offset %llu in '%s' is too large (%zu "
			 "bytes; the limit is %zu MiB)",
			 (unsigned long long)offset, p->path, size,
			 ODB_MAX_OBJECT >> 20);
}

/* The type in the header of the entry at `offset`, or -1. */
int odb_type_at(const struct pack *p, uint64_t offset)
{
	if (offset < 12 || offset >= p->size - 20)
		return -1;
	return (p->map[offset] >> 4) & 7;
}

int odb_parse_entry(struct entry *e, const struct pack *p,
		    uint64_t offset)
{
	size_t end = p->size - 20, at = (size_t)offset;
	unsigned shift = 4;
	unsigned char c;

	if ((e->type = odb_type_at(p, offset)) < 0)
		return corrupt(p, offset);
	c = p->map[at++];
	e->size = c & 15;
	while (c & 0x80) {
		if (at >= end || shift > 57)
			return corrupt(p, offset);
		c = p->map[at++];
		e->size += (size_t)(c & 0x7f) << shift;
		shift += 7;
	}
	if (e->type == T_OFS_DELTA) {
		uint64_t ofs;

		if (at >= end)
			return corrupt(p, offset);
		c = p->map[at++];
		ofs = c & 0x7f;
		while (c & 0x80) {
			if (at >= end || ofs >> 56)
				return corrupt(p, offset);
			c = p->map[at++];
			ofs = ((ofs + 1) << 7) | (c & 0x7f);
		}
		if (ofs == 0 || ofs > offset)
			return corrupt(p, offset);
		e->base = offset - ofs;
	} else if (e->type == T_REF_DELTA) {
		if (at + 20 > end)
			return corrupt(p, offset);
		e->ref = p->map + at;
		at += 20;
	} else if (e->type < GIT_OBJECT_COMMIT || e->type > GIT_OBJECT_TAG) {
		return odb_corrupt_why(p, offset, "bad object type");
	}
	e->data = at;
	if (e->size / DEFLATE_RATIO > end - at)
		return odb_corrupt_why(p, offset, "its size is more than its "
				       "compressed bytes can hold");
	return 0;
}

/*
 * One decompressor per thread (libdeflate's are not to be shared), freed
 * when the thread ends.
 */
static pthread_key_t inflater_key;
static pthread_once_t inflater_once = PTHREAD_ONCE_INIT;
static bool inflater_key_ok;
static _Thread_local struct libdeflate_decompressor *inflater_mine;

static void inflater_free(void *d)
{
	libdeflate_free_decompressor(d);
}

static void inflater_key_make(void)
{
	inflater_key_ok =
		pthread_key_create(&inflater_key, inflater_free) == 0;
}

static struct libdeflate_decompressor *inflater_get(void)
{
	if (!inflater_mine) {
		pthread_once(&inflater_once, inflater_key_make);
		if (!inflater_key_ok)
			return NULL;
		inflater_mine = libdeflate_alloc_decompressor();
		if (inflater_mine)
			pthread_setspecific(inflater_key, inflater_mine);
	}
	return inflater_mine;
}

/*
 * Inflate the entry's zlib stream (which ends somewhere before the pack's
 * trailer) into exactly e->size bytes at out.
 */
int odb_inflate_entry(unsigned char *out, const struct pack *p,
		      const struct entry *e, uint64_t offset)
{
	struct libdeflate_decompressor *d = inflater_get();
	size_t in_left = p->size - 20 - e->data, in_used, out_len;
	enum libdeflate_result r;

	if (!d)
		return error_oom();
	r = libdeflate_zlib_decompress_ex(d, p->map + e->data, in_left, out,
					  e->size, &in_used, &out_len);
	if (r != LIBDEFLATE_SUCCESS || out_len != e->size)
		return odb_corrupt_why(p, offset, r == LIBDEFLATE_SUCCESS ?
				       "shorter than its size" :
				       r == LIBDEFLATE_INSUFFICIENT_SPACE ?
				       "longer than its size" : "bad zlib data");
	return 0;
}

static bool delta_size(const unsigned char **d, const unsigned char *end,
		       size_t *out)
{
	size_t v = 0;
	unsigned shift = 0;
	unsigned char c;

	do {
		if (*d >= end || shift > 57)
			return false;
		c = *(*d)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	return true;
}

bool odb_delta_start(struct odb_delta *it, const unsigned char *d, size_t n)
{
	it->end = d + n;
	it->at = 0;
	if (!delta_size(&d, it->end, &it->base_len) ||
	    !delta_size(&d, it->end, &it->len))
		return false;
	it->d = d;
	return true;
}

enum odb_op odb_delta_next(struct odb_delta *it, size_t *off, size_t *n,
			   const unsigned char **lit)
{
	const unsigned char *d = it->d, *end = it->end;
	unsigned char op;

	if (d == end)
		return it->at == it->len ? ODB_OP_END : ODB_OP_BAD;
	op = *d++;
	if (op & 0x80) {
		size_t o = 0, k = 0;
		unsigned i;

		for (i = 0; i < 4; i++)
			if (op & (1u << i)) {
				if (d >= end)
					return ODB_OP_BAD;
				o |= (size_t)*d++ << (8 * i);
			}
		for (i = 0; i < 3; i++)
			if (op & (0x10u << i)) {
				if (d >= end)
					return ODB_OP_BAD;
				k |= (size_t)*d++ << (8 * i);
			}
		if (!k)
			k = 0x10000;
		if (o > it->base_len || k > it->base_len - o ||
		    k > it->len - it->at)
			return ODB_OP_BAD;
		*off = o;
		*n = k;
		it->d = d;
		it->at += k;
		return ODB_OP_COPY;
	}
	if (!op || op > (size_t)(end - d) || op > it->len - it->at)
		return ODB_OP_BAD;
	*lit = d;
	*n = op;
	it->d = d + op;
	it->at += op;
	return ODB_OP_INSERT;
}

/* Apply delta [d, dend) to base: a new object, or NULL when malformed
 * (*oom set when out of memory). */
struct obj *odb_apply_delta(const struct obj *base,
			    const unsigned char *d,
			    const unsigned char *dend, bool *oom)
{
	struct odb_delta it;
	const unsigned char *lit;
	size_t off, n;
	enum odb_op op;
	struct obj *o;

	*oom = false;
	if (!odb_delta_start(&it, d, (size_t)(dend - d)) ||
	    it.base_len != base->pub.len)
		return NULL;
	/* Each instruction takes a byte at least and makes at most the
	 * base's size, or 127 bytes: a larger size is a lie. */
	if (it.len > ODB_MAX_OBJECT ||
	    it.len / (it.base_len > 127 ? it.base_len : 127) >
	    (size_t)(dend - d))
		return NULL;
	if (!(o = odb_obj_new(it.len, base->pub.type))) {
		*oom = true;
		return NULL;
	}
	while ((op = odb_delta_next(&it, &off, &n, &lit)) != ODB_OP_END) {
		if (op == ODB_OP_COPY)
			memcpy(o->buf + it.at - n, base->buf + off, n);
		else if (op == ODB_OP_INSERT)
			memcpy(o->buf + it.at - n, lit, n);
		else
			break;
	}
	if (op == ODB_OP_END)
		return o;
	free(o);
	return NULL;
}
