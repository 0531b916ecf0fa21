#!/bin/bash
# snapkit export: bad input is one line, a non-zero exit and no file (an
# unknown format, a folder as output, a full disk as /dev/full and as a
# file-size limit, a missing component, two components in one .vtkhdf); a
# failed or interrupted export leaves the old file as it was and no
# temporary beside it; the file goes to standard output whole. The files'
# contents are checked by py.test_export_h5 and py.test_export_vtk.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
DATA=${SNAPKIT_TEST_DATA:-$(dirname "$0")/../data}
out=$DATA/ramses/sedov3d/output_00001
gp=$DATA/ramses/gravpart/output_00002

no_temporaries() {
    local left
    left=$(find "$1" -name '*.tmp.*')
    [[ -z $left ]] || { echo "FAIL: temporary files left: $left"; fail=1; }
}

check "help" "$CLI" export --help
has "FILE.h5|FILE.vtkhdf"
has "needs libhdf5"
check "h5" "$CLI" export "$out" -o "$TMP/gas.h5" --no-fsync
has "hydro 41168 rows"
check "vtkhdf json" "$CLI" export "$gp" -o "$TMP/stars.vtkhdf" --component particles --json
has '"particles":3335'

expect_error "no -o" "missing -o" "$CLI" export "$out"
expect_error "unknown format" "unknown output format: the name must end in .h5" \
    "$CLI" export "$out" -o "$TMP/gas.vtk"
expect_error "bad --format" "--format must be h5 or vtkhdf" "$CLI" export "$out" -o x --format vtu
expect_error "bad --gzip" "--gzip" "$CLI" export "$out" -o "$TMP/g.h5" --gzip 10
mkdir "$TMP/dir.h5"
expect_error "a folder" "dir.h5: is a folder; not replaced" "$CLI" export "$out" -o "$TMP/dir.h5"
expect_error "no source" "cannot open" "$CLI" export "$TMP/none" -o "$TMP/n.h5"
expect_error "no component" "has no component 'stars'" \
    "$CLI" export "$out" -o "$TMP/n.h5" --component hydro,stars
expect_error "two in a vtkhdf" "a .vtkhdf file holds one component (hydro)" \
    "$CLI" export "$gp" -o "$TMP/n.vtkhdf" --component hydro,particles
expect_error "no variable" "no hydro variable 'nothere'" \
    "$CLI" export "$out" -o "$TMP/n.h5" --vars density,nothere
sinks=${SNAPKIT_SHARED:-$(dirname "$0")/../../../shared}/fixtures/ramses/sink3d/output_00002
if [[ -d $sinks ]]; then
    expect_error "sinks in a vtkhdf" "sinks is neither cells" \
        "$CLI" export "$sinks" -o "$TMP/n.vtkhdf" --component sinks
else
    echo "skip: sinks in a vtkhdf (no shared fixture sink3d)"
fi
expect_error "json to stdout" "--json and -o -" "$CLI" export "$out" -o - --format h5 --json
expect_error "/dev/full" "/dev/full: write failed: No space left on device" \
    "$CLI" export "$out" -o /dev/full --format h5
[[ ! -e "$TMP/n.h5" && ! -e "$TMP/n.vtkhdf" ]] || { echo "FAIL: a failed export left a file"; fail=1; }

# A full disk under HDF5's own writes (a file-size limit: EFBIG): the old
# file stays, nothing beside it.
echo old > "$TMP/keep.h5"
expect_error "file too large" "File too large" \
    bash -c "trap '' XFSZ; ulimit -f 64; exec \"$CLI\" export \"$gp\" -o \"$TMP/keep.h5\""
ok grep -qx old "$TMP/keep.h5"
no_temporaries "$TMP"

# Standard output: the whole file, the summary on stderr.
"$CLI" export "$out" -o - --format h5 > "$TMP/stdout.h5" 2> "$TMP/err" || { echo "FAIL: -o -"; fail=1; }
ok cmp -s <(head -c 8 "$TMP/stdout.h5") <(printf '\211HDF\r\n\032\n')
ok grep -q "hydro 41168 rows" "$TMP/err"

# Interrupted (SIGINT, SIGTERM): the old file whole, no temporary file.
# (A background job starts with SIGINT ignored: Python restores it.)
"$CLI" make-ramses "$TMP/big/output_00001" --ncpu 16 --levelmin 5 --levelmax 9 \
    --cells-target 300000 --npart 100000 > /dev/null 2>&1 || { echo "FAIL: make-ramses"; fail=1; }
for sig in INT TERM; do
    cp "$TMP/gas.h5" "$TMP/big/target.h5"
    /usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CLI" export "$TMP/big/output_00001" \
        -o "$TMP/big/target.h5" --threads 1 > /dev/null 2>&1 &
    pid=$!
    sleep 0.5
    kill -s $sig $pid 2>/dev/null
    wait $pid
    rc=$?
    [[ $rc -gt 128 ]] || { echo "FAIL: SIG$sig did not end the export (exit $rc)"; fail=1; }
    no_temporaries "$TMP/big"
    ok cmp -s "$TMP/gas.h5" "$TMP/big/target.h5"
done
exit $fail
