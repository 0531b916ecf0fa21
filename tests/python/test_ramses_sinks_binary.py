"""Binary sink files of RAMSES 2014-08 .. 2018-07 (sink_NNNNN.outCCCCC,
pm/output_sink.f90 backup_sink) read as the `sinks` component when an
output has no sink_NNNNN.csv. The files are written here, record by
record, from the layout of RAMSES's history (with acc_rate until 2017-05,
without it after); the reader must give back every value exactly."""
import glob
import json
import os
import struct
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA

OUT3D = os.path.join(DATA, "ramses", "gravpart", "output_00002")
OUT2D = os.path.join(DATA, "ramses", "sedov2d", "output_00002")


def rec(payload):
    return struct.pack("<i", len(payload)) + payload + struct.pack("<i", len(payload))


def sinks(ndim, n, seed=1):
    rng = np.random.default_rng(seed)
    s = {"id": np.arange(1, n + 1, dtype=np.int32) * 3, "msink": rng.random(n),
         "tform": rng.random(n) * 0.1, "del_mass": rng.random(n) * 1e-3,
         "acc_rate": rng.random(n) * 1e-5, "new_born": (np.arange(n) % 2).astype(np.int32),
         "level": np.full(n, 7, np.int32)}
    for prefix, scale in (("", 1.0), ("v", 0.1), ("l", 0.01)):
        for axis in "xyz"[:ndim]:
            s[prefix + axis] = rng.random(n) * scale
    return s


def sink_file(s, ndim, with_acc):
    n = len(s["id"])
    out = rec(struct.pack("<i", n)) + rec(struct.pack("<i", n + 2))
    if n == 0:
        return out
    f8 = [s["msink"], s["tform"]]
    for prefix in ("", "v", "l"):
        f8 += [s[prefix + a] for a in "xyz"[:ndim]]
    f8.append(s["del_mass"])
    if with_acc:
        f8.append(s["acc_rate"])
    for v in f8:
        out += rec(np.asarray(v, "<f8").tobytes())
    out += rec(s["id"].astype("<i4").tobytes()) + rec(s["new_born"].astype("<i4").tobytes())
    return out + rec(struct.pack("<i", int(s["level"][0])))


def output_with(tmp_path, src, payload):
    """src with every file linked, and payload as every CPU's sink file."""
    d = tmp_path / os.path.basename(src)
    d.mkdir()
    for f in glob.glob(os.path.join(src, "*")):
        os.symlink(f, d / os.path.basename(f))
    num = os.path.basename(src)[-5:]
    ncpu = len(glob.glob(os.path.join(src, "amr_*")))
    for c in range(1, ncpu + 1):
        (d / f"sink_{num}.out{c:05d}").write_bytes(payload)
    return str(d)


def names(ndim, with_acc):
    vec = [p + a for p in ("", "v", "l") for a in "xyz"[:ndim]]
    return ["id", "msink"] + vec + ["tform"] + (["acc_rate"] if with_acc else []) + \
        ["del_mass", "new_born", "level"]


@pytest.mark.parametrize("src,ndim", [(OUT3D, 3), (OUT2D, 2)])
@pytest.mark.parametrize("with_acc", [True, False], ids=["2014-2017", "2017-2018"])
def test_binary_sinks_read_exactly(tmp_path, src, ndim, with_acc):
    s = sinks(ndim, 5)
    out = snapkit.open(output_with(tmp_path, src, sink_file(s, ndim, with_acc)))
    assert out.info["components"]["sinks"] is True
    t = out.read("sinks")
    assert t.columns == names(ndim, with_acc)
    for name in t.columns:
        want = s[name]
        assert t[name].dtype == (np.int32 if name in ("id", "new_born", "level") else np.float64)
        assert t[name].tobytes() == np.asarray(want, t[name].dtype).tobytes(), name
    assert out.last_read["files_opened"] == 1


def test_binary_sinks_region_and_vars(tmp_path):
    s = sinks(3, 40, seed=2)
    d = output_with(tmp_path, OUT3D, sink_file(s, 3, False))
    boxlen = float(snapkit.open(d).info["info"]["boxlen"])
    t = snapkit.open(d).read("sinks", xrange=(0.2, 0.7), yrange=(0.1, 0.9), vars=["id", "x"])
    keep = (s["x"] / boxlen >= 0.2) & (s["x"] / boxlen < 0.7) & \
        (s["y"] / boxlen >= 0.1) & (s["y"] / boxlen < 0.9)
    assert 0 < keep.sum() < 40
    assert t.columns == ["id", "x"]
    assert t["id"].tolist() == s["id"][keep].tolist()
    got = json.loads(subprocess.run([CLI, "stats", d, "--component", "sinks", "--json"],
                                    check=True, capture_output=True, text=True).stdout)
    assert got["rows"] == 40 and got["files_opened"] == 1
    assert got["columns"]["msink"]["max"] == s["msink"].max()


def test_binary_sinks_none(tmp_path):
    t = snapkit.open(output_with(tmp_path, OUT3D, sink_file(sinks(3, 0), 3, False))).read("sinks")
    assert len(t) == 0 and t.columns == names(3, False)


def test_csv_preferred_when_both(tmp_path):
    d = output_with(tmp_path, OUT3D, sink_file(sinks(3, 2), 3, False))
    num = os.path.basename(OUT3D)[-5:]
    with open(os.path.join(d, f"sink_{num}.csv"), "w") as f:
        f.write("         1, 1.0E+00, 5.0E-01, 5.0E-01, 5.0E-01, 0.0E+00, 0.0E+00, 0.0E+00,"
                " 0.0E+00, 0.0E+00, 0.0E+00, 1.0E-01, 0.0E+00\n")
    t = snapkit.open(d).read("sinks")
    assert len(t) == 1 and "age" in t.columns


@pytest.mark.parametrize("cut,edit,words", [
    ("truncated", lambda b: b[:-10], "sink_00002.out00001"),
    ("two float64 records too many", lambda b: b[:24] + 2 * rec(np.zeros(3).tobytes()) + b[24:],
     "more than 13 records of 3 float64 values"),
    ("a float64 record missing", lambda b: b[:24] + b[24 + 32:],
     "11 records of 3 float64 values after nsink, nindsink; a 3-D sink file of RAMSES "
     "2014-2018 has 12 or 13"),
    ("bytes after the end", lambda b: b + b"\0\0\0\0", "4 bytes after the last record"),
    ("negative nsink", lambda b: rec(struct.pack("<i", -1)) + b[12:], "nsink = -1"),
])
def test_binary_sinks_errors(tmp_path, cut, edit, words):
    payload = edit(sink_file(sinks(3, 3), 3, False))
    d = output_with(tmp_path, OUT3D, payload)
    with pytest.raises(snapkit.Error, match="sink_00002.out00001") as e:
        snapkit.open(d).read("sinks")
    assert words in str(e.value)
