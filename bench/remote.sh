#!/bin/sh
# Benchmark the remote cache against a real nginx (WebDAV) on loopback:
#  1. plans of the 500-package bench repository (bench/gen-repo.sh: 100,000
#     files; one artifact per package, each needing its parent package in a
#     tree of fan-out 8, so keys come in 4 topological levels) with every
#     record in the nginx cache and none locally, against the same plan with
#     the records in the local cache: `plan --reuse any` and `plan --base
#     BASE` (a remote baseline against a local baseline run). Goal (issue
#     23 item 7): remote <= 2 x local, in wall time, CPU time and (with
#     valgrind) instructions. The base run publishes its bundle, so the
#     remote-only plans read the records and the source-key memo from it
#     (docs/remote-cache.md, "Bundles").
#  2. a 100 MB artifact through ripple's client (bench/remote_bench.c: hash,
#     PUT; GET verified into place) against curl alone on the same
#     server (curl -T, curl -o). Goal: >= 0.8 x curl's throughput.
#  3. a blob the server already holds (issue 22: it may be garbage of the
#     right size): uploading it anyway (PUT, one request) against verifying
#     it before skipping the upload (HEAD, then GET and SHA-256: two).
#  4. bench/remote_job.sh: the requests and bytes of a pull request's
#     test job on the demo repository (issue 23 item 5).
# Rounds alternate (ripple, then the reference) so that load on a shared
# machine hits both alike; medians of $RUNS rounds, wall time and (for the
# plans) CPU time, which load disturbs less.
#   bench/remote.sh [DIR] [N] [P]   (RIPPLE=path/to/ripple, RUNS=7, MB=100)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${TMPDIR:-/tmp}/ripple-remote-bench}
n=${2:-100000}
p=${3:-500}
runs=${RUNS:-7}
mb=${MB:-100}
ripple=${RIPPLE:-$here/build/ripple}
rbench=$here/build/bench/remote_bench
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$ripple" ] || { echo "no ripple binary at $ripple (run ninja)" >&2; exit 2; }
[ -x "$rbench" ] || { echo "no $rbench (run ninja bench)" >&2; exit 2; }
[ -x "$nginx" ] || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 2; }
ripple=$(cd "$(dirname "$ripple")" && pwd)/$(basename "$ripple")

rm -rf "$dir"
mkdir -p "$dir/ng/root" "$dir/ng/tmp"
# -------------------------------------------------------------- nginx ---
port=$((20000 + $$ % 20000))
user=
[ "$(id -u)" != 0 ] || user="user root;"	# workers write the root
start_nginx() {
	cat > "$dir/ng/nginx.conf" <<EOF
$user
pid $dir/ng/nginx.pid;
error_log $dir/ng/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/ng/tmp;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    root $dir/ng/root;
    client_max_body_size 0;
    location / { dav_methods PUT; create_full_put_path on; }
  }
}
EOF
	"$nginx" -c "$dir/ng/nginx.conf" -p "$dir/ng" 2>/dev/null
}
tries=0
until start_nginx; do
	tries=$((tries + 1))
	[ $tries -lt 20 ] || { echo "nginx did not start" >&2; exit 3; }
	port=$((port + 1))
done
trap 'kill $(cat "$dir/ng/nginx.pid") 2>/dev/null || true' EXIT
url=http://127.0.0.1:$port
sleep 0.3

now_us() { echo $(( $(date +%s%N) / 1000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ------------------------------------------------------- 1. the plans ---
"$here/bench/gen-repo.sh" "$dir/repo" "$n" "$p" >/dev/null
cd "$dir/repo"
git config user.email bench@example.com
git config user.name Bench
git checkout -q -b bench main~1
awk -v p="$p" 'BEGIN {
	print "version: 1"
	print "sources:"
	for (i = 0; i < p; i++)
		printf "  src-pkg%03d: {paths: [pkg%03d/**]}\n", i, i
	print "artifacts:"
	for (i = 0; i < p; i++) {
		printf "  pkg%03d: {inputs: [src-pkg%03d], command: [true]", i, i
		# a tree of fan-out 8 rooted at the last package, so the
		# edited packages (0, 7, 14) are leaves and few nodes cascade
		if (i < p - 1)
			printf ", needs: [pkg%03d]", (p - 1) - int((p - 2 - i) / 8)
		print "}"
	}
	print "policy:"
	print "  unclaimed-paths: rebuild-all"
}' > ripple.yml
printf '.ripple/\n' > .gitignore
git add ripple.yml .gitignore
git commit -q -m rules
base=$(git rev-parse HEAD)
t0=$(now_us)
"$ripple" run -j 2 --remote-cache "$url" >/dev/null 2>"$dir/run.log" || {
	cat "$dir/run.log" >&2
	exit 3
}
t1=$(now_us)
git cherry-pick main >/dev/null
echo "repository: $dir/repo, $(git ls-files | wc -l) files, $p artifacts (4 levels)"
echo "recording the base run and publishing it: $(( (t1 - t0) / 1000 )) ms; $(tail -1 "$dir/run.log")"
echo "nginx holds $(find "$dir/ng/root" -path '*/ac/*' -type f | wc -l) AC entries (in trust domains), $(find "$dir/ng/root" -path "*/cas/*" -type f | wc -l) CAS blobs (in trust domains)"
# A local cache holding only the source-key memo (no run, no record): the
# remote plan with it pays the lookups alone, which splits the remote-only
# plan's cost into computing source keys and looking records up.
memo=
if command -v sqlite3 >/dev/null; then
	memo=$dir/memo.db
	cp .ripple/cache.db "$memo"
	sqlite3 "$memo" "DELETE FROM records; DELETE FROM record_conflicts;
		DELETE FROM published; DELETE FROM manifests; DELETE FROM runs;"
	echo "a local cache with the source-key memo only: $(sqlite3 "$memo" 'SELECT count(*) FROM source_keys') keys, no records"
fi

# timed FILE CMD...: append "wall_ms cpu_ms" (user + sys) of one run.
timed() {
	f=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$dir/t.txt" "$@" >/dev/null 2>&1
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$dir/t.txt" >> "$f"
}
col() { cut -d' ' -f"$1" < "$2" | median; }

# plan_pair NAME ARGS: medians (wall and CPU) of the plan with the local
# cache, with an empty local cache and the remote one (the remote-only
# plan of issue 23 item 7), and with neither (every source key computed,
# nothing reused: what a fresh runner pays before any lookup); with
# sqlite3, also the remote plan over a local cache that holds the
# source-key memo and nothing else (the lookups' share).
plan_pair() {
	name=$1
	shift
	: > "$dir/l.txt"; : > "$dir/r.txt"; : > "$dir/z.txt"; : > "$dir/m.txt"
	i=0
	while [ $i -le "$runs" ]; do	# round 0 warms up
		timed "$dir/l.txt" "$ripple" plan "$@"
		timed "$dir/r.txt" env RIPPLE_CACHE="$dir/none.db" "$ripple" \
			--remote-cache "$url" plan "$@"
		timed "$dir/z.txt" env RIPPLE_CACHE="$dir/none.db" "$ripple" \
			plan "$@"
		[ -z "$memo" ] || timed "$dir/m.txt" env RIPPLE_CACHE="$memo" \
			"$ripple" --remote-cache "$url" plan "$@"
		[ $i -gt 0 ] || { : > "$dir/l.txt"; : > "$dir/r.txt"; : > "$dir/z.txt"; : > "$dir/m.txt"; }
		i=$((i + 1))
	done
	lw=$(col 1 "$dir/l.txt"); lc=$(col 2 "$dir/l.txt")
	rw=$(col 1 "$dir/r.txt"); rc=$(col 2 "$dir/r.txt")
	zw=$(col 1 "$dir/z.txt"); zc=$(col 2 "$dir/z.txt")
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
	echo "plan $name: local cache $lw ms (cpu $lc), remote cache only $rw ms (cpu $rc), no cache at all $zw ms (cpu $zc)"
	echo "  remote-only/local at $p packages: wall $(ratio "$rw" "$lw"), cpu $(ratio "$rc" "$lc") (goal <= 2); remote/no-cache: wall $(ratio "$rw" "$zw"), cpu $(ratio "$rc" "$zc")"
	if command -v valgrind >/dev/null; then
		# Instructions do not move with the machine's load.
		li=$(instr "$@")
		ri=$(RIPPLE_CACHE="$dir/none.db" instr --remote-cache "$url" "$@")
		echo "  instructions (callgrind): local cache $li, remote cache only $ri; remote-only/local $(ratio "$ri" "$li") (goal <= 2)"
	fi
	[ -n "$memo" ] || return 0
	mw=$(col 1 "$dir/m.txt"); mc=$(col 2 "$dir/m.txt")
	echo "  remote records with a local source-key memo: $mw ms (cpu $mc); /local: wall $(ratio "$mw" "$lw"), cpu $(ratio "$mc" "$lc")"
}
# instr [GLOBAL-OPTIONS] PLAN-ARGS: user-space instructions of one plan.
instr() {
	g=
	[ "$1" != --remote-cache ] || { g="$1 $2"; shift 2; }
	# shellcheck disable=SC2086
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$ripple" \
		$g plan "$@" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p; s/.*I *refs: *\([0-9,]*\).*/\1/p' |
		tr -d , | tail -1
}
echo "plan --reuse any, remote: $(RIPPLE_CACHE=$dir/none.db "$ripple" --remote-cache "$url" plan --reuse any | tail -1)"
plan_pair "--reuse any" --reuse any
echo "plan --base, remote: $(RIPPLE_CACHE=$dir/none.db "$ripple" --remote-cache "$url" plan --base "$base" | sed -n 's/^baseline *//p')"
plan_pair "--base BASE" --base "$base"

# -------------------------------------------- 2. a 100 MB artifact ---
head -c "${mb}M" /dev/urandom > "$dir/big"
hash=$(sha256sum "$dir/big" | cut -c1-64)
: > "$dir/rp.txt"; : > "$dir/cp.txt"; : > "$dir/rg.txt"; : > "$dir/cg.txt"
i=0
while [ $i -lt "$runs" ]; do
	rm -f "$dir/ng/root/cas/$hash"
	"$rbench" "$url" "$dir/big" put >> "$dir/rp.txt"
	rm -f "$dir/ng/root/cas/$hash"
	s=$(now_us); curl -sf -T "$dir/big" "$url/cas/$hash"; e=$(now_us)
	echo $(( (e - s) / 1000 )) >> "$dir/cp.txt"
	"$rbench" "$url" "$dir/big" get "$dir/big.r" >> "$dir/rg.txt"
	s=$(now_us); curl -sf -o "$dir/big.c" "$url/cas/$hash"; e=$(now_us)
	echo $(( (e - s) / 1000 )) >> "$dir/cg.txt"
	i=$((i + 1))
done
cmp -s "$dir/big" "$dir/big.r" || { echo "the fetched blob differs" >&2; exit 3; }
rp=$(median < "$dir/rp.txt"); cp_=$(median < "$dir/cp.txt")
rg=$(median < "$dir/rg.txt"); cg=$(median < "$dir/cg.txt")
thr() { awk -v ms="$1" -v mb="$mb" 'BEGIN { printf "%.0f MB/s", mb / (ms / 1000) }'; }
echo "upload $mb MB: ripple $rp ms ($(thr "$rp")), curl $cp_ ms ($(thr "$cp_")), ripple/curl throughput $(awk -v a="$rp" -v b="$cp_" 'BEGIN { printf "%.2f", b / a }') (goal >= 0.8)"
echo "download $mb MB: ripple $rg ms ($(thr "$rg")), curl $cg ms ($(thr "$cg")), ripple/curl throughput $(awk -v a="$rg" -v b="$cg" 'BEGIN { printf "%.2f", b / a }') (goal >= 0.8)"

# --------------------------- 3. a blob the server holds: PUT or verify ---
: > "$dir/pp.txt"; : > "$dir/pv.txt"
i=0
while [ $i -lt "$runs" ]; do
	"$rbench" "$url" "$dir/big" put >> "$dir/pp.txt"
	"$rbench" "$url" "$dir/big" verify "$dir/big.v" >> "$dir/pv.txt"
	i=$((i + 1))
done
pp=$(median < "$dir/pp.txt"); pv=$(median < "$dir/pv.txt")
echo "a $mb MB blob the server holds: upload anyway $pp ms (1 request), verify before skipping $pv ms (HEAD + GET: 2 requests); verify/upload $(awk -v a="$pv" -v b="$pp" 'BEGIN { printf "%.2f", a / b }')"

# ------------------------------------------- 4. a pull request's job ---
RIPPLE=$ripple "$here/bench/remote_job.sh" "$dir/job"
