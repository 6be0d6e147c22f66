#!/bin/bash
# examples/github/rehearse.sh [DIR]
#
# Play ripple's reusable workflows (.github/workflows/ripple-ci.yml and
# ripple-tag.yml, which the demo's examples/github/ci.yml and tag.yml call)
# on this machine, as GitHub would run them, with the environment GitHub
# gives each job (GITHUB_ACTIONS, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
# GITHUB_REF, GITHUB_BASE_REF) and the settings the workflows pass: the
# cache URL, the write credential RIPPLE_REMOTE_CACHE_HEADER where the run
# has one (and RIPPLE_REMOTE_READ_ONLY=1 where it has none, and in plan and
# gate jobs), --base auto, --github-stages 8. Every job is a fresh clone
# with an empty local cache; a real nginx on loopback is the remote cache
# (WebDAV PUT) and the package index (a PEP 503 folder with autoindex; an
# upload endpoint in front of it takes twine's uploads), the only things
# runners share; nginx serves examples/nginx/ripple-cache.conf, where only
# main's credential writes the trusted domain. The jobs of a stage run IN PARALLEL (up to RIPPLE_RUNNERS,
# default 4, at once), stages in order, then the gate.
#
# Flows, in order:
#   main       a push to main (the base: the previous record-complete commit)
#   pr         a pull request from a branch of the repository (its merge
#              checkout refs/pull/1/merge; a credential for its own domain)
#   pr2        a second one on the same version group (bindings-12); then
#              a fresh clone at main must plan 0 builds: pull requests
#              never replace main's records (trust domains)
#   fork       a pull request from a fork: no credential, reads, never writes
#              (what a later stage cannot fetch it rebuilds: a cache gap)
#   bot        a push to a bot-made pull-request/3 branch (copy-pr-bot)
#   deep       another repository whose chain needs six stages (build ..
#              build-5, test): every stage runs, none is left out
#   tag        a push of tag v13.0.2 at main's commit: the ci part for
#              releases@v13.0.2 with --tag (reusing main's records of equal
#              keys), then the release job (ripple release --dry-run, ripple
#              fetch of exactly the manifest's artifacts, SHA256SUMS), then
#              the publish job's PyPI step: twine upload to the local index;
#              the files are downloaded back and checked against SHA256SUMS
# A stage job runs ripple-ci.yml's own run: steps (stage_steps reads them;
# bash -eo pipefail as GitHub's shell: bash; an if: or uses: not played
# here is an error), its checkout a fresh clone, its action the ripple
# under test on PATH.
# Every win-64 job goes to windows-latest (checked on each matrix entry)
# and runs there with ripple.exe from the action's Windows bundle: here,
# Linux's ripple runs it as win-64 (the demo's commands are stand-ins);
# with RIPPLE_WIN_BUNDLE (a `ninja dist-windows` tarball; WINE and
# WINEPREFIX too: ninja check-windows) each such job is a Windows runner:
# the action's Windows step (tools/setup-ripple.sh) installs the bundle
# and ripple.exe runs the job under Wine, its shell scripts by
# RIPPLE_WIN_SH (a sh.exe for Wine); without RIPPLE_WIN_SH, ripple.exe's
# `run --job --dry-run --json` must equal Linux's and Linux's ripple runs
# the job.
# Prints one line per flow: jobs, nodes run, reused, rebuilt because of a
# cache gap, bytes fetched from the cache, the gate; for the tag, then one
# line per published file with its SHA-256. Without a GPU the GPU jobs
# defer their tests (exit 4), so the gate names exactly those; that is the
# expected answer here and the script checks it. GPU jobs need the pinned
# toolkits at their homes (the runner convention): empty folders stand in.
# Exit 0 when every step did what it should. Needs bash, nginx, jq, git,
# curl, python3, twine and build/ripple (RIPPLE picks the binary). DIR
# keeps the work (default: a temporary folder, removed).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ripple=${RIPPLE:-$top/build/ripple}
case $ripple in /*) ;; *) ripple=$(pwd)/$ripple ;; esac
for t in nginx jq git curl python3 twine sha256sum xargs; do
	command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] || {
		echo "rehearse: needs $t" >&2
		exit 2
	}
done
python3 -c 'import yaml' 2>/dev/null || {
	echo "rehearse: needs python3-yaml (it reads the workflows' steps)" >&2
	exit 2
}
[ -x "$ripple" ] || { echo "rehearse: no ripple at $ripple" >&2; exit 2; }
if [ $# -ge 1 ]; then
	work=$1
	mkdir -p "$work"
	keep=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ripple-rehearse.XXXXXX")
	keep=0
fi
work=$(cd "$work" && pwd)
export GIT_AUTHOR_NAME=rehearsal GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=rehearsal GIT_COMMITTER_EMAIL=ci@example.invalid
unset RIPPLE_CACHE RIPPLE_REMOTE_HEADER RIPPLE_REMOTE_CACHE_HEADER \
	RIPPLE_REMOTE_READ_ONLY RIPPLE_REF RIPPLE_TARGET_BRANCH GITHUB_BASE_REF \
	GITHUB_ACTIONS GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_REF
parallel=${RIPPLE_RUNNERS:-4}
if [ -n "${RIPPLE_WIN_BUNDLE:-}" ]; then
	WINE=${WINE:-/usr/lib/wine/wine64}
	export WINEDEBUG=-all
	[ -n "${WINEPREFIX:-}" ] || { echo "rehearse: RIPPLE_WIN_BUNDLE needs WINEPREFIX" >&2; exit 2; }
	RIPPLE_WIN_BUNDLE=$(cd "$(dirname "$RIPPLE_WIN_BUNDLE")" && pwd)/$(basename "$RIPPLE_WIN_BUNDLE")
	if [ -n "${RIPPLE_WIN_SH:-}" ]; then
		# The actions' PATH on the runner: Git for Windows' sh.exe and
		# its usr/bin; here the stand-in's folder and Debian's tools,
		# which Wine puts before its own folders.
		winpath() { printf 'Z:%s' "$1" | tr / '\\'; }
		sh_dir=$(cd "$(dirname "$RIPPLE_WIN_SH")" && pwd)
		WINEPATH="$(winpath "$sh_dir");$(winpath /usr/bin);$(winpath /bin)"
		export WINEPATH
	fi
fi

fail() {
	echo "rehearse: $*" >&2
	exit 1
}

# --- nginx: the remote cache, the package index and its upload door ------
ngx=$work/nginx
mkdir -p "$ngx/root" "$ngx/tmp" "$ngx/index"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
free_port() { echo $(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000 )); }
# twine speaks the legacy upload API (multipart POST); this writes each
# file into the PEP 503 folder index/NORMALIZED-NAME/ that nginx serves.
cat > "$ngx/upload.py" <<'PY'
import email.parser, email.policy, http.server, os, re, sys
root = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        head = b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n"
        msg = email.parser.BytesParser(policy=email.policy.default).parsebytes(head + body)
        name = content = fname = None
        for part in msg.iter_parts():
            field = part.get_param("name", header="content-disposition")
            if field == "name":
                name = part.get_content().strip()
            elif field == "content":
                fname = os.path.basename(part.get_filename() or "")
                content = part.get_payload(decode=True)
        if not name or not fname or content is None or fname.startswith("."):
            self.send_response(400); self.end_headers(); return
        project = re.sub(r"[-_.]+", "-", name).lower()
        os.makedirs(os.path.join(root, project), exist_ok=True)
        path = os.path.join(root, project, fname)
        if os.path.exists(path):
            self.send_response(409); self.end_headers(); return
        with open(path + ".part", "wb") as f:
            f.write(content)
        os.rename(path + ".part", path)
        self.send_response(200); self.end_headers()
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
start_nginx() {
	port=$(free_port)
	upport=$(free_port)
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
    location /simple/ {
      alias $ngx/index/;
      autoindex on;
    }
    location /legacy/ {
      proxy_pass http://127.0.0.1:$upport;
    }
    location /gh/ {
      alias $ngx/gh/;
    }
  }
}
EOF
	"$nginx_bin" -c "$ngx/nginx.conf" -p "$ngx" 2>/dev/null
}
# The documented credentials (examples/nginx/ripple-cache.conf): main's
# and tags' workflows write the trusted domain, pull requests their own.
# (Hashes as `openssl passwd -6 main-secret` and `... pr-secret` make them.)
main_secret=main-secret pr_secret=pr-secret
echo 'main:$6$ripplemain$k09R1JDX1BQOHjGvCRwm/P71iXdbBngGC.nDoLJfDOaInctQgdF.K/R.HwURP3q6Tfoin51sDyieZCunlFphx1' \
	> "$ngx/ripple-trusted.htpasswd"
cp "$ngx/ripple-trusted.htpasswd" "$ngx/ripple-writers.htpasswd"
echo 'pr:$6$ripplepr$ErGf72pnr8z0d6Cyn9u7wUPEAQ7Viwd3/WOX7mQDHWdFAVjg5WDtDJIw.soiWkwEncjcBF9B25PsPWc2d0UiL0' \
	>> "$ngx/ripple-writers.htpasswd"
trusted="Authorization: Basic $(printf main:%s "$main_secret" | base64 -w0)"
prcred="Authorization: Basic $(printf pr:%s "$pr_secret" | base64 -w0)"
tries=0
until start_nginx; do
	tries=$((tries + 1))
	[ $tries -lt 20 ] || fail "nginx did not start (see $ngx/error.log)"
done
python3 "$ngx/upload.py" "$upport" "$ngx/index" 2> "$ngx/upload.log" &
uppid=$!
cleanup() {
	[ -f "$ngx/nginx.pid" ] && kill "$(cat "$ngx/nginx.pid")" 2>/dev/null
	kill "$uppid" 2>/dev/null
	[ $keep = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
url=http://127.0.0.1:$port
# "GitHub" for the action: the Windows bundle attached to the release that
# ripple-ci.yml's ripple-version names (its default, v0, as a caller's
# ci.yml leaves it), named as the action asks for it.
if [ -n "${RIPPLE_WIN_BUNDLE:-}" ]; then
	rv=$(python3 -c 'import sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
print(w.get("on", w.get(True))["workflow_call"]["inputs"]["ripple-version"]["default"])' \
		"$top/.github/workflows/ripple-ci.yml")
	rel=$ngx/gh/ripple-build/ripple/releases/download/$rv
	mkdir -p "$rel"
	cp "$RIPPLE_WIN_BUNDLE" "$rel/ripple-${rv#v}-windows-x86_64.tar.gz"
	cp "$RIPPLE_WIN_BUNDLE.sha256" "$rel/ripple-${rv#v}-windows-x86_64.tar.gz.sha256"
	export RIPPLE_SETUP_URL=$url/gh
fi

# --- the repositories -------------------------------------------------
# The runner convention for GPU jobs: each pinned toolkit at its home.
mkdir -p "$work/toolkits/cuda-12.9" "$work/toolkits/cuda-13.0"
RIPPLE_DEMO_CTK12_HOME=$work/toolkits/cuda-12.9 \
RIPPLE_DEMO_CTK13_HOME=$work/toolkits/cuda-13.0 \
	"$top/examples/cuda-bindings/make-demo-repo" "$work/origin" > /dev/null
origin=$work/origin
git -C "$origin" config receive.denyCurrentBranch ignore
# The release commit on main: 13.0.2's notes. main's CI runs here, then the
# tag v13.0.2 is pushed at this very commit and reuses main's records.
tagname=v13.0.2
notes=cuda_bindings/docs/source/release/13.0.2-notes.rst
printf 'cuda-bindings 13.0.2 release notes\n%s\n\nBuilt against CUDA 13.0.2.\n' \
	"==================================" > "$origin/$notes"
git -C "$origin" add "$notes"
git -C "$origin" commit -q -m "docs: 13.0.2 release notes"
main=$(git -C "$origin" rev-parse main)
# A pull request's merge checkout, as GitHub makes it: refs/pull/N/merge.
pull_request() {	# pull_request N BRANCH
	d=$work/merge-$1
	git clone -q "$origin" "$d"
	git -C "$d" checkout -q --detach origin/main
	git -C "$d" merge -q --no-ff --no-edit "origin/$2" > /dev/null
	git -C "$d" push -q origin "HEAD:refs/pull/$1/merge" \
		"origin/$2:refs/pull/$1/head"
	rm -rf "$d"
}
pull_request 1 pr/bindings-12-fix
# A second pull request on the bindings-12 line (the version group of
# artifact:python-meta[root=bindings-12]), one commit off main.
d=$work/second-pr
git clone -q "$origin" "$d"
git -C "$d" checkout -q -b pr/bindings-12-more origin/main
echo '# and cuMemGetInfo too' >> "$d/cuda_bindings_12/cuda/bindings/driver.pyx"
git -C "$d" commit -qam "bindings-12: note cuMemGetInfo"
git -C "$d" push -q origin pr/bindings-12-more
rm -rf "$d"
pull_request 4 pr/bindings-12-more
# The fork's pull request changes the noarch pathfinder wheel that every
# platform wheel needs: with no credential nothing is published, so each
# stage-2 job meets a cache gap and rebuilds it (slower, never a failure).
pull_request 2 pr/pathfinder-src
git -C "$origin" branch -q pull-request/3 pr/core-src

# The deep repository: noarch a -> linux b -> noarch c -> linux d ->
# noarch e -> test t: build, build-2, ..., build-5, test.
deep=$work/deep-origin
mkdir -p "$deep/src"
cat > "$deep/ripple.yml" <<'EOF'
version: 1
sources:
  src: {paths: [src/**]}
axes:
  platform: [linux-64]
artifacts:
  a: {inputs: [src], command: [sh, -c, 'mkdir -p out/a && cat src/x > out/a/a'], outputs: [out/a/a]}
  b:
    each: {platform: [linux-64]}
    needs: [a]
    command: [sh, -c, 'mkdir -p out/b && cat out/a/a > out/b/b && echo b >> out/b/b']
    outputs: [out/b/b]
  c: {needs: [b], command: [sh, -c, 'mkdir -p out/c && cat out/b/b > out/c/c && echo c >> out/c/c'], outputs: [out/c/c]}
  d:
    each: {platform: [linux-64]}
    needs: [c]
    command: [sh, -c, 'mkdir -p out/d && cat out/c/c > out/d/d && echo d >> out/d/d']
    outputs: [out/d/d]
  e: {needs: [d], command: [sh, -c, 'mkdir -p out/e && cat out/d/d > out/e/e && echo e >> out/e/e'], outputs: [out/e/e]}
tests:
  t: {needs: [e], command: [sh, -c, 'grep -q e out/e/e']}
targets:
  ci: [artifacts, tests]
EOF
echo x > "$deep/src/x"
printf '.ripple/\nout/\n' > "$deep/.gitignore"
git -C "$deep" init -q -b main
git -C "$deep" add -A
git -C "$deep" commit -q -m "a chain of six stages"

# --- one runner: a fresh clone at a ref, as actions/checkout makes it ----
runner() {	# runner ORIGIN REF [wine]: print the path of a fresh checkout
	d=$(mktemp -d "$work/runner.XXXXXX")/clone
	# With the runner's HOME: a Windows job's step before the checkout
	# sets core.autocrlf, core.eol and core.symlinks there (Git for
	# Windows' defaults would make CRLF files and links as files). Under
	# Wine (third argument) links cannot be shown: Wine 8 makes no NTFS
	# links and reads a Linux link as the file it names, which ripple.exe
	# sees as a changed file; that checkout holds committed links as files
	# of their text (core.symlinks false), and ripple.exe then publishes
	# nothing from it (docs/windows.md): RIPPLE_WIN_SH's full runs suit
	# repositories without committed links, which the demo is not.
	git ${3:+-c core.symlinks=false} clone -q --no-local "$1" "$d"
	[ -z "${3:-}" ] || git -C "$d" config core.symlinks false
	case $2 in
	refs/pull/*)
		git -C "$d" fetch -q origin "$2:refs/remotes/pull/merge"
		git -C "$d" checkout -q --detach refs/remotes/pull/merge ;;
	refs/tags/*)
		git -C "$d" checkout -q --detach "$2" ;;
	refs/heads/*)
		b=${2#refs/heads/}
		git -C "$d" checkout -q -B "$b" "origin/$b" ;;
	esac
	echo "$d"
}

gh_gets() {	# Windows bundles the action downloaded from "GitHub" so far
	grep -c '^GET /gh/.*-windows-x86_64\.tar\.gz 200 ' "$ngx/access.log" \
		2>/dev/null || true
}
bytes_fetched() {	# GET bodies of CAS blobs served so far (any domain's)
	awk '$1 == "GET" && $2 ~ /^\/(d\/[^\/]*\/)?cas\// && $3 == 200 {
		b += $4 } END { print b + 0 }' "$ngx/access.log" 2>/dev/null ||
		echo 0
}

# The environment GitHub gives the jobs of one workflow run.
flow_env() {	# flow_env EVENT REF EVENT_JSON [BASE_REF]
	export GITHUB_ACTIONS=true GITHUB_EVENT_NAME=$1 GITHUB_REF=$2
	export GITHUB_EVENT_PATH=$work/$flow.event.json
	printf '%s\n' "$3" > "$GITHUB_EVENT_PATH"
	if [ -n "${4:-}" ]; then export GITHUB_BASE_REF=$4; else unset GITHUB_BASE_REF; fi
	export RIPPLE_REMOTE_CACHE=$url
}

# One matrix entry (run by xargs, several at once); its exit code in a file.
# A win-64 job goes to windows-latest (the matrix entry's runs-on, checked
# in workflow()). Without RIPPLE_WIN_BUNDLE, Linux's ripple runs its nodes
# as win-64 (--platform; the demo's commands are stand-ins that run
# anywhere). With it (ninja check-windows: the dist-windows bundle), the
# job does what a windows-latest runner does: action.yml's first step,
# run as GitHub runs it with RUNNER_OS=Windows, downloads the Windows
# bundle of the release ripple-ci.yml's ripple-version names (v0) from
# nginx standing in for GitHub, checks its SHA-256 and installs it into
# the runner's tool cache, and ripple.exe from there runs
# under Wine ($WINE): with RIPPLE_WIN_SH (a sh.exe for Wine standing in
# for Git for Windows': tests/windows/sh.c) the job itself; without one,
# before the stage starts (so that no job publishes in between),
# `ripple.exe run --job --dry-run --json` must print what Linux's ripple
# prints for the job (the same nodes, keys and decisions; win_dry), and
# Linux's ripple then runs it as the stand-in.
win_setup() {	# win_setup RUNNER_DIR: the action's first step, print ripple.exe
	# action.yml's release step (stage_steps wrote its run: text and its
	# env:, evaluated for the stage job's `with:`) as GitHub runs it, on
	# a Windows runner whose "GitHub" is nginx (RIPPLE_SETUP_URL).
	(set -a; . "$work/stage-steps/action-env"; set +a
	 RUNNER_OS=Windows RUNNER_ARCH=X64 RUNNER_TOOL_CACHE="$1/tool" \
	 RUNNER_TEMP="$1" GITHUB_PATH="$1/github-path" \
	 GITHUB_OUTPUT="$1/github-output" GITHUB_ACTION_PATH=$top \
	 RIPPLE_SETUP_RUN="$WINE" \
	 bash --noprofile --norc -eo pipefail \
		-c "$(cat "$work/stage-steps/action-release")") \
		> "$1/setup.log" 2>&1 &&
	grep -qx found=true "$1/github-output" &&
	echo "$(cat "$1/github-path")/ripple.exe"
}
win_dry() {	# win_dry STAGE-FILE: ripple.exe's dry run of each win-64 job
	grep -q ' win-64$' "$1" || return 0
	d=$(runner "$repo" "$GITHUB_REF" wine)
	exe=$(win_setup "$(dirname "$d")") || {
		cat "$(dirname "$d")/setup.log" >&2
		fail "$flow: the action's Windows step failed"
	}
	while read -r j pf; do
		[ "$pf" = win-64 ] || continue
		(cd "$d" && $WINE "$exe" run "$target" --job "$j" \
			${tag:+--tag "$tag"} --dry-run --json \
			> "$work/$flow.$j.win.json" 2> "$work/$flow.$j.win.log") ||
			{ cat "$work/$flow.$j.win.log" >&2
			  fail "$flow: ripple.exe run --job $j --dry-run failed"; }
		(cd "$d" && "$ripple" run "$target" --job "$j" \
			--platform win-64 ${tag:+--tag "$tag"} --dry-run --json \
			> "$work/$flow.$j.lin.json" 2>> "$work/$flow.$j.win.log") ||
			fail "$flow: run --job $j --platform win-64 --dry-run failed"
		cmp -s "$work/$flow.$j.lin.json" "$work/$flow.$j.win.json" || {
			diff "$work/$flow.$j.lin.json" "$work/$flow.$j.win.json" >&2
			fail "$flow: ripple.exe's dry run of $j differs from Linux's"; }
		echo dry > "$work/$flow.$j.how"
	done < "$1"
}
job() {	# job JOB PLATFORM: one runner running one matrix entry
	j=$1 pf=$2
	win= os=Linux
	[ "$pf" != win-64 ] || os=Windows
	[ "$pf" != win-64 ] || [ -z "${RIPPLE_WIN_SH:-}" ] || win=windows
	log=$work/$flow.$j.log
	home=$work/home.$flow.$j
	mkdir -p "$home"
	host_pf= rip=$ripple
	case $pf in
	linux-aarch64) host_pf=$pf ;;
	win-64) host_pf=$pf ;;
	esac
	# The stage job's steps (ripple-ci.yml, read by stage_steps): its
	# run: steps before the checkout, on this runner's OS, with this
	# runner's HOME (git config --global lands there); the checkout; the
	# action; then its run: steps in the clone, `ripple` on PATH being
	# this runner's (a wrapper adding --json for the counts, and
	# --platform for a stand-in).
	rc=0
	step_all pre "$os" "$home" "$work" > /dev/null 2> "$log" ||
		{ echo 96 > "$work/$flow.$j.rc"; return; }
	d=$(HOME=$home runner "$repo" "$GITHUB_REF" $win)
	rt=$(dirname "$d")
	if [ -n "$win" ]; then
		exe=$(win_setup "$rt") || {
			cat "$rt/setup.log" > "$log"
			echo 98 > "$work/$flow.$j.rc"
			return
		}
		rip="$WINE $exe" host_pf=
		echo run > "$work/$flow.$j.how"
	fi
	mkdir -p "$rt/bin" "$rt/temp"
	printf '#!/bin/sh\nexec %s "$@" %s --json\n' "$rip" \
		"${host_pf:+--platform $host_pf}" > "$rt/bin/ripple"
	chmod 755 "$rt/bin/ripple"
	(cd "$d" && PATH=$rt/bin:$PATH RUNNER_TEMP=$rt/temp JOB=$j \
		RUN=gh-$flow TARGET=$target TAG=$tag \
		step_all post "$os" "$home" "$d" \
		> "$work/$flow.$j.json" 2>> "$log") || rc=$?
	echo "$rc" > "$work/$flow.$j.rc"
}
# The run: steps of ripple-ci.yml's stage jobs, in $work/stage-steps/: one
# file per step, named pre-N or post-N (before the checkout, after the
# action), with its `if:` in N.if. Every stage job must have the same
# steps, and an `if:` the rehearsal does not know is an error, so a change
# to the workflow is played or refused here, never skipped unseen.
stage_steps() {
	python3 - "$top/.github/workflows/ripple-ci.yml" "$work/stage-steps" <<'PY'
import os, re, shlex, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
stages = [k for k in wf["jobs"] if k.startswith("stage-")]
first = wf["jobs"]["stage-1"]["steps"]
for k in stages:
    if wf["jobs"][k]["steps"] != first:
        sys.exit("rehearse: %s's steps differ from stage-1's" % k)
known = {"": "always", "runner.os == 'Windows'": "windows",
         "failure()": "failure"}
where, n = "pre", 0
for st in first:
    cond = st.get("if", "")
    if cond not in known:
        sys.exit("rehearse: a stage step's if: %r is not played here" % cond)
    uses = st.get("uses", "")
    if uses.startswith("actions/checkout@"):
        where = "checkout"
        continue
    if uses.startswith("ripple-build/ripple@"):
        where = "post"
        continue
    if uses:
        if known[cond] != "failure":
            sys.exit("rehearse: a stage step uses %s, not played here" % uses)
        continue
    if where == "checkout":
        sys.exit("rehearse: a run: step between the checkout and the action")
    n += 1
    with open(os.path.join(out, "%s-%d" % (where, n)), "w") as f:
        f.write(st["run"])
    with open(os.path.join(out, "%s-%d.if" % (where, n)), "w") as f:
        f.write(known[cond])
# The action's first step (id release: the one a Windows runner stops
# after), its env: evaluated for the stage job's with: and the workflow's
# input defaults (a caller passes none), github.action_repository as
# ripple's.
act = yaml.safe_load(open(os.path.join(os.path.dirname(sys.argv[1]),
                                       "..", "..", "action.yml")))
step = act["runs"]["steps"][0]
if step.get("id") != "release":
    sys.exit("rehearse: action.yml's first step is not 'release'")
uses = [st for st in first if st.get("uses", "").startswith("ripple-build/ripple@")][0]
defaults = {k: str(v.get("default", ""))
            for k, v in wf.get("on", wf.get(True))["workflow_call"]["inputs"].items()}
def expr(text, scope):
    m = re.fullmatch(r"\$\{\{ *([a-z_.-]+) *\}\}", str(text))
    if not m:
        return str(text)
    name = m.group(1)
    if name in scope:
        return scope[name]
    sys.exit("rehearse: %r is not played here" % text)
wf_scope = {"inputs." + k: v for k, v in defaults.items()}
with_ = {k: expr(v, wf_scope) for k, v in (uses.get("with") or {}).items()}
scope = {"inputs." + k: with_.get(k, str(v.get("default", "")))
         for k, v in act["inputs"].items()}
scope["github.action_repository"] = "ripple-build/ripple"
with open(os.path.join(out, "action-release"), "w") as f:
    f.write(step["run"])
with open(os.path.join(out, "action-env"), "w") as f:
    for k, v in (step.get("env") or {}).items():
        f.write("%s=%s\n" % (k, shlex.quote(expr(v, scope))))
PY
}
step_all() {	# step_all pre|post OS HOME DIR: run those steps as GitHub does
	for f in "$work/stage-steps/$1"-*; do
		[ -e "$f" ] || continue
		case $f in *.if) continue ;; esac
		case $(cat "$f.if") in
		always) ;;
		windows) [ "$2" = Windows ] || continue ;;
		*) continue ;;
		esac
		(cd "$4" && HOME=$3 RUNNER_OS=$2 \
			bash --noprofile --norc -eo pipefail -c "$(cat "$f")") ||
			return
	done
}
export -f job runner win_setup step_all
export ripple work top RIPPLE_WIN_BUNDLE RIPPLE_WIN_SH WINE

stage_steps || fail "ripple-ci.yml's stage steps cannot be played"
grep -q 'ripple run' "$work"/stage-steps/post-* ||
	fail "ripple-ci.yml's stage jobs run no ripple run step"

workflow() {	# workflow ORIGIN TARGET [TAG]: plan, stages, gate
	repo=$1 target=$2 tag=${3:-}
	export repo target tag flow
	out=$work/$flow.github-output
	: > "$out"
	before=$(bytes_fetched)
	d=$(runner "$repo" "$GITHUB_REF")
	(cd "$d" && RIPPLE_REMOTE_READ_ONLY=1 "$ripple" plan "$target" \
		--base auto ${tag:+--tag "$tag"} --github-stages 8 \
		--github-output "$out" \
		--github-step-summary "$work/$flow.summary.md" \
		> "$work/$flow.plan.txt" 2> "$work/$flow.plan.log") ||
		{ cat "$work/$flow.plan.log" >&2; fail "$flow: the plan job failed"; }
	reused=$(sed -n 's/^plan=//p' "$out" | jq '.reuse | length')
	stages=$(sed -n 's/^stages=//p' "$out")
	jobs=0 ran=0 gaps=0 deferred=0 wins=0 exe_runs=0 exe_dry=0
	gh_before=$(gh_gets)
	for k in 1 2 3 4 5 6 7 8; do
		[ "$(sed -n "s/^has-stage-$k=//p" "$out")" = true ] || continue
		m=$(sed -n "s/^matrix-stage-$k=//p" "$out")
		echo "$m" | jq -e '.include | length > 0' > /dev/null ||
			fail "$flow: has-stage-$k=true with no matrix"
		echo "$m" | jq -r '.include[] | "\(.job) \(.platform // "-")"' \
			> "$work/$flow.stage-$k"
		# win-64 jobs go to Windows runners, and only they do.
		bad=$(echo "$m" | jq -r '.include[] | select((.platform ==
			"win-64") != (.["runs-on"] == ["windows-latest"])) |
			"\(.job) \(.["runs-on"])"')
		[ -z "$bad" ] || fail "$flow: runs-on of $bad"
		wins=$((wins + $(echo "$m" | jq '[.include[] |
			select(.platform == "win-64")] | length')))
		if [ -n "${RIPPLE_WIN_BUNDLE:-}" ] && [ -z "${RIPPLE_WIN_SH:-}" ]; then
			win_dry "$work/$flow.stage-$k"
		fi
		xargs -P "$parallel" -L 1 bash -c 'job "$0" "$1"' \
			< "$work/$flow.stage-$k"
		while read -r j pf; do
			jobs=$((jobs + 1))
			rc=$(cat "$work/$flow.$j.rc")
			case $rc in
			0) ;;
			4) deferred=$((deferred + 1)) ;;
			*) cat "$work/$flow.$j.log" >&2
			   fail "$flow: job $j failed (exit $rc)" ;;
			esac
			ran=$((ran + $(jq '.counts.built + .counts.tested' \
				"$work/$flow.$j.json")))
			case $(cat "$work/$flow.$j.how" 2>/dev/null) in
			run) exe_runs=$((exe_runs + 1)) ;;
			dry) exe_dry=$((exe_dry + 1)) ;;
			esac
			gaps=$((gaps + $(jq '.counts.gap_rebuilds // 0' \
				"$work/$flow.$j.json")))
		done < "$work/$flow.stage-$k"
	done
	if [ -z "${RIPPLE_REMOTE_CACHE_HEADER:-}" ]; then
		# ripple-ci.yml's gate without a write credential (a fork): the
		# run published nothing, so the gate is its jobs' results.
		gate="the jobs' results (no credential: nothing published): $((jobs - deferred)) ok, $deferred deferred GPU tests (no GPU here)"
	else
		d=$(runner "$repo" "$GITHUB_REF")
		grc=0
		(cd "$d" && RIPPLE_REMOTE_READ_ONLY=1 "$ripple" gate "$target" \
			--json > "$work/$flow.gate.json" \
			2> "$work/$flow.gate.log") || grc=$?
		missing=$(jq -r '.missing[].id' "$work/$flow.gate.json" | sort)
		not_gpu=$(echo "$missing" | grep -v '^$' | grep -v \
			'^test:\(bindings-gpu\|bindings-floor\|core-tests\|cuda-smoke\)' ||
			true)
		[ -z "$not_gpu" ] ||
			fail "$flow: the gate misses non-GPU nodes: $not_gpu"
		[ $grc = 0 ] || [ -n "$missing" ] || fail "$flow: gate exit $grc"
		if [ $grc = 0 ]; then
			gate=ok
		else
			gate="$(echo "$missing" | wc -l) GPU nodes deferred (no GPU here)"
		fi
	fi
	printf '%-5s stages %d  jobs %3d (windows-latest %2d)  nodes run %3d  reused %3d  gap rebuilds %2d  fetched %8d bytes  gate: %s\n' \
		"$flow" "$stages" "$jobs" "$wins" "$ran" "$reused" "$gaps" \
		$(( $(bytes_fetched) - before )) "$gate"
	if [ -n "${RIPPLE_WIN_BUNDLE:-}" ] && [ "$wins" -gt 0 ]; then
		[ $((exe_runs + exe_dry)) = "$wins" ] ||
			fail "$flow: $wins windows-latest jobs, $exe_runs run and $exe_dry dry runs by ripple.exe"
		gh=$(( $(gh_gets) - gh_before ))
		[ "$gh" -gt 0 ] ||
			fail "$flow: the action downloaded no Windows bundle"
		if [ "$exe_runs" -gt 0 ]; then
			printf '%-5s windows-latest: %d jobs run by ripple.exe under Wine, installed by the action from release %s (%d downloads, SHA-256 checked)\n' \
				"$flow" "$exe_runs" "$rv" "$gh"
		else
			printf '%-5s windows-latest: %d jobs: the action installed release %s'"'"'s bundle (%d downloads); ripple.exe'"'"'s run --job --dry-run the same as Linux'"'"'s (no sh.exe for Wine: Linux'"'"'s ripple ran them)\n' \
				"$flow" "$exe_dry" "$rv" "$gh"
		fi
	fi
}


flow=main
flow_env push refs/heads/main \
	"{\"before\": \"$(git -C "$origin" rev-parse main~1)\", \"repository\": {\"default_branch\": \"main\"}}"
export RIPPLE_REMOTE_CACHE_HEADER=$trusted
unset RIPPLE_REMOTE_READ_ONLY
workflow "$origin" ci

flow=pr
flow_env pull_request refs/pull/1/merge \
	'{"number": 1, "pull_request": {"number": 1, "base": {"ref": "main"}}, "repository": {"default_branch": "main"}}' main
export RIPPLE_REMOTE_CACHE_HEADER=$prcred
workflow "$origin" ci

flow=pr2
flow_env pull_request refs/pull/4/merge \
	'{"number": 4, "pull_request": {"number": 4, "base": {"ref": "main"}}, "repository": {"default_branch": "main"}}' main
workflow "$origin" ci
# Both pull requests rebuilt the bindings-12 version group into their own
# trust domains: main's records are untouched, a fresh clone at main
# builds nothing (before trust domains: 57 of 114 nodes).
flow_env push refs/heads/main '{"repository": {"default_branch": "main"}}'
d=$(runner "$origin" refs/heads/main)
(cd "$d" && RIPPLE_REMOTE_READ_ONLY=1 "$ripple" plan ci --reuse any \
	> "$work/main-again.txt" 2>&1) ||
	fail "main after the pull requests: the plan failed"
builds=$(sed -n 's/^\([0-9]*\) build, .*/\1/p' "$work/main-again.txt")
[ "$builds" = 0 ] || { cat "$work/main-again.txt" >&2
	fail "main after two pull requests plans $builds builds, not 0"; }
echo "main  after two pull requests: a fresh clone plans 0 builds"

flow=fork
flow_env pull_request refs/pull/2/merge \
	'{"number": 2, "pull_request": {"number": 2, "base": {"ref": "main"}, "head": {"repo": {"fork": true}}}, "repository": {"default_branch": "main"}}' main
unset RIPPLE_REMOTE_CACHE_HEADER
export RIPPLE_REMOTE_READ_ONLY=1	# what ripple-ci.yml sets without one
puts_before=$(grep -c '^PUT ' "$ngx/access.log" || true)
workflow "$origin" ci
[ "$gaps" -gt 0 ] ||
	fail "fork: no cache gap rebuilt, though nothing of its own was published"
puts_after=$(grep -c '^PUT ' "$ngx/access.log" || true)
[ "$puts_before" = "$puts_after" ] ||
	fail "fork: $((puts_after - puts_before)) writes to the cache"
unset RIPPLE_REMOTE_READ_ONLY

flow=bot
flow_env push refs/heads/pull-request/3 \
	'{"before": "0000000000000000000000000000000000000000", "repository": {"default_branch": "main"}}'
export RIPPLE_REMOTE_CACHE_HEADER=$prcred
workflow "$origin" ci

flow=deep
flow_env push refs/heads/main \
	'{"before": "0000000000000000000000000000000000000000", "repository": {"default_branch": "main"}}'
export RIPPLE_REMOTE_CACHE_HEADER=$trusted
workflow "$deep" ci
[ "$stages" = 6 ] || fail "deep: $stages stages, not 6"
[ "$ran" = 6 ] || fail "deep: $ran nodes run, not all 6"

flow=tag
git -C "$origin" tag -a -m "cuda-bindings 13.0.2" "$tagname" "$main"
flow_env push "refs/tags/$tagname" \
	'{"before": "0000000000000000000000000000000000000000", "repository": {"default_branch": "main"}}'
export RIPPLE_REMOTE_CACHE_HEADER=$trusted
workflow "$origin" "releases@$tagname" "$tagname"
# The release job (ripple-tag.yml's steps, in their order).
d=$(runner "$origin" "refs/tags/$tagname")
pub=$work/publish
(
	cd "$d"
	export RIPPLE_REMOTE_READ_ONLY=1
	"$ripple" release "$tagname" --dry-run --manifest "$work/release.json"
	jq -r '.artifacts[].node' "$work/release.json" |
		xargs -d '\n' "$ripple" fetch
	"$ripple" release "$tagname" --dry-run --artifacts . \
		--manifest "$work/release.json" --sha256sums "$work/SHA256SUMS"
	mkdir -p "$pub/dist"
	jq -r '.artifacts[].locators[]' "$work/release.json" |
		xargs -d '\n' cp -t "$pub/dist"
	cp "$work/SHA256SUMS" "$work/release.json" "$pub/"
	cd "$pub/dist" && sha256sum -c ../SHA256SUMS
) > "$work/release.log" 2>&1 ||
	{ cat "$work/release.log" >&2; fail "tag: the release job failed"; }
# The publish job's PyPI step: twine, to the local index.
twine upload --non-interactive --disable-progress-bar -u rehearsal \
	-p rehearsal --repository-url "$url/legacy/" "$pub"/dist/* \
	> "$work/twine.log" 2>&1 ||
	{ cat "$work/twine.log" >&2; fail "tag: twine upload failed"; }
# What the index now serves, downloaded back (PEP 503: /simple/PROJECT/).
n=0
while read -r sum name; do
	project=$(echo "$name" | sed 's/-[0-9].*//' | tr '_.' '--' |
		tr '[:upper:]' '[:lower:]')
	curl -fsS "$url/simple/" | grep -q "href=\"$project/\"" ||
		fail "tag: /simple/ does not list $project"
	curl -fsS "$url/simple/$project/" | grep -q "href=\"$name\"" ||
		fail "tag: /simple/$project/ does not list $name"
	got=$(curl -fsS "$url/simple/$project/$name" | sha256sum | cut -c1-64)
	[ "$got" = "$sum" ] || fail "tag: $name is $got on the index, not $sum"
	printf 'tag   published %-60s sha256 %s\n' "$project/$name" "$sum"
	n=$((n + 1))
done < "$pub/SHA256SUMS"
[ $n -gt 0 ] || fail "tag: nothing published"
echo "tag   release $tagname: --dry-run ok, $n files fetched, checked, uploaded with twine and served by the index"

# Months later: the cache pruned of everything but tag records (the
# pruning recipe of docs/github.md, with age 0), the release still checks
# and its files still come down, bytes verified.
sh "$top/examples/nginx/prune.sh" "$ngx/root" 0 > "$work/prune.log" 2>&1 ||
	{ cat "$work/prune.log" >&2; fail "prune failed"; }
d=$(runner "$origin" "refs/tags/$tagname")
(
	cd "$d"
	export RIPPLE_REMOTE_READ_ONLY=1
	"$ripple" release "$tagname" --dry-run --manifest "$work/release2.json"
	jq -r '.artifacts[].node' "$work/release2.json" |
		xargs -d '\n' "$ripple" fetch
	"$ripple" release "$tagname" --dry-run --artifacts . \
		--sha256sums "$work/SHA256SUMS.2"
) > "$work/release2.log" 2>&1 ||
	{ cat "$work/prune.log" "$work/release2.log" >&2
	  fail "prune: the release no longer checks after pruning"; }
cmp -s "$work/SHA256SUMS.2" "$pub/SHA256SUMS" ||
	fail "prune: the release's files changed after pruning"
echo "prune $(sed -n 's/^prune [^:]*: //p' "$work/prune.log"); release $tagname still checks and fetches"
refused=$(awk '($3 == 401 || $3 == 403) && $1 == "PUT"' "$ngx/access.log" | wc -l)
[ "$refused" = 0 ] ||
	fail "the server refused $refused writes (no job here writes without its credential)"
pr_ac=$(awk '$1 == "PUT" && $2 ~ /^\/d\// && $3 == 201' "$ngx/access.log" | wc -l)
echo "server $pr_ac AC entries in other refs' domains, none refused"
