/*
 * odb: opening the reader, and reading an object: down its delta chain
 * to a cached or whole object and back up, or from a loose file or
 * libgit2; stored forms and prefixes for diff.c and the binary check.
 */
#include "odb_int.h"

/* An empty reader (no packs yet). */
static int odb_new(struct odb **out, size_t cache_bytes)
{
	struct odb *db = calloc(1, sizeof(*db));
	pthread_mutexattr_t a;

	*out = NULL;
	if (!db)
		return error_oom();
	/*
	 * The lock is held for a few pointer moves at a time but taken for
	 * every object read: spinning a little before sleeping spares the
	 * futex calls of sleeping and waking the other thread.
	 */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	for (size_t k = 0; k < CACHE_SHARDS; k++)
		pthread_mutex_init(&db->shard[k].lock, &a);
	pthread_mutexattr_destroy(&a);
	db->base_limit = cache_bytes ? cache_bytes : DEFAULT_CACHE;
	atomic_init(&db->limit, db->base_limit);
	atomic_init(&db->over, 0);
	atomic_init(&db->reads, 0);
	atomic_init(&db->hits, 0);
	atomic_init(&db->built, 0);
	atomic_init(&db->fallback, 0);
	if (!(db->bucket = calloc(BUCKETS, sizeof(*db->bucket))) ||
	    !(db->filter = calloc(FILTER, sizeof(*db->filter)))) {
		odb_free(db);
		return error_oom();
	}
	*out = db;
	return 0;
}

int odb_open(struct odb **out, git_repository *git, size_t cache_bytes)
{
	struct odb *db = NULL;
	const char *common = git_repository_commondir(git);
	char *objdir = NULL;
	int rc = 0;

	*out = NULL;
	if ((rc = odb_new(&db, cache_bytes)) < 0)
		return rc;
	if (!(objdir = malloc(strlen(common) + 9))) {
		rc = error_oom();
		goto done;
	}
	snprintf(objdir, strlen(common) + 9, "%s%sobjects", common,
		common[0] && common[strlen(common) - 1] == '/' ? "" : "/");
	if ((rc = odb_add_objects_dir(db, objdir, 0)) < 0)
		goto done;
	*out = db;
	db = NULL;
done:
	free(objdir);
	odb_free(db);
	return rc;
}

int odb_open_memory(struct odb **out, const unsigned char *idx,
		    size_t idxlen, const unsigned char *pack, size_t packlen,
		    size_t cache_bytes)
{
	struct odb *db = NULL;
	struct pack p;
	int rc;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.borrowed = true;
	p.idx = idx;
	p.idxsize = idxlen;
	p.map = pack;
	p.size = packlen;
	if (!(p.path = strdup("memory.pack")))
		return error_oom();
	if ((rc = odb_parse_index(&p, "memory.idx")) < 0 ||
	    (rc = odb_check_pack(&p)) < 0 ||
	    (rc = odb_new(&db, cache_bytes)) < 0 ||
	    (rc = odb_keep_pack(db, &p)) < 0)
		goto done;
	*out = db;
	db = NULL;
done:
	odb_pack_release(&p);
	odb_free(db);
	return rc;
}

void odb_set_cache_limit(struct odb *db, size_t cache_bytes)
{
	atomic_store(&db->limit, cache_bytes ? cache_bytes : db->base_limit);
	odb_cache_trim(db, false);
}

void odb_free(struct odb *db)
{
	size_t i;

	if (!db)
		return;
	odb_cache_trim(db, true);
	for (i = 0; i < CACHE_SHARDS; i++)
		pthread_mutex_destroy(&db->shard[i].lock);
	for (i = 0; i < db->npacks; i++)
		odb_pack_release(&db->packs[i]);
	free(db->packs);
	free(db->bucket);
	free(db->filter);
	for (i = 0; i < db->ndirs; i++)
		free(db->dirs[i]);
	free(db->dirs);
	free(db);
}

void odb_set_missing_hint(struct odb *db, const char *hint)
{
	db->missing_hint = hint;
}

void odb_stats(struct odb_stats *out, struct odb *db)
{
	out->packs = db->npacks;
	out->reads = atomic_load(&db->reads);
	out->hits = atomic_load(&db->hits);
	out->built = atomic_load(&db->built);
	out->fallback = atomic_load(&db->fallback);
	out->cached = odb_cache_bytes(db);
}

static int read_fallback(struct obj **out, struct odb *db,
			 git_repository *git, const git_oid *oid);

/* Name-delta bases in other packs, nested no deeper than this. */
#define MAX_REF_DEPTH 16

/*
 * The entries of a delta chain walked down so far, top first: a chain
 * is rarely deeper than git's default of 50, so the first ones are on
 * the stack.
 */
struct chain {
	uint64_t first[64], *at;
	size_t n, alloc;
};

static int chain_push(struct chain *ch, uint64_t offset)
{
	if (ch->n == ch->alloc) {
		uint64_t *heap = ch->at == ch->first ? NULL : ch->at;
		size_t alloc = ch->at == ch->first ? 0 : ch->alloc;
		int rc;

		if ((rc = UTIL_GROW(heap, alloc, ch->n + 1)) < 0)
			return rc;
		if (ch->at == ch->first)
			memcpy(heap, ch->first, ch->n * sizeof(*heap));
		ch->at = heap;
		ch->alloc = alloc;
	}
	ch->at[ch->n++] = offset;
	return 0;
}

static int read_at(struct obj **out, struct odb *db, git_repository *git,
		   uint32_t pi, uint64_t offset, int depth);

/*
 * The base of the delta at `cur` named by id: the entry of the same pack
 * (*next, to go on down the chain, *base NULL), or the object read from
 * another pack or store (*base).
 */
static int chain_ref_base(struct obj **base, uint64_t *next, struct odb *db,
			  git_repository *git, uint32_t pi, uint64_t cur,
			  const unsigned char *ref, int depth)
{
	const struct pack *p = &db->packs[pi];
	struct odb_place other;
	git_oid bid;
	int rc = 0;

	*base = NULL;
	memcpy(bid.id, ref, 20);
	if (odb_pack_find(p, &bid, next))
		return *next == cur ? odb_corrupt_why(p, cur, "a delta against "
						      "itself")
				    : 0;
	if (depth >= MAX_REF_DEPTH)
		return odb_corrupt_why(p, cur, "its deltas go through too many "
				       "packs (a cycle?)");
	if (odb_locate(&other, db, &bid) == 0)
		rc = read_at(base, db, git, other.pack, other.offset,
			     depth + 1);
	else if (read_fallback(base, db, git, &bid) < 0)
		/*
		 * A base that no pack holds and libgit2 cannot read: this
		 * entry is damaged (a pack on disk holds the bases of its
		 * name deltas).
		 */
		rc = odb_corrupt_why(p, cur, "its delta base is missing");
	return rc;
}

/*
 * Walk down the delta chain of the entry at `offset` to a cached object
 * or a whole one (*base), noting the deltas on the way in ch.
 */
static int chain_down(struct obj **base, struct chain *ch, struct odb *db,
		      git_repository *git, uint32_t pi, uint64_t offset,
		      int depth)
{
	const struct pack *p = &db->packs[pi];
	uint64_t cur = offset;
	struct entry e;
	int rc;

	for (;;) {
		if ((*base = odb_cache_get(db, pi, cur)) != NULL) {
			if (ch->n == 0)
				atomic_fetch_add(&db->hits, 1);
			return 0;
		}
		if ((rc = odb_parse_entry(&e, p, cur)) < 0)
			return rc;
		if (e.type != T_OFS_DELTA && e.type != T_REF_DELTA)
			break;
		/*
		 * A chain visits each entry once: one longer than the pack
		 * has entries loops (name deltas can point forwards, and
		 * back again). A long chain is fine: git takes 100,000.
		 */
		if (ch->n > p->n)
			return odb_corrupt_why(p, offset, "its deltas form a "
					       "cycle");
		if ((rc = odb_check_entry_size(p, cur, e.size)) < 0 ||
		    (rc = chain_push(ch, cur)) < 0)
			return rc;
		if (e.type == T_OFS_DELTA) {
			cur = e.base;
			continue;
		}
		if ((rc = chain_ref_base(base, &cur, db, git, pi, cur, e.ref,
					 depth)) < 0 || *base)
			return rc;
	}
	if ((rc = odb_check_entry_size(p, cur, e.size)) < 0)
		return rc;
	if (!(*base = odb_obj_new(e.size, (git_object_t)e.type)))
		return error_oom();
	if ((rc = odb_inflate_entry((*base)->buf, p, &e, cur)) < 0)
		return rc;
	atomic_fetch_add(&db->built, 1);
	if (ch->n || (*base)->pub.type != GIT_OBJECT_COMMIT)
		odb_cache_put(db, base, pi, cur);
	return 0;
}

/* Apply the deltas of ch to *base, bottom up, caching every object. */
static int chain_up(struct obj **base, struct chain *ch, struct odb *db,
		    uint32_t pi)
{
	const struct pack *p = &db->packs[pi];
	unsigned char *delta = NULL;
	struct entry e;
	int rc = 0;

	while (ch->n) {
		uint64_t cur = ch->at[--ch->n];
		struct obj *next;
		bool oom;

		if ((rc = odb_parse_entry(&e, p, cur)) < 0)
			break;
		free(delta);
		if (!(delta = malloc(e.size + 1))) {
			rc = error_oom();
			break;
		}
		if ((rc = odb_inflate_entry(delta, p, &e, cur)) < 0)
			break;
		next = odb_apply_delta(*base, delta, delta + e.size, &oom);
		if (!next) {
			rc = oom ? error_oom()
				 : odb_corrupt_why(p, cur, "bad delta");
			break;
		}
		odb_obj_decref(*base);
		*base = next;
		atomic_fetch_add(&db->built, 1);
		if (ch->n || (*base)->pub.type != GIT_OBJECT_COMMIT)
			odb_cache_put(db, base, pi, cur);
	}
	free(delta);
	return rc;
}

/*
 * Build the object at (pack, offset): walk down its delta chain to a
 * cached object or a whole one, then apply the deltas back up, caching
 * every object on the way, as git's delta base cache does. Commits are
 * read once each, by the history: one asked for is not kept.
 */
static int read_at(struct obj **out, struct odb *db, git_repository *git,
		   uint32_t pi, uint64_t offset, int depth)
{
	struct chain ch;
	struct obj *base = NULL;
	int rc;

	*out = NULL;
	ch.at = ch.first;
	ch.n = 0;
	ch.alloc = sizeof(ch.first) / sizeof(*ch.first);
	if ((rc = chain_down(&base, &ch, db, git, pi, offset, depth)) == 0 &&
	    (rc = chain_up(&base, &ch, db, pi)) == 0) {
		*out = base;
		base = NULL;
	}
	odb_obj_decref(base);
	if (ch.at != ch.first)
		free(ch.at);
	return rc;
}

/*
 * An object in no pack: loose in one of the object directories, read
 * here and checked as git checks it; else whatever libgit2 finds (its
 * buffer is kept, not copied).
 */
static int read_fallback(struct obj **out, struct odb *db,
			 git_repository *git, const git_oid *oid)
{
	git_odb *odb = NULL;
	git_odb_object *o = NULL;
	struct obj *r;
	size_t size;
	int rc;

	*out = NULL;
	atomic_fetch_add(&db->fallback, 1);
	rc = odb_read_loose(out, &size, db, oid, SIZE_MAX);
	if (rc != GIT_ENOTFOUND)
		return rc;
	if (!git)
		return error_set("%s", db->missing_hint ? db->missing_hint :
				       "object not found");
	if ((rc = git_repository_odb(&odb, git)) < 0 ||
	    (rc = git_odb_read(&o, odb, oid)) < 0) {
		const git_error *ge = git_error_last();

		if (rc == GIT_ENOTFOUND && db->missing_hint)
			rc = error_set("%s", db->missing_hint);
		else
			rc = error_set("%s", ge && ge->message ? ge->message :
					     "object not found");
		goto done;
	}
	if (git_odb_object_size(o) > ODB_MAX_OBJECT) {
		rc = odb_too_large("object", git_odb_object_size(o));
		goto done;
	}
	if (!(r = odb_obj_new(0, git_odb_object_type(o)))) {
		rc = error_oom();
		goto done;
	}
	r->held = o;
	r->pub.data = git_odb_object_data(o);
	r->pub.len = git_odb_object_size(o);
	o = NULL;
	*out = r;
done:
	git_odb_object_free(o);
	git_odb_free(odb);
	return rc;
}

static int read_oid(struct obj **out, struct odb *db, git_repository *git,
		    const git_oid *oid)
{
	struct odb_place at;

	if (odb_locate(&at, db, oid) == 0)
		return read_at(out, db, git, at.pack, at.offset, 0);
	return read_fallback(out, db, git, oid);
}

int odb_read(struct odb_object **out, struct odb *db, git_repository *git,
	     const git_oid *oid, git_object_t want)
{
	const char *what = want == GIT_OBJECT_ANY ? "object" :
			   git_object_type2string(want);
	struct obj *o = NULL;
	git_object_t type;
	int rc;

	*out = NULL;
	atomic_fetch_add(&db->reads, 1);
	if ((rc = read_oid(&o, db, git, oid)) < 0)
		return error_prefix("unable to read %s '%s'", what,
				    git_oid_tostr_s(oid));
	type = o->pub.type;
	if (want != GIT_OBJECT_ANY && type != want) {
		odb_obj_decref(o);
		return error_set("unable to read %s '%s': it is a %s", what,
				 git_oid_tostr_s(oid),
				 git_object_type2string(type));
	}
	*out = &o->pub;
	return 0;
}

/* ---- stored forms ----------------------------------------------------- */

int odb_locate(struct odb_place *out, const struct odb *db,
	       const git_oid *oid)
{
	size_t i;

	for (i = 0; i < db->npacks; i++)
		if (odb_pack_find(&db->packs[i], oid, &out->offset)) {
			out->pack = (uint32_t)i;
			return 0;
		}
	return GIT_ENOTFOUND;
}

/* The pack of a place, or NULL (the error set). */
static const struct pack *place_pack(const struct odb *db,
				     struct odb_place at)
{
	if (at.pack < db->npacks)
		return &db->packs[at.pack];
	error_set("internal error: no pack %u", at.pack);
	return NULL;
}

size_t odb_pack_entries(const struct odb *db, struct odb_place at)
{
	return at.pack < db->npacks ? db->packs[at.pack].n : 0;
}

int odb_stored_at(struct odb_stored *out, const struct odb *db,
		  struct odb_place at)
{
	const struct pack *p = place_pack(db, at);
	struct entry e;
	int rc;

	if (!p)
		return STRATA_ERR;
	if ((rc = odb_parse_entry(&e, p, at.offset)) < 0 ||
	    (rc = odb_check_entry_size(p, at.offset, e.size)) < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->at = at;
	out->size = e.size;
	out->data = e.data;
	out->base.pack = at.pack;
	if (e.type == T_OFS_DELTA) {
		out->form = ODB_DELTA;
		out->base.offset = e.base;
	} else if (e.type == T_REF_DELTA) {
		git_oid bid;

		memcpy(bid.id, e.ref, 20);
		out->form = odb_pack_find(p, &bid, &out->base.offset) &&
			    out->base.offset != at.offset ? ODB_DELTA
							   : ODB_OTHER;
	} else {
		out->form = ODB_WHOLE;
		out->type = (git_object_t)e.type;
	}
	return 0;
}

int odb_stored_inflate(unsigned char *buf, const struct odb *db,
		       const struct odb_stored *s)
{
	const struct pack *p = place_pack(db, s->at);
	struct entry e;

	if (!p)
		return STRATA_ERR;
	memset(&e, 0, sizeof(e));
	e.size = s->size;
	e.data = s->data;
	return odb_inflate_entry(buf, p, &e, s->at.offset);
}

int odb_place_corrupt(const struct odb *db, struct odb_place at,
		      const char *why)
{
	const struct pack *p = place_pack(db, at);

	return p ? odb_corrupt_why(p, at.offset, why ? why : "bad entry")
		 : STRATA_ERR;
}

int odb_read_place(struct odb_object **out, struct odb *db,
		   git_repository *git, struct odb_place at)
{
	struct obj *o = NULL;
	int rc;

	*out = NULL;
	if (!place_pack(db, at))
		return STRATA_ERR;
	atomic_fetch_add(&db->reads, 1);
	if ((rc = read_at(&o, db, git, at.pack, at.offset, 0)) < 0)
		return rc;
	*out = &o->pub;
	return 0;
}

/* ---- prefixes --------------------------------------------------------- */

/* Inflate the first `want` bytes of the entry whose stream starts at
 * e->data (fewer when the stream is shorter): *got of them. */
static int inflate_prefix(unsigned char *out, size_t want, size_t *got,
			  const struct pack *p, const struct entry *e,
			  uint64_t offset)
{
	struct zin zi;
	bool end;
	int rc;

	rc = odb_zin_start(&zi, p->map + e->data, p->size - 20 - e->data);
	if (rc < 0)
		return rc;
	if (!odb_zin_read(&zi, out, want, got, &end)) {
		inflateEnd(&zi.zs);
		return odb_corrupt_why(p, offset, "bad zlib data");
	}
	inflateEnd(&zi.zs);
	return 0;
}

/*
 * A delta no longer than this is inflated whole by libdeflate to read its
 * header: faster than starting zlib for its first bytes.
 */
#define DELTA_WHOLE 4096
/* The bytes of a delta that hold its header: two sizes, as varints. */
#define DELTA_HEAD 24

/* The size of the object the delta entry e makes, from its first bytes. */
static int delta_result_size(size_t *size, const struct pack *p,
			     const struct entry *e, uint64_t offset)
{
	unsigned char head[DELTA_WHOLE];
	struct odb_delta it;
	size_t got;
	int rc;

	if (e->size <= DELTA_WHOLE) {
		if ((rc = odb_inflate_entry(head, p, e, offset)) < 0)
			return rc;
		got = e->size;
	} else if ((rc = inflate_prefix(head, DELTA_HEAD, &got, p, e,
					offset)) < 0) {
		return rc;
	}
	if (!odb_delta_start(&it, head, got))
		return odb_corrupt_why(p, offset, "bad delta");
	*size = it.len;
	return 0;
}

/*
 * Walk the instructions of the delta entry e (at `offset`), building
 * nothing: false unless they make exactly the size its header declares
 * from a base of the size it declares (*base_len).
 */
static int delta_walk(size_t *base_len, const struct pack *p,
		      const struct entry *e, uint64_t offset)
{
	unsigned char *d;
	const unsigned char *lit;
	struct odb_delta it;
	size_t off, n;
	enum odb_op op = ODB_OP_BAD;
	int rc;

	if ((rc = odb_check_entry_size(p, offset, e->size)) < 0)
		return rc;
	if (!(d = malloc(e->size + 1)))
		return error_oom();
	if ((rc = odb_inflate_entry(d, p, e, offset)) == 0 &&
	    odb_delta_start(&it, d, e->size)) {
		while ((op = odb_delta_next(&it, &off, &n, &lit)) == ODB_OP_COPY ||
		       op == ODB_OP_INSERT)
			;
		*base_len = it.base_len;
	}
	free(d);
	if (rc == 0 && op != ODB_OP_END)
		rc = odb_corrupt_why(p, offset, "bad delta");
	return rc;
}

/*
 * The size and type of the object at `at`, a delta whose result is too
 * large to build: git would build it, and fail where its instructions do
 * not make what the header says. So each delta down the chain must make
 * exactly its size from a base of the size it declares, which the next
 * one down must have; the first small enough to build is read (and so
 * checked whole), and a whole entry or a loose object has the size of its
 * header.
 */
static int huge_delta_size(size_t *size, git_object_t *type, struct odb *db,
			   git_repository *git, struct odb_place at)
{
	const struct pack *p = &db->packs[at.pack];
	size_t want = SIZE_MAX, hops, len, entries = 0;
	struct odb_place prev = at;
	struct entry e;
	int rc;

	*type = GIT_OBJECT_INVALID;
	for (hops = 0; hops < db->npacks; hops++)
		entries += db->packs[hops].n;
	for (hops = 0;; hops++) {
		struct obj *o;
		git_oid bid;
		uint64_t off;

		if ((rc = odb_parse_entry(&e, p, at.offset)) < 0)
			return rc;
		if (e.type != T_OFS_DELTA && e.type != T_REF_DELTA) {
			len = e.size;
			*type = (git_object_t)e.type;
			break;
		}
		/* A chain visits each entry once (as in chain_down()). */
		if (hops > entries)
			return odb_corrupt_why(p, at.offset, "its deltas form a "
					       "cycle");
		if ((rc = delta_result_size(&len, p, &e, at.offset)) < 0)
			return rc;
		if (len <= ODB_MAX_OBJECT) {
			if ((rc = read_at(&o, db, git, at.pack, at.offset, 0)) < 0)
				return rc;
			len = o->pub.len;
			*type = o->pub.type;
			odb_obj_decref(o);
			break;
		}
		if (want != SIZE_MAX && len != want)
			break;
		if (!hops)
			*size = len;
		prev = at;
		if ((rc = delta_walk(&want, p, &e, at.offset)) < 0)
			return rc;
		if (e.type == T_OFS_DELTA) {
			at.offset = e.base;
			continue;
		}
		memcpy(bid.id, e.ref, 20);
		if (odb_pack_find(p, &bid, &off)) {
			if (off == at.offset)
				return odb_corrupt_why(p, at.offset, "a delta "
						       "against itself");
			at.offset = off;
			continue;
		}
		if (odb_locate(&at, db, &bid) == 0) {
			p = &db->packs[at.pack];
			continue;
		}
		/* In no pack: loose, its header read alone. */
		rc = odb_read_loose(&o, &len, db, &bid, 0);
		if (rc == GIT_ENOTFOUND)
			return odb_corrupt_why(p, prev.offset, "its delta base is "
					       "missing");
		if (rc < 0)
			return rc;
		*type = o->pub.type;
		odb_obj_decref(o);
		break;
	}
	if (want != SIZE_MAX && len != want)
		return odb_corrupt_why(&db->packs[prev.pack], prev.offset,
				       "bad delta");
	if (!hops)
		*size = len;
	return 0;
}

/* A blob's first bytes from an object read whole. */
static void copy_prefix(unsigned char *buf, size_t cap, size_t *got,
			size_t *size, const struct obj *o)
{
	*size = o->pub.len;
	*got = o->pub.len < cap ? o->pub.len : cap;
	memcpy(buf, o->pub.data, *got);
}

/* odb_read_prefix() of a blob stored in a pack, at `at`. */
static int packed_prefix(unsigned char *buf, size_t cap, size_t *got,
			 size_t *size, struct odb *db, git_repository *git,
			 struct odb_place at, const git_oid *oid)
{
	const struct pack *p = &db->packs[at.pack];
	struct odb_object *o;
	struct entry e;
	int rc;

	*got = 0;
	if ((rc = odb_parse_entry(&e, p, at.offset)) < 0)
		return rc;
	if (e.type == T_OFS_DELTA || e.type == T_REF_DELTA) {
		git_object_t type;

		if ((rc = delta_result_size(size, p, &e, at.offset)) < 0)
			return rc;
		if (*size > ODB_MAX_OBJECT) {
			if ((rc = huge_delta_size(size, &type, db, git, at)) < 0)
				return rc;
			if (type != GIT_OBJECT_BLOB)
				return error_set("unable to read blob '%s': it "
						 "is a %s", git_oid_tostr_s(oid),
						 git_object_type2string(type));
			return 0;
		}
		if ((rc = odb_read(&o, db, git, oid, GIT_OBJECT_BLOB)) < 0)
			return rc;
		copy_prefix(buf, cap, got, size, (const struct obj *)o);
		odb_object_free(o);
		return 0;
	}
	if (e.type != GIT_OBJECT_BLOB)
		return error_set("unable to read blob '%s': it is a %s",
				 git_oid_tostr_s(oid),
				 git_object_type2string((git_object_t)e.type));
	*size = e.size;
	if (e.size > ODB_MAX_OBJECT)
		return 0;
	/* Whole, as odb_read() would inflate it: libdeflate is the faster. */
	if (e.size <= cap) {
		if ((rc = odb_inflate_entry(buf, p, &e, at.offset)) < 0)
			return rc;
		*got = e.size;
		return 0;
	}
	if ((rc = inflate_prefix(buf, cap, got, p, &e, at.offset)) < 0)
		return rc;
	if (*got < cap)
		return odb_corrupt_why(p, at.offset, "shorter than its size");
	return 0;
}

int odb_read_prefix(unsigned char *buf, size_t cap, size_t *got,
		    size_t *size, struct odb *db, git_repository *git,
		    const git_oid *oid)
{
	struct odb_object *o;
	struct odb_place at;
	struct obj *lo;
	int rc;

	*got = *size = 0;
	if (odb_locate(&at, db, oid) == 0)
		rc = packed_prefix(buf, cap, got, size, db, git, at, oid);
	else if ((rc = odb_read_loose(&lo, size, db, oid, cap)) == 0) {
		if (lo->pub.type != GIT_OBJECT_BLOB)
			rc = error_set("unable to read blob '%s': it is a %s",
				       git_oid_tostr_s(oid),
				       git_object_type2string(lo->pub.type));
		else
			copy_prefix(buf, cap, got, &(size_t){0}, lo);
		odb_obj_decref(lo);
	} else if (rc == GIT_ENOTFOUND &&
		   (rc = odb_read(&o, db, git, oid, GIT_OBJECT_BLOB)) == 0) {
		copy_prefix(buf, cap, got, size, (const struct obj *)o);
		odb_object_free(o);
	}
	if (rc < 0 && !strstr(error_last(), git_oid_tostr_s(oid)))
		return error_prefix("unable to read blob '%s'",
				    git_oid_tostr_s(oid));
	return rc;
}
