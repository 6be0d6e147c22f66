#!/bin/sh
# Fuzz every target (or those named) for SECONDS each and print per target
# its CPU seconds, executions, crashes, timeouts (inputs over 1 s of CPU)
# and out-of-memory inputs; exit 1 when any was found. The working corpus
# grows across runs in build/fuzz/corpus/; logs and findings go to
# build/fuzz/runs/. Issue 14 asks for at least 1800 s per target.
#   bench/fuzz.sh SECONDS [TARGET...]     (FUZZ_PARALLEL=1: all at once)
# Targets: rules pep440 cache_import pattern remote_entry. Needs clang with libFuzzer
# (./configure finds or installs it); see tests/fuzz/run.sh.
set -eu
cd "$(dirname "$0")/.."
exec tests/fuzz/run.sh "$@"
