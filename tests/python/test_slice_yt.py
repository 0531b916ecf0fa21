"""snapkit.slice against yt 4.1 on the RAMSES fixtures yt reads.

Axis-aligned slices:

Each pixel of a slice is the value of the leaf cell containing its centre.
yt's slice (ds.slice) gives the cells the plane crosses; from those cells
alone (their centres, half widths and values as yt reads them) numpy
places every cell on the pixels whose centres fall in its square, and the
slice must equal that pixel for pixel. yt's own fixed-resolution buffer
with antialias=False (FixedResolutionBuffer(ds.slice(...), bounds,
buff_size, antialias=False)) paints each cell over every pixel it
touches, plus one more column and row when its far edge falls on a pixel
edge, the last cell in yt's order winning: on the pixels a single yt cell
paints, the slice equals the FRB exactly; on the others (where two cells
share a pixel) the FRB holds whichever came last, which the slice need not
(the number of those pixels is printed; docs/slices.md).

Off-axis slices: yt's cutting plane (ds.cutting(normal, center,
north_vector)) gives the cells; numpy finds the one containing each
pixel's point centre + u right + v up (right and up from the slice, equal
to yt's x_vec and y_vec); the slice equals that on every pixel. yt's FRB
of the cutting plane averages the cells within 1.01 half widths of the
point (pixelize_off_axis_cartesian): on the pixels one cell is that near,
the slice equals the FRB exactly.
"""
import glob
import math
import os
import subprocess

import numpy as np
import pytest

import snapkit

yt = pytest.importorskip("yt")
yt.set_log_level(50)
from yt.visualization.fixed_resolution import FixedResolutionBuffer  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
DATA = os.environ.get("SNAPKIT_TEST_DATA", os.path.join(HERE, "..", "data"))
SHARED = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
PAT = "output_[0-9][0-9][0-9][0-9][0-9]"


def outputs():
    found = sorted(glob.glob(os.path.join(DATA, "ramses", "manyfiles", PAT)))
    for name in ("sedov3d", "gravpart", "cosmo32", "mhd3d", "clumps3d"):
        found += sorted(glob.glob(os.path.join(SHARED, "fixtures", "ramses", name, PAT)))[-1:]
    return [f for f in found if os.path.isdir(f)]


def _id(folder):
    return "/".join(folder.split(os.sep)[-2:])


# axis, at, (nx, ny), width, centre (box units)
CASES = [
    ("x", 0.43, (256, 256), None, None),
    ("y", 0.5, (300, 300), None, None),            # the plane on cell faces
    ("z", 0.3711, (512, 512), None, None),
    ("z", 0.52, (300, 200), 0.3, (0.45, 0.55, 0.6)),  # a window with a centre, rectangular
    ("x", 0.61, (97, 143), 0.55, (0.2, 0.4, 0.55)),   # past the box's edge: NaN there
]
YT_FIELDS = {"density": ("ramses", "Density"), "velocity_x": ("ramses", "x-velocity")}


def window(axis, res, width, center):
    a = "xyz".index(axis)
    ua, va = {0: (1, 2), 1: (2, 0), 2: (0, 1)}[a]
    c = center or (0.5, 0.5, 0.5)
    w = width or 1.0
    nx, ny = res
    p = w / nx
    return c[ua] - 0.5 * w, c[va] - 0.5 * (p * ny), p


def centre_rule(sl, field, res, u0, v0, p, scale):
    """Each of yt's slice cells onto the pixels whose centres it contains."""
    nx, ny = res
    px, py, pdx, pdy = (sl[k].to("code_length").d / scale for k in ("px", "py", "pdx", "pdy"))
    d = sl[field].d
    cu = u0 + (np.arange(nx) + 0.5) * p
    cv = v0 + (np.arange(ny) + 0.5) * p
    out = np.full((ny, nx), np.nan)
    for k in range(px.size):
        i0, i1 = np.searchsorted(cu, [px[k] - pdx[k], px[k] + pdx[k]])
        j0, j1 = np.searchsorted(cv, [py[k] - pdy[k], py[k] + pdy[k]])
        out[j0:j1, i0:i1] = d[k]
    return out, (px, py, pdx, pdy)


def painted_once(cells, res, bounds):
    """Pixels exactly one cell paints in yt's pixelize_cartesian (its column
    and row ranges, the extra one included)."""
    px, py, pdx, pdy = cells
    nx, ny = res
    x0, x1, y0, y1 = bounds
    ix, iy = nx / (x1 - x0), ny / (y1 - y0)
    count = np.zeros((ny, nx), int)
    for k in range(px.size):
        lc = int(max((px[k] - pdx[k] - x0) * ix, 0))
        rc = int(min((px[k] + pdx[k] - x0) * ix + 1, nx))
        lr = int(max((py[k] - pdy[k] - y0) * iy, 0))
        rr = int(min((py[k] + pdy[k] - y0) * iy + 1, ny))
        if lc < rc and lr < rr:
            count[lr:rr, lc:rc] += 1
    return count == 1


def _pairs():
    """Every case on the first two outputs, three on the others."""
    return [(f, c) for k, f in enumerate(outputs()) for c in (CASES if k < 2 else CASES[2:])]


@pytest.mark.parametrize("folder,case", _pairs(),
                         ids=lambda v: _id(v) if isinstance(v, str) else "%s=%s,%dx%d" % (
                             v[0], v[1], *v[2]))
def test_slice_matches_yt(folder, case):
    axis, at, res, width, center = case
    ds = yt.load(folder)
    scale = float(ds.domain_width.to("code_length").d[0])
    u0, v0, p = window(axis, res, width, center)
    got = snapkit.slice(folder, "density,velocity_x", axis=axis, at=at, res=res, width=width,
                        center=center)
    assert got["density"].shape == (res[1], res[0])
    sl = ds.slice("xyz".index(axis), at * scale)
    bounds = (u0, u0 + res[0] * p, v0, v0 + res[1] * p)
    for name, field in YT_FIELDS.items():
        want, cells = centre_rule(sl, field, res, u0, v0, p, scale)
        assert np.array_equal(got[name], want, equal_nan=True), name
        frb = FixedResolutionBuffer(sl, tuple(b * scale for b in bounds), res, antialias=False)
        ref = np.array(frb[field].d)
        once = painted_once(cells, res, bounds)
        assert once.sum() > 0.5 * once.size  # most pixels: no room for doubt
        same = (got[name] == ref) | (np.isnan(got[name]) & np.isnan(ref))
        assert same[once].all(), f"{name}: {np.count_nonzero(~same[once])} pixels differ"
        print(f"{_id(folder)} {case}: {name} equals yt's FRB on {np.count_nonzero(same)} of "
              f"{same.size} pixels; the other {np.count_nonzero(~same)} are shared by two cells")
    outside = np.isnan(want)
    if width and (u0 < 0 or bounds[1] > 1 or v0 < 0 or bounds[3] > 1):
        assert outside.any()


OBLIQUE = [((1, 1, 0.5), (0, 0, 1), (0.5, 0.45, 0.52), (200, 150), 0.6),
           ((0.2, -1, 0.7), (1, 0, 0), (0.3, 0.6, 0.55), (160, 160), 0.9)]


@pytest.mark.parametrize("plane", OBLIQUE, ids=lambda c: "n=%s" % (c[0],))
@pytest.mark.parametrize("folder", outputs()[:3], ids=_id)
def test_off_axis_matches_yt(folder, plane):
    normal, north, c, res, W = plane
    nx, ny = res
    m = snapkit.slice(folder, "density", normal=normal, north=north, center=c, res=res, width=W)
    got = m["density"]
    R, U = np.array(m.info["right"]), np.array(m.info["up"])
    ds = yt.load(folder)
    scale = float(ds.domain_width.to("code_length").d[0])
    cut = ds.cutting(normal, np.array(c) * scale, north_vector=north)
    assert np.allclose(R, cut._x_vec, atol=1e-15) and np.allclose(U, cut._y_vec, atol=1e-15)
    pos = [cut["index", k].to("code_length").d / scale for k in "xyz"]
    wid = [cut["index", k].to("code_length").d / scale for k in ("dx", "dy", "dz")]
    d = cut["ramses", "Density"].d
    p = W / nx
    H = p * ny
    V, Uu = np.meshgrid(-H / 2 + (np.arange(ny) + 0.5) * p, -W / 2 + (np.arange(nx) + 0.5) * p,
                        indexing="ij")
    X = [c[a] + Uu * R[a] + V * U[a] for a in range(3)]
    want = np.full((ny, nx), np.nan)
    near = np.zeros((ny, nx), int)
    for k in range(d.size):
        inside = np.ones((ny, nx), bool)
        close = np.ones((ny, nx), bool)
        for a in range(3):
            lo = pos[a][k] - wid[a][k] / 2
            inside &= (X[a] >= lo) & (X[a] < lo + wid[a][k])
            close &= ~(np.abs(pos[a][k] - X[a]) * 0.99 > wid[a][k] / 2)
        want[inside] = d[k]
        near += close
    assert np.array_equal(got, want, equal_nan=True)
    frb = FixedResolutionBuffer(cut, tuple(b * scale for b in (-W / 2, W / 2, -H / 2, H / 2)),
                                res, antialias=False)
    ref = np.array(frb["ramses", "Density"].d)
    once = near == 1
    assert once.sum() > 0.5 * once.size
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    assert same[once].all()


def _cli(*args):
    subprocess.run([CLI, "slice", *args, "--no-fsync"], check=True, capture_output=True)


def test_threads_file_table_and_lmax(tmp_path):
    folder = outputs()[0]
    with snapkit.open(folder) as out:
        gas = out.read("hydro")
        lmax = int(np.asarray(gas["level"]).max()) - 1
        capped = out.read("hydro", lmax=lmax)
    snap = str(tmp_path / "o.snapkit")
    subprocess.run([CLI, "convert", folder, "--with-coarse", "-o", snap], check=True,
                   capture_output=True)
    kw = dict(axis="y", at=0.4, res=(120, 80), width=0.7, center=(0.45, 0.5, 0.5))
    for lm, table in ((None, gas), (lmax, capped)):
        ref = snapkit.slice(table, "density,T", **kw)["T"]
        for src in (folder, snap):
            for t in (1, 2):
                m = snapkit.slice(src, "density,T", lmax=lm, threads=t, **kw)
                assert np.array_equal(m["T"], ref, equal_nan=True), (src, t, lm)
    ob = dict(normal=(0.3, 1, -0.6), north=(0, 0, 1), center=(0.45, 0.5, 0.55), res=(90, 70),
              width=0.8)
    ref = snapkit.slice(gas, "density", **ob)["density"]
    assert np.count_nonzero(np.isfinite(ref)) > 0.9 * ref.size
    for src in (folder, snap):
        for t in (1, 2):
            assert np.array_equal(snapkit.slice(src, "density", threads=t, **ob)["density"], ref,
                                  equal_nan=True), (src, t)
    # the CLI writes the same arrays, on 1 and 2 threads
    args = ["--axis", "y", "--at", "0.4", "--res", "120,80", "--width", "0.7", "--center",
            "0.45", "0.5", "0.5", "--vars", "T", "--lmax", str(lmax)]
    for t in ("1", "2"):
        _cli(folder, *args, "--threads", t, "-o", str(tmp_path / f"t{t}.npy"))
    a, b = np.load(tmp_path / "t1.npy"), np.load(tmp_path / "t2.npy")
    want = snapkit.slice(capped, "T", **kw)["T"]
    assert np.array_equal(a, want, equal_nan=True) and np.array_equal(b, want, equal_nan=True)
    # the cut really changed the slice
    assert not np.array_equal(want, snapkit.slice(gas, "T", **kw)["T"], equal_nan=True)


def test_units_and_extent():
    """Units multiply the code values by the table's unit_d; the extent
    spans nx pixels in code lengths."""
    for folder in outputs():
        with snapkit.open(folder) as out:
            meta = out.read("hydro", vars=["density"], lmax=1).meta
        if float(meta.get("unit_d", 1)) != 1.0:
            break
    else:
        pytest.skip("no output with physical units")
    m = snapkit.slice(folder, "density", axis="z", at=0.5, res=(64, 32), units="g/cm3")
    code = snapkit.slice(folder, "density", axis="z", at=0.5, res=(64, 32))
    assert m.units["density"] == "g/cm3" and code.units["density"] == "code"
    assert np.array_equal(m["density"], code["density"] * float(meta["unit_d"]))
    boxlen = float(meta["boxlen"])
    assert code.extent == pytest.approx((0.0, boxlen, 0.25 * boxlen, 0.75 * boxlen), rel=1e-15)
    assert math.isclose(code.pixel_size, boxlen / 64, rel_tol=1e-15)
