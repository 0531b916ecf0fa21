#!/usr/bin/python3
"""Reading outputs in a loop in one process (issue 13, item 2).

    /usr/bin/python3 peers/reread_loop.py OUTPUT [OUTPUT...] [--repeat 5]
                                          [--component hydro]

Reads every OUTPUT (RAMSES folders or .snapkit files) `--repeat` times in
a row in this process, dropping each table before the next read, and
prints each read's wall time: the first read pays the kernel's first touch
of fresh pages; later ones reuse the freed blocks (SNAPKIT_BLOCK_CACHE, MB,
default 1024; 0 turns reuse off; SNAPKIT_HUGEPAGES=1/0 forces huge pages
on or off). Run it twice, with SNAPKIT_BLOCK_CACHE=0 and without, to see
what reuse saves.
"""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import snapkit  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outputs", nargs="+")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--component", default="hydro")
    a = ap.parse_args()
    load = os.getloadavg()
    print(f"SNAPKIT_BLOCK_CACHE={os.environ.get('SNAPKIT_BLOCK_CACHE', '(1024)')} "
          f"SNAPKIT_HUGEPAGES={os.environ.get('SNAPKIT_HUGEPAGES', '(by THP modes)')}; "
          f"load average {load[0]:.2f}")
    times = []
    for k in range(a.repeat):
        for out in a.outputs:
            t0 = time.perf_counter()
            with snapkit.open(out) as o:
                t = o.read(a.component)
            dt = time.perf_counter() - t0
            rows = len(t)
            del t
            times.append(dt)
            print(f"  read {k + 1} {out}: {rows} rows, {dt:.4f} s")
    print(f"first {times[0]:.4f} s, median of the rest "
          f"{statistics.median(times[1:]) if len(times) > 1 else float('nan'):.4f} s")


if __name__ == "__main__":
    main()
