/*
 * snapshots: how old the code was at every release, and how long each
 * release's lines live.
 *
 * A snapshot is a commit whose whole composition is wanted, of REV's
 * history or of a release branch's that REV does not contain (the history
 * is then loaded with it, snapshots_extra_tips()): every line of every text file attributed exactly as `git blame
 * SNAPSHOT` attributes it (the same options as REV's), and its commit
 * mapped to a release with REV's release map. The blame engine computes
 * them in its one pass (blame.h, blame_options.snapshots): this module
 * chooses the snapshots, tallies the lines it is handed, and derives
 * survival from the matrix. docs/history.md describes it.
 */
#ifndef STRATA_SNAPSHOTS_H
#define STRATA_SNAPSHOTS_H

#include <stddef.h>
#include <stdint.h>

#include "strata/blame.h"
#include "strata/history.h"
#include "strata/releases.h"

/* --history WHEN */
enum snapshots_when {
	SNAPSHOTS_NONE,
	SNAPSHOTS_RELEASES,  /* each release's standing tag, then REV */
	SNAPSHOTS_YEAR,      /* the last commit before each boundary ... */
	SNAPSHOTS_QUARTER,   /* ... of REV's first-parent chain (UTC) */
	SNAPSHOTS_MONTH
};

/* STRATA_EUSAGE for a word that is not one of the above. */
int snapshots_parse_when(enum snapshots_when *out, const char *word);

/* "none", "releases", "year", "quarter" or "month" (static). */
const char *snapshots_when_name(enum snapshots_when when);

#define SNAPSHOT_NONE ((size_t)-1)

struct snapshot {
	char *name;          /* tag name, REV as given, or YYYY-MM-DD (owned) */
	int64_t date;        /* tag date, REV's commit date, or the boundary */
	uint32_t commit;     /* history index */
	git_oid oid;         /* that commit */
	size_t release;      /* the release it stands for, or SNAPSHOT_NONE */
	unsigned is_rev:1;   /* REV's own (the last) */
	unsigned outside:1;  /* on a release branch: REV lacks the commit */
	uint64_t lines;      /* every line counted */
	uint64_t *by_release; /* nreleases counts (owned) */
};

/* Lines of one release in one subsystem at one snapshot (> 0). */
struct snapshot_row {
	uint32_t snapshot, subsystem, release;
	uint64_t lines;
};

/* How a release's lines fared after its own snapshot. */
struct snapshot_survival {
	size_t base;         /* where its lines count in full, or SNAPSHOT_NONE */
	int has_half_life;   /* its share fell below 50% */
	double half_life_days;
};

struct snapshots {
	enum snapshots_when when;
	struct snapshot *list;   /* in date order, REV last */
	size_t n;
	size_t nreleases;        /* as in the release map */
	char **subsystems;       /* top-level directories, "." the root's
				    files; sorted bytewise (owned) */
	size_t nsubsystems;
	struct snapshot_row *rows;  /* by snapshot, subsystem, release */
	size_t nrows;
	struct snapshot_survival *survival;  /* per release */
	/* [release * n + snapshot]: see snapshots_survived() (owned) */
	uint64_t *survived;
	/* [release * n + snapshot]: see snapshots_based() (owned) */
	uint64_t *based;
	/*
	 * Releases with commits in REV's history and no snapshot (RELEASES):
	 * their standing tag contains REV's commit, yet is dated no later,
	 * so it cannot come before REV in the walk. Release indices (owned).
	 */
	size_t *unsnapped;
	size_t nunsnapped;
	struct snapshots_state *state;       /* private */
};

/* Keep a file? (the tally's --include/--exclude); NULL keeps all. */
typedef int (*snapshots_filter_fn)(const char *path, void *payload);

/*
 * Choose the snapshots of history `h` (its tip is REV, named `rev`) for
 * `when` (not SNAPSHOTS_NONE). `rel` must outlive *out. *out is the
 * caller's, freed with snapshots_free().
 */
int snapshots_choose(struct snapshots **out, const struct history *h,
		     const struct releases *rel, enum snapshots_when when,
		     const char *rev, snapshots_filter_fn keep,
		     void *keep_payload);

/*
 * The commits of the standing tags that `when` wants a snapshot of and
 * the history lacks: tags on release branches, which REV does not
 * contain (RELEASES_DATED), of releases with commits in REV's history.
 * Load the history again with them as extra tips (history_load_union())
 * and compute the releases on it before snapshots_choose(). A tag that
 * contains REV's commit is left out (it cannot come before REV). *out
 * is malloc'd, the caller's; NULL when there is none.
 */
int snapshots_extra_tips(git_oid **out, size_t *n,
			 const struct releases *rel, enum snapshots_when when);

/*
 * Point the engine's options at the snapshots: it then hands their lines
 * to `s` while it blames. `s` must outlive the blame.
 */
void snapshots_engine_options(struct snapshots *s, struct blame_options *o);

/*
 * After the blame: sort what was counted into list[].by_release, rows
 * and subsystems, and compute survival. Call once.
 */
int snapshots_finish(struct snapshots *s);

/*
 * The lines release r had at its base snapshot that are still there at
 * snapshot k (k at or after the base; else 0): for each commit of r, the
 * lesser of its lines at the base and at k, summed. Release r's other
 * lines at k (list[k].by_release[r] less these) *arrived* after its
 * base: blame moved them into r (a merged side history, a line
 * re-attributed), and they do not count as survivors.
 */
uint64_t snapshots_survived(const struct snapshots *s, size_t r, size_t k);

/*
 * What snapshots_survived() is a share of: release r's lines at its base
 * from the commits that snapshot k's history has. All of its lines at the
 * base when k descends from the base (always on one line of history);
 * on release branches only those commits both have: redis's 2.2.0
 * branch forked before 2.3-alpha0 was tagged on unstable, so 2.3's
 * lines are neither kept nor lost there. 0 if none (or no base).
 */
uint64_t snapshots_based(const struct snapshots *s, size_t r, size_t k);

/*
 * snapshots_survived() in percent (0 to 100) of snapshots_based(); -1
 * when that is 0 (no base, or snapshot k's history has none of the
 * release's commits: no point of its curve).
 */
double snapshots_share(const struct snapshots *s, size_t r, size_t k);

void snapshots_free(struct snapshots *s);

#endif
