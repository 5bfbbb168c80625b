/*
 * mailmap: the author names of git's .mailmap, and the organisations of
 * a gitdm-style map of email addresses and domains.
 *
 * A mailmap resolves (name, email) exactly as `git log --format=%aN`
 * does (git 2.39 mailmap.c): emails match case-insensitively (ASCII), an
 * entry with an old name matches that name case-insensitively, an entry
 * by email only matches every name; a later entry for the same key
 * replaces an earlier one. docs/cohorts.md states the rules.
 */
#ifndef STRATA_MAILMAP_H
#define STRATA_MAILMAP_H

#include <git2.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/repository.h"

struct mailmap;

/* An empty mailmap: *out is the caller's, freed with mailmap_free(). */
int mailmap_new(struct mailmap **out);

/* Add the lines of a .mailmap text (git's syntax; bad lines ignored). */
int mailmap_add_buffer(struct mailmap *m, const char *buf, size_t len);

/*
 * The mailmap git would use for commit `rev` of `repo`: REV's own
 * .mailmap blob, then the blob named by mailmap.blob, then the file named
 * by mailmap.file (later entries win). A missing one is skipped; a
 * mailmap.file that is no regular file or holds more than
 * MAILMAP_FILE_MAX bytes is an error, so that a FIFO or /dev/zero named
 * by a hostile config cannot hang the run.
 */
#define MAILMAP_FILE_MAX (64u << 20)
int mailmap_load(struct mailmap **out, struct repository *repo,
		 const git_oid *rev_tree);

/*
 * The name and email of (name, email) after the map; *name_out and
 * *email_out point at the inputs or into the map (borrowed).
 */
void mailmap_resolve(const struct mailmap *m, const char *name,
		     const char *email, const char **name_out,
		     const char **email_out);

void mailmap_free(struct mailmap *m);

/*
 * An organisation map, gitdm's format: "ADDRESS-OR-DOMAIN ORGANISATION"
 * per line, optionally ending "< YYYY-MM-DD" (the affiliation ends that
 * day, 00:00 UTC); '#' starts a comment.
 */
struct orgmap;

/*
 * Read FILE (a regular file of at most MAILMAP_FILE_MAX bytes, read
 * without blocking). A line that is not an entry fails the load with
 * "'FILE' line N: ..." (STRATA_EUSAGE is not used: it is bad input).
 */
int orgmap_load(struct orgmap **out, const char *path);

/* Parse a map from memory; `path` names it in errors. */
int orgmap_parse(struct orgmap **out, const char *path, const char *buf,
		 size_t len);

/*
 * The organisation of `email` on date `when`: the entry of the address,
 * else of its domain, else of each parent domain (the most specific that
 * is in the map and whose affiliation has not ended by `when`); without
 * one (or without a map), the email's domain in lower case, or
 * ORGMAP_UNKNOWN for an email without one or at a free-mail domain
 * (orgmap_is_free_mail()), as gitdm files them. Writes into buf (size
 * bytes) when it must; the result is borrowed from the map or buf.
 */
#define ORGMAP_UNKNOWN "(Unknown)"
const char *orgmap_resolve(const struct orgmap *m, const char *email,
			   int64_t when, char *buf, size_t size);

/*
 * 1 if `domain` (lower case) is one anyone can have an address at:
 * web mail (gmail.com, qq.com, ...), the forges' no-reply domains
 * (users.noreply.github.com), localhost. The list is docs/cohorts.md's.
 */
int orgmap_is_free_mail(const char *domain);

/*
 * 1 if the author is a bot: a name or an address's local part ending in
 * "[bot]" (github-actions[bot], dependabot[bot]), or a known bot address
 * (docs/cohorts.md). A bot's organisation is ORGMAP_BOTS unless a map
 * names it.
 */
#define ORGMAP_BOTS "(bots)"
int orgmap_is_bot(const char *name, const char *email);

/*
 * The organisation of an author (`bot`: orgmap_is_bot() said so), as
 * the cohorts and the cycle file them: orgmap_resolve(), except that a
 * bot the map does not name is ORGMAP_BOTS. Borrowed as there.
 */
const char *orgmap_author(const struct orgmap *m, const char *email,
			  int64_t when, int bot, char *buf, size_t size);

void orgmap_free(struct orgmap *m);

#endif
