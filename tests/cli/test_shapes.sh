#!/usr/bin/env bash
# Shapes on the command line (issue 29): bad sizes, axes, centres and
# combinations give one line on stderr naming what is wrong, a non-zero
# exit, and nothing written (stats prints nothing, convert -o leaves no
# file); and the good forms agree with each other (units, aliases,
# --inverse as the complement, a .snapkit file as the output).
set -uo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
out=$data/ramses/gravpart/output_00002
py=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

# refused "what" "message part" selection...: stats and convert -o both
# fail with that one line, print nothing and write no file.
refused() {
    local what=$1 part=$2; shift 2
    expect_error "stats $what" "$part" "$cli" stats "$out" "$@"
    [[ -s "$TMP/out" ]] && { echo "FAIL: stats $what printed:"; cat "$TMP/out"; fail=1; }
    expect_error "convert $what" "$part" "$cli" convert "$out" -o "$TMP/bad.snapkit" "$@"
    [[ -e "$TMP/bad.snapkit" ]] && { echo "FAIL: convert $what wrote a file"; fail=1; }
    rm -f "$TMP/bad.snapkit"
}

refused "radius 0" "radius must be a finite number above 0" --sphere 0
refused "radius < 0" "radius must be a finite number above 0" --sphere -0.1
refused "radius NaN" "radius must be a finite number above 0" --sphere nan
refused "radius inf" "radius must be a finite number above 0" --sphere inf
refused "radius not a number" "--sphere: 'big' is not a number" --sphere big
refused "radius missing" "--sphere needs the radius R" --sphere
refused "outer radius 0" "outer radius must be a finite number above 0" --shell 0 0
refused "inner above outer" "inner radius must be at least 0 and below the outer" --shell 0.2 0.1
refused "inner equal to outer" "inner radius must be at least 0 and below the outer" --shell 0.1 0.1
refused "inner < 0" "inner radius must be at least 0 and below the outer" --shell -0.1 0.1
refused "cylinder-shell inner above outer" "inner radius must be at least 0" \
    --cylinder-shell 0.3 0.2 0.1
refused "half-height 0" "half-height must be a finite number above 0" --cylinder 0.1 0
refused "half-height < 0" "half-height must be a finite number above 0" --cylinder-shell 0.1 0.2 -1
refused "axis of zero length" "axis must be a finite direction of non-zero length" \
    --cylinder 0.1 0.1 --cylinder-axis 0 0 0
refused "axis NaN" "axis must be a finite direction of non-zero length" \
    --cylinder 0.1 0.1 --cylinder-axis nan 0 1
refused "centre outside (x > 1)" "the centre's x (1.5 box units) lies outside the box" \
    --sphere 0.1 --center 1.5 0.5 0.5
refused "centre outside (z < 0)" "the centre's z (-0.25 box units) lies outside the box" \
    --sphere 0.1 --center 0.5 0.5 -0.25
refused "centre outside (kpc)" "lies outside the box" --unit cm --sphere 0.1 --center 0.5 2 0.5
refused "centre NaN" "finite" --sphere 0.1 --center 0.5 nan 0.5
refused "--inverse alone" "--inverse needs a shape" --inverse
refused "--inverse with a box" "--inverse needs a shape" --xrange 0 0.5 --inverse
refused "two shapes" "--cylinder: one shape only" --sphere 0.1 --cylinder 0.1 0.1
refused "the same shape twice" "--sphere: one shape only" --sphere 0.1 --sphere 0.2
refused "comoving unit, not cosmological" "'ckpc' is a comoving or little-h unit: the output is not cosmological" \
    --unit ckpc --sphere 10
refused "little-h unit, not cosmological" "'kpc/h' is a comoving or little-h unit" \
    --unit kpc/h --sphere 10
refused "unknown unit" "unknown length unit 'furlong'" --unit furlong --sphere 1

# The good forms. rows of "args...": stats --json's row count.
rows() { "$cli" stats "$out" --json "$@" | $py -c 'import json,sys; print(json.load(sys.stdin)["rows"])'; }
all=$(rows)
sphere=$(rows --sphere 0.3 --center 0.4 0.5 0.6)
outside=$(rows --sphere 0.3 --center 0.4 0.5 0.6 --inverse)
ok test "$sphere" -gt 0
ok test "$outside" -gt 0
ok test $((sphere + outside)) -eq "$all"
# gravpart: boxlen 1, unit_l 1 cm: code, standard and cm are the same lengths.
ok test "$(rows --sphere 0.3 --center 0.4 0.5 0.6 --unit code)" -eq "$sphere"
ok test "$(rows --sphere 0.3 --center 0.4 0.5 0.6 --unit cm)" -eq "$sphere"
ok test "$(rows --sphere 3 --center 4 5 6 --unit mm 2>/dev/null || echo refused)" = refused
# --disk is --cylinder; x as an axis is 1 0 0; a shell is a sphere less the inner one
# (r_in < r <= r_out).
ok test "$(rows --disk 0.3 0.05 --cylinder-axis x)" -eq "$(rows --cylinder 0.3 0.05 --cylinder-axis 2 0 0)"
ok test $(( $(rows --sphere 0.3) - $(rows --sphere 0.1) )) -eq "$(rows --shell 0.1 0.3)"
ok test $(( $(rows --cylinder 0.3 0.1) - $(rows --cylinder 0.1 0.1) )) -eq "$(rows --cylinder-shell 0.1 0.3 0.1)"
# Particles by position, the same from the .snapkit file.
check "convert" "$cli" convert "$out" -o "$TMP/g.snapkit"
for shape in "--sphere 0.2 --center 0.01 0.99 0.5" "--cylinder-shell 0.05 0.3 0.1 --cylinder-axis 1 1 1" \
             "--shell 0.1 0.4 --inverse"; do
    for comp in hydro particles; do
        a=$("$cli" stats "$out" --component $comp --json $shape | $py -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["columns"])')
        b=$("$cli" stats "$TMP/g.snapkit" --component $comp --json $shape | $py -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["columns"])')
        [[ "$a" == "$b" ]] || { echo "FAIL: $comp $shape: output and .snapkit differ"; fail=1; }
    done
done
# A file converted with a shape says so, and holds exactly the shape's rows.
check "convert a shell" "$cli" convert "$out" -o "$TMP/shell.snapkit" --shell 0.1 0.3 --center 0.4 0.5 0.5
"$cli" info "$TMP/shell.snapkit" > "$TMP/out"
has "shell about (0.4 0.5 0.5), radii (box units) 0.1 0.3"
a=$("$cli" stats "$TMP/shell.snapkit" --json | $py -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["columns"]["density"]["sum"])')
b=$("$cli" stats "$out" --shell 0.1 0.3 --center 0.4 0.5 0.5 --json | $py -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["columns"]["density"]["sum"])')
[[ "$a" == "$b" ]] || { echo "FAIL: a shell's file: $a, the output's shell: $b"; fail=1; }

# bench sphere: its sphere's totals are stats --totals' of the same sphere,
# its whole output's mass the stats' (from the output and the file).
for src in "$out" "$TMP/g.snapkit"; do
    b=$("$cli" bench sphere "$src" --sphere 0.15 --center 0.4 0.5 0.5 --runs 1 --json)
    t=$("$cli" stats "$src" --sphere 0.15 --center 0.4 0.5 0.5 --totals --json)
    w=$("$cli" stats "$src" --totals --json)
    same=$($py -c 'import json,sys
b, t, w = (json.loads(x) for x in sys.argv[1:4])
ok = (b["sphere"]["mass"] == t["totals"]["mass"] and b["sphere"]["rows"] == t["rows"]
      and b["whole"]["mass"] == w["totals"]["mass"] and b["whole"]["rows"] == w["rows"]
      and b["sphere"]["files"] <= b["whole"]["files"] and b["sphere"]["rows"] < b["whole"]["rows"])
print(int(ok))' "$b" "$t" "$w")
    [[ "$same" == 1 ]] || { echo "FAIL: bench sphere on $src: $b"; fail=1; }
done
exit $fail
