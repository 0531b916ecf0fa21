"""Late-2017 outputs (key/value hydro descriptor, no particle descriptor, no
family/tag records), made from a current fixture by tests/tools/
make_ramses2017.py: the same cells and values, and the particle fields
minus family/tag plus a derived family."""
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import DATA, ROOT

SRC = os.path.join(DATA, "ramses", "gravpart", "output_00002")
TOOL = os.path.join(ROOT, "tests", "tools", "make_ramses2017.py")


@pytest.fixture(scope="module")
def old(tmp_path_factory):
    dst = tmp_path_factory.mktemp("ramses2017") / "output_00002"
    subprocess.run(["/usr/bin/python3", TOOL, SRC, str(dst)], check=True)
    return str(dst)


def test_files_are_old_style(old):
    assert not os.path.exists(os.path.join(old, "part_file_descriptor.txt"))
    assert open(os.path.join(old, "hydro_file_descriptor.txt")).readline().startswith("nvar")
    assert "Total number of particles" in open(os.path.join(old, "header_00002.txt")).read()


def test_hydro_and_gravity_same_as_current(old):
    cur, o = snapkit.open(SRC), snapkit.open(old)
    assert o.info["format"] == "2017" and cur.info["format"] == "current"
    assert o.info["hydro_descriptor"]["form"] == "late-2017 key/value"
    names = [v["name"] for v in o.info["hydro_descriptor"]["variables"]]
    assert names[4:] == ["thermal_pressure", "passive_scalar_1"]
    for comp in ("hydro", "gravity"):
        a, b = cur.read(comp), o.read(comp)
        assert a.columns == b.columns  # thermal_pressure -> pressure, scalar 1 -> metallicity
        for n in a.columns:
            np.testing.assert_array_equal(a[n], b[n])


def test_particles_without_family_records(old):
    cur, o = snapkit.open(SRC).particles(), snapkit.open(old)
    assert o.info["part_descriptor"] is None
    assert o.info["columns"]["particles_derived"] == ["family"]
    p = o.particles()
    assert p.columns == [c for c in cur.columns if c not in ("family", "tag")] + ["family"]
    assert p.meta["ramses.derived_columns"] == "family"
    for n in p.columns:
        np.testing.assert_array_equal(p[n], cur[n], err_msg=n)
    assert p["family"].dtype == np.int8 and p["identity"].dtype == np.int32
    box = o.particles(xrange=(0.3, 0.55), yrange=(0.4, 0.7), zrange=(0.2, 0.6))
    x, y, z = cur["position_x"], cur["position_y"], cur["position_z"]
    assert len(box) == np.sum((x >= 0.3) & (x < 0.55) & (y >= 0.4) & (y < 0.7) &
                              (z >= 0.2) & (z < 0.6))


def test_names_without_descriptor_or_metal(old, tmp_path):
    """No descriptor: yt's names by position (6 variables: metallicity last).
    Key/value descriptor of a run without metal=.true.: scalar_00, as current
    RAMSES numbers the first passive scalar."""
    bare = tmp_path / "output_00002"
    bare.mkdir()
    for name in os.listdir(old):
        if name not in ("hydro_file_descriptor.txt", "namelist.txt"):
            os.symlink(os.path.join(old, name), bare / name)
    names = [v["name"] for v in snapkit.open(str(bare)).info["columns"]["hydro"]]
    assert names == ["density", "velocity_x", "velocity_y", "velocity_z", "pressure",
                     "metallicity"]
    os.symlink(os.path.join(old, "hydro_file_descriptor.txt"),
               bare / "hydro_file_descriptor.txt")
    names = [v["name"] for v in snapkit.open(str(bare)).info["columns"]["hydro"]]
    assert names[4:] == ["pressure", "scalar_00"]
