#!/usr/bin/env bash
# snapkit under mpirun -np K (K = 1..4) against one plain process: stats
# JSON identical but for the timing and measured-allocation fields, on the
# fixtures, a .snapkit file and a synthetic output; snapkit threads shows
# each rank's budget; a missing CPU file stops every rank with the same
# one-line error naming it, non-zero, without hanging. Skips (77) when
# snapkit was built without MPI.
set -uo pipefail
SNAPKIT=${SNAPKIT_CLI:?}
DATA=${SNAPKIT_TEST_DATA:?}
MPIEXEC=${SNAPKIT_MPIEXEC:-}
if [[ -z "$MPIEXEC" ]]; then
    echo "snapkit was built without MPI (SNAPKIT_MPI=OFF): skipped"
    exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
mpi() { local k=$1; shift; timeout 120 "$MPIEXEC" --oversubscribe --allow-run-as-root -np "$k" "$@"; }

# Every member of two stats JSON objects but the measured ones.
same_stats() { # same_stats A B
    /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
skip = {"seconds", "bytes_allocated", "ranks"}
bad = [k for k in set(a) | set(b) if k not in skip and a.get(k) != b.get(k)]
if bad:
    sys.exit("differ in %s" % bad)
PY
}

compare_stats() { # compare_stats WHAT SOURCE [stats options]
    local what=$1 src=$2; shift 2
    "$SNAPKIT" stats "$src" "$@" --json > "$TMP/one.json" || { echo "FAIL: $what alone"; fail=1; return; }
    for k in 1 2 3 4; do
        if ! mpi "$k" "$SNAPKIT" stats "$src" "$@" --json > "$TMP/mpi.json" 2> "$TMP/err"; then
            echo "FAIL: $what on $k ranks"; cat "$TMP/err"; fail=1; continue
        fi
        same_stats "$TMP/one.json" "$TMP/mpi.json" || { echo "FAIL: $what: $k ranks differ from one process"; fail=1; }
        grep -q "\"ranks\":$k[,}]" "$TMP/mpi.json" || { echo "FAIL: $what: no \"ranks\": $k"; cat "$TMP/mpi.json"; fail=1; }
        [[ $(wc -l < "$TMP/mpi.json") -eq 1 ]] || { echo "FAIL: $what: $k ranks printed more than one line"; fail=1; }
    done
}

G=$DATA/ramses/gravpart/output_00002
compare_stats "gravpart hydro" "$G"
compare_stats "gravpart particles" "$G" --component particles
compare_stats "gravpart gravity, a region" "$G" --component gravity --xrange 0.3 0.7 --yrange 0.2 0.6 --zrange 0.4 0.9 --lmax 7
compare_stats "sedov3d" "$DATA"/ramses/sedov3d/output_00001
compare_stats "manyfiles" "$DATA"/ramses/manyfiles/output_00002

"$SNAPKIT" make-ramses "$TMP/synth" --ncpu 24 --levelmin 4 --levelmax 7 --npart 20000 > /dev/null ||
    { echo "FAIL: make-ramses"; fail=1; }
compare_stats "synthetic, 24 CPU files" "$TMP/synth"
compare_stats "synthetic particles" "$TMP/synth" --component particles

"$SNAPKIT" convert "$G" -o "$TMP/g.snapkit" > /dev/null 2>&1 || { echo "FAIL: convert"; fail=1; }
compare_stats ".snapkit chunks" "$TMP/g.snapkit"

# Each rank's thread budget: the node's CPUs divided among its ranks.
check "threads on 2 ranks" mpi 2 "$SNAPKIT" threads --json
ok grep -q '"ranks":2' "$TMP/out"
ok grep -q '"per_rank":\[' "$TMP/out"

# A missing CPU file: every rank stops with the file's one-line error.
cp -r "$TMP/synth" "$TMP/broken"
rm "$TMP/broken"/hydro_*.out00020
for k in 1 3 4; do
    expect_error "missing file on $k ranks" "hydro_00001.out00020" \
        bash -c 'timeout 120 "$0" --oversubscribe --allow-run-as-root -np '"$k"' "$1" stats "$2" 2>&1 >/dev/null | grep "^snapkit:" >&2; exit ${PIPESTATUS[0]}' \
        "$MPIEXEC" "$SNAPKIT" "$TMP/broken"
done

# A command that does not divide its work is refused, not repeated per rank.
expect_error "project on 2 ranks" "does not divide its work" \
    bash -c 'timeout 60 "$0" --oversubscribe --allow-run-as-root -np 2 "$1" project "$2" 2>&1 >/dev/null | grep "^snapkit:" >&2; exit ${PIPESTATUS[0]}' \
    "$MPIEXEC" "$SNAPKIT" "$G"
exit $fail
