"""Boxes of several coarse cells (tests/data/ramses/coarse222: 2x2x2,
periodic; coarse211b: 2x1x1 padded by outflow boundaries to 4x3x3).

Levels count from a box of one coarse cell (RAMSES's + log2 nx), boxlen is
the amr header's (info_'s is boxlen / nx), cell indices run over the whole
box. The statistics against the numpy reader of the Fortran records are in
test_ramses_reference.py; here: the geometry, and region reads equal the
full read filtered by cell centre while opening fewer files."""
import json
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA

FIXTURES = {
    # name: (folder, coarse grid, RAMSES's levelmin, levelmax in info_, ncpu)
    "coarse222": ("ramses/coarse222/output_00001", (2, 2, 2), 2, 4, 4),
    "coarse211b": ("ramses/coarse211b/output_00002", (2, 1, 1), 2, 4, 3),
}


def folder(name):
    return f"{DATA}/{FIXTURES[name][0]}"


@pytest.mark.parametrize("name", FIXTURES)
def test_geometry(name):
    _, grid, lmin, lmax, ncpu = FIXTURES[name]
    out = snapkit.open(folder(name))
    info = out.info
    assert info["coarse_grid"] == {"nx": grid[0], "ny": grid[1], "nz": grid[2],
                                   "level_shift": 1, "levelmin": lmin + 1,
                                   "levelmax": lmax + 1}
    assert int(info["info"]["levelmin"]) == lmin  # as written
    t = out.read("hydro")
    assert float(t.meta["boxlen"]) == 1.0
    assert float(t.meta["ramses.info.boxlen"]) == 0.5
    assert t.meta["coarse_grid"] == "x".join(map(str, grid))
    assert t["level"].min() >= lmin + 1 and t["level"].max() <= lmax + 1
    # Indices cover the whole box: 2^level per boxlen, ny/nx (nz/nx) of it
    # on y (z), and both halves along x are populated.
    for axis, n in zip(("cx", "cy", "cz"), grid):
        top = np.ldexp(1.0, t["level"]) * n / grid[0]
        assert (t[axis] >= 0).all() and (t[axis] < top).all()
    centre_x = (t["cx"] + 0.5) / np.ldexp(1.0, t["level"])
    assert (centre_x < 0.5).any() and (centre_x > 0.5).any()
    # No two leaves overlap: distinct finest-level footprints add up to the
    # box's volume (checked exactly in test_ramses_reference.py).
    keys = set(zip(t["level"].tolist(), t["cx"].tolist(), t["cy"].tolist(), t["cz"].tolist()))
    assert len(keys) == len(t)


BOXES = [((0.0, 0.5), (0.0, 0.5), (0.0, 0.5)), ((0.5, 1.0), (0.0, 0.25), (0.25, 0.5)),
         ((0.3, 0.7), (0.2, 0.45), (0.1, 0.4)), ((0.0, 1.0), (0.6, 1.0), (0.0, 1.0))]


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("box", BOXES)
def test_region_equals_filtered_full_read(name, box):
    out = snapkit.open(folder(name))
    full = out.read("hydro")
    scale = np.ldexp(1.0, -full["level"].astype(np.int64))
    keep = np.ones(len(full), bool)
    for axis, (lo, hi) in zip(("cx", "cy", "cz"), box):
        c = (full[axis] + 0.5) * scale
        keep &= (c >= lo) & (c < hi)
    part = out.read("hydro", xrange=box[0], yrange=box[1], zrange=box[2])
    want = sorted(zip(full["level"][keep], full["cx"][keep], full["cy"][keep], full["cz"][keep],
                      full["density"][keep], full["pressure"][keep]))
    got = sorted(zip(part["level"], part["cx"], part["cy"], part["cz"], part["density"],
                     part["pressure"]))
    assert got == want


@pytest.mark.parametrize("name", FIXTURES)
def test_region_opens_fewer_files(name):
    ncpu = FIXTURES[name][4]
    # One corner of the box: the Hilbert domains leave files out.
    cmd = [CLI, "stats", folder(name), "--json", "--xrange", "0", "0.2", "--yrange", "0",
           "0.2", "--zrange", "0", "0.2"]
    got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    assert got["rows"] > 0
    assert got["files_opened"] < ncpu
    # Beyond the 2x1x1 box's y extent (boxlen / 2) there is nothing.
    if name == "coarse211b":
        cmd = [CLI, "stats", folder(name), "--json", "--yrange", "0.6", "1"]
        got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        assert got["rows"] == 0 and got["files_opened"] == 0


@pytest.mark.parametrize("name", FIXTURES)
def test_projection_equals_numpy_deposit(name):
    """sd along z (code units) on 2^levelmax pixels per boxlen: each leaf
    adds density x its edge to the pixels it covers (numpy, independent of
    the projector); a 2x1x1 box leaves the map's upper half empty."""
    t = snapkit.open(folder(name)).read("hydro")
    m = snapkit.project(t, "sd", axis="z")
    res = m.nx
    lmax = int(round(np.log2(res)))
    boxlen = float(t.meta["boxlen"])
    want = np.zeros((res, res))
    for lev, cx, cy, rho in zip(t["level"], t["cx"], t["cy"], t["density"]):
        k = 1 << (lmax - int(lev))
        want[cy * k:(cy + 1) * k, cx * k:(cx + 1) * k] += rho * boxlen / 2.0 ** lev
    got = m["sd"]
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max()
    if FIXTURES[name][1][1] == 1:
        assert (got[res // 2:, :] == 0).all() and (got[: res // 2, :] > 0).all()
