#!/bin/bash
# snapkit cube: the same bits on 1 and 2 threads; from the output and its
# .snapkit file equal within 1e-13 (the file's row order differs, so the
# finer cells' sums round in another order) (a box and the whole box,
# volume and mass weights); a FITS
# cube with its axes; bad input is one line, a non-zero exit, no file.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
DATA=${SNAPKIT_TEST_DATA:-$(dirname "$0")/../data}
out=$DATA/ramses/sedov3d/output_00001

check "convert" "$CLI" convert "$out" -o "$TMP/o.snapkit"
n=0
for args in "--level 4" "--level 6 --xrange 0.2 0.7 --yrange 0.1 0.5 --weight mass"; do
    for src in "$out" "$TMP/o.snapkit"; do
        for t in 1 2; do
            tag=$(basename "$src").$t
            # shellcheck disable=SC2086
            check "cube $args $tag" "$CLI" cube "$src" $args --threads "$t" \
                --vars density,velocity_x,pressure -o "$TMP/c_${tag}_{var}.npy" --no-fsync
        done
    done
    for v in density velocity_x pressure; do
        ok cmp -s "$TMP/c_output_00001.1_$v.npy" "$TMP/c_output_00001.2_$v.npy"
        ok cmp -s "$TMP/c_o.snapkit.1_$v.npy" "$TMP/c_o.snapkit.2_$v.npy"
        ok /usr/bin/python3 -c "import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
sys.exit(not np.allclose(a, b, rtol=1e-13, atol=0, equal_nan=True))" \
            "$TMP/c_output_00001.1_$v.npy" "$TMP/c_o.snapkit.1_$v.npy"
        n=$((n + 3))
    done
    rm -f "$TMP"/c_*.npy
done
[[ $n -eq 18 ]] || { echo "FAIL: only $n cubes compared"; fail=1; }

check "fits" "$CLI" cube "$out" --level 3 --vars density,T --unit K -o "$TMP/c.fits" --json
has '"shape":[8,8,8]'
has '"T":"K"'
ok grep -qa "CDELT3A = *0.125 " "$TMP/c.fits"
ok grep -qa "BUNIT   = 'K" "$TMP/c.fits"

rm -f "$TMP"/c*
expect_error "level below 0" "--level must be 0..30" "$CLI" cube "$out" --level -1 -o "$TMP/x.npy"
expect_error "level too high" "--level must be 0..30" "$CLI" cube "$out" --level 31 -o "$TMP/x.npy"
expect_error "too large" "--level 6 fits" "$CLI" cube "$out" --level 9 --max-memory 20000000 \
    -o "$TMP/x.npy"
expect_error "empty box" "low end must be below high end" "$CLI" cube "$out" --level 4 --xrange 0.5 0.5 -o "$TMP/x.npy"
expect_error "unknown field" "nosuch" "$CLI" cube "$out" --level 4 --vars nosuch -o "$TMP/x.npy"
expect_error "sd" "not a quantity of cells" "$CLI" cube "$out" --level 4 --vars sd -o "$TMP/x.npy"
expect_error "two vars, one npy" "{var}" "$CLI" cube "$out" --level 4 --vars density,pressure \
    -o "$TMP/x.npy"
[[ ! -e $TMP/x.npy && ! -e $TMP/x_density.npy ]] || { echo "FAIL: a file was written"; fail=1; }
exit $fail
