#!/usr/bin/env bash
# Hostile input, round two (issue 34): rows 4, 5, 13-16 and 19-24. Each
# case fails before its fix; the row is named at each block. Damaged
# copies of the fixtures are made in a temporary folder.
set -uo pipefail
CLI=${SNAPKIT_CLI:-build/snapkit}
DATA=${SNAPKIT_TEST_DATA:-tests/data}
SHARED=${SNAPKIT_SHARED:-../shared}
EXAMPLE=$DATA/ramses/gravpart/output_00002
RT=$SHARED/fixtures/ramses/rt3d/output_00002
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
fresh() { # fresh NAME SRC: a writable copy of output SRC as $TMP/NAME/output_NNNNN
    rm -rf "${TMP:?}/$1"; mkdir -p "$TMP/$1"; cp -r "$2" "$TMP/$1/"
}
has_err() { grep -qE "$1" "$TMP/err" || { echo "FAIL: expected /$1/ in:"; cat "$TMP/err"; fail=1; }; }

# Row 4 (and the rule for every optional file): a name that is there but
# cannot be read as a file is an error naming it, never "absent". Before,
# a folder for hydro_file_descriptor.txt read scalar_00 as metallicity.
if [[ -d "$RT" ]]; then
    R=$TMP/rt/output_00002
    for f in hydro_file_descriptor.txt rt_file_descriptor.txt info_rt_00002.txt \
             header_00002.txt namelist.txt; do
        fresh rt "$RT"; rm "$R/$f"; mkdir "$R/$f"
        expect_error "$f a folder" "$f: is a folder, not a file" "$CLI" stats "$R" --vars scalar_00
        fresh rt "$RT"; rm "$R/$f"; ln -s "$f" "$R/$f"
        expect_error "$f a symlink loop" "$f: cannot open: Too many levels of symbolic links" \
            "$CLI" stats "$R" --vars scalar_00
        fresh rt "$RT"; rm "$R/$f"; ln -s /dev/null "$R/$f"
        expect_error "$f a device" "$f: is a device" "$CLI" info "$R"
        fresh rt "$RT"; rm "$R/$f"; ln -s missing.txt "$R/$f"
        expect_error "$f a dangling link" "$f: is a symbolic link to a file that does not exist" \
            "$CLI" info "$R"
    done
    # Missing is absent: the names are guessed as before.
    fresh rt "$RT"; rm "$R/hydro_file_descriptor.txt"
    check "no hydro descriptor" "$CLI" stats "$R" --vars metallicity
    # Row 15: CPU 1's component file (before: "the output has no hydro").
    for f in hydro_00002.out00001 rt_00002.out00001; do
        fresh rt "$RT"; rm "$R/$f"; mkdir "$R/$f"
        expect_error "$f a folder" "$f: is a folder, not a file" "$CLI" stats "$R"
        fresh rt "$RT"; rm "$R/$f"; ln -s "$f" "$R/$f"
        expect_error "$f a symlink loop" "$f: cannot open: Too many levels of symbolic links" \
            "$CLI" stats "$R"
        fresh rt "$RT"; rm "$R/$f"; ln -s /dev/zero "$R/$f"
        expect_error "$f a device" "$f: is a device" "$CLI" stats "$R"
    done
else
    echo "SKIP: rows 4 and 15 on rt3d (no $RT)"
fi
G=$TMP/g/output_00002
for f in amr_00002.out00001 part_00002.out00001 info_00002.txt part_file_descriptor.txt; do
    fresh g "$EXAMPLE"; rm "$G/$f"; mkdir "$G/$f"
    expect_error "$f a folder" "$f: is a folder, not a file" "$CLI" stats "$G" --component particles
done
fresh g "$EXAMPLE"; mkdir "$G/sink_00002.csv"
expect_error "sink csv a folder" "sink_00002.csv: is a folder, not a file" "$CLI" info "$G"
fresh g "$EXAMPLE"; ln -s /dev/zero "$G/clump_00002.txt00001"
expect_error "clump file a device" "clump_00002.txt00001: is a device" "$CLI" info "$G"

# Row 5: the catalogue and --ids are replaced together or not at all.
CL=$SHARED/fixtures/ramses/clumps3d/output_00002
if [[ -d "$CL" ]]; then
    mkdir -p "$TMP/cl/ids.npy"
    for e in csv json fits snapkit; do
        echo old > "$TMP/cl/cat.$e"
        expect_error "--ids a folder, -o .$e" "ids.npy: is a folder; not replaced" \
            "$CLI" clumps "$CL" --threshold 1 -o "$TMP/cl/cat.$e" --ids "$TMP/cl/ids.npy"
        ok grep -qx old "$TMP/cl/cat.$e"
    done
    expect_error "--ids DIR/" "ids.npy/: --ids writes a .npy file" \
        "$CLI" clumps "$CL" --threshold 1 -o "$TMP/cl/cat.csv" --ids "$TMP/cl/ids.npy/"
    ok grep -qx old "$TMP/cl/cat.csv"
    rmdir "$TMP/cl/ids.npy"
    check "catalogue and ids" "$CLI" clumps "$CL" --threshold 1 -o "$TMP/cl/cat.csv" --ids "$TMP/cl/ids.npy"
    ok grep -q '^id,parent' "$TMP/cl/cat.csv"
    ok test -s "$TMP/cl/ids.npy"
else
    echo "SKIP: row 5 (no $CL)"
fi

# Row 13: an amr header boxlen of NaN or inf (0 and -1 were refused already).
for bits in '\x00\x00\x00\x00\x00\x00\xf8\x7f' '\x00\x00\x00\x00\x00\x00\xf0\x7f'; do
    fresh g "$EXAMPLE"
    for f in "$G"/amr_00002.out*; do # boxlen: record 8, payload at byte 96
        printf "$bits" | dd of="$f" bs=1 seek=96 conv=notrunc status=none
    done
    expect_error "amr boxlen $bits" "amr_00002.out00001: record 8 at byte 92: boxlen = " "$CLI" stats "$G"
    has_err "boxlen = (nan|inf) is not a positive finite number"
done

# Row 14: info aexp 0, negative, NaN, 1e400; H0 0 on a cosmological run.
COSMO=$SHARED/fixtures/ramses/cosmo32/output_00003
if [[ -d "$COSMO" ]]; then
    C=$TMP/c/output_00003
    for v in 0.0 -0.5 NaN 1e400; do
        fresh c "$COSMO"; sed -i "s/^aexp        = .*/aexp        = $v/" "$C/info_00003.txt"
        expect_error "aexp $v" "info_00003.txt: line 10: aexp = '$v' " "$CLI" info "$C"
    done
    fresh c "$COSMO"; sed -i "s/^H0          = .*/H0          = 0.0/" "$C/info_00003.txt"
    expect_error "H0 0" "info_00003.txt: line 11: H0 = '0.0' must be positive in a cosmological run" \
        "$CLI" stats "$C" --unit Mpccm/h --xrange 0 5
    fresh c "$COSMO"; sed -i "s/^omega_m     = .*/omega_m     = inf/" "$C/info_00003.txt"
    expect_error "omega_m inf" "line 12: omega_m = 'inf' is not a finite number" "$CLI" info "$C"
else
    echo "SKIP: row 14 (no $COSMO)"
fi
fresh g "$EXAMPLE"; sed -i "s/^unit_d      = .*/unit_d      = 1e400/" "$G/info_00002.txt"
expect_error "unit_d 1e400" "unit_d = '1e400' is not a finite number" "$CLI" stats "$G"

# Row 24: an info_rt value of 1e400 (was null), a dump box of 1e400 (was
# Lattice="inf"), particle counts that do not parse (were dropped).
if [[ -d "$RT" ]]; then
    fresh rt "$RT"; sed -i 's/^unit_pf      = .*/unit_pf      =   1e400/' "$R/info_rt_00002.txt"
    expect_error "info_rt 1e400" "info_rt_00002.txt: line 10, column 18: unit_pf: '1e400' is not a finite number" \
        "$CLI" info "$R" --json
fi
printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS pp pp pp\n0 1\n0 VALUE\n0 1\nITEM: ATOMS id type x y z\n1 1 0.5 0.5 0.5\n' > "$TMP/box.dump"
for v in 1e400 inf nan; do
    sed "s/VALUE/$v/" "$TMP/box.dump" > "$TMP/b.dump"
    expect_error "dump box $v" "b.dump: line 7, column 3: a box bound must be a finite number, not '$v'" \
        "$CLI" atoms convert "$TMP/b.dump" "$TMP/b.extxyz"
done
ok test ! -e "$TMP/b.extxyz"
printf '1\nLattice="1e400 0 0 0 5 0 0 0 5" Properties=species:S:1:pos:R:3\nCu 0 0 0\n' > "$TMP/l.extxyz"
expect_error "extxyz Lattice 1e400" "line 2, column 10: comment line: value of Lattice: number '1e400' is too large for a double" "$CLI" atoms info "$TMP/l.extxyz"
printf '1\nLattice="inf 0 0 0 5 0 0 0 5" Properties=species:S:1:pos:R:3\nCu 0 0 0\n' > "$TMP/l.extxyz"
expect_error "extxyz Lattice inf" "line 2, column 9: comment line: Lattice has a number that is not finite" "$CLI" atoms info "$TMP/l.extxyz"
sed 's/^\(.*\) xlo xhi/0 1e400 xlo xhi/' "$DATA/atoms/cu_fcc_500.data" > "$TMP/b.data"
expect_error "data xhi 1e400" "line 6, column 1: xlo and xhi must be finite numbers" "$CLI" atoms info "$TMP/b.data"
for v in abc 1e3 -5 99999999999999999999; do
    fresh g "$EXAMPLE"; sed -i "s/^           DM      2000/           DM      $v/" "$G/header_00002.txt"
    expect_error "header count $v" "header_00002.txt: line 8, column 1: 'DM      $v' has no particle count" \
        "$CLI" info "$G"
done
fresh g "$EXAMPLE"; printf ' Total number of particles\nmany\n' > "$G/header_00002.txt"
expect_error "old header count" "line 1, column 1: 'Total number of particles' has no particle count" \
    "$CLI" info "$G"

# Row 16: a duplicate name in a descriptor, or a cell variable named like a
# column the reader adds, is an error naming the file and line (before:
# "column X is already in the table").
fresh g "$EXAMPLE"; sed -i 's/^ 2, position_y, d/ 2, position_x, d/' "$G/part_file_descriptor.txt"
expect_error "part descriptor duplicate" \
    "part_file_descriptor.txt: line 4, column 5: variable name 'position_x' appears twice (also line 3)" \
    "$CLI" stats "$G" --component particles
fresh g "$EXAMPLE"; rm "$G/part_file_descriptor.txt"; sed -i 's/^pos vel mass/pos vel pos/' "$G/header_00002.txt"
expect_error "header fields duplicate" "header_00002.txt: the particle fields give column 'position_x' twice" \
    "$CLI" stats "$G" --component particles
if [[ -d "$RT" ]]; then
    fresh rt "$RT"; sed -i 's/^ 2, photon_flux_01_x/ 2, photon_flux_01/' "$R/rt_file_descriptor.txt"
    expect_error "rt descriptor duplicate" "rt_file_descriptor.txt: line 4, column 5: variable name 'photon_flux_01' appears twice" \
        "$CLI" stats "$R" --component rt
    for n in level cx; do
        fresh rt "$RT"; sed -i "s/^ 6, scalar_00/ 6, $n/" "$R/hydro_file_descriptor.txt"
        expect_error "hydro variable $n" "hydro_file_descriptor.txt: line 8: variable '$n' has the name of a column the reader adds" \
            "$CLI" stats "$R"
    done
    fresh rt "$RT"; sed -i 's/^ 3, photon_flux_01_y/ 3, cy/' "$R/rt_file_descriptor.txt"
    expect_error "rt variable cy" "rt_file_descriptor.txt: line 5: variable 'cy' has the name of a column the reader adds" \
        "$CLI" stats "$R" --component rt
fi

# Row 20: text files with CRLF line ends (info, descriptors, header) read
# as with LF (before: "unexpected text after the domain's keys").
fresh g "$EXAMPLE"; for f in "$G"/*.txt; do sed -i 's/$/\r/' "$f"; done
ok grep -q $'\r$' "$G/info_00002.txt"
for comp in hydro particles; do
    "$CLI" stats "$EXAMPLE" --component $comp --json > "$TMP/lf.json" 2> "$TMP/err" || { echo "FAIL: stats LF"; fail=1; }
    check "CRLF stats $comp" "$CLI" stats "$G" --component $comp --json
    /usr/bin/python3 - "$TMP/lf.json" "$TMP/out" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("rows", "columns", "levels"):
    if a.get(k) != b.get(k):
        print("FAIL: CRLF output differs in", k); sys.exit(1)
PY
done
check "CRLF info" "$CLI" info "$G" --json
cp "$TMP/out" "$TMP/crlf_info.json"
"$CLI" info "$EXAMPLE" --json > "$TMP/lf_info.json"
/usr/bin/python3 - "$TMP/lf_info.json" "$TMP/crlf_info.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("info", "header", "part_descriptor", "hydro_descriptor", "columns", "cosmology"):
    if a[k] != b[k]:
        print("FAIL: CRLF info differs in", k); sys.exit(1)
PY

# Row 21: a direction whose square overflows (or underflows) has a length;
# a colour range that is not finite is named as such.
check "direction 1 1 1" "$CLI" project "$EXAMPLE" --direction 1 1 1 --res 32 -o "$TMP/d111.npy"
check "direction 1e308 x3" "$CLI" project "$EXAMPLE" --direction 1e308 1e308 1e308 --res 32 -o "$TMP/dbig.npy"
ok cmp -s "$TMP/d111.npy" "$TMP/dbig.npy"
check "direction 1 0 0" "$CLI" project "$EXAMPLE" --direction 1 0 0 --up 0 1 1 --res 32 -o "$TMP/d100.npy"
check "direction 1e-320 0 0" "$CLI" project "$EXAMPLE" --direction 1e-320 0 0 --up 0 1e308 1e308 --res 32 -o "$TMP/dtiny.npy"
ok cmp -s "$TMP/d100.npy" "$TMP/dtiny.npy"
expect_error "direction 0 0 0" "the line-of-sight direction (0, 0, 0) has zero length" \
    "$CLI" project "$EXAMPLE" --direction 0 0 0 --res 32 -o "$TMP/d.npy"
for r in "nan 1" "1 inf" "-inf 0"; do
    expect_error "--range $r" "--range: the ends must be finite numbers, not '$r'" \
        "$CLI" project "$EXAMPLE" --range $r --res 32 -o "$TMP/r.png"
done
ok test ! -e "$TMP/r.png"

# Row 8: dump -> data refuses ids below 1, a repeated id and an inverted
# box, naming the atom (or axis), and writes nothing; a good dump converts.
dump() { # dump FILE ID2 XLO XHI
    printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n3\nITEM: BOX BOUNDS pp pp pp\n%s %s\n0 4\n0 4\nITEM: ATOMS id type x y z\n1 1 0 0 0\n%s 1 1 1 1\n3 1 2 2 2\n' \
        "$3" "$4" "$2" > "$1"
}
dump "$TMP/neg.dump" -2 0 4
dump "$TMP/dup.dump" 1 0 4
dump "$TMP/inv.dump" 2 4 0
dump "$TMP/good.dump" 2 0 4
expect_error "dump id -2 -> data" "atom 2 of the frame has id -2" \
    "$CLI" atoms convert "$TMP/neg.dump" "$TMP/neg.data"
expect_error "dump ids 1, 1 -> data" "atoms 1 and 2 of the frame both have id 1" \
    "$CLI" atoms convert "$TMP/dup.dump" "$TMP/dup.data"
expect_error "inverted box -> data" "the box's x bounds are 4 0" \
    "$CLI" atoms convert "$TMP/inv.dump" "$TMP/inv.data"
ok test ! -e "$TMP/neg.data" -a ! -e "$TMP/dup.data" -a ! -e "$TMP/inv.data"
check "good dump -> data" "$CLI" atoms convert "$TMP/good.dump" "$TMP/good.data"
check "the data file reads back" "$CLI" atoms info "$TMP/good.data"

# Row 12: --json is valid UTF-8 whatever bytes a name holds (an extxyz
# Properties name here): strict UTF-8 decoding and json.loads take it.
printf '2\nLattice="4 0 0 0 4 0 0 0 4" Properties=species:S:1:pos:R:3:ch\xffrge:R:1\nH 0 0 0 1\nH 1 1 1 2\n' \
    > "$TMP/bad_utf8.xyz"
"$CLI" atoms info "$TMP/bad_utf8.xyz" --json > "$TMP/bad_utf8.json" || { echo "FAIL: atoms info of a non-UTF-8 name"; fail=1; }
/usr/bin/python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' \
    "$TMP/bad_utf8.json" || { echo "FAIL: atoms info --json is not UTF-8 JSON"; fail=1; }

# Row 11: memory stays bounded. A gzip bomb (600 MB of zeros in 600 KB)
# is refused before it is inflated whole; a report repeating one case
# name thousands of times is compared in n log n, matched in order.
head -c 600000000 /dev/zero | gzip -1 > "$TMP/bomb.dump.gz"
expect_error "atoms info of a gzip bomb" "over 100 times its" \
    "$CLI" atoms info "$TMP/bomb.dump.gz"
if ! sanitized_library; then # ASan reserves more address space than any limit
    expect_error "a gzip bomb within 400 MB of address space" "(a gzip bomb?)" \
        bash -c 'ulimit -v 400000; exec "$@"' _ "$CLI" atoms info "$TMP/bomb.dump.gz"
fi
/usr/bin/python3 -c '
import json, sys
for path, n, v in ((sys.argv[1], 30000, 1.0), (sys.argv[2], 20000, 2.0)):
    json.dump({"read": {"cases": [{"name": "a", "seconds": v}] * n}}, open(path, "w"))
' "$TMP/rep_a.json" "$TMP/rep_b.json"
check "bench compare of 30000 repeated names" "$CLI" bench compare "$TMP/rep_a.json" "$TMP/rep_b.json"
has "10000 measurements in A only, 0 in B only"
ok test "$(grep -c 'read.cases\[name=a\].seconds  *1  *2  *2.000' "$TMP/out")" -eq 20000

if [[ $fail -eq 0 ]]; then echo "hostile input, round two: all checks passed"; fi
exit $fail
