#!/usr/bin/env bash
# snapkit project on the shipped RAMSES example: FITS, .npy, figures (PNG,
# SVG, PDF) and bare PNG output, --json, geometry options, particles, and
# one-line errors for bad input.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
out=$data/ramses/gravpart/output_00002
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# FITS with four quantities, --json: the projected mass is the cells' mass
# (yt's total in reference.json) and every file named exists.
"$cli" project "$out" --vars sd,T,velocity_x,count --unit K -o "$tmp/maps.fits" --json > "$tmp/f.json"
$py - "$tmp/f.json" "$out.reference.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["full"]["hydro"]["columns"]["density"]["volume_sum"]
for k in ("files", "extent", "pixel_size", "deposited", "seconds", "read_seconds", "maps", "nx"):
    assert k in d, k
assert [m["name"] for m in d["maps"]] == d["quantities"] == ["sd", "T", "velocity_x", "count"]
assert [m["unit"] for m in d["maps"]] == ["code", "K", "code", "count"]
assert d["nx"] == d["ny"] == 256 and d["extent"] == [0, 1, 0, 1] and d["pixel_size"] == 1 / 256
assert d["deposited"] == d["rows"] == 45487 and d["kernel"] == "area" and d["axis"] == "z"
assert abs(d["projected_mass"] - ref) <= 1e-12 * ref, (d["projected_mass"], ref)
assert d["seconds"] > 0 and all(os.path.getsize(f) > 0 for f in d["files"])
raw = open(d["files"][0], "rb").read()
assert len(raw) % 2880 == 0 and raw.startswith(b"SIMPLE  =")
assert raw.count(b"XTENSION= 'IMAGE   '") == 4 and b"EXTNAME = 'velocity_x'" in raw
PY

# .npy per quantity along x in a region: the window holds its share of res.
"$cli" project "$out" --vars sd,velocity_y --axis x --res 64 --yrange 0.25 0.75 \
    --zrange 0.5 1 -o "$tmp/x_{var}.npy" > "$tmp/x.txt"
grep -q "^wrote $tmp/x_velocity_y.npy" "$tmp/x.txt" || fail "npy text: $(cat "$tmp/x.txt")"
$py - "$tmp" <<'PY'
import sys, numpy as np
sd = np.load(sys.argv[1] + "/x_sd.npy")
assert sd.shape == (32, 32), sd.shape  # rows along z (0.5..1), columns along y (0.25..0.75)
assert sd.dtype == np.float64 and np.all(sd > 0)
PY

# Off-axis along (0, 0, 1) with the exact kernel is the z projection.
"$cli" project "$out" --vars sd --res 64 -o "$tmp/z.npy" > /dev/null
"$cli" project "$out" --vars sd --res 64 --direction 0 0 1 --kernel exact -o "$tmp/d.npy" > /dev/null
"$cli" project "$out" --vars sd --res 64 --angles 30 45 --threads 1 -o "$tmp/a.npy" --json > "$tmp/a.json"
$py - "$tmp" <<'PY'
import json, sys, numpy as np
z, d = np.load(sys.argv[1] + "/z.npy"), np.load(sys.argv[1] + "/d.npy")
assert np.max(np.abs(z - d)) <= 1e-12 * z.max()
a = json.load(open(sys.argv[1] + "/a.json"))
assert a["axis"] == "direction" and a["kernel"] == "overlap" and a["threads"] == 1
assert abs(a["projected_mass"] - a["selected_mass"]) <= 1e-12 * a["selected_mass"]
PY

# A .snapkit file of the output projects to the same maps (rows in another
# order: equal to rounding).
"$cli" convert "$out" -o "$tmp/g.snapkit" > /dev/null
"$cli" project "$tmp/g.snapkit" --vars sd,T,count --res 64 -o "$tmp/k_{var}.npy" > /dev/null
"$cli" project "$out" --vars sd,T,count --res 64 -o "$tmp/o_{var}.npy" > /dev/null
$py - "$tmp" <<'PY'
import sys, numpy as np
for q in ("sd", "T", "count"):
    a, b = np.load(f"{sys.argv[1]}/k_{q}.npy"), np.load(f"{sys.argv[1]}/o_{q}.npy")
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.nanmax(np.abs(a - b)) <= 1e-12 * np.nanmax(np.abs(b)), q
PY

# PNG figures (the map with axes, colour bar and title) with their sidecars;
# --raw gives the bare map, one pixel per map pixel, with the same sidecar.
"$cli" project "$out" --vars sd,T --unit Msun/pc2 --unit K -o "$tmp/p_{var}.png" > "$tmp/p.txt"
grep -q "^wrote $tmp/p_T.png.json" "$tmp/p.txt" || fail "figure text: $(cat "$tmp/p.txt")"
"$cli" project "$out" --vars sd,T --unit Msun/pc2 --unit K -o "$tmp/r_{var}.png" --raw > /dev/null
"$cli" project "$out" --vars sd --unit Msun/pc2 -o "$tmp/f.svg" > /dev/null
"$cli" project "$out" --vars sd --res 64 --axis x --unit Msun/pc2 -o "$tmp/f.pdf" > /dev/null
$py - "$tmp" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
def png_header(path):
    raw = open(path, "rb").read()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR", path
    return int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big"), raw[24], raw[25]
# the fixture has cells of negative pressure, so T is drawn on a linear scale
for q, unit, scale in (("sd", "Msun/pc2", "log"), ("T", "K", "linear")):
    w, h, depth, colour = png_header(f"{d}/p_{q}.png")
    assert w > 256 + 150 and h > 256 + 80 and (depth, colour) == (8, 2), (q, w, h, depth, colour)
    assert png_header(f"{d}/r_{q}.png") == (256, 256, 8, 6), q  # RGBA, one pixel per map pixel
    fig, raw = (json.load(open(f"{d}/{k}_{q}.png.json")) for k in ("p", "r"))
    assert fig["figure"] is True and raw["figure"] is False
    for side in (fig, raw):
        assert side["unit"] == unit and side["scale"] == scale and side["vmin"] < side["vmax"], side
    for k in ("vmin", "vmax"):  # two runs: threads may sum in another order
        assert abs(fig[k] - raw[k]) <= 1e-12 * max(abs(raw["vmin"]), abs(raw["vmax"])), k
# SVG: XML, a page like the PNG's, its text drawn as glyphs; PDF.
svg = ET.parse(f"{d}/f.svg").getroot()
assert svg.tag == "{http://www.w3.org/2000/svg}svg"
assert (int(svg.get("width")[:-2]), int(svg.get("height")[:-2])) == png_header(f"{d}/p_sd.png")[:2]
assert sum(1 for u in svg.iter("{http://www.w3.org/2000/svg}use")) > 50
assert json.load(open(f"{d}/f.svg.json"))["figure"] is True
pdf = open(f"{d}/f.pdf", "rb").read()
assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
PY

# Particles: stars only, NGP; their mass lands on the map.
"$cli" project "$out" --component particles --family star --vars mass,count --kernel ngp \
    --res 32 -o "$tmp/stars.fits" --json > "$tmp/s.json"
$py - "$tmp/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "particles" and d["selected"] == 1335 and d["deposited"] == 1335
assert abs(d["projected_mass"] - d["selected_mass"]) <= 1e-12 * d["selected_mass"]
PY

"$cli" project --help > "$tmp/help.txt"  # grep -q on a pipe would SIGPIPE a help longer than one buffer
grep -q -- "--direction NX NY NZ" "$tmp/help.txt" || fail "project --help"
"$cli" --help > "$tmp/help.txt" && grep -q "^  project" "$tmp/help.txt" || fail "project not listed"

# Bad input: non-zero exit and exactly one line.
one_line_error() {
    local want=$1; shift
    if "$@" > "$tmp/out" 2> "$tmp/err"; then fail "$* succeeded"; fi
    [[ $(wc -l < "$tmp/err") -eq 1 ]] || fail "$*: not one line: $(cat "$tmp/err")"
    grep -q "^snapkit.*$want" "$tmp/err" || fail "$*: '$want' not in $(cat "$tmp/err")"
}
one_line_error "unknown quantity 'nope'" "$cli" project "$out" --vars sd,nope -o "$tmp/e.fits"
one_line_error "res must be between 1" "$cli" project "$out" --res 0 -o "$tmp/e.fits"
one_line_error "map of 1 quantity needs 4.0 TB, more than the memory budget" \
    "$cli" project "$out" --res 500000 -o "$tmp/e.fits"
one_line_error "selection holds none" "$cli" project "$out" --xrange 0.3 0.3001 -o "$tmp/e.fits"
one_line_error "zero length" "$cli" project "$out" --direction 0 0 0 -o "$tmp/e.fits"
one_line_error "put {var} in the name" "$cli" project "$out" --vars sd,T -o "$tmp/e.npy"
one_line_error "must end in .fits, .h5, .npy, .png, .svg or .pdf" "$cli" project "$out" -o "$tmp/e.txt"
one_line_error "must end in .fits, .h5, .npy or .png" "$cli" project "$out" --raw -o "$tmp/e.svg"
one_line_error "no output given" "$cli" project "$out"
one_line_error "unit 'parsec' fits none" "$cli" project "$out" --unit parsec -o "$tmp/e.fits"
SNAPKIT_CFITSIO=/no/such/libcfitsio.so one_line_error \
    "writing FITS needs cfitsio, and /no/such/libcfitsio.so cannot be loaded" \
    "$cli" project "$out" --res 16 -o "$tmp/e.fits"
[[ ! -e "$tmp/e.fits" && ! -e "$tmp/e.npy" && ! -e "$tmp/e.svg" ]] || fail "a failed run left a file"

SNAPKIT_CAIRO=/no/such/libcairo.so one_line_error \
    "drawing figures needs cairo, and /no/such/libcairo.so cannot be loaded" \
    "$cli" project "$out" --res 16 -o "$tmp/e.png"
[[ ! -e "$tmp/e.png" ]] || fail "a failed figure left a file"
SNAPKIT_CAIRO=/no/such/libcairo.so "$cli" project "$out" --res 16 --raw -o "$tmp/raw.png" \
    >/dev/null || fail "a raw PNG map (libpng, no figure) needed cairo"

# cfitsio (and the libcurl, GnuTLS and Kerberos it brings) is loaded only
# by a command that writes FITS, cairo (and X11, fontconfig, freetype) only
# by one that draws a figure: the others start without them.
loads() { LD_DEBUG=libs "${@:2}" 2>&1 >/dev/null | grep -c "calling init: .*lib$1" || true; }
[[ $(loads cfitsio "$cli" stats "$out") -eq 0 ]] || fail "stats loaded cfitsio"
[[ $(loads cfitsio "$cli" project "$out" --res 16 -o "$tmp/l.npy") -eq 0 ]] || fail "an .npy map loaded cfitsio"
[[ $(loads cfitsio "$cli" project "$out" --res 16 -o "$tmp/l.fits") -eq 1 ]] || fail "a FITS map did not load cfitsio"
[[ $(loads cairo "$cli" stats "$out") -eq 0 ]] || fail "stats loaded cairo"
[[ $(loads cairo "$cli" project "$out" --res 16 -o "$tmp/l.fits") -eq 0 ]] || fail "a FITS map loaded cairo"
[[ $(loads cairo "$cli" project "$out" --res 16 -o "$tmp/l.png") -eq 1 ]] || fail "a PNG figure did not load cairo"
echo "project CLI: all checks passed"
