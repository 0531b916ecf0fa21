#!/usr/bin/python3
"""Surface density maps of snapkit and yt on the same RAMSES outputs.

    /usr/bin/python3 peers/project_vs_yt.py [OUTPUT_DIR ...]

Without folders: every output under tests/data/ramses and
$SNAPKIT_SHARED/fixtures/ramses (default ../shared). For each output and
axis, the relative L1 difference between snapkit's sd map (g/cm^2) and yt's
ds.proj(("gas", "density"), axis) through a fixed-resolution buffer over
the whole box, both at 2^lmax pixels across; and the time of each (yt: a
fresh dataset, so its reading is included; snapkit: read + project, and the
projection alone). Needs Debian's python3-yt; run after `make build`.
"""
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import snapkit  # noqa: E402
from ramses_outputs import default_outputs  # noqa: E402  (peers/ramses_outputs.py)


def main():
    import yt
    yt.set_log_level(50)
    folders = sys.argv[1:] or default_outputs("output_*[0-9]")
    print(f"{'output':<28} {'axis':<4} {'pixels':>9} {'rel. L1':>9} {'yt s':>8} "
          f"{'snapkit read+proj s':>20} {'proj s':>8}")
    worst = 0.0
    for folder in folders:
        num = os.path.basename(folder).split("_")[-1]
        name = "/".join(folder.rstrip("/").split(os.sep)[-2:])
        for axis in range(3):
            t0 = time.perf_counter()
            with snapkit.open(folder) as out:
                gas = out.read("hydro")
            m = snapkit.project(gas, "sd", axis="xyz"[axis], units="g/cm2")
            ours = time.perf_counter() - t0
            t0 = time.perf_counter()
            ds = yt.load(os.path.join(folder, f"info_{num}.txt"))
            frb = ds.proj(("gas", "density"), axis).to_frb((1.0, "unitary"), m.nx,
                                                           center=ds.domain_center)
            ref = np.array(frb["gas", "density"].to("g/cm**2").d)
            theirs = time.perf_counter() - t0
            l1 = float(np.abs(m["sd"] - ref).sum() / np.abs(ref).sum())
            worst = max(worst, l1)
            print(f"{name:<28} {'xyz'[axis]:<4} {m.nx:>4}x{m.ny:<4} {l1:>9.2g} {theirs:>8.2f} "
                  f"{ours:>20.3f} {m.seconds:>8.4f}")
            del gas
    print(f"largest relative L1 difference: {worst:.3g} (target < 1e-6)")


if __name__ == "__main__":
    main()
