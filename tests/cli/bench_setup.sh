# Shared by the bench CLI tests (sourced after `set -euo pipefail`; not a
# test itself): $cli (absolute), $data, $py, fail (says what failed and
# stops the test), $example (the gravpart output, absolute) and a $tmp
# folder removed at exit.
cli=$(realpath "${SNAPKIT_CLI:-build/snapkit}")
data=${SNAPKIT_TEST_DATA:-tests/data}
py=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }
example=$(cd "$data/ramses/gravpart/output_00002" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
