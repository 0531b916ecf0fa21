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

if [[ $fail -eq 0 ]]; then echo "hostile input, round two: all checks passed"; fi
exit $fail
