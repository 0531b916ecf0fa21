#!/usr/bin/env bash
# snapkit bench lmax: one point per lmax from levelmin to levelmax, rows
# growing with lmax and equal to yt's at the reference's caps and regions,
# the compact file (with refined cells) giving RAMSES's rows at every lmax,
# the fits recomputed here from the points, R^2 in [0, 1]; a leaves-only
# file flagged; the temporary file removed; bad requests refused.
set -euo pipefail
source "$(dirname "$0")/bench_setup.sh"

(cd "$tmp" && "$cli" bench lmax "$example" --convert --runs 2 --threads 1 --json >lmax.json)
[[ -z "$(ls "$tmp" | grep -v lmax.json)" ]] || fail "--convert left a file: $(ls "$tmp")"
check_py() {
    $py - "$@" <<'PY'
import json, math, re, sys
b = json.load(open(sys.argv[1]))
info = open(sys.argv[2] + "/info_00002.txt").read()
lmin = int(re.search(r"levelmin\s*=\s*(\d+)", info).group(1))
lmax = int(re.search(r"levelmax\s*=\s*(\d+)", info).group(1))
exact = sys.argv[3] == "exact"
assert (b["levelmin"], b["levelmax"]) == (lmin, lmax), b
assert [p["lmax"] for p in b["points"]] == list(range(lmin, lmax + 1))
assert b["component"] == "hydro" and b["runs"] == 2 and b["threads"] == 1
assert b["file_exact"] is exact
ref = json.load(open(sys.argv[2] + ".reference.json"))
for s in ref["selections"]:
    if s["box"] is None and s["lmax"]:
        p = [p for p in b["points"] if p["lmax"] == s["lmax"]][0]
        assert p["ramses"]["rows"] == s["components"]["hydro"]["rows"], (p, s["lmax"])
paths = ("ramses", "file")
for path in paths:
    rows = [p[path]["rows"] for p in b["points"]]
    assert rows == sorted(rows) and rows[-1] > rows[0], (path, rows)
    for p in b["points"]:
        q = p[path]
        assert q["bytes_read"] > 0 and q["bytes_allocated"] > 0, q
        assert 0 < q["seconds_min"] <= q["seconds"], q
    alloc = [p[path]["bytes_allocated"] for p in b["points"]]
    assert alloc == sorted(alloc), (path, alloc)
for p in b["points"]:
    if exact:
        assert p["file"]["rows"] == p["ramses"]["rows"], p
    else:
        assert p["file"]["rows"] <= p["ramses"]["rows"], p
    assert abs(p["time_ratio"] - p["ramses"]["seconds"] / p["file"]["seconds"]) < 1e-9 * p["time_ratio"]
    assert abs(p["alloc_ratio"] - p["ramses"]["bytes_allocated"] / p["file"]["bytes_allocated"]) < 1e-9 * p["alloc_ratio"]
assert b["points"][-1]["ramses"]["rows"] == ref["full"]["hydro"]["rows"]

def fit(x, y):
    n = len(x); mx = sum(x) / n; my = sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    if sxx == 0:
        return None
    sxy = sum((a - mx) * (c - my) for a, c in zip(x, y))
    syy = sum((c - my) ** 2 for c in y)
    return sxy / sxx, my - sxy / sxx * mx, sxy * sxy / (sxx * syy)

for path in paths:
    f = b["fit"][path]
    for key in ("allocated", "read"):
        x = [p[path]["bytes_" + key] for p in b["points"]]
        y = [p[path]["seconds"] for p in b["points"]]
        want, got = fit(x, y), f[key]
        if want is None:
            assert got["ok"] is False and got["r2"] is None, (path, key, got)
            continue
        assert got["ok"] is True and 0 <= got["r2"] <= 1, (path, key, got)
        assert abs(got["r2"] - want[2]) < 1e-9, (got, want)
        assert abs(got["slope_seconds_per_byte"] - want[0]) <= 1e-9 * abs(want[0]), (got, want)
        assert abs(got["intercept_seconds"] - want[1]) <= 1e-9 * max(abs(want[1]), 1e-12)
        if want[0] > 0:
            assert abs(got["gb_per_second"] - 1e-9 / want[0]) <= 1e-9 * got["gb_per_second"]
        else:
            assert got["gb_per_second"] is None
    r2 = {k: f[k]["r2"] if f[k]["ok"] else -1 for k in ("allocated", "read")}
    assert f["explains"] == max(r2, key=lambda k: (r2[k], k == "allocated")), f
PY
}
check_py "$tmp/lmax.json" "$example" exact

# A file of leaves only: flagged, its rows never above RAMSES's.
"$cli" convert "$example" -o "$tmp/leaves.snapkit" --components hydro >/dev/null
"$cli" bench lmax "$example" --file "$tmp/leaves.snapkit" --runs 2 --threads 1 --json >"$tmp/leaves.json"
check_py "$tmp/leaves.json" "$example" leaves
[[ -s "$tmp/leaves.snapkit" ]] || fail "--file removed the user's file"

# --cold: a cold time per lmax and path where the files left the cache
# (all of them when cache_dropped), none without --cold; the rest as warm.
(cd "$tmp" && "$cli" bench lmax "$example" --convert --cold --runs 1 --threads 1 --json >cold.json)
$py - "$tmp/cold.json" "$tmp/lmax.json" <<'PY'
import json, sys
b, warm = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["cold"] is True and isinstance(b["cache_dropped"], bool), b
assert warm["cold"] is False and warm["cache_dropped"] is False
assert all(p[k]["cold_seconds"] is None for p in warm["points"] for k in ("ramses", "file"))
for p, q in zip(b["points"], warm["points"]):
    for k in ("ramses", "file"):
        c = p[k]["cold_seconds"]
        assert (c is not None and c > 0) if b["cache_dropped"] else (c is None or c > 0), p
        assert p[k]["rows"] == q[k]["rows"] and p[k]["bytes_allocated"] == q[k]["bytes_allocated"]
if not b["cache_dropped"]:
    assert b["cache_note"], b
PY

# A region: rows at the reference's cap equal yt's there; no file, no ratios.
"$cli" bench lmax "$example" --xrange 0.45 0.55 --yrange 0.45 0.55 --zrange 0.45 0.55 \
    --runs 1 --json >"$tmp/box.json"
$py - "$tmp/box.json" "$example.reference.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
ref = [s for s in json.load(open(sys.argv[2]))["selections"] if s["box"] == [0.45, 0.55] * 3][0]
p = [p for p in b["points"] if p["lmax"] == ref["lmax"]][0]
assert p["ramses"]["rows"] == ref["components"]["hydro"]["rows"], p
assert "file" not in p and "file" not in b["fit"] and "file" not in b, b
PY

"$cli" bench lmax "$example" --runs 1 >"$tmp/text"
grep -q "^lmax  hydro" "$tmp/text" || fail "text: $(cat "$tmp/text")"
[[ $(grep -cE "^ +[0-9]+ +[0-9]+ " "$tmp/text") == 5 ]] || fail "text rows: $(cat "$tmp/text")"
grep -qE "the bytes (allocated|read) explain the time" "$tmp/text" || fail "no verdict: $(cat "$tmp/text")"

expect_fail() { # expect_fail "message part" args...
    local part=$1; shift
    set +e
    "$cli" bench lmax "$@" >/dev/null 2>"$tmp/err"; local rc=$?
    set -e
    [[ $rc != 0 ]] && grep -qF -- "$part" "$tmp/err" || fail "$*: rc $rc, $(cat "$tmp/err")"
}
expect_fail "needs the RAMSES output" "$tmp/leaves.snapkit"
expect_fail "not a cell component" "$example" --component particles
expect_fail "below levelmin" "$example" --lmax 3
"$cli" bench lmax "$example" --lmax 6 --runs 1 --json >"$tmp/capped.json"
$py -c 'import json,sys; b=json.load(open(sys.argv[1])); assert [p["lmax"] for p in b["points"]]==[4,5,6] and b["levelmax"]==6, b' "$tmp/capped.json"
expect_fail "snapkit file" "$example" --file "$example/info_00002.txt"

# The report's stage: its JSON, CSV rows and figure panel; its file removed.
"$cli" bench report "$example" --stages lmax --max-threads 1 --runs 1 --out "$tmp/rep" >"$tmp/rep.out"
grep -q "^lmax  hydro" "$tmp/rep.out" || fail "report text: $(cat "$tmp/rep.out")"
[[ ! -e "$tmp/rep/lmax.snapkit" ]] || fail "report left lmax.snapkit"
$py - "$tmp/rep" <<'PY'
import csv, json, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
assert set(r) == {"metadata", "machine", "source", "lmax"}, set(r)
b = r["lmax"]
assert b["file_exact"] is True
assert all(p["file"]["rows"] == p["ramses"]["rows"] for p in b["points"])
rows = [x for x in csv.DictReader(open(d + "/report.csv")) if x["stage"] == "lmax"]
got = {(x["series"], x["quantity"]): float(x["value"]) for x in rows if x["value"]}
for p in b["points"]:
    for path in ("ramses", "file"):
        assert got[(f"{path} lmax {p['lmax']}", "rows")] == p[path]["rows"]
assert "lmax" in open(d + "/report.txt").read()
PY
echo "bench lmax: ok"
