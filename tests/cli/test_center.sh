#!/usr/bin/env bash
# snapkit center and the centres every selecting command finds (--center
# max:FIELD, min:FIELD, com, shrink; --bulk-velocity com; the axis L for
# --cylinder-axis L and project --face-on/--edge-on): what it prints, that
# stats, project, convert and clumps use the centre it prints, bad input
# (one line, non-zero, nothing written), and under mpirun -np 2..3 the
# same bits as one process. The values themselves are checked against
# numpy and yt in tests/python/test_center.py.
set -uo pipefail
SNAPKIT=${SNAPKIT_CLI:?}
FIX=${SNAPKIT_SHARED:?}/fixtures/ramses
MPIEXEC=${SNAPKIT_MPIEXEC:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
G=$FIX/gravpart/output_00002
[[ -d $G ]] || skip "the gravpart fixture is missing"

# The densest cell of gravpart, and its density (numpy's argmax in test_center.py).
check "center max:density" "$SNAPKIT" center "$G" --center max:density
has "centre max:density: hydro row of 45487, value 2370.9347980252332"
has "box (0..1)             0.501953125 0.494140625 0.498046875"
check "center --json" "$SNAPKIT" center "$G" --center max:density --json
ok grep -q '"center":{"box":\[0.501953125,0.494140625,0.498046875\]' "$TMP/out"
check "center in kpc" "$SNAPKIT" center "$G" --center max:density --unit cm
has "cm                     0.501953125 0.494140625 0.498046875"   # gravpart: unit_l = 1 cm
check "center com (default)" "$SNAPKIT" center "$G"
has "centre com: 45487 rows"
check "center shrink" "$SNAPKIT" center "$G" --center shrink --shrink-min 500 --shrink-factor 0.9
has "centre shrink: 45487 rows"
check "frame" "$SNAPKIT" center "$G" --center max:density --sphere 0.1 --bulk-velocity com \
    --cylinder-axis L --json
ok grep -q '"bulk_velocity":\[' "$TMP/out"
ok grep -q '"axis":\[-0.856370194248633,0.14964220149270233,-0.4942037048980675\]' "$TMP/out"

# Every selecting command takes the centre found: the rows of a sphere
# about it are those about the point it prints.
"$SNAPKIT" stats "$G" --center max:density --sphere 0.1 --json > "$TMP/found.json" ||
    { echo "FAIL: stats about max:density"; fail=1; }
"$SNAPKIT" stats "$G" --center 0.501953125 0.494140625 0.498046875 --sphere 0.1 --json \
    > "$TMP/point.json" || { echo "FAIL: stats about the point"; fail=1; }
ok grep -q '"rows":24394,' "$TMP/found.json"
ok cmp -s <(sed 's/"seconds":[^,]*,//; s/"bytes_allocated":[0-9]*,//' "$TMP/found.json") \
          <(sed 's/"seconds":[^,]*,//; s/"bytes_allocated":[0-9]*,//' "$TMP/point.json")
check "stats --totals" "$SNAPKIT" stats "$G" --center max:density --sphere 0.1 --totals
has "angular momentum           -6.709000210872463e-07 1.1723312746198629e-07 -3.871704997024281e-07"
check "convert about a centre" "$SNAPKIT" convert "$G" -o "$TMP/g.snapkit" --center shrink --sphere 0.2
check "clumps about a centre" "$SNAPKIT" clumps "$G" --center max:density --sphere 0.1 \
    --threshold 100 -o "$TMP/cl.fits"
check "project --face-on" "$SNAPKIT" project "$G" --center max:density --sphere 0.2 --face-on \
    --res 32 -o "$TMP/face.npy" --json
ok grep -q '"direction":\[' "$TMP/out"
check "project --edge-on" "$SNAPKIT" project "$G" --center com --sphere 0.2 --edge-on \
    --res 32 -o "$TMP/edge.npy"
check "cylinder about L" "$SNAPKIT" stats "$G" --center max:density --cylinder 0.1 0.02 \
    --cylinder-axis L

# Bad input: one line naming what is wrong, non-zero, nothing written.
expect_error "max: of an unknown field" "center max:nosuch:" \
    "$SNAPKIT" center "$G" --center max:nosuch
expect_error "max: of an unknown field, stats" "no hydro variable 'nosuch'" \
    "$SNAPKIT" stats "$G" --center max:nosuch --sphere 0.1
expect_error "max: without a field" "--center max: needs a field" \
    "$SNAPKIT" center "$G" --center max:
expect_error "shrink with too few rows" "fewer than the 1000 to stop at" \
    "$SNAPKIT" center "$G" --center shrink --sphere 0.01 --search-center 0.2 0.2 0.2
expect_error "shrink factor" "--shrink-factor must be between 0 and 1" \
    "$SNAPKIT" center "$G" --center shrink --shrink-factor 1.5
expect_error "shrink min" "--shrink-min must be at least 1" \
    "$SNAPKIT" center "$G" --center shrink --shrink-min 0
expect_error "search centre without a method" "--search-center: only with" \
    "$SNAPKIT" stats "$G" --search-center 0.2 0.2 0.2
expect_error "unknown component" "has no component 'stars'" \
    "$SNAPKIT" center "$G" --center com --center-component stars
expect_error "totals of the gravity" "no column density" \
    "$SNAPKIT" stats "$G" --component gravity --totals
expect_error "face-on with an axis" "--face-on projects along the axis L" \
    "$SNAPKIT" project "$G" --face-on --cylinder-axis z -o "$TMP/bad1.npy"
"$SNAPKIT" convert "$G" -o "$TMP/density.snapkit" --vars density > /dev/null ||
    { echo "FAIL: convert --vars density"; fail=1; }
expect_error "face-on without velocities" "the axis L: the selection's rows have no velocities" \
    "$SNAPKIT" project "$TMP/density.snapkit" --face-on --res 16 -o "$TMP/bad2.npy"
expect_error "bulk com without velocities" "--bulk-velocity com: the selection's rows have no" \
    "$SNAPKIT" center "$TMP/density.snapkit" --bulk-velocity com
ok test ! -e "$TMP/bad1.npy"
ok test ! -e "$TMP/bad2.npy"

# Under MPI: each rank reads its share, the library reduces exactly: the
# same centre, frame and totals as one process.
if [[ -n $MPIEXEC ]]; then
    mpi() { local k=$1; shift; timeout 120 "$MPIEXEC" --oversubscribe --allow-run-as-root -np "$k" "$@"; }
    strip() { sed 's/"seconds":[^,}]*[,]*//g; s/"bytes_allocated":[0-9]*,//; s/"ranks":[0-9]*,*//' "$1"; }
    for args in "--center max:density" "--center min:pressure --sphere 0.2" "--center com" \
                "--center shrink --center-component hydro,particles" \
                "--center com --sphere 0.2 --bulk-velocity com --cylinder-axis L"; do
        # shellcheck disable=SC2086
        "$SNAPKIT" center "$G" $args --json > "$TMP/one.json"
        "$SNAPKIT" stats "$G" $args --totals --json > "$TMP/one_stats.json"
        for k in 2 3; do
            mpi "$k" "$SNAPKIT" center "$G" $args --json > "$TMP/mpi.json" 2> "$TMP/err" ||
                { echo "FAIL: center $args on $k ranks"; cat "$TMP/err"; fail=1; }
            ok cmp -s <(strip "$TMP/one.json") <(strip "$TMP/mpi.json")
            mpi "$k" "$SNAPKIT" stats "$G" $args --totals --json > "$TMP/mpi_stats.json" ||
                { echo "FAIL: stats --totals $args on $k ranks"; fail=1; }
            ok cmp -s <(strip "$TMP/one_stats.json") <(strip "$TMP/mpi_stats.json")
        done
    done
    # Python: snapkit.center and totals on an output opened with comm=
    if /usr/bin/python3 -c "import mpi4py" 2> /dev/null; then
        mpi 2 env PYTHONPATH="$(dirname "$0")/../../python${PYTHONPATH:+:$PYTHONPATH}" \
            /usr/bin/python3 "$(dirname "$0")/../python/mpi_center.py" "$G" "$TMP/g.snapkit" \
            > "$TMP/out" 2> "$TMP/err" || { echo "FAIL: mpi_center.py"; cat "$TMP/err"; fail=1; }
    else
        echo "SKIP: snapkit.center under mpi4py (no mpi4py)"
    fi
    expect_error "shrink with too few rows on 2 ranks" "fewer than the 1000" \
        bash -c 'timeout 120 "$0" --oversubscribe --allow-run-as-root -np 2 "$1" center "$2" --center shrink --sphere 0.01 2>&1 >/dev/null | grep "^snapkit:" >&2; exit ${PIPESTATUS[0]}' \
        "$MPIEXEC" "$SNAPKIT" "$G"
else
    echo "SKIP: the MPI comparison (snapkit was built without MPI)"
fi
exit $fail
