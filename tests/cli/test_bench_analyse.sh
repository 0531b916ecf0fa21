#!/usr/bin/env bash
# snapkit bench analyse: every case timed with its stats pass, the JSON's
# shape and targets, the scratch folder removed, and bad input refused
# with one line. (yt's side, --yt, is slow and left to the benchmark.)
set -euo pipefail
cli=$(realpath "${SNAPKIT_CLI:-build/snapkit}")
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
out=$root/tests/data/ramses/gravpart/output_00002

before=$(find /tmp -maxdepth 1 -name 'snapkit-bench-analyse-*' | wc -l)
"$cli" bench analyse "$out" --runs 1 --threads 1 --level 4 --res 64 --json >"$TMP/a.json"
after=$(find /tmp -maxdepth 1 -name 'snapkit-bench-analyse-*' | wc -l)
ok test "$before" = "$after"
$py - "$TMP/a.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["runs"] == 1, j
for case, target in (("profile", 25), ("phase", 25), ("slice", 25), ("cube", 10)):
    c = j[case]
    assert c["seconds"] > 0 and c["stats_seconds"] > 0, c
    assert c["target_yt"] == target and "yt_seconds" not in c, c
PY
"$cli" bench analyse "$out" --runs 1 --level 3 --res 32 >"$TMP/a.txt"
ok grep -q '^machine: [0-9]* CPUs' "$TMP/a.txt"
ok test "$(grep -cE '^(profile|phase|slice|cube) ' "$TMP/a.txt")" = 4

expect_error "radius out of the box" "radius must be in" "$cli" bench analyse "$out" --radius 2
expect_error "no source" "which source" "$cli" bench analyse --runs 1
expect_error "missing output" "profile failed" "$cli" bench analyse "$TMP/none" --runs 1
exit $fail
