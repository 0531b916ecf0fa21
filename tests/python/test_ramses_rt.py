"""RAMSES-RT (the rt3d fixture): info_rt in the metadata, rt cells through
the CLI's projection, and an rt file missing for one CPU."""
import math
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, SHARED

RT = os.path.join(SHARED, "fixtures", "ramses", "rt3d", "output_00002")
pytestmark = pytest.mark.skipif(not os.path.isdir(RT), reason="shared rt3d fixture absent")


def test_info_rt_keys():
    out = snapkit.open(RT)
    rt = out.info["info_rt"]
    # As printed in info_rt_00002.txt.
    assert rt["nGroups"] == 3 and rt["nIons"] == 3 and rt["iIons"] == 6
    assert rt["unit_pf"] == 0.977817916785499e8 and rt["rt_c_frac"] == 0.01
    assert rt["group_2.egy"] == 35.08
    assert rt["group_3.csn"].split() == ["7.889E-20", "1.197E-18", "1.055E-18"]
    t = out.read("rt", vars=["photon_flux_02"])
    assert t.meta["ramses.info_rt.X_fraction"] == "0.760000000000000E+00"
    assert t.columns == ["level", "cx", "cy", "cz", "photon_flux_02"]
    assert out.info["columns"]["rt"][0]["name"] == "photon_flux_01"


def test_projection_of_rt_conserves_the_volume_integral(tmp_path):
    out = snapkit.open(RT)
    t = out.read("rt")
    boxlen = float(t.meta["boxlen"])
    want = math.fsum(t["photon_flux_03_x"] * snapkit.derive(t, "volume"))
    path = str(tmp_path / "f.npy")
    subprocess.run([CLI, "project", RT, "--component", "rt", "--vars", "photon_flux_03_x",
                    "--weight", "volume", "--res", "32", "-o", path], check=True,
                   capture_output=True)
    m = np.load(path)
    pixel = boxlen / 32
    assert math.fsum(m.ravel()) * pixel * pixel * boxlen == pytest.approx(want, rel=1e-12)
    r = subprocess.run([CLI, "project", RT, "--component", "rt", "--vars", "photon_flux_01",
                        "-o", path], capture_output=True, text=True)
    assert r.returncode != 0 and "use volume weighting" in r.stderr


def test_rt_file_missing_for_one_cpu(tmp_path):
    d = tmp_path / "output_00002"
    d.mkdir()
    for name in os.listdir(RT):
        if name != "rt_00002.out00003":
            os.symlink(os.path.join(RT, name), d / name)
    r = subprocess.run([CLI, "stats", str(d), "--component", "rt"], capture_output=True,
                       text=True)
    assert r.returncode != 0
    assert "rt_00002.out00003" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert subprocess.run([CLI, "stats", str(d)], capture_output=True).returncode == 0


@pytest.mark.parametrize("fixture,method", [("rt3d", "rt"), ("clumps3d", "clump_field"),
                                            ("sink3d", "sinks"), ("clumps3d", "clumps")])
def test_shorthands_equal_read(fixture, method):
    folder = os.path.join(SHARED, "fixtures", "ramses", fixture, "output_00002")
    if not os.path.isdir(folder):
        pytest.skip("shared fixture %s absent" % fixture)
    out = snapkit.open(folder)
    box = {"xrange": (0.2, 0.9), "yrange": (0.1, 0.8)}
    a, b = getattr(out, method)(**box), out.read(method, **box)
    assert a.columns == b.columns and len(a) == len(b) > 0
    for c in a.columns:
        np.testing.assert_array_equal(a[c], b[c])
