/*
 * chart: the entry points of the chart module (strata/chart.h). The
 * charts are drawn by the families chart_bars.c, chart_subsystems.c,
 * chart_history.c and chart_cohorts.c with the kit of chart_kit.c, onto
 * the surfaces of chart_out.c (chart_int.h says what each holds).
 */
#include "chart_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "strata/cycle.h"
#include "strata/error.h"
#include "strata/names.h"
#include "strata/snapshots.h"
#include "strata/util.h"

int chart_check_options(const struct chart_options *o)
{
	if (o->width < CHART_MIN_WIDTH || o->width > CHART_MAX_WIDTH)
		return error_setc(STRATA_EUSAGE,
				  "chart width '%u' out of range (%d to %d)",
				  o->width, CHART_MIN_WIDTH, CHART_MAX_WIDTH);
	if (o->height < CHART_MIN_HEIGHT || o->height > CHART_MAX_HEIGHT)
		return error_setc(STRATA_EUSAGE,
				  "chart height '%u' out of range (%d to %d)",
				  o->height, CHART_MIN_HEIGHT,
				  CHART_MAX_HEIGHT);
	return 0;
}

/*
 * What the charts draw: `t` without the releases that wrote nothing
 * (tally_release_silent()), the same for its history. Only what the charts read is copied;
 * the rest is borrowed from `t`.
 */
struct view {
	struct tally t;
	struct snapshots s;
	uint64_t *counts;       /* every by_release array, end to end */
};

static void view_release(struct view *v)
{
	free(v->t.releases);
	free(v->t.dirs);
	free(v->s.list);
	free(v->s.rows);
	free(v->s.survival);
	free(v->s.survived);
	free(v->s.based);
	free(v->counts);
}

/* a[keep[j]] for the m releases kept, into out. */
static void view_pick(uint64_t *out, const uint64_t *a, const size_t *keep,
		      size_t m)
{
	size_t j;

	for (j = 0; j < m; j++)
		out[j] = a[keep[j]];
}

static int view_history(struct view *v, const struct snapshots *h,
			const size_t *keep, const size_t *to, size_t m)
{
	struct snapshots *s = &v->s;
	uint64_t *next;
	size_t k, i, j;

	*s = *h;
	s->nreleases = m;
	s->list = calloc(h->n + 1, sizeof(*s->list));
	s->rows = calloc(h->nrows + 1, sizeof(*s->rows));
	s->survival = calloc(m + 1, sizeof(*s->survival));
	s->survived = calloc(m * h->n + 1, sizeof(*s->survived));
	s->based = calloc(m * h->n + 1, sizeof(*s->based));
	next = v->counts + m * v->t.ndirs;
	if (!s->list || !s->rows || !s->survival || !s->survived ||
	    !s->based)
		return error_oom();
	for (k = 0; k < h->n; k++) {
		s->list[k] = h->list[k];
		s->list[k].by_release = next;
		view_pick(next, h->list[k].by_release, keep, m);
		next += m;
		if (h->list[k].release != SNAPSHOT_NONE)
			s->list[k].release = to[h->list[k].release];
	}
	for (i = s->nrows = 0; i < h->nrows; i++)
		if (to[h->rows[i].release] != SNAPSHOT_NONE) {
			s->rows[s->nrows] = h->rows[i];
			s->rows[s->nrows++].release =
				(uint32_t)to[h->rows[i].release];
		}
	for (j = 0; j < m; j++) {
		s->survival[j] = h->survival[keep[j]];
		if (h->survived)
			memcpy(s->survived + j * h->n,
			       h->survived + keep[j] * h->n,
			       h->n * sizeof(*s->survived));
		if (h->based)
			memcpy(s->based + j * h->n, h->based + keep[j] * h->n,
			       h->n * sizeof(*s->based));
	}
	v->t.history = s;
	return 0;
}

static int view_build(struct view *v, const struct tally *t)
{
	const struct snapshots *h = t->history;
	size_t *keep = calloc(t->nreleases + 1, sizeof(*keep));
	size_t *to = calloc(t->nreleases + 1, sizeof(*to));
	size_t m = 0, i, n;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->t = *t;
	if (!keep || !to) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < t->nreleases; i++) {
		to[i] = SNAPSHOT_NONE;
		if (!tally_release_silent(t, i)) {
			to[i] = m;
			keep[m++] = i;
		}
	}
	n = m * (t->ndirs + (h ? h->n : 0)) + 1;
	v->t.nreleases = m;
	v->t.releases = calloc(m + 1, sizeof(*v->t.releases));
	v->t.dirs = calloc(t->ndirs + 1, sizeof(*v->t.dirs));
	v->counts = calloc(n, sizeof(*v->counts));
	if (!v->t.releases || !v->t.dirs || !v->counts) {
		rc = error_oom();
		goto done;
	}
	for (i = 0; i < m; i++)
		v->t.releases[i] = t->releases[keep[i]];
	for (i = 0; i < t->ndirs; i++) {
		v->t.dirs[i] = t->dirs[i];
		v->t.dirs[i].by_release = v->counts + i * m;
		view_pick(v->t.dirs[i].by_release, t->dirs[i].by_release,
			  keep, m);
	}
	if (h && h->nreleases == t->nreleases)
		rc = view_history(v, h, keep, to, m);
done:
	free(keep);
	free(to);
	return rc;
}

/*
 * Test-only: STRATA_TEST_CHART_FAIL=NAME:PPID, PPID the id of the
 * report process's parent, makes chart NAME fail in whichever process
 * draws it ("test failure of chart 'NAME'"); NAME! kills that process
 * (SIGKILL) instead. Any other value is ignored. With the hook, the
 * processes take the charts by turns (emit k is part k % parts's), not
 * as they come for them, so that which one draws NAME is known.
 */
static const char *test_fail_hook(void)
{
	static char name[128];
	size_t n;
	const char *v = util_test_hook("STRATA_TEST_CHART_FAIL", &n);

	if (!v || n >= sizeof(name))
		return NULL;
	memcpy(name, v, n);
	name[n] = '\0';
	return name;
}

/*
 * Test-only: STRATA_TEST_CHART_TRACE=FILE:PPID makes each process that
 * draws append "PART NAME" to FILE for each chart it draws.
 */
static const char *test_trace_hook(void)
{
	static char path[512];
	size_t n;
	const char *v = util_test_hook("STRATA_TEST_CHART_TRACE", &n);

	if (!v || !n || n >= sizeof(path))
		return NULL;
	memcpy(path, v, n);
	path[n] = '\0';
	return path;
}

/* The most processes that draw: more cost memory and gain little. */
#define CHART_MAX_PARTS 4

/*
 * The least work, in snapshots times releases of the history charts
 * (most of the drawing), for which a second process pays: each costs a
 * fork and its own fonts, and the cycle's count shares the cores while
 * the first charts are drawn. redis at 7.0.0 (20 snapshots of 20
 * releases, 0.7 s of drawing) drew in 0.2 s more with two; the synthetic
 * history of performance.md (31 of 30) in 1.4 s less (docs/charts.md).
 */
#define CHART_FORK_MIN_WORK 600

/* How many processes draw the charts of t with `jobs`. */
static unsigned draw_processes(const struct tally *t, unsigned jobs)
{
	const struct snapshots *h = t->history;

	if (!h || (uint64_t)h->n * t->nreleases < CHART_FORK_MIN_WORK)
		return 1;
	return jobs < 1 ? 1 : jobs > CHART_MAX_PARTS ? CHART_MAX_PARTS : jobs;
}

/* The charts before the cycle's, of part x->part, in fonts of its own. */
static int draw_part(struct charts *x)
{
	int rc;

	chart_fonts_open(&x->fm, &x->pc);
	if ((rc = chart_releases(x)) || (rc = chart_subsystems(x)) ||
	    (rc = chart_dirs(x)) || (rc = chart_history(x)))
		return rc;
	return chart_cohorts(x);
}

static int draw_child(void *arg)
{
	return draw_part(arg);
}

/*
 * AddressSanitizer's allocator (LLVM 14's, gcc 12's) is not locked
 * around fork(): a child forked while another thread is in it finds its
 * lock held for ever (glibc's malloc is locked around fork()). The
 * report process's only other thread then is the cycle's count.
 */
#define FORK_WANTS_ONE_THREAD UTIL_ASAN

/* A counter the drawing processes share, or NULL (each takes every n-th). */
static atomic_size_t *shared_counter(void)
{
	void *p = mmap(NULL, sizeof(atomic_size_t), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	atomic_init((atomic_size_t *)p, 0);
	return p;
}

/*
 * draw_part() in draw_processes() processes: children for parts 1 and
 * on, forked before this process opens a font (chart_proc.c says why),
 * part 0 here. Then only this process is left drawing.
 */
static int draw_parts(struct charts *x, unsigned jobs)
{
	struct chart_child kids[CHART_MAX_PARTS - 1];
	unsigned k;
	int rc = 0, crc;

	x->parts = draw_processes(x->t, jobs);
	/* (Its error, if any, is chart_cycle()'s to report.) */
	if (x->parts > 1 && FORK_WANTS_ONE_THREAD)
		(void)cycle_wait(x->t->cycle);
	/* The test hook wants to know which process draws a chart. */
	x->claims = x->parts > 1 && !x->fail ? shared_counter() : NULL;
	for (k = 1; k < x->parts; k++)
		kids[k - 1].pid = -1;
	for (k = 1; !rc && k < x->parts; k++) {
		x->part = k;
		rc = chart_child_start(&kids[k - 1], draw_child, x);
	}
	x->part = 0;
	if (!rc)
		rc = draw_part(x);
	for (k = 1; k < x->parts; k++) {
		crc = chart_child_finish(&kids[k - 1], rc < 0);
		if (!rc)
			rc = crc;
	}
	x->parts = 1;
	if (x->claims)
		munmap(x->claims, sizeof(*x->claims));
	x->claims = NULL;
	return rc;
}

int chart_write_all(const char *img_dir, const struct tally *full,
		    const struct report_info *info,
		    const struct chart_options *o)
{
	struct charts x;
	struct view v;
	const struct tally *t = &v.t;
	int rc;

	memset(&x, 0, sizeof(x));
	if ((rc = chart_check_options(o)))
		return rc;
	if ((rc = view_build(&v, full))) {
		view_release(&v);
		return rc;
	}
	x.dir = img_dir;
	x.t = t;
	x.full = full;
	x.info = info;
	x.th = o->dark ? &chart_theme_dark : &chart_theme_light;
	x.w = o->width;
	x.h = o->height;
	x.nrel = chart_released_count(t);
	x.fail = test_fail_hook();
	x.trace = test_trace_hook();
	if ((rc = names_new(&x.names, full)) < 0 ||
	    (rc = chart_rows_build(&x.rows, t, chart_rows_max(o->height))) ||
	    (rc = chart_groups_build(&x.groups, t, CHART_MAX_BARS)))
		goto done;
	/* The cycle's come last: its commits may still be being counted. */
	if ((rc = draw_parts(&x, o->jobs)) == 0)
		rc = chart_cycle(&x);
done:
	free(x.path);
	names_free(x.names);
	chart_rows_release(&x.rows);
	chart_groups_release(&x.groups);
	chart_fonts_close(x.fm, x.pc);
	view_release(&v);
	return rc;
}
