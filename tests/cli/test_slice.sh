#!/bin/bash
# snapkit slice (along axes and off-axis): the same bits on 1 and 2 threads and from the output and
# its .snapkit file; .npy of shape (ny, nx), FITS with a WCS, figures with
# their sidecar; only the files the plane crosses are opened; a pixel is
# the value of the leaf cell containing its centre (checked against the
# cells read with numpy); bad input is one line, a non-zero exit, no file.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
DATA=${SNAPKIT_TEST_DATA:-$(dirname "$0")/../data}
out=$DATA/ramses/manyfiles/output_00002  # 64 CPU files, levels 3-5

# --with-coarse: the file keeps refined cells, so --lmax reads equal the output's
check "help" "$CLI" slice --help
has "--normal"
check "convert" "$CLI" convert "$out" --with-coarse -o "$TMP/o.snapkit"
n=0
for args in "--axis z --at 0.5 --res 128" "--axis x --at 0.3711 --res 100,60 --width 0.4 --center 0.4 0.55 0.6" \
            "--axis y --at 0.61 --res 64 --lmax 4" \
            "--normal 1 1 0.5 --north 0 0 1 --center 0.5 0.45 0.52 --res 80,60 --width 0.7"; do
    for src in "$out" "$TMP/o.snapkit"; do
        for t in 1 2; do
            tag=$(basename "$src").$t
            # shellcheck disable=SC2086
            check "slice $args $tag" "$CLI" slice "$src" $args --threads "$t" \
                --vars density,T,velocity_y -o "$TMP/s_${tag}_{var}.npy" --no-fsync
        done
    done
    for v in density T velocity_y; do
        for f in o.snapkit.1 o.snapkit.2 output_00002.2; do
            ok cmp -s "$TMP/s_output_00002.1_$v.npy" "$TMP/s_${f}_$v.npy"
            n=$((n + 1))
        done
    done
    rm -f "$TMP"/s_*.npy
done
[[ $n -eq 36 ]] || { echo "FAIL: only $n slices compared"; fail=1; }

# under mpirun -np 2..4 (each rank paints its share's cells, rank 0 gathers
# the pixels): the same bits as one process, along an axis and off-axis,
# from the output and from its .snapkit file
if [[ -n ${SNAPKIT_MPIEXEC:-} ]]; then
    m=0
    for args in "--axis x --at 0.3711 --res 100,60 --width 0.4 --center 0.4 0.55 0.6" \
                "--normal 1 1 0.5 --north 0 0 1 --center 0.5 0.45 0.52 --res 80,60 --width 0.7"; do
        for src in "$out" "$TMP/o.snapkit"; do
            # shellcheck disable=SC2086
            check "one process $args" "$CLI" slice "$src" $args --vars density,T -o "$TMP/one_{var}.npy" --no-fsync
            for k in 2 3 4; do
                # shellcheck disable=SC2086
                check "mpirun -np $k slice $args" timeout 120 "$SNAPKIT_MPIEXEC" --oversubscribe \
                    --allow-run-as-root -np "$k" "$CLI" slice "$src" $args --vars density,T \
                    -o "$TMP/mpi_{var}.npy" --no-fsync
                for v in density T; do
                    ok cmp -s "$TMP/one_$v.npy" "$TMP/mpi_$v.npy"
                    m=$((m + 1))
                done
            done
        done
    done
    [[ $m -eq 24 ]] || { echo "FAIL: only $m MPI slices compared"; fail=1; }
    rm -f "$TMP"/one_*.npy "$TMP"/mpi_*.npy
else
    echo "SKIP (counted): the mpirun part, snapkit was built without MPI"
fi

# shape (ny, nx) and every pixel the cell at its centre, from the cells themselves
check "npy" "$CLI" slice "$out" --axis y --at 0.4375 --res 90,50 --width 0.5 --center 0.3 0.5 0.45 \
    -o "$TMP/d.npy" --no-fsync
if sanitized_library; then
    echo "SKIP: the numpy check of the pixels (Python cannot load a sanitized library)"
else
    ok env PYTHONPATH="$(dirname "$0")/../../python" /usr/bin/python3 - "$out" "$TMP/d.npy" <<'PY'
import sys, numpy as np, snapkit
t = snapkit.open(sys.argv[1]).read("hydro")
got = np.load(sys.argv[2])
assert got.shape == (50, 90), got.shape
lev = np.asarray(t["level"]); h = 0.5 ** lev
lo = [np.asarray(t[k]) * h for k in ("cx", "cy", "cz")]
at, W, nx, ny = 0.4375, 0.5, 90, 50
p = W / nx
u0, v0 = 0.45 - W / 2, 0.3 - p * ny / 2          # along y the image is (z, x)
cu = u0 + (np.arange(nx) + 0.5) * p
cv = v0 + (np.arange(ny) + 0.5) * p
want = np.full((ny, nx), np.nan)
d = np.asarray(t["density"])
for k in np.nonzero((lo[1] <= at) & (at < lo[1] + h))[0]:
    i = (cu >= lo[2][k]) & (cu < lo[2][k] + h[k])
    j = (cv >= lo[0][k]) & (cv < lo[0][k] + h[k])
    want[np.ix_(j, i)] = d[k]
assert np.array_equal(got, want, equal_nan=True)
assert not np.isnan(got).any() and np.unique(got).size > 10
PY
fi

check "fits" "$CLI" slice "$out" --axis z --at 0.5 --res 64,32 --vars density,T --unit K -o "$TMP/s.fits" --json
has '"nx":64'
has '"ny":32'
has '"mode":"slice"'
ok grep -qa "EXTNAME = 'T" "$TMP/s.fits"
ok grep -qa "BUNIT   = 'K" "$TMP/s.fits"
ok grep -qa "CDELT1A = *0.015625 " "$TMP/s.fits"  # boxlen 1: code lengths = box units
ok grep -qa "CTYPE2  = 'Y" "$TMP/s.fits"

check "figure" "$CLI" slice "$out" --vars density,T -o "$TMP/f_{var}.png" --res 128
ok test -s "$TMP/f_density.png"
ok test -s "$TMP/f_T.png.json"

# the plane near a face opens only the files whose domains it crosses
check "files" "$CLI" slice "$out" --at 0.05 --res 32 -o "$TMP/m.npy" --json
ok /usr/bin/python3 -c "import json, sys; j = json.load(open(sys.argv[1]))
sys.exit(not 0 < j['files_opened'] < 32)" "$TMP/out"
rm -f "$TMP/m.npy"

rm -f "$TMP"/s* "$TMP"/f_* "$TMP"/d.npy
expect_error "plane outside" "outside the box" "$CLI" slice "$out" --at 1.5 -o "$TMP/x.npy"
expect_error "plane on the far face" "outside the box" "$CLI" slice "$out" --at 1 -o "$TMP/x.npy"
expect_error "zero res" "--res" "$CLI" slice "$out" --res 0 -o "$TMP/x.npy"
expect_error "zero res y" "--res" "$CLI" slice "$out" --res 64,0 -o "$TMP/x.npy"
expect_error "unknown quantity" "nosuch" "$CLI" slice "$out" --vars nosuch -o "$TMP/x.npy"
expect_error "sd" "not a quantity of cells" "$CLI" slice "$out" --vars sd -o "$TMP/x.npy"
expect_error "bad axis" "--axis" "$CLI" slice "$out" --axis w -o "$TMP/x.npy"
expect_error "width" "--width" "$CLI" slice "$out" --width -1 -o "$TMP/x.npy"
expect_error "shape" "no ranges or shapes" "$CLI" slice "$out" --sphere 0.1 -o "$TMP/x.npy"
expect_error "window outside" "reaches the image" "$CLI" slice "$out" --center 3 3 0.5 -o "$TMP/x.npy"
expect_error "two vars, one npy" "{var}" "$CLI" slice "$out" --vars density,pressure -o "$TMP/x.npy"
expect_error "no output" "no output" "$CLI" slice "$out"
expect_error "zero normal" "normal has zero length" "$CLI" slice "$out" --normal 0 0 0 -o "$TMP/x.npy"
expect_error "north along normal" "north vector" "$CLI" slice "$out" --normal 0 0 1 --north 0 0 2 -o "$TMP/x.npy"
expect_error "at off-axis" "--at places" "$CLI" slice "$out" --normal 1 0 1 --at 0.5 -o "$TMP/x.npy"
expect_error "centre outside" "outside the box" "$CLI" slice "$out" --normal 1 0 1 --center 1.2 0.5 0.5 -o "$TMP/x.npy"
expect_error "north alone" "--north needs --normal" "$CLI" slice "$out" --north 0 0 1 -o "$TMP/x.npy"
[[ -z $(ls -A "$TMP" | grep -v '^o.snapkit$\|^out$\|^err$') ]] || { echo "FAIL: a file was written"; ls "$TMP"; fail=1; }
exit $fail
