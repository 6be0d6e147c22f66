#!/bin/sh
# tests/fresh/run.sh [options] SUITE: the README's two commands on a fresh
# Debian SUITE (bookworm, trixie, ...), as a new user runs them.
#
# Makes a minimal root with `debootstrap --variant=minbase SUITE`, clones
# this checkout's HEAD into it (/root/ripple; a clone, so only committed
# work travels), and runs in it, as root, with a clean environment:
#   1. ./configure && ninja && examples/cuda-bindings/demo.sh
#   2. ./configure && ninja check
#   3. (--ci) bash .ci/run                 what CI runs on a clean clone
#   4. (--runtime) a second fresh root with only the README's runtime
#      packages (those of step 1's link, static or shared) runs `ripple
#      --help` and the demo's `ripple plan`
# then prints, per step: exit status, wall time, packages installed and
# the download size (from apt), test counts (ninja check's summary line).
# Exit 0 when every step exited 0.
#
# Options:
#   --roots DIR    where roots go (default /var/tmp/ripple-fresh); keep it
#                  outside any git tree. DIR/base-SUITE, the debootstrap
#                  result, is kept and copied for each run (--rebase makes
#                  it again); DIR/SUITE is the root of this run
#   --mirror URI   Debian mirror (default: the first URIs:/deb line of
#                  /etc/apt/sources.list.d/*.sources or sources.list)
#   --ci, --runtime  the optional steps above
#   --keep         leave DIR/SUITE in place (default: it is kept anyway;
#                  the next run replaces it)
#
# Needs root (chroot, mount) and debootstrap (apt-get install debootstrap).
# The root gets /usr/sbin/policy-rc.d answering 101, so packages (nginx)
# start no services inside it, as in container images, and the host's
# extra certificate authorities (see fresh() below); /proc and /dev are
# mounted for the commands and unmounted after.
set -eu

roots=/var/tmp/ripple-fresh
mirror=
ci=no
runtime=no
rebase=no
while [ $# -gt 0 ]; do
	case $1 in
	--roots) shift; roots=$1 ;;
	--mirror) shift; mirror=$1 ;;
	--ci) ci=yes ;;
	--runtime) runtime=yes ;;
	--rebase) rebase=yes ;;
	--keep) ;;
	-h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fresh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
suite=${1:?usage: tests/fresh/run.sh [options] SUITE}
top=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "fresh: needs root (chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null 2>&1 || {
	echo "fresh: no debootstrap (apt-get install debootstrap)" >&2; exit 2; }
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
	    awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
fi
if [ -z "$mirror" ]; then
	mirror=$(awk '/^deb / && $0 !~ /security/ { print $2; exit }' \
	    /etc/apt/sources.list 2>/dev/null || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$roots"
base=$roots/base-$suite
root=$roots/$suite
log=$roots/$suite.log
: > "$log"

say() { echo "fresh: $*"; }
now() { date +%s; }
npkgs() {	# npkgs ROOT: installed packages
	chroot "$1" dpkg-query -W -f '${Status}\n' | grep -c ' installed$'
}

if [ "$rebase" = yes ] || [ ! -x "$base/usr/bin/apt-get" ]; then
	[ -d "$base" ] && rmroot "$base"
	say "debootstrap --variant=minbase $suite $base $mirror"
	t=$(now)
	nice debootstrap --variant=minbase "$suite" "$base" "$mirror" \
	    >> "$log" 2>&1 || { tail -n 20 "$log"; exit 1; }
	say "debootstrap took $(($(now) - t)) s"
fi

mounted=""
umount_all() {
	for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
	mounted=""
}
trap umount_all EXIT
trap 'umount_all; exit 130' INT TERM

# rmroot ROOT: unmount what is mounted under ROOT (a run killed before its
# trap leaves /proc and /dev there), then remove it, never crossing into a
# mount (--one-file-system: the host's /dev stays whole)
rmroot() {
	awk -v r="$1/" 'index($2, r) == 1 { print $2 }' /proc/mounts |
	    sort -r | while read -r m; do umount -l "$m" || true; done
	if awk -v r="$1/" 'index($2, r) == 1 { f = 1 } END { exit !f }' \
	    /proc/mounts; then
		echo "fresh: $1 still has mounts; not removing it" >&2
		exit 1
	fi
	rm -rf --one-file-system "$1"
}

# fresh ROOT: a copy of the base root, ready for chroot. The host's own
# certificate authorities (/usr/local/share/ca-certificates) go in too, as
# on any machine of this network: a TLS proxy's CA, say, without which npm
# cannot reach its registry; ca-certificates adds them when it is installed
fresh() {
	umount_all
	rmroot "$1"
	cp -a "$base" "$1"
	if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
		mkdir -p "$1/usr/local/share/ca-certificates"
		cp /usr/local/share/ca-certificates/*.crt \
		    "$1/usr/local/share/ca-certificates/"
	fi
	printf '#!/bin/sh\nexit 101\n' > "$1/usr/sbin/policy-rc.d"
	chmod 755 "$1/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
	mount -t proc proc "$1/proc" && mounted="$1/proc $mounted"
	mount --rbind /dev "$1/dev" && mounted="$1/dev $mounted"
}

# inroot ROOT CMD: run CMD with sh -c as root in /root/ripple of ROOT, a
# clean environment (what a login shell on a new machine has), output to
# stdout as it comes and to the log; sets $rc and $secs
inroot() {
	t=$(now)
	{ r=0
	  chroot "$1" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
	    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    nice sh -c "cd /root/ripple && $2" 2>&1 || r=$?
	  echo "$r" > "$roots/$suite.rc"; } | tee "$roots/$suite.last"
	rc=$(cat "$roots/$suite.rc")
	rm -f "$roots/$suite.rc"
	secs=$(($(now) - t))
	cat "$roots/$suite.last" >> "$log"
}

# steps N ROOT CMD...: the README's "CMD1 && CMD2 && ...", one inroot per
# command (for a time each); sets $rc, $secs (the total) and $times
steps() {
	n=$1 r=$2
	shift 2
	total=0 times="" all=$roots/$suite.step$n
	: > "$all"
	for c in "$@"; do
		say "  \$ $c"
		inroot "$r" "$c"
		cat "$roots/$suite.last" >> "$all"
		total=$((total + secs))
		times="$times${times:+, }$c $secs s"
		[ "$rc" = 0 ] || break
	done
	secs=$total
}

# apt_figures FILE: the sums of configure's figure lines in FILE,
# "configure: WHAT: N packages installed (SIZE downloaded) in T s"
apt_figures() {
	sed -n 's/^configure: .*: \([0-9]*\) packages installed (\(.*\) downloaded) in \([0-9]*\) s$/\1 \2 \3/p' "$1" |
	awk '{ n += $1; t += $4; s = $2; u = $3; sub(/,/, "", s)
		if (u == "kB") s /= 1000; if (u == "B") s /= 1e6
		if (u == "GB") s *= 1000; if ($2 != "nothing") mb += s }
	    END { printf "%d packages, %.0f MB downloaded, %d s\n", n, mb, t }'
}

fresh "$root"
say "root $root ($suite, $(npkgs "$root") packages)"
# A fresh clone of this checkout's HEAD; git inside the root comes from
# ./configure, as on a user's machine.
git clone -q --no-hardlinks "$top" "$root/root/ripple"
commit=$(git -C "$root/root/ripple" rev-parse --short HEAD)
say "cloned $commit into /root/ripple"

before=$(npkgs "$root")
say "1. ./configure && ninja && examples/cuda-bindings/demo.sh"
steps 1 "$root" ./configure ninja examples/cuda-bindings/demo.sh
rc1=$rc secs1=$secs times1=$times
after=$(npkgs "$root")
say "step 1 exit $rc1 in $secs1 s ($times1)"

say "2. ./configure && ninja check"
steps 2 "$root" ./configure "ninja check"
rc2=$rc secs2=$secs times2=$times
say "step 2 exit $rc2 in $secs2 s ($times2)"

rc3=skipped secs3=0
if [ "$ci" = yes ]; then
	say "3. bash .ci/run"
	steps 3 "$root" "bash .ci/run"
	rc3=$rc secs3=$secs
	say "step 3 exit $rc3 in $secs3 s"
fi

rc4=skipped
if [ "$runtime" = yes ]; then
	rt=$roots/$suite-runtime
	# the list of the link step 1 made (configure says "linked
	# statically" for the default one)
	list=runtime_debs_ link=shared
	if grep -q '^configure: linked statically' "$roots/$suite.step1"; then
		list=runtime_static_debs_ link=static
	fi
	debs=$(sed -n 's/^'"$list$suite"'="\(.*\)"$/\1/p' "$top/configure")
	say "4. runtime root $rt ($link build): apt-get install $debs"
	mkdir -p "$roots/demo.$$"
	# the demo repository step 1 made, and the binary
	demo=$(sed -n 's/^Done. The demo repository is in //p' \
	    "$roots/$suite.step1")
	fresh "$rt"
	cp -a "$root$demo" "$rt/root/demo"
	mkdir -p "$rt/root/ripple/build"
	cp "$root/root/ripple/build/ripple" "$rt/root/ripple/build/ripple"
	rmdir "$roots/demo.$$"
	inroot "$rt" "export DEBIAN_FRONTEND=noninteractive;
	    apt-get update -q >/dev/null &&
	    apt-get install -y -q --no-install-recommends $debs |
	    grep 'newly installed' &&
	    build/ripple --help | head -n 3 &&
	    cd /root/demo && /root/ripple/build/ripple plan --base main |
	    tail -n 3"
	rc4=$rc
	say "step 4 exit $rc4 ($(npkgs "$rt") packages in the root)"
	# the packages of the libraries the binary links to (its NEEDED
	# entries, found by ldd, owned per dpkg -S) in step 1's root: the
	# runtime list must hold them all
	cat > "$root/tmp/fresh-runtime-pkgs.sh" <<'EOS'
b=/root/ripple/build/ripple
readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
while read -r so; do
	ldd "$b" | awk -v so="$so" '$1 == so { print $3 }'
done | while read -r l; do
	r=$(readlink -f "$l")
	dpkg -S "$r" 2>/dev/null || dpkg -S "$l" 2>/dev/null ||
	    dpkg -S "/usr$l" 2>/dev/null || echo "?$l: no package"
done | cut -d: -f1 | sort -u
EOS
	need=$(chroot "$root" sh /tmp/fresh-runtime-pkgs.sh |
	    grep -v '^libc6$' | tr '\n' ' ')
	say "the binary's libraries come from: $need"
	for p in $need; do
		case " $debs " in *" $p "*) ;; *)
			say "runtime list lacks $p (the binary loads it)"
			rc4=1 ;;
		esac
	done
fi
umount_all

say "== figures for $suite ($commit," \
    "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
say "base root: $before packages; after step 1: $after" \
    "($((after - before)) installed)"
say "configure's apt: $(apt_figures "$roots/$suite.step1")"
grep -h 'packages installed (\|^configure: node \|^configure: fuzzing\|^configure: no \|npm ci put' \
    "$roots/$suite.step1" | sed 's/^/fresh:   /' || true
say "step 1: exit $rc1, $secs1 s ($times1)"
say "step 2: exit $rc2, $secs2 s ($times2)"
awk '/^check: skipped/ { on = 1 } on { print }
    /^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ { on = 0 }' \
    "$roots/$suite.step2" | cut -c1-150 | sed 's/^/fresh:   /'
grep -h 'Synthesis' "$roots/$suite.step2" | sed 's/^/fresh:   /' || true
say "step 3 (bash .ci/run): exit $rc3, $secs3 s"
grep -hE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$|Synthesis' \
    "$roots/$suite.step3" 2>/dev/null | sed 's/^/fresh:   /' || true
say "step 4 (runtime packages): exit $rc4"
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] &&
    { [ "$rc3" = 0 ] || [ "$rc3" = skipped ]; } &&
    { [ "$rc4" = 0 ] || [ "$rc4" = skipped ]; }
