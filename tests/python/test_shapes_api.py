"""Shapes from Python (issue 29): out.hydro(sphere=...), shell=,
cylinder=, cylinder_shell=, inverse=True, for cells and particles, from a
RAMSES output and from its .snapkit file, keep the rows a numpy filter of
the full read keeps (distances to the nearest periodic image) and as many
as `snapkit stats` counts; bad shapes raise. Length units on cosmo32
(ckpc, cMpc, kpc/h, ckpc/h, ...; the kpccm spellings kept) equal the
values computed from the info file's unit_l, aexp and H0."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA, SHARED

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
COSMO = os.path.join(SHARED, "fixtures", "ramses", "cosmo32", "output_00003")
PC_CM = 3.0856775814913673e18

C = (0.4627, 0.5213, 0.4879)
FACE = (0.0731, 0.9412, 0.5123)
AXIS = (0.3, -0.5, 0.81)
# (keywords of read(), the same on the command line)
SHAPES = [
    ({"sphere": (C, 0.2137)}, ["--center", *map(repr, C), "--sphere", "0.2137"]),
    ({"sphere": (FACE, 0.1573), "inverse": True},
     ["--center", *map(repr, FACE), "--sphere", "0.1573", "--inverse"]),
    ({"shell": (C, 0.0923, 0.2411)}, ["--center", *map(repr, C), "--shell", "0.0923", "0.2411"]),
    ({"cylinder": (C, AXIS, 0.1877, 0.0913)},
     ["--center", *map(repr, C), "--cylinder", "0.1877", "0.0913",
      "--cylinder-axis", *map(repr, AXIS)]),
    ({"cylinder_shell": ("bc", "x", 0.0871, 0.2219, 0.1234), "inverse": True},
     ["--center", "bc", "--cylinder-shell", "0.0871", "0.2219", "0.1234", "--cylinder-axis",
      "x", "--inverse"]),
]


def positions(t):
    """Box-unit positions of a table's rows: cell centres or particles."""
    if "level" in t.columns:
        s = 2.0 ** -t["level"].astype(np.float64)
        return np.stack([(t[c] + 0.5) * s for c in ("cx", "cy", "cz")], axis=1)
    return np.stack([t[c] for c in ("position_x", "position_y", "position_z")], axis=1)


def brute(points, kw):
    """numpy's own shape test (the nearest periodic image)."""
    name = next(k for k in kw if k != "inverse")
    spec = kw[name]
    centre = np.array([0.5] * 3 if isinstance(spec[0], str) else spec[0])
    d = points - centre
    d -= np.round(d)
    if name.startswith("cylinder"):
        axis = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}.get(spec[1], spec[1])
        n = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
        h = d @ n
        r = np.sqrt(np.maximum((d * d).sum(axis=1) - h * h, 0))
        sizes = spec[2:]
        keep = np.abs(h) <= sizes[-1]
        sizes = sizes[:-1]
    else:
        r = np.sqrt((d * d).sum(axis=1))
        sizes = spec[1:]
        keep = np.ones(len(r), dtype=bool)
    keep &= r <= sizes[-1]
    if len(sizes) == 2:
        keep &= r > sizes[0]
    return ~keep if kw.get("inverse") else keep


def cli_rows(source, component, args):
    out = subprocess.run([CLI, "stats", source, "--component", component, "--json"] + args,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["rows"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("shapes") / "gravpart.snapkit")
    snapkit.convert(GRAVPART, path)
    return path


@pytest.mark.parametrize("kw,args", SHAPES, ids=[" ".join(a[-4:]) for _, a in SHAPES])
def test_shapes_match_numpy_and_cli(kw, args, store):
    with snapkit.open(GRAVPART) as out, snapkit.open(store) as f:
        for comp in ("hydro", "particles"):
            full = out.read(comp)
            keep = brute(positions(full) / (1.0 if comp == "hydro" else
                                            out.info["info"]["boxlen"]), kw)
            got = out.read(comp, **kw)
            assert len(got) == keep.sum() == cli_rows(GRAVPART, comp, args), comp
            for name in got.columns:
                np.testing.assert_array_equal(np.sort(got[name]), np.sort(full[name][keep]),
                                              err_msg=f"{comp} {name}")
            assert 0 < len(got) < len(full) or comp == "particles"
            from_file = f.read(comp, **kw)
            assert snapkit.same_rows(from_file, got) == (True, "")
            assert len(from_file) == cli_rows(store, comp, args)
            # the per-component shortcuts take the same keywords
            short = out.hydro(**kw) if comp == "hydro" else out.particles(**kw)
            assert len(short) == len(got)


def test_convert_with_a_shape(tmp_path):
    kw = {"shell": (C, 0.0923, 0.2411)}
    path = str(tmp_path / "shell.snapkit")
    snapkit.convert(GRAVPART, path, components=["hydro"], **kw)
    with snapkit.open(GRAVPART) as out, snapkit.open(path) as f:
        assert snapkit.same_rows(f.hydro(), out.hydro(**kw)) == (True, "")


def test_small_sphere_opens_fewer(store):
    with snapkit.open(GRAVPART) as out, snapkit.open(store) as f:
        out.hydro()
        whole = out.last_read["files_opened"]
        out.hydro(sphere=((0.05, 0.95, 0.5), 0.07))
        assert out.last_read["files_opened"] < whole
        f.hydro()
        chunks = f.last_read["chunks_read"]
        f.hydro(sphere=((0.05, 0.95, 0.5), 0.07))
        assert f.last_read["chunks_read"] < chunks


@pytest.mark.parametrize("kw,message", [
    ({"sphere": (C, 0.0)}, "radius must be a finite number above 0"),
    ({"sphere": (C, float("nan"))}, "radius must be a finite number above 0"),
    ({"shell": (C, 0.3, 0.2)}, "inner radius must be at least 0 and below the outer"),
    ({"cylinder": (C, "z", 0.1, 0.0)}, "half-height must be a finite number above 0"),
    ({"cylinder": (C, (0, 0, 0), 0.1, 0.1)}, "axis must be a direction of non-zero length"),
    ({"cylinder": (C, "w", 0.1, 0.1)}, "axis is 3 numbers, 'x', 'y' or 'z'"),
    ({"sphere": ((1.5, 0.5, 0.5), 0.1)}, "lies outside the box"),
    ({"sphere": (C, 0.1), "shell": (C, 0.1, 0.2)}, "one shape only"),
    ({"sphere": (C,)}, "sphere= takes (centre, radius)"),
    ({"inverse": True}, "inverse=True needs a shape"),
    ({"sphere": (C, 0.1), "center": C}, "leave center= out"),
    ({"sphere": (C, 10.0), "unit": "ckpc"}, "not cosmological"),
])
def test_bad_shapes_raise(kw, message):
    with snapkit.open(GRAVPART) as out:
        with pytest.raises((ValueError, snapkit.Error), match=message.replace("(", r"\(")
                           .replace(")", r"\)")):
            out.hydro(**kw)
        with pytest.raises(TypeError, match="unknown keyword spehre"):
            out.hydro(spehre=(C, 0.1))


def info_values(folder):
    num = os.path.basename(folder).split("_")[-1]
    out = {}
    with open(os.path.join(folder, f"info_{num}.txt")) as f:
        for line in f:
            key, _, value = line.partition("=")
            try:
                out[key.strip()] = float(value)
            except ValueError:
                pass
    return out


# name -> (pc per unit, comoving, per h)
LENGTHS = {"pc": (1, 0, 0), "kpc": (1e3, 0, 0), "Mpc": (1e6, 0, 0),
           "cpc": (1, 1, 0), "ckpc": (1e3, 1, 0), "cMpc": (1e6, 1, 0),
           "kpc/h": (1e3, 0, 1), "Mpc/h": (1e6, 0, 1), "ckpc/h": (1e3, 1, 1),
           "cMpc/h": (1e6, 1, 1), "pccm": (1, 1, 0), "kpccm": (1e3, 1, 0), "Mpccm": (1e6, 1, 0),
           "kpccm/h": (1e3, 1, 1), "Mpccm/h": (1e6, 1, 1)}


def test_cosmological_units():
    if not os.path.isdir(COSMO):
        pytest.skip(f"cosmo32 is not in {os.path.dirname(COSMO)}")
    info = info_values(COSMO)
    aexp, h, unit_l, boxlen = info["aexp"], info["H0"] / 100, info["unit_l"], info["boxlen"]
    centre, radius = (0.4627, 0.5213, 0.4879), 0.2137
    with snapkit.open(COSMO) as out:
        units = out.units
        want_rows = len(out.hydro(sphere=(centre, radius)))
        assert 0 < want_rows < len(out.hydro())
        for name, (pc, comoving, per_h) in LENGTHS.items():
            cm = pc * PC_CM * (aexp if comoving else 1) / (h if per_h else 1)
            assert units[name] == pytest.approx(unit_l / cm, rel=1e-14), name
            f = cm / (unit_l * boxlen)  # box units per one `name`
            kw = {"sphere": ([x / f for x in centre], radius / f), "unit": name}
            assert len(out.hydro(**kw)) == want_rows, name
            args = ["--unit", name, "--center", *(repr(x / f) for x in centre),
                    "--sphere", repr(radius / f)]
            assert cli_rows(COSMO, "hydro", args) == want_rows, name
        assert units["ckpc"] == units["kpccm"] and units["cMpc/h"] == units["Mpccm/h"]
        assert math.isclose(units["ckpc"] * aexp, units["kpc"], rel_tol=1e-14)


def test_code_units_as_the_command_line():
    """A box of 2x2x2 coarse cells: its info file gives boxlen / nx (0.5),
    the box is 1 code length; Python, the command line and the .snapkit
    file all take `code` as that box."""
    folder = os.path.join(DATA, "ramses", "coarse222", "output_00001")
    args = ["--unit", "code", "--center", "0.3", "0.6", "0.4", "--sphere", "0.2"]
    with snapkit.open(folder) as out:
        got = out.hydro(sphere=((0.3, 0.6, 0.4), 0.2), unit="code")
        keep = brute(positions(out.hydro()), {"sphere": ((0.3, 0.6, 0.4), 0.2)})
    assert len(got) == keep.sum() == cli_rows(folder, "hydro", args) > 0
