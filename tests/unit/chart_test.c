/*
 * chart_test: draws the charts of hand-built tallies and checks the
 * files: sizes, SVG headers, pixels, edge cases, determinism. Links
 * src/chart*.c, src/error.c, src/names.c and src/tally.c.
 *
 *   chart_test check DIR        run the checks, writing under DIR
 *   chart_test gen DIR          write a fixed set of charts (to compare
 *                               the output of two processes)
 *   chart_test font             only chart_check_font()
 *   chart_test samples DIR      charts for 3/12/90/150 releases, light
 *                               and dark, to look at
 *   chart_test subsamples DIR   the subsystem charts of 1/2/3/10/40
 *                               subsystems and of 3 with a 0% reference
 *
 * Exit 0 when every check passes. Failures are printed one a line.
 */
#include <cairo.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/chart.h"
#include "strata/cohorts.h"
#include "strata/snapshots.h"
#include "strata/error.h"
#include "strata/names.h"
#include "strata/report.h"
#include "strata/tally.h"

#include "../../src/chart_int.h"

static int failures;

static void fail(int line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "chart_test:%d: FAIL: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			fail(__LINE__, __VA_ARGS__);                           \
	} while (0)

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "chart_test: out of memory\n");
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = xcalloc(strlen(s) + 1, 1);

	memcpy(p, s, strlen(s) + 1);
	return p;
}

/* ------------------------------------------------------------------ */
/* Hand-built tallies */

static struct tally *fx_new(size_t nrel, int unreleased,
			    const char *(*name)(size_t i, size_t n))
{
	struct tally *t = xcalloc(1, sizeof(*t));
	size_t i;

	t->nreleases = nrel + (unreleased ? 1 : 0);
	t->releases = xcalloc(t->nreleases, sizeof(*t->releases));
	for (i = 0; i < nrel; i++)
		t->releases[i].name = xstrdup(name(i, nrel));
	if (unreleased) {
		t->releases[nrel].name = xstrdup("unreleased");
		t->releases[nrel].unreleased = 1;
	}
	t->dirs = xcalloc(1, sizeof(*t->dirs));
	t->ndirs = 1;
	t->dirs[0].path = xstrdup("");
	t->dirs[0].by_release = xcalloc(t->nreleases, sizeof(uint64_t));
	t->depth = 1;
	return t;
}

/* Add a directory (in path order, as the tally keeps them). */
static void fx_dir(struct tally *t, const char *path, unsigned level,
		   const uint64_t *counts)
{
	struct tally_dir *d;
	size_t i;

	t->dirs = realloc(t->dirs, (t->ndirs + 1) * sizeof(*t->dirs));
	if (!t->dirs)
		exit(2);
	d = &t->dirs[t->ndirs++];
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	d->level = level;
	d->by_release = xcalloc(t->nreleases, sizeof(uint64_t));
	for (i = 0; i < t->nreleases; i++) {
		d->by_release[i] = counts[i];
		d->lines += counts[i];
	}
	d->first_share = d->lines ? 100.0 * (double)counts[0] /
					    (double)d->lines
				  : 0;
	if (level > t->depth)
		t->depth = level;
}

/* The whole tree and the release totals from the level-1 directories. */
static void fx_done(struct tally *t)
{
	struct tally_dir *root = &t->dirs[0];
	size_t i, r;

	for (i = 1; i < t->ndirs; i++)
		if (t->dirs[i].level == 1)
			for (r = 0; r < t->nreleases; r++)
				root->by_release[r] += t->dirs[i].by_release[r];
	root->lines = 0;
	for (r = 0; r < t->nreleases; r++)
		root->lines += root->by_release[r];
	t->total_lines = root->lines;
	for (r = 0; r < t->nreleases; r++) {
		t->releases[r].lines = root->by_release[r];
		t->releases[r].share =
			root->lines ? 100.0 * (double)root->by_release[r] /
					      (double)root->lines
				    : 0;
	}
	root->first_share = t->nreleases ? t->releases[0].share : 0;
}

static void fx_free(struct tally *t)
{
	size_t i;

	for (i = 0; i < t->nreleases; i++)
		free((char *)t->releases[i].name);
	for (i = 0; i < t->ndirs; i++) {
		free(t->dirs[i].path);
		free(t->dirs[i].by_release);
	}
	free(t->releases);
	free(t->dirs);
	free(t);
}

static const char *name_v(size_t i, size_t n)
{
	static char buf[32];

	(void)n;
	snprintf(buf, sizeof(buf), "v%zu.0", i + 1);
	return buf;
}

/* Linux's release names from 2.6.12 on, as many as asked for. */
static const char *name_linux(size_t i, size_t n)
{
	static char buf[32];
	static const unsigned minors[] = { 0, 0, 0, 20, 21, 20, 100 };
	size_t major = 2;

	(void)n;
	if (i < 28) {
		snprintf(buf, sizeof(buf), "2.6.%zu", i + 12);
		return buf;
	}
	i -= 28;
	for (major = 3; major < 6 && i >= minors[major]; major++)
		i -= minors[major];
	snprintf(buf, sizeof(buf), "%zu.%zu", major, i);
	return buf;
}

static uint32_t rnd_state = 12345;

static double rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (double)((rnd_state >> 8) & 0xffff) / 65536.0;
}

/*
 * A plausible kernel: the first release large, then growing shares
 * towards the present. `born` (0..1) is when a subsystem appears.
 */
static void fill_linux(uint64_t *c, size_t nrel, int unrel, double scale,
		       double oldness, double born)
{
	size_t i;

	for (i = 0; i < nrel; i++) {
		double pos = nrel > 1 ? (double)i / (double)(nrel - 1) : 0;
		double w = 0.4 + 1.6 * pos * pos + 0.5 * pos;

		if (pos < born) {
			c[i] = 0;
			continue;
		}
		w *= 0.6 + 0.8 * rnd();
		if (i == 0)
			w = oldness * (double)nrel * 0.25;
		c[i] = (uint64_t)(scale * w * 1000 / (double)nrel);
	}
	if (unrel)
		c[nrel] = (uint64_t)(scale * 4);
}

static struct tally *fx_linux(size_t nrel, int unrel)
{
	static const struct {
		const char *path;
		double scale, oldness, born;
	} subs[] = {
		{ ".", 2, 1.0, 0 },
		{ "Documentation", 120, 0.6, 0 },
		{ "LICENSES", 4, 0, 0.7 },
		{ "arch", 600, 0.8, 0 },
		{ "block", 40, 1.2, 0 },
		{ "certs", 2, 0, 0.6 },
		{ "crypto", 60, 0.9, 0 },
		{ "drivers", 3000, 0.7, 0 },
		{ "drivers/gpu", 900, 0.1, 0.3 },
		{ "drivers/net", 600, 0.9, 0 },
		{ "fs", 500, 1.1, 0 },
		{ "fs/ext4", 40, 0.2, 0.1 },
		{ "include", 400, 1.0, 0 },
		{ "init", 6, 2.5, 0 },
		{ "io_uring", 20, 0, 0.85 },
		{ "ipc", 8, 2.2, 0 },
		{ "kernel", 150, 1.0, 0 },
		{ "lib", 100, 1.4, 0 },
		{ "mm", 120, 1.0, 0 },
		{ "net", 500, 1.2, 0 },
		{ "rust", 15, 0, 0.93 },
		{ "samples", 10, 0.1, 0.2 },
		{ "scripts", 50, 1.0, 0 },
		{ "security", 60, 0.8, 0 },
		{ "sound", 300, 1.3, 0 },
		{ "tools", 250, 0.05, 0.1 },
		{ "usr", 1, 3, 0 },
		{ "virt", 20, 0.3, 0.05 },
	};
	struct tally *t = fx_new(nrel, unrel, name_linux);
	uint64_t *c = xcalloc(nrel + 1, sizeof(*c));
	size_t i;

	rnd_state = 12345;
	for (i = 0; i < sizeof(subs) / sizeof(*subs); i++) {
		fill_linux(c, nrel, unrel, subs[i].scale, subs[i].oldness,
			   subs[i].born);
		fx_dir(t, subs[i].path, strchr(subs[i].path, '/') ? 2 : 1, c);
	}
	free(c);
	fx_done(t);
	return t;
}

/*
 * n subsystems sub00, sub01, ... of five releases and unreleased code;
 * with `zero`, none has a line from the first release.
 */
static struct tally *fx_subsystems(size_t n, int zero)
{
	struct tally *t = fx_new(5, 1, name_v);

	for (size_t k = 0; k < n; k++) {
		uint64_t c[6];
		char path[32];

		for (size_t r = 0; r < 6; r++)
			c[r] = (k * 7 + r * 3) % 11 + 1;
		if (zero)
			c[0] = 0;
		snprintf(path, sizeof(path), "sub%02zu", k);
		fx_dir(t, path, 1, c);
	}
	fx_done(t);
	return t;
}

static const struct report_info info_linux = {
	.repo_name = "linux",
	.rev = "v6.8",
	.commit = "e8f897f4afef0031fe618a8e94127a0934896aba",
};

/* ------------------------------------------------------------------ */
/* Reading the output */

struct img {
	cairo_surface_t *s;
	int w, h, stride;
	const unsigned char *data;
};

static int img_load(struct img *im, const char *path)
{
	memset(im, 0, sizeof(*im));
	im->s = cairo_image_surface_create_from_png(path);
	if (cairo_surface_status(im->s)) {
		cairo_surface_destroy(im->s);
		im->s = NULL;
		return -1;
	}
	im->w = cairo_image_surface_get_width(im->s);
	im->h = cairo_image_surface_get_height(im->s);
	im->stride = cairo_image_surface_get_stride(im->s);
	im->data = cairo_image_surface_get_data(im->s);
	return 0;
}

static void img_free(struct img *im)
{
	if (im->s)
		cairo_surface_destroy(im->s);
	im->s = NULL;
}

static uint32_t px(const struct img *im, int x, int y)
{
	uint32_t v;

	memcpy(&v, im->data + (size_t)y * (size_t)im->stride + (size_t)x * 4,
	       4);
	return v & 0xffffff;
}

static uint32_t hex_rgb(const char *hex)
{
	return (uint32_t)strtoul(hex + 1, NULL, 16);
}

static uint32_t release_rgb(const struct tally *t, size_t i, int dark)
{
	char hex[8];

	chart_release_color(hex, t, i, dark);
	return hex_rgb(hex);
}

/* The bounding box of the pixels of one colour; 0 if there are none. */
struct box {
	int x0, y0, x1, y1; /* inclusive */
	long n;
};

static int find_colour(const struct img *im, uint32_t c, struct box *b)
{
	int x, y;

	b->x0 = im->w;
	b->y0 = im->h;
	b->x1 = b->y1 = -1;
	b->n = 0;
	for (y = 0; y < im->h; y++)
		for (x = 0; x < im->w; x++)
			if (px(im, x, y) == c) {
				if (x < b->x0)
					b->x0 = x;
				if (x > b->x1)
					b->x1 = x;
				if (y < b->y0)
					b->y0 = y;
				if (y > b->y1)
					b->y1 = y;
				b->n++;
			}
	return b->n > 0;
}

static char *path_of(const char *dir, const char *name)
{
	char *p = xcalloc(strlen(dir) + strlen(name) + 2, 1);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

static int read_all(const char *path, unsigned char **out, size_t *n)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, len = 0, got;
	unsigned char *p;

	if (!f)
		return -1;
	p = xcalloc(cap, 1);
	while ((got = fread(p + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			cap *= 2;
			p = realloc(p, cap);
			if (!p)
				exit(2);
		}
	}
	fclose(f);
	*out = p;
	*n = len;
	return 0;
}


/* The px size in an SVG's header, or 0 by 0. */
static void svg_size(const char *file, unsigned *w, unsigned *h)
{
	unsigned char *svg;
	size_t n;
	char *p;

	*w = *h = 0;
	if (read_all(file, &svg, &n)) {
		fail(__LINE__, "'%s' missing", file);
		return;
	}
	svg[n ? n - 1 : 0] = '\0';
	p = strstr((char *)svg, "<svg");
	if (!p || sscanf(strstr(p, " width=") ? strstr(p, " width=") : "",
			 " width=\"%upx\" height=\"%upx\"", w, h) != 2)
		fail(__LINE__, "'%s' has no px size", file);
	CHECK(strstr((char *)svg, "<image") == NULL,
	      "'%s' has a raster fallback", file);
	free(svg);
}

/*
 * Every chart's files exist, at the sizes asked for: w by h, or with
 * `fitted` w by at most h (the subsystem charts shrink to their rows);
 * NAME@narrow.svg CHART_NARROW_WIDTH wide when w leaves room for it.
 */
static void check_chart(const char *dir, const char *name, unsigned w,
			unsigned h, int fitted)
{
	char file[4096];
	struct img im;
	unsigned sw, sh, h1 = h;

	snprintf(file, sizeof(file), "%s/%s.png", dir, name);
	if (img_load(&im, file)) {
		fail(__LINE__, "'%s' is not a PNG", file);
	} else {
		CHECK(im.w == (int)w && (fitted ? im.h <= (int)h &&
					 im.h >= 100 : im.h == (int)h),
		      "'%s' is %dx%d, not %ux%u", file, im.w, im.h, w, h);
		h1 = (unsigned)im.h;
		img_free(&im);
	}
	snprintf(file, sizeof(file), "%s/%s@2x.png", dir, name);
	if (img_load(&im, file)) {
		fail(__LINE__, "'%s' is not a PNG", file);
	} else {
		CHECK(im.w == 2 * (int)w && im.h == 2 * (int)h1,
		      "'%s' is %dx%d, not %ux%u", file, im.w, im.h, 2 * w,
		      2 * h1);
		img_free(&im);
	}
	snprintf(file, sizeof(file), "%s/%s.svg", dir, name);
	svg_size(file, &sw, &sh);
	CHECK(sw == w && sh == h1, "'%s' is %ux%u px, not %ux%u", file, sw,
	      sh, w, h1);
	snprintf(file, sizeof(file), "%s/%s@narrow.svg", dir, name);
	if (w < CHART_NARROW_WIDTH + CHART_NARROW_MARGIN) {
		CHECK(access(file, F_OK) != 0, "'%s' for a narrow chart",
		      file);
		return;
	}
	svg_size(file, &sw, &sh);
	CHECK(sw == CHART_NARROW_WIDTH && (fitted ? sh <= h : sh == h),
	      "'%s' is %ux%u px", file, sw, sh);
}

static void check_files(const char *dir, const char *name, unsigned w,
			unsigned h)
{
	check_chart(dir, name, w, h, 0);
}

/* Files below dir, in subdirectories too. */
static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d) {
		fail(__LINE__, "cannot list '%s'", dir);
		return 0;
	}
	while ((e = readdir(d))) {
		char sub[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (!stat(sub, &st) && S_ISDIR(st.st_mode))
			n += count_files(sub);
		else
			n++;
	}
	closedir(d);
	return n;
}

static void check_all_files(const char *dir, const struct tally *t,
			    unsigned w, unsigned h)
{
	size_t i, want = 3, per = 3 + (w >= CHART_NARROW_WIDTH +
				       CHART_NARROW_MARGIN);
	struct names *names;
	size_t n;

	check_files(dir, "releases", w, h);
	check_chart(dir, "subsystems", w, h, 1);
	check_chart(dir, "subsystems-stack", w, h, 1);
	if (names_new(&names, t)) {
		fail(__LINE__, "names_new: %s", error_last());
		return;
	}
	for (i = 1; i < t->ndirs; i++) {
		char *name;

		if (t->dirs[i].level < 1)
			continue;
		want++;
		if (names_get(&name, names, t->dirs[i].path, NAMES_CHART)) {
			fail(__LINE__, "names_get: %s", error_last());
			continue;
		}
		check_files(dir, name, w, h);
		free(name);
	}
	names_free(names);
	n = count_files(dir);
	CHECK(n == per * want, "'%s' has %zu files, not %zu", dir, n,
	      per * want);
}

static int same_file(const char *a, const char *b)
{
	unsigned char *pa, *pb;
	size_t na, nb;
	int same;

	if (read_all(a, &pa, &na))
		return 0;
	if (read_all(b, &pb, &nb)) {
		free(pa);
		return 0;
	}
	same = na == nb && !memcmp(pa, pb, na);
	free(pa);
	free(pb);
	return same;
}

/* Every file of dir a is in dir b with the same bytes. */
static void check_same_dirs(const char *a, const char *b)
{
	DIR *d = opendir(a);
	struct dirent *e;
	size_t n = 0;

	if (!d) {
		fail(__LINE__, "cannot list '%s'", a);
		return;
	}
	while ((e = readdir(d))) {
		char *pa, *pb;

		if (e->d_name[0] == '.')
			continue;
		pa = path_of(a, e->d_name);
		pb = path_of(b, e->d_name);
		CHECK(same_file(pa, pb), "'%s' and '%s' differ", pa, pb);
		free(pa);
		free(pb);
		n++;
	}
	closedir(d);
	CHECK(n > 0, "'%s' is empty", a);
}

static char *subdir(const char *base, const char *name)
{
	char *p = path_of(base, name);

	if (mkdir(p, 0777) && errno != EEXIST) {
		fprintf(stderr, "chart_test: cannot create '%s'\n", p);
		exit(2);
	}
	return p;
}

static int write_charts(const char *dir, const struct tally *t,
			const struct report_info *info, unsigned w,
			unsigned h, int dark)
{
	struct chart_options o = {
		.width = w, .height = h, .dark = dark
	};
	int rc = chart_write_all(dir, t, info, &o);

	if (rc)
		fail(__LINE__, "chart_write_all into '%s': %s", dir,
		     error_last());
	return rc;
}

/* ------------------------------------------------------------------ */
/* The checks */

/*
 * Three releases with 60%, 30% and 10%: the 60% bar reaches the top grid
 * line (the axis goes to 60%), the others are 1/2 and 1/6 of its height.
 */
static void check_bars(const char *base)
{
	static const uint64_t a[] = { 600, 300, 100 }, b[] = { 0, 0, 0 };
	struct tally *t = fx_new(3, 0, name_v);
	char *dir = subdir(base, "bars"), *file;
	struct img im, im2;
	struct box box[3], box2[3];
	uint32_t bg;
	size_t i;

	fx_dir(t, "lib", 1, a);
	fx_dir(t, "src", 1, b);
	fx_done(t);
	if (write_charts(dir, t, &info_linux, 800, 450, 0))
		goto done;
	check_all_files(dir, t, 800, 450);

	file = path_of(dir, "releases.png");
	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		goto done;
	}
	free(file);
	file = path_of(dir, "releases@2x.png");
	if (img_load(&im2, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		img_free(&im);
		goto done;
	}
	free(file);
	bg = px(&im, 1, 1);
	CHECK(bg == 0xffffff, "light background is %06x", bg);
	for (i = 0; i < 3; i++) {
		uint32_t c = release_rgb(t, i, 0);

		if (!find_colour(&im, c, &box[i]) ||
		    !find_colour(&im2, c, &box2[i])) {
			fail(__LINE__, "no bar of colour %06x", c);
			goto images;
		}
	}
	/* the order, one baseline, the heights */
	CHECK(box[0].x1 < box[1].x0 && box[1].x1 < box[2].x0,
	      "bars out of order");
	CHECK(box[0].y1 == box[1].y1 && box[1].y1 == box[2].y1,
	      "bars on different baselines");
	{
		int h0 = box[0].y1 - box[0].y0 + 1;
		int h1 = box[1].y1 - box[1].y0 + 1;
		int h2 = box[2].y1 - box[2].y0 + 1;
		int xm = (box[0].x0 + box[0].x1) / 2, y;

		CHECK(abs(2 * h1 - h0) <= 2, "30%% bar %d px for 60%% %d px",
		      h1, h0);
		CHECK(abs(6 * h2 - h0) <= 6, "10%% bar %d px for 60%% %d px",
		      h2, h0);
		CHECK(h0 > 450 / 2, "tallest bar only %d px", h0);
		/* the whole column of the bar is its colour */
		for (y = box[0].y0; y <= box[0].y1; y++)
			if (px(&im, xm, y) != release_rgb(t, 0, 0))
				break;
		CHECK(y > box[0].y1, "hole in the tallest bar at y=%d", y);
		/*
		 * background above it (its value label is centred above,
		 * narrower than the bar: look above the bar's left edge)
		 */
		for (y = box[0].y0 - 1; y > box[0].y0 - 3; y--)
			CHECK(px(&im, xm, y) == bg,
			      "not background %d px above the bar: %06x",
			      box[0].y0 - y, px(&im, xm, y));
		for (y = box[0].y0 - 1; y > box[0].y0 - 14; y--)
			CHECK(px(&im, box[0].x0 + 1, y) == bg,
			      "not background %d px above the bar's edge: %06x",
			      box[0].y0 - y, px(&im, box[0].x0 + 1, y));
		/* the top grid line (60%) is under the bar's top row */
		CHECK(px(&im, box[2].x1 + 6, box[0].y0) != bg,
		      "no grid line at the top of the tallest bar");
		CHECK(px(&im, box[2].x1 + 6, box[0].y0 - 1) == bg,
		      "grid line above the tallest bar");
	}
	/* 2x is the 1x layout at twice the size, to the pixel */
	for (i = 0; i < 3; i++)
		CHECK(box2[i].x0 == 2 * box[i].x0 &&
			      box2[i].x1 == 2 * box[i].x1 + 1 &&
			      box2[i].y0 == 2 * box[i].y0 &&
			      box2[i].y1 == 2 * box[i].y1 + 1,
		      "2x bar %zu at %d,%d-%d,%d for 1x %d,%d-%d,%d", i,
		      box2[i].x0, box2[i].y0, box2[i].x1, box2[i].y1,
		      box[i].x0, box[i].y0, box[i].x1, box[i].y1);
images:
	img_free(&im);
	img_free(&im2);
done:
	free(dir);
	fx_free(t);
}

/*
 * Subsystems: sorted by share of first-release code; the stack of each
 * starts with the oldest release.
 */
static void check_subsystems(const char *base)
{
	static const uint64_t a[] = { 10, 60, 30 }, b[] = { 80, 10, 10 },
			      c[] = { 40, 40, 20 };
	struct tally *t = fx_new(3, 0, name_v);
	char *dir = subdir(base, "subsystems"), *file;
	struct img im;
	uint32_t first;
	int y, lens[3], n = 0, x;

	fx_dir(t, "alpha", 1, a);
	fx_dir(t, "beta", 1, b);
	fx_dir(t, "gamma", 1, c);
	fx_done(t);
	if (write_charts(dir, t, &info_linux, 640, 400, 0))
		goto done;
	first = release_rgb(t, 0, 0);

	file = path_of(dir, "subsystems.png");
	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		goto done;
	}
	free(file);
	/* the length of each bar, top to bottom: beta, gamma, alpha */
	{
		struct box b0;

		if (!find_colour(&im, first, &b0)) {
			fail(__LINE__, "no bars in subsystems.png");
		} else {
			for (y = b0.y0; y <= b0.y1 && n < 3; y++) {
				if (px(&im, b0.x0, y) != first)
					continue;
				/* the last pixel: the reference line crosses */
				for (x = im.w - 1; px(&im, x, y) != first; x--)
					;
				lens[n++] = x + 1 - b0.x0;
				while (y <= b0.y1 && px(&im, b0.x0, y) == first)
					y++;
			}
			CHECK(n == 3, "%d bars in subsystems.png", n);
			if (n == 3) {
				CHECK(lens[0] > lens[1] && lens[1] > lens[2],
				      "bars not sorted: %d %d %d", lens[0],
				      lens[1], lens[2]);
				CHECK(abs(lens[0] * 10 - lens[2] * 80) <= 80,
				      "80%% bar %d px, 10%% bar %d px",
				      lens[0], lens[2]);
			}
		}
	}
	img_free(&im);

	file = path_of(dir, "subsystems-stack.png");
	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		goto done;
	}
	free(file);
	{
		struct box b0, b2;

		if (find_colour(&im, first, &b0) &&
		    find_colour(&im, release_rgb(t, 2, 0), &b2)) {
			/* below the legend, all rows start with release 0 */
			CHECK(b2.x1 > b0.x1, "newest release not on the right");
		} else {
			fail(__LINE__, "colours missing in subsystems-stack");
		}
	}
	img_free(&im);
done:
	free(dir);
	fx_free(t);
}

/* Whether row y has a pixel other than the background bg. */
static int row_inked(const struct img *im, int y, uint32_t bg)
{
	for (int x = 0; x < im->w; x++)
		if (px(im, x, y) != bg)
			return 1;
	return 0;
}

/*
 * Below the bars (whose last row is yb): the axis with its ticks, the
 * axis title, the source line, as runs of inked rows. The title must be
 * centred under the axis: between the first and the last tick mark (the
 * first row of the first run with three or more 1px marks).
 */
static void check_axis_title(const char *file, int yb)
{
	struct img im;
	int bands[16][2], nb = 0, y, x, tick0 = -1, tick1 = -1;
	int t0 = -1, t1 = -1;
	uint32_t bg;

	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		return;
	}
	bg = px(&im, 0, 0);
	for (y = yb + 1; y < im.h && nb < 16; y++) {
		if (!row_inked(&im, y, bg))
			continue;
		bands[nb][0] = y;
		while (y < im.h && row_inked(&im, y, bg))
			y++;
		bands[nb++][1] = y - 1;
	}
	for (y = bands[0][0]; nb && y <= bands[0][1] && tick0 < 0; y++) {
		int runs = 0, first = -1, last = -1;

		for (x = 0; x < im.w; x++) {
			if (px(&im, x, y) == bg ||
			    (x && px(&im, x - 1, y) != bg))
				continue;
			runs++;
			if (first < 0)
				first = x;
			last = x;
		}
		if (runs >= 3) {
			tick0 = first;
			tick1 = last;
		}
	}
	for (y = nb >= 3 ? bands[nb - 2][0] : 0;
	     nb >= 3 && y <= bands[nb - 2][1]; y++)
		for (x = 0; x < im.w; x++)
			if (px(&im, x, y) != bg) {
				t0 = t0 < 0 || x < t0 ? x : t0;
				t1 = x > t1 ? x : t1;
			}
	CHECK(nb >= 3 && tick0 >= 0 && t0 >= 0, "'%s': no axis title found",
	      file);
	CHECK(abs((t0 + t1) - (tick0 + tick1)) <= 4,
	      "'%s': axis title at %d-%d, axis at %d-%d", file, t0, t1,
	      tick0, tick1);
	img_free(&im);
}

/* A chart's height, or -1. */
static int png_height(const char *file)
{
	struct img im;
	int h;

	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		return -1;
	}
	h = im.h;
	img_free(&im);
	return h;
}

/* The longest run of rows of nothing but background, in a chart. */
static int empty_band(const char *file)
{
	struct img im;
	int run = 0, best = 0;

	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		return -1;
	}
	for (int y = 0; y < im.h; y++) {
		run = row_inked(&im, y, px(&im, 0, 0)) ? 0 : run + 1;
		best = run > best ? run : best;
	}
	img_free(&im);
	return best;
}

/*
 * The subsystem charts with 1, 2, 3 and 10 subsystems, and with 3 that
 * have no code from the first release (no reference line): a chart with
 * few rows is as high as they need, with no empty band; the title of the
 * x axis is centred under it.
 */
static void check_few_subsystems(const char *base, unsigned w, unsigned h)
{
	static const size_t counts[] = { 1, 2, 3, 10, 3 };
	int heights[2][5];

	for (size_t i = 0; i < 5; i++) {
		int zero = i == 4;
		struct tally *t = fx_subsystems(counts[i], zero);
		const char *chart[2] = { "subsystems", "subsystems-stack" };
		char name[64], *dir;

		snprintf(name, sizeof(name), "few-%u-%s%zu", w,
			 zero ? "zero-" : "", counts[i]);
		dir = subdir(base, name);
		if (write_charts(dir, t, &info_linux, w, h, 0))
			goto next;
		check_all_files(dir, t, w, h);
		for (int c = 0; c < 2; c++) {
			char file[4096];
			struct img im;
			struct box b;
			int band;

			snprintf(file, sizeof(file), "%s/%s.png", dir,
				 chart[c]);
			heights[c][i] = png_height(file);
			band = empty_band(file);
			CHECK(band >= 0 && band <= 30,
			      "'%s': an empty band of %d rows", file, band);
			if (img_load(&im, file))
				continue;
			/* the bars' bottom: the colour of release 1 */
			if (find_colour(&im, release_rgb(t, 1, 0), &b))
				check_axis_title(file, b.y1);
			else if (find_colour(&im, release_rgb(t, 0, 0), &b))
				check_axis_title(file, b.y1);
			img_free(&im);
		}
next:
		free(dir);
		fx_free(t);
	}
	for (int c = 0; c < 2; c++) {
		CHECK(heights[c][0] < heights[c][1] &&
		      heights[c][1] < heights[c][2] &&
		      heights[c][2] < (int)h, "%u px: %d, %d, %d rows high",
		      w, heights[c][0], heights[c][1], heights[c][2]);
		CHECK(heights[c][3] == (int)h, "%u px: 10 rows %d high", w,
		      heights[c][3]);
	}
	/* no reference line: no band above the rows for its label */
	CHECK(heights[0][4] < heights[0][2], "%u px: zero %d, not below %d",
	      w, heights[0][4], heights[0][2]);
	CHECK(heights[1][4] == heights[1][2], "%u px: stack %d and %d", w,
	      heights[1][4], heights[1][2]);
}

/* The unreleased bar is grey, last, and further from its neighbour. */
static void check_unreleased(const char *base)
{
	struct tally *t = fx_linux(12, 1);
	char *dir = subdir(base, "unreleased"), *file;
	struct img im;
	struct box last, prev, un;

	if (write_charts(dir, t, &info_linux, 800, 450, 0))
		goto done;
	check_all_files(dir, t, 800, 450);
	file = path_of(dir, "releases.png");
	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		goto done;
	}
	free(file);
	if (find_colour(&im, release_rgb(t, 10, 0), &prev) &&
	    find_colour(&im, release_rgb(t, 11, 0), &last) &&
	    find_colour(&im, release_rgb(t, 12, 0), &un)) {
		CHECK(un.x0 > last.x1, "unreleased bar not last");
		CHECK(un.x0 - last.x1 > 2 * (last.x0 - prev.x1),
		      "unreleased bar not set apart: gap %d, others %d",
		      un.x0 - last.x1, last.x0 - prev.x1);
	} else {
		fail(__LINE__, "bars missing in the unreleased chart");
	}
	CHECK(release_rgb(t, 12, 0) == 0x9a9a9a,
	      "unreleased colour %06x is not grey", release_rgb(t, 12, 0));
	img_free(&im);
done:
	free(dir);
	fx_free(t);
}

/* A directory with lines in two releases draws just two bars. */
static void check_sparse(const char *base)
{
	struct tally *t = fx_new(40, 1, name_linux);
	uint64_t c[41] = { 0 }, full[41];
	char *dir = subdir(base, "sparse"), *file;
	struct img im;
	struct box b;
	size_t i, found = 0;

	for (i = 0; i < 41; i++)
		full[i] = 100 + i;
	c[3] = 5;
	c[30] = 1000;
	fx_dir(t, "full", 1, full);
	fx_dir(t, "sparse", 1, c);
	fx_done(t);
	if (write_charts(dir, t, &info_linux, 800, 450, 0))
		goto done;
	check_all_files(dir, t, 800, 450);
	file = path_of(dir, "dir-sparse.png");
	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		goto done;
	}
	free(file);
	for (i = 0; i < 41; i++) {
		int has = find_colour(&im, release_rgb(t, i, 0), &b);

		if (i == 3 || i == 30)
			CHECK(has, "no bar for release %zu", i);
		found += has;
	}
	CHECK(found == 2, "%zu bars drawn for 2 releases with lines", found);
	img_free(&im);
done:
	free(dir);
	fx_free(t);
}

static void check_edges(const char *base)
{
	static const char *const hostile[] = {
		".",
		"Docs",
		"a-very-long-directory-name-that-goes-on-and-on-and-on-"
		"and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on-"
		"and-on-and-on-and-on-and-on-and-on-and-on-and-on-and-on",
		"bad\xff\xfe name",
		"ctrl\t\n\x1b[31m",
		"<img src=x onerror=alert(1)>",
		"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d",       /* Hebrew */
		"\xe3\x83\x8d\xe3\x83\x83\xe3\x83\x88",   /* Japanese */
		"\xc3\xbc\x6d\x6c\x61\x75\x74",           /* "umlaut" */
	};
	struct report_info weird = {
		.repo_name = "repo\xff with a long name \xe2\x80\x94 and more",
		.rev = "refs/heads/a-branch-with-a-really-long-name-indeed",
	};
	char *dir;
	size_t i, r;
	int rc;

	/* one release, nothing unreleased */
	{
		static const uint64_t one[] = { 1234 };
		struct tally *t = fx_new(1, 0, name_v);
		struct img im;
		struct box b;
		char *file;

		dir = subdir(base, "one");
		fx_dir(t, "src", 1, one);
		fx_done(t);
		if (!write_charts(dir, t, &info_linux, 800, 450, 0)) {
			check_all_files(dir, t, 800, 450);
			file = path_of(dir, "releases.png");
			if (!img_load(&im, file)) {
				CHECK(find_colour(&im, release_rgb(t, 0, 0),
						  &b),
				      "no bar for the one release");
				CHECK(b.x1 - b.x0 + 1 <= 80,
				      "one bar %d px wide", b.x1 - b.x0 + 1);
				img_free(&im);
			} else {
				fail(__LINE__, "cannot read '%s'", file);
			}
			free(file);
		}
		free(dir);
		fx_free(t);
	}

	/* 150 releases and unreleased, hostile names, 0% reference line */
	{
		struct tally *t = fx_new(150, 1, name_linux);
		uint64_t c[151];
		struct img im;
		char *file;
		int lastx = -1;

		free((char *)t->releases[7].name);
		t->releases[7].name = xstrdup(
			"\xd0\xb2\xd0\xb5\xd1\x80\xd1\x81\xd0\xb8\xd1\x8f-"
			"release-with-an-unreasonably-long-name-1.0");
		dir = subdir(base, "many");
		for (i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
			for (r = 0; r < 151; r++)
				c[r] = r == 0 ? 0 : (r * 7 + i * 13) % 50;
			if (i == 1)
				for (r = 0; r < 151; r++)
					c[r] = r == 140 ? 9 : 0;
			fx_dir(t, hostile[i], 1, c);
		}
		fx_dir(t, "Docs/sub dir", 2, c);
		fx_done(t);
		CHECK(t->dirs[0].first_share == 0, "fixture: share not 0");
		if (!write_charts(dir, t, &weird, 800, 450, 0)) {
			check_all_files(dir, t, 800, 450);
			file = path_of(dir, "releases.png");
			if (!img_load(&im, file)) {
				/* a bar per group, in its first's colour */
				struct chart_groups g;

				if (chart_groups_build(&g, t, CHART_MAX_BARS))
					fail(__LINE__, "%s", error_last());
				CHECK(g.by == CHART_BY_VERSION && g.n == 7,
				      "150 releases in %zu bars", g.n);
				for (r = 0; r < g.n; r++) {
					struct box b;

					if (!find_colour(&im, release_rgb(t,
							 g.first[r], 0), &b)) {
						fail(__LINE__, "no bar %zu", r);
						continue;
					}
					CHECK(b.x0 > lastx,
					      "bar %zu out of order", r);
					lastx = b.x1;
				}
				chart_groups_release(&g);
				img_free(&im);
			} else {
				fail(__LINE__, "cannot read '%s'", file);
			}
			free(file);
		}
		/* and at the smallest size, dark */
		free(dir);
		dir = subdir(base, "many-small");
		if (!write_charts(dir, t, &weird, CHART_MIN_WIDTH,
				  CHART_MIN_HEIGHT, 1))
			check_all_files(dir, t, CHART_MIN_WIDTH,
					CHART_MIN_HEIGHT);
		free(dir);
		fx_free(t);
	}

	/* more subsystems than rows: the rest become "N others" */
	{
		struct tally *t = fx_new(5, 1, name_v);
		uint64_t c[6];
		char path[32];

		dir = subdir(base, "crowded");
		for (i = 0; i < 30; i++) {
			for (r = 0; r < 6; r++)
				c[r] = (i * 31 + r * 17) % 97 + 1;
			snprintf(path, sizeof(path), "dir%02zu", i);
			fx_dir(t, path, 1, c);
		}
		fx_done(t);
		if (!write_charts(dir, t, &info_linux, 800, 450, 0))
			check_all_files(dir, t, 800, 450);
		free(dir);
		fx_free(t);
	}

	/* no lines at all */
	{
		static const uint64_t zero[] = { 0, 0 };
		struct tally *t = fx_new(1, 1, name_v);

		dir = subdir(base, "empty");
		fx_dir(t, "src", 1, zero);
		fx_done(t);
		if (!write_charts(dir, t, NULL, 800, 450, 0))
			check_all_files(dir, t, 800, 450);
		free(dir);
		fx_free(t);
	}

	/* sizes out of range */
	{
		struct chart_options bad = { .width = 100, .height = 450 };
		struct tally *t = fx_new(1, 0, name_v);

		fx_done(t);
		rc = chart_check_options(&bad);
		CHECK(rc == STRATA_EUSAGE, "width 100 accepted");
		CHECK(strstr(error_last(), "width") != NULL,
		      "unclear message: %s", error_last());
		bad.width = 800;
		bad.height = 99999;
		CHECK(chart_write_all(base, t, &info_linux, &bad) ==
			      STRATA_EUSAGE,
		      "height 99999 accepted");
		fx_free(t);
	}

	/* a directory that is not there */
	{
		struct tally *t = fx_linux(3, 0);
		struct chart_options o = { .width = 800, .height = 450 };

		rc = chart_write_all("/nonexistent/img", t, &info_linux, &o);
		CHECK(rc < 0, "wrote into a missing directory");
		CHECK(strstr(error_last(), "/nonexistent/img/") != NULL,
		      "message names no file: %s", error_last());
		/* an error in a directory chart reaches the caller */
		{
			char *d = subdir(base, "readonly");
			char *f = path_of(d, "dir-arch.png");

			/* a directory where a file should go */
			if (mkdir(f, 0777))
				fail(__LINE__, "cannot create '%s'", f);
			error_clear();
			rc = chart_write_all(d, t, &info_linux, &o);
			CHECK(rc < 0, "wrote over a directory");
			CHECK(strstr(error_last(), "dir-arch.png") != NULL,
			      "directory chart's message lost: '%s'",
			      error_last());
			free(f);
			free(d);
		}
		fx_free(t);
	}
}

/* ------------------------------------------------------------------ */
/* Groups of releases */

static const char *name_v2(size_t i, size_t n)
{
	static char buf[32];

	(void)n;
	snprintf(buf, sizeof(buf), "v%zu.%zu", i / 65 + 1, i % 65);
	return buf;
}

/* git's: v0.99, v0.99.1..8, v1.0.0..v1.9.5, v2.0.0..v2.30.2 */
static const char *name_git(size_t i, size_t n)
{
	static char buf[32];

	(void)n;
	if (i < 9)
		snprintf(buf, sizeof(buf), i ? "v0.99.%zu" : "v0.99", i);
	else if (i < 9 + 60)
		snprintf(buf, sizeof(buf), "v1.%zu.%zu", (i - 9) / 6,
			 (i - 9) % 6);
	else
		snprintf(buf, sizeof(buf), "v2.%zu.%zu", (i - 69) / 3,
			 (i - 69) % 3);
	return buf;
}

/* Names with no number: release-aa, release-ab, ... */
static const char *name_alpha(size_t i, size_t n)
{
	static char buf[32];

	(void)n;
	snprintf(buf, sizeof(buf), "release-%c%c", 'a' + (int)(i / 26),
		 'a' + (int)(i % 26));
	return buf;
}

static const char *name_build(size_t i, size_t n)
{
	static char buf[32];

	(void)n;
	snprintf(buf, sizeof(buf), "build-%zu", i + 1);
	return buf;
}

/* Dates for the releases: release i at first + i * step seconds. */
static struct release *fx_dates(struct tally *t, int64_t first, int64_t step)
{
	struct release *r = xcalloc(t->nreleases, sizeof(*r));
	size_t i;

	for (i = 0; i < t->nreleases; i++) {
		r[i].unreleased = t->releases[i].unreleased;
		r[i].first_date = r[i].unreleased ? 0 : first + (int64_t)i * step;
		r[i].last_date = r[i].first_date;
		t->releases[i].release = &r[i];
	}
	return r;
}

/* The labels of the bars, joined by spaces. */
static void groups_expect(int line, const struct tally *t,
			  enum chart_grouping by, const char *want)
{
	struct chart_groups g;
	char got[4096] = "";
	size_t i, o = 0;

	if (chart_groups_build(&g, t, CHART_MAX_BARS)) {
		fail(line, "chart_groups_build: %s", error_last());
		return;
	}
	for (i = 0; i < g.n && o < sizeof(got); i++)
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s",
				      i ? " " : "", g.labels[i]);
	if (!want)
		CHECK(g.n == t->nreleases, "%zu bars for %zu releases", g.n,
		      t->nreleases);
	if (g.by != by || (want && strcmp(got, want)))
		fail(line, "bars by %d: '%s', not by %d: '%s'", (int)g.by, got,
		     (int)by, want ? want : "(each release)");
	/* every release in its bar, bars in order of their first */
	for (i = 0; i < t->nreleases; i++)
		if (g.of[i] >= g.n || g.first[g.of[i]] > i ||
		    (i && g.of[i] < g.of[i - 1] && g.first[g.of[i]] == i))
			fail(line, "release %zu in bar %zu", i, g.of[i]);
	CHECK(g.nrel + 1 == g.n || g.nrel == g.n, "nrel %zu of %zu", g.nrel,
	      g.n);
	chart_groups_release(&g);
}

static void check_group_rules(void)
{
	static const char git[] =
		"v0.99.x v1.0.x v1.1.x v1.2.x v1.3.x v1.4.x v1.5.x v1.6.x "
		"v1.7.x v1.8.x v1.9.x v2.0.x v2.1.x v2.2.x v2.3.x v2.4.x "
		"v2.5.x v2.6.x v2.7.x v2.8.x v2.9.x v2.10.x v2.11.x v2.12.x "
		"v2.13.x v2.14.x v2.15.x v2.16.x v2.17.x v2.18.x v2.19.x "
		"v2.20.x v2.21.x v2.22.x v2.23.x v2.24.x v2.25.x v2.26.x "
		"v2.27.x v2.28.x v2.29.x v2.30.x v2.31 unreleased";
	struct tally *t;
	struct release *r;
	const int64_t y2015 = 1420070400, year = 31556952;

	/* up to CHART_MAX_BARS releases, a bar each */
	t = fx_new(60, 1, name_v2);
	groups_expect(__LINE__, t, CHART_BY_RELEASE, NULL);
	fx_free(t);
	/* v1.0..v1.64, v2.0..v2.64: by the first number */
	t = fx_new(130, 1, name_v2);
	groups_expect(__LINE__, t, CHART_BY_VERSION, "v1.x v2.x unreleased");
	fx_free(t);
	/* the same over ten years: the years give more bars */
	t = fx_new(130, 1, name_v2);
	r = fx_dates(t, y2015 + 15 * 86400, year / 13);
	groups_expect(__LINE__, t, CHART_BY_YEAR, "2015 2016 2017 2018 2019 "
		      "2020 2021 2022 2023 2024 unreleased");
	fx_free(t);
	free(r);
	/* Linux: 2.6.12..2.6.39, 3.0..3.19, ... */
	t = fx_new(98, 0, name_linux);
	groups_expect(__LINE__, t, CHART_BY_VERSION, "2.6.x 3.x 4.x 5.x 6.x");
	fx_free(t);
	/* git: two numbers give at most 60 bars, three too many */
	t = fx_new(69 + 93, 1, name_git);
	free((char *)t->releases[69 + 92].name);
	t->releases[69 + 92].name = xstrdup("v2.31");
	groups_expect(__LINE__, t, CHART_BY_VERSION, git);
	/* and with a release a month, the versions give more bars */
	r = fx_dates(t, y2015, year / 12);
	groups_expect(__LINE__, t, CHART_BY_VERSION, git);
	fx_free(t);
	free(r);
	/* no numbers: by year, 10 releases a year */
	t = fx_new(70, 1, name_alpha);
	r = fx_dates(t, y2015 + 15 * 86400, year / 10);
	groups_expect(__LINE__, t, CHART_BY_YEAR,
		      "2015 2016 2017 2018 2019 2020 2021 unreleased");
	fx_free(t);
	free(r);
	/* too many numbers for versions: by year, in spans when too many */
	t = fx_new(130, 0, name_build);
	r = fx_dates(t, y2015 - 100 * year + 30 * 86400, year);
	{
		char want[1024];
		size_t o = 0;
		int y;

		for (y = 1915; y < 2045; y += 5)
			o += (size_t)snprintf(want + o, sizeof(want) - o,
					      "%s%d\xe2\x80\x93%d",
					      o ? " " : "", y, y + 4);
		groups_expect(__LINE__, t, CHART_BY_YEAR, want);
	}
	fx_free(t);
	free(r);
	/* no dates and no versions: a bar each */
	t = fx_new(70, 0, name_alpha);
	groups_expect(__LINE__, t, CHART_BY_RELEASE, NULL);
	fx_free(t);
}

static void check_dark(const char *base)
{
	struct tally *t = fx_linux(12, 1);
	char *dir = subdir(base, "dark"), *file;
	struct img im;
	struct box b;
	uint32_t bg;

	if (write_charts(dir, t, &info_linux, 800, 450, 1))
		goto done;
	file = path_of(dir, "releases.png");
	if (img_load(&im, file)) {
		fail(__LINE__, "cannot read '%s'", file);
		free(file);
		goto done;
	}
	free(file);
	bg = px(&im, 1, 1);
	CHECK(((bg >> 16) & 255) + ((bg >> 8) & 255) + (bg & 255) < 3 * 64,
	      "dark background is %06x", bg);
	CHECK(find_colour(&im, release_rgb(t, 0, 1), &b),
	      "no bar in the dark palette");
	CHECK(release_rgb(t, 0, 1) != release_rgb(t, 0, 0) ||
		      release_rgb(t, 11, 1) != release_rgb(t, 11, 0),
	      "dark palette same as light");
	img_free(&im);
done:
	free(dir);
	fx_free(t);
}

/* The same release has the same colour, an ordered ramp. */
static void check_palette(void)
{
	struct tally *t = fx_linux(90, 1), *t5 = fx_new(5, 0, name_v);
	static const size_t sizes[] = { 6, 10, 20, 90 };
	size_t i, k;
	double prev = -1;

	for (i = 0; i < 90; i += 2) {
		uint32_t c = release_rgb(t, i, 0);
		/* viridis grows in lightness: green rises monotonically */
		double g = (c >> 8) & 255;

		CHECK(g >= prev, "palette not ordered at %zu", i);
		prev = g;
	}
	CHECK(release_rgb(t, 0, 0) == 0x440154, "oldest is %06x",
	      release_rgb(t, 0, 0));
	CHECK(release_rgb(t5, 4, 1) == 0xfde725, "newest (dark) is %06x",
	      release_rgb(t5, 4, 1));
	CHECK(release_rgb(t, 90, 0) == 0x9a9a9a, "unreleased is %06x",
	      release_rgb(t, 90, 0));
	fx_free(t);
	fx_free(t5);
	/* neighbours differ clearly, however many releases */
	for (k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		t = fx_new(sizes[k], 1, name_v);
		for (i = 0; i + 1 < sizes[k]; i++) {
			uint32_t a = release_rgb(t, i, k % 2),
				 b = release_rgb(t, i + 1, k % 2);
			int d = abs((int)(a >> 16) - (int)(b >> 16)) +
				abs((int)(a >> 8 & 255) - (int)(b >> 8 & 255)) +
				abs((int)(a & 255) - (int)(b & 255));

			CHECK(d >= 60, "releases %zu and %zu of %zu look alike "
			      "(%06x, %06x)", i, i + 1, sizes[k], a, b);
		}
		fx_free(t);
	}
}

/*
 * The survival chart's names: three curves ending at one point (git's
 * 2.27, 2.28, 2.29 at x = 0) get three boxes apart; of fifty, those that
 * find no room within reach are left out (and so are their curves), the
 * first ones placed; a name without room on the right goes left; none
 * leaves the plot's box.
 */
static void check_end_labels(void)
{
	struct end_label v[50];
	size_t i, j, n, placed;

	for (n = 3; n <= 50; n += 47) {
		memset(v, 0, sizeof(v));
		for (i = 0; i < n; i++)
			v[i] = (struct end_label){ .r = i, .ex = 60, .ey = 60,
				.w = 30, .h = 12 };
		chart_labels_place(v, n, 14, 706, 50, 400);
		for (i = placed = 0; i < n; i++) {
			placed += v[i].placed;
			if (!v[i].placed)
				continue;
			CHECK(v[i].x >= 14 && v[i].x + v[i].w <= 706 &&
			      v[i].y >= 50 && v[i].y + v[i].h <= 400,
			      "name %zu of %zu leaves the plot", i, n);
			for (j = 0; j < i; j++)
				CHECK(!v[j].placed || v[i].x >= v[j].x + v[j].w ||
				      v[j].x >= v[i].x + v[i].w ||
				      v[i].y >= v[j].y + v[j].h ||
				      v[j].y >= v[i].y + v[i].h,
				      "names %zu and %zu of %zu overlap", j, i,
				      n);
		}
		CHECK(n == 3 ? placed == 3 : placed > 3 && placed < n &&
		      v[0].placed && v[1].placed,
		      "%zu of %zu names placed", placed, n);
	}
	v[0] = (struct end_label){ .ex = 700, .ey = 200, .w = 30, .h = 12 };
	chart_labels_place(v, 1, 14, 706, 50, 400);
	CHECK(v[0].placed && v[0].x + v[0].w < 700, "a name at the right "
	      "edge is not left of its curve's end");
}

/*
 * The history's x axis: snapshots dated as git's 42 (a crowd in the
 * first months, then a few a year) and as redis's (seven within two
 * months, then years apart), at the plots of a phone's chart and a wide
 * one: the first and the last always named, no two names closer than
 * their width and the gap, and every name left out crowded by one kept.
 */
static void check_axis_thin(void)
{
	static const double widths[] = { 300, 620, 1200 };
	double x[64], at[64];
	unsigned char keep[64];
	size_t n, i, j, w, pat;

	for (pat = 0; pat < 3; pat++)
		for (w = 0; w < 3; w++) {
			double lo = 60, hi = lo + widths[w];

			n = pat == 0 ? 42 : pat == 1 ? 9 : 2;
			for (i = 0; i < n; i++) {
				double f = pat == 0 ? (i < 5 ? i * 0.004 :
					0.02 + (i - 5) * 0.98 / 36) :
					pat == 1 ? (i < 7 ? i * 0.012 :
					i == 7 ? 0.08 : 1) : (double)i;
				x[i] = lo + f * widths[w];
			}
			chart_axis_thin(x, n, 13, 2, lo - 20, hi + 7, at, keep);
			CHECK(keep[0] && keep[n - 1], "axis %zu at %g: the first "
			      "or the last left out", pat, widths[w]);
			for (i = 0; i < n; i++) {
				int crowded = 0;

				CHECK(at[i] - 6.5 >= lo - 20 - 1e-9 &&
				      at[i] + 6.5 <= hi + 7 + 1e-9,
				      "axis %zu: name %zu leaves the chart", pat, i);
				for (j = 0; j < n; j++) {
					if (j == i || !keep[j])
						continue;
					crowded |= fabs(at[i] - at[j]) < 15;
					CHECK(!keep[i] || fabs(at[i] - at[j]) >= 15,
					      "axis %zu at %g: names %zu and %zu "
					      "meet", pat, widths[w], i, j);
				}
				CHECK(keep[i] || crowded, "axis %zu at %g: name "
				      "%zu left out with room", pat, widths[w], i);
			}
		}
}

/*
 * A name inside a band: a band that thickens to the right takes it at
 * its thick end, whole inside at every x the box spans; one thinner than
 * the name everywhere takes none; a box wider than the plot none.
 */
static void check_band_place(void)
{
	double x[5] = { 0, 100, 200, 300, 400 };
	double top[5] = { 100, 96, 90, 60, 40 }, bot[5] = { 102, 104, 110,
		140, 160 };
	double cx = 0, cy = 0, t = 0, b;
	int k;

	CHECK(chart_band_place(x, top, bot, 5, 40, 8, 0, 400, &cx, &cy) &&
	      cx >= 300 && cx + 20 <= 400, "a name is not at the band's "
	      "thick end (%g)", cx);
	for (k = 0; k <= 40; k++) {
		double at = cx - 20 + k, j = at / 100;
		size_t i = (size_t)j < 4 ? (size_t)j : 3;
		double f = j - (double)i;

		t = top[i] + (top[i + 1] - top[i]) * f;
		b = bot[i] + (bot[i + 1] - bot[i]) * f;
		CHECK(cy - 4 >= t && cy + 4 <= b, "the name leaves its band "
		      "at x %g (%g..%g, band %g..%g)", at, cy - 4, cy + 4, t,
		      b);
	}
	CHECK(!chart_band_place(x, top, bot, 5, 40, 130, 0, 400, &cx, &cy),
	      "a name placed in a band thinner than it");
	CHECK(!chart_band_place(x, top, bot, 5, 500, 8, 0, 400, &cx, &cy),
	      "a name wider than the plot placed");
}

/*
 * Names in a column beside the bands' ends: forty ends 4 px apart (the
 * newest releases at REV) in 300 px: in the ends' order top down, apart,
 * within the column, none further than its reach from its end, the
 * first tried kept; those left out are left out for want of room.
 */
static void check_labels_stack(void)
{
	struct end_label v[40];
	size_t i, j, placed = 0;
	double prev = -1e9, prev_ey = -1e9;
	size_t order[40];

	for (i = 0; i < 40; i++)
		v[i] = (struct end_label){ .r = i, .ex = 600,
			.ey = 100 + 4.0 * (double)((i * 7) % 40), .w = 24,
			.h = 12 };
	CHECK(chart_labels_stack(v, 40, 605, 50, 350) == 0, "stack failed");
	CHECK(v[0].placed, "the first name tried is left out");
	for (i = j = 0; i < 40; i++)
		if (v[i].placed)
			order[j++] = i;
	placed = j;
	CHECK(placed >= 10 && placed <= 300 / 13, "%zu names placed",
	      placed);
	/* by their ends, top down */
	for (i = 1; i < placed; i++)
		for (j = i; j > 0 && v[order[j - 1]].ey > v[order[j]].ey; j--) {
			size_t tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	for (i = 0; i < placed; i++) {
		const struct end_label *L = &v[order[i]];

		CHECK(L->y >= prev && L->ey >= prev_ey, "name %zu out of "
		      "order or over the one above", order[i]);
		CHECK(L->y >= 50 && L->y + L->h <= 350 && L->x == 605,
		      "name %zu leaves its column", order[i]);
		CHECK(fabs(L->y + L->h / 2 - L->ey) <= SURVIVAL_REACH * L->h,
		      "name %zu moved beyond its reach", order[i]);
		prev = L->y + L->h;
		prev_ey = L->ey;
	}
}

static const char *name_jq(size_t i, size_t n)
{
	static char buf[32];

	(void)n;
	snprintf(buf, sizeof(buf), "jq-1.%zu.%zu", i / 3, i % 3);
	return buf;
}

/*
 * The legend's entries at 400 px (the phones' charts) and 720 px: each
 * release a swatch and its name up to LEGEND_SWATCHES releases, wrapped
 * onto lines; beyond, the first and the last named under a ramp; boxes
 * that never overlap nor leave the chart.
 */
static void check_legend(void)
{
	static const size_t sizes[] = { 3, 10, 20, 21, 90, 150 };
	static const double widths[] = { CHART_NARROW_WIDTH, 720 };
	PangoFontMap *fm;
	PangoContext *pc;
	size_t k, wi, i, j;

	chart_fonts_open(&fm, &pc);
	for (k = 0; k < sizeof(sizes) / sizeof(*sizes); k++)
		for (wi = 0; wi < 2; wi++) {
			struct tally *t = fx_new(sizes[k], 1, name_jq);
			struct chart c = { 0 };
			struct legend L;
			int first = 0, last = 0;

			c.pc = pc;
			c.t = t;
			c.th = &chart_theme_light;
			c.w = widths[wi];
			c.h = 480;
			c.nrel = sizes[k];
			if (chart_legend_layout(&L, &c, 40)) {
				fail(__LINE__, "legend: %s", error_last());
				fx_free(t);
				continue;
			}
			CHECK(L.ramp == (sizes[k] > LEGEND_SWATCHES),
			      "%zu releases: ramp %d", sizes[k], L.ramp);
			if (!L.ramp)
				CHECK(L.n == sizes[k] + 1, "%zu releases at "
				      "%g px: %zu entries", sizes[k],
				      widths[wi], L.n);
			for (i = 0; i < L.n; i++) {
				const struct legend_item *a = &L.v[i];

				first |= a->r == 0;
				last |= a->r == sizes[k] - 1;
				CHECK(a->x >= PAD && a->x + a->w <= c.w - PAD,
				      "%zu releases at %g px: entry %zu "
				      "leaves the chart", sizes[k], widths[wi],
				      i);
				for (j = i + 1; j < L.n; j++) {
					const struct legend_item *b = &L.v[j];

					CHECK(a->x + a->w <= b->x ||
					      b->x + b->w <= a->x ||
					      a->y + a->h <= b->y ||
					      b->y + b->h <= a->y,
					      "%zu releases at %g px: entries "
					      "%zu and %zu overlap", sizes[k],
					      widths[wi], i, j);
				}
			}
			CHECK(first && last, "%zu releases at %g px: the first "
			      "or the last is not named", sizes[k],
			      widths[wi]);
			CHECK(L.h < 120, "%zu releases at %g px: a legend %g "
			      "px high", sizes[k], widths[wi], L.h);
			chart_legend_release(&L);
			fx_free(t);
		}
	chart_fonts_close(fm, pc);
}

/* The same tally twice in one process gives the same bytes. */
/*
 * A history for tally t: a snapshot at each release (the last one REV),
 * each release's lines decaying by a tenth at each later snapshot, with
 * subsystems "arch" and "net" splitting every snapshot 3 to 1. Freed with
 * fx_history_free().
 */
static struct snapshots *fx_history(const struct tally *t)
{
	struct snapshots *s = xcalloc(1, sizeof(*s));
	size_t nrel = t->nreleases, k, r, n = 0;

	s->when = SNAPSHOTS_RELEASES;
	s->n = nrel;
	s->nreleases = nrel;
	s->list = xcalloc(nrel, sizeof(*s->list));
	s->subsystems = xcalloc(2, sizeof(char *));
	s->subsystems[0] = xstrdup("arch");
	s->subsystems[1] = xstrdup("net");
	s->nsubsystems = 2;
	s->rows = xcalloc(2 * nrel * nrel + 1, sizeof(*s->rows));
	s->survival = xcalloc(nrel, sizeof(*s->survival));
	for (k = 0; k < nrel; k++) {
		struct snapshot *p = &s->list[k];
		char name[32];

		snprintf(name, sizeof(name), "s%zu", k);
		p->name = xstrdup(k + 1 == nrel ? "HEAD" : name);
		p->date = 1000000000 + (int64_t)k * 86400 * 90;
		p->release = k;
		p->is_rev = k + 1 == nrel;
		p->by_release = xcalloc(nrel, sizeof(uint64_t));
		for (r = 0; r <= k; r++) {
			uint64_t v = 4000 - 3000 * (k - r) / nrel;

			p->by_release[r] = v;
			p->lines += v;
			s->rows[n++] = (struct snapshot_row){ (uint32_t)k, 0,
				(uint32_t)r, 3 * v / 4 };
			s->rows[n++] = (struct snapshot_row){ (uint32_t)k, 1,
				(uint32_t)r, v - 3 * v / 4 };
		}
	}
	s->nrows = n;
	/* Every line at a later snapshot is one of its base's survivors. */
	s->survived = xcalloc(nrel * nrel, sizeof(*s->survived));
	s->based = xcalloc(nrel * nrel, sizeof(*s->based));
	for (r = 0; r < nrel; r++) {
		s->survival[r].base = r;
		for (k = r; k < nrel; k++) {
			s->survived[r * nrel + k] = s->list[k].by_release[r];
			s->based[r * nrel + k] = s->list[r].by_release[r];
		}
	}
	return s;
}

static void fx_history_free(struct snapshots *s)
{
	for (size_t k = 0; k < s->n; k++) {
		free(s->list[k].name);
		free(s->list[k].by_release);
	}
	free(s->subsystems[0]);
	free(s->subsystems[1]);
	free(s->subsystems);
	free(s->list);
	free(s->rows);
	free(s->survival);
	free(s->survived);
	free(s->based);
	free(s);
}

/*
 * The hairlines between bands in an SVG of the layers (strokes of
 * opacity 0.35): how many, and how many start at the leftmost x any of
 * them starts at. -1 if unreadable.
 */
static int svg_hairlines(const char *file, int *left)
{
	unsigned char *svg;
	const char *p;
	double x, min = 1e9;
	double xs[256];
	int n = 0, i;
	size_t len;

	*left = 0;
	if (read_all(file, &svg, &len))
		return -1;
	svg[len ? len - 1 : 0] = '\0';
	for (p = (const char *)svg; (p = strstr(p, "<path")) != NULL; p++) {
		const char *end = strstr(p, "/>");
		const char *op = strstr(p, "opacity:0.35");
		const char *d = strstr(p, " d=\"M ");

		if (!end || !op || op > end || !strstr(p, "stroke-opacity") ||
		    !d || d > end || sscanf(d + 6, "%lf", &x) != 1 || n == 256)
			continue;
		xs[n++] = x;
		min = x < min ? x : min;
	}
	for (i = 0; i < n; i++)
		*left += xs[i] == min;
	free(svg);
	return n;
}

/*
 * The history's charts: their files at the sizes asked for, a subsystem's
 * layers for the subsystems at REV only, the oldest release at the
 * bottom of the layers and the newest on top, every release's band drawn,
 * the same bytes twice.
 */
static void check_history(const char *base)
{
	struct tally *t = fx_new(8, 0, name_v);
	static const uint64_t c[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct snapshots *s;
	char *a = subdir(base, "history-a"), *b = subdir(base, "history-b");
	char file[4096];
	struct img im;
	struct box old, newest;
	size_t r;
	int left;

	fx_dir(t, "arch", 1, c);
	fx_dir(t, "tools", 1, c);
	fx_done(t);
	s = fx_history(t);
	t->history = s;
	if (!write_charts(a, t, &info_linux, 800, 450, 0) &&
	    !write_charts(b, t, &info_linux, 800, 450, 0)) {
		check_files(a, "history", 800, 450);
		check_files(a, "history-share", 800, 450);
		check_files(a, "survival", 800, 450);
		check_files(a, "history-dir-arch", 800, 450);
		check_files(a, "history-dir-arch@share", 800, 450);
		snprintf(file, sizeof(file), "%s/history-dir-tools.png", a);
		CHECK(access(file, F_OK) != 0, "layers of 'tools', which no "
		      "snapshot holds");
		snprintf(file, sizeof(file), "%s/history-dir-net.png", a);
		CHECK(access(file, F_OK) != 0, "layers of 'net', not at REV");
		check_same_dirs(a, b);
		/*
		 * Release r has lines from snapshot r on: its hairline starts
		 * at snapshot r - 1, where it rises from none, so only release
		 * 1's starts at the first (none runs along the stack's top).
		 */
		snprintf(file, sizeof(file), "%s/history.svg", a);
		CHECK(svg_hairlines(file, &left) == 7 && left == 1, "'%s': "
		      "%d hairlines, %d from the first snapshot, not 7 and 1",
		      file, svg_hairlines(file, &left), left);
		snprintf(file, sizeof(file), "%s/history-share.png", a);
		if (img_load(&im, file)) {
			fail(__LINE__, "'%s' is not a PNG", file);
		} else {
			CHECK(find_colour(&im, release_rgb(t, 0, 0), &old) &&
			      find_colour(&im, release_rgb(t, 7, 0), &newest),
			      "'%s' lacks the oldest or the newest band", file);
			CHECK(old.y1 > newest.y1 + 20,
			      "'%s': the oldest band is not below the newest",
			      file);
			for (r = 0; r < 8; r++)
				CHECK(find_colour(&im, release_rgb(t, r, 0),
						  &old), "'%s' has no band of "
				      "release %zu", file, r);
			img_free(&im);
		}
	}
	t->history = NULL;
	fx_history_free(s);
	fx_free(t);
	free(a);
	free(b);
}

/* Names a, b, x, c: x is the one that wrote nothing, when there is one. */
static const char *name_abxc(size_t i, size_t n)
{
	return n == 4 ? (const char *[]){ "a", "b", "x", "c" }[i]
		      : (const char *[]){ "a", "b", "c" }[i];
}

/*
 * A release that wrote nothing at REV (no commit of its history, no
 * line: a maintenance tag of another branch) leaves every chart: with
 * it, the charts are those of the same tally without it, byte for
 * byte; and the colours the pages ask for are those of the charts.
 */
static void check_empty_release(const char *base)
{
	static const uint64_t c4[] = { 50, 30, 0, 20, 5 }, c3[] = { 50, 30,
		20, 5 };
	struct tally *t4 = fx_new(4, 1, name_abxc), *t3 = fx_new(3, 1,
							       name_abxc);
	struct release *r4, *r3;
	char *a = subdir(base, "empty-a"), *b = subdir(base, "empty-b");
	size_t i;

	fx_dir(t4, "src", 1, c4);
	fx_done(t4);
	fx_dir(t3, "src", 1, c3);
	fx_done(t3);
	r4 = fx_dates(t4, 1000000000, 86400 * 100);
	r3 = fx_dates(t3, 1000000000, 86400 * 100);
	for (i = 0; i < 4; i++)
		r4[i].commits = i == 2 ? 0 : 10;
	for (i = 0; i < 3; i++)
		r3[i].commits = 10;
	CHECK(tally_release_silent(t4, 2) && !tally_release_silent(t4, 3) &&
	      !tally_release_silent(t4, 4),
	      "tally_release_silent() is wrong");
	if (!write_charts(a, t4, &info_linux, 720, 480, 0) &&
	    !write_charts(b, t3, &info_linux, 720, 480, 0))
		check_same_dirs(a, b);
	CHECK(release_rgb(t4, 1, 0) == release_rgb(t3, 1, 0) &&
	      release_rgb(t4, 3, 0) == release_rgb(t3, 2, 0),
	      "the pages' colours are not the charts' (%06x, %06x)",
	      release_rgb(t4, 1, 0), release_rgb(t3, 1, 0));
	/* with commits, a release without lines at REV stays */
	r4[2].commits = 1;
	CHECK(release_rgb(t4, 1, 0) != release_rgb(t3, 1, 0),
	      "a release with commits left the ramp");
	/* without commits or lines at REV, lines at a snapshot (a release
	 * branch's own fixes) keep it too; none, and it leaves again */
	r4[2].commits = 0;
	{
		struct snapshots *h = fx_history(t4);

		t4->history = h;
		CHECK(!tally_release_silent(t4, 2), "a release with lines at "
		      "a snapshot is silent");
		for (i = 0; i < h->n; i++)
			h->list[i].by_release[2] = 0;
		CHECK(tally_release_silent(t4, 2), "a release with no line "
		      "anywhere is not silent");
		t4->history = NULL;
		fx_history_free(h);
	}
	fx_free(t4);
	fx_free(t3);
	free(r4);
	free(r3);
	free(a);
	free(b);
}

/* ------------------------------------------------------------------ */
/* Years, authors, organisations */

/* A view of n cohorts named by name(i) with lines[i]. */
static void fx_view(struct cohort_view *v, size_t n, const uint64_t *lines,
		    const char *(*name)(size_t i))
{
	v->n = n;
	v->v = xcalloc(n ? n : 1, sizeof(*v->v));
	for (size_t i = 0; i < n; i++) {
		v->v[i].name = xstrdup(name(i));
		v->v[i].lines = lines[i];
	}
}

static void fx_view_free(struct cohort_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].name);
	free(v->v);
}

/* 2005, 2007 and 2008 (none in 2006): 100, 300 and 600 lines. */
static const char *year_name(size_t i)
{
	static const char *const y[] = { "2005", "2007", "2008" };

	return y[i];
}

/*
 * 25 authors with 250, 240, ... lines; the fourth with a name of 300
 * bytes and control characters, which the chart must shorten.
 */
static const char *author_name(size_t i)
{
	static char buf[400];

	if (i == 3) {
		memset(buf, 'W', 300);
		memcpy(buf + 10, "\x01\x1b[31m", 6);
		buf[300] = '\0';
	} else {
		snprintf(buf, sizeof(buf), "Author %zu", i);
	}
	return buf;
}

static struct cohorts *fx_cohorts(int authors)
{
	static const uint64_t years[] = { 100, 300, 600 };
	uint64_t lines[25];
	struct cohorts *c = xcalloc(1, sizeof(*c));

	for (size_t i = 0; i < 25; i++)
		lines[i] = 250 - 10 * i;
	fx_view(&c->years, 3, years, year_name);
	fx_view(&c->authors, 25, lines, author_name);
	fx_view(&c->orgs, 3, years, year_name);
	c->has_authors = authors;
	c->total_lines = 1000;
	return c;
}

static void fx_cohorts_free(struct cohorts *c)
{
	fx_view_free(&c->years);
	fx_view_free(&c->authors);
	fx_view_free(&c->orgs);
	free(c);
}

static struct img *load_or_fail(struct img *im, const char *dir,
				const char *name)
{
	char *file = path_of(dir, name);
	int rc = img_load(im, file);

	if (rc)
		fail(__LINE__, "cannot read '%s'", file);
	free(file);
	return rc ? NULL : im;
}

/*
 * A bar per year from the first to the last, 2006's empty; the colours
 * of a ramp of four, as of four releases; heights as the lines.
 */
static void check_years_bars(const char *dir, const struct tally *ramp4)
{
	static const size_t slot[] = { 0, 2, 3 };
	struct img im;
	struct box b[3], gap;

	if (!load_or_fail(&im, dir, "years.png"))
		return;
	for (size_t i = 0; i < 3; i++)
		if (!find_colour(&im, release_rgb(ramp4, slot[i], 0), &b[i])) {
			fail(__LINE__, "no bar for %s", year_name(i));
			goto done;
		}
	CHECK(!find_colour(&im, release_rgb(ramp4, 1, 0), &gap),
	      "2006 has a bar");
	CHECK(b[0].x1 < b[1].x0 && b[1].x1 < b[2].x0, "years out of order");
	CHECK(b[1].x0 - b[0].x1 > b[0].x1 - b[0].x0,
	      "no room for 2006 between 2005 and 2007");
	CHECK(b[0].y1 == b[1].y1 && b[1].y1 == b[2].y1,
	      "years on different baselines");
	{
		int h0 = b[0].y1 - b[0].y0 + 1, h1 = b[1].y1 - b[1].y0 + 1;
		int h2 = b[2].y1 - b[2].y0 + 1;

		CHECK(abs(2 * h1 - h2) <= 2 && abs(6 * h0 - h2) <= 6,
		      "year bars %d, %d, %d px for 100, 300, 600 lines", h0,
		      h1, h2);
	}
done:
	img_free(&im);
}

/* Rows of colour c in column x, each a run of rows; *last: its middle. */
static int runs_in_column(const struct img *im, int x, uint32_t c,
			  int *last)
{
	int n = 0, in = 0, y0 = 0;

	for (int y = 0; y < im->h; y++) {
		int is = px(im, x, y) == c;

		if (is && !in)
			y0 = y;
		if (!is && in)
			*last = (y0 + y - 1) / 2;
		n += is && !in;
		in = is;
	}
	return n;
}

/* The last pixel of colour c from x on along row y. */
static int run_end(const struct img *im, int x, int y, uint32_t c)
{
	while (x + 1 < im->w && px(im, x + 1, y) == c)
		x++;
	return x;
}

/*
 * 20 authors of their own in one colour (the ramp at 21/50), then a grey bar below them for the 5 others, 150 lines to the
 * top one's 250; the long name cut to 28% of the width.
 */
static void check_ranked_bars(const char *dir, unsigned w)
{
	const struct theme *th = &chart_theme_light;
	struct rgb ramp = chart_ramp(th->lo + (th->hi - th->lo) * 21 / 50);
	uint32_t bar = (uint32_t)ramp.r << 16 | (uint32_t)ramp.g << 8 | ramp.b;
	struct img im;
	struct box blue;
	int x, top = 0, others = -1, len_top, len_others;

	if (!load_or_fail(&im, dir, "authors.png"))
		return;
	if (!find_colour(&im, bar, &blue)) {
		fail(__LINE__, "no author bars");
		goto done;
	}
	x = blue.x0 + 1;
	CHECK(runs_in_column(&im, x, bar, &top) == 20,
	      "%d author bars, not 20", runs_in_column(&im, x, bar, &top));
	CHECK(runs_in_column(&im, x, 0x9a9a9a, &others) == 1,
	      "no single bar for the others");
	if (others < 0)
		goto done;
	CHECK(others > blue.y1, "the others are not last");
	len_top = blue.x1 - blue.x0 + 1;
	len_others = run_end(&im, x, others, 0x9a9a9a) - blue.x0 + 1;
	CHECK(abs(250 * len_others - 150 * len_top) <= 250 * 2,
	      "others %d px for the top author's %d", len_others, len_top);
	CHECK(blue.x0 <= 14 + 0.28 * w + 10, "labels %d px wide", blue.x0);
done:
	img_free(&im);
}

static const char *far_year(size_t i)
{
	return i ? "2200" : "1970";
}

/*
 * 1970 and 2200 (a broken clock): too far apart for a bar a year (231
 * bars of 2 px), so two wide bars, in the colours of a ramp of two.
 */
static void check_years_span(const char *base)
{
	static const uint64_t lines[] = { 10, 30 }, a[] = { 40, 0 };
	struct tally *t = fx_new(2, 0, name_v);
	struct cohorts *c = xcalloc(1, sizeof(*c));
	char *dir = subdir(base, "years-span");
	struct box b0, b1;
	struct img im;

	fx_view(&c->years, 2, lines, far_year);
	c->total_lines = 40;
	fx_dir(t, "lib", 1, a);
	fx_done(t);
	t->cohorts = c;
	if (!write_charts(dir, t, &info_linux, 720, 480, 0) &&
	    load_or_fail(&im, dir, "years.png")) {
		if (find_colour(&im, release_rgb(t, 0, 0), &b0) &&
		    find_colour(&im, release_rgb(t, 1, 0), &b1))
			CHECK(b1.x0 > b0.x1 && b0.x1 - b0.x0 > 20 &&
				      b1.x1 - b1.x0 > 20,
			      "1970 and 2200 at %d-%d and %d-%d", b0.x0, b0.x1,
			      b1.x0, b1.x1);
		else
			fail(__LINE__, "no bars for 1970 and 2200");
		img_free(&im);
	}
	t->cohorts = NULL;
	fx_cohorts_free(c);
	fx_free(t);
	free(dir);
}

static void check_cohorts(const char *base)
{
	static const uint64_t a[] = { 600, 300, 100, 0 };
	struct tally *t = fx_new(4, 0, name_v);
	struct cohorts *c = fx_cohorts(1);
	char *dir = subdir(base, "cohorts"), *again = subdir(base, "cohorts2");
	char *none = subdir(base, "cohorts-none");

	fx_dir(t, "lib", 1, a);
	fx_done(t);
	t->cohorts = c;
	if (!write_charts(dir, t, &info_linux, 720, 480, 0) &&
	    !write_charts(again, t, &info_linux, 720, 480, 0)) {
		check_files(dir, "years", 720, 480);
		check_chart(dir, "authors", 720, 480, 1);
		check_chart(dir, "orgs", 720, 480, 1);
		check_years_bars(dir, t);
		check_ranked_bars(dir, 720);
		check_same_dirs(dir, again);
	}
	/* --no-authors: the years only */
	c->has_authors = 0;
	if (!write_charts(none, t, &info_linux, 720, 480, 0))
		CHECK(count_files(none) == 4 * 5, "'%s' has %zu files, not %d",
		      none, count_files(none), 4 * 5);
	t->cohorts = NULL;
	fx_cohorts_free(c);
	fx_free(t);
	free(dir);
	free(again);
	free(none);
}

static void check_determinism(const char *base)
{
	struct tally *t = fx_linux(30, 1);
	char *a = subdir(base, "det-a"), *b = subdir(base, "det-b");
	int ok;

	ok = !write_charts(a, t, &info_linux, 700, 420, 0);
	ok = ok && !write_charts(b, t, &info_linux, 700, 420, 0);
	if (ok)
		check_same_dirs(a, b);
	free(a);
	free(b);
	fx_free(t);
}

static void gen(const char *base)
{
	struct tally *t = fx_linux(30, 1);

	write_charts(base, t, &info_linux, 700, 420, 0);
	fx_free(t);
}

static void samples(const char *base)
{
	static const size_t counts[] = { 3, 12, 90, 150 };
	size_t i;
	int dark;

	for (i = 0; i < sizeof(counts) / sizeof(*counts); i++)
		for (dark = 0; dark < 2; dark++) {
			struct tally *t = fx_linux(counts[i], 1);
			char name[64], *dir;

			snprintf(name, sizeof(name), "%zu-%s", counts[i],
				 dark ? "dark" : "light");
			dir = subdir(base, name);
			write_charts(dir, t, &info_linux, 800, 450, dark);
			free(dir);
			fx_free(t);
		}
}

/*
 * The subsystem charts of 1, 2, 3, 10 and 40 subsystems, and of three
 * with no first-release code at all (a 0% reference line), to look at.
 */
static void subsamples(const char *base)
{
	static const size_t counts[] = { 1, 2, 3, 10, 40 };
	size_t i;

	for (i = 0; i <= sizeof(counts) / sizeof(*counts); i++) {
		int zero = i == sizeof(counts) / sizeof(*counts);
		size_t n = zero ? 3 : counts[i];
		struct tally *t = fx_subsystems(n, zero);
		char name[64], *dir;

		snprintf(name, sizeof(name), "%s%zu", zero ? "zero-" : "", n);
		dir = subdir(base, name);
		write_charts(dir, t, &info_linux, 960, 480, 0);
		free(dir);
		fx_free(t);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "font")) {
		if (chart_check_font()) {
			fprintf(stderr, "chart_test: %s\n", error_last());
			return 1;
		}
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: chart_test "
			"check|gen|samples|subsamples DIR\n");
		return 2;
	}
	if (chart_check_font()) {
		fprintf(stderr, "chart_test: %s\n", error_last());
		return 1;
	}
	if (!strcmp(mode, "gen")) {
		gen(argv[2]);
	} else if (!strcmp(mode, "samples")) {
		samples(argv[2]);
	} else if (!strcmp(mode, "subsamples")) {
		subsamples(argv[2]);
	} else if (!strcmp(mode, "check")) {
		check_palette();
		check_legend();
		check_end_labels();
		check_axis_thin();
		check_band_place();
		check_labels_stack();
		check_bars(argv[2]);
		check_subsystems(argv[2]);
		check_few_subsystems(argv[2], 800, 450);
		check_few_subsystems(argv[2], CHART_MIN_WIDTH, 340);
		check_unreleased(argv[2]);
		check_sparse(argv[2]);
		check_edges(argv[2]);
		check_group_rules();
		check_dark(argv[2]);
		check_determinism(argv[2]);
		check_history(argv[2]);
		check_empty_release(argv[2]);
		check_cohorts(argv[2]);
		check_years_span(argv[2]);
	} else {
		fprintf(stderr, "chart_test: unknown mode '%s'\n", mode);
		return 2;
	}
	if (failures)
		fprintf(stderr, "chart_test: %d failed\n", failures);
	return failures ? 1 : 0;
}
