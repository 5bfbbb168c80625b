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
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void png_write(png_structp png, png_bytep data, png_size_t len)
{
	struct buf *b = png_get_io_ptr(png);

	if (buf_write(b, data, (unsigned int)len))
		png_error(png, "out of memory");
}

/* libpng prints its errors and warnings unless told otherwise. */
static void png_fail(png_structp png, png_const_charp msg)
{
	(void)msg;
	png_longjmp(png, 1);
}

static void png_quiet(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
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
		if (buf_write(out, (const unsigned char *)s, 1)) {
			rc = error_oom();
			goto done;
		}
		i++;
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

/*
 * PNG through libpng rather than cairo's writer, whose adaptive row
 * filters and zlib level 6 cost more than drawing the charts: charts are
 * flat colour, which compresses nearly as well without filters at level
 * 3, for much less time (docs/performance.md). No time or text chunks,
 * so the bytes depend only on the pixels.
 */
static int png_encode(struct buf *out, cairo_surface_t *s)
{
	int w = cairo_image_surface_get_width(s);
	int h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *data;
	png_structp png = NULL;
	png_infop info = NULL;
	unsigned char *volatile row = NULL;
	volatile int rc = 0;
	int x, y;

	cairo_surface_flush(s);
	data = cairo_image_surface_get_data(s);
	row = malloc((size_t)w * 3);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
				      png_fail, png_quiet);
	if (png)
		info = png_create_info_struct(png);
	if (!row || !png || !info) {
		rc = error_oom();
		goto done;
	}
	if (setjmp(png_jmpbuf(png))) {
		rc = out->oom ? error_oom() : error_set("unable to encode PNG");
		goto done;
	}
	png_set_write_fn(png, out, png_write, NULL);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
		     PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
	png_set_compression_level(png, 3);
	png_write_info(png, info);
	for (y = 0; y < h; y++) {
		const unsigned char *src = data + (size_t)y * (size_t)stride;

		for (x = 0; x < w; x++) {
			uint32_t v;

			memcpy(&v, src + 4 * x, 4);
			row[3 * x] = (unsigned char)(v >> 16);
			row[3 * x + 1] = (unsigned char)(v >> 8);
			row[3 * x + 2] = (unsigned char)v;
		}
		png_write_row(png, row);
	}
	png_write_end(png, info);
done:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	free(row);
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
 * NAME.svg, NAME.png and NAME@2x.png; and, when the chart is wider than
 * a phone, NAME@narrow.svg drawn CHART_NARROW_WIDTH wide for one. With
 * `fit`, each as high as its content needs, up to the height asked for.
 */
int chart_emit_fit(struct charts *x, const char *name, draw_fn fn,
		   const void *arg, int fit)
{
	unsigned w = x->w, h = x->h;
	int rc;

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

int chart_check_font(void)
{
	PangoFontMap *fm;
	PangoContext *pc;
	PangoFontDescription *want, *got = NULL;
	PangoFont *font;
	PangoLayout *l = NULL;
	const char *family;
	int rc = 0;

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
