#!/bin/sh
# examples/stub/make-synthetic.sh KIND DIR
#
# Make a small git repository in DIR shaped like a real one, for the rules
# in examples/KIND/ripple.yml when no clone of the real repository is at
# hand (docs/real-repositories.md). KIND is rmm, kvikio or numba-cuda. The
# layout, VERSION files, branches and tags follow the real project; the
# file contents are placeholders and the ci/ build scripts are stubs that
# write artifacts named as the real ones (zip wheels with a METADATA,
# .conda placeholders), versioned by $RIPPLE_VERSION. Dates are fixed, so
# commit ids repeat from run to run.
set -eu
kind=$1 dir=$2
export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.invalid
export GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
n=0
commit() {	# commit MSG: everything, at the next fixed date
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z"
	GIT_AUTHOR_DATE=$(date -u -d "2026-01-01 + $n days" +%Y-%m-%dT%H:%M:%SZ)
	export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	git add -A
	git commit -q -m "$1"
}
put() {	# put FILE TEXT
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" > "$1"
}
edit() {	# edit FILE: append a line, as a change
	echo "# change $n" >> "$1"
}

rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
git init -q -b main
printf '.ripple/\ndist/\nconda-bld/\ndocs/build/\n' > .gitignore

# A stub build: writes OUT as a zip wheel (its METADATA names NAME and
# $RIPPLE_VERSION) or a placeholder file.
put ci/stub_artifact.py 'import os, sys, zipfile
out = sys.argv[1]
name = os.path.basename(out).split("-")[0]
ver = os.environ.get("RIPPLE_VERSION", "0.0.0")
os.makedirs(os.path.dirname(out), exist_ok=True)
if out.endswith(".whl"):
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(f"{name}-{ver}.dist-info/METADATA",
                   f"Metadata-Version: 2.1\nName: {name}\nVersion: {ver}\n\n")
else:
    open(out, "w").write(f"{name} {ver}\n")'
axis() {	# axis NAME: its value in $RIPPLE_NODE
	printf '%s' 'sed -n "s/.*[[,]'"$1"'=\([^],]*\).*/\1/p"'
}

case $kind in
rmm|kvikio)
	lib=lib$kind
	stub() {	# stub SCRIPT NAME PATTERN
		put "ci/$1" "#!/bin/sh
# stub of the real $1: writes the artifact ripple expects
set -eu
cuda=\$(echo \"\$RIPPLE_NODE\" | $(axis cuda))
arch=\$(echo \"\$RIPPLE_NODE\" | $(axis arch))
plat=manylinux_2_28_x86_64; [ \"\$arch\" = arm64 ] && plat=manylinux_2_28_aarch64
v=\$RIPPLE_VERSION
exec /usr/bin/python3 ci/stub_artifact.py \"$3\""
		chmod +x "ci/$1"
	}
	stub build_cpp.sh $lib "conda-bld/cu\$cuda/\$arch/$lib-\$v-cuda\$cuda.conda"
	stub build_python.sh $kind "conda-bld/cu\$cuda/\$arch/$kind-\$v-cuda\$cuda.conda"
	if [ "$kind" = rmm ]; then
		stub build_wheel_cpp.sh ${lib}_cu12 "dist/cu\$cuda/\$arch/${lib}_cu\$cuda-\$v-py3-none-\$plat.whl"
		stub build_wheel_python.sh ${kind}_cu12 "dist/cu\$cuda/\$arch/${kind}_cu\$cuda-\$v-cp311-abi3-\$plat.whl"
	else
		stub build_wheel_cpp.sh ${lib}_cu12 "dist/cu\$cuda/\$arch/${lib}_cu\$cuda-\$v-py3-none-\$plat.whl"
		stub build_wheel_python.sh ${kind}_cu12 "dist/cu\$cuda/\$arch/${kind}_cu\$cuda-\$v-cp313-cp313-\$plat.whl"
		put ci/build_wheel.sh '#!/bin/sh'
		put ci/test_java.sh '#!/bin/sh'
		put java/pom.xml '<project/>'
	fi
	for s in build_docs.sh test_cpp.sh test_python.sh test_wheel.sh \
		 run_ctests.sh run_pytests.sh validate_wheel.sh; do
		put "ci/$s" '#!/bin/sh'
	done
	[ "$kind" = rmm ] && for s in test_cpp_debug.sh test_wheel_integrations.sh \
		 test_python_integrations.sh; do put "ci/$s" '#!/bin/sh'; done
	[ "$kind" = rmm ] && put build.sh '#!/bin/sh' && put pyproject.toml '[tool.ruff]'
	[ "$kind" = rmm ] && put ci/release/update-version.sh '#!/bin/sh'
	chmod +x ci/*.sh
	put VERSION 26.04.00
	put RAPIDS_BRANCH main
	put cmake/rapids.cmake '# cmake'
	put cpp/CMakeLists.txt 'project(lib)'
	put cpp/include/$kind/x.hpp '// header'
	put cpp/tests/x_test.cpp '// test'
	put cpp/benchmarks/b.cpp '// bench'
	put cpp/doxygen/Doxyfile '#'
	put conda/recipes/$lib/recipe.yaml 'package: {}'
	put conda/recipes/$kind/recipe.yaml 'package: {}'
	put docs/index.rst "$kind"
	put python/$lib/pyproject.toml "[project]
name = \"$lib\""
	put python/$kind/pyproject.toml "[project]
name = \"$kind\"
dependencies = [\"cuda-python>=13.0.1,<14.0\", \"$lib==26.4.*,>=0.0.0a0\"]"
	put dependencies.yaml "# matrices as rapids-dependency-file-generator reads them
# cuda_python13 cuda-python>=13.0.1,<14.0
# $lib==26.4.*"
	put python/$kind/$kind/__init__.py ''
	if [ "$kind" = rmm ]; then
		put python/$kind/$kind/tests/test_x.py 'def test(): pass'
	else
		put python/$kind/tests/test_x.py 'def test(): pass'
	fi
	put README.md "# $kind"
	commit "Update to 26.04"
	git tag v26.04.00a
	edit cpp/include/$kind/x.hpp; commit "feature"
	edit python/$kind/$kind/__init__.py; commit "python feature"
	git branch release/26.04
	put VERSION 26.06.00; commit "Update to 26.06"
	git tag v26.06.00a
	edit cpp/include/$kind/x.hpp; commit "next feature"
	git checkout -q release/26.04
	edit cpp/include/$kind/x.hpp; commit "fix for 26.04"
	git tag v26.04.00
	put VERSION 26.04.01; commit "hotfix 26.04.01"
	edit cpp/include/$kind/x.hpp; commit "hotfix"
	git tag v26.04.01
	edit cpp/include/$kind/x.hpp; commit "second fix, VERSION not bumped"
	git tag v26.04.02
	git checkout -q main
	;;
numba-cuda)
	put numba_cuda/VERSION 0.21.0
	put numba_cuda/__init__.py 'from numba_cuda._version import __version__'
	put numba_cuda/_version.py '__version__ = open("VERSION").read().strip()'
	put numba_cuda/numba/cuda/__init__.py ''
	put numba_cuda/numba/cuda/tests/test_a.py 'def test(): pass'
	put testing/Makefile 'all:'
	put pyproject.toml '[project]
name = "numba-cuda"
dynamic = ["version"]'
	put README.md '# numba-cuda'
	put LICENSE 'BSD-2-Clause'
	put LICENSE.numba 'BSD-2-Clause'
	put docs/index.rst 'numba-cuda'
	put ci/matrix.yml 'build-matrix: []'
	put ci/test-matrix.yml 'test-matrix: []'
	put ci/build_wheel.sh '#!/bin/sh'
	put ci/build_docs.sh '#!/bin/sh'
	put ci/test_wheel.sh '#!/bin/sh'
	put ci/test_simulator.sh '#!/bin/sh
echo simulator tests: stub'
	put ci/tools/run-tests '#!/bin/sh'
	chmod +x ci/*.sh ci/tools/run-tests
	commit "numba-cuda 0.21.0"
	git tag v0.21.0
	edit numba_cuda/numba/cuda/__init__.py; commit "feature"
	git branch release/0.21
	put numba_cuda/VERSION 0.22.0; commit "Bump to 0.22.0"
	edit numba_cuda/numba/cuda/__init__.py; commit "more"
	git tag v0.22.0
	edit numba_cuda/numba/cuda/__init__.py; commit "after 0.22.0"
	git tag v0.22.1
	git checkout -q release/0.21
	put numba_cuda/VERSION 0.21.1; commit "Bump to 0.21.1"
	git tag v0.21.1
	git checkout -q main
	;;
*)
	echo "make-synthetic: unknown kind '$kind' (rmm, kvikio, numba-cuda)" >&2
	exit 2 ;;
esac
