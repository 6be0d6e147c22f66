/*
 * The rule fields of a node's key: each field's canonical text (JSON-like:
 * quoted strings, arrays, objects, so explanations show old and new values
 * as people read them) beside the test that two nodes give the same text.
 * graph/key.c hashes the texts; the two halves of a field stay together
 * here so that a value read by one is read by the other.
 */
#include "graph/key_int.h"

#include <string.h>

#include "base/buf.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* The add_* helpers return nonzero when any append failed (out of memory). */
static int
add_quoted(struct buf *b, const char *s)
{
	int bad = buf_addch(b, '"', NULL) != 0;
	unsigned char c;
	size_t n;

	while (s && *s) {
		/* A run that needs no escape, copied at once. */
		for (n = 0; (c = (unsigned char)s[n]) && c >= 0x20 &&
			    c != '"' && c != '\\'; n++)
			;
		if (n) {
			bad |= buf_add(b, s, n, NULL) != 0;
			s += n;
			continue;
		}
		if (c == '"' || c == '\\')
			bad |= buf_addf(b, NULL, "\\%c", c) != 0;
		else
			bad |= buf_addf(b, NULL, "\\u%04x", c) != 0;
		s++;
	}
	bad |= buf_addch(b, '"', NULL) != 0;
	return bad;
}

static int
add_list(struct buf *b, const char *const *v, size_t n)
{
	size_t i;
	int bad = buf_addch(b, '[', NULL) != 0;

	for (i = 0; i < n; i++) {
		if (i)
			bad |= buf_addch(b, ',', NULL) != 0;
		bad |= add_quoted(b, v[i]);
	}
	bad |= buf_addch(b, ']', NULL) != 0;
	return bad;
}

static int
add_kvs(struct buf *b, const struct rules_kv *kv, size_t n)
{
	size_t i;
	int bad = buf_addch(b, '{', NULL) != 0;

	for (i = 0; i < n; i++) {
		if (i)
			bad |= buf_addch(b, ',', NULL) != 0;
		bad |= add_quoted(b, kv[i].key);
		bad |= buf_addch(b, ':', NULL) != 0;
		bad |= add_quoted(b, kv[i].value);
	}
	bad |= buf_addch(b, '}', NULL) != 0;
	return bad;
}

/* Equal as add_quoted writes them: NULL is "". */
static int
eq(const char *a, const char *b)
{
	return a == b || !strcmp(a ? a : "", b ? b : "");
}

static int
eq_list(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (!eq(a[i], b[i]))
			return 0;
	return 1;
}

static int
eq_kvs(const struct rules_kv *a, size_t na, const struct rules_kv *b,
       size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (!eq(a[i].key, b[i].key) || !eq(a[i].value, b[i].value))
			return 0;
	return 1;
}

/* Fields of artifacts and tests (n->rule set). */

static int
builtin_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq(a->rule->builtin, b->rule->builtin);
}

static int
builtin_text(struct buf *b, const struct graph_node *n)
{
	return add_quoted(b, n->rule->builtin ? n->rule->builtin : "");
}

static int
command_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_list(a->argv, a->argc, b->argv, b->argc);
}

static int
command_text(struct buf *b, const struct graph_node *n)
{
	return add_list(b, n->argv, n->argc);
}

/* container: the image reference as written once expanded (a digest pins
 * the bytes; a tag is keyed as text). The options (--shm-size, --ulimit)
 * are how, not what. Fields of issue 26 (container, pass-env, rewrites)
 * enter only when set, so every key of rules without them stays what it
 * was. */
static int
container_has(const struct graph_node *n)
{
	return n->container_image != NULL;
}

static int
container_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq(a->container_image, b->container_image);
}

static int
container_text(struct buf *b, const struct graph_node *n)
{
	return add_quoted(b, n->container_image);
}

static int
cwd_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq(a->cwd, b->cwd);
}

static int
cwd_text(struct buf *b, const struct graph_node *n)
{
	return add_quoted(b, n->cwd ? n->cwd : "");
}

static int
env_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_kvs(a->env, a->n_env, b->env, b->n_env);
}

static int
env_text(struct buf *b, const struct graph_node *n)
{
	return add_kvs(b, n->env, n->n_env);
}

static int
gpu_same(const struct graph_node *a, const struct graph_node *b)
{
	const struct rules_gpu *x = &a->rule->gpu, *y = &b->rule->gpu;

	return x->count == y->count && x->min_cc_major == y->min_cc_major &&
	       x->min_cc_minor == y->min_cc_minor &&
	       x->min_memory_mb == y->min_memory_mb;
}

/* {"count":%u,"min-cc":"%u.%u","min-memory-mb":%llu} */
static int
gpu_text(struct buf *b, const struct graph_node *n)
{
	const struct rules_gpu *gpu = &n->rule->gpu;
	int bad = 0;

	bad |= buf_addstr(b, "{\"count\":", NULL) != 0;
	bad |= buf_addu64(b, gpu->count, NULL) != 0;
	bad |= buf_addstr(b, ",\"min-cc\":\"", NULL) != 0;
	bad |= buf_addu64(b, gpu->min_cc_major, NULL) != 0;
	bad |= buf_addch(b, '.', NULL) != 0;
	bad |= buf_addu64(b, gpu->min_cc_minor, NULL) != 0;
	bad |= buf_addstr(b, "\",\"min-memory-mb\":", NULL) != 0;
	bad |= buf_addu64(b, gpu->min_memory_mb, NULL) != 0;
	bad |= buf_addch(b, '}', NULL) != 0;
	return bad;
}

static int
meta_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_kvs(a->rule->meta, a->rule->n_meta, b->rule->meta,
		      b->rule->n_meta);
}

static int
meta_text(struct buf *b, const struct graph_node *n)
{
	return add_kvs(b, n->rule->meta, n->rule->n_meta);
}

static int
outputs_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_list(a->outputs, a->n_outputs, b->outputs, b->n_outputs);
}

static int
outputs_text(struct buf *b, const struct graph_node *n)
{
	return add_list(b, n->outputs, n->n_outputs);
}

/* pass-env: the names, never a value. */
static int
pass_env_has(const struct graph_node *n)
{
	return n->rule->n_pass_env != 0;
}

static int
pass_env_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_list(a->rule->pass_env, a->rule->n_pass_env,
		       b->rule->pass_env, b->rule->n_pass_env);
}

static int
pass_env_text(struct buf *b, const struct graph_node *n)
{
	return add_list(b, n->rule->pass_env, n->rule->n_pass_env);
}

static int
rewrites_has(const struct graph_node *n)
{
	return n->n_rewrites != 0;
}

static int
rewrites_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_list(a->rewrites, a->n_rewrites, b->rewrites,
		       b->n_rewrites);
}

static int
rewrites_text(struct buf *b, const struct graph_node *n)
{
	return add_list(b, n->rewrites, n->n_rewrites);
}

static int
shell_same(const struct graph_node *a, const struct graph_node *b)
{
	return !a->rule->shell == !b->rule->shell;
}

static int
shell_text(struct buf *b, const struct graph_node *n)
{
	return buf_addstr(b, n->rule->shell ? "true" : "false", NULL) != 0;
}

static int
timeout_same(const struct graph_node *a, const struct graph_node *b)
{
	return a->rule->timeout_ms == b->rule->timeout_ms;
}

static int
timeout_text(struct buf *b, const struct graph_node *n)
{
	return buf_addu64(b, n->rule->timeout_ms, NULL) != 0;
}

/* Fields of releases (n->release set). */

static int
artifacts_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_list(a->release->artifacts, a->release->n_artifacts,
		       b->release->artifacts, b->release->n_artifacts);
}

static int
artifacts_text(struct buf *b, const struct graph_node *n)
{
	return add_list(b, n->release->artifacts, n->release->n_artifacts);
}

static int
exclude_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq_list(a->release->exclude, a->release->n_exclude,
		       b->release->exclude, b->release->n_exclude);
}

static int
exclude_text(struct buf *b, const struct graph_node *n)
{
	return add_list(b, n->release->exclude, n->release->n_exclude);
}

static int
notes_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq(a->release->notes, b->release->notes);
}

static int
notes_text(struct buf *b, const struct graph_node *n)
{
	return add_quoted(b, n->release->notes ? n->release->notes : "");
}

static int
tag_same(const struct graph_node *a, const struct graph_node *b)
{
	return eq(a->release->tag, b->release->tag);
}

static int
tag_text(struct buf *b, const struct graph_node *n)
{
	return add_quoted(b, n->release->tag);
}

/* By name: the order the key's components are sorted in. */
static const struct key_field rule_fields[] = {
	{ KEY_SLOT_BUILTIN, "builtin", NULL, builtin_same, builtin_text },
	{ KEY_SLOT_COMMAND, "command", NULL, command_same, command_text },
	{ KEY_SLOT_CONTAINER, "container", container_has, container_same,
	  container_text },
	{ KEY_SLOT_CWD, "cwd", NULL, cwd_same, cwd_text },
	{ KEY_SLOT_ENV, "env", NULL, env_same, env_text },
	{ KEY_SLOT_GPU, "gpu", NULL, gpu_same, gpu_text },
	{ KEY_SLOT_META, "meta", NULL, meta_same, meta_text },
	{ KEY_SLOT_OUTPUTS, "outputs", NULL, outputs_same, outputs_text },
	{ KEY_SLOT_PASS_ENV, "pass-env", pass_env_has, pass_env_same,
	  pass_env_text },
	{ KEY_SLOT_REWRITES, "rewrites", rewrites_has, rewrites_same,
	  rewrites_text },
	{ KEY_SLOT_SHELL, "shell", NULL, shell_same, shell_text },
	{ KEY_SLOT_TIMEOUT, "timeout-ms", NULL, timeout_same, timeout_text },
};

static const struct key_field release_fields[] = {
	{ KEY_SLOT_ARTIFACTS, "artifacts", NULL, artifacts_same,
	  artifacts_text },
	{ KEY_SLOT_EXCLUDE, "exclude", NULL, exclude_same, exclude_text },
	{ KEY_SLOT_NOTES, "notes", NULL, notes_same, notes_text },
	{ KEY_SLOT_TAG, "tag", NULL, tag_same, tag_text },
};

const struct key_field *
graph_key_fields(const struct graph_node *n, size_t *count)
{
	if (n->rule) {
		*count = sizeof(rule_fields) / sizeof(rule_fields[0]);
		return rule_fields;
	}
	if (n->release) {
		*count = sizeof(release_fields) / sizeof(release_fields[0]);
		return release_fields;
	}
	*count = 0;
	return NULL;
}
