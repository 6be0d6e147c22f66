/*
 * The rules of an evaluation (eval_open): read from a file or the working
 * tree, or from the commit's ripple.yml through the cache's memo of parsed
 * trees keyed by its blob id (rules_tree_memo over
 * cache_rules_tree_get/put: a hit reads no blob), then checked for
 * tag families that cannot be right; and ripple's own paths, which the
 * rules' location and outputs decide.
 */
#include "engine/plan/eval.h"
#include "engine/plan/eval_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/host.h"
#include "base/strv.h"
#include "cache/cache.h"
#include "graph/digest.h"
#include "graph/family.h"
#include "graph/model_memo.h"
#include "graph/repo.h"
#include "graph/restore.h"
#include "rules/rules.h"
#include "base/banned.h"

/* Lines that cannot be right (graph/family.h) refuse the rules. */
static int
check_families(struct eval *ev, struct error_list *errors, struct error *err)
{
	int rc = graph_family_check_roots(ev->rules, errors);

	if (rc == ERROR_NOMEM)
		return error_set(err, rc, "out of memory");
	if (rc && errors->n)
		*err = errors->items[0];
	return rc;
}

/*
 * The memo key of ripple.yml's parsed tree (32 hex digits into hex): the
 * tree format, the parser's version and the file's git blob id, which
 * names its bytes, so a hit on a commit's reads no blob (rules_tree_memo).
 */
static int
tree_key(const struct graph_oid *blob, char *hex)
{
	struct digest_state st = DIGEST_STATE_INIT;
	struct digest d;

	if (digest_begin(&st, RULES_TREE_FORMAT, NULL))
		return -1;
	digest_add_str(&st, rules_parser_version());
	digest_add_str(&st, "git blob");
	digest_add(&st, blob->id, sizeof(blob->id));
	digest_end(&st, &d);
	memcpy(hex, d.hex, 33);
	return 0;
}

/* rules_tree_memo over an evaluation's cache (struct eval_rules_memo). */
static int
tree_get(void *payload, const char *key, struct buf *out)
{
	struct eval_rules_memo *m = payload;
	struct error e2;

	error_init(&e2);
	return m->cache && cache_rules_tree_get(m->cache, key, out, &e2) == 1;
}

static void
tree_put(void *payload, const char *key, const void *tree, size_t tree_len)
{
	struct eval_rules_memo *m = payload;
	struct error e2;

	error_init(&e2);
	if (m->cache && m->memo.write)
		cache_rules_tree_put(m->cache, key, tree, tree_len, &e2);
}

/* The key of a text read from a file: by the blob id git gives it. */
static int
tree_key_of(void *payload, const char *text, size_t len, char *key)
{
	struct graph_oid blob;

	(void)payload;
	if (graph_blob_id_of(text, len, &blob))
		return -1;
	return tree_key(&blob, key);
}

void
eval_rules_memo_init(struct eval_rules_memo *m, struct cache *c, int write,
		     const struct graph_oid *blob)
{
	memset(m, 0, sizeof(*m));
	m->cache = c;
	m->memo.get = tree_get;
	m->memo.put = tree_put;
	m->memo.key_of = tree_key_of;
	m->memo.payload = m;
	m->memo.write = write;
	if (blob && !tree_key(blob, m->key))
		m->memo.key = m->key;
}

/* graph_commit_file_read, noting that a file went into the rules. */
struct counted_files {
	struct graph_commit_files cf;
	struct eval *ev;
};

static int
counted_read(void *payload, const char *path, char **data, size_t *len,
	     struct error *err)
{
	struct counted_files *f = payload;

	f->ev->rules_read_files = 1;
	return graph_commit_file_read(&f->cf, path, data, len, err);
}

int
eval_rules_same(const struct eval *like, struct eval *ev,
		const char *rules_file)
{
	struct graph_oid blob;
	struct error e2;

	if (!like || !like->rules || like->worktree || like->borrowed ||
	    like->rules_read_files || !like->rules_blob_known || rules_file ||
	    ev->worktree || memcmp(&like->limits, &ev->limits,
				   sizeof(ev->limits)))
		return 0;
	/* like's rules are a commit's ripple.yml and nothing else: the same
	 * blob id is the same bytes. */
	error_init(&e2);
	return !graph_repo_blob_id(ev->repo, &ev->commit, "ripple.yml", &blob,
				   &e2) &&
	       !memcmp(blob.id, like->rules_blob.id, sizeof(blob.id));
}

/*
 * The memo key of the model and graph of ripple.yml's blob (32 hex digits
 * into hex): the format, the structs' layout, this build (its build id:
 * a build whose loader reads the same text otherwise misses), the
 * parser's version, the blob id and the limits the graph was built under
 * (a graph remembered under higher ones would skip a refusal). -1, and no
 * memo, for a build without a build id: its layout and names alone
 * cannot tell it from another build whose loader means the text
 * differently.
 */
static int
model_key(const struct eval *ev, char *hex)
{
	struct digest_state st = DIGEST_STATE_INIT;
	struct digest d;
	char build[129];

	host_build_id(build, sizeof(build));
	if (!build[0] || digest_begin(&st, GRAPH_MODEL_FORMAT, NULL))
		return -1;
	digest_add_u64(&st, graph_model_layout());
	digest_add_str(&st, build);
	digest_add_str(&st, rules_parser_version());
	digest_add_str(&st, "git blob");
	digest_add(&st, ev->rules_blob.id, sizeof(ev->rules_blob.id));
	digest_add_u64(&st, ev->limits.max_nodes);
	digest_add_u64(&st, ev->limits.max_edges);
	digest_end(&st, &d);
	memcpy(hex, d.hex, 33);
	return 0;
}

/* cache_rules_tree_use's reader of a model row (struct model_read). */
struct model_read {
	struct eval *ev;
	const char *key, *display;
};

static int
model_use(void *payload, const void *row, size_t len)
{
	struct model_read *m = payload;
	int rc = graph_model_decode(row, len, m->key, m->display,
				    &m->ev->rules, &m->ev->graph);

	return rc == 0 ? 2 : rc;
}

/* The model and graph remembered for ev's blob: 0 (ev->rules and
 * ev->graph set), 1 (none that reads back), or ERROR_NOMEM. */
static int
model_remembered(struct eval *ev, const char *display, struct error *err)
{
	struct error e2;
	char key[33];
	struct model_read m = { ev, key, display };
	int rc;

	error_init(&e2);
	if (model_key(ev, key))
		return 1;
	rc = cache_rules_tree_use(ev->memo, key, model_use, &m, &e2);
	if (rc == ERROR_NOMEM)
		return error_set(err, rc, "out of memory");
	return rc == 2 ? 0 : 1;
}

void
eval_model_remember(struct eval *ev, const char *rules_file,
		    const struct error_list *errors, size_t n_errors)
{
	struct buf row = BUF_INIT;
	struct error e2;
	char key[33];

	/* A commit's ripple.yml alone, loaded without a word. */
	if (!ev->memo || !ev->memo_write || !ev->rules_blob_known ||
	    ev->rules_read_files || ev->worktree || rules_file ||
	    ev->borrowed || !ev->graph || errors->n != n_errors ||
	    errors->dropped)
		return;
	error_init(&e2);
	if (!model_key(ev, key) &&
	    !graph_model_encode(ev->rules, ev->graph, key, &row))
		cache_rules_tree_put(ev->memo, key, row.data, row.len, &e2);
	buf_release(&row);
}

/* A load's failure into err: its first rules error, or what it was. */
static int
rules_failed(int rc, const struct error_list *errors, struct error *err)
{
	if (errors->n)
		*err = errors->items[0];
	else
		error_set(err, rc, "cannot load the rules");
	return rc;
}

/* A commit's ripple.yml: through the memo by its blob id, else read. */
static int
load_commit_rules(struct eval *ev, struct error_list *errors,
		  struct error *err)
{
	struct counted_files cf = { { ev->repo, &ev->commit }, ev };
	struct eval_rules_memo m;
	struct rules_files files = { counted_read, &cf, NULL };
	struct buf text;
	char display[128];
	int rc;

	rc = graph_repo_blob_id(ev->repo, &ev->commit, "ripple.yml",
				&ev->rules_blob, err);
	if (rc == ERROR_NOT_FOUND)
		snprintf(err->hint, sizeof(err->hint),
			 "plans read the rules of the commit: commit "
			 "ripple.yml, or use --worktree to read the "
			 "working tree's, or --rules FILE");
	if (rc)
		return rc;
	ev->rules_blob_known = 1;
	snprintf(display, sizeof(display), "ripple.yml@%.9s", ev->commit_hex);
	if (ev->memo) {
		rc = model_remembered(ev, display, err);
		if (rc != 1)
			return rc;
	}
	eval_rules_memo_init(&m, ev->memo, ev->memo_write, &ev->rules_blob);
	if (ev->memo && m.memo.key)
		files.memo = &m.memo;
	rc = rules_load_remembered(display, &files, &ev->rules, errors);
	if (rc != 1)
		return rc ? rules_failed(rc, errors, err) : 0;
	buf_init(&text, 0);
	rc = graph_repo_read_blob(ev->repo, &ev->commit, "ripple.yml", &text,
				  err);
	if (!rc) {
		rc = rules_load_buffer_files(display, text.data, text.len,
					     &files, &ev->rules, errors);
		if (rc)
			rules_failed(rc, errors, err);
	}
	buf_release(&text);
	return rc;
}

int
eval_load_rules(struct eval *ev, const char *rules_file,
		struct error_list *errors, struct error *err)
{
	int rc;

	if (rules_file || ev->worktree) {
		struct eval_rules_memo m;
		char path[4096];

		/* not a commit's ripple.yml alone: never lent (eval_open_like) */
		ev->rules_read_files = 1;

		if (!rules_file) {
			int n = snprintf(path, sizeof(path), "%s/ripple.yml",
					 graph_repo_root(ev->repo));

			if (n < 0 || (size_t)n >= sizeof(path))
				return error_set(err, ERROR_INVALID,
						 "the repository's path is too "
						 "long for its ripple.yml");
			rules_file = path;
		}
		/* By the blob id git gives the bytes read: the working
		 * tree's unchanged ripple.yml finds the commit's tree. */
		eval_rules_memo_init(&m, ev->memo, ev->memo_write, NULL);
		rc = rules_load_file_memo(rules_file, rules_file == path ?
					  "ripple.yml" : NULL,
					  graph_repo_root(ev->repo),
					  ev->memo ? &m.memo : NULL,
					  &ev->rules, errors);
		if (rc && errors->n == 0)
			error_set(err, rc, "cannot load the rules");
		else if (rc)
			*err = errors->items[0];
		return rc ? rc : check_families(ev, errors, err);
	}
	rc = load_commit_rules(ev, errors, err);
	return rc ? rc : check_families(ev, errors, err);
}

/*
 * The rules file's path in the working tree when it lies there and the
 * commit does not track it (numba-cuda's untracked ripple.yml beside a
 * root at '.'), into *out; "" otherwise.
 */
static int
untracked_rules_path(struct eval *ev, const char *rules_file,
		     struct buf *out, struct error *err)
{
	char *abs = NULL, *top = NULL;
	struct error e2;
	size_t n;
	int rc = 0, found = 1;

	if (graph_repo_is_bare(ev->repo))
		return 0;
	if (rules_file) {
		abs = fsys_realpath(rules_file);
	} else {
		rc = buf_addf(out, err, "%s/ripple.yml",
			      graph_repo_root(ev->repo));
		if (rc)
			return rc;
		abs = fsys_realpath(out->data);
		buf_reset(out);
	}
	top = fsys_realpath(graph_repo_root(ev->repo));
	if (!abs || !top)
		goto done;
	n = strlen(top);
	if (strncmp(abs, top, n) || abs[n] != '/')
		goto done;
	/* A tree that cannot be read says nothing: not untracked. */
	error_init(&e2);
	if (!graph_repo_path_exists(ev->repo, &ev->commit, abs + n + 1,
				    &found, &e2) && !found)
		rc = buf_addstr(out, abs + n + 1, err);
done:
	free(abs);
	free(top);
	return rc;
}

/*
 * ripple's own paths (issue 25): its state folder, an untracked rules file
 * in the tree, and every node's declared outputs. They are left out of
 * every source set in both modes alike, so a commit's keys and the working
 * tree's agree, and a run's own outputs never change the next run's keys.
 */
int
eval_own_paths(struct eval *ev, const char *rules_file, struct error *err)
{
	struct buf rel = BUF_INIT;
	size_t i, k;
	int rc;

	rc = strv_push(&ev->own, ".ripple/**", err);
	if (!rc)
		rc = untracked_rules_path(ev, rules_file, &rel, err);
	if (!rc && rel.len) {
		ev->own_rules = buf_detach(&rel);
		if (!ev->own_rules)
			rc = error_set(err, ERROR_NOMEM, "out of memory");
	}
	for (i = 0; !rc && i < ev->graph->n_nodes; i++) {
		const struct graph_node *n = &ev->graph->nodes[i];

		for (k = 0; !rc && k < n->n_outputs; k++)
			rc = strv_push(&ev->own, n->outputs[k], err);
	}
	buf_release(&rel);
	if (!rc)
		strv_sort_unique(&ev->own);
	return rc;
}
