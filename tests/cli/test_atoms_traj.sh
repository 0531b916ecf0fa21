#!/usr/bin/env bash
# snapkit atoms trajectories: --frames slices, several inputs and quoted
# globs in timestep order, --index sidecars (stale, malformed), gzip.
set -uo pipefail
CLI=${SNAPKIT_CLI:-build/snapkit}
DATA=${SNAPKIT_TEST_DATA:-tests/data}/atoms
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
MD3=$DATA/cu_fcc_4000_md3.dump # LAMMPS' three frames, timesteps 0 10 20

# 30 frames: md3's three frames ten times over
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$MD3"; done > "$TMP/long.lammpstrj"
# steps of the frames a slice selects, from the converted extxyz comment lines
steps() { grep -o 'timestep=[0-9]*' "$1" | cut -d= -f2 | tr '\n' ' '; }

check "help" "$CLI" atoms --help
has "--frames SLICE"
check "every 10th" "$CLI" atoms convert "$TMP/long.lammpstrj" "$TMP/a.extxyz" --frames 0:1000:10
ok test "$(steps "$TMP/a.extxyz")" = "0 10 20 "
ok test "$(grep -c '^4000$' "$TMP/a.extxyz")" = 3
check "reversed" "$CLI" atoms convert "$TMP/long.lammpstrj" "$TMP/b.extxyz" --frames -1:-7:-2
ok test "$(steps "$TMP/b.extxyz")" = "20 0 10 "
# frame 29 through a slice is the same bytes as --frame -1
check "one frame" "$CLI" atoms convert "$TMP/long.lammpstrj" "$TMP/c.extxyz" --frame -1
check "last by slice" "$CLI" atoms convert "$TMP/long.lammpstrj" "$TMP/d.extxyz" --frames 29:
ok cmp -s "$TMP/c.extxyz" "$TMP/d.extxyz"

check "info frames" "$CLI" atoms info "$TMP/long.lammpstrj" --frames ::14
has "frames    30"
ok test "$(grep -c '^[0-9].*long.lammpstrj$' "$TMP/out")" = 3
# the offsets listed are where ITEM: TIMESTEP lines start
for off in $(awk '$NF ~ /long.lammpstrj$/ && $1 ~ /^[0-9]+$/ {print $4}' "$TMP/out"); do
    ok test "$(tail -c +$((off + 1)) "$TMP/long.lammpstrj" | head -c 14)" = "ITEM: TIMESTEP"
done
check "info json" "$CLI" atoms info "$TMP/long.lammpstrj" --frames 1:3 --json
/usr/bin/python3 - "$TMP/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["frames"] == 30 and [(e["frame"], e["timestep"], e["atoms"]) for e in d["index"]] == \
    [(1, 10, 4000), (2, 20, 4000)], d["index"]
assert d["index"][0]["offset"] == 492239 and d["index"][1]["line"] == 8019, d["index"]
PY

# dump.* named out of step order: a quoted glob and a list read in step order
mkdir "$TMP/run"
awk -v d="$TMP/run" '/^ITEM: TIMESTEP/ {n++} {print > (d "/part" n)}' "$MD3"
mv "$TMP/run/part1" "$TMP/run/dump.c" # step 0
mv "$TMP/run/part2" "$TMP/run/dump.a" # step 10
mv "$TMP/run/part3" "$TMP/run/dump.b" # step 20
check "glob" "$CLI" atoms convert "$TMP/run/dump.*" "$TMP/g.extxyz"
ok test "$(steps "$TMP/g.extxyz")" = "0 10 20 "
check "whole" "$CLI" atoms convert "$MD3" "$TMP/w.extxyz"
ok cmp -s "$TMP/g.extxyz" "$TMP/w.extxyz"
check "list" "$CLI" atoms convert "$TMP/run/dump.b" "$TMP/run/dump.a" "$TMP/run/dump.c" "$TMP/l.dump" --frames 1:
ok test "$(grep -A1 TIMESTEP "$TMP/l.dump" | grep -v -- -- | grep -v ITEM | tr '\n' ' ')" = "10 20 "
check "info glob" "$CLI" atoms info "$TMP/run/dump.*"
has "files     3"
has "frames    3"
expect_error "no match" "no file matches" "$CLI" atoms info "$TMP/run/nothing.*"

# sidecars: written, used, stale after an appended frame, malformed
check "index" "$CLI" atoms info "$TMP/long.lammpstrj" --index
ok test -s "$TMP/long.lammpstrj.skidx"
ok test "$(head -1 "$TMP/long.lammpstrj.skidx")" = "snapkit atoms index 1"
check "index reused" "$CLI" atoms convert "$TMP/long.lammpstrj" "$TMP/e.extxyz" --frames 0:1000:10 --index
ok cmp -s "$TMP/a.extxyz" "$TMP/e.extxyz"
ok test ! -s "$TMP/err"
{ head -n 4009 "$MD3" | tail -n 4009 | awk 'NR==2 {$0="30"} {print}'; } >> "$TMP/long.lammpstrj"
check "stale" "$CLI" atoms info "$TMP/long.lammpstrj" --index
grep -q "no longer matches .*long.lammpstrj (size .*): rebuilt" "$TMP/err" ||
    { echo "FAIL: no stale message"; cat "$TMP/err"; fail=1; }
has "frames    31"
check "rebuilt" "$CLI" atoms info "$TMP/long.lammpstrj" --index --frames -1
has "30       30"
ok test ! -s "$TMP/err"
printf 'snapkit atoms index 1\nfile 12 oops\n' > "$TMP/long.lammpstrj.skidx"
expect_error "malformed" "long.lammpstrj.skidx: byte 30: malformed index sidecar" \
    "$CLI" atoms info "$TMP/long.lammpstrj" --index

# gzip: indexed and sliced in one pass over the inflated text
gzip -c "$TMP/long.lammpstrj" > "$TMP/long.lammpstrj.gz"
check "gz slice" "$CLI" atoms convert "$TMP/long.lammpstrj.gz" "$TMP/f.extxyz" --frames 0:30:10 --index
ok cmp -s "$TMP/a.extxyz" "$TMP/f.extxyz"
ok test -s "$TMP/long.lammpstrj.gz.skidx"

# bad slices
expect_error "step 0" "the step cannot be 0" "$CLI" atoms info "$MD3" --frames ::0
expect_error "not a slice" "expected start:stop:step" "$CLI" atoms info "$MD3" --frames 1:x
expect_error "empty slice" "selects no frame" "$CLI" atoms convert "$MD3" "$TMP/x.extxyz" --frames 5:
expect_error "both" "not both" "$CLI" atoms convert "$MD3" "$TMP/x.extxyz" --frames 1: --frame 1
expect_error "data from a slice" "data file holds one" "$CLI" atoms convert "$MD3" "$TMP/x.data" --frames ::2
ok test ! -e "$TMP/x.extxyz"
exit $fail
