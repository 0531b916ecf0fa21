"""Shapes against yt 4.1.4 (issue 29) on every 3-D fixture with hydro in
shared/fixtures/ramses: `snapkit stats --json` with a sphere, a sphere
across a face, a disk about z and about a tilted normal, a spherical shell,
a cylindrical shell and the outside of a sphere selects the cells (and, on
gravpart and cosmo32, the particles) yt selects with ds.sphere, ds.disk,
ds.sphere(c, r2) - ds.sphere(c, r1), ds.disk(...) - ds.disk(...) and
ds.all_data() - ds.sphere(...): the same count per level, density, volume
and mass sums to 1e-12, sizes given in code units and in a physical unit.

yt's boundary rules, read in yt/geometry/_selection_routines: a sphere
keeps |d| <= r, a disk |h| <= height and R <= radius, distances to the
nearest periodic image (yt's RAMSES datasets are periodic); the boolean
difference keeps r1 < r <= r2, as snapkit's shells do. yt's sphere also
keeps the cell that holds its centre when that cell's centre lies farther
than r (a sphere smaller than its cell): snapkit selects by cell centre
only, and the radii here exceed every such cell's half-diagonal.

Also: the same selections from the .snapkit file give identical JSON
columns, 1 and 2 threads are identical, and a small sphere opens fewer CPU
files and .snapkit chunks than the whole. yt loads once per fixture, and
every test of a fixture runs before the next fixture loads (`fixture`)."""
import glob
import json
import math
import os
import subprocess

import numpy as np
import pytest

from ramses_fixtures import CLI, SHARED

yt = pytest.importorskip("yt", reason="yt is not installed: shapes are not compared with yt")
yt.set_log_level(50)

BASE = os.path.join(SHARED, "fixtures", "ramses")
FIXTURES = ["sedov3d", "mhd3d", "rt3d", "sink3d", "clumps3d", "gravpart", "cosmo32",
            "manyfiles"]
# A physical unit where the fixture's unit_l makes one meaningful (the
# others have unit_l = 1 cm).
PHYSICAL = {"cosmo32": "kpc", "rt3d": "kpc", "sink3d": "pc"}
PARTICLES = ("sink3d", "gravpart", "cosmo32")
KPC_CM = 3.0856775814913673e21
CM_PER = {"kpc": KPC_CM, "pc": KPC_CM / 1e3}

# Shapes in box units, about centres on no cell face; radii off every cell
# centre's distance (checked: the counts below differ from yt otherwise).
C = (0.4627, 0.5213, 0.4879)
FACE = (0.0731, 0.9412, 0.5123)
TILT = (0.3, -0.5, 0.81)
SHAPES = [
    ("sphere", C, {"r": 0.2137}),
    ("sphere", FACE, {"r": 0.1573}),  # across the x = 0 and y = 1 faces
    ("disk", C, {"normal": (0.0, 0.0, 1.0), "R": 0.2311, "H": 0.0617}),
    ("disk", FACE, {"normal": TILT, "R": 0.1877, "H": 0.0913}),
    ("shell", C, {"r1": 0.0923, "r2": 0.2411}),
    ("disk_shell", FACE, {"normal": TILT, "R1": 0.0871, "R2": 0.2219, "H": 0.1234}),
    ("outside", C, {"r": 0.1877}),
]
SMALL = ((0.2113, 0.2887, 0.7311), 0.0613)


def folder_of(name):
    found = sorted(glob.glob(os.path.join(BASE, name, "output_*[0-9]")))
    if not found:
        pytest.skip(f"{name} is not in {BASE}")
    return found[-1]


def info_of(folder):
    """boxlen, unit_l, unit_d, aexp, H0 from the info file itself."""
    num = os.path.basename(folder).split("_")[-1]
    out = {}
    with open(os.path.join(folder, f"info_{num}.txt")) as f:
        for line in f:
            key, _, value = line.partition("=")
            try:
                out[key.strip()] = float(value.replace("D", "E"))
            except ValueError:
                pass
    return out


def box_per_unit(info, unit):
    """Box units per one `unit`: code lengths are boxlen to the box."""
    if unit == "code":
        return 1.0 / info["boxlen"]
    return CM_PER[unit] / (info["unit_l"] * info["boxlen"])


@pytest.fixture(scope="module", params=FIXTURES)
def fixture(request):
    """(name, folder, info, yt dataset) of one fixture. yt 4.1.4 mixes up
    the files of RAMSES datasets loaded in one process (going back to an
    earlier dataset read another's hydro records: a wrong density or a
    record-size error), so one dataset is in use at a time: this
    module-scoped parameter makes pytest run every test of a fixture
    before loading the next, with one load per fixture."""
    name = request.param
    folder = folder_of(name)
    num = os.path.basename(folder).split("_")[-1]
    try:
        ds = yt.load(os.path.join(folder, f"info_{num}.txt"))
    except Exception as e:  # pylint: disable=broad-except
        pytest.skip(f"yt cannot load {name}: {e}")
    yield name, folder, info_of(folder), ds
    del ds


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The .snapkit file of each fixture, converted once."""
    made = {}

    def get(name):
        if name not in made:
            path = str(tmp_path_factory.mktemp(name) / f"{name}.snapkit")
            subprocess.run([CLI, "convert", folder_of(name), "-o", path], check=True,
                           capture_output=True)
            made[name] = path
        return made[name]
    return get


def in_unit(shape, f):
    """The shape's centre and sizes in a unit of f box units."""
    kind, centre, sizes = shape
    scaled = {k: (v if k == "normal" else v / f) for k, v in sizes.items()}
    return kind, [c / f for c in centre], scaled


def cli_args(shape, unit, f):
    kind, c, s = in_unit(shape, f)
    args = ["--unit", unit, "--center"] + [repr(x) for x in c]
    axis = ["--cylinder-axis"] + [repr(x) for x in s.get("normal", ())]
    if kind == "sphere":
        return args + ["--sphere", repr(s["r"])]
    if kind == "outside":
        return args + ["--sphere", repr(s["r"]), "--inverse"]
    if kind == "shell":
        return args + ["--shell", repr(s["r1"]), repr(s["r2"])]
    if kind == "disk":
        return args + ["--cylinder", repr(s["R"]), repr(s["H"])] + axis
    return args + ["--cylinder-shell", repr(s["R1"]), repr(s["R2"]), repr(s["H"])] + axis


def yt_object(ds, shape, unit, f, unit_l):
    """yt's object for the shape given in `unit` (code lengths as cm:
    RAMSES's code length is unit_l cm; yt's code_length is the whole box)."""
    kind, c, s = in_unit(shape, f)
    scale, yunit = (unit_l, "cm") if unit == "code" else (1.0, unit)
    centre = ds.arr([x * scale for x in c], yunit)

    def q(v):
        return ds.quan(v * scale, yunit)
    if kind == "sphere":
        return ds.sphere(centre, q(s["r"]))
    if kind == "outside":
        return ds.all_data() - ds.sphere(centre, q(s["r"]))
    if kind == "shell":
        return ds.sphere(centre, q(s["r2"])) - ds.sphere(centre, q(s["r1"]))
    if kind == "disk":
        return ds.disk(centre, s["normal"], q(s["R"]), q(s["H"]))
    return (ds.disk(centre, s["normal"], q(s["R2"]), q(s["H"])) -
            ds.disk(centre, s["normal"], q(s["R1"]), q(s["H"])))


def yt_cells(obj, boxlen):
    dx = obj[("index", "dx")].to("code_length").d
    levels = np.rint(np.log2(1.0 / dx)).astype(int)
    rho = obj[("ramses", "Density")].d
    vol = (boxlen / 2.0 ** levels) ** 3
    return {"rows": int(levels.size),
            "levels": {str(l): int(n) for l, n in zip(*np.unique(levels, return_counts=True))},
            "density": math.fsum(rho), "mass": math.fsum(rho * vol),
            "volume": math.fsum(obj[("index", "cell_volume")].to("code_length**3").d *
                                boxlen ** 3)}


def stats(source, args, component="hydro", var="density", threads=None):
    cmd = [CLI, "stats", source, "--component", component, "--vars", var, "--json"] + args
    if threads:
        cmd += ["--threads", str(threads)]
    run = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def snapkit_cells(got, boxlen):
    col = got["columns"].get("density", {"sum": 0.0, "volume_sum": 0.0})
    return {"rows": got["rows"], "levels": {str(k): v for k, v in got["levels"].items()},
            "density": col["sum"], "mass": col["volume_sum"],
            "volume": math.fsum(n * (boxlen / 2.0 ** int(l)) ** 3
                                for l, n in got["levels"].items())}


def differences(want, have, where):
    out = []
    for key in ("rows", "levels"):
        if want[key] != have[key]:
            out.append(f"{where}: {key} {have[key]} != yt's {want[key]}")
    for key in ("density", "mass", "volume"):
        if abs(have[key] - want[key]) > 1e-12 * abs(want[key]):
            out.append(f"{where}: {key} {have[key]!r} != yt's {want[key]!r}")
    return out


def same_columns(a, b):
    keys = ("rows", "levels", "columns")
    return {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}


def particle_problems(name, folder, info, ds, store):
    """yt's ("all", "particle_mass") in each shape against `snapkit stats
    --component particles`: the same count and mass; the .snapkit file
    gives the same columns."""
    problems, nonempty = [], 0
    for unit in ["code"] + ([PHYSICAL[name]] if name in PHYSICAL else []):
        f = box_per_unit(info, unit)
        for shape in SHAPES:
            where = f"{name} particles {shape[0]} about {shape[1]} in {unit}"
            args = cli_args(shape, unit, f)
            got = stats(folder, args, "particles", "mass")
            mass = yt_object(ds, shape, unit, f, info["unit_l"])[("all", "particle_mass")]
            want = mass.to("code_mass").d
            have = got["columns"]["mass"]["sum"] if got["rows"] else 0.0
            nonempty += want.size > 0
            if got["rows"] != want.size:
                problems.append(f"{where}: {got['rows']} particles, yt {want.size}")
            elif abs(have - math.fsum(want)) > 1e-12 * math.fsum(want):
                problems.append(f"{where}: mass {have!r}, yt {math.fsum(want)!r}")
            if not same_columns(got, stats(store, args, "particles", "mass")):
                problems.append(f"{where}: the .snapkit file differs")
    if nonempty < len(SHAPES) // 2:
        problems.append(f"{name}: particles in only {nonempty} shapes")
    return problems


def test_shapes_match_yt(fixture, stores):
    """Cells, and particles where the output has them."""
    name, folder, info, ds = fixture
    store = stores(name)
    problems, nonempty = [], 0
    for unit in ["code"] + ([PHYSICAL[name]] if name in PHYSICAL else []):
        f = box_per_unit(info, unit)
        for shape in SHAPES:
            where = f"{name} {shape[0]} about {shape[1]} in {unit}"
            args = cli_args(shape, unit, f)
            got = stats(folder, args, threads=2)
            want = yt_cells(yt_object(ds, shape, unit, f, info["unit_l"]), info["boxlen"])
            problems += differences(want, snapkit_cells(got, info["boxlen"]), where)
            nonempty += want["rows"] > 0
            if unit == "code":  # one thread and the .snapkit file give the same bits
                if not same_columns(got, stats(folder, args, threads=1)):
                    problems.append(f"{where}: 1 and 2 threads differ")
                if not same_columns(got, stats(store, args)):
                    problems.append(f"{where}: the .snapkit file differs")
    if name in PARTICLES:
        problems += particle_problems(name, folder, info, ds, store)
    assert not problems, "\n".join(problems)
    assert nonempty >= len(SHAPES)


def exact_radii(ds):
    """A centre on the centre of a cell of the most populated level L and
    sizes with cells exactly on them: offsets from the centre of the cells
    of level L are whole cells, dyadic and computed exactly by yt and
    snapkit alike, so a radius of s cells (s^2 a sum of squares of the
    offsets) has cells on it. Returns the centre, the shell's radii, and
    the cylindrical shell's radii and half-height (axis z), box units."""
    ad = ds.all_data()
    dx = ad[("index", "dx")].to("code_length").d
    pos = np.stack([ad[("index", a)].to("code_length").d for a in "xyz"], axis=1)
    sizes, counts = np.unique(dx, return_counts=True)
    d = sizes[np.argmax(counts)]
    p = pos[dx == d]
    centre = p[np.argmin(((p - 0.5) ** 2).sum(axis=1))]
    n = int(round(1 / d))
    off = (np.rint((p - centre) / d).astype(np.int64) + n // 2) % n - n // 2

    def radii(sq):
        s = np.sqrt(sq).round().astype(np.int64)
        return np.unique(s[(s * s == sq) & (s >= 2) & (s * d < 0.4)])
    r = radii((off ** 2).sum(axis=1))
    h = np.abs(off[:, 2])
    near = h <= 3
    big_r = radii((off[near, :2] ** 2).sum(axis=1))
    ring = (big_r[0] ** 2 < (off[:, :2] ** 2).sum(axis=1)) & \
        ((off[:, :2] ** 2).sum(axis=1) <= big_r[-1] ** 2)
    height = h[ring & near].max()
    return (list(centre), (r[0] * d, r[-1] * d),
            (big_r[0] * d, big_r[-1] * d, height * d))


def test_shell_boundaries_match_yt(fixture):
    """Shells whose radii and height fall exactly on cell centres
    (exact_radii): yt's difference of spheres (disks) drops the cells on
    r_in and keeps those on r_out and on the height, and so does snapkit.
    Box units on both sides (yt's code_length is the box)."""
    name, folder, info, ds = fixture
    c, (r1, r2), (cr1, cr2, h) = exact_radii(ds)
    centre = ds.arr(c, "code_length")
    z = (0.0, 0.0, 1.0)

    def q(v):
        return ds.quan(v, "code_length")
    cases = [([r1, r2], ["--shell"], ds.sphere(centre, q(r2)) - ds.sphere(centre, q(r1))),
             ([cr1, cr2, h], ["--cylinder-shell"],
              ds.disk(centre, z, q(cr2), q(h)) - ds.disk(centre, z, q(cr1), q(h)))]
    base = ["--center"] + [repr(x) for x in c] + ["--cylinder-axis", "z"]
    problems = []
    for sizes, flag, obj in cases:
        where = f"{name} {flag[0]} {sizes} on cell centres"
        got = stats(folder, base + flag + [repr(v) for v in sizes])
        problems += differences(yt_cells(obj, info["boxlen"]),
                                snapkit_cells(got, info["boxlen"]), where)
        # Cells do sit on every size: nudging one changes the count.
        for k, v in enumerate(sizes):
            nudged = list(sizes)
            nudged[k] = v * (1 - 1e-9)
            if stats(folder, base + flag + [repr(x) for x in nudged])["rows"] == got["rows"]:
                problems.append(f"{where}: no cell on {v}")
    assert not problems, "\n".join(problems)


def test_small_sphere_reads_less(fixture, stores):
    """A small sphere opens fewer CPU files than the whole output, and
    reads fewer chunks of the .snapkit file than the whole table."""
    name, folder = fixture[:2]
    store = stores(name)
    (cx, cy, cz), r = SMALL
    args = ["--center", repr(cx), repr(cy), repr(cz), "--sphere", repr(r)]
    whole, small = stats(folder, []), stats(folder, args)
    assert small["rows"] > 0
    assert small["files_opened"] < whole["files_opened"], (small, whole)
    whole_file = stats(store, ["--recompute"])
    small_file = stats(store, args)
    assert small_file["chunks_read"] < whole_file["chunks_read"], (small_file, whole_file)
    assert same_columns(small, small_file)
