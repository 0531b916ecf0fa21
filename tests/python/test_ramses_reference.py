"""Every RAMSES fixture against its reference.json (computed with yt and
checked against a direct read of the binary files): rows, rows per level,
min and max exactly, sums within 1e-12 of the sum of magnitudes; through
the Python API (and the library's column statistics), an independent numpy
fsum, and `snapkit stats --json`."""
import json
import math
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, compare, outputs, selection_args, selection_kwargs

OUTPUTS = outputs()
IDS = [o[0] for o in OUTPUTS]


def test_fixtures_found():
    names = {i.split("/")[0] for i in IDS}
    assert {"gravpart", "sedov3d", "manyfiles", "tube1d", "sedov2d", "coarse222",
            "coarse211b"} <= names


def cases():
    for key, folder, ref in OUTPUTS:
        for comp, r in ref["full"].items():
            yield pytest.param(folder, comp, {}, r, id=f"{key}-{comp}-full")
        for i, sel in enumerate(ref["selections"]):
            for comp, r in sel["components"].items():
                yield pytest.param(folder, comp, sel, r, id=f"{key}-{comp}-sel{i}")


def numpy_stats(t):
    """The same statistics, independently: numpy arrays and math.fsum."""
    cells = t.meta["kind"] == "cells"  # sinks have a `level` column too
    # A 1-D or 2-D cell's "volume" is its length or area: (boxlen / 2^level)^ndim.
    ndim = int(t.meta["ndim"])
    vol = (float(t.meta["boxlen"]) / 2.0 ** t["level"]) ** ndim if cells else None
    out = {"rows": len(t), "columns": {}}
    if cells:
        lev, cnt = np.unique(t["level"], return_counts=True)
        out["levels"] = {str(int(a)): int(b) for a, b in zip(lev, cnt)}
    for name in t.columns:
        if cells and name in ("level", "cx", "cy", "cz"):
            continue
        v = t[name].astype(np.float64)
        c = {"min": float(v.min()), "max": float(v.max()), "sum": math.fsum(v)}
        if cells:
            c["volume_sum"] = math.fsum(v * vol)
        out["columns"][name] = c
    return out


@pytest.mark.parametrize("folder,comp,sel,ref", list(cases()))
def test_library_matches_reference(folder, comp, sel, ref):
    out = snapkit.open(folder)
    t = out.read(comp, **selection_kwargs(sel))
    compare(snapkit.column_stats(t), ref, (folder, comp, sel))
    compare(numpy_stats(t), ref, (folder, comp, sel))
    if not sel and t.meta["kind"] == "cells":
        # Leaves tile the box: their volumes add up to exactly boxlen^ndim,
        # times ny/nx (nz/nx) for a box of nx x ny x nz coarse cells.
        ndim = int(t.meta["ndim"])
        nx = [int(v) for v in t.meta["coarse_grid"].split("x")]
        shape = math.prod(nx[d] / nx[0] for d in range(ndim))
        assert math.fsum(snapkit.derive(t, "volume")) == float(t.meta["boxlen"]) ** ndim * shape
        index = {1: ["cx"], 2: ["cx", "cy"], 3: ["cx", "cy", "cz"]}[ndim]
        assert [c for c in t.columns if c in ("cx", "cy", "cz")] == index


@pytest.mark.parametrize("folder,comp,sel,ref", list(cases()))
def test_cli_matches_reference(folder, comp, sel, ref):
    cmd = [CLI, "stats", folder, "--component", comp, "--json"] + selection_args(sel)
    got = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    assert set(got) >= {"component", "rows", "columns", "files_opened", "seconds",
                        "result_bytes", "bytes_allocated"}
    assert got["component"] == comp
    compare(got, ref, cmd)
    assert ("levels" in got) == (comp not in ("particles", "sinks", "clumps"))
    assert 0 < got["files_opened"] <= int(snapkit.open(folder).info["info"]["ncpu"])
