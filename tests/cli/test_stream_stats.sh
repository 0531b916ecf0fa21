#!/bin/bash
# snapkit stats streams: on a 32-file synthetic output (and its .snapkit
# file) it allocates a small fraction of the table it reports on (a ratio,
# never a time), and the statistics do not depend on the thread count or
# on the source (RAMSES output or compact file: same sums, bit for bit);
# the statistics a compact file stores are those bits, no chunk read;
# project's narrowed reads give the maps of full reads.
set -u
source "$(dirname "$0")/counting.sh"
make_output32

for src in "$out" "$tmp/o.snapkit"; do
    for comp in hydro particles; do
        for t in 1 2; do
            "$CLI" stats "$src" --component $comp --threads $t --recompute --json \
                > "$tmp/$comp.$t.$(basename $src).json" || fail "stats $src $comp --threads $t"
        done
    done
done
for comp in hydro particles; do
    "$CLI" stats "$tmp/o.snapkit" --component $comp --json > "$tmp/stored_$comp.json" \
        || fail "stats $comp from the stored statistics"
done

$PY - "$tmp" <<'PYEOF' || failures=$((failures + 1))
import json, sys, glob, os
tmp = sys.argv[1]
bad = 0
def load(p):
    return json.load(open(p))
for comp in ("hydro", "particles"):
    runs = sorted(glob.glob(f"{tmp}/{comp}.*.json"))
    assert len(runs) == 4, runs
    ref = None
    for p in runs:
        d = load(p)
        # Whole table: result_bytes. Streaming holds threads x largest batch
        # (one of 32 files, one of hundreds of chunks) plus statistics.
        if not d["bytes_allocated"] * 4 < d["result_bytes"]:
            print(f"FAIL: {os.path.basename(p)}: allocated {d['bytes_allocated']} of a "
                  f"{d['result_bytes']}-byte table")
            bad += 1
        key = (d["rows"], d.get("levels"), d["columns"])
        if ref is None:
            ref = key
        elif key != ref:
            print(f"FAIL: {os.path.basename(p)}: statistics differ from {os.path.basename(runs[0])}")
            bad += 1
        if d["stored"]:
            print(f"FAIL: {os.path.basename(p)}: --recompute printed the stored statistics")
            bad += 1
    d = load(f"{tmp}/stored_{comp}.json")
    if (d["rows"], d.get("levels"), d["columns"]) != ref or not d["stored"] or d["chunks_read"]:
        print(f"FAIL: {comp}: the stored statistics are not those of the rows ({d})")
        bad += 1
sys.exit(1 if bad else 0)
PYEOF

# project reads only the columns its quantities need (density, pressure for
# T, velocities for v, and the cell keys): the maps are those of a read of
# every column (adding metallicity, whose column is not known to the
# command, turns the narrowing off). One thread: the projection's own
# reduction order then does not vary between runs.
for src in "$out" "$tmp/o.snapkit"; do
    "$CLI" project "$src" --vars sd,T,v,velocity_x,count --res 64 --threads 1 \
        -o "$tmp/few_{var}.npy" >/dev/null || fail "project $src"
    "$CLI" project "$src" --vars sd,T,v,velocity_x,count,metallicity --res 64 --threads 1 \
        -o "$tmp/all_{var}.npy" >/dev/null || fail "project $src, every column"
    for q in sd T v velocity_x count; do
        cmp -s "$tmp/few_$q.npy" "$tmp/all_$q.npy" || fail "$src: map $q differs when fewer columns are read"
    done
done

[ $failures -eq 0 ] || exit 1
echo "stream stats: ok"
