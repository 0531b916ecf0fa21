"""snapkit.outputs: a run's outputs with their times and completeness.
Times against the info files as parsed here and, for the cosmological
fixture, against yt 4.1.4's current redshift and time (cosmology.json)."""
import json
import os
import re
import shutil

import pytest

import snapkit
from ramses_fixtures import DATA, SHARED

MYR_S = 3.15576e13


def info_value(out, key):
    num = int(os.path.basename(out).split("_")[1])
    text = open(os.path.join(out, "info_%05d.txt" % num)).read()
    return float(re.search(r"^%s\s*=\s*(\S+)" % key, text, re.M).group(1))


def test_run_with_a_missing_file(tmp_path):
    whole = os.path.join(DATA, "ramses", "sedov3d", "output_00001")
    os.symlink(os.path.abspath(whole), tmp_path / "output_00001")
    shutil.copytree(os.path.join(DATA, "ramses", "gravpart", "output_00002"),
                    tmp_path / "output_00002")
    os.remove(tmp_path / "output_00002" / "grav_00002.out00007")
    outs = snapkit.outputs(str(tmp_path))
    assert [o["output"] for o in outs] == [1, 2]
    assert [o["state"] for o in outs] == ["complete", "missing"]
    assert outs[1]["problem"] == "grav_00002.out00007 missing"
    for o in outs:
        assert o["time"] == info_value(o["path"], "time")
        assert o["ncpu"] == info_value(o["path"], "ncpu")
        assert o["redshift"] is None and o["time_Myr"] is None  # code units
        assert o["bytes"] == sum(os.path.getsize(os.path.join(o["path"], f))
                                 for f in os.listdir(o["path"]))
    assert [o["output"] for o in snapkit.outputs(str(tmp_path), complete=True)] == [1]


def test_cosmological_times_against_yt(tmp_path):
    cosmo = os.path.join(SHARED, "fixtures", "ramses", "cosmo32", "output_00003")
    if not os.path.exists(cosmo + ".cosmology.json"):
        pytest.skip("cosmo32 fixture absent ($SNAPKIT_SHARED/fixtures/ramses/cosmo32)")
    yt = json.load(open(cosmo + ".cosmology.json"))
    os.symlink(os.path.abspath(cosmo), tmp_path / "output_00003")
    (o,) = snapkit.outputs(str(tmp_path))
    assert o["state"] == "complete" and o["cosmological"]
    assert o["redshift"] == pytest.approx(yt["current_redshift"], rel=1e-12)
    assert o["aexp"] == yt["aexp"]
    # yt's current time misses the 0.538 Myr before a = 1e-3 and wobbles
    # by its interpolation (test_ramses_cosmology.test_age_against_yt)
    assert o["time_Myr"] - 0.538 == pytest.approx(yt["current_time_Gyr"] * 1e3, abs=0.03)


def test_not_a_run(tmp_path):
    with pytest.raises(snapkit.Error, match="no output_NNNNN folders"):
        snapkit.outputs(str(tmp_path))
    with pytest.raises(snapkit.Error, match="cannot open"):
        snapkit.outputs(str(tmp_path / "absent"))
