#!/usr/bin/env bash
# snapkit bench atoms: the inputs are the generator's fcc copper (checked
# here with peers/cu_fcc.py and numpy, without snapkit), the JSON's shape,
# counts that cannot hold by accident (4 n^3 atoms per row, the atoms
# checked summed from the rows that ran), ratios recomputed, the peers
# that are installed measured and the others named, kept inputs reused
# and a damaged one refused, the report stage, plot and compare of it,
# and bad options refused with one line.
set -euo pipefail
cli=$(realpath "${SNAPKIT_CLI:-build/snapkit}")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

have_ase=0; $py -c 'import ase' 2>/dev/null && have_ase=1
have_lmp=0; command -v lmp >/dev/null && have_lmp=1

(cd "$TMP" && "$cli" bench atoms --sizes 500,32 --runs 2 --threads 2 --inputs in --json \
    --csv runs.csv >atoms.json)
(cd "$TMP" && "$cli" bench atoms --sizes 32 --runs 1 --peers none --formats data,dump >none.txt)
ok test -z "$(ls "$TMP" | grep -v -e '^in$' -e atoms.json -e none.txt -e runs.csv)"

$py - "$TMP" "$root/peers" "$have_ase" "$have_lmp" <<'PY'
import csv, json, os, sys
import numpy as np
tmp, bench, have_ase, have_lmp = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"
sys.path.insert(0, bench)
import cu_fcc

# The kept inputs, read with numpy: every atom is the generator's.
for n in (32, 500):
    want = cu_fcc.positions(n)
    size = repr(cu_fcc.box(cu_fcc.cells(n)))
    dump = open(f"{tmp}/in/cu_fcc_{n}.dump").read().splitlines()
    assert dump[3] == str(n) and dump[5:8] == [f"0 {size}"] * 3, dump[:9]
    d = np.loadtxt(dump[9:])
    assert (d[:, 0] == np.arange(1, n + 1)).all() and (d[:, 1] == 1).all()
    assert np.array_equal(d[:, 2:], want), "dump coordinates"
    data = open(f"{tmp}/in/cu_fcc_{n}.data").read().splitlines()
    at = data.index("Atoms # atomic")
    a = np.loadtxt(data[at + 2:at + 2 + n])
    assert (a[:, 0] == np.arange(1, n + 1)).all() and (a[:, 1] == 1).all()
    assert np.array_equal(a[:, 2:5], want), "data coordinates"
    assert f"0 {size} xlo xhi" in data and f"{n} atoms" in data
    xyz = open(f"{tmp}/in/cu_fcc_{n}.extxyz").read().splitlines()
    assert xyz[0] == str(n) and f'Lattice="{size} 0 0 0 {size} 0 0 0 {size}"' in xyz[1]
    assert all(line.split()[0] == "Cu" for line in xyz[2:])
    assert np.array_equal(np.array([[float(v) for v in l.split()[1:]] for l in xyz[2:]]), want)
    # the same in every way the generator can be wrong: in the box, moved
    # by at most 0.1 A from a site
    L = cu_fcc.box(cu_fcc.cells(n))
    assert (want >= 0).all() and (want < L).all()
    site = np.round(want / (cu_fcc.LATTICE / 2)) * (cu_fcc.LATTICE / 2)
    moved = np.abs((want - site + L / 2) % L - L / 2)
    assert moved.max() <= 0.1 and moved.max() > 0.09, moved.max()

b = json.load(open(f"{tmp}/atoms.json"))
assert set(b) == {"threads", "runs", "generator", "peers", "sizes", "formats", "checked", "rows"}, set(b)
assert b["sizes"] == [32, 500] and b["formats"] == ["dump", "data", "extxyz"] and b["runs"] == 2
assert b["threads"] == min(2, len(os.sched_getaffinity(0)))
assert b["generator"] == {"lattice": "fcc", "lattice_constant": 3.615, "displacement": 0.1,
                          "seed": 4928459}
rows = b["rows"]
assert [(r["format"], r["op"], r["atoms"]) for r in rows] == [
    (f, op, n) for f in ("dump", "data", "extxyz") for op in ("read", "write") for n in (32, 500)]
for r in rows:
    n = r["atoms"]
    assert n == 4 * cu_fcc.cells(n) ** 3 and r["name"] == f"{r['format']} {r['op']} {n}"
    s = r["snapkit"]
    assert s["ok"] and s["runs"] == 2 and 0 < s["seconds_min"] <= s["seconds"], r
    assert s["bytes_allocated"] > 0 and s["max_error"] == 0
    assert r["file_bytes"] > 40 * n  # each atom's line holds three 17-digit numbers
    for peer in ("ase", "lammps"):
        t = r[peer]
        if t["ok"]:
            assert t["runs"] == 2 and 0 < t["seconds_min"] <= t["seconds"], (peer, r)
            assert r[peer + "_over_snapkit"] == t["seconds"] / s["seconds"]
        else:
            assert t["note"] and r[peer + "_over_snapkit"] is None, (peer, r)
    # only ASE's extended XYZ writer rounds (8 decimals)
    exact = not (r["format"] == "extxyz" and r["op"] == "write")
    if r["ase"]["ok"]:
        assert (r["ase"]["max_error"] == 0) == exact and r["ase"]["max_error"] <= 5e-9, r
    if r["lammps"]["ok"]:
        assert r["lammps"]["max_error"] == 0

def ran(peer, fmt, op):
    return [r for r in rows if (r["format"], r["op"]) == (fmt, op) and r[peer]["ok"]]

pa = b["peers"]["ase"]
assert pa["asked"] is True and pa["ran"] is have_ase, pa
if have_ase:
    for f, op in [("dump", "read"), ("data", "read"), ("data", "write"), ("extxyz", "read"),
                  ("extxyz", "write")]:
        assert len(ran("ase", f, op)) == 2, (f, op)
    assert all("Can't write" in r["ase"]["note"] for r in rows if r["name"].startswith("dump write"))
pl = b["peers"]["lammps"]
assert pl["asked"] is True and pl["ran"] is have_lmp, pl
if have_lmp:
    assert pl["version"].startswith("LAMMPS (")
    for f, op in [("data", "read"), ("dump", "write"), ("data", "write")]:
        assert len(ran("lammps", f, op)) == 2, (f, op)
    assert not any(r["lammps"]["ok"] for r in rows if r["format"] == "extxyz" or r["name"].startswith("dump read"))
# Checked files: per size the three inputs, snapkit's three writes, each
# ASE result and LAMMPS's dump (after read_data) and data file.
files = 0
atoms = 0
for n in (32, 500):
    k = 6 + sum(1 for r in rows if r["atoms"] == n and r["ase"]["ok"])
    k += sum(1 for r in rows if r["atoms"] == n and r["lammps"]["ok"] and r["name"] != f"dump write {n}")
    files += k
    atoms += k * n
assert b["checked"] == {"files": files, "atoms": atoms}, (b["checked"], files, atoms)

got = list(csv.DictReader(open(f"{tmp}/runs.csv")))
assert {r["stage"] for r in got} == {"atoms"}
sec = {r["series"]: float(r["value"]) for r in got if r["quantity"] == "seconds"}
for r in rows:
    assert sec[f"{r['name']} snapkit"] == r["snapkit"]["seconds"]
assert got[0]["selection"] == "--sizes 500,32 --inputs in", got[0]["selection"]

text = open(f"{tmp}/none.txt").read()
assert "ASE     not asked" in text and "LAMMPS  not asked" in text, text
assert len([l for l in text.splitlines() if l.startswith(("  dump ", "  data "))]) == 4, text
PY

# Kept inputs are reused (checked again), and a damaged one is refused.
(cd "$TMP" && "$cli" bench atoms --sizes 32 --runs 1 --peers none --inputs in --json >again.json)
sed -i '10s/^1 1 0.05/1 1 0.06/' "$TMP/in/cu_fcc_32.dump"
expect_error "damaged kept input" "atom 1 is at (0.06" \
    "$cli" bench atoms --sizes 32 --runs 1 --peers none --inputs "$TMP/in"
grep -qF "remove it to generate it again" "$TMP/err" || { echo "FAIL: no hint"; cat "$TMP/err"; fail=1; }

# The report's stage: no SOURCE needed; plot draws its panels, compare of
# the report with itself gives 1 everywhere.
(cd "$TMP" && "$cli" bench report --stages atoms --atoms-sizes 32 --atoms-peers none --runs 1 \
    --out rep >rep.out)
ok test ! -e "$TMP/rep/atoms"
"$cli" bench plot "$TMP/rep/report.json" -o "$TMP/plot.png" >/dev/null
"$cli" bench compare "$TMP/rep/report.json" "$TMP/rep/report.json" --json >"$TMP/self.json"
$py - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
r = json.load(open(f"{tmp}/rep/report.json"))
assert set(r) == {"metadata", "machine", "atoms"}, set(r)
assert [x["atoms"] for x in r["atoms"]["rows"]] == [32] * 6
c = json.load(open(f"{tmp}/self.json"))
assert c["only_a"] == c["only_b"] == 0 and c["rows"]
assert all(x["ratio"] == 1 for x in c["rows"]), [x for x in c["rows"] if x["ratio"] != 1]
assert any(x["measurement"] == "rows[name=data write 32].snapkit.seconds" for x in c["rows"])
assert open(f"{tmp}/plot.png", "rb").read() == open(f"{tmp}/rep/report.png", "rb").read()
assert "atoms  fcc copper" in open(f"{tmp}/rep/report.txt").read()
PY
expect_error "a SOURCE with atoms alone needs one" "which output?" \
    "$cli" bench report --out "$TMP/x"

expect_error "not 4 n^3" "1000 is not 4 n^3" "$cli" bench atoms --sizes 1000
expect_error "bad format" "'xyz' is not dump, data or extxyz" "$cli" bench atoms --sizes 32 --formats xyz
expect_error "bad peer" "'yt' is not ase, lammps or none" "$cli" bench atoms --peers yt
expect_error "a source" "the inputs are generated" "$cli" bench atoms somefile
expect_error "thread list" "one count" "$cli" bench atoms --threads 1,2
[[ $fail == 0 ]] || exit 1
echo "bench atoms: ok"
