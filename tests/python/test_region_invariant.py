"""A region read is the full read filtered to the region, row for row, for
every fixture and component (issue 17: particles stored by a neighbouring
CPU were lost when the region was near a domain edge or a periodic face).

Boxes are seeded: random ones, ones touching 0 and 1 on each axis, and ones
given around a centre that run past a face (snapkit does not wrap a region:
the part outside [0, 1) selects nothing). A cell is in a region when its
centre is, a particle when its position / boxlen is. The same runs on
outputs from `make-ramses --stray-particles`, which places particles as far
from their CPU's domain as RAMSES can leave them at an output, and on
particles read back from .snapkit files."""
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, outputs

AXES = ("x", "y", "z")
POS = ("position_x", "position_y", "position_z")


def boxes(seed, n_random=16):
    """(kwargs, lo, hi) triples; lo and hi computed as the library does
    (range + centre, in box units)."""
    rng = np.random.default_rng(seed)
    out = []

    def box(lo, hi):
        kw = {AXES[a] + "range": (float(lo[a]), float(hi[a])) for a in range(3)}
        out.append((kw, tuple(float(v) for v in lo), tuple(float(v) for v in hi)))

    for _ in range(n_random):
        lo = rng.uniform(0, 0.9, 3)
        box(lo, np.minimum(lo + rng.uniform(0.005, 0.5, 3), 1.0))
    for a in range(3):  # touching 0, then 1, on axis a
        for end in (0.0, 1.0):
            lo = rng.uniform(0, 0.7, 3)
            hi = lo + rng.uniform(0.02, 0.3, 3)
            w = rng.uniform(0.01, 0.3)
            lo[a], hi[a] = (0.0, w) if end == 0.0 else (1.0 - w, 1.0)
            box(lo, hi)
    box((0.0, 0.0, 0.0), (0.2, 0.2, 0.2))
    box((0.8, 0.8, 0.8), (1.0, 1.0, 1.0))
    box((0.0, 0.75, 0.0), (1.0, 1.0, 0.25))
    for _ in range(6):  # around a centre near a face, running past it
        c = rng.uniform(0, 1, 3)
        c[rng.integers(3)] = rng.choice([rng.uniform(0, 0.05), rng.uniform(0.95, 1.0)])
        r = rng.uniform(0.03, 0.2, 3)
        kw = {AXES[a] + "range": (float(-r[a]), float(r[a])) for a in range(3)}
        kw["center"] = tuple(float(v) for v in c)
        out.append((kw, tuple(float(-r[a]) + float(c[a]) for a in range(3)),
                    tuple(float(r[a]) + float(c[a]) for a in range(3))))
    return out


def present_axes(kw, ndim):
    """The box on the axes a 1-D or 2-D output has (it has no position on
    the others, and a range there is an error)."""
    return {k: v for k, v in kw.items() if k == "center" or AXES.index(k[0]) < ndim}


def cell_mask(t, lo, hi):
    keep = np.ones(len(t), dtype=bool)
    s = 2.0 ** -t["level"].astype(np.float64)
    for a, c in enumerate(c for c in ("cx", "cy", "cz") if c in t.columns):
        x = (t[c] + 0.5) * s
        keep &= (x >= lo[a]) & (x < hi[a])
    return keep


def particle_mask(t, lo, hi):
    boxlen = float(t.meta["boxlen"])
    keep = np.ones(len(t), dtype=bool)
    for a, c in enumerate(c for c in POS if c in t.columns):
        x = t[c] / boxlen
        keep &= (x >= lo[a]) & (x < hi[a])
    return keep


def assert_rows(got, full, keep, where):
    assert got.columns == full.columns, where
    assert len(got) == int(keep.sum()), (where, len(got), int(keep.sum()))
    for n in full.columns:
        assert got[n].tobytes() == full[n][keep].tobytes(), (where, n)


def check_output(folder, seed,
                 components=("hydro", "gravity", "particles", "rt", "clump_field")):
    out = snapkit.open(folder)
    lmin = int(out.info["info"]["levelmin"])
    ndim = int(out.info["info"]["ndim"])
    checked = 0
    for comp in components:
        if not out.info["components"].get(comp):
            continue
        full = out.read(comp)
        mask = particle_mask if comp == "particles" else cell_mask
        for kw, lo, hi in boxes(seed):
            got = out.read(comp, **present_axes(kw, ndim))
            assert_rows(got, full, mask(full, lo, hi), (folder, comp, kw))
            checked += 1
        if comp != "particles":  # lmax with a box: the lmax read filtered
            for lmax in (lmin - 1, lmin + 1):
                capped = out.read(comp, lmax=lmax)
                for kw, lo, hi in boxes(seed + 1, n_random=4)[::3]:
                    got = out.read(comp, lmax=lmax, **present_axes(kw, ndim))
                    assert_rows(got, capped, mask(capped, lo, hi), (folder, comp, lmax, kw))
    return checked


FIXTURES = [(k, f) for k, f, _ in outputs()]


@pytest.mark.parametrize("key,folder", FIXTURES, ids=[k for k, _ in FIXTURES])
def test_region_is_filtered_full_read(key, folder):
    if check_output(folder, seed=17) == 0:
        pytest.skip("no component of %s is readable here" % key)


@pytest.mark.parametrize("key,folder", [f for f in FIXTURES
                                        if int(snapkit.open(f[1]).info["info"]["ndim"]) < 3])
def test_range_on_an_absent_axis_is_an_error(key, folder):
    out = snapkit.open(folder)
    ndim = int(out.info["info"]["ndim"])
    axis = AXES[ndim]
    with pytest.raises(snapkit.Error, match="is %d-D: it has no %s axis" % (ndim, axis)):
        out.read("hydro", **{axis + "range": (0.2, 0.7)})
    # The whole axis (or more) restricts nothing, so it is allowed.
    assert len(out.read("hydro", **{axis + "range": (-0.5, 1.5)})) == len(out.read("hydro"))


def make(path, *args):
    subprocess.run([CLI, "make-ramses", str(path), *args], check=True, capture_output=True)
    return str(path)


@pytest.fixture(scope="module")
def stray_outputs(tmp_path_factory):
    """Generated outputs whose particles sit as far from their CPU's domain
    as RAMSES allows: levelmin 3 (coarse octs, so wide strays) and 4."""
    root = tmp_path_factory.mktemp("stray")
    return [
        make(root / "a" / "output_00001", "--ncpu", "7", "--levelmin", "3", "--levelmax", "6",
             "--npart", "20000", "--stray-particles", "0.5", "--seed", "5"),
        make(root / "b" / "output_00002", "--ncpu", "12", "--levelmin", "4", "--levelmax", "6",
             "--npart", "30000", "--stray-particles", "1", "--seed", "9", "--boxlen", "2.5",
             "--refine", "clumps", "--format", "2017", "--components", "hydro,particles"),
    ]


# RAMSES's Hilbert curve (the tables of lib/core/hilbert.c), vectorised.
H_NEXT = np.array([[1, 2, 3, 2, 4, 5, 3, 5], [2, 6, 0, 7, 8, 8, 0, 7], [0, 9, 10, 9, 1, 1, 11, 11],
                   [6, 0, 6, 11, 9, 0, 9, 8], [11, 11, 0, 7, 5, 9, 0, 7], [4, 4, 8, 8, 0, 6, 10, 6],
                   [5, 7, 5, 3, 1, 1, 11, 11], [6, 1, 6, 10, 9, 4, 9, 10], [10, 3, 1, 1, 10, 3, 5, 9],
                   [4, 4, 8, 8, 2, 7, 2, 3], [7, 2, 11, 2, 7, 5, 8, 5], [10, 3, 2, 6, 10, 3, 4, 4]])
H_DIGIT = np.array([[0, 1, 3, 2, 7, 6, 4, 5], [0, 7, 1, 6, 3, 4, 2, 5], [0, 3, 7, 4, 1, 2, 6, 5],
                    [2, 3, 1, 0, 5, 4, 6, 7], [4, 3, 5, 2, 7, 0, 6, 1], [6, 5, 1, 2, 7, 4, 0, 3],
                    [4, 7, 3, 0, 5, 6, 2, 1], [6, 7, 5, 4, 1, 0, 2, 3], [2, 5, 3, 4, 1, 6, 0, 7],
                    [2, 1, 5, 6, 3, 0, 4, 7], [4, 5, 7, 6, 3, 2, 0, 1], [6, 1, 7, 0, 5, 2, 4, 3]])


def hilbert(i, j, k, bits):
    key, state = np.zeros(i.shape), np.zeros(i.shape, dtype=np.int64)
    for b in range(bits - 1, -1, -1):
        d = (((i >> b) & 1) << 2) | (((j >> b) & 1) << 1) | ((k >> b) & 1)
        key, state = key * 8 + H_DIGIT[state, d], H_NEXT[state, d]
    return key


def file_cpus(folder, ncpu):
    """CPU file of each row of a full particle read (rows come file by file)."""
    num = os.path.basename(folder)[-5:]
    counts = []
    for c in range(1, ncpu + 1):
        with open(os.path.join(folder, "part_%s.out%05d" % (num, c)), "rb") as f:
            head = f.read(40)  # records ncpu, ndim, npart (int32)
        counts.append(int.from_bytes(head[28:32], "little"))
    return np.repeat(np.arange(1, ncpu + 1), counts)


def test_stray_particles_leave_their_domain(stray_outputs):
    """The generator's strays really are where the old look-up (the box
    grown by two levelmin cells, clipped, no wrap) could not find them: no
    cube of a lattice finer than levelmin within that reach meets their
    CPU's domain. Without this, the tests above would prove nothing."""
    out = snapkit.open(stray_outputs[0])
    info = out.info["info"]
    ncpu, lmin, bits = int(info["ncpu"]), int(info["levelmin"]), int(info["levelmax"]) + 1
    bound = np.array([float(k) for k in info["bound_key"]])
    full = out.particles()
    x = np.stack([full[c] for c in POS], 1) / float(full.meta["boxlen"])
    cpu = file_cpus(stray_outputs[0], ncpu)
    level = lmin + 2
    n = 1 << level
    i, j, k = np.meshgrid(*[np.arange(n)] * 3, indexing="ij")
    kmin = hilbert(i, j, k, level) * 8.0 ** (bits - level)
    reach = 2 * 2 ** (level - lmin)  # two levelmin cells, in lattice cubes
    c0 = np.clip(np.floor(x * n).astype(int) - reach, 0, n - 1)
    c1 = np.clip(np.floor(x * n).astype(int) + reach, 0, n - 1)
    missed = np.zeros(len(x), dtype=bool)
    for c in range(1, ncpu + 1):
        meets = (kmin + 8.0 ** (bits - level) > bound[c - 1]) & (kmin < bound[c])
        s = np.zeros((n + 1,) * 3)
        s[1:, 1:, 1:] = meets.cumsum(0).cumsum(1).cumsum(2)
        a, b = c0[cpu == c], c1[cpu == c] + 1
        inside = (s[b[:, 0], b[:, 1], b[:, 2]] - s[a[:, 0], b[:, 1], b[:, 2]]
                  - s[b[:, 0], a[:, 1], b[:, 2]] - s[b[:, 0], b[:, 1], a[:, 2]]
                  + s[a[:, 0], a[:, 1], b[:, 2]] + s[a[:, 0], b[:, 1], a[:, 2]]
                  + s[b[:, 0], a[:, 1], a[:, 2]] - s[a[:, 0], a[:, 1], a[:, 2]])
        missed[cpu == c] = inside == 0
    assert missed.sum() > 100, missed.sum()


@pytest.mark.parametrize("which", [0, 1])
def test_region_is_filtered_full_read_with_strays(stray_outputs, which):
    assert check_output(stray_outputs[which], seed=100 + which) > 0


def test_particles_of_snapkit_file(stray_outputs, tmp_path):
    """The compact file: particle region reads equal the filtered full read
    of the file, row for row, and the filtered full read of the output."""
    cases = [stray_outputs[0]] + [f for k, f in FIXTURES if k.startswith(("cosmo32", "gravpart"))]
    for i, folder in enumerate(cases):
        path = str(tmp_path / ("p%d.snapkit" % i))
        snapkit.convert(folder, path, components="particles", chunk_rows=512)
        f, out = snapkit.open(path), snapkit.open(folder)
        full, source = f.particles(), out.particles()
        order = np.lexsort([source[c] for c in reversed(source.columns)])
        for kw, lo, hi in boxes(23 + i):
            got = f.particles(**kw)
            assert_rows(got, full, particle_mask(full, lo, hi), (path, kw))
            keep = particle_mask(source, lo, hi)[order]
            a = np.lexsort([got[c] for c in reversed(got.columns)])
            for c in source.columns:
                assert got[c][a].tobytes() == source[c][order][keep].tobytes(), (path, kw, c)
