/*
 * odb_cache: the objects the reader has built, and the cache of them that
 * all threads share: a hash of (pack, offset), a filter read without a
 * lock, and CACHE_SHARDS parts each with its lock and LRU list, each
 * bounded to its share of the bytes.
 */
#include "odb_int.h"

/* ---- objects and their owners ----------------------------------------- */

/*
 * Each thread that builds objects has a home: a list onto which other
 * threads put the objects of its that they drop last, for it to free.
 * free() of a block another thread's arena gave takes that arena's lock,
 * which the owner then holds for most of its own malloc()s: the walk
 * evicting trees the reader built, while the reader builds more, waited
 * there most of all. The list is a stack pushed by any thread and taken
 * whole by its owner (no pop of one node, so no ABA), bounded in bytes:
 * past HOME_MAX a dropping thread frees the object itself. When the owner
 * ends, its home is closed (the list swapped for HOME_CLOSED) and what is
 * dropped later is freed where it is dropped. Homes live to the process's
 * end, on one list, since objects may outlive the thread; a thread that
 * starts takes a closed one over (any thread may free an object), so
 * there are never more homes than threads that were alive at once. An
 * object counts its header with its bytes against HOME_MAX.
 */
#define HOME_MAX ((size_t)8 << 20)
#define HOME_CLOSED (&home_closed_mark)

struct odb_home {
	_Atomic(struct obj *) back;
	atomic_size_t bytes;
	struct odb_home *next;
};

static struct obj home_closed_mark;
static pthread_key_t home_key;
static bool home_key_made;
static pthread_once_t home_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t homes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct odb_home *homes;
static _Thread_local struct odb_home *my_home;

/* What o counts against its home's HOME_MAX (obj_drop() empties held ones). */
static size_t obj_size(const struct obj *o)
{
	return sizeof(*o) + o->pub.len;
}

static void obj_release(struct obj *o)
{
	git_odb_object_free(o->held);
	free(o);
}

/* Free what h's list holds, leaving it empty or (at the end) closed. */
static void home_drain(struct odb_home *h, struct obj *closed_or_null)
{
	struct obj *o = atomic_exchange(&h->back, closed_or_null);
	size_t n = 0;

	while (o && o != HOME_CLOSED) {
		struct obj *next = o->hnext;

		n += obj_size(o);
		free(o);
		o = next;
	}
	atomic_fetch_sub(&h->bytes, n);
}

/* pthread's destructor at a thread's end: close its home. */
static void home_close(void *h)
{
	home_drain(h, HOME_CLOSED);
}

static void home_key_make(void)
{
	home_key_made = pthread_key_create(&home_key, home_close) == 0;
}

/* Under homes_lock: a closed home, reopened for the caller, or NULL. */
static struct odb_home *home_reopen(void)
{
	for (struct odb_home *h = homes; h; h = h->next) {
		struct obj *closed = HOME_CLOSED;

		if (atomic_compare_exchange_strong(&h->back, &closed, NULL))
			return h;
	}
	return NULL;
}

/* This thread's home, from its first object on; NULL if it has none. */
static struct odb_home *home_mine(void)
{
	struct odb_home *h = my_home;

	if (h)
		return h;
	pthread_once(&home_once, home_key_make);
	if (!home_key_made)
		return NULL;
	pthread_mutex_lock(&homes_lock);
	if (!(h = home_reopen()) && (h = calloc(1, sizeof(*h)))) {
		h->next = homes;
		homes = h;
	}
	pthread_mutex_unlock(&homes_lock);
	if (!h)
		return NULL;
	if (pthread_setspecific(home_key, h)) {
		/* Closed again, for the next thread to take. */
		atomic_store(&h->back, HOME_CLOSED);
		return NULL;
	}
	return my_home = h;
}

/* o's last ref is gone: free it here, or hand it back to its owner. */
static void obj_drop(struct obj *o)
{
	struct odb_home *h = o->home;
	struct obj *head;

	if (!h || h == my_home) {
		obj_release(o);
		return;
	}
	if (o->held) {
		git_odb_object_free(o->held);
		o->held = NULL;
		o->pub.data = NULL;
		o->pub.len = 0;
	}
	if (atomic_fetch_add(&h->bytes, obj_size(o)) + obj_size(o) > HOME_MAX)
		goto here;
	head = atomic_load(&h->back);
	do {
		if (head == HOME_CLOSED)
			goto here;
		o->hnext = head;
	} while (!atomic_compare_exchange_weak(&h->back, &head, o));
	return;
here:
	atomic_fetch_sub(&h->bytes, obj_size(o));
	free(o);
}

/* ---- objects and the cache -------------------------------------------- */

struct obj *odb_obj_new(size_t len, git_object_t type)
{
	struct odb_home *h = home_mine();
	struct obj *back = h ? atomic_load_explicit(&h->back,
						     memory_order_relaxed) : NULL;
	struct obj *o;

	if (back && back != HOME_CLOSED)
		home_drain(h, NULL);
	if (len > SIZE_MAX - sizeof(*o) - 1)
		return NULL;
	o = malloc(sizeof(*o) + len + 1);
	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	atomic_init(&o->refs, 1);
	o->home = h;
	o->pub.data = o->buf;
	o->pub.len = len;
	o->pub.type = type;
	o->buf[len] = 0;
	return o;
}

void odb_obj_decref(struct obj *o)
{
	if (o && atomic_fetch_sub(&o->refs, 1) == 1)
		obj_drop(o);
}

void odb_object_free(struct odb_object *obj)
{
	odb_obj_decref((struct obj *)obj);
}

struct odb_object *odb_object_dup(struct odb_object *obj)
{
	atomic_fetch_add(&((struct obj *)obj)->refs, 1);
	return obj;
}

static uint64_t key_hash(uint32_t pack, uint64_t offset)
{
	return (offset ^ (uint64_t)pack << 40) * 0x9e3779b97f4a7c15ull;
}

static size_t bucket_of(uint32_t pack, uint64_t offset)
{
	return (size_t)(key_hash(pack, offset) >> 48) & (BUCKETS - 1);
}

static struct odb_shard *shard_of(struct odb *db, uint32_t pack,
				   uint64_t offset)
{
	return &db->shard[bucket_of(pack, offset) % CACHE_SHARDS];
}

/* A shard's bound: its share of the cache's. */
static size_t shard_limit(const struct odb *db)
{
	return atomic_load(&db->limit) / CACHE_SHARDS;
}

static atomic_uchar *filter_of(struct odb *db, uint32_t pack, uint64_t offset)
{
	return &db->filter[(key_hash(pack, offset) >> 40) & (FILTER - 1)];
}

/* Under the lock: one more (d = 1) or one fewer (d = -1) object there. */
static void filter_add(struct odb *db, const struct obj *o, int d)
{
	atomic_uchar *f = filter_of(db, o->pack, o->offset);
	unsigned char v = atomic_load_explicit(f, memory_order_relaxed);

	if (v != 255)
		atomic_store_explicit(f, (unsigned char)(v + d),
				      memory_order_relaxed);
}

/* The least recently used object of a shard, or NULL. */
static struct obj *cache_oldest(const struct odb_shard *sh)
{
	if (!sh->lru.tail)
		return NULL;
	return util_container_of(sh->lru.tail, struct obj, lru);
}

/* Under sh's lock: the cached object at (pack, offset), with a new ref. */
static struct obj *cache_find(struct odb *db, struct odb_shard *sh,
			      uint32_t pack, uint64_t offset)
{
	struct obj *o = db->bucket[bucket_of(pack, offset)];

	for (; o; o = o->hnext) {
		if (o->pack == pack && o->offset == offset) {
			util_lru_touch(&sh->lru, &o->lru);
			atomic_fetch_add(&o->refs, 1);
			return o;
		}
	}
	return NULL;
}

/*
 * Under its shard's lock: take o out of the cache, onto *gone: the caller
 * drops the cache's ref once the lock is released, so that no free()
 * runs under it.
 */
static void cache_evict(struct odb *db, struct obj *o, struct obj **gone)
{
	struct obj **pp = &db->bucket[bucket_of(o->pack, o->offset)];
	struct odb_shard *sh = shard_of(db, o->pack, o->offset);

	while (*pp != o)
		pp = &(*pp)->hnext;
	*pp = o->hnext;
	util_lru_unlink(&sh->lru, &o->lru);
	filter_add(db, o, -1);
	sh->bytes -= o->pub.len;
	if (o->over)
		atomic_fetch_sub(&db->over, o->pub.len);
	o->over = false;
	o->cached = false;
	o->hnext = *gone;
	*gone = o;
}

/* Drop the cache's references to what cache_evict() set aside. */
static void evicted_release(struct obj *gone)
{
	while (gone) {
		struct obj *next = gone->hnext;

		odb_obj_decref(gone);
		gone = next;
	}
}

struct obj *odb_cache_get(struct odb *db, uint32_t pack, uint64_t offset)
{
	struct odb_shard *sh = shard_of(db, pack, offset);
	struct obj *o;

	if (!atomic_load_explicit(filter_of(db, pack, offset),
				  memory_order_relaxed))
		return NULL;
	pthread_mutex_lock(&sh->lock);
	o = cache_find(db, sh, pack, offset);
	pthread_mutex_unlock(&sh->lock);
	return o;
}

/*
 * Whether an object of len bytes may be cached: at most a quarter of the
 * bound, and if over a shard's share, within what `over` has left (then
 * counted there, and *over set).
 */
static bool cache_admit(struct odb *db, size_t len, bool *over)
{
	size_t limit = atomic_load(&db->limit);

	*over = false;
	if (len > limit / 4)
		return false;
	if (len <= shard_limit(db))
		return true;
	if (atomic_fetch_add(&db->over, len) + len > limit) {
		atomic_fetch_sub(&db->over, len);
		return false;
	}
	*over = true;
	return true;
}

/*
 * Offer *o, built from (pack, offset), to the cache. Should another
 * thread have put the same object there meanwhile, *o becomes that one.
 */
void odb_cache_put(struct odb *db, struct obj **o, uint32_t pack,
		   uint64_t offset)
{
	struct odb_shard *sh = shard_of(db, pack, offset);
	struct obj *have, *gone = NULL, *dup = NULL;
	size_t len = (*o)->pub.len;
	bool over;

	if (!cache_admit(db, len, &over))
		return;
	pthread_mutex_lock(&sh->lock);
	have = cache_find(db, sh, pack, offset);
	if (have) {
		/* Ours is dropped once the lock is released, as evicted
		 * objects are: no free() runs under it. */
		dup = *o;
		*o = have;
		if (over)
			atomic_fetch_sub(&db->over, len);
	} else {
		size_t b = bucket_of(pack, offset);

		(*o)->pack = pack;
		(*o)->offset = offset;
		(*o)->cached = true;
		(*o)->over = over;
		(*o)->hnext = db->bucket[b];
		db->bucket[b] = *o;
		filter_add(db, *o, 1);
		util_lru_push(&sh->lru, &(*o)->lru);
		atomic_fetch_add(&(*o)->refs, 1);
		sh->bytes += (*o)->pub.len;
		while (sh->bytes > shard_limit(db) &&
		       cache_oldest(sh) != *o)
			cache_evict(db, cache_oldest(sh), &gone);
	}
	pthread_mutex_unlock(&sh->lock);
	odb_obj_decref(dup);
	evicted_release(gone);
}

size_t odb_cache_bytes(struct odb *db)
{
	size_t n = 0;

	for (size_t k = 0; k < CACHE_SHARDS; k++) {
		pthread_mutex_lock(&db->shard[k].lock);
		n += db->shard[k].bytes;
		pthread_mutex_unlock(&db->shard[k].lock);
	}
	return n;
}

void odb_cache_trim(struct odb *db, bool all)
{
	struct obj *gone = NULL;

	for (size_t k = 0; k < CACHE_SHARDS; k++) {
		struct odb_shard *sh = &db->shard[k];

		pthread_mutex_lock(&sh->lock);
		while (cache_oldest(sh) && (all || sh->bytes > shard_limit(db)))
			cache_evict(db, cache_oldest(sh), &gone);
		pthread_mutex_unlock(&sh->lock);
	}
	evicted_release(gone);
}
