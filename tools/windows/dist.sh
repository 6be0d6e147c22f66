#!/bin/sh
# tools/windows/dist.sh EXE DLLS.TXT OUTDIR: the Windows bundle `ninja
# dist-windows` makes, as tools/dist.sh makes Linux's:
#
#   OUTDIR/ripple-VERSION-windows-x86_64/bin/ripple.exe   the program;
#   OUTDIR/ripple-VERSION-windows-x86_64/bin/*.dll        every DLL it
#          needs that Windows does not have (DLLS.TXT, which
#          tools/windows/dlls.sh wrote from the import tables, plus the
#          two ripple loads itself); beside the program, where Windows
#          looks first (base/dl_win.c loads from there and System32 only);
#   OUTDIR/ripple-VERSION-windows-x86_64/MANIFEST  what came from where:
#          each DLL's Debian source package and version (the pins of
#          tools/windows/deps.sh), the build system, what it needs;
#   OUTDIR/ripple-VERSION-windows-x86_64.tar.gz and its .sha256 (the
#          line `sha256sum -c` reads). A tarball rather than a zip: Git
#          for Windows' bash (what runs a windows-latest job's steps and
#          tools/setup-ripple.sh) has tar and gzip, and Windows 10's own
#          tar.exe unpacks it too.
#
# VERSION is ripple's (engine/cli/main.c's RIPPLE_VERSION, what
# `ripple.exe --version` prints; read from the source so that making the
# bundle needs no Wine). Reproducible: fixed order, owner and times.
# Removes any bundle OUTDIR held first. Needs tar, gzip and sha256sum.
set -eu

exe=${1:?usage: tools/windows/dist.sh EXE DLLS.TXT OUTDIR}
list=${2:?usage: tools/windows/dist.sh EXE DLLS.TXT OUTDIR}
out=${3:?usage: tools/windows/dist.sh EXE DLLS.TXT OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$exe" ] || { echo "dist-windows: no program at '$exe'" >&2; exit 2; }
[ -f "$list" ] || { echo "dist-windows: no DLL list at '$list'" >&2; exit 2; }
for t in tar gzip sha256sum; do
	command -v "$t" >/dev/null 2>&1 ||
		{ echo "dist-windows: needs $t" >&2; exit 2; }
done
version=$(sed -n 's/^#define RIPPLE_VERSION "\(.*\)"$/\1/p' \
	"$top/engine/cli/main.c")
[ -n "$version" ] ||
	{ echo "dist-windows: no RIPPLE_VERSION in engine/cli/main.c" >&2; exit 2; }
name=ripple-$version-windows-x86_64
dir=$out/$name
from=$(dirname "$exe")
# Only this version's bundle is left in OUTDIR (ninja check-windows
# installs the one there is).
rm -rf "$out"/ripple-*-windows-x86_64 "$out"/ripple-*-windows-x86_64.tar.gz*
mkdir -p "$dir/bin"
cp "$exe" "$dir/bin/ripple.exe"
# Which Debian source package each DLL comes from (deps.sh's stamps).
pins=$(ls "$top/build-windows/deps/stamps" 2>/dev/null | tr "\n" " " | sed "s/ $//")
{
	echo "# ripple $version bundle for Windows (tools/windows/dist.sh)"
	echo "# built on: $(. /etc/os-release && echo "$PRETTY_NAME"), with" \
		"$(x86_64-w64-mingw32-gcc --version 2>/dev/null | head -1 ||
			echo mingw-w64)"
	echo "# needs: Windows 10 1903 or later, x86_64 (the manifest's UTF-8" \
		"code page); sh.exe on PATH for shell commands (Git for Windows)"
	echo "# libraries from Debian 12 source packages: ${pins:-?}"
	# Inside ripple.exe, no DLL of theirs (tools/windows/configure.sh;
	# dlls.sh refuses a program that would need one).
	echo "# linked into ripple.exe: winpthreads (threads for -j; mingw-w64" \
		"$(dpkg-query -W -f '${Version}' mingw-w64-x86-64-dev \
			2>/dev/null || echo '?')), libgcc (-static-libgcc," \
		"$(dpkg-query -W -f '${Version}' gcc-mingw-w64-x86-64-win32 \
			2>/dev/null || echo '?')), xxhash"
	echo "# dll  bytes"
} > "$dir/MANIFEST"
n=0
while read -r dll size rest; do
	[ "$size" = system ] && continue
	[ -f "$from/$dll" ] ||
		{ echo "dist-windows: $from/$dll (in $list) is missing" >&2; exit 1; }
	cp "$from/$dll" "$dir/bin/$dll"
	chmod 644 "$dir/bin/$dll"
	echo "$dll  $size" >> "$dir/MANIFEST"
	n=$((n + 1))
done < "$list"
[ $n -gt 0 ] || { echo "dist-windows: $list names no DLL" >&2; exit 1; }
(cd "$out" && tar --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime=@0 -cf - "$name" | gzip -n -9 > "$name.tar.gz" &&
	sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "dist-windows: $dir: ripple.exe and $n DLLs, $(du -sh "$dir" | cut -f1);" \
	"$out/$name.tar.gz ($(wc -c < "$out/$name.tar.gz") bytes)"
