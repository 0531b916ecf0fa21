#!/usr/bin/env bash
# snapkit stats --clip without Python (so it runs in the sanitizer build
# too): on an output of density 1 everywhere, a box's clipped volume and
# mass are the box's volume exactly, a sphere's and its inverse's add up to
# the box, the same on 1 and 2 threads and from the .snapkit file; bad
# input gives one line and a non-zero exit, nothing printed.
set -uo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
uniform=$data/ramses/sedov3d/output_00001 # density 1
particles=$data/ramses/gravpart/output_00002
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

# member "key" file: the last JSON object of "key" (no nested objects in
# it): the top-level one, after a column of that name
member() { grep -o "\"$1\":{[^{}]*}" "$2" | tail -n 1; }

# a box cutting cells of every level along x: volume and mass 0.31 exactly
check "stats --clip box" "$cli" stats "$uniform" --clip --xrange 0.3 0.61 --vars density --json
cp "$TMP/out" "$TMP/box.json"
has '"clip":{"rule":"exact","cells":19664,"clipped_cells":18343.04,"volume":0.31}'
has '"density":{"min":1,"max":1,"sum":18343.04,"volume_sum":0.31}'
# by centres the same box holds another volume (the check can fail)
check "stats box" "$cli" stats "$uniform" --xrange 0.3 0.61 --vars density --json
grep -qF '"volume_sum":0.31}' "$TMP/out" && { echo "FAIL: the centre rule gave 0.31"; fail=1; }

# the same numbers on 2 threads and from the .snapkit file
check "convert" "$cli" convert "$uniform" -o "$TMP/u.snapkit"
for src in "$uniform" "$TMP/u.snapkit"; do
    for t in 1 2; do
        check "stats --clip sphere $src $t" "$cli" stats "$src" --clip --sphere 0.2 \
            --center 0.45 0.5 0.52 --vars density --totals --weight mass --threads $t --json
        member clip "$TMP/out" > "$TMP/clip.$t.$(basename "$src")"
        member totals "$TMP/out" > "$TMP/totals.$t.$(basename "$src")"
    done
done
for f in "$TMP"/clip.* "$TMP"/totals.*; do
    kind=${f##*/}; kind=${kind%%.*}
    cmp -s "$f" "$TMP/$kind.1.output_00001" || { echo "FAIL: $f differs"; fail=1; }
done
grep -qF '"rule":"columns","columns":16' "$TMP/clip.1.output_00001" \
    || { echo "FAIL: no columns rule"; cat "$TMP/clip.1.output_00001"; fail=1; }

# a sphere and its inverse add up to the whole box
check "stats --clip --inverse" "$cli" stats "$uniform" --clip --sphere 0.2 --center 0.45 0.5 0.52 \
    --inverse --vars density --json
inside=$(sed 's/.*"volume":\([^,}]*\).*/\1/' "$TMP/clip.1.output_00001")
outside=$(member clip "$TMP/out" | sed 's/.*"volume":\([^,}]*\).*/\1/')
ok awk -v a="$inside" -v b="$outside" \
    'BEGIN { s = a + b - 1; exit !(s < 1e-12 && s > -1e-12 && a > 0.0335 && a < 0.03352) }'

expect_error "--clip without a region" "--clip needs a region" "$cli" stats "$uniform" --clip
[[ -s "$TMP/out" ]] && { echo "FAIL: printed"; cat "$TMP/out"; fail=1; }
expect_error "--clip on particles" "particles are points" \
    "$cli" stats "$particles" --clip --component particles --xrange 0 0.5
[[ -s "$TMP/out" ]] && { echo "FAIL: printed"; cat "$TMP/out"; fail=1; }
expect_error "project --clip with a shape" "clip works for axis-aligned maps" \
    "$cli" project "$uniform" --vars sd --clip --sphere 0.2 -o "$TMP/map.npy"
[[ -e "$TMP/map.npy" ]] && { echo "FAIL: project wrote a map"; fail=1; }
exit $fail
