#!/usr/bin/python3
"""Write the seed files of fuzz_store_read (fuzz/corpus/fuzz_store_read/):
small .snapkit files (under the fuzzer's 64 kB input limit) with every
table kind, codec and encoding: cells with refined cells (LZ4, and raw),
particles, atoms with a category column, and the hydro cells of the
shipped example cut to a small box; the tables without refined cells carry
format 1.1's statistics. leaves_format_1_0.snapkit, kept from before 1.1,
is a 1.0 file (no statistics field) and is not rewritten here. Run after `make build`, from anywhere."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import snapkit  # noqa: E402

OUT = os.path.join(ROOT, "fuzz", "corpus", "fuzz_store_read")
EXAMPLE = os.path.join(ROOT, "tests", "data", "ramses", "gravpart", "output_00002")


def cells(n, refined):
    level = 3 + np.arange(n, dtype=np.int32) % 3
    side = 1 << level
    i = np.arange(n)
    cols = {"level": level, "cx": ((i * 7) % side).astype(np.int32),
            "cy": ((i * 13) % side).astype(np.int32), "cz": ((i * 5) % side).astype(np.int32),
            "density": np.sin(i * 0.1)}
    if refined:
        cols["refined"] = (i % 5 == 0).astype(np.uint8)
    return snapkit.Table.from_arrays(cols, meta={"component": "hydro", "boxlen": "1",
                                                 "selection.lmax": "0"})


def particles(n):
    i = np.arange(n)
    return snapkit.Table.from_arrays(
        {"position_x": np.fmod(i * 0.37, 2.0), "position_y": np.fmod(i * 0.74, 2.0),
         "position_z": np.fmod(i * 1.11, 2.0), "identity": i.astype(np.int64) + 1000,
         "family": (i % 2).astype(np.int8)}, meta={"component": "particles", "boxlen": "2"})


def atoms(n):
    return snapkit.Table.from_arrays(
        {"element": np.array(["Cu", "Ni"])[np.arange(n) % 2],
         "x": np.arange(n, dtype=np.float32) * 0.5}, meta={"component": "atoms"})


def main():
    os.makedirs(OUT, exist_ok=True)
    mixed = [cells(300, True), particles(200), atoms(50)]
    snapkit.save(mixed, os.path.join(OUT, "mixed.snapkit"), chunk_rows=64)
    snapkit.save(mixed[:2], os.path.join(OUT, "raw.snapkit"), compress=False, chunk_rows=64)
    snapkit.save(cells(100, False), os.path.join(OUT, "leaves.snapkit"))
    gas = snapkit.open(EXAMPLE).hydro(xrange=(0.45, 0.5), yrange=(0.45, 0.5),
                                      zrange=(0.45, 0.55), vars=["density"])
    snapkit.save(gas, os.path.join(OUT, "gravpart_box.snapkit"), chunk_rows=256)
    for name in sorted(os.listdir(OUT)):
        size = os.path.getsize(os.path.join(OUT, name))
        assert size < 65536, (name, size)
        print(name, size)


if __name__ == "__main__":
    main()
