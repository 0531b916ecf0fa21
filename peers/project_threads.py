#!/usr/bin/python3
"""Projection on 1 and 2 threads, interleaved in one run (issue 13, item 4).

    /usr/bin/python3 peers/project_threads.py OUTPUT [--res 256,512] [--repeat 7]
                                              [--quantity sd] [--json FILE]

Reads the hydro cells of OUTPUT (a RAMSES output folder or a .snapkit file)
once, then projects one quantity along z at each resolution, alternating 1
and 2 threads `--repeat` times so that both see the same load. Per
resolution: cells per pixel, the best and median wall time of each (the
projection alone, the library's own timer), the wall speedup (best over
best), the process CPU time of each run (all threads), and the work ratio
CPU(2 threads) / CPU(1 thread): the extra work the second thread's bands
cost. Threads wait passively (OMP_WAIT_POLICY=passive) so that waiting is
not counted as work. The load average is printed before and after: on a
shared machine the wall speedup is only what the other processes left.
Also checks that both maps are the same bits.
"""
import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import snapkit  # noqa: E402


def one_run(table, q, res, threads):
    c0 = time.process_time()
    m = snapkit.project(table, q, axis="z", res=res, threads=threads)
    cpu = time.process_time() - c0
    return m.info["seconds"], cpu, m


def measure(table, q, res, repeat):
    wall = {1: [], 2: []}
    cpu = {1: [], 2: []}
    maps = {}
    for _ in range(repeat):
        for th in (1, 2):
            w, c, m = one_run(table, q, res, th)
            wall[th].append(w)
            cpu[th].append(c)
            maps[th] = m
    a, b = np.asarray(maps[1][q]), np.asarray(maps[2][q])
    same = a.tobytes() == b.tobytes()
    info = maps[2].info
    return {
        "res": res, "rows": int(info["rows"]),
        "cells_per_pixel": info["rows"] / float(res * res),
        "strategy_2": info["strategy"], "threads_2": info["threads"],
        "best_1": min(wall[1]), "best_2": min(wall[2]),
        "median_1": statistics.median(wall[1]), "median_2": statistics.median(wall[2]),
        "speedup_best": min(wall[1]) / min(wall[2]),
        "speedup_median": statistics.median(wall[1]) / statistics.median(wall[2]),
        "cpu_1": statistics.median(cpu[1]), "cpu_2": statistics.median(cpu[2]),
        "work_ratio": statistics.median(cpu[2]) / statistics.median(cpu[1]),
        "same_bits": same,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("--res", default="256,512")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quantity", default="sd")
    ap.add_argument("--json")
    a = ap.parse_args()
    load0 = os.getloadavg()
    with snapkit.open(a.output) as out:
        table = out.read("hydro")
    rows = []
    print(f"load average at the start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; "
          f"{os.cpu_count()} CPUs; OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}")
    print(f"{'res':>6} {'cells/px':>8} {'1-thr s':>8} {'2-thr s':>8} {'speedup':>7} "
          f"{'median':>7} {'work 2/1':>8}  same bits")
    for res in [int(r) for r in a.res.split(",")]:
        r = measure(table, a.quantity, res, a.repeat)
        rows.append(r)
        print(f"{res:>6} {r['cells_per_pixel']:>8.1f} {r['best_1']:>8.4f} {r['best_2']:>8.4f} "
              f"{r['speedup_best']:>6.2f}x {r['speedup_median']:>6.2f}x {r['work_ratio']:>8.2f}"
              f"  {'yes' if r['same_bits'] else 'NO'} ({r['strategy_2']}, "
              f"{r['threads_2']} threads)")
    load1 = os.getloadavg()
    print(f"load average at the end {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"load_start": load0, "load_end": load1, "runs": rows}, f, indent=1)
    return 0 if all(r["same_bits"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
