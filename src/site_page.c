/*
 * site page: what every page is made of: links between pages, the
 * stylesheet, figures (a chart's SVG with its PNGs, and a narrow one for
 * phones), the header and footer, and writing a page.
 */
#include "site_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "strata/chart.h"
#include "strata/cohorts.h"
#include "strata/error.h"
#include "strata/util.h"

/* The report has the views of people (not --no-authors). */
int site_has_authors(const struct site *s)
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
int site_set_dir_href(struct template_dict *d, const char *key,
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

int site_copy_css(struct site *s)
{
	char *src, *data = NULL;
	size_t len;
	int rc;

	if (asprintf(&src, "%s/%s", s->o->templates_dir, SITE_CSS) < 0)
		return error_oom();
	if ((rc = util_read_file(&data, &len, src, SITE_TEMPLATE_MAX, NULL,
				 0)) == 0)
		rc = write_file(s->dir, SITE_CSS, data, len);
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
int site_set_img_href(struct template_dict *d, const char *key,
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
int site_figure(struct site *s, struct template_dict *d, const char *key,
		const char *name, const char *alt, const char *caption)
{
	struct template_dict *f, *narrow;
	unsigned w = 0, h = 0, nw, nh;
	int rc;

	TRY(png_size(s, name, &w, &h));
	TRY(narrow_size(s, name, &nw, &nh));
	TRY(template_dict_include(&f, d, key, "figure.tpl"));
	TRY(template_dict_set(f, "NAME", name));
	TRY(site_set_img_href(f, "SVG", s, name, ".svg"));
	TRY(site_set_img_href(f, "PNG", s, name, ".png"));
	TRY(site_set_img_href(f, "PNG2X", s, name, "@2x.png"));
	TRY(template_dict_setf(f, "WIDTH", "%u", w));
	TRY(template_dict_setf(f, "HEIGHT", "%u", h));
	if (nw && nh) {
		TRY(template_dict_add(&narrow, f, "NARROW"));
		TRY(site_set_img_href(narrow, "SRC", s, name, "@narrow.svg"));
		TRY(template_dict_setf(narrow, "WIDTH", "%u", nw));
		TRY(template_dict_setf(narrow, "HEIGHT", "%u", nh));
	}
	TRY(site_set_display(f, "ALT", alt));
	TRY(site_set_display(f, "CAPTION", caption));
done:
	return rc;
}

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
 * made for it until the next site_page_new() is relative to it.
 */
/*
 * Which tags made the releases, said on every page (a figure quoted from
 * any page can be checked): TAG_SCOPE, and GROUP_ERE or NO_GROUP.
 */
static int site_set_scope(struct template_dict *d, const struct site *s)
{
	const struct report_info *info = s->info;
	int rc;

	TRY(site_set_display(d, "TAG_SCOPE", info->tag_scope ?
			     info->tag_scope : "dated"));
	TRY(template_dict_show(d, info->tag_scope &&
			       !strcmp(info->tag_scope, "merged") ?
			       "MERGED" : "DATED"));
	if (info->group_ere) {
		TRY(template_dict_add(&d, d, "GROUP_ERE"));
		TRY(site_set_display(d, "GROUP_ERE", info->group_ere));
	} else {
		TRY(template_dict_show(d, "NO_GROUP"));
	}
done:
	return rc;
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
	rc = site_set_display(d, key, s);
	free(s);
	return rc;
}

/*
 * The seconds since the process started, as the kernel counts them
 * (/proc/self/stat's start time against CLOCK_BOOTTIME), or -1: the run's
 * whole time, publishing included, when the index is the last page
 * written. report_info's seconds_total stops before publishing.
 */
static double process_seconds(void)
{
	char buf[1024], *p;
	unsigned long long start;
	struct timespec now;
	long tick = sysconf(_SC_CLK_TCK);
	size_t n;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the name may hold anything: fields count from its last ')'; the
	 * start time is the 22nd */
	if (!(p = strrchr(buf, ')')) || tick <= 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &now))
		return -1;
	for (int field = 2; field < 22; field++)
		if (!(p = strchr(p + 1, ' ')))
			return -1;
	if (sscanf(p, " %llu", &start) != 1)
		return -1;
	return (double)now.tv_sec + now.tv_nsec / 1e9 -
	       (double)start / (double)tick;
}

/*
 * The time taken, in tenths as the page shows them, so that the parts
 * add up to the whole: reading history, blaming, and the rest (tallying
 * and publishing), which is what remains of the whole.
 */
struct run_times {
	double whole, history, blame, rest;
};

static struct run_times run_times(const struct report_info *info)
{
	double p = process_seconds();
	long long w = llround(10 * (p > info->seconds_total ? p :
				     info->seconds_total));
	long long h = llround(10 * info->seconds_history);
	long long b = llround(10 * info->seconds_blame);
	struct run_times rt;

	if (w < h + b)
		w = h + b;
	rt.whole = w / 10.0;
	rt.history = h / 10.0;
	rt.blame = b / 10.0;
	rt.rest = (w - h - b) / 10.0;
	return rt;
}

/* The history and the blame: what was walked and how lines were compared. */
static int method_blame(struct template_dict *d, const struct site *s)
{
	const struct report_info *info = s->info;
	struct template_dict *sec, *item;
	int rc;

	TRY(site_set_counted(d, "N_COMMITS", info->ncommits, "commit",
			     "commits"));
	TRY(site_set_counted(d, "N_DIFFS", info->ndiffs, "file diff",
			     "file diffs"));
	if (info->first_parent)
		TRY(template_dict_show(d, "FIRST_PARENT"));
	if (info->shallow) {
		TRY(template_dict_add(&sec, d, "SHALLOW"));
		TRY(site_set_counted(sec, "N_BOUNDARY", info->nboundary,
				     "commit", "commits"));
	} else {
		TRY(template_dict_show(d, "NOT_SHALLOW"));
	}
	TRY(template_dict_show(d, info->ignore_whitespace ?
			       "IGNORE_WHITESPACE" : "WHITESPACE"));
	if (info->nignore_revs) {
		TRY(template_dict_add(&sec, d, "IGNORE_REVS"));
		TRY(site_set_counted(sec, "N_REVS", info->nignore_revs,
				     "revision", "revisions"));
		for (size_t i = 0; i < info->nignore_revs; i++) {
			TRY(template_dict_add(&item, sec, "IGNORED"));
			TRY(site_set_display(item, "HASH",
					     info->ignore_revs[i]));
		}
	}
done:
	return rc;
}

/* The files kept, and what the filters left out, so that the figures can
 * be defended. */
static int method_files(struct template_dict *d, const struct site *s)
{
	const struct report_info *info = s->info;
	struct template_dict *sec;
	int rc;

	TRY(site_set_counted(d, "N_LEVELS", info->depth ? info->depth :
			     s->t->depth, "level", "levels"));
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
	if (info->ninclude || info->nexclude || info->skip_vendored) {
		TRY(template_dict_add(&sec, d, "LEFT_OUT"));
		TRY(site_set_counted(sec, "N_FILES", info->left_globs_files +
				     info->left_vendored_files, "text file",
				     "text files"));
		TRY(site_set_counted(sec, "N_LINES", info->left_globs_lines +
				     info->left_vendored_lines, "line",
				     "lines"));
	}
done:
	return rc;
}

/*
 * The time taken until this page. Times and jobs differ from run to run
 * and machine to machine: left out when SOURCE_DATE_EPOCH asks for
 * reproducible output, as in report.json.
 */
static int method_times(struct template_dict *d, const struct site *s)
{
	const struct report_info *info = s->info;
	struct template_dict *sec;
	struct run_times rt;
	int rc = 0;

	if (!(info->seconds_total > 0) || info->reproducible)
		return 0;
	rt = run_times(info);
	TRY(template_dict_add(&sec, d, "TIMES"));
	TRY(template_dict_set(sec, "TOTAL", site_seconds(rt.whole).s));
	TRY(template_dict_set(sec, "HISTORY", site_seconds(rt.history).s));
	TRY(template_dict_set(sec, "BLAME", site_seconds(rt.blame).s));
	TRY(template_dict_set(sec, "REST", site_seconds(rt.rest).s));
	TRY(site_set_counted(sec, "N_JOBS", info->jobs, "job", "jobs"));
done:
	return rc;
}

/*
 * "How this was measured", at the foot of every page (footer.tpl), so
 * that a figure quoted from any page can be checked there: the commit,
 * the tags and their scope, the grouping, the blame's options, the files
 * kept and left out, and the time taken until this page was written.
 */
static int site_set_method(struct template_dict *d, const struct site *s)
{
	const struct report_info *info = s->info;
	int rc;

	TRY(site_set_display(d, "TAGS_ERE", info->tags_ere ? info->tags_ere :
			     "(the default)"));
	TRY(site_set_scope(d, s));
	TRY(method_blame(d, s));
	TRY(method_files(d, s));
	rc = method_times(d, s);
done:
	return rc;
}

int site_page_new(struct template_dict **out, struct site *s,
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
	repo = site_display(info->repo_name ? info->repo_name : "repository");
	rev = site_display(info->rev ? info->rev : info->commit);
	if (!repo || !rev || !s->root) {
		rc = error_oom();
		goto done;
	}
	TRY(template_dict_new(&d));
	TRY(template_dict_set_shared(d, "ROOT", s->root));
	TRY(template_dict_set_shared(d, "REPO", repo));
	TRY(template_dict_set_shared(d, "REV", rev));
	TRY(template_dict_set_shared(d, "COMMIT", info->commit));
	TRY(template_dict_setf(d, "SHORT", "%.7s", info->commit));
	TRY(template_dict_set_shared(d, "COMMIT_DATE",
				     site_date(info->commit_time).s));
	TRY(template_dict_set_shared(d, "VERSION",
				     info->version ? info->version :
				     STRATA_VERSION));
	TRY(template_dict_set_shared(d, "GENERATED",
				     site_date_time(info->generated).s));
	TRY(template_dict_set_shared(d, "THEME",
				     s->o->dark ? "dark" : "light"));
	TRY(site_set_display(d, "FIRST", s->first));

	TRY(template_dict_include(&inc, d, "HEADER", "header.tpl"));
	TRY(site_set_display(inc, "TITLE", title));
	for (size_t i = 0; i < sizeof(nav) / sizeof(nav[0]); i++) {
		if ((nav[i].page == NAV_HISTORY && !s->t->history) ||
		    (nav[i].page == NAV_AUTHORS && !site_has_authors(s)))
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
	TRY(site_set_method(inc, s));
	*out = d;
	d = NULL;
done:
	template_dict_free(d);
	free(repo);
	free(rev);
	return rc;
}

int site_page_write(struct site *s, const char *file, const char *tpl,
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
const char *site_dir_label(const struct tally_dir *dir)
{
	return strcmp(dir->path, ".") ? dir->path : "(root files)";
}

uint64_t site_first_lines(const struct site *s, const struct tally_dir *d)
{
	return s->t->nreleases && !s->t->releases[0].unreleased ?
	       d->by_release[0] : 0;
}
