"""The dendrogram finder (finder="dendrogram") against a plain-Python
transcription of astrodendro's Dendrogram.compute on periodic uniform grids,
and the invariants of its tree on the clumps3d fixture."""
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, SHARED

CLUMPS3D = os.path.join(SHARED, "fixtures", "ramses", "clumps3d", "output_00002")
needs_fixture = pytest.mark.skipif(not os.path.isdir(CLUMPS3D), reason="no clumps3d fixture")


def reference(values, min_value, min_delta, min_npix):
    """astrodendro's algorithm (dendrogram.py, pruning.py) on a periodic
    cube, written out with dicts: returns {structure: (parent, cells)} where
    cells is the set of flat indices of the subtree, and the leaves."""
    n = values.shape[0]
    flat = values.ravel()
    keep = np.flatnonzero(flat >= min_value)
    order = keep[np.lexsort((keep, -flat[keep]))]  # densest first, ties by index
    owner, parent, own, leaf, vmax, vmin, merged = {}, {}, {}, {}, {}, {}, {}

    def top(s):
        while s in merged or s in parent:
            s = merged.get(s, parent.get(s))
        return s

    def independent(s, v=None):
        base = v if v is not None else vmin[s]
        return vmax[s] - base >= min_delta and len(own[s]) >= min_npix

    def add(s, i):
        owner[i] = s
        own[s].add(i)
        vmax[s], vmin[s] = max(vmax[s], flat[i]), min(vmin[s], flat[i])

    def new(i, is_leaf):
        s = len(leaf)
        own[s], leaf[s], vmax[s], vmin[s] = set(), is_leaf, flat[i], flat[i]
        return s

    for i in order:
        x, y, z = np.unravel_index(i, values.shape)
        nbrs = [np.ravel_multi_index(((x + dx) % n, (y + dy) % n, (z + dz) % n), values.shape)
                for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1),
                                   (0, 0, -1))]
        adj = sorted({top(owner[j]) for j in nbrs if j in owner})
        v = flat[i]
        if not adj:
            add(new(i, True), i)
            continue
        if len(adj) == 1:
            add(adj[0], i)
            continue
        merge = [s for s in adj if leaf[s] and (vmax[s] == v or not independent(s, v))]
        rest = [s for s in adj if s not in merge]
        if not rest:
            into = merge.pop()
        elif len(rest) == 1:
            into = rest[0]
        else:
            into = new(i, False)
            for s in rest:
                parent[s] = into
        add(into, i)
        for m in merge:
            merged[m] = into
            own[into] |= own.pop(m)
            vmax[into], vmin[into] = max(vmax[into], vmax[m]), min(vmin[into], vmin[m])
    alive = [s for s in own if not (leaf[s] and s not in parent and not independent(s))]

    def subtree(s):
        cells = set(own[s])
        for c in alive:
            if parent.get(c) == s:
                cells |= subtree(c)
        return cells

    return {s: (parent.get(s, -1), frozenset(subtree(s))) for s in alive}, {s for s in alive
                                                                              if leaf[s]}


def grid_table(values, level):
    n = values.shape[0]
    x, y, z = np.meshgrid(*(np.arange(n, dtype=np.int32),) * 3, indexing="ij")
    return snapkit.Table.from_arrays({"level": np.full(n ** 3, level, np.int32),
                                      "cx": x.ravel(), "cy": y.ravel(), "cz": z.ravel(),
                                      "density": values.ravel()},
                                     meta={"kind": "cells", "boxlen": 1})


def smooth_field(rng, n):
    """A few Gaussian peaks on noise: structure at several levels."""
    g = np.indices((n, n, n)).reshape(3, -1).T.astype(float)
    v = rng.random(n ** 3) * 0.3
    for _ in range(6):
        c, w, a = rng.random(3) * n, 1 + rng.random() * 2.5, 1 + rng.random() * 3
        d = np.abs(g - c)
        d = np.minimum(d, n - d)
        v += a * np.exp(-(d ** 2).sum(1) / (2 * w * w))
    return v.reshape(n, n, n)


@pytest.mark.parametrize("seed,min_delta,min_npix", [(1, 0.0, 1), (2, 0.2, 3), (6, 0.3, 4),
                                                     (4, 0.05, 1)])
def test_against_reference(seed, min_delta, min_npix):
    rng = np.random.default_rng(seed)
    values = smooth_field(rng, 16)
    thr = float(np.quantile(values, 0.5))
    cat, ids = snapkit.clumps(grid_table(values, 4), thr, finder="dendrogram",
                              min_delta=min_delta, min_cells=min_npix)
    ref, ref_leaves = reference(values, thr, min_delta, min_npix)
    assert len(cat) == len(ref) and len(ref) > 3
    assert int(cat["leaf"].sum()) == len(ref_leaves)
    # match structures by their cell sets: leaves through the ids, all of
    # them through n_cells, mass, minimum and the parent's cells
    by_cells = {cells: s for s, (_, cells) in ref.items()}
    flat = values.ravel()
    for leaf_id in np.unique(ids[ids > 0]):
        cells = frozenset(np.flatnonzero(ids == leaf_id))
        assert cells in by_cells and by_cells[cells] in ref_leaves
    keys = list(ref)
    masses = np.array([flat[list(ref[s][1])].sum() / 4096 for s in keys])
    row_of_ref = {}
    for r in range(len(cat)):
        k = int(np.argmin(np.abs(masses - cat["mass"][r])))
        assert abs(masses[k] - cat["mass"][r]) < 1e-12
        s = keys[k]
        assert s not in row_of_ref
        row_of_ref[s] = r
        assert cat["n_cells"][r] == len(ref[s][1])
        assert cat["minimum"][r] == flat[list(ref[s][1])].min()
        assert cat["peak"][r] == flat[list(ref[s][1])].max()
    for s, (p, _) in ref.items():
        want = -1 if p < 0 else row_of_ref[p] + 1
        assert cat["parent"][row_of_ref[s]] == want


def test_order_and_threads_do_not_matter():
    values = smooth_field(np.random.default_rng(5), 16)
    t = grid_table(values, 4)
    a, ia = snapkit.clumps(t, 0.8, finder="dendrogram", min_delta=0.1, threads=1)
    b, ib = snapkit.clumps(t, 0.8, finder="dendrogram", min_delta=0.1, threads=2)
    perm = np.random.default_rng(1).permutation(len(t))
    d = t.to_dict()
    c, ic = snapkit.clumps(snapkit.Table.from_arrays({k: v[perm] for k, v in d.items()},
                                                     meta=t.meta),
                           0.8, finder="dendrogram", min_delta=0.1, threads=2)
    for x in (b, c):
        assert x.columns == a.columns and all(np.array_equal(a[k], x[k]) for k in a.columns)
    assert np.array_equal(ia, ib) and np.array_equal(ic, ia[perm])


@needs_fixture
def test_fixture_tree_invariants():
    cells = snapkit.open(CLUMPS3D).read("hydro")
    cat, ids = snapkit.clumps(cells, 1.0, finder="dendrogram", min_delta=0.05, min_cells=5)
    faces, fids = snapkit.clumps(cells, 1.0)
    assert cat.meta["clumps.hierarchy"] == "dendrogram"
    n = len(cat)
    parent, leaf = cat["parent"], cat["leaf"].astype(bool)
    assert n == 16 and leaf.sum() == 10 and cat["depth"].max() == 5 and (parent == -1).sum() <= len(faces)
    assert np.all(np.diff(cat["mass"]) <= 0)  # ids by mass
    rho = cells["density"]
    for r in range(n):
        p = parent[r]
        kids = np.flatnonzero(parent == r + 1)
        if not leaf[r]:
            # a branch: two or more children, its cells theirs plus its own
            assert len(kids) >= 2
            assert cat["n_cells"][r] > cat["n_cells"][kids].sum()
            assert cat["mass"][r] > cat["mass"][kids].sum()
        else:
            assert len(kids) == 0
            own = ids == r + 1
            assert own.sum() == cat["n_cells"][r] and own.sum() >= 5
            assert rho[own].max() == cat["peak"][r] and rho[own].min() == cat["minimum"][r]
            # inside one connected (faces) clump
            assert len(np.unique(fids[own])) == 1 and fids[own][0] > 0
        if p > 0:
            assert p < r + 1 and cat["depth"][r] == cat["depth"][p - 1] + 1
            assert cat["peak"][r] <= cat["peak"][p - 1]
            assert cat["minimum"][r] >= cat["saddle"][r] >= cat["minimum"][p - 1]
            if leaf[r]:
                assert cat["peak"][r] - cat["saddle"][r] >= 0.05
        else:
            assert cat["depth"][r] == 0
    # roots cover at most the cells above the threshold; leaf cells sum up
    assert cat["n_cells"][parent == -1].sum() <= int(cat.meta["clumps.cells_above"])
    assert (ids > 0).sum() == cat["n_cells"][leaf].sum()


@needs_fixture
def test_cli_dendrogram(tmp_path):
    out, js = str(tmp_path / "d.csv"), str(tmp_path / "d.json")
    r = subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1", "--finder", "dendrogram",
                        "--min-delta", "0.5", "--min-cells", "5", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cat, _ = snapkit.clumps(CLUMPS3D, 1.0, finder="dendrogram", min_delta=0.5, min_cells=5)
    nleaf = int(cat["leaf"].sum())
    assert "of which %d leaves and %d branches" % (nleaf, len(cat) - nleaf) in r.stdout, r.stdout
    with open(out) as f:
        head = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f]
    assert head[:6] == ["id", "parent", "depth", "leaf", "saddle", "minimum"]
    assert [int(x[1]) for x in rows] == list(cat["parent"])
    assert [int(x[2]) for x in rows] == list(cat["depth"])
    assert subprocess.run([CLI, "clumps", CLUMPS3D, "--threshold", "1", "--finder", "dendrogram",
                           "-o", js], capture_output=True).returncode == 0
    import json
    with open(js) as f:
        doc = json.load(f)
    assert doc["meta"]["clumps.hierarchy"] == "dendrogram"
    assert all("parent" in c and "depth" in c for c in doc["clumps"])


@needs_fixture
@pytest.mark.parametrize("ext", ["fits", "snapkit"])
def test_cli_fits_and_snapkit_catalogues(tmp_path, ext):
    path = str(tmp_path / ("d." + ext))
    args = ["--threshold", "1", "--finder", "dendrogram", "--min-delta", "0.05", "--min-cells", "5"]
    r = subprocess.run([CLI, "clumps", CLUMPS3D, *args, "-o", path], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    cat, _ = snapkit.clumps(CLUMPS3D, 1.0, finder="dendrogram", min_delta=0.05, min_cells=5)
    if ext == "snapkit":
        back = snapkit.open(path).read("clumps")
        assert back.meta["clumps.hierarchy"] == "dendrogram"
        cols = {c: back[c] for c in back.columns}
    else:
        fits = pytest.importorskip("astropy.io.fits")
        with fits.open(path) as h:
            assert h[1].name == "CLUMPS" and h[1].header["TUNIT8"] == "code mass"
            cols = {c: np.array(h[1].data[c]) for c in h[1].columns.names}
    assert list(cols) == cat.columns
    for c in cat.columns:
        assert np.array_equal(cols[c], cat[c]), c
