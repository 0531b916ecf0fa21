#!/bin/bash
# bench/run-convert.sh on two small outputs: it converts them both ways
# (checking the files are the same bytes) and reports the medians and
# their ratio; bad options are one line and exit status 2.
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
script=$(dirname "$0")/../../bench/run-convert.sh

check "bench run-convert" bash "$script" --cli "$CLI" --dir "$TMP/b" --outputs 3 --runs 2 \
    --ncpu 2 --levelmin 3 --levelmax 5 --npart 1000 --json
/usr/bin/python3 - "$TMP/out" <<'PYEOF' || fail=1
import json, sys
d = json.loads(open(sys.argv[1]).read())
ok = (d["outputs"] == 3 and d["runs"] == 2 and d["cpus"] >= 1 and d["bytes"] > 100000
      and d["together_seconds"] > 0 and d["one_by_one_seconds"] > 0
      and abs(d["ratio"] - d["one_by_one_seconds"] / d["together_seconds"]) < 0.01
      and "at once" in d["together"])
if not ok:
    print("FAIL:", d)
    sys.exit(1)
PYEOF
ok test -s "$TMP/b/together/output_00003.snapkit"
check "text" bash "$script" --cli "$CLI" --dir "$TMP/b" --outputs 3 --runs 1 \
    --ncpu 2 --levelmin 3 --levelmax 5 --npart 1000
has "3 outputs"
has "ratio"
expect_error "one output" "--outputs >= 2" bash "$script" --cli "$CLI" --outputs 1
expect_error "no program" "no snapkit program" bash "$script" --cli "$TMP/none"
exit $fail
