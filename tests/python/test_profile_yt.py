"""snapkit profile against yt 4.1's create_profile: a mass-weighted radial
profile of density and velocity_x in a sphere, on snapkit's bin edges
(passed to yt with override_bins, in cm: yt's radius is in cm, so snapkit
bins r in cm too), per bin the same counts, the same weight sums (g) and
the same weighted means to 1e-12 relative; yt's std (its running variance)
to 1e-9. The profile has the same bits on 1 and 2 threads and from the
output's .snapkit file."""
import glob
import json
import os
import subprocess

import numpy as np
import pytest

yt = pytest.importorskip("yt")

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
DATA = os.environ.get("SNAPKIT_TEST_DATA", os.path.join(HERE, "..", "data"))
SHARED = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))

# A sphere (box units) whose selection test_shapes_yt checks against yt's.
C = (0.4627, 0.5213, 0.4879)
R = 0.2137


def outputs():
    pat = "output_[0-9][0-9][0-9][0-9][0-9]"
    found = sorted(glob.glob(os.path.join(DATA, "ramses", "sedov3d", pat)))
    for name in ("sedov3d", "gravpart", "cosmo32", "mhd3d"):
        found += sorted(glob.glob(os.path.join(SHARED, "fixtures", "ramses", name, pat)))[:1]
    return [f for f in found if os.path.isdir(f)]


def profile(src, *extra):
    args = [CLI, "profile", src, "--unit", "standard", "--center"] + [repr(x) for x in C]
    args += ["--sphere", repr(R), "--bin", "r", "--bins", "16", "--vars",
             "density,velocity_x", "--units", "r=cm,density=g/cm3,velocity_x=cm/s", "--json"]
    run = subprocess.run(args + list(extra), check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def info_of(folder):
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


def values(js):
    return np.array([np.nan if v is None else v for v in js], dtype=float)


@pytest.mark.parametrize("folder", outputs())
def test_equals_create_profile(folder):
    got = profile(folder)
    edges = np.array(got["edges"])
    ds = yt.load(folder)
    width = ds.domain_width.to("code_length").d[0]
    sp = ds.sphere(ds.arr(np.array(C) * width, "code_length"), ds.quan(R * width, "code_length"))
    fields = [("gas", "density"), ("gas", "velocity_x")]
    prof = yt.create_profile(sp, ("index", "radius"), fields, weight_field=("gas", "mass"),
                             override_bins={("index", "radius"): edges},
                             logs={("index", "radius"): False})
    used = np.asarray(prof.used)
    count = np.array(got["count"])
    # yt keeps no count per bin: count the radii it bins, with its own filter
    r = sp["index", "radius"].to("cm").d
    keep = (r > edges[0]) & (r < edges[-1])
    want_count = np.bincount(np.digitize(r[keep], edges) - 1, minlength=len(count))
    assert count.tolist() == want_count.tolist()
    assert (count > 0).tolist() == used.tolist()
    info = info_of(folder)
    unit_m = info["unit_d"] * info["unit_l"] ** 3
    np.testing.assert_allclose(np.array(got["weight"])[used] * unit_m,
                               prof.weight.to("g").d[used], rtol=1e-12)
    for (ftype, name), unit in zip(fields, ("g/cm**3", "cm/s")):
        q = got["quantities"][name]
        mean = values(q["mean"])
        np.testing.assert_allclose(mean[used], prof[ftype, name].to(unit).d[used], rtol=1e-12,
                                   err_msg=f"{folder} {name} mean")
        std = values(q["std"])
        yt_std = prof.standard_deviation[ftype, name].to(unit).d
        scale = np.abs(mean[used]).max()
        np.testing.assert_allclose(std[used], yt_std[used], rtol=1e-9, atol=1e-12 * scale,
                                   err_msg=f"{folder} {name} std")
    del ds


def test_threads_and_store_identical(tmp_path):
    folder = outputs()[-1]
    one = profile(folder, "--threads", "1")
    two = profile(folder, "--threads", "2")
    assert one == two
    store = str(tmp_path / "out.snapkit")
    subprocess.run([CLI, "convert", folder, "-o", store], check=True, capture_output=True)
    assert profile(store, "--threads", "2") == one
    assert sum(one["count"]) == one["binned"] > 0


def test_python_profile_equals_numpy():
    """snapkit.profile on a table against numpy on the same columns:
    numpy's edges, np.digitize's bins, weighted means and std, and the
    inverted-CDF weighted percentiles (numpy 2's np.quantile(...,
    weights=w, method="inverted_cdf"), written out for numpy 1)."""
    import snapkit
    folder = outputs()[0]
    gas = snapkit.open(folder).read("hydro")
    boxlen = float(gas.meta.get("boxlen", 1.0))
    c = [0.5 * boxlen] * 3
    got = snapkit.profile(gas, "r", ["density", "pressure"], bins=10, center=c,
                          percentiles=[25, 75], cumulative=True)
    r = np.asarray(gas["r"])
    lo, hi = r.min(), r.max()
    lo, hi = lo - np.spacing(lo), hi + np.spacing(hi)
    edges = np.linspace(lo, hi, 11)
    np.testing.assert_array_equal(got["edges"], edges)
    level = np.asarray(gas["level"])
    w = np.asarray(gas["density"]) * (boxlen / 2.0 ** level) ** 3
    b = np.digitize(r, edges) - 1
    count = np.bincount(b, minlength=10)
    assert got["count"].tolist() == count.tolist()
    assert got["cum_count"].tolist() == np.cumsum(count).tolist()
    for name in ("density", "pressure"):
        x = np.asarray(gas[name])
        for j in range(10):
            m = b == j
            if not m.any():
                continue
            mean = np.average(x[m], weights=w[m])
            std = np.sqrt(np.average((x[m] - mean) ** 2, weights=w[m]))
            np.testing.assert_allclose(got["fields"][name]["mean"][j], mean, rtol=1e-13)
            np.testing.assert_allclose(got["fields"][name]["std"][j], std, rtol=1e-9,
                                       atol=1e-13 * abs(mean))
            np.testing.assert_allclose(got["weight"][j], w[m].sum(), rtol=1e-13)
            order = np.argsort(x[m], kind="stable")
            cum = np.cumsum(w[m][order])
            for p in (25, 75):  # the smallest value whose cumulative weight reaches p W
                k = np.searchsorted(cum, p / 100 * cum[-1], side="left")
                assert got["fields"][name]["p%g" % p][j] == x[m][order][k]


def test_v_circ_from_enclosed_mass():
    """v_circ = sqrt(G M(<r) / r) at the bins' upper edges, M summed with
    numpy from the same cells' density x volume, in cm/s from the info
    file's units."""
    import snapkit
    folder = outputs()[0]
    gas = snapkit.open(folder).read("hydro")
    boxlen = float(gas.meta.get("boxlen", 1.0))
    got = snapkit.profile(gas, "r", ["v_circ"], bins=8, center=[0.5 * boxlen] * 3,
                          weight="none", units="v_circ=cm/s,r=cm")
    info = info_of(folder)
    r = np.asarray(gas["r"]) * info["unit_l"]
    m = (np.asarray(gas["density"]) * (boxlen / 2.0 ** np.asarray(gas["level"])) ** 3
         * info["unit_d"] * info["unit_l"] ** 3)
    edges = got["edges"]
    b = np.digitize(r, edges) - 1
    enclosed = np.cumsum(np.bincount(b[(b >= 0) & (b < 8)], weights=m[(b >= 0) & (b < 8)],
                                     minlength=8))
    want = np.sqrt(6.67430e-8 * enclosed / edges[1:])
    np.testing.assert_allclose(got["fields"]["v_circ"]["mean"], want, rtol=1e-9)
