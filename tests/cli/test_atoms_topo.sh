#!/usr/bin/env bash
# snapkit atoms convert with molecular topology: data -> data byte for byte
# LAMMPS' own write_data (files made by tests/data/atoms/make_topo.in), one
# stderr line when the target cannot hold topology, LAMMPS' read_data taking
# what snapkit writes (also sphere, ellipsoid, dipole and hybrid files from
# make_styles.in), and one-line errors for broken topology.
set -uo pipefail
CLI=${SNAPKIT_CLI:-build/snapkit}
DATA=${SNAPKIT_TEST_DATA:-tests/data}/atoms
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

for s in full molecular angle bond; do
    check "convert $s" "$CLI" atoms convert "$DATA/topo_$s.data" "$TMP/$s.data"
    [[ -s "$TMP/err" ]] && { echo "FAIL: $s: data -> data wrote to stderr"; cat "$TMP/err"; fail=1; }
    cmp -s "$DATA/topo_$s.data" "$TMP/$s.data" || { echo "FAIL: $s rewrite differs"; fail=1; }
done

# dump and extxyz cannot hold topology: one line says what was left out
check "to dump" "$CLI" atoms convert "$DATA/topo_full.data" "$TMP/full.dump"
[[ $(wc -l < "$TMP/err") -eq 1 ]] || { echo "FAIL: expected one stderr line"; cat "$TMP/err"; fail=1; }
grep -qF "6 bonds, 3 angles, 1 dihedrals, 1 impropers not written: a dump file cannot hold topology" "$TMP/err" \
    || { echo "FAIL: note"; cat "$TMP/err"; fail=1; }
check "dump atoms" "$CLI" atoms info "$TMP/full.dump"
has "atoms     9"
check "to extxyz" "$CLI" atoms convert "$DATA/topo_bond.data" "$TMP/bond.extxyz"
grep -qF "6 bonds not written: an extxyz file" "$TMP/err" || { echo "FAIL: extxyz note"; cat "$TMP/err"; fail=1; }
[[ $(head -1 "$TMP/bond.extxyz") == 9 ]] || { echo "FAIL: extxyz atoms"; fail=1; }

# broken topology: file, line and column, nothing written
sed 's/^6 2 7 9$/6 2 7 19/' "$DATA/topo_full.data" > "$TMP/dangling.data"
line=$(grep -n '^6 2 7 19$' "$TMP/dangling.data" | cut -d: -f1)
expect_error "dangling" "dangling.data: line $line, column 7: Bonds: atom 19 does not exist" \
    "$CLI" atoms convert "$TMP/dangling.data" "$TMP/never.data"
[[ -e "$TMP/never.data" ]] && { echo "FAIL: a failed convert left a file"; fail=1; }
sed 's/^6 bonds$/7 bonds/' "$DATA/topo_full.data" > "$TMP/count.data"
expect_error "count" "count.data: line" "$CLI" atoms convert "$TMP/count.data" "$TMP/never.data"
grep -qF "section Bonds ends after 6 lines, but the header count is 7" "$TMP/err" \
    || { echo "FAIL: count message"; cat "$TMP/err"; fail=1; }
sed 's/^1 1 2 1 3$/1 1 2 1/' "$DATA/topo_full.data" > "$TMP/fields.data"
expect_error "fields" "Angles: 4 fields where 'id type atom1 atom2 atom3' needs 5" \
    "$CLI" atoms convert "$TMP/fields.data" "$TMP/never.data"

# LAMMPS reads what snapkit wrote and writes it back the same
LMP=$(command -v lmp || command -v lmp_serial || true)
if [[ -n "$LMP" ]]; then
    for s in full molecular angle bond; do
        # the styles make_topo.in used, which read_data needs for the Coeffs
        styles="pair_style lj/cut 8.0\nbond_style harmonic\n"
        [[ $s != bond ]] && styles+="angle_style harmonic\n"
        [[ $s == full || $s == molecular ]] && styles+="dihedral_style harmonic\nimproper_style harmonic\n"
        (cd "$TMP" && printf "units real\natom_style $s\nboundary p p f\n${styles}read_data $s.data\nwrite_data ${s}_lmp.data\n" \
            | "$LMP" -log none -screen none > /dev/null 2>&1) || { echo "FAIL: LAMMPS refused $s.data"; fail=1; }
        # the version line is LAMMPS' own; the rest must match
        cmp -s <(tail -n +2 "$TMP/${s}_lmp.data") <(tail -n +2 "$TMP/$s.data") \
            || { echo "FAIL: LAMMPS rewrote $s.data differently"; diff "$TMP/${s}_lmp.data" "$TMP/$s.data" | head; fail=1; }
    done
    # the other atom styles (tests/data/atoms/make_styles.in)
    for s in sphere ellipsoid dipole hybrid; do
        style=$s opt=()
        [[ $s == hybrid ]] && style="hybrid charge sphere" opt=(--atom-style "$style")
        check "convert $s" "$CLI" atoms convert "$DATA/style_$s.data" "$TMP/s_$s.data" "${opt[@]}"
        cmp -s "$DATA/style_$s.data" "$TMP/s_$s.data" || { echo "FAIL: $s rewrite differs"; fail=1; }
        (cd "$TMP" && printf "units lj\natom_style $style\nread_data s_$s.data\nwrite_data s_${s}_lmp.data\n" \
            | "$LMP" -log none -screen none > /dev/null 2>&1) || { echo "FAIL: LAMMPS refused s_$s.data"; fail=1; }
        cmp -s <(tail -n +2 "$TMP/s_${s}_lmp.data") <(tail -n +2 "$TMP/s_$s.data") \
            || { echo "FAIL: LAMMPS rewrote s_$s.data differently"; fail=1; }
    done
else
    echo "SKIP: LAMMPS read_data of snapkit's files (no lmp on PATH)"
fi
expect_error "hybrid unnamed" "pass them as --atom-style \"hybrid STYLE...\"" \
    "$CLI" atoms convert "$DATA/style_hybrid.data" "$TMP/never.data"
[[ -e "$TMP/never.data" ]] && { echo "FAIL: a failed convert left a file"; fail=1; }
exit $fail
