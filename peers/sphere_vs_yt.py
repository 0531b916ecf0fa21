#!/usr/bin/python3
"""Issue 29's speed target: the gas mass, centre of mass and angular
momentum of a sphere, snapkit against yt, measured in one run.

    /usr/bin/python3 peers/sphere_vs_yt.py OUTPUT_DIR [--radius 0.1]
                     [--center X Y Z] [--repeat 5] [--json FILE]

snapkit: `snapkit stats OUTPUT --sphere R --center C --totals --json` as a
process (start-up included), best of --repeat, and the files it opened.
yt: a fresh process per run: yt.load, ds.sphere(C, R), the gas mass sum
and the total angular momentum (sum of the cells' ("gas",
"angular_momentum_x/y/z")) and centre of mass; its time after `import yt`
(the stricter ratio) and as a process. Both answers are printed so they
can be compared. The centre defaults to the box centre. Prints the
machine's figures beside ours (CPU count, model). Needs python3-yt.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))

YT = """
import sys, time
import yt
yt.set_log_level(50)
t0 = time.perf_counter()
ds = yt.load(sys.argv[1])
c = [float(x) for x in sys.argv[3:6]]
sp = ds.sphere(ds.arr(c, "code_length"), ds.quan(float(sys.argv[2]), "code_length"))
m = sp["gas", "mass"].in_units("code_mass")
mass = float(m.sum())
com = [float(x) for x in sp.quantities.center_of_mass(use_gas=True, use_particles=False)
       .in_units("code_length")]
L = [float(sp["gas", "angular_momentum_" + a].sum()) for a in "xyz"]
print(time.perf_counter() - t0, mass, *com, *L)
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
    return f"{os.cpu_count()} CPUs, {model}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("--radius", type=float, default=0.1)
    ap.add_argument("--center", type=float, nargs=3, default=[0.5, 0.5, 0.5])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    c = [str(x) for x in a.center]
    snap = [CLI, "stats", a.output, "--vars", "density,velocity_x,velocity_y,velocity_z",
            "--sphere", str(a.radius), "--center", *c, "--totals", "--json"]
    runs = [wall(snap) for _ in range(a.repeat)]
    best = min(t for t, _ in runs)
    got = json.loads(runs[0][1])
    whole = json.loads(wall([CLI, "stats", a.output, "--vars", "density", "--json"])[1])
    yt_in, yt_proc, yt_out = [], [], None
    for _ in range(a.repeat):
        t, o = wall([sys.executable, "-c", YT, a.output, str(a.radius), *c])
        v = o.split()
        yt_proc.append(t)
        yt_in.append(float(v[0]))
        yt_out = [float(x) for x in v[1:]]
    f = {"machine": machine(), "snapkit": best, "yt_inside": min(yt_in), "yt_process": min(yt_proc),
         "files_opened": got.get("files_opened"), "files_whole": whole.get("files_opened"),
         "snapkit_totals": got.get("totals"), "yt_mass": yt_out[0], "yt_com": yt_out[1:4],
         "yt_angular_momentum": yt_out[4:7]}
    print(f"machine: {f['machine']}")
    print(f"sphere r={a.radius} about {a.center} of {a.output}")
    print(f"snapkit stats --totals: {best * 1e3:.1f} ms (process, best of {a.repeat}); "
          f"{f['files_opened']} of {f['files_whole']} files")
    print(f"yt: {f['yt_inside'] * 1e3:.1f} ms after import ({f['yt_process'] * 1e3:.1f} ms as a "
          f"process)")
    print(f"ratio: {f['yt_inside'] / best:.1f}x (target >= 25x)")
    print(f"snapkit totals: {json.dumps(f['snapkit_totals'])}")
    print(f"yt: mass {yt_out[0]!r}, com {yt_out[1:4]}, angular momentum {yt_out[4:7]}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(f, fh, indent=1)


if __name__ == "__main__":
    main()
