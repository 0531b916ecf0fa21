#!/bin/bash
# snapkit convert streams: on a 32-file synthetic output it holds a small
# part of the table it writes at any time (bytes_peak, a ratio, never a
# time), the file holds what the output gives (verify), whatever the
# thread count, with the same bytes; outputs whose particles are not in
# curve order across CPU files (cosmo32, strayed particles) are converted
# whole (fallbacks), and verify too; a convert failing halfway leaves no
# file behind.
set -u
source "$(dirname "$0")/counting.sh"
make_output32

for t in 1 2; do
    "$CLI" convert "$out" -o "$tmp/h$t.snapkit" --components hydro --threads $t --json \
        > "$tmp/h$t.json" || fail "convert --threads $t"
    "$CLI" verify "$out" "$tmp/h$t.snapkit" > /dev/null || fail "verify, --threads $t"
done
cmp -s "$tmp/h1.snapkit" "$tmp/h2.snapkit" || fail "1 and 2 threads give different files"
"$CLI" verify "$out" "$tmp/o.snapkit" > /dev/null || fail "verify of hydro and particles"

$PY - "$tmp/h1.json" "$tmp/h2.json" <<'PYEOF' || failures=$((failures + 1))
import json, sys
bad = 0
for p in sys.argv[1:]:
    d = json.load(open(p))
    # The whole table would be bytes_raw; streaming holds threads x one of
    # 32 files, the rows waiting for their place and a few chunks.
    if not d["bytes_peak"] * 3 < d["bytes_raw"]:
        print(f"FAIL: {p}: held {d['bytes_peak']} bytes at most of a {d['bytes_raw']}-byte table")
        bad += 1
    if d["fallbacks"] != 0 or d["rows"]["hydro"] < 150000:
        print(f"FAIL: {p}: {d}")
        bad += 1
sys.exit(1 if bad else 0)
PYEOF

shared=${SNAPKIT_SHARED:-../shared}
cosmo=$shared/fixtures/ramses/cosmo32/output_00003
if [ -d "$cosmo" ]; then
    "$CLI" convert "$cosmo" -o "$tmp/c.snapkit" --json > "$tmp/c.json" || fail "convert cosmo32"
    grep -q '"fallbacks":1' "$tmp/c.json" || fail "cosmo32: $(cat "$tmp/c.json")"
    "$CLI" verify "$cosmo" "$tmp/c.snapkit" > /dev/null || fail "verify cosmo32"
fi

# Particles strayed out of their CPU's domain: a later file starts below
# rows written from an earlier one, and the table is written whole.
"$CLI" make-ramses "$tmp/stray" --ncpu 12 --levelmin 4 --levelmax 7 --npart 20000 \
    --stray-particles 0.3 --refine clumps > /dev/null || fail "make-ramses stray"
"$CLI" convert "$tmp/stray" -o "$tmp/s.snapkit" --json > "$tmp/s.json" || fail "convert stray"
grep -q '"fallbacks":1' "$tmp/s.json" || fail "stray particles: $(cat "$tmp/s.json")"
"$CLI" verify "$tmp/stray" "$tmp/s.snapkit" > /dev/null || fail "verify stray"

mkdir "$tmp/half"
if "$CLI" convert "$out" -o "$tmp/half/x.snapkit" --fail-after-bytes 3000000 2> "$tmp/err.txt"; then
    fail "a convert that cannot write succeeded"
fi
grep -q "No space left on device" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
[ -z "$(ls -A "$tmp/half")" ] || fail "a failed convert left $(ls -A "$tmp/half")"

[ $failures -eq 0 ] || exit 1
echo "convert stream: ok"
