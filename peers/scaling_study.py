#!/usr/bin/python3
"""Reading RAMSES outputs where real runs live: the same cells spread over
8, 64, 512 and 5120 CPU files, and one output of several GB, written by
`snapkit make-ramses` and read by snapkit and yt.

    /usr/bin/python3 peers/scaling_study.py [--workdir DIR] [--cells 2e6]
        [--ncpus 8,64,512,5120] [--levelmin 6] [--levelmax 12]
        [--big-ncpu 64] [--big-cells 16e6] [--yt-timeout 600] [--repeat 3]
        [--json FILE] [--keep]

For each output: its size and files, how long make-ramses took to write
it, snapkit's hydro read (`snapkit stats --component hydro --json`: the
read's wall time, best of --repeat after one warm-up run, so from the page
cache; files and bytes per second; bytes the library allocated against the
table it returned), and yt's read of the same cells (yt.load, all_data, every
hydro field and the level; one run, killed after --yt-timeout seconds). On
the largest output (by bytes) and the big one it also sweeps snapkit's
threads (1 and 2), reads a small region (0.45-0.55 on each axis: only the
CPU files whose domains it touches), and converts the hydro cells once
into a compact .snapkit file (`snapkit convert`) and reads that. Outputs are written one at a time under --workdir
(default /tmp) and deleted after their measurements unless --keep; the
free disk is checked first. Needs the build (`make build`) and python3-yt.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))

YT_SCRIPT = r"""
import json, logging, sys, time
logging.getLogger("yt").setLevel(logging.ERROR)
import yt
yt.set_log_level(50)
t0 = time.perf_counter()
ds = yt.load(sys.argv[1])
ad = ds.all_data()
fields = [f for f in ds.field_list if f[0] == "ramses"] + [("index", "grid_level")]
rows = 0
for f in fields:
    rows = len(ad[f])
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": rows}))
"""


def run_json(args):
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def folder_bytes(folder, prefixes):
    total = files = 0
    for name in os.listdir(folder):
        if name.startswith(prefixes):
            total += os.path.getsize(os.path.join(folder, name))
            files += 1
    return total, files


def make(folder, ncpu, cells, args, components="hydro", npart=0):
    t0 = time.perf_counter()
    report = run_json([CLI, "make-ramses", folder, "--ncpu", str(ncpu), "--levelmin",
                       str(args.levelmin), "--levelmax", str(args.levelmax), "--cells-target",
                       str(int(cells)), "--components", components, "--npart", str(npart),
                       "--json"])
    report["wall"] = time.perf_counter() - t0
    return report


REGION = ["--xrange", "0.45", "0.55", "--yrange", "0.45", "0.55", "--zrange", "0.45", "0.55"]


def snapkit_read(folder, repeat, threads=0, region=False):
    cmd = [CLI, "stats", folder, "--component", "hydro", "--json"] + (REGION if region else [])
    if threads:
        cmd += ["--threads", str(threads)]
    run_json(cmd)  # warm-up: page cache, thread pool
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = run_json(cmd)
        r["process"] = time.perf_counter() - t0
        if best is None or r["seconds"] < best["seconds"]:
            best = r
    return best


def convert_and_read(folder, repeat):
    """Convert the hydro cells once into a compact file, then read that."""
    target = folder.rstrip("/") + ".snapkit"
    t0 = time.perf_counter()
    subprocess.run([CLI, "convert", folder, "-o", target, "--components", "hydro"],
                   capture_output=True, check=True)
    seconds = time.perf_counter() - t0
    read = snapkit_read(target, repeat)
    out = {"convert_seconds": seconds, "bytes": os.path.getsize(target),
           "read_seconds": read["seconds"], "rows": read["rows"]}
    os.remove(target)
    return out


def yt_read(folder, timeout):
    info = [f for f in os.listdir(folder) if f.startswith("info_")][0]
    proc = subprocess.Popen([sys.executable, "-c", YT_SCRIPT, os.path.join(folder, info)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return json.loads(out)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"seconds": None, "timeout": timeout}


def measure(folder, label, ncpu, report, args, sweep):
    size, files = folder_bytes(folder, ("amr_", "hydro_"))
    total, all_files = folder_bytes(folder, ("",))
    sk = snapkit_read(folder, args.repeat)
    row = {"label": label, "ncpu": ncpu, "leaves": report["leaves"],
           "oct_copies": report["ghost_ratio"], "output_bytes": total, "output_files": all_files,
           "hydro_bytes": size, "hydro_files": files, "make_seconds": report["wall"],
           "snapkit_seconds": sk["seconds"], "snapkit_process_seconds": sk["process"],
           "files_per_second": 2 * sk["files_opened"] / sk["seconds"],
           "bytes_per_second": size / sk["seconds"], "bytes_allocated": sk["bytes_allocated"],
           "result_bytes": sk["result_bytes"], "rows": sk["rows"]}
    if sweep:
        row["threads"] = {t: snapkit_read(folder, args.repeat, t)["seconds"] for t in (1, 2)}
        box = snapkit_read(folder, args.repeat, region=True)
        row["region"] = {k: box[k] for k in ("seconds", "files_opened", "rows")}
        row["compact"] = convert_and_read(folder, args.repeat)
    y = yt_read(folder, args.yt_timeout)
    row["yt_seconds"] = y["seconds"]
    if y.get("rows") is not None and y["rows"] != sk["rows"]:
        row["note"] = "yt gave %d rows, snapkit %d" % (y["rows"], sk["rows"])
    return row


def fmt_bytes(b):
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if b < 1000:
            return "%.1f %s" % (b, unit)
        b /= 1000
    return "%.1f PB" % b


def print_table(rows):
    print("| output | CPU files | leaf cells | oct copies | size (files) | make-ramses s "
          "| snapkit read s | files/s | MB/s | allocated / result | yt s | yt / snapkit |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        yt_s = ("%.1f" % r["yt_seconds"]) if r["yt_seconds"] is not None else "> %d (killed)" % r.get("yt_timeout", 0)
        ratio = ("%.0f x" % (r["yt_seconds"] / r["snapkit_seconds"])) if r["yt_seconds"] else "-"
        print("| %s | %d | %d | %.2f | %s (%d) | %.1f | %.3f | %.0f | %.0f | %s / %s = %.2f | %s | %s |"
              % (r["label"], r["ncpu"], r["leaves"], r["oct_copies"], fmt_bytes(r["output_bytes"]),
                 r["output_files"], r["make_seconds"], r["snapkit_seconds"], r["files_per_second"],
                 r["bytes_per_second"] / 1e6, fmt_bytes(r["bytes_allocated"]),
                 fmt_bytes(r["result_bytes"]), r["bytes_allocated"] / max(r["result_bytes"], 1),
                 yt_s, ratio))
    sweeps = [r for r in rows if "threads" in r]
    if sweeps:
        print("\n| output | CPU files | 1 thread s | 2 threads s | speed-up |")
        print("| --- | --- | --- | --- | --- |")
        for r in sweeps:
            t1, t2 = r["threads"][1], r["threads"][2]
            print("| %s | %d | %.3f | %.3f | %.2f |" % (r["label"], r["ncpu"], t1, t2, t1 / t2))
        print("\n| output | CPU files | convert hydro s | .snapkit size | read .snapkit s | rows |")
        print("| --- | --- | --- | --- | --- | --- |")
        for r in sweeps:
            c = r["compact"]
            print("| %s | %d | %.1f | %s | %.3f | %d |" % (r["label"], r["ncpu"], c["convert_seconds"],
                                                         fmt_bytes(c["bytes"]), c["read_seconds"],
                                                         c["rows"]))
        print("\n| output | CPU files | region 0.45-0.55 on each axis: files opened | rows | s |")
        print("| --- | --- | --- | --- | --- |")
        for r in sweeps:
            g = r["region"]
            print("| %s | %d | %d | %d | %.3f |" % (r["label"], r["ncpu"], g["files_opened"],
                                                   g["rows"], g["seconds"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", default="/tmp")
    ap.add_argument("--cells", type=float, default=2e6)
    ap.add_argument("--ncpus", default="8,64,512,5120")
    ap.add_argument("--levelmin", type=int, default=6)
    ap.add_argument("--levelmax", type=int, default=12)
    ap.add_argument("--big-ncpu", type=int, default=64)
    ap.add_argument("--big-cells", type=float, default=16e6)
    ap.add_argument("--yt-timeout", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the measurements here")
    ap.add_argument("--keep", action="store_true", help="keep the generated outputs")
    args = ap.parse_args()
    work = os.path.join(args.workdir, "snapkit-scaling-%d" % os.getpid())
    os.makedirs(work)
    plan = [(n, args.cells, "hydro", 0) for n in map(int, args.ncpus.split(",")) if n > 0]
    if args.big_cells > 0:
        plan.append((args.big_ncpu, args.big_cells, "hydro,gravity,particles", 2_000_000))
    biggest = max(plan, key=lambda p: p[0] * p[0] + p[1] / 100)  # most bookkeeping or cells
    print("snapkit %s; %d cores; outputs under %s; page cache warm for snapkit reads"
          % (subprocess.run([CLI, "--version"], capture_output=True, text=True).stdout.split()[1],
             os.cpu_count(), work), flush=True)
    rows = []
    try:
        for i, (ncpu, cells, comps, npart) in enumerate(plan):
            free = shutil.disk_usage(work).free
            print("[%d/%d] %d CPU files, %.3g cells (%s); %s free" % (i + 1, len(plan), ncpu, cells,
                                                                     comps, fmt_bytes(free)), flush=True)
            folder = os.path.join(work, "n%d-%s" % (ncpu, "big" if npart else "same"),
                                  "output_00001")
            report = make(folder, ncpu, cells, args, comps, npart)
            label = ("big, %s" % comps.replace(",", "+")) if npart else "same cells"
            row = measure(folder, label, ncpu, report, args,
                          sweep=(ncpu, cells, comps, npart) == biggest or bool(npart))
            row["yt_timeout"] = args.yt_timeout
            rows.append(row)
            print("    %s in %d files; snapkit %.3f s; yt %s" % (
                fmt_bytes(row["output_bytes"]), row["output_files"], row["snapkit_seconds"],
                "%.1f s" % row["yt_seconds"] if row["yt_seconds"] is not None else "killed after %d s" % args.yt_timeout),
                flush=True)
            if not args.keep:
                shutil.rmtree(os.path.dirname(folder))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
