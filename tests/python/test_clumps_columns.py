"""The catalogue columns issue 11 lists, recomputed with numpy from the ids:
parent and depth of flat catalogues, the half-mass radius, the bounding
box, the mass-weighted temperature (with its mean molecular weight), and
their units in the metadata; for cells and for particles."""
import os

import numpy as np
import pytest

import snapkit
from ramses_fixtures import DATA, SHARED

CLUMPS3D = os.path.join(SHARED, "fixtures", "ramses", "clumps3d", "output_00002")
GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
needs_fixture = pytest.mark.skipif(not os.path.isdir(CLUMPS3D), reason="no clumps3d fixture")

M_H, K_B = 1.66e-24, 1.380649e-16  # g, erg/K: RAMSES's and Mera's m_H

ISSUE_COLUMNS = ["id", "parent", "depth", "n_cells", "mass", "volume", "x", "y", "z", "peak",
                 "peak_x", "peak_y", "peak_z", "vx", "vy", "vz", "sigma_v", "radius", "r_half",
                 "bbox_xmin", "bbox_xmax", "bbox_ymin", "bbox_ymax", "bbox_zmin", "bbox_zmax",
                 "temperature", "e_kin", "e_therm", "e_grav", "alpha_vir", "bound"]


def half_mass_radius(d, m):
    """Smallest distance within which the members hold half the mass."""
    o = np.argsort(d, kind="stable")
    cum = np.cumsum(m[o])
    return d[o][np.searchsorted(cum, 0.5 * m.sum())]


@pytest.fixture(scope="module")
def cells():
    return snapkit.open(CLUMPS3D).read("hydro")


@needs_fixture
@pytest.mark.parametrize("finder", ["faces", "watershed", "fof", "dendrogram"])
def test_every_issue_column_with_units(cells, finder):
    cat, _ = snapkit.clumps(cells, 1.0, finder=finder, linking_length=1.0, min_delta=0.5)
    missing = [c for c in ISSUE_COLUMNS if c not in cat.columns]
    assert not missing
    for c in cat.columns:
        assert "units." + c in cat.meta
    assert cat.meta["units.temperature"] == "K" and cat.meta["units.r_half"] == "code length"
    assert cat.meta["units.e_kin"] == "code energy" and float(cat.meta["unit_energy"]) == 1
    if finder in ("faces", "fof"):
        assert (cat["parent"] == -1).all() and (cat["depth"] == 0).all()


@needs_fixture
@pytest.mark.parametrize("mu", [0.0, 0.6, 1.22])
def test_cell_columns_against_numpy(cells, mu):
    # physical units, so that the temperature is not a number near 1e-10
    d = cells.to_dict()
    meta = dict(cells.meta, unit_l="3.0857e21", unit_d="1.6726e-24", unit_t="3.1557e15")
    t = snapkit.Table.from_arrays(d, meta=meta)
    cat, ids = snapkit.clumps(t, 1.0, mu=mu)
    assert len(cat) == 4
    box = float(meta["boxlen"])
    dx = box / 2.0 ** d["level"].astype(float)
    pos = np.stack([(d[c] + 0.5) * dx for c in ("cx", "cy", "cz")], axis=1)
    m = d["density"] * dx ** 3
    unit_v = 3.0857e21 / 3.1557e15
    mu_used = mu if mu > 0 else 1 / 0.76
    assert float(cat.meta["clumps.mu"]) == pytest.approx(mu_used, rel=1e-15)
    for row in range(len(cat)):
        k = ids == row + 1
        M = m[k].sum()
        com = (m[k][:, None] * pos[k]).sum(0) / M  # these clumps do not cross the boundary
        r = np.sqrt(((pos[k] - com) ** 2).sum(1))
        assert cat["r_half"][row] == pytest.approx(half_mass_radius(r, m[k]), rel=1e-12)
        assert 0 < cat["r_half"][row] < cat["radius"][row]
        for a, c in enumerate("xyz"):
            assert cat["bbox_%smin" % c][row] == (pos[k, a] - dx[k] / 2).min()
            assert cat["bbox_%smax" % c][row] == (pos[k, a] + dx[k] / 2).max()
        T = d["pressure"][k] / d["density"][k] * unit_v ** 2 * M_H * mu_used / K_B
        assert cat["temperature"][row] == pytest.approx((m[k] * T).sum() / M, rel=1e-12)


def test_bbox_across_the_boundary():
    """Cells at x = 0 and x = 7 (of 8) touch through the boundary: the box
    is taken at the images nearest the peak cell (x = 7), so it runs past
    boxlen: [7, 9)."""
    t = snapkit.Table.from_arrays({"level": np.array([3, 3], np.int32),
                                   "cx": np.array([0, 7], np.int32),
                                   "cy": np.array([2, 2], np.int32),
                                   "cz": np.array([4, 4], np.int32),
                                   "density": np.array([2.0, 3.0])},
                                  meta={"kind": "cells", "boxlen": 8})
    cat, _ = snapkit.clumps(t, 1.0)
    assert (cat["bbox_xmin"][0], cat["bbox_xmax"][0]) == (7.0, 9.0)
    assert (cat["bbox_ymin"][0], cat["bbox_ymax"][0]) == (2.0, 3.0)
    # half of the mass (5 / 2) is reached with the heavier cell: 3 > 2.5
    assert cat["r_half"][0] == pytest.approx(abs(7.5 - (3 * 7.5 + 2 * 8.5) / 5), rel=1e-15)
    assert "temperature" not in cat.columns  # no pressure


def test_particle_columns_against_numpy():
    parts = snapkit.open(GRAVPART).particles()
    cat, ids = snapkit.clumps(parts, finder="fof", linking_length=0.2, min_members=5)
    assert len(cat) >= 3
    assert (cat["parent"] == -1).all() and (cat["depth"] == 0).all()
    assert cat.meta["units.r_half"] == "code length"
    box = float(parts.meta["boxlen"])
    pos = np.stack([parts["position_" + a] for a in "xyz"], axis=1).astype(float)
    m = parts["mass"].astype(float)
    for row in range(len(cat)):
        rows = np.nonzero(ids == row + 1)[0]
        ref = pos[rows[0]]
        u = ref + (pos[rows] - ref + box / 2) % box - box / 2  # nearest images to the first
        com = (m[rows][:, None] * u).sum(0) / m[rows].sum()
        r = np.sqrt(((u - com) ** 2).sum(1))
        assert cat["r_half"][row] == pytest.approx(half_mass_radius(r, m[rows]), rel=1e-9)
        for a, c in enumerate("xyz"):
            assert cat["bbox_%smin" % c][row] == pytest.approx(u[:, a].min(), rel=1e-14)
            assert cat["bbox_%smax" % c][row] == pytest.approx(u[:, a].max(), rel=1e-14)


@needs_fixture
def test_cli_mu(cells, tmp_path):
    import json
    import subprocess
    from ramses_fixtures import CLI
    out = str(tmp_path / "c.json")
    r = subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1", "--mu", "1.22", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.load(open(out))
    cat, _ = snapkit.clumps(cells, 1.0, mu=1.22)
    assert float(doc["meta"]["clumps.mu"]) == 1.22 and doc["meta"]["units.temperature"] == "K"
    assert [c["temperature"] for c in doc["clumps"]] == pytest.approx(list(cat["temperature"]),
                                                                       rel=1e-15)
    assert [c["r_half"] for c in doc["clumps"]] == list(cat["r_half"])
