#!/bin/sh
# tools/dist.sh BINARY OUTDIR: the relocatable bundle `ninja dist` makes.
#
#   OUTDIR/ripple-VERSION-linux-ARCH/bin/ripple      the binary, whose
#          DT_RPATH is $ORIGIN/../lib (linked so by ninja dist), so that
#          it and every library it loads look there first;
#   OUTDIR/ripple-VERSION-linux-ARCH/lib/<soname>    every shared library
#          ldd shows it loading, except glibc's own (the loader, libc,
#          libm, libdl, libpthread, librt, libresolv, libutil: a target's
#          glibc serves, as long as it is not older than the build's);
#   OUTDIR/ripple-VERSION-linux-ARCH/MANIFEST        what came from where,
#          the build system, and the oldest glibc the binary asks for;
#   OUTDIR/ripple-VERSION-linux-ARCH.tar.gz and .tar.gz.sha256.
#
# Needs ldd, objdump and nm (binutils) and tar. Removes the bundle folder
# first.
# The action (action.yml) uses the tarball of a ripple release, or a
# bundle built on the runner and cached by the sources' hash.
set -eu

bin=${1:?usage: tools/dist.sh BINARY OUTDIR}
out=${2:?usage: tools/dist.sh BINARY OUTDIR}
[ -x "$bin" ] || { echo "dist: no binary at '$bin'" >&2; exit 2; }
for t in ldd objdump nm tar sha256sum; do
	command -v "$t" >/dev/null 2>&1 ||
		{ echo "dist: needs $t" >&2; exit 2; }
done
if ! objdump -p "$bin" | grep -q 'RPATH.*\$ORIGIN/../lib'; then
	echo "dist: '$bin' has no \$ORIGIN/../lib RPATH (build it with ninja dist)" >&2
	exit 2
fi
# engine/cli/git_certs.c's replacements are linked in: with libgit2's
# chain inside the binary, each function it replaces has its __wrap_
# beside it (the ripple link's --wrap flags); linked shared, the binary
# defines mbedtls_x509_crt_parse_file itself where libgit2 uses mbedTLS.
syms=$(nm "$bin" 2>/dev/null) ||
	{ echo "dist: needs nm, and '$bin' with its symbol table" >&2; exit 2; }
if printf '%s\n' "$syms" | grep -q ' T git_libgit2_init$'; then
	for f in mbedtls_x509_crt_parse_file libssh2_init \
	    git_mbedtls_stream_global_init git_mbedtls_stream_new \
	    git_mbedtls_stream_wrap git_mbedtls__set_cert_location; do
		printf '%s\n' "$syms" | grep -q " T $f\$" || continue
		printf '%s\n' "$syms" | grep -q " T __wrap_$f\$" && continue
		echo "dist: '$bin' has libgit2's $f without engine/cli/git_certs.c's __wrap_$f (link it as ripple.ninja links build/ripple)" >&2
		exit 1
	done
elif ldd "$bin" | grep -q libmbedx509 &&
    ! printf '%s\n' "$syms" | grep -q ' T mbedtls_x509_crt_parse_file$'; then
	echo "dist: '$bin' lacks engine/cli/git_certs.c (link it as ripple.ninja links build/ripple)" >&2
	exit 1
fi
if ldd "$bin" | grep -q 'not found'; then
	ldd "$bin" >&2
	echo "dist: '$bin' does not find all its libraries here" >&2
	exit 1
fi
version=$("$bin" --version 2>/dev/null | awk '{ print $NF; exit }')
[ -n "$version" ] || version=unknown
case $(uname -m) in
x86_64) arch=x86_64 ;;
aarch64|arm64) arch=aarch64 ;;
*) arch=$(uname -m) ;;
esac
name=ripple-$version-linux-$arch
dir=$out/$name
rm -rf "$dir" "$dir.tar.gz" "$dir.tar.gz.sha256"
mkdir -p "$dir/bin" "$dir/lib"
cp "$bin" "$dir/bin/ripple"
glibc=$(objdump -T "$bin" | sed -n 's/.*GLIBC_\([0-9.]*\).*/\1/p' |
	sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
{
	echo "# ripple $version bundle (tools/dist.sh)"
	echo "# built on: $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -m)"
	echo "# needs: Linux $arch, glibc >= ${glibc:-?}"
	echo "# soname  copied from"
} > "$dir/MANIFEST"
ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
while read -r soname path; do
	case $soname in
	ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|\
	libresolv.so.*|libutil.so.*)
		continue ;;
	esac
	cp -L "$path" "$dir/lib/$soname"
	chmod 644 "$dir/lib/$soname"
	echo "$soname  $path" >> "$dir/MANIFEST"
done
# Reproducible: fixed order, owner and times.
(cd "$out" && tar --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime=@0 -czf "$name.tar.gz" "$name" &&
	sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "dist: $dir: ripple and $(ls "$dir/lib" | wc -l) libraries," \
	"$(du -sh "$dir" | cut -f1); $out/$name.tar.gz"
