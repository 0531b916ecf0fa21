"""FITS maps as astropy reads them: one HDU per quantity named after it,
a WCS that puts pixels at the projection's coordinates in a physical length
unit, and BUNIT that astropy.units parses."""
import os
import subprocess

import astropy.units as u
import numpy as np
import pytest
from astropy.io import fits
from astropy.wcs import WCS

import snapkit
from ramses_fixtures import CLI, DATA, SHARED

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
COSMO = os.path.join(SHARED, "fixtures", "ramses", "cosmo32", "output_00003")


def check_world(hdu, extent, unit):
    """Pixel corners and centre against the extent, in `unit`."""
    w = WCS(hdu.header)
    assert w.pixel_n_dim == 2 and [str(c) for c in w.wcs.cunit] == [unit, unit]
    ny, nx = hdu.data.shape
    # the lower-left corner of the first pixel (0-based pixel -0.5, -0.5)
    x, y = w.pixel_to_world_values(-0.5, -0.5)
    np.testing.assert_allclose([x, y], [extent[0], extent[2]], rtol=1e-12, atol=1e-12 * extent[1])
    # the image's centre, and the upper-right corner of the last pixel
    x, y = w.pixel_to_world_values((nx - 1) / 2, (ny - 1) / 2)
    np.testing.assert_allclose([x, y], [(extent[0] + extent[1]) / 2, (extent[2] + extent[3]) / 2],
                               rtol=1e-12, atol=1e-12 * extent[1])
    x, y = w.pixel_to_world_values(nx - 0.5, ny - 0.5)
    np.testing.assert_allclose([x, y], [extent[1], extent[3]], rtol=1e-12)


def test_cli_maps_in_astropy(tmp_path):
    path = tmp_path / "maps.fits"
    subprocess.run([CLI, "project", GRAVPART, "--vars", "sd,T,count", "--res", "64",
                    "--unit", "Msun/pc2", "--unit", "K", "-o", str(path)],
                   check=True, capture_output=True)
    gas = snapkit.open(GRAVPART).hydro()
    maps = snapkit.project(gas, "sd,T,count", res=64, units="Msun/pc2,K")
    with fits.open(path) as hdul:
        assert [h.name for h in hdul[1:]] == ["sd", "T", "count"]
        assert [h.header["EXTNAME"] for h in hdul[1:]] == ["sd", "T", "count"]
        assert u.Unit(hdul["sd"].header["BUNIT"]) == u.Msun / u.pc**2
        assert u.Unit(hdul["T"].header["BUNIT"]) == u.K
        assert u.Unit(hdul["count"].header["BUNIT"]) == u.count
        # the box is 1 code length = unit_l = 1 cm across: coordinates in cm
        assert maps.length_unit == "cm" and hdul["sd"].header["CTYPE1"] == "X"
        for name in ("sd", "T"):
            check_world(hdul[name], maps.extent_in("cm"), "cm")
            np.testing.assert_allclose(hdul[name].data, maps[name], rtol=1e-12)
        # the alternate WCS in code lengths
        wa = WCS(hdul["sd"].header, key="A")
        np.testing.assert_allclose(wa.pixel_to_world_values(-0.5, -0.5), maps.extent[::2])
        # values with their unit: the map in code units (unit_l = unit_d = 1: g/cm^2)
        sd = hdul["sd"].data * u.Unit(hdul["sd"].header["BUNIT"])
        code = snapkit.project(gas, "sd", res=64)["sd"]
        np.testing.assert_allclose(sd.to_value(u.g / u.cm**2), code, rtol=1e-6)


def test_code_units_have_no_bunit(tmp_path):
    gas = snapkit.open(GRAVPART).hydro(lmax=5)
    m = snapkit.project(gas, "sd,velocity_x", axis="x", res=32)
    m.save(tmp_path / "code.fits")
    with fits.open(tmp_path / "code.fits") as hdul:
        h = hdul["velocity_x"].header
        assert "BUNIT" not in h and h["SKUNIT"] == "code"
        assert (h["CTYPE1"], h["CTYPE2"]) == ("Y", "Z")


@pytest.mark.skipif(not os.path.isdir(COSMO), reason="shared cosmo32 fixture absent")
def test_physical_region_in_kpc(tmp_path):
    gas = snapkit.open(COSMO).hydro(lmax=6)
    m = snapkit.project(gas, "sd,density", center="bc", unit="kpc", xrange=(-300, 300),
                        yrange=(-200, 200), res=64, units="Msun/kpc2,nH")
    assert m.length_unit == "kpc"
    m.save(tmp_path / "kpc.fits")
    ext = m.extent_in("kpc")
    box_kpc = snapkit.unit_factor(gas, "kpc") * float(gas.meta["boxlen"])
    assert ext[1] - ext[0] == pytest.approx(600, abs=2 * box_kpc / 64)
    with fits.open(tmp_path / "kpc.fits") as hdul:
        check_world(hdul["sd"], ext, "kpc")
        assert u.Unit(hdul["sd"].header["BUNIT"]) == u.Msun / u.kpc**2
        assert u.Unit(hdul["density"].header["BUNIT"]) == u.cm**-3
    # off-axis: the image axes are RIGHT and UP, from the centre
    m = snapkit.project(gas, "sd", direction=(1, 1, 1), center="bc", unit="kpc", fov=400,
                        xrange=(-300, 300), yrange=(-300, 300), zrange=(-300, 300), res=64)
    m.save(tmp_path / "off.fits")
    with fits.open(tmp_path / "off.fits") as hdul:
        h = hdul["sd"].header
        assert (h["CTYPE1"], h["CTYPE2"]) == ("RIGHT", "UP") and h["CUNIT1"] == "kpc"
        check_world(hdul["sd"], m.extent_in("kpc"), "kpc")
