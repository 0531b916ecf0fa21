#!/usr/bin/env bash
# Careless and hostile input on the command line (issue 16): targets that
# are not regular files, FIFOs as input, damaged compact files, numbers that
# do not fit a double, options out of range, read-only targets, several
# outputs of which one cannot be written, a conversion interrupted by a
# signal. Each must give one clear line and leave nothing behind.
set -uo pipefail
CLI=${SNAPKIT_CLI:-build/snapkit}
DATA=${SNAPKIT_TEST_DATA:-tests/data}
EXAMPLE=$DATA/ramses/gravpart/output_00002
DUMP=$DATA/atoms/cu_fcc_4000.dump
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"
no_temporaries() {
    if find "$1" -name '*.tmp.*' | grep -q .; then
        echo "FAIL: temporaries left in $1:"; find "$1" -name '*.tmp.*'; fail=1
    fi
}

# 1. Outputs that are not regular files are written through, never replaced.
check "to /dev/null" "$CLI" atoms convert "$DUMP" /dev/null --to extxyz
ok test -c /dev/null
mkfifo "$TMP/out.fifo"
(cat "$TMP/out.fifo" > "$TMP/from_fifo") &
check "to a FIFO" "$CLI" atoms convert "$DUMP" "$TMP/out.fifo" --to extxyz
wait
ok test -p "$TMP/out.fifo"
check "to a file" "$CLI" atoms convert "$DUMP" "$TMP/a.extxyz"
ok cmp -s "$TMP/from_fifo" "$TMP/a.extxyz"
"$CLI" atoms convert "$DUMP" - --to extxyz > "$TMP/stdout.extxyz" 2> "$TMP/err" || { echo "FAIL: -o -"; fail=1; }
ok cmp -s "$TMP/stdout.extxyz" "$TMP/a.extxyz"
ln -s a.extxyz "$TMP/link.extxyz"
check "through a symlink" "$CLI" atoms convert "$DATA/atoms/cu_fcc_500.data" "$TMP/link.extxyz"
ok test -L "$TMP/link.extxyz"
ok grep -q '^500$' "$TMP/a.extxyz"
ln -s missing/nowhere.xyz "$TMP/dangling.xyz"
expect_error "dangling symlink" "symbolic link to a file that does not exist" \
    "$CLI" atoms convert "$DUMP" "$TMP/dangling.xyz"
mkdir "$TMP/folder.xyz"
expect_error "folder as target" "is a folder; not replaced" "$CLI" atoms convert "$DUMP" "$TMP/folder.xyz"

# 10. Read-only targets are refused and keep their mode; a replaced file keeps its mode.
cp "$TMP/a.extxyz" "$TMP/ro.extxyz"; cp "$TMP/a.extxyz" "$TMP/ro.orig"; chmod 444 "$TMP/ro.extxyz"
expect_error "read-only target" "is read-only (mode 0444)" \
    "$CLI" atoms convert "$DATA/atoms/cu_fcc_500.data" "$TMP/ro.extxyz"
ok test "$(stat -c %a "$TMP/ro.extxyz")" = 444
ok cmp -s "$TMP/ro.extxyz" "$TMP/ro.orig"
cp "$TMP/a.extxyz" "$TMP/m.extxyz"; chmod 640 "$TMP/m.extxyz"
check "replace 0640" "$CLI" atoms convert "$DUMP" "$TMP/m.extxyz"
ok test "$(stat -c %a "$TMP/m.extxyz")" = 640

# 2. A FIFO as input is named at once instead of waited on.
mkfifo "$TMP/in.dump"
expect_error "FIFO input" "is a FIFO or pipe" timeout 20 "$CLI" atoms info "$TMP/in.dump"
expect_error "folder input" "is a folder, not a file" "$CLI" atoms info "$TMP/folder.xyz"
expect_error "device input" "is a device" "$CLI" atoms info /dev/null
mkdir -p "$TMP/fifo_amr"; cp -r "$EXAMPLE" "$TMP/fifo_amr/"
rm "$TMP/fifo_amr/output_00002/amr_00002.out00003"; mkfifo "$TMP/fifo_amr/output_00002/amr_00002.out00003"
expect_error "FIFO amr file" "amr_00002.out00003: is a FIFO or pipe" \
    timeout 20 "$CLI" stats "$TMP/fifo_amr/output_00002"

# 4. Damaged compact files say so, in verify and everywhere else.
check "convert" "$CLI" convert "$EXAMPLE" -o "$TMP/g.snapkit"
cp "$TMP/g.snapkit" "$TMP/bad.snapkit"
printf 'X' | dd of="$TMP/bad.snapkit" bs=1 count=1 conv=notrunc 2>/dev/null
expect_error "verify bad magic" "bad magic" "$CLI" verify "$TMP/bad.snapkit"
expect_error "stats bad magic" "bad magic" "$CLI" stats "$TMP/bad.snapkit"
: > "$TMP/empty.snapkit"
expect_error "empty .snapkit" "not a snapkit file" "$CLI" stats "$TMP/empty.snapkit"
head -c 5000 /dev/urandom > "$TMP/random.snapkit"
expect_error "random .snapkit" "not a snapkit file" "$CLI" info "$TMP/random.snapkit"

# 6. Numbers that do not fit a double are errors naming line and column.
printf 'ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS pp pp pp\n0 1\n0 1\n0 1\nITEM: ATOMS id type x y z\n1 1 0.5 VALUE 0.5\n' > "$TMP/t.dump"
sed 's/VALUE/1e400/' "$TMP/t.dump" > "$TMP/big.dump"
expect_error "1e400" "line 10, column 9: number '1e400' for y is too large" \
    "$CLI" atoms convert "$TMP/big.dump" "$TMP/big.xyz"
for kept in 4e-320 0.000e-500 -0 -2.5e-400; do
    sed "s/VALUE/$kept/" "$TMP/t.dump" > "$TMP/kept.dump"
    check "$kept is kept" "$CLI" atoms convert "$TMP/kept.dump" "$TMP/kept.xyz"
done
ok test ! -e "$TMP/big.xyz"

# 8. Invalid data is refused, not converted.
DATA500=$DATA/atoms/cu_fcc_500.data
sed 's/^\(.*\) xlo xhi/10 0 xlo xhi/' "$DATA500" > "$TMP/box.data"
expect_error "xlo > xhi" "xlo 10 is above xhi 0" "$CLI" atoms convert "$TMP/box.data" "$TMP/o.xyz"
sed '17s/^2 1 /1 1 /' "$DATA500" > "$TMP/dup.data"
expect_error "duplicate id" "line 17, column 1: atom id 1 appears twice" "$CLI" atoms convert "$TMP/dup.data" "$TMP/o.xyz"
sed '17s/^2 1 /-2 1 /' "$DATA500" > "$TMP/neg.data"
expect_error "negative id" "line 17, column 1: atom id -2 is not positive" "$CLI" atoms convert "$TMP/neg.data" "$TMP/o.xyz"
sed '17s/^2 1 /2 7 /' "$DATA500" > "$TMP/type.data"
expect_error "type above count" "atom type 7 is not between 1 and the header's 1" \
    "$CLI" atoms convert "$TMP/type.data" "$TMP/o.xyz"
printf '1\nLattice="0 0 0 0 0 0 0 0 0" Properties=species:S:1:pos:R:3\nCu 0 0 0\n' > "$TMP/zero.extxyz"
expect_error "all-zero Lattice" "line 2, column 9: comment line: Lattice is all zeros" "$CLI" atoms convert "$TMP/zero.extxyz" "$TMP/o.data"
: > "$TMP/empty.dump"
expect_error "empty dump" "no frame to write" "$CLI" atoms convert "$TMP/empty.dump" "$TMP/o.xyz"
: > "$TMP/empty.extxyz"
expect_error "empty extxyz" "no frame to write" "$CLI" atoms convert "$TMP/empty.extxyz" "$TMP/o.dump"
ok test ! -e "$TMP/o.xyz"
ok test ! -e "$TMP/o.dump"
printf '2\nLattice="5 0 0 0 5 0 0 0 5" Properties=species:S:1:pos:R:3\nCu 0 0 0\nXx 1 1 1\n' > "$TMP/xx.extxyz"
expect_error "unknown element" "atom type 2 (element 'Xx') has no known mass while other types have one" \
    "$CLI" atoms convert "$TMP/xx.extxyz" "$TMP/xx.data"
check "unknown element with --masses" "$CLI" atoms convert "$TMP/xx.extxyz" "$TMP/xx.data" --masses 63.5,10
ok grep -q '^2 10 # Xx$' "$TMP/xx.data"
gzip -c "$DATA500" > "$TMP/g.data.gz"
cp "$TMP/g.data.gz" "$TMP/junk.data.gz"; printf 'junk' >> "$TMP/junk.data.gz"
expect_error "junk after gzip" "4 bytes after the last gzip member are not gzip data" "$CLI" atoms info "$TMP/junk.data.gz"
cp "$TMP/g.data.gz" "$TMP/pad.data.gz"; head -c 512 /dev/zero >> "$TMP/pad.data.gz"
check "zero padding after gzip" "$CLI" atoms info "$TMP/pad.data.gz"

# 9. Options out of range.
expect_error "--threads 0" "--threads must be between 1 and 65536, not 0" "$CLI" stats "$EXAMPLE" --threads 0
expect_error "--threads -5" "not -5" "$CLI" stats "$EXAMPLE" --threads -5
expect_error "--threads huge" "not 99999999999999" "$CLI" stats "$EXAMPLE" --threads 99999999999999
expect_error "--gzip-level 42" "--gzip-level must be between 0 and 9" \
    "$CLI" atoms convert "$DUMP" "$TMP/x.xyz.gz" --gzip-level 42
expect_error "project --threads 0" "--threads must be between" "$CLI" project "$EXAMPLE" --threads 0 -o "$TMP/p.npy"

# 7. Messages that say what is wrong.
expect_error "--xrange nan" "xrange: the ends must be finite numbers" "$CLI" stats "$EXAMPLE" --xrange nan 0.5
mkdir -p "$TMP/bigint"; cp -r "$EXAMPLE" "$TMP/bigint/"
sed -i 's/^levelmax    =          8/levelmax    = 3000000000/' "$TMP/bigint/output_00002/info_00002.txt"
expect_error "info integer above int" "levelmax = '3000000000' is out of range" \
    "$CLI" stats "$TMP/bigint/output_00002"

{ printf '\xEF\xBB\xBF'; cat "$DUMP"; } > "$TMP/bom.dump"
check "byte-order mark skipped" "$CLI" atoms convert "$TMP/bom.dump" "$TMP/bom.extxyz"
ok cmp -s "$TMP/bom.extxyz" "$TMP/stdout.extxyz"
mkdir -p "$TMP/bom"; cp -r "$EXAMPLE" "$TMP/bom/"
{ printf '\xEF\xBB\xBF'; cat "$EXAMPLE/info_00002.txt"; } > "$TMP/bom/output_00002/info_00002.txt"
check "info file with a byte-order mark" "$CLI" stats "$TMP/bom/output_00002"
# An unreadable output folder (mode 000) is unreadable, not "no info file";
# root reads it anyway, so this runs as nobody where nobody can run the CLI.
if su nobody -s /bin/sh -c "'$(realpath "$CLI")' --version" > /dev/null 2>&1; then
    mkdir -p "$TMP/locked"; cp -r "$EXAMPLE" "$TMP/locked/"; chmod 000 "$TMP/locked/output_00002"
    chmod 755 "$TMP"
    expect_error "mode 000 folder" "info_00002.txt: cannot read: Permission denied" \
        su nobody -s /bin/sh -c "'$(realpath "$CLI")' stats '$TMP/locked/output_00002'"
    chmod 755 "$TMP/locked/output_00002"
else
    echo "SKIP: the mode-000 case (nobody cannot run $CLI here)"
fi

# 3. Several outputs: one that cannot be written fails the command first.
mkdir -p "$TMP/maps/sd"; echo old > "$TMP/maps/sd/map.npy"
expect_error "second map unwritable" "maps/mass/map.npy" \
    "$CLI" project "$EXAMPLE" --vars sd,mass -o "$TMP/maps/{var}/map.npy"
ok grep -q '^old$' "$TMP/maps/sd/map.npy"

# Also: a reader of a .snapkit file that is being replaced reads the old
# file or the new one, never a mix (rows of the full file or of the lmax 6 one).
check "convert lmax 6" "$CLI" convert "$EXAMPLE" -o "$TMP/six.snapkit" --lmax 6
check "convert full" "$CLI" convert "$EXAMPLE" -o "$TMP/swap.snapkit"
full=$("$CLI" stats "$TMP/g.snapkit" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
six=$("$CLI" stats "$TMP/six.snapkit" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
( for i in 1 2 3 4 5 6 7 8; do
      "$CLI" convert "$EXAMPLE" -o "$TMP/swap.snapkit" --lmax 6 > /dev/null 2>&1
      "$CLI" convert "$EXAMPLE" -o "$TMP/swap.snapkit" > /dev/null 2>&1
  done ) &
writer=$!
while kill -0 $writer 2> /dev/null; do
    rows=$("$CLI" stats "$TMP/swap.snapkit" --json 2> "$TMP/err" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])' 2> /dev/null)
    if [[ "$rows" != "$full" && "$rows" != "$six" ]]; then
        echo "FAIL: a read during replacement gave '$rows' rows ($full or $six expected)"; cat "$TMP/err"; fail=1
        break
    fi
done
wait $writer
no_temporaries "$TMP"

# 5. A conversion ended by SIGINT or SIGTERM leaves no temporary file, and
# the target it would have replaced stays whole.
"$CLI" make-ramses "$TMP/big/output_00001" --ncpu 16 --levelmin 5 --levelmax 9 \
    --cells-target 300000 --npart 100000 > /dev/null 2>&1 || { echo "FAIL: make-ramses"; fail=1; }
cp "$TMP/g.snapkit" "$TMP/big/target.snapkit"
for sig in INT TERM; do
    "$CLI" convert "$TMP/big/output_00001" -o "$TMP/big/target.snapkit" > /dev/null 2>&1 &
    pid=$!
    sleep 0.3
    kill -s $sig $pid 2>/dev/null
    wait $pid
    no_temporaries "$TMP/big"
    check "target whole after SIG$sig" "$CLI" verify "$TMP/big/target.snapkit"
done
no_temporaries "$TMP"

# Issue 34, 1. A truth JSON that cannot be written (its commit fails) is one
# error line and a failure, not a double free; nothing half-written is left.
# (MALLOC_PERTURB_ fills freed memory, so a second free crashes every time.)
mkdir -p "$TMP/truth"
expect_error "--truth-json /dev/full" "/dev/full: write failed" \
    timeout 60 env MALLOC_PERTURB_=165 "$CLI" make-ramses "$TMP/truth/output_00001" --ncpu 2 --levelmin 3 --levelmax 4 \
    --truth-json /dev/full
MALLOC_PERTURB_=165 "$CLI" make-ramses "$TMP/truth/output_00002" --ncpu 2 --levelmin 3 \
    --levelmax 4 --truth-json /dev/full > /dev/null 2>&1
rc=$?; [[ $rc -ge 1 && $rc -lt 128 ]] || { echo "FAIL: --truth-json /dev/full exits $rc"; fail=1; }
no_temporaries "$TMP/truth"

# Issue 34, 2. A sweep point of a saved report with 0 threads, or threads
# that are not a number, is refused naming the file, never drawn forever.
"$CLI" bench report "$EXAMPLE" --stages sweep --max-threads 2 --runs 1 --out "$TMP/rep" \
    > /dev/null 2>&1 || { echo "FAIL: bench report"; fail=1; }
for bad in 0 '"two"' -4 1.5; do
    /usr/bin/python3 - "$TMP/rep/report.json" "$TMP/t.json" "$bad" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["sweep"]["points"][0]["threads"] = json.loads(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
    expect_error "bench plot, threads $bad" "t.json: sweep: point 1 has threads" \
        timeout 20 "$CLI" bench plot "$TMP/t.json" -o "$TMP/t.png"
    ok test ! -e "$TMP/t.png"
done
check "bench plot of a sound report" "$CLI" bench plot "$TMP/rep/report.json" -o "$TMP/sound.png"

# Issue 34, 3. Saved reports that are devices, FIFOs or too large are named
# at once, never read forever.
expect_error "bench plot /dev/zero" "/dev/zero: is a device" \
    timeout 20 "$CLI" bench plot /dev/zero -o "$TMP/z.png"
expect_error "bench compare /dev/zero" "/dev/zero: is a device" \
    timeout 20 "$CLI" bench compare /dev/zero "$TMP/rep/report.json"
mkfifo "$TMP/rep.fifo"
expect_error "bench compare FIFO" "rep.fifo: is a FIFO or pipe" \
    timeout 20 "$CLI" bench compare "$TMP/rep/report.json" "$TMP/rep.fifo"
expect_error "bench plot FIFO" "rep.fifo: is a FIFO or pipe" \
    timeout 20 "$CLI" bench plot "$TMP/rep.fifo" -o "$TMP/z.png"
truncate -s 5M "$TMP/huge.json"
expect_error "bench plot 5 MB" "huge.json: is larger than 4 MB" \
    timeout 20 "$CLI" bench plot "$TMP/huge.json" -o "$TMP/z.png"
rm -f "$TMP/huge.json"

# Issue 34, 7. Standard output that cannot be written fails the command.
to_full() { "$@" > /dev/full; }
expect_error "stats --json > /dev/full" "snapkit: cannot write standard output: No space left on device" \
    to_full "$CLI" stats "$EXAMPLE" --json
expect_error "info > /dev/full" "cannot write standard output" to_full "$CLI" info "$EXAMPLE"
expect_error "atoms info > /dev/full" "cannot write standard output" \
    to_full "$CLI" atoms info "$DATA/atoms/cu_fcc_500.dump"
expect_error "verify > /dev/full" "cannot write standard output" to_full "$CLI" verify "$TMP/g.snapkit"
expect_error "bench compare > /dev/full" "cannot write standard output" \
    to_full "$CLI" bench compare "$TMP/rep/report.json" "$TMP/rep/report.json"
expect_error "--version > /dev/full" "cannot write standard output" to_full "$CLI" --version

if [[ $fail -eq 0 ]]; then echo "hostile input: all checks passed"; fi
exit $fail
