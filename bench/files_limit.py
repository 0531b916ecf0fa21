#!/usr/bin/python3
"""Reading at the metadata limit (issue 33 item 4): the same leaf cells
written over 32, 512 and 4096 CPU files, read three ways in one run --
`cat` of the amr and hydro files, `snapkit stats` of the output, and
`snapkit stats --recompute` of its .snapkit file -- warm (best of --runs,
from the page cache) and, with --cold as root, cold (the page cache dropped
before each run, best of --cold-runs). Prints the bytes each path reads
(the amr and hydro files; the whole .snapkit file),
the times, the ratios (output / cat, output / file) and the machine.

    /usr/bin/python3 bench/files_limit.py [--files 32,512,4096] [--cells 1000000]
        [--runs 5] [--cold] [--dir /tmp/files-limit] [--json out.json] [--keep]

Outputs are written one at a time with `snapkit make-ramses` (hydro only,
levels 6-12, --cells-target) and deleted after their measurements unless
--keep (at 4096 files and 1M cells the output takes about 7 GB).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def timed(cmd, n, cold):
    best, out = None, None
    for _ in range(n):
        if cold:
            drop_caches()
        t = time.perf_counter()
        out = run(cmd).stdout
        dt = time.perf_counter() - t
        best = dt if best is None or dt < best else best
    return best, out


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpus": os.cpu_count(), "model": model, "load": os.getloadavg()[0]}


def measure(out, snap, runs, cold_runs, cold):
    files = sorted(glob.glob(os.path.join(out, "amr_*")) + glob.glob(os.path.join(out, "hydro_*")))
    cat_bytes = sum(os.path.getsize(f) for f in files)
    cat = ["cat", *files]
    stats_out = [CLI, "stats", out, "--component", "hydro", "--json"]
    stats_file = [CLI, "stats", snap, "--component", "hydro", "--recompute", "--json"]
    r = {"files": len(files), "cat_bytes": cat_bytes, "snapkit_file_bytes": os.path.getsize(snap)}
    for mode, n, c in (("warm", runs, False), ("cold", cold_runs, True)):
        if c and not cold:
            continue
        r[mode] = {}
        for name, cmd in (("cat", cat), ("output", stats_out), ("file", stats_file)):
            t, text = timed(cmd, n, c) if name != "cat" else timed(
                ["sh", "-c", 'cat "$@" > /dev/null', "cat", *files], n, c)
            r[mode][name] = t
            if name != "cat":
                j = json.loads(text)
                r["rows"] = j["rows"]
                r[f"{name}_files_opened"] = j.get("files_opened", j.get("chunks_read"))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", default="32,512,4096")
    ap.add_argument("--cells", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="also cold reads (root: drops the page cache)")
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/files-limit")
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    results = []
    for n in (int(x) for x in a.files.split(",")):
        out = os.path.join(a.dir, f"n{n}", "output_00001")
        snap = os.path.join(a.dir, f"n{n}.snapkit")
        if not os.path.isdir(out):
            run([CLI, "make-ramses", out, "--ncpu", str(n), "--levelmin", "6", "--levelmax", "12",
                 "--components", "hydro", "--cells-target", str(a.cells), "--threads", "2"])
        if not os.path.exists(snap):
            run([CLI, "convert", out, "--components", "hydro", "-o", snap])
        r = measure(out, snap, a.runs, a.cold_runs, a.cold)
        r["cpu_files"] = n
        results.append(r)
        print_row(r)
        if not a.keep:
            shutil.rmtree(os.path.join(a.dir, f"n{n}"))
            os.remove(snap)
    m = machine()
    print(f"machine: {m['cpus']} CPUs ({m['model']}), load average {m['load']:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": m, "cells": a.cells, "runs": a.runs, "results": results}, f,
                      indent=1)


def print_row(r):
    mb = 1 / 1e6
    for mode in ("warm", "cold"):
        if mode not in r:
            continue
        t = r[mode]
        print(f"{r['cpu_files']:5d} CPU files {mode}: cat {t['cat']:.3f} s ({r['cat_bytes'] * mb:.0f} MB), "
              f"output {t['output']:.3f} s ({t['output'] / t['cat']:.2f}x cat), "
              f".snapkit {t['file']:.3f} s ({r['snapkit_file_bytes'] * mb:.0f} MB; "
              f"output / file {t['output'] / t['file']:.1f}x)", flush=True)


if __name__ == "__main__":
    main()
