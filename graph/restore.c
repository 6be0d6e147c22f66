/*
 * Restoring tracked files from a commit, and listing the tracked files the
 * working tree changes (libgit2; see graph/restore.h).
 */
#include "graph/restore.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "base/strv.h"
#include "graph/repo_git.h"
#include "base/banned.h"

int
graph_repo_committed_entry(struct graph_repo *repo,
			   const struct graph_oid *commit, const char *path,
			   struct buf *bytes, enum file_entry *kind,
			   struct error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *ent = NULL;
	git_blob *blob = NULL;
	git_filemode_t mode;
	char hex[GRAPH_OID_HEX];
	int rc, grc;

	rc = graph_repo_commit_tree(repo, commit, &tree, err);
	if (rc)
		return rc;
	graph_oid_hex(commit, hex);
	grc = git_tree_entry_bypath(&ent, tree, path);
	if (grc == GIT_ENOTFOUND) {
		rc = error_set(err, ERROR_NOT_FOUND, "'%s' is not in commit "
			       "%.12s", path, hex);
		goto done;
	}
	if (grc < 0) {
		rc = graph_repo_git_error(repo, grc, err, "reading tree");
		goto done;
	}
	mode = git_tree_entry_filemode(ent);
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
	    mode != GIT_FILEMODE_LINK) {
		rc = error_set(err, ERROR_INVALID, "'%s' at %.12s is not a "
			       "file", path, hex);
		goto done;
	}
	*kind = mode == GIT_FILEMODE_LINK ? FILE_ENTRY_LINK
	      : mode == GIT_FILEMODE_BLOB_EXECUTABLE ? FILE_ENTRY_EXEC
	      : FILE_ENTRY_PLAIN;
	grc = git_blob_lookup(&blob, graph_repo_git(repo),
			      git_tree_entry_id(ent));
	if (grc < 0) {
		rc = graph_repo_git_error(repo, grc, err, "reading a blob");
		goto done;
	}
	rc = buf_add(bytes, git_blob_rawcontent(blob),
		     (size_t)git_blob_rawsize(blob), err);
done:
	git_blob_free(blob);
	git_tree_entry_free(ent);
	git_tree_free(tree);
	return rc;
}

int
graph_repo_restore_path(struct graph_repo *repo,
			const struct graph_oid *commit, const char *path,
			struct error *err)
{
	struct buf bytes;
	struct error probe;
	enum file_entry kind = FILE_ENTRY_PLAIN;
	int rc;

	buf_init(&bytes, 0);
	error_init(&probe);
	rc = graph_repo_committed_entry(repo, commit, path, &bytes, &kind,
					&probe);
	if (rc == ERROR_NOT_FOUND)
		rc = file_remove_under(graph_repo_root(repo), path, err);
	else if (rc)
		*err = probe;
	else
		rc = file_replace_under(graph_repo_root(repo), path,
					bytes.data ? bytes.data : "", bytes.len,
					kind, err);
	buf_release(&bytes);
	return rc;
}

int
graph_commit_file_read(void *payload, const char *path, char **data,
		       size_t *len, struct error *err)
{
	const struct graph_commit_files *f = payload;
	enum file_entry kind = FILE_ENTRY_PLAIN;
	struct buf bytes;
	int rc;

	*data = NULL;
	*len = 0;
	buf_init(&bytes, 0);
	rc = graph_repo_committed_entry(f->repo, f->commit, path, &bytes,
					&kind, err);
	if (!rc && kind == FILE_ENTRY_LINK)
		rc = error_set(err, ERROR_INVALID, "'%s' is a link", path);
	if (!rc && bytes.len > 64u * 1024 * 1024)
		rc = error_set(err, ERROR_INVALID, "'%s' is larger than 64 "
			       "MiB", path);
	if (!rc) {
		*data = mem_alloc(bytes.len + 1);
		if (!*data) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
		} else {
			if (bytes.len)
				memcpy(*data, bytes.data, bytes.len);
			(*data)[bytes.len] = '\0';
			*len = bytes.len;
		}
	}
	buf_release(&bytes);
	return rc;
}
