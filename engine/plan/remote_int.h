/*
 * Inside the plans' remote cache index: its struct, shared by remote.c
 * (lookups, trust) and remote_bundle.c (a run's bundle, the source-key
 * memo its records attest). Not for use outside engine/plan.
 */
#ifndef RIPPLE_ENGINE_PLAN_REMOTE_INT_H
#define RIPPLE_ENGINE_PLAN_REMOTE_INT_H

#include "base/arena.h"
#include "base/strmap.h"
#include "base/strv.h"
#include "engine/plan/remote.h"

/* One key asked: hit (1), miss or untrusted (0), fault (-1). */
struct plan_remote_entry {
	char *name;			/* ns + key; NULL: free slot */
	int state;
	struct plan_remote_hit *hit;
};

struct plan_remote {
	struct remote *r;
	struct plan_remote_options o;
	struct plan_remote_stats stats;
	struct plan_remote_entry *tab;		/* open addressing, cap a power of 2 */
	size_t cap, used;
	const char **globs;		/* trusted refs (arena) */
	size_t n_globs;
	const char *own_ref;		/* the ref planned or run, or NULL */
	const char *own_domain;		/* its domain id when it is not
					   trusted; NULL: the trusted one */
	const char *write_server;	/* URL, or URL/d/DOMAIN: where this
					   index writes, for published marks */
	int down;
	int refused;			/* the server refused a write */
	int local_only;			/* plan_remote_keep_local */
	struct arena arena;		/* names, labels, trust */
	/* The last hit's label and what it was made of (arena): the
	 * records of one run share it (remote_hit.c). */
	const char *label, *label_run, *label_commit, *label_ref;
	int label_own;
	/* Bundles (remote_bundle.c): */
	struct strmap own_bundle;	/* "NODE KEY" -> remote_bundle_entry
					   of the own domain's bundles */
	struct strmap trusted_bundle;	/* the same, trusted domain */
	struct remote_bundle *bundles;	/* owned, n_bundles */
	struct strv bundle_from;	/* the commit of each bundle */
	unsigned char *bundle_own;	/* 1: that bundle is the own domain's */
	size_t n_bundles;
	struct strv bundle_commits;	/* commits whose bundles were asked */
	struct strmap memo;		/* memo id -> source key hex, from
					   the records of bundles ("" when
					   two records disagree) */
	size_t n_memo;
	struct remote_bundle_builder *builder;	/* what this run adds */
	struct strmap built;		/* node ids added to builder */
};

/*
 * Check found hit h of node id and key (from the own domain when own)
 * and take it into entry e: a hit, a miss (not ok, untrusted) or a fault
 * told to the observer. h is consumed. Returns 0 or an error (NOMEM, a
 * fault when required).
 */
int plan_remote_settle_hit(struct plan_remote *pr, struct plan_remote_entry *e,
			   struct plan_remote_hit *h, const char *id,
			   const char *key, int own, struct error *err);

/* Whether ref matches one of the trusted-refs globs. */
int plan_remote_glob_trusted(const struct plan_remote *pr, const char *ref);

/* Tell the fault fe of node id's entry (or make it the error when
 * required); a hint is added when it has none. */
int plan_remote_entry_fault(struct plan_remote *pr, struct error *fe,
			    const char *id, struct error *err);

/* Free a hit and what it holds. Accepts NULL. */
void plan_remote_hit_free(struct plan_remote_hit *h);

/* Whether a record of `ref` may be reused from the own domain (own 1) or
 * the trusted one. */
int plan_remote_ref_trusted(const struct plan_remote *pr, const char *ref,
			    int own);

/* The bundle record of id and key in the own (own 1) or trusted domain's
 * bundles, not taken yet, or NULL. */
struct remote_bundle_entry *plan_remote_bundle_find(struct plan_remote *pr,
						    const char *id,
						    const char *key, int own);

/* Take bundle record be (found for id and key) into entry e as a hit. */
int plan_remote_settle_bundle(struct plan_remote *pr, struct plan_remote_entry *e,
			      struct remote_bundle_entry *be, const char *id,
			      const char *key, int own, struct error *err);

/* Free what bundles.c holds. */
void plan_remote_bundles_release(struct plan_remote *pr);

/* 1 when every request of the n lookups failed to reach the server; then
 * went_down counts it as down, tells the observer once. */
int plan_remote_all_unreachable(const struct remote_lookup *l, size_t n);
int plan_remote_went_down(struct plan_remote *pr,
			  const struct remote_lookup *l, struct error *err);

#endif
