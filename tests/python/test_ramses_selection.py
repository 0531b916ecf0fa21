"""Region, lmax and variable selections equal a brute-force filter of the
full read; a small region opens fewer files; physical units and centres."""
import os
import shutil

import numpy as np
import pytest

import snapkit
from ramses_fixtures import outputs

OUTPUTS = [(k, f) for k, f, _ in outputs()]
KPC_CM = 3.0856775814913673e21


def index_columns(t):
    """cx, cy, cz as far as the output has them (1-D: cx, 2-D: cx, cy)."""
    return [c for c in ("cx", "cy", "cz") if c in t.columns]


def sort_order(t):
    """Rows sorted by (level, cx, cy, cz)."""
    return np.lexsort(tuple(t[c] for c in index_columns(t)[::-1]) + (t["level"],))


def keyed(t, names):
    order = sort_order(t)
    return {n: t[n][order] for n in names}


def centres(t):
    s = 2.0 ** -t["level"].astype(np.float64)
    return [(t[c] + 0.5) * s for c in index_columns(t)]


def brute_cells(full, lo, hi):
    x = centres(full)
    keep = np.ones(len(full), dtype=bool)
    for a in range(len(x)):
        keep &= (x[a] >= lo[a]) & (x[a] < hi[a])
    return keep


def ranges(lo, hi, ndim=3):
    """Region keywords on the axes an output of ndim dimensions has."""
    return {a + "range": (lo[k], hi[k]) for k, a in enumerate("xyz"[:ndim])}


def assert_same_cells(got, full, keep, names):
    a = keyed(got, names)
    ref = {n: full[n][keep] for n in names}
    order = np.lexsort(tuple(ref[c] for c in ("cx", "cy", "cz") if c in ref)[::-1] +
                       (ref["level"],))
    for n in names:
        np.testing.assert_array_equal(a[n], ref[n][order], err_msg=n)


# Boxes that cut through cells and domains, corners and a thin slab.
BOXES = [((0.1, 0.2, 0.3), (0.55, 0.6, 0.77)), ((0.0, 0.0, 0.0), (0.13, 0.5, 1.0)),
         ((0.49, 0.49, 0.49), (0.51, 0.51, 0.51)), ((0.3, 0.0, 0.6), (0.31, 1.0, 0.95)),
         ((0.75, 0.75, 0.0), (1.0, 1.0, 0.25)), ((0.2578125, 0.375, 0.5), (0.5, 0.625, 0.75))]


@pytest.mark.parametrize("key,folder", OUTPUTS, ids=[k for k, _ in OUTPUTS])
def test_region_equals_brute_force(key, folder):
    out = snapkit.open(folder)
    ndim = int(out.info["info"]["ndim"])
    comps = [c for c in ("hydro", "gravity") if out.info["components"][c]]
    rng = np.random.default_rng(7)
    boxes = list(BOXES)
    for _ in range(6):
        lo = rng.uniform(0, 0.8, 3)
        boxes.append((tuple(lo), tuple(lo + rng.uniform(0.01, 0.4, 3))))
    for comp in comps:
        full = out.read(comp)
        names = full.columns
        for lo, hi in boxes:
            got = out.read(comp, **ranges(lo, hi, ndim))
            assert_same_cells(got, full, brute_cells(full, lo, hi), names)
    if out.info["components"]["particles"]:
        full = out.particles()
        boxlen = float(full.meta["boxlen"])
        for lo, hi in boxes:
            got = out.particles(**ranges(lo, hi, ndim))
            keep = np.ones(len(full), dtype=bool)
            for a, c in enumerate(("position_x", "position_y", "position_z")[:ndim]):
                x = full[c] / boxlen
                keep &= (x >= lo[a]) & (x < hi[a])
            for n in full.columns:
                a = np.sort(got[n]) if len(got) else got[n]
                np.testing.assert_array_equal(a, np.sort(full[n][keep]), err_msg=n)


@pytest.mark.parametrize("key,folder", OUTPUTS, ids=[k for k, _ in OUTPUTS])
def test_lmax_equals_coarsened_leaves(key, folder):
    """lmax = L keeps the leaves at levels < L and every cell stored at level
    L (refined or not); a with_refined read gives those cells with their own
    stored values."""
    out = snapkit.open(folder)
    # The reader's levels: RAMSES's + log2 nx for a box of nx coarse cells.
    info = out.info["coarse_grid"]
    every = out.read("hydro", with_refined=True)
    full = out.hydro()
    for lmax in range(int(info["levelmin"]) - 1, int(info["levelmax"]) + 1):
        got = out.hydro(lmax=lmax)
        lev, ref = every["level"], every["refined"]
        keep = (lev == lmax) | ((lev < lmax) & (ref == 0) & (lev >= int(info["levelmin"])))
        assert_same_cells(got, every, keep, full.columns)
    leaves = every["refined"] == 0
    assert_same_cells(full, every, leaves, full.columns)


def test_lmax_and_box_together():
    key, folder = OUTPUTS[0]
    out = snapkit.open(folder)
    every = out.read("hydro", with_refined=True)
    lo, hi = (0.2, 0.3, 0.1), (0.7, 0.65, 0.9)
    got = out.hydro(lmax=6, xrange=(lo[0], hi[0]), yrange=(lo[1], hi[1]), zrange=(lo[2], hi[2]))
    lmin = int(out.info["info"]["levelmin"])
    lev = every["level"]
    keep = ((lev == 6) | ((lev < 6) & (every["refined"] == 0) & (lev >= lmin))) & \
        brute_cells(every, lo, hi)
    assert_same_cells(got, every, keep, got.columns)


@pytest.mark.parametrize("key,folder", OUTPUTS, ids=[k for k, _ in OUTPUTS])
def test_variable_subset(key, folder):
    out = snapkit.open(folder)
    full = out.hydro()
    got = out.hydro(vars=["pressure", "density"])
    ndim = int(out.info["info"]["ndim"])
    assert got.columns == ["level"] + ["cx", "cy", "cz"][:ndim] + ["density", "pressure"]
    for n in got.columns:
        np.testing.assert_array_equal(got[n], full[n])
    with pytest.raises(snapkit.Error, match="no hydro variable 'temperature'"):
        out.hydro(vars="temperature")


def test_gravity_joins_hydro_row_by_row():
    folder = [f for k, f in OUTPUTS if k.startswith("gravpart")][0]
    out = snapkit.open(folder)
    for kw in ({}, {"lmax": 6}, {"xrange": (0.3, 0.6), "zrange": (0.1, 0.5)}):
        h, g = out.hydro(**kw), out.gravity(**kw)
        assert len(h) == len(g) > 0
        for c in ("level", "cx", "cy", "cz"):
            np.testing.assert_array_equal(h[c], g[c])
        assert g.columns[4:] == ["potential", "acceleration_x", "acceleration_y",
                                 "acceleration_z"]


@pytest.mark.parametrize("fixture,component", [("rt3d", "rt"), ("clumps3d", "clump_field"),
                                               ("sink3d", "gravity")])
def test_cell_components_join_hydro_row_by_row(fixture, component):
    """rt and clump_field files follow the amr file's octs like hydro's,
    also with physical boundaries (rt3d, sink3d: a padded coarse grid)."""
    folders = [f for k, f in OUTPUTS if k.startswith(fixture + "/")]
    if not folders:
        pytest.skip("shared fixture %s absent" % fixture)
    out = snapkit.open(folders[0])
    for kw in ({}, {"lmax": 5}, {"xrange": (0.0, 0.3), "yrange": (0.1, 0.6)}):
        h, other = out.hydro(**kw), out.read(component, **kw)
        assert len(h) == len(other) > 0
        for c in ("level", "cx", "cy", "cz"):
            np.testing.assert_array_equal(h[c], other[c])


def test_small_region_opens_fewer_files():
    for key, folder in OUTPUTS:
        out = snapkit.open(folder)
        ncpu = int(out.info["info"]["ncpu"])
        ndim = int(out.info["info"]["ndim"])
        out.hydro(**ranges((0.01,) * 3, (0.05,) * 3, ndim))
        assert ncpu > 1, key  # else fewer files could not be opened
        # (1-D and 2-D outputs too: their hilbert1d and hilbert2d domains)
        assert out.last_read["files_opened"] < ncpu, (key, ndim)
        out.hydro()
        assert out.last_read["files_opened"] == ncpu


def test_centre_and_units(tmp_path):
    """A copy whose info says one code length is 1 kpc: kpc and pc ranges
    around a centre select the same cells as the equivalent box units."""
    folder = [f for k, f in OUTPUTS if k.startswith("gravpart")][0]
    copy = tmp_path / os.path.basename(folder)
    copy.mkdir()
    for name in os.listdir(folder):
        src = os.path.join(folder, name)
        if name.startswith("info_"):
            text = open(src).read()
            lines = [("unit_l      =  %.15E" % KPC_CM) if ln.startswith("unit_l") else ln
                     for ln in text.split("\n")]
            (copy / name).write_text("\n".join(lines))
        else:
            os.symlink(src, copy / name)
    out = snapkit.open(str(copy))
    assert out.info["info"]["unit_l"] == pytest.approx(KPC_CM, rel=1e-14)
    ref = out.hydro(xrange=(0.4, 0.55), yrange=(0.45, 0.6), zrange=(0.3, 0.7))
    kpc = out.hydro(xrange=(-0.1, 0.05), yrange=(-0.05, 0.1), zrange=(-0.2, 0.2),
                    center="bc", unit="kpc")
    pc = out.hydro(xrange=(-100, 50), yrange=(-50, 100), zrange=(-200, 200),
                   center=(500, 500, 500), unit="pc")
    code = out.hydro(xrange=(0.4, 0.55), yrange=(0.45, 0.6), zrange=(0.3, 0.7), unit="code")
    full = out.hydro()
    keep = brute_cells(full, (0.4, 0.45, 0.3), (0.55, 0.6, 0.7))
    for t in (ref, kpc, pc, code):
        assert_same_cells(t, full, keep, full.columns)
    assert snapkit.unit_factor(full, "kpc") == pytest.approx(1.0, rel=1e-15)
    x_kpc = snapkit.derive(full, "x") * snapkit.unit_factor(full, "kpc")
    np.testing.assert_allclose(x_kpc, (full["cx"] + 0.5) / 2.0 ** full["level"], rtol=1e-15)
    p = out.particles(xrange=(-100, 50), yrange=(-50, 100), zrange=(-200, 200),
                      center="bc", unit="pc")
    allp = out.particles()
    x, y, z = allp["position_x"], allp["position_y"], allp["position_z"]
    n = np.sum((x >= 0.4) & (x < 0.55) & (y >= 0.45) & (y < 0.6) & (z >= 0.3) & (z < 0.7))
    assert len(p) == n > 0


def test_errors_raise_with_the_file_named(tmp_path):
    with pytest.raises(snapkit.Error, match="not a RAMSES output") as e:
        snapkit.open(str(tmp_path))
    assert str(tmp_path) in str(e.value) and e.value.path == str(tmp_path)
    key, folder = OUTPUTS[0]
    with pytest.raises(snapkit.Error, match="low end must be below high end"):
        snapkit.open(folder).hydro(xrange=(0.5, 0.2))
    with pytest.raises(snapkit.Error, match="unknown length unit 'parsec'"):
        snapkit.open(folder).hydro(xrange=(0, 1), unit="parsec")
