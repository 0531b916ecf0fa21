#!/usr/bin/env bash
# snapkit bench storage: the counts it reports against the folder itself,
# the sample spread evenly over the sorted names, text and JSON forms, and
# clear errors.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
py=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }
dir="$data/ramses/manyfiles/output_00002"
err=$(mktemp)
trap 'rm -f "$err"' EXIT

json=$("$cli" bench storage "$dir" --threads 1 --runs 2 --nfiles 5 --json 2>"$err")
[[ ! -s "$err" ]] || fail "stderr not quiet off a terminal: $(cat "$err")"
$py - "$json" "$dir" <<'PY'
import json, os, sys
s = json.loads(sys.argv[1])
d = sys.argv[2]
names = sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n)))
sizes = [os.path.getsize(os.path.join(d, n)) for n in names]
assert s["files_total"] == len(names), (s["files_total"], len(names))
assert s["bytes_total"] == sum(sizes)
assert s["files_sampled"] == 5
picked = [i * len(names) // 5 for i in range(5)]
assert s["bytes_sampled"] == sum(sizes[i] for i in picked), "sample not evenly spread"
assert s["bytes_read"] % s["bytes_sampled"] == 0 and s["bytes_read"] >= 3 * s["bytes_sampled"]
assert s["runs"] == 2 and [p["threads"] for p in s["points"]] == [1]
p = s["points"][0]
assert p["iops_min"] <= p["iops"] <= p["iops_max"] and p["iops"] > 0
assert 0 < p["open_close_seconds"] < 1
assert p["reader_bytes_per_second"] > 0 and p["total_bytes_per_second"] > 0
assert s["fs_type"]
PY

text=$("$cli" bench storage "$dir" --threads 1 --runs 1 --nfiles 5)
grep -q "sampled 5 of $(find "$dir" -maxdepth 1 -type f | wc -l) files" <<<"$text" || fail "text: $text"
grep -q "open+close/s" <<<"$text" || fail "text table: $text"

set +e
"$cli" bench storage /no/such/folder --runs 1 2>"$err"; rc=$?
set -e
[[ $rc == 1 ]] || fail "missing folder: exit $rc"
grep -qx "snapkit: /no/such/folder: cannot stat the filesystem: No such file or directory" "$err" \
    || fail "missing folder message: $(cat "$err")"
set +e
"$cli" bench storage "$dir" --threads 1,x 2>"$err"; rc=$?
set -e
[[ $rc == 2 ]] || fail "bad list: exit $rc"
grep -q "thread list '1,x'" "$err" || fail "bad list message: $(cat "$err")"
"$cli" bench storage --help > "$err" && grep -q -- "--nfiles" "$err" || fail "help"
echo "bench storage: ok"
