"""snapkit phase against yt 4.1: yt.create_profile(ad, [x, y], [z],
weight_field=...) given snapkit's bin edges (override_bins), per bin to
1e-12 relative, on the RAMSES fixtures yt reads; the values compared in
yt's units (snapkit's --units cgs). Also: the same bits on 1 and 2
threads and from the output's .snapkit file, the default range (extrema
widened as yt's) against numpy, and snapkit.phase against the command."""
import glob
import json
import os
import subprocess

import numpy as np
import pytest

import snapkit

yt = pytest.importorskip("yt")
yt.set_log_level(50)

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
SHARED = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
FIXTURES = ["sedov3d/output_00002", "mhd3d/output_00002", "cosmo32/output_00003",
            "gravpart/output_00002"]


def folder(name):
    path = os.path.join(SHARED, "fixtures", "ramses", name)
    if not os.path.isdir(path):
        pytest.skip("fixture %s is not here (SNAPKIT_SHARED)" % name)
    return path


def run_phase(src, out, *args):
    subprocess.run([CLI, "phase", src, "-o", str(out), "--no-fsync", *args], check=True,
                   capture_output=True)
    if str(out).endswith(".json"):
        with open(out) as f:
            return json.load(f)
    return np.load(out)


def yt_profile(path, fields, z, weight, xe, ye):
    ds = yt.load(sorted(glob.glob(os.path.join(path, "info_*.txt")))[0])
    ad = ds.all_data()
    p = yt.create_profile(ad, fields, [z], weight_field=weight, n_bins=[len(xe) - 1, len(ye) - 1],
                          override_bins={fields[0]: xe, fields[1]: ye})
    return p[z].d, p.used


def limits(path, name, log):
    """--xlim for a quantity: its extrema (above 0 on a log axis) in CGS,
    widened by 1e-9 of themselves. yt converts to CGS in other steps (its
    velocities differ from code x unit_v in the last bit), so a row at an
    extreme could fall on the other side of an edge at 1 ulp from it."""
    t = snapkit.open(path).read("hydro")
    m = t.meta
    ul, ud, ut = float(m["unit_l"]), float(m["unit_d"]), float(m["unit_t"])
    factor = {"density": ud, "pressure": ud * (ul / ut) ** 2, "velocity_x": ul / ut}[name]
    v = np.asarray(t[name]) * factor
    v = v[v > 0] if log else v
    lo, hi = v.min(), v.max()
    if log:
        return ["%r" % (lo / (1 + 1e-9)), "%r" % (hi * (1 + 1e-9))]
    pad = 1e-9 * (hi - lo)
    return ["%r" % (lo - pad), "%r" % (hi + pad)]


def check_equal(got, want, used):
    """Per bin to 1e-12 relative; bins yt leaves empty are 0 (sums) or NaN
    (means) in snapkit."""
    assert got.shape == want.shape
    scale = np.abs(want[used]).max()
    np.testing.assert_allclose(got[used], want[used], rtol=1e-12, atol=1e-13 * scale)
    assert np.all((got[~used] == 0) | np.isnan(got[~used]))
    assert used.sum() > 10  # the diagram is not trivially empty


@pytest.mark.parametrize("name", FIXTURES)
def test_mass_density_pressure_equals_yt(name, tmp_path):
    path = folder(name)
    d = run_phase(path, tmp_path / "p.json", "--x", "density", "--y", "pressure",
                  "--units", "cgs", "--xlim", *limits(path, "density", 1),
                  "--ylim", *limits(path, "pressure", 1))
    assert (d["x_unit"], d["y_unit"], d["z_unit"]) == ("g/cm3", "erg/cm3", "g")
    xe, ye = np.array(d["x_edges"]), np.array(d["y_edges"])
    assert len(xe) == 129 and len(ye) == 129
    got = np.array(d["values"], dtype=float)
    want, used = yt_profile(path, [("gas", "density"), ("gas", "pressure")], ("gas", "mass"),
                            None, xe, ye)
    check_equal(got, want, used)
    t = snapkit.open(path).read("hydro")
    positive = (np.asarray(t["density"]) > 0) & (np.asarray(t["pressure"]) > 0)
    assert d["binned"] == positive.sum() and d["rows"] == len(positive)


@pytest.mark.parametrize("name", FIXTURES)
def test_volume_weighted_mean_equals_yt(name, tmp_path):
    """A linear axis of a signed quantity, and a volume-weighted mean."""
    path = folder(name)
    d = run_phase(path, tmp_path / "p.json", "--x", "density", "--y", "velocity_x",
                  "--z", "pressure", "--weight", "volume", "--bins", "40,30", "--units", "cgs",
                  "--xlim", *limits(path, "density", 1), "--ylim", *limits(path, "velocity_x", 0))
    assert d["x_log"] and not d["y_log"]
    xe, ye = np.array(d["x_edges"]), np.array(d["y_edges"])
    got = np.array([[np.nan if v is None else v for v in row] for row in d["values"]])
    want, used = yt_profile(path, [("gas", "density"), ("gas", "velocity_x")],
                            ("gas", "pressure"), ("gas", "cell_volume"), xe, ye)
    check_equal(got, want, used)
    assert np.isnan(got[~used]).all()


@pytest.mark.parametrize("name", FIXTURES[:2])
def test_count_and_range_equal_yt(name, tmp_path):
    """--z count against yt's ones, on a range that leaves rows out."""
    path = folder(name)
    t = snapkit.open(path).read("hydro")
    rho = t["density"] * float(t.meta["unit_d"])
    lo, hi = np.quantile(rho, [0.2, 0.9])
    d = run_phase(path, tmp_path / "p.json", "--x", "density", "--y", "pressure", "--z",
                  "count", "--bins", "16", "--xlim", repr(lo), repr(hi), "--units", "cgs")
    xe, ye = np.array(d["x_edges"]), np.array(d["y_edges"])
    assert xe[0] == lo and xe[-1] == hi
    got = np.array(d["values"], dtype=float)
    want, used = yt_profile(path, [("gas", "density"), ("gas", "pressure")], ("index", "ones"),
                            None, xe, ye)
    check_equal(got, want, used)
    assert d["binned"] == int(got.sum()) < d["rows"]
    inside = (rho > lo) & (rho < hi)  # yt's strict filter
    assert int(got.sum()) == int(inside.sum())


def test_default_range_is_padded_extrema(tmp_path):
    """The default log range: the smallest value above 0 and the largest,
    each widened by np.spacing (yt's Extrema(non_zero=True) and padding)."""
    path = folder("cosmo32/output_00003")
    t = snapkit.open(path).read("hydro")
    d = run_phase(path, tmp_path / "p.json", "--x", "density", "--y", "velocity_y",
                  "--bins", "7,5")
    rho, vy = t["density"], t["velocity_y"]
    pos = rho[rho > 0]
    assert d["x_edges"][0] == pos.min() - np.spacing(pos.min())
    assert d["x_edges"][-1] == rho.max() + np.spacing(rho.max())
    assert d["y_edges"][0] == vy.min() - np.spacing(vy.min())
    assert d["y_edges"][-1] == vy.max() + np.spacing(vy.max())
    # numpy's power may differ from libm's in the last place (snapkit/bins.h)
    np.testing.assert_allclose(d["x_edges"], np.logspace(np.log10(d["x_edges"][0]),
                                                         np.log10(d["x_edges"][-1]), 8),
                               rtol=1e-15, atol=0)
    np.testing.assert_array_equal(d["y_edges"], np.linspace(d["y_edges"][0], d["y_edges"][-1], 6))
    # np.spacing of a negative value is negative: yt's padding moves a
    # negative minimum up, and the rows at it fall outside, as in yt
    assert vy.min() < 0
    assert d["rows"] == len(rho) and d["binned"] == len(rho) - (vy == vy.min()).sum()


@pytest.mark.parametrize("name", FIXTURES)
def test_threads_and_snapkit_file_same_bits(name, tmp_path):
    path = folder(name)
    args = ["--x", "density", "--y", "T", "--z", "velocity_x", "--weight", "mass"]
    one = run_phase(path, tmp_path / "a.npy", "--threads", "1", *args)
    two = run_phase(path, tmp_path / "b.npy", "--threads", "2", *args)
    store = str(tmp_path / "o.snapkit")
    subprocess.run([CLI, "convert", path, "-o", store], check=True, capture_output=True)
    packed = run_phase(store, tmp_path / "c.npy", "--threads", "2", *args)
    assert one.tobytes() == two.tobytes() == packed.tobytes()
    assert np.isfinite(one).sum() > 10


def test_python_equals_command(tmp_path):
    path = folder("mhd3d/output_00002")
    d = run_phase(path, tmp_path / "p.json", "--x", "density", "--y", "T", "--bins", "20,10",
                  "--units", "cgs")
    ph = snapkit.phase(path, "density", "T", bins=(20, 10), units="cgs")
    assert ph["values"].shape == (20, 10)
    np.testing.assert_array_equal(ph["values"], np.array(d["values"], dtype=float))
    np.testing.assert_array_equal(ph["x_edges"], d["x_edges"])
    np.testing.assert_array_equal(ph["y_edges"], d["y_edges"])
    assert ph["units"] == {"density": "g/cm3", "T": "K", "mass": "g"}
    # a table in, numpy's sums out: every row binned, mass conserved
    t = snapkit.open(path).read("hydro")
    m = snapkit.derive(t, "mass")
    assert ph["binned"] == ph["rows"] == len(m)
    assert ph["values"].sum() == pytest.approx(m.sum() * float(t.meta["unit_d"]) *
                                               float(t.meta["unit_l"]) ** 3, rel=1e-12)
