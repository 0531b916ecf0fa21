"""Gravitational self-energies of clumps (bound="direct" and "tree") against
an independent numpy pairwise sum, and the tree against the direct sum."""
import os

import numpy as np
import pytest
pytest.importorskip("scipy", reason="python3-scipy is the reference (pdist)")
from scipy.spatial.distance import pdist  # noqa: E402

import snapkit
from ramses_fixtures import DATA, SHARED

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
CLUMPS3D = os.path.join(SHARED, "fixtures", "ramses", "clumps3d", "output_00002")


def numpy_egrav(pos, m, eps, G=1.0):
    """-G sum_{i<j} m_i m_j / sqrt(r_ij^2 + eps^2), with pdist's pair order."""
    d = pdist(pos)
    i, j = np.triu_indices(len(m), 1)
    return -G * np.sum(m[i] * m[j] / np.sqrt(d * d + eps * eps))


def blob_particles(seed=5, n_blob=5000, box=4.0):
    """One big Gaussian blob straddling the periodic corner, and small groups."""
    rng = np.random.default_rng(seed)
    blob = rng.normal(scale=0.15, size=(n_blob, 3)) + 0.02
    small = np.concatenate([c + rng.normal(scale=0.01, size=(40, 3))
                            for c in rng.uniform(1, 3, size=(30, 3))])
    pos = np.mod(np.concatenate([blob, small]), box)
    n = len(pos)
    t = snapkit.Table.from_arrays(
        {"position_x": pos[:, 0].copy(), "position_y": pos[:, 1].copy(),
         "position_z": pos[:, 2].copy(), "mass": rng.uniform(0.5, 1.5, n) / n,
         "velocity_x": rng.normal(size=n), "velocity_y": rng.normal(size=n),
         "velocity_z": rng.normal(size=n)}, meta={"kind": "particles", "boxlen": box})
    return t, pos


def unwrapped(pos, ref, box):
    d = pos - ref
    return d - box * np.round(d / box)


def test_direct_particles_against_numpy():
    t, pos = blob_particles()
    box, eps = 4.0, 0.003
    cat, ids = snapkit.clumps(t, linking_length=0.2, length_unit="code", min_members=20,
                              bound="direct", softening=eps)
    assert cat["n_particles"][0] >= 4900  # the blob, in one group across the corner
    m = np.asarray(t["mass"])
    for row in range(len(cat)):
        k = np.flatnonzero(ids == row + 1)
        want = numpy_egrav(unwrapped(pos[k], pos[k[0]], box), m[k], eps)
        assert cat["e_grav"][row] == pytest.approx(want, rel=1e-12)
        assert cat["alpha_vir"][row] == pytest.approx(2 * cat["e_kin"][row] / -want, rel=1e-12)
        assert cat["bound"][row] == (cat["e_kin"][row] < -want)
    assert cat.meta["clumps.bound"] == "direct"


@pytest.mark.parametrize("bound", ["direct", "tree"])
def test_same_bits_for_1_and_2_threads(bound):
    t, _ = blob_particles(seed=6)  # one group above 4096 members: the threaded path
    a, ia = snapkit.clumps(t, linking_length=0.2, length_unit="code", bound=bound, threads=1)
    b, ib = snapkit.clumps(t, linking_length=0.2, length_unit="code", bound=bound, threads=2)
    assert np.array_equal(ia, ib)
    for c in a.columns:
        assert np.array_equal(a[c], b[c]), c


def test_tree_within_one_percent_of_direct():
    t, _ = blob_particles(seed=7)
    kw = dict(linking_length=0.2, length_unit="code", min_members=20, softening=0.003)
    direct, _ = snapkit.clumps(t, bound="direct", **kw)
    tree, _ = snapkit.clumps(t, bound="tree", theta=0.5, **kw)
    err = np.abs(tree["e_grav"] / direct["e_grav"] - 1)
    assert err.max() < 0.01
    exact, _ = snapkit.clumps(t, bound="tree", theta=0.0, **kw)  # opens every node
    assert np.allclose(exact["e_grav"], direct["e_grav"], rtol=1e-12, atol=0)


def test_gravpart_particles():
    parts = snapkit.open(GRAVPART).particles()
    direct, ids = snapkit.clumps(parts, bound="direct", min_members=5)
    tree, _ = snapkit.clumps(parts, bound="tree", min_members=5)
    box, eps = float(parts.meta["boxlen"]), 1.0 / 2 ** 8  # default: boxlen / 2^levelmax
    pos = np.stack([parts["position_" + a] for a in "xyz"], axis=1)
    m = np.asarray(parts["mass"])
    for row in range(len(direct)):
        k = np.flatnonzero(ids == row + 1)
        want = numpy_egrav(unwrapped(pos[k], pos[k[0]], box), m[k], eps)
        assert direct["e_grav"][row] == pytest.approx(want, rel=1e-12)
    assert np.abs(tree["e_grav"] / direct["e_grav"] - 1).max() < 0.01


@pytest.mark.skipif(not os.path.isdir(CLUMPS3D), reason="no clumps3d fixture")
def test_direct_and_tree_cells():
    cells = snapkit.open(CLUMPS3D).read("hydro")
    box = float(cells.meta["boxlen"])
    dx = box / 2.0 ** cells["level"].astype(float)
    pos = np.stack([(cells[c] + 0.5) * dx for c in ("cx", "cy", "cz")], axis=1)
    m = cells["density"] * dx ** 3
    direct, ids = snapkit.clumps(cells, threshold=1.0, finder="watershed", bound="direct")
    tree, ids_t = snapkit.clumps(cells, threshold=1.0, finder="watershed", bound="tree")
    assert np.array_equal(ids, ids_t)
    for row in range(len(direct)):
        k = np.flatnonzero(ids == row + 1)
        want = numpy_egrav(pos[k], m[k], dx[k].min())  # eps: the smallest cell edge
        assert direct["e_grav"][row] == pytest.approx(want, rel=1e-12)
    assert np.abs(tree["e_grav"] / direct["e_grav"] - 1).max() < 0.01
    two, _ = snapkit.clumps(cells, threshold=1.0, finder="watershed", bound="tree", threads=2)
    one, _ = snapkit.clumps(cells, threshold=1.0, finder="watershed", bound="tree", threads=1)
    assert np.array_equal(one["e_grav"], two["e_grav"])


def test_bound_errors():
    t, _ = blob_particles(n_blob=10)
    with pytest.raises(ValueError, match="unknown bound"):
        snapkit.clumps(t, bound="exact")
    with pytest.raises(snapkit.Error, match="softening"):
        snapkit.clumps(t, bound="direct", softening=-1)
    with pytest.raises(snapkit.Error, match="theta"):
        snapkit.clumps(t, bound="tree", theta=float("nan"))
