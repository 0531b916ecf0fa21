"""The Python package's foundation: tables over C memory, errors, budget."""
import gc

import numpy as np
import pytest

import snapkit


def test_version_matches_cli():
    import os
    import subprocess
    out = subprocess.run([os.environ.get("SNAPKIT_CLI", "build/snapkit"), "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "snapkit " + snapkit.__version__


def test_table_roundtrip_and_no_copy():
    x = np.linspace(0, 1, 7)
    t = snapkit.Table.from_arrays({"x": x, "level": np.arange(7, dtype=np.int32),
                                   "species": np.array(["Cu", "Ni", "Cu", "Cu", "Ni", "O", "Cu"])},
                                  meta={"boxlen": 2.0})
    assert len(t) == 7
    assert t.columns == ["x", "level", "species"]
    assert t.meta["boxlen"] == "2.0"
    np.testing.assert_array_equal(t["x"], x)
    assert t["level"].dtype == np.int32
    assert list(t["species"]) == ["Cu", "Ni", "Cu", "Cu", "Ni", "O", "Cu"]
    assert t.nbytes == 7 * (8 + 4 + 4)
    # The array is a view of the C block: writing through it is seen again.
    a = t["x"]
    a[0] = 42.0
    assert t.codes("x")[0] == 42.0
    # The view keeps the table alive after the last reference goes.
    del t
    gc.collect()
    assert a[0] == 42.0 and a[-1] == 1.0


def test_mismatched_lengths():
    with pytest.raises(ValueError):
        snapkit.Table.from_arrays({"a": np.zeros(3), "b": np.zeros(4)})


def test_memory_accounting_counts_tables():
    before = snapkit.memory()
    t = snapkit.Table.from_arrays({"x": np.zeros(100000)})
    after = snapkit.memory()
    assert after["total"] - before["total"] >= 800000
    assert after["current"] - before["current"] >= 800000
    assert after["peak"] >= after["current"]
    assert after["calls"] > before["calls"]
    del t
    gc.collect()
    freed = snapkit.memory()
    assert after["current"] - freed["current"] >= 800000  # the column went back
    assert freed["total"] == after["total"]  # total counts what was ever allocated


def test_thread_budget():
    b = snapkit.threads(1)
    assert b["threads"] == 1
    assert 1 <= b["owned"] <= b["machine"]
    assert b["limited_by"]
