"""Hostile input from Python (issue 34): the same bad argument gives the
same refusal as the command line, and a path is never silently cut."""
import math
import os
import subprocess

import pytest

import snapkit
from ramses_fixtures import CLI, DATA

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
DUMP = os.path.join(DATA, "atoms", "cu_fcc_500.dump")


@pytest.fixture(scope="module")
def out():
    with snapkit.open(GRAVPART) as o:
        yield o


def test_a_nul_in_a_path_is_refused_when_reading(tmp_path):
    """Row 23: "output_00002\\0junk" read output_00002 (the C string ended at
    the NUL); every reader refuses it, as Python's open() does."""
    for path in (GRAVPART + "\0junk", os.fsencode(GRAVPART) + b"\0junk"):
        with pytest.raises(ValueError, match="embedded null byte"):
            snapkit.open(path)
        with pytest.raises(ValueError, match="embedded null byte"):
            snapkit.Output(path)
    with pytest.raises(ValueError, match="embedded null byte"):
        snapkit.atoms.read(DUMP + "\0.xyz")
    with pytest.raises(ValueError, match="embedded null byte"):
        snapkit.atoms.File(DUMP + "\0.xyz")
    with pytest.raises(ValueError, match="embedded null byte"):
        snapkit.load(str(tmp_path / "a.snapkit\0b"), "hydro")


def test_a_nul_in_a_path_is_refused_when_writing(out, tmp_path):
    """Row 23: writing to "a.snapkit\\0.txt" wrote a.snapkit."""
    parts = out.particles()
    target = tmp_path / "a.snapkit"
    with pytest.raises(ValueError, match="embedded null byte"):
        snapkit.save({"particles": parts}, str(target) + "\0.txt")
    with pytest.raises(ValueError, match="embedded null byte"):
        snapkit.convert(GRAVPART, str(target) + "\0.txt", components="particles")
    system = snapkit.atoms.read(DUMP)
    with pytest.raises(ValueError, match="embedded null byte"):
        snapkit.atoms.write(str(tmp_path / "a.xyz") + "\0.data", system)
    maps = snapkit.project(parts, "count", res=8)
    with pytest.raises(ValueError, match="embedded null byte"):
        maps.save(str(tmp_path / "m.npy") + "\0.png")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("lmax", [-3, 0, 65, 7.5, "7", True, math.nan])
def test_lmax_out_of_range_is_refused_as_the_cli_refuses_it(out, lmax):
    """Row 23: hydro(lmax=-3) returned an uncapped read; the CLI says
    "--lmax must be between 1 and 64, not -3"."""
    with pytest.raises(ValueError, match=r"lmax must be between 1 and 64, not "):
        out.hydro(lmax=lmax)
    if isinstance(lmax, int) and not isinstance(lmax, bool):
        r = subprocess.run([CLI, "stats", GRAVPART, "--lmax", str(lmax)], capture_output=True,
                           text=True)
        assert r.returncode != 0
        assert "--lmax must be between 1 and 64, not %d" % lmax in r.stderr


def test_lmax_in_range_still_caps(out):
    capped = out.hydro(lmax=7)
    assert capped["level"].max() == 7
    assert len(out.hydro(lmax=7.0)) == len(capped)
    assert out.hydro()["level"].max() == out.info["info"]["levelmax"]


def test_a_colour_range_that_is_not_finite_is_refused(out, tmp_path):
    """Row 21: vmin nan said "map 'sd' has no positive value"."""
    maps = snapkit.project(out.hydro(), "sd", res=8)
    for vmin, vmax in ((math.nan, 1.0), (0.0, math.inf)):
        with pytest.raises(snapkit.Error, match="the ends must be finite numbers"):
            maps.save(str(tmp_path / "m.png"), vmin=vmin, vmax=vmax)
    assert not os.path.exists(tmp_path / "m.png")
