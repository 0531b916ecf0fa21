#!/bin/bash
# snapkit phase: .npy, FITS, JSON and figure outputs; the same bits on 1 and
# 2 threads, under mpirun -np 2 and 3, and from the output's .snapkit file; the sums against numpy's
# (mass per density-pressure bin, particles counted per velocity bin); bad
# input is one line, a non-zero exit, no file.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
DATA=${SNAPKIT_TEST_DATA:-$(dirname "$0")/../data}
out=$DATA/ramses/gravpart/output_00002

check "convert" "$CLI" convert "$out" -o "$TMP/o.snapkit"
args=(--x density --y T --z velocity_x --weight mass --bins 32,24 --no-fsync)
check "threads 1" "$CLI" phase "$out" "${args[@]}" --threads 1 -o "$TMP/a.npy"
has "wrote $TMP/a.npy"
check "threads 2" "$CLI" phase "$out" "${args[@]}" --threads 2 -o "$TMP/b.npy"
check ".snapkit" "$CLI" phase "$TMP/o.snapkit" "${args[@]}" -o "$TMP/c.npy"
ok cmp -s "$TMP/a.npy" "$TMP/b.npy"
ok cmp -s "$TMP/a.npy" "$TMP/c.npy"
# the rows kept by the extrema pass (default), none kept (a second pass),
# and kept until the limit (a second pass too) give the same bits
for m in 0 20000; do
    check "--memory $m" "$CLI" phase "$out" "${args[@]}" --threads 2 --memory $m -o "$TMP/m$m.npy"
    ok cmp -s "$TMP/a.npy" "$TMP/m$m.npy"
done

# under mpirun -np 2, 3 (each rank its share, exact sums added over ranks)
if [[ -n "${SNAPKIT_MPIEXEC:-}" ]]; then
    for k in 2 3; do
        for m in 512e6 0; do
            check "mpirun -np $k --memory $m" timeout 120 "$SNAPKIT_MPIEXEC" --oversubscribe \
                --allow-run-as-root -np $k "$CLI" phase "$out" "${args[@]}" --memory $m \
                -o "$TMP/r$k.npy"
            ok cmp -s "$TMP/a.npy" "$TMP/r$k.npy"
        done
    done
else
    echo "skip: MPI (snapkit built without it)"
fi

check "fits" "$CLI" phase "$out" --x density --y pressure --units cgs --bins 16,8 \
    -o "$TMP/p.fits" --no-fsync
for key in "NAXIS1  = *16 " "NAXIS2  = *8 " "CTYPE1  = 'log10(density)'" "XUNIT   = 'g/cm3 " \
    "YUNIT   = 'erg/cm3 " "BUNIT   = 'g  " "YNBINS  = *8 " "XLOG    = *T" "CRPIX1  = *0.5 " \
    "WEIGHT  = 'none"; do
    ok grep -qa "$key" "$TMP/p.fits"
done
check "json" "$CLI" phase "$out" --x density --y pressure --units cgs --bins 16,8 \
    -o "$TMP/p.json" --no-fsync
check "json stdout" "$CLI" phase "$out" --x density --y pressure --units cgs --bins 16,8 --json
ok cmp -s "$TMP/out" "$TMP/p.json"
has '"x":"density","x_unit":"g/cm3","y":"pressure","y_unit":"erg/cm3","z":"mass","z_unit":"g"'
check "png" "$CLI" phase "$out" --x density --y T --units cgs -o "$TMP/p.png" --no-fsync
ok /usr/bin/env bash -c "head -c 8 '$TMP/p.png' | od -c | grep -q 'P   N   G'"
check "pdf" "$CLI" phase "$out" --x density --y T --z T --weight volume -o "$TMP/p.pdf" \
    --no-fsync
ok grep -qa "%PDF" "$TMP/p.pdf"

if sanitized_library; then
    echo "skip: numpy comparisons (Python cannot load the sanitized library)"
else
    # numpy's mass per bin, on snapkit's edges with yt's strict filter
    ok /usr/bin/python3 - "$out" "$TMP/p.json" <<'EOF'
import json, sys
import numpy as np
import snapkit
t = snapkit.open(sys.argv[1]).read("hydro")
d = json.load(open(sys.argv[2]))
m = t.meta
ud, ul, ut, box = (float(m[k]) for k in ("unit_d", "unit_l", "unit_t", "boxlen"))
rho = np.asarray(t["density"]) * ud
p = np.asarray(t["pressure"]) * ud * (ul / ut) ** 2
mass = np.asarray(t["density"]) * (box / 2.0 ** np.asarray(t["level"])) ** 3 * ud * ul ** 3
xe, ye = np.array(d["x_edges"]), np.array(d["y_edges"])
keep = (rho > xe[0]) & (rho < xe[-1]) & (p > ye[0]) & (p < ye[-1])
i = np.digitize(rho[keep], xe) - 1
j = np.digitize(p[keep], ye) - 1
want = np.zeros((len(xe) - 1, len(ye) - 1))
np.add.at(want, (i, j), mass[keep])
got = np.array(d["values"])
assert d["binned"] == keep.sum() > 0, (d["binned"], keep.sum())
np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14 * want.max())
EOF
    check "particles" "$CLI" phase "$out" --component particles --x velocity_x --y velocity_y \
        --z count --bins 9,7 --family star -o "$TMP/q.json" --no-fsync
    ok /usr/bin/python3 - "$out" "$TMP/q.json" <<'EOF'
import json, sys
import numpy as np
import snapkit
t = snapkit.open(sys.argv[1]).read("particles")
d = json.load(open(sys.argv[2]))
star = np.asarray(t["family"]) == 2
vx, vy = np.asarray(t["velocity_x"])[star], np.asarray(t["velocity_y"])[star]
xe, ye = np.array(d["x_edges"]), np.array(d["y_edges"])
assert not d["x_log"] and d["rows"] == star.sum() > 0
keep = (vx > xe[0]) & (vx < xe[-1]) & (vy > ye[0]) & (vy < ye[-1])
want, _, _ = np.histogram2d(vx[keep], vy[keep], bins=[xe, ye])
assert (np.array(d["values"]) == want).all()
EOF
fi

rm -f "$TMP"/x.*
for ext in npy fits json png; do
    o=$TMP/x.$ext
    expect_error "zero bins ($ext)" "--bins: 1 to" "$CLI" phase "$out" --x density --y T \
        --bins 0 -o "$o"
    expect_error "empty range ($ext)" "--xlim: the range 2 .. 1 is empty" "$CLI" phase "$out" \
        --x density --y T --xlim 2 1 -o "$o"
    expect_error "log over non-positive ($ext)" "log bins over non-positive values" \
        "$CLI" phase "$out" --component particles --x tag --xlog --y mass -o "$o"
    expect_error "log range below 0 ($ext)" "a log range must start above 0" "$CLI" phase "$out" \
        --x density --xlim -1 1 --y T -o "$o"
    expect_error "unknown field ($ext)" "unknown quantity 'nosuch'" "$CLI" phase "$out" \
        --x nosuch --y T -o "$o"
    expect_error "unknown z ($ext)" "unknown quantity 'nosuch'" "$CLI" phase "$out" \
        --x density --y T --z nosuch -o "$o"
    expect_error "unit ($ext)" "unit 'K' does not fit density" "$CLI" phase "$out" \
        --x density --y T --units density=K -o "$o"
    expect_error "centre ($ext)" "'r' is taken about a centre" "$CLI" phase "$out" \
        --x r --y T -o "$o"
    expect_error "volume of particles ($ext)" "'volume' is not a quantity of particles" \
        "$CLI" phase "$out" --component particles --x velocity_x --y mass --weight volume -o "$o"
done
expect_error "no y" "give the binned quantities" "$CLI" phase "$out" --x density -o "$TMP/x.npy"
expect_error "no output" "no output given" "$CLI" phase "$out" --x density --y T
expect_error "extension" "write .npy, .fits" "$CLI" phase "$out" --x density --y T -o "$TMP/x.txt"
expect_error "memory" "--memory must be 0 or more" "$CLI" phase "$out" --x density --y T \
    --memory -1 -o "$TMP/x.npy"
expect_error "weight" "--weight must be mass, volume or none" "$CLI" phase "$out" --x density \
    --y T --weight count -o "$TMP/x.npy"
ok test -z "$(ls "$TMP"/x.* 2>/dev/null)"
exit $fail
