/*
 * libFuzzer target: the rules loader and checker, as `ripple check` runs
 * them, on a rules file held in memory. The input is the file; the drift
 * checks read every file they name as the input itself (so the YAML, JSON
 * and regex readers see fuzzed text too). Crashes, sanitizer reports and
 * inputs slower than -timeout are findings; rejected rules are not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/error.h"
#include "graph/graph.h"
#include "rules/drift.h"
#include "rules/rules.h"
#include "tests/fuzz/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const char *data;
	size_t size;
};

static int
read_input(void *payload, const char *path, struct buf *out,
	   struct error *err)
{
	const struct input *in = payload;

	(void)path;
	return buf_add(out, in->data, in->size, err);
}

/* Matrix nodes the harness expands: policy max-nodes lets rules ask for
 * 10^8, which is slow by design, not a finding. */
#define FUZZ_MAX_NODES 20000ULL

static unsigned long long
rule_nodes(const struct rules_each *e)
{
	unsigned long long n = 1;
	size_t i;

	for (i = 0; i < e->n_axes; i++) {
		if (e->axes[i].n_values > FUZZ_MAX_NODES)
			return FUZZ_MAX_NODES + 1;
		n *= e->axes[i].n_values;
		if (n > FUZZ_MAX_NODES)
			return FUZZ_MAX_NODES + 1;
	}
	return n + e->n_include;
}

static int
small_matrix(const struct rules *r)
{
	unsigned long long n = 0;
	size_t i;

	for (i = 0; i < r->n_artifacts && n <= FUZZ_MAX_NODES; i++)
		n += rule_nodes(&r->artifacts[i].each);
	for (i = 0; i < r->n_tests && n <= FUZZ_MAX_NODES; i++)
		n += rule_nodes(&r->tests[i].each);
	for (i = 0; i < r->n_releases && n <= FUZZ_MAX_NODES; i++)
		n += rule_nodes(&r->releases[i].each);
	return n <= FUZZ_MAX_NODES;
}

static void
check_graph(const struct rules *r)
{
	struct graph *g = NULL;
	unsigned char *sel = NULL, *clo = NULL;
	struct error err;
	size_t i;

	error_init(&err);
	if (!small_matrix(r) || graph_build(r, &g, &err))
		return;
	sel = calloc(g->n_nodes + 1, 1);
	clo = calloc(g->n_nodes + 1, 1);
	if (sel && clo) {
		for (i = 0; i < r->n_targets; i++) {
			const char *name = r->targets[i].name;

			error_init(&err);
			graph_select(g, &name, 1, sel, clo, &err);
		}
		error_init(&err);
		graph_select(g, NULL, 0, sel, clo, &err);
	}
	free(clo);
	free(sel);
	graph_free(g);
}

static int
fuzz_one(const uint8_t *data, size_t size)
{
	struct input in = { (const char *)data, size };
	struct error_list errs;
	struct rules *r = NULL;

	error_list_init(&errs, 0);
	if (!rules_load_buffer("fuzz.yml", in.data, size, &r, &errs)) {
		check_graph(r);
		if (r->n_checks) {
			struct error_list drift;

			error_list_init(&drift, 0);
			rules_drift_evaluate_read(r, read_input, &in, NULL,
						  &drift);
			error_list_release(&drift);
		}
	}
	rules_free(r);
	error_list_release(&errs);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double start = fuzz_cpu_now();

	fuzz_one(data, size);
	fuzz_cpu_check(start);
	return 0;
}
