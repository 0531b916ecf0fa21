"""project --clip: a slab's surface density weighs each cell by its depth
inside the slab (RAMSES's amr2map), checked against a numpy brute force
over the whole hydro table of real outputs, from the output and its
.snapkit file."""
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, SHARED

FIXTURES = [("sedov3d", 2), ("mhd3d", 2), ("cosmo32", 3)]


def fixture_output(name, number):
    path = os.path.join(SHARED, "fixtures", "ramses", name, "output_%05d" % number)
    if not os.path.isdir(path):
        pytest.skip("fixture %s is not in %s" % (name, SHARED))
    return path


def snapkit_cli():
    return [CLI]


def clipped_sd(cols, axis, res, lo, hi):
    """The map amr2map makes of [lo, hi) (box units, axis-aligned,
    pixel-aligned across): each cell adds density x (its depth inside
    [lo, hi) along the axis) to the pixels its footprint covers, in
    proportion to the area covered."""
    level = cols["level"]
    h = 0.5 ** level
    c = [(cols[k] + 0.5) * h for k in ("cx", "cy", "cz")]
    u, v = [(1, 2), (2, 0), (0, 1)][axis]
    depth = np.minimum(c[axis] + h / 2, hi[axis]) - np.maximum(c[axis] - h / 2, lo[axis])
    inside = depth > 0
    for k in (u, v):
        inside &= (c[k] + h / 2 > lo[k]) & (c[k] - h / 2 < hi[k])
    sd = np.zeros((res, res))
    pix = 1.0 / res
    for lv in np.unique(level[inside]):
        m = inside & (level == lv)
        n = max(1, int(round(0.5 ** lv / pix)))  # pixels across a cell (cells >= pixels)
        hh = 0.5 ** lv
        first = (lambda x: np.floor(x / pix)) if n == 1 else (lambda x: np.floor((x - hh / 2) / pix))
        i0 = first(c[u][m]).astype(int)
        j0 = first(c[v][m]).astype(int)
        share = cols["density"][m] * depth[m] * (min(hh, pix) ** 2) / pix ** 2
        for a in range(n):
            for b in range(n):
                np.add.at(sd, (j0 + b, i0 + a), share)
    return sd


@pytest.mark.parametrize("name,number", FIXTURES)
def test_clipped_slab_is_the_slab_integral(tmp_path, name, number):
    out = fixture_output(name, number)
    table = snapkit.open(out).hydro(vars=["density"])
    cols = {k: np.asarray(table[k]) for k in ("level", "cx", "cy", "cz", "density")}
    boxlen = float(table.meta["boxlen"])
    res = 64
    # a slab whose faces cut cells of every level; whole pixels across
    lo, hi = [0.125, 0.25, 0.3], [0.875, 0.75, 0.6137]
    want = clipped_sd(cols, 2, res, lo, hi) * boxlen
    sfile = tmp_path / "o.snapkit"
    subprocess.run(snapkit_cli() + ["convert", out, "-o", str(sfile)], check=True,
                   capture_output=True)
    for src in (out, str(sfile)):
        for threads in ("1", "2"):
            npy = tmp_path / f"sd{threads}.npy"
            subprocess.run(snapkit_cli() + [
                "project", src, "--vars", "sd", "--axis", "z", "--res", str(res), "--clip",
                "--xrange", str(lo[0]), str(hi[0]), "--yrange", str(lo[1]), str(hi[1]),
                "--zrange", str(lo[2]), str(hi[2]), "--threads", threads, "-o", str(npy),
                "--no-fsync"], check=True, capture_output=True)
            got = np.load(npy)
            i0, j0 = int(lo[0] * res), int(lo[1] * res)
            window = want[j0:j0 + got.shape[0], i0:i0 + got.shape[1]]
            np.testing.assert_allclose(got, window, rtol=1e-12, atol=0)
    # without --clip, cells count whole by their centres: a different map
    npy = tmp_path / "centre.npy"
    subprocess.run(snapkit_cli() + [
        "project", out, "--vars", "sd", "--axis", "z", "--res", str(res),
        "--xrange", str(lo[0]), str(hi[0]), "--yrange", str(lo[1]), str(hi[1]),
        "--zrange", str(lo[2]), str(hi[2]), "-o", str(npy), "--no-fsync"], check=True,
        capture_output=True)
    assert not np.allclose(np.load(npy), np.load(tmp_path / "sd1.npy"), rtol=1e-6)


def test_clip_refuses_off_axis(tmp_path):
    out = fixture_output("sedov3d", 2)
    r = subprocess.run(snapkit_cli() + [
        "project", out, "--vars", "sd", "--direction", "1", "1", "0", "--clip",
        "--zrange", "0.3", "0.6", "-o", str(tmp_path / "x.npy")], capture_output=True, text=True)
    assert r.returncode != 0
    assert "clip" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not os.path.exists(tmp_path / "x.npy")
