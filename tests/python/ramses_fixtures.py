"""Where the RAMSES fixtures are: copies in tests/data, the rest in
$SNAPKIT_SHARED/fixtures/ramses (skipped when absent)."""
import glob
import json
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("SNAPKIT_TEST_DATA", os.path.join(ROOT, "tests", "data"))
SHARED = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))


def outputs():
    """(id, folder, reference dict) of every output with a reference.json."""
    found = {}
    for base in (os.path.join(DATA, "ramses"), os.path.join(SHARED, "fixtures", "ramses")):
        for ref in sorted(glob.glob(os.path.join(base, "*", "output_*.reference.json"))):
            folder = ref[:-len(".reference.json")]
            key = os.path.join(os.path.basename(os.path.dirname(folder)), os.path.basename(folder))
            if os.path.isdir(folder) and key not in found:
                with open(ref) as f:
                    found[key] = (folder, json.load(f))
    return [(k, v[0], v[1]) for k, v in sorted(found.items())]


def selection_kwargs(sel):
    kw = {}
    if sel.get("lmax"):
        kw["lmax"] = sel["lmax"]
    if sel.get("box"):
        b = sel["box"]
        kw.update(xrange=(b[0], b[1]), yrange=(b[2], b[3]), zrange=(b[4], b[5]))
    return kw


def selection_args(sel):
    args = []
    if sel.get("lmax"):
        args += ["--lmax", str(sel["lmax"])]
    if sel.get("box"):
        b = sel["box"]
        for axis, k in (("x", 0), ("y", 2), ("z", 4)):
            args += ["--%srange" % axis, repr(b[k]), repr(b[k + 1])]
    return args


def compare(got, ref, where):
    """got: rows, levels, columns{min, max, sum, volume_sum} (as snapkit stats
    --json prints); ref: one component of a reference.json."""
    assert got["rows"] == ref["rows"], where
    if "levels" in ref:
        assert {str(k): v for k, v in got["levels"].items()} == \
            {str(k): v for k, v in ref["levels"].items()}, where
    for name, r in ref["columns"].items():
        if name.endswith("_yt"):
            continue  # derived by yt, not stored: test_ramses_cosmology.py checks them
        g = got["columns"][name]
        assert g["min"] == r["min"] and g["max"] == r["max"], (where, name, g, r)
        assert abs(g["sum"] - r["sum"]) <= 1e-12 * r["abs_sum"], (where, name, g["sum"], r)
        if "volume_sum" in r:
            assert abs(g["volume_sum"] - r["volume_sum"]) <= 1e-12 * r["abs_volume_sum"], \
                (where, name, g["volume_sum"], r)
    for v in got["columns"].values():
        assert all(x is None or math.isfinite(x) for x in v.values())
