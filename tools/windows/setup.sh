# tools/windows/setup.sh: the Windows side of tools/setup-ripple.sh, which
# sources it (with $src, $mode and say() set) on a Windows runner; it
# exits, 0 with ripple.exe on PATH or 1 saying why. See setup-ripple.sh's
# head for the order (RIPPLE_SETUP_BUNDLE, then RIPPLE_SETUP_VERSION's
# release bundle) and docs/github.md for where a bundle comes from. The
# paths it is given may be Windows' (C:\...) or Git for Windows' (/c/...);
# GITHUB_PATH gets a Windows path (cygpath -w), which the runner reads.

win_path() {	# a path as the runner (a Windows program) reads it
	if command -v cygpath > /dev/null 2>&1; then
		cygpath -w "$1"
	else
		printf '%s\n' "$1"
	fi
}
posix_path() {	# a path as this shell reads it
	if command -v cygpath > /dev/null 2>&1; then
		cygpath -u "$1"
	else
		printf '%s\n' "$1"
	fi
}
need_bundle() {
	say "a Windows runner cannot build ripple from source (its libraries" \
		"are cross-built with mingw-w64 on Debian: docs/windows.md);" \
		"give the action a Windows bundle: input version, a ripple" \
		"release whose assets hold ripple-VERSION-windows-x86_64.tar.gz" \
		"and its .sha256, or input bundle, the path of such a tarball" \
		"made by \`ninja dist-windows\` (its .sha256 beside it)"
	exit 1
}

case ${RUNNER_ARCH:-X64}-$(uname -m) in
X64-*|-x86_64) ;;
*)
	say "the Windows bundle is built for x86_64, not this runner's" \
		"${RUNNER_ARCH:-$(uname -m)} (win-64 jobs run on windows-latest)"
	exit 1 ;;
esac
for t in tar gzip sha256sum; do
	command -v "$t" > /dev/null 2>&1 ||
		{ say "needs $t (Git for Windows' bash has it)"; exit 1; }
done
tools=$(posix_path "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}")/ripple
bundle=${RIPPLE_SETUP_BUNDLE:-}
version=${RIPPLE_SETUP_VERSION:-}
if [ -n "$bundle" ]; then
	bundle=$(posix_path "$bundle")
	[ -z "$version" ] || say "input bundle given: using it, not the" \
		"$version release's"
	[ -f "$bundle" ] || { say "no bundle at '$bundle'"; exit 1; }
	sums=$bundle.sha256
	[ -f "$sums" ] || { say "no '$sums' beside the bundle (ninja" \
		"dist-windows writes one; pass both files on)"; exit 1; }
	from=$bundle
elif [ -n "$version" ]; then
	repo=${RIPPLE_SETUP_REPO:-ripple-build/ripple}
	file=ripple-${version#v}-windows-x86_64.tar.gz
	url=${RIPPLE_SETUP_URL:-https://github.com}/$repo/releases/download/$version/$file
	mkdir -p "$tools/$version"
	bundle=$tools/$version/$file
	sums=$bundle.sha256
	rm -f "$bundle" "$sums"
	if ! curl -fsSL -o "$bundle" "$url" ||
	   ! curl -fsSL -o "$sums" "$url.sha256"; then
		say "no Windows bundle at $url (or its .sha256): the" \
			"$version release has none"
		need_bundle
	fi
	from=$url
else
	need_bundle
fi
name=$(basename "$bundle" .tar.gz)
case $name in
ripple-*-windows-x86_64) ;;
*)	say "'$(basename "$bundle")' is not a Windows bundle" \
		"(ripple-VERSION-windows-x86_64.tar.gz)"
	exit 1 ;;
esac
want=$(sed -n '1s/^\([0-9a-fA-F]\{64\}\)[ *].*/\1/p' "$sums" |
	tr 'A-F' 'a-f')
[ -n "$want" ] || { say "'$sums' holds no SHA-256 (64 hex digits, then" \
	"the file name, as sha256sum writes it)"; exit 1; }
got=$(sha256sum < "$bundle" | cut -c1-64)
if [ "$got" != "$want" ]; then
	say "$(basename "$bundle") does not match its SHA-256: $sums says" \
		"$want, the file is $got; not installed (a damaged or" \
		"replaced download: fetch both files again)"
	exit 1
fi
dest=$tools/windows-$got
rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$bundle" -C "$dest" ||
	{ say "cannot unpack $bundle"; exit 1; }
# The folder inside is named by ripple's version, which a release's
# asset name need not be (a moving tag v0 serves ripple-0-...).
set -- "$dest"/ripple-*-windows-x86_64/bin/ripple.exe
[ $# = 1 ] && [ -f "$1" ] || { say "$(basename "$bundle") holds no (or" \
	"more than one) ripple-VERSION-windows-x86_64/bin/ripple.exe"; exit 1; }
bin=$(dirname "$1")
v=$(${RIPPLE_SETUP_RUN:-} "$bin/ripple.exe" --version 2> "$dest/version.log") ||
	{ say "$bin/ripple.exe does not run here: $(cat "$dest/version.log")"
	  exit 1; }
if [ -n "${GITHUB_PATH:-}" ]; then
	win_path "$bin" >> "$GITHUB_PATH"
fi
if [ "$mode" = --release ] && [ -n "${GITHUB_OUTPUT:-}" ]; then
	echo "found=true" >> "$GITHUB_OUTPUT"
fi
say "using $bin/ripple.exe ($v) from $from, SHA-256 $got"
exit 0
