"""Clump finders (snapkit.clumps, `snapkit clumps`) against RAMSES's own PHEW
catalogue and clump field, a brute-force neighbour search, and numpy sums."""
import csv
import os
import subprocess

import numpy as np
import pytest
pytest.importorskip("scipy", reason="python3-scipy is the brute-force reference")
from scipy.sparse import coo_matrix  # noqa: E402
from scipy.sparse.csgraph import connected_components  # noqa: E402

import snapkit
from ramses_fixtures import CLI, SHARED

CLUMPS3D = os.path.join(SHARED, "fixtures", "ramses", "clumps3d", "output_00002")
needs_fixture = pytest.mark.skipif(not os.path.isdir(CLUMPS3D), reason="no clumps3d fixture")


@pytest.fixture(scope="module")
def fixture():
    out = snapkit.open(CLUMPS3D)
    return out.read("hydro"), out.read("clump_field")["clump_id"], out.read("clumps").to_dict()


def same_partition(a, b):
    """Do the labellings a and b (0: unlabelled) group the rows alike?"""
    if not np.array_equal(a == 0, b == 0):
        return False
    pairs = np.unique(np.stack([a[a > 0], b[b > 0]]), axis=1)
    return len(np.unique(pairs[0])) == pairs.shape[1] == len(np.unique(pairs[1]))


@needs_fixture
@pytest.mark.parametrize("finder", ["watershed", "faces"])
def test_clumps3d_matches_ramses_phew(fixture, finder):
    cells, ramses_ids, ramses = fixture
    cat, ids = snapkit.clumps(cells, threshold=1.0, finder=finder, relevance=2.0)
    assert len(cat) == 4
    # the same cell sets as RAMSES's clump field, clump for clump
    assert same_partition(ids, ramses_ids)
    for index, ncell, mass, peak in zip(ramses["index"], ramses["ncell"], ramses["mass_cl"],
                                        ramses["rho+"]):
        mine = np.unique(ids[ramses_ids == index])
        assert len(mine) == 1
        row = int(mine[0]) - 1
        assert cat["n_cells"][row] == ncell
        # RAMSES prints 10 decimals: equal within half of the last one
        assert abs(cat["mass"][row] - mass) <= 0.5e-10
        assert cat["peak"][row] == pytest.approx(peak, rel=1e-9)  # 10 digits in the text file
    assert list(cat["id"]) == [1, 2, 3, 4]
    assert np.all(np.diff(cat["mass"]) < 0)


@needs_fixture
def test_catalogue_against_numpy(fixture):
    cells, _, _ = fixture
    cat, ids = snapkit.clumps(cells, threshold=1.0, finder="watershed")
    box = float(cells.meta["boxlen"])
    lev = cells["level"].astype(float)
    dx = box / 2.0 ** lev
    pos = np.stack([(cells[c] + 0.5) * dx for c in ("cx", "cy", "cz")], axis=1)
    vel = np.stack([cells["velocity_" + a] for a in "xyz"], axis=1)
    m = cells["density"] * dx ** 3
    for row in range(len(cat)):
        k = ids == row + 1
        mk = m[k]
        M = mk.sum()
        com = (mk[:, None] * pos[k]).sum(0) / M  # these clumps do not cross the boundary
        vb = (mk[:, None] * vel[k]).sum(0) / M
        ekin = 0.5 * (mk * ((vel[k] - vb) ** 2).sum(1)).sum()
        eth = 1.5 * (cells["pressure"][k] * dx[k] ** 3).sum()
        R = np.sqrt(((pos[k] - com) ** 2).sum(1)).max()
        egrav = -0.6 * M * M / R  # G = 1 in RAMSES's non-cosmological code units
        assert cat["n_cells"][row] == k.sum()
        assert cat["mass"][row] == pytest.approx(M, rel=1e-12)
        assert cat["volume"][row] == pytest.approx((dx[k] ** 3).sum(), rel=1e-12)
        for a, col in enumerate("xyz"):
            assert cat[col][row] == pytest.approx(com[a], rel=1e-12)
            assert cat["v" + col][row] == pytest.approx(vb[a], rel=1e-10, abs=1e-14)
        assert cat["radius"][row] == pytest.approx(R, rel=1e-12)
        assert cat["e_kin"][row] == pytest.approx(ekin, rel=1e-10)
        assert cat["sigma_v"][row] == pytest.approx(np.sqrt(2 * ekin / M), rel=1e-10)
        # gamma 1.6666667 in the info file: p V / (gamma - 1) is 3/2 p V to 1e-7
        assert cat["e_therm"][row] == pytest.approx(eth, rel=1e-6)
        assert cat["e_grav"][row] == pytest.approx(egrav, rel=1e-12)
        assert cat["alpha_vir"][row] == pytest.approx(2 * ekin / abs(egrav), rel=1e-10)
        assert cat["bound"][row] == (cat["e_kin"][row] + cat["e_therm"][row] < abs(egrav))
        p = np.argmax(np.where(k, cells["density"], -np.inf))
        assert cat["peak_x"][row] == pos[p, 0] and cat["peak_z"][row] == pos[p, 2]
    assert cat.meta["units.mass"] == "code mass"
    assert cat.meta["clumps.finder"] == "watershed"


def random_amr(rng, lmin=2, lmax=6, p_refine=0.45):
    """A random octree's leaves: every level jump allowed (no 2:1 balance)."""
    leaves = []
    stack = [(lmin, x, y, z) for x in range(2 ** lmin) for y in range(2 ** lmin)
             for z in range(2 ** lmin)]
    while stack:
        lev, x, y, z = stack.pop()
        if lev < lmax and rng.random() < p_refine * (0.8 if lev > lmin else 1.3):
            stack += [(lev + 1, 2 * x + i, 2 * y + j, 2 * z + k)
                      for i in (0, 1) for j in (0, 1) for k in (0, 1)]
        else:
            leaves.append((lev, x, y, z))
    a = np.array(leaves, dtype=np.int32)
    return {"level": a[:, 0], "cx": a[:, 1], "cy": a[:, 2], "cz": a[:, 3]}


def brute_force_faces(cols, keep, lmax):
    """Face adjacency of every pair by interval arithmetic on the finest grid."""
    idx = np.nonzero(keep)[0]
    n = 2 ** lmax
    size = 2 ** (lmax - cols["level"][idx].astype(np.int64))
    lo = [cols[c][idx].astype(np.int64) * size for c in ("cx", "cy", "cz")]
    overlap, touch = [], []
    for a in range(3):
        d = (lo[a][None, :] - lo[a][:, None]) % n
        overlap.append((d < size[:, None]) | ((-d) % n < size[None, :]))
        touch.append(((lo[a][:, None] + size[:, None]) % n == lo[a][None, :]) |
                     ((lo[a][None, :] + size[None, :]) % n == lo[a][:, None]))
    adj = np.zeros((len(idx), len(idx)), dtype=bool)
    for a in range(3):
        b, c = [x for x in range(3) if x != a]
        adj |= touch[a] & overlap[b] & overlap[c]
    np.fill_diagonal(adj, False)
    i, j = np.nonzero(adj)
    g = coo_matrix((np.ones(len(i)), (i, j)), shape=(len(idx), len(idx)))
    _, comp = connected_components(g, directed=False)
    labels = np.zeros(len(keep), dtype=np.int64)
    labels[idx] = comp + 1
    return labels


# shift: levels moved deeper (the cells then fill a corner of the box), so
# that the canonical sort packs (x, y, z) in one word (0, and 10: levels
# 12-16) or cannot (20: levels 22-26, sorted by qsort)
@pytest.mark.parametrize("seed,shift", [(1, 0), (2, 0), (3, 0), (4, 0), (5, 10), (6, 20)])
def test_faces_against_brute_force(seed, shift):
    rng = np.random.default_rng(seed)
    cols = random_amr(rng)
    n = len(cols["level"])
    # smooth-ish field so that clumps span several cells and levels
    centre = [(cols[c] + 0.5) / 2.0 ** cols["level"] for c in ("cx", "cy", "cz")]
    field = sum(np.cos(2 * np.pi * (k1 * centre[0] + k2 * centre[1] + k3 * centre[2]) + ph)
                for k1, k2, k3, ph in rng.integers(-3, 4, size=(6, 4)))
    cols["density"] = field + 0.5 * rng.standard_normal(n)
    threshold = float(np.quantile(cols["density"], 0.6))
    keep = cols["density"] >= threshold
    on_faces = keep & ((cols["cx"] == 0) | (cols["cx"] == 2 ** cols["level"] - 1))
    cols["level"] = cols["level"] + np.int32(shift)
    t = snapkit.Table.from_arrays(cols, meta={"kind": "cells", "boxlen": 1, "ndim": 3})
    cat, ids = snapkit.clumps(t, threshold=threshold)
    assert 1000 < keep.sum() < 5000 and len(np.unique(cols["level"][keep])) >= 4
    assert on_faces.sum() > 10 or shift  # shifted, the cells are off the box's faces
    truth = brute_force_faces(cols, keep, 6 + shift)
    assert same_partition(ids, truth)
    assert len(cat) == len(np.unique(truth[truth > 0]))
    assert cat["n_cells"].sum() == keep.sum()


def shuffled(table, perm):
    d = table.to_dict()
    return snapkit.Table.from_arrays({k: v[perm] for k, v in d.items()}, meta=table.meta)


def same_catalogue(a, b):
    return a.columns == b.columns and len(a) == len(b) and \
        all(np.array_equal(a[c], b[c]) for c in a.columns)


@needs_fixture
@pytest.mark.parametrize("finder", ["faces", "watershed"])
def test_deterministic_threads_and_row_order(fixture, finder):
    cells = fixture[0]
    c1, i1 = snapkit.clumps(cells, 1.0, finder=finder, threads=1)
    c2, i2 = snapkit.clumps(cells, 1.0, finder=finder, threads=2)
    assert same_catalogue(c1, c2) and np.array_equal(i1, i2)
    perm = np.random.default_rng(7).permutation(len(cells))
    c3, i3 = snapkit.clumps(shuffled(cells, perm), 1.0, finder=finder, threads=2)
    assert same_catalogue(c1, c3)
    assert np.array_equal(i3, i1[perm])


@needs_fixture
def test_same_catalogue_from_snapkit_file(fixture, tmp_path):
    path = str(tmp_path / "clumps3d.snapkit")
    snapkit.convert(CLUMPS3D, path)
    a, ia = snapkit.clumps(CLUMPS3D, 1.0, finder="watershed")
    b, ib = snapkit.clumps(path, 1.0, finder="watershed")
    assert same_catalogue(a, b)
    ha, hb = snapkit.open(CLUMPS3D).read("hydro"), snapkit.open(path).read("hydro")
    key = lambda t: np.stack([t[c] for c in ("level", "cx", "cy", "cz")], axis=1)  # noqa: E731
    oa, ob = np.lexsort(key(ha).T), np.lexsort(key(hb).T)
    assert np.array_equal(key(ha)[oa], key(hb)[ob]) and np.array_equal(ia[oa], ib[ob])


@needs_fixture
def test_selection_keywords(fixture):
    cat, ids = snapkit.clumps(CLUMPS3D, 1.0, lmax=6)
    cells = snapkit.open(CLUMPS3D).read("hydro", lmax=6)
    assert len(ids) == len(cells) and len(cat) >= 1


@needs_fixture
def test_threshold_above_maximum_is_empty(fixture):
    cells = fixture[0]
    cat, ids = snapkit.clumps(cells, threshold=1e6)
    assert len(cat) == 0 and "mass" in cat.columns and not ids.any()


def test_errors():
    t = snapkit.Table.from_arrays({"level": np.array([3], np.int32), "cx": np.array([0], np.int32),
                                   "cy": np.array([0], np.int32), "cz": np.array([0], np.int32),
                                   "density": np.array([np.nan])}, meta={"kind": "cells"})
    with pytest.raises(snapkit.Error, match="no numeric column 'temperature'"):
        snapkit.clumps(t, 1.0, field="temperature")
    with pytest.raises(snapkit.Error, match="NaN at row 0"):
        snapkit.clumps(t, 1.0)
    with pytest.raises(ValueError, match="unknown finder"):
        snapkit.clumps(t, 1.0, finder="contour")


def test_single_cells_and_wrap():
    """Two cells on opposite faces of the box touch through the boundary;
    a lone cell's radius is half its edge."""
    t = snapkit.Table.from_arrays({"level": np.array([3, 3, 3], np.int32),
                                   "cx": np.array([0, 7, 3], np.int32),
                                   "cy": np.array([2, 2, 5], np.int32),
                                   "cz": np.array([4, 4, 5], np.int32),
                                   "density": np.array([2.0, 3.0, 1.5])},
                                  meta={"kind": "cells", "boxlen": 8})
    cat, ids = snapkit.clumps(t, 1.0)
    assert list(ids) == [1, 1, 2] and list(cat["n_cells"]) == [2, 1]
    assert cat["x"][0] == pytest.approx((0.5 * 2 - 0.5 * 3) / 5 % 8)  # wrapped centre of mass
    assert cat["radius"][1] == 0.5


def test_wrap_onto_the_first_cell():
    """(3, 0, 1) touches (0, 0, 1), the first cell in the sorted order,
    through the periodic x face only; the cell below it, (3, 0, 0), has no
    neighbour there. The faces walk skips a union when a contact continues
    the cell below's; a missing one must not pass for cell -1 + 1 = 0."""
    t = snapkit.Table.from_arrays({"level": np.array([2, 2, 2], np.int32),
                                   "cx": np.array([0, 3, 3], np.int32),
                                   "cy": np.array([0, 0, 0], np.int32),
                                   "cz": np.array([1, 0, 1], np.int32),
                                   "density": np.array([2.0, 2.0, 2.0])},
                                  meta={"kind": "cells", "boxlen": 1})
    cat, ids = snapkit.clumps(t, 1.0)
    assert list(ids) == [1, 1, 1] and list(cat["n_cells"]) == [3]


@needs_fixture
def test_cli(fixture, tmp_path):
    cells = fixture[0]
    out, idp = str(tmp_path / "c.csv"), str(tmp_path / "ids.npy")
    r = subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1", "--finder", "watershed",
                        "-o", out, "--ids", idp, "--threads", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "4 clumps" in r.stdout
    cat, ids = snapkit.clumps(cells, 1.0, finder="watershed")
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert [int(x["n_cells"]) for x in rows] == list(cat["n_cells"])
    assert [float(x["mass"]) for x in rows] == list(cat["mass"])  # shortest round-trip text
    assert np.array_equal(np.load(idp), ids)
    js = str(tmp_path / "c.json")
    assert subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1", "-o", js],
                          capture_output=True).returncode == 0
    import json
    with open(js) as f:
        doc = json.load(f)
    assert len(doc["clumps"]) == 4 and doc["meta"]["units.mass"] == "code mass"
    r = subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1e9", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "no clumps" in r.stdout
    r = subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1", "--field", "nope", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "no numeric column 'nope'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
