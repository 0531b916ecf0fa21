"""Clumps larger than one block of the statistics (4096 cells): their sums
run in blocks spread over the threads and their half-mass radius sorts one
shell only, so the catalogue is checked against numpy on such clumps, and
for the same bits whatever the threads and the row order."""
import numpy as np
import pytest

import snapkit

BOX = 2.5  # not a power of two: cell sizes are then rounded


def amr_ball(rng):
    """A level-5 grid whose cells within 0.3 of a point near a corner of
    the periodic box are refined to level 6 (a clump crossing the box's
    faces, of two levels), with random fields."""
    g = np.arange(32)
    x, y, z = [a.ravel() for a in np.meshgrid(g, g, g, indexing="ij")]
    centre = np.array([0.05, 0.5, 0.93])

    def dist(lev, cx, cy, cz):
        p = (np.stack([cx, cy, cz], axis=1) + 0.5) / 2.0 ** np.reshape(lev, (-1, 1))
        d = p - centre
        d -= np.round(d)
        return np.sqrt((d ** 2).sum(1))

    fine = dist(5, x, y, z) < 0.3
    kids = [(2 * x[fine] + i, 2 * y[fine] + j, 2 * z[fine] + k)
            for i in (0, 1) for j in (0, 1) for k in (0, 1)]
    cx = np.concatenate([x[~fine]] + [c[0] for c in kids])
    cy = np.concatenate([y[~fine]] + [c[1] for c in kids])
    cz = np.concatenate([z[~fine]] + [c[2] for c in kids])
    lev = np.concatenate([np.full((~fine).sum(), 5), np.full(8 * fine.sum(), 6)])
    n = len(lev)
    r = dist(lev, cx, cy, cz)
    cols = {"level": lev.astype(np.int32), "cx": cx.astype(np.int32),
            "cy": cy.astype(np.int32), "cz": cz.astype(np.int32),
            "density": 10 * np.exp(-(r / 0.2) ** 2) * (1 + 0.3 * rng.random(n)),
            "pressure": 1 + rng.random(n)}
    for a in "xyz":
        cols["velocity_" + a] = 0.3 + rng.standard_normal(n)
    return snapkit.Table.from_arrays(cols, meta={"kind": "cells", "boxlen": BOX, "ndim": 3,
                                                 "gamma": 1.4})


def half_mass_radius(d, m, mass):
    o = np.lexsort((m, d))
    cum = np.cumsum(m[o])
    return d[o][np.searchsorted(cum, 0.5 * mass)]


@pytest.fixture(scope="module")
def table():
    return amr_ball(np.random.default_rng(3))


def test_large_clump_against_numpy(table):
    cat, ids = snapkit.clumps(table, 1.0, threads=2)
    k = ids == 1
    assert len(cat) == 1 and k.sum() > 5 * 4096
    d = table.to_dict()
    dx = BOX / 2.0 ** d["level"].astype(float)
    m = d["density"] * dx ** 3
    pos = np.stack([(d[c] + 0.5) * dx for c in ("cx", "cy", "cz")], axis=1)
    peak = np.argmax(np.where(k, d["density"], -np.inf))
    rel = pos[k] - pos[peak]
    rel -= BOX * np.round(rel / BOX)  # nearest images of the peak
    M = m[k].sum()
    off = (m[k][:, None] * rel).sum(0) / M
    vel = np.stack([d["velocity_" + a][k] for a in "xyz"], axis=1)
    vb = (m[k][:, None] * vel).sum(0) / M
    r = np.sqrt(((rel - off) ** 2).sum(1))
    ekin = 0.5 * (m[k] * ((vel - vb) ** 2).sum(1)).sum()
    assert cat["n_cells"][0] == k.sum()
    assert cat["mass"][0] == pytest.approx(M, rel=1e-12)
    assert cat["volume"][0] == pytest.approx((dx[k] ** 3).sum(), rel=1e-12)
    for a, c in enumerate("xyz"):
        assert cat[c][0] == pytest.approx((pos[peak, a] + off[a]) % BOX, rel=1e-12)
        assert cat["v" + c][0] == pytest.approx(vb[a], rel=1e-12)
        lo, hi = (pos[peak, a] + rel[:, a] - dx[k] / 2), (pos[peak, a] + rel[:, a] + dx[k] / 2)
        assert cat["bbox_%smin" % c][0] == lo.min() and cat["bbox_%smax" % c][0] == hi.max()
    assert cat["bbox_xmin"][0] < 0 and cat["bbox_zmax"][0] > BOX  # across the box's faces
    assert cat["radius"][0] == pytest.approx(r.max(), rel=1e-12)
    assert cat["r_half"][0] == pytest.approx(half_mass_radius(r, m[k], M), rel=1e-12)
    assert cat["e_kin"][0] == pytest.approx(ekin, rel=1e-12)
    assert cat["e_therm"][0] == pytest.approx((d["pressure"][k] * dx[k] ** 3).sum() / 0.4,
                                              rel=1e-12)
    assert cat["peak"][0] == d["density"][peak]


def test_large_clump_same_bits_any_threads_and_row_order(table):
    c1, i1 = snapkit.clumps(table, 1.0, threads=1)
    c2, i2 = snapkit.clumps(table, 1.0, threads=2)
    perm = np.random.default_rng(5).permutation(len(table))
    d = table.to_dict()
    shuffled = snapkit.Table.from_arrays({k: v[perm] for k, v in d.items()}, meta=table.meta)
    c3, i3 = snapkit.clumps(shuffled, 1.0, threads=2)
    for c in c1.columns:
        assert np.array_equal(c1[c], c2[c]) and np.array_equal(c1[c], c3[c]), c
    assert np.array_equal(i1, i2) and np.array_equal(i3, i1[perm])


def test_errors_name_the_first_bad_row_of_many():
    # more rows than one thread's share: every thread looks at its own rows
    g = np.arange(64, dtype=np.int32)
    x, y, z = [a.ravel() for a in np.meshgrid(g, g, g, indexing="ij")]
    cols = {"level": np.full(len(x), 6, np.int32), "cx": x, "cy": y, "cz": z,
            "density": np.ones(len(x))}
    meta = {"kind": "cells", "boxlen": 1, "ndim": 3}
    nan = dict(cols, density=cols["density"].copy())
    nan["density"][[200000, 150000, 250000]] = np.nan
    with pytest.raises(snapkit.Error, match="NaN at row 150000 "):
        snapkit.clumps(snapkit.Table.from_arrays(nan, meta=meta), 0.5, threads=2)
    out = dict(cols, cx=cols["cx"].copy())
    out["cx"][[180000, 170000, 30]] = [64, -1, 70]
    with pytest.raises(snapkit.Error, match="row 30: level 6, cell 70 0 30 is outside"):
        snapkit.clumps(snapkit.Table.from_arrays(out, meta=meta), 0.5, threads=2)
    out["cx"][30] = 0
    with pytest.raises(snapkit.Error, match="row 170000: level 6, cell -1 "):
        snapkit.clumps(snapkit.Table.from_arrays(out, meta=meta), 0.5, threads=2)
    dup = {k: v.copy() for k, v in cols.items()}
    for c in ("cx", "cy", "cz"):
        dup[c][100000] = dup[c][70000]
        dup[c][200000] = dup[c][5]
    with pytest.raises(snapkit.Error, match="rows 5 and 200000 are the same cell"):
        snapkit.clumps(snapkit.Table.from_arrays(dup, meta=meta), 0.5, threads=2)
