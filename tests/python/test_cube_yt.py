"""snapkit cube against yt 4.1: at the output's finest level every grid cell
is the one leaf cell covering it, as yt's covering_grid gives it; at coarser
levels the conservative average of the leaf cells (volume- or
mass-weighted), recomputed here with numpy from yt's own leaf cells.
The cube has the same bits on 1 and 2 threads."""
import glob
import os
import subprocess

import numpy as np
import pytest

yt = pytest.importorskip("yt")

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
DATA = os.environ.get("SNAPKIT_TEST_DATA", os.path.join(HERE, "..", "data"))
SHARED = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))


def outputs():
    pat = "output_[0-9][0-9][0-9][0-9][0-9]"
    found = sorted(glob.glob(os.path.join(DATA, "ramses", "sedov3d", pat)))
    for name in ("sedov3d", "gravpart", "cosmo32", "mhd3d"):
        found += sorted(glob.glob(os.path.join(SHARED, "fixtures", "ramses", name, pat)))[:1]
    return [f for f in found if os.path.isdir(f)]


def cube(folder, tmp, level, var, *extra):
    out = os.path.join(tmp, "c.npy")
    subprocess.run([CLI, "cube", folder, "--level", str(level), "--vars", var, "-o", out,
                    "--no-fsync", *extra], check=True, capture_output=True)
    return np.load(out)


def leaves(ds):
    ad = ds.all_data()
    x = np.stack([ad["index", a].to("code_length").d / ds.domain_width.to("code_length").d[0]
                  for a in "xyz"], axis=1)
    dx = ad["index", "dx"].to("code_length").d / ds.domain_width.to("code_length").d[0]
    lev = np.rint(-np.log2(dx)).astype(int)
    return ad, x, lev


@pytest.mark.parametrize("folder", outputs())
def test_max_level_equals_covering_grid(folder, tmp_path):
    ds = yt.load(folder)
    ad, _, lev = leaves(ds)
    L = int(lev.max())
    n = min(2 ** L, 32)  # a box of n^3 cells about the centre
    lo = 0.5 - 0.5 * n / 2 ** L
    hi = 0.5 + 0.5 * n / 2 ** L
    left = ds.domain_left_edge + lo * ds.domain_width
    # yt's level 0 has domain_dimensions cells across (RAMSES's levelmin)
    cg = ds.covering_grid(L - int(np.log2(ds.domain_dimensions[0])), left, [n] * 3)
    want = cg["ramses", "Density"].d.transpose(2, 1, 0)  # yt (x, y, z) -> (z, y, x)
    box = []
    for a in "xyz":
        box += ["--%srange" % a, repr(lo), repr(hi)]
    got = cube(folder, str(tmp_path), L, "density", *box)
    assert got.shape == (n, n, n)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("weight", ["volume", "mass"])
@pytest.mark.parametrize("folder", outputs())
def test_coarser_level_is_the_conservative_average(folder, weight, tmp_path):
    ds = yt.load(folder)
    ad, x, lev = leaves(ds)
    L = max(int(lev.min()) - 1, 1) if lev.min() == lev.max() else int(lev.min())
    L = min(L, 6)
    n = 2 ** L
    rho = ad["ramses", "Density"].d
    vx = ad["ramses", "x-velocity"].d
    vol = 8.0 ** (-lev)
    sums = np.zeros((3, n, n, n))
    for c in range(len(rho)):
        lo = np.floor(x[c] * n - 0.5 * (2.0 ** -lev[c]) * n + 1e-9).astype(int)
        k = max(1, 2 ** (L - lev[c])) if lev[c] < L else 1
        f = vol[c] * n ** 3 if lev[c] >= L else 1.0
        i = np.floor(x[c] * n).astype(int) if lev[c] >= L else lo
        sl = (slice(i[2], i[2] + k), slice(i[1], i[1] + k), slice(i[0], i[0] + k))
        w = f * rho[c] if weight == "mass" else f
        sums[0][sl] += f
        sums[1][sl] += rho[c] * f
        sums[2][sl] += vx[c] * w
    want_rho = sums[1] / sums[0]
    want_vx = sums[2] / (sums[1] if weight == "mass" else sums[0])
    got_rho = cube(folder, str(tmp_path), L, "density", "--weight", weight)
    got_vx = cube(folder, str(tmp_path), L, "velocity_x", "--weight", weight)
    np.testing.assert_allclose(got_rho, want_rho, rtol=1e-12, atol=0)
    np.testing.assert_allclose(got_vx, want_vx, rtol=1e-10, atol=1e-14 * np.abs(want_vx).max())


@pytest.mark.parametrize("folder", outputs())
def test_same_bits_on_one_and_two_threads(folder, tmp_path):
    a = cube(folder, str(tmp_path), 5, "velocity_x", "--weight", "mass", "--threads", "1")
    b = cube(folder, str(tmp_path), 5, "velocity_x", "--weight", "mass", "--threads", "2")
    assert a.tobytes() == b.tobytes()


def test_python_cube_equals_the_command(tmp_path):
    import snapkit
    folder = outputs()[0]
    got = snapkit.cube(folder, 5, ["density", "velocity_x"], left_edge=(0.25, 0, 0),
                       right_edge=(0.75, 1, 1), weight="mass")
    want = cube(folder, str(tmp_path), 5, "velocity_x", "--weight", "mass",
                "--xrange", "0.25", "0.75")
    assert got["fields"]["velocity_x"].shape == (32, 32, 16)
    assert got["fields"]["velocity_x"].tobytes() == want.tobytes()
    assert got["left_edge"][0] == 0.25
