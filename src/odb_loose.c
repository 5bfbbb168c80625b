/*
 * odb_loose: loose objects, read and checked as git reads them, and the
 * zlib stream reader they share with the reading of prefixes.
 */
#include "odb_int.h"

/* ---- loose objects and prefixes --------------------------------------- */

int odb_too_large(const char *what, size_t size)
{
	return error_set("%s is too large (%zu bytes; the limit is %zu MiB)",
			 what, size, ODB_MAX_OBJECT >> 20);
}

int odb_zin_start(struct zin *z, const unsigned char *in, size_t n)
{
	memset(z, 0, sizeof(*z));
	if (inflateInit(&z->zs) != Z_OK)
		return error_oom();
	z->zs.next_in = (Bytef *)in;
	z->zs.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	return 0;
}

/*
 * Inflate up to `want` bytes into out, *got of them: fewer only where the
 * stream ends (*end). False for bad data, or a stream cut short.
 */
bool odb_zin_read(struct zin *z, unsigned char *out, size_t want,
		  size_t *got, bool *end)
{
	*got = 0;
	*end = false;
	while (*got < want) {
		size_t chunk = want - *got > UINT32_MAX ? UINT32_MAX
							: want - *got;
		int r;

		z->zs.next_out = out + *got;
		z->zs.avail_out = (uInt)chunk;
		r = inflate(&z->zs, Z_NO_FLUSH);
		*got += chunk - z->zs.avail_out;
		if (r == Z_STREAM_END) {
			*end = true;
			return true;
		}
		if (r != Z_OK)
			return false;
	}
	return true;
}

/* The stream ends here, and nothing follows it. */
static bool zin_ends(struct zin *z)
{
	unsigned char c;
	size_t got;
	bool end;

	return odb_zin_read(z, &c, 1, &got, &end) && end && !got &&
	       !z->zs.avail_in;
}

/*
 * A loose object's header, "TYPE SIZE\0" as git writes it (a canonical
 * decimal size): its length up to the NUL, or 0 when it is bad.
 */
static size_t loose_header(git_object_t *type, size_t *size,
			   const unsigned char *h, size_t n)
{
	static const char *const names[] = { "commit", "tree", "blob", "tag" };
	static const git_object_t types[] = { GIT_OBJECT_COMMIT,
		GIT_OBJECT_TREE, GIT_OBJECT_BLOB, GIT_OBJECT_TAG };
	const unsigned char *sp = memchr(h, ' ', n), *nul = memchr(h, 0, n);
	size_t i, v = 0;

	if (!sp || !nul || nul < sp + 2 || (sp[1] == '0' && nul > sp + 2))
		return 0;
	*type = GIT_OBJECT_INVALID;
	for (i = 0; i < 4; i++)
		if ((size_t)(sp - h) == strlen(names[i]) &&
		    !memcmp(h, names[i], (size_t)(sp - h)))
			*type = types[i];
	if (*type == GIT_OBJECT_INVALID)
		return 0;
	for (i = 1; sp + i < nul; i++) {
		if (sp[i] < '0' || sp[i] > '9' || v > (SIZE_MAX - 9) / 10)
			return 0;
		v = v * 10 + (size_t)(sp[i] - '0');
	}
	*size = v;
	return (size_t)(nul - h) + 1;
}

/*
 * Parse a loose object's file, z[0, n): its header, then the first
 * `want` bytes of its content (SIZE_MAX: all of it, which must end the
 * stream exactly, with nothing after it, as git requires) into a new
 * object *out, and its whole size in *size. Errors name `path`.
 */
static int loose_parse(struct obj **out, size_t *size, const unsigned char *z,
		       size_t n, size_t want, const char *path)
{
	unsigned char head[64];
	size_t got, hlen = 0, k;
	git_object_t type = GIT_OBJECT_INVALID;
	const char *why = "bad zlib data";
	struct obj *o = NULL;
	struct zin zi;
	bool end;
	int rc;

	*out = NULL;
	if ((rc = odb_zin_start(&zi, z, n)) < 0)
		return rc;
	if (!odb_zin_read(&zi, head, sizeof(head), &got, &end))
		goto bad;
	why = "bad header";
	if (!(hlen = loose_header(&type, size, head, got)))
		goto bad;
	if (want == SIZE_MAX && *size > ODB_MAX_OBJECT) {
		inflateEnd(&zi.zs);
		return error_set("loose object '%s' is too large (%zu bytes; "
				 "the limit is %zu MiB)", path, *size,
				 ODB_MAX_OBJECT >> 20);
	}
	if (want > *size)
		want = *size;
	if (!(o = odb_obj_new(want, type))) {
		inflateEnd(&zi.zs);
		return error_oom();
	}
	why = "longer than its header says";
	k = got - hlen;
	if (k > *size)
		goto bad;
	memcpy(o->buf, head + hlen, k < want ? k : want);
	why = "shorter than its header says";
	if (k < want && (end || !odb_zin_read(&zi, o->buf + k, want - k, &got,
					      &end) || got < want - k))
		goto bad;
	why = "longer than its header says, or followed by garbage";
	if (want == *size && (end ? zi.zs.avail_in != 0 : !zin_ends(&zi)))
		goto bad;
	inflateEnd(&zi.zs);
	*out = o;
	return 0;
bad:
	inflateEnd(&zi.zs);
	free(o);
	return error_set("corrupt loose object '%s': %s", path, why);
}

int odb_loose_parse(struct odb_object **out, const unsigned char *z,
		    size_t n, const char *path)
{
	struct obj *o;
	size_t size;
	int rc = loose_parse(&o, &size, z, n, SIZE_MAX, path);

	*out = rc < 0 ? NULL : &o->pub;
	return rc;
}

/*
 * Object oid, loose in one of db's object directories: its first `want`
 * bytes (SIZE_MAX: all), as loose_parse() reads them. GIT_ENOTFOUND when
 * it is in none of them.
 */
int odb_read_loose(struct obj **out, size_t *size, struct odb *db,
		   const git_oid *oid, size_t want)
{
	char hex[GIT_OID_HEXSZ + 1], *path;
	const unsigned char *map;
	size_t i, n;
	int rc = GIT_ENOTFOUND;

	*out = NULL;
	git_oid_tostr(hex, sizeof(hex), oid);
	for (i = 0; i < db->ndirs && rc == GIT_ENOTFOUND; i++) {
		if (asprintf(&path, "%s/%.2s/%s", db->dirs[i], hex, hex + 2) < 0)
			return error_oom();
		if ((rc = odb_map_file(path, &map, &n, true)) == 0) {
			rc = loose_parse(out, size, map, n, want, path);
			munmap((void *)map, n);
		}
		free(path);
	}
	return rc;
}
