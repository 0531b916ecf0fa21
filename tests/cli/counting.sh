# Shared by the CLI test scripts that count their failures (sourced after
# `set -u`; not a test itself): $CLI, $PY, a $tmp folder removed at exit,
# and fail, which says what failed and counts it in $failures.
CLI=${SNAPKIT_CLI:-build/snapkit}
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A 32-file synthetic output in $out (hydro and particles, sized for the
# streaming tests), and its compact file $tmp/o.snapkit.
make_output32() {
    out=$tmp/output_00001
    "$CLI" make-ramses "$out" --ncpu 32 --levelmin 5 --levelmax 9 --cells-target 200000 \
        --components hydro,particles --npart 50000 --threads 2 >/dev/null || fail "make-ramses"
    "$CLI" convert "$out" -o "$tmp/o.snapkit" >/dev/null || fail "convert"
}
