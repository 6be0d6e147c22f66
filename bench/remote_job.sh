#!/bin/sh
# What one CI job costs the remote cache (issue 23 item 5): on the demo
# repository (examples/cuda-bindings/make-demo-repo) with a real nginx
# (WebDAV) on loopback, main's CI is published (one `ripple run ci` per
# platform), then a pull request's test job runs on a fresh clone with an
# empty local cache, as a GitHub runner would:
#   ripple run ci --job JOB --ref refs/pull/1/merge
# (default JOB test-linux-64-1, PR pr/linux-infra: the pull request's own
# trust domain is read first, then the trusted one, and written to).
# From nginx's access log, the job's requests and the bytes it downloaded
# (AC entries, record blobs, output blobs), against the goals: at most
# 2 x (the job's nodes + their direct needs) requests, and at most 10 x
# the bytes of the outputs it fetched. Then the gate of main on a fresh
# clone: its requests against the nodes of the target (goal: one each).
#   bench/remote_job.sh [DIR]   (RIPPLE=path/to/ripple, JOB=..., PR=...)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${TMPDIR:-/tmp}/ripple-remote-job}
job=${JOB:-test-linux-64-1}
pr=${PR:-pr/linux-infra}
ripple=${RIPPLE:-$here/build/ripple}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$ripple" ] || { echo "no ripple binary at $ripple (run ninja)" >&2; exit 2; }
[ -x "$nginx" ] || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 2; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 2; }
ripple=$(cd "$(dirname "$ripple")" && pwd)/$(basename "$ripple")
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
unset RIPPLE_CACHE RIPPLE_REMOTE_CACHE

rm -rf "$dir"
mkdir -p "$dir/ng/root" "$dir/ng/tmp"
port=$((20000 + $$ % 20000))
user=
[ "$(id -u)" != 0 ] || user="user root;"
start_nginx() {
	cat > "$dir/ng/nginx.conf" <<EOF
$user
pid $dir/ng/nginx.pid;
error_log $dir/ng/error.log;
events { worker_connections 1024; }
http {
  log_format t '\$request_method \$uri \$status \$body_bytes_sent';
  access_log $dir/ng/access.log t;
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

"$here/examples/cuda-bindings/make-demo-repo" "$dir/origin" >/dev/null
git clone -q "$dir/origin" "$dir/main"
for pf in linux-64 linux-aarch64 win-64; do
	(cd "$dir/main" && "$ripple" run ci --platform "$pf" --reuse any \
		--remote-cache "$url" >/dev/null 2>"$dir/main-$pf.log") || {
		rc=$?
		[ $rc = 4 ] || { cat "$dir/main-$pf.log" >&2; exit 3; }
	}
done
echo "main published: $(find "$dir/ng/root" -path '*/ac/*' -type f | wc -l) AC entries, $(ls "$dir/ng/root/cas" | wc -l) CAS blobs"

git clone -q "$dir/origin" "$dir/pr"
git -C "$dir/pr" checkout -q --detach "origin/$pr"
before=$(wc -l < "$dir/ng/access.log")
rc=0
(cd "$dir/pr" && "$ripple" run ci --job "$job" --remote-cache "$url" \
	--ref refs/pull/1/merge --json > "$dir/job.json" 2>"$dir/job.log") ||
	rc=$?
[ $rc = 0 ] || [ $rc = 4 ] || { cat "$dir/job.log" >&2; exit 3; }
tail -n +"$((before + 1))" "$dir/ng/access.log" > "$dir/job.access"

# The job's nodes and their direct needs, from the rules at the PR.
(cd "$dir/pr" && "$ripple" jobs ci --json) |
	jq -r --arg j "$job" '.jobs[] | select(.name == $j) | .nodes[]' \
	> "$dir/job.nodes"
(cd "$dir/pr" && "$ripple" graph ci --format json) > "$dir/graph.json"
needs=$(jq -r --rawfile n "$dir/job.nodes" '
	($n | split("\n") | map(select(. != ""))) as $ids
	| [.nodes[] | select(.id as $i | $ids | index($i)) | .needs[]]
	| map(select(. as $d | $ids | index($d) | not)) | unique | length' \
	"$dir/graph.json")
nodes=$(wc -l < "$dir/job.nodes")
requests=$(wc -l < "$dir/job.access")
sum() { awk -v m="$1" -v p="$2" '$1 == m && $2 ~ p && $3 == 200 { b += $4 } END { print b + 0 }' "$dir/job.access"; }
count() { awk -v m="$1" -v p="$2" '$1 == m && $2 ~ p { n++ } END { print n + 0 }' "$dir/job.access"; }
ac_bytes=$(sum GET '/ac/')
cas_bytes=$(sum GET '^/cas/')
fetched=$(sed -n 's/.*fetched [0-9]* files, \([0-9]*\) bytes.*/\1/p' "$dir/job.log")
fetched=${fetched:-0}
down=$((ac_bytes + cas_bytes))
limit=$((2 * (nodes + needs)))
echo "job $job at $pr: $nodes nodes, $needs direct needs; $(jq '.counts.tested' "$dir/job.json") tested, $(jq '.counts.built' "$dir/job.json") built, $(jq '.counts.reused' "$dir/job.json") reused, $(jq '.counts.gap_rebuilds' "$dir/job.json") gap rebuilds"
reads=$((requests - $(count PUT '')))
echo "  requests: $requests: $reads to look up and fetch ($(count GET '^/d/.*/ac/') GET ac in the pull request's domain, $(count GET '^/ac/') in the trusted one, $(count GET '^/cas/') GET cas, $(count HEAD '') HEAD; goal <= 2 x ($nodes + $needs) = $limit), $(count PUT '') PUT publishing what it ran (record blob and AC entry per node, plus outputs)"
echo "  downloaded: $down bytes ($ac_bytes of AC entries with their records inline, $cas_bytes of CAS blobs) for $fetched bytes of outputs fetched: $(awk -v a="$down" -v b="$fetched" 'BEGIN { if (b) printf "%.1f", a / b; else print "n/a" }')x (goal <= 10x)"
echo "  $(tail -1 "$dir/job.log")"

git clone -q "$dir/origin" "$dir/gate"
before=$(wc -l < "$dir/ng/access.log")
(cd "$dir/gate" && "$ripple" gate ci --remote-cache "$url" --json \
	> "$dir/gate.json" 2>"$dir/gate.log") || true
gate_requests=$(( $(wc -l < "$dir/ng/access.log") - before ))
echo "gate ci of main on a fresh clone: $(jq '.nodes' "$dir/gate.json") nodes judged, $(jq '.nodes | length' "$dir/graph.json") nodes in the target; $gate_requests requests (goal: at most one per node)"
