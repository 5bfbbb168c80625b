/*
 * chart out: the surfaces a chart is drawn on and the files they become.
 * chart_emit() runs a drawing function on an image surface at scale 1
 * and 2 (NAME.png, NAME@2x.png, encoded by libpng) and on an SVG surface
 * (NAME.svg, its surface ids renumbered per file); and the fonts every
 * surface shares.
 */
#include "chart_int.h"

#include <cairo-svg.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/error.h"
#include "strata/util.h"

/* ------------------------------------------------------------------ */
/* Output */

struct buf {
	unsigned char *p;
	size_t n, cap;
	int oom;
};

static cairo_status_t buf_write(void *closure, const unsigned char *data,
				unsigned int len)
{
	struct buf *b = closure;
	size_t need = util_add(b->n, len);

	/* 64 KiB at first: a chart's SVG is rarely smaller */
	if (need > b->cap &&
	    UTIL_GROW(b->p, b->cap, need > 65536 ? need : 65536) < 0) {
		b->oom = 1;
		return CAIRO_STATUS_NO_MEMORY;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
	return CAIRO_STATUS_SUCCESS;
}

static int write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return error_set("unable to create '%s': %s", path,
				 strerror(errno));
	if (fwrite(p, 1, n, f) != n) {
		int e = errno;

		fclose(f);
		return error_set("unable to write '%s': %s", path,
				 strerror(e));
	}
	if (fclose(f))
		return error_set("unable to write '%s': %s", path,
				 strerror(errno));
	return 0;
}

/*
 * cairo names each SVG surface after a process-wide counter
 * ("surface42"): number such names in order of first appearance instead.
 */
static int svg_normalise(struct buf *out, const struct buf *in)
{
	static const char *const prefixes[] = { "surface", "source-",
						"image" };
	unsigned long *seen = NULL;
	size_t nseen = 0, cap = 0, i = 0, p;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (i < in->n) {
		const char *s = (const char *)in->p + i;
		size_t rest = in->n - i, plen = 0, d;
		int ref = 0;

		if (rest > 4 && !memcmp(s, "id=\"", 4))
			ref = 4;
		else if (*s == '#')
			ref = 1;
		for (p = 0; ref && p < sizeof(prefixes) / sizeof(*prefixes);
		     p++) {
			plen = strlen(prefixes[p]);
			if (rest > ref + plen &&
			    !memcmp(s + ref, prefixes[p], plen))
				break;
		}
		if (ref && p < sizeof(prefixes) / sizeof(*prefixes) &&
		    (d = ref + plen) < rest && s[d] >= '0' && s[d] <= '9') {
			unsigned long num = 0, id;
			char tmp[32];
			size_t k;

			while (d < rest && s[d] >= '0' && s[d] <= '9')
				num = num * 10 + (unsigned long)(s[d++] - '0');
			for (k = 0; k < nseen; k++)
				if (seen[k] == num)
					break;
			if (k == nseen) {
				if ((rc = UTIL_GROW(seen, cap, nseen + 1)) < 0)
					goto done;
				seen[nseen++] = num;
			}
			id = (unsigned long)k + 1;
			snprintf(tmp, sizeof(tmp), "%lu", id);
			if (buf_write(out, (const unsigned char *)s,
				      (unsigned)(ref + plen)) ||
			    buf_write(out, (const unsigned char *)tmp,
				      (unsigned)strlen(tmp))) {
				rc = error_oom();
				goto done;
			}
			i += d;
			continue;
		}
		/* On to the next place a reference may start, in one write. */
		for (d = 1; d < rest && s[d] != '#' && s[d] != 'i'; d++)
			;
		if (buf_write(out, (const unsigned char *)s, (unsigned)d)) {
			rc = error_oom();
			goto done;
		}
		i += d;
	}
done:
	free(seen);
	return rc;
}

static int render(struct charts *x, cairo_surface_t *s, const char *name,
		  draw_fn fn, const void *arg)
{
	struct chart c;
	cairo_status_t st;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cr = cairo_create(s);
	c.pc = x->pc;
	c.t = x->t;
	c.info = x->info;
	c.th = x->th;
	c.w = x->w;
	c.h = x->h;
	c.rows = &x->rows;
	c.nrel = x->nrel;
	c.groups = &x->groups;
	pango_cairo_update_context(c.cr, c.pc);
	rc = fn(&c, arg);
	x->spare = c.spare;
	st = cairo_status(c.cr);
	cairo_destroy(c.cr);
	if (!rc && st)
		rc = st == CAIRO_STATUS_NO_MEMORY
			? error_oom()
			: error_set("unable to draw chart '%s': %s", name,
				    cairo_status_to_string(st));
	return rc;
}

static const char *out_path(struct charts *x, const char *name,
			    const char *suffix)
{
	size_t need = strlen(x->dir) + strlen(name) + strlen(suffix) + 2;

	if (need > x->path_cap) {
		char *p = realloc(x->path, need);

		if (!p)
			return NULL;
		x->path = p;
		x->path_cap = need;
	}
	snprintf(x->path, need, "%s/%s%s", x->dir, name, suffix);
	return x->path;
}

/* v as PNG writes numbers: 4 bytes, most significant first. */
static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Append a PNG chunk: length, type, data, CRC-32 of type and data. */
static int png_chunk(struct buf *b, const char type[4],
		     const unsigned char *data, size_t len)
{
	unsigned char head[8], tail[4];
	uint32_t crc;

	if (len > 0x7fffffffu)
		return error_set("unable to encode PNG: image too large");
	put_be32(head, (uint32_t)len);
	memcpy(head + 4, type, 4);
	/* (libdeflate_crc32() of a NULL buffer is 0, not the CRC so far) */
	crc = libdeflate_crc32(0, type, 4);
	if (len)
		crc = libdeflate_crc32(crc, data, len);
	put_be32(tail, crc);
	if (buf_write(b, head, 8) ||
	    (len && buf_write(b, data, (unsigned int)len)) ||
	    buf_write(b, tail, 4))
		return error_oom();
	return 0;
}

/* The surface's pixels as PNG rows: filter byte 0, then RGB. */
static unsigned char *png_rows(cairo_surface_t *s, int w, int h,
			       size_t *len)
{
	int stride = cairo_image_surface_get_stride(s), x, y;
	const unsigned char *data = cairo_image_surface_get_data(s);
	size_t rowlen = 1 + (size_t)w * 3;
	unsigned char *raw = malloc(rowlen * (size_t)h), *row;

	if (!raw)
		return NULL;
	for (y = 0; y < h; y++) {
		const unsigned char *src = data + (size_t)y * (size_t)stride;

		row = raw + (size_t)y * rowlen;
		*row++ = 0;
		for (x = 0; x < w; x++) {
			uint32_t v;

			memcpy(&v, src + 4 * x, 4);
			row[3 * x] = (unsigned char)(v >> 16);
			row[3 * x + 1] = (unsigned char)(v >> 8);
			row[3 * x + 2] = (unsigned char)v;
		}
	}
	*len = rowlen * (size_t)h;
	return raw;
}

/*
 * PNG of our own, compressed by libdeflate in one call: cairo's writer
 * (adaptive row filters, zlib level 6) cost more than drawing the
 * charts, and libpng's zlib at level 3 was still a fifth of publishing.
 * Charts are flat colour, which compresses well without row filters.
 * No time or text chunks, so the bytes depend only on the pixels.
 */
#define PNG_LEVEL 4

static int png_encode(struct buf *out, cairo_surface_t *s)
{
	static const unsigned char sig[8] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
	};
	int w = cairo_image_surface_get_width(s);
	int h = cairo_image_surface_get_height(s);
	struct libdeflate_compressor *z = NULL;
	unsigned char ihdr[13], *raw = NULL, *packed = NULL;
	size_t len = 0, cap, n;
	int rc = 0;

	cairo_surface_flush(s);
	raw = png_rows(s, w, h, &len);
	z = libdeflate_alloc_compressor(PNG_LEVEL);
	cap = z ? libdeflate_zlib_compress_bound(z, len) : 0;
	packed = z ? malloc(cap) : NULL;
	if (!raw || !z || !packed) {
		rc = error_oom();
		goto done;
	}
	if (!(n = libdeflate_zlib_compress(z, raw, len, packed, cap))) {
		rc = error_set("unable to encode PNG");
		goto done;
	}
	put_be32(ihdr, (uint32_t)w);
	put_be32(ihdr + 4, (uint32_t)h);
	/* 8 bits, RGB, deflate, the one filter method, no interlace */
	memcpy(ihdr + 8, "\x08\x02\x00\x00\x00", 5);
	if (buf_write(out, sig, 8)) {
		rc = error_oom();
		goto done;
	}
	if ((rc = png_chunk(out, "IHDR", ihdr, 13)) < 0 ||
	    (rc = png_chunk(out, "IDAT", packed, n)) < 0 ||
	    (rc = png_chunk(out, "IEND", NULL, 0)) < 0)
		goto done;
done:
	libdeflate_free_compressor(z);
	free(raw);
	free(packed);
	return rc;
}

static int emit_png(struct charts *x, const char *name, int scale,
		    draw_fn fn, const void *arg)
{
	cairo_surface_t *s;
	struct buf b = { 0 };
	const char *path;
	cairo_status_t st;
	int rc;

	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
				       (int)x->w * scale, (int)x->h * scale);
	if ((st = cairo_surface_status(s))) {
		cairo_surface_destroy(s);
		return st == CAIRO_STATUS_NO_MEMORY
			? error_oom()
			: error_set("unable to make chart '%s': %s", name,
				    cairo_status_to_string(st));
	}
	cairo_surface_set_device_scale(s, scale, scale);
	rc = render(x, s, name, fn, arg);
	if (!rc)
		rc = png_encode(&b, s);
	cairo_surface_destroy(s);
	if (!rc) {
		path = out_path(x, name, scale == 1 ? ".png" : "@2x.png");
		rc = path ? write_file(path, b.p, b.n) : error_oom();
	}
	free(b.p);
	return rc;
}

static int emit_svg(struct charts *x, const char *name, const char *suffix,
		    draw_fn fn, const void *arg)
{
	cairo_surface_t *s;
	struct buf b = { 0 }, norm = { 0 };
	const char *path;
	cairo_status_t st;
	int rc;

	s = cairo_svg_surface_create_for_stream(buf_write, &b, x->w, x->h);
	if ((st = cairo_surface_status(s))) {
		cairo_surface_destroy(s);
		return error_set("unable to make chart '%s': %s", name,
				 cairo_status_to_string(st));
	}
	cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
	rc = render(x, s, name, fn, arg);
	cairo_surface_finish(s);
	st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (!rc && st)
		rc = b.oom ? error_oom()
			   : error_set("unable to write chart '%s': %s", name,
				       cairo_status_to_string(st));
	if (!rc)
		rc = svg_normalise(&norm, &b);
	if (!rc) {
		path = out_path(x, name, suffix);
		rc = path ? write_file(path, norm.p, norm.n) : error_oom();
	}
	free(b.p);
	free(norm.p);
	return rc;
}

/* chart_write_all()'s test hook (x->fail): NAME fails, NAME! kills. */
static int test_fail(const struct charts *x, const char *name)
{
	size_t n = strlen(name);

	if (!x->fail || strncmp(x->fail, name, n))
		return 0;
	if (!strcmp(x->fail + n, "!"))
		raise(SIGKILL);
	if (x->fail[n])
		return 0;
	return error_set("test failure of chart '%s'", name);
}

/*
 * chart_write_all()'s other test hook (x->trace): "PART NAME" appended to
 * the file for each chart this process draws, in one write.
 */
static void test_trace(const struct charts *x, const char *name)
{
	char line[256];
	int n, fd;

	if (!x->trace)
		return;
	n = snprintf(line, sizeof(line), "%u %s\n", x->part, name);
	fd = open(x->trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	/* (A test's file: a failed write shows there.) */
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(fd, line, (size_t)n);
	close(fd);
}

/*
 * A chart that can shrink (c->spare) is drawn once without output to
 * learn its height: x->h less what it would leave unused.
 */
static int fit_height(struct charts *x, const char *name, draw_fn fn,
		      const void *arg)
{
	cairo_surface_t *s;
	int rc;

	s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR, NULL);
	rc = render(x, s, name, fn, arg);
	cairo_surface_destroy(s);
	if (!rc && x->spare >= 1)
		x->h -= (unsigned)floor(x->spare);
	return rc;
}

/*
 * Whether this process draws the next emit: the one it has taken, or
 * (when it has none) the next no process has taken. Every process makes
 * the same emits in the same order and takes them in increasing order,
 * so each is drawn once, by whichever process came for it first.
 */
static bool chart_mine(struct charts *x)
{
	size_t k = x->emits++;

	if (x->parts <= 1)
		return true;
	if (!x->claims)
		return k % x->parts == x->part;
	if (!x->claimed) {
		x->mine = atomic_fetch_add(x->claims, 1);
		x->claimed = true;
	}
	if (x->mine != k)
		return false;
	x->claimed = false;
	return true;
}

/*
 * NAME.svg, NAME.png and NAME@2x.png; and, when the chart is wider than
 * a phone, NAME@narrow.svg drawn CHART_NARROW_WIDTH wide for one. With
 * `fit`, each as high as its content needs, up to the height asked for.
 */
int chart_emit_fit(struct charts *x, const char *name, draw_fn fn,
		   const void *arg, int fit)
{
	unsigned w = x->w, h = x->h;
	int rc;

	/* Another process's chart (chart_write_all()). */
	if (!chart_mine(x))
		return 0;
	if ((rc = test_fail(x, name)) < 0)
		return rc;
	test_trace(x, name);
	if ((fit && (rc = fit_height(x, name, fn, arg))) ||
	    (rc = emit_svg(x, name, ".svg", fn, arg)) ||
	    (rc = emit_png(x, name, 1, fn, arg)) ||
	    (rc = emit_png(x, name, 2, fn, arg)))
		goto done;
	if (w >= CHART_NARROW_WIDTH + CHART_NARROW_MARGIN) {
		x->w = CHART_NARROW_WIDTH;
		x->h = h;
		if ((fit && (rc = fit_height(x, name, fn, arg))) ||
		    (rc = emit_svg(x, name, "@narrow.svg", fn, arg)))
			goto done;
	}
done:
	x->w = w;
	x->h = h;
	return rc;
}

int chart_emit(struct charts *x, const char *name, draw_fn fn,
	       const void *arg)
{
	return chart_emit_fit(x, name, fn, arg, 0);
}

/* ------------------------------------------------------------------ */
/* Fonts */

/*
 * A font map and context of our own with every font option fixed, so
 * that neither the surface nor the environment changes glyph shapes or
 * metrics. Advances are hinted to whole CSS pixels: cairo 1.16 puts
 * glyphs on whole device pixels, and fractional advances would space
 * small text unevenly at 1x.
 */
void chart_fonts_open(PangoFontMap **fm, PangoContext **pc)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	*fm = pango_cairo_font_map_new();
	*pc = pango_font_map_create_context(*fm);
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_subpixel_order(fo, CAIRO_SUBPIXEL_ORDER_DEFAULT);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
	pango_cairo_context_set_font_options(*pc, fo);
	cairo_font_options_destroy(fo);
	pango_cairo_context_set_resolution(*pc, 96);
	pango_context_set_round_glyph_positions(*pc, TRUE);
	pango_context_set_language(*pc, pango_language_from_string("en"));
	pango_context_set_base_dir(*pc, PANGO_DIRECTION_LTR);
}

void chart_fonts_close(PangoFontMap *fm, PangoContext *pc)
{
	if (pc)
		g_object_unref(pc);
	if (fm)
		g_object_unref(fm);
}

/* chart_check_font()'s check, in the process that runs it. */
static int check_font_here(void *unused)
{
	PangoFontMap *fm;
	PangoContext *pc;
	PangoFontDescription *want, *got = NULL;
	PangoFont *font;
	PangoLayout *l = NULL;
	const char *family;
	int rc = 0;

	(void)unused;
	chart_fonts_open(&fm, &pc);
	want = pango_font_description_from_string(CHART_FONT);
	pango_font_description_set_absolute_size(want, 12 * PANGO_SCALE);
	font = pango_font_map_load_font(fm, pc, want);
	if (!font) {
		rc = error_set("font '%s' not found: install fonts-dejavu-core",
			       CHART_FONT);
		goto done;
	}
	got = pango_font_describe(font);
	family = pango_font_description_get_family(got);
	if (!family || g_ascii_strcasecmp(family, CHART_FONT)) {
		rc = error_set("font '%s' not found (got '%s'): install "
			       "fonts-dejavu-core",
			       CHART_FONT, family ? family : "none");
		goto done;
	}
	l = pango_layout_new(pc);
	pango_layout_set_font_description(l, want);
	pango_layout_set_text(l, "0123456789% ABCXYZ abcxyz.-_", -1);
	if (pango_layout_get_unknown_glyphs_count(l)) {
		rc = error_set("font '%s' draws no glyphs: install "
			       "fonts-dejavu-core",
			       CHART_FONT);
		goto done;
	}
done:
	if (l)
		g_object_unref(l);
	if (got)
		pango_font_description_free(got);
	if (font)
		g_object_unref(font);
	pango_font_description_free(want);
	chart_fonts_close(fm, pc);
	return rc;
}

/*
 * In a child: this process must not start pango's threads before it
 * forks its drawers (chart_proc.c).
 */
int chart_check_font(void)
{
	struct chart_child c;
	int rc = chart_child_start(&c, check_font_here, NULL);

	return rc ? rc : chart_child_finish(&c, 0);
}
