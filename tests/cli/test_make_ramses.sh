#!/bin/bash
# snapkit make-ramses from the command line: usage errors, the output
# number taken from the folder name, JSON report and truth, refusing a
# non-empty folder, and a plan that matches what is written.
set -u
source "$(dirname "$0")/counting.sh"

"$CLI" make-ramses --help > "$tmp/help.txt" && grep -q -- "--cells-target" "$tmp/help.txt" || fail "help lists the options"

msg=$("$CLI" make-ramses "$tmp/a" --ncpu 2 2>&1); rc=$?
[ $rc -eq 2 ] || fail "missing levels: exit $rc, not 2"
[ "$(echo "$msg" | wc -l)" -eq 1 ] && echo "$msg" | grep -q "required" || fail "one line naming what is required: $msg"

"$CLI" make-ramses "$tmp/a" --ncpu 2 --levelmin 3 --levelmax 30 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "levelmax 30: exit $rc, not 2"
msg=$("$CLI" make-ramses "$tmp/a" --ncpu 2 --levelmin 5 --levelmax 4 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$msg" | grep -q "^snapkit: levels must satisfy" || fail "levelmin > levelmax: exit $rc, $msg"
"$CLI" make-ramses "$tmp/a" --ncpu 2 --levelmin 3 --levelmax 4 --refine cubes >/dev/null 2>&1 && fail "unknown refinement accepted"
[ -e "$tmp/a" ] && fail "a refused run created the folder"

# The output number comes from output_NNNNN; the report counts every file.
"$CLI" make-ramses "$tmp/run/output_00042" --ncpu 3 --levelmin 2 --levelmax 4 --npart 100 --json > "$tmp/r.json" \
    || fail "small output"
[ -f "$tmp/run/output_00042/info_00042.txt" ] || fail "info_00042.txt written"
[ -f "$tmp/run/output_00042/part_00042.out00003" ] || fail "part_00042.out00003 written"
ls "$tmp/run/output_00042" | grep -q "tmp" && fail "temporary files left behind"
$PY - "$tmp/r.json" "$tmp/run/output_00042" <<'PY' || fail "JSON report"
import json, os, sys
r = json.load(open(sys.argv[1]))
files = os.listdir(sys.argv[2])
assert r["ncpu"] == 3 and r["files"] == len(files) == 3 * 4 + 6, (r["files"], sorted(files))
assert r["bytes"] == sum(os.path.getsize(os.path.join(sys.argv[2], f)) for f in files)
assert r["oct_entries"] >= r["octs"] > 0 and r["particles"] == 100
assert sum(r["levels"].values()) == r["leaves"]
PY

# The truth on stdout agrees with the plan of a dry run.
"$CLI" make-ramses "$tmp/t" --ncpu 4 --levelmin 3 --levelmax 6 --cells-target 9000 --refine clumps \
    --components hydro,particles --npart 500 --truth-json - > "$tmp/truth.json" || fail "truth to stdout"
"$CLI" make-ramses --dry-run --ncpu 4 --levelmin 3 --levelmax 6 --cells-target 9000 --refine clumps \
    --components hydro,particles --npart 500 --json > "$tmp/plan.json" || fail "dry run"
$PY - "$tmp/truth.json" "$tmp/plan.json" <<'PY' || fail "truth matches the plan"
import json, sys
t, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert set(t) == {"hydro", "particles"}, set(t)
assert t["hydro"]["rows"] == p["leaves"] and t["hydro"]["levels"] == p["levels"]
assert abs(p["leaves"] - 9000) <= 18, p["leaves"]
assert t["particles"]["rows"] == 500 and t["particles"]["families"] == {"DM": 375, "star": 125}
PY

# snapkit stats reads every component back as the truth says.
for format in current 2017; do
    out="$tmp/s-$format/output_00005"
    "$CLI" make-ramses "$out" --ncpu 7 --levelmin 3 --levelmax 6 --cells-target 6000 --npart 999 \
        --format $format --refine random --nvar 7 --truth-json "$tmp/s-$format.json" >/dev/null \
        || fail "$format output"
    for comp in hydro gravity particles; do
        "$CLI" stats "$out" --component $comp --json > "$tmp/s-$format-$comp.json" || fail "stats $comp"
    done
    $PY - "$tmp/s-$format" <<'PY' || fail "snapkit stats --json agrees with the $format truth"
import json, re, sys
base = sys.argv[1]
truth = json.load(open(base + ".json"))
def reader_name(name):  # late-2017 names as the reader gives them
    if name == "thermal_pressure":
        return "pressure"
    m = re.fullmatch(r"passive_scalar_(\d+)", name)
    if m:
        k = int(m.group(1))
        return "metallicity" if k == 1 else "scalar_%02d" % (k - 1)
    return name
for comp, want in truth.items():
    got = json.load(open("%s-%s.json" % (base, comp)))
    assert got["rows"] == want["rows"], (comp, got["rows"], want["rows"])
    assert got.get("levels", {}) == want.get("levels", {}), comp
    for name, w in want["columns"].items():
        g = got["columns"][reader_name(name)]
        assert (g["min"], g["max"]) == (w["min"], w["max"]), (comp, name)
        assert abs(g["sum"] - w["sum"]) <= 1e-12 * w["abs_sum"], (comp, name)
        if "volume_sum" in w:
            assert abs(g["volume_sum"] - w["volume_sum"]) <= 1e-12 * w["abs_volume_sum"], (comp, name)
PY
done

msg=$("$CLI" make-ramses "$tmp/t" --ncpu 4 --levelmin 3 --levelmax 4 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$msg" | grep -q "not empty" || fail "non-empty folder refused: $rc $msg"
"$CLI" make-ramses "$tmp/t" --ncpu 2 --levelmin 3 --levelmax 4 --overwrite >/dev/null || fail "--overwrite"
[ -e "$tmp/t/amr_00001.out00004" ] && fail "stale CPU files of the earlier run removed"

exit $((failures > 0))
