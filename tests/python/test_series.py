"""snapkit.series over a run of three outputs (and one as a .snapkit file):
yielded in time order with the times written in their info files, the
numbers in their names and the redshift and age yt gives the cosmological
fixture; its sources answer snapkit.totals with the numbers of `snapkit
series -- stats --totals`. snapkit.export round-trips through h5py: the
columns of the .h5 and of the .vtkhdf cell data equal snapkit.read's, for a
RAMSES output and a .snapkit file, with selections."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, SHARED

h5py = pytest.importorskip("h5py")

TIMES = {1: 0.3, 2: 0.2, 3: 0.1}  # output 3 is the earliest


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """sim/output_0000{1,2,3} (make-ramses, seeds 1-3, times TIMES) and
    o2.snapkit, output 2 converted."""
    tmp = tmp_path_factory.mktemp("run")
    for n, t in TIMES.items():
        out = tmp / "sim" / ("output_%05d" % n)
        subprocess.run([CLI, "make-ramses", str(out), "--ncpu", "2", "--levelmin", "3",
                        "--levelmax", "5", "--npart", "1000", "--seed", str(n)], check=True,
                       capture_output=True)
        info = out / ("info_%05d.txt" % n)
        lines = info.read_text().splitlines(keepends=True)
        info.write_text("".join("time        =  %.15E\n" % t if l.startswith("time ") else l
                                for l in lines))
    subprocess.run([CLI, "convert", str(tmp / "sim" / "output_00002"), "-o",
                    str(tmp / "o2.snapkit")], check=True, capture_output=True)
    return tmp


def test_time_order_and_times(run):
    got = [(o.number, o.time, o.time_myr, o.path) for o, _ in
           snapkit.series(str(run / "sim" / "output_*"))]
    assert [g[0] for g in got] == [3, 2, 1]
    assert [g[1] for g in got] == [0.1, 0.2, 0.3]
    # make-ramses' unit_t is 3.15576e13 s: one Myr
    assert all(abs(g[2] - g[1]) < 1e-12 for g in got)
    assert [os.path.basename(g[3]) for g in got] == ["output_00003", "output_00002",
                                                     "output_00001"]
    for o, _ in snapkit.series(str(run / "sim" / "output_*")):
        assert math.isnan(o.redshift) and math.isnan(o.aexp)


def test_sources_answer_like_open(run):
    paths = [str(run / "sim" / "output_00001"), str(run / "o2.snapkit"),
             str(run / "sim" / "output_00003")]
    seen = []
    for o, src in snapkit.series(paths):
        seen.append((o.number, type(src).__name__))
        gas = src.hydro(sphere=((0.5, 0.5, 0.5), 0.3), vars=["density"])
        with snapkit.open(o.path) as again:
            ref = again.hydro(sphere=((0.5, 0.5, 0.5), 0.3), vars=["density"])
        assert np.array_equal(gas["density"], ref["density"])
    assert seen == [(3, "Output"), (2, "File"), (1, "Output")]
    # closed once the loop moved on
    with pytest.raises(ValueError):
        src.hydro()


def test_totals_equal_the_command(run):
    paths = [str(run / "sim" / "output_00001"), str(run / "o2.snapkit"),
             str(run / "sim" / "output_00003")]
    p = subprocess.run([CLI, "series", *paths, "--json", "--", "stats", "--sphere", "0.3",
                        "--center", "0.5", "0.5", "0.5", "--totals"], check=True,
                       capture_output=True, text=True)
    rows = json.loads(p.stdout)["rows"]
    assert [r["output"] for r in rows] == [o.number for o, _ in snapkit.series(paths)]
    for r, (o, src) in zip(rows, snapkit.series(paths)):
        assert (r["time"], r["time_myr"], r["path"]) == (o.time, o.time_myr, o.path)
        t = snapkit.totals(src, center=(0.5, 0.5, 0.5), sphere=0.3)
        assert r["totals.mass"] == t["mass"], (o.path, r["totals.mass"], t["mass"])
        for k, a in enumerate("xyz"):
            assert r["totals.com_" + a] == pytest.approx(t["com"][k], rel=1e-14, abs=1e-300)


def test_cosmological_redshift_and_age():
    folder = os.path.join(SHARED, "fixtures", "ramses", "cosmo32", "output_00003")
    if not os.path.isdir(folder):
        pytest.skip("no shared fixture cosmo32")
    with open(folder + ".cosmology.json") as f:
        yt = json.load(f)  # written by yt 4.1.4
    (o, _), = list(snapkit.series([folder]))
    assert o.number == 3 and o.aexp == yt["aexp"]
    assert o.redshift == pytest.approx(yt["current_redshift"], rel=1e-12)
    assert o.time_myr / 1e3 == pytest.approx(yt["current_time_Gyr"], rel=1e-3)


def test_glob_of_nothing_and_a_bad_output(run):
    assert list(snapkit.series(str(run / "none_*"))) == []
    with pytest.raises(snapkit.Error, match="missing"):
        list(snapkit.series([str(run / "sim" / "output_00001"), str(run / "missing")]))


def sorted_cells(cols):
    order = np.lexsort((cols["cz"], cols["cy"], cols["cx"], cols["level"]))
    return {k: np.asarray(v)[order] for k, v in cols.items()}


@pytest.mark.parametrize("kind", ["ramses", "snapkit"])
def test_export_h5_round_trip(run, tmp_path, kind):
    src = str(run / "sim" / "output_00002") if kind == "ramses" else str(run / "o2.snapkit")
    sel = dict(sphere=((0.5, 0.5, 0.5), 0.3), vars=["density", "pressure"])
    rows = snapkit.export(src, str(tmp_path / "gas.h5"), components="hydro", **sel)
    parts = snapkit.export(snapkit.open(src), str(tmp_path / "dm.h5"),
                           components=["particles"], family="dm")
    with snapkit.open(src) as s:
        gas = s.read("hydro", **sel)
        dm = s.read("particles", family="dm")
    assert rows == {"hydro": len(gas)} and parts == {"particles": len(dm)}
    with h5py.File(tmp_path / "gas.h5", "r") as f:
        g = f["hydro"]
        assert set(g) == set(gas.columns) and int(g.attrs["rows"]) == len(gas)
        assert float(g.attrs["time"]) == 0.2
        a = sorted_cells({k: g[k][:] for k in g})
        b = sorted_cells({k: gas[k] for k in gas.columns})
        for k in b:
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
    with h5py.File(tmp_path / "dm.h5", "r") as f:
        p = f["particles"]
        assert set(p) == set(dm.columns)
        order_a, order_b = np.argsort(p["identity"][:]), np.argsort(dm["identity"])
        for k in dm.columns:
            assert np.array_equal(p[k][:][order_a], dm[k][order_b]), k


def test_export_vtkhdf_cells(run, tmp_path):
    src = str(run / "sim" / "output_00001")
    rows = snapkit.export(src, str(tmp_path / "gas.vtkhdf"), lmax=4)
    with snapkit.open(src) as s:
        gas = s.hydro(lmax=4)
    assert rows == {"hydro": len(gas)}
    with h5py.File(tmp_path / "gas.vtkhdf", "r") as f:
        v = f["VTKHDF"]
        assert int(v["NumberOfCells"][0]) == len(gas)
        a = sorted_cells({k: v["CellData"][k][:] for k in v["CellData"]})
        b = sorted_cells({k: gas[k] for k in gas.columns})
        for k in b:
            assert np.array_equal(a[k], b[k]), k


def test_export_bad_input_leaves_no_file(run, tmp_path):
    src = str(run / "sim" / "output_00001")
    with pytest.raises(TypeError, match="radius"):
        snapkit.export(src, str(tmp_path / "x.h5"), radius=3)
    with pytest.raises(snapkit.Error, match="no hydro variable 'nope'"):
        snapkit.export(src, str(tmp_path / "x.h5"), components="hydro", vars=["nope"])
    with pytest.raises(ValueError, match="no component 'rt'"):
        snapkit.export(src, str(tmp_path / "x.h5"), components="rt")
    with pytest.raises(snapkit.Error):
        snapkit.export(src, str(tmp_path / "x.xls"))
    assert os.listdir(tmp_path) == []
