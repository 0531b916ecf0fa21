#!/usr/bin/python3
"""The cost of snapkit.to_yt against yt.load plus its read, in one run.

    /usr/bin/python3 peers/to_yt_bench.py [--repeat N] [OUTPUT_DIR ...]

Without folders: the 3-D fixtures yt 4.1.4 reads, under tests/data/ramses and
$SNAPKIT_SHARED/fixtures/ramses (default ../shared). For each output, the
best of --repeat runs (default 3) of:

  yt       yt.load + all_data() of every field it has on disk (cells of
           ramses, gravity, ramses-rt; particles of io), a fresh dataset
           per run
  read     snapkit's read of the same components (hydro, gravity, rt,
           particles)
  bridge   snapkit.to_yt of those tables: the octree, yt.load_octree,
           units (what the issue counts against yt: target < 0.1 x yt)
  fields   the same all_data() read on the bridged dataset (yt's field
           set-up, which yt.load's read pays too, and its selection)

and the ratios bridge / yt and (read + bridge) / yt. Files are read from
the page cache (each output is read once before timing). Needs Debian's
python3-yt; run after the build.
"""
import argparse
import glob
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import snapkit  # noqa: E402

FIXTURES = ["sedov3d/output_00002", "manyfiles/output_00002", "mhd3d/output_00002",
            "gravpart/output_00002", "sink3d/output_00002", "rt3d/output_00002",
            "clumps3d/output_00002", "cosmo32/output_00003"]
RAW = ("ramses", "gravity", "ramses-rt", "io")


def default_outputs():
    shared = os.environ.get("SNAPKIT_SHARED", os.path.join(ROOT, "..", "shared"))
    found = []
    for name in FIXTURES:
        for base in (os.path.join(shared, "fixtures", "ramses"),
                     os.path.join(ROOT, "tests", "data", "ramses")):
            if os.path.isdir(os.path.join(base, name)):
                found.append(os.path.join(base, name))
                break
    return found


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def read_all(ds):
    ad = ds.all_data()
    n = 0
    for field in ds.field_list:
        if field[0] in RAW:
            n += ad[field].size
    return n


def tables(path):
    out = snapkit.open(path)
    have = [c for c in ("hydro", "gravity", "rt", "particles") if out.info["components"].get(c)]
    return {c: out.read(c) for c in have}


def bridge(t):
    return snapkit.to_yt(t["hydro"], gravity=t.get("gravity"), rt=t.get("rt"),
                         particles=t.get("particles"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("outputs", nargs="*")
    args = ap.parse_args()
    import yt
    yt.set_log_level(50)
    print(f"{'output':28} {'cells':>8} {'parts':>6} {'yt s':>7} {'read s':>7} {'bridge s':>8} "
          f"{'fields s':>8} {'bridge/yt':>9} {'(read+bridge)/yt':>16}")
    for path in args.outputs or default_outputs():
        for f in glob.glob(os.path.join(path, "*")):
            with open(f, "rb") as fh:
                while fh.read(1 << 20):
                    pass
        info = sorted(glob.glob(os.path.join(path, "info_*.txt")))[0]
        t_yt, _ = best(lambda: read_all(yt.load(info)), args.repeat)
        t_read, t = best(lambda: tables(path), args.repeat)
        t_bridge, _ = best(lambda: bridge(t), args.repeat)
        t_fields, _ = best(lambda: read_all(bridge(t)), args.repeat)
        t_fields -= t_bridge
        name = "/".join(os.path.normpath(path).split(os.sep)[-2:])
        parts = len(t["particles"]) if "particles" in t else 0
        print(f"{name:28} {len(t['hydro']):8d} {parts:6d} {t_yt:7.3f} {t_read:7.3f} "
              f"{t_bridge:8.3f} {t_fields:8.3f} {t_bridge / t_yt:9.3f} "
              f"{(t_read + t_bridge) / t_yt:16.3f}", flush=True)


if __name__ == "__main__":
    main()
