"""Tables to pandas and astropy: no copies of numeric columns, and RAMSES
columns carry their physical units."""
import os
import sys

import astropy.units as u
import numpy as np
import pandas as pd
import pytest
from astropy.table import QTable

import snapkit
from ramses_fixtures import DATA, SHARED

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
COSMO = os.path.join(SHARED, "fixtures", "ramses", "cosmo32", "output_00003")


def test_to_pandas_shares_memory():
    gas = snapkit.open(GRAVPART).hydro(lmax=5)
    df = gas.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == gas.columns and len(df) == len(gas) > 0
    for name in gas.columns:
        assert np.shares_memory(df[name].to_numpy(), gas[name]), name
        assert df[name].dtype == gas[name].dtype
    np.testing.assert_array_equal(df["density"].to_numpy(), gas["density"])
    assert df.attrs["component"] == "hydro" and df.attrs["kind"] == "cells"
    # the frame keeps the table alive
    expected = gas["pressure"].copy()
    del gas
    np.testing.assert_array_equal(df["pressure"].to_numpy(), expected)
    assert df["level"].min() == 4 and df["level"].max() == 5


def test_to_pandas_category():
    t = snapkit.Table.from_arrays({"element": np.array(["Cu", "Ni", "Cu"]),
                                   "x": np.array([0.5, 1.5, 2.5])})
    df = t.to_pandas()
    assert isinstance(df["element"].dtype, pd.CategoricalDtype)
    assert list(df["element"]) == ["Cu", "Ni", "Cu"]
    assert df["x"].sum() == 4.5


def test_to_astropy_units_from_metadata():
    # a cell table with the units of a 1 kpc box, density in 1e-24 g/cm^3
    unit_l, unit_d, unit_t = 3.0856775814913673e21, 1e-24, 3.15576e13
    t = snapkit.Table.from_arrays(
        {"level": np.array([3, 4], dtype=np.int32), "density": np.array([1.0, 2.0]),
         "velocity_x": np.array([0.5, -1.0]), "pressure": np.array([3.0, 4.0]),
         "metallicity": np.array([0.01, 0.02])},
        meta={"kind": "cells", "boxlen": 1.0, "unit_l": unit_l, "unit_d": unit_d,
              "unit_t": unit_t})
    qt = t.to_astropy()
    assert isinstance(qt, QTable)
    unit_v = unit_l / unit_t
    np.testing.assert_allclose(qt["density"].to_value(u.g / u.cm**3), [1e-24, 2e-24], rtol=1e-14)
    np.testing.assert_allclose(qt["velocity_x"].to_value(u.km / u.s),
                               [0.5 * unit_v / 1e5, -unit_v / 1e5], rtol=1e-14)
    np.testing.assert_allclose(qt["pressure"].to_value(u.erg / u.cm**3),
                               [3 * unit_d * unit_v**2, 4 * unit_d * unit_v**2], rtol=1e-14)
    # Msun/pc^3 as snapkit.unit_factor gives it (its own Msun and pc)
    np.testing.assert_allclose(qt["density"].to_value(u.Msun / u.pc**3),
                               t["density"] * snapkit.unit_factor(t, "Msun/pc^3"), rtol=1e-4)
    assert not hasattr(qt["level"], "unit") or qt["level"].unit is None
    assert qt["metallicity"].unit is None
    # no copy: the quantity is a view of the table's column
    assert np.shares_memory(qt["density"].value, t["density"])
    assert float(qt.meta["unit_l"]) == unit_l
    cu = t.column_units()
    assert cu["density"] == (unit_d, "g/cm3") and "level" not in cu


@pytest.mark.skipif(not os.path.isdir(COSMO), reason="shared cosmo32 fixture absent")
def test_to_astropy_cosmological_particles():
    out = snapkit.open(COSMO)
    p = out.particles()
    qt = p.to_astropy()
    np.testing.assert_allclose(qt["position_x"].to_value(u.kpc),
                               p["position_x"] * snapkit.unit_factor(p, "kpc"), rtol=1e-4)
    np.testing.assert_allclose(qt["mass"].to_value(u.Msun),
                               p["mass"] * snapkit.unit_factor(p, "Msun"), rtol=1e-4)
    assert qt["mass"].to_value(u.Msun).max() > 1e6  # physical masses, not code units
    assert qt["velocity_z"].unit.physical_type == "speed"
    # conformal time in a cosmological run: no unit claimed
    if "birth_time" in qt.colnames:
        assert qt["birth_time"].unit is None
    gas = out.hydro(lmax=4)
    d = gas.to_astropy()["density"]
    np.testing.assert_allclose(d.to_value(u.g / u.cm**3), gas["density"] * 3.43079733415293e-28,
                               rtol=1e-12)


def test_to_astropy_atoms_with_given_units():
    import snapkit.atoms as sa
    s = sa.read(os.path.join(DATA, "atoms", "cu_fcc_500_ase.extxyz"))
    qt = s.table.to_astropy(units={"x": "Angstrom", "y": "Angstrom", "z": "Angstrom"})
    assert qt["x"].unit == u.AA
    assert qt["x"].to_value(u.nm).max() == pytest.approx(s["x"].max() / 10)
    assert list(qt["element"][:2]) == ["Cu", "Cu"]
    with pytest.raises(KeyError, match="nothing"):
        s.table.to_astropy(units={"nothing": "m"})


@pytest.mark.parametrize("module,method", [("pandas", "to_pandas"), ("astropy", "to_astropy")])
def test_missing_package_is_a_clear_import_error(monkeypatch, module, method):
    t = snapkit.Table.from_arrays({"x": np.arange(3.0)})
    for name in list(sys.modules):
        if name == module or name.startswith(module + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(ImportError, match=rf"Table.{method}\(\) needs {module}.*python3-{module}"):
        getattr(t, method)()
