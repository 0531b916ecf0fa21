#!/usr/bin/env bash
# snapkit bench convert: sizes against the files themselves, the speedup and
# break-even from the measured times, the file removed unless --keep; and
# the stages that work on a .snapkit file (read, sweep, storage, report).
set -euo pipefail
source "$(dirname "$0")/bench_setup.sh"

"$cli" bench convert "$example" --threads 1 --runs 2 --file "$tmp/kept.snapkit" --keep --json \
    >"$tmp/convert.json"
[[ -s "$tmp/kept.snapkit" ]] || fail "--keep: no file"
$py - "$tmp/convert.json" "$example" "$tmp/kept.snapkit" <<'PY'
import json, math, os, sys
c = json.load(open(sys.argv[1]))
folder, kept = sys.argv[2], sys.argv[3]
ramses = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)
             if n.split("_")[0] in ("amr", "hydro", "grav", "part") and ".out" in n)
assert c["bytes_ramses"] == ramses, (c["bytes_ramses"], ramses)
assert c["bytes_file"] == os.path.getsize(kept)
assert abs(c["size_percent"] - 100 * c["bytes_file"] / c["bytes_ramses"]) < 1e-9
assert c["read_seconds"] > 0 and c["write_seconds"] > 0 and c["reread_seconds"] > 0
assert abs(c["conversion_seconds"] - c["read_seconds"] - c["write_seconds"]) < 1e-12
assert abs(c["speedup"] - c["read_seconds"] / c["reread_seconds"]) < 1e-9 * c["speedup"]
saved = c["read_seconds"] - c["reread_seconds"]
if saved > 0:
    assert abs(c["break_even_rereads"] - c["write_seconds"] / saved) < 1e-9 * c["break_even_rereads"]
    both = (c["read_seconds"] + c["write_seconds"]) / saved
    assert abs(c["break_even_conversion"] - both) < 1e-9 * both
    assert c["break_even_conversion"] > c["break_even_rereads"]
else:
    assert c["break_even_rereads"] is None and c["break_even_conversion"] is None
churn = c["bytes_allocated_read"] / c["bytes_allocated_reread"]
assert abs(c["churn_ratio"] - churn) < 1e-12 * churn
for path in ("read", "write", "reread"):
    assert c["bytes_allocated_" + path] > 0, path
PY
(cd "$tmp" && "$cli" bench convert "$example" --runs 1 >/dev/null)
[[ -z "$(ls "$tmp" | grep -v -e kept.snapkit -e convert.json)" ]] || fail "file not removed: $(ls "$tmp")"
set +e
"$cli" bench convert "$tmp/kept.snapkit" 2>"$tmp/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "already a .snapkit file" "$tmp/err" || fail "convert of a file: $(cat "$tmp/err")"

# A .snapkit file as the source: the same rows as yt read from the output.
"$cli" bench read "$tmp/kept.snapkit" --runs 1 --json >"$tmp/read.json"
$py - "$tmp/read.json" "$example.reference.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["full"]
assert sorted(c["name"] for c in r["components"]) == sorted(ref), r
for c in r["components"]:
    assert c["rows"] == ref[c["name"]]["rows"], c
# the machine's first touch beside the read figures (issue 13)
t = r["first_touch"]
assert t["bytes"] == 64 << 20 and t["gb_per_s"] > 0 and t["second_gb_per_s"] > 0, t
thp = "/sys/kernel/mm/transparent_hugepage/enabled"
if os.path.exists(thp):
    assert t["thp_enabled"] == open(thp).read().split("[")[1].split("]")[0], t
PY
"$cli" bench sweep "$tmp/kept.snapkit" --threads 1 --runs 1 --json >/dev/null 2>&1 || fail "sweep of a file"
"$cli" bench storage "$tmp/kept.snapkit" --threads 1 --runs 1 --json >"$tmp/storage.json"
$py -c 'import json,sys,os; s=json.load(open(sys.argv[1])); assert s["files_total"]==1 and s["bytes_total"]==os.path.getsize(sys.argv[2]), s' \
    "$tmp/storage.json" "$tmp/kept.snapkit"
"$cli" bench report "$tmp/kept.snapkit" --max-threads 1 --runs 1 --out "$tmp/rep" >"$tmp/rep.out"
grep -q "convert: skipped, the source is already a .snapkit file" "$tmp/rep.out" || fail "$(cat "$tmp/rep.out")"
$py - "$tmp/rep/report.json" "$tmp/kept.snapkit" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
assert set(r) == {"metadata", "machine", "source", "storage", "read", "project"}, set(r)
s = r["source"]
assert s["kind"] == "snapkit" and s["files"] == 1 and s["bytes"] == os.path.getsize(sys.argv[2])
assert sum(c["bytes"] for c in s["components"]) == s["bytes"]
PY
echo "bench convert: ok"
