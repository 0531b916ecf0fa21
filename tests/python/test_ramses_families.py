"""Particle families (RAMSES pm_commons.f90 FAM_*): counts in info, and
family-filtered reads through Python, the CLI and .snapkit files, against
the fixtures' READMEs (cosmo32: DM 32768, star 1455; sink3d: cloud 6327)
and against the full read filtered in numpy."""
import json
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA, ROOT, SHARED

FIXTURES = os.path.join(SHARED, "fixtures", "ramses")
COUNTS = {"cosmo32/output_00003": {"dm": 32768, "star": 1455},
          "sink3d/output_00002": {"cloud": 6327}}
CODES = {"dm": 1, "star": 2, "cloud": 3}


def fixture(key):
    path = os.path.join(FIXTURES, key)
    if not os.path.isdir(path):
        pytest.skip(f"{key} fixture absent ($SNAPKIT_SHARED/fixtures/ramses)")
    return path


def run(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("key", sorted(COUNTS))
def test_info_lists_family_counts(key):
    path = fixture(key)
    want = COUNTS[key]
    fams = snapkit.open(path).info["header"]["families"]
    assert {f["name"]: f["count"] for f in fams if f["count"]} == want
    assert {f["name"]: f["family"] for f in fams if f["count"]} == {k: CODES[k] for k in want}
    assert json.loads(run("info", "--json", path))["header"]["families"] == fams
    line = [ln for ln in run("info", path).splitlines() if ln.startswith("families")]
    assert line == ["families             " +
                    ", ".join(f"{k} ({CODES[k]}) {n}" for k, n in want.items())]


@pytest.mark.parametrize("key", sorted(COUNTS))
def test_family_read_equals_numpy_filter(key):
    out = snapkit.open(fixture(key))
    full = out.particles()
    fam = np.asarray(full["family"])
    for name, count in COUNTS[key].items():
        for spec in (name, CODES[name], [name.upper()], str(CODES[name])):
            part = out.particles(family=spec)
            keep = fam == CODES[name]
            assert len(part) == keep.sum() == count, spec
            for col in full.columns:
                np.testing.assert_array_equal(part[col], np.asarray(full[col])[keep], col)
    both = out.particles(family=list(COUNTS[key]))
    assert len(both) == sum(COUNTS[key].values()) == len(full)
    assert len(out.particles(family="debris")) == 0


def test_family_with_region_and_vars():
    out = snapkit.open(fixture("cosmo32/output_00003"))
    box = dict(xrange=(0.125, 0.375), yrange=(0.375, 0.625), zrange=(0.5, 0.75))
    stars = out.particles(family="star", vars=["mass"], **box)
    assert len(stars) == 883  # the fixture's README: 883 stars in the reference box
    assert stars.columns == ["mass"]
    full = out.particles(**box)
    keep = np.asarray(full["family"]) == 2
    np.testing.assert_array_equal(stars["mass"], np.asarray(full["mass"])[keep])


@pytest.mark.parametrize("key", sorted(COUNTS))
def test_cli_family(key):
    path = fixture(key)
    for name, count in COUNTS[key].items():
        for spec in (name, str(CODES[name])):
            got = json.loads(run("stats", path, "--component", "particles", "--family", spec,
                                 "--json"))
            assert got["rows"] == count
            assert got["columns"]["family"]["min"] == got["columns"]["family"]["max"] == \
                CODES[name]
    both = json.loads(run("stats", path, "--component", "particles", "--family",
                          ",".join(COUNTS[key]), "--json"))
    assert both["rows"] == sum(COUNTS[key].values())
    bad = subprocess.run([CLI, "stats", path, "--component", "particles", "--family", "stars"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown particle family 'stars'" in bad.stderr


def test_derived_family_of_2017_output(tmp_path):
    """Late-2017 outputs have no family record: it is derived (birth_time)."""
    tool = os.path.join(ROOT, "tests", "tools", "make_ramses2017.py")
    src = os.path.join(DATA, "ramses", "gravpart", "output_00002")
    dst = str(tmp_path / "output_00002")
    subprocess.run(["/usr/bin/python3", tool, src, dst], check=True)
    out = snapkit.open(dst)
    assert out.info["columns"]["particles_derived"] == ["family"]
    full = out.particles()
    fam = np.asarray(full["family"])
    for code in (1, 2):
        part = out.particles(family=code)
        assert len(part) == (fam == code).sum() > 0
        np.testing.assert_array_equal(part["identity"], np.asarray(full["identity"])[fam == code])
    assert len(out.particles(family="star", vars="mass")) == (fam == 2).sum()


def test_snapkit_file_family(tmp_path):
    path = fixture("cosmo32/output_00003")
    dst = str(tmp_path / "cosmo32.snapkit")
    snapkit.convert(path, dst, components="particles")
    stars = snapkit.load(dst, "particles", family="star")
    assert len(stars) == 1455
    assert set(np.asarray(stars["family"]).tolist()) == {2}
