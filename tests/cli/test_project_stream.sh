#!/bin/bash
# snapkit project streams: with --res it projects each CPU file (each chunk
# of a .snapkit file) as it is read, without the table. The maps are those
# of the whole table (--whole), bit for bit, on 1 and 2 threads, from the
# output and from its .snapkit file, with a region (whose files partly hold
# no selected cell) and off-axis; the bytes it held are below the table's.
set -u
source "$(dirname "$0")/counting.sh"
make_output32

n=0
run() { # SOURCE TAG ARGS...: the streamed and the whole-table maps, compared
    local src=$1 tag=$2
    shift 2
    "$CLI" project "$src" "$@" -o "$tmp/s_${tag}_{var}.npy" --json >"$tmp/s_$tag.json" \
        || fail "project $tag (streamed)"
    "$CLI" project "$src" "$@" --whole -o "$tmp/w_${tag}_{var}.npy" --json >"$tmp/w_$tag.json" \
        || fail "project $tag --whole"
    for f in "$tmp"/w_"${tag}"_*.npy; do
        cmp -s "$f" "${f/\/w_/\/s_}" || fail "$tag: $(basename "$f") differs from the streamed map"
        n=$((n + 1))
    done
}
for src in "$out" "$tmp/o.snapkit"; do
    s=$(basename "$src")
    for t in 1 2; do
        run "$src" "$s.$t" --vars sd,T,velocity_x,count --res 128 --threads "$t"
        run "$src" "$s.$t.region" --vars sd,mass --res 100 --threads "$t" \
            --xrange 0.1 0.45 --yrange 0.3 0.9 --axis x
        run "$src" "$s.$t.exact" --vars sd --res 48 --threads "$t" --direction 1 2 3 --kernel exact
        run "$src" "$s.$t.part" --component particles --vars mass,count --res 64 --threads "$t" --kernel cic
    done
done
[ "$n" -eq 36 ] || fail "only $n maps compared"

# A whole box at 2^P pixels puts the cells on the pixel grid, where their
# pixels and blocks come from their keys (lib/project/grid.c). A line of
# sight range that keeps every cell (--los) takes the general path through
# floating-point placement: the maps must be the same bits, streamed and
# whole, for levels coarser and finer than the pixels (5-9 at 64 and 128);
# sd,mass (one accumulator a pixel: the grid's own loop, and the first map
# finished in place) as well as several slots.
g=0
for src in "$out" "$tmp/o.snapkit"; do
    for t in 1 2; do
        for whole in "" --whole; do
            for geo in "--res 128 --axis z" "--res 64 --axis x"; do
                for vars in sd,T,velocity_y,count sd,mass; do
                    tag=$(basename "$src").$t$whole.${geo//[ -]/}.${vars//,/}
                    # shellcheck disable=SC2086
                    "$CLI" project "$src" --vars $vars $geo --threads "$t" $whole \
                        -o "$tmp/grid_${tag}_{var}.npy" >/dev/null || fail "grid $tag"
                    # shellcheck disable=SC2086
                    "$CLI" project "$src" --vars $vars $geo --threads "$t" $whole \
                        --los -1 1 -o "$tmp/gen_${tag}_{var}.npy" >/dev/null || fail "general $tag"
                    for f in "$tmp"/grid_"${tag}"_*.npy; do
                        cmp -s "$f" "${f/\/grid_/\/gen_}" || fail "$tag: $(basename "$f") differs on the grid path"
                        g=$((g + 1))
                    done
                done
            done
        done
    done
done
[ "$g" -eq 96 ] || fail "only $g grid maps compared"

$PY - "$tmp" <<'PYEOF' || failures=$((failures + 1))
import glob, json, os, sys
tmp = sys.argv[1]
bad = 0
for s in sorted(glob.glob(f"{tmp}/s_*.json")):
    d, w = json.load(open(s)), json.load(open(s.replace("/s_", "/w_")))
    name = os.path.basename(s)
    if not (d["streamed"] and not w["streamed"] and d["strategy"] == "stream"):
        print(f"FAIL: {name}: streamed {d['streamed']} / {w['streamed']}, {d['strategy']}")
        bad += 1
    for k in ("rows", "selected", "deposited"):
        if d[k] != w[k]:
            print(f"FAIL: {name}: {k} {d[k]} streamed, {w[k]} whole")
            bad += 1
    # The whole read held the table (sd,T,velocity_x: the cell keys,
    # density, pressure and velocity_x, 40 bytes a row) and the maps; the
    # stream holds batches and maps.
    table = d["rows"] * 40
    plain = not any(k in name for k in ("region", "exact", "part"))
    if plain and not d["bytes_allocated"] < table:
        print(f"FAIL: {name}: {d['bytes_allocated']} bytes held, the table has {table}")
        bad += 1
    # A small selection (a region, the particles) holds less than the
    # batches a stream may copy when they arrive before their turn (one a
    # thread, and how many depends on the scheduling): only the whole
    # box's reads are bound to beat the whole table.
    if plain and not d["bytes_allocated"] < w["bytes_allocated"]:
        print(f"FAIL: {name}: {d['bytes_allocated']} bytes streamed, {w['bytes_allocated']} whole")
        bad += 1
sys.exit(1 if bad else 0)
PYEOF

# Without --res the grid follows the data's finest level: the whole table.
"$CLI" project "$out" --vars sd -o "$tmp/d.npy" --json >"$tmp/d.json" || fail "default res"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["streamed"], d' "$tmp/d.json" \
    || fail "a projection without --res streamed"

[ $failures -eq 0 ] || exit 1
echo "project streams: ok"
