#!/usr/bin/python3
"""Issue 30's speed target for profiles: a 64-bin mass-weighted radial
density profile of a sphere, snapkit against yt 4.1, in one run.

    /usr/bin/python3 peers/profile_vs_yt.py OUTPUT_DIR [--radius 0.3] [--repeat 5]

yt: a fresh process per run: yt.load, ds.sphere, yt.create_profile(sp,
("index", "radius"), [("gas", "density")], weight_field=("gas", "mass"),
n_bins=64, logs={radius: False}); its time after `import yt` (measured
inside) and the process's CPU seconds less those of `import yt` alone.
snapkit: `snapkit profile OUTPUT --sphere R --bin r --vars density` and the
`snapkit stats --vars density --recompute` pass over the same selection, as
processes, best of --repeat, wall and CPU seconds (user + system). Centre:
the box centre; radius in box units. Prints the machine beside the figures.
"""
import argparse
import os
import resource
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))

YT = """
import glob, os, sys, time
import numpy as np
import yt
yt.set_log_level(50)
t0 = time.perf_counter()
folder, radius = sys.argv[1], float(sys.argv[2])
ds = yt.load(sorted(glob.glob(os.path.join(folder, "info_*.txt")))[0])
w = ds.domain_width.to("code_length").d[0]
sp = ds.sphere(ds.arr(np.array([0.5] * 3) * w, "code_length"), ds.quan(radius * w, "code_length"))
yt.create_profile(sp, ("index", "radius"), [("gas", "density")], weight_field=("gas", "mass"),
                  n_bins=64, logs={("index", "radius"): False})
print(time.perf_counter() - t0)
"""


def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, out


def best(cmd, n):
    runs = [timed(cmd) for _ in range(n)]
    return min(r[0] for r in runs), min(r[1] for r in runs), [r[2] for r in runs]


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {model}, load average {os.getloadavg()[0]:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("output")
    ap.add_argument("--radius", type=float, default=0.3)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    sel = ["--unit", "standard", "--center", "0.5", "0.5", "0.5", "--sphere", repr(a.radius)]
    imp = best(["/usr/bin/python3", "-c", "import numpy, yt"], 2)
    yt_run = best(["/usr/bin/python3", "-c", YT, a.output, repr(a.radius)], 2)
    yt_inside = min(float(o) for o in yt_run[2])
    yt_cpu = yt_run[1] - imp[1]
    prof = best([CLI, "profile", a.output, *sel, "--bin", "r", "--bins", "64", "--vars",
                 "density", "--json"], a.repeat)
    stats = best([CLI, "stats", a.output, *sel, "--vars", "density", "--recompute"], a.repeat)
    print(f"machine: {machine()}")
    print(f"yt load + create_profile: {yt_inside:.3f} s wall after import, {yt_cpu:.3f} s CPU")
    print(f"snapkit profile: {prof[0]:.3f} s wall, {prof[1]:.3f} s CPU")
    print(f"snapkit stats (same selection): {stats[0]:.3f} s wall, {stats[1]:.3f} s CPU")
    print(f"yt / profile: {yt_inside / prof[0]:.1f}x wall, {yt_cpu / prof[1]:.1f}x CPU; "
          f"profile / stats: {prof[0] / stats[0]:.2f} wall, {prof[1] / stats[1]:.2f} CPU")


if __name__ == "__main__":
    main()
