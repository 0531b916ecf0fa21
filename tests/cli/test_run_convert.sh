#!/bin/bash
# A whole run: `snapkit info RUN` lists its outputs (times as in their
# info files, complete or not); `snapkit convert OUT... -o DIR/` converts
# each into DIR/output_NNNNN.snapkit with the same totals as its source,
# --resume converts only what is missing or damaged, a failing output is
# named, fails the command and leaves no file (nor a temporary).
set -u
CLI=${SNAPKIT_CLI:-build/snapkit}
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
sim=$TMP/sim
dst=$TMP/converted

for n in 1 2 3; do
    check "make output $n" "$CLI" make-ramses "$sim/output_0000$n" --ncpu 3 --levelmin 3 \
        --levelmax 5 --npart 2000 --seed $n --refine random
done

check "info of the run" "$CLI" info "$sim"
has "3 outputs, 3 complete, 0 incomplete"
check "info of the run as JSON" "$CLI" info "$sim" --json
$PY - "$TMP/out" "$sim" <<'PYEOF' || fail=1
import json, os, re, sys
d = json.load(open(sys.argv[1]))
bad = 0
assert [o["output"] for o in d["outputs"]] == [1, 2, 3], d
for o in d["outputs"]:
    info = open(os.path.join(o["path"], "info_%05d.txt" % o["output"])).read()
    key = lambda k: re.search(r"^%s\s*=\s*(\S+)" % k, info, re.M).group(1)
    size = sum(os.path.getsize(os.path.join(o["path"], f)) for f in os.listdir(o["path"]))
    want = {"state": "complete", "ncpu": int(key("ncpu")), "time": float(key("time")),
            "levelmin": int(key("levelmin")), "levelmax": int(key("levelmax")), "bytes": size,
            "redshift": None}
    for k, v in want.items():
        if o[k] != v:
            print(f"FAIL: output {o['output']}: {k} = {o[k]}, the files say {v}")
            bad += 1
sys.exit(1 if bad else 0)
PYEOF

# Totals of hydro and particles, source against file (1e-12: row order differs).
same_totals() {
    local comp
    for comp in hydro particles; do
        "$CLI" stats "$1" --component $comp --totals --json > "$TMP/a.json" || fail=1
        "$CLI" stats "$2" --component $comp --totals --json > "$TMP/b.json" || fail=1
        $PY - "$TMP/a.json" "$TMP/b.json" "$2 $comp" <<'PYEOF' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def flat(x, pre=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from flat(v, pre + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from flat(v, pre + "[%d]" % i)
    else:
        yield pre, x
ta, tb = dict(flat(a["totals"])), dict(flat(b["totals"]))
bad = [k for k in ta if not (isinstance(ta[k], (int, float)) and
       abs(ta[k] - tb.get(k, float("nan"))) <= 1e-12 * max(abs(ta[k]), 1e-300))
       and ta[k] != tb.get(k)]
if a["rows"] != b["rows"] or bad or not ta:
    print(f"FAIL: {sys.argv[3]}: rows {a['rows']} vs {b['rows']}; differ: {bad}")
    sys.exit(1)
PYEOF
    done
}

check "convert 3 outputs" "$CLI" convert "$sim"/output_0000{1,2,3} -o "$dst/" --jobs 2
has "3 outputs: 3 converted, 0 skipped, 0 failed"
has "(2 at once"
for n in 1 2 3; do
    has "$dst/output_0000$n.snapkit: hydro"
    same_totals "$sim/output_0000$n" "$dst/output_0000$n.snapkit"
done

# --resume: only the removed file and the damaged one are converted again.
rm "$dst/output_00002.snapkit"
truncate -s -10 "$dst/output_00003.snapkit"
touch -d '2000-01-01' "$dst/output_00001.snapkit"
check "resume" "$CLI" convert "$sim"/output_0000{1,2,3} -o "$dst" --resume --json
$PY - "$TMP/out" <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
states = [o["state"] for o in d["outputs"]]
if states != ["skipped", "converted", "converted"] or d["outputs"][1]["summary"]["rows"]["hydro"] < 1:
    print("FAIL: resume:", d)
    sys.exit(1)
PYEOF
ok test "$(stat -c %Y "$dst/output_00001.snapkit")" = "$(date -d 2000-01-01 +%s)"
same_totals "$sim/output_00002" "$dst/output_00002.snapkit"
same_totals "$sim/output_00003" "$dst/output_00003.snapkit"
check "resume with nothing to do" "$CLI" convert "$sim"/output_0000{1,2,3} -o "$dst" --resume
has "3 outputs: 0 converted, 3 skipped, 0 failed"

# A failing output: named, non-zero exit, no file and no temporary for it;
# the others are converted.
check "make output 4" "$CLI" make-ramses "$sim/output_00004" --ncpu 3 --levelmin 3 \
    --levelmax 5 --npart 2000 --seed 4
truncate -s 1000 "$sim/output_00004/hydro_00004.out00002"
check "info sees the cut" "$CLI" info "$sim"
has "4 outputs, 3 complete, 1 incomplete"
has "truncated: hydro_00004.out00002 truncated"
rm -rf "$dst"
expect_error "a failing output" "1 of 4 outputs failed: $sim/output_00004" \
    "$CLI" convert "$sim"/output_* -o "$dst/"
has "failed $sim/output_00004: "
has "4 outputs: 3 converted, 0 skipped, 1 failed"
ok test ! -e "$dst/output_00004.snapkit"
left=$(find "$dst" -name '*.tmp.*')
[[ -z $left ]] || { echo "FAIL: temporary files left: $left"; fail=1; }
ok test -s "$dst/output_00003.snapkit"

# Bad input: one line, non-zero.
touch "$TMP/file"
expect_error "-o a file" "not a folder" "$CLI" convert "$sim/output_00001" "$sim/output_00002" \
    -o "$TMP/file"
expect_error "--resume for one file" "--resume and --jobs are for several outputs" \
    "$CLI" convert "$sim/output_00001" -o "$TMP/one.snapkit" --resume
expect_error "two outputs of one name" "would both write" \
    "$CLI" convert "$sim/output_00001" "$sim/output_00001/" -o "$TMP/x/"
mkdir -p "$TMP/empty"
expect_error "info of an empty folder" "$TMP/empty" "$CLI" info "$TMP/empty"
expect_error "--jobs 0" "--jobs" "$CLI" convert "$sim/output_00001" -o "$TMP/x/" --jobs 0
exit $fail
