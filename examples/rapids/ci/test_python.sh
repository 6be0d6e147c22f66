#!/bin/sh
# Stub of a RAPIDS ci/test_python.sh: conda or wheel, CUDA major, Python.
set -eu
mkdir -p test-logs
echo "python $1 cuda$2 py$3 ${DEPENDENCIES:-}" >> test-logs/ran.log
