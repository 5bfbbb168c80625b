/*
 * odb_test REPO [THREADS [CACHE_BYTES]] < NAMES
 *
 * Reads every object named on stdin (one 40-hex name per line) through
 * src/odb.c and prints them the way `git cat-file --batch` does, so the
 * two outputs can be compared byte for byte. With THREADS > 1 the names
 * are also read concurrently by that many threads, each checking its
 * reads against the first pass. Prints the reader's counters on stderr.
 *
 * With ODB_TEST_ABSENT set, every name must instead be missing: each read
 * must fail, and the count of them is printed.
 *
 * With ODB_TEST_COMMITS set, the names are looked up in the list of
 * commits at the head of the packs instead: those found are printed as
 * above (from the list, not odb_read()), the others not at all, and the
 * count found goes to stderr. With ODB_TEST_ORDER=FILE too, the names
 * found are written there in the list's order.
 *
 * With ODB_TEST_BOUND set, the first pass checks after each read that
 * the cache holds at most twice CACHE_BYTES, and prints the most it held
 * ("cached_most N" on stderr).
 *
 * With ODB_TEST_SHRINK set, the cache's bound then drops to one byte: a
 * second pass must find nothing in the cache and read the same content;
 * the bound goes back, and a third pass reads the same again.
 *
 * Built with -DODB_TEST_LOCK_WATCH and the linker's --wrap for free,
 * pthread_mutex_lock and pthread_mutex_unlock, it counts the free() calls
 * that the reader makes while it holds a lock of its own (the cache's
 * lock is held for a few pointer moves and taken by every read: freeing
 * under it makes the other threads wait), and fails if there are any.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"
#include "strata/odb.h"

#ifdef ODB_TEST_LOCK_WATCH
#include <sched.h>
#include <stdatomic.h>

void __real_free(void *p);
int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __real_pthread_mutex_unlock(pthread_mutex_t *m);

static _Thread_local int locks_held;
static atomic_size_t frees_locked;

void __wrap_free(void *p)
{
	if (p && locks_held)
		atomic_fetch_add(&frees_locked, 1);
	__real_free(p);
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
	int rc;

	/* Let the other threads run first: they then build the same
	 * objects as this one at once, and offer them to the cache too. */
	sched_yield();
	rc = __real_pthread_mutex_lock(m);

	if (!rc)
		locks_held++;
	return rc;
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
	locks_held--;
	return __real_pthread_mutex_unlock(m);
}
#endif

struct shared {
	const char *path;
	struct odb *db;
	git_oid *oids;
	struct odb_object **first;
	size_t n;
	int failed;
};

/* ODB_TEST_BOUND: the cache within twice its bound; *most the most seen. */
static int check_bound(struct shared *s, size_t cache, size_t *most)
{
	struct odb_stats st;

	odb_stats(&st, s->db);
	if (st.cached > *most)
		*most = st.cached;
	if (st.cached <= 2 * cache)
		return 0;
	fprintf(stderr, "odb_test: the cache holds %zu bytes, its bound is "
		"%zu\n", st.cached, cache);
	return -1;
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	git_repository *git = NULL;
	size_t i;

	if (git_repository_open(&git, s->path) < 0) {
		s->failed = 1;
		return NULL;
	}
	/* Backwards, to meet the other pass in the middle of chains. */
	for (i = s->n; i-- > 0;) {
		struct odb_object *o;

		if (odb_read(&o, s->db, git, &s->oids[i], GIT_OBJECT_ANY) < 0) {
			fprintf(stderr, "odb_test: %s\n", error_last());
			s->failed = 1;
			break;
		}
		if (o->len != s->first[i]->len || o->type != s->first[i]->type ||
		    memcmp(o->data, s->first[i]->data, o->len) != 0) {
			fprintf(stderr, "odb_test: thread read of %s differs\n",
				git_oid_tostr_s(&s->oids[i]));
			s->failed = 1;
		}
		odb_object_free(o);
	}
	git_repository_free(git);
	return NULL;
}

int main(int argc, char **argv)
{
	struct shared s;
	git_repository *git = NULL;
	struct odb_stats st;
	char line[128];
	size_t alloc = 0, i;
	int threads = argc > 2 ? atoi(argv[2]) : 1, t, rc = 1;
	size_t cache = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 0;
	size_t most = 0;
	bool bound = getenv("ODB_TEST_BOUND") != NULL;
	pthread_t th[16];

	memset(&s, 0, sizeof(s));
	if (argc < 2 || threads < 1 || threads > 16) {
		fprintf(stderr, "usage: odb_test REPO [THREADS [CACHE]]\n");
		return 2;
	}
	git_libgit2_init();
	s.path = argv[1];
	if (git_repository_open(&git, s.path) < 0 ||
	    odb_open(&s.db, git, cache) < 0) {
		fprintf(stderr, "odb_test: %s\n", error_last());
		goto done;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (s.n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			s.oids = realloc(s.oids, alloc * sizeof(*s.oids));
			s.first = realloc(s.first, alloc * sizeof(*s.first));
			if (!s.oids || !s.first)
				goto done;
		}
		line[strcspn(line, "\n")] = 0;
		if (git_oid_fromstr(&s.oids[s.n], line) < 0) {
			fprintf(stderr, "odb_test: bad name '%s'\n", line);
			goto done;
		}
		s.first[s.n++] = NULL;
	}
	if (getenv("ODB_TEST_COMMITS")) {
		struct odb_commits *list = NULL;
		unsigned char *buf = NULL;
		size_t cap = 0, len, found = 0;
		const char *order = getenv("ODB_TEST_ORDER");
		size_t *at = NULL;

		if (odb_commits_list(&list, s.db) < 0) {
			fprintf(stderr, "odb_test: %s\n", error_last());
			goto done;
		}
		if (order && !(at = calloc(odb_commits_count(list) + 1,
					   sizeof(*at)))) {
			fprintf(stderr, "odb_test: out of memory\n");
			odb_commits_free(list);
			goto done;
		}
		for (i = 0; i < s.n; i++) {
			int64_t k = odb_commits_find(list, &s.oids[i]);

			if (k < 0)
				continue;
			if (at && (size_t)k < odb_commits_count(list))
				at[k] = i + 1;
			if ((size_t)k >= odb_commits_count(list) ||
			    odb_commits_read(list, (size_t)k, &buf, &cap,
					     &len) < 0 ||
			    buf[len] != 0) {
				fprintf(stderr, "odb_test: %s: %s\n",
					git_oid_tostr_s(&s.oids[i]),
					error_last());
				break;
			}
			printf("%s commit %zu\n", git_oid_tostr_s(&s.oids[i]),
			       len);
			fwrite(buf, 1, len, stdout);
			putchar('\n');
			found++;
		}
		fprintf(stderr, "commits %zu of %zu listed\n", found,
			odb_commits_count(list));
		if (at) {
			FILE *f = fopen(order, "w");
			size_t k;

			for (k = 0; f && k < odb_commits_count(list); k++)
				if (at[k])
					fprintf(f, "%s\n", git_oid_tostr_s(
						&s.oids[at[k] - 1]));
			if (!f || fclose(f) != 0) {
				fprintf(stderr, "odb_test: cannot write %s\n",
					order);
				found = SIZE_MAX;
			}
			free(at);
		}
		free(buf);
		rc = i == s.n && found == odb_commits_count(list) ? 0 : 1;
		odb_commits_free(list);
		goto done;
	}
	if (getenv("ODB_TEST_ABSENT")) {
		for (i = 0; i < s.n; i++) {
			struct odb_object *o;

			if (odb_read(&o, s.db, git, &s.oids[i],
				     GIT_OBJECT_ANY) == 0) {
				fprintf(stderr, "odb_test: %s was found\n",
					git_oid_tostr_s(&s.oids[i]));
				odb_object_free(o);
				goto done;
			}
		}
		printf("absent %zu\n", s.n);
		rc = 0;
		goto done;
	}
	for (i = 0; i < s.n; i++) {
		struct odb_object *o;

		if (odb_read(&o, s.db, git, &s.oids[i], GIT_OBJECT_ANY) < 0) {
			fprintf(stderr, "odb_test: %s\n", error_last());
			goto done;
		}
		if (bound && check_bound(&s, cache, &most) < 0)
			goto done;
		printf("%s %s %zu\n", git_oid_tostr_s(&s.oids[i]),
		       git_object_type2string(o->type), o->len);
		fwrite(o->data, 1, o->len, stdout);
		putchar('\n');
		if (o->data[o->len] != 0) {
			fprintf(stderr, "odb_test: no NUL after %s\n",
				git_oid_tostr_s(&s.oids[i]));
			goto done;
		}
		if (threads > 1)
			s.first[i] = o;
		else
			odb_object_free(o);
	}
	if (threads > 1) {
		for (t = 0; t < threads; t++)
			pthread_create(&th[t], NULL, reader, &s);
		for (t = 0; t < threads; t++)
			pthread_join(th[t], NULL);
		if (s.failed)
			goto done;
	}
	if (getenv("ODB_TEST_SHRINK")) {
		size_t hits, pass;

		for (pass = 0; pass < 2; pass++) {
			odb_set_cache_limit(s.db, pass ? 0 : 1);
			odb_stats(&st, s.db);
			hits = st.hits;
			for (i = 0; i < s.n; i++) {
				struct odb_object *o;
				bool same;

				if (odb_read(&o, s.db, git, &s.oids[i],
					     GIT_OBJECT_ANY) < 0) {
					fprintf(stderr, "odb_test: %s\n",
						error_last());
					goto done;
				}
				same = !s.first[i] ||
				       (o->len == s.first[i]->len &&
					!memcmp(o->data, s.first[i]->data,
						o->len));
				odb_object_free(o);
				if (!same) {
					fprintf(stderr, "odb_test: pass %zu: %s "
						"differs\n", pass + 2,
						git_oid_tostr_s(&s.oids[i]));
					goto done;
				}
			}
			odb_stats(&st, s.db);
			if (!pass && st.hits != hits) {
				fprintf(stderr, "odb_test: %zu hits in a cache "
					"of one byte\n", st.hits - hits);
				goto done;
			}
		}
	}
	odb_stats(&st, s.db);
	fprintf(stderr, "packs %zu reads %zu hits %zu built %zu fallback %zu\n",
		st.packs, st.reads, st.hits, st.built, st.fallback);
	if (bound)
		fprintf(stderr, "cached_most %zu\n", most);
#ifdef ODB_TEST_LOCK_WATCH
	if (atomic_load(&frees_locked)) {
		fprintf(stderr, "odb_test: %zu frees under a lock\n",
			atomic_load(&frees_locked));
		goto done;
	}
#endif
	rc = 0;
done:
	for (i = 0; i < s.n; i++)
		odb_object_free(s.first[i]);
	free(s.first);
	free(s.oids);
	odb_free(s.db);
	git_repository_free(git);
	git_libgit2_shutdown();
	return rc;
}
