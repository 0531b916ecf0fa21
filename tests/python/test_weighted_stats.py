"""`snapkit stats --weight W --percentiles P,... --json` (key "weighted")
against numpy on the RAMSES fixtures: weights recomputed (density x
(boxlen / 2^level)^3, volume, the particles' mass, 1), weighted mean, std,
skewness and excess kurtosis recomputed with math.fsum to 1e-12, and the
quantiles found by sorting in numpy with exact integer cumulative weights
(the smallest value whose cumulative weight C satisfies 100 C >= p W,
C > 0): equal. Unweighted skewness and kurtosis also against scipy.stats
(the conventions). The same bits on 1 and 2 threads, from the output's
.snapkit file, under mpirun -np 2 and 4 (when built with MPI), and from
Python (Output.stats(weight=...), snapkit.weighted_stats). Bad input: one
line, non-zero exit, nothing on stdout."""
import bisect
import itertools
import json
import math
import os
import subprocess
from fractions import Fraction

import numpy as np
import pytest

from ramses_fixtures import CLI, DATA, SHARED

import snapkit

CASES = [("sedov3d/output_00002", "hydro"), ("mhd3d/output_00002", "hydro"),
         ("cosmo32/output_00003", "hydro"), ("cosmo32/output_00003", "particles"),
         ("gravpart/output_00002", "particles")]
PERCENTILES = [0, 2.5, 5, 25, 33.3, 50, 95, 99.9, 100]
PCT_ARG = ",".join(str(p) for p in PERCENTILES)
MPIEXEC = os.environ.get("SNAPKIT_MPIEXEC", "")
CELL_INDEX = {"level", "cx", "cy", "cz"}


def folder(name):
    for base in (os.path.join(SHARED, "fixtures", "ramses"), os.path.join(DATA, "ramses")):
        path = os.path.join(base, name)
        if os.path.isdir(path):
            return path
    pytest.skip("fixture %s is absent (shared fixtures not found)" % name)


def run(args, launcher=()):
    return subprocess.run(list(launcher) + [CLI] + args, capture_output=True, text=True,
                          timeout=300)


def weighted(src, component, weight, *extra, launcher=()):
    r = run(["stats", src, "--component", component, "--weight", weight,
             "--percentiles", PCT_ARG, "--json"] + list(extra), launcher)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    return got["weighted"], got


def key(p):
    return str(int(p)) if float(p).is_integer() else repr(float(p))


def weights_of(table, component, weight):
    n = len(table)
    if weight == "none":
        return np.ones(n)
    if component == "particles":
        return np.asarray(table["mass"], dtype=np.float64)
    size = np.ldexp(float(table.meta["boxlen"]), -np.asarray(table["level"], dtype=np.int64))
    vol = size * size * size
    return vol if weight == "volume" else np.asarray(table["density"]) * vol


def scaled(x):
    """Each non-negative double as the integer x 2^1074 (exact)."""
    m, e = np.frexp(x)
    mant = (m * 2.0 ** 53).astype(np.int64)
    shifts = (e + 1021).astype(np.int64)  # x = mant 2^(e - 53)
    return [int(a) << int(s) if s >= 0 else int(a) >> int(-s) for a, s in zip(mant, shifts)]


def quantiles(v, w):
    order = np.argsort(v, kind="stable")
    vs = v[order]
    cum = list(itertools.accumulate(scaled(w[order])))
    total = cum[-1]
    out = {}
    for p in PERCENTILES:
        num, den = Fraction(p).as_integer_ratio()
        need = max(-(-num * total // (100 * den)), 1)  # 100 C >= p W, C > 0
        out[key(p)] = float(vs[bisect.bisect_left(cum, need)])
    return out


def close(got, want, scale=0.0):
    if want is None or math.isnan(want):
        return got is None
    return got is not None and abs(got - want) <= 1e-12 * max(abs(want), scale)


def reference(v, w):
    """mean, std, skewness, kurtosis as snapkit/wstats.h defines them."""
    total = math.fsum(w)
    mu = math.fsum(w * v) / total
    d = v - mu
    d2 = d * d
    m2, m3, m4 = (math.fsum(w * x) / total for x in (d2, d2 * d, d2 * d2))
    skew = m3 / m2 ** 1.5 if m2 > 0 else math.nan
    kurt = m4 / (m2 * m2) - 3 if m2 > 0 else math.nan
    return total, mu, math.sqrt(m2), skew, kurt


@pytest.fixture(scope="module")
def tables():
    cache = {}

    def get(name, component):
        if (name, component) not in cache:
            with snapkit.open(folder(name)) as out:
                cache[name, component] = out.read(component)
        return cache[name, component]
    return get


@pytest.mark.parametrize("name,component", CASES)
def test_against_numpy(name, component, tables):
    src = folder(name)
    t = tables(name, component)
    for weight in ("mass", "none") + (("volume",) if component == "hydro" else ()):
        got, _ = weighted(src, component, weight, "--threads", "1")
        assert got["weight"] == weight
        w = weights_of(t, component, weight)
        keep = ~np.isnan(w)
        names = [c for c in t.columns if component != "hydro" or c not in CELL_INDEX]
        assert sorted(got["columns"]) == sorted(names)
        for col in names:
            v = np.asarray(t[col], dtype=np.float64)[keep]
            ok = ~np.isnan(v)
            v, wc = v[ok], w[keep][ok]
            g = got["columns"][col]
            where = (name, component, weight, col)
            total, mu, std, skew, kurt = reference(v, wc)
            assert g["weight_sum"] == total, where
            assert close(g["mean"], mu, std), (where, g["mean"], mu)
            assert close(g["std"], std), (where, g["std"], std)
            assert close(g["skewness"], skew, 1.0), (where, g["skewness"], skew)
            assert close(g["kurtosis"], kurt, 1.0), (where, g["kurtosis"], kurt)
            assert g["min"] == v.min() and g["max"] == v.max(), where
            q = quantiles(v, wc)
            assert g["median"] == q["50"], (where, g["median"], q["50"])
            assert g["percentiles"] == q, where
            if weight == "none" and std > 0:  # the conventions: scipy's, biased, Fisher
                scipy_stats = pytest.importorskip("scipy.stats")
                assert abs(g["skewness"] - scipy_stats.skew(v)) <= 1e-9 * max(1, abs(skew))
                assert abs(g["kurtosis"] - scipy_stats.kurtosis(v)) <= 1e-9 * max(1, abs(kurt))
        again, _ = weighted(src, component, weight, "--threads", "2")
        assert again == got, (name, component, weight, "threads 1 and 2 differ")


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            path = str(tmp_path_factory.mktemp("wstats") / "out.snapkit")
            r = run(["convert", folder(name), "-o", path])
            assert r.returncode == 0, r.stderr
            cache[name] = path
        return cache[name]
    return get


@pytest.mark.parametrize("name,component", CASES)
def test_snapkit_file_same_bits(name, component, converted):
    for weight in ("mass", "none"):
        want, whole = weighted(folder(name), component, weight)
        got, from_file = weighted(converted(name), component, weight)
        assert got == want, (name, component, weight)
        assert from_file["stored"] is False and from_file["chunks_read"] > 0


@pytest.mark.skipif(not MPIEXEC, reason="snapkit was built without MPI (SNAPKIT_MPIEXEC unset)")
@pytest.mark.parametrize("name,component", CASES)
def test_mpi_same_bits(name, component):
    want, _ = weighted(folder(name), component, "mass")
    for k in (2, 4):
        launcher = (MPIEXEC, "--oversubscribe", "--allow-run-as-root", "-np", str(k))
        got, whole = weighted(folder(name), component, "mass", launcher=launcher)
        assert whole["ranks"] == k
        assert got == want, (name, component, k)


def test_python_api():
    src = folder("cosmo32/output_00003")
    want, _ = weighted(src, "particles", "mass")
    with snapkit.open(src) as out:
        got = out.stats("particles", weight="mass", percentiles=PERCENTILES)
        assert got["weighted"] == want
        table = out.read("particles")
    assert snapkit.weighted_stats(table, "mass", PERCENTILES) == want
    with pytest.raises(snapkit.Error, match="volume weights need cells"):
        snapkit.weighted_stats(table, "volume")
    with pytest.raises(snapkit.Error, match="percentile 101 is outside 0..100"):
        snapkit.weighted_stats(table, "none", [101])
    with pytest.raises(ValueError, match="unknown weight"):
        snapkit.weighted_stats(table, "area")


@pytest.mark.parametrize("args,message", [
    (["--weight", "area"], "unknown weight 'area'"),
    (["--weight", "mass", "--percentiles", "5,101"], "101 is outside 0..100"),
    (["--weight", "mass", "--percentiles", "-3"], "-3 is outside 0..100"),
    (["--percentiles", "50"], "--percentiles needs --weight"),
    (["--component", "particles", "--weight", "volume"], "volume weights need cells"),
])
def test_bad_input(args, message):
    r = run(["stats", folder("gravpart/output_00002"), "--json"] + args)
    assert r.returncode != 0
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr, r.stderr
