#!/usr/bin/env python3
"""Validate ripple's JSON outputs against docs/schemas/*.json.

usage: validate.py SCHEMA_DIR OUTPUT_DIR

OUTPUT_DIR holds what the test suite kept (tests/support: t_keep_json):
out-XXXXXX.json, the output, beside out-XXXXXX.cmd, the command line that
printed it. The command line says which schema applies (see schema_for).
Every schema must itself be valid and must have validated at least one
output: a schema no test exercises is reported. Exit 0 when all is well,
1 otherwise; 2 when python3-jsonschema is missing.
"""
import json
import os
import shlex
import sys
import warnings

try:
    import jsonschema
except ImportError:
    sys.stderr.write("validate: python3-jsonschema is not installed "
                     "(./configure installs it; or apt-get install "
                     "python3-jsonschema)\n")
    sys.exit(2)

# RefResolver is deprecated in jsonschema 4.18+ but is the one API that
# Debian 12's 4.10 and today's releases share.
warnings.simplefilter("ignore", DeprecationWarning)

# Commands whose --json prints one document, and its schema file.
JSON_FLAG = {
    "plan": "plan.json", "why": "why.json", "diff": "diff.json",
    "keys": "keys.json", "runs": "runs.json", "toolkits": "toolkits.json",
    "devices": "devices.json", "cuda-smoke": "cuda-smoke.json",
    "check": "check.json", "version": "version.json",
    "release": "release.json", "jobs": "jobs.json", "gate": "gate.json",
}
GLOBAL_WITH_ARG = {"-C"}
# Printed only where a CUDA toolkit is installed: not exercised elsewhere.
NEEDS_TOOLKIT = {"cuda-smoke.json"}
SEPARATORS = {"|", "||", "&&", ";", ">", ">>", "2>", "<", "&"}


def ripple_args(cmdline):
    """The words after the ripple binary in a shell command line, or None
    when the line runs no ripple or does more than one plain command."""
    try:
        words = shlex.split(cmdline)
    except ValueError:
        return None
    for i, w in enumerate(words):
        if os.path.basename(w) == "ripple":
            rest = words[i + 1:]
            if any(x in SEPARATORS or x.startswith(">") or x.startswith("2>")
                   for x in rest):
                return None
            return rest
    return None


def option_value(args, name):
    """The value of --NAME VALUE or --NAME=VALUE (short -o too), or None."""
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def schema_for(args):
    """The schema file for ripple ARGS's stdout, or None when not JSON."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GLOBAL_WITH_ARG else 1
    if i >= len(args):
        return None
    cmd, rest = args[i], args[i + 1:]
    if cmd == "graph":
        return "graph.json" if option_value(rest, "--format") == "json" \
            else None
    if cmd == "run":
        if "--json" not in rest:
            return None
        return "plan.json" if "--dry-run" in rest else "run.json"
    if cmd == "cache":
        out = option_value(rest, "-o")
        if rest[:1] == ["export"] and out in (None, "-"):
            return "cache-export.json"
        return None
    if cmd == "release" and "--json" not in rest and \
            option_value(rest, "--manifest") == "-":
        return "release-manifest.json"
    if cmd in JSON_FLAG and "--json" in rest:
        return JSON_FLAG[cmd]
    return None


def load_schemas(schema_dir):
    store, problems = {}, []
    for name in sorted(os.listdir(schema_dir)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(schema_dir, name)) as f:
            try:
                schema = json.load(f)
            except ValueError as e:
                problems.append("%s: not JSON: %s" % (name, e))
                continue
        if schema.get("$id") != name:
            problems.append("%s: $id is %r, not the file name"
                            % (name, schema.get("$id")))
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as e:
            problems.append("%s: not a valid schema: %s" % (name, e.message))
            continue
        store[name] = schema
    return store, problems


def validator(store, name):
    resolver = jsonschema.RefResolver(base_uri=name, referrer=store[name],
                                      store=store)
    return jsonschema.Draft202012Validator(store[name], resolver=resolver)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: validate.py SCHEMA_DIR OUTPUT_DIR\n")
        return 2
    schema_dir, out_dir = sys.argv[1], sys.argv[2]
    store, problems = load_schemas(schema_dir)
    validators = {name: validator(store, name) for name in store}
    seen = {name: 0 for name in store}
    names = sorted(n for n in os.listdir(out_dir) if n.endswith(".json"))
    for name in names:
        stem = os.path.join(out_dir, name[:-len(".json")])
        try:
            with open(stem + ".cmd") as f:
                cmdline = f.read()
        except OSError:
            continue
        args = ripple_args(cmdline)
        schema = schema_for(args) if args is not None else None
        if schema is None:
            continue
        where = "%s (%s)" % (cmdline.strip(), stem + ".json")
        if schema not in validators:
            problems.append("%s: no schema %s" % (where, schema))
            continue
        with open(stem + ".json") as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                problems.append("%s: not JSON: %s" % (where, e))
                continue
        seen[schema] += 1
        errors = sorted(validators[schema].iter_errors(doc),
                        key=lambda e: list(e.absolute_path))
        for e in errors[:5]:
            path = "/".join(str(p) for p in e.absolute_path) or "(top)"
            problems.append("%s: %s at %s: %s"
                            % (where, schema, path, e.message[:300]))
    notes = []
    for name, n in sorted(seen.items()):
        if n == 0 and name in NEEDS_TOOLKIT:
            notes.append("%s: not exercised (no CUDA toolkit here)" % name)
        elif n == 0:
            problems.append("%s: no test printed a document of this "
                            "schema" % name)
    total = sum(seen.values())
    for p in problems:
        sys.stderr.write("validate: %s\n" % p)
    for p in notes:
        print("validate: note: %s" % p)
    print("validate: %d JSON outputs checked against %d schemas: %s"
          % (total, len(store), "ok" if not problems
             else "%d problems" % len(problems)))
    for name, n in sorted(seen.items()):
        print("  %-24s %d" % (name, n))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
