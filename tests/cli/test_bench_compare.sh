#!/usr/bin/env bash
# Results that accumulate (issue 14, items 4 and 6): --csv FILE appends one
# row per measurement with the run's metadata, the header once; report.json
# carries the same metadata; --max-threads caps every stage (the sweep's
# sweet spot that later stages reuse included); bench compare of a report
# with itself gives ratios of 1, and of two runs matches them point by point.
set -euo pipefail
source "$(dirname "$0")/bench_setup.sh"

# Two stages into one CSV, then a report appending to it too.
"$cli" bench read "$example" --runs 1 --lmax 6 --max-threads 1 --csv "$tmp/runs.csv" >/dev/null
"$cli" bench sweep "$example" --runs 1 --lmax 6 --threads 1,2 --max-threads 1 --json \
    --csv "$tmp/runs.csv" >"$tmp/sweep.json" 2>/dev/null
"$cli" bench report "$example" --stages sweep,read,project --max-threads 1 --runs 1 --lmax 6 \
    --out "$tmp/rep" --csv "$tmp/runs.csv" >/dev/null
$py - "$tmp/runs.csv" "$tmp/rep/report.json" "$tmp/sweep.json" "$example" <<'PY'
import csv, json, socket, sys
path, report, sweep, example = sys.argv[1:]
text = open(path).read()
assert text.count("utc,host,") == 1, "header written more than once"
rows = list(csv.DictReader(open(path)))
assert rows, "no rows"
cols = ["utc", "host", "version", "build_id", "cpu_model", "cpus_owned", "fs_type", "source",
        "selection", "run_threads", "cache", "stage", "series", "threads", "quantity", "value", "unit"]
assert list(rows[0]) == cols, list(rows[0])
for r in rows:
    assert None not in r and all(v is not None for v in r.values()), r
    assert r["host"] == socket.gethostname(), r["host"]
    assert r["utc"].endswith("Z") and r["utc"][10] == "T", r["utc"]
    assert r["selection"] == "--lmax 6", r["selection"]
    assert r["source"].endswith("output_00002"), r["source"]
    assert r["run_threads"] == "1", r
    assert r["threads"] in ("", "1"), r  # --max-threads 1 caps every stage
    assert r["cache"] == ("cold" if r["quantity"].startswith("cold_") else "warm"), r
    assert r["stage"] != "machine", r
    assert len(r["build_id"]) == 40 or r["build_id"] == "unknown", r["build_id"]
stages = {r["stage"] for r in rows}
assert stages == {"read", "sweep", "project"}, stages
# The sweep's rows are the --json's numbers, one row per measurement.
s = json.load(open(sweep))
assert len(s["points"]) == 1 and s["points"][0]["threads"] == 1, s["points"]
first = [r for r in rows if r["stage"] == "sweep" and r["quantity"] == "seconds"][0]
assert float(first["value"]) == s["points"][0]["seconds"], (first, s["points"])
# report.json: the same metadata block.
rep = json.load(open(report))
m = rep["metadata"]
assert set(m) == {"utc", "host", "version", "build_id", "cpu_model", "cpus_owned", "fs_type",
                  "source", "selection", "threads", "cache"}, set(m)
last = rows[-1]
for k in ("host", "version", "build_id", "cpu_model", "cpus_owned", "fs_type", "selection"):
    assert str(m[k]) == last[k], (k, m[k], last[k])
assert m["threads"] == 1 and m["cpu_model"] == rep["machine"]["cpu_model"]
# Every stage ran at one thread: the sweep, its sweet spot, read, project.
assert [p["threads"] for p in rep["sweep"]["points"]] == [1]
assert rep["sweep"]["sweet_spot"] == 1 and rep["read"]["threads"] == 1
for c in rep["project"]["cases"]:
    assert [p["threads"] for p in c["scaling"]["points"]] == [1], c["name"]
PY

# A report compared with itself: every ratio is 1, nothing unmatched.
"$cli" bench compare "$tmp/rep/report.json" "$tmp/rep/report.json" --json >"$tmp/self.json"
"$cli" bench compare "$tmp/rep/report.json" "$tmp/rep/report.json" >"$tmp/self.txt"
grep -q "^sweep$" "$tmp/self.txt" || fail "text: $(head "$tmp/self.txt")"
# Two sweeps of their own --json: matched by thread count, the ratio B/A.
"$cli" bench sweep "$example" --runs 1 --lmax 6 --threads 1 --json >"$tmp/sweep2.json" 2>/dev/null
"$cli" bench compare "$tmp/sweep.json" "$tmp/sweep2.json" --json >"$tmp/two.json"
$py - "$tmp/self.json" "$tmp/two.json" "$tmp/sweep.json" "$tmp/sweep2.json" <<'PY'
import json, sys
me, two = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a, b = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert me["only_a"] == 0 and me["only_b"] == 0, me
assert len(me["rows"]) > 50, len(me["rows"])
assert {r["stage"] for r in me["rows"]} == {"sweep", "read", "project"}
assert all(r["ratio"] == 1 and r["a"] == r["b"] for r in me["rows"]), \
    [r for r in me["rows"] if r["ratio"] != 1][:3]
rows = {r["measurement"]: r for r in two["rows"]}
r = rows["points[threads=1].seconds"]
sa, sb = a["points"][0]["seconds"], b["points"][0]["seconds"]
assert r["a"] == sa and r["b"] == sb and abs(r["ratio"] - sb / sa) < 1e-12 * (sb / sa), r
assert rows["points[threads=1].peak_bytes"]["ratio"] == 1  # the same read holds the same bytes
PY
# Errors: a truncated report names the place; a missing file; one report.
head -c 200 "$tmp/rep/report.json" >"$tmp/cut.json"
set +e
"$cli" bench compare "$tmp/cut.json" "$tmp/rep/report.json" 2>"$tmp/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "cut.json.*line" "$tmp/err" || fail "truncated: rc $rc $(cat "$tmp/err")"
set +e
"$cli" bench compare "$tmp/rep/report.json" 2>/dev/null; rc=$?
"$cli" bench compare "$tmp/nothing.json" "$tmp/rep/report.json" 2>/dev/null; rc2=$?
set -e
[[ $rc == 2 && $rc2 == 1 ]] || fail "usage/missing: $rc $rc2"

# --csv onto a file that is not a whole file of bench rows (issue 34, row
# 18): refused with one line, the file untouched, no measurement printed.
printf 'a,b\n1,2\n' > "$tmp/foreign.csv"
head -c 200 "$tmp/runs.csv" > "$tmp/cut.csv" # a header, then a cut line
for f in foreign cut; do
    cp "$tmp/$f.csv" "$tmp/$f.before"
    set +e
    "$cli" bench read "$example" --runs 1 --lmax 6 --max-threads 1 --csv "$tmp/$f.csv" \
        >/dev/null 2>"$tmp/err"; rc=$?
    set -e
    [[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] || fail "--csv $f: rc $rc, $(cat "$tmp/err")"
    grep -q "$f.csv" "$tmp/err" || fail "--csv $f: the message names no file: $(cat "$tmp/err")"
    cmp -s "$tmp/$f.csv" "$tmp/$f.before" || fail "--csv $f: the file changed"
done
echo "bench compare: ok"
