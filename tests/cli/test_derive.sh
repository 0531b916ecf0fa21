#!/usr/bin/env bash
# Derived quantities on the command line: `stats --list-quantities`,
# `stats --vars density,v_phi,r,T --center ...` (cells and particles) and
# `project --vars v_phi,mass --center ...` from a RAMSES output and its
# .snapkit file, checked against numpy on the rows Python reads; the same
# statistics for 1 and 2 threads and either source; one-line errors.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
out=$data/ramses/gravpart/output_00002
py=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

# The list, as text and JSON.
check "list" "$cli" stats --list-quantities
has "v_phi"
has "p / rho^gamma"
check "list json" "$cli" stats --list-quantities --json
$py - "$TMP/out" <<'PY' || fail=1
import json, sys
q = {d["name"]: d for d in json.load(open(sys.argv[1]))}
assert {"r", "v_r", "v_phi", "R", "z", "j", "T", "mach", "entropy", "n", "nH", "B"} <= set(q), q
assert q["v_phi"]["needs"] == ["center", "axis", "bulk_velocity"] and q["T"]["particles"] is None
PY

check "convert" "$cli" convert "$out" -o "$TMP/o.snapkit"
frame=(--center 0.3 0.6 0.55 --bulk-velocity 0.01 -0.02 0.005 --cylinder-axis 1 1 2)
for src in "$out" "$TMP/o.snapkit"; do
    name=$(basename "$src")
    for t in 1 2; do
        check "stats $name $t" "$cli" stats "$src" --vars density,v_phi,r,T "${frame[@]}" \
            --threads $t --json
        cp "$TMP/out" "$TMP/cells.$name.$t.json"
    done
    check "stats particles $name" "$cli" stats "$src" --component particles \
        --vars mass,v_r,j_z "${frame[@]}" --json
    cp "$TMP/out" "$TMP/parts.$name.json"
    check "project $name" "$cli" project "$src" --vars v_phi,mass "${frame[@]}" --res 32 \
        --unit km/s -o "$TMP/$name.{var}.npy" --json
    cp "$TMP/out" "$TMP/project.$name.json"
done

# Against numpy, from the rows Python reads; the same bits for every run.
if sanitized_library; then
    echo "SKIP: the numpy comparison (Python cannot load a sanitized libsnapkit)"
else
$py - "$TMP" "$out" <<'PY' || fail=1
import glob, json, math, sys
import numpy as np
import snapkit
tmp, src = sys.argv[1], sys.argv[2]
gas = snapkit.open(src).hydro()
parts = snapkit.open(src).particles()
boxlen = float(gas.meta["boxlen"])
c = np.array([0.3, 0.6, 0.55]) * boxlen
bulk = np.array([0.01, -0.02, 0.005])
n = np.array([1.0, 1.0, 2.0]) / math.sqrt(6.0)

def nearest(d):
    d = np.fmod(d, boxlen)
    return np.where(d > boxlen / 2, d - boxlen, np.where(d <= -boxlen / 2, d + boxlen, d))

size = boxlen / 2.0 ** gas["level"]
d = np.array([nearest((gas["c" + a] + 0.5) * size - c[k]) for k, a in enumerate("xyz")])
v = np.array([gas["velocity_" + a] - bulk[k] for k, a in enumerate("xyz")])
nxd = np.cross(n, d, axis=0)
want = {"density": gas["density"], "v_phi": (nxd * v).sum(axis=0) / np.linalg.norm(nxd, axis=0),
        "r": np.linalg.norm(d, axis=0), "T": gas["pressure"] / gas["density"]}
dp = np.array([nearest(parts["position_" + a] - c[k]) for k, a in enumerate("xyz")])
vp = np.array([parts["velocity_" + a] - bulk[k] for k, a in enumerate("xyz")])
want_p = {"mass": parts["mass"], "v_r": (dp * vp).sum(axis=0) / np.linalg.norm(dp, axis=0),
          "j_z": dp[0] * vp[1] - dp[1] * vp[0]}

def same(got, w, what):
    assert list(got["columns"]) == list(w), (what, list(got["columns"]))
    for name, values in w.items():
        g = got["columns"][name]
        tol = 1e-12 * math.fsum(np.abs(values))
        assert abs(g["sum"] - math.fsum(values)) <= tol, (what, name, g["sum"])
        assert abs(g["min"] - values.min()) <= 1e-12 * abs(values.min()), (what, name)
        assert abs(g["max"] - values.max()) <= 1e-12 * abs(values.max()), (what, name)

runs = sorted(glob.glob(tmp + "/cells.*.json"))
assert len(runs) == 4
for p in runs:
    same(json.load(open(p)), want, p)
first = json.load(open(runs[0]))["columns"]
assert all(json.load(open(p))["columns"] == first for p in runs), "threads or source differ"
parts_runs = sorted(glob.glob(tmp + "/parts.*.json"))
for p in parts_runs:
    same(json.load(open(p)), want_p, p)
assert json.load(open(parts_runs[0]))["columns"] == json.load(open(parts_runs[1]))["columns"]

# Projection: sum over pixels of (mass-weighted mean v_phi) x mass = sum of m v_phi.
unit_v = float(gas.meta["unit_l"]) / float(gas.meta["unit_t"]) / 1e5
m = gas["density"] * size ** 3
total = math.fsum(m * want["v_phi"] * unit_v)
scale = math.fsum(np.abs(m * want["v_phi"] * unit_v))
for name in ("output_00002", "o.snapkit"):
    info = json.load(open(f"{tmp}/project.{name}.json"))
    assert [x["unit"] for x in info["maps"]] == ["km/s", "code"], info["maps"]
    vphi = np.load(f"{tmp}/{name}.v_phi.npy")
    mass = np.load(f"{tmp}/{name}.mass.npy")
    got = math.fsum((np.nan_to_num(vphi) * mass).ravel())
    assert abs(got - total) <= 1e-12 * scale, (name, got, total)
PY
fi

# Bad input: one line, non-zero, nothing written.
expect_error "no centre" "quantity 'v_phi' is taken about a centre: give one with --center" \
    "$cli" stats "$out" --vars v_phi
expect_error "unknown" "no hydro variable 'nope'" "$cli" stats "$out" --vars density,nope
expect_error "cells only" "quantity 'T' needs cells, not particles" \
    "$cli" stats "$out" --component particles --vars T --center 0.5 0.5 0.5
expect_error "project no centre" "quantity 'v_r' is taken about a centre" \
    "$cli" project "$out" --vars v_r -o "$TMP/bad.npy"
ok test ! -e "$TMP/bad.npy"
expect_error "project unknown" "unknown quantity 'nope'" \
    "$cli" project "$out" --vars sd,nope -o "$TMP/bad.npy"
ok test ! -e "$TMP/bad.npy"
exit $fail
