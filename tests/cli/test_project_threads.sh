#!/bin/bash
# snapkit project writes the same bytes on 1, 2 and 8 threads (issue 33:
# the streamed deposit runs on every thread, in bands that keep each
# pixel's rows in table order): .npy and .fits maps of every fixture, of a
# 32-file output and of its .snapkit file, along an axis (on the pixel grid
# and off it, one quantity and several) and off-axis. On a machine of
# fewer CPUs the budget caps --threads 8 (tests/c/test_project_threads.c
# runs 8 threads anywhere).
set -u
source "$(dirname "$0")/counting.sh"
make_output32

n=0
same() { # SOURCE TAG ARGS...: the maps of 2 and 8 threads against 1 thread's
    local src=$1 tag=$2
    shift 2
    for t in 1 2 8; do
        "$CLI" project "$src" "$@" --threads "$t" --no-fsync -o "$tmp/${tag}_$t.fits" >/dev/null \
            || fail "$tag: project --threads $t (fits)"
        "$CLI" project "$src" "$@" --threads "$t" --no-fsync -o "$tmp/${tag}_${t}_{var}.npy" \
            >/dev/null || fail "$tag: project --threads $t (npy)"
    done
    for t in 2 8; do
        cmp -s "$tmp/${tag}_1.fits" "$tmp/${tag}_$t.fits" || fail "$tag: $t threads' FITS differs"
        for f in "$tmp/${tag}"_1_*.npy; do
            cmp -s "$f" "${f/_1_/_${t}_}" || fail "$tag: $t threads' $(basename "$f") differs"
            n=$((n + 1))
        done
    done
}

shared=${SNAPKIT_SHARED:-../shared}
outputs=0
for o in "${SNAPKIT_TEST_DATA:-tests/data}"/ramses/*/output_* "$shared"/fixtures/ramses/*/output_*; do
    [ -f "$o/info_${o##*_}.txt" ] || continue
    tag=$(basename "$(dirname "$o")")
    same "$o" "$tag.grid" --vars sd --axis z --res 64
    same "$o" "$tag.multi" --vars sd,T,velocity_x --axis z --res 100
    outputs=$((outputs + 1))
done
[ "$outputs" -ge 3 ] || fail "only $outputs fixtures found"

for src in "$out" "$tmp/o.snapkit"; do
    s=$(basename "$src")
    same "$src" "$s.sd" --vars sd --axis z --res 480
    same "$src" "$s.grid" --vars sd --axis x --res 256
    same "$src" "$s.multi" --vars sd,T,velocity_x,count --axis y --res 200
    same "$src" "$s.exact" --vars sd --direction 1 2 3 --kernel exact --res 64
    same "$src" "$s.part" --component particles --vars mass --kernel cic --res 96
done
[ "$n" -ge 100 ] || fail "only $n maps compared"

[ $failures -eq 0 ] || exit 1
echo "project threads: $n maps, the same bytes on 1, 2 and 8 threads"
