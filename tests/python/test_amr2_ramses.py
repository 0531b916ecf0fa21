"""snapkit project / cube against RAMSES's own amr2map and amr2cube.

tests/data/amr2/ holds maps and cubes that the real utils/f90/amr2map.f90 and
amr2cube.f90 made of the fixtures (scripts/amr2_reference.sh rebuilds them from a
RAMSES checkout; each .json names the command line and the RAMSES commit). Each is
compared with the snapkit command that its options translate to (docs/projection.md,
"Against RAMSES's amr2map and amr2cube"):

  -typ 1..n       the column n of hydro_file_descriptor.txt; 0 -> level, 15 -> T
                  (p/rho, code units), 30 -> B
  -act 0 / 1      --weight mass / --weight volume (a mean along the line of sight)
  -dir a          --axis a (amr2map's y map is (x, z): the transpose of snapkit's (z, x))
  -lma L          --lmax L and --res 2^L (map), --level L --lmax L (cube); default:
                  levelmax of the run
  -xmi .. -zma    --xrange .. --zrange; maps also --clip (amr2map weights a cell by its
                  depth inside along the line of sight)

amr2map/amr2cube write real*4: every value must be snapkit's double rounded to
float32, within half a float32 ulp (and 1e-12 relative for snapkit's own rounding).
Their window ends at the last whole pixel (int(hi * 2^L)); snapkit's is widened to
whole pixels, so snapkit's last partial row/column is left out of the comparison.
The gravpart references are also made from a .snapkit file (convert --with-coarse),
and two maps under mpirun -np 3.
"""
import glob
import json
import os
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
DATA = os.environ.get("SNAPKIT_TEST_DATA", os.path.join(HERE, "..", "data"))
SHARED = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
MPIEXEC = os.environ.get("SNAPKIT_MPIEXEC", "")
REFS = os.path.join(DATA, "amr2")

SPECIAL = {0: "level", 15: "T", 30: "B"}
IMAGE_AXES = {"x": "yz", "y": "zx", "z": "xy"}  # snapkit's (columns, rows)


def references(tool, typ=None, act=None):
    """The stored references of tool, of amr2 type typ and action act when given."""
    out = []
    for path in sorted(glob.glob(os.path.join(REFS, "*.json"))):
        with open(path) as f:
            meta = json.load(f)
        opts = dict(zip(meta["args"][::2], meta["args"][1::2]))
        if meta["tool"] == tool and typ in (None, int(opts["-typ"])) \
                and act in (None, int(opts.get("-act", 0))):
            out.append(pytest.param(path, id=os.path.basename(path)[:-5]))
    return out


def load(path):
    with open(path) as f:
        meta = json.load(f)
    kind, rel = meta["fixture"].split(":", 1)
    folder = os.path.join(DATA if kind == "data" else SHARED, rel)
    if not os.path.isdir(folder):
        pytest.skip("fixture %s is missing" % rel)
    args = meta["args"]
    opts = dict(zip(args[::2], args[1::2]))
    return meta, folder, opts, np.load(path[:-5] + ".npy")


def info(folder, key):
    for line in open(glob.glob(os.path.join(folder, "info_[0-9]*.txt"))[0]):
        if line.split("=")[0].strip() == key:
            return line.split("=")[1].strip()
    raise KeyError(key)


def quantity(folder, typ):
    if typ in SPECIAL:
        return SPECIAL[typ]
    for line in open(os.path.join(folder, "hydro_file_descriptor.txt")):
        if not line.startswith("#") and int(line.split(",")[0]) == typ:
            return line.split(",")[1].strip()
    raise KeyError(typ)


def region(opts):
    """amr2's region in box units, and snapkit's range options for it."""
    lo = {a: float(opts.get("-%smi" % a, 0.0)) for a in "xyz"}
    hi = {a: float(opts.get("-%sma" % a, 1.0)) for a in "xyz"}
    ranges = []
    for a in "xyz":
        if (lo[a], hi[a]) != (0.0, 1.0):
            ranges += ["--%srange" % a, repr(lo[a]), repr(hi[a])]
    return lo, hi, ranges


def amr2_cells(lo, hi, n):
    """Pixels (cells) of amr2's window along one axis: int(lo n) + 1 .. int(hi n)."""
    return int(hi * n) - int(lo * n)


def snapkit(tmp, *args, launcher=()):
    out = os.path.join(str(tmp), "s.npy")
    subprocess.run([*launcher, CLI, *args, "-o", out, "--no-fsync"], check=True,
                   capture_output=True, timeout=300)
    return np.load(out)


def assert_float32_of(ref, got):
    """ref (real*4) is got (double) rounded to float32: within half a float32 ulp."""
    assert ref.shape == got.shape
    ref = ref.astype(np.float32)
    half_ulp = 0.5 * np.spacing(np.abs(ref)).astype(np.float64)
    err = np.abs(ref.astype(np.float64) - got)
    bound = half_ulp + 1e-12 * np.abs(got)
    worst = np.unravel_index(np.argmax(err - bound), err.shape)
    assert np.all(err <= bound), "at %s: amr2 %r snapkit %r" % (worst, ref[worst], got[worst])
    # and not vacuous: the maps hold structure, not one constant
    assert np.ptp(got) > 0


def project_args(folder, opts):
    lmax = int(opts.get("-lma", info(folder, "levelmax")))
    act = int(opts.get("-act", 0))
    lo, hi, ranges = region(opts)
    args = ["project", folder, "--vars", quantity(folder, int(opts["-typ"])),
            "--axis", opts.get("-dir", "z"), "--lmax", str(lmax), "--res", str(2 ** lmax),
            "--weight", {0: "mass", 1: "volume"}[act]] + ranges
    if ranges:
        args.append("--clip")
    return args, lmax, lo, hi


def check_map(path, tmp_path, source=None, launcher=()):
    meta, folder, opts, ref = load(path)
    args, lmax, lo, hi = project_args(folder, opts)
    if source:
        args[1] = source
    got = snapkit(tmp_path, *args, launcher=launcher)
    axis = opts.get("-dir", "z")
    if axis == "y":  # amr2map's y map runs along x then z
        ref = ref.T
    u, v = IMAGE_AXES[axis]
    n = 2 ** lmax
    assert got.shape[1] - amr2_cells(lo[u], hi[u], n) in (0, 1)
    assert got.shape[0] - amr2_cells(lo[v], hi[v], n) in (0, 1)
    got = got[:amr2_cells(lo[v], hi[v], n), :amr2_cells(lo[u], hi[u], n)]
    assert_float32_of(ref, got)


@pytest.mark.parametrize("path", references("amr2map"))
def test_project_is_amr2map(path, tmp_path):
    check_map(path, tmp_path)


def cube_args(folder, opts, lmax=True):
    level = int(opts.get("-lma", info(folder, "levelmax")))
    lo, hi, ranges = region(opts)
    args = ["cube", folder, "--vars", quantity(folder, int(opts["-typ"])),
            "--level", str(level)] + ranges
    if lmax:
        args += ["--lmax", str(level)]
    return args, level, lo, hi


def trim_cube(got, level, lo, hi):
    n = 2 ** level
    keep = [amr2_cells(lo[a], hi[a], n) for a in "zyx"]
    for have, want in zip(got.shape, keep):
        assert have - want in (0, 1)
    return got[:keep[0], :keep[1], :keep[2]]


def check_cube(path, tmp_path, source=None):
    meta, folder, opts, ref = load(path)
    args, level, lo, hi = cube_args(folder, opts)
    if source:
        args[1] = source
    got = trim_cube(snapkit(tmp_path, *args), level, lo, hi)
    assert_float32_of(ref, got)


@pytest.mark.parametrize("path", references("amr2cube"))
def test_cube_is_amr2cube(path, tmp_path):
    check_cube(path, tmp_path)


# The same from a .snapkit file that keeps RAMSES's refined cells (--with-coarse), whose
# --lmax reads equal the output's; the committed gravpart fixture.
@pytest.fixture(scope="module")
def gravpart_store(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("store") / "gravpart.snapkit")
    folder = os.path.join(DATA, "ramses", "gravpart", "output_00002")
    subprocess.run([CLI, "convert", folder, "--with-coarse", "-o", out],
                   check=True, capture_output=True, timeout=300)
    return out


GRAVPART = [p for p in references("amr2map") + references("amr2cube")
            if p.id.startswith("gravpart_")]


@pytest.mark.parametrize("path", GRAVPART)
def test_from_snapkit_file(path, gravpart_store, tmp_path):
    with open(path) as f:
        tool = json.load(f)["tool"]
    (check_map if tool == "amr2map" else check_cube)(path, tmp_path, source=gravpart_store)


@pytest.mark.skipif(not MPIEXEC, reason="snapkit was built without MPI (SNAPKIT_MPIEXEC unset)")
@pytest.mark.parametrize("path", [p for p in references("amr2map")
                                  if p.id in ("gravpart_odd_region", "gravpart_y_metal")])
def test_project_under_mpirun(path, tmp_path):
    check_map(path, tmp_path, launcher=(MPIEXEC, "--oversubscribe", "--allow-run-as-root",
                                        "-np", "3"))


# Cubes below the output's finest level: amr2cube takes RAMSES's stored values of the
# refined cells at -lma, which RAMSES's restriction (upload_fine) made from their
# children; snapkit's cube without --lmax averages the leaves itself. They agree for
# density by volume and velocity by mass (RAMSES averages rho and rho u), and for
# T = p/rho by mass in sink3d, whose run averages the internal energy (interpol_var=1).
# Not for mhd3d's pressure (mhd_cube_p, 28% apart): its run (interpol_var=0) averages
# the total energy, so a parent's pressure also holds its children's kinetic and
# magnetic energy about the mean.
AVERAGED = [("cosmo_cube_rho", "volume"), ("sedov_cube_rho", "volume"),
            ("gravpart_cube_odd", "volume"), ("gravpart_cube_vx", "mass"),
            ("sink_cube_T", "mass")]


@pytest.mark.parametrize("name,weight", AVERAGED)
def test_cube_average_is_ramses_restriction(name, weight, tmp_path):
    meta, folder, opts, ref = load(os.path.join(REFS, name + ".json"))
    args, level, lo, hi = cube_args(folder, opts, lmax=False)
    assert int(info(folder, "levelmax")) > level  # finer cells are averaged
    got = trim_cube(snapkit(tmp_path, *args, "--weight", weight), level, lo, hi)
    assert_float32_of(ref, got)


# amr2map -act 1 -typ 1 is the mean density along the line of sight, the column
# divided by the region's depth (in box units): snapkit's sd divided by depth x boxlen.
@pytest.mark.parametrize("path", references("amr2map", typ=1, act=1))
def test_sd_is_amr2map_volume_mean_times_depth(path, tmp_path):
    meta, folder, opts, ref = load(path)
    args, lmax, lo, hi = project_args(folder, opts)
    args[args.index("--vars") + 1] = "sd"
    got = snapkit(tmp_path, *args)
    axis = opts.get("-dir", "z")
    depth = (hi[axis] - lo[axis]) * float(info(folder, "boxlen"))
    assert got.shape == ref.shape  # whole-box maps
    assert_float32_of(ref if axis != "y" else ref.T, got / depth)
