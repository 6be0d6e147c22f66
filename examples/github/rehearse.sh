#!/bin/sh
# examples/github/rehearse.sh [DIR]
#
# Play examples/github/ci.yml on this machine, as GitHub would, on the demo
# repository: a real nginx (WebDAV PUT) on a loopback port is the remote
# cache and the only thing runners share. For each workflow run:
#   plan job   a fresh clone runs the plan step; its $GITHUB_OUTPUT is read
#              exactly as the workflow reads it (has-GROUP, matrix-GROUP);
#   matrices   build, build-2, test, gpu in order; every entry runs in a
#              fresh clone with an empty local cache, with the entry's one
#              command (`ripple run ci --job JOB`), as a runner of the
#              entry's platform (--platform: this machine plays them all);
#   gate       a fresh clone runs `ripple gate ci`.
# Runs: CI at main, a pull request that rebuilds some nodes and reuses the
# rest, and the tag v13.0.1 ending in `ripple release --dry-run`. Each run
# has GitHub's environment (GITHUB_REF, the event and its payload) and its
# secret, so main and the tag write the trusted domain of the cache and
# each pull request (refs/pull/N/merge, a detached merge checkout) its own;
# nginx serves examples/nginx/ripple-cache.conf, where only main's
# credential writes the trusted domain. A second pull request on the same
# version group follows the first; then a fresh clone at main must plan no
# build (before trust domains, the pull requests' records replaced main's).
# Prints, per run: jobs, nodes run, nodes reused, bytes downloaded from the
# cache, and the gate's answer. Without a GPU the GPU jobs defer their
# tests (exit 4), so the gate names exactly those nodes; that is the
# expected answer here and the script checks it. Exit 0 when every step did
# what it should. Needs nginx, jq, git and build/ripple (RIPPLE picks the
# binary). DIR keeps the work (default: a temporary folder, removed).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ripple=${RIPPLE:-$top/build/ripple}
case $ripple in /*) ;; *) ripple=$(pwd)/$ripple ;; esac
for t in nginx jq git; do
	command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || {
		echo "rehearse: needs $t" >&2
		exit 2
	}
done
[ -x "$ripple" ] || { echo "rehearse: no ripple at $ripple" >&2; exit 2; }
if [ $# -ge 1 ]; then
	work=$1
	mkdir -p "$work"
	keep=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ripple-rehearse.XXXXXX")
	keep=0
fi
export GIT_AUTHOR_NAME=rehearsal GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=rehearsal GIT_COMMITTER_EMAIL=ci@example.invalid
unset RIPPLE_CACHE

fail() {
	echo "rehearse: $*" >&2
	exit 1
}

# --- the remote cache: nginx on a free loopback port ---------------------
ngx=$work/nginx
mkdir -p "$ngx/root" "$ngx/tmp"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
start_nginx() {
	port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000 ))
	user=""
	[ "$(id -u)" = 0 ] && user="user root;"
	cat > "$ngx/nginx.conf" <<EOF
daemon on;
$user
pid $ngx/nginx.pid;
error_log $ngx/error.log;
events { worker_connections 256; }
http {
  log_format t '\$request_method \$uri \$status \$body_bytes_sent';
  access_log $ngx/access.log t;
  client_body_temp_path $ngx/tmp/body;
  proxy_temp_path $ngx/tmp/proxy;
  fastcgi_temp_path $ngx/tmp/fastcgi;
  uwsgi_temp_path $ngx/tmp/uwsgi;
  scgi_temp_path $ngx/tmp/scgi;
  server {
    listen 127.0.0.1:$port;
    root $ngx/root;
    client_max_body_size 0;
    include $top/examples/nginx/ripple-cache.conf;
  }
}
EOF
	"$nginx_bin" -c "$ngx/nginx.conf" -p "$ngx" 2>/dev/null
}
# The documented credentials: main's and tags' workflows write the trusted
# domain, pull requests' their own (examples/nginx/ripple-cache.conf).
# (Hashes as `openssl passwd -6 main-secret` and `... pr-secret` make them.)
main_secret=main-secret pr_secret=pr-secret
echo 'main:$6$ripplemain$k09R1JDX1BQOHjGvCRwm/P71iXdbBngGC.nDoLJfDOaInctQgdF.K/R.HwURP3q6Tfoin51sDyieZCunlFphx1' \
	> "$ngx/ripple-trusted.htpasswd"
cp "$ngx/ripple-trusted.htpasswd" "$ngx/ripple-writers.htpasswd"
echo 'pr:$6$ripplepr$ErGf72pnr8z0d6Cyn9u7wUPEAQ7Viwd3/WOX7mQDHWdFAVjg5WDtDJIw.soiWkwEncjcBF9B25PsPWc2d0UiL0' \
	>> "$ngx/ripple-writers.htpasswd"
main_cred="Authorization: Basic $(printf main:%s "$main_secret" | base64 -w0)"
pr_cred="Authorization: Basic $(printf pr:%s "$pr_secret" | base64 -w0)"
tries=0
until start_nginx; do
	tries=$((tries + 1))
	[ $tries -lt 20 ] || fail "nginx did not start (see $ngx/error.log)"
done
cleanup() {
	[ -f "$ngx/nginx.pid" ] && kill "$(cat "$ngx/nginx.pid")" 2>/dev/null
	[ $keep = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
export RIPPLE_REMOTE_CACHE=http://127.0.0.1:$port

"$top/examples/cuda-bindings/make-demo-repo" "$work/origin" > /dev/null
origin=$work/origin
# A second pull request on the bindings-12 line (the version group of
# artifact:python-meta[root=bindings-12]), one commit off main.
git -C "$origin" checkout -q -b pr/bindings-12-more main
echo '# and cuMemGetInfo too' >> "$origin/cuda_bindings_12/cuda/bindings/driver.pyx"
git -C "$origin" commit -qam "bindings-12: note cuMemGetInfo"
git -C "$origin" checkout -q main

# --- one runner: a fresh clone at REV with its own empty local cache ------
runner() {	# runner REV: make a fresh clone, print its path
	d=$(mktemp -d "$work/runner.XXXXXX")/clone
	git clone -q --no-local "$origin" "$d"
	git -C "$d" checkout -q --detach "$1"
	echo "$d"
}

bytes_fetched() {	# GET bodies of CAS blobs served so far
	awk '$1 == "GET" && $2 ~ /^\/cas\// && $3 == 200 { b += $4 }
		END { print b + 0 }' "$ngx/access.log" 2>/dev/null || echo 0
}

# --- what GitHub puts in a job's environment -----------------------------
# The event and GITHUB_REF of the workflow run, and its payload: a pull
# request's checkout is a detached merge commit, so ripple takes the ref
# (its trust domain in the remote cache) from here, as on GitHub.
gh_env() {	# gh_env EVENT REF [PR-NUMBER]: export the job's environment
	export GITHUB_ACTIONS=true GITHUB_EVENT_NAME=$1 GITHUB_REF=$2
	export GITHUB_EVENT_PATH=$work/event.$1.json
	case $1 in	# the secret each workflow gets
	pull_request) export RIPPLE_REMOTE_CACHE_HEADER="$pr_cred" ;;
	*) export RIPPLE_REMOTE_CACHE_HEADER="$main_cred" ;;
	esac
	if [ -n "${3:-}" ]; then
		printf '{"number": %s, "pull_request": {"number": %s}, "repository": {"default_branch": "main"}}\n' \
			"$3" "$3" > "$GITHUB_EVENT_PATH"
	else
		printf '{"repository": {"default_branch": "main"}}\n' \
			> "$GITHUB_EVENT_PATH"
	fi
}

# --- one workflow run -------------------------------------------------
workflow() {	# workflow NAME REV BASE TARGET [TAG]
	name=$1 rev=$2 base=$3 target=$4 tag=${5:-}
	out=$work/$name.github-output
	: > "$out"
	jobs=0 ran=0 reused=0 deferred_jobs=0
	before=$(bytes_fetched)
	d=$(runner "$rev")
	(cd "$d" && "$ripple" plan "$target" ${base:+--base "$base"} \
		--github-output "$out" \
		--github-step-summary "$work/$name.summary.md" > /dev/null) ||
		fail "$name: the plan job failed"
	reused=$(sed -n 's/^plan=//p' "$out" | jq '.reuse | length')
	for group in build build-2 test gpu; do
		has=$(sed -n "s/^has-$group=//p" "$out")
		[ "$has" = true ] || continue
		matrix=$(sed -n "s/^matrix-$group=//p" "$out")
		[ -n "$matrix" ] || fail "$name: has-$group=true, no matrix"
		echo "$matrix" | jq -e '.include | length > 0' > /dev/null ||
			fail "$name: matrix-$group is empty"
		for entry in $(echo "$matrix" |
		    jq -r '.include[] | "\(.job)@\(.platform // "")"'); do
			job=${entry%@*}
			pf=${entry#*@}
			jobs=$((jobs + 1))
			d=$(runner "$rev")
			rc=0
			(cd "$d" && "$ripple" run "$target" --job "$job" \
				--run-id "gh-$name" ${pf:+--platform "$pf"} \
				${tag:+--tag "$tag"} --json \
				> "$work/$name.$job.json" \
				2> "$work/$name.$job.log") || rc=$?
			case $rc in
			0) ;;
			4) deferred_jobs=$((deferred_jobs + 1)) ;;
			*) cat "$work/$name.$job.log" >&2
			   fail "$name: job $job failed (exit $rc)" ;;
			esac
			ran=$((ran + $(jq '.counts.built + .counts.tested' \
				"$work/$name.$job.json")))
		done
	done
	d=$(runner "$rev")
	grc=0
	(cd "$d" && "$ripple" gate "$target" --json > "$work/$name.gate.json") ||
		grc=$?
	missing=$(jq -r '.missing[].id' "$work/$name.gate.json" | sort)
	not_gpu=$(echo "$missing" | grep -v '^test:\(bindings-gpu\|bindings-floor\|core-tests\|cuda-smoke\)' || true)
	[ -z "$not_gpu" ] || fail "$name: the gate misses non-GPU nodes: $not_gpu"
	[ $grc = 0 ] || [ -n "$missing" ] || fail "$name: gate exit $grc"
	printf '%-10s jobs %3d  nodes run %3d  reused %3d  fetched %8d bytes  gate: %s\n' \
		"$name" "$jobs" "$ran" "$reused" $(( $(bytes_fetched) - before )) \
		"$([ $grc = 0 ] && echo ok || echo "$(echo "$missing" | wc -l) GPU nodes deferred (no GPU here)")"
}

main=$(git -C "$origin" rev-parse main)
pr=$(git -C "$origin" rev-parse pr/bindings-12-fix)
gh_env push refs/heads/main
workflow main "$main" "$main~1" ci
gh_env pull_request refs/pull/1/merge 1
workflow pr "$pr" "$main" ci
gh_env pull_request refs/pull/2/merge 2
workflow pr2 "$(git -C "$origin" rev-parse pr/bindings-12-more)" "$main" ci
# Both pull requests rebuilt the bindings-12 version group into their own
# trust domains: main's records are untouched, a fresh clone at main
# builds nothing (before trust domains: 57 of 114 nodes).
gh_env push refs/heads/main
d=$(runner "$main")
(cd "$d" && "$ripple" plan ci --reuse any > "$work/main-again.txt") ||
	fail "main after the pull requests: the plan failed"
builds=$(sed -n 's/^\([0-9]*\) build, .*/\1/p' "$work/main-again.txt")
[ "$builds" = 0 ] || { cat "$work/main-again.txt" >&2
	fail "main after two pull requests plans $builds builds, not 0"; }
echo "main       after two pull requests: a fresh clone plans 0 builds"
gh_env push refs/tags/v13.0.1
workflow tag v13.0.1 "" 'release:bindings[root=bindings-13]' v13.0.1
d=$(runner v13.0.1)
(cd "$d" && "$ripple" release v13.0.1 --dry-run > "$work/release.txt") ||
	{ cat "$work/release.txt" >&2; fail "tag: release --dry-run failed"; }
echo "tag        release v13.0.1 --dry-run: releasable (fresh clone, remote cache only)"
refused=$(awk '$3 == 401 || $3 == 403' "$ngx/access.log" | wc -l)
[ "$refused" = 0 ] || fail "the server refused $refused writes of jobs that hold their credential"
pr_ac=$(awk '$1 == "PUT" && $2 ~ /^\/d\/pull-/ && $3 == 201' "$ngx/access.log" | wc -l)
echo "server     $pr_ac AC entries in pull requests' domains, none refused"
