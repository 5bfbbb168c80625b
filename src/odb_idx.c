/*
 * odb_idx: finding the packs (the object directories, their alternates),
 * mapping each pack and its index, checking them, and looking an object
 * name up in an index.
 */
#include "odb_int.h"

/* ---- opening the packs ------------------------------------------------ */

/*
 * Map the regular file at `path` (opened by util_open_regular(): a FIFO in
 * its place does not hang the run); anything but a regular file, and an
 * empty one, is refused. With `missing_ok`, a file that is not there gives
 * GIT_ENOTFOUND and no error.
 */
int odb_map_file(const char *path, const unsigned char **map,
		 size_t *size, bool missing_ok)
{
	struct stat st;
	void *p;
	int fd = util_open_regular(path, &st);

	if (fd == -1 && missing_ok && errno == ENOENT)
		return GIT_ENOTFOUND;
	if (fd == -1)
		return error_set("unable to open '%s': %s", path,
				 strerror(errno));
	if (fd == UTIL_NOT_FILE || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return error_set("unable to read '%s': %s", path,
				 fd >= 0 ? "it is empty" : "not a regular file");
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return error_set("unable to map '%s': %s", path,
				 strerror(errno));
	*map = p;
	*size = (size_t)st.st_size;
	return 0;
}

void odb_pack_release(struct pack *p)
{
	if (p->map && !p->borrowed)
		munmap((void *)p->map, p->size);
	if (p->idx && !p->borrowed)
		munmap((void *)p->idx, p->idxsize);
	free(p->path);
	memset(p, 0, sizeof(*p));
}

/* Check the index's layout and find its tables. */
int odb_parse_index(struct pack *p, const char *idxpath)
{
	const unsigned char *m = p->idx;
	const char *why;
	size_t need;
	uint32_t i, prev = 0;

	if (p->idxsize >= 8 && memcmp(m, "\377tOc", 4) == 0) {
		if (be32(m + 4) != 2)
			return error_set("unsupported pack index version in '%s'",
					 idxpath);
		p->version = 2;
		p->fanout = m + 8;
	} else {
		p->version = 1;
		p->fanout = m;
	}
	why = "too short";
	if (p->idxsize < (size_t)(p->fanout - m) + 1024)
		goto bad;
	why = "its fanout table goes down";
	for (i = 0; i < 256; i++) {
		uint32_t f = be32(p->fanout + 4 * i);

		if (f < prev)
			goto bad;
		prev = f;
	}
	p->n = prev;
	p->oids = p->fanout + 1024;
	why = "its size does not fit its object count";
	if (p->version == 2) {
		p->off32 = p->oids + (size_t)p->n * 24;  /* past the CRCs */
		p->off64 = p->off32 + (size_t)p->n * 4;
		need = 8 + 1024 + (size_t)p->n * 28 + 40;
		if (p->idxsize < need || (p->idxsize - need) % 8)
			goto bad;
		p->n64 = (p->idxsize - need) / 8;
		/*
		 * The first object lies at offset 12, so one entry at least
		 * has a 32-bit offset: git and libgit2 refuse an index with
		 * more 64-bit ones ("wrong index v2 file size"), which git
		 * index-pack --index-version=2,0 writes.
		 */
		if (p->n64 > (p->n ? p->n - 1 : 0))
			goto bad;
	} else {
		need = 1024 + (size_t)p->n * 24 + 40;
		if (p->idxsize != need)
			goto bad;
	}
	return 0;
bad:
	return error_set("corrupt pack index '%s': %s", idxpath, why);
}

/*
 * Check the pack against its index: the header's object count, the
 * checksum the index records for the pack (a pack cut short or another
 * pack's fails it), and every offset the index gives, inside the pack.
 * The entries themselves are checked as they are read.
 */
int odb_check_pack(const struct pack *p)
{
	uint32_t i;
	uint64_t off;

	if (p->size < 32 || memcmp(p->map, "PACK", 4) != 0 ||
	    (be32(p->map + 4) != 2 && be32(p->map + 4) != 3))
		return error_set("corrupt pack '%s': bad header", p->path);
	if (memcmp(p->idx + p->idxsize - 40, p->map + p->size - 20, 20) != 0)
		return error_set("corrupt pack '%s': it does not match its "
				 "index (truncated?)", p->path);
	if (be32(p->map + 8) != p->n)
		return error_set("corrupt pack '%s': it holds %u objects, its "
				 "index %u", p->path, be32(p->map + 8), p->n);
	for (i = 0; i < p->n; i++)
		if (!odb_offset_at(p, i, &off) || off < 12 ||
		    off >= p->size - 20)
			return error_set("corrupt pack index for '%s': object "
					 "%u is outside the pack", p->path, i);
	return 0;
}

/* Append *p to db's packs (then *p is db's, and zeroed). */
int odb_keep_pack(struct odb *db, struct pack *p)
{
	int rc;

	if ((rc = UTIL_GROW(db->packs, db->packs_alloc, db->npacks + 1)) < 0)
		return rc;
	db->packs[db->npacks++] = *p;
	memset(p, 0, sizeof(*p));
	return 0;
}

static int add_pack(struct odb *db, const char *dir, const char *idxname)
{
	struct pack p;
	size_t dl = strlen(dir), nl = strlen(idxname);
	char *idxpath = malloc(dl + nl + 2);
	int rc = 0;

	memset(&p, 0, sizeof(p));
	if (!idxpath || !(p.path = malloc(dl + nl + 3))) {
		free(idxpath);
		return error_oom();
	}
	snprintf(idxpath, dl + nl + 2, "%s/%s", dir, idxname);
	memcpy(p.path, idxpath, dl + 1 + nl - 4);
	memcpy(p.path + dl + 1 + nl - 4, ".pack", 6);
	if (access(p.path, F_OK) < 0)
		goto done;  /* an index left behind: git skips it too */
	if ((rc = odb_map_file(idxpath, &p.idx, &p.idxsize, false)) < 0 ||
	    (rc = odb_parse_index(&p, idxpath)) < 0 ||
	    (rc = odb_map_file(p.path, &p.map, &p.size, false)) < 0 ||
	    (rc = odb_check_pack(&p)) < 0)
		goto done;
	rc = odb_keep_pack(db, &p);
done:
	odb_pack_release(&p);
	free(idxpath);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The packs of directory `dir` (objects/pack), in name order. */
static int add_packs(struct odb *db, const char *dir)
{
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 4, ".idx") != 0)
			continue;
		if ((rc = UTIL_GROW(names, alloc, n + 1)) < 0)
			goto done;
		if (!(names[n] = strdup(de->d_name))) {
			rc = error_oom();
			goto done;
		}
		n++;
	}
	/* Any order is right (equal names, equal content); one order keeps
	 * runs alike. */
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	/* A pack that is damaged is an error: git fails on it too, once it
	 * needs an object in it, and libgit2 would only say less. */
	for (i = 0; i < n && rc == 0; i++)
		rc = add_pack(db, dir, names[i]);
done:
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/*
 * Note objdir (a real path, taken) as one of db's object directories:
 * 1, or 0 when it is one already (an alternate that names its own
 * store, or loops back to it through another path).
 */
static int add_dir(struct odb *db, char *real)
{
	size_t i;
	int rc;

	for (i = 0; i < db->ndirs; i++)
		if (!strcmp(db->dirs[i], real)) {
			free(real);
			return 0;
		}
	if ((rc = UTIL_GROW(db->dirs, db->dirs_alloc, db->ndirs + 1)) < 0) {
		free(real);
		return rc;
	}
	db->dirs[db->ndirs++] = real;
	return 1;
}

/* More is no list of object directories (git reads any size). */
#define ALTERNATES_MAX ((size_t)1 << 20)

/* One line of an alternates file: an object directory, maybe relative. */
static int add_alternate(struct odb *db, const char *objdir, char *line,
			 int depth)
{
	size_t l = strlen(line);
	char *path;
	int rc;

	while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
		line[--l] = 0;
	if (!l || line[0] == '#')
		return 0;
	if (line[0] == '/')
		return odb_add_objects_dir(db, line, depth + 1);
	if (asprintf(&path, "%s/%s", objdir, line) < 0)
		return error_oom();
	rc = odb_add_objects_dir(db, path, depth + 1);
	free(path);
	return rc;
}

/*
 * The object directories objdir/info/alternates names, relative ones
 * from objdir. Read as every file of a repository is (util_read_file()):
 * a FIFO or a device there is an error, not a hang.
 */
static int add_alternates(struct odb *db, const char *objdir, int depth)
{
	char *path, *data = NULL, *line, *save = NULL;
	size_t len;
	int rc;

	if (asprintf(&path, "%s/info/alternates", objdir) < 0)
		return error_oom();
	rc = util_read_file(&data, &len, path, ALTERNATES_MAX, NULL,
			    UTIL_MISSING_OK);
	free(path);
	if (rc != 0)
		return rc == UTIL_MISSING ? 0 : rc;
	if (memchr(data, '\0', len)) {
		free(data);
		return error_set("'%s/info/alternates' holds a NUL byte",
				 objdir);
	}
	for (line = strtok_r(data, "\n", &save); line && rc >= 0;
	     line = strtok_r(NULL, "\n", &save))
		rc = add_alternate(db, objdir, line, depth);
	free(data);
	return rc;
}

/*
 * The packs of one object directory, then of its alternates, each
 * directory once (by its real path): git's own alternates may name a
 * store twice, or loop.
 */
int odb_add_objects_dir(struct odb *db, const char *objdir, int depth)
{
	char *real = realpath(objdir, NULL), *dir;
	int rc;

	if (!real)
		return errno == ENOMEM ? error_oom() : 0;  /* git skips it too */
	if ((rc = add_dir(db, real)) <= 0)
		return rc;
	if (asprintf(&dir, "%s/pack", real) < 0)
		return error_oom();
	rc = add_packs(db, dir);
	free(dir);
	if (rc < 0 || depth >= MAX_ALTERNATE_DEPTH)
		return rc;
	return add_alternates(db, real, depth);
}

/* ---- looking names up ------------------------------------------------- */

/* The offset of the object at position `pos` of p's index, or false. */
bool odb_offset_at(const struct pack *p, uint32_t pos, uint64_t *offset)
{
	if (p->version == 1) {
		*offset = be32(p->oids + (size_t)pos * 24);
		return true;
	}
	*offset = be32(p->off32 + (size_t)pos * 4);
	if (*offset & 0x80000000u) {
		size_t k = *offset & 0x7fffffffu;

		if (k >= p->n64)
			return false;
		*offset = be64(p->off64 + k * 8);
	}
	return true;
}

/* The name of the object at position `pos` of p's index. */
const unsigned char *odb_name_at(const struct pack *p, uint32_t pos)
{
	return p->version == 2 ? p->oids + (size_t)pos * 20
			       : p->oids + (size_t)pos * 24 + 4;
}

/*
 * The offset of `oid` in pack p, or false.
 *
 * Object ids are uniformly spread, so the search guesses where in its range
 * the id should be from the 8 bytes after the first (which the fanout has
 * fixed), as git's sha1_entry_pos once did: four or five probes instead
 * of a dozen halvings, and each probe of a large index is a cache miss
 * (on a big repository the searches are a good part of the walk). When a
 * guess leaves more than half the range, the next probe halves it, so the
 * worst case stays logarithmic.
 */
bool odb_pack_find(const struct pack *p, const git_oid *oid,
		   uint64_t *offset)
{
	const unsigned char *id = oid->id, *name;
	uint32_t lo = id[0] ? be32(p->fanout + 4 * (id[0] - 1)) : 0;
	uint32_t hi = be32(p->fanout + 4 * id[0]);
	/* The keys just outside [lo, hi): what the range is known to span. */
	uint64_t key = be64(id + 1), klo = 0, khi = UINT64_MAX;
	bool halve = false;

	while (lo < hi) {
		uint32_t mid, was = hi - lo;
		int c;

		if (halve || hi - lo < 8 || khi <= klo) {
			mid = lo + (hi - lo) / 2;
		} else {
			double f = key <= klo ? 0.0 : key >= khi ? 1.0 :
				   (double)(key - klo) / (double)(khi - klo);

			mid = lo + (uint32_t)(f * (double)(hi - lo));
			if (mid >= hi)
				mid = hi - 1;
		}
		name = odb_name_at(p, mid);
		c = memcmp(name, id, 20);
		if (c == 0)
			return odb_offset_at(p, mid, offset);
		if (c < 0) {
			lo = mid + 1;
			klo = be64(name + 1);
		} else {
			hi = mid;
			khi = be64(name + 1);
		}
		halve = !halve && 2 * (hi - lo) > was;
	}
	return false;
}
