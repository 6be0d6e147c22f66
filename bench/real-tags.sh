#!/bin/sh
# bench/real-tags.sh: which real tags of rmm, kvikio, numba-cuda and
# cuda-python (the fork mdboom/cuda-python) the shipped example rules
# release, and why the others are refused (issue 25, docs/real-repositories.md).
#
#   bench/real-tags.sh MIRRORS [RIPPLE]
#
# $REAL_TAGS_RULES, when set, is a folder of NAME.yml rules used in place
# of examples/NAME/ripple.yml (to compare with older rules).
#
# MIRRORS holds bare mirrors (or clones) named rapidsai+rmm/repo,
# rapidsai+kvikio/repo, NVIDIA+numba-cuda/repo and mdboom+cuda-python/repo
# (what `fetch` leaves; `git clone --bare URL MIRRORS/rapidsai+rmm/repo`
# makes one). RIPPLE is the binary (default build/ripple). Nothing is
# built: for each tag, a clone checked out at the tag gets the example
# rules (untracked, as a team would try them first), and a CI run is
# recorded the way a workflow whose jobs built elsewhere records it:
# `ripple record --tag` for every artifact and required test of the
# release nodes the tag's family names, with placeholder files named as
# the rules' outputs name them (wheels whose METADATA and conda packages
# whose info/index.json say the version), at the version the rules give (so a tag
# whose version file disagrees is caught by `record` or the release's
# version check). Then `ripple release TAG --dry-run --use-current-rules`
# decides. Prints one Markdown row per tag: repository, tag, kind,
# releasable or refused, and the failing checks' first lines.
set -u
mirrors=${1:?usage: bench/real-tags.sh MIRRORS [RIPPLE]}
ripple=$(cd "$(dirname "${2:-build/ripple}")" && pwd)/$(basename "${2:-build/ripple}")
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# repository mirror-name rules tag:kind ...
set_rmm="rmm rapidsai+rmm rmm v26.06.00:final v26.04.00:final v24.12.01:hotfix v26.08.00a:pre-release"
set_kvikio="kvikio rapidsai+kvikio kvikio v26.06.00:final v25.02.01:hotfix v26.10.00a:pre-release"
set_numba="numba-cuda NVIDIA+numba-cuda numba-cuda v0.30.0:final v0.30.4:hotfix v0.19.2rc0:pre-release"
set_cp="cuda-python mdboom+cuda-python cuda-python v13.1.1:final v12.9.5:backport cuda-core-v0.5.1:hotfix cuda-pathfinder-v1.3.4:final v14.0.0rc1:test-tag"

# The placeholder files of one artifact node and the record command's
# arguments, from the rules' outputs (python: YAML and JSON).
cat > "$work/plan.py" <<'EOF'
import json, re, subprocess, sys, yaml

ripple, tag = sys.argv[1], sys.argv[2]
rules = yaml.safe_load(open("ripple.yml"))
graph = json.loads(subprocess.run(
    [ripple, "graph", "releases", "--rules", "ripple.yml", "--format",
     "json"], capture_output=True, text=True, check=True).stdout)
nodes = {n["id"]: n for n in graph["nodes"]}
versions = {}

def version(root):
    if root not in versions:
        r = subprocess.run([ripple, "version", root, "--rules",
                            "ripple.yml"], capture_output=True, text=True)
        versions[root] = r.stdout.strip() if r.returncode == 0 else "0"
    return versions[root]

def fill(text, node):
    axes = dict(node.get("axes", {}))
    root = axes.get("root")
    roots = rules.get("roots", {})
    def sub(m):
        name = m.group(1)
        if name == "root.name":
            return root or ""
        if name == "root.path":
            return roots.get(root, {}).get("path", ".")
        if name == "root.version":
            return version(root)
        return axes.get(name, "")
    return re.sub(r"\$\{([^}]+)\}", sub, text)

PLAT = {"amd64": "manylinux_2_28_x86_64", "arm64": "manylinux_2_28_aarch64",
        "linux-64": "manylinux_2_28_x86_64",
        "linux-aarch64": "manylinux_2_28_aarch64", "win-64": "win_amd64"}

def wheel_tags(axes):
    """The python-abi-platform part a real build's wheel name carries."""
    plat = PLAT.get(axes.get("platform") or axes.get("arch"), "any")
    py = axes.get("python")
    if py:
        t = "cp" + py.replace(".", "").replace("t", "")
        return "%s-%s%s-%s" % (t, t, "t" if py.endswith("t") else "", plat)
    return "py3-none-" + plat

def write_wheel(path, ver):
    """A zip wheel whose METADATA says what the real build's would."""
    import os, zipfile
    dist = os.path.basename(path).split("-")[0]
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (
        dist.replace("_", "-"), ver)
    if dist == "cuda_python":  # cuda_python/setup.py: ~= final, == dev
        op = "==" if any(k in ver for k in ("a", "b", "rc", "dev")) else "~="
        meta += "Requires-Dist: cuda-bindings%s%s\n" % (op, ver)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("%s-%s.dist-info/METADATA" % (dist, ver), meta + "\n")

def write_conda(path):
    """A conda package whose info/index.json says what its name says
    (a .tar.bz2 tarball, or a .conda zip of zstd tarballs): `record`
    reads the version from index.json."""
    import io, json as js, os, subprocess, tarfile, zipfile
    base = os.path.basename(path)
    ext = ".conda" if base.endswith(".conda") else ".tar.bz2"
    name, ver, build = base[:-len(ext)].rsplit("-", 2)
    index = js.dumps({"name": name, "version": ver, "build": build,
                      "build_number": 0, "depends": []}).encode()
    def tar(files):
        b = io.BytesIO()
        with tarfile.open(fileobj=b, mode="w") as t:
            for n, data in files.items():
                ti = tarfile.TarInfo(n)
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
        return b.getvalue()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    files = {"info/index.json": index}
    if ext == ".tar.bz2":
        with open(path, "wb") as f:
            import bz2
            f.write(bz2.compress(tar(files)))
        return
    zst = subprocess.run(["zstd", "-q", "-c"], input=tar(files),
                         capture_output=True, check=True).stdout
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", '{"conda_pkg_format_version": 2}')
        z.writestr("info-%s.tar.zst" % base[:-len(ext)], zst)

def files(node):
    rule = (rules.get("artifacts") or {}).get(node["rule"], {})
    ver = version(node["axes"]["root"]) if "root" in node.get("axes", {}) \
        else "0"
    out = []
    for glob in rule.get("outputs", []):
        g = fill(glob, node)
        if g.endswith(".whl"):
            g = g.replace("*", ver + "-" + wheel_tags(node["axes"]), 1)
            write_wheel(g, ver)
        elif g.endswith(".conda") or g.endswith(".tar.bz2"):
            g = g.replace("*", ver + "-h0_0", 1)
            write_conda(g)
        elif g.endswith(".tar.gz") or g.endswith(".zip"):
            g = g.replace("*", ver, 1)
        g = g.replace("**", "index.html").replace("*", "x")
        out.append(g.lstrip("./") if g.startswith("./") else g)
    return out

# Release nodes whose family would name the tag, and what they need.
want = []
for rid, n in nodes.items():
    if n["kind"] != "release":
        continue
    for dep in n.get("needs", []):
        if dep in nodes and dep not in want:
            want.append(dep)
for dep in want:
    n = nodes[dep]
    fs = files(n) if n["kind"] == "artifact" else []
    print(json.dumps({"id": dep, "files": fs}))
EOF

row() {	# row REPO TAG KIND VERDICT WHY
	printf '| %s | `%s` | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$5"
}

one_tag() {	# one_tag REPO CLONE RULES TAG KIND
	repo=$1 clone=$2 rules=$3 tag=$4 kind=$5
	cd "$clone" || return
	git checkout -q --detach "$tag" 2>/dev/null || {
		row "$repo" "$tag" "$kind" "-" "tag not in the mirror"
		return
	}
	git clean -fdxq
	cp "$rules" ripple.yml
	python3 "$work/plan.py" "$ripple" "$tag" > "$work/nodes" \
		2> "$work/plan.err" || {
		row "$repo" "$tag" "$kind" "refused" \
			"rules: $(head -c 200 "$work/plan.err" | tr '\n' ' ')"
		return
	}
	rec_err=
	while IFS= read -r line; do
		id=$(printf '%s' "$line" | python3 -c \
			'import json,sys; print(json.load(sys.stdin)["id"])')
		set -- record --run "tag-$tag" --tag "$tag" --node "$id" \
			--status ok --rules ripple.yml
		for f in $(printf '%s' "$line" | python3 -c \
			'import json,sys; print(" ".join(json.load(sys.stdin)["files"]))'); do
			mkdir -p "$(dirname "$f")"
			[ -f "$f" ] || printf 'placeholder %s\n' "$f" > "$f"
			set -- "$@" --artifact "$f"
		done
		case $id in
		release:*) continue ;;
		esac
		"$ripple" "$@" > /dev/null 2> "$work/rec.err" ||
			rec_err="${rec_err:+$rec_err; }$(head -n 1 "$work/rec.err" | cut -c1-160)"
	done < "$work/nodes"
	"$ripple" record --run "tag-$tag" --finish ok > /dev/null 2>&1
	"$ripple" release "$tag" --dry-run --use-current-rules --json \
		> "$work/rel.json" 2> /dev/null
	rc=$?
	why=$(python3 - "$work/rel.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no report: %s" % e); sys.exit()
out = []
for c in d.get("checks", []):
    if c.get("status") == "fail":
        msg = c.get("detail") or ""
        probs = c.get("problems") or []
        if probs and not msg.startswith("tag '"):
            msg = msg + ": " + str(probs[0])
        out.append("%s: %s" % (c.get("name"), msg[:180]))
print("; ".join(out) if out else "every check ok (version %s)"
      % d.get("version"))
EOF
)
	[ -n "$rec_err" ] && why="record refused: $rec_err; $why"
	if [ "$rc" = 0 ]; then
		row "$repo" "$tag" "$kind" "releasable" "$why"
	else
		row "$repo" "$tag" "$kind" "refused" "$why"
	fi
}

printf '| repository | tag | kind | verdict | why |\n|---|---|---|---|---|\n'
for set in "$set_rmm" "$set_kvikio" "$set_numba" "$set_cp"; do
	# shellcheck disable=SC2086
	set -- $set
	repo=$1 mirror=$2 ex=$3
	shift 3
	if [ ! -d "$mirrors/$mirror/repo" ]; then
		row "$repo" "-" "-" "-" "no mirror at $mirrors/$mirror/repo"
		continue
	fi
	git clone -q --shared "$mirrors/$mirror/repo" "$work/$repo" ||
		continue
	for tk in "$@"; do
		rules=$src/examples/$ex/ripple.yml
		[ -n "${REAL_TAGS_RULES:-}" ] && rules=$REAL_TAGS_RULES/$ex.yml
		one_tag "$repo" "$work/$repo" "$rules" "${tk%%:*}" "${tk#*:}"
	done
done
