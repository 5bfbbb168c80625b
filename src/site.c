#include "strata/site.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "strata/chart.h"
#include "strata/cohorts.h"
#include "strata/error.h"
#include "strata/names.h"
#include "strata/publish.h"
#include "strata/snapshots.h"
#include "strata/template.h"

#ifndef STRATA_DATADIR
#define STRATA_DATADIR "/usr/local/share/strata"
#endif
#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

const char *const site_templates[] = {
	"header.tpl", "footer.tpl", "figure.tpl", "index.tpl",
	"dir.tpl", "untouched.tpl", "releases.tpl", "history.tpl",
	"authors.tpl", NULL
};

#define SITE_CSS "strata.css"
/* Directories listed under "where its lines are now" on releases.html. */
#define WHERE_TOP 10

#define TRY(x) do { if ((rc = (x)) < 0) goto done; } while (0)

/* ---- finding the templates ---- */

static int readable(const char *dir, const char *name)
{
	char *p;
	int ok;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return 0;
	ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

/*
 * A template without the pragma is expanded without escaping, and one
 * included from an escaping template is not escaped either: refuse it
 * rather than publish a page that a file name can inject into.
 */
static int check_pragma(const char *dir, const char *name)
{
	static const char pragma[] = SITE_PRAGMA;
	char head[sizeof(pragma)];
	char *p;
	FILE *f;
	size_t n;
	int rc = 0;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return error_oom();
	f = fopen(p, "rb");
	if (!f) {
		rc = error_set("unable to read template '%s': %s", p,
			       strerror(errno));
		goto done;
	}
	n = fread(head, 1, sizeof(pragma) - 1, f);
	fclose(f);
	if (n != sizeof(pragma) - 1 ||
	    memcmp(head, pragma, sizeof(pragma) - 1))
		rc = error_set("template '%s' does not start with %s", p,
			       pragma);
done:
	free(p);
	return rc;
}

/*
 * Every template is parsed here, before any work: a syntax error would
 * otherwise show only when the pages are written, after the whole blame.
 */
static int check_templates(const char *dir)
{
	struct template_set *set = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && site_templates[i]; i++)
		rc = check_pragma(dir, site_templates[i]);
	if (!rc)
		rc = template_set_new(&set, dir);
	for (size_t i = 0; !rc && site_templates[i]; i++)
		rc = template_set_load(set, site_templates[i]);
	template_set_free(set);
	if (rc < 0)
		return rc;
	if (!readable(dir, SITE_CSS))
		return error_set("unable to read '%s/%s': %s", dir, SITE_CSS,
				 strerror(errno));
	return 0;
}

int site_find_templates(char **out, const char *given)
{
	static const char *const beside_binary[] = {
		"templates", "../../templates", "../share/strata/templates"
	};
	char exe[PATH_MAX];
	char *found = NULL;
	ssize_t n;
	int rc;

	*out = NULL;
	if (given) {
		if (!readable(given, "index.tpl"))
			return error_set("no templates in '%s': "
					 "index.tpl not found", given);
		found = strdup(given);
		if (!found)
			return error_oom();
	}
	n = found ? -1 : readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; !found && i < 3; i++) {
			char *dir;

			if (asprintf(&dir, "%s/%s", exe, beside_binary[i]) < 0)
				return error_oom();
			if (readable(dir, "index.tpl"))
				found = dir;
			else
				free(dir);
		}
	}
	if (!found && readable(STRATA_DATADIR "/templates", "index.tpl")) {
		found = strdup(STRATA_DATADIR "/templates");
		if (!found)
			return error_oom();
	}
	if (!found)
		return error_set("templates not found beside the strata binary "
				 "nor in '%s': use --templates DIR",
				 STRATA_DATADIR "/templates");
	rc = check_templates(found);
	if (rc < 0) {
		free(found);
		return rc;
	}
	*out = found;
	return 0;
}

/* ---- formatting: locale-free, so that pages are the same everywhere ---- */

struct text {
	char s[48];
};

/* 1234567 -> "1,234,567" */
static struct text count(uint64_t n)
{
	struct text t;
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);
	size_t o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			t.s[o++] = ',';
		t.s[o++] = digits[i];
	}
	t.s[o] = '\0';
	return t;
}

/*
 * part/whole in percent with `decimals` (1 or 2) digits, rounded half
 * up in integers: the same everywhere, whatever the FPU or locale.
 */
static struct text percent(uint64_t part, uint64_t whole, int decimals)
{
	uint64_t unit = decimals == 1 ? 10 : 100, v;
	struct text t;

	v = whole ? (part * unit * 100 * 2 + whole) / (2 * whole) : 0;
	snprintf(t.s, sizeof(t.s), "%" PRIu64 ".%0*" PRIu64, v / unit,
		 decimals, v % unit);
	return t;
}

static struct text pct(uint64_t part, uint64_t whole)
{
	return percent(part, whole, 2);
}

/* "1 file", "1,234 files" */
static int set_counted(struct template_dict *d, const char *key, uint64_t n,
		       const char *one, const char *many)
{
	return template_dict_setf(d, key, "%s %s", count(n).s,
				  n == 1 ? one : many);
}

static struct text date(int64_t when)
{
	struct text t;
	time_t tt = (time_t)when;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(t.s, sizeof(t.s), "%Y-%m-%d", &tm))
		snprintf(t.s, sizeof(t.s), "?");
	return t;
}

static struct text date_time(int64_t when)
{
	struct text t;
	time_t tt = (time_t)when;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(t.s, sizeof(t.s), "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(t.s, sizeof(t.s), "?");
	return t;
}

static struct text seconds(double s)
{
	struct text t;
	long long tenths = s > 0 ? llround(s * 10) : 0;

	snprintf(t.s, sizeof(t.s), "%lld.%lld", tenths / 10, tenths % 10);
	return t;
}

/* The length of the valid UTF-8 sequence at s, 0 if there is none. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;

#define CONT(b) ((b) >= 0x80 && (b) <= 0xbf)
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return CONT(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
		return s[1] >= lo && s[1] <= hi && CONT(s[2]) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
		return s[1] >= lo && s[1] <= hi && CONT(s[2]) && CONT(s[3]) ?
			4 : 0;
	}
	return 0;
#undef CONT
}

/*
 * A name as it can be shown on a UTF-8 page: bytes that are not UTF-8,
 * and control characters (C0, DEL, C1), become \xNN. HTML escaping is
 * the template's job. malloc'd; NULL when out of memory.
 */
static char *display(const char *raw)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t n = strlen(raw);
	char *out = malloc(n * 4 + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		size_t len = utf8_seq(s);
		int control = len == 1 ? (*s < 0x20 || *s == 0x7f) :
			      len == 2 && s[0] == 0xc2 && s[1] < 0xa0;

		if (len && !control) {
			memcpy(o, s, len);
			o += len;
			s += len;
			continue;
		}
		if (!len)
			len = 1;
		for (size_t i = 0; i < len; i++)
			o += sprintf(o, "\\x%02x", s[i]);
		s += len;
	}
	*o = '\0';
	return out;
}

static int set_display(struct template_dict *d, const char *key,
		       const char *raw)
{
	char *s = display(raw);
	int rc;

	if (!s)
		return error_oom();
	rc = template_dict_set(d, key, s);
	free(s);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- the site being written ---- */

struct site {
	const char *dir;
	const struct tally *t;
	const struct report_info *info;
	const struct site_options *o;
	struct template_set *set;
	struct names *names;
	char **dir_page;        /* per dirs[i]: its page, from the top */
	char **release_id;      /* per release: its anchor on pages */
	const char *root;       /* the page being made to the top: "../.." */
	/* untouched files below each directory, in path order (CSR) */
	size_t *below_start;    /* ndirs + 1 */
	size_t *below;          /* file indices */
	uint64_t *below_lines;  /* per dir: lines of those files */
	const char *first;      /* name of the first release */
};

/* The report has the views of people (not --no-authors). */
static int has_authors(const struct site *s)
{
	return s->t->cohorts && s->t->cohorts->has_authors;
}

/*
 * A page-relative URL of `name` (a path from the top of the report): the
 * current page's way up, then the name with every byte outside
 * [A-Za-z0-9._~/@-] %-escaped (names.h gives none, but a URL must never
 * depend on that).
 */
static int href_to(char **out, struct site *s, const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t rlen = strlen(s->root);
	char *o;

	*out = o = malloc(rlen + 3 * strlen(name) + 1);
	if (!o)
		return error_oom();
	memcpy(o, s->root, rlen);
	o += rlen;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("._~/@-", *p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return 0;
}

static int set_href(struct template_dict *d, const char *key, struct site *s,
		    const char *name)
{
	char *href;
	int rc = href_to(&href, s, name);

	if (rc < 0)
		return rc;
	rc = template_dict_set(d, key, href);
	free(href);
	return rc;
}

/* The link to dirs[i]'s page (the root's is the index). */
static int set_dir_href(struct template_dict *d, const char *key,
			struct site *s, size_t i)
{
	return set_href(d, key, s, s->dir_page[i]);
}

static int write_file(const char *dir, const char *name, const char *data,
		      size_t len)
{
	char *path;
	FILE *f;
	int rc = 0;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return error_oom();
	f = fopen(path, "wb");
	if (!f) {
		rc = error_set("unable to create '%s': %s", path,
			       strerror(errno));
		goto done;
	}
	if (fwrite(data, 1, len, f) != len) {
		rc = error_set("unable to write '%s': %s", path,
			       strerror(errno));
		fclose(f);
		goto done;
	}
	if (fclose(f))
		rc = error_set("unable to write '%s': %s", path,
			       strerror(errno));
done:
	free(path);
	return rc;
}

static int copy_css(struct site *s)
{
	char *src, *data = NULL;
	FILE *f;
	long len;
	int rc = 0;

	if (asprintf(&src, "%s/%s", s->o->templates_dir, SITE_CSS) < 0)
		return error_oom();
	f = fopen(src, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		rc = error_set("unable to read '%s': %s", src, strerror(errno));
		goto done;
	}
	data = malloc((size_t)len + 1);
	if (!data) {
		rc = error_oom();
		goto done;
	}
	if (fread(data, 1, (size_t)len, f) != (size_t)len) {
		rc = error_set("unable to read '%s'", src);
		goto done;
	}
	rc = write_file(s->dir, SITE_CSS, data, (size_t)len);
done:
	if (f)
		fclose(f);
	free(data);
	free(src);
	return rc;
}

/* A chart's size in CSS pixels, from its 1x PNG's header. */
static int png_size(struct site *s, const char *name, unsigned *w,
		    unsigned *h)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n',
					     0x1a, '\n'};
	unsigned char b[24];
	char *path;
	FILE *f;
	size_t n = 0;

	if (asprintf(&path, "%s/img/%s.png", s->dir, name) < 0)
		return error_oom();
	f = fopen(path, "rb");
	if (f) {
		n = fread(b, 1, sizeof(b), f);
		fclose(f);
	}
	if (n != sizeof(b) || memcmp(b, sig, 8) || memcmp(b + 12, "IHDR", 4)) {
		error_set("chart '%s' is missing or not a PNG", path);
		free(path);
		return STRATA_ERR;
	}
	free(path);
	*w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 |
	     (unsigned)b[18] << 8 | b[19];
	*h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 |
	     (unsigned)b[22] << 8 | b[23];
	return 0;
}

/* The number in `attr`="NNNpx" of the <svg> tag in `head`, or 0. */
static unsigned svg_attr(const char *head, const char *attr)
{
	const char *svg = strstr(head, "<svg "), *p;
	char want[32];
	unsigned long v;
	char *end;

	snprintf(want, sizeof(want), " %s=\"", attr);
	p = svg ? strstr(svg, want) : NULL;
	if (!p)
		return 0;
	v = strtoul(p + strlen(want), &end, 10);
	return strncmp(end, "px\"", 3) || v > 100000 ? 0 : (unsigned)v;
}

/*
 * The size of the phone chart img/NAME@narrow.svg, from its <svg> tag;
 * 0 by 0 when there is none.
 */
static int narrow_size(struct site *s, const char *name, unsigned *w,
		       unsigned *h)
{
	char head[1024], *path;
	FILE *f;
	size_t n;

	*w = *h = 0;
	if (asprintf(&path, "%s/img/%s@narrow.svg", s->dir, name) < 0)
		return error_oom();
	f = fopen(path, "rb");
	free(path);
	if (!f)
		return 0;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	*w = svg_attr(head, "width");
	*h = svg_attr(head, "height");
	return 0;
}

/* Set KEY to the link to img/NAME + suffix. */
static int set_img_href(struct template_dict *d, const char *key,
			struct site *s, const char *name, const char *suffix)
{
	char *file;
	int rc;

	if (asprintf(&file, "img/%s%s", name, suffix) < 0)
		return error_oom();
	rc = set_href(d, key, s, file);
	free(file);
	return rc;
}

/*
 * A chart with its links; on a phone, its narrow SVG when there is one,
 * drawn for that width so that its text stays readable.
 */
static int figure(struct site *s, struct template_dict *d, const char *key,
		  const char *name, const char *alt, const char *caption)
{
	struct template_dict *f, *narrow;
	unsigned w = 0, h = 0, nw, nh;
	int rc;

	TRY(png_size(s, name, &w, &h));
	TRY(narrow_size(s, name, &nw, &nh));
	TRY(template_dict_include(&f, d, key, "figure.tpl"));
	TRY(template_dict_set(f, "NAME", name));
	TRY(set_img_href(f, "SVG", s, name, ".svg"));
	TRY(set_img_href(f, "PNG", s, name, ".png"));
	TRY(set_img_href(f, "PNG2X", s, name, "@2x.png"));
	TRY(template_dict_setf(f, "WIDTH", "%u", w));
	TRY(template_dict_setf(f, "HEIGHT", "%u", h));
	if (nw && nh) {
		TRY(template_dict_add(&narrow, f, "NARROW"));
		TRY(set_img_href(narrow, "SRC", s, name, "@narrow.svg"));
		TRY(template_dict_setf(narrow, "WIDTH", "%u", nw));
		TRY(template_dict_setf(narrow, "HEIGHT", "%u", nh));
	}
	TRY(set_display(f, "ALT", alt));
	TRY(set_display(f, "CAPTION", caption));
done:
	return rc;
}

/* The page a page's header marks as the current one. */
enum nav {
	NAV_NONE, NAV_INDEX, NAV_RELEASES, NAV_HISTORY, NAV_AUTHORS,
	NAV_UNTOUCHED
};

/*
 * The way up from page `file` to the top of the report: "" for a page at
 * the top, "../" for "arch/x86.html". malloc'd.
 */
static char *way_up(const char *file)
{
	size_t n = 0;
	char *up;

	for (const char *p = file; (p = strchr(p, '/')); p++)
		n++;
	up = malloc(3 * n + 1);
	if (!up)
		return NULL;
	for (size_t i = 0; i < n; i++)
		memcpy(up + 3 * i, "../", 3);
	up[3 * n] = '\0';
	return up;
}

/*
 * A page's dictionary, with the header, footer and values every page has.
 * `file` is where the page goes (from the top of the report): every link
 * made for it until the next page_new() is relative to it.
 */
static int page_new(struct template_dict **out, struct site *s,
		    const char *file, const char *title, enum nav current)
{
	static const struct {
		const char *href, *label;
		enum nav page;
	} nav[] = {
		{"index.html", "Overview", NAV_INDEX},
		{"releases.html", "Releases", NAV_RELEASES},
		{"history.html", "History", NAV_HISTORY},
		{"authors.html", "Authors", NAV_AUTHORS},
		{"untouched.html", "Untouched files", NAV_UNTOUCHED},
		{"index.html#data", "Data", NAV_NONE},
	};
	const struct report_info *info = s->info;
	struct template_dict *d = NULL, *inc, *item;
	char *repo = NULL, *rev = NULL;
	int rc;

	*out = NULL;
	free((char *)s->root);
	s->root = way_up(file);
	repo = display(info->repo_name ? info->repo_name : "repository");
	rev = display(info->rev ? info->rev : info->commit);
	if (!repo || !rev || !s->root) {
		rc = error_oom();
		goto done;
	}
	TRY(template_dict_new(&d));
	TRY(template_dict_set_shared(d, "ROOT", s->root));
	TRY(template_dict_set_shared(d, "REPO", repo));
	TRY(template_dict_set_shared(d, "REV", rev));
	TRY(template_dict_set_shared(d, "COMMIT", info->commit));
	TRY(template_dict_set_shared(d, "VERSION",
				     info->version ? info->version :
				     STRATA_VERSION));
	TRY(template_dict_set_shared(d, "GENERATED",
				     date_time(info->generated).s));
	TRY(template_dict_set_shared(d, "THEME", s->o->dark ? "dark" : "light"));
	TRY(set_display(d, "FIRST", s->first));

	TRY(template_dict_include(&inc, d, "HEADER", "header.tpl"));
	TRY(set_display(inc, "TITLE", title));
	for (size_t i = 0; i < sizeof(nav) / sizeof(nav[0]); i++) {
		if ((nav[i].page == NAV_HISTORY && !s->t->history) ||
		    (nav[i].page == NAV_AUTHORS && !has_authors(s)))
			continue;
		TRY(template_dict_add(&item, inc, "NAV"));
		/* constant names: nothing to escape */
		TRY(template_dict_setf(item, "HREF", "%s%s", s->root,
				       nav[i].href));
		TRY(template_dict_set(item, "LABEL", nav[i].label));
		if (current != NAV_NONE && nav[i].page == current)
			TRY(template_dict_show(item, "CURRENT"));
	}
	TRY(template_dict_include(&inc, d, "FOOTER", "footer.tpl"));
	*out = d;
	d = NULL;
done:
	template_dict_free(d);
	free(repo);
	free(rev);
	return rc;
}

static int page_write(struct site *s, const char *file, const char *tpl,
		      struct template_dict *d)
{
	char *html;
	size_t len;
	int rc = template_expand(&html, &len, s->set, tpl, d);

	if (rc < 0)
		return rc;
	rc = write_file(s->dir, file, html, len);
	free(html);
	return rc;
}

/* How a directory is named in lists: "." stands for the root's files. */
static const char *dir_label(const struct tally_dir *dir)
{
	return strcmp(dir->path, ".") ? dir->path : "(root files)";
}

static uint64_t first_lines(const struct site *s, const struct tally_dir *d)
{
	return s->t->nreleases && !s->t->releases[0].unreleased ?
	       d->by_release[0] : 0;
}

/* ---- set-up: names and the untouched files below each directory ---- */

/*
 * Anchors of releases: "r-" and the readable name (names_ids()); the
 * bucket of unreleased commits is "unreleased", which no name can give,
 * so a tag named "unreleased" is told apart from it.
 */
static int release_ids(struct site *s)
{
	const struct tally *t = s->t;
	const char **keys = calloc(t->nreleases + 1, sizeof(*keys));
	char **ids = calloc(t->nreleases + 1, sizeof(*ids));
	size_t n = 0;
	int rc = 0;

	if (!keys || !ids) {
		rc = error_oom();
		goto done;
	}
	for (size_t r = 0; r < t->nreleases; r++)
		if (!t->releases[r].unreleased)
			keys[n++] = t->releases[r].name;
	TRY(names_ids(ids, keys, n, "r-", 0));
	for (size_t r = 0, k = 0; r < t->nreleases; r++)
		s->release_id[r] = t->releases[r].unreleased ?
			strdup("unreleased") : ids[k++];
	for (size_t r = 0; r < t->nreleases; r++)
		if (!s->release_id[r])
			rc = error_oom();
done:
	free(keys);
	free(ids);
	return rc;
}

static int site_prepare(struct site *s)
{
	const struct tally *t = s->t;
	size_t *fill = NULL;
	int rc = 0;

	s->dir_page = calloc(t->ndirs ? t->ndirs : 1, sizeof(char *));
	s->release_id = calloc(t->nreleases ? t->nreleases : 1,
			       sizeof(char *));
	s->below_start = calloc(t->ndirs + 1, sizeof(size_t));
	s->below_lines = calloc(t->ndirs ? t->ndirs : 1, sizeof(uint64_t));
	fill = calloc(t->ndirs ? t->ndirs : 1, sizeof(size_t));
	if (!s->dir_page || !s->release_id || !s->below_start ||
	    !s->below_lines || !fill) {
		rc = error_oom();
		goto done;
	}
	TRY(names_new(&s->names, t));
	for (size_t i = 0; i < t->ndirs; i++) {
		const struct tally_dir *d = &t->dirs[i];

		/* Walks up the tree below must end. */
		if (i && (d->parent >= i ||
			  t->dirs[d->parent].level + 1 != d->level)) {
			rc = error_set("BUG: directory '%s' has a bad parent",
				       d->path);
			goto done;
		}
		TRY(names_get(&s->dir_page[i], s->names, d->path,
			      NAMES_PAGE));
	}
	TRY(release_ids(s));

	/* Count, then place: each untouched file under all its ancestors. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t f = 0; f < t->nfiles; f++) {
			const struct tally_file *file = &t->files[f];
			size_t d = file->dir;

			if (!file->untouched)
				continue;
			while (d != 0 && d < t->ndirs) {
				if (pass == 0) {
					s->below_start[d + 1]++;
					s->below_lines[d] += file->lines;
				} else {
					s->below[s->below_start[d] + fill[d]++] = f;
				}
				d = t->dirs[d].parent;
			}
		}
		if (pass == 0) {
			for (size_t d = 0; d < t->ndirs; d++)
				s->below_start[d + 1] += s->below_start[d];
			s->below = malloc((s->below_start[t->ndirs] + 1) *
					  sizeof(size_t));
			if (!s->below) {
				rc = error_oom();
				goto done;
			}
		}
	}
	s->first = t->nreleases ? t->releases[0].name : "the first release";
done:
	free(fill);
	return rc;
}

static void site_release(struct site *s)
{
	for (size_t i = 0; s->dir_page && i < s->t->ndirs; i++)
		free(s->dir_page[i]);
	for (size_t r = 0; s->release_id && r < s->t->nreleases; r++)
		free(s->release_id[r]);
	free(s->dir_page);
	free(s->release_id);
	free((char *)s->root);
	names_free(s->names);
	free(s->below_start);
	free(s->below);
	free(s->below_lines);
	template_set_free(s->set);
}

static size_t below_count(const struct site *s, size_t d)
{
	return s->below_start[d + 1] - s->below_start[d];
}

/* The release with the most lines in `by` (the first on a tie). */
static size_t biggest(const struct site *s, const uint64_t *by)
{
	size_t best = 0;

	for (size_t r = 1; r < s->t->nreleases; r++)
		if (by[r] > by[best])
			best = r;
	return best;
}

/* ---- index.html ---- */

static int history_summary(struct site *s, struct template_dict *d,
			   const char *section);
static int dir_history(struct site *s, struct template_dict *d, size_t i);
static int index_years(struct site *s, struct template_dict *d);

static int tags_summary(char **out, const struct release *rel)
{
	char *first, *last = NULL;
	int n;

	*out = NULL;
	if (!rel || !rel->ntags)
		return (*out = strdup("")) ? 0 : error_oom();
	first = display(rel->tags[0].name);
	if (rel->ntags > 1)
		last = display(rel->tags[rel->ntags - 1].name);
	if (!first || (rel->ntags > 1 && !last)) {
		free(first);
		free(last);
		return error_oom();
	}
	if (rel->ntags == 1)
		n = asprintf(out, "%s", first);
	else if (rel->ntags == 2)
		n = asprintf(out, "%s, %s", first, last);
	else
		n = asprintf(out, "%s … %s (%zu tags)", first, last,
			     rel->ntags);
	free(first);
	free(last);
	if (n < 0) {
		*out = NULL;
		return error_oom();
	}
	return 0;
}

/*
 * A release's tag dates: FROM, and UNTIL (with TO) when its tags span
 * more than a day; nothing for the unreleased bucket. Pages keep each
 * date whole, so a range breaks only at its dash.
 */
static int release_dates(struct template_dict *d, const struct release *rel)
{
	struct template_dict *until;
	struct text first, last;
	int rc;

	if (!rel || rel->unreleased || !rel->ntags)
		return template_dict_set(d, "FROM", "");
	first = date(rel->first_date);
	last = date(rel->last_date);
	TRY(template_dict_set(d, "FROM", first.s));
	if (strcmp(first.s, last.s)) {
		TRY(template_dict_add(&until, d, "UNTIL"));
		TRY(template_dict_set(until, "TO", last.s));
	}
done:
	return rc;
}

static size_t real_releases(const struct tally *t)
{
	size_t n = 0;

	for (size_t r = 0; r < t->nreleases; r++)
		n += !t->releases[r].unreleased;
	return n;
}

static int set_join(struct template_dict *d, const char *key,
		    const char *const *list, size_t n)
{
	size_t len = 1;
	char *s, *o;
	int rc;

	for (size_t i = 0; i < n; i++)
		len += strlen(list[i]) + 1;
	s = o = malloc(len);
	if (!s)
		return error_oom();
	*o = '\0';
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, "%s%s", i ? " " : "", list[i]);
	rc = set_display(d, key, s);
	free(s);
	return rc;
}

static int index_method(struct site *s, struct template_dict *d)
{
	const struct report_info *info = s->info;
	struct template_dict *sec, *item;
	int rc;

	TRY(template_dict_setf(d, "SHORT", "%.7s", info->commit));
	TRY(template_dict_set(d, "COMMIT_DATE", date(info->commit_time).s));
	TRY(set_counted(d, "N_COMMITS", info->ncommits, "commit", "commits"));
	TRY(set_counted(d, "N_DIFFS", info->ndiffs, "file diff", "file diffs"));
	TRY(set_counted(d, "N_LEVELS", info->depth ? info->depth :
			s->t->depth, "level", "levels"));
	if (info->first_parent)
		TRY(template_dict_show(d, "FIRST_PARENT"));
	if (info->shallow) {
		TRY(template_dict_add(&sec, d, "SHALLOW"));
		TRY(set_counted(sec, "N_BOUNDARY", info->nboundary, "commit",
				"commits"));
	} else {
		TRY(template_dict_show(d, "NOT_SHALLOW"));
	}
	TRY(set_display(d, "TAGS_ERE", info->tags_ere ? info->tags_ere :
			"(the default)"));
	if (info->group_ere) {
		TRY(set_display(d, "GROUP_ERE", info->group_ere));
		TRY(template_dict_show(d, "GROUP_ERE"));
	} else {
		TRY(template_dict_show(d, "NO_GROUP"));
	}
	TRY(template_dict_show(d, info->ignore_whitespace ?
			       "IGNORE_WHITESPACE" : "WHITESPACE"));
	if (info->nignore_revs) {
		TRY(template_dict_add(&sec, d, "IGNORE_REVS"));
		TRY(set_counted(sec, "N_REVS", info->nignore_revs, "revision",
				"revisions"));
		for (size_t i = 0; i < info->nignore_revs; i++) {
			TRY(template_dict_add(&item, sec, "IGNORED"));
			TRY(set_display(item, "HASH", info->ignore_revs[i]));
		}
	}
	if (info->ninclude) {
		TRY(template_dict_add(&sec, d, "INCLUDE"));
		TRY(set_join(sec, "PATTERNS", info->include, info->ninclude));
	} else {
		TRY(template_dict_show(d, "ALL_FILES"));
	}
	if (info->nexclude) {
		TRY(template_dict_add(&sec, d, "EXCLUDE"));
		TRY(set_join(sec, "PATTERNS", info->exclude, info->nexclude));
	}
	if (info->skip_vendored)
		TRY(template_dict_show(d, "SKIP_VENDORED"));
	/* What the filters left out, so that the figures can be defended. */
	if (info->ninclude || info->nexclude || info->skip_vendored) {
		TRY(template_dict_add(&sec, d, "LEFT_OUT"));
		TRY(set_counted(sec, "N_FILES", info->left_globs_files +
				info->left_vendored_files, "text file",
				"text files"));
		TRY(set_counted(sec, "N_LINES", info->left_globs_lines +
				info->left_vendored_lines, "line", "lines"));
	}
	/*
	 * Times and jobs differ from run to run and machine to machine: left
	 * out when SOURCE_DATE_EPOCH asks for reproducible output, as in
	 * report.json.
	 */
	if (info->seconds_total > 0 && !info->reproducible) {
		TRY(template_dict_add(&sec, d, "TIMES"));
		TRY(template_dict_set(sec, "TOTAL",
				      seconds(info->seconds_total).s));
		TRY(template_dict_set(sec, "HISTORY",
				      seconds(info->seconds_history).s));
		TRY(template_dict_set(sec, "BLAME",
				      seconds(info->seconds_blame).s));
		TRY(set_counted(sec, "N_JOBS", info->jobs, "job", "jobs"));
	}
done:
	return rc;
}

static int chart_row(struct site *s, struct template_dict *d,
		     const char *name, const char *title)
{
	struct template_dict *row;
	int rc;

	TRY(template_dict_add(&row, d, "CHART"));
	TRY(set_img_href(row, "SVG", s, name, ".svg"));
	TRY(set_img_href(row, "PNG", s, name, ".png"));
	TRY(set_img_href(row, "PNG2X", s, name, "@2x.png"));
	TRY(set_display(row, "TITLE", title));
done:
	return rc;
}

static int write_index(struct site *s)
{
	const struct tally *t = s->t;
	const struct tally_dir *root = &t->dirs[0];
	struct template_dict *d = NULL, *sec;
	char *alt = NULL, *text = NULL;
	uint64_t commits = 0;
	size_t best_sub = 0, newest = t->nreleases;
	int rc;

	TRY(page_new(&d, s, "index.html", "How old is the code", NAV_INDEX));
	TRY(template_dict_set(d, "LINES", count(t->total_lines).s));
	TRY(template_dict_set(d, "FILES", count(t->nfiles).s));
	TRY(set_counted(d, "N_LINES", t->total_lines, "line", "lines"));
	TRY(set_counted(d, "N_FILES", t->nfiles, "file", "files"));
	TRY(set_counted(d, "N_RELEASES", real_releases(t), "release",
			"releases"));
	TRY(template_dict_set(d, "FIRST_SHARE",
			      pct(first_lines(s, root), t->total_lines).s));
	if (t->total_lines) {
		TRY(template_dict_add(&sec, d, "HEADLINE"));
		TRY(template_dict_set(sec, "FIRST_SHARE",
			percent(first_lines(s, root), t->total_lines, 1).s));
	} else {
		TRY(template_dict_show(d, "NO_LINES"));
	}
	for (size_t r = t->nreleases; r-- > 1;)
		if (!t->releases[r].unreleased) {
			newest = r;
			break;
		}
	if (newest < t->nreleases) {
		TRY(template_dict_add(&sec, d, "NEWEST"));
		TRY(set_display(sec, "NAME", t->releases[newest].name));
		TRY(template_dict_set(sec, "SHARE",
			percent(t->releases[newest].lines, t->total_lines, 1).s));
	}
	if (t->nreleases && t->releases[t->nreleases - 1].unreleased &&
	    t->releases[t->nreleases - 1].lines) {
		const struct tally_release *u = &t->releases[t->nreleases - 1];

		TRY(template_dict_add(&sec, d, "UNRELEASED"));
		TRY(template_dict_set(sec, "SHARE",
				      percent(u->lines, t->total_lines, 1).s));
		TRY(set_counted(sec, "N_LINES", u->lines, "line", "lines"));
	}
	TRY(template_dict_set(d, "UNTOUCHED_FILES", count(t->nuntouched).s));
	TRY(template_dict_set(d, "UNTOUCHED_LINES",
			      count(t->untouched_lines).s));
	if (t->nuntouched) {
		TRY(template_dict_add(&sec, d, "UNTOUCHED"));
		TRY(set_counted(sec, "N_FILES", t->nuntouched, "file",
				"files"));
		TRY(set_counted(sec, "N_LINES", t->untouched_lines, "line",
				"lines"));
	}

	/* Releases: chart and table. */
	for (size_t r = 0; r < t->nreleases; r++) {
		const struct tally_release *tr = &t->releases[r];
		struct template_dict *row;

		TRY(template_dict_add(&row, d, "RELEASE"));
		TRY(set_display(row, "NAME", tr->name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(template_dict_set(row, "CLASS", tr->unreleased ?
				      "unreleased" : "release"));
		TRY(tags_summary(&text, tr->release));
		/* the tags, unless the name says it all */
		if (*text && strcmp(text, tr->name)) {
			struct template_dict *tags;

			TRY(template_dict_add(&tags, row, "TAGS"));
			TRY(set_display(tags, "LIST", text));
		}
		free(text);
		text = NULL;
		TRY(release_dates(row, tr->release));
		TRY(template_dict_set(row, "COMMITS", count(tr->release ?
				      tr->release->commits : 0).s));
		TRY(template_dict_set(row, "LINES", count(tr->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(tr->lines, t->total_lines).s));
		commits += tr->release ? tr->release->commits : 0;
	}
	TRY(template_dict_set(d, "COMMITS", count(commits).s));
	if (t->nreleases) {
		size_t b = biggest(s, root->by_release);

		if (asprintf(&alt, "Bar chart of the lines at %s by the "
			     "release that wrote them, from %s to %s; the "
			     "largest share, %s%%, comes from %s. The table "
			     "beside it has every value.", s->info->rev ?
			     s->info->rev : s->info->commit, s->first,
			     newest < t->nreleases ? t->releases[newest].name :
			     s->first,
			     percent(root->by_release[b], root->lines, 1).s,
			     t->releases[b].name) < 0) {
			alt = NULL;
			rc = error_oom();
			goto done;
		}
		TRY(figure(s, d, "RELEASES_CHART", "releases", alt,
			   "The share of today's lines written in each "
			   "release."));
		free(alt);
		alt = NULL;
	}

	/* Subsystems: the level-1 directories. */
	for (size_t i = 1; i < t->ndirs; i++) {
		const struct tally_dir *dir = &t->dirs[i];
		struct template_dict *row;

		if (dir->level != 1)
			continue;
		/* the highest share of old code, compared without division */
		if (!best_sub || first_lines(s, dir) * t->dirs[best_sub].lines >
		    first_lines(s, &t->dirs[best_sub]) * dir->lines)
			best_sub = i;
		TRY(template_dict_add(&row, d, "SUBSYSTEM"));
		TRY(set_display(row, "NAME", dir_label(dir)));
		TRY(set_dir_href(row, "HREF", s, i));
		TRY(template_dict_set(row, "FILES", count(dir->nfiles).s));
		TRY(template_dict_set(row, "LINES", count(dir->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(dir->lines, t->total_lines).s));
		TRY(template_dict_set(row, "FIRST_SHARE",
				      pct(first_lines(s, dir), dir->lines).s));
		TRY(template_dict_set(row, "UNTOUCHED",
				      count(below_count(s, i)).s));
	}
	if (best_sub) {
		const struct tally_dir *b = &t->dirs[best_sub];

		rc = asprintf(&alt, "Bar chart of the share of each "
			      "subsystem's lines that %s wrote; the highest "
			      "is %s at %s%%, and the whole tree's %s%% is a "
			      "reference line. The table beside it has every "
			      "value.", s->first, dir_label(b),
			      percent(first_lines(s, b), b->lines, 1).s,
			      percent(first_lines(s, root), root->lines, 1).s);
		if (rc < 0) {
			alt = NULL;
			rc = error_oom();
			goto done;
		}
	}
	TRY(figure(s, d, "SUBSYSTEMS_CHART", "subsystems", alt ? alt :
		   "Bar chart of the share of each subsystem's lines from "
		   "the first release.",
		   "Old code by subsystem: the share of each top-level "
		   "directory's lines from the first release."));
	free(alt);
	alt = NULL;
	TRY(figure(s, d, "STACK_CHART", "subsystems-stack",
		   "Stacked bars, one per subsystem, each divided into the "
		   "shares of its lines written in each release, oldest "
		   "first. The release and subsystem tables have the values.",
		   "What each subsystem is made of, release by release."));

	TRY(index_method(s, d));
	TRY(history_summary(s, d, "OVER_TIME"));

	TRY(chart_row(s, d, "releases", "Lines by release"));
	TRY(chart_row(s, d, "subsystems", "Old code by subsystem"));
	TRY(chart_row(s, d, "subsystems-stack", "Subsystems by release"));
	if (t->history) {
		TRY(template_dict_show(d, "HISTORY_DATA"));
		TRY(chart_row(s, d, "history", "Lines by release at each "
			      "snapshot"));
		TRY(chart_row(s, d, "history-share", "The same at 100%"));
		TRY(chart_row(s, d, "survival", "Survival of each release's "
			      "lines"));
	}
	TRY(index_years(s, d));
	for (size_t i = 1; i < t->ndirs; i++) {
		char *name;

		TRY(names_get(&name, s->names, t->dirs[i].path, NAMES_CHART));
		if (asprintf(&text, "Directory %s", dir_label(&t->dirs[i])) < 0)
			text = NULL;
		rc = text ? chart_row(s, d, name, text) : error_oom();
		free(name);
		free(text);
		text = NULL;
		if (rc < 0)
			goto done;
	}
	rc = page_write(s, "index.html", "index.tpl", d);
done:
	free(alt);
	free(text);
	template_dict_free(d);
	return rc;
}

/* ---- years on the index, and authors.html ---- */

/* Rows of the author and organisation tables on authors.html. */
#define COHORT_TABLE_TOP 50
/* Authors listed per subsystem on authors.html. */
#define SUBSYSTEM_AUTHORS 10
/* Rows of their own in img/authors and img/orgs (chart.c draws as many). */
#define COHORT_CHART_TOP 20

/* The whole tree, where a subsystem's index is asked for. */
#define ALL_SUBSYSTEMS SIZE_MAX

/* Lines of cohort c in subsystem `sub` (or all of them). */
static uint64_t cohort_lines(const struct cohort *c, size_t sub)
{
	return sub == ALL_SUBSYSTEMS ? c->lines : c->by_subsystem[sub];
}

/* The lines of the years before `year`, and the median line's year. */
static uint64_t years_before(const struct cohort_view *v, int year,
			     size_t sub)
{
	uint64_t n = 0;

	for (size_t i = 0; i < v->n && atoi(v->v[i].name) < year; i++)
		n += cohort_lines(&v->v[i], sub);
	return n;
}

static const char *years_median(const struct cohort_view *v, uint64_t total,
				size_t sub)
{
	uint64_t n = 0;

	for (size_t i = 0; i < v->n; i++)
		if ((n += cohort_lines(&v->v[i], sub)) * 2 >= total)
			return v->v[i].name;
	return v->n ? v->v[v->n - 1].name : "";
}

/*
 * "45.0% of the lines at REV were last changed before 2016" (five
 * calendar years before REV's own), "half of them in 2012 or earlier":
 * of the whole tree, or of subsystem `sub`'s `total` lines.
 */
static int years_summary(struct site *s, struct template_dict *d, size_t sub,
			 uint64_t total)
{
	const struct cohorts *co = s->t->cohorts;
	int year = atoi(date(s->info->commit_time).s) - 4;
	uint64_t old = years_before(&co->years, year, sub);
	struct template_dict *sec;
	int rc = 0;

	if (!total)
		return 0;
	TRY(template_dict_set(d, "MEDIAN",
			      years_median(&co->years, total, sub)));
	if (!old)
		return template_dict_show(d, "NO_OLD");
	TRY(template_dict_add(&sec, d, "OLD"));
	TRY(template_dict_setf(sec, "YEAR", "%d", year));
	TRY(template_dict_set(sec, "SHARE", percent(old, total, 1).s));
done:
	return rc;
}

static int index_years(struct site *s, struct template_dict *d)
{
	const struct cohorts *co = s->t->cohorts;
	struct template_dict *sec, *row;
	int rc = 0;

	if (!co)
		return 0;
	TRY(template_dict_add(&sec, d, "YEARS"));
	TRY(template_dict_set(sec, "DATE", cohorts_date_name(co->date)));
	TRY(years_summary(s, sec, ALL_SUBSYSTEMS, co->total_lines));
	for (size_t i = 0; i < co->years.n; i++) {
		const struct cohort *y = &co->years.v[i];

		TRY(template_dict_add(&row, sec, "YEAR"));
		TRY(template_dict_set(row, "NAME", y->name));
		TRY(template_dict_set(row, "COMMITS", count(y->commits).s));
		TRY(template_dict_set(row, "LINES", count(y->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(y->lines, co->total_lines).s));
	}
	TRY(figure(s, sec, "YEARS_CHART", "years", "Bar chart of the share "
		   "of the lines by the calendar year of the commit that last "
		   "changed them, oldest on the left. The table beside it has "
		   "every value.", "The share of today's lines last changed "
		   "in each year."));
	TRY(template_dict_show(d, "YEARS_DATA"));
	TRY(chart_row(s, d, "years", "Lines by year"));
	if (has_authors(s)) {
		TRY(template_dict_show(d, "AUTHORS_DATA"));
		TRY(chart_row(s, d, "authors", "Lines by author"));
		TRY(chart_row(s, d, "orgs", "Lines by organisation"));
	}
done:
	return rc;
}

/* One row of a table of cohorts. */
static int cohort_row(struct template_dict *d, const struct cohort *c,
		      uint64_t total)
{
	struct template_dict *row;
	int rc;

	TRY(template_dict_add(&row, d, "ROW"));
	TRY(set_display(row, "NAME", *c->name ? c->name : "(no name)"));
	TRY(template_dict_set(row, "FILES", count(c->files).s));
	TRY(template_dict_set(row, "LINES", count(c->lines).s));
	TRY(template_dict_set(row, "SHARE", pct(c->lines, total).s));
	TRY(template_dict_set(row, "COMMITS", count(c->commits).s));
done:
	return rc;
}

/* The top rows of a view into `section`, one row for the others, all. */
static int cohort_table(struct template_dict *d, const char *section,
			const struct cohort_view *v, uint64_t total,
			const char *one, const char *many)
{
	uint64_t lines = 0, commits = 0, all = 0;
	struct template_dict *sec, *others;
	int rc = 0;

	TRY(template_dict_add(&sec, d, section));
	for (size_t i = 0; i < v->n; i++) {
		all += v->v[i].commits;
		if (i < COHORT_TABLE_TOP) {
			TRY(cohort_row(sec, &v->v[i], total));
		} else {
			lines += v->v[i].lines;
			commits += v->v[i].commits;
		}
	}
	if (v->n > COHORT_TABLE_TOP) {
		TRY(template_dict_add(&others, sec, "OTHERS"));
		TRY(set_counted(others, "N", v->n - COHORT_TABLE_TOP, one,
				many));
		TRY(template_dict_set(others, "LINES", count(lines).s));
		TRY(template_dict_set(others, "SHARE", pct(lines, total).s));
		TRY(template_dict_set(others, "COMMITS", count(commits).s));
	}
	TRY(set_counted(sec, "N_ALL", v->n, one, many));
	if (v->n > COHORT_TABLE_TOP) {
		TRY(template_dict_add(&others, sec, "SOME"));
		TRY(set_counted(others, "N_SHOWN", COHORT_TABLE_TOP, one,
				many));
	} else {
		TRY(template_dict_show(sec, "EVERY"));
	}
	TRY(template_dict_set(sec, "LINES", count(total).s));
	TRY(template_dict_set(sec, "COMMITS", count(all).s));
done:
	return rc;
}

/* Authors by their lines in subsystem `sub` (qsort_r payload). */
static int by_subsystem_lines(const void *a, const void *b, void *payload)
{
	const struct cohort *v = ((const struct cohort_view *)
				  ((const void *const *)payload)[0])->v;
	size_t sub = *(const size_t *)((const void *const *)payload)[1];
	const struct cohort *x = &v[*(const size_t *)a];
	const struct cohort *y = &v[*(const size_t *)b];

	if (x->by_subsystem[sub] != y->by_subsystem[sub])
		return x->by_subsystem[sub] > y->by_subsystem[sub] ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A subsystem's top authors, by the lines they wrote in it. */
static int subsystem_authors(struct site *s, struct template_dict *d,
			     size_t sub, size_t *idx)
{
	const struct cohorts *co = s->t->cohorts;
	const struct tally_dir *dir = &s->t->dirs[co->subsystems[sub]];
	const void *payload[2] = { &co->authors, &sub };
	struct template_dict *sec, *row;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < co->authors.n; i++)
		if (co->authors.v[i].by_subsystem[sub])
			idx[n++] = i;
	if (!n)
		return 0;
	qsort_r(idx, n, sizeof(*idx), by_subsystem_lines, payload);
	TRY(template_dict_add(&sec, d, "SUBSYSTEM"));
	TRY(set_display(sec, "NAME", dir_label(dir)));
	TRY(set_dir_href(sec, "HREF", s, co->subsystems[sub]));
	TRY(set_counted(sec, "N_LINES", dir->lines, "line", "lines"));
	TRY(set_counted(sec, "N_AUTHORS", n, "author", "authors"));
	if (n > SUBSYSTEM_AUTHORS) {
		struct template_dict *top;

		TRY(template_dict_add(&top, sec, "TOP"));
		TRY(template_dict_setf(top, "N_TOP", "%d", SUBSYSTEM_AUTHORS));
	}
	for (size_t k = 0; k < n && k < SUBSYSTEM_AUTHORS; k++) {
		const struct cohort *a = &co->authors.v[idx[k]];

		TRY(template_dict_add(&row, sec, "ROW"));
		TRY(set_display(row, "NAME", *a->name ? a->name : "(no name)"));
		TRY(template_dict_set(row, "LINES",
				      count(a->by_subsystem[sub]).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(a->by_subsystem[sub], dir->lines).s));
	}
done:
	return rc;
}

static int authors_by_subsystem(struct site *s, struct template_dict *d)
{
	const struct cohorts *co = s->t->cohorts;
	size_t *idx = malloc((co->authors.n ? co->authors.n : 1) *
			     sizeof(*idx));
	int rc = 0;

	if (!idx)
		return error_oom();
	for (size_t sub = 0; sub < co->nsubsystems && rc == 0; sub++)
		rc = subsystem_authors(s, d, sub, idx);
	free(idx);
	return rc;
}

/*
 * A subsystem's page (a top-level directory): its years, and unless
 * --no-authors, its top authors, as authors.html shows them.
 */
static int dir_cohorts(struct site *s, struct template_dict *d, size_t i)
{
	const struct cohorts *co = s->t->cohorts;
	struct template_dict *sec;
	size_t sub = 0, *idx = NULL;
	int rc = 0;

	while (co && sub < co->nsubsystems && co->subsystems[sub] != i)
		sub++;
	if (!co || sub == co->nsubsystems || !s->t->dirs[i].lines)
		return 0;
	TRY(template_dict_add(&sec, d, "COHORTS"));
	TRY(template_dict_set(sec, "DATE", cohorts_date_name(co->date)));
	TRY(years_summary(s, sec, sub, s->t->dirs[i].lines));
	if (!has_authors(s))
		goto done;
	if (!(idx = malloc((co->authors.n ? co->authors.n : 1) *
			   sizeof(*idx)))) {
		rc = error_oom();
		goto done;
	}
	rc = subsystem_authors(s, sec, sub, idx);
done:
	free(idx);
	return rc;
}

/* "NAME wrote the most: 9.4%; the top 20 authors, 50.3%" */
static int authors_headline(struct site *s, struct template_dict *d)
{
	const struct cohort_view *v = &s->t->cohorts->authors;
	uint64_t total = s->t->cohorts->total_lines, lines = 0;
	struct template_dict *sec, *top;
	int rc = 0;

	if (!v->n || !total)
		return 0;
	TRY(template_dict_add(&sec, d, "HEADLINE"));
	TRY(set_display(sec, "NAME", *v->v[0].name ? v->v[0].name :
			"(no name)"));
	TRY(template_dict_set(sec, "SHARE",
			      percent(v->v[0].lines, total, 1).s));
	if (v->n <= COHORT_CHART_TOP)
		return 0;
	for (size_t i = 0; i < COHORT_CHART_TOP; i++)
		lines += v->v[i].lines;
	TRY(template_dict_add(&top, sec, "TOP"));
	TRY(set_counted(top, "N_TOP", COHORT_CHART_TOP, "author", "authors"));
	TRY(template_dict_set(top, "TOP_SHARE", percent(lines, total, 1).s));
done:
	return rc;
}

/* How many authors and organisations, and what names the latter. */
static int authors_counts(struct site *s, struct template_dict *d)
{
	struct template_dict *sec;
	int rc;

	TRY(set_counted(d, "N_AUTHORS", s->t->cohorts->authors.n, "author",
			"authors"));
	TRY(set_counted(d, "N_ORGS", s->t->cohorts->orgs.n, "organisation",
			"organisations"));
	if (s->info->org_map) {
		TRY(template_dict_add(&sec, d, "ORG_MAP"));
		TRY(set_display(sec, "FILE", base_name(s->info->org_map)));
	} else {
		TRY(template_dict_show(d, "NO_ORG_MAP"));
	}
done:
	return rc;
}

static int write_authors(struct site *s)
{
	const struct cohorts *co = s->t->cohorts;
	struct template_dict *d = NULL;
	int rc;

	if (!has_authors(s))
		return 0;
	TRY(page_new(&d, s, "authors.html", "Authors", NAV_AUTHORS));
	TRY(authors_headline(s, d));
	TRY(authors_counts(s, d));
	TRY(figure(s, d, "AUTHORS_CHART", "authors", "Bar chart of the "
		   "share of the lines written by each of the top authors, "
		   "and by all the others together. The table beside it has "
		   "the values.", "The share of today's lines by author."));
	TRY(figure(s, d, "ORGS_CHART", "orgs", "Bar chart of the share of "
		   "the lines written by the authors of each of the top "
		   "organisations, and by all the others together. The table "
		   "beside it has the values.", "The share of today's lines "
		   "by organisation."));
	TRY(cohort_table(d, "AUTHORS", &co->authors, co->total_lines,
			 "author", "authors"));
	TRY(cohort_table(d, "ORGS", &co->orgs, co->total_lines,
			 "organisation", "organisations"));
	TRY(authors_by_subsystem(s, d));
	TRY(set_counted(d, "N_PER_SUBSYSTEM", SUBSYSTEM_AUTHORS, "author",
			"authors"));
	rc = page_write(s, "authors.html", "authors.tpl", d);
done:
	template_dict_free(d);
	return rc;
}

/* ---- a directory's page ---- */

/* An entry of a directory: a subdirectory or a file directly in it. */
struct child {
	const char *name;       /* in the path of its first file */
	size_t len;
	int is_dir;
	size_t page;            /* the dirs[] index of its page, or 0 */
	size_t nfiles;
	uint64_t lines, first;
};

/* The first file whose path is not below `key` in byte order. */
static size_t files_from(const struct tally *t, const char *key)
{
	size_t lo = 0, hi = t->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->files[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t file_first(const struct site *s, const struct tally_file *f)
{
	return s->t->nreleases && !s->t->releases[0].unreleased ?
	       f->by_release[0] : 0;
}

/* Directories first, then files, each in byte order of their names. */
static int by_kind_then_name(const void *a, const void *b)
{
	const struct child *x = a, *y = b;
	int c;

	if (x->is_dir != y->is_dir)
		return x->is_dir ? -1 : 1;
	c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Add file f under `name` (a file, or the subdirectory it is in). */
static int child_add(struct child **v, size_t *n, size_t *alloc,
		     struct site *s, const struct tally_file *f,
		     const char *name, size_t len, int is_dir)
{
	struct child *c = *n ? &(*v)[*n - 1] : NULL;

	if (!c || !is_dir || !c->is_dir || c->len != len ||
	    memcmp(c->name, name, len)) {
		if (*n == *alloc) {
			size_t grow = *alloc ? 2 * *alloc : 16;
			struct child *nv = realloc(*v, grow * sizeof(*nv));

			if (!nv)
				return error_oom();
			*v = nv;
			*alloc = grow;
		}
		c = &(*v)[(*n)++];
		memset(c, 0, sizeof(*c));
		c->name = name;
		c->len = len;
		c->is_dir = is_dir;
		if (is_dir)
			c->page = tally_find_dir(s->t, f->path,
						 (size_t)(name + len - f->path));
	}
	c->nfiles++;
	c->lines += f->lines;
	c->first += file_first(s, f);
	return 0;
}

/*
 * What is directly in dirs[i]: its subdirectories (with or without pages
 * of their own) and its files, from the files below it, which are
 * contiguous in byte order. "." has the files of the root.
 */
static int children_of(struct child **out, size_t *n, struct site *s,
		       size_t i)
{
	const struct tally *t = s->t;
	const char *path = t->dirs[i].path;
	int root_files = !strcmp(path, ".");
	size_t alloc = 0, plen = root_files ? 0 : strlen(path) + 1, f = 0;
	char *prefix = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!root_files) {
		if (asprintf(&prefix, "%s/", path) < 0)
			return error_oom();
		f = files_from(t, prefix);
	}
	for (; f < t->nfiles && rc == 0; f++) {
		const struct tally_file *file = &t->files[f];
		const char *rest = file->path + plen, *slash;

		if (prefix && strncmp(file->path, prefix, plen))
			break;
		slash = strchr(rest, '/');
		if (root_files && slash)
			continue;
		rc = child_add(out, n, &alloc, s, file, rest,
			       slash ? (size_t)(slash - rest) : strlen(rest),
			       slash != NULL);
	}
	free(prefix);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		return rc;
	}
	qsort(*out, *n, sizeof(**out), by_kind_then_name);
	return 0;
}

/*
 * One row of the contents table. The bar is the entry's lines against
 * the largest entry's, the part from the first release darker.
 */
static int child_row(struct site *s, struct template_dict *sec,
		     const struct child *c, uint64_t dir_lines,
		     uint64_t most)
{
	struct template_dict *row, *link;
	char *name;
	int rc;

	if (asprintf(&name, "%.*s%s", (int)c->len, c->name,
		     c->is_dir ? "/" : "") < 0)
		return error_oom();
	TRY(template_dict_add(&row, sec, "ENTRY"));
	TRY(template_dict_set(row, "KIND", c->is_dir ? "dir" : "file"));
	if (c->page) {
		TRY(template_dict_add(&link, row, "LINK"));
		TRY(set_display(link, "NAME", name));
		TRY(set_dir_href(link, "HREF", s, c->page));
	} else {
		TRY(template_dict_add(&link, row, "NO_LINK"));
		TRY(set_display(link, "NAME", name));
	}
	TRY(template_dict_set(row, "FILES", c->is_dir ?
			      count(c->nfiles).s : ""));
	TRY(template_dict_set(row, "LINES", count(c->lines).s));
	TRY(template_dict_set(row, "SHARE", pct(c->lines, dir_lines).s));
	TRY(template_dict_set(row, "FIRST_SHARE", pct(c->first, c->lines).s));
	TRY(template_dict_set(row, "BAR", percent(c->lines, most, 1).s));
	TRY(template_dict_set(row, "OLD", percent(c->first, c->lines, 1).s));
done:
	free(name);
	return rc;
}

static int dir_contents(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally_dir *dir = &s->t->dirs[i];
	struct template_dict *sec, *what;
	struct child *v = NULL;
	size_t n = 0, ndirs = 0;
	uint64_t most = 0;
	int rc;

	TRY(children_of(&v, &n, s, i));
	for (size_t k = 0; k < n; k++) {
		most = v[k].lines > most ? v[k].lines : most;
		ndirs += v[k].is_dir;
	}
	TRY(template_dict_add(&sec, d, "CONTENTS"));
	TRY(template_dict_show(sec, strcmp(dir->path, ".") ? "IN_DIR" :
			       "IN_ROOT"));
	if (ndirs) {
		TRY(template_dict_add(&what, sec, "DIRS"));
		TRY(set_counted(what, "N_DIRS", ndirs, "directory",
				"directories"));
		if (n > ndirs)
			TRY(template_dict_show(what, "AND"));
	}
	if (n > ndirs) {
		TRY(template_dict_add(&what, sec, "FILES"));
		TRY(set_counted(what, "N_FILES", n - ndirs, "file", "files"));
	}
	for (size_t k = 0; k < n; k++)
		TRY(child_row(s, sec, &v[k], dir->lines, most));
done:
	free(v);
	return rc;
}

/* The path back up, the headline and the numbers of dirs[i]. */
static int dir_top(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally *t = s->t;
	const struct tally_dir *dir = &t->dirs[i];
	struct template_dict *sec, *row;
	size_t chain[64], nchain = 0;
	int root_files = !strcmp(dir->path, ".");
	char *up = NULL;
	int rc;

	for (size_t a = dir->parent; a != 0 && nchain < 64;
	     a = t->dirs[a].parent)
		chain[nchain++] = a;
	while (nchain--) {
		TRY(template_dict_add(&row, d, "CRUMB"));
		TRY(set_display(row, "NAME",
				base_name(t->dirs[chain[nchain]].path)));
		TRY(set_dir_href(row, "HREF", s, chain[nchain]));
	}
	TRY(set_display(d, "NAME", root_files ? "root files" :
			base_name(dir->path)));
	TRY(set_display(d, "PATH", dir->path));
	TRY(template_dict_show(d, root_files ? "ROOT_FILES" : "DIRECTORY"));
	TRY(template_dict_show(d, dir->lines ? "HAS_LINES" : "NO_LINES"));
	TRY(template_dict_set(d, "FIRST_SHARE",
			      percent(first_lines(s, dir), dir->lines, 1).s));
	TRY(template_dict_set(d, "LINES", count(dir->lines).s));
	TRY(set_counted(d, "N_LINES", dir->lines, "line", "lines"));
	TRY(set_counted(d, "N_FILES", dir->nfiles, "file", "files"));
	TRY(template_dict_set(d, "SHARE", pct(dir->lines, t->total_lines).s));
	if (below_count(s, i)) {
		TRY(template_dict_add(&sec, d, "UNTOUCHED"));
		TRY(set_counted(sec, "N_FILES", below_count(s, i), "file",
				"files"));
		TRY(set_counted(sec, "N_LINES", s->below_lines[i], "line",
				"lines"));
	} else {
		TRY(template_dict_show(d, "NONE_UNTOUCHED"));
	}
	TRY(set_dir_href(d, "UP_HREF", s, dir->parent));
	if (dir->parent == 0) {
		TRY(template_dict_set(d, "UP_NAME", "the whole tree"));
	} else if (asprintf(&up, "%s/", t->dirs[dir->parent].path) < 0) {
		up = NULL;
		rc = error_oom();
	} else {
		rc = set_display(d, "UP_NAME", up);
	}
done:
	free(up);
	return rc;
}

/* dirs[i]'s chart and the table of its lines by release. */
static int dir_releases(struct site *s, struct template_dict *d, size_t i)
{
	const struct tally *t = s->t;
	const struct tally_dir *dir = &t->dirs[i];
	struct template_dict *sec, *row;
	size_t skipped = 0;
	char *alt = NULL, *chart = NULL;
	int rc;

	TRY(names_get(&chart, s->names, dir->path, NAMES_CHART));
	if (t->nreleases) {
		size_t b = biggest(s, dir->by_release);

		if (asprintf(&alt, "Bar chart of the lines in %s by the "
			     "release that wrote them; the largest share, "
			     "%s%%, comes from %s. The table beside it has "
			     "every value.", strcmp(dir->path, ".") ?
			     dir->path : "the root files",
			     percent(dir->by_release[b], dir->lines, 1).s,
			     t->releases[b].name) < 0) {
			alt = NULL;
			rc = error_oom();
			goto done;
		}
	}
	TRY(figure(s, d, "CHART", chart, alt ? alt : "Bar chart of lines by "
		   "release.", "The share of these lines written in each "
		   "release."));
	for (size_t r = 0; r < t->nreleases; r++) {
		if (!dir->by_release[r]) {
			skipped++;
			continue;
		}
		TRY(template_dict_add(&row, d, "RELEASE"));
		TRY(set_display(row, "NAME", t->releases[r].name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(template_dict_set(row, "CLASS", t->releases[r].unreleased ?
				      "unreleased" : "release"));
		TRY(template_dict_set(row, "LINES",
				      count(dir->by_release[r]).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(dir->by_release[r], dir->lines).s));
	}
	if (skipped) {
		TRY(template_dict_add(&sec, d, "SKIPPED"));
		TRY(set_counted(sec, "N_RELEASES", skipped, "release",
				"releases"));
	}
done:
	free(alt);
	free(chart);
	return rc;
}

/* Every untouched file below dirs[i]. */
static int dir_untouched(struct site *s, struct template_dict *d, size_t i)
{
	struct template_dict *sec, *row;
	int rc = 0;

	if (!below_count(s, i))
		return 0;
	TRY(template_dict_add(&sec, d, "UNTOUCHED_LIST"));
	TRY(set_counted(sec, "N_FILES", below_count(s, i), "file", "files"));
	for (size_t k = s->below_start[i]; k < s->below_start[i + 1]; k++) {
		const struct tally_file *f = &s->t->files[s->below[k]];

		TRY(template_dict_add(&row, sec, "FILE"));
		TRY(set_display(row, "PATH", f->path));
		TRY(template_dict_set(row, "LINES", count(f->lines).s));
	}
done:
	return rc;
}

static int write_dir(struct site *s, size_t i)
{
	const struct tally_dir *dir = &s->t->dirs[i];
	const char *file = s->dir_page[i];
	struct template_dict *d = NULL;
	char *title = NULL;
	int rc;

	if (!strcmp(dir->path, "."))
		title = strdup("Files in the root");
	else if (asprintf(&title, "%s/", dir->path) < 0)
		title = NULL;
	if (!title)
		return error_oom();
	TRY(names_make_parents(s->dir, file));
	TRY(page_new(&d, s, file, title, NAV_NONE));
	TRY(dir_top(s, d, i));
	TRY(dir_releases(s, d, i));
	TRY(dir_history(s, d, i));
	TRY(dir_cohorts(s, d, i));
	TRY(dir_contents(s, d, i));
	TRY(dir_untouched(s, d, i));
	rc = page_write(s, file, "dir.tpl", d);
done:
	free(title);
	template_dict_free(d);
	return rc;
}

/* ---- untouched.html ---- */

/* Length of a path's directory part ("a/b/c" -> 3, "c" -> 0). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

/* By directory, then by name: bytewise path order splits a directory. */
static int by_dir_then_name(const void *a, const void *b, void *payload)
{
	const struct tally *t = payload;
	const char *pa = t->files[*(const size_t *)a].path;
	const char *pb = t->files[*(const size_t *)b].path;
	size_t la = dir_len(pa), lb = dir_len(pb);
	int c = memcmp(pa, pb, la < lb ? la : lb);

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(pa + la, pb + lb);
}

/* Start a group of untouched files: those of the directory of `f`. */
static int untouched_group(struct template_dict **out, struct site *s,
			   struct template_dict *groups,
			   const struct tally_file *f, const char *id)
{
	size_t dl = dir_len(f->path);
	char *name = dl ? strndup(f->path, dl) : strdup(".");
	int rc;

	if (!name)
		return error_oom();
	TRY(template_dict_add(out, groups, "GROUP"));
	TRY(set_display(*out, "NAME", dl ? name : "(root directory)"));
	TRY(template_dict_set(*out, "ID", id));
	/* The page of the deepest tallied directory that holds it. */
	TRY(set_dir_href(*out, "PAGE_HREF", s, f->dir));
	TRY(set_display(*out, "PAGE_NAME", f->dir ?
			dir_label(&s->t->dirs[f->dir]) : "the whole tree"));
done:
	free(name);
	return rc;
}

/*
 * The anchors of the groups of the n untouched files order[], one per
 * directory in the order met ("in-" and the readable path); *out has
 * *ngroups of them.
 */
static int untouched_ids(char ***out, size_t *ngroups, const struct tally *t,
			 const size_t *order, size_t n)
{
	char **keys = calloc(n + 1, sizeof(*keys));
	char **ids = calloc(n + 1, sizeof(*ids));
	size_t g = 0;
	int rc = 0;

	*out = NULL;
	*ngroups = 0;
	if (!keys || !ids) {
		rc = error_oom();
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		const char *p = t->files[order[k]].path;
		size_t dl = dir_len(p);

		if (g && strlen(keys[g - 1]) == (dl ? dl : 1) &&
		    !memcmp(keys[g - 1], dl ? p : ".", dl ? dl : 1))
			continue;
		keys[g] = dl ? strndup(p, dl) : strdup(".");
		if (!keys[g++]) {
			rc = error_oom();
			goto done;
		}
	}
	TRY(names_ids(ids, (const char *const *)keys, g, "in-", 1));
	*out = ids;
	*ngroups = g;
	ids = NULL;
done:
	for (size_t k = 0; keys && k < g; k++)
		free(keys[k]);
	free(keys);
	free(ids);
	return rc;
}

static int group_totals(struct template_dict *group, size_t files,
			uint64_t lines)
{
	int rc;

	TRY(template_dict_set(group, "COUNT", count(files).s));
	TRY(template_dict_set(group, "LINES", count(lines).s));
	TRY(set_counted(group, "N_FILES", files, "file", "files"));
	TRY(set_counted(group, "N_LINES", lines, "line", "lines"));
done:
	return rc;
}

static int write_untouched(struct site *s)
{
	const struct tally *t = s->t;
	struct template_dict *d = NULL, *groups = NULL, *group = NULL, *row;
	size_t *order = NULL, n = 0, ngroups = 0, gfiles = 0, glen = 0;
	size_t nids = 0;
	const char *gpath = NULL;   /* a path in the current group */
	char **ids = NULL;
	uint64_t glines = 0;
	int rc;

	TRY(page_new(&d, s, "untouched.html", "Untouched files",
		     NAV_UNTOUCHED));
	TRY(template_dict_set(d, "COUNT", count(t->nuntouched).s));
	TRY(set_counted(d, "N_FILES", t->nfiles, "file", "files"));
	TRY(template_dict_set(d, "LINES", count(t->untouched_lines).s));
	TRY(set_counted(d, "N_TOTAL_LINES", t->total_lines, "line",
			"lines"));

	order = malloc((t->nfiles + 1) * sizeof(size_t));
	if (!order) {
		rc = error_oom();
		goto done;
	}
	for (size_t f = 0; f < t->nfiles; f++)
		if (t->files[f].untouched)
			order[n++] = f;
	qsort_r(order, n, sizeof(size_t), by_dir_then_name, (void *)t);
	TRY(untouched_ids(&ids, &nids, t, order, n));
	if (n)
		TRY(template_dict_add(&groups, d, "GROUPS"));
	else
		TRY(template_dict_show(d, "NONE"));

	for (size_t k = 0; k < n; k++) {
		const struct tally_file *f = &t->files[order[k]];
		size_t dl = dir_len(f->path);

		if (!gpath || dl != glen || memcmp(gpath, f->path, dl)) {
			if (group)
				TRY(group_totals(group, gfiles, glines));
			TRY(untouched_group(&group, s, groups, f,
					    ids[ngroups]));
			gpath = f->path;
			glen = dl;
			gfiles = 0;
			glines = 0;
			ngroups++;
		}
		TRY(template_dict_add(&row, group, "FILE"));
		TRY(set_display(row, "NAME", base_name(f->path)));
		TRY(template_dict_set(row, "LINES", count(f->lines).s));
		gfiles++;
		glines += f->lines;
	}
	if (group) {
		TRY(group_totals(group, gfiles, glines));
		TRY(set_counted(groups, "N_FILES", n, "file", "files"));
		TRY(set_counted(groups, "N_DIRS", ngroups, "directory",
				"directories"));
	}
	rc = page_write(s, "untouched.html", "untouched.tpl", d);
done:
	for (size_t k = 0; k < nids; k++)
		free(ids[k]);
	free(ids);
	free(order);
	template_dict_free(d);
	return rc;
}

/* ---- releases.html ---- */

struct release_sort {
	const struct tally *t;
	size_t r;
};

/* Subsystems by lines of one release, most first, then by path. */
static int by_release_lines(const void *a, const void *b, void *payload)
{
	const struct release_sort *rs = payload;
	const struct tally_dir *da = &rs->t->dirs[*(const size_t *)a];
	const struct tally_dir *db = &rs->t->dirs[*(const size_t *)b];
	uint64_t la = da->by_release[rs->r];
	uint64_t lb = db->by_release[rs->r];

	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(da->path, db->path);
}

static int release_where(struct site *s, struct template_dict *d, size_t r,
			 size_t *subs, size_t nsubs)
{
	const struct tally *t = s->t;
	const struct tally_release *tr = &t->releases[r];
	struct template_dict *sec, *row;
	size_t shown = 0, more = 0;
	uint64_t more_lines = 0;
	int rc = 0;

	if (!tr->lines)
		return 0;
	struct release_sort rs = {t, r};
	qsort_r(subs, nsubs, sizeof(size_t), by_release_lines, &rs);
	TRY(template_dict_add(&sec, d, "WHERE"));
	for (size_t k = 0; k < nsubs; k++) {
		const struct tally_dir *dir = &t->dirs[subs[k]];
		uint64_t lines = dir->by_release[r];

		if (!lines)
			break;
		if (shown == WHERE_TOP) {
			more++;
			more_lines += lines;
			continue;
		}
		TRY(template_dict_add(&row, sec, "DIR"));
		TRY(set_display(row, "NAME", dir_label(dir)));
		TRY(set_dir_href(row, "HREF", s, subs[k]));
		TRY(template_dict_set(row, "LINES", count(lines).s));
		TRY(template_dict_set(row, "SHARE", pct(lines, tr->lines).s));
		TRY(template_dict_set(row, "DIR_SHARE",
				      pct(lines, dir->lines).s));
		shown++;
	}
	if (more) {
		TRY(template_dict_add(&row, sec, "MORE"));
		TRY(template_dict_set(row, "COUNT", count(more).s));
		TRY(template_dict_set(row, "LINES", count(more_lines).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(more_lines, tr->lines).s));
	}
done:
	return rc;
}

static int write_releases(struct site *s)
{
	const struct tally *t = s->t;
	struct template_dict *d = NULL, *row, *sec, *tag;
	size_t *subs = NULL, nsubs = 0, nreal = 0;
	int rc;

	TRY(page_new(&d, s, "releases.html", "Releases", NAV_RELEASES));
	nreal = real_releases(t);
	TRY(set_counted(d, "N_LINES", t->total_lines, "line", "lines"));
	TRY(set_counted(d, "N_RELEASES", nreal, "release", "releases"));
	if (nreal > 1) {
		TRY(template_dict_show(d, "RANGE"));
		TRY(set_display(d, "LAST", t->releases[nreal - 1].name));
	}
	if (t->nreleases) {
		size_t b = biggest(s, t->dirs[0].by_release);
		char *alt;

		if (asprintf(&alt, "Bar chart of the lines at %s by release; "
			     "the largest share, %s%%, comes from %s. The "
			     "table beside it has every value.", s->info->rev ?
			     s->info->rev : s->info->commit,
			     percent(t->releases[b].lines, t->total_lines, 1).s,
			     t->releases[b].name) < 0)
			return error_oom();
		rc = figure(s, d, "CHART", "releases", alt,
			    "The share of today's lines written in each "
			    "release.");
		free(alt);
		if (rc < 0)
			goto done;
	}

	subs = malloc((t->ndirs + 1) * sizeof(size_t));
	if (!subs) {
		rc = error_oom();
		goto done;
	}
	for (size_t i = 1; i < t->ndirs; i++)
		if (t->dirs[i].level == 1)
			subs[nsubs++] = i;

	for (size_t r = 0; r < t->nreleases; r++) {
		const struct tally_release *tr = &t->releases[r];
		const struct release *rel = tr->release;

		TRY(template_dict_add(&row, d, "RELEASE"));
		TRY(set_display(row, "NAME", tr->name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(template_dict_set(row, "CLASS", tr->unreleased ?
				      "unreleased" : "release"));
		TRY(template_dict_set(row, "LINES", count(tr->lines).s));
		TRY(template_dict_set(row, "SHARE",
				      pct(tr->lines, t->total_lines).s));
		TRY(template_dict_show(row, tr->lines ? "SURVIVES" : "GONE"));
		TRY(set_counted(row, "N_COMMITS", rel ? rel->commits : 0,
				"commit", "commits"));
		if (rel && !tr->unreleased && rel->ntags) {
			TRY(template_dict_add(&sec, row, "TAGGED"));
			TRY(release_dates(sec, rel));
			TRY(template_dict_add(&sec, row, "TAGS"));
			for (size_t k = 0; k < rel->ntags; k++) {
				TRY(template_dict_add(&tag, sec, "TAG"));
				TRY(set_display(tag, "NAME", rel->tags[k].name));
				TRY(template_dict_set(tag, "DATE",
					date(rel->tags[k].date).s));
			}
		} else {
			TRY(template_dict_show(row, "NOT_TAGGED"));
		}
		TRY(release_where(s, row, r, subs, nsubs));
	}
	rc = page_write(s, "releases.html", "releases.tpl", d);
done:
	free(subs);
	template_dict_free(d);
	return rc;
}

/* ---- history.html ---- */

/*
 * The table of snapshots by release has at most this many columns of
 * releases; past it each column is a run of consecutive releases.
 */
#define HISTORY_COLUMNS 60

static size_t history_column(size_t r, size_t nrel)
{
	return nrel <= HISTORY_COLUMNS ? r : r * HISTORY_COLUMNS / nrel;
}

/* The snapshot halfway, and REV: "at X, 60% dated back to FIRST". */
static int history_summary(struct site *s, struct template_dict *d,
			   const char *section)
{
	const struct snapshots *h = s->t->history;
	const struct snapshot *mid, *rev;
	struct template_dict *sec;
	int rc = 0;

	if (!h || h->n < 2 || !s->t->nreleases ||
	    s->t->releases[0].unreleased)
		return 0;
	mid = &h->list[(h->n - 1) / 2];
	rev = &h->list[h->n - 1];
	TRY(template_dict_add(&sec, d, section));
	TRY(set_display(sec, "MID", mid->name));
	TRY(template_dict_set(sec, "MID_SHARE",
			      percent(mid->by_release[0], mid->lines, 1).s));
	TRY(set_display(sec, "LAST", rev->name));
	TRY(template_dict_set(sec, "LAST_SHARE",
			      percent(rev->by_release[0], rev->lines, 1).s));
done:
	return rc;
}

static int history_columns(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	struct template_dict *col;
	size_t r, e;
	int rc = 0;

	for (r = 0; r < t->nreleases; r = e) {
		size_t c = history_column(r, t->nreleases);

		for (e = r + 1; e < t->nreleases &&
		     history_column(e, t->nreleases) == c; e++)
			;
		TRY(template_dict_add(&col, d, "COL"));
		TRY(set_display(col, "NAME", t->releases[r].name));
		TRY(template_dict_set(col, "ID", s->release_id[r]));
		if (e - r > 1) {
			TRY(template_dict_add(&col, col, "RUN"));
			TRY(set_display(col, "LAST", t->releases[e - 1].name));
		}
	}
done:
	return rc;
}

static int history_row(struct site *s, struct template_dict *d, size_t k)
{
	const struct tally *t = s->t;
	const struct snapshot *p = &t->history->list[k];
	struct template_dict *row, *cell;
	uint64_t sum = 0;
	size_t r;
	int rc = 0;

	TRY(template_dict_add(&row, d, "ROW"));
	TRY(set_display(row, "NAME", p->name));
	TRY(template_dict_set(row, "DATE", date(p->date).s));
	TRY(template_dict_set(row, "LINES", count(p->lines).s));
	TRY(template_dict_set(row, "CLASS", p->is_rev ? "rev" : "snapshot"));
	for (r = 0; r < t->nreleases; r++) {
		sum += p->by_release[r];
		if (r + 1 < t->nreleases &&
		    history_column(r + 1, t->nreleases) ==
		    history_column(r, t->nreleases))
			continue;
		TRY(template_dict_add(&cell, row, "CELL"));
		TRY(template_dict_set(cell, "SHARE", sum ?
				      percent(sum, p->lines, 1).s : ""));
		sum = 0;
	}
done:
	return rc;
}

/* "812 days (2.2 years)" */
static struct text half_life(double days)
{
	struct text t;
	long long d = llround(days), tenths = llround(days / 36.525);

	snprintf(t.s, sizeof(t.s), "%lld day%s (%lld.%lld years)", d,
		 d == 1 ? "" : "s", tenths / 10, tenths % 10);
	return t;
}

static int history_survival(struct site *s, struct template_dict *d)
{
	const struct tally *t = s->t;
	const struct snapshots *h = t->history;
	struct template_dict *row;
	int rc = 0;

	for (size_t r = 0; r < t->nreleases; r++) {
		const struct snapshot_survival *sv = &h->survival[r];
		uint64_t base;

		if (sv->base == SNAPSHOT_NONE)
			continue;
		base = h->list[sv->base].by_release[r];
		TRY(template_dict_add(&row, d, "SURVIVAL"));
		TRY(set_display(row, "NAME", t->releases[r].name));
		TRY(template_dict_set(row, "ID", s->release_id[r]));
		TRY(set_display(row, "BASE", h->list[sv->base].name));
		TRY(template_dict_set(row, "LINES", count(base).s));
		TRY(template_dict_set(row, "LEFT", percent(
			h->list[h->n - 1].by_release[r], base, 1).s));
		TRY(template_dict_set(row, "HALF_LIFE", sv->has_half_life ?
			half_life(sv->half_life_days).s : "not yet"));
	}
done:
	return rc;
}

static int history_figures(struct site *s, struct template_dict *d)
{
	const struct snapshots *h = s->t->history;
	int rc;

	TRY(figure(s, d, "LINES_CHART", "history", "Stacked areas of the "
		   "lines at each snapshot by the release that wrote them, "
		   "oldest at the bottom. The table below has the shares.",
		   "The layers: lines by release at each snapshot."));
	TRY(figure(s, d, "SHARE_CHART", "history-share", "The same stacked "
		   "to 100%: each release's share of each snapshot's lines.",
		   "The layers at 100%."));
	TRY(figure(s, d, "SURVIVAL_CHART", "survival", "Lines, one per "
		   "release, of the share of its lines still there at each "
		   "later snapshot. The table beside it has the half-lives.",
		   "How long each release's lines live."));
	TRY(set_counted(d, "N_SNAPSHOTS", h->n, "snapshot", "snapshots"));
	TRY(template_dict_show(d, h->when == SNAPSHOTS_RELEASES ? "RELEASES" :
			       "CALENDAR"));
	TRY(template_dict_set(d, "PERIOD", snapshots_when_name(h->when)));
done:
	return rc;
}

static int write_history(struct site *s)
{
	const struct snapshots *h = s->t->history;
	struct template_dict *d = NULL;
	int rc;

	if (!h || !h->n)
		return 0;
	TRY(page_new(&d, s, "history.html", "History", NAV_HISTORY));
	TRY(history_summary(s, d, "SUMMARY"));
	TRY(history_figures(s, d));
	TRY(history_columns(s, d));
	for (size_t k = 0; k < h->n; k++)
		TRY(history_row(s, d, k));
	TRY(history_survival(s, d));
	rc = page_write(s, "history.html", "history.tpl", d);
done:
	template_dict_free(d);
	return rc;
}

/* A subsystem's layers on its page, when it has a history. */
static int dir_history(struct site *s, struct template_dict *d, size_t i)
{
	const struct snapshots *h = s->t->history;
	const char *path = s->t->dirs[i].path;
	struct template_dict *sec;
	char *name = NULL;
	size_t lo = 0, hi = h ? h->nsubsystems : 0;
	int rc = 0;

	if (s->t->dirs[i].level != 1)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->subsystems[mid], path);

		if (!c)
			break;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= hi)
		return 0;
	if ((rc = names_get(&name, s->names, path,
			    NAMES_HISTORY_CHART)) < 0)
		return rc;
	TRY(template_dict_add(&sec, d, "HISTORY"));
	TRY(figure(s, sec, "HISTORY_CHART", name, "Stacked areas of this "
		   "directory's lines at each snapshot by the release that "
		   "wrote them, oldest at the bottom.", "This directory's "
		   "layers: its lines by release at each snapshot."));
done:
	free(name);
	return rc;
}

int site_write(const char *dir, const struct tally *t,
	       const struct report_info *info, const struct site_options *o)
{
	struct site s = {.dir = dir, .t = t, .info = info, .o = o};
	int rc;

	if (!t->ndirs)
		return error_set("nothing to publish: the tally has no "
				 "directories");
	TRY(site_prepare(&s));
	TRY(template_set_new(&s.set, o->templates_dir));
	TRY(copy_css(&s));
	TRY(write_index(&s));
	for (size_t i = 1; i < t->ndirs; i++)
		TRY(write_dir(&s, i));
	TRY(write_untouched(&s));
	TRY(write_releases(&s));
	TRY(write_history(&s));
	TRY(write_authors(&s));
done:
	site_release(&s);
	return rc;
}

/* ---- the entry points of strata-publish.so (publish.h) ---- */

const struct publish_api strata_publish_api = {
	STRATA_VERSION,
	chart_check_font,
	site_find_templates,
	chart_write_all,
	site_write,
};
