#!/usr/bin/env bash
# Run snapkit's error paths under valgrind: each bad input below (the rows
# of docs/errors.md that issue 34 found) must end in a clean refusal, a
# non-zero exit that is not a crash, with no invalid read or write, no use
# of uninitialised memory and no definitely lost block.
#
#   scripts/valgrind-errors.sh [build/snapkit]
#
# Needs valgrind and a build without sanitizers (valgrind cannot run ASan
# binaries). Prints one line per case and exits 1 when any case fails. Not
# part of ctest (a minute or two under valgrind); docs/errors.md has its
# last result.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sk=$(cd "$(dirname "${1:-$root/build/snapkit}")" && pwd)/$(basename "${1:-snapkit}")
command -v valgrind >/dev/null || { echo "valgrind-errors: valgrind is not installed" >&2; exit 2; }
[[ -x $sk ]] || { echo "valgrind-errors: no snapkit at $sk" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
data=$root/tests/data
shared=${SNAPKIT_SHARED:-$root/../shared}
failed=0 ran=0

# Run one case: NAME, then the command line (without snapkit). Standard
# output goes to OUT (default /dev/null).
check() {
    local name=$1
    shift
    local log=$tmp/vg.$ran
    ran=$((ran + 1))
    OMP_NUM_THREADS=2 valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite --show-leak-kinds=definite --log-file="$log" \
        "$sk" "$@" >"${OUT:-/dev/null}" 2>"$log.stderr"
    local rc=$?
    if [[ $rc -eq 0 || $rc -eq 99 || $rc -ge 128 ]]; then
        echo "FAIL $name (exit $rc)"
        sed 's/^/    /' "$log" "$log.stderr" | head -n 30
        failed=$((failed + 1))
    else
        echo "ok   $name: $(head -n 1 "$log.stderr")"
    fi
}

# A copy of an output whose files can be damaged one at a time.
copy_output() {
    rm -rf "$tmp/out"
    cp -r "$1" "$tmp/out"
    chmod -R u+w "$tmp/out"
}

gp=$data/ramses/gravpart/output_00002
check "truth JSON to a full disk (row 1)" make-ramses "$tmp/synth/output_00001" --ncpu 2 \
    --levelmin 3 --levelmax 4 --truth-json /dev/full
check "bench plot of /dev/zero (row 3)" bench plot /dev/zero -o "$tmp/p.png"
check "bench compare of a FIFO (row 3)" bench compare "$(mkfifo "$tmp/fifo" && echo "$tmp/fifo")" "$tmp/fifo"

if [[ -d $shared/fixtures/ramses/rt3d/output_00002 ]]; then
    copy_output "$shared/fixtures/ramses/rt3d/output_00002"
    rm "$tmp/out/hydro_file_descriptor.txt" && mkdir "$tmp/out/hydro_file_descriptor.txt"
    check "descriptor a folder (row 4)" stats "$tmp/out"
    copy_output "$shared/fixtures/ramses/rt3d/output_00002"
    sed -i 's/unit_pf *=.*/unit_pf     =  1e400/' "$tmp/out/info_rt_00002.txt"
    check "info_rt value 1e400 (row 24)" stats "$tmp/out" --component rt
fi

check "clumps --ids a folder (row 5)" clumps "$gp" --threshold 1 -o "$tmp/cat.csv" --ids "$tmp/"
OUT=/dev/full check "stats --json to a full disk (row 7)" stats "$gp" --json
OUT=/dev/full check "info to a full disk (row 7)" info "$gp"

printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS pp pp pp\n5 0\n0 5\n0 5\nITEM: ATOMS id type x y z\n1 1 0.5 0.5 0.5\n' >"$tmp/inverted.dump"
check "dump with an inverted box to data (row 8)" atoms convert "$tmp/inverted.dump" "$tmp/inv.data"
printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 5\n0 5\n0 5\nITEM: ATOMS id type x y z\n-2 1 0.5 0.5 0.5\n-2 1 1 1 1\n' >"$tmp/ids.dump"
check "dump with ids -2 twice to data (row 8)" atoms convert "$tmp/ids.dump" "$tmp/ids.data"
head -c 80000000 /dev/zero | gzip -9 >"$tmp/bomb.dump.gz"
check "gzip bomb (row 11)" atoms info "$tmp/bomb.dump.gz"

copy_output "$gp"
sed -i 's/^aexp .*/aexp        =  0.0/' "$tmp/out/info_00002.txt"
check "info aexp 0 (row 14)" stats "$tmp/out"
copy_output "$gp"
sed -i 's/^boxlen .*/boxlen      =  NaN/' "$tmp/out/info_00002.txt"
check "info boxlen NaN (row 13-14)" stats "$tmp/out"
copy_output "$gp"
rm "$tmp/out/hydro_00002.out00001" && mkdir "$tmp/out/hydro_00002.out00001"
check "CPU 1's hydro file a folder (row 15)" stats "$tmp/out"
copy_output "$gp"
sed -i '0,/velocity_y/s/velocity_y/velocity_x/' "$tmp/out/hydro_file_descriptor.txt"
check "a name twice in a descriptor (row 16)" stats "$tmp/out"
copy_output "$gp"
f=$tmp/out/hydro_00002.out00003
truncate -s $(($(stat -c %s "$f") * 52 / 100)) "$f"
check "hydro file cut at 52% (row 17; an --lmax read stops before the cut, docs/ramses.md)" stats "$tmp/out"
check "direction of zero length (row 21)" project "$gp" --direction 0 0 0 -o "$tmp/m.npy"
check "range nan (row 21)" project "$gp" --range nan 1 -o "$tmp/m.png"
check "convert to a folder" convert "$gp" -o "$tmp"
check "a .snapkit file of zeros" stats "$(head -c 4096 /dev/zero >"$tmp/z.snapkit" && echo "$tmp/z.snapkit")"

echo "valgrind-errors: $((ran - failed)) of $ran cases clean"
[[ $failed -eq 0 ]]
