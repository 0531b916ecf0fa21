#!/bin/bash
# snapkit profile: every output (text, CSV, JSON, FITS, .npy, figures) of
# one profile carries the same numbers; the counts add up to the rows
# stats sees in the selection; the same bits on 1 and 2 threads; bad input
# is one line, a non-zero exit and no file.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
DATA=${SNAPKIT_TEST_DATA:-$(dirname "$0")/../data}
out=$DATA/ramses/sedov3d/output_00001
sel=(--center 0.5 0.5 0.5 --sphere 0.4 --unit standard)

check "help" "$CLI" profile --help
has "--cumulative"
for t in 1 2; do
    check "threads $t" "$CLI" profile "$out" "${sel[@]}" --bin r --bins 12 --vars density,T,v_phi \
        --percentiles 10,90 --cumulative --threads "$t" -o "$TMP/p$t.json" -o "$TMP/p$t.txt" \
        -o "$TMP/p$t.csv" -o "$TMP/p$t.fits" -o "$TMP/p$t.npy" -o "$TMP/p$t.png" -o "$TMP/p$t.svg"
done
for e in json txt csv npy; do
    ok cmp -s "$TMP/p1.$e" "$TMP/p2.$e"
done
ok grep -q "^# profile of quantities binned by r \[code\], 12 linear bins, weight mass" "$TMP/p1.txt"
ok grep -q "^bin_lo,bin_hi,bin_center,count,weight,density_mean,density_std,density_sum,density_p10,density_p90,density_cum_sum" "$TMP/p1.csv"
ok grep -qa "PNG" "$TMP/p1.png"
ok grep -q "<svg" "$TMP/p1.svg"
ok grep -qa "EXTNAME = 'PROFILE" "$TMP/p1.fits"

# the counts add up to the rows in the sphere, as stats counts them
check "stats" "$CLI" stats "$out" "${sel[@]}" --json
rows=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rows'])" "$TMP/out")
ok /usr/bin/python3 - "$TMP/p1.json" "$rows" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert sum(p["count"]) == p["binned"] == p["rows"] == int(sys.argv[2]), (p["binned"], sys.argv[2])
assert p["cum_count"][-1] == p["binned"]
assert len(p["edges"]) == 13 and set(p["quantities"]) == {"density", "T", "v_phi"}
for q in p["quantities"].values():
    assert len(q["mean"]) == len(q["std"]) == len(q["sum"]) == 12
    assert set(q["percentiles"]) == {"10", "90"}
PY
if ! sanitized_library; then
    ok /usr/bin/python3 - "$TMP/p1" <<'PY'
import csv, json, sys
import numpy as np
from astropy.io import fits
base = sys.argv[1]
p = json.load(open(base + ".json"))
rows = list(csv.DictReader(open(base + ".csv")))
a = np.load(base + ".npy")
t = fits.open(base + ".fits")["PROFILE"].data
names = list(rows[0])
assert a.shape == (12, len(names))
for j, name in enumerate(names):
    col = np.array([float(r[name]) for r in rows])
    assert np.array_equal(col, a[:, j], equal_nan=True), name
    assert np.array_equal(col, np.asarray(t[name], float), equal_nan=True), name
mean = np.array([np.nan if v is None else v for v in p["quantities"]["T"]["mean"]])
assert np.array_equal(mean, a[:, names.index("T_mean")], equal_nan=True)
assert np.array_equal(np.array(p["edges"][:-1]), a[:, 0])
PY
fi

# log bins, a range, volume and no weights
check "log" "$CLI" profile "$out" "${sel[@]}" --bin density --log --range 0.5 2 --bins 3 \
    --weight volume --vars T --json
has '"bin":"density","bin_unit":"code","log":true,"weight_field":"volume","edges":[0.5,'
check "none" "$CLI" profile "$out" --bin T --weight none --vars density --json
has '"weight_field":"none"'

# v_circ: the enclosed mass is the running sum of the bins' masses
check "v_circ" "$CLI" profile "$out" "${sel[@]}" --bin r --bins 5 --vars v_circ --weight none \
    --json
ok /usr/bin/python3 - "$TMP/out" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))
q = p["quantities"]["v_circ"]
m = 0.0
for j in range(5):
    m += q["sum"][j]
    G = 6.67430e-8  # this output's units are cgs (unit_l = unit_d = unit_t = 1)
    assert abs(q["mean"][j] - math.sqrt(G * m / p["edges"][j + 1])) <= 1e-12 * q["mean"][j]
PY

# under mpirun -np 1..4 (each rank its share, rank 0 bins every row): the
# same JSON, byte for byte, as one process
if [[ -n ${SNAPKIT_MPIEXEC:-} ]]; then
    "$CLI" profile "$out" "${sel[@]}" --bin r --bins 9 --vars density,v_phi --percentiles 50 \
        --json > "$TMP/one.json"
    for k in 1 2 3 4; do
        timeout 120 "$SNAPKIT_MPIEXEC" --oversubscribe --allow-run-as-root -np "$k" "$CLI" \
            profile "$out" "${sel[@]}" --bin r --bins 9 --vars density,v_phi --percentiles 50 \
            --json > "$TMP/mpi.json" 2> "$TMP/err" || { echo "FAIL: -np $k"; cat "$TMP/err"; fail=1; }
        ok cmp -s "$TMP/one.json" "$TMP/mpi.json"
    done
else
    echo "SKIP (counted): the mpirun part, snapkit was built without MPI"
fi

# --component hydro,particles: the rows of both binned together (a
# rotation curve's v_circ from the gas and the particles' mass): counts
# and masses per bin are those of the two profiles added, and v_circ is
# sqrt(G M(<r) / r) of the enclosed mass of both
gp=$DATA/ramses/gravpart/output_00002
for c in hydro particles hydro,particles; do
    check "profile --component $c" "$CLI" profile "$gp" "${sel[@]}" --bin r --bins 6 --range 0 0.4 \
        --vars v_circ,v_phi --component "$c" --json
    cp "$TMP/out" "$TMP/comp_$c.json"
done
ok /usr/bin/python3 - "$TMP" <<'PY'
import json, math, sys
h, p, b = (json.load(open(f"{sys.argv[1]}/comp_{c}.json")) for c in ("hydro", "particles", "hydro,particles"))
assert all(x + y == z for x, y, z in zip(h["count"], p["count"], b["count"])), (h["count"], p["count"], b["count"])
assert min(p["count"]) >= 0 and sum(p["count"]) > 0 and sum(h["count"]) > 0
hs, ps, bs = (d["quantities"]["v_circ"]["sum"] for d in (h, p, b))
assert all(abs(x + y - z) <= 1e-15 * z for x, y, z in zip(hs, ps, bs)), (hs, ps, bs)
G, m = 6.67430e-8, 0.0  # this output's units are cgs
for j in range(6):
    m += bs[j]
    want = math.sqrt(G * m / b["edges"][j + 1])
    assert abs(b["quantities"]["v_circ"]["mean"][j] - want) <= 1e-12 * want
PY
expect_error "density of particles" "no particle field 'density'" "$CLI" profile "$gp" "${sel[@]}" \
    --vars density --component hydro,particles --json
expect_error "component twice" "given twice" "$CLI" profile "$gp" --vars v_circ --component hydro,hydro --json

# bad input: one line, non-zero, nothing written
x=$TMP/x.json
expect_error "zero bins" "--bins must be 1.." "$CLI" profile "$out" "${sel[@]}" --bins 0 -o "$x"
expect_error "empty range" "--range" "$CLI" profile "$out" "${sel[@]}" --range 2 1 -o "$x"
expect_error "log over non-positive" "--range" "$CLI" profile "$out" "${sel[@]}" --log \
    --range 0 1 -o "$x"
expect_error "log, no positive value" "log bins need positive values of 'v_z'" \
    "$CLI" profile "$out" --center 0.5 0.5 0.5 --bin v_z --log -o "$x"
expect_error "unknown field" "foo" "$CLI" profile "$out" --bin foo -o "$x"
expect_error "unknown quantity" "bar" "$CLI" profile "$out" "${sel[@]}" --vars density,bar -o "$x"
expect_error "v_circ needs r" "v_circ (sqrt(G M(<r)/r)) needs --bin r" "$CLI" profile "$out" \
    --bin density --vars v_circ -o "$x"
expect_error "r needs a centre" "--center" "$CLI" profile "$out" --bin r -o "$x"
expect_error "bad extension" "a profile is written as" "$CLI" profile "$out" "${sel[@]}" \
    -o "$TMP/x.xls"
expect_error "bad unit" "does not fit density" "$CLI" profile "$out" "${sel[@]}" \
    --units density=km -o "$x"
expect_error "volume weights of particles" "volume weights need cells" "$CLI" profile \
    "$DATA/ramses/gravpart/output_00002" --component particles --bin position_x --vars mass \
    --weight volume -o "$x"
[[ ! -e $x && ! -e $TMP/x.xls ]] || { echo "FAIL: a file was written"; fail=1; }
exit $fail
