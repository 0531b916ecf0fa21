"""snapkit export -o FILE.h5 read back with h5py: every component of every
fixture (hydro, MHD, particles, gravity, cosmological) against the
fixtures' reference.json (written by yt 4.1.4 from the RAMSES files): rows
and levels exact, min and max exact, sums and volume sums to 1e-12; a
selection of the reference the same; the units, time, box and cosmology
attributes equal to the output's info file; the columns chunked and
compressed with shuffle + deflate (which h5py reads without a plugin)."""
import math
import os
import subprocess

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

from ramses_fixtures import CLI, compare, outputs, selection_args

CASES = outputs()
IDS = [c[0] for c in CASES]


def export(folder, path, *extra):
    subprocess.run([CLI, "export", folder, "-o", path, "--no-fsync", *extra], check=True,
                   capture_output=True)


def stats(group):
    """rows, levels and per-column min/max/sum/volume_sum, as the reference has them."""
    cells = group.attrs["kind"] == b"cells"
    vol = None
    if cells:
        ndim, boxlen = int(group.attrs["ndim"]), float(group.attrs["boxlen"])
        vol = (boxlen * 2.0 ** -group["level"][:].astype(float)) ** ndim
    cols = {}
    for name, d in group.items():
        a = d[:]
        if a.dtype.kind not in "fiu" or (cells and name in ("level", "cx", "cy", "cz")):
            continue
        a = a.astype(float)
        c = {"min": float(a.min()), "max": float(a.max()), "sum": math.fsum(a)} if len(a) else \
            {"min": None, "max": None, "sum": 0.0}
        if vol is not None:
            c["volume_sum"] = math.fsum(a * vol)
        cols[name] = c
    got = {"rows": int(group.attrs["rows"]), "columns": cols}
    if cells:
        lev, n = np.unique(group["level"][:], return_counts=True)
        got["levels"] = {str(k): int(v) for k, v in zip(lev, n)}
    return got


def info_values(folder):
    num = os.path.basename(folder).split("_")[1]
    out = {}
    with open(os.path.join(folder, "info_%s.txt" % num)) as f:
        for line in f:
            if "=" in line:
                k, v = (s.strip() for s in line.split("=", 1))
                try:
                    out[k] = float(v)
                except ValueError:
                    pass
    return out


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_component_equals_the_reference(case, tmp_path):
    key, folder, ref = case
    comps = sorted(ref["full"])
    path = str(tmp_path / "o.h5")
    export(folder, path, "--component", ",".join(comps))
    info = info_values(folder)
    with h5py.File(path, "r") as f:
        assert sorted(f.keys()) == comps
        assert f.attrs["source"].decode() == folder
        for comp in comps:
            g = f[comp]
            assert g.attrs["rows"] == ref["full"][comp]["rows"]
            assert g.attrs["component"].decode() == comp
            for k, v in info.items():  # every number of the info file, as a number
                assert g.attrs["ramses.info." + k] == v, (comp, k)
            for k in ("unit_d", "unit_t", "time", "aexp"):
                assert g.attrs[k] == info[k], (comp, k)
            for name, d in g.items():
                assert len(d) == g.attrs["rows"]
                assert d.compression == "gzip" and d.shuffle and d.chunks is not None
                assert d.attrs["unit"] == b"code"
            compare(stats(g), ref["full"][comp], "%s %s" % (key, comp))
            if "density" in g:
                assert g["density"].attrs["to_cgs"] == info["unit_d"]
                assert g["density"].attrs["cgs_unit"] == b"g/cm3"


@pytest.mark.parametrize("case", [c for c in CASES if c[2]["selections"]], ids=lambda c: c[0])
def test_a_selection_equals_the_reference(case, tmp_path):
    key, folder, ref = case
    sel = ref["selections"][-1]
    comps = sorted(c for c in sel["components"] if c in ("hydro", "gravity", "particles"))
    path = str(tmp_path / "s.h5")
    export(folder, path, "--component", ",".join(comps), *selection_args(sel))
    with h5py.File(path, "r") as f:
        for comp in comps:
            compare(stats(f[comp]), sel["components"][comp], "%s %s %s" % (key, comp, sel))


def test_derived_quantities_and_gzip_off(tmp_path):
    folder = next(c[1] for c in CASES if c[0] == "sedov3d/output_00001")
    path = str(tmp_path / "d.h5")
    export(folder, path, "--vars", "density,pressure,T,mass", "--gzip", "0")
    with h5py.File(path, "r") as f:
        g = f["hydro"]
        assert sorted(g.keys()) == ["T", "cx", "cy", "cz", "density", "level", "mass", "pressure"]
        assert g["T"].compression is None
        rho, p, lev = g["density"][:], g["pressure"][:], g["level"][:]
        np.testing.assert_allclose(g["T"][:], p / rho, rtol=1e-15)
        boxlen = g.attrs["boxlen"]
        np.testing.assert_allclose(g["mass"][:], rho * (boxlen / 2.0 ** lev) ** 3, rtol=1e-15)
        assert g["T"].attrs["cgs_unit"] == b"K"


def test_many_batches_in_order(tmp_path):
    """Small chunks and batches from several files on 2 threads: the rows in
    the order of a one-thread export, the same bits."""
    folder = next(c[1] for c in CASES if c[0] == "manyfiles/output_00002")
    a, b = str(tmp_path / "a.h5"), str(tmp_path / "b.h5")
    export(folder, a, "--threads", "1", "--component", "hydro")
    export(folder, b, "--threads", "2", "--component", "hydro", "--chunk-rows", "1000")
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        assert fb["hydro/density"].chunks == (1000,)
        for name in fa["hydro"]:
            assert np.array_equal(fa["hydro"][name][:], fb["hydro"][name][:]), name


@pytest.mark.parametrize("key", [k for k in ("sedov3d/output_00001", "cosmo32/output_00003")
                                 if k in IDS])
def test_from_a_snapkit_file(key, tmp_path):
    """A .snapkit file exports the same rows (in its Hilbert order) as its output."""
    _, folder, ref = CASES[IDS.index(key)]
    store = str(tmp_path / "o.snapkit")
    subprocess.run([CLI, "convert", folder, "-o", store], check=True, capture_output=True)
    path = str(tmp_path / "f.h5")
    comps = sorted(c for c in ref["full"] if c in ("hydro", "gravity", "particles"))
    export(store, path, "--component", ",".join(comps))
    with h5py.File(path, "r") as f:
        assert f.attrs["source_kind"] == b"snapkit"
        for comp in comps:
            compare(stats(f[comp]), ref["full"][comp], "%s %s from .snapkit" % (key, comp))
