"""Derived quantities and unit factors against hand computation."""
import numpy as np
import pytest

import snapkit
from ramses_fixtures import DATA

OUT = DATA + "/ramses/gravpart/output_00002"


def test_derived_cells_by_hand():
    t = snapkit.open(OUT).hydro(lmax=6)
    lev = t["level"].astype(np.float64)
    size = 1.0 / 2.0 ** lev  # boxlen = 1
    np.testing.assert_array_equal(snapkit.derive(t, "cell_size"), size)
    np.testing.assert_array_equal(snapkit.derive(t, "volume"), size ** 3)
    np.testing.assert_array_equal(snapkit.derive(t, "mass"), t["density"] * size ** 3)
    for axis in "xyz":
        np.testing.assert_array_equal(snapkit.derive(t, axis), (t["c" + axis] + 0.5) * size)
    with pytest.raises(snapkit.Error, match="unknown quantity 'speed'"):
        snapkit.derive(t, "speed")


def test_derived_particles():
    p = snapkit.open(OUT).particles()
    np.testing.assert_array_equal(snapkit.derive(p, "mass"), p["mass"])
    np.testing.assert_array_equal(snapkit.derive(p, "y"), p["position_y"])


def test_unit_factors_by_hand():
    # A table whose units are known: 1 code length = 1 kpc, 1 code density =
    # 1e-24 g/cm^3, 1 code time = 1 Myr.
    kpc, myr = 3.0856775814913673e21, 3.15576e13
    u = snapkit.Table.from_arrays({"x": np.zeros(1)},
                                  meta={"boxlen": 1, "unit_l": kpc, "unit_d": 1e-24, "unit_t": myr})
    f = lambda unit, mu=None: snapkit.unit_factor(u, unit, mu)  # noqa: E731
    assert f("kpc") == pytest.approx(1.0, rel=1e-15)
    assert f("pc") == pytest.approx(1000.0, rel=1e-15)
    assert f("g/cm^3") == 1e-24
    assert f("g") == pytest.approx(1e-24 * kpc ** 3, rel=1e-15)
    assert f("Msun") == pytest.approx(1e-24 * kpc ** 3 / 1.98841e33, rel=1e-15)
    assert f("Msun/pc^3") == pytest.approx(1e-24 * (kpc / 1000) ** 3 / 1.98841e33, rel=1e-15)
    assert f("H/cm^3") == pytest.approx(1e-24 * 0.76 / 1.66e-24, rel=1e-15)
    v = kpc / myr
    assert f("km/s") == pytest.approx(v / 1e5, rel=1e-15)
    assert f("Myr") == pytest.approx(1.0, rel=1e-15)
    assert f("erg/cm^3") == pytest.approx(1e-24 * v * v, rel=1e-15)
    assert f("K") == pytest.approx(v * v * 1.66e-24 / 0.76 / 1.380649e-16, rel=1e-15)
    assert f("K", 0.6) == pytest.approx(v * v * 1.66e-24 * 0.6 / 1.380649e-16, rel=1e-15)
    with pytest.raises(snapkit.Error, match="unknown unit 'furlong'"):
        f("furlong")
    units = snapkit.open(OUT).units
    assert units["g/cm^3"] == 1.0 and units["cm"] == 1.0
