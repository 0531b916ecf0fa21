"""--bound-only (snapkit.clumps(bound_only=True)): the catalogue keeps the
bound rows of the full one, renumbered by mass; in a hierarchy each kept
row's parent is its nearest bound ancestor; ids of the dropped clumps are 0."""
import csv
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA
from test_clumps_watershed_tree import N, peaks_grid

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")


def moving_peaks():
    """Peaks in a shearing flow: big structures spread in velocity, so some
    branches are unbound while their children are bound."""
    t = peaks_grid(1)
    d = t.to_dict()
    rng = np.random.default_rng(0)
    d["velocity_x"] = 2 * ((d["cx"] + d["cy"]) % N - N / 2) / N
    d["velocity_y"] = 0.02 * rng.standard_normal(N ** 3)
    d["velocity_z"] = 2 * (d["cz"] - N / 2) / N
    return snapkit.Table.from_arrays(d, meta=t.meta)


def expected(full, ids_full):
    """The bound-only catalogue's parents, depths and ids, from the full one."""
    bound = full["bound"].astype(bool)
    new_id = np.zeros(len(full) + 1, np.int64)
    new_id[1:][bound] = np.arange(1, bound.sum() + 1)
    parents, depths = [], []
    hier = "parent" in full.columns
    for r in np.nonzero(bound)[0]:
        chain, p = [], full["parent"][r] if hier else -1
        while p > 0:
            if bound[p - 1]:
                chain.append(p)
            p = full["parent"][p - 1]
        parents.append(new_id[chain[0]] if chain else -1)
        depths.append(len(chain))
    return np.array(parents), np.array(depths), new_id[ids_full]


@pytest.mark.parametrize("finder", ["faces", "watershed", "dendrogram"])
def test_bound_only_cells(finder):
    t = moving_peaks()
    kw = dict(finder=finder, relevance=1.2, min_delta=0.3)
    full, ids_full = snapkit.clumps(t, 0.4, **kw)
    cat, ids = snapkit.clumps(t, 0.4, bound_only=True, **kw)
    bound = full["bound"].astype(bool)
    assert 0 < bound.sum() < len(full), "a test that cannot fail"
    assert len(cat) == bound.sum() and (cat["bound"] == 1).all()
    assert cat.meta["clumps.bound_only"] == "1" and full.meta["clumps.bound_only"] == "0"
    for c in cat.columns:
        if c not in ("id", "parent", "depth"):
            assert np.array_equal(cat[c], full[c][bound]), c
    parents, depths, ids_expected = expected(full, ids_full)
    assert np.array_equal(cat["parent"], parents)
    assert np.array_equal(cat["depth"], depths)
    assert np.array_equal(ids, ids_expected)


def test_bound_only_relinks_past_an_unbound_branch():
    t = moving_peaks()
    full, _ = snapkit.clumps(t, 0.4, finder="watershed", relevance=1.2)
    unbound_branches = (full["bound"] == 0) & (full["leaf"] == 0)
    kids_bound = [r for r in range(len(full)) if full["parent"][r] > 0 and full["bound"][r]
                  and unbound_branches[full["parent"][r] - 1]]
    assert kids_bound, "no bound child of an unbound branch: the relinking is not exercised"


def test_bound_only_particles():
    parts = snapkit.open(GRAVPART).particles()
    full, ids_full = snapkit.clumps(parts, finder="fof", min_members=5)
    cat, ids = snapkit.clumps(parts, finder="fof", min_members=5, bound_only=True)
    bound = full["bound"].astype(bool)
    assert 0 < bound.sum() < len(full)
    assert np.array_equal(cat["mass"], full["mass"][bound])
    assert np.array_equal(ids, expected(full, ids_full)[2])


def test_bound_only_needs_velocities():
    with pytest.raises(snapkit.Error, match="--bound-only needs velocities"):
        snapkit.clumps(peaks_grid(1), 0.4, bound_only=True)


def test_cli_bound_only(tmp_path):
    out = str(tmp_path / "groups.csv")
    r = subprocess.run([CLI, "clumps", GRAVPART, "--component", "particles", "--min-members", "5",
                        "--bound-only", "-o", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(out)))
    full, _ = snapkit.clumps(snapkit.open(GRAVPART).particles(), finder="fof", min_members=5)
    assert len(rows) == int(full["bound"].sum()) and all(x["bound"] == "1" for x in rows)
