/*
 * Suite engine_plan_filediff: a live state's file list (filediff_from_state)
 * names each file as record_file_identity writes it into the stored
 * manifests, the fast path for plain files included, so a file that did
 * not change never reads as modified.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "engine/plan/filediff.h"
#include "engine/plan/record.h"
#include "graph/source.h"

Test(engine_plan_filediff, state_names_files_as_the_manifest_does)
{
	static const unsigned modes[] = { 0100644, 0100755, 0100664,
					  0120000, 0160000 };
	struct graph_source_file files[2 * 5];
	struct graph_source_state st;
	struct filediff_entry *v;
	struct arena a;
	struct error err;
	char paths[10][16], digest[128], detail[4200];
	size_t i, n;

	memset(files, 0, sizeof(files));
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 10; i++) {
		struct graph_source_file *f = &files[i];

		snprintf(paths[i], sizeof(paths[i]), "p/f%02zu", i);
		f->path = paths[i];
		f->mode = modes[i % 5];
		f->kind = f->mode == 0120000 ? GRAPH_FILE_SYMLINK
		    : f->mode == 0160000 ? GRAPH_FILE_SUBMODULE
					 : GRAPH_FILE_BLOB;
		snprintf(f->id, sizeof(f->id), "%040zx", i + 1);
		if (f->kind == GRAPH_FILE_SYMLINK) {
			f->link_target = "../t";
			if (i >= 5)
				snprintf(f->target_id, sizeof(f->target_id),
					 "%040zx", i + 100);
		}
	}
	st.files = files;
	st.n_files = 10;
	arena_init(&a);
	error_init(&err);
	cr_assert_eq(filediff_from_state(&a, &st, &v, &n, &err), 0);
	cr_assert_eq(n, 10);
	for (i = 0; i < n; i++) {
		record_file_identity(&files[i], digest, sizeof(digest), detail,
				     sizeof(detail));
		cr_expect_str_eq(v[i].path, files[i].path);
		cr_expect_str_eq(v[i].digest, digest, "file %zu", i);
		cr_expect_str_eq(v[i].detail, detail, "file %zu", i);
	}
	arena_release(&a);
}
