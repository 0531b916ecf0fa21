#!/usr/bin/env bash
# snapkit bench plot: a saved report redrawn without measuring gives the
# same figure, byte for byte (PNG), and the same text as the run wrote;
# the efficiency panel and the economical point's cost; errors.
set -euo pipefail
source "$(dirname "$0")/bench_setup.sh"

# Every stage, two thread levels (so the efficiency panel is drawn).
"$cli" bench report "$example" --stages sweep,storage,read,convert,project,lmax --max-threads 2 \
    --runs 1 --lmax 7 --out "$tmp/rep" >/dev/null 2>&1
"$cli" bench plot "$tmp/rep/report.json" -o "$tmp/again.png" --text >"$tmp/again.txt" 2>/dev/null
cmp "$tmp/again.png" "$tmp/rep/report.png" || fail "the redrawn PNG differs from the run's"
diff "$tmp/again.txt" "$tmp/rep/report.txt" >/dev/null || fail "text: $(diff "$tmp/again.txt" "$tmp/rep/report.txt" | head)"
"$cli" bench plot "$tmp/rep/report.json" -o "$tmp/again.svg" >/dev/null
"$cli" bench plot "$tmp/rep/report.json" -o "$tmp/again.pdf" >/dev/null
cp "$tmp/rep/report.json" "$tmp/saved.json"
"$cli" bench plot "$tmp/saved.json" >/dev/null   # default: saved.png beside it
$py - "$tmp" <<'PY'
import json, os, sys, xml.dom.minidom
tmp = sys.argv[1]
assert open(os.path.join(tmp, "again.pdf"), "rb").read(5) == b"%PDF-"
assert open(os.path.join(tmp, "saved.png"), "rb").read() == open(os.path.join(tmp, "rep/report.png"), "rb").read()
svg = xml.dom.minidom.parse(os.path.join(tmp, "again.svg")).documentElement
ref = xml.dom.minidom.parse(os.path.join(tmp, "rep/report.svg")).documentElement
assert svg.getAttribute("width") == ref.getAttribute("width") and svg.getAttribute("height") == ref.getAttribute("height")
# Seven panels (every stage and the efficiency panel): two columns, four rows.
h = int(float(svg.getAttribute("height").rstrip("px")))
assert h == 44 + 4 * (320 + 10) + 10, h
r = json.load(open(os.path.join(tmp, "rep/report.json")))
levels = [p["threads"] for p in r["sweep"]["points"]]
if len(levels) > 1:
    e = r["sweep"]["economical_cost"]
    eco = [p for p in r["sweep"]["points"] if p["threads"] == r["sweep"]["economical"]][0]
    fast = [p for p in r["sweep"]["points"] if p["threads"] == r["sweep"]["fastest"]][0]
    assert e["threads"] == eco["threads"] and e["of_threads"] == levels[-1]
    assert abs(e["cores_share"] - eco["threads"] / levels[-1]) < 1e-12
    assert abs(e["speed_share"] - fast["seconds"] / eco["seconds"]) < 1e-12
    assert 0.9 - 1e-12 <= e["speed_share"] <= 1, e  # within 10% of the fastest, by definition
    text = open(os.path.join(tmp, "again.txt")).read()
    assert "economical point: %d of %d threads, %.0f%% of the cores" % (
        eco["threads"], levels[-1], 100 * e["cores_share"]) in text
PY
# Errors: not a report; a stage that is not an object; a bad extension.
echo '{"points": []}' >"$tmp/stage.json"
echo '{"machine": {}, "sweep": [1, 2]}' >"$tmp/bad.json"
set +e
"$cli" bench plot "$tmp/stage.json" -o "$tmp/x.png" 2>"$tmp/e1"; r1=$?
"$cli" bench plot "$tmp/bad.json" -o "$tmp/x.png" 2>"$tmp/e2"; r2=$?
"$cli" bench plot "$tmp/rep/report.json" -o "$tmp/x.gif" 2>"$tmp/e3"; r3=$?
set -e
[[ $r1 == 1 ]] && grep -q 'no "machine" object' "$tmp/e1" || fail "not a report: $r1 $(cat "$tmp/e1")"
[[ $r2 == 1 ]] && grep -q '"sweep" is not an object' "$tmp/e2" || fail "bad stage: $r2 $(cat "$tmp/e2")"
[[ $r3 == 2 ]] || fail "gif: $r3"
[[ ! -e "$tmp/x.png" && ! -e "$tmp/x.gif" ]] || fail "a refused plot wrote a file"
echo "bench plot: ok"
