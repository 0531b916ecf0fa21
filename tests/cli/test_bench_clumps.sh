#!/usr/bin/env bash
# snapkit bench clumps: the JSON's structure on the clumps3d fixture (never
# a time): the four finders with their clump counts, the three boundedness
# methods, the tree's error against direct, one scaling point per thread
# level, the targets; text mode names the sections; bad requests refused.
set -euo pipefail
cli=$(realpath "${SNAPKIT_CLI:-build/snapkit}")
shared=${SNAPKIT_SHARED:-../shared}
py=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }
src="$shared/fixtures/ramses/clumps3d/output_00002"
[[ -d "$src" ]] || { echo "SKIP: no clumps3d fixture"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cli" bench clumps "$src" --threshold 1 --min-delta 0.05 --min-cells 5 --runs 1 \
    --threads 1,2 --json >"$tmp/b.json"
$py - "$tmp/b.json" <<'PY'
import json, math, sys
b = json.load(open(sys.argv[1]))
assert b["cells"] == 97847 and b["cells_above"] == 4553 and b["threshold"] == 1, b
assert [f["finder"] for f in b["finders"]] == ["faces", "watershed", "fof", "dendrogram"]
counts = {f["finder"]: f["clumps"] for f in b["finders"]}
assert counts == {"faces": 4, "watershed": 4, "fof": 4, "dendrogram": 16}, counts
for f in b["finders"]:
    assert f["seconds"] > 0 and f["find_seconds"] > 0 and f["statistics_seconds"] >= 0, f
    assert f["first_seconds"] > 0, f
assert b["read_seconds"] > 0
bd = b["bound"]
assert (bd["clumps"], bd["cells_above"], bd["largest_clump"]) == (4, 4553, 2521), bd
methods = {m["method"]: m for m in bd["methods"]}
assert list(methods) == ["approx", "direct", "tree"] and all(m["ran"] for m in bd["methods"])
assert methods["approx"]["max_rel_error_vs_direct"] is None
err = methods["tree"]["max_rel_error_vs_direct"]
assert 0 < err < 0.01, err  # 0.41% at theta 0.5 (docs/clumps.md)
for name in ("faces_and_statistics", "statistics"):
    s = b["scaling"][name]
    assert [p["threads"] for p in s["points"]] == [1, 2], s
    assert s["fastest"] in (1, 2) and "amdahl" in s
t = b["targets"]
assert math.isclose(t["faces_over_read"], b["finders"][0]["seconds"] / b["read_seconds"])
assert t["faces_faster_than_read"] == (t["faces_over_read"] < 1)
assert math.isclose(t["direct_over_tree"],
                    methods["direct"]["seconds"] / methods["tree"]["seconds"])
PY

# --direct-max below the largest clump: direct skipped, no error figure
"$cli" bench clumps "$src" --threshold 1 --runs 1 --threads 1 --direct-max 1000 --json >"$tmp/s.json"
$py - "$tmp/s.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
m = {x["method"]: x for x in b["bound"]["methods"]}
assert m["direct"]["ran"] is False and m["direct"]["seconds"] is None
assert m["tree"]["max_rel_error_vs_direct"] is None
assert b["targets"]["direct_over_tree"] is None and b["targets"]["tree_20x_faster"] is None
PY

out=$("$cli" bench clumps "$src" --threshold 1 --runs 1 --threads 1)
for s in "finder" "first run" "dendrogram" "boundedness" "faces + statistics" "statistics alone" "targets:"; do
    grep -qF "$s" <<<"$out" || fail "text lacks '$s'"
done
if "$cli" bench clumps "$src" --runs 1 2>"$tmp/err"; then fail "no --threshold accepted"; fi
grep -q "missing --threshold" "$tmp/err" || fail "$(cat "$tmp/err")"
"$cli" bench --help > "$tmp/help.txt" && grep -q "clumps" "$tmp/help.txt" || fail "bench --help does not list clumps"
# The clumps stage of bench report: report.json's "clumps" object has the
# shape of bench clumps --json, the CSV its rows, the text its section, the
# figure its panel (redrawn byte for byte by bench plot from the JSON).
"$cli" bench report "$src" --stages clumps --clumps-threshold 1 --runs 1 --max-threads 2 \
    --out "$tmp/rep" >"$tmp/rep.log" 2>&1 || fail "bench report --stages clumps: $(tail "$tmp/rep.log")"
$py - "$tmp/rep" <<'PY'
import csv, json, math, os, sys
rep = sys.argv[1]
r = json.load(open(os.path.join(rep, "report.json")))
assert set(r) >= {"machine", "source", "clumps", "metadata"} and "read" not in r, list(r)
c = r["clumps"]
assert set(c) == {"source", "threads", "runs", "threshold", "cells", "cells_above",
                  "read_seconds", "finders", "bound", "scaling", "targets"}, list(c)
assert (c["cells"], c["cells_above"], c["threshold"], c["runs"]) == (97847, 4553, 1, 1), c
assert [f["finder"] for f in c["finders"]] == ["faces", "watershed", "fof", "dendrogram"]
counts = {f["finder"]: f["clumps"] for f in c["finders"]}
assert counts["faces"] == counts["watershed"] == counts["fof"] == 4, counts
assert all(f["seconds"] > 0 and f["find_seconds"] > 0 for f in c["finders"])
assert [m["method"] for m in c["bound"]["methods"]] == ["approx", "direct", "tree"]
assert 0 < c["bound"]["methods"][2]["max_rel_error_vs_direct"] < 0.01
for name in ("faces_and_statistics", "statistics"):
    assert [p["threads"] for p in c["scaling"][name]["points"]] == [1, 2], c["scaling"][name]
assert math.isclose(c["targets"]["faces_over_read"], c["finders"][0]["seconds"] / c["read_seconds"])
rows = [x for x in csv.DictReader(open(os.path.join(rep, "report.csv"))) if x["stage"] == "clumps"]
series = {x["series"] for x in rows}
assert {"read cells", "faces", "watershed", "fof", "dendrogram", "e_grav tree", "targets",
        "faces and statistics", "statistics"} <= series, series
by = {(x["series"], x["quantity"]): x for x in rows}
assert float(by[("faces", "clumps")]["value"]) == 4
assert math.isclose(float(by[("faces", "seconds")]["value"]), c["finders"][0]["seconds"], rel_tol=1e-12)
assert math.isclose(float(by[("faces", "first_seconds")]["value"]), c["finders"][0]["first_seconds"],
                    rel_tol=1e-12)
txt = open(os.path.join(rep, "report.txt")).read()
assert "clumps: " in txt and "boundedness" in txt and "targets:" in txt
PY
"$cli" bench plot "$tmp/rep/report.json" -o "$tmp/again.png" --text >"$tmp/again.txt" 2>/dev/null
cmp "$tmp/again.png" "$tmp/rep/report.png" || fail "bench plot redraws the clumps panel differently"
diff "$tmp/again.txt" "$tmp/rep/report.txt" >/dev/null || fail "bench plot's text differs"
if "$cli" bench report "$src" --stages clumps --out "$tmp/no" 2>"$tmp/err"; then
    fail "the clumps stage ran without --clumps-threshold"
fi
grep -q "needs --clumps-threshold" "$tmp/err" || fail "$(cat "$tmp/err")"
echo "bench clumps: ok"
