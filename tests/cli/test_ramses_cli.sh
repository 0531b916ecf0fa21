#!/usr/bin/env bash
# snapkit info and snapkit stats on the shipped RAMSES example, and bad input:
# exit status non-zero with one line naming the file.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
out=$data/ramses/gravpart/output_00002
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# info: text and JSON with every info key, descriptors, files per component.
"$cli" info "$out" > "$tmp/info.txt"
grep -q "unit_t" "$tmp/info.txt" || fail "info text lacks unit_t"
grep -q "hydro           8" "$tmp/info.txt" || fail "info text lacks hydro files"
"$cli" info "$out" --json > "$tmp/info.json"
$py - "$tmp/info.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
info = d["info"]
for k in ("ncpu", "ndim", "levelmin", "levelmax", "ngridmax", "nstep_coarse", "boxlen", "time",
          "aexp", "H0", "omega_m", "omega_l", "omega_k", "omega_b", "unit_l", "unit_d", "unit_t",
          "ordering type"):
    assert k in info, k
assert info["ncpu"] == 8 and info["levelmin"] == 4 and info["ordering type"] == "hilbert"
assert info["bound_key"][-1] == 134217728 and len(info["bound_key"]) == 9
assert d["header"]["counts"]["DM"] == 2000 and d["header"]["counts"]["star"] == 1335
assert "&AMR_PARAMS" in d["namelist"]
assert [v["name"] for v in d["hydro_descriptor"]["variables"]][-1] == "metallicity"
assert d["part_descriptor"]["variables"][9] == {"name": "family", "type": "b"}
assert d["components"] == {"amr": True, "hydro": True, "gravity": True, "particles": True,
                           "rt": False, "clump_field": False, "sinks": False, "clumps": False}
disk = d["disk"]
assert disk["hydro"]["files"] == 8 and disk["particles"]["files"] == 8
kinds = ("amr", "hydro", "gravity", "particles", "rt", "clump_field", "sinks", "clumps", "other")
assert set(disk) == set(kinds) | {"total"}
assert abs(sum(disk[k]["percent"] for k in kinds) - 100) < 1e-9
assert disk["total"]["bytes"] == sum(disk[k]["bytes"] for k in kinds)
PY

# stats: JSON shape; text output; selections and threads.
"$cli" stats "$out" --component particles --json > "$tmp/p.json"
$py - "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"component", "rows", "columns", "files_opened", "seconds", "result_bytes",
                  "bytes_allocated", "ranks", "stored"}, set(d)
assert d["stored"] is False  # a RAMSES output stores no statistics
assert d["ranks"] == 1  # one process: no launcher, no MPI
assert d["rows"] == 3335 and d["columns"]["family"]["max"] == 2
assert set(d["columns"]["mass"]) == {"min", "max", "sum"}
PY
"$cli" stats "$out" --component hydro --lmax 6 --xrange -0.1 0.1 --yrange -0.1 0.1 \
    --zrange -0.05 0.05 --center bc --vars density --threads 1 --json > "$tmp/h.json"
$py - "$tmp/h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d["columns"]) == ["density"] and set(d["levels"]) <= {"4", "5", "6"}
assert d["rows"] == sum(d["levels"].values()) > 0
assert set(d["columns"]["density"]) == {"min", "max", "sum", "volume_sum"}
PY
"$cli" stats "$out" > "$tmp/stats.txt"
grep -q "^hydro: 45487 rows from 8 of 8 files" "$tmp/stats.txt" || fail "stats text"
grep -q "^density " "$tmp/stats.txt" || fail "stats text lacks density"
# (into files: grep -q would stop reading a help longer than a pipe's
# first write, and snapkit's next write would then fail with SIGPIPE)
"$cli" stats --help > "$tmp/help.txt" && grep -q -- "--component" "$tmp/help.txt" || fail "stats --help"
"$cli" info --help > "$tmp/help.txt" && grep -q -- "--json" "$tmp/help.txt" || fail "info --help"

# Bad input: non-zero exit and exactly one line naming the file.
one_line_error() {
    local want=$1; shift
    if "$@" > "$tmp/out" 2> "$tmp/err"; then fail "$* succeeded"; fi
    [[ $(wc -l < "$tmp/err") -eq 1 ]] || fail "$*: not one line: $(cat "$tmp/err")"
    grep -q "^snapkit: .*$want" "$tmp/err" || fail "$*: '$want' not in $(cat "$tmp/err")"
}
one_line_error "/nonexistent/output_00001: cannot open" "$cli" info /nonexistent/output_00001
mkdir "$tmp/empty"
one_line_error "empty: not a RAMSES output" "$cli" stats "$tmp/empty"
cp -r "$out" "$tmp/broken"
truncate -s 100000 "$tmp/broken/hydro_00002.out00005"
one_line_error "hydro_00002.out00005: record .* truncated" "$cli" stats "$tmp/broken"
printf '\x05\x00\x00\x00' | dd of="$tmp/broken/amr_00002.out00003" bs=1 seek=8 conv=notrunc status=none
one_line_error "amr_00002.out00003: record 1 at byte 0: record markers disagree" \
    "$cli" stats "$tmp/broken" --component gravity
cp "$out/amr_00002.out00003" "$tmp/broken/"
rm "$tmp/broken/grav_00002.out00002" "$tmp/broken/hydro_00002.out00005"
one_line_error "grav_00002.out00002: cannot open" "$cli" stats "$tmp/broken" --component gravity
sed -i 's/^ 2, velocity_x, d/ 2, velocity x, d/' "$tmp/broken/hydro_file_descriptor.txt"
one_line_error "hydro_file_descriptor.txt: line 4" "$cli" info "$tmp/broken"
sed -i 's/^ncpu        =          8/ncpu        =          4/' "$tmp/broken/info_00002.txt"
one_line_error "info_00002.txt: ncpu = 4 but the folder holds 8" "$cli" info "$tmp/broken"
one_line_error "no gravity" "$cli" stats "$data/ramses/sedov3d/output_00001" --component gravity
one_line_error "unknown component 'gas'" "$cli" stats "$out" --component gas
if "$cli" stats "$out" --lmax x 2> /dev/null; then fail "--lmax x accepted"; fi
echo "test_ramses_cli: ok"
