/*
 * Suite graph_model_memo: the rules model and graph as one memo row
 * (graph/model_memo.h). Every field of every struct is in a table; a row
 * reads back to the model and graph it was written from (written again,
 * it is the same bytes) for every example's rules; a row damaged
 * anywhere, cut, or stored under another key is a miss.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/mem.h"
#include "graph/graph.h"
#include "graph/model_memo.h"
#include "rules/rules.h"
#include "tests/support/support.h"

TestSuite(graph_model_memo);

#define KEY "0123456789abcdef0123456789abcdef"
#define OTHER "fedcba9876543210fedcba9876543210"

static const char *const examples[] = {
	"examples/cuda-bindings/ripple.yml",
	"examples/cuda-python/ripple.yml",
	"examples/kvikio/ripple.yml",
	"examples/numba-cuda/ripple.yml",
	"examples/rapids/ripple.yml",
	"examples/rmm/ripple.yml",
	NULL,
};

/* An example's rules and graph; 0 when they do not load here. */
static int
load_example(const char *rel, struct rules **r, struct graph **g)
{
	struct error_list errors;
	struct error err;
	char path[4096], dir[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", t_srcdir(), rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	error_list_init(&errors, 4);
	rc = rules_load_file(path, rel, dir, r, &errors);
	error_list_release(&errors);
	if (rc)
		return 0;
	error_init(&err);
	cr_assert_eq(graph_build(*r, g, &err), 0, "%s: %s", rel, err.msg);
	return 1;
}

/* Every node's id and what it is bound to, one a line. */
static void
describe(const struct graph *g, struct buf *out)
{
	size_t i, k;

	buf_reset(out);
	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		buf_addf(out, NULL, "%s %s root=%s tk=%s argc=%zu",
			 n->id, n->rule ? n->rule->name : n->release->name,
			 n->root ? n->root->name : "-",
			 n->toolkit ? n->toolkit->name : "-", n->argc);
		for (k = 0; k < n->n_deps; k++)
			buf_addf(out, NULL, " %s", g->nodes[n->deps[k]].id);
		for (k = 0; k < n->n_inputs; k++)
			buf_addf(out, NULL, " <%s>", n->inputs[k].name);
		buf_addch(out, '\n', NULL);
	}
}

Test(graph_model_memo, every_field_is_listed)
{
	char why[160] = "";

	cr_expect_eq(graph_model_check(why, sizeof(why)), 0,
		     "a struct of rules/rules.h or graph/graph.h has a field "
		     "its table (rules/model_image.c, graph/model_memo.c) "
		     "does not list: %s", why);
}

Test(graph_model_memo, a_row_reads_back_to_the_same_model_and_graph)
{
	struct buf row = BUF_INIT, again = BUF_INIT, a = BUF_INIT,
		   b = BUF_INIT;
	size_t i, loaded = 0;

	for (i = 0; examples[i]; i++) {
		struct rules *r = NULL, *r2 = NULL;
		struct graph *g = NULL, *g2 = NULL;

		if (!load_example(examples[i], &r, &g))
			continue;
		loaded++;
		buf_reset(&row);
		cr_assert_eq(graph_model_encode(r, g, KEY, &row), 0, "%s",
			     examples[i]);
		cr_assert_eq(graph_model_decode(row.data, row.len, KEY,
						"shown", &r2, &g2), 0, "%s",
			     examples[i]);
		cr_expect_str_eq(r2->file, "shown");
		cr_expect_null(r2->text);
		cr_expect_eq(g2->rules, r2);
		cr_expect_eq(g2->n_nodes, g->n_nodes);
		describe(g, &a);
		describe(g2, &b);
		cr_expect_str_eq(b.data, a.data, "%s", examples[i]);
		cr_expect_eq(rules_find_artifact(r2, r->artifacts[0].name),
			     &r2->artifacts[0], "%s: indexed", examples[i]);
		/* the same bytes written again: nothing lost or changed */
		buf_reset(&again);
		cr_assert_eq(graph_model_encode(r2, g2, KEY, &again), 0);
		cr_expect(again.len == row.len &&
			  !memcmp(again.data, row.data, row.len), "%s",
			  examples[i]);
		graph_free(g2);
		rules_free(r2);
		graph_free(g);
		rules_free(r);
	}
	cr_expect_geq(loaded, 4, "examples loaded: %zu", loaded);
	buf_release(&row);
	buf_release(&again);
	buf_release(&a);
	buf_release(&b);
}

Test(graph_model_memo, a_damaged_cut_or_other_row_is_a_miss)
{
	struct buf row = BUF_INIT, bad = BUF_INIT;
	struct rules *r = NULL, *r2 = NULL;
	struct graph *g = NULL, *g2 = NULL;
	size_t i, step;

	cr_assert(load_example(examples[0], &r, &g));
	cr_assert_eq(graph_model_encode(r, g, KEY, &row), 0);
	cr_expect_eq(graph_model_decode(row.data, row.len, OTHER, "x", &r2,
					&g2), 1, "another key");
	cr_expect_null(r2);
	for (i = 0; i < row.len; i += 97)
		cr_expect_eq(graph_model_decode(row.data, i, KEY, "x", &r2,
						&g2), 1, "cut at %zu", i);
	step = row.len / 400 + 1;
	for (i = 0; i < row.len; i += step) {
		buf_reset(&bad);
		buf_add(&bad, row.data, row.len, NULL);
		bad.data[i] ^= 0x20;
		cr_expect_eq(graph_model_decode(bad.data, bad.len, KEY, "x",
						&r2, &g2), 1,
			     "byte %zu of %zu changed", i, row.len);
		cr_expect_null(g2);
	}
	buf_release(&row);
	buf_release(&bad);
	graph_free(g);
	rules_free(r);
}

/*
 * Every allocation of writing and of reading a row failing in turn: an
 * error (ERROR_NOMEM, or for the writer nothing to remember), never a
 * half-made model (AddressSanitizer sees what is not freed).
 */
Test(graph_model_memo, out_of_memory_is_an_error_at_every_allocation)
{
	struct buf row = BUF_INIT, other = BUF_INIT;
	struct rules *r = NULL, *r2 = NULL;
	struct graph *g = NULL, *g2 = NULL;
	long n;
	int rc;

	cr_assert(load_example(examples[0], &r, &g));
	cr_assert_eq(graph_model_encode(r, g, KEY, &row), 0);
	for (n = 0;; n++) {
		buf_reset(&other);
		mem_fault_after(n);
		rc = graph_model_encode(r, g, KEY, &other);
		mem_fault_after(-1);
		if (!rc && !mem_fault_fired()) {
			cr_expect(other.len == row.len &&
				  !memcmp(other.data, row.data, row.len));
			break;
		}
		cr_expect_neq(rc, 0, "fault %ld went unnoticed", n);
		cr_expect_eq(other.len, 0, "fault %ld left bytes", n);
	}
	for (n = 0;; n++) {
		mem_fault_after(n);
		rc = graph_model_decode(row.data, row.len, KEY, "x", &r2, &g2);
		mem_fault_after(-1);
		if (!rc && !mem_fault_fired())
			break;
		cr_expect_eq(rc, ERROR_NOMEM, "fault %ld: %d", n, rc);
		cr_expect_null(r2);
		cr_expect_null(g2);
	}
	cr_expect_eq(g2->n_nodes, g->n_nodes);
	graph_free(g2);
	rules_free(r2);
	buf_release(&row);
	buf_release(&other);
	graph_free(g);
	rules_free(r);
}
