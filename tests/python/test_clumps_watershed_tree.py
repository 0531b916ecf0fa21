"""The watershed's hierarchy (parent, depth, leaf, saddle, minimum) against
a brute-force merge tree: saddles between the leaves from every pair of
touching cells, then the max-min (bottleneck) path between every two
leaves, which must be the saddle where they first share an ancestor."""
import os

import numpy as np
import pytest

import snapkit
from ramses_fixtures import SHARED

CLUMPS3D = os.path.join(SHARED, "fixtures", "ramses", "clumps3d", "output_00002")

N = 16  # cells a side, level 4


def peaks_grid(seed, npeaks=14):
    """A periodic 16^3 grid of Gaussian peaks on a little noise."""
    rng = np.random.default_rng(seed)
    i = np.arange(N ** 3)
    cx, cy, cz = i // (N * N), (i // N) % N, i % N
    pos = np.stack([cx, cy, cz], axis=1) + 0.5
    rho = 0.05 * rng.random(N ** 3)
    for c, h, w in zip(rng.random((npeaks, 3)) * N, rng.uniform(1, 5, npeaks),
                       rng.uniform(0.9, 1.8, npeaks)):
        d = (pos - c + N / 2) % N - N / 2
        rho += h * np.exp(-(d ** 2).sum(1) / (2 * w * w))
    cols = {"level": np.full(N ** 3, 4, np.int32), "cx": cx.astype(np.int32),
            "cy": cy.astype(np.int32), "cz": cz.astype(np.int32), "density": rho}
    return snapkit.Table.from_arrays(cols, meta={"kind": "cells", "boxlen": 1, "ndim": 3})


def brute_saddles(ids, rho):
    """S[a, b]: the largest (v_i + v_j) / 2 over touching cells (faces, edges,
    corners; periodic) of leaves a and b; -inf when they do not touch."""
    nl = ids.max()
    S = np.full((nl + 1, nl + 1), -np.inf)
    g_ids, g_rho = ids.reshape(N, N, N), rho.reshape(N, N, N)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                if (dx, dy, dz) == (0, 0, 0):
                    continue
                j_ids = np.roll(g_ids, (dx, dy, dz), axis=(0, 1, 2)).ravel()
                j_rho = np.roll(g_rho, (dx, dy, dz), axis=(0, 1, 2)).ravel()
                k = (ids > 0) & (j_ids > 0) & (ids != j_ids)
                np.maximum.at(S, (ids[k], j_ids[k]), 0.5 * (rho[k] + j_rho[k]))
    return S


def bottleneck(S):
    """Max over paths of the smallest saddle on the path (Floyd-Warshall)."""
    B = S.copy()
    for k in range(len(B)):
        B = np.maximum(B, np.minimum(B[:, k:k + 1], B[k:k + 1, :]))
    return B


def ancestors(cat, row):
    out = [row]
    while cat["parent"][out[-1]] > 0:
        out.append(cat["parent"][out[-1]] - 1)
    return out


@pytest.mark.parametrize("seed,threshold,relevance", [(1, 0.4, 1.2), (2, 0.8, 1.5),
                                                      (3, 0.2, 2.0), (4, 0.4, 1.05)])
def test_tree_against_brute_force(seed, threshold, relevance):
    t = peaks_grid(seed)
    rho = t["density"]
    cat, ids = snapkit.clumps(t, threshold, finder="watershed", relevance=relevance)
    leaf = cat["leaf"].astype(bool)
    nrow = len(cat)
    assert cat.meta["clumps.hierarchy"] == "saddles"
    assert leaf.sum() >= 3 and (~leaf).sum() >= 1, "a test that cannot fail"
    # ids name leaves only, and every cell above the threshold is in one
    assert set(np.unique(ids[ids > 0]) - 1) == set(np.nonzero(leaf)[0])
    assert np.array_equal(ids > 0, rho >= threshold)
    parent, depth = cat["parent"], cat["depth"]
    for r in range(nrow):
        p = parent[r] - 1
        if p < 0:
            assert parent[r] == -1 and depth[r] == 0
            assert cat["saddle"][r] == cat["minimum"][r]
            continue
        assert p < r  # heavier, so a smaller id
        assert cat["mass"][p] > cat["mass"][r]
        assert cat["peak"][p] >= cat["peak"][r]
        assert depth[r] == depth[p] + 1
        assert not leaf[p]
        # saddles go down towards the root (a basin's minimum may lie below
        # its saddle: unlike a dendrogram's contours, basins reach down)
        assert cat["saddle"][p] <= cat["saddle"][r]
    for r in np.nonzero(~leaf)[0]:
        kids = np.nonzero(parent == r + 1)[0]
        assert len(kids) == 2  # one saddle joins two trees
        assert cat["saddle"][kids[0]] == cat["saddle"][kids[1]]
        assert cat["n_cells"][r] == cat["n_cells"][kids].sum()
        assert cat["mass"][r] == pytest.approx(cat["mass"][kids].sum(), rel=1e-12)
        assert cat["peak"][r] == cat["peak"][kids].max()
    # leaf statistics from the ids
    dx3 = 1.0 / N ** 3
    for r in np.nonzero(leaf)[0]:
        k = ids == r + 1
        assert cat["n_cells"][r] == k.sum()
        assert cat["mass"][r] == pytest.approx(rho[k].sum() * dx3, rel=1e-12)
        assert cat["peak"][r] == rho[k].max()
        assert cat["minimum"][r] == rho[k].min()
    # where two leaves first share an ancestor is their bottleneck saddle
    B = bottleneck(brute_saddles(ids, rho))
    lrows = np.nonzero(leaf)[0]
    for i, a in enumerate(lrows):
        up_a = ancestors(cat, a)
        for b in lrows[i + 1:]:
            up_b = ancestors(cat, b)
            common = [x for x in up_a if x in up_b]
            if not common:
                assert B[a + 1, b + 1] == -np.inf
                continue
            lca = common[0]
            below = [x for x in up_a if parent[x] == lca + 1][0]
            assert cat["saddle"][below] == B[a + 1, b + 1]


def test_min_cells_drops_leaves_from_the_tree():
    t = peaks_grid(2)
    full, ids_full = snapkit.clumps(t, 0.6, finder="watershed", relevance=1.2)
    leaves = full["n_cells"][full["leaf"] == 1]
    cut = int(np.sort(leaves)[len(leaves) // 2])
    cat, ids = snapkit.clumps(t, 0.6, finder="watershed", relevance=1.2, min_cells=cut)
    assert (cat["n_cells"][cat["leaf"] == 1] >= cut).all()
    assert (cat["leaf"] == 1).sum() == (leaves >= cut).sum()
    # the dropped leaves' cells are in no structure: branches count kept leaves only
    for r in np.nonzero(cat["leaf"] == 0)[0]:
        kids = np.nonzero(cat["parent"] == r + 1)[0]
        assert cat["n_cells"][r] == cat["n_cells"][kids].sum()
    assert (ids > 0).sum() == cat["n_cells"][cat["leaf"] == 1].sum() < (ids_full > 0).sum()


@pytest.mark.skipif(not os.path.isdir(CLUMPS3D), reason="no clumps3d fixture")
def test_clumps3d_four_roots():
    """RAMSES's 4 clumps touch nowhere: 4 roots, lev 0 and parent == index in
    RAMSES's catalogue, parent -1 and depth 0 here."""
    cat, _ = snapkit.clumps(CLUMPS3D, 1.0, finder="watershed", relevance=2.0)
    assert len(cat) == 4 and list(cat["parent"]) == [-1] * 4 and list(cat["depth"]) == [0] * 4
    assert list(cat["leaf"]) == [1] * 4
    assert np.array_equal(cat["saddle"], cat["minimum"])
    assert list(cat["n_cells"]) == [2521, 1155, 325, 552]


def test_tree_deterministic_threads_and_row_order():
    t = peaks_grid(4)
    c1, i1 = snapkit.clumps(t, 0.4, finder="watershed", relevance=1.05, threads=1)
    c2, i2 = snapkit.clumps(t, 0.4, finder="watershed", relevance=1.05, threads=2)
    assert (c1["leaf"] == 0).sum() >= 5
    perm = np.random.default_rng(3).permutation(len(t))
    d = t.to_dict()
    shuffled = snapkit.Table.from_arrays({k: v[perm] for k, v in d.items()}, meta=t.meta)
    c3, i3 = snapkit.clumps(shuffled, 0.4, finder="watershed", relevance=1.05, threads=2)
    for c in c1.columns:
        assert np.array_equal(c1[c], c2[c]) and np.array_equal(c1[c], c3[c]), c
    assert np.array_equal(i1, i2) and np.array_equal(i3, i1[perm])
