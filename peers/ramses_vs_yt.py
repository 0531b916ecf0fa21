#!/usr/bin/python3
"""snapkit against yt on the same RAMSES outputs, in one run.

    /usr/bin/python3 peers/ramses_vs_yt.py [--repeat N] [--threads N] [OUTPUT_DIR ...]

Without folders: every output under tests/data/ramses and
$SNAPKIT_SHARED/fixtures/ramses (default ../shared). For each output and
component (hydro; gravity, particles, rt, clump_field, sinks, clumps where
present) it reads every field with yt (where yt 4.1.4 reads the component:
not clump_field, sinks csv, clumps) (yt.load + all_data, a fresh dataset per run) and with
snapkit, and prints the best of --repeat runs of each (at least 5 for
snapkit, after one untimed read), the ratio, snapkit
with one thread, its bytes allocated against the result's size, and its
input throughput (bytes of the files it opened per second, per thread).
Files are read from the page cache (each output is read once before
timing). Without folders it names the issue-10 fixtures it did not find;
where yt returns other rows than snapkit (boxes of several coarse cells,
which yt 4.1.4 misplaces) no ratio is printed. --list prints the outputs
and components it would time, and stops (tests/python/test_bench_ramses_vs_yt.py).
Needs Debian's python3-yt; run after `make build`.
"""
import argparse
import glob
import logging
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import snapkit  # noqa: E402
from ramses_outputs import default_outputs  # noqa: E402  (peers/ramses_outputs.py)

YT_FTYPE = {"hydro": "ramses", "gravity": "gravity", "particles": "io", "rt": "ramses-rt"}
COMPONENTS = ("hydro", "gravity", "particles", "rt", "clump_field", "sinks", "clumps")
# The fixtures the default run must cover (issue 10): shared ones and
# tests/data's 1-D, 2-D and several-coarse-cell outputs.
EXPECTED = ("mhd3d", "rt3d", "sink3d", "clumps3d", "cosmo32", "tube1d", "sedov2d",
            "coarse222", "coarse211b")


def plan(outputs):
    """(folder, display name, components present) of each output."""
    out = []
    for folder in outputs:
        o = snapkit.open(folder)
        comps = [c for c in COMPONENTS if o.info["components"].get(c)]
        o.close()
        out.append((folder, "/".join(os.path.normpath(folder).split(os.sep)[-2:]), comps))
    return out


def warm(folder):
    for f in glob.glob(os.path.join(folder, "*")):
        with open(f, "rb") as fh:
            while fh.read(1 << 20):
                pass


def time_yt(folder, component, repeat):
    """Best time and rows, or (None, None) where yt cannot read it."""
    if component not in YT_FTYPE:
        return None, None
    import yt
    num = os.path.basename(folder).split("_")[-1]
    info = os.path.join(folder, "info_%s.txt" % num)
    best, rows = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        ds = yt.load(info)
        ad = ds.all_data()
        fields = [f for f in ds.field_list if f[0] == YT_FTYPE[component]]
        if component not in ("particles", "sinks", "clumps"):
            fields.append(("index", "grid_level"))
        for f in fields:
            rows = len(ad[f])
        best = min(best, time.perf_counter() - t0)
    return best, rows


def time_snapkit(folder, component, repeat, threads):
    best, last = float("inf"), None
    snapkit.open(folder).read(component, threads=threads)  # thread pool and result pages
    for _ in range(max(repeat, 5)):
        out = snapkit.open(folder)
        t0 = time.perf_counter()
        t = out.read(component, threads=threads)
        elapsed = time.perf_counter() - t0
        if elapsed < best:
            best, last = elapsed, dict(out.last_read, rows=len(t))
        del t
        out.close()
    return best, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outputs", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="snapkit threads (0: the budget)")
    ap.add_argument("--list", action="store_true",
                    help="print the outputs and components that would be timed, and stop")
    args = ap.parse_args()
    todo = plan(args.outputs or default_outputs())
    if args.list:
        for _, name, comps in todo:
            print(name, " ".join(comps))
        return
    if not args.outputs:
        found = {name.split("/")[0] for _, name, _ in todo}
        for missing in sorted(set(EXPECTED) - found):
            print("  note: fixture %s not found (set SNAPKIT_SHARED)" % missing)
    logging.getLogger("yt").setLevel(logging.ERROR)
    import yt
    yt.set_log_level(50)
    budget = snapkit.threads(args.threads)["threads"]
    print("snapkit %s vs yt %s; snapkit threads %d (and 1); best of %d (snapkit: of max(N, 5) after one warm-up read); page cache warm"
          % (snapkit.__version__, yt.__version__, budget, args.repeat))
    head = ("output", "comp", "MB", "rows", "yt s", "snapkit s", "x yt", "1-thr s", "x yt",
            "alloc/res", "MB/s/thr")
    print("%-26s %-11s %6s %8s %8s %9s %7s %8s %7s %9s %9s" % head)
    for folder, name, comps in todo:
        warm(folder)
        for comp in comps:
            # snapkit first: yt leaves thread pools (OpenBLAS) that may still
            # spin on the other cores for a while after it returns.
            sk_s, st = time_snapkit(folder, comp, args.repeat, budget)
            one_s, st1 = time_snapkit(folder, comp, args.repeat, 1)
            try:
                yt_s, yt_rows = time_yt(folder, comp, args.repeat)
            except Exception as e:  # yt 4.1.4 cannot read 1-D and 2-D outputs, say
                print("  note: yt cannot read %s %s: %s" % (name, comp, str(e).splitlines()[-1]))
                yt_s, yt_rows = None, None
            if yt_rows is not None and yt_rows != st["rows"]:
                # yt 4.1.4 misplaces the octs of a box of several coarse
                # cells: a time for other rows is no comparison.
                print("  note: yt gave %d rows, snapkit %d: no ratio" % (yt_rows, st["rows"]))
                yt_s = None
            mb = st["bytes_read"] / 1e6
            yt_cols = ("%8.3f" % yt_s, "%7.1f" % (yt_s / sk_s), "%7.1f" % (yt_s / one_s)) \
                if yt_s is not None else ("%8s" % "-", "%7s" % "-", "%7s" % "-")
            print("%-26s %-11s %6.1f %8d %s %9.4f %s %8.4f %s %9.3f %9.0f"
                  % (name, comp, mb, st["rows"], yt_cols[0], sk_s, yt_cols[1], one_s, yt_cols[2],
                     st["bytes_allocated"] / max(st["result_bytes"], 1),
                     st1["bytes_read"] / 1e6 / max(st1["seconds"], 1e-9)))


if __name__ == "__main__":
    main()
