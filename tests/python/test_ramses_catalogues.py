"""The text tables: sinks (sink_NNNNN.csv) against the fixture's
reference.json and Python's own float() of the csv, clumps (PHEW's
clump_NNNNN.txtCCCCC) against the values RAMSES printed and against the
cells that clump_field assigns to each clump; malformed files give one
error naming the file and line."""
import glob
import json
import math
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, SHARED, compare, selection_kwargs

FIX = os.path.join(SHARED, "fixtures", "ramses")
SINKS = os.path.join(FIX, "sink3d", "output_00002")
CLUMPS = os.path.join(FIX, "clumps3d", "output_00002")

pytestmark = pytest.mark.skipif(not (os.path.isdir(SINKS) and os.path.isdir(CLUMPS)),
                                reason="shared RAMSES fixtures sink3d/clumps3d absent")


def reference(folder):
    with open(folder + ".reference.json") as f:
        return json.load(f)


def csv_rows(path):
    """Names from line 1 and rows of Python floats, parsed here."""
    with open(path) as f:
        lines = f.read().splitlines()
    names = [n.strip() for n in lines[0].strip().lstrip("#").split(",")]
    return names, [[float(v) for v in line.split(",")] for line in lines[2:] if line.strip()]


def test_sinks_full_and_box_equal_reference():
    ref = reference(SINKS)
    out = snapkit.open(SINKS)
    assert out.info["components"]["sinks"]
    t = out.read("sinks")
    compare(snapkit.column_stats(t), ref["full"]["sinks"], "full")
    assert t.meta["kind"] == "catalogue" and t.meta["component"] == "sinks"
    for sel in ref["selections"]:
        if "sinks" in sel["components"]:
            got = out.read("sinks", **selection_kwargs(sel))
            compare(snapkit.column_stats(got), sel["components"]["sinks"], sel)


def test_sinks_columns_and_values_as_written():
    names, rows = csv_rows(os.path.join(SINKS, "sink_00002.csv"))
    t = snapkit.open(SINKS).read("sinks")
    assert t.columns == names and "cs**2" in names and len(names) == 23
    assert t["id"].dtype == np.int32 and t["level"].dtype == np.int32
    assert all(t[n].dtype == np.float64 for n in names if n not in ("id", "level"))
    for j, n in enumerate(names):
        assert t[n].tolist() == [r[j] for r in rows], n


def test_sinks_box_lmax_and_vars():
    out = snapkit.open(SINKS)
    box = out.read("sinks", xrange=(0.45, 0.8), yrange=(0.3, 0.6), zrange=(0.45, 0.6))
    assert box["id"].tolist() == [1, 2]
    # lmax does not apply to sinks; vars pick columns in file order
    assert len(out.read("sinks", lmax=5)) == 3
    assert out.read("sinks", vars=["z", "msink"]).columns == ["msink", "z"]
    with pytest.raises(snapkit.Error, match="no column 'mass'"):
        out.read("sinks", vars=["mass"])


def test_sinks_cli_stats_json():
    got = json.loads(subprocess.run([CLI, "stats", SINKS, "--component", "sinks", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert got["rows"] == 3 and got["files_opened"] == 1 and "levels" not in got
    compare(got, reference(SINKS)["full"]["sinks"], "cli")


CLUMPS_PRINTED = {  # index: (ncell, peak_x, mass_cl), as in clump_00002.txt0000[3468]
    9: (2521, 1.343749969, 0.4474554993),
    24: (552, 1.031249969, 0.0518355027),
    29: (1155, 2.828125, 0.4088882157),
    31: (325, 3.204752308, 0.1363289687),
}


def test_clumps_as_printed():
    out = snapkit.open(CLUMPS)
    t = out.read("clumps")
    assert t.columns == ["index", "halo", "lev", "parent", "ncell", "peak_x", "peak_y",
                         "peak_z", "rho-", "rho+", "rho_av", "mass_cl", "relevance"]
    assert t["index"].tolist() == [9, 24, 29, 31]  # sorted by index
    assert t["ncell"].tolist() == [v[0] for v in CLUMPS_PRINTED.values()]
    assert t["peak_x"].tolist() == [v[1] for v in CLUMPS_PRINTED.values()]
    assert t["mass_cl"].tolist() == [v[2] for v in CLUMPS_PRINTED.values()]
    assert t["parent"].tolist() == t["index"].tolist() and set(t["lev"]) == {0}
    assert t["ncell"].dtype == np.int32 and t["rho+"].dtype == np.float64
    assert t.meta["kind"] == "catalogue"


def test_clumps_match_their_cells():
    out = snapkit.open(CLUMPS)
    cat = out.read("clumps")
    ids = out.read("clump_field")["clump_id"]
    mass = snapkit.derive(out.read("hydro"), "mass")
    assert set(np.unique(ids)) == {0} | set(cat["index"].tolist())
    for index, ncell, mass_cl in zip(cat["index"], cat["ncell"], cat["mass_cl"]):
        mine = ids == index
        assert int(mine.sum()) == ncell, index
        m = math.fsum(mass[mine])
        assert "%.9E" % m == "%.9E" % mass_cl, (index, m, mass_cl)


def test_clumps_box_by_peak_and_files_opened():
    out = snapkit.open(CLUMPS)
    # peaks / boxlen 4: 9 at x 0.336, 24 at 0.258, 29 at 0.707, 31 at 0.801
    t = out.read("clumps", xrange=(0.3, 0.75))
    assert t["index"].tolist() == [9, 29]
    assert out.last_read["files_opened"] == 8
    got = json.loads(subprocess.run([CLI, "stats", CLUMPS, "--component", "clumps", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert got["rows"] == 4 and got["files_opened"] == 8 and "levels" not in got
    assert got["columns"]["ncell"]["sum"] == 2521 + 552 + 1155 + 325


def test_convert_keeps_catalogues(tmp_path):
    for folder, comp in ((SINKS, "sinks"), (CLUMPS, "clumps")):
        path = str(tmp_path / (comp + ".snapkit"))
        subprocess.run([CLI, "convert", folder, "-o", path], check=True, capture_output=True)
        subprocess.run([CLI, "verify", folder, path], check=True, capture_output=True)
        f, out = snapkit.open(path), snapkit.open(folder)
        assert comp in f.tables
        for kw in ({}, {"xrange": (0.3, 0.75)}):
            a, b = f.read(comp, **kw), out.read(comp, **kw)
            assert a.columns == b.columns
            order = np.argsort(a[a.columns[0]], kind="stable")
            border = np.argsort(b[b.columns[0]], kind="stable")
            for n in a.columns:
                assert a[n][order].tobytes() == b[n][border].tobytes(), (comp, kw, n)


# --- malformed files ---

def broken_copy(tmp_path, folder, name, edit):
    """The output with every file linked but `name`, which is copied and
    passed through edit(lines) -> lines."""
    d = tmp_path / os.path.basename(folder)
    d.mkdir()
    for src in glob.glob(os.path.join(folder, "*")):
        if os.path.basename(src) != name:
            os.symlink(src, d / os.path.basename(src))
    with open(os.path.join(folder, name)) as f:
        lines = f.read().split("\n")
    (d / name).write_text("\n".join(edit(lines)))
    return str(d)


def replace_line(k, old, new):
    def edit(lines):
        assert old in lines[k - 1]
        lines[k - 1] = lines[k - 1].replace(old, new, 1)
        return lines
    return edit


BROKEN = [
    ("sinks", SINKS, "sink_00002.csv", replace_line(5, "3.2242132735E-01", "3.22421x2735E-01"),
     5, "not a number"),
    ("sinks", SINKS, "sink_00002.csv", replace_line(4, "3.5300810907E-01", "3.53E+999"),
     4, "overflows float64"),
    ("sinks", SINKS, "sink_00002.csv", replace_line(3, "4.1011417487E-02,", ""),
     3, "22 values, but the header (line 1) names 23 columns"),
    ("sinks", SINKS, "sink_00002.csv", replace_line(4, "         2,", "       2.5,"),
     4, "not an integer"),
    ("clumps", CLUMPS, "clump_00002.txt00006", lambda lines: lines[1:], 1,
     "expected the header line of column names"),
    ("clumps", CLUMPS, "clump_00002.txt00004", replace_line(2, "552", "5520000000000"), 2,
     "does not fit in int32"),
    ("clumps", CLUMPS, "clump_00002.txt00008", replace_line(2, "1.363289687E-01", ""), 2,
     "12 values"),
    ("clumps", CLUMPS, "clump_00002.txt00002", lambda lines: [], 1, "no header line"),
    ("clumps", CLUMPS, "clump_00002.txt00002", replace_line(1, "ncell", "ncells"), 1,
     "other columns than clump_00002.txt00001"),
]


@pytest.mark.parametrize("comp,folder,name,edit,line,what", BROKEN,
                         ids=["%s-%s-%d" % (b[0], b[5].split()[0], i) for i, b in enumerate(BROKEN)])
def test_malformed_line_is_one_error(tmp_path, comp, folder, name, edit, line, what):
    d = broken_copy(tmp_path, folder, name, edit)
    r = subprocess.run([CLI, "stats", d, "--component", comp], capture_output=True, text=True)
    assert r.returncode != 0 and r.stdout == ""
    msg = r.stderr.strip()
    assert "\n" not in msg, msg
    assert "%s/%s: line %d" % (d, name, line) in msg and what in msg, msg
    with pytest.raises(snapkit.Error) as e:
        snapkit.open(d).read(comp)
    assert e.value.line == line and e.value.path.endswith(name)


def test_missing_catalogue_file(tmp_path):
    d = broken_copy(tmp_path, CLUMPS, "clump_00002.txt00005", lambda lines: lines)
    os.unlink(os.path.join(d, "clump_00002.txt00005"))
    r = subprocess.run([CLI, "stats", d, "--component", "clumps"], capture_output=True, text=True)
    assert r.returncode != 0 and "clump_00002.txt00005" in r.stderr


def test_no_derived_quantities_for_catalogues():
    with pytest.raises(snapkit.Error, match="catalogue"):
        snapkit.derive(snapkit.open(SINKS).read("sinks"), "volume")
