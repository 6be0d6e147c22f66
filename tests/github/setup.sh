#!/bin/sh
# tests/github/setup.sh [TARBALL]: the Windows side of the action
# (tools/setup-ripple.sh with RUNNER_OS=Windows, tools/windows/setup.sh)
# as a windows-latest job runs it, here on Linux:
#
#   - neither a bundle nor a version: refused, saying a Windows runner
#     cannot build ripple and what to give (never a source build);
#   - a bundle with a good .sha256: unpacked into the tool cache, its bin/
#     on GITHUB_PATH, found=true, `ripple.exe --version` run;
#   - the same bundle one byte changed, and a .sha256 of other bytes:
#     refused, naming both digests, nothing on GITHUB_PATH;
#   - a bundle without its .sha256, and a Linux bundle: refused;
#   - a release (input version) served by nginx on loopback
#     (RIPPLE_SETUP_URL): installed, also a moving tag's (v0) whose assets
#     are named by the tag; one whose .sha256 does not match: refused; a
#     release without a Windows bundle: refused;
#   - on Linux, the Linux side's release path (a stand-in bundle): a
#     release and a moving tag's installed, a mismatching one not used.
#
# TARBALL: a bundle made by `ninja dist-windows`, whose ripple.exe runs
# with $RIPPLE_SETUP_RUN (ninja check-windows: wine64 in its prefix).
# Without it (ninja check, no Windows build) a stand-in bundle of the same
# layout is made, whose ripple.exe is a script. Needs tar, gzip,
# sha256sum, curl and nginx (the release cases are skipped without
# nginx). Prints one line per case; exit 0 when all pass.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ripple-setup.XXXXXX")
ngx_pid=
cleanup() {
	[ -z "$ngx_pid" ] || kill "$ngx_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
n=0
fail() { echo "setup: FAIL: $*" >&2; exit 1; }
ok() { n=$((n + 1)); echo "setup: ok: $*"; }

[ $# -le 1 ] || fail "one bundle, not $# ($*)"
if [ $# -ge 1 ]; then
	tgz=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	[ -f "$tgz" ] && [ -f "$tgz.sha256" ] ||
		fail "no bundle $1 with its .sha256 (ninja dist-windows)"
	what="the dist-windows bundle $(basename "$tgz")"
else
	name=ripple-0.1.0-windows-x86_64
	mkdir -p "$work/make/$name/bin"
	printf '#!/bin/sh\necho "ripple 0.1.0"\n' > "$work/make/$name/bin/ripple.exe"
	chmod 755 "$work/make/$name/bin/ripple.exe"
	echo stand-in > "$work/make/$name/bin/libgit2.dll"
	(cd "$work/make" && tar -czf "$name.tar.gz" "$name" &&
		sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
	tgz=$work/make/$name.tar.gz
	what="a stand-in bundle (no build-windows)"
fi
base=$(basename "$tgz")
name=${base%.tar.gz}
version=v$(echo "$name" | sed 's/^ripple-\(.*\)-windows-x86_64$/\1/')

# One run of the action's first step on a fresh windows-latest runner.
setup() {	# setup NAME [VAR=VALUE ...]: exit status in $rc, output in $out
	c=$work/$1
	shift
	mkdir -p "$c/tool" "$c/temp"
	: > "$c/path"
	: > "$c/output"
	rc=0
	env RUNNER_OS=Windows RUNNER_ARCH=X64 RUNNER_TOOL_CACHE="$c/tool" \
		RUNNER_TEMP="$c/temp" GITHUB_PATH="$c/path" \
		GITHUB_OUTPUT="$c/output" RIPPLE_SETUP_BUNDLE= \
		RIPPLE_SETUP_VERSION= "$@" \
		sh "$top/tools/setup-ripple.sh" --release > "$c/log" 2>&1 || rc=$?
	out=$(cat "$c/log")
}
refused() {	# refused CASE TEXT: exit 1, TEXT said, nothing installed
	[ "$rc" = 1 ] || fail "$1: exit $rc, not 1: $out"
	case $out in *"$2"*) ;; *) fail "$1: does not say '$2': $out" ;; esac
	[ ! -s "$c/path" ] || fail "$1: put $(cat "$c/path") on PATH"
	! grep -q found=true "$c/output" || fail "$1: found=true"
	[ -z "$(ls "$c/tool/ripple" 2>/dev/null | grep windows-)" ] ||
		fail "$1: left an installed bundle"
}
installed() {	# installed CASE: exit 0, ripple.exe on PATH, found=true
	[ "$rc" = 0 ] || fail "$1: exit $rc: $out"
	p=$(cat "$c/path")
	[ -f "$p/ripple.exe" ] || fail "$1: GITHUB_PATH has '$p', no ripple.exe there"
	want=$(cut -c1-64 "$tgz.sha256")
	case $p in "$c/tool/ripple/windows-$want/$name/bin") ;;
	*) fail "$1: installed at $p, not under the tool cache by digest" ;; esac
	grep -qx found=true "$c/output" || fail "$1: no found=true"
	case $out in *"using $p/ripple.exe (ripple "*) ;;
	*) fail "$1: did not run ripple.exe --version: $out" ;; esac
}

setup none
refused "neither bundle nor version" "a Windows runner cannot build ripple from source"
ok "neither a bundle nor a version: refused (exit 1), no source build"

setup bundle RIPPLE_SETUP_BUNDLE="$tgz"
installed "a good bundle"
ok "$what: SHA-256 checked, unpacked, $(cat "$c/path" | sed "s|$c/||") on GITHUB_PATH, found=true"

mkdir -p "$work/bad"
cp "$tgz" "$tgz.sha256" "$work/bad/"
# One byte changed in the middle (to its value plus one, so never to
# itself): the digest no longer matches.
size=$(wc -c < "$work/bad/$base")
byte=$(dd if="$work/bad/$base" bs=1 skip=$((size / 2)) count=1 2>/dev/null |
	od -An -tu1 | tr -d ' ')
printf "\\$(printf %03o $(((byte + 1) % 256)))" |
	dd of="$work/bad/$base" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
setup badbyte RIPPLE_SETUP_BUNDLE="$work/bad/$base"
refused "a changed byte" "does not match its SHA-256"
ok "one byte changed: refused, naming both digests"

mkdir -p "$work/badsum"
cp "$tgz" "$work/badsum/"
echo "0000000000000000000000000000000000000000000000000000000000000000  $base" \
	> "$work/badsum/$base.sha256"
setup badsum RIPPLE_SETUP_BUNDLE="$work/badsum/$base"
refused "a .sha256 of other bytes" "does not match its SHA-256"
ok "a .sha256 of other bytes: refused"

mkdir -p "$work/nosum"
cp "$tgz" "$work/nosum/"
setup nosum RIPPLE_SETUP_BUNDLE="$work/nosum/$base"
refused "no .sha256" ".sha256' beside the bundle"
ok "no .sha256 beside the bundle: refused"

mkdir -p "$work/linux"
cp "$tgz" "$work/linux/ripple-0.1.0-linux-x86_64.tar.gz"
cp "$tgz.sha256" "$work/linux/ripple-0.1.0-linux-x86_64.tar.gz.sha256"
setup linux RIPPLE_SETUP_BUNDLE="$work/linux/ripple-0.1.0-linux-x86_64.tar.gz"
refused "a Linux bundle" "is not a Windows bundle"
ok "a Linux bundle's name: refused"

setup arm RIPPLE_SETUP_BUNDLE="$tgz" RUNNER_ARCH=ARM64
refused "an ARM64 runner" "built for x86_64"
ok "an ARM64 Windows runner: refused"

# The release path: GitHub's /OWNER/REPO/releases/download/TAG/FILE,
# served by nginx on loopback.
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$nginx_bin" ]; then
	echo "setup: $n cases passed; release cases skipped (no nginx)"
	exit 0
fi
rel=$work/www/o/r/releases/download
mkdir -p "$rel/$version" "$rel/v9.9.9" "$rel/v0.0.1" "$rel/v0" "$work/ngx"
cp "$tgz" "$tgz.sha256" "$rel/$version/"
# A moving tag's assets: named by the tag, the folder inside by the version.
cp "$tgz" "$rel/v0/ripple-0-windows-x86_64.tar.gz"
cp "$tgz.sha256" "$rel/v0/ripple-0-windows-x86_64.tar.gz.sha256"
cp "$tgz" "$rel/v9.9.9/ripple-9.9.9-windows-x86_64.tar.gz"
# Its first hex digit changed (to 1 if it is 0, else to 0): always
# another digest, whatever the bundle's is.
sed "s/$base/ripple-9.9.9-windows-x86_64.tar.gz/" "$tgz.sha256" |
	sed 's/^0/x/; s/^[1-9a-f]/0/; s/^x/1/' \
	> "$rel/v9.9.9/ripple-9.9.9-windows-x86_64.tar.gz.sha256"
echo linux > "$rel/v0.0.1/ripple-0.0.1-linux-x86_64.tar.gz"
tries=0
while :; do
	port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000 ))
	user=""
	[ "$(id -u)" = 0 ] && user="user root;"
	cat > "$work/ngx/nginx.conf" <<EOF
daemon off;
$user
pid $work/ngx/nginx.pid;
error_log $work/ngx/error.log;
events { worker_connections 16; }
http {
  access_log off;
  client_body_temp_path $work/ngx/body;
  server { listen 127.0.0.1:$port; root $work/www; }
}
EOF
	"$nginx_bin" -c "$work/ngx/nginx.conf" -p "$work/ngx" 2>/dev/null &
	ngx_pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		curl -s -o /dev/null "http://127.0.0.1:$port/" && break
		sleep 0.3
	done
	curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	kill "$ngx_pid" 2>/dev/null || true
	ngx_pid=
	tries=$((tries + 1))
	[ $tries -lt 10 ] || fail "nginx did not start ($work/ngx/error.log)"
done
url=http://127.0.0.1:$port
setup release RIPPLE_SETUP_URL="$url" RIPPLE_SETUP_REPO=o/r \
	RIPPLE_SETUP_VERSION="$version"
installed "the $version release"
ok "release $version from $url/o/r/releases/download/: installed"
setup relv0 RIPPLE_SETUP_URL="$url" RIPPLE_SETUP_REPO=o/r \
	RIPPLE_SETUP_VERSION=v0
installed "the moving tag v0"
ok "release v0 (assets ripple-0-windows-x86_64.*, $name/ inside): installed"
setup relbad RIPPLE_SETUP_URL="$url" RIPPLE_SETUP_REPO=o/r \
	RIPPLE_SETUP_VERSION=v9.9.9
refused "a release with a wrong .sha256" "does not match its SHA-256"
ok "release v9.9.9 whose .sha256 does not match: refused"
setup relnone RIPPLE_SETUP_URL="$url" RIPPLE_SETUP_REPO=o/r \
	RIPPLE_SETUP_VERSION=v0.0.1
refused "a release without a Windows bundle" "the v0.0.1 release has none"
ok "release v0.0.1 without a Windows bundle: refused"
# The Linux side's release path, with a stand-in Linux bundle: the digest
# checked (not the name the .sha256 line gives), the folder inside found
# by its version (a moving tag v0 installed; before, it was passed over as
# "does not run here" and built from source).
case $(uname -m) in x86_64) arch=x86_64 ;; aarch64) arch=aarch64 ;; *) arch= ;; esac
if [ "$(uname -s)" = Linux ] && [ -n "$arch" ]; then
	lin=ripple-0.1.0-linux-$arch
	mkdir -p "$work/lin/$lin/bin"
	printf '#!/bin/sh\necho "ripple 0.1.0"\n' > "$work/lin/$lin/bin/ripple"
	chmod 755 "$work/lin/$lin/bin/ripple"
	(cd "$work/lin" && tar -czf "$lin.tar.gz" "$lin" &&
		sha256sum "$lin.tar.gz" > "$lin.tar.gz.sha256")
	mkdir -p "$rel/v0.1.0" "$rel/v0" "$rel/v8.8.8"
	cp "$work/lin/$lin.tar.gz" "$work/lin/$lin.tar.gz.sha256" "$rel/v0.1.0/"
	cp "$work/lin/$lin.tar.gz" "$rel/v0/ripple-0-linux-$arch.tar.gz"
	cp "$work/lin/$lin.tar.gz.sha256" "$rel/v0/ripple-0-linux-$arch.tar.gz.sha256"
	cp "$work/lin/$lin.tar.gz" "$rel/v8.8.8/ripple-8.8.8-linux-$arch.tar.gz"
	sed 's/^0/x/; s/^[1-9a-f]/0/; s/^x/1/' \
		"$work/lin/$lin.tar.gz.sha256" \
		> "$rel/v8.8.8/ripple-8.8.8-linux-$arch.tar.gz.sha256"
	for v in v0.1.0 v0; do
		setup "linux-$v" RUNNER_OS=Linux RIPPLE_SETUP_URL="$url" \
			RIPPLE_SETUP_REPO=o/r RIPPLE_SETUP_VERSION=$v
		[ "$rc" = 0 ] || fail "Linux $v: exit $rc: $out"
		case $(cat "$c/path") in "$c/tool/ripple/$v/"*"$lin/bin") ;;
		*) fail "Linux $v: GITHUB_PATH has '$(cat "$c/path")': $out" ;;
		esac
		grep -qx found=true "$c/output" || fail "Linux $v: no found=true: $out"
		ok "Linux: release $v installed ($lin/ inside)"
	done
	setup linux-bad RUNNER_OS=Linux RIPPLE_SETUP_URL="$url" \
		RIPPLE_SETUP_REPO=o/r RIPPLE_SETUP_VERSION=v8.8.8
	[ "$rc" = 0 ] && grep -qx found=false "$c/output" && [ ! -s "$c/path" ] ||
		fail "Linux v8.8.8: exit $rc, $(cat "$c/output"): $out"
	case $out in *"does not match its SHA-256"*) ;;
	*) fail "Linux v8.8.8: does not say so: $out" ;; esac
	ok "Linux: release v8.8.8 whose .sha256 does not match: not used (found=false: the action builds)"
fi
echo "setup: $n cases passed ($what)"
