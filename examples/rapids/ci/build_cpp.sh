#!/bin/sh
# Stub of a RAPIDS ci/build_cpp.sh: one conda build of cpp/, three
# packages (libfoo, libfoo-tests, libfoo-examples), as rattler-build would
# write them. It reports, but never prints, the credentials it was passed.
set -eu
cuda=$1
v=$(cat VERSION)
out=conda-out/cu$cuda
mkdir -p "$out"
echo "sccache: bucket ${SCCACHE_BUCKET:+set}${SCCACHE_BUCKET:-unset}" | sed 's/set.*/set/'
cat cpp/include/*.h cpp/src/*.cpp > "$out/libfoo-$v-cuda$cuda.conda"
cat cpp/tests/* > "$out/libfoo-tests-$v-cuda$cuda.conda"
cat cpp/examples/* > "$out/libfoo-examples-$v-cuda$cuda.conda"
