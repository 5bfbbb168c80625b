/*
 * odb_home_test REPO BLOB1 BLOB2 BLOB3 BLOB4 BLOB5 SMALL
 *
 * Objects are freed on the thread that made them (src/odb_cache.c), and
 * the lists that hand them back are bounded. BLOB1..5 name blobs of 3 MiB
 * (distinct), SMALL any small object. Built with the linker's --wrap for
 * malloc and free, it notes which thread allocated each block of 1 MiB
 * or more in src/odb*.c and which thread frees it. A maker thread reads
 * objects and hands them to the main thread, which drops them, in steps
 * taken one after the other (no timing):
 *
 *   1. the maker reads BLOB1 and BLOB2; main drops both: nothing is freed
 *      (they wait on the maker's list); the maker reads BLOB3, and so
 *      frees BLOB1 and BLOB2 itself first;
 *   2. the maker reads BLOB4 and BLOB5; main drops BLOB3, 4 and 5: the
 *      first two wait (6 MiB), the third would pass the list's 8 MiB and
 *      is freed by main; the maker reads SMALL, freeing the two;
 *   3. the maker reads BLOB1 again and ends; main drops it: freed by main,
 *      as the maker's list closed with it.
 *
 * Prints "ok" and exits 0 when each step freed what it should, where it
 * should, and no big block is left.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/odb.h"

#define BIG ((size_t)1 << 20)
#define SLOTS 64

void *__real_malloc(size_t n);
void __real_free(void *p);

static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; pthread_t by; } big[SLOTS];
static size_t freed_by_maker, freed_by_other, nbig;

void *__wrap_malloc(size_t n)
{
	void *p = __real_malloc(n);

	if (p && n >= BIG) {
		pthread_mutex_lock(&note_lock);
		for (size_t i = 0; i < SLOTS; i++) {
			if (!big[i].p) {
				big[i].p = p;
				big[i].by = pthread_self();
				nbig++;
				break;
			}
		}
		pthread_mutex_unlock(&note_lock);
	}
	return p;
}

void __wrap_free(void *p)
{
	pthread_mutex_lock(&note_lock);
	for (size_t i = 0; p && i < SLOTS; i++) {
		if (big[i].p == p) {
			if (pthread_equal(big[i].by, pthread_self()))
				freed_by_maker++;
			else
				freed_by_other++;
			big[i].p = NULL;
			nbig--;
			break;
		}
	}
	pthread_mutex_unlock(&note_lock);
	__real_free(p);
}

struct run {
	const char *path;
	struct odb *db;
	git_oid oid[7];          /* BLOB1..5, SMALL */
	struct odb_object *held[8];
	size_t nheld;
	int want[8];             /* the objects of the next step, -1 ends */
	int step, done, failed;  /* steps asked for and done */
	pthread_mutex_t lock;
	pthread_cond_t moved;
};

/* The maker: each step, read the objects asked for and hold them. */
static void *maker(void *arg)
{
	struct run *r = arg;
	git_repository *git = NULL;
	int step, last = 0;

	if (git_repository_open(&git, r->path) < 0)
		r->failed = 1;
	for (step = 1; !last; step++) {
		pthread_mutex_lock(&r->lock);
		while (r->step < step)
			pthread_cond_wait(&r->moved, &r->lock);
		pthread_mutex_unlock(&r->lock);
		/* (once failed, it goes on through the steps reading nothing,
		 * for main to end and say so) */
		for (int k = 0; !r->failed && r->want[k] >= 0; k++) {
			struct odb_object *o;

			if (odb_read(&o, r->db, git, &r->oid[r->want[k]],
				     GIT_OBJECT_ANY) < 0) {
				fprintf(stderr, "odb_home_test: %s\n",
					error_last());
				r->failed = 1;
				break;
			}
			r->held[r->nheld++] = o;
		}
		pthread_mutex_lock(&r->lock);
		/* Read under the lock: once done is set, main may ask for
		 * the next step and write want[] again. */
		last = r->want[0] < 0;
		r->done = step;
		pthread_cond_broadcast(&r->moved);
		pthread_mutex_unlock(&r->lock);
	}
	git_repository_free(git);
	return NULL;
}

/* Ask the maker for objects (ending with -1), and wait for them. */
static void step(struct run *r, int a, int b)
{
	pthread_mutex_lock(&r->lock);
	r->want[0] = a;
	r->want[1] = b;
	r->want[2] = -1;
	r->step++;
	pthread_cond_broadcast(&r->moved);
	while (r->done < r->step)
		pthread_cond_wait(&r->moved, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

/* Drop what the maker holds, on this thread. */
static void drop(struct run *r)
{
	while (r->nheld > 0)
		odb_object_free(r->held[--r->nheld]);
}

static int expect(const char *what, size_t maker_frees, size_t other_frees)
{
	if (freed_by_maker == maker_frees && freed_by_other == other_frees)
		return 0;
	fprintf(stderr, "odb_home_test: %s: freed by the maker %zu (want "
		"%zu), by another thread %zu (want %zu)\n", what,
		freed_by_maker, maker_frees, freed_by_other, other_frees);
	return 1;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	git_repository *git = NULL;
	pthread_t th;
	int bad = 0;

	if (argc != 8) {
		fprintf(stderr, "usage: odb_home_test REPO BLOB1..5 SMALL\n");
		return 2;
	}
	git_libgit2_init();
	r.path = argv[1];
	for (int i = 0; i < 6; i++)
		if (git_oid_fromstr(&r.oid[i], argv[2 + i]) < 0)
			return 2;
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.moved, NULL);
	if (git_repository_open(&git, r.path) < 0 ||
	    odb_open(&r.db, git, 0) < 0) {
		fprintf(stderr, "odb_home_test: %s\n", error_last());
		return 1;
	}
	/* Nothing cached: each drop below is the object's last reference. */
	odb_set_cache_limit(r.db, 1);
	if (pthread_create(&th, NULL, maker, &r))
		return 1;

	step(&r, 0, 1);
	drop(&r);
	bad |= expect("BLOB1 and BLOB2 dropped", 0, 0);
	step(&r, 2, -1);
	bad |= expect("BLOB3 read", 2, 0);
	step(&r, 3, 4);
	drop(&r);
	bad |= expect("BLOB3 to 5 dropped", 2, 1);
	step(&r, 5, -1);
	bad |= expect("SMALL read", 4, 1);
	drop(&r);
	step(&r, 0, -1);
	step(&r, -1, -1);
	pthread_join(th, NULL);
	drop(&r);
	bad |= expect("BLOB1 dropped after the maker ended", 4, 2);
	if (nbig) {
		fprintf(stderr, "odb_home_test: %zu big blocks left\n", nbig);
		bad = 1;
	}
	odb_free(r.db);
	git_repository_free(git);
	git_libgit2_shutdown();
	if (bad || r.failed)
		return 1;
	puts("ok");
	return 0;
}
