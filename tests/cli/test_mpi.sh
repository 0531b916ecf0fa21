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
    echo "SKIP: snapkit was built without MPI (SNAPKIT_MPI=OFF)"
    exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
mpi() { local k=$1; shift; timeout 120 "$MPIEXEC" --oversubscribe --allow-run-as-root -np "$k" "$@"; }
# no_temporaries NAME: no MPI convert temporary (.NAME.mpi-part*) in $TMP
no_temporaries() { ! compgen -G "$TMP/.$1.mpi-part*" > /dev/null; }

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
# Issue 29's selections and statistics: shapes (across a face too), derived
# quantities about a centre, weighted statistics with percentiles, totals.
compare_stats "gravpart sphere across a face" "$G" --sphere 0.3 --center 0.1 0.5 0.9
compare_stats "gravpart shell, particles" "$G" --component particles --shell 0.05 0.3 --center bc
compare_stats "gravpart tilted cylinder shell" "$G" --cylinder-shell 0.05 0.3 0.1 --cylinder-axis 1 2 3 --center bc
compare_stats "gravpart outside a sphere" "$G" --sphere 0.2 --center bc --inverse --lmax 7
compare_stats "gravpart derived, weighted, totals" "$G" --sphere 0.25 --center max:density \
    --vars density,velocity_x,velocity_y,velocity_z,v_phi,r --bulk-velocity com \
    --weight mass --percentiles 5,50,95 --totals

"$SNAPKIT" make-ramses "$TMP/synth" --ncpu 24 --levelmin 4 --levelmax 7 --npart 20000 > /dev/null ||
    { echo "FAIL: make-ramses"; fail=1; }
compare_stats "synthetic, 24 CPU files" "$TMP/synth"
compare_stats "synthetic particles" "$TMP/synth" --component particles

"$SNAPKIT" convert "$G" -o "$TMP/g.snapkit" > /dev/null 2>&1 || { echo "FAIL: convert"; fail=1; }
compare_stats ".snapkit chunks" "$TMP/g.snapkit" --recompute
# The statistics the file stores: every rank looks, rank 0 prints them.
compare_stats ".snapkit stored statistics" "$TMP/g.snapkit"
ok grep -q '"stored":true' "$TMP/mpi.json"

# Each rank's thread budget: the node's CPUs divided among its ranks.
check "threads on 2 ranks" mpi 2 "$SNAPKIT" threads --json
ok grep -q '"ranks":2' "$TMP/out"
ok grep -q '"per_rank":\[' "$TMP/out"

# Rank 0 stats the CPU files and broadcasts their sizes: under strace, the
# other ranks stat no CPU file but the first of each kind (opening the
# output looks for the components), rank 0 every one. Skipped without a
# working strace.
if command -v strace > /dev/null && strace -qq -o /dev/null true 2> /dev/null; then
    mpi 3 bash -c 'exec strace -f -qq -e trace=stat,lstat,newfstatat,statx -o "$0/st.${OMPI_COMM_WORLD_RANK:-x}" "$1" stats "$2" --json' \
        "$TMP" "$SNAPKIT" "$TMP/synth" > /dev/null 2>&1 || { echo "FAIL: stats under strace"; fail=1; }
    n0=$(grep -c '/synth/hydro_00001\.out000[0-9][0-9]"' "$TMP/st.0")
    [[ $n0 -ge 24 ]] || { echo "FAIL: rank 0 statted $n0 hydro files, not the 24"; fail=1; }
    for k in 1 2; do
        n=$(grep -c '/synth/[a-z_]*_00001\.out000\([0-9][2-9]\|[1-9][0-9]\)"' "$TMP/st.$k")
        [[ $n -eq 0 ]] || { echo "FAIL: rank $k statted $n CPU files (rank 0 stats them for all)"; fail=1; }
    done
else
    echo "SKIP: the one-rank stat check (strace not usable here)"
fi

# A missing CPU file: every rank stops with the file's one-line error.
cp -r "$TMP/synth" "$TMP/broken"
rm "$TMP/broken"/hydro_*.out00020
for k in 1 3 4; do
    expect_error "missing file on $k ranks" "hydro_00001.out00020" \
        bash -c 'timeout 120 "$0" --oversubscribe --allow-run-as-root -np '"$k"' "$1" stats "$2" 2>&1 >/dev/null | grep "^snapkit:" >&2; exit ${PIPESTATUS[0]}' \
        "$MPIEXEC" "$SNAPKIT" "$TMP/broken"
done

# project: each rank projects its share, the accumulators are summed on
# rank 0 along a fixed tree. Maps within 1e-14 of each map's largest
# magnitude of one process's (the sums' order differs), NaN at the same
# pixels, count maps exact; rows, selected, deposited identical.
same_maps() { # same_maps ONE_PREFIX MPI_PREFIX ONE_JSON MPI_JSON VARS
    /usr/bin/python3 - "$@" <<'PY'
import json, sys
import numpy as np
one, mine, ja, jb, names = sys.argv[1:]
a, b = json.load(open(ja)), json.load(open(jb))
bad = [k for k in ("rows", "selected", "deposited", "nx", "ny", "extent", "pixel_size")
       if a.get(k) != b.get(k)]
for v in names.split(","):
    x, y = np.load("%s_%s.npy" % (one, v)), np.load("%s_%s.npy" % (mine, v))
    if x.shape != y.shape or not np.array_equal(np.isnan(x), np.isnan(y)):
        bad.append(v + " shape or NaN")
        continue
    if v == "count":
        if not np.array_equal(x, y):
            bad.append("count not exact")
        continue
    top = np.nanmax(np.abs(x))
    d = np.nanmax(np.abs(x - y)) if x.size else 0.0
    if not d <= 1e-14 * top:
        bad.append("%s: %g > 1e-14 x %g" % (v, d, top))
if bad:
    sys.exit("differ: %s" % bad)
PY
}

compare_project() { # compare_project WHAT VARS SOURCE [project options]
    local what=$1 vars=$2 src=$3; shift 3
    "$SNAPKIT" project "$src" --vars "$vars" -o "$TMP/one_{var}.npy" --json "$@" > "$TMP/pone.json" ||
        { echo "FAIL: project $what alone"; fail=1; return; }
    for k in 1 2 3 4; do
        rm -f "$TMP"/mpi_*.npy
        if ! mpi "$k" "$SNAPKIT" project "$src" --vars "$vars" -o "$TMP/mpi_{var}.npy" --json "$@" \
            > "$TMP/pmpi.json" 2> "$TMP/err"; then
            echo "FAIL: project $what on $k ranks"; cat "$TMP/err"; fail=1; continue
        fi
        same_maps "$TMP/one" "$TMP/mpi" "$TMP/pone.json" "$TMP/pmpi.json" "$vars" ||
            { echo "FAIL: project $what: $k ranks"; fail=1; }
        grep -q "\"ranks\":$k[,}]" "$TMP/pmpi.json" || { echo "FAIL: project $what: no \"ranks\": $k"; fail=1; }
        [[ $(wc -l < "$TMP/pmpi.json") -eq 1 ]] || { echo "FAIL: project $what: $k ranks printed more than one line"; fail=1; }
    done
}

compare_project "gravpart along z" sd,T,velocity_x,count "$G"
compare_project "gravpart off-axis, a region" sd,density,count "$G" --direction 1 2 3 --res 64 \
    --xrange 0.2 0.8 --yrange 0.2 0.8 --zrange 0.2 0.8
compare_project "gravpart particles" sd,mass,count "$G" --component particles --res 64
compare_project "synthetic" sd,T,count "$TMP/synth" --axis x
compare_project ".snapkit chunks" sd,velocity_y "$TMP/g.snapkit" --axis y

# clumps: the cells above the threshold gathered on rank 0; catalogues
# and --ids files (one id per row, joined on rank 0 in rank order)
# identical (cmp) to one process's, every finder.
C=${SNAPKIT_SHARED:-$DATA/../../../shared}/fixtures/ramses/clumps3d/output_00002
[[ -d "$C" ]] || C=$G
# A catalogue in 8 files, some ranks' shares empty: the empty ones merge.
[[ $C != "$G" ]] && compare_stats "clumps3d catalogue" "$C" --component clumps
S=${C%/clumps3d/output_00002}/sink3d/output_00002
[[ -d "$S" ]] && compare_stats "sink3d sinks (one csv)" "$S" --component sinks
for finder in faces watershed dendrogram fof; do
    "$SNAPKIT" clumps "$C" --threshold 1 --finder "$finder" --min-cells 5 -o "$TMP/c1.csv" --ids "$TMP/i1.npy" > /dev/null ||
        { echo "FAIL: clumps $finder alone"; fail=1; continue; }
    [[ $(wc -l < "$TMP/c1.csv") -gt 2 ]] || { echo "FAIL: clumps $finder: too few clumps to compare"; fail=1; }
    for k in 1 2 3 4; do
        rm -f "$TMP/ik.npy"
        mpi "$k" "$SNAPKIT" clumps "$C" --threshold 1 --finder "$finder" --min-cells 5 -o "$TMP/ck.csv" --ids "$TMP/ik.npy" --json \
            > "$TMP/ck.json" 2> "$TMP/err" || { echo "FAIL: clumps $finder on $k ranks"; cat "$TMP/err"; fail=1; continue; }
        cmp -s "$TMP/c1.csv" "$TMP/ck.csv" || { echo "FAIL: clumps $finder: $k ranks differ"; fail=1; }
        cmp -s "$TMP/i1.npy" "$TMP/ik.npy" || { echo "FAIL: clumps $finder --ids: $k ranks differ"; fail=1; }
        grep -q "\"ranks\":$k[,}]" "$TMP/ck.json" || { echo "FAIL: clumps $finder: no \"ranks\": $k"; fail=1; }
    done
done
"$SNAPKIT" clumps "$G" --component particles --min-cells 5 -o "$TMP/p1.csv" --ids "$TMP/p1.npy" > /dev/null ||
    { echo "FAIL: fof particles alone"; fail=1; }
for k in 1 3; do
    mpi "$k" "$SNAPKIT" clumps "$G" --component particles --min-cells 5 -o "$TMP/p3.csv" --ids "$TMP/p3.npy" > /dev/null &&
        cmp -s "$TMP/p1.csv" "$TMP/p3.csv" && cmp -s "$TMP/p1.npy" "$TMP/p3.npy" ||
        { echo "FAIL: fof particles (and --ids) on $k ranks"; fail=1; }
done

# bench ranks: the grid of ranks (1, 2, 4, ..., N) x threads per rank, its
# picks and Amdahl fit (structure only, never a time).
for k in 1 3; do
    mpi "$k" "$SNAPKIT" bench ranks "$TMP/synth" --runs 1 --threads 1 --json > "$TMP/br.json" 2> "$TMP/err" ||
        { echo "FAIL: bench ranks on $k ranks"; cat "$TMP/err"; fail=1; continue; }
    /usr/bin/python3 - "$TMP/br.json" "$k" <<'PY' || fail=1
import json, sys
r, k = json.load(open(sys.argv[1])), int(sys.argv[2])
want = [1, 2, 3] if k == 3 else [1]
got = [p["ranks"] for p in r["grid"]]
bad = []
if r["stage"] != "ranks" or r["ranks"] != k or got != want:
    bad.append("grid ranks %s, want %s" % (got, want))
for p in r["grid"] + [r["fastest"], r["sweet_spot"], r["economical"]]:
    if p["cpus"] != p["ranks"] * p["threads"] or not p["seconds"] > 0:
        bad.append("point %s" % p)
if r["sweet_spot"]["cpus"] > r["fastest"]["cpus"] or r["economical"]["cpus"] > r["sweet_spot"]["cpus"]:
    bad.append("the sweet spot or economical point uses more CPUs than the one before")
if not 0 <= r["amdahl"]["parallel_fraction"] <= 1:
    bad.append("amdahl %s" % r["amdahl"])
if bad:
    sys.exit("FAIL: bench ranks: %s" % bad)
PY
done

# bench report --stages ranks under mpirun: the same grid in report.txt,
# .csv, .json and the figure (redrawn by bench plot from the JSON, its text
# equal to the report's); the other stages refused under several ranks.
check "bench report ranks on 3 ranks" mpi 3 "$SNAPKIT" bench report "$TMP/synth" --stages ranks --runs 1 --out "$TMP/rep"
ok grep -q "^ranks x threads  full reads of hydro" "$TMP/rep/report.txt"
/usr/bin/python3 - "$TMP/rep" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))["ranks"]
bad = []
if r["ranks"] != 3 or sorted({p["ranks"] for p in r["grid"]}) != [1, 2, 3]:
    bad.append("grid %s" % r["grid"])
rows = {(row["series"], row["threads"]): float(row["value"]) for row in csv.DictReader(open(d + "/report.csv"))
        if row["stage"] == "ranks" and row["quantity"] == "seconds"}
for p in r["grid"]:
    if p["cpus"] != p["ranks"] * p["threads"] or not p["seconds"] > 0:
        bad.append("point %s" % p)
    key = ("hydro %d rank%s" % (p["ranks"], "" if p["ranks"] == 1 else "s"), str(p["threads"]))
    if rows.get(key) != p["seconds"]:
        bad.append("csv %s: %s, json %s" % (key, rows.get(key), p["seconds"]))
if len(rows) != len(r["grid"]):
    bad.append("csv has %d points, json %d" % (len(rows), len(r["grid"])))
if bad:
    sys.exit("FAIL: bench report ranks: %s" % bad)
PY
check "bench plot of the ranks report" "$SNAPKIT" bench plot "$TMP/rep/report.json" -o "$TMP/rep/again.svg" --text
# One panel (the ranks grid) under the 44-point title: 490 x 384 pixels.
for f in report.svg again.svg; do
    ok grep -q 'width="490px" height="384px"' "$TMP/rep/$f"
done
has "Amdahl over the CPUs: parallel fraction"
expect_error "bench report's other stages on 2 ranks" "the report runs only the ranks stage" \
    bash -c 'timeout 60 "$0" --oversubscribe --allow-run-as-root -np 2 "$1" bench report "$2" --out "$3" 2>&1 >/dev/null | grep "^snapkit bench report:" >&2; exit ${PIPESTATUS[0]}' \
    "$MPIEXEC" "$SNAPKIT" "$TMP/synth" "$TMP/rep2"
ok test ! -e "$TMP/rep2/report.json"

# Python: snapkit.open(path, comm=MPI.COMM_WORLD) and snapkit.project(...,
# comm=comm) under mpirun with /usr/bin/python3 (tests/python/mpi_comm.py
# asserts the shares, the maps on rank 0 and with all_ranks on every rank).
if /usr/bin/python3 -c "import mpi4py" 2> /dev/null; then
    export PYTHONPATH=${PYTHONPATH:-$(dirname "$0")/../../python}
    export SNAPKIT_LIBRARY=${SNAPKIT_LIBRARY:-$(dirname "$SNAPKIT")/libsnapkit.so}
    for k in 1 2 3 4; do
        mpi "$k" /usr/bin/python3 "$(dirname "$0")/../python/mpi_comm.py" "$G" "$TMP/g.snapkit" \
            > "$TMP/out" 2>&1 || { echo "FAIL: python comm on $k ranks"; cat "$TMP/out"; fail=1; }
    done
else
    echo "SKIP: python comm: python3-mpi4py is not installed (scripts/install-deps.sh --test installs it)"
fi

# convert: one .snapkit written by every rank with MPI-IO, byte for byte
# one process's, accepted by verify; no temporary left beside it.
compare_convert() { # compare_convert WHAT SOURCE [convert options]
    local what=$1 src=$2; shift 2
    "$SNAPKIT" convert "$src" "$@" -o "$TMP/c1.snapkit" > /dev/null || { echo "FAIL: convert $what alone"; fail=1; return; }
    for k in 1 2 3 4; do
        rm -f "$TMP/ck.snapkit"
        mpi "$k" "$SNAPKIT" convert "$src" "$@" -o "$TMP/ck.snapkit" --json > "$TMP/ck.json" 2> "$TMP/err" ||
            { echo "FAIL: convert $what on $k ranks"; cat "$TMP/err"; fail=1; continue; }
        cmp -s "$TMP/c1.snapkit" "$TMP/ck.snapkit" || { echo "FAIL: convert $what: $k ranks' file differs"; fail=1; }
        "$SNAPKIT" verify "$TMP/ck.snapkit" > /dev/null || { echo "FAIL: convert $what: $k ranks' file fails verify"; fail=1; }
        grep -q "\"ranks\":$k[,}]" "$TMP/ck.json" || { echo "FAIL: convert $what: no \"ranks\": $k"; fail=1; }
        no_temporaries ck.snapkit || { echo "FAIL: convert $what: temporary left"; fail=1; }
    done
}
compare_convert "gravpart" "$G"
compare_convert "gravpart, small chunks" "$G" --chunk-rows 1000
compare_convert "gravpart, a region and two variables" "$G" --xrange 0.2 0.7 --vars density,pressure --lmax 7
compare_convert "sedov3d" "$DATA"/ramses/sedov3d/output_00001
compare_convert "manyfiles" "$DATA"/ramses/manyfiles/output_00002
compare_convert "synthetic" "$TMP/synth" --no-compress
"$SNAPKIT" make-ramses "$TMP/stray" --ncpu 12 --levelmin 4 --levelmax 7 --npart 20000 \
    --stray-particles 0.3 --refine clumps > /dev/null || { echo "FAIL: make-ramses stray"; fail=1; }
compare_convert "particles outside their CPU's domain" "$TMP/stray"
[[ -d "$C" ]] && compare_convert "clumps3d (catalogue, clump field)" "$C"
# Refined cells too: the leaves, then each level's refined cells, as one
# process orders them.
compare_convert "gravpart --with-coarse" "$G" --with-coarse
compare_convert "gravpart --with-coarse, small chunks" "$G" --with-coarse --chunk-rows 1000
compare_convert "gravpart --with-coarse, a region and lmax" "$G" --with-coarse --xrange 0.2 0.7 --vars density,pressure --lmax 7
compare_convert "synthetic --with-coarse" "$TMP/synth" --with-coarse

# A missing CPU file: every rank stops with its one-line error; no target,
# no temporary.
expect_error "convert, missing file on 3 ranks" "hydro_00001.out00020" \
    bash -c 'timeout 120 "$0" --oversubscribe --allow-run-as-root -np 3 "$1" convert "$2" -o "$3" 2>&1 >/dev/null | grep "^snapkit:" >&2; exit ${PIPESTATUS[0]}' \
    "$MPIEXEC" "$SNAPKIT" "$TMP/broken" "$TMP/b.snapkit"
ok test ! -e "$TMP/b.snapkit"
ok no_temporaries b.snapkit

# A rank killed (SIGKILL) while the file is being written: no target; the
# temporary the job leaves is removed by the rerun, which succeeds and
# writes one process's file. Each rank writes its pid first (it is then
# exec'd), so the test kills rank 1 by its id once the temporary exists.
"$SNAPKIT" make-ramses "$TMP/big" --ncpu 16 --levelmin 5 --levelmax 8 --npart 100000 > /dev/null ||
    { echo "FAIL: make-ramses big"; fail=1; }
"$SNAPKIT" convert "$TMP/big" -o "$TMP/big1.snapkit" > /dev/null || { echo "FAIL: convert big alone"; fail=1; }
caught=0
for attempt in 1 2 3 4 5; do
    rm -f "$TMP/k.snapkit" "$TMP"/pid.*
    timeout 120 "$MPIEXEC" --oversubscribe --allow-run-as-root -np 3 bash -c \
        'echo $$ > "$0/pid.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}}"; exec "$1" convert "$2" -o "$0/k.snapkit" --threads 1' \
        "$TMP" "$SNAPKIT" "$TMP/big" > /dev/null 2>&1 &
    job=$!
    for _ in $(seq 1 3000); do
        ! no_temporaries k.snapkit && [[ -s "$TMP/pid.1" ]] && break
        kill -0 "$job" 2> /dev/null || break
        sleep 0.01
    done
    if ! no_temporaries k.snapkit && [[ -s "$TMP/pid.1" && ! -e "$TMP/k.snapkit" ]] &&
        kill -KILL "$(cat "$TMP/pid.1")" 2> /dev/null; then
        caught=1
    fi
    wait "$job"
    rc=$?
    if [[ $caught -eq 1 ]]; then
        [[ $rc -ne 0 ]] || { echo "FAIL: a killed rank's job exited 0"; fail=1; }
        break
    fi
done
if [[ $caught -eq 1 ]]; then
    ok test ! -e "$TMP/k.snapkit"
    mpi 3 "$SNAPKIT" convert "$TMP/big" -o "$TMP/k.snapkit" > /dev/null 2> "$TMP/err" ||
        { echo "FAIL: the rerun after a kill"; cat "$TMP/err"; fail=1; }
    cmp -s "$TMP/big1.snapkit" "$TMP/k.snapkit" || { echo "FAIL: the rerun's file differs from one process's"; fail=1; }
    ok no_temporaries k.snapkit
else
    echo "FAIL: could not kill a rank while the file was being written (5 attempts)"; fail=1
fi
# Two jobs converting to one target at once (issue 34, row 9): each writes
# a temporary of its own, both succeed, the target is whole (one
# process's file) and no temporary is left.
for round in 1 2; do
    mpi 2 "$SNAPKIT" convert "$TMP/big" -o "$TMP/two.snapkit" --threads 1 > /dev/null 2> "$TMP/err.a" &
    job_a=$!
    mpi 2 "$SNAPKIT" convert "$TMP/big" -o "$TMP/two.snapkit" --threads 1 > /dev/null 2> "$TMP/err.b" ||
        { echo "FAIL: concurrent convert B (round $round)"; cat "$TMP/err.b"; fail=1; }
    wait "$job_a" || { echo "FAIL: concurrent convert A (round $round)"; cat "$TMP/err.a"; fail=1; }
    cmp -s "$TMP/big1.snapkit" "$TMP/two.snapkit" || { echo "FAIL: concurrent converts left a file unlike one process's"; fail=1; }
    ok no_temporaries two.snapkit
done

# Stale temporaries: one no job holds (a killed job's, also the old fixed
# name) is removed by the next convert; one a live job holds locked stays.
: > "$TMP/.lk.snapkit.mpi-part"
: > "$TMP/.lk.snapkit.mpi-part.dead01"
: > "$TMP/.lk.snapkit.mpi-part.live01"
: > "$TMP/.lk.snapkit.mpi-partner"
flock "$TMP/.lk.snapkit.mpi-part.live01" sleep 60 &
holder=$!
sleep 0.3
mpi 2 "$SNAPKIT" convert "$G" -o "$TMP/lk.snapkit" > /dev/null 2> "$TMP/err" ||
    { echo "FAIL: convert beside stale temporaries"; cat "$TMP/err"; fail=1; }
ok test ! -e "$TMP/.lk.snapkit.mpi-part" -a ! -e "$TMP/.lk.snapkit.mpi-part.dead01"
ok test -e "$TMP/.lk.snapkit.mpi-part.live01" -a -e "$TMP/.lk.snapkit.mpi-partner"
kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null
exit $fail
