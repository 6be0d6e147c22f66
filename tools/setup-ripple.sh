#!/bin/sh
# tools/setup-ripple.sh [--release | --source-hash]: what action.yml runs.
#
# Puts a ripple on PATH (appending its folder to $GITHUB_PATH), without
# root. On Linux it tries, in order:
#   1. the release bundle RIPPLE_SETUP_VERSION (a tag) of the repository
#      RIPPLE_SETUP_REPO (owner/name): ripple-VERSION-linux-ARCH.tar.gz from
#      its GitHub release, checked against the .sha256 beside it, used when
#      `ripple --version` runs here (its glibc is not newer than this one's);
#   2. a bundle under build/dist of this source (restored by actions/cache
#      under the key --source-hash prints) that runs here;
#   3. building this source: ./configure --no-install (never sudo or apt:
#      the libraries it lists must be here), ninja build/ripple, ninja dist.
# Each step says why it was passed over. --release tries step 1 only and
# writes found=true or found=false to $GITHUB_OUTPUT (the action restores
# and builds only when it is false); without it, steps 2 and 3.
# --source-hash prints a hash of the sources the build depends on (the
# cache key's tail) and exits. RIPPLE_SETUP_URL replaces
# https://github.com in release URLs (tests/github/setup.sh: nginx).
#
# On Windows (RUNNER_OS=Windows, or Git for Windows' bash: uname MINGW*,
# MSYS*) ripple cannot be built on the runner (its libraries are
# cross-built with mingw-w64 on Debian: docs/windows.md), so it installs
# a Windows bundle (`ninja dist-windows`:
# ripple-VERSION-windows-x86_64.tar.gz) and nothing else, whatever the
# mode:
#   1. RIPPLE_SETUP_BUNDLE, the path of such a tarball with its .sha256
#      beside it (the action's input `bundle`: one cross-built by a Linux
#      job and passed as a workflow artifact), else
#   2. the release RIPPLE_SETUP_VERSION's Windows bundle and .sha256;
# checked against the SHA-256, unpacked into the runner's tool cache, and
# its bin/ (ripple.exe beside its DLLs) put on PATH, after `ripple.exe
# --version` ran (RIPPLE_SETUP_RUN, if set, is a command to run it with:
# wine64 in tests/github/setup.sh). A bundle that does not match its
# SHA-256, is missing, or neither given: exit 1 with what to give; never a
# fallback. Shell commands of the rules then run with Git for Windows'
# sh.exe, which is on the PATH the job's steps have.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --source-hash ]; then
	cd "$src"
	find base rules graph cache engine tools configure ./*.ninja -type f |
		LC_ALL=C sort | xargs cat | sha256sum | cut -c1-20
	exit 0
fi
say() { echo "setup-ripple: $*" >&2; }
mode=${1:-build}
os=${RUNNER_OS:-}
case $os-$(uname -s) in
Windows-*|-MINGW*|-MSYS*|-CYGWIN*)
	. "$src/tools/windows/setup.sh"
	exit 1 ;;
esac
case $(uname -s)-$(uname -m) in
Linux-x86_64) arch=x86_64 ;;
Linux-aarch64) arch=aarch64 ;;
*)
	say "ripple runs on Linux (x86_64, aarch64) and Windows (x86_64)," \
		"not $(uname -s) $(uname -m) (docs/github.md)"
	exit 1 ;;
esac
found() {	# found true|false: for --release, on $GITHUB_OUTPUT
	if [ "$mode" = --release ] && [ -n "${GITHUB_OUTPUT:-}" ]; then
		echo "found=$1" >> "$GITHUB_OUTPUT"
	fi
}
use() {	# use DIR: DIR/bin/ripple runs here; put it on PATH
	"$1/bin/ripple" --version > /dev/null 2>&1 || return 1
	if [ -n "${GITHUB_PATH:-}" ]; then
		echo "$1/bin" >> "$GITHUB_PATH"
	fi
	say "using $1/bin/ripple ($("$1/bin/ripple" --version))"
	found true
	exit 0
}

tools=${RUNNER_TOOL_CACHE:-${TMPDIR:-/tmp}}/ripple
version=${RIPPLE_SETUP_VERSION:-}
if [ -n "$version" ]; then
	repo=${RIPPLE_SETUP_REPO:-ripple-build/ripple}
	name=ripple-${version#v}-linux-$arch
	url=${RIPPLE_SETUP_URL:-https://github.com}/$repo/releases/download/$version/$name.tar.gz
	dl=$tools/$version
	mkdir -p "$dl"
	if curl -fsSL -o "$dl/$name.tar.gz" "$url" &&
	    curl -fsSL -o "$dl/$name.tar.gz.sha256" "$url.sha256"; then
		want=$(sed -n '1s/^\([0-9a-fA-F]\{64\}\)[ *].*/\1/p' \
			"$dl/$name.tar.gz.sha256" | tr 'A-F' 'a-f')
		got=$(sha256sum < "$dl/$name.tar.gz" | cut -c1-64)
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			# Unpacked afresh; the folder inside is named by
			# ripple's version, which a moving tag's (v0) asset
			# name is not.
			rm -rf "$dl/unpacked"
			mkdir -p "$dl/unpacked"
			tar -xzf "$dl/$name.tar.gz" -C "$dl/unpacked"
			for d in "$dl/unpacked"/ripple-*-linux-"$arch"; do
				[ -d "$d" ] && use "$d" || true
			done
			say "the $version bundle does not run here" \
				"(glibc older than its build's?); building"
		else
			say "the $version bundle does not match its SHA-256" \
				"($name.tar.gz.sha256 says ${want:-nothing}, the" \
				"file is $got); not used"
		fi
	else
		say "no bundle $url; building from source"
	fi
fi
if [ "$mode" = --release ]; then
	found false
	exit 0
fi

for d in "$src"/build/dist/ripple-*-linux-"$arch"; do
	[ -d "$d" ] && use "$d" || true
done

cd "$src"
if ! ./configure --no-install >&2; then
	say "./configure found libraries missing (above) and this action" \
		"installs nothing (no sudo): use a runner image with them," \
		"or a ripple release with a bundle (input version)"
	exit 1
fi
command -v ninja > /dev/null 2>&1 || {
	say "needs ninja (ninja-build) to build ripple"
	exit 1
}
ninja build/ripple dist >&2
for d in "$src"/build/dist/ripple-*-linux-"$arch"; do
	[ -d "$d" ] && use "$d" || true
done
say "the bundle built here does not run here"
exit 1
