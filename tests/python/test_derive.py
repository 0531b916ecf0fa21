"""snapkit.derive beyond the frame quantities yt checks (test_derive_yt.py):
the gas quantities against their formulas in numpy, units and astropy,
a .snapkit file against its RAMSES output, and the refusals."""
import os

import numpy as np
import pytest

import snapkit
from ramses_fixtures import SHARED

ROOT = os.path.join(SHARED, "fixtures", "ramses")
M_H, KB, X = 1.66e-24, 1.380649e-16, 0.76


def output(name):
    path = os.path.join(ROOT, name)
    if not os.path.isdir(path):
        pytest.skip("fixture %s is not here (SNAPKIT_SHARED)" % name)
    return path


@pytest.fixture(scope="module")
def cosmo():
    return snapkit.open(output("cosmo32/output_00003")).hydro()


def meta(t, key):
    return float(t.meta[key])


def test_gas_quantities_equal_numpy(cosmo):
    t = cosmo
    rho, p = t["density"], t["pressure"]
    v = np.array([t["velocity_" + a] for a in "xyz"])
    bulk = np.array([1.0, -2.0, 0.5]) * np.abs(v).max() / 10
    vr = v - bulk[:, None]
    gamma = meta(t, "gamma")
    unit_m = meta(t, "unit_d") * meta(t, "unit_l") ** 3
    size = meta(t, "boxlen") / 2.0 ** t["level"]
    # cosmo32 holds a few cells of negative pressure: cs is NaN there in both
    with np.errstate(invalid="ignore"):
        cs = np.sqrt(gamma * p / rho)
        cs14 = np.sqrt(1.4 * p / rho)
    assert np.isfinite(cs).sum() > 0.9 * len(cs)
    want = {"T": p / rho, "cs": cs,
            "mach": np.linalg.norm(vr, axis=0) / cs,
            "entropy": p / rho ** gamma, "ekin": 0.5 * rho * (vr * vr).sum(axis=0),
            "eth": p / (gamma - 1), "v": np.linalg.norm(v, axis=0),
            "v_rel": np.linalg.norm(vr, axis=0), "n": rho * unit_m / (M_H / X),
            "nH": rho * X * unit_m / M_H, "volume": size ** 3, "mass": rho * size ** 3}
    for name, w in want.items():
        got = snapkit.derive(t, name, bulk_velocity=bulk)
        np.testing.assert_allclose(got, w, rtol=2e-15, atol=0, err_msg=name)
    # the options
    np.testing.assert_allclose(snapkit.derive(t, "n", mu=0.6), rho * unit_m / (0.6 * M_H),
                               rtol=2e-15)
    np.testing.assert_allclose(snapkit.derive(t, "nH", hydrogen_fraction=0.7),
                               rho * 0.7 * unit_m / M_H, rtol=2e-15)
    np.testing.assert_allclose(snapkit.derive(t, "cs", gamma=1.4), cs14, rtol=2e-15)


def test_units(cosmo):
    t = cosmo
    unit_l, unit_t = meta(t, "unit_l"), meta(t, "unit_t")
    unit_v = unit_l / unit_t
    c = [0.5 * meta(t, "boxlen")] * 3
    code = snapkit.derive(t, "v_phi", center=c)
    np.testing.assert_allclose(snapkit.derive(t, "v_phi", center=c, unit="km/s"),
                               code * unit_v / 1e5, rtol=1e-15)
    np.testing.assert_allclose(snapkit.derive(t, "r", center=c, unit="kpc"),
                               snapkit.derive(t, "r", center=c) * unit_l / 3.0856775814913673e21,
                               rtol=1e-15)
    temp = snapkit.derive(t, "T", unit="K")
    np.testing.assert_allclose(temp, t["pressure"] / t["density"] * unit_v ** 2 * M_H / X / KB,
                               rtol=1e-14)
    with pytest.raises(snapkit.Error, match="does not fit v_phi"):
        snapkit.derive(t, "v_phi", center=c, unit="K")


def test_astropy(cosmo):
    u = pytest.importorskip("astropy.units")
    t = cosmo
    unit_v = meta(t, "unit_l") / meta(t, "unit_t")
    c = [0.5 * meta(t, "boxlen")] * 3
    q = snapkit.derive(t, "v_phi", center=c, astropy=True)
    np.testing.assert_allclose(q.to_value("km/s"), snapkit.derive(t, "v_phi", center=c) * unit_v
                               / 1e5, rtol=1e-14)
    # a centre given as a Quantity: the same rows
    cq = np.array(c) * meta(t, "unit_l") * u.cm
    np.testing.assert_allclose(snapkit.derive(t, "r", center=cq.to(u.kpc)),
                               snapkit.derive(t, "r", center=c), rtol=1e-14)
    assert snapkit.derive(t, "T", astropy=True).unit.physical_type == "temperature"
    assert snapkit.derive(t, "n", astropy=True).to_value("cm-3").max() > 0


def test_snapkit_file_equals_its_output(tmp_path):
    src = output("mhd3d/output_00002")
    path = str(tmp_path / "m.snapkit")
    snapkit.convert(src, path)
    a = snapkit.open(src).hydro()
    b = snapkit.open(path).read("hydro")
    oa = np.lexsort((a["cz"], a["cy"], a["cx"], a["level"]))
    ob = np.lexsort((b["cz"], b["cy"], b["cx"], b["level"]))
    kw = dict(center=[0.3, 0.2, 0.9], axis=(1, -1, 2), bulk_velocity=(0.1, 0, -0.1))
    for q in ("v_phi", "v_theta", "v_R", "theta", "phi", "j", "B", "mach"):
        np.testing.assert_array_equal(snapkit.derive(a, q, **kw)[oa],
                                      snapkit.derive(b, q, **kw)[ob], err_msg=q)


def test_refusals(cosmo):
    with pytest.raises(snapkit.Error, match="taken about a centre"):
        snapkit.derive(cosmo, "v_r")
    with pytest.raises(snapkit.Error, match="unknown quantity 'nope'.*v_phi"):
        snapkit.derive(cosmo, "nope")
    with pytest.raises(snapkit.Error, match="has no direction"):
        snapkit.derive(cosmo, "v_z", axis=(0, 0, float("nan")))
    with pytest.raises(snapkit.Error, match="B needs B_x/y/z_left"):
        snapkit.derive(cosmo, "B")
    with pytest.raises(snapkit.Error, match="'v_phi' needs the column 'velocity_y'"):
        snapkit.derive(snapkit.Table.from_arrays(
            {"level": np.array([1], np.int32), "cx": np.array([0], np.int32),
             "velocity_x": np.array([1.0])}, {"boxlen": 1.0, "kind": "cells"}),
            "v_phi", center=[0.5, 0.5, 0.5])
    parts = snapkit.open(output("gravpart/output_00002")).particles()
    with pytest.raises(snapkit.Error, match="'T' needs cells, not particles"):
        snapkit.derive(parts, "T")
    # the older names still come from the RAMSES module
    np.testing.assert_array_equal(snapkit.derive(parts, "x"), parts["position_x"])


def test_quantities_list():
    names = [q["name"] for q in snapkit.quantities()]
    for want in ("r", "theta", "phi", "v_r", "v_theta", "v_phi", "R", "z", "v_R", "v_z",
                 "j_x", "j_y", "j_z", "j", "mass", "volume", "T", "cs", "mach", "entropy",
                 "ekin", "eth", "v", "v_rel", "n", "nH", "B", "plasma_beta"):
        assert want in names
    v_phi = next(q for q in snapkit.quantities() if q["name"] == "v_phi")
    assert v_phi["needs"] == ["center", "axis", "bulk_velocity"]
    assert v_phi["cells"] == ["velocity_x", "velocity_y", "velocity_z"]
