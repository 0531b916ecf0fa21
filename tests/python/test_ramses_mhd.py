"""MHD outputs (the mhd3d fixture, RAMSES's mhd solver): the face-centred
field read as stored (constrained transport keeps div B at round-off, so the
left/right records are paired right), the derived magnetic quantities
against numpy recomputed from the columns, Gauss, and projections of them."""
import math
import os

import numpy as np
import pytest

import snapkit
from ramses_fixtures import SHARED

MHD = os.path.join(SHARED, "fixtures", "ramses", "mhd3d", "output_00002")
pytestmark = pytest.mark.skipif(not os.path.isdir(MHD), reason="shared mhd3d fixture absent")


@pytest.fixture(scope="module")
def hydro():
    return snapkit.open(MHD).hydro()


def centred(h, axis):
    return 0.5 * (h["B_%s_left" % axis] + h["B_%s_right" % axis])


def test_faces_are_paired(hydro):
    flux = sum(hydro["B_%s_right" % a] - hydro["B_%s_left" % a] for a in "xyz")
    # The fixture's README: |sum(B_right - B_left)| <= 2.1e-15 in every leaf,
    # with fields up to 1.86; a shifted pairing gives differences of order 1.
    assert np.abs(flux).max() <= 2.1e-15
    assert max(np.abs(hydro["B_%s_left" % a]).max() for a in "xyz") > 1.5


def test_derived_quantities_equal_numpy(hydro):
    b = np.stack([centred(hydro, a) for a in "xyz"])
    b2 = (b * b).sum(axis=0)
    expect = {"B_x": b[0], "B_y": b[1], "B_z": b[2], "B": np.sqrt(b2),
              "magnetic_pressure": b2 / 2, "plasma_beta": hydro["pressure"] / (b2 / 2),
              "alfven_speed": np.sqrt(b2 / hydro["density"])}
    for name, want in expect.items():
        got = snapkit.derive(hydro, name)
        assert np.allclose(got, want, rtol=1e-15, atol=0), name


def test_gauss_from_the_info_file(hydro):
    info = snapkit.open(MHD).info["info"]
    unit_v = info["unit_l"] / info["unit_t"]
    assert snapkit.unit_factor(hydro, "G") == pytest.approx(
        math.sqrt(4 * math.pi * info["unit_d"]) * unit_v, rel=1e-15)
    assert snapkit.unit_factor(hydro, "uG") == pytest.approx(
        1e6 * snapkit.unit_factor(hydro, "G"), rel=1e-15)


def test_derived_on_non_mhd_output_is_an_error():
    t = snapkit.Table.from_arrays({"level": np.array([3], np.int32), "cx": np.array([0], np.int32),
                                   "cy": np.array([0], np.int32), "cz": np.array([0], np.int32),
                                   "density": np.array([1.0])}, {"boxlen": 1.0})
    with pytest.raises(snapkit.Error, match="B_x/y/z_left"):
        snapkit.derive(t, "B")


def test_projected_field_conserves_the_mass_weighted_sum(hydro):
    """A mass-weighted mean map times the mass map adds up to sum(B m)."""
    m = snapkit.project(hydro, ["mass", "B", "plasma_beta"], axis="z", res=64)
    mass = snapkit.derive(hydro, "mass")
    for name in ("B", "plasma_beta"):
        want = math.fsum(snapkit.derive(hydro, name) * mass)
        got = math.fsum((np.nan_to_num(m[name]) * m["mass"]).ravel())
        assert got == pytest.approx(want, rel=1e-12), name
