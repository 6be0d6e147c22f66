#!/bin/sh
# Stub of a RAPIDS ci/build_python.sh: the conda package of python/foo,
# built against the libfoo package of its CUDA major.
set -eu
cuda=$1 py=$2
v=$(cat VERSION)
out=conda-out/cu$cuda/py$py
mkdir -p "$out"
{ cat python/foo/foo/*.py; cat conda-out/cu$cuda/libfoo-[0-9]*.conda; } \
	> "$out/foo-$v-py$py-cuda$cuda.conda"
