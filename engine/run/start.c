/*
 * Starting one node's action for the scheduler: the environment from the
 * allow-list and the rule, `${root.version}` filled in at run time (it is
 * kept out of keys), the log file, stale outputs removed, the spawn.
 */
#include "engine/run/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fnmatch.h"
#include "base/fsys.h"
#include "base/mem.h"
#include "base/path.h"
#include "engine/run/exec.h"
#include "engine/plan/plan.h"
#include "graph/digest.h"
#include "engine/plan/versions.h"
#include "graph/graph.h"
#include "rules/rules.h"
#include "base/banned.h"

/* The root's version when the rule's `version:` records it, else NULL. */
static const char *
version_of(const struct sched *s, const struct graph_node *n)
{
	if (!n->version || !strstr(n->version, "${root.version}"))
		return NULL;
	return plan_root_version(s->o->versions, s->o->n_versions, n);
}

/*
 * `${root.version}` in an argument or environment value, resolved now:
 * versions stay out of keys (they change with every commit), so the
 * graph keeps the template and the run fills it in. NULL with *missing
 * set when the text needs a version the root does not have (or on out
 * of memory, which the caller also reports as not startable).
 */
static const char *
with_version(struct arena *a, const char *text, const char *ver,
	     int *missing)
{
	struct buf b;
	const char *out = NULL;

	if (!text || !strstr(text, "${root.version}"))
		return text;
	if (!ver) {
		*missing = 1;
		return NULL;
	}
	buf_init(&b, 0);
	if (!plan_fill_version(&b, text, ver, NULL))
		out = arena_strndup(a, b.data, b.len);
	buf_release(&b);
	if (!out)
		*missing = 1;
	return out;
}

static int
env_overridden(const char *kv, const struct graph_node *n)
{
	size_t k, len = strcspn(kv, "=");

	if (!strncmp(kv, "RIPPLE_", 7) ||
	    (len == 20 && !strncmp(kv, "CUDA_VISIBLE_DEVICES", 20)))
		return 1;
	for (k = 0; k < n->n_env; k++)
		if (strlen(n->env[k].key) == len &&
		    !strncmp(n->env[k].key, kv, len))
			return 1;
	return 0;
}

/*
 * Entry "K=V" of the process environment that the node's `pass-env:`
 * passes: its name matches a pattern, and neither ripple (RIPPLE_*,
 * CUDA_VISIBLE_DEVICES), the rule's keyed `env:` nor the allow-list
 * (already there) sets it. The value is copied into the action's
 * environment only: never keyed, logged or recorded (docs/rules.md).
 */
static int
passes(const char *kv, const struct graph_node *n,
       const struct run_options *o)
{
	char name[256];
	size_t k, len = strcspn(kv, "=");

	if (!kv[len] || !len || len >= sizeof(name) ||
	    env_overridden(kv, n))
		return 0;
	for (k = 0; k < o->n_base_env; k++)
		if (!strncmp(o->base_env[k], kv, len) &&
		    o->base_env[k][len] == '=')
			return 0;
	memcpy(name, kv, len);
	name[len] = '\0';
	for (k = 0; k < n->rule->n_pass_env; k++)
		if (fnmatch_match(n->rule->pass_env[k], name))
			return 1;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Entry `ordinal` of a CUDA_VISIBLE_DEVICES list (comma-separated indices,
 * UUIDs or MIG ids; blanks around entries dropped) into out. cudart numbers
 * the devices it shows in list order, so ordinal k of this process is the
 * list's entry k; a child given the bare ordinal would read it against all
 * devices and could get another physical GPU. Returns 0, or -1 when the
 * list has no such entry or it does not fit in n bytes.
 */
static int
visible_entry(const char *list, int ordinal, char *out, size_t n)
{
	const char *p = list, *end;
	int k;

	for (k = 0; k < ordinal && p; k++) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p || ordinal < 0)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strcspn(p, ",");
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == p || (size_t)(end - p) >= n)
		return -1;
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
	return 0;
}

/*
 * CUDA_VISIBLE_DEVICES for the devices in `mask`: their ordinals, mapped
 * through the runner's own list when it has one. Returns 0, or -1 with
 * the reason in msg.
 */
static int
visible_for(const struct run_options *o, unsigned long long mask,
	    char *out, size_t n, char *msg, size_t mn)
{
	size_t k, len = 0;

	out[0] = '\0';
	for (k = 0; k < o->n_gpus && k < 64; k++) {
		char one[128];
		int w;

		if (!(mask & (1ULL << k)))
			continue;
		snprintf(one, sizeof(one), "%d", o->gpus[k].index);
		if (o->visible_devices &&
		    visible_entry(o->visible_devices, o->gpus[k].index, one,
				  sizeof(one))) {
			snprintf(msg, mn, "device %d has no entry in the "
				 "runner's CUDA_VISIBLE_DEVICES '%s'",
				 o->gpus[k].index, o->visible_devices);
			return -1;
		}
		w = snprintf(out + len, n - len, "%s%s", len ? "," : "", one);
		if (w < 0 || (size_t)w >= n - len) {
			snprintf(msg, mn, "the devices' CUDA_VISIBLE_DEVICES "
				 "is longer than %zu bytes", n - 1);
			return -1;
		}
		len += (size_t)w;
	}
	return 0;
}

static int
name_safe(unsigned char c, size_t at)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c && strchr("._=,+-[]@", c) && !(c == '.' && at == 0);
}

void
run_file_name(const char *id, char out[RUN_FILE_NAME_SIZE])
{
	static const char hex[] = "0123456789ABCDEF";
	struct digest d;
	size_t i, o = 0, max = RUN_FILE_NAME_SIZE - 1;

	for (i = 0; id[i]; i++) {
		unsigned char c = (unsigned char)id[i];
		size_t need = name_safe(c, i) ? 1 : 3;

		if (o + need > max)
			break;
		if (need == 1) {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (id[i]) {
		/* Too long: a prefix, then "~" and the hash of the whole. */
		o = max - 33 < o ? max - 33 : o;
		while (o > 0 && (out[o - 1] == '%' ||
				 (o > 1 && out[o - 2] == '%')))
			o--;	/* never cut an escape in two */
		digest_bytes(id, strlen(id), &d);
		out[o++] = '~';
		memcpy(out + o, d.hex, 32);
		o += 32;
	}
	out[o] = '\0';
}

/* The node's cwd must resolve inside the repository (links followed). */
static int
cwd_inside(const struct sched *s, const struct graph_node *n,
	   struct error *err)
{
	char where[PATH_RESOLVED_MAX];
	int rc;

	if (!n->cwd)
		return 0;
	rc = path_resolve_under(s->o->root, n->cwd, 1, where, sizeof(where),
				err);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return 0;
	error_set(err, ERROR_INVALID, "cwd '%s' resolves to '%s', outside "
		  "the repository", n->cwd, where);
	error_hint(err, "actions run inside the repository: remove the link "
		   "or change the rule's cwd");
	return ERROR_INVALID;
}

int
run_start(struct sched *s, size_t i, unsigned long long mask, struct error *err)
{
	const struct graph_node *n = &s->g->nodes[i];
	const struct rules_node *rule = n->rule;
	struct run_node *rn = &s->r->nodes[i];
	struct exec_spec spec;
	struct arena a;
	const char **env, **argv = NULL;
	char safe[RUN_FILE_NAME_SIZE], gpus[256] = "", why[512] = "";
	const char *ver = version_of(s, n), *outdir = NULL;
	const char *rver = plan_root_version(s->o->versions,
					    s->o->n_versions, n);
	size_t k, ne = 0, argc = 0, n_pass = 0;
	int64_t timeout;
	int rc, need_version = 0, bad_gpus = 0;

	arena_init(&a);
	run_file_name(n->id, safe);
	for (k = 0; rule->n_pass_env && s->o->pass_env &&
		    s->o->pass_env[k]; k++)
		n_pass++;
	env = arena_alloc(&a, (s->o->n_base_env + n->n_env + n_pass + 8) *
			  sizeof(*env));
	if (!env) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	for (k = 0; k < s->o->n_base_env; k++)
		if (!env_overridden(s->o->base_env[k], n))
			env[ne++] = s->o->base_env[k];
	for (k = 0; k < n_pass; k++)
		if (passes(s->o->pass_env[k], n, s->o))
			env[ne++] = s->o->pass_env[k];
	for (k = 0; k < n->n_env; k++)
		env[ne++] = arena_printf(&a, "%s=%s", n->env[k].key,
					 with_version(&a, n->env[k].value, rver,
						      &need_version));
	env[ne++] = arena_printf(&a, "RIPPLE_NODE=%s", n->id);
	env[ne++] = arena_printf(&a, "RIPPLE_RUN=%s",
				 s->o->run_id ? s->o->run_id : "");
	if (ver || rver)
		env[ne++] = arena_printf(&a, "RIPPLE_VERSION=%s",
					 ver ? ver : rver);
	if (s->o->out_dir) {
		outdir = arena_printf(&a, "%s/%s", s->o->out_dir, safe);
		if (outdir)
			fsys_mkdir(outdir);
		env[ne++] = arena_printf(&a, "RIPPLE_OUT_DIR=%s", outdir);
	}
	if (mask) {
		bad_gpus = visible_for(s->o, mask, gpus, sizeof(gpus), why,
				       sizeof(why));
		env[ne++] = arena_printf(&a, "CUDA_VISIBLE_DEVICES=%s", gpus);
	}
	for (k = 0; k < ne; k++)
		if (!env[k]) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
	qsort(env, ne, sizeof(*env), cmp_str);
	if (rule->builtin) {
		const char *home = n->toolkit && n->toolkit->home
			? n->toolkit->home
			: s->o->cuda_home ? s->o->cuda_home
					  : "/usr/local/cuda";

		argv = arena_alloc(&a, 6 * sizeof(*argv));
		if (!argv) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		argv[argc++] = s->o->self_exe ? s->o->self_exe
					      : "/proc/self/exe";
		argv[argc++] = rule->builtin;
		argv[argc++] = "--home";
		argv[argc++] = home;
		argv[argc++] = "--json";
	} else {
		argv = arena_alloc(&a, (n->argc + 1) * sizeof(*argv));
		if (!argv) {
			rc = error_set(err, ERROR_NOMEM, "out of memory");
			goto done;
		}
		for (argc = 0; argc < n->argc; argc++)
			argv[argc] = with_version(&a, n->argv[argc], rver,
						  &need_version);
	}
	mem_free(rn->log_path);
	rn->log_path = mem_alloc(strlen(s->o->log_dir) + strlen(safe) + 8);
	if (!rn->log_path) {
		rc = error_set(err, ERROR_NOMEM, "out of memory");
		goto done;
	}
	snprintf(rn->log_path, strlen(s->o->log_dir) + strlen(safe) + 8,
		 "%s/%s.log", s->o->log_dir, safe);
	memset(&spec, 0, sizeof(spec));
	spec.argv = argv;
	spec.argc = argc;
	spec.shell = rule->shell && !rule->builtin;
	spec.cwd = n->cwd ? arena_printf(&a, "%s/%s", s->o->root, n->cwd)
			  : s->o->root;
	spec.env = env;
	spec.n_env = ne;
	spec.log_path = rn->log_path;
	rn->started_ms = s->ex->now_ms(s->ex->payload);
	if (need_version) {
		/* Not starting is the node's failure, not the run's. */
		snprintf(rn->message, sizeof(rn->message),
			 "'${root.version}' is used but root '%s' has no "
			 "version here: tag a release of its family, or "
			 "declare its fallback-version",
			 n->root ? n->root->name : "?");
		rn->exit_code = -1;
		rn->state = RUN_STATE_RUNNING;
		rc = RUN_START_FAILED;
		goto done;
	}
	if (bad_gpus) {
		/* Never a device the runner was not given: the node fails. */
		snprintf(rn->message, sizeof(rn->message), "%s", why);
		rn->exit_code = -1;
		rn->state = RUN_STATE_RUNNING;
		rc = RUN_START_FAILED;
		goto done;
	}
	rc = cwd_inside(s, n, err);
	if (!rc && s->st->prepare)
		rc = s->st->prepare(s->st->payload, i, err);
	if (!rc)
		rc = s->ex->spawn(s->ex->payload, &spec, &rn->handle, err);
	if (rc) {
		/* Not starting is the node's failure, not the run's. */
		snprintf(rn->message, sizeof(rn->message), "%s", err->msg);
		error_init(err);
		rn->exit_code = -1;
		rn->state = RUN_STATE_RUNNING;
		rc = RUN_START_FAILED;
		goto done;
	}
	timeout = s->o->timeout_ms > 0 ? s->o->timeout_ms
		: rule->timeout_ms ? (int64_t)rule->timeout_ms
		: s->o->default_timeout_ms > 0 ? s->o->default_timeout_ms
		: RUN_DEFAULT_TIMEOUT_MS;
	rn->deadline_ms = rn->started_ms + timeout;
	rn->state = RUN_STATE_RUNNING;
	rn->gpu_mask = mask;
	snprintf(rn->gpus, sizeof(rn->gpus), "%s", gpus);
	s->gpu_busy |= mask;
	s->running++;
done:
	arena_release(&a);
	return rc;
}
