#!/usr/bin/env bash
# snapkit atoms info/convert: outputs, exit statuses and one-line errors.
set -uo pipefail
CLI=${SNAPKIT_CLI:-build/snapkit}
DATA=${SNAPKIT_TEST_DATA:-tests/data}/atoms
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

check "help" "$CLI" atoms --help
has "snapkit atoms info FILE"

check "info" "$CLI" atoms info "$DATA/cu_fcc_tri_4000.dump"
has "format    dump"
has "atoms     4000"
has "b         2.5 36.150000000000006 0"
has "c         1.5 -1 36.150000000000006"

check "info json" "$CLI" atoms info "$DATA/cu_fcc_4000_md3.dump" --json
/usr/bin/python3 - "$TMP/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "dump" and d["frames"] == 3 and d["atoms"] == 4000, d
assert [c["name"] for c in d["columns"]] == ["id", "type", "x", "y", "z", "vx", "vy", "vz"]
assert d["box"]["a"] == [36.150000000000006, 0, 0] and d["box"]["pbc"] == [True] * 3
PY

# data -> data is byte for byte LAMMPS' own file
check "convert data" "$CLI" atoms convert "$DATA/cu_fcc_4000.data" "$TMP/a.data"
cmp -s "$DATA/cu_fcc_4000.data" "$TMP/a.data" || { echo "FAIL: data round trip differs"; fail=1; }
# one frame of a trajectory, every frame, gzip, explicit formats
check "frame" "$CLI" atoms convert "$DATA/cu_fcc_4000_md3.dump" "$TMP/last.extxyz" --frame -1 --threads 2
head -2 "$TMP/last.extxyz" | grep -q "timestep=20" || { echo "FAIL: frame -1 is not timestep 20"; fail=1; }
check "no fsync" "$CLI" atoms convert "$DATA/cu_fcc_4000_md3.dump" "$TMP/last_nofsync.extxyz" --frame -1 --no-fsync
if ! cmp -s "$TMP/last.extxyz" "$TMP/last_nofsync.extxyz"; then echo "FAIL: --no-fsync changed the file"; fail=1; fi
check "all frames gz" "$CLI" atoms convert "$DATA/cu_fcc_4000_md3.dump" "$TMP/all.xyz.gz"
check "info gz" "$CLI" atoms info "$TMP/all.xyz.gz"
has "frames    3"
check "explicit formats" "$CLI" atoms convert "$DATA/cu_fcc_500_full.extxyz" "$TMP/noext" --to dump
check "from" "$CLI" atoms info "$TMP/noext" --from dump
has "atoms     500"
check "masses" "$CLI" atoms convert "$DATA/cu_fcc_500.dump" "$TMP/m.data" --masses 63.546
grep -q "^1 63.546$" "$TMP/m.data" || { echo "FAIL: no mass"; fail=1; }

expect_error "bad number" "bad.dump: line 10, column 5: malformed number '1x8.074620154546398' for x" \
    bash -c "sed '10s/ 18\\./ 1x8./' '$DATA/cu_fcc_500.dump' > '$TMP/bad.dump' && '$CLI' atoms info '$TMP/bad.dump' >/dev/null && '$CLI' atoms convert '$TMP/bad.dump' '$TMP/bad.xyz'"
[[ -e "$TMP/bad.xyz" ]] && { echo "FAIL: a failed convert left a file"; fail=1; }
ls "$TMP" | grep -q "tmp\." && { echo "FAIL: a temporary file was left"; fail=1; }
expect_error "no file" "cannot open" "$CLI" atoms info "$TMP/missing.dump"
expect_error "data from frames" "data file holds one" "$CLI" atoms convert "$DATA/cu_fcc_4000_md3.dump" "$TMP/x.data"
expect_error "unknown format" "unknown format 'pdb'" "$CLI" atoms convert "$DATA/cu_fcc_500.dump" "$TMP/x" --to pdb
expect_error "no format" "give --to" "$CLI" atoms convert "$DATA/cu_fcc_500.dump" "$TMP/x.txt"
expect_error "frame range" "no frame 7" "$CLI" atoms convert "$DATA/cu_fcc_4000_md3.dump" "$TMP/x.xyz" --frame 7
expect_error "usage" "unknown subcommand" "$CLI" atoms frobnicate x
exit $fail
