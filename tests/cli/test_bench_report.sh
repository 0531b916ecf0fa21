#!/usr/bin/env bash
# snapkit bench read, sweep, outputs and report on the shipped example:
# numbers checked against the folder and yt's reference.json, every file of
# the report written, the JSON holding every stage's numbers, the figure a
# valid SVG (parsed as XML), PDF and PNG (decoded here with zlib) with one panel
# per stage, and the memory guard naming the lmax that fits.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
py=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }
example="$data/ramses/gravpart/output_00002"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bench read: rows as yt read them, result bytes from the column widths.
"$cli" bench read "$example" --threads 1 --runs 2 --json >"$tmp/read.json"
$py - "$tmp/read.json" "$example.reference.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["full"]
assert [c["name"] for c in r["components"]] == ["hydro", "gravity", "particles"]
for c in r["components"]:
    assert c["rows"] == ref[c["name"]]["rows"], (c["name"], c["rows"])
    assert c["runs"] == 2 and c["mean_seconds"] > 0 and c["stddev_seconds"] >= 0
    assert c["bytes_allocated"] >= c["bytes_result"] > 0 and c["peak_rss_bytes"] > 0
# cache_dropped: every component's files left the page cache, so each has a
# cold time; a component without one means a note says why.
assert all(c["cold_seconds"] is not None for c in r["components"]) == r["cache_dropped"]
h = r["components"][0]
assert h["bytes_result"] == h["rows"] * (4 * 4 + 8 * len(ref["hydro"]["columns"]))
assert r["cache_dropped"] or r["cache_note"]
PY

# bench sweep: says first how many full reads it does.
out=$("$cli" bench sweep "$example" --threads 1 --runs 2)
head -1 <<<"$out" | grep -qx "bench sweep: 3 full reads of hydro, gravity, particles (1 warm-up + 2 runs x 1 thread level)" \
    || fail "sweep announcement: $out"
grep -q "sweet spot 1" <<<"$out" || fail "sweep text: $out"
"$cli" bench sweep "$example" --threads 1 --runs 2 --component hydro --lmax 5 --json \
    >"$tmp/sweep.json" 2>"$tmp/sweep.err"
grep -q "3 full reads of hydro" "$tmp/sweep.err" || fail "sweep announcement with --json: $(cat "$tmp/sweep.err")"
$py -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert [p["threads"] for p in s["points"]] == [1] and s["points"][0]["runs"] == 2
assert s["fastest"] == s["sweet_spot"] == s["economical"] == 1
assert s["amdahl"]["parallel_fraction"] == 0 and s["amdahl"]["ceiling"] == 1
' "$tmp/sweep.json"

# bench outputs: both ways and their ratio.
"$cli" bench outputs "$example" "$data/ramses/sedov3d/output_00001" --budget 1 --json >"$tmp/outputs.json"
$py -c '
import json, sys
o = json.load(open(sys.argv[1]))
assert o["outputs"] == 2 and o["budget"] == 1 and o["threads_per_process"] == 1
assert o["processes_seconds"] > 0 and o["sequential_seconds"] > 0
assert abs(o["ratio"] - o["sequential_seconds"] / o["processes_seconds"]) < 1e-12
' "$tmp/outputs.json"

# bench project: four cases on the cells yt counted, at 2^levelmax pixels.
"$cli" bench project "$example" --threads 1 --runs 1 --vars sd,T --json >"$tmp/project.json"
$py - "$tmp/project.json" "$example.reference.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["full"]["hydro"]
assert p["rows"] == ref["rows"] and p["quantities"] == "sd,T"
assert p["nx"] == p["ny"] == 2 ** max(int(l) for l in ref["levels"])
assert [c["name"] for c in p["cases"]] == ["sd, axis z", "2 quantities, axis z",
                                          "sd, off-axis (1,2,3)", "2 quantities, off-axis (1,2,3)"]
for c in p["cases"]:
    pt = c["scaling"]["points"]
    assert [q["threads"] for q in pt] == [1] and pt[0]["seconds"] > 0 and pt[0]["peak_bytes"] > 0
# Two quantities hold more map memory than one.
assert p["cases"][1]["scaling"]["points"][0]["peak_bytes"] > p["cases"][0]["scaling"]["points"][0]["peak_bytes"]
PY
set +e
"$cli" bench project "$example" --vars nonsense --threads 1 --runs 1 2>"$tmp/err" >/dev/null; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "nonsense" "$tmp/err" || fail "unknown quantity: $(cat "$tmp/err")"

# bench report: every file, every stage's numbers, one panel per stage.
"$cli" bench report "$example" --stages sweep,storage,read,convert,project --max-threads 1 --runs 1 \
    --out "$tmp/report" >"$tmp/report.out"
grep -q "the stages below use the sweet spot: 1 thread" "$tmp/report.out" || fail "$(cat "$tmp/report.out")"
for f in report.txt report.csv report.json report.svg report.png report.pdf; do
    [[ -s "$tmp/report/$f" ]] || fail "$f not written"
done
$py - "$tmp/report" "$example" <<'PY'
import csv, json, os, struct, sys, zlib
import xml.etree.ElementTree as ET
d, example = sys.argv[1], sys.argv[2]
r = json.load(open(os.path.join(d, "report.json")))
assert set(r) == {"metadata", "machine", "source", "sweep", "storage", "read", "convert", "project"}, set(r)
files = [n for n in os.listdir(example) if os.path.isfile(os.path.join(example, n))]
assert r["source"]["files"] == len(files)
assert r["source"]["bytes"] == sum(os.path.getsize(os.path.join(example, n)) for n in files)
assert r["machine"]["logical_cpus"] == os.cpu_count() and r["machine"]["threads"]["owned"] >= 1
sw = r["sweep"]
for p in sw["points"]:
    assert set(p) >= {"threads", "seconds", "speedup", "efficiency", "spread"}
assert {"fastest", "sweet_spot", "economical"} <= set(sw)
assert {"parallel_fraction", "serial_seconds", "ceiling"} <= set(sw["amdahl"])
assert r["storage"]["points"] and r["read"]["components"]
cv = r["convert"]
for key in ("read_seconds", "write_seconds", "reread_seconds", "speedup", "break_even_rereads",
            "bytes_ramses", "bytes_file", "bytes_allocated_read", "bytes_allocated_write",
            "bytes_allocated_reread"):
    assert key in cv, key
assert not [n for n in os.listdir(d) if n.endswith(".snapkit")], "conversion file left behind"
rows = list(csv.DictReader(open(os.path.join(d, "report.csv"))))
assert {row["stage"] for row in rows} == {"machine", "sweep", "storage", "read", "convert", "project"}
assert len(r["project"]["cases"]) == 4
assert any(row["stage"] == "sweep" and row["quantity"] == "sweet_spot" and row["value"] == "1" for row in rows)
text = open(os.path.join(d, "report.txt")).read()
for word in ("machine", "source", "sweep", "storage", "read", "sweet spot", "break-even"):
    assert word in text, word

# The SVG: valid XML, a page with the PNG's size, its text drawn as glyphs.
svg = ET.parse(os.path.join(d, "report.svg")).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert svg.tag == ns + "svg", svg.tag
width, height = (float(svg.get(k).removesuffix("px")) for k in ("width", "height"))
assert svg.get("viewBox").split() == ["0", "0", svg.get("width")[:-2], svg.get("height")[:-2]]
glyphs = [u for u in svg.iter(ns + "use") if u.get("{http://www.w3.org/1999/xlink}href", "").startswith("#glyph")]
assert len(glyphs) > 500, len(glyphs)
pdf = open(os.path.join(d, "report.pdf"), "rb").read()
assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")

# The PNG, decoded by hand: chunk CRCs, IHDR, inflated and unfiltered rows.
data = open(os.path.join(d, "report.png"), "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, colour = ihdr[:4]
assert (w, h, depth, colour) == (width, height, 8, 2), (ihdr, width, height)
raw = zlib.decompress(idat)
stride = 3 * w
assert len(raw) == h * (stride + 1)
pixels, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 3] if i >= 3 else 0
        b = prev[i]
        c = prev[i - 3] if i >= 3 else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    pixels.append(bytes(line))
    prev = line
# One panel per stage, two columns under a 44-point title: five cells of the
# 2 x 3 grid hold ink, the sixth is blank page.
cells = [(col * w // 2, 44 + row * (h - 44) // 3) for row in range(3) for col in range(2)]
for k, (x0, y0) in enumerate(cells):
    dark = sum(1 for yy in range(y0 + 10, y0 + (h - 44) // 3 - 10)
               for xx in range(x0 + 10, x0 + w // 2 - 10) if pixels[yy][3 * xx] < 0x80)
    assert (dark > 500) == (k < 5), (k, dark)
PY

# The memory guard: the lmax it names is the finest whose cells (yt's leaf
# counts per level) and particle files fit in 60% of --memory.
set +e
"$cli" bench report "$example" --stages read --memory 3M --out "$tmp/refused" 2>"$tmp/guard.err" >/dev/null
rc=$?
set -e
[[ $rc == 1 ]] || fail "guard: exit $rc"
[[ ! -e "$tmp/refused" ]] || fail "guard: a refused report wrote files"
$py - "$tmp/guard.err" "$example" <<'PY'
import json, os, re, sys
msg = open(sys.argv[1]).read()
example = sys.argv[2]
ref = json.load(open(example + ".reference.json"))["full"]
leaves = {int(k): v for k, v in ref["hydro"]["levels"].items()}
top = max(leaves)
cells = {top: leaves[top]}
for l in range(top - 1, 0, -1):
    cells[l] = leaves.get(l, 0) + cells[l + 1] // 8
part = sum(os.path.getsize(os.path.join(example, n)) for n in os.listdir(example) if n.startswith("part_"))
nvar = len(ref["hydro"]["columns"])
def need(lmax):
    rows = sum(leaves.get(l, 0) for l in range(1, lmax)) + cells[lmax]
    return rows * (16 + 8 * nvar) + rows * (16 + 32) + part
limit = 0.6 * 3 * 1024 ** 2
fits = max(l for l in range(1, top) if need(l) <= limit)
assert need(top) > limit
m = re.search(r"--lmax (\d+) fits", msg)
assert m and int(m.group(1)) == fits, (msg, fits)
assert "more than 60% of the" in msg
PY
# The ranks stage run alone: skipped with the launch to use, the other
# stages and the report still made, no "ranks" in it.
out=$("$cli" bench report "$example" --stages read,ranks --runs 1 --out "$tmp/alone")
grep -q "^ranks: skipped, the grid of ranks x threads needs several MPI ranks: mpirun -np N snapkit bench report $example --stages ranks" <<<"$out" \
    || fail "ranks alone: $out"
$py - "$tmp/alone/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert "read" in r and "ranks" not in r, sorted(r)
PY

echo "bench report: ok"
