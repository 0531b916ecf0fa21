"""stats --clip (and Python's read/stats(clip=True)): each cell weighs by the
fraction of its volume inside the region, checked against values found
independently from the unclipped leaf cells of real outputs:
- a box: numpy's exact fractions (products of 1-D overlaps) give the sums,
  volume sums, fractional cell count, totals (mass, volume, centre of mass,
  angular momentum) and weighted mean and percentiles; two boxes that split
  the domain at a plane cutting cells add up to the whole mass;
- a slab: its clipped mass equals `project --vars sd --clip`'s total mass
  (the map's sum times the pixel area), RAMSES's amr2map rule, to 1e-12;
- shapes: the clipped volume of a sphere, a shell and a sphere across two
  faces of a uniform box equals 4/3 pi r^3 within the rule's error, and
  each cell's fraction equals a finer numpy integration (256 x 256 columns,
  chords by their own formula) to the rule's bound;
- the same numbers on 1 and 2 threads, under mpirun -np 2 and 3, and from
  the output's .snapkit file;
- bad input: --clip without a region, --clip on particles."""
import json
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA, SHARED

MPIEXEC = os.environ.get("SNAPKIT_MPIEXEC", "")
UNIFORM = os.path.join(DATA, "ramses", "sedov3d", "output_00001")  # density 1 everywhere
SHARED_OUTPUTS = [("gravpart", 2), ("sedov3d", 2), ("cosmo32", 3), ("mhd3d", 2)]
VEL = ["velocity_x", "velocity_y", "velocity_z"]


def shared_output(name, number):
    path = os.path.join(SHARED, "fixtures", "ramses", name, "output_%05d" % number)
    if not os.path.isdir(path):
        pytest.skip("fixture %s is not in %s" % (name, SHARED))
    return path


ALL = [pytest.param(UNIFORM, id="data-sedov3d-1")] + [
    pytest.param((n, k), id="%s-%d" % (n, k)) for n, k in SHARED_OUTPUTS]


def resolve(src):
    return src if isinstance(src, str) else shared_output(*src)


def stats_json(src, *args, launcher=()):
    r = subprocess.run(list(launcher) + [CLI, "stats", src, "--json"] + [str(a) for a in args],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def leaf_cells(src):
    """Every leaf cell (no selection): centres and sides in box units,
    density, velocities, code volume; boxlen."""
    t = snapkit.open(src).hydro(vars=["density"] + VEL)
    boxlen = float(t.meta["boxlen"])
    level = np.asarray(t["level"])
    size = 0.5 ** level
    c = np.stack([(np.asarray(t[k]) + 0.5) * size for k in ("cx", "cy", "cz")], axis=1)
    return {"c": c, "size": size, "rho": np.asarray(t["density"], dtype=float),
            "v": np.stack([np.asarray(t[k], dtype=float) for k in VEL], axis=1),
            "vol": (boxlen * size) ** 3, "boxlen": boxlen}


def box_fraction(cells, lo, hi):
    """Exact fraction of each cell inside [lo, hi]."""
    h = cells["size"][:, None] / 2
    c = cells["c"]
    inside = np.minimum(c + h, hi) - np.maximum(c - h, lo)
    return np.prod(np.clip(inside, 0, None) / (2 * h), axis=1)


def weighted_quantile(x, w, p):
    """numpy's inverted-CDF weighted quantile by sorting: the smallest x
    whose cumulative weight reaches p/100 of the total."""
    order = np.argsort(x, kind="stable")
    cum = np.cumsum(w[order])
    k = np.searchsorted(cum, p / 100 * cum[-1], side="left")
    while cum[k] <= 0:
        k += 1
    return x[order][k]


def close(a, b, rtol=1e-12, atol=0.0):
    return abs(a - b) <= rtol * abs(b) + atol


BOX_LO, BOX_HI = np.array([0.1237, 0.3, 0.45]), np.array([0.7, 0.8123, 0.61])


@pytest.mark.parametrize("src", ALL)
def test_box_sums_totals_and_weights(src):
    src = resolve(src)
    cells = leaf_cells(src)
    f = box_fraction(cells, BOX_LO, BOX_HI)
    touched = f > 0
    rng = []
    for k, a in enumerate("xyz"):
        rng += ["--%srange" % a, BOX_LO[k], BOX_HI[k]]
    d = stats_json(src, "--clip", *rng, "--vars", ",".join(["density"] + VEL), "--totals",
                   "--weight", "mass", "--percentiles", "10,50,90", "--threads", 1)
    rho, vol, c = cells["rho"][touched], cells["vol"][touched], cells["c"][touched]
    v, ft = cells["v"][touched], f[touched]
    m = rho * vol * ft
    assert d["clip"]["rule"] == "exact"
    assert d["clip"]["cells"] == d["rows"] == int(touched.sum())
    assert close(d["clip"]["clipped_cells"], ft.sum())
    assert close(d["clip"]["volume"], (vol * ft).sum())
    assert close(d["clip"]["volume"], np.prod(BOX_HI - BOX_LO) * cells["boxlen"] ** 3)
    col = d["columns"]["density"]
    assert close(col["volume_sum"], m.sum())
    assert close(col["sum"], (rho * ft).sum())
    assert col["min"] == rho.min() and col["max"] == rho.max()  # the cells touched
    # the centre rule gives another mass (the test can fail)
    by_centre = np.all((cells["c"] >= BOX_LO) & (cells["c"] < BOX_HI), axis=1)
    assert not close((cells["rho"] * cells["vol"])[by_centre].sum(), m.sum(), rtol=1e-6)
    # totals: about the centre of mass, displacements from the box centre
    t = d["totals"]
    M, L = m.sum(), cells["boxlen"]
    dx = c - 0.5
    S = (m[:, None] * dx).sum(axis=0)
    bulk = (m[:, None] * v).sum(axis=0) / M
    rel = dx - S / M
    Lvec = L * (m[:, None] * np.cross(rel, v - bulk)).sum(axis=0)
    scale = L * (m * np.linalg.norm(rel, axis=1) * np.linalg.norm(v - bulk, axis=1)).sum()
    assert close(t["mass"], M) and close(t["volume"], d["clip"]["volume"])
    for k in range(3):
        assert close(t["com"][k], (0.5 + S[k] / M) * L)
        assert close(t["bulk_velocity"][k], bulk[k], atol=1e-12 * np.abs(v).max())
        assert close(t["angular_momentum"][k], Lvec[k], atol=1e-12 * scale)
    w = d["weighted"]["columns"]["density"]
    assert close(w["weight_sum"], M)
    assert close(w["mean"], (m * rho).sum() / M)
    for p in (10, 50, 90):
        assert w["percentiles"][str(p)] == weighted_quantile(rho, m, p)


@pytest.mark.parametrize("src", ALL)
def test_two_boxes_add_up_to_the_whole(src):
    """Split at a plane that cuts cells of every level: the clipped masses
    of both sides add up to the whole output's mass."""
    src = resolve(src)
    whole = stats_json(src, "--vars", "density", "--recompute")["columns"]["density"]
    a = stats_json(src, "--clip", "--xrange", 0, 0.3137, "--vars", "density")
    b = stats_json(src, "--clip", "--xrange", 0.3137, 1, "--vars", "density")
    mass = a["columns"]["density"]["volume_sum"] + b["columns"]["density"]["volume_sum"]
    assert close(mass, whole["volume_sum"], rtol=1e-13)
    # the cells the plane cuts are counted on both sides
    assert a["rows"] + b["rows"] > stats_json(src, "--vars", "density")["rows"]


@pytest.mark.parametrize("name,number", [("sedov3d", 2), ("cosmo32", 3), ("gravpart", 2)])
def test_slab_equals_project_clip(tmp_path, name, number):
    src = shared_output(name, number)
    lo, hi, res = 0.3, 0.6137, 64
    d = stats_json(src, "--clip", "--zrange", lo, hi, "--vars", "density")
    npy = tmp_path / "sd.npy"
    subprocess.run([CLI, "project", src, "--vars", "sd", "--axis", "z", "--res", str(res),
                    "--clip", "--zrange", str(lo), str(hi), "-o", str(npy), "--no-fsync"],
                   check=True, capture_output=True)
    boxlen = float(snapkit.open(src).hydro(vars=["density"], lmax=1).meta["boxlen"])
    projected = np.load(npy).sum() * (boxlen / res) ** 2
    assert close(d["columns"]["density"]["volume_sum"], projected)
    # the slab's share of the independent brute force
    cells = leaf_cells(src)
    f = box_fraction(cells, np.array([0, 0, lo]), np.array([1, 1, hi]))
    assert close(projected, (cells["rho"] * cells["vol"] * f).sum())


def comparable(d):
    return {k: d[k] for k in ("rows", "levels", "columns", "clip", "totals", "weighted")
            if k in d}


@pytest.mark.parametrize("shape", [["--sphere", 0.2, "--center", 0.45, 0.5, 0.52],
                                   ["--zrange", 0.3, 0.6137]])
def test_threads_and_snapkit_file_agree(tmp_path, shape):
    src = shared_output("sedov3d", 2)
    sfile = tmp_path / "o.snapkit"
    subprocess.run([CLI, "convert", src, "-o", str(sfile)], check=True, capture_output=True)
    args = ["--clip", *shape, "--totals", "--weight", "mass", "--percentiles", "5,95"]
    first = comparable(stats_json(src, *args, "--threads", 1))
    assert first["clip"]["cells"] > 0
    for s in (src, str(sfile)):
        for threads in (1, 2):
            assert comparable(stats_json(s, *args, "--threads", threads)) == first
    # Python gives the command's numbers
    for s in (src, str(sfile)):
        py = snapkit.open(s).stats("hydro", clip=True, **(
            {"sphere": ((0.45, 0.5, 0.52), 0.2)} if shape[0] == "--sphere"
            else {"zrange": (0.3, 0.6137)}))
        assert py["clip"] == first["clip"]
        assert py["columns"]["density"]["volume_sum"] == \
            first["columns"]["density"]["volume_sum"]


@pytest.mark.skipif(not MPIEXEC, reason="snapkit was built without MPI (SNAPKIT_MPIEXEC unset)")
def test_mpi_ranks_agree():
    src = shared_output("sedov3d", 2)
    args = ["--clip", "--sphere", 0.2, "--center", 0.45, 0.5, 0.52, "--totals", "--weight",
            "mass", "--percentiles", "5,95"]
    want = comparable(stats_json(src, *args))
    for k in (2, 3):
        launcher = (MPIEXEC, "--oversubscribe", "--allow-run-as-root", "-np", str(k))
        got = stats_json(src, *args, launcher=launcher)
        assert got["ranks"] == k and comparable(got) == want


def sphere_volume(r):
    return 4.0 / 3.0 * np.pi * r ** 3


@pytest.mark.parametrize("shape,volume", [
    (["--sphere", 0.2, "--center", 0.45, 0.5, 0.52], sphere_volume(0.2)),
    (["--sphere", 0.15, "--center", 0.03, 0.5, 0.96], sphere_volume(0.15)),
    (["--shell", 0.1, 0.2, "--center", 0.5, 0.5, 0.5], sphere_volume(0.2) - sphere_volume(0.1)),
    (["--sphere", 0.2, "--inverse", "--center", 0.45, 0.5, 0.52], 1 - sphere_volume(0.2))])
def test_shapes_of_a_uniform_box(shape, volume):
    d = stats_json(UNIFORM, "--clip", *shape, "--vars", "density", "--totals")
    assert d["clip"]["rule"] == "columns" and d["clip"]["columns"] == 16
    assert close(d["clip"]["volume"], volume, rtol=5e-5)
    assert close(d["totals"]["mass"], volume, rtol=5e-5)  # density 1
    plain = stats_json(UNIFORM, *shape, "--vars", "density")  # by centres: much further off
    assert abs(plain["columns"]["density"]["volume_sum"] - volume) > \
        20 * abs(d["clip"]["volume"] - volume)


def sphere_fraction_fine(c, size, centre, r, n=256):
    """Each cell's fraction inside the sphere (periodic), by n x n columns
    along x whose chords |x - cx| <= sqrt(r^2 - dy^2 - dz^2) are clipped
    to the cell (nearest images of y and z)."""
    out = np.empty(len(c))
    t = (np.arange(n) + 0.5) / n - 0.5
    for i in range(len(c)):
        h = size[i]
        y = c[i, 1] + t * h
        z = c[i, 2] + t * h
        dy = (y - centre[1] + 0.5) % 1 - 0.5
        dz = (z - centre[2] + 0.5) % 1 - 0.5
        q = dy[:, None] ** 2 + dz[None, :] ** 2
        half = np.sqrt(np.clip(r * r - q, 0, None))
        x0 = c[i, 0] - h / 2 - centre[0]
        x0 -= np.round(c[i, 0] - centre[0])  # the cell near the centre's image
        lo = np.maximum(x0, -half)
        hi = np.minimum(x0 + h, half)
        out[i] = (np.clip(hi - lo, 0, None) * (q <= r * r)).mean() / h
    return out


def cell_keys(level, c, size):
    """One integer key per cell: its level and integer position."""
    idx = np.floor(c / size[:, None]).astype(np.int64)
    return ((level.astype(np.int64) * 1024 + idx[:, 0]) * 1024 + idx[:, 1]) * 1024 + idx[:, 2]


@pytest.mark.parametrize("src,centre,r", [
    (("sedov3d", 2), (0.45, 0.5, 0.52), 0.2),
    (("cosmo32", 3), (0.97, 0.03, 0.5), 0.12)])
def test_sphere_fractions_per_cell(src, centre, r):
    """Every leaf cell meeting the sphere (from the unclipped read): its
    fraction by the finer integration against the clipped read's (0 for a
    cell the clipped read left out)."""
    src = resolve(src)
    t = snapkit.open(src).hydro(vars=["density"], sphere=(centre, r), clip=True)
    level = np.asarray(t["level"])
    size = 0.5 ** level
    c = np.stack([(np.asarray(t[k]) + 0.5) * size for k in ("cx", "cy", "cz")], axis=1)
    got = dict(zip(cell_keys(level, c, size), np.asarray(t["clip"])))
    cells = leaf_cells(src)
    dd = np.abs((cells["c"] - np.asarray(centre) + 0.5) % 1 - 0.5)
    h = cells["size"][:, None] / 2
    nearest = np.linalg.norm(np.clip(dd - h, 0, None), axis=1)
    farthest = np.linalg.norm(dd + h, axis=1)
    meets = nearest < r
    ref = (farthest <= r).astype(float)
    cut = meets & (farthest > r)
    ref[cut] = sphere_fraction_fine(cells["c"][cut], cells["size"][cut], centre, r)
    keys = cell_keys(np.round(-np.log2(cells["size"])), cells["c"], cells["size"])
    mine = np.array([got.get(k, 0.0) for k in keys[meets]])
    assert len(got) <= meets.sum() and np.all(np.isin(list(got), keys[meets]))
    assert np.abs(mine - ref[meets]).max() < 1e-3
    assert np.all(mine[ref[meets] == 1.0] == 1.0)
    mass = (cells["rho"] * cells["vol"] * ref).sum()
    d = stats_json(src, "--clip", "--sphere", r, "--center", *centre, "--vars", "density")
    assert close(d["columns"]["density"]["volume_sum"], mass, rtol=1e-4)
    assert d["rows"] == len(got)


def test_bad_input(tmp_path):
    r = subprocess.run([CLI, "stats", UNIFORM, "--clip"], capture_output=True, text=True)
    assert r.returncode != 0 and r.stdout == ""
    assert "--clip" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    gp = shared_output("gravpart", 2)
    r = subprocess.run([CLI, "stats", gp, "--clip", "--component", "particles", "--xrange",
                        "0", "0.5"], capture_output=True, text=True)
    assert r.returncode != 0 and r.stdout == ""
    assert "clip" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    out = snapkit.open(gp)
    with pytest.raises(ValueError, match="clip"):
        out.read("hydro", clip=True)
    with pytest.raises(snapkit.Error, match="particles are points"):
        out.read("particles", xrange=(0, 0.5), clip=True)


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("args, kw", [
    (["--center", "0.5", "0.5", "0.5", "--sphere", "0.1"], dict(center=(0.5, 0.5, 0.5), sphere=0.1)),
    (["--xrange", "0.3", "0.61"], dict(xrange=(0.3, 0.61))),
    (["--center", "0.45", "0.5", "0.5", "--sphere", "0.2", "--xrange", "-0.05", "0.02"],
     dict(center=(0.45, 0.5, 0.5), sphere=0.2, xrange=(-0.05, 0.02)))])
def test_python_totals_clip_equal_the_cli(src, args, kw):
    """snapkit.totals(clip=True) is `stats --totals --clip`: the same
    accumulator over the same clipped rows, so the same bits."""
    src = resolve(src)
    cli = stats_json(src, "--totals", "--clip", *args)["totals"]
    py = snapkit.totals(src, clip=True, **kw)
    assert py["cells"] == cli["cells"]
    for key in ("mass", "volume"):
        assert py[key] == cli[key], key
    for key in ("com", "bulk_velocity", "angular_momentum"):
        assert list(py[key]) == cli[key], key
    unclipped = snapkit.totals(src, **kw)
    assert unclipped["cells"] <= py["cells"]  # the boundary's cut cells come in
    with pytest.raises(ValueError, match="needs a region"):
        snapkit.totals(src, clip=True)
