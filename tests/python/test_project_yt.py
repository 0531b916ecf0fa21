"""Surface density maps against yt's projection of the same RAMSES
fixtures, at the same resolution and extent: yt's ds.proj integrates
density along the line of sight on a quadtree, and its fixed-resolution
buffer deposits each quadtree cell onto the pixels in proportion to the
covered area, the same area-weighted deposit as snapkit's."""
import glob
import os

import numpy as np
import pytest

import snapkit

yt = pytest.importorskip("yt")
yt.set_log_level(50)

DATA = os.environ.get("SNAPKIT_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "data"))

def readable_by_yt(folder):
    with snapkit.open(folder) as out:
        grid = out.info["coarse_grid"]
        return int(out.info["info"]["ndim"]) == 3 and (grid["nx"], grid["ny"], grid["nz"]) == (1, 1, 1)


# yt 4.1.4 reads the oct records of 1-D and 2-D outputs as 3-D and fails;
# those are checked against numpy in test_project.py. It misplaces the
# octs of boxes of several coarse cells (test_ramses_coarse.py checks their
# maps against numpy).
OUTPUTS = [f for f in sorted(glob.glob(os.path.join(DATA, "ramses", "*", "output_*[0-9]")))
           if readable_by_yt(f)]


def yt_sd(folder, axis, res):
    num = os.path.basename(folder).split("_")[-1]
    ds = yt.load(os.path.join(folder, f"info_{num}.txt"))
    frb = ds.proj(("gas", "density"), axis).to_frb((1.0, "unitary"), res, center=ds.domain_center)
    return np.array(frb["gas", "density"].to("g/cm**2").d)


@pytest.mark.parametrize("folder", OUTPUTS, ids=lambda f: "/".join(f.split(os.sep)[-2:]))
def test_sd_matches_yt(folder):
    with snapkit.open(folder) as out:
        gas = out.read("hydro")
    for axis in range(3):
        m = snapkit.project(gas, "sd", axis="xyz"[axis], units="g/cm2")
        ref = yt_sd(folder, axis, m.nx)
        assert m["sd"].shape == ref.shape
        l1 = np.abs(m["sd"] - ref).sum() / np.abs(ref).sum()
        assert l1 < 1e-6, f"axis {'xyz'[axis]}: relative L1 {l1:.3g}"
