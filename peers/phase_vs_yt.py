#!/usr/bin/python3
"""Issue 30's phase-diagram speed target: a 128x128 density-pressure mass
phase diagram of the whole box, snapkit against yt, measured in one run,
beside a `snapkit stats` pass over the same data.

    /usr/bin/python3 peers/phase_vs_yt.py OUTPUT_DIR [--repeat 5] [--json FILE]

snapkit: `snapkit phase OUTPUT --x density --y pressure -o FILE.npy` as a
process (start-up included), best of --repeat: with the default ranges (an
extrema pass, then the binning pass, as yt) and with the ranges given (one
pass). stats: `snapkit stats OUTPUT --json`, best of --repeat. yt: a fresh
process per run: yt.load and yt.create_profile(ad, [density, pressure],
[mass], weight_field=None, n_bins=128) (its own extrema, as snapkit's
default); its time after `import yt` (the stricter ratio) and as a
process. Both diagrams' totals are printed so they can be compared. Prints
the machine's figures beside ours. Needs python3-yt.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))

YT = """
import sys, time
import yt
yt.set_log_level(50)
t0 = time.perf_counter()
ds = yt.load(sys.argv[1])
ad = ds.all_data()
p = yt.create_profile(ad, [("gas", "density"), ("gas", "pressure")], [("gas", "mass")],
                      weight_field=None, n_bins=[128, 128])
v = p["gas", "mass"].to("g").d
print(time.perf_counter() - t0, float(v.sum()), int((v > 0).sum()))
"""


def wall(argv):
    t0 = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, out


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{os.cpu_count()} CPUs, {model}, load {load:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    npy = os.path.join(tmp, "p.npy")
    base = [CLI, "phase", a.output, "--x", "density", "--y", "pressure", "--units", "cgs",
            "-o", npy, "--no-fsync"]
    phase = min(wall(base)[0] for _ in range(a.repeat))
    values = np.load(npy)
    edges = json.loads(wall(base[:-3] + ["--json"])[1])
    lim = ["--xlim", repr(edges["x_edges"][0]), repr(edges["x_edges"][-1]),
           "--ylim", repr(edges["y_edges"][0]), repr(edges["y_edges"][-1])]
    one_pass = min(wall(base + lim)[0] for _ in range(a.repeat))
    stats = min(wall([CLI, "stats", a.output, "--json"])[0] for _ in range(a.repeat))
    yt_in, yt_proc, yt_out = [], [], None
    for _ in range(a.repeat):
        t, o = wall([sys.executable, "-c", YT, a.output])
        v = o.split()
        yt_proc.append(t)
        yt_in.append(float(v[0]))
        yt_out = (float(v[1]), int(v[2]))
    f = {"machine": machine(), "snapkit_phase": phase, "snapkit_phase_one_pass": one_pass,
         "snapkit_stats": stats, "yt_inside": min(yt_in), "yt_process": min(yt_proc),
         "snapkit_mass": float(values.sum()), "snapkit_bins_used": int((values > 0).sum()),
         "yt_mass": yt_out[0], "yt_bins_used": yt_out[1]}
    print(f"machine: {f['machine']}")
    print(f"128x128 density-pressure mass phase diagram of {a.output}")
    print(f"snapkit phase: {phase * 1e3:.1f} ms (extrema + binning), {one_pass * 1e3:.1f} ms "
          f"(ranges given, one pass); process, best of {a.repeat}")
    print(f"snapkit stats: {stats * 1e3:.1f} ms; phase/stats {phase / stats:.2f} "
          f"(one pass {one_pass / stats:.2f}; target <= 1.5)")
    print(f"yt: {f['yt_inside'] * 1e3:.1f} ms after import ({f['yt_process'] * 1e3:.1f} ms as a "
          f"process)")
    print(f"ratio: {f['yt_inside'] / phase:.1f}x (target >= 25x)")
    print(f"mass: snapkit {f['snapkit_mass']!r} g in {f['snapkit_bins_used']} bins, "
          f"yt {f['yt_mass']!r} g in {f['yt_bins_used']} bins")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(f, fh, indent=1)


if __name__ == "__main__":
    main()
