#!/bin/bash
# snapkit series: three outputs of a run (and one as a .snapkit file) in time
# order; each row equal to a separate stats --totals / profile run on that
# output; the numbered maps equal separate project runs byte for byte; a
# failing output is one line, the others still done, exit 1.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
PY=/usr/bin/python3

# a run: outputs 1, 2, 3 of different seeds; output 3 is the earliest
# (times 0.3, 0.2, 0.1), so time order is 3, 2, 1
for n in 1 2 3; do
    o=$TMP/sim/output_0000$n
    check "make $n" "$CLI" make-ramses "$o" --ncpu 2 --levelmin 3 --levelmax 5 --npart 1000 \
        --seed $n
    sed -i "s/^time        =.*/time        =  0.$((4 - n))00000000000000E+00/" "$o/info_0000$n.txt"
done
check "convert" "$CLI" convert "$TMP/sim/output_00002" -o "$TMP/o2.snapkit"
srcs=("$TMP/sim/output_00001" "$TMP/o2.snapkit" "$TMP/sim/output_00003")
sel=(--sphere 0.3 --center 0.5 0.5 0.5)

# a run's folder stands for its complete outputs, in time order; an
# incomplete one (a CPU file gone) is named and left out
cp -r "$TMP/sim" "$TMP/sim2"
rm "$TMP/sim2/output_00002/hydro_00002.out00001"
check "series of a run folder" "$CLI" series "$TMP/sim2" -o "$TMP/run.json" -- stats --totals
ok grep -q "output_00002 left out (missing" "$TMP/err"
ok $PY -c "import json, sys; r = json.load(open(sys.argv[1]))['rows']; assert [x['output'] for x in r] == [3, 1], r" "$TMP/run.json"
rm -rf "$TMP/sim2"

check "help" "$CLI" series --help
has "{n:05}"

# stats --totals: one row per output, in time order; each equal to its own run
check "stats table" "$CLI" series "${srcs[@]}" -o "$TMP/t.json" -- stats "${sel[@]}" --totals
check "stats csv" "$CLI" series "${srcs[@]}" -o "$TMP/t.csv" -- stats "${sel[@]}" --totals
check "stats text" "$CLI" series "${srcs[@]}" -- stats "${sel[@]}" --totals
ok grep -q "^output  time  time_myr  rows  totals.cells" "$TMP/out"
[[ $(wc -l < "$TMP/out") -eq 4 ]] || { echo "FAIL: text rows"; cat "$TMP/out"; fail=1; }
for s in "${srcs[@]}"; do
    "$CLI" stats "$s" "${sel[@]}" --totals --json > "$TMP/one_$(basename "$s").json" || fail=1
done
ok $PY - "$TMP" "${srcs[@]}" <<'PY'
import csv, json, math, os, sys
tmp, srcs = sys.argv[1], sys.argv[2:]
t = json.load(open(f"{tmp}/t.json"))
rows = t["rows"]
assert [r["output"] for r in rows] == [3, 2, 1], [r["output"] for r in rows]
assert [r["time"] for r in rows] == [0.1, 0.2, 0.3]
# make-ramses' unit_t is one Myr (3.15576e13 s)
assert all(abs(r["time_myr"] - r["time"]) < 1e-12 for r in rows)
assert "redshift" not in t["columns"]
by_path = {r["path"]: r for r in rows}
for s in srcs:
    one = json.load(open(f"{tmp}/one_{os.path.basename(s)}.json"))
    r = by_path[s]
    assert r["rows"] == one["rows"], (s, r["rows"], one["rows"])
    n = 0
    for k, v in one["totals"].items():
        if isinstance(v, str):
            continue
        vals = v if isinstance(v, list) else [v]
        keys = [f"totals.{k}_{c}" for c in "xyz"] if isinstance(v, list) else [f"totals.{k}"]
        for key, x in zip(keys, vals):
            assert r[key] == x, (s, key, r[key], x)  # the same bits
            n += 1
    assert n >= 20, n
# the CSV carries the same numbers
with open(f"{tmp}/t.csv") as f:
    c = list(csv.DictReader(f))
assert [int(x["output"]) for x in c] == [3, 2, 1]
for x, r in zip(c, rows):
    assert float(x["totals.mass"]) == r["totals.mass"] and x["path"] == r["path"]
PY

# profile: one row per output and bin, equal to the output's own profile
check "profile" "$CLI" series "${srcs[@]}" -o "$TMP/p.csv" -- profile "${sel[@]}" --bins 4 \
    --vars density,pressure
"$CLI" profile "${srcs[0]}" "${sel[@]}" --bins 4 --vars density,pressure --json \
    > "$TMP/p1.json" || fail=1
ok $PY - "$TMP" <<'PY'
import csv, json, sys
tmp = sys.argv[1]
rows = list(csv.DictReader(open(f"{tmp}/p.csv")))
assert len(rows) == 12 and [r["output"] for r in rows[::4]] == ["3", "2", "1"]
p = json.load(open(f"{tmp}/p1.json"))
mine = [r for r in rows if r["output"] == "1"]
for b, r in enumerate(mine):
    assert int(r["bin"]) == b and int(r["count"]) == p["count"][b]
    assert float(r["bin_lo"]) == p["edges"][b] and float(r["bin_hi"]) == p["edges"][b + 1]
    for q in ("density", "pressure"):
        for k in ("mean", "std", "sum"):
            assert float(r[f"{q}.{k}"]) == p["quantities"][q][k][b], (b, q, k)
PY

# maps: one file per output, by output number or as frames in time order,
# each equal byte for byte to a separate project run
check "maps" "$CLI" series "${srcs[@]}" -o "$TMP/m.json" -- project --vars sd --res 32 \
    -o "$TMP/map_{n:05}.png" --raw
check "frames" "$CLI" series "${srcs[@]}" -- project --vars sd --res 32 \
    -o "$TMP/frame_{i:05}.npy"
i=0
for n in 3 2 1; do
    s=$TMP/sim/output_0000$n
    [[ $n == 2 ]] && s=$TMP/o2.snapkit
    check "project $n" "$CLI" project "$s" --vars sd --res 32 -o "$TMP/one_$n.png" --raw
    check "project $n" "$CLI" project "$s" --vars sd --res 32 -o "$TMP/one_$n.npy"
    ok cmp "$TMP/map_0000$n.png" "$TMP/one_$n.png"
    ok cmp "$TMP/frame_0000$i.npy" "$TMP/one_$n.npy"
    i=$((i + 1))
done
ok $PY -c "import json,sys; r=json.load(open(sys.argv[1]))['rows']; \
assert [x['files'] for x in r] == [[sys.argv[2] % n, sys.argv[2] % n + '.json'] \
for n in (3, 2, 1)], r" \
    "$TMP/m.json" "$TMP/map_%05d.png"

# a cosmological output: aexp and redshift columns from its info file
cosmo=${SNAPKIT_SHARED:-}/fixtures/ramses/cosmo32/output_00003
if [[ -d $cosmo ]]; then
    check "cosmo" "$CLI" series "$cosmo" --json -- stats --component particles --totals
    ok $PY - "$TMP/out" "$cosmo.cosmology.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
c = json.load(open(sys.argv[2]))
# yt's current_redshift and current_time (the age at aexp), from the fixture
z, gyr = c["current_redshift"], c["current_time_Gyr"]
assert r["output"] == 3 and abs(r["aexp"] - c["aexp"]) < 1e-12, r
assert abs(r["redshift"] - z) < 1e-9 * (1 + z), (r["redshift"], z)
assert abs(r["time_myr"] / 1e3 - gyr) < 1e-3 * gyr, (r["time_myr"], gyr)
PY
fi

# a failing output: its one line, the others still in the table, exit 1
cp -r "$TMP/sim/output_00003" "$TMP/broken"
rm "$TMP/broken/hydro_00003.out00002"
"$CLI" series "$TMP/broken" "$TMP/missing" "${srcs[@]}" -o "$TMP/f.json" -- stats --totals \
    > "$TMP/out" 2> "$TMP/err" && { echo "FAIL: a failing output exited 0"; fail=1; }
[[ $(wc -l < "$TMP/err") -eq 3 ]] || { echo "FAIL: error lines"; cat "$TMP/err"; fail=1; }
ok grep -q "broken/hydro_00003.out00002: cannot open" "$TMP/err"
ok grep -q "missing: cannot open" "$TMP/err"
ok grep -q "2 of 5 outputs failed.*missing.*broken" "$TMP/err"
ok $PY -c "import json,sys; assert len(json.load(open(sys.argv[1]))['rows']) == 3" "$TMP/f.json"

# bad input: one line, non-zero, no table
expect_error "no --" "missing -- COMMAND" "$CLI" series "${srcs[@]}"
expect_error "command" "not a command series runs" "$CLI" series "${srcs[@]}" -- convert
expect_error "same file" "names the same file" "$CLI" series "${srcs[@]}" -- project \
    -o "$TMP/same.png"
expect_error "json" "'--json' is series' to give" "$CLI" series "${srcs[@]}" -- stats --json
expect_error "command's usage" "unknown option '--bogus'" "$CLI" series "${srcs[@]}" -o "$TMP/u.csv" \
    -- stats --bogus
[[ ! -e $TMP/u.csv ]] || { echo "FAIL: a table was written after a usage error"; fail=1; }
expect_error "no source" "missing SOURCE" "$CLI" series -- stats
[[ ! -e $TMP/same.png ]] || { echo "FAIL: a map was written"; fail=1; }
exit $fail
