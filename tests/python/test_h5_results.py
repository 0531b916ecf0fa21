"""Results as .h5, read back with h5py: maps (project, slice), profiles,
phase diagrams and clump catalogues equal, value for value, to the same
command's .npy, .json or .csv output, with the units and the geometry as
attributes; a bad target leaves nothing behind."""
import csv
import json
import os
import subprocess

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

from ramses_fixtures import CLI, DATA

GRAVPART = os.path.join(DATA, "ramses", "gravpart", "output_00002")
MANYFILES = os.path.join(DATA, "ramses", "manyfiles", "output_00002")


def run(*args):
    subprocess.run([CLI, *args], check=True, capture_output=True)


def text(v):
    return v.decode() if isinstance(v, bytes) else v


@pytest.mark.parametrize("folder", [GRAVPART, MANYFILES])
def test_project_maps(tmp_path, folder):
    h5, npy = str(tmp_path / "m.h5"), str(tmp_path / "m_{var}.npy")
    args = [folder, "--vars", "sd,T", "--res", "64", "--axis", "y", "--no-fsync"]
    run("project", *args, "-o", h5)
    run("project", *args, "-o", npy)
    with h5py.File(h5) as f:
        assert text(f.attrs["kind"]) == "snapkit maps"
        assert int(f.attrs["axis"]) == 1
        for name in ("sd", "T"):
            d = f[name]
            assert d.shape == (64, 64)
            want = np.load(npy.replace("{var}", name))
            assert np.array_equal(d[...], want, equal_nan=True)
            assert text(d.attrs["unit"]) == "code"
        assert f.attrs["extent"].shape == (4,)
        assert f.attrs["pixel_size"] == pytest.approx(f.attrs["pixel_size_cm"] / f.attrs["unit_l"])
        assert int(f.attrs["deposited"]) <= int(f.attrs["selected"]) <= int(f.attrs["rows"])


def test_slice_map(tmp_path):
    h5, npy = str(tmp_path / "s.h5"), str(tmp_path / "s.npy")
    args = [MANYFILES, "--axis", "x", "--at", "0.37", "--vars", "density", "--res", "80,40",
            "--no-fsync"]
    run("slice", *args, "-o", h5)
    run("slice", *args, "-o", npy)
    with h5py.File(h5) as f:
        assert np.array_equal(f["density"][...], np.load(npy), equal_nan=True)
        assert text(f["density"].attrs["what"]).startswith("value of the cell")


def test_profile(tmp_path):
    h5, js = str(tmp_path / "p.h5"), str(tmp_path / "p.json")
    run("profile", GRAVPART, "--center", "0.5", "0.5", "0.5", "--sphere", "0.3", "--vars",
        "density,T", "--percentiles", "16,84", "--cumulative", "--units", "density=g/cm3",
        "-o", h5, "-o", js)
    j = json.load(open(js))
    with h5py.File(h5) as f:
        assert text(f.attrs["kind"]) == "snapkit profile" and text(f.attrs["bin"]) == "r"
        assert np.array_equal(f["count"][...], j["count"])
        assert f["count"].dtype == np.int64
        assert np.array_equal(f["bin_lo"][...], j["edges"][:-1])
        assert np.array_equal(f["bin_hi"][...], j["edges"][1:])
        for q in ("density", "T"):
            for s in ("mean", "std", "sum"):
                want = np.array([np.nan if v is None else v for v in j["quantities"][q][s]])
                assert np.array_equal(f[f"{q}_{s}"][...], want, equal_nan=True), (q, s)
        assert text(f["density_mean"].attrs["unit"]) == "g/cm3"
        assert "density_p16" in f and "cum_count" in f


def test_phase(tmp_path):
    h5, npy, js = (str(tmp_path / n) for n in ("ph.h5", "ph.npy", "ph.json"))
    args = [GRAVPART, "--x", "density", "--y", "T", "--bins", "20,30", "--no-fsync"]
    for out in (h5, npy, js):
        run("phase", *args, "-o", out)
    j = json.load(open(js))
    with h5py.File(h5) as f:
        assert np.array_equal(f["values"][...], np.load(npy), equal_nan=True)
        assert f["values"].shape == (20, 30)
        assert np.array_equal(f["x_edges"][...], j["x_edges"])
        assert np.array_equal(f["y_edges"][...], j["y_edges"])
        assert text(f["x_edges"].attrs["quantity"]) == "density"
        assert int(f.attrs["rows"]) == j["rows"] and int(f.attrs["binned"]) == j["binned"]


def test_clump_catalogue(tmp_path):
    h5, cv = str(tmp_path / "c.h5"), str(tmp_path / "c.csv")
    for out in (h5, cv):
        run("clumps", GRAVPART, "--component", "particles", "--min-cells", "5", "-o", out)
    rows = list(csv.DictReader(line for line in open(cv) if not line.startswith("#")))
    assert rows
    with h5py.File(h5) as f:
        assert text(f.attrs["kind"]) == "snapkit clump catalogue"
        assert len(f["id"]) == len(rows)
        for col in ("id", "mass", "x", "radius"):
            assert np.array_equal(f[col][...].astype(float), [float(r[col]) for r in rows]), col
        assert text(f["mass"].attrs["unit"]) == "code mass"


def test_bad_target_leaves_nothing(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "m.h5"
    r = subprocess.run([CLI, "project", GRAVPART, "--vars", "sd", "--res", "16", "-o",
                        str(target)], capture_output=True, text=True)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.rglob("*.h5")) and not list(tmp_path.rglob("*tmp*"))
