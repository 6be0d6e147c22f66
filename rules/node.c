/*
 * Rule sections: `artifacts:` and `tests:` (matrix rules with inputs,
 * needs, toolkit, command or builtin, env, outputs, timeout, gpu, version,
 * meta). `releases:` are in rules/release.c.
 */
#include "rules/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/path.h"
#include "rules/yaml.h"
#include "base/banned.h"

static const char *const builtins[] = { "cuda-smoke" };

static int
cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct rules_kv *)a)->key,
		      ((const struct rules_kv *)b)->key);
}

/* Resolve a dependency name to its kind; reports unknown names. */
static int
dep_kind(struct rules_load *L, const struct rules_ynode *n, const char *name,
	 const struct rules_each *each, enum rules_dep_kind *kind,
	 struct rules_dep *group)
{
	const char **c;
	size_t i, k = 0;

	if (!strcmp(name, "root.sources") || !strcmp(name, "root.tests")) {
		if (!rules_each_has(each, "root")) {
			rules_load_error(L, n, "add root: roots to the rule's 'each'",
					 "'%s' needs a 'root' axis", name);
			return -1;
		}
		*kind = name[5] == 's' ? RULES_DEP_ROOT_SOURCES
				       : RULES_DEP_ROOT_TESTS;
		return 0;
	}
	if (rules_find_source(L->r, name)) {
		*kind = RULES_DEP_SOURCE;
		return 0;
	}
	if (rules_load_has_name(L->art_sorted, L->n_art_names, name)) {
		*kind = RULES_DEP_ARTIFACT;
		return 0;
	}
	if (rules_load_has_name(L->test_sorted, L->n_test_names, name)) {
		*kind = RULES_DEP_TEST;
		return 0;
	}
	if (group && rules_dep_group(L, name, group)) {
		*kind = RULES_DEP_ARTIFACT;
		return 0;
	}
	if (error_list_full(&L->errors)) {
		/* Counted only: no candidates to gather (thousands of
		 * unknown names among thousands of rules were quadratic). */
		rules_load_unknown(L, n, "source or rule", name, NULL, 0);
		return -1;
	}
	c = rules_load_alloc(L, (L->r->n_sources + L->n_art_names +
				 L->n_test_names + 2) * sizeof(*c));
	if (!c)
		return -1;
	c[k++] = "root.sources";
	c[k++] = "root.tests";
	for (i = 0; i < L->r->n_sources; i++)
		c[k++] = L->r->sources[i].name;
	for (i = 0; i < L->n_art_names; i++)
		c[k++] = L->art_names[i];
	for (i = 0; i < L->n_test_names; i++)
		c[k++] = L->test_names[i];
	rules_load_unknown(L, n, "source or rule", name, c, k);
	return -1;
}

static void
load_deps(struct rules_load *L, const struct rules_ynode *v, const char *field,
	  struct rules_node *node, const struct rules_tvars *tv)
{
	size_t i, j;

	if (v->kind != RULES_YNODE_SEQ) {
		rules_load_error(L, v, NULL,
				 "'%s': expected a list of names, got %s", field,
				 rules_ynode_kind_name(v));
		return;
	}
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *it = v->items[i], *nm = it, *wh = NULL;
		struct rules_dep *d = &node->deps[node->n_deps];

		d->pos = rules_load_pos(it);
		if (it->kind == RULES_YNODE_MAP) {
			static const char *const keys[] = { "node", "where", NULL };

			rules_load_keys(L, it, field, keys);
			nm = rules_ynode_get(it, "node");
			wh = rules_ynode_get(it, "where");
			if (!nm) {
				rules_load_error(L, it, "write {node: NAME, where: {...}}",
						 "'%s' entry has no 'node'", field);
				continue;
			}
		}
		if (rules_load_string(L, nm, field, &d->name))
			continue;
		if (dep_kind(L, nm, d->name, &node->each, &d->kind, d))
			continue;
		if (!strcmp(d->name, node->name) &&
		    (d->kind == RULES_DEP_ARTIFACT || d->kind == RULES_DEP_TEST) &&
		    (d->kind == RULES_DEP_TEST) == (node->kind == RULES_NODE_TEST)) {
			rules_load_error(L, nm, NULL, "'%s' depends on itself",
					 d->name);
			continue;
		}
		if (wh && (d->kind == RULES_DEP_ARTIFACT || d->kind == RULES_DEP_TEST)) {
			if (wh->kind != RULES_YNODE_MAP) {
				rules_load_error(L, wh, "write {AXIS: TEMPLATE, ...}",
						 "'where': expected a map, got %s",
						 rules_ynode_kind_name(wh));
				continue;
			}
			d->where = rules_load_alloc(L, (wh->n ? wh->n : 1) *
							   sizeof(*d->where));
			if (!d->where)
				return;
			d->n_where = wh->n;
			for (j = 0; j < wh->n; j++) {
				const struct rules_ynode *wk = wh->items[2 * j];
				const struct rules_ynode *wv = wh->items[2 * j + 1];

				d->where[j].key = wk->str;
				d->where[j].pos = rules_load_pos(wk);
				if (!rules_load_string(L, wv, wk->str,
						       &d->where[j].value))
					rules_load_selector(L, wv, d->where[j].value, tv);
			}
			qsort(d->where, d->n_where, sizeof(*d->where), cmp_kv);
		} else if (wh) {
			rules_load_error(L, wh, NULL,
					 "'where' applies to artifact and test "
					 "dependencies, not to '%s'", d->name);
			continue;
		}
		node->n_deps++;
	}
}

/*
 * A meta: key or value holding a control character (C0, C1) or a byte
 * that is not UTF-8: an error at n. Records carry meta into cache
 * entries, whose readers refuse such text (release prints it: a newline
 * forges a line, an escape drives a terminal), so it would never be
 * reused. Returns -1 after the error, 0 when s is plain.
 */
static int
meta_controls(struct rules_load *L, const struct rules_ynode *n,
	      const char *what, const char *s)
{
	char why[PATH_BAD_WHAT];
	const char *c = path_bad_char(s, strlen(s), why);
	struct buf text = BUF_INIT;

	if (!c)
		return 0;
	if (path_escape_controls(&text, s, NULL)) {
		rules_load_nomem(L);
		buf_release(&text);
		return -1;
	}
	rules_load_error(L, n, "meta: is printed by `ripple release` and "
			 "travels in cache records: write it without control "
			 "characters", "meta %s '%s' holds %s at byte %zu", what,
			 text.data, why, (size_t)(c - s) + 1);
	buf_release(&text);
	return -1;
}

static void
load_kvs(struct rules_load *L, const struct rules_ynode *v, const char *field,
	 int env, const struct rules_tvars *tv, struct rules_kv **out,
	 size_t *n_out)
{
	size_t i;

	if (v->kind != RULES_YNODE_MAP) {
		rules_load_error(L, v, NULL, "'%s': expected a map, got %s", field,
				 rules_ynode_kind_name(v));
		return;
	}
	*out = rules_load_alloc(L, (v->n ? v->n : 1) * sizeof(**out));
	if (!*out)
		return;
	for (i = 0; i < v->n; i++) {
		const struct rules_ynode *k = v->items[2 * i];
		struct rules_kv *kv = &(*out)[i];
		size_t j;

		kv->key = k->str;
		kv->pos = rules_load_pos(k);
		if (!k->len) {
			/* A recorded run keeps meta as KEY=VALUE: an empty
			 * key would fail every run, long after check. */
			rules_load_error(L, k, env ? "name the variable: env: "
					 "{NAME: VALUE}" : "name the entry: "
					 "meta: {KEY: VALUE}",
					 "empty %s key", field);
			continue;
		}
		for (j = 0; env && j < k->len; j++) {
			char c = k->str[j];

			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			      c == '_' || (j && c >= '0' && c <= '9'))) {
				rules_load_error(L, k, "use letters, digits and '_'",
						 "invalid environment variable name '%s'",
						 k->str);
				break;
			}
		}
		if (!env && meta_controls(L, k, "key", k->str))
			continue;
		if (rules_load_string(L, v->items[2 * i + 1], k->str,
				      &kv->value))
			continue;
		if (!env && meta_controls(L, v->items[2 * i + 1], "value",
					  kv->value))
			continue;
		rules_syntax_template(L, v->items[2 * i + 1], kv->value, tv);
	}
	*n_out = v->n;
	qsort(*out, *n_out, sizeof(**out), cmp_kv);
}

/* "600", "30s", "10m", "2h" into milliseconds; 0 when malformed. */
static unsigned long long
parse_timeout(const char *s)
{
	unsigned long long v = 0, mult = 1000;
	size_t i = 0;

	for (; s[i] >= '0' && s[i] <= '9' && i < 9; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	if (!i)
		return 0;
	if (s[i] == 's')
		i++;
	else if (s[i] == 'm' && (i++, 1))
		mult = 60000;
	else if (s[i] == 'h' && (i++, 1))
		mult = 3600000;
	return s[i] ? 0 : v * mult;
}

/* "16384", "512MiB", "16GiB" into MiB; 0 when malformed. */
static unsigned long long
parse_mib(const char *s)
{
	unsigned long long v = 0;
	size_t i = 0;

	for (; s[i] >= '0' && s[i] <= '9' && i < 12; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	if (!i)
		return 0;
	if (s[i] == ' ')
		i++;
	if (!strcmp(s + i, "GiB"))
		return v * 1024;
	if (!strcmp(s + i, "MiB") || !s[i])
		return v;
	return 0;
}

static void
load_gpu(struct rules_load *L, const struct rules_ynode *v, struct rules_gpu *g)
{
	static const char *const keys[] = {
		"count", "min-compute-capability", "min-memory", "runs-on",
		NULL,
	};
	const struct rules_ynode *f;
	unsigned long long u;
	const char *s;

	g->pos = rules_load_pos(v);
	g->count = 1;
	if (rules_load_keys(L, v, "gpu", keys))
		return;
	f = rules_ynode_get(v, "count");
	if (f && !rules_load_uint(L, f, "count", 0, 64, &u))
		g->count = (unsigned)u;
	f = rules_ynode_get(v, "runs-on");
	if (f)
		rules_load_strings(L, f, "runs-on", 1, &g->runs_on,
				   &g->n_runs_on);
	f = rules_ynode_get(v, "min-compute-capability");
	if (f && !rules_load_string(L, f, "min-compute-capability", &s)) {
		unsigned maj = 0, min = 0;
		char *end;
		long a = strtol(s, &end, 10), b = -1;

		if (end != s && *end == '.' && end[1] >= '0' && end[1] <= '9')
			b = strtol(end + 1, &end, 10);
		if (a < 1 || a > 99 || b < 0 || b > 9 || *end) {
			rules_load_error(L, f, "write MAJOR.MINOR, e.g. \"7.5\"",
					 "malformed compute capability '%s'", s);
		} else {
			maj = (unsigned)a;
			min = (unsigned)b;
		}
		g->min_cc_major = maj;
		g->min_cc_minor = min;
	}
	f = rules_ynode_get(v, "min-memory");
	if (f && !rules_load_string(L, f, "min-memory", &s)) {
		g->min_memory_mb = parse_mib(s);
		if (!g->min_memory_mb)
			rules_load_error(L, f,
					 "write MiB (16384) or a number with "
					 "MiB or GiB (16GiB)",
					 "malformed memory size '%s'", s);
	}
}

static void
load_toolkit_ref(struct rules_load *L, const struct rules_ynode *f,
		 struct rules_node *node, const struct rules_tvars *tv)
{
	const char *s = node->toolkit;
	size_t i;

	if (!strcmp(s, "root.toolkit")) {
		const struct rules_each_axis *ea = NULL;

		for (i = 0; i < node->each.n_axes; i++)
			if (!strcmp(node->each.axes[i].axis, "root"))
				ea = &node->each.axes[i];
		if (!ea) {
			rules_load_error(L, f, "add root: roots to the rule's 'each'",
					 "'root.toolkit' needs a 'root' axis");
			return;
		}
		for (i = 0; i < ea->n_values; i++) {
			const struct rules_root *r = rules_find_root(L->r, ea->values[i]);

			if (r && !r->toolkit)
				rules_load_error(L, f, "give the root a 'toolkit'",
						 "root '%s' has no toolkit", r->name);
		}
		return;
	}
	if (!strncmp(s, "toolkits[", 9)) {
		rules_load_selector(L, f, s, tv);
		return;
	}
	if (!rules_find_toolkit(L->r, s)) {
		const char *c[257];
		size_t n = 0;

		c[n++] = "root.toolkit";
		for (i = 0; i < L->r->n_toolkits && n < 257; i++)
			c[n++] = L->r->toolkits[i].name;
		rules_load_unknown(L, f, "toolkit", s, c, n);
	}
}

/* load_node's fields, in the order of its keys[] (rules_load_fields). */
enum node_field {
	F_EACH,
	F_INPUTS,
	F_NEEDS,
	F_TOOLKIT,
	F_COMMAND,
	F_SHELL,
	F_BUILTIN,
	F_ENV,
	F_CWD,
	F_OUTPUTS,
	F_TIMEOUT,
	F_GPU,
	F_VERSION,
	F_META,
	F_VERSION_GROUP,
	F_PASS_ENV,
	F_CONTAINER,
	F_RUNS_ON,
	F_REWRITES,
	F_CUTOFF,
	F_COUNT
};

static void
load_node(struct rules_load *L, const struct rules_ynode *k,
	  const struct rules_ynode *v, struct rules_node *node)
{
	static const char *const keys[] = {
		"each", "inputs", "needs", "toolkit", "command", "shell",
		"builtin", "env", "cwd", "outputs", "timeout", "gpu", "version",
		"meta", "version-group", "pass-env", "container", "runs-on", "rewrites",
		"cutoff", NULL,
	};
	const struct rules_ynode *f, *in, *needs, *cmd, *fv[F_COUNT];
	struct rules_tvars tv;
	char what[160];
	size_t i, n;

	rules_load_what(what, sizeof(what),
			node->kind == RULES_NODE_TEST ? "test" : "artifact",
			k->str);
	node->name = k->str;
	node->pos = rules_load_pos(k);
	_Static_assert(sizeof(keys) / sizeof(keys[0]) == F_COUNT + 1,
		       "keys[] and enum node_field list the same fields");
	if (rules_load_fields(L, v, what, keys, fv))
		return;
	f = fv[F_EACH];
	if (f)
		rules_load_each(L, f, what, &node->each);
	if (rules_load_failed_nomem(L))
		return;
	f = fv[F_TOOLKIT];
	if (f)
		rules_load_string(L, f, "toolkit", &node->toolkit);
	memset(&tv, 0, sizeof(tv));
	tv.each = &node->each;
	tv.has_root = rules_each_has(&node->each, "root");
	tv.has_toolkit = node->toolkit != NULL;
	if (node->toolkit)
		load_toolkit_ref(L, f, node, &tv);
	in = fv[F_INPUTS];
	needs = fv[F_NEEDS];
	n = (in && in->kind == RULES_YNODE_SEQ ? in->n : 0) +
	    (needs && needs->kind == RULES_YNODE_SEQ ? needs->n : 0);
	node->deps = rules_load_alloc(L, (n ? n : 1) * sizeof(*node->deps));
	if (!node->deps)
		return;
	if (in)
		load_deps(L, in, "inputs", node, &tv);
	if (needs && !rules_load_failed_nomem(L))
		load_deps(L, needs, "needs", node, &tv);
	if (rules_load_failed_nomem(L))
		return;
	f = fv[F_SHELL];
	if (f)
		rules_load_bool(L, f, "shell", &node->shell);
	cmd = fv[F_COMMAND];
	if (cmd && cmd->kind == RULES_YNODE_SCALAR && !rules_ynode_is_null(cmd)) {
		if (f && !node->shell)
			rules_load_error(L, cmd, "write the command as a list",
					 "a command string needs 'shell: true'");
		node->shell = 1;
	}
	if (cmd && !rules_load_strings(L, cmd, "command", 1, &node->command,
				       &node->n_command)) {
		if (!node->n_command)
			rules_load_error(L, cmd, NULL, "empty 'command'");
		for (i = 0; i < node->n_command; i++)
			rules_syntax_template(L, cmd->kind == RULES_YNODE_SEQ
						 ? cmd->items[i] : cmd,
					      node->command[i], &tv);
	}
	f = fv[F_BUILTIN];
	if (f && !rules_load_string(L, f, "builtin", &node->builtin) &&
	    strcmp(node->builtin, builtins[0]))
		rules_load_unknown(L, f, "builtin", node->builtin, builtins, 1);
	if (cmd && f)
		rules_load_error(L, f, "keep one of them",
				 "%s has both 'command' and 'builtin'", what);
	else if (!cmd && !f)
		rules_load_error(L, k, "add command: [PROGRAM, ARG, ...]",
				 "%s has neither 'command' nor 'builtin'", what);
	f = fv[F_ENV];
	if (f)
		load_kvs(L, f, "env", 1, &tv, &node->env, &node->n_env);
	f = fv[F_PASS_ENV];
	if (f)
		rules_load_pass_env(L, f, node);
	f = fv[F_CONTAINER];
	if (f)
		rules_load_container(L, f, node, &tv);
	f = fv[F_META];
	if (f)
		load_kvs(L, f, "meta", 0, &tv, &node->meta, &node->n_meta);
	f = fv[F_CWD];
	if (f)
		node->cwd_pos = rules_load_pos(f);
	if (f && !rules_load_string(L, f, "cwd", &node->cwd) &&
	    !rules_syntax_path_chars(L, f, "cwd", node->cwd)) {
		if (path_leaves(node->cwd))
			rules_load_error(L, f, "cwd is relative to the "
					 "repository root, inside it",
					 "cwd '%s' leaves the repository",
					 node->cwd);
		else
			rules_syntax_template(L, f, node->cwd, &tv);
	}
	f = fv[F_VERSION];
	if (f && !rules_load_string(L, f, "version", &node->version))
		rules_syntax_template(L, f, node->version, &tv);
	f = fv[F_VERSION_GROUP];
	if (f && node->kind == RULES_NODE_TEST)
		rules_load_error(L, f, "give the group's artifacts the key; "
				 "tests follow their artifacts",
				 "%s: 'version-group' is for artifacts", what);
	else if (f && !rules_load_string(L, f, "version-group",
					 &node->version_group))
		rules_syntax_template(L, f, node->version_group, &tv);
	f = fv[F_CUTOFF];
	if (f) {
		static const char *const modes[] = { "bytes", "payload" };
		const char *m = NULL;

		if (node->kind == RULES_NODE_TEST)
			rules_load_error(L, f, "give it to the artifacts the "
					 "test needs", "%s: 'cutoff' is for "
					 "artifacts", what);
		else if (!rules_load_string(L, f, "cutoff", &m) &&
			 strcmp(m, "bytes") && strcmp(m, "payload"))
			rules_load_unknown(L, f, "cutoff mode", m, modes, 2);
		else if (m)
			node->cutoff_payload = !strcmp(m, "payload");
	}
	f = fv[F_OUTPUTS];
	if (f && f->kind == RULES_YNODE_MAP)
		rules_load_output_groups(L, f, node, &tv);
	else if (f && !rules_load_strings(L, f, "outputs", 0, &node->outputs,
				     &node->n_outputs)) {
		node->output_pos = rules_load_item_pos(L, f, node->n_outputs);
		for (i = 0; node->output_pos && i < node->n_outputs; i++)
			if (!rules_syntax_output(L, f->items[i], node->outputs[i]))
				rules_syntax_template(L, f->items[i],
						      node->outputs[i], &tv);
	}
	f = fv[F_TIMEOUT];
	if (f) {
		const char *s;

		if (!rules_load_string(L, f, "timeout", &s)) {
			node->timeout_ms = parse_timeout(s);
			if (!node->timeout_ms)
				rules_load_error(L, f,
						 "write seconds (600) or a number "
						 "with s, m or h (10m)",
						 "malformed timeout '%s'", s);
		}
	}
	f = fv[F_GPU];
	if (f)
		load_gpu(L, f, &node->gpu);
	f = fv[F_RUNS_ON];
	if (f)
		rules_load_runs_on(L, f, node, &tv);
	f = fv[F_REWRITES];
	if (f)
		rules_load_rewrites(L, f, node, &tv);
}

void
rules_load_nodes(struct rules_load *L, const struct rules_ynode *m,
		 enum rules_node_kind kind)
{
	struct rules_node *v;
	size_t i;

	if (!m->n)
		return;
	v = rules_load_alloc(L, m->n * sizeof(*v));
	if (!v)
		return;
	if (kind == RULES_NODE_TEST) {
		L->r->tests = v;
		L->r->n_tests = m->n;
	} else {
		L->r->artifacts = v;
		L->r->n_artifacts = m->n;
	}
	for (i = 0; i < m->n; i++) {
		v[i].kind = kind;
		rules_load_name(L, m->items[2 * i],
				kind == RULES_NODE_TEST ? "test" : "artifact");
		load_node(L, m->items[2 * i], m->items[2 * i + 1], &v[i]);
		if (rules_load_failed_nomem(L))
			return;
	}
}
