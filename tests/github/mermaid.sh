#!/bin/sh
# tests/github/mermaid.sh [--install]: the step summary's Mermaid graphs
# parse with the real Mermaid parser: a plan of 601 nodes (folded into
# rules) and one of 14 nodes (one box per node, labels with spaces and
# dots). Needs node and the npm packages mermaid and jsdom, pinned in
# tests/github/mermaid/package-lock.json, in build/npm/mermaid
# (./configure puts them there; --install does too). Without them it says
# so and exits 0 (77 under `ninja check`: a skip), or 1 with
# RIPPLE_REQUIRE_MERMAID=1 (CI).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
ripple=${RIPPLE_BIN:-$top/build/ripple}
case $ripple in /*) ;; *) ripple=$(pwd)/$ripple ;; esac
npmdir=$top/build/npm/mermaid
if [ "${1:-}" = --install ]; then
	sh "$top/tests/github/npm-ci.sh" mermaid
fi
skip() {
	echo "mermaid: not available: $* (./configure installs it;" \
	     "tests/github/mermaid.sh --install)"
	[ "${RIPPLE_REQUIRE_MERMAID:-0}" = 1 ] && exit 1
	[ "${RIPPLE_CHECK_STEP:-0}" = 1 ] && exit 77
	exit 0
}
command -v node >/dev/null 2>&1 || skip "no node"
[ -d "$npmdir/node_modules/mermaid" ] && [ -d "$npmdir/node_modules/jsdom" ] ||
	skip "no build/npm/mermaid"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
mk() {	# mk DIR AXIS-VALUES NEEDS: a repository of one matrix rule + a test
	mkdir -p "$1" && cd "$1" && git init -q -b main .
	{
		echo "version: 1"
		echo "axes:"
		echo "  x: [$2]"
		echo "  py: ['3.12', '3.14t']"
		echo "artifacts:"
		echo "  many: {each: {x: axes.x, py: axes.py}, command: [b]}"
		echo "tests:"
		echo "  all: {needs: [$3], command: [t]}"
	} > ripple.yml
	git add -A && git commit -qm init
	"$ripple" plan --github-step-summary "$1/summary.md" > /dev/null
	cd - > /dev/null
}
mk "$tmp/big" "$(seq -s, 0 299)" many
mk "$tmp/small" "a, b.c, d-e_f" many
grep -q "folded into one box per rule" "$tmp/big/summary.md"
grep -q 'many<br/>' "$tmp/small/summary.md"
# ES modules resolve packages from their own folder up: run it from there.
cp "$top/tests/github/mermaid-parse.mjs" "$npmdir/mermaid-parse.mjs"
node "$npmdir/mermaid-parse.mjs" "$tmp/big/summary.md" \
	"$tmp/small/summary.md"
