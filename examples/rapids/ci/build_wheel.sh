#!/bin/sh
# Stub of a RAPIDS ci/build_wheel.sh: rewrites VERSION with the dev version
# (rapids-generate-version > ./VERSION), then builds the wheel.
set -eu
pkg=$1 cuda=$2 py=${3:-}
echo "$(cat VERSION)a42" > VERSION
v=$(cat VERSION)
if [ "$pkg" = libfoo ]; then
	out=wheel-out/cu$cuda
	mkdir -p "$out"
	{ cat VERSION; cat cpp/include/*.h cpp/src/*.cpp; } \
		> "$out/libfoo_cu$cuda-$v-py3-none-manylinux_2_28_x86_64.whl"
else
	out=wheel-out/cu$cuda/py$py
	mkdir -p "$out"
	{ cat VERSION; cat python/foo/foo/*.py; } \
		> "$out/foo_cu$cuda-$v-cp${py%%.*}${py#*.}-abi3-manylinux_2_28_x86_64.whl"
fi
