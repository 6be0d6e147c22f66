#!/bin/sh
# tests/schemas/validate.sh OUTPUT_DIR
#
# Check every JSON document the test suite kept in OUTPUT_DIR (ninja check
# runs the suite with RIPPLE_JSON_DIR=OUTPUT_DIR; tests/support keeps each
# JSON output and its command line) against its schema in docs/schemas/,
# and that every schema there validated at least one. Needs python3 and
# Debian's python3-jsonschema (./configure installs it); without them this
# fails, saying so.
set -u
dir=${1:?usage: tests/schemas/validate.sh OUTPUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null 2>&1 ||
    ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "validate: python3-jsonschema is not installed, so the JSON" \
		"outputs cannot be checked against docs/schemas/" >&2
	echo "  hint: ./configure installs it (as root), or:" \
		"apt-get install python3-jsonschema" >&2
	exit 1
fi
exec python3 "$here/validate.py" "$here/../../docs/schemas" "$dir"
