"""snapkit.to_yt against yt.load on the real RAMSES fixtures (yt 4.1.4 is
the independent reader): the bridged dataset's all_data() (cell count,
volume, mass, every field yt.load has) and yt's own ProjectionPlot,
SlicePlot and weighted projection images equal yt.load's to 1e-12;
particles (positions, velocities, masses, families) equal; units and time
are yt.load's. The octree mask is checked against a construction of its
own (np.unique of the ancestors per level, sorted)."""
import glob
import os

import numpy as np
import pytest

import snapkit
from ramses_fixtures import DATA, SHARED

yt = pytest.importorskip("yt")
yt.set_log_level(50)

# hydro (sedov3d, manyfiles), MHD, particles (gravpart, sink3d: sink clouds
# and boundaries), RT, boxlen 4 (clumps3d), cosmological (cosmo32).
OUTPUTS = ["data:sedov3d/output_00001", "sedov3d/output_00002", "manyfiles/output_00002",
           "mhd3d/output_00002", "gravpart/output_00002", "sink3d/output_00002",
           "rt3d/output_00002", "clumps3d/output_00002", "cosmo32/output_00003"]
TOL = 1e-12


def folder(name):
    base = os.path.join(DATA, "ramses") if name.startswith("data:") else \
        os.path.join(SHARED, "fixtures", "ramses")
    path = os.path.join(base, name.split(":")[-1])
    if not os.path.isdir(path):
        pytest.skip("fixture %s is not here (SNAPKIT_SHARED)" % name)
    return path


def load_yt(path):
    return yt.load(sorted(glob.glob(os.path.join(path, "info_*.txt")))[0])


@pytest.fixture(scope="module", params=OUTPUTS)
def pair(request):
    """(bridged dataset, yt.load's dataset, path) of one output; pytest runs
    every test of an output before the next output's datasets are made:
    yt 4.1.4's RAMSES reader misreads a dataset once another RAMSES output
    is loaded (its field handlers keep what they found per class)."""
    path = folder(request.param)
    return snapkit.to_yt(path), load_yt(path), path


def close(got, want, scale):
    return abs(float(got) - float(want)) <= TOL * max(float(scale), 1e-300)


def test_all_data_equals_yt_load(pair):
    ds, ref, _ = pair
    a, b = ds.all_data(), ref.all_data()
    fields = [("index", "cell_volume"), ("gas", "mass"), ("gas", "density"),
              ("gas", "temperature")] + [f for f in ref.field_list if f[0] in
                                          ("ramses", "gravity", "ramses-rt")]
    fields += [f for f in (("gas", "magnetic_field_x"), ("gas", "potential_energy"))
               if f in ref.derived_field_list]
    assert a["index", "ones"].size == b["index", "ones"].size
    assert close(a["index", "cell_volume"].sum(), 1.0, 1.0)
    for f in fields:
        x, y = a[f], b[f]
        assert x.units == y.units, f
        assert x.size == y.size, f
        exact = 0 if f[0] != "gas" else TOL  # derived fields round as their formula
        for got, want in ((x.min(), y.min()), (x.max(), y.max())):
            assert abs(float(got) - float(want)) <= exact * abs(float(want)), f
        assert close(x.sum(), y.sum(), np.abs(y).sum()), (f, float(x.sum()), float(y.sum()))


def test_plots_equal_yt_load(pair):
    ds, ref, _ = pair
    images = []
    for d in (ds, ref):
        proj = yt.ProjectionPlot(d, "z", ("gas", "density"), buff_size=(128, 128))
        slc = yt.SlicePlot(d, "x", ("gas", "density"), center=[0.31, 0.47, 0.55],
                           buff_size=(128, 128))
        weighted = d.proj(("gas", "temperature"), 1, weight_field=("gas", "mass"))
        images.append([proj.frb["gas", "density"], slc.frb["gas", "density"],
                       weighted.to_frb((1.0, "unitary"), 128)["gas", "temperature"]])
    for got, want in zip(*images):
        assert got.units == want.units
        assert np.isfinite(want.d).all() and np.abs(want.d).max() > 0
        np.testing.assert_allclose(got.d, want.d, rtol=TOL, atol=0)


def test_units_and_time_are_yt_load_s(pair):
    ds, ref, path = pair
    for unit in ("code_length", "code_mass", "code_time", "code_velocity", "code_density",
                 "code_pressure", "code_magnetic", "code_temperature"):
        got, want = ds.quan(1, unit).in_cgs(), ref.quan(1, unit).in_cgs()
        assert got.units == want.units and close(got.v, want.v, want.v), unit
    assert ds.cosmological_simulation == ref.cosmological_simulation
    out = snapkit.open(path)
    if not ref.cosmological_simulation:
        assert float(ds.current_time) == float(ref.current_time)
        return
    # snapkit's age; yt's Friedmann table leaves out a < 1e-3 (0.57 Myr at z = 4)
    assert close(ds.current_time.to("code_time").v, out.info["cosmology"]["age_code"], 1.0)
    assert abs(float(ds.current_time / ref.current_time) - 1) < 4e-4
    assert ds.current_redshift == ref.current_redshift
    for key in ("hubble_constant", "omega_matter", "omega_lambda"):
        assert getattr(ds, key) == getattr(ref, key), key
    assert close(ds.quan(1, "Mpccm/h").to("cm").v, ref.quan(1, "Mpccm/h").to("cm").v, 1e24)


def test_covering_grid_at_the_finest_level(pair):
    """Levels are RAMSES's (0: the box): yt.load's level L is level L + levelmin here."""
    ds, ref, _ = pair
    top, levelmin = ref.max_level, ref.parameters["levelmin"]
    assert ds.max_level == top + levelmin
    corner = [0.4, 0.45, 0.5]
    got = ds.covering_grid(top + levelmin, left_edge=corner, dims=[24] * 3)["gas", "density"]
    want = ref.covering_grid(top, left_edge=corner, dims=[24] * 3)["gas", "density"]
    assert np.abs(want.d).max() > 0
    np.testing.assert_array_equal(got.d, want.d)


def test_particles_equal_yt_load(pair):
    ds, ref, path = pair
    a, b = ds.all_data(), ref.all_data()
    if not snapkit.open(path).info["components"]["particles"]:
        assert "io" not in ds.particle_types
        return
    ia, ib = np.argsort(a["io", "particle_identity"].d), np.argsort(b["io", "particle_identity"].d)
    assert ia.size == ib.size > 0
    for f, unit in [(f"particle_position_{x}", "cm") for x in "xyz"] + \
            [(f"particle_velocity_{x}", "cm/s") for x in "xyz"] + \
            [("particle_mass", "g"), ("particle_family", ""), ("particle_level", "")]:
        got, want = a["io", f].to(unit).d[ia], b["io", f].to(unit).d[ib]
        np.testing.assert_array_equal(got, want, err_msg=f)
    for ptype in ("DM", "star", "cloud"):
        assert a[ptype, "particle_mass"].size == b[ptype, "particle_mass"].size, ptype
    sphere = [d.sphere([0.4, 0.5, 0.6], (0.3, "unitary")) for d in (ds, ref)]
    assert sphere[0]["io", "particle_mass"].size == sphere[1]["io", "particle_mass"].size
    assert close(sphere[0]["all", "particle_mass"].sum(), sphere[1]["all", "particle_mass"].sum(),
                 sphere[1]["all", "particle_mass"].sum())


def ancestors_reference(level, cx, cy, cz):
    """The mask and leaf order as a plain construction: every node (leaves
    and the ancestors of each, np.unique per level) keyed by its Morton
    path padded to the finest level, sorted by (key, level)."""
    bits = int(level.max())
    keys, levels, refined = [], [], []
    for lv in range(bits + 1):
        mine = level == lv
        finer = level > lv
        for sel, ref in ((mine, 0), (finer, 1)):
            shift = (level[sel] - lv).astype(np.int64)
            x, y, z = (c[sel].astype(np.int64) >> shift for c in (cx, cy, cz))
            key = np.zeros(x.size, dtype=object)
            for b in range(lv):
                bit = lv - 1 - b
                key = key * 8 + ((x >> bit) & 1) * 4 + ((y >> bit) & 1) * 2 + ((z >> bit) & 1)
            key = np.unique(key) if ref else key
            rows = np.flatnonzero(sel) if not ref else np.full(key.size, -1)
            keys += [int(k) << (3 * (bits - lv)) for k in key]
            levels += [lv] * key.size
            refined += [(ref, r) for r in rows]
    order = sorted(range(len(keys)), key=lambda i: (keys[i], levels[i]))
    mask = np.array([refined[i][0] for i in order], dtype=np.uint8)
    leaves = np.array([refined[i][1] for i in order if refined[i][0] == 0])
    return mask, leaves


def test_octree_mask_equals_a_plain_construction():
    t = snapkit.open(folder("data:sedov3d/output_00001")).hydro(lmax=6)
    level, cx, cy, cz = (t[c] for c in ("level", "cx", "cy", "cz"))
    mask, order = snapkit.ytbridge.octree(level, cx, cy, cz)
    want_mask, want_order = ancestors_reference(level, cx, cy, cz)
    np.testing.assert_array_equal(mask, want_mask)
    np.testing.assert_array_equal(order, want_order)
    # A small tree of leaves at levels 1, 2 and 3, given in shuffled order.
    rows = [(1, 0, 0, 0), (1, 1, 0, 0), (1, 0, 1, 0), (1, 1, 1, 0), (1, 0, 0, 1), (1, 1, 0, 1),
            (1, 0, 1, 1)] + [(2, 2 + i // 4, 2 + (i // 2) % 2, 2 + i % 2) for i in range(7)] + \
        [(3, 6 + i // 4, 6 + (i // 2) % 2, 6 + i % 2) for i in range(8)]
    rows = [rows[i] for i in np.random.default_rng(5).permutation(len(rows))]
    level, cx, cy, cz = (np.array(c, dtype=np.int32) for c in zip(*rows))
    mask, order = snapkit.ytbridge.octree(level, cx, cy, cz)
    assert mask.tolist() == [1] + [0] * 7 + [1] + [0] * 7 + [1] + [0] * 8
    want_mask, want_order = ancestors_reference(level, cx, cy, cz)
    np.testing.assert_array_equal(mask, want_mask)
    np.testing.assert_array_equal(order, want_order)


def test_inputs_tables_output_and_snapkit_file(tmp_path):
    path = folder("gravpart/output_00002")
    out = snapkit.open(path)
    hydro, grav, parts = out.hydro(), out.gravity(), out.particles()
    whole = snapkit.to_yt(out)
    want = whole.all_data()
    kinds = [snapkit.to_yt(hydro, gravity=grav, particles=parts)]
    store = str(tmp_path / "gravpart.snapkit")
    snapkit.convert(path, store)
    kinds.append(snapkit.to_yt(store))
    for ds in kinds:
        ad = ds.all_data()
        for f in (("gas", "mass"), ("gravity", "Potential"), ("io", "particle_mass")):
            assert ad[f].size == want[f].size
            assert close(ad[f].sum(), want[f].sum(), np.abs(want[f]).sum()), f
    only = snapkit.to_yt(parts).all_data()
    assert only["io", "particle_mass"].size == len(parts)
    capped = snapkit.to_yt(path, particles=False, lmax=6)
    assert capped.all_data()["index", "ones"].size == len(out.hydro(lmax=6))
    assert "io" not in capped.particle_types


def test_refusals():
    path = folder("data:sedov3d/output_00001")
    part = snapkit.open(path).hydro(xrange=(0, 0.5))
    with pytest.raises(ValueError, match="fill the whole box"):
        snapkit.to_yt(part)
    flat = os.path.join(DATA, "ramses", "sedov2d")
    for out in sorted(glob.glob(os.path.join(flat, "output_*")))[:1]:
        with pytest.raises(ValueError, match="3-D outputs only"):
            snapkit.to_yt(out)
    # A box of 2x1x1 coarse cells fills half the cube: no octree of it.
    for out in sorted(glob.glob(os.path.join(DATA, "ramses", "coarse211b", "output_*")))[:1]:
        with pytest.raises(ValueError, match="fill the whole box"):
            snapkit.to_yt(out)
    hydro = snapkit.open(path).hydro()
    with pytest.raises(ValueError, match="other cells"):
        snapkit.to_yt(hydro, gravity=snapkit.open(path).hydro(lmax=6))
