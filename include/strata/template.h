/*
 * template: a C face for Google's ctemplate (the one C++ file,
 * src/template.cc).
 *
 * A `template_set` is a directory of templates with a cache of its own:
 * nothing is kept between sets, so two reports made by one process never
 * see each other's templates (ctemplate's default cache is never used).
 * A `template_dict` is a tree of values: a top-level dictionary owns its
 * sections and includes, which are borrowed handles into it.
 *
 * ctemplate writes its diagnostics to std::cerr; every call here keeps
 * them from the terminal and turns the first line into the last error.
 * Calls are not thread-safe (std::cerr is swapped while they run).
 *
 * Values are copied. Escaping is left to the templates: each one starts
 * with {{%AUTOESCAPE context="HTML"}}, so that ctemplate picks the escape
 * for each variable from where it stands (text, attribute, URL).
 */
#ifndef STRATA_TEMPLATE_H
#define STRATA_TEMPLATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct template_set;
struct template_dict;

/* Templates are looked up in `dir` only. *out is freed with
 * template_set_free(). */
int template_set_new(struct template_set **out, const char *dir);

void template_set_free(struct template_set *set);

/*
 * Parse the template file `name` now, as template_expand() would, so that
 * a syntax error shows before any work; fails if it is missing or
 * malformed. (Templates it includes are named by the caller at expansion
 * time: check each by name.)
 */
int template_set_load(struct template_set *set, const char *name);

/*
 * Expand the template file `name` (relative to the set's directory) with
 * `dict` into a malloc'd, NUL-terminated string (*out, length *len; len
 * may be NULL). Fails if the template or one it includes is missing or
 * malformed; nothing is returned then.
 */
int template_expand(char **out, size_t *len, struct template_set *set,
		    const char *name, const struct template_dict *dict);

/* A new top-level dictionary; freed with template_dict_free(). */
int template_dict_new(struct template_dict **out);

/* Free a top-level dictionary and every section and include in it. */
void template_dict_free(struct template_dict *dict);

/* {{KEY}} in this dictionary and the sections below it. */
int template_dict_set(struct template_dict *dict, const char *key,
		      const char *value);

/* The same with a printf-style value. */
int template_dict_setf(struct template_dict *dict, const char *key,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * {{KEY}} for this dictionary and everything under it, included
 * templates too (which, unlike sections, do not see their parent's
 * values).
 */
int template_dict_set_shared(struct template_dict *dict, const char *key,
			     const char *value);

/* Show {{#SECTION}} once, with this dictionary's values. */
int template_dict_show(struct template_dict *dict, const char *section);

/*
 * Add one more expansion of {{#SECTION}}; *out is borrowed from `dict`
 * and lives as long as it.
 */
int template_dict_add(struct template_dict **out, struct template_dict *dict,
		      const char *section);

/*
 * Expand the template file `name` at {{>KEY}}; *out (borrowed) holds its
 * values. Calling it again for the same KEY adds another expansion.
 */
int template_dict_include(struct template_dict **out,
			  struct template_dict *dict, const char *key,
			  const char *name);

#ifdef __cplusplus
}
#endif

#endif
