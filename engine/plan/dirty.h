/*
 * What the working tree changed in the inputs a run is about to build
 * from. A run of a commit runs its actions in the working tree but records
 * under the commit's keys, so an uncommitted edit of a claimed input would
 * be built and recorded as the commit (issue 13): `ripple run` refuses it,
 * naming the files, unless it runs the working tree (--worktree).
 */
#ifndef RIPPLE_ENGINE_PLAN_DIRTY_H
#define RIPPLE_ENGINE_PLAN_DIRTY_H

struct error;
struct eval;
struct strv;

/*
 * Compare, for every input of the nodes marked in `mask`
 * (ev->graph->n_nodes bytes), its state at the commit `ev` evaluates with
 * its state in the working tree (as git status sees it: staged, unstaged,
 * untracked and not ignored), and append to *paths (sorted, unique) every
 * file that differs: added, removed, modified, retargeted or re-moded,
 * including a claimed link whose target changed outside the set. An input
 * whose key differs with no file named is appended as "input NAME".
 * Edits nothing claims, or that policy.ignore drops, are not listed.
 * Errors: repository and pattern errors, ERROR_NOMEM.
 */
int plan_dirty_inputs(struct eval *ev, const unsigned char *mask,
		      struct strv *paths, struct error *err);

/*
 * The committed symlinks among the inputs of the nodes marked in `mask`
 * (ev->graph->n_nodes bytes) that the working tree holds as regular
 * files, appended to *paths (sorted, unique). A checkout without links
 * (core.symlinks false: graph_repo_checkout_links) writes each as a file
 * holding the link's text, so a build that reads through one reads that
 * text where a checkout with links reads the file it names, under the
 * same key. Errors: repository and pattern errors, ERROR_NOMEM.
 */
int plan_link_files(struct eval *ev, const unsigned char *mask,
		    struct strv *paths, struct error *err);

#endif
