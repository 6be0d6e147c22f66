#!/bin/sh
# tests/dist/run.sh [SUITE...]   (default: bookworm trixie)
#
# Does the `ninja dist` bundle run where nothing of ripple's is installed?
# For each Debian SUITE: a minbase root (debootstrap --variant=minbase,
# made once and kept untouched as $RIPPLE_ROOTS/pristine-SUITE, default
# /work/roots), copied to a scratch root; no -dev package in it (checked);
# the bundle's tarball unpacked under /opt; then, as a non-root user
# (nobody, through chroot --userspec), `ripple --help` and the demo's plan
# (`ripple plan ci` in a repository made by make-demo-repo, in the root).
# Prints one line per suite; exit 0 when every suite passes.
#
# Needs root (chroot, debootstrap), debootstrap (apt-get install
# debootstrap) and a Debian mirror: the first URIs of
# /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list, or
# $RIPPLE_DEBIAN_MIRROR. Run `ninja dist` first (the newest tarball in
# build/dist is used, or $RIPPLE_DIST).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
roots=${RIPPLE_ROOTS:-/work/roots}
[ $# -gt 0 ] || set -- bookworm trixie
[ "$(id -u)" = 0 ] || { echo "dist-test: needs root (chroot)" >&2; exit 2; }
tarball=${RIPPLE_DIST:-$(ls -t "$top"/build/dist/ripple-*-linux-*.tar.gz \
	2>/dev/null | head -1)}
[ -n "$tarball" ] && [ -f "$tarball" ] ||
	{ echo "dist-test: no bundle: run ninja dist" >&2; exit 2; }
mirror=${RIPPLE_DEBIAN_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources \
	2>/dev/null | sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' | head -1)}
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(http[^ ]*\) .*/\1/p' \
	/etc/apt/sources.list 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ripple-dist-test.XXXXXX")
cleanup() {
	for m in "$scratch"/*/root/proc; do
		mountpoint -q "$m" 2>/dev/null && umount "$m"
	done
	rm -rf "$scratch"
}
trap cleanup EXIT

pristine() {	# pristine SUITE: the untouched root, made when missing
	p=$roots/pristine-$1
	if [ ! -x "$p/bin/sh" ]; then
		command -v debootstrap >/dev/null 2>&1 || {
			echo "dist-test: needs debootstrap" >&2
			exit 2
		}
		mkdir -p "$roots"
		tmp=$roots/.tmp-pristine-$1-$$
		echo "dist-test: debootstrap --variant=minbase $1 ($mirror)" >&2
		debootstrap --variant=minbase "$1" "$tmp" "$mirror" \
			> "$roots/pristine-$1.log" 2>&1 || {
			tail -5 "$roots/pristine-$1.log" >&2
			rm -rf "$tmp"
			exit 1
		}
		mv "$tmp" "$p"
	fi
	echo "$p"
}

# The demo repository, made here once (git and python3 are here, not in
# the roots), copied into each root.
demo=$scratch/demo
"$top/examples/cuda-bindings/make-demo-repo" "$demo" > /dev/null

fail=0
for suite; do
	p=$(pristine "$suite")
	r=$scratch/$suite/root
	mkdir -p "$scratch/$suite"
	cp -a "$p" "$r"
	# A real system has /proc: the loader reads /proc/self/exe for
	# $ORIGIN, and ripple for its own path.
	mount -t proc proc "$r/proc"
	dev=$(chroot "$r" dpkg-query -W -f '${Package}\n' | grep -c -- '-dev$' ||
		true)
	npk=$(chroot "$r" dpkg-query -W -f '${Package}\n' | wc -l)
	glibc=$(chroot "$r" dpkg-query -W -f '${Version}' libc6)
	mkdir -p "$r/opt" "$r/home/ci"
	tar -xzf "$tarball" -C "$r/opt"
	b=$(basename "$tarball" .tar.gz)
	cp -a "$demo" "$r/home/ci/demo"
	chown -R 65534:65534 "$r/home/ci"
	run() {	# run CMD...: in the root, as nobody, in the demo
		chroot --userspec=65534:65534 "$r" /usr/bin/env -i \
			HOME=/home/ci PATH=/usr/bin:/bin LANG=C.UTF-8 \
			/bin/sh -c "cd /home/ci/demo && $*"
	}
	help=fail plan=fail line=""
	if run "/opt/$b/bin/ripple --help" > "$scratch/$suite/help.txt" 2>&1 &&
	    grep -q '^commands:' "$scratch/$suite/help.txt"; then
		help=ok
	else
		sed 's/^/  /' "$scratch/$suite/help.txt" >&2
	fi
	if run "/opt/$b/bin/ripple plan ci" > "$scratch/$suite/plan.txt" \
	    2>&1; then
		plan=ok
		line=$(grep -E '^[0-9]+ build, ' "$scratch/$suite/plan.txt" |
			tail -1)
	else
		sed 's/^/  /' "$scratch/$suite/plan.txt" | tail -20 >&2
	fi
	[ "$dev" = 0 ] || { echo "dist-test: $suite has $dev -dev packages" >&2; help=fail; }
	echo "$suite: $npk packages, glibc $glibc, $dev -dev; as nobody:" \
		"ripple --help $help; ripple plan ci $plan${line:+ ($line)}"
	[ $help = ok ] && [ $plan = ok ] || fail=1
	umount "$r/proc"
	rm -rf "$r"
done
exit $fail
