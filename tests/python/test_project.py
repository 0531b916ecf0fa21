"""snapkit.project: maps against numpy brute force, conservation, files."""
import gc
import json
import os

import numpy as np
import pytest

import snapkit


def random_amr(seed, lmin=2, lmax=5, p_refine=0.4, boxlen=1.0):
    """Leaves of a random octree as a cell table with random hydro values."""
    rng = np.random.default_rng(seed)
    cells = []

    def refine(level, x, y, z):
        if level < lmax and rng.random() < p_refine:
            for k in range(8):
                refine(level + 1, 2 * x + (k & 1), 2 * y + ((k >> 1) & 1), 2 * z + (k >> 2))
        else:
            cells.append((level, x, y, z))

    n = 1 << lmin
    for z in range(n):
        for y in range(n):
            for x in range(n):
                refine(lmin, x, y, z)
    c = np.array(cells, dtype=np.int32)
    m = len(c)
    cols = {"level": c[:, 0], "cx": c[:, 1], "cy": c[:, 2], "cz": c[:, 3],
            "density": 0.1 + 10 * rng.random(m), "velocity_x": rng.random(m) - 0.5,
            "velocity_y": rng.random(m) - 0.5, "velocity_z": rng.random(m) - 0.5,
            "pressure": 0.01 + rng.random(m), "const": np.full(m, 3.75)}
    meta = {"boxlen": boxlen, "unit_l": 3.0856775814913673e21, "unit_d": 6.767e-23,
            "unit_t": 4.7e14, "time": 0.25, "gamma": 5 / 3}
    return snapkit.Table.from_arrays(cols, meta), cols


def brute_force_sd(cols, boxlen, axis, res, lo, hi):
    """sd on the box's pixel grid over [lo, hi) (box units), one cell and
    one pixel at a time with plain interval overlaps."""
    ua, va = {0: (1, 2), 1: (2, 0), 2: (0, 1)}[axis]
    p = boxlen / res
    i0 = [int(np.floor(lo[a] * res + 1e-9)) for a in (ua, va)]
    i1 = [int(np.ceil(hi[a] * res - 1e-9)) for a in (ua, va)]
    nx, ny = i1[0] - i0[0], i1[1] - i0[1]
    out = np.zeros((ny, nx))
    size = 0.5 ** cols["level"]
    centre = np.stack([(cols[c] + 0.5) * size for c in ("cx", "cy", "cz")], axis=1)
    keep = np.all((centre >= lo) & (centre < hi), axis=1)
    edges_u = (i0[0] + np.arange(nx + 1)) * p
    edges_v = (i0[1] + np.arange(ny + 1)) * p
    for c, h, rho in zip(centre[keep] * boxlen, size[keep] * boxlen, cols["density"][keep]):
        ou = np.clip(np.minimum(edges_u[1:], c[ua] + h / 2) - np.maximum(edges_u[:-1], c[ua] - h / 2), 0, None)
        ov = np.clip(np.minimum(edges_v[1:], c[va] + h / 2) - np.maximum(edges_v[:-1], c[va] - h / 2), 0, None)
        out += rho * h * np.outer(ov, ou) / (p * p)
    return out, (edges_u[0], edges_u[-1], edges_v[0], edges_v[-1])


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_axis_matches_brute_force(axis):
    t, cols = random_amr(axis + 1, boxlen=2.0)
    lo, hi = np.array([0.1, 0.05, 0.2]), np.array([0.85, 0.7, 0.95])
    m = snapkit.project(t, ["sd"], axis="xyz"[axis], res=27, xrange=(0.1, 0.85),
                        yrange=(0.05, 0.7), zrange=(0.2, 0.95))
    ref, extent = brute_force_sd(cols, 2.0, axis, 27, lo, hi)
    assert m["sd"].shape == ref.shape
    np.testing.assert_allclose(m.extent, extent, rtol=1e-12)
    assert np.max(np.abs(m["sd"] - ref)) <= 1e-12 * np.max(ref)


@pytest.mark.parametrize("geometry", [
    {"axis": "x"}, {"axis": "z", "res": 100},
    {"direction": (1, 2, 3), "kernel": "exact", "res": 40},
    {"direction": (1, 2, 3), "kernel": "overlap", "res": 40},
    {"direction": (-1, 0.2, 0.5), "kernel": "cic", "res": 40},
    {"angles": (35, 10), "kernel": "ngp", "res": 40},
])
def test_mass_is_conserved(geometry):
    t, cols = random_amr(7, boxlen=3.0)
    mass = np.sum(cols["density"] * (3.0 * 0.5 ** cols["level"]) ** 3)
    m = snapkit.project(t, "sd,mass,const", **geometry)
    p = m.pixel_size
    assert abs(m["sd"].sum() * p * p - mass) <= 1e-12 * mass
    assert abs(m.info["projected_mass"] - mass) <= 1e-12 * mass
    assert abs(m.info["selected_mass"] - mass) <= 1e-12 * mass
    w = m["mass"] > 0
    assert w.sum() > 0
    np.testing.assert_allclose(m["const"][w], 3.75, rtol=1e-13)
    assert np.all(np.isnan(m["const"][~w]))


def test_units_and_info():
    t, cols = random_amr(3)
    m = snapkit.project(t, ["sd", "T", "velocity_x", "count"], res=32,
                        units={"sd": "Msun/pc2", "T": "K", "velocity_x": "km/s"}, threads=1)
    assert m.units == {"sd": "Msun/pc2", "T": "K", "velocity_x": "km/s", "count": "count"}
    code = snapkit.project(t, ["sd", "T", "velocity_x"], res=32, threads=1)
    ul, ud, ut = 3.0856775814913673e21, 6.767e-23, 4.7e14
    pc, msun = 3.0856775814913673e18, 1.98841e33
    np.testing.assert_allclose(m["sd"], code["sd"] * ud * ul * pc * pc / msun, rtol=1e-12)
    np.testing.assert_allclose(m["velocity_x"], code["velocity_x"] * ul / ut / 1e5, rtol=1e-12)
    np.testing.assert_allclose(m["T"], code["T"] * (ul / ut) ** 2 * 1.66e-24 / 0.76 / 1.380649e-16,
                               rtol=1e-12)
    assert m.info["axis"] == "z" and m.info["threads"] >= 1
    assert m.info["deposited"] == len(cols["level"])
    assert m["count"].sum() >= len(cols["level"])
    assert m.seconds > 0


def test_arrays_outlive_maps():
    t, _ = random_amr(4)
    m = snapkit.project(t, "sd", res=16)
    a = m["sd"]
    want = a.copy()
    del m
    gc.collect()
    np.testing.assert_array_equal(a, want)


def read_fits(path):
    """A minimal FITS reader (headers and float64 images) for the test."""
    raw = open(path, "rb").read()
    hdus, pos = [], 0
    while pos < len(raw):
        cards = {}
        while True:
            block = raw[pos:pos + 2880]
            pos += 2880
            done = False
            for i in range(0, 2880, 80):
                card = block[i:i + 80].decode("ascii")
                key = card[:8].strip()
                if key == "END":
                    done = True
                    break
                if card[8:10] == "= ":
                    value = card[10:].split(" /")[0].strip()
                    cards[key] = value.strip("'").strip() if value.startswith("'") else value
            if done:
                break
        naxis = int(cards.get("NAXIS", 0))
        data = None
        if naxis == 2:
            nx, ny = int(cards["NAXIS1"]), int(cards["NAXIS2"])
            assert int(cards["BITPIX"]) == -64
            data = np.frombuffer(raw[pos:pos + 8 * nx * ny], dtype=">f8").reshape(ny, nx)
            pos += (8 * nx * ny + 2879) // 2880 * 2880
        hdus.append((cards, data))
    return hdus


def test_files(tmp_path):
    t, _ = random_amr(5)
    m = snapkit.project(t, ["sd", "velocity_y"], axis="y", res=20, xrange=(0, 0.5))
    files = m.save(tmp_path / "maps.fits")
    assert files == [str(tmp_path / "maps.fits")]
    hdus = read_fits(files[0])
    assert len(hdus) == 3
    assert hdus[0][0]["AXIS"] == "y"
    for (cards, data), name in zip(hdus[1:], ["sd", "velocity_y"]):
        assert cards["EXTNAME"] == name and cards["SKUNIT"] == "code" and "BUNIT" not in cards
        np.testing.assert_array_equal(data, m[name])
        assert float(cards["CDELT1A"]) == m.pixel_size and cards["CUNIT1"] == m.length_unit
        assert float(cards["UMIN"]) == m.extent[0]
    files = m.save(tmp_path / "m_{var}.npy")
    assert files == [str(tmp_path / "m_sd.npy"), str(tmp_path / "m_velocity_y.npy")]
    np.testing.assert_array_equal(np.load(files[1]), m["velocity_y"])
    files = m.save(tmp_path / "m_{var}.png", log=False)
    assert len(files) == 4
    from PIL import Image
    img = Image.open(files[0])
    assert img.mode == "RGBA" and img.size == (m.nx, m.ny)
    side = json.load(open(files[1]))
    assert side["scale"] == "linear" and side["quantity"] == "sd"
    assert side["vmin"] == np.nanmin(m["sd"]) and side["vmax"] == np.nanmax(m["sd"])
    # PNG row 0 is the top of the image: the map's last row, in viridis
    px = np.asarray(img).astype(int)
    mpl = pytest.importorskip("matplotlib")
    frac = (m["sd"][::-1] - side["vmin"]) / (side["vmax"] - side["vmin"])
    want = np.rint(mpl.colormaps["viridis"](frac)[..., :3] * 255).astype(int)
    assert np.all(px[..., 3] == 255)
    assert np.max(np.abs(px[..., :3] - want)) <= 3
    with pytest.raises(snapkit.Error, match="{var}"):
        m.save(tmp_path / "two.npy")


def test_errors():
    t, _ = random_amr(6)
    with pytest.raises(snapkit.Error, match="unknown quantity 'nope'"):
        snapkit.project(t, "sd,nope")
    with pytest.raises(snapkit.Error, match="res must be between 1"):
        snapkit.project(t, "sd", res=0)
    with pytest.raises(snapkit.Error, match="400000 x 400000 map of 1 quantity needs 2.6 TB"):
        snapkit.project(t, "sd", res=400000)
    with pytest.raises(snapkit.Error, match="selection holds none"):
        snapkit.project(t, "sd", xrange=(0.5, 0.5000001))
    with pytest.raises(snapkit.Error, match="zero length"):
        snapkit.project(t, "sd", direction=(0, 0, 0))


def test_particles():
    rng = np.random.default_rng(9)
    n = 5000
    pos = rng.random((n, 3)) * 2.0
    mass = 1e-5 * (1 + rng.random(n))
    fam = np.where(rng.random(n) < 0.3, 2, 1).astype(np.int8)
    t = snapkit.Table.from_arrays({"position_x": pos[:, 0], "position_y": pos[:, 1],
                                   "position_z": pos[:, 2], "mass": mass, "family": fam},
                                  {"boxlen": 2.0})
    for kernel in ("ngp", "cic"):
        m = snapkit.project(t, "mass", res=50, kernel=kernel)
        assert abs(m["mass"].sum() - mass.sum()) <= 1e-12 * mass.sum()
        s = snapkit.project(t, "mass", res=50, kernel=kernel, family="star")
        assert abs(s["mass"].sum() - mass[fam == 2].sum()) <= 1e-12 * mass.sum()
    # NGP along z is a 2-D histogram of x, y weighted by mass
    m = snapkit.project(t, "mass", res=50, kernel="ngp")
    h, _, _ = np.histogram2d(pos[:, 1], pos[:, 0], bins=50, range=[[0, 2], [0, 2]], weights=mass)
    np.testing.assert_allclose(m["mass"], h, rtol=1e-12, atol=1e-18)


LOW_DIM = os.path.join(os.environ.get("SNAPKIT_TEST_DATA", os.path.join(
    os.path.dirname(__file__), "..", "data")), "ramses")


def test_2d_output_is_its_map():
    """A 2-D output seen along z: each leaf covers its 2^(L-l) x 2^(L-l)
    pixels and is a column of depth boxlen, so sd = density x boxlen and
    the volume-weighted mean density is the density; numpy paints it."""
    with snapkit.open(os.path.join(LOW_DIM, "sedov2d", "output_00002")) as out:
        gas = out.read("hydro")
        lmax = int(out.info["info"]["levelmax"])
    boxlen = float(gas.meta["boxlen"])
    res = 2 ** lmax
    ref = np.zeros((res, res))
    for l, i, j, rho in zip(gas["level"], gas["cx"], gas["cy"], gas["density"]):
        k = 2 ** (lmax - l)
        ref[j * k:(j + 1) * k, i * k:(i + 1) * k] = rho
    m = snapkit.project(gas, "sd,density", weight="volume")
    assert m["sd"].shape == (res, res)
    assert np.max(np.abs(m["sd"] - ref * boxlen)) <= 1e-13 * np.max(ref)
    assert np.max(np.abs(m["density"] - ref)) <= 1e-13 * np.max(ref)
    # The mass of a 2-D output is per unit length along z: sum rho dx dy.
    mass = np.sum(gas["density"] * (boxlen * 0.5 ** gas["level"]) ** 2)
    assert abs(m["sd"].sum() * m.pixel_size ** 2 - mass * boxlen) <= 1e-12 * mass
    for kw in ({"axis": "x"}, {"direction": (1, 1, 1)}, {"zrange": (0.2, 0.6)}):
        with pytest.raises(snapkit.Error, match="a 2-D output projects along z only"):
            snapkit.project(gas, "sd", **kw)


def _profile_reference(gas, res, boxlen):
    """Volume-weighted mean density per pixel of [0, boxlen) cut in res:
    each cell's overlap with each pixel, by brute force."""
    num, den = np.zeros(res), np.zeros(res)
    edges = np.linspace(0.0, 1.0, res + 1)
    for l, i, rho in zip(gas["level"], gas["cx"], gas["density"]):
        a, b = i * 0.5 ** l, (i + 1) * 0.5 ** l
        overlap = np.clip(np.minimum(b, edges[1:]) - np.maximum(a, edges[:-1]), 0, None)
        num += rho * overlap
        den += overlap
    return num / den


def test_1d_output_is_its_profile(tmp_path):
    """A 1-D output projects to one row of pixels along x: each pixel the
    volume-weighted mean of the cells over it, sd = density x boxlen (the
    column through a slab of depth boxlen), at the finest level's
    resolution or any other; the same from its compact file."""
    src = os.path.join(LOW_DIM, "tube1d", "output_00002")
    with snapkit.open(src) as out:
        gas = out.read("hydro")
        lmax = int(out.info["info"]["levelmax"])
    assert gas.columns[:2] == ["level", "cx"] and "cy" not in gas.columns
    boxlen = float(gas.meta["boxlen"])
    for res in (2 ** lmax, 100, 37):
        m = snapkit.project(gas, "sd,density", weight="volume", res=res)
        assert m["density"].shape == (1, res)
        ref = _profile_reference(gas, res, boxlen)
        assert np.max(np.abs(m["density"][0] - ref)) <= 1e-13 * np.max(ref)
        assert np.max(np.abs(m["sd"][0] - ref * boxlen)) <= 1e-13 * np.max(ref) * boxlen
    for kw in ({"axis": "x"}, {"direction": (1, 1, 1)}, {"yrange": (0.2, 0.6)}):
        with pytest.raises(snapkit.Error, match="1-D"):
            snapkit.project(gas, "sd", **kw)
    compact = str(tmp_path / "tube1d.snapkit")
    snapkit.convert(src, compact)
    with snapkit.open(compact) as f:
        again = f.read("hydro")
    a = snapkit.project(gas, "density", weight="volume")["density"]
    b = snapkit.project(again, "density", weight="volume")["density"]
    assert np.array_equal(a, b)
