#!/bin/sh
# Fetch CUDA 12.4's NVRTC, nvJitLink and cudart as .deb files from Debian
# trixie non-free into gpu/debs/ (about 33 MB), for bench/gpu-two-majors.sh.
# Uses its own apt state in a temporary folder (its own sources list, lists,
# cache and empty dpkg status); the machine's apt sources and state are
# never read or changed. Needs apt-get and the Debian archive keyring; no
# root.
#
#   bench/gpu-fetch-debs.sh [OUTDIR]       (default gpu/debs)
set -eu

out=${1:-gpu/debs}
pkgs="libcudart12 libnvjitlink12 libnvrtc12 libnvrtc-builtins12.4"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || { echo "gpu-fetch-debs: no $keyring (apt-get install debian-archive-keyring)" >&2; exit 1; }

state=$(mktemp -d "${TMPDIR:-/tmp}/ripple-apt.XXXXXX")
trap 'rm -rf "$state"' EXIT INT TERM
mkdir -p "$state/etc/apt/apt.conf.d" "$state/etc/apt/sources.list.d" \
	"$state/etc/apt/preferences.d" "$state/etc/apt/trusted.gpg.d" \
	"$state/lists/partial" "$state/cache/archives/partial"
: > "$state/status"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie non-free" \
	> "$state/etc/apt/sources.list"
cat > "$state/apt.conf" <<EOC
Dir::Etc "$state/etc/apt";
Dir::State::Lists "$state/lists";
Dir::State::status "$state/status";
Dir::Cache "$state/cache";
APT::Architecture "amd64";
APT::Sandbox::User "$(id -un)";
EOC
export APT_CONFIG="$state/apt.conf"
echo "gpu-fetch-debs: reading trixie non-free's package list"
apt-get -q update >/dev/null
mkdir -p "$out"
cd "$out"
echo "gpu-fetch-debs: downloading $pkgs"
# shellcheck disable=SC2086
apt-get -q download $pkgs
# "~" in a file name does not travel everywhere; dpkg -x ignores names
for f in ./*~*.deb; do
	[ -e "$f" ] && mv "$f" "$(printf %s "$f" | tr "~" -)"
done
ls -l ./*.deb
du -ch ./*.deb | tail -1
