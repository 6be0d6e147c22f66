/* Suite graph_key: the key encoding, its vectors, and what changes keys. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "graph/digest.h"
#include "graph/graph.h"
#include "graph/key.h"
#include "rules/rules.h"

static struct rules *
load(const char *text)
{
	struct error_list errors;
	struct rules *r = NULL;

	error_list_init(&errors, 10);
	cr_assert_eq(rules_load_buffer("t.yml", text, strlen(text), &r,
				       &errors), 0);
	error_list_release(&errors);
	return r;
}

/* Every source input's key is the digest of its name: no repository. */
static int
fake_source(void *payload, const struct graph_input *in, struct digest *out,
	    struct error *err)
{
	const char *salt = payload;

	(void)err;
	{
		char buf[512];

		snprintf(buf, sizeof(buf), "%s|%s", in->name,
			 salt ? salt : "");
		digest_bytes(buf, strlen(buf), out);
	}
	return 0;
}

static const char *base_rules =
	"version: 1\n"
	"toolkits:\n"
	"  ctk12: {version: 12.9.1}\n"
	"  ctk13: {version: 13.0.2}\n"
	"roots:\n"
	"  b12: {path: b12, toolkit: ctk12}\n"
	"  b13: {path: b13, toolkit: ctk13}\n"
	"artifacts:\n"
	"  wheel:\n"
	"    each: {root: roots}\n"
	"    inputs: [root.sources]\n"
	"    toolkit: root.toolkit\n"
	"    command: [build, '${root.path}']\n"
	"tests:\n"
	"  t:\n"
	"    each: {root: roots}\n"
	"    needs: [wheel]\n"
	"    command: [pytest]\n";

struct keyset {
	char wheel12[33], wheel13[33], t12[33], t13[33];
};

static void
keys_of(const char *text, const char *salt, struct keyset *ks)
{
	struct rules *r = load(text);
	struct graph *g = NULL;
	struct graph_keys *k = NULL;
	struct graph_key_sources src = { fake_source, NULL, NULL,
					 (void *)salt, NULL };
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_keys_compute(g, NULL, &src, &k, &err), 0);
#define KEY(id) k->keys[graph_find(g, id)->index].key.hex
	memcpy(ks->wheel12, KEY("artifact:wheel[root=b12]"), 33);
	memcpy(ks->wheel13, KEY("artifact:wheel[root=b13]"), 33);
	memcpy(ks->t12, KEY("test:t[root=b12]"), 33);
	memcpy(ks->t13, KEY("test:t[root=b13]"), 33);
#undef KEY
	graph_keys_free(k);
	graph_free(g);
	rules_free(r);
}

static char *
replace(const char *s, const char *from, const char *to)
{
	static char out[4096];
	const char *at = strstr(s, from);

	cr_assert_not_null(at);
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - s), s, to,
		 at + strlen(from));
	return out;
}

Test(graph_key, encoding_vector_is_pinned)
{
	/*
	 * Published vector: bump GRAPH_KEY_SCHEMA and this expectation
	 * together whenever the encoding changes.
	 */
	struct graph_component c[2] = {
		{ GRAPH_COMP_NODE, "id", "00112233445566778899aabbccddeeff",
		  "artifact:x" },
		{ GRAPH_COMP_RULE, "command",
		  "ffeeddccbbaa99887766554433221100", "[\"x\"]" },
	};
	struct digest d;

	cr_assert_eq(graph_key_from_components(c, 2, &d, NULL), 0);
	cr_expect_str_eq(d.hex, "45f4ba0b40c45f2c95a0e5ee2d5ef67a");
	cr_expect_eq(GRAPH_KEY_SCHEMA, 2);
}

/*
 * Issue 22 item 6: when the hasher's state cannot be allocated, the key
 * computation fails; it used to return the all-zero key, which two nodes
 * hitting it would share (a wrong reuse).
 */
Test(graph_key, key_fails_when_the_hasher_cannot_allocate)
{
	struct graph_component c[1] = {
		{ GRAPH_COMP_NODE, "id", "00112233445566778899aabbccddeeff",
		  "artifact:x" },
	};
	struct digest d;
	struct error err;
	int rc;

	error_init(&err);
	memset(&d, 0x5a, sizeof(d));
	mem_fault_after(0);
	rc = graph_key_from_components(c, 1, &d, &err);
	mem_fault_after(-1);
	cr_expect_eq(rc, ERROR_NOMEM);
	cr_expect_str_eq(err.msg, "out of memory");
	cr_expect_eq(d.bytes[0], 0x5a, "the key must be left untouched");
}

Test(graph_key, same_input_same_keys)
{
	struct keyset a, b;

	keys_of(base_rules, NULL, &a);
	keys_of(base_rules, NULL, &b);
	cr_expect_str_eq(a.wheel12, b.wheel12);
	cr_expect_str_eq(a.t13, b.t13);
	cr_expect_str_neq(a.wheel12, a.wheel13);
}

Test(graph_key, command_change_changes_the_key_and_its_users)
{
	struct keyset a, b;

	keys_of(base_rules, NULL, &a);
	keys_of(replace(base_rules, "[build, ", "[build2, "), NULL, &b);
	cr_expect_str_neq(a.wheel12, b.wheel12);
	cr_expect_str_neq(a.t12, b.t12);
}

Test(graph_key, toolkit_pin_change_changes_only_its_nodes)
{
	struct keyset a, b;

	keys_of(base_rules, NULL, &a);
	keys_of(replace(base_rules, "12.9.1", "12.9.2"), NULL, &b);
	cr_expect_str_neq(a.wheel12, b.wheel12);
	cr_expect_str_neq(a.t12, b.t12);
	cr_expect_str_eq(a.wheel13, b.wheel13);
	cr_expect_str_eq(a.t13, b.t13);
}

Test(graph_key, input_change_reaches_dependents)
{
	struct keyset a, b;

	keys_of(base_rules, NULL, &a);
	keys_of(base_rules, "edited", &b);
	cr_expect_str_neq(a.wheel12, b.wheel12);
	cr_expect_str_neq(a.t12, b.t12);
}

Test(graph_key, unrelated_yaml_formatting_leaves_keys)
{
	struct keyset a, b;

	keys_of(base_rules, NULL, &a);
	keys_of(replace(base_rules, "tests:\n", "\n# a comment\ntests:\n"),
		NULL, &b);
	cr_expect_str_eq(a.wheel12, b.wheel12);
	cr_expect_str_eq(a.t13, b.t13);
}

static int
known_digest(void *payload, const struct graph_node *n, struct digest *out)
{
	(void)payload;
	if (strncmp(n->id, "artifact:wheel", 14))
		return 0;
	digest_bytes("same bytes", 10, out);
	return 1;
}

Test(graph_key, output_digest_gives_early_cutoff)
{
	struct rules *r1 = load(base_rules);
	struct rules *r2 = load(replace(base_rules, "[build, ", "[build2, "));
	struct graph *g1 = NULL, *g2 = NULL;
	struct graph_keys *k1 = NULL, *k2 = NULL;
	struct graph_key_sources src = { fake_source, NULL, known_digest,
					 NULL, NULL };
	const char *t = "test:t[root=b12]";
	struct error err;

	error_init(&err);
	cr_assert_eq(graph_build(r1, &g1, &err), 0);
	cr_assert_eq(graph_build(r2, &g2, &err), 0);
	cr_assert_eq(graph_keys_compute(g1, NULL, &src, &k1, &err), 0);
	cr_assert_eq(graph_keys_compute(g2, NULL, &src, &k2, &err), 0);
	/* The wheel's rule changed, its output did not: the test keeps
	 * its key. */
	cr_expect_str_eq(k1->keys[graph_find(g1, t)->index].key.hex,
			 k2->keys[graph_find(g2, t)->index].key.hex);
	cr_expect(k1->keys[graph_find(g1, t)->index].cutoff);
	graph_keys_free(k1);
	graph_keys_free(k2);
	graph_free(g1);
	graph_free(g2);
	rules_free(r1);
	rules_free(r2);
}

/*
 * A key computed while allocations fail is either an error or the same key
 * as without faults: a rule text cut short by a failed buffer must not be
 * hashed.
 */
Test(graph_key, keys_under_allocation_faults_fail_or_match)
{
	struct rules *r = load(base_rules);
	struct graph *g = NULL;
	struct graph_keys *want = NULL;
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	struct error err;
	size_t i;
	long n;
	int once;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_keys_compute(g, NULL, &src, &want, &err), 0);
	for (once = 0; once < 2; once++)
	for (n = 0; n < 10000; n++) {
		struct graph_keys *k = NULL;
		int rc, fired;

		error_init(&err);
		if (once)
			mem_fault_once(n);
		else
			mem_fault_after(n);
		rc = graph_keys_compute(g, NULL, &src, &k, &err);
		fired = mem_fault_fired();
		mem_fault_after(-1);
		if (rc) {
			cr_assert_eq(rc, ERROR_NOMEM, "%s", err.msg);
			continue;
		}
		for (i = 0; i < g->n_nodes; i++)
			cr_assert_str_eq(k->keys[i].key.hex,
					 want->keys[i].key.hex,
					 "n=%ld: key of %s differs", n,
					 g->nodes[i].id);
		graph_keys_free(k);
		if (!fired)
			break;
	}
	graph_keys_free(want);
	graph_free(g);
	rules_free(r);
}

/*
 * Nodes keyed in one graph_keys share the last text of each rule field
 * (graph/key.c: push_field): every node's key and components must be
 * those it gets keyed alone, whether its texts equal the node before
 * (same length, other bytes included) or not.
 */
Test(graph_key, shared_field_texts_give_each_nodes_own_key)
{
	static const char text[] =
		"version: 1\n"
		"artifacts:\n"
		"  a: {command: [build, x], env: {K: '1'}}\n"
		"  b: {command: [build, y], env: {K: '1'}}\n"
		"  c: {command: [build, y], env: {K: '2'}, timeout: 5s}\n"
		"  d: {command: [build, x]}\n"
		"  e: {command: [build, xy], shell: true}\n";
	struct rules *r = load(text);
	struct graph *g = NULL;
	struct graph_keys *all = NULL, *one = NULL;
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	unsigned char mask[8];
	struct error err;
	size_t i, k;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(g->n_nodes, 5);
	cr_assert_eq(graph_keys_compute(g, NULL, &src, &all, &err), 0);
	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node_key *x = &all->keys[i], *y;

		memset(mask, 0, sizeof(mask));
		mask[i] = 1;
		cr_assert_eq(graph_keys_compute(g, mask, &src, &one, &err), 0);
		y = &one->keys[i];
		cr_expect_str_eq(x->key.hex, y->key.hex, "%s", g->nodes[i].id);
		cr_assert_eq(x->n_components, y->n_components);
		for (k = 0; k < x->n_components; k++) {
			cr_expect_str_eq(x->components[k].digest,
					 y->components[k].digest, "%s %s",
					 g->nodes[i].id, x->components[k].name);
			cr_expect_str_eq(x->components[k].detail,
					 y->components[k].detail);
		}
		graph_keys_free(one);
		one = NULL;
	}
	cr_expect_str_neq(all->keys[0].key.hex, all->keys[1].key.hex);
	cr_expect_str_neq(all->keys[0].key.hex, all->keys[3].key.hex);
	graph_keys_free(all);
	graph_free(g);
	rules_free(r);
}

/*
 * Keys of nodes with every rule field (container, pass-env and rewrites
 * included), a toolkit, two inputs and two upstreams, of a release, and
 * of a command whose texts need escapes (a quote, a backslash, a tab):
 * pinned to the values main gave at 4bff975, before node_key pushed the
 * components in their sorted order (the key hashes them sorted either
 * way; the pins say the order did not move).
 */
Test(graph_key, every_field_keys_as_pinned)
{
	static const char text[] =
		"version: 1\n"
		"toolkits:\n"
		"  ctk12: {version: 12.9.1}\n"
		"roots:\n"
		"  b12: {path: b12, toolkit: ctk12, tags: 'v12.*'}\n"
		"sources:\n"
		"  zeta: {paths: ['z/**']}\n"
		"  alpha: {paths: ['a/**']}\n"
		"artifacts:\n"
		"  lib:\n"
		"    command: [make, lib]\n"
		"  gen:\n"
		"    command: [gen, 'q\"uo\\\\te', \"tab\\there\", 'caf\xc3\xa9']\n"
		"  wheel:\n"
		"    each: {root: roots}\n"
		"    inputs: [zeta, alpha]\n"
		"    needs: [lib, gen]\n"
		"    toolkit: root.toolkit\n"
		"    command: [build, '${root.path}']\n"
		"    env: {B: '2', A: '1'}\n"
		"    cwd: sub\n"
		"    outputs: ['dist/*.whl']\n"
		"    timeout: 1h\n"
		"    gpu: {count: 1, min-compute-capability: '7.5'}\n"
		"    meta: {k: v}\n"
		"    pass-env: [GH_TOKEN, 'AWS_*']\n"
		"    rewrites: [VERSION]\n"
		"    container: 'img@sha256:"
		"0000000000000000000000000000000000000000000000000000000000000000'\n"
		"releases:\n"
		"  rel:\n"
		"    each: {root: roots}\n"
		"    tag: root.tags\n"
		"    artifacts: [wheel]\n"
		"    exclude: ['*-tests']\n"
		"    notes: 'notes/${version}.md'\n";
	static const char *const ids[][2] = {
		{ "artifact:wheel[root=b12]",
		  "72e3814b4d5366a3611019c6d3a5493b" },
		{ "release:rel[root=b12]", "cfab7dff2c9a276670e6db612d7cb4cf" },
		{ "artifact:lib", "151517f525f37c96bd092a3066b2d683" },
		{ "artifact:gen", "9061e6fe1dc2ecaf57538d7460b9c088" },
	};
	struct rules *r = load(text);
	struct graph *g = NULL;
	struct graph_keys *k = NULL;
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL,
					 NULL };
	struct error err;
	size_t i;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(graph_keys_compute(g, NULL, &src, &k, &err), 0, "%s",
		     err.msg);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct graph_node *n = graph_find(g, ids[i][0]);

		cr_assert_not_null(n, "%s", ids[i][0]);
		cr_expect_str_eq(k->keys[n->index].key.hex, ids[i][1], "%s: %s",
				 ids[i][0], k->keys[n->index].key.hex);
	}
	cr_expect_eq(k->keys[graph_find(g, ids[0][0])->index].n_components,
		     19, "2 inputs, the id, 12 fields, schema, toolkit, 2 "
		     "upstreams");
	graph_keys_free(k);
	graph_free(g);
	rules_free(r);
}

/*
 * A node whose rule field has the values of the node keyed before it
 * takes that node's text unwritten (graph/key_fields.c: same): nodes
 * keyed in one graph_keys, each differing from the one before in one
 * value of one field, must get the keys and components they get keyed
 * alone. A test of sameness that missed a value would hand a node the
 * text of the node before.
 */
Test(graph_key, each_fields_values_are_compared_in_full)
{
	static const char text[] =
		"version: 1\n"
		"roots:\n"
		"  r: {path: r, tags: 'v*'}\n"
		"artifacts:\n"
		"  a01: {command: [a, b]}\n"
		"  a02: {command: [a, c]}\n"
		"  a03: {command: [a, c, d]}\n"
		"  a04: {command: [a, c, d], cwd: x}\n"
		"  a05: {command: [a, c, d], cwd: y}\n"
		"  a06: {command: [a, c, d], cwd: y, env: {A: '1'}}\n"
		"  a07: {command: [a, c, d], cwd: y, env: {A: '2'}}\n"
		"  a08: {command: [a, c, d], cwd: y, env: {B: '2'}}\n"
		"  a09: {command: [a, c, d], cwd: y, env: {B: '2', C: '3'}}\n"
		"  a10: {command: [a], outputs: ['d/*.whl']}\n"
		"  a11: {command: [a], outputs: ['d/*.tgz']}\n"
		"  a12: {command: [a], outputs: ['d/*.tgz', 'e/*']}\n"
		"  a13: {command: [a], meta: {k: v}}\n"
		"  a14: {command: [a], meta: {k: w}}\n"
		"  a15: {command: [a], meta: {j: w}}\n"
		"  a16: {command: [a], pass-env: [X]}\n"
		"  a17: {command: [a], pass-env: [Y]}\n"
		"  a18: {command: [a], pass-env: [Y, Z]}\n"
		"  a19: {command: [a], rewrites: [VERSION]}\n"
		"  a20: {command: [a], rewrites: [VERSION2]}\n"
		"  a21: {command: [a], container: 'img:1'}\n"
		"  a22: {command: [a], container: 'img:2'}\n"
		"  a23: {command: [a], timeout: 5s}\n"
		"  a24: {command: [a], timeout: 6s}\n"
		"  a25: {command: [a], shell: true}\n"
		"  a26: {command: [a], shell: false}\n"
		"tests:\n"
		"  t01: {command: [a], gpu: {count: 1}}\n"
		"  t02: {command: [a], gpu: {count: 2}}\n"
		"  t03: {command: [a], gpu: {count: 2, "
		"min-compute-capability: '7.5'}}\n"
		"  t04: {command: [a], gpu: {count: 2, "
		"min-compute-capability: '7.6'}}\n"
		"  t05: {command: [a], gpu: {count: 2, "
		"min-compute-capability: '8.6'}}\n"
		"  t06: {command: [a], gpu: {count: 2, "
		"min-compute-capability: '8.6', min-memory: 4GiB}}\n"
		"  t07: {command: [a], gpu: {count: 2, "
		"min-compute-capability: '8.6', min-memory: 8GiB}}\n"
		"  t08: {builtin: cuda-smoke, gpu: {count: 1}}\n"
		"  t09: {command: [a], gpu: {count: 1}}\n"
		"releases:\n"
		"  r1: {each: {root: [r]}, tag: root.tags, artifacts: [a01]}\n"
		"  r2: {each: {root: [r]}, tag: root.tags, artifacts: [a02]}\n"
		"  r3: {each: {root: [r]}, tag: root.tags, artifacts: [a02],"
		" exclude: ['x*']}\n"
		"  r4: {each: {root: [r]}, tag: root.tags, artifacts: [a02],"
		" exclude: ['y*']}\n"
		"  r5: {each: {root: [r]}, tag: root.tags, artifacts: [a02],"
		" exclude: ['y*'], notes: n1.md}\n"
		"  r6: {each: {root: [r]}, tag: root.tags, artifacts: [a02],"
		" exclude: ['y*'], notes: n2.md}\n"
		"  r7: {each: {root: [r]}, tag: 'w*', artifacts: [a02],"
		" exclude: ['y*'], notes: n2.md}\n";
	struct rules *r = load(text);
	struct graph *g = NULL;
	struct graph_keys *all = NULL, *one = NULL;
	struct graph_key_sources src = { fake_source, NULL, NULL, NULL, NULL };
	unsigned char mask[64];
	struct error err;
	size_t i, k, differ = 0;

	error_init(&err);
	cr_assert_eq(graph_build(r, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(g->n_nodes, 42);
	cr_assert_eq(graph_keys_compute(g, NULL, &src, &all, &err), 0, "%s",
		     err.msg);
	for (i = 0; i < g->n_nodes; i++) {
		const struct graph_node_key *x = &all->keys[i], *y;

		memset(mask, 0, sizeof(mask));
		mask[i] = 1;
		cr_assert_eq(graph_keys_compute(g, mask, &src, &one, &err), 0);
		y = &one->keys[i];
		cr_expect_str_eq(x->key.hex, y->key.hex, "%s", g->nodes[i].id);
		cr_assert_eq(x->n_components, y->n_components);
		for (k = 0; k < x->n_components; k++) {
			cr_expect_str_eq(x->components[k].digest,
					 y->components[k].digest, "%s %s",
					 g->nodes[i].id, x->components[k].name);
			cr_expect_str_eq(x->components[k].detail,
					 y->components[k].detail);
		}
		if (i && strcmp(x->key.hex, all->keys[i - 1].key.hex))
			differ++;
		graph_keys_free(one);
		one = NULL;
	}
	cr_expect_eq(differ, g->n_nodes - 1, "each node's key is its own");
	graph_keys_free(all);
	graph_free(g);
	rules_free(r);
}
