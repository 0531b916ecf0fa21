"""Friends-of-friends (snapkit.clumps finder="fof", `snapkit clumps --finder
fof`) against scipy's periodic k-d tree and connected components, and the
particle catalogue against numpy sums."""
import csv
import os
import subprocess

import numpy as np
import pytest
pytest.importorskip("scipy", reason="python3-scipy is the reference (cKDTree)")
from scipy.sparse import coo_matrix  # noqa: E402
from scipy.sparse.csgraph import connected_components  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402

import snapkit
from ramses_fixtures import CLI, DATA, SHARED

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
CLUMPS3D = os.path.join(SHARED, "fixtures", "ramses", "clumps3d", "output_00002")


@pytest.fixture(scope="module")
def particles():
    return snapkit.open(GRAVPART).particles()


def positions(t):
    return np.stack([t["position_" + a] for a in "xyz"], axis=1).astype(float)


def scipy_groups(pos, box, b):
    """Groups of friends (periodic distance <= b) as a set of frozensets."""
    pos = np.mod(pos, box)
    pairs = cKDTree(pos, boxsize=box).query_pairs(b, output_type="ndarray")
    n = len(pos)
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    _, lab = connected_components(graph, directed=False)
    return partition(lab, np.ones(n, bool))


def partition(labels, keep):
    groups = {}
    for i in np.flatnonzero(keep):
        groups.setdefault(int(labels[i]), []).append(int(i))
    return {frozenset(g) for g in groups.values()}


@pytest.mark.parametrize("ll", [0.2, 0.5, 1.0])
def test_fof_matches_scipy(particles, ll):
    box = float(particles.meta["boxlen"])
    pos = positions(particles)
    b = ll * box / len(pos) ** (1 / 3)
    cat, ids = snapkit.clumps(particles, finder="fof", linking_length=ll, length_unit="mean-sep")
    assert float(cat.meta["clumps.b"]) == pytest.approx(b, rel=1e-15)
    assert ids.min() >= 1  # every particle is in a group (singletons included)
    assert partition(ids, ids > 0) == scipy_groups(pos, box, b)
    assert len(cat) == len(np.unique(ids))
    assert np.array_equal(np.bincount(ids)[1:], cat["n_particles"])


def test_fof_code_length_and_min_members(particles):
    box = float(particles.meta["boxlen"])
    pos = positions(particles)
    cat, ids = snapkit.clumps(particles, linking_length=0.03, length_unit="code", min_members=5)
    want = {g for g in scipy_groups(pos, box, 0.03) if len(g) >= 5}
    assert partition(ids, ids > 0) == want
    assert cat["n_particles"].min() >= 5 and cat.meta["clumps.min_members"] == "5"
    # ids by mass, largest first
    assert list(cat["id"]) == list(range(1, len(cat) + 1))
    assert np.all(np.diff(cat["mass"]) <= 0)


def test_fof_family_selection():
    dm = snapkit.open(GRAVPART).particles(family="dm")
    cat, ids = snapkit.clumps(dm, finder="fof")
    b = 0.2 * float(dm.meta["boxlen"]) / len(dm) ** (1 / 3)
    assert partition(ids, ids > 0) == scipy_groups(positions(dm), float(dm.meta["boxlen"]), b)


def test_fof_across_the_boundary_and_random_points():
    """Clustered random points in a periodic box of 10 with clusters sitting
    on the faces and a corner: scipy's periodic tree is the reference."""
    rng = np.random.default_rng(11)
    box = 10.0
    centres = np.array([[0.0, 5, 5], [9.9, 0.1, 9.95], [5, 5, 5], [3, 0, 7]])
    pos = np.concatenate([c + rng.normal(scale=0.3, size=(700, 3)) for c in centres] +
                         [rng.uniform(0, box, size=(1200, 3))])
    pos = np.mod(pos, box)
    n = len(pos)
    t = snapkit.Table.from_arrays(
        {"position_x": pos[:, 0].copy(), "position_y": pos[:, 1].copy(),
         "position_z": pos[:, 2].copy(), "mass": rng.uniform(1, 2, n),
         "velocity_x": rng.normal(size=n), "velocity_y": rng.normal(size=n),
         "velocity_z": rng.normal(size=n)}, meta={"kind": "particles", "boxlen": box})
    for b in (0.05, 0.12, 0.3, 4.0):
        cat, ids = snapkit.clumps(t, linking_length=b, length_unit="code")
        assert partition(ids, ids > 0) == scipy_groups(pos, box, b), b
        cat2, ids2 = snapkit.clumps(t, linking_length=b, length_unit="code", threads=1)
        assert np.array_equal(ids, ids2)
        for c in cat.columns:
            assert np.array_equal(cat[c], cat2[c]), c  # bit-identical for 1 and 2+ threads
    check_catalogue(t, box, *snapkit.clumps(t, linking_length=0.12, length_unit="code"))


def check_catalogue(t, box, cat, ids):
    """Every column against numpy, positions unwrapped around the group's
    first particle."""
    pos, m = positions(t), np.asarray(t["mass"], float)
    vel = np.stack([t["velocity_" + a] for a in "xyz"], axis=1).astype(float)
    soft = float(cat.meta["clumps.softening"])
    for row in range(len(cat)):
        k = np.flatnonzero(ids == row + 1)
        d = pos[k] - pos[k[0]]
        d -= box * np.round(d / box)
        mk, M = m[k], m[k].sum()
        off = (mk[:, None] * d).sum(0) / M
        vb = (mk[:, None] * vel[k]).sum(0) / M
        ekin = 0.5 * (mk * ((vel[k] - vb) ** 2).sum(1)).sum()
        R = max(np.sqrt(((d - off) ** 2).sum(1)).max(), soft)
        assert cat["n_particles"][row] == len(k)
        assert cat["mass"][row] == pytest.approx(M, rel=1e-12)
        for a, col in enumerate("xyz"):
            assert cat[col][row] == pytest.approx(np.mod(pos[k[0], a] + off[a], box), rel=1e-9,
                                                  abs=1e-12)
            assert cat["v" + col][row] == pytest.approx(vb[a], rel=1e-10, abs=1e-13)
        assert cat["radius"][row] == pytest.approx(R, rel=1e-9)
        assert cat["e_kin"][row] == pytest.approx(ekin, rel=1e-10, abs=1e-300)
        assert cat["sigma_v"][row] == pytest.approx(np.sqrt(2 * ekin / M), rel=1e-10, abs=1e-300)
        egrav = -0.6 * M * M / R  # G = 1: not cosmological
        assert cat["e_grav"][row] == pytest.approx(egrav, rel=1e-9)
        assert cat["bound"][row] == (ekin < -egrav)


def test_particle_catalogue_against_numpy(particles):
    cat, ids = snapkit.clumps(particles, linking_length=0.2, min_members=3)
    assert float(cat.meta["clumps.softening"]) == 1.0 / 2 ** 8  # boxlen / 2^levelmax
    check_catalogue(particles, float(particles.meta["boxlen"]), cat, ids)


def test_fof_length_units(particles):
    cat, _ = snapkit.clumps(particles, linking_length=2e-22, length_unit="kpc")
    # unit_l is 1 cm in this run
    assert float(cat.meta["clumps.b"]) == pytest.approx(2e-22 * 3.0856775814913673e21, rel=1e-14)
    with pytest.raises(snapkit.Error, match="unknown length unit"):
        snapkit.clumps(particles, length_unit="furlong")
    with pytest.raises(snapkit.Error, match="must be positive"):
        snapkit.clumps(particles, linking_length=0)
    with pytest.raises(snapkit.Error, match="particles take the fof finder"):
        snapkit.clumps(particles, finder="faces")


@pytest.mark.skipif(not os.path.isdir(CLUMPS3D), reason="no clumps3d fixture")
def test_fof_on_cell_centres():
    cells = snapkit.open(CLUMPS3D).read("hydro")
    box = float(cells.meta["boxlen"])
    keep = cells["density"] >= 1.0
    dx = box / 2.0 ** cells["level"].astype(float)
    pos = np.stack([(cells[c] + 0.5) * dx for c in ("cx", "cy", "cz")], axis=1)
    for ll in (0.3, 1.0):
        cat, ids = snapkit.clumps(cells, threshold=1.0, finder="fof", linking_length=ll)
        b = ll * box / keep.sum() ** (1 / 3)
        want = scipy_groups(pos[keep], box, b)
        rows = np.flatnonzero(keep)
        assert partition(ids, ids > 0) == {frozenset(int(rows[i]) for i in g) for g in want}
        assert cat.meta["clumps.finder"] == "fof"


def test_cli_particles(particles, tmp_path):
    out, idp = str(tmp_path / "g.csv"), str(tmp_path / "ids.npy")
    r = subprocess.run([CLI, "clumps", GRAVPART, "--component", "particles", "--finder", "fof",
                        "--linking-length", "0.2", "--length-unit", "mean-sep",
                        "--family", "dm", "--min-members", "10", "-o", out, "--ids", idp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    dm = snapkit.open(GRAVPART).particles(family="dm")
    cat, ids = snapkit.clumps(dm, min_members=10)
    assert f"{len(cat)} groups of at least 10 particles" in r.stdout
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert [int(x["n_particles"]) for x in rows] == list(cat["n_particles"])
    assert [float(x["mass"]) for x in rows] == list(cat["mass"])
    assert np.array_equal(np.load(idp), ids)
    r = subprocess.run([CLI, "clumps", GRAVPART, "--component", "particles", "--finder",
                        "watershed", "-o", out], capture_output=True, text=True)
    assert r.returncode == 2 and "particles take --finder fof" in r.stderr


def particle_table(pos, box):
    n = len(pos)
    return snapkit.Table.from_arrays(
        {"position_x": pos[:, 0].copy(), "position_y": pos[:, 1].copy(),
         "position_z": pos[:, 2].copy(), "mass": np.ones(n)},
        meta={"kind": "particles", "boxlen": box})


def brute_force_groups(pos, box, b):
    """Every pair, numpy only: the periodic distance matrix."""
    d = np.abs(pos[:, None, :] - pos[None, :, :])
    d = np.minimum(d, box - d)
    friends = (d ** 2).sum(-1) <= b * b
    lab = np.arange(len(pos))
    while True:  # propagate the smallest label to friends until stable
        new = np.where(friends, lab[None, :], len(pos)).min(1)
        if np.array_equal(new, lab):
            return partition(lab, np.ones(len(pos), bool))
        lab = new


def test_fof_degenerate_points_brute_force():
    """Many points on the same spot, on a grid at exactly b, a line of
    points b apart across the boundary, and wide b: against every pair."""
    rng = np.random.default_rng(3)
    box, b = 1.0, 0.05
    same = np.tile([[0.3, 0.3, 0.3]], (300, 1))
    tight = 0.7 + rng.normal(scale=1e-4, size=(300, 3))
    line = np.stack([np.mod(0.98 + 0.05 * np.arange(5), 1), np.full(5, 0.5), np.full(5, 0.5)], 1)
    loose = rng.uniform(0, box, size=(200, 3))
    pos = np.concatenate([same, tight, line, loose])
    for bb in (b, 0.2, 0.6, 2.0):
        cat, ids = snapkit.clumps(particle_table(pos, box), linking_length=bb, length_unit="code")
        assert partition(ids, ids > 0) == brute_force_groups(pos, box, bb), bb


def test_fof_dense_clump_is_not_quadratic():
    """300,000 points in three balls 1e-4 wide with b = 0.01: each ball in a
    cell or a few. A cell list b wide compared ~3e10 pairs here; cells b /
    sqrt(3) wide unite each cell's points at once."""
    rng = np.random.default_rng(5)
    centres = np.array([[0.2, 0.2, 0.2], [0.5, 0.8, 0.5], [0.999, 0.0, 0.5]])
    pos = np.concatenate([c + rng.normal(scale=1e-4, size=(100000, 3)) for c in centres])
    pos = np.mod(pos, 1.0)
    cat, ids = snapkit.clumps(particle_table(pos, 1.0), linking_length=0.01, length_unit="code")
    assert list(cat["n_particles"]) == [100000] * 3
    for k in range(3):
        assert len(np.unique(ids[k * 100000:(k + 1) * 100000])) == 1
