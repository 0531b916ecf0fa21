#!/usr/bin/env python3
"""Frame k of a large LAMMPS dump: found through the frame index (built
once, kept in a .skidx sidecar) against the sequential way (reading the
headers of every frame before k, and parsing every frame before k).

    /usr/bin/python3 bench/traj_index.py [--frames 200] [--atoms 32000] [--dir DIR]

Writes DIR/big.lammpstrj (kept and reused when its size matches), prints one
line per measurement. Times are medians of --runs runs, the file warm in
the page cache."""
import argparse
import io
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import snapkit.atoms as sa  # noqa: E402


def make_dump(path, nframes, natoms):
    """nframes frames of natoms atoms (id type x y z, every digit), each
    frame's positions shifted a little so frames differ."""
    rng = np.random.default_rng(1)
    pos = rng.uniform(0, 50, size=(natoms, 3))
    buf = io.StringIO()
    ids = np.arange(1, natoms + 1)
    np.savetxt(buf, np.column_stack([ids, np.ones(natoms), pos]), fmt="%d %d %.17g %.17g %.17g")
    body = buf.getvalue()
    head = ("ITEM: TIMESTEP\n{}\nITEM: NUMBER OF ATOMS\n%d\nITEM: BOX BOUNDS pp pp pp\n"
            "0 50\n0 50\n0 50\nITEM: ATOMS id type x y z\n" % natoms)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for k in range(nframes):
            f.write(head.format(1000 * k))
            f.write(body)
    os.replace(tmp, path)


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def machine():
    cpu = platform.processor() or "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--atoms", type=int, default=32000)
    ap.add_argument("--dir", default="/tmp/snapkit-bench-traj")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, "big.lammpstrj")
    if not os.path.exists(path) or len(sa.frames(path)) != a.frames:
        make_dump(path, a.frames, a.atoms)
    size = os.path.getsize(path)
    side = path + ".skidx"
    if os.path.exists(side):
        os.remove(side)
    with open(path, "rb") as f:  # warm the page cache
        while f.read(1 << 24):
            pass
    print(f"# {machine()}")
    print(f"# {path}: {size / 1e6:.0f} MB, {a.frames} frames of {a.atoms} atoms")

    def build():
        if os.path.exists(side):
            os.remove(side)
        sa.frames(path, index=True).close()
    t_index = median_time(build, a.runs)
    print(f"index pass (and sidecar write): {t_index:.3f} s, {size / t_index / 1e9:.2f} GB/s")
    t_mem = median_time(lambda: sa.frames(path).close(), a.runs)
    print(f"index pass alone (no sidecar): {t_mem:.3f} s, {size / t_mem / 1e9:.2f} GB/s")
    t_wc = median_time(lambda: subprocess.run(["wc", "-l", path], check=True,
                                              stdout=subprocess.DEVNULL), a.runs)
    print(f"beside: wc -l of the file {t_wc:.3f} s, {size / t_wc / 1e9:.2f} GB/s")
    t_open = median_time(lambda: sa.frames(path, index=True).close(), a.runs)
    print(f"open with the sidecar: {t_open * 1e3:.2f} ms")
    for k in (0, a.frames // 2, a.frames - 1):
        def indexed():
            with sa.frames(path, index=True) as t:
                t[k]
        def headers():  # the old way: find frame k by reading every header before it
            with sa.File(path) as f:
                f.frame(k)
        def parse_all():  # reading frames in order up to k (what a reader without offsets does)
            with sa.File(path) as f:
                for i, s in enumerate(f):
                    if i == k:
                        break
        ti = median_time(indexed, a.runs)
        th = median_time(headers, a.runs)
        tp = median_time(parse_all, 1)
        print(f"frame {k:4d}: sidecar+read {ti * 1e3:7.1f} ms   header scan+read {th * 1e3:7.1f} ms"
              f"   parse frames 0..k {tp * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
