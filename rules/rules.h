/*
 * District rules/: may use base/ only. Inside, report.c (errors and
 * allocation) is the lowest file; yaml.c, read.c and the loaders sit above.
 *
 * The rules model: ripple.yml read (with libyaml) into a checked, immutable
 * tree of plain structs. Everything hangs off `struct rules` and lives in its
 * arena; rules_free releases it all. Names are kept as written; lists keep
 * file order except where a field says "sorted". Every element carries its
 * position (1-based line and column) so later stages can point at the rule.
 *
 * Templates (strings that may hold `${...}`) are kept unexpanded here; graph/
 * expands them per node. The loader checks their syntax and that every
 * reference names something defined.
 *
 * See docs/rules.md for the language, with one example per concept.
 */
#ifndef RIPPLE_RULES_RULES_H
#define RIPPLE_RULES_RULES_H

#include <stddef.h>

#include "base/arena.h"
#include "base/strmap.h"

struct error;
struct error_list;

#define RULES_SCHEMA_VERSION 1

struct rules_pos {
	unsigned line, col;	/* 1-based; 0 when synthesized */
};

struct rules_kv {
	const char *key;
	const char *value;
	struct rules_pos pos;
};

struct rules_toolkit {
	const char *name;
	const char *version;	/* the pin, "12.9.1" (MAJOR.MINOR.PATCH) or
				   "12.9" (MAJOR.MINOR: any patch) */
	unsigned major, minor, patch;
	int has_patch;		/* 0 for a MAJOR.MINOR pin (patch 0) */
	const char *home;	/* install prefix; NULL: /usr/local/cuda-M.m */
	struct rules_pos pos;
};

enum rules_role {
	RULES_ROLE_NONE = 0,
	RULES_ROLE_CURRENT,
	RULES_ROLE_MAINTENANCE,
};

/* How a root's tags spell versions (`tag-spelling:`). */
enum rules_tag_spelling {
	RULES_TAG_SPELLING_PEP440 = 0,	/* canonical PEP 440: v26.6.0 */
	RULES_TAG_SPELLING_ZERO_PADDED,	/* RAPIDS CalVer: v26.06.00, v26.08.00a */
};

/* Where a root's version comes from (`version-source:`). */
enum rules_version_source {
	RULES_VERSION_SOURCE_TAGS = 0,	/* the nearest tag of the family */
	RULES_VERSION_SOURCE_FILE,	/* the file's text, as is */
	RULES_VERSION_SOURCE_FILE_TAGS,	/* the file's release, the tags'
					   distance as its aN number */
};

/* A package root: a release line with its own tag family. */
struct rules_root {
	const char *name;
	const char *path;	/* repository-relative, normalized, no '/' at end */
	enum rules_role role;
	const char *toolkit;	/* a toolkit name, or NULL */
	const char **tags;	/* tag globs (git describe --match semantics) */
	size_t n_tags;
	const char **exclude_tags;	/* globs or exact tags never used */
	size_t n_exclude_tags;
	const char *tag_prefix;	/* family prefix before the version ("v");
				   default: the first pattern's text before its
				   first digit or glob character */
	const char *fallback_version;	/* PEP 440, or NULL */
	int fallback_pretend;	/* 1: the fallback is used as is, +g<node> */
	unsigned node_length;	/* hex digits in +g<node>; default 9 */
	enum rules_tag_spelling tag_spelling;
	const char *tag_regex;	/* setuptools-scm's tag_regex (PCRE2 syntax,
				   a `version` group or exactly one group),
				   or NULL */
	struct rules_pos tag_regex_pos;	/* where tag_regex is written */
	int tags_follow_toolkit;	/* -1: when the patterns name a major;
					   0: never; 1: always */
	enum rules_version_source version_source;
	const char *version_file;	/* repository-relative, or NULL */
	const char **exclude;	/* patterns under `path` left out of
				   root.sources; default: everything under
				   tests/ and docs/ */
	size_t n_exclude;
	const char **tests;	/* patterns under `path` forming root.tests;
				   default: everything under tests/ */
	size_t n_tests;
	struct rules_pos pos;
};

/* A named path set: gitignore-style patterns from the repository root. */
struct rules_source {
	const char *name;
	const char **paths;
	size_t n_paths;
	const char **exclude;
	size_t n_exclude;
	struct rules_pos pos;
};

struct rules_axis {
	const char *name;
	const char **values;
	size_t n_values;
	const char **experimental;	/* values not released yet (subset) */
	size_t n_experimental;
	struct rules_pos pos;
};

/* One axis of an `each:` map, with its values resolved. */
struct rules_each_axis {
	const char *axis;	/* "root", "python", ... */
	const char **values;
	size_t n_values;
	const char *ref;	/* "axes.python" or "roots" when given so */
	struct rules_pos pos;
};

/* A partial assignment of axis values (an include or exclude entry). */
struct rules_combo {
	struct rules_kv *pairs;	/* sorted by key */
	size_t n_pairs;
	struct rules_pos pos;
};

struct rules_each {
	struct rules_each_axis *axes;	/* sorted by axis name */
	size_t n_axes;
	struct rules_combo *include;	/* extra combinations */
	size_t n_include;
	struct rules_combo *exclude;	/* combinations dropped */
	size_t n_exclude;
};

enum rules_dep_kind {
	RULES_DEP_SOURCE,	/* a named source set */
	RULES_DEP_ROOT_SOURCES,	/* root.sources of the node's root */
	RULES_DEP_ROOT_TESTS,	/* root.tests of the node's root */
	RULES_DEP_ARTIFACT,	/* an artifact rule (matrix dependency) */
	RULES_DEP_TEST,		/* a test rule */
};

/*
 * An entry of `inputs:` or `needs:`. A dependency on a matrix rule selects
 * the instances that agree on shared axes; `where` narrows or maps axes:
 * value templates such as "${cuda}" or "roots[toolkit.major=${cuda}]".
 */
struct rules_dep {
	enum rules_dep_kind kind;
	const char *name;	/* the rule or source name as written */
	const char *group;	/* `needs: [libfoo.lib]`: the artifact's
				   output group "lib" (name is "libfoo"),
				   or NULL: the whole output */
	struct rules_kv *where;	/* sorted by key */
	size_t n_where;
	struct rules_pos pos;
};

struct rules_gpu {
	unsigned count;		/* GPUs needed; 0: not a GPU node */
	unsigned min_cc_major, min_cc_minor;	/* 0.0: any */
	unsigned long long min_memory_mb;	/* MiB; 0: any */
	const char **runs_on;	/* runner label templates (`${axis}`), or
				   NULL: the platform's gpu-runs-on */
	size_t n_runs_on;
	struct rules_pos pos;
};

/*
 * `container:` of an artifact or test: the image its action runs in on CI
 * (GitHub's job-level `container:`). Both fields are templates over the
 * rule's axes; the expanded image reference is part of the node's key.
 */
struct rules_container {
	const char *image;	/* template; NULL: no container */
	const char *options;	/* template of `docker create` options, or
				   NULL */
	struct rules_pos pos;	/* of the image value (in either form) */
};

/* A named group of an artifact's outputs (`outputs: {lib: [...]}`). */
struct rules_output_group {
	const char *name;
	const char **outputs;	/* globs, as `outputs:` */
	size_t n_outputs;
	struct rules_pos pos;
};

enum rules_node_kind {
	RULES_NODE_ARTIFACT,
	RULES_NODE_TEST,
};

/* An artifact or test rule, before expansion. */
struct rules_node {
	enum rules_node_kind kind;
	const char *name;
	struct rules_each each;
	struct rules_dep *deps;	/* inputs: then needs:, in file order */
	size_t n_deps;
	const char *toolkit;	/* template: "ctk12", "root.toolkit",
				   "toolkits[major=${cuda}]", or NULL */
	const char **command;	/* argv templates; n_command 0 with builtin */
	size_t n_command;
	int shell;		/* 1: command[0] runs under /bin/sh -c */
	const char *builtin;	/* built-in action ("cuda-smoke") or NULL */
	struct rules_kv *env;	/* sorted by key; value templates */
	size_t n_env;
	const char *cwd;	/* template, repository-relative; NULL: root */
	struct rules_pos cwd_pos;	/* of the cwd value */
	const char **outputs;	/* globs relative to the repository root
				   (with groups: every group's, in order) */
	struct rules_pos *output_pos;	/* of each outputs[i] */
	size_t n_outputs;
	struct rules_output_group *groups;	/* `outputs:` as a map, in
						   file order; or NULL */
	size_t n_groups;
	const char **pass_env;	/* `pass-env:` names and globs of variables
				   passed through unkeyed, sorted */
	size_t n_pass_env;
	struct rules_container container;
	const char **runs_on;	/* `runs-on:` runner label templates for a
				   node without GPUs, or NULL: its
				   platform's runs-on */
	size_t n_runs_on;
	const char **rewrites;	/* `rewrites:` tracked files the action may
				   modify, restored after it; sorted */
	struct rules_pos *rewrite_pos;	/* of each rewrites[i] */
	size_t n_rewrites;
	unsigned long long timeout_ms;	/* 0: the executor's default */
	struct rules_gpu gpu;
	const char *version;	/* template of the output's version, or NULL */
	int cutoff_payload;	/* artifacts, `cutoff: payload`: users' keys
				   take the payload digest of its outputs
				   (a wheel without its long description,
				   engine/run/payload.h), not their bytes */
	const char *version_group;	/* artifacts, template: nodes whose
					   expanded names are equal rebuild
					   together (docs/rules.md), or NULL */
	struct rules_kv *meta;	/* sorted by key; value templates */
	size_t n_meta;
	struct rules_pos pos;
};

/*
 * A metadata check of a release (`require-meta:`): the run's records of
 * artifact rule `artifact` must carry metadata `key` whose value (or one of
 * its comma-separated items) equals the applicable template, expanded with
 * the release node's variables (${version}, ${tag}, ${root.*}). `final`
 * applies to final and post-releases, `dev` to pre- and dev releases,
 * `value` to either when the specific one is absent; at least one is set.
 */
struct rules_meta_check {
	const char *artifact;	/* an artifact rule name */
	const char *key;	/* metadata key */
	const char *value;	/* template or NULL */
	const char *final;	/* template or NULL */
	const char *dev;	/* template or NULL */
	struct rules_pos pos;
};

/* A release rule: which tags it claims and what it publishes. */
struct rules_release {
	const char *name;
	struct rules_each each;
	const char *tag;	/* "root.tags" or a tag glob */
	const char **artifacts;	/* artifact rule names */
	size_t n_artifacts;
	const char **exclude;	/* globs over artifact names left out */
	size_t n_exclude;
	const char *notes;	/* path template ("${root.path}/...${version}...") */
	int notes_skip_post;	/* post-releases need no notes */
	const char **notes_from;	/* where the notes are looked up, in
					   order: "tag" (the tagged tree) or
					   a branch ("main"); NULL: tag only */
	size_t n_notes_from;
	struct rules_meta_check *require_meta;	/* file order */
	size_t n_require_meta;
	const char **tests;	/* test rule names whose instances (agreeing on
				   shared axes) must pass in the tag's run */
	size_t n_tests;
	struct rules_pos pos;
};

struct rules_target {
	const char *name;
	const char **refs;	/* rule names, "artifacts", "tests", or id globs */
	size_t n_refs;
	struct rules_pos pos;
};

enum rules_value_kind {
	RULES_VALUE_RULE,	/* a field of these rules: "roots.NAME.tags" */
	RULES_VALUE_YAML,	/* a YAML file's value at a key path */
	RULES_VALUE_JSON,	/* a JSON file's value at a key path */
	RULES_VALUE_REGEX,	/* a text file's first regex group */
	RULES_VALUE_LITERAL,	/* a literal value */
};

/* One place a value is read from, for drift checks. */
struct rules_value_ref {
	enum rules_value_kind kind;
	const char *file;	/* repository-relative (YAML, JSON, REGEX) */
	const char *path;	/* key path "a.b.c" (YAML, JSON) or rules field */
	const char *regex;	/* POSIX ERE with one group (REGEX) */
	const char *literal;	/* LITERAL */
	struct rules_pos pos;
};

/*
 * A drift check: every value must be equal; or (`same-content:`) files
 * that must hold the same bytes: each path in every root of `same_roots`
 * (root-relative paths), or, without roots, all the repository paths.
 */
struct rules_check {
	const char *name;
	struct rules_value_ref *values;	/* none for same-content */
	size_t n_values;
	int same_content;		/* 1: a same-content check */
	const char **same_paths;	/* literal paths, file order */
	size_t n_same_paths;
	const char **same_roots;	/* root names (>= 2), or none */
	size_t n_same_roots;
	struct rules_pos pos;
};

enum rules_unclaimed {
	RULES_UNCLAIMED_REBUILD_ALL = 0,
	RULES_UNCLAIMED_IGNORE,
};

enum rules_reuse {
	RULES_REUSE_BASELINE = 0,
	RULES_REUSE_ANY,
	RULES_REUSE_NONE,
};

/*
 * `policy: {max-nodes: N, max-edges: N}`: what the rules allow the graph,
 * which can only lower the ceilings graph_build_limited applies
 * (graph/graph.h: 100,000 nodes and 1,000,000 edges unless a command's
 * --max-nodes or --max-edges raises them); the rules can never raise
 * them. The loader multiplies axis sizes before anything is expanded and
 * refuses a matrix past max-nodes (or past RULES_MAX_NODES_LIMIT when
 * the rules set none). Planning costs tens of microseconds and 2 KB per
 * node (10^6 nodes took 2.1 GB and 17 s; 10^7 ran out of memory) and
 * about 130 bytes per edge (9 M edges: 1.2 GB and 15 s).
 */
#define RULES_MAX_NODES_LIMIT 100000000ULL	/* the largest max-nodes */
#define RULES_MAX_EDGES_LIMIT 1000000000ULL	/* the largest max-edges */
/* When a versioned artifact's recorded version must equal its version now. */
enum rules_reuse_versions {
	RULES_REUSE_VERSIONS_TAG = 0,	/* in runs and plans with --tag */
	RULES_REUSE_VERSIONS_EXACT,	/* always */
};

struct rules_policy {
	enum rules_unclaimed unclaimed_paths;
	const char **ignore;	/* patterns that never count as changes */
	size_t n_ignore;
	enum rules_reuse reuse;
	unsigned long long max_nodes;	/* nodes allowed in all, or 0: not
					   set (see above) */
	unsigned long long max_edges;	/* edges allowed in all, or 0 */
	enum rules_reuse_versions reuse_versions;
	const char **trusted_refs;	/* fnmatch globs over the ref that
					   wrote a remote record, or NULL:
					   every writer is trusted */
	size_t n_trusted_refs;
	struct rules_pos pos;
};

/*
 * Where a platform's CI jobs run on GitHub Actions (`runners:`): runner
 * labels for its jobs, and for its GPU tests. `platform` is a value of the
 * `platform` axis, or "default" for nodes without that axis and platforms
 * not listed.
 */
struct rules_runner {
	const char *platform;
	const char **runs_on;		/* labels, at least one */
	size_t n_runs_on;
	const char **gpu_runs_on;	/* labels for GPU tests, or NULL */
	size_t n_gpu_runs_on;
	const char *host;		/* `host:` the platform ripple runs as
					   on these runners (a cross-build),
					   or NULL: the platform itself */
	struct rules_pos pos;
};

/* The sections rules_find_* looks names up in, one index each. */
enum rules_section {
	RULES_SECTION_TOOLKITS,
	RULES_SECTION_ROOTS,
	RULES_SECTION_SOURCES,
	RULES_SECTION_AXES,
	RULES_SECTION_ARTIFACTS,
	RULES_SECTION_TESTS,
	RULES_SECTION_RELEASES,
	RULES_SECTION_COUNT,
};

/*
 * A section's entries by name (the first of each name in file order), so
 * a lookup is a hash probe: rules with 100,000 sources or rules looked
 * each name up by a linear scan, 10^10 comparisons in all, and a binary
 * search cost 480 instructions a lookup. Built by rules_index_names;
 * a section whose count changed since is scanned instead.
 */
struct rules_index {
	struct strmap by_name;	/* name -> its entry (owned: rules_free) */
	size_t n_section;	/* the section's count when built */
	int built;
};

struct rules {
	const char *file;	/* the name used in messages */
	const char *text;	/* the file's bytes (NUL-terminated), or
				   NULL: loaded from a remembered tree
				   (rules_load_remembered) */
	size_t text_len;	/* bytes (0 with text NULL) */
	unsigned version;	/* schema version (RULES_SCHEMA_VERSION) */
	struct rules_toolkit *toolkits;	size_t n_toolkits;
	struct rules_root *roots;	size_t n_roots;
	struct rules_source *sources;	size_t n_sources;
	struct rules_axis *axes;	size_t n_axes;
	struct rules_node *artifacts;	size_t n_artifacts;
	struct rules_node *tests;	size_t n_tests;
	struct rules_release *releases;	size_t n_releases;
	struct rules_target *targets;	size_t n_targets;
	struct rules_check *checks;	size_t n_checks;
	struct rules_runner *runners;	size_t n_runners;
	struct rules_policy policy;
	struct rules_index index[RULES_SECTION_COUNT];	/* by name */
	struct arena arena;	/* owns everything reachable from here */
};

/*
 * The variables every action gets from ripple's environment besides its
 * rule's `env:` and `pass-env:` (engine/run/exec.c passes them; a
 * `pass-env:` entry naming one is an error: it would change nothing).
 * RULES_ENV_ALWAYS_COUNT names, then NULL; the declared size sizes the
 * callers' buffers, and a name added without raising the count does not
 * compile (excess initializer).
 */
#define RULES_ENV_ALWAYS_COUNT 9
extern const char *const rules_env_always[RULES_ENV_ALWAYS_COUNT + 1];

/*
 * Load and check the rules file at `path` (read from the file system).
 * `display` names the file in messages (NULL: path). On success *out owns a
 * new model (free with rules_free) and 0 is returned. On failure *out is
 * NULL, every problem found (up to the list's limit) is appended to
 * `errors`, each with file:line:col and a hint where one helps, and the
 * first error's code is returned (ERROR_INVALID for bad rules, ERROR_IO or
 * ERROR_NOT_FOUND when the file cannot be read, ERROR_NOMEM). Matrix files
 * (`each: {from: {file:}}`) are repository paths, read under `root` (the
 * repository's working tree; NULL: the rules file's folder), never from
 * the rules file's folder when --rules names a file elsewhere.
 */
int rules_load_file(const char *path, const char *display,
		    const char *root, struct rules **out,
		    struct error_list *errors);

/*
 * As rules_load_file, the file's parsed tree taken from and left in
 * `memo` (NULL: none; its key is usually NULL here, key_of naming the
 * text once read).
 */
struct rules_tree_memo;
int rules_load_file_memo(const char *path, const char *display,
			 const char *root, const struct rules_tree_memo *memo,
			 struct rules **out, struct error_list *errors);

/*
 * Where the rules read repository files they name (`each: {from: {file:}}`
 * matrix files): read() puts the bytes of `path` (repository-relative, no
 * "..") into *data (mem_alloc'd, NUL-terminated; the caller frees it) and
 * *len, or returns a negative code with err set (ERROR_NOT_FOUND,
 * ERROR_INVALID for a link or not a file, ERROR_IO).
 */
struct rules_tree_memo;
struct rules_files {
	int (*read)(void *payload, const char *path, char **data,
		    size_t *len, struct error *err);
	void *payload;
	const struct rules_tree_memo *memo;	/* or NULL: parse every time */
};

/*
 * Where parsed rules texts are remembered (the cache's rules_trees table):
 * a load takes the tree remembered under its key instead of parsing, and
 * (with `write`) remembers the tree of a text that parsed without a
 * problem. The key (32 hex digits) names everything the parse is a
 * function of: RULES_TREE_FORMAT, rules_parser_version() and the text, or
 * an id that stands for it (ripple.yml's git blob id, so that a hit on a
 * commit's reads no blob). It is `key`, or when that is NULL what
 * key_of() makes of the text (into 33 bytes; 0, or -1 for none: the text
 * is parsed without the memo). The key is written into the bytes and
 * checked on reading, with their checksum, every count and bound
 * (rules/yaml_memo.c): a row stored under another key, damaged, cut or of
 * another format is a miss, and the text is parsed. get() appends the
 * bytes remembered under a key to *out and returns 1, or returns 0 (none;
 * an error counts as none); put() remembers them, failures ignored.
 */
/* Names the encoding and what rules_yaml_parse builds: a change to
 * either needs a new name (rules_tree_memo/the_format_name_pins_the_parse
 * fails until it has one). */
#define RULES_TREE_FORMAT "ripple-ytree-v2"
struct buf;
struct rules_tree_memo {
	int (*get)(void *payload, const char *key, struct buf *out);
	void (*put)(void *payload, const char *key, const void *tree,
		    size_t tree_len);
	int (*key_of)(void *payload, const char *text, size_t len,
		      char *key);
	void *payload;
	const char *key;	/* 32 hex digits, or NULL: key_of */
	int write;		/* 0: get only (no tree is encoded to put) */
};

/* The YAML parser's version (libyaml's, "0.2.5"): a parse memo's key
 * includes it, so a parser that may read a text otherwise misses. */
const char *rules_parser_version(void);

/*
 * As rules_load_buffer_files from the tree files->memo holds under its
 * key (which must be given: no key_of), without the text: returns 0 with *out the model (its text NULL,
 * text_len 0), 1 when the memo has no tree under the key that decodes
 * (nothing reported, *out NULL: read the text and call
 * rules_load_buffer_files with the same files), or the error
 * rules_load_buffer_files would return (rules errors in a remembered
 * tree, reported to `errors` alike).
 */
int rules_load_remembered(const char *display,
			  const struct rules_files *files, struct rules **out,
			  struct error_list *errors);

/*
 * The file system reader: payload is the folder (a NUL-terminated path)
 * the paths are relative to; a path that resolves outside it (links
 * followed) or is not a regular file is refused. Files up to 64 MiB.
 */
int rules_files_read_dir(void *payload, const char *path, char **data,
			 size_t *len, struct error *err);

/*
 * As rules_load_buffer, reading matrix files through `files` (NULL: rules
 * naming one are an error). rules_load_file reads them under its root.
 */
int rules_load_buffer_files(const char *display, const char *text,
			    size_t len, const struct rules_files *files,
			    struct rules **out, struct error_list *errors);

/*
 * As rules_load_file, from `len` bytes of text (a blob read from a commit's
 * tree, say). `display` names the text in messages ("ripple.yml@v13.0.1").
 */
int rules_load_buffer(const char *display, const char *text, size_t len,
		      struct rules **out, struct error_list *errors);

/*
 * Nodes an `each:` expands to at most: the product of its axis sizes
 * plus its `include:` entries (`exclude:` is not subtracted), or
 * ULLONG_MAX when that does not fit (rules/check.c).
 */
unsigned long long rules_each_size(const struct rules_each *e);

/*
 * "AXIS N x AXIS N" (+ " + K included") for messages, appended to b
 * (base/buf.h). Returns 0 or ERROR_NOMEM.
 */
struct buf;
int rules_each_describe(const struct rules_each *e, struct buf *b,
			struct error *err);

/* Free a model and everything in it. Accepts NULL. */
void rules_free(struct rules *r);

/*
 * Index the names of every section whose count changed since its index was
 * built (see struct rules_index); the loader calls it after each section.
 * Returns 0 or ERROR_NOMEM (lookups then scan).
 */
int rules_index_names(struct rules *r);

/* Free the name indexes (rules_free does; a model built by hand and
 * indexed calls it before releasing its arena). */
void rules_index_release(struct rules *r);

/*
 * Lookups by exact name; NULL when absent. The first entry of that name in
 * file order. A hash probe once rules_index_names has run, else a scan.
 */
const struct rules_toolkit *rules_find_toolkit(const struct rules *r,
					       const char *name);
const struct rules_root *rules_find_root(const struct rules *r,
					 const char *name);
const struct rules_source *rules_find_source(const struct rules *r,
					     const char *name);
const struct rules_axis *rules_find_axis(const struct rules *r,
					 const char *name);
const struct rules_node *rules_find_artifact(const struct rules *r,
					     const char *name);
const struct rules_node *rules_find_test(const struct rules *r,
					 const char *name);
const struct rules_release *rules_find_release(const struct rules *r,
					       const char *name);
/* The runner entry for `platform` (NULL: no platform axis), falling back
 * to "default"; NULL when neither is declared. */
const struct rules_runner *rules_find_runner(const struct rules *r,
					     const char *platform);

#endif
