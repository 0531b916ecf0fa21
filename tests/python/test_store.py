"""Compact .snapkit files from Python: convert every fixture and compare the
file's reads with the RAMSES reader's (numpy, sorted by cell), the file's
statistics with yt's reference.json, save/load of tables built here,
region reads, and damaged files."""
import json
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, compare, outputs, selection_args, selection_kwargs

# Every output converts, 1-D and 2-D ones too (their cells keyed by level,
# cx (, cy): docs/format.md section 7).
OUTPUTS = outputs()
IDS = [k for k, _, _ in OUTPUTS]
CATALOGUES = ("particles", "sinks", "clumps")  # tables without levels


def canonical(t):
    """Columns as arrays in one row order: cells by (level, cx, cy, cz),
    other tables by every column."""
    names = t.columns
    if {"level", "cx"} <= set(names) and t.meta.get("kind") == "cells":
        keys = [t[c] for c in ("cz", "cy", "cx", "level") if c in names]
    else:
        keys = [t[n].view(np.uint64) if t[n].dtype.itemsize == 8 else t[n]
                for n in reversed(names)]
    order = np.lexsort(keys) if len(t) else np.arange(0)
    return {n: t.codes(n)[order] for n in names}


def assert_same(a, b, where):
    assert a.columns == b.columns, where
    assert len(a) == len(b), (where, len(a), len(b))
    ca, cb = canonical(a), canonical(b)
    for n in a.columns:
        # bit for bit: compare the bytes, so NaN and -0 count too
        assert ca[n].tobytes() == cb[n].tobytes(), (where, n)
    assert a.meta == b.meta, where


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """Each fixture converted twice: leaves only, and with refined cells."""
    tmp = tmp_path_factory.mktemp("store")
    files = {}
    for key, folder, _ in OUTPUTS:
        name = key.replace("/", "_")
        leaves, coarse = str(tmp / (name + ".snapkit")), str(tmp / (name + "_coarse.snapkit"))
        snapkit.convert(folder, leaves)
        snapkit.convert(folder, coarse, with_coarse=True, compress=False)
        files[key] = (leaves, coarse)
    return files


@pytest.mark.parametrize("key,folder,ref", OUTPUTS, ids=IDS)
def test_reads_equal_ramses(converted, key, folder, ref):
    leaves, coarse = converted[key]
    out = snapkit.open(folder)
    assert isinstance(out, snapkit.Output) and not isinstance(out, snapkit.File)
    for path, with_coarse in ((leaves, False), (coarse, True)):
        f = snapkit.open(path)
        assert isinstance(f, snapkit.File)
        if "gravity" in f.tables:  # hydro and gravity still join row by row
            h, g = f.hydro(xrange=(0.2, 0.7)), f.gravity(xrange=(0.2, 0.7))
            for c in ("level", "cx", "cy", "cz"):
                assert h[c].tobytes() == g[c].tobytes(), (key, c)
        for comp in f.tables:
            cells = out.read(comp, vars=[]).meta["kind"] == "cells"
            cases = [{}] + [selection_kwargs(s) for s in ref["selections"]]
            one = {"particles": "mass", "sinks": "msink", "clumps": "mass_cl"}.get(comp, "level")
            cases.append({"xrange": (-0.05, 0.05), "center": "bc", "unit": "code",
                          "vars": [one]})
            for kw in cases:
                if "lmax" in kw and cells and not with_coarse:
                    continue
                assert_same(f.read(comp, **kw), out.read(comp, **kw), (key, path, comp, kw))
                assert f.last_read["chunks_read"] <= f.info["store"]["tables"][comp]["chunks"]
            if with_coarse and cells:
                lmax = out.info["info"]["levelmin"] + 1
                assert_same(f.read(comp, lmax=lmax, with_refined=True),
                            out.read(comp, lmax=lmax, with_refined=True), (key, comp, "refined"))


@pytest.mark.parametrize("key,folder,ref", OUTPUTS, ids=IDS)
def test_stats_of_file_match_yt_reference(converted, key, folder, ref):
    """snapkit stats FILE.snapkit gives yt's numbers, lmax included when the
    file keeps refined cells; the JSON is stats' with chunks_read. Without a
    selection they come from the file's stored statistics, no chunk read,
    and --recompute reads the chunks for the same numbers."""
    leaves, coarse = converted[key]
    for comp, want in ref["full"].items():
        for extra in ([], ["--recompute"]):
            got = json.loads(subprocess.run([CLI, "stats", leaves, "--component", comp, "--json"]
                                            + extra, capture_output=True, text=True,
                                            check=True).stdout)
            assert set(got) == {"component", "rows", "levels", "columns", "chunks_read",
                                "seconds", "result_bytes", "bytes_allocated", "ranks",
                                "stored"} - ({"levels"} if comp in CATALOGUES else set())
            assert got["stored"] == (not extra) and (got["chunks_read"] == 0) == (not extra)
            compare(got, want, (key, comp))
    for sel in ref["selections"]:
        for comp, want in sel["components"].items():
            path = coarse if sel.get("lmax") else leaves
            args = [CLI, "stats", path, "--component", comp, "--json"] + selection_args(sel)
            got = json.loads(subprocess.run(args, capture_output=True, text=True,
                                            check=True).stdout)
            compare(got, want, (key, comp, sel))


def test_info_matches_output(converted):
    key, folder = next((k, f) for k, f, _ in OUTPUTS if k.startswith("gravpart"))
    out, f = snapkit.open(folder), snapkit.open(converted[key][0])
    for k in ("header", "namelist", "hydro_descriptor", "part_descriptor", "columns", "output",
              "format"):
        assert f.info[k] == out.info[k], k
    # info keys come from the metadata, where spaces in keys became "_"
    assert f.info["info"] == {k.replace(" ", "_"): v for k, v in out.info["info"].items()}
    assert f.info["components"] == dict(out.info["components"], amr=False)
    assert f.units == out.units
    store = f.info["store"]
    assert store["format_version"] == "1.1" and store["meta"]["convert.source"] == folder
    assert store["tables"]["hydro"]["lmax"].startswith("filters leaves")
    coarse = snapkit.open(converted[key][1]).info["store"]["tables"]["hydro"]
    assert coarse["lmax"].startswith("exact") and coarse["refined_rows"] > 0
    text = subprocess.run([CLI, "info", converted[key][1]], capture_output=True, text=True,
                          check=True).stdout
    assert "lmax reads are exact" in text and "hydro" in text


def test_region_reads_fewer_chunks(tmp_path):
    # the largest fixture: its cells are spread over many chunks
    key, folder, _ = max(OUTPUTS, key=lambda o: sum(e.stat().st_size for e in os.scandir(o[1])))
    path = str(tmp_path / "r.snapkit")
    snapkit.convert(folder, path, components="hydro", chunk_rows=1024)
    f = snapkit.open(path)
    full = f.hydro()
    lo, hi = np.array([0.6, 0.25, 0.4]), np.array([0.815, 0.465, 0.615])  # 1% of the box
    got = f.hydro(xrange=(lo[0], hi[0]), yrange=(lo[1], hi[1]), zrange=(lo[2], hi[2]))
    assert f.last_read["chunks_read"] < f.info["store"]["tables"]["hydro"]["chunks"]
    s = 2.0 ** -full["level"].astype(np.float64)
    keep = np.ones(len(full), dtype=bool)
    for a, c in enumerate(("cx", "cy", "cz")):
        x = (full[c] + 0.5) * s
        keep &= (x >= lo[a]) & (x < hi[a])
    order = np.lexsort([full[c][keep] for c in ("cz", "cy", "cx", "level")])
    got_c = canonical(got)
    assert 0 < len(got) < len(full)
    for n in full.columns:
        assert got_c[n].tobytes() == full[n][keep][order].tobytes(), n


def test_save_and_load_tables(tmp_path):
    n = 10000
    rng = np.random.default_rng(3)
    atoms = snapkit.Table.from_arrays({
        "id": np.arange(n, dtype=np.int64) + 10**12,
        "element": np.array(["Cu", "Ni", "O"])[rng.integers(0, 3, n)],
        "x": rng.normal(size=n).astype(np.float32),
        "charge": np.where(rng.random(n) < 0.01, np.nan, rng.normal(size=n)),
        "flag": (rng.random(n) < 0.5)}, meta={"kind": "atoms", "component": "atoms"})
    parts = snapkit.Table.from_arrays({
        "position_x": rng.random(n) * 4, "position_y": rng.random(n) * 4,
        "position_z": rng.random(n) * 4, "mass": np.full(n, 1e-5)},
        meta={"boxlen": 4.0, "component": "particles"})
    path = str(tmp_path / "t.snapkit")
    summary = snapkit.save([atoms, parts], path)
    assert summary["tables"] == 2 and summary["rows"] == 2 * n
    raw = snapkit.save({"a": atoms}, str(tmp_path / "raw.snapkit"), compress=False)
    assert raw["bytes_file"] > snapkit.save({"a": atoms}, str(tmp_path / "z.snapkit"))["bytes_file"]
    back = snapkit.load(path, "atoms")
    assert back.columns == atoms.columns and back.meta == atoms.meta
    for c in atoms.columns:  # rows without positions keep their order
        assert back.codes(c).tobytes() == atoms.codes(c).tobytes(), c
    assert list(back["element"][:5]) == list(atoms["element"][:5])
    p = snapkit.load(path, "particles", xrange=(0.25, 0.5), vars=["mass"])
    keep = (parts["position_x"] / 4 >= 0.25) & (parts["position_x"] / 4 < 0.5)
    assert p.columns == ["mass"] and len(p) == keep.sum()
    assert snapkit.same_rows(snapkit.load(path, "particles"), parts) == (True, "")
    with pytest.raises(snapkit.Error, match="no table gas in this file"):
        snapkit.load(path, "gas")
    with pytest.raises(snapkit.Error, match="no positions in box units"):
        snapkit.load(path, "atoms", xrange=(0, 0.5))
    with pytest.raises(TypeError):
        snapkit.save([np.zeros(3)], path)
    assert snapkit.verify(path) == (True, "")


def test_damage_is_reported(tmp_path, converted):
    leaves = converted[OUTPUTS[0][0]][0]
    data = open(leaves, "rb").read()
    f = snapkit.open(leaves)
    size = f.info["store"]["file_bytes"]
    footer = size - 40 - f.info["store"]["footer_bytes"]
    bad = tmp_path / "bad.snapkit"
    # a byte in the middle of the chunk data
    b = bytearray(data)
    b[footer // 2] ^= 0xFF
    bad.write_bytes(bytes(b))
    with pytest.raises(snapkit.Error, match=r"chunk \d+ of \d+, column .*: checksum mismatch") as e:
        snapkit.verify(str(bad))
    assert e.value.record is not None and e.value.offset is not None
    # the footer
    b = bytearray(data)
    b[footer + 10] ^= 1
    bad.write_bytes(bytes(b))
    with pytest.raises(snapkit.Error, match="footer checksum mismatch"):
        snapkit.open(str(bad))
    # truncated
    bad.write_bytes(data[:-100])
    with pytest.raises(snapkit.Error, match="truncated"):
        snapkit.File(str(bad))
