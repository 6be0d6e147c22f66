#!/bin/sh
# The remote cache from Windows: ripple.exe under Wine, through
# libcurl.dll (Debian's curl built with Schannel), publishes a run's
# records and outputs to nginx (WebDAV, on loopback), plans a fresh
# checkout from them, fetches an output through base/place_win.c; and
# Linux's build/ripple reads what Windows published, the keys being the
# same on both (one cache for both platforms' runners). And the other
# way: outputs Linux writes under names Windows reads as other files
# (NUL.txt, a trailing dot, a stream) are published by Linux's ripple,
# and ripple.exe refuses that entry (a miss, one warning naming the
# server, the key and the path; fetch writes nothing), while Linux
# reuses it (docs/security.md, "Names that alias").
#
#   tools/windows/remote.sh     (ninja check-windows runs it)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
exe=$top/build-windows/ripple.exe
act=$top/build-windows/act.exe
lin=$top/build/ripple
wine=${WINE:-/usr/lib/wine/wine64}
work=$top/build-windows/remote-check
for f in "$exe" "$act" "$lin"; do
	[ -f "$f" ] || { echo "remote.sh: $f is missing" >&2; exit 2; }
done
command -v nginx >/dev/null || { echo "remote.sh: no nginx (nginx-light)" >&2; exit 2; }
export WINEPREFIX=$top/build-windows/wineprefix WINEDEBUG=-all
unset RIPPLE_REMOTE_CACHE RIPPLE_REF GITHUB_ACTIONS RIPPLE_CACHE

rm -rf "$work" && mkdir -p "$work/nginx/root" "$work/nginx/tmp" "$work/repo/src" \
	"$work/repo/tools" || exit 2
port=$((20000 + $$ % 20000))
cat > "$work/nginx/nginx.conf" <<CONF
user root;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/nginx/tmp;
  server {
    listen 127.0.0.1:$port;
    root $work/nginx/root;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      client_max_body_size 0;
    }
  }
}
CONF
nginx -c "$work/nginx/nginx.conf" &
ngx=$!
trap 'kill $ngx 2>/dev/null' EXIT
url=http://127.0.0.1:$port/ripple
sleep 1

n=0 ok=0
check() {
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		ok=$((ok + 1))
		echo "ok       $what"
	else
		echo "FAILED   $what"
		sed -n '1,8s/^/         /p' "$work/out"
	fi
}
win() {	# win DIR ARG...: ripple.exe in DIR, output in $work/out
	d=$1
	shift
	(cd "$d" && "$wine" "$exe" --remote-cache "$url" "$@") > "$work/out" 2>&1
	rc=$?
}
has() { grep -q -- "$1" "$work/out"; }

repo=$work/repo
cp "$act" "$repo/tools/act.exe"
printf '# a comment\nhello\n' > "$repo/src/lib.txt"
printf '.ripple/\nout/\nwh/\nnames/\n' > "$repo/.gitignore"
cat > "$repo/ripple.yml" <<'YML'
version: 1
sources:
  lib-src: {paths: ["src/**"]}
  tool: {paths: ["tools/**"]}
artifacts:
  lib:
    inputs: [lib-src, tool]
    command: [tools/act.exe, copy, src/lib.txt, out/lib.bin]
    outputs: [out/lib.bin]
  names:
    inputs: [lib-src]
    command: [sh, -c, 'mkdir -p names && echo n > names/NUL.txt &&
      echo a > names/a. && echo s > names/w.txt:x && echo ok > names/ok.txt']
    outputs: ["names/**"]
YML
(cd "$repo" && git init -q -b main && git add -A &&
	git -c user.name=ripple -c user.email=ripple@example.org \
	commit -q -m initial) || exit 2

win "$repo" run lib --run-id r1 --ref refs/heads/main
check "ripple.exe run publishes through libcurl.dll (exit $rc)" \
	eval '[ $rc = 0 ] && has "1 built" && ls "$work/nginx/root/ripple" >/dev/null 2>&1'
git clone -q "$repo" "$work/clone" || exit 2
win "$work/clone" plan lib --reuse any --ref refs/heads/main --json
check "a fresh checkout plans lib as reused from the remote cache (exit $rc)" \
	eval '[ $rc = 0 ] && jq -e ".nodes[] | select(.id == \"artifact:lib\") | .decision == \"reuse\" and .reused_from_remote == \"$url\"" "$work/out" >/dev/null 2>&1'
win "$work/clone" fetch artifact:lib --to wh --ref refs/heads/main
check "fetch --to places the output through place_win.c (exit $rc)" \
	eval '[ $rc = 0 ] && [ "$(cat "$work/clone/wh/lib.bin" 2>/dev/null)" = hello ]'
git clone -q "$repo" "$work/clone-linux" || exit 2
(cd "$work/clone-linux" && "$lin" --remote-cache "$url" plan lib --reuse any \
	--ref refs/heads/main --json) > "$work/out" 2>&1
rc=$?
check "Linux's ripple, in a checkout of its own, reuses what Windows published: the same key (exit $rc)" \
	eval '[ $rc = 0 ] && jq -e ".nodes[] | select(.id == \"artifact:lib\") | .decision == \"reuse\" and .reused_from_remote == \"$url\" and .reused_from_run == \"r1\"" "$work/out" >/dev/null'
(cd "$work/clone-linux" && "$lin" --remote-cache "$url" run names \
	--run-id r2 --ref refs/heads/main) > "$work/out" 2>&1
rc=$?
check "Linux's ripple publishes names/NUL.txt, names/a. and names/w.txt:x (exit $rc)" \
	eval '[ $rc = 0 ] && grep -q "published 1 nodes" "$work/out"'
(cd "$work/clone" && "$wine" "$exe" --remote-cache "$url" plan names \
	--reuse any --ref refs/heads/main --json) > "$work/plan.json" \
	2> "$work/err"
rc=$?
cat "$work/err" "$work/plan.json" > "$work/out"
check "ripple.exe refuses that entry: names is built, one warning names the server, key and path (exit $rc)" \
	eval '[ $rc = 0 ] && jq -e ".nodes[] | select(.id == \"artifact:names\") | .decision == \"build\"" "$work/plan.json" >/dev/null 2>&1 && [ "$(grep -c "warning:" "$work/err")" = 1 ] && grep -q "$url" "$work/err" && grep -q "GET ac/" "$work/err" && grep -q "names/NUL.txt. names a Windows device" "$work/err"'
(cd "$work/clone" && "$wine" "$exe" --remote-cache "$url" fetch \
	artifact:names --to wh2 --ref refs/heads/main) > "$work/out" 2>&1
rc=$?
check "ripple.exe fetch of it fails and writes no file (exit $rc)" \
	eval '[ $rc != 0 ] && [ -z "$(ls -A "$work/clone/wh2" 2>/dev/null)" ] && [ ! -e "$work/clone/names" ] && grep -q "no ok record of its key" "$work/out"'
git clone -q "$repo" "$work/clone-linux2" || exit 2
(cd "$work/clone-linux2" && "$lin" --remote-cache "$url" plan names \
	--reuse any --ref refs/heads/main --json) > "$work/out" 2>&1
rc=$?
check "Linux's ripple in a fresh checkout reuses the same entry: ordinary names there (exit $rc)" \
	eval '[ $rc = 0 ] && jq -e ".nodes[] | select(.id == \"artifact:names\") | .decision == \"reuse\" and .reused_from_run == \"r2\"" "$work/out" >/dev/null'
echo "remote: $ok of $n checks pass (ripple.exe and nginx on 127.0.0.1:$port)"
[ $ok = $n ]
