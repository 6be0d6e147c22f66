#!/bin/sh
# tests/fresh/noroot.sh [--roots DIR] SUITE: README's "Without root" recipe
# on a fresh Debian SUITE. In a copy of DIR/base-SUITE (made by
# tests/fresh/run.sh), root installs only the tools the recipe assumes (a
# C compiler, git, ninja, pkg-config); then a user without root runs the
# recipe exactly as README.md has it (the code block from
# `d=$HOME/.local/ripple-deps` to `ninja`) in a clone of this checkout,
# and `build/ripple --help`. Prints the packages fetched, the size
# unpacked and the time. Needs root (chroot, mount).
set -eu
roots=/var/tmp/ripple-fresh
[ "${1:-}" = --roots ] && { roots=$2; shift 2; }
suite=${1:?usage: tests/fresh/noroot.sh [--roots DIR] SUITE}
top=$(cd "$(dirname "$0")/../.." && pwd)
base=$roots/base-$suite
root=$roots/$suite-noroot
[ -x "$base/usr/bin/apt-get" ] || {
	echo "noroot: no $base (run tests/fresh/run.sh $suite first)" >&2
	exit 2; }
umount_all() {
	awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts |
	    sort -r | while read -r m; do umount -l "$m" || true; done
}
trap umount_all EXIT
trap 'umount_all; exit 130' INT TERM
umount_all
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
awk '/^    d=\$HOME\/.local\/ripple-deps/,/^    ninja$/' "$top/README.md" |
    sed 's/^    //' > "$root/tmp/recipe.sh"
[ -s "$root/tmp/recipe.sh" ] || { echo "noroot: no recipe in README.md" >&2; exit 1; }
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive sh -c '
	apt-get update -q >/dev/null &&
	apt-get install -y -q --no-install-recommends gcc libc6-dev git \
	    ninja-build pkg-config >/dev/null &&
	useradd -m u'
git clone -q --no-hardlinks "$top" "$root/home/u/ripple"
chroot "$root" chown -R u:u /home/u/ripple
t=$(date +%s)
rc=0
chroot --userspec=u:u "$root" env -i HOME=/home/u LANG=C.UTF-8 \
    PATH=/usr/local/bin:/usr/bin:/bin sh -c \
    'cd /home/u/ripple && nice sh -e /tmp/recipe.sh && build/ripple --help | head -n 2' ||
    rc=$?
secs=$(($(date +%s) - t))
n=$(ls "$root/home/u/.local/ripple-deps/debs" | grep -c '\.deb$' || true)
mb=$(du -sm --exclude=debs "$root/home/u/.local/ripple-deps" | cut -f1)
echo "noroot: $suite: exit $rc; $n packages fetched, $mb MB unpacked;" \
    "$secs s with the build"
exit "$rc"
