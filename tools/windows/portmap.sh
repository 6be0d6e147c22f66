#!/bin/sh
# The Windows port's to-do list: compile every library and CLI source of
# ripple.ninja for Windows (syntax only, the flags of
# build-windows/config.ninja) and print, for each file that does not
# compile yet, its first error; then the counts.
#
#   tools/windows/portmap.sh        (after tools/windows/configure.sh)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
conf=build-windows/config.ninja
[ -f "$conf" ] || { echo "portmap.sh: run tools/windows/configure.sh" >&2; exit 1; }
val() { sed -n "s/^$1 = //p" "$conf"; }
cc=$(val cc)
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I. -Ibuild-windows/gen $(val extra_cflags) $(val pkg_cflags) -Wall -Wextra -Werror"
ok=0 bad=0
for f in $(sed -n 's/^build \$builddir\/[^ ]*\.o: cc \([a-z][^ ]*\.c\)$/\1/p' ripple.ninja base/win.ninja |
	grep -v '^tests/\|^bench/\|_posix\.c$' | sort -u); do
	if out=$($cc $flags -fsyntax-only "$f" 2>&1); then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		printf '%s: %s\n' "$f" "$(printf '%s\n' "$out" |
			grep -m1 'error' | sed 's/^[^ ]* //')"
	fi
done
echo "portmap: $ok files compile for Windows, $bad do not yet"
