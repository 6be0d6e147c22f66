/*
 * The repository handle: discovery, revisions, merge bases, blobs at a
 * commit, and the translation of libgit2 failures (missing objects in a
 * shallow or partial clone above all, a bad pack: graph/git_packs.c)
 * into ripple errors. Tags: graph/tags.c.
 */
#include "graph/repo_git.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/banned.h"

struct graph_repo {
	git_repository *git;
	char *root;	/* workdir (the git folder when bare), no trailing "/" */
	int bare;	/* no working tree */
	int inited;	/* git_libgit2_init was called */
	/* The last commit's root tree: libgit2 does not cache trees above
	 * 4 KiB, and every source set of one evaluation starts there. */
	struct graph_oid last_commit;
	git_tree *last_tree;
};

#define FETCH_HINT "fetch more history: git fetch --unshallow"

void
graph_oid_hex(const struct graph_oid *oid, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < 20; i++) {
		out[2 * i] = hex[oid->id[i] >> 4];
		out[2 * i + 1] = hex[oid->id[i] & 15];
	}
	out[40] = '\0';
}

git_repository *
graph_repo_git(struct graph_repo *repo)
{
	return repo->git;
}

int
graph_repo_git_error(struct graph_repo *repo, int git_rc, struct error *err,
		     const char *what)
{
	int code = git_rc == GIT_ENOTFOUND ? ERROR_NOT_FOUND : ERROR_INTERNAL;
	const char *kind = NULL;
	char msg[256];
	int missing;

	/* Copy libgit2's message first: the shallow and partial probes below
	 * query the configuration, and a repository without a config file
	 * (a bare mirror) would replace it with "config value ... not found". */
	snprintf(msg, sizeof(msg), "%s", graph_git_last_message());
	missing = strstr(msg, "object not found") != NULL;
	/* Not found may be a pack that cannot be read: say which. */
	if (repo && (git_rc == GIT_ENOTFOUND || missing) &&
	    graph_git_packs_check(repo->git, what, err))
		return ERROR_IO;
	if (repo && graph_repo_is_shallow(repo))
		kind = "shallow";
	else if (repo && graph_repo_is_partial(repo))
		kind = "partial";
	if (kind && (git_rc == GIT_ENOTFOUND || missing)) {
		error_set(err, ERROR_NOT_FOUND,
			  "%s: %s (the clone is %s and the object is missing)",
			  what, msg, kind);
		error_hint(err, FETCH_HINT);
		return ERROR_NOT_FOUND;
	}
	if (missing) {
		/* Referenced by a commit or tree, absent from every object
		 * database: an incomplete mirror or a deleted object. */
		error_set(err, ERROR_CORRUPT,
			  "%s: %s (the object is absent from the repository's "
			  "object store)", what, msg);
		error_hint(err, "the clone is incomplete: fetch the object "
				"again (git fetch --refetch) or use a full clone");
		return ERROR_CORRUPT;
	}
	return error_set(err, code, "%s: %s", what, msg);
}

/*
 * libgit2 takes a repository without a `config` file (a bare mirror that
 * lost it) for a checkout whose working tree is the folder above: a
 * working tree needs `WD/.git` (a folder, or the file of a linked working
 * tree or submodule) or a config that says where it is. 1 when wd is such
 * a guess.
 */
static int
guessed_workdir(git_repository *git, const char *wd)
{
	char path[4096];
	struct fsys_stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s/config",
		     git_repository_commondir(git));
	if (n > 0 && (size_t)n < sizeof(path) && !fsys_stat(path, &st))
		return 0;
	n = snprintf(path, sizeof(path), "%s%s.git", wd,
		     wd[0] && wd[strlen(wd) - 1] == '/' ? "" : "/");
	return n > 0 && (size_t)n < sizeof(path) && fsys_lstat(path, &st) != 0;
}

int
graph_repo_open(const char *dir, struct graph_repo **out, struct error *err)
{
	struct graph_repo *repo;
	git_buf found = { NULL, 0, 0 };
	const char *wd;
	size_t n;
	int rc, grc;

	*out = NULL;
	repo = mem_calloc(1, sizeof(*repo));
	if (!repo)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (git_libgit2_init() < 0) {
		rc = error_set(err, ERROR_INTERNAL, "libgit2: %s",
			       graph_git_last_message());
		goto fail;
	}
	repo->inited = 1;
	grc = git_repository_discover(&found, dir, 0, NULL);
	if (grc < 0) {
		rc = error_set(err, ERROR_NOT_FOUND,
			       "not a git repository (or any parent up to /): '%s'",
			       dir);
		goto fail;
	}
	grc = git_repository_open(&repo->git, found.ptr);
	if (grc < 0) {
		rc = graph_repo_git_error(NULL, grc, err, "opening repository");
		goto fail;
	}
	wd = git_repository_workdir(repo->git);
	if (!wd || guessed_workdir(repo->git, wd)) {
		repo->bare = 1;
		wd = git_repository_path(repo->git);
	}
	repo->root = mem_strdup(wd);
	if (!repo->root) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto fail;
	}
	n = strlen(repo->root);
	while (n > 1 && repo->root[n - 1] == '/')
		repo->root[--n] = '\0';
	git_buf_dispose(&found);
	*out = repo;
	return 0;
fail:
	git_buf_dispose(&found);
	graph_repo_close(repo);
	return rc;
}

int
graph_repo_open_again(const struct graph_repo *like, struct graph_repo **out,
		      struct error *err)
{
	struct graph_repo *repo;
	int rc, grc;

	*out = NULL;
	repo = mem_calloc(1, sizeof(*repo));
	if (!repo)
		return error_set(err, ERROR_NOMEM, "out of memory");
	if (git_libgit2_init() < 0) {
		rc = error_set(err, ERROR_INTERNAL, "libgit2: %s",
			       graph_git_last_message());
		goto fail;
	}
	repo->inited = 1;
	grc = git_repository_open(&repo->git, git_repository_path(like->git));
	if (grc < 0) {
		rc = graph_repo_git_error(NULL, grc, err, "opening repository");
		goto fail;
	}
	repo->bare = like->bare;
	repo->root = mem_strdup(like->root);
	if (!repo->root) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto fail;
	}
	*out = repo;
	return 0;
fail:
	graph_repo_close(repo);
	return rc;
}

int
graph_repo_threads(void)
{
	return (git_libgit2_features() & GIT_FEATURE_THREADS) != 0;
}

void
graph_repo_close(struct graph_repo *repo)
{
	if (!repo)
		return;
	git_tree_free(repo->last_tree);
	git_repository_free(repo->git);
	mem_free(repo->root);
	if (repo->inited)
		git_libgit2_shutdown();
	mem_free(repo);
}

const char *
graph_repo_root(const struct graph_repo *repo)
{
	return repo->root;
}

int
graph_repo_is_bare(const struct graph_repo *repo)
{
	return repo->bare;
}

int
graph_repo_need_worktree(const struct graph_repo *repo, const char *what,
			 struct error *err)
{
	if (!repo->bare)
		return 0;
	error_set(err, ERROR_INVALID, "bare repository '%s' has no working "
		  "tree: %s needs one", repo->root, what);
	error_hint(err, "plan between commits here (ripple plan --base A "
		   "--head B), or use a clone with a working tree "
		   "(git clone %s DIR)", repo->root);
	return ERROR_INVALID;
}

int
graph_repo_head_ref(struct graph_repo *repo, char *out, size_t n)
{
	git_reference *head = NULL;
	const char *name;
	int found = 0;

	if (n)
		out[0] = '\0';
	if (git_repository_head_detached(repo->git) == 1 ||
	    git_repository_head(&head, repo->git) < 0)
		return 0;
	name = git_reference_name(head);
	if (name && !strncmp(name, "refs/heads/", 11) && strlen(name) < n) {
		memcpy(out, name, strlen(name) + 1);
		found = 1;
	}
	git_reference_free(head);
	return found;
}

int
graph_repo_default_branch(struct graph_repo *repo, char *out, size_t n)
{
	static const char prefix[] = "refs/remotes/origin/";
	git_reference *ref = NULL;
	const char *target;
	int found = 0;

	if (n)
		out[0] = '\0';
	if (git_reference_lookup(&ref, repo->git, "refs/remotes/origin/HEAD"))
		return 0;
	target = git_reference_symbolic_target(ref);
	if (target && !strncmp(target, prefix, sizeof(prefix) - 1) &&
	    target[sizeof(prefix) - 1] &&
	    (size_t)snprintf(out, n, "refs/heads/%s",
			     target + sizeof(prefix) - 1) < n)
		found = 1;
	else if (n)
		out[0] = '\0';
	git_reference_free(ref);
	return found;
}

int
graph_repo_is_shallow(struct graph_repo *repo)
{
	return graph_git_is_shallow(repo->git);
}

int
graph_repo_is_partial(struct graph_repo *repo)
{
	git_config *cfg = NULL;
	git_buf v = { NULL, 0, 0 };
	int yes = 0;

	if (git_repository_config_snapshot(&cfg, repo->git) < 0)
		return 0;
	if (git_config_get_string_buf(&v, cfg, "extensions.partialclone") == 0)
		yes = v.size > 0;
	git_buf_dispose(&v);
	git_config_free(cfg);
	return yes;
}

int
graph_repo_checkout_links(struct graph_repo *repo)
{
	git_config *cfg = NULL;
	int links = 1;

	if (git_repository_config_snapshot(&cfg, repo->git) < 0)
		return 1;
	if (git_config_get_bool(&links, cfg, "core.symlinks") < 0)
		links = 1;
	git_config_free(cfg);
	return links != 0;
}

static int
peel_commit(struct graph_repo *repo, git_object *obj, const char *rev,
	    struct graph_oid *out, struct error *err)
{
	git_object *peeled = NULL;
	int grc;

	grc = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (grc == GIT_EINVALIDSPEC || grc == GIT_EPEEL)
		return error_set(err, ERROR_INVALID,
				 "revision '%s' is not a commit", rev);
	if (grc < 0) {
		char what[300];

		snprintf(what, sizeof(what), "resolving '%s'", rev);
		return graph_repo_git_error(repo, grc, err, what);
	}
	memcpy(out->id, git_object_id(peeled)->id, 20);
	git_object_free(peeled);
	return 0;
}

int
graph_repo_resolve(struct graph_repo *repo, const char *rev,
		   struct graph_oid *out, struct error *err)
{
	git_object *obj = NULL;
	char what[300];
	int grc, rc;

	/* The all-zero id names no object in any clone (GitHub's `before`
	 * of a branch's first push, a deleted ref): say so, and never blame
	 * a shallow clone for it. */
	if ((strlen(rev) == 40 || strlen(rev) == 64) &&
	    strspn(rev, "0") == strlen(rev)) {
		error_set(err, ERROR_NOT_FOUND, "revision '%.12s...' is the "
			  "all-zero id: it names no commit (a branch's first "
			  "push has no 'before')", rev);
		error_hint(err, "plan without --base (everything builds), or "
			   "pass the branch's merge base with its default "
			   "branch");
		return ERROR_NOT_FOUND;
	}
	grc = git_revparse_single(&obj, repo->git, rev);
	if (grc < 0) {
		if (grc == GIT_EINVALIDSPEC || grc == GIT_EAMBIGUOUS) {
			rc = error_set(err, ERROR_INVALID,
				       "bad revision '%s': %s", rev,
				       graph_git_last_message());
			return rc;
		}
		if (!strcmp(rev, "HEAD") &&
		    git_repository_head_unborn(repo->git) == 1) {
			git_reference *head = NULL;
			const char *branch = NULL;

			if (!git_reference_lookup(&head, repo->git, "HEAD"))
				branch = git_reference_symbolic_target(head);
			if (branch && !strncmp(branch, "refs/heads/", 11))
				branch += 11;
			error_set(err, ERROR_NOT_FOUND, "unknown revision "
				  "'HEAD': branch '%s' has no commits yet",
				  branch ? branch : "?");
			error_hint(err, "commit the files and ripple.yml first "
				   "(git add -A && git commit)");
			git_reference_free(head);
			return ERROR_NOT_FOUND;
		}
		snprintf(what, sizeof(what), "unknown revision '%s'", rev);
		return graph_repo_git_error(repo, GIT_ENOTFOUND, err, what);
	}
	rc = peel_commit(repo, obj, rev, out, err);
	git_object_free(obj);
	return rc;
}

int
graph_repo_merge_base(struct graph_repo *repo, const char *a, const char *b,
		      struct graph_oid *out, struct error *err)
{
	struct graph_oid oa, ob;
	git_oid base;
	char what[300];
	int rc, grc;

	rc = graph_repo_resolve(repo, a, &oa, err);
	if (rc)
		return rc;
	rc = graph_repo_resolve(repo, b, &ob, err);
	if (rc)
		return rc;
	grc = git_merge_base(&base, repo->git, (const git_oid *)oa.id,
			     (const git_oid *)ob.id);
	if (grc < 0) {
		snprintf(what, sizeof(what), "no merge base of '%s' and '%s'",
			 a, b);
		rc = graph_repo_git_error(repo, grc, err, what);
		return rc;
	}
	memcpy(out->id, base.id, 20);
	return 0;
}

int
graph_repo_has_commit(struct graph_repo *repo, const struct graph_oid *commit,
		      struct error *err)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	char hex[GRAPH_OID_HEX], what[300];
	int grc, rc = 0;

	graph_oid_hex(commit, hex);
	grc = git_commit_lookup(&c, repo->git, (const git_oid *)commit->id);
	if (grc == 0)
		grc = git_commit_tree(&t, c);
	if (grc < 0) {
		/* Absent, or unreadable now (no descriptor left): only the
		 * first is a matter of fetching. */
		snprintf(what, sizeof(what), grc == GIT_ENOTFOUND ?
			 "commit %s is not in this clone" : "reading commit %s",
			 hex);
		rc = graph_repo_git_error(repo, grc, err, what);
		if (err && rc == ERROR_NOT_FOUND && !err->hint[0])
			error_hint(err, FETCH_HINT);
	}
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

int
graph_git_opaque_at_or_above(git_tree *root, const char *path,
			     git_tree_entry **out, size_t *len)
{
	char part[4096];
	const char *slash = path;
	size_t n;
	unsigned mode;

	*out = NULL;
	while (slash) {
		slash = strchr(slash, '/');
		n = slash ? (size_t)(slash - path) : strlen(path);
		if (n >= sizeof(part))
			return 0;
		memcpy(part, path, n);
		part[n] = '\0';
		if (git_tree_entry_bypath(out, root, part) < 0)
			return 0;	/* absent: nothing at or below it */
		mode = graph_git_entry_mode(*out);
		if (mode == 0160000 || mode == 0120000) {
			*len = n;
			return 1;
		}
		git_tree_entry_free(*out);
		*out = NULL;
		if (mode != 040000)
			return 0;	/* a file: nothing below it */
		if (slash)
			slash++;
	}
	return 0;
}

unsigned
graph_git_entry_mode(const git_tree_entry *e)
{
	unsigned raw = (unsigned)git_tree_entry_filemode_raw(e);

	switch (raw & 0170000) {
	case 0100000:
		return (raw & 0100) ? 0100755 : 0100644;
	case 0120000:
		return 0120000;
	case 0040000:
		return 040000;
	default:
		return 0160000;
	}
}

int
graph_repo_commit_tree(struct graph_repo *repo, const struct graph_oid *commit,
		       git_tree **out, struct error *err)
{
	git_commit *c = NULL;
	int rc = 0;

	*out = NULL;
	if (repo->last_tree && !memcmp(repo->last_commit.id, commit->id, 20))
		return git_tree_dup(out, repo->last_tree) < 0 ?
			graph_repo_git_error(repo, GIT_ERROR, err,
					     "reading commit tree") : 0;
	if (git_commit_lookup(&c, repo->git, (const git_oid *)commit->id) < 0 ||
	    git_commit_tree(out, c) < 0)
		rc = graph_repo_has_commit(repo, commit, err);
	if (!rc && !*out)
		rc = graph_repo_git_error(repo, GIT_ERROR, err,
					  "reading commit tree");
	if (!rc) {
		git_tree_free(repo->last_tree);
		repo->last_tree = NULL;
		if (git_tree_dup(&repo->last_tree, *out) == 0)
			repo->last_commit = *commit;
	}
	git_commit_free(c);
	return rc;
}

int
graph_repo_path_exists(struct graph_repo *repo, const struct graph_oid *commit,
		       const char *path, int *found, struct error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *ent = NULL;
	int rc, grc;

	*found = 0;
	rc = graph_repo_commit_tree(repo, commit, &tree, err);
	if (rc)
		return rc;
	grc = git_tree_entry_bypath(&ent, tree, path);
	if (grc >= 0)
		*found = 1;
	else if (grc != GIT_ENOTFOUND)
		rc = graph_repo_git_error(repo, grc, err, "reading tree");
	git_tree_entry_free(ent);
	git_tree_free(tree);
	return rc;
}

/* The tree entry at `path` of commit's tree, a blob: its id into *out. */
static int
blob_entry(struct graph_repo *repo, const struct graph_oid *commit,
	   const char *path, git_oid *out, struct error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *ent = NULL;
	char hex[GRAPH_OID_HEX];
	int rc, grc;

	rc = graph_repo_commit_tree(repo, commit, &tree, err);
	if (rc)
		goto done;
	graph_oid_hex(commit, hex);
	grc = git_tree_entry_bypath(&ent, tree, path);
	if (grc == GIT_ENOTFOUND) {
		rc = error_set(err, ERROR_NOT_FOUND,
			       "path '%s' does not exist at %.12s", path, hex);
		goto done;
	}
	if (grc < 0) {
		rc = graph_repo_git_error(repo, grc, err, "reading tree");
		goto done;
	}
	if (git_tree_entry_type(ent) != GIT_OBJECT_BLOB) {
		rc = error_set(err, ERROR_INVALID,
			       "path '%s' at %.12s is not a file", path, hex);
		goto done;
	}
	git_oid_cpy(out, git_tree_entry_id(ent));
done:
	git_tree_entry_free(ent);
	git_tree_free(tree);
	return rc;
}

int
graph_repo_blob_id(struct graph_repo *repo, const struct graph_oid *commit,
		   const char *path, struct graph_oid *out, struct error *err)
{
	git_oid id;
	int rc = blob_entry(repo, commit, path, &id, err);

	if (!rc)
		memcpy(out->id, id.id, sizeof(out->id));
	return rc;
}

int
graph_blob_id_of(const void *data, size_t len, struct graph_oid *out)
{
	git_oid id;

	if (git_odb_hash(&id, data, len, GIT_OBJECT_BLOB) < 0)
		return -1;
	memcpy(out->id, id.id, sizeof(out->id));
	return 0;
}

int
graph_repo_read_blob(struct graph_repo *repo, const struct graph_oid *commit,
		     const char *path, struct buf *out, struct error *err)
{
	git_blob *blob = NULL;
	git_oid id;
	char hex[GRAPH_OID_HEX], what[300];
	int rc, grc;

	rc = blob_entry(repo, commit, path, &id, err);
	if (rc)
		return rc;
	grc = git_blob_lookup(&blob, repo->git, &id);
	if (grc < 0) {
		graph_oid_hex(commit, hex);
		snprintf(what, sizeof(what), "reading '%s' at %.12s", path, hex);
		rc = graph_repo_git_error(repo, grc, err, what);
		goto done;
	}
	rc = buf_add(out, git_blob_rawcontent(blob),
		     (size_t)git_blob_rawsize(blob), err);
done:
	git_blob_free(blob);
	return rc;
}
