#!/usr/bin/env bash
# bench project --res LIST: the grid resolution x threads, its shape, the
# summary naming where threads stop paying per resolution and case, and
# the grid compared with itself through bench compare (ratios of 1).
set -euo pipefail
source "$(dirname "$0")/bench_setup.sh"

"$cli" bench project "$example" --res 128,32,64 --threads 1,2 --runs 1 --vars sd,T --json \
    --csv "$tmp/grid.csv" >"$tmp/grid.json" 2>/dev/null
"$cli" bench project "$example" --res 32,64 --threads 1 --runs 1 --vars sd >"$tmp/grid.txt" 2>/dev/null
"$cli" bench compare "$tmp/grid.json" "$tmp/grid.json" --json >"$tmp/self.json"
$py - "$tmp" <<'PY'
import csv, json, os, sys
tmp = sys.argv[1]
g = json.load(open(os.path.join(tmp, "grid.json")))
owned = len(os.sched_getaffinity(0))
levels = [t for t in (1, 2) if t <= owned]
assert [e["res"] for e in g["grid"]] == [32, 64, 128], [e["res"] for e in g["grid"]]
rows = None
for e in g["grid"]:
    p = e["project"]
    assert p["nx"] == p["ny"] == e["res"], p
    assert p["quantities"] == "sd,T"
    rows = rows or p["rows"]
    assert p["rows"] == rows  # the same cells at every resolution
    assert [c["name"] for c in p["cases"]] == ["sd, axis z", "2 quantities, axis z",
                                               "sd, off-axis (1,2,3)", "2 quantities, off-axis (1,2,3)"]
    for c in p["cases"]:
        assert [q["threads"] for q in c["scaling"]["points"]] == levels, c
assert len(g["summary"]) == 3 * 4
for s in g["summary"]:
    e = [x for x in g["grid"] if x["res"] == s["res"]][0]
    c = [x for x in e["project"]["cases"] if x["name"] == s["case"]][0]["scaling"]
    assert s["sweet_spot"] == c["sweet_spot"] and s["economical"] == c["economical"]
    assert s["best_seconds"] == min(q["seconds"] for q in c["points"])
    assert s["economical"] <= s["sweet_spot"] <= s["fastest"]
me = json.load(open(os.path.join(tmp, "self.json")))
assert me["only_a"] == me["only_b"] == 0 and me["rows"]
assert all(r["ratio"] == 1 for r in me["rows"])
assert any(r["measurement"].startswith("grid[res=128].project.cases[name=sd, axis z]") for r in me["rows"])
rows = list(csv.DictReader(open(os.path.join(tmp, "grid.csv"))))
assert {r["stage"] for r in rows} == {"project"}
assert len([r for r in rows if r["quantity"] == "seconds"]) == 3 * 4 * len(levels)
text = open(os.path.join(tmp, "grid.txt")).read()
assert text.count("resolution x threads: where threads stop paying") == 1
assert "res 32\n" in text and "res 64\n" in text
PY
# The report's project stage with --res LIST: the grid as project_grid
# (the same shape as bench project --res --json), its CSV rows, its text,
# a figure bench plot redraws byte for byte, compare with itself = 1.
"$cli" bench report "$example" --stages project --res 64,32 --max-threads 2 --runs 1 \
    --out "$tmp/rep" >"$tmp/rep.out" 2>/dev/null
"$cli" bench plot "$tmp/rep/report.json" -o "$tmp/plot.png" >/dev/null
"$cli" bench compare "$tmp/rep/report.json" "$tmp/rep/report.json" --json >"$tmp/repself.json"
$py - "$tmp" <<'PY'
import csv, json, os, sys
tmp = sys.argv[1]
r = json.load(open(os.path.join(tmp, "rep", "report.json")))
assert "project" not in r and set(r["project_grid"]) == {"grid", "summary"}, set(r)
g = r["project_grid"]
assert [e["res"] for e in g["grid"]] == [32, 64]
assert all(e["project"]["nx"] == e["res"] for e in g["grid"])
assert len(g["summary"]) == 2 * 4
for s in g["summary"]:
    c = [x for x in g["grid"] if x["res"] == s["res"]][0]["project"]["cases"]
    pts = [x for x in c if x["name"] == s["case"]][0]["scaling"]["points"]
    assert s["speedup"] == pts[0]["seconds"] / min(p["seconds"] for p in pts)
rows = [x for x in csv.DictReader(open(os.path.join(tmp, "rep", "report.csv"))) if x["stage"] == "project_grid"]
assert {x["series"] for x in rows} == {f"res {res} {c}" for res in (32, 64) for c in
    ("sd, axis z", "4 quantities, axis z", "sd, off-axis (1,2,3)", "4 quantities, off-axis (1,2,3)")}
assert open(os.path.join(tmp, "plot.png"), "rb").read() == open(os.path.join(tmp, "rep", "report.png"), "rb").read()
assert "resolution x threads: where threads stop paying" in open(os.path.join(tmp, "rep", "report.txt")).read()
me = json.load(open(os.path.join(tmp, "repself.json")))
assert me["only_a"] == me["only_b"] == 0 and all(x["ratio"] == 1 for x in me["rows"])
assert any(x["stage"] == "project_grid" for x in me["rows"])
PY
grep -q "resolution x threads" "$tmp/rep.out"
"$cli" bench report "$example" --stages project --res 64,x --out "$tmp/bad" 2>"$tmp/err" && exit 1
grep -q "is not a list of up to 8 pixel counts" "$tmp/err"
echo "bench project grid: ok"
