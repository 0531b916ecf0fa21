#!/usr/bin/env bash
# snapkit convert, verify, and info/stats on .snapkit files: summaries, the
# same statistics as on the output, one-line errors for damaged files, and
# an interrupted conversion that leaves the old file as it was.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
out=$data/ramses/gravpart/output_00002
other=$data/ramses/sedov3d/output_00001
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
file=$tmp/g.snapkit

# convert: one summary line with rows per table and bytes before and after.
"$cli" convert "$out" -o "$file" > "$tmp/convert.txt"
[[ $(wc -l < "$tmp/convert.txt") -eq 1 ]] || fail "convert prints more than one line"
grep -Eq "hydro 45487 rows, gravity 45487 rows, particles 3335 rows; .* of RAMSES files -> .* \(" \
    "$tmp/convert.txt" || fail "convert summary: $(cat "$tmp/convert.txt")"
"$cli" convert "$out" -o "$tmp/c.snapkit" --components hydro --with-coarse --no-compress \
    --lmax 7 --json > "$tmp/convert.json"
$py - "$tmp/convert.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d["rows"]) == ["hydro"], d
assert d["refined_rows"]["hydro"] > 0 and d["bytes_file"] < d["bytes_source"]
PY

# --vars goes to the components that have the variables.
"$cli" convert "$out" -o "$tmp/v.snapkit" --vars density,mass --xrange 0.3 0.7 --json > "$tmp/v.json"
$py -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d['rows']) == ['hydro', 'particles'], d" "$tmp/v.json"
"$cli" verify "$out" "$tmp/v.snapkit" > /dev/null || fail "verify of a --vars file"
"$cli" stats "$tmp/v.snapkit" --component particles --json | grep -q '"columns":{"mass"' \
    || fail "particles of a --vars file"
if "$cli" convert "$out" -o "$tmp/x.snapkit" --vars density,nope 2> "$tmp/err.txt"; then
    fail "convert with an unknown variable"
fi
grep -q "no component converted has a variable nope" "$tmp/err.txt" || fail "unknown variable message"

# verify: exit 0 and one line when all is well.
"$cli" verify "$out" "$file" > "$tmp/verify.txt" || fail "verify of a good file"
grep -q "every checksum good; same data as" "$tmp/verify.txt" || fail "verify text"
"$cli" verify "$tmp/c.snapkit" > /dev/null || fail "verify without the output"
"$cli" verify "$out" "$tmp/c.snapkit" > /dev/null || fail "verify of a capped file"

# ... and one line saying what differs when it is not.
if "$cli" verify "$other" "$file" 2> "$tmp/err.txt"; then fail "verify against another output"; fi
[[ $(wc -l < "$tmp/err.txt") -eq 1 ]] || fail "verify: more than one line"
grep -q "differs from $other: hydro: " "$tmp/err.txt" || fail "verify message: $(cat "$tmp/err.txt")"
cp "$file" "$tmp/bad.snapkit"
printf '\x55' | dd of="$tmp/bad.snapkit" bs=1 seek=5000 conv=notrunc status=none
if "$cli" verify "$out" "$tmp/bad.snapkit" 2> "$tmp/err.txt"; then fail "verify of a damaged file"; fi
grep -Eq "^snapkit: .*bad.snapkit: byte [0-9]+: table hydro, chunk 1 of [0-9]+, column .*: checksum mismatch" \
    "$tmp/err.txt" || fail "damage message: $(cat "$tmp/err.txt")"
if "$cli" stats "$tmp/bad.snapkit" --recompute 2> "$tmp/err.txt"; then fail "stats of a damaged file"; fi
grep -q "checksum mismatch" "$tmp/err.txt" || fail "stats on damage"
head -c 100000 "$file" > "$tmp/short.snapkit"
if "$cli" info "$tmp/short.snapkit" 2> "$tmp/err.txt"; then fail "info of a truncated file"; fi
grep -q "truncated" "$tmp/err.txt" || fail "truncation message: $(cat "$tmp/err.txt")"

# stats and info: what they say about the output, with chunks_read.
for args in "--component hydro" "--component particles --xrange 0.4 0.6" \
            "--component gravity --xrange -0.1 0.1 --center bc --vars potential"; do
    # shellcheck disable=SC2086
    "$cli" stats "$out" $args --json > "$tmp/a.json"
    # shellcheck disable=SC2086
    "$cli" stats "$file" $args --json > "$tmp/b.json"
    # shellcheck disable=SC2086
    "$cli" stats "$file" $args --recompute --json > "$tmp/c.json"
    $py - "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" <<'PY'
import json, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:])
assert "chunks_read" in c and "files_opened" not in c and not c["stored"]
# Without a selection the file's stored statistics, no chunk read.
assert b["stored"] == (b["chunks_read"] == 0) and b["result_bytes"] == 0 or not b["stored"]
for d in (a, b, c):
    for k in ("seconds", "bytes_allocated", "files_opened", "chunks_read", "stored",
              "result_bytes"):
        d.pop(k, None)
assert a == b == c, (a, b, c)
PY
done
# Stored statistics serve every selection that keeps all the rows: --vars
# picks columns, a box over the whole box or a cap at the top level drops
# nothing; a box that cuts reads the chunks.
for args in "--vars density" "--xrange 0 1 --lmax 30" "--component particles --vars mass"; do
    # shellcheck disable=SC2086
    "$cli" stats "$file" $args --json | grep -q '"stored":true' || fail "stats $args: not stored"
done
"$cli" stats "$file" --xrange 0.2 0.5 --json | grep -q '"stored":false' || fail "stats of a cut box"
"$cli" stats "$file" --component hydro > "$tmp/stats.txt"
grep -Eq "^hydro: 45487 rows; statistics stored in the file, 0 of [0-9]+ chunks read" \
    "$tmp/stats.txt" || fail "stats text, stored: $(head -1 "$tmp/stats.txt")"
"$cli" stats "$file" --component hydro --recompute > "$tmp/stats.txt"
grep -Eq "^hydro: 45487 rows from [0-9]+ of [0-9]+ chunks" "$tmp/stats.txt" || fail "stats text"
"$cli" info "$file" > "$tmp/info.txt"
grep -q "lmax filters the leaves" "$tmp/info.txt" || fail "info: lmax semantics"
"$cli" info "$tmp/c.snapkit" | grep -q "lmax reads are exact" || fail "info: with coarse"
grep -q "^statistics stored (stats of every row reads no chunk): hydro gravity particles$" \
    "$tmp/info.txt" || fail "info: stored statistics"
"$cli" info "$tmp/c.snapkit" | grep -q "^statistics stored (stats of every row reads no chunk): none$" ||
    fail "info: a table with refined cells has no stored statistics"
"$cli" info "$file" --json | $py -c "
import json, sys
d = json.load(sys.stdin)
assert d['store']['tables']['hydro']['rows'] == 45487 and d['components']['particles']
assert d['info']['ncpu'] == 8 and d['store']['format_version'] == '1.1'"

# An interrupted conversion (writes fail midway, as on a full disk) leaves
# the old file untouched and no temporary file behind.
cp "$file" "$tmp/before.snapkit"
for n in 0 100000 2000000; do
    if "$cli" convert "$out" -o "$file" --fail-after-bytes $n 2> "$tmp/err.txt"; then
        fail "convert did not fail after $n bytes"
    fi
    grep -q "No space left on device" "$tmp/err.txt" || fail "interrupted: $(cat "$tmp/err.txt")"
    cmp -s "$file" "$tmp/before.snapkit" || fail "the old file changed ($n bytes)"
    ! ls "$tmp" | grep -q "\.tmp\." || fail "a temporary file was left ($n bytes)"
done
"$cli" verify "$out" "$file" > /dev/null || fail "the old file no longer verifies"

# Usage errors.
if "$cli" convert "$out" 2> "$tmp/err.txt"; then fail "convert without -o"; fi
grep -q "missing -o FILE.snapkit" "$tmp/err.txt" || fail "convert usage"
if "$cli" convert "$out" -o "$tmp/nope/x.snapkit" 2> "$tmp/err.txt"; then fail "convert into a missing folder"; fi
grep -q "cannot create a temporary file" "$tmp/err.txt" || fail "convert into a missing folder: $(cat "$tmp/err.txt")"
if "$cli" convert "$out" -o "$tmp/x.snapkit" --components stars 2> "$tmp/err.txt"; then fail "bad component"; fi
grep -q "unknown component 'stars'" "$tmp/err.txt" || fail "bad component message"
# (into a file: grep -q on a pipe may stop reading before a long help's
# last write, which then fails with SIGPIPE)
"$cli" convert --help > "$tmp/help.txt" && grep -q -- "--with-coarse" "$tmp/help.txt" ||
    fail "convert --help"
"$cli" verify --help > "$tmp/help.txt" && grep -q "OUTPUT_DIR" "$tmp/help.txt" || fail "verify --help"
echo "ok"
