#!/usr/bin/python3
"""Issue 13's targets, measured in one run on one RAMSES output.

    /usr/bin/python3 peers/targets.py OUTPUT_DIR [--snapkit FILE] [--repeat N]
                     [--res 1024] [--atoms N] [--json FILE]

Every time is a process's wall time from start to exit (the best of
--repeat runs, files warm in the page cache; snapkit's medians are
printed under the table), so snapkit's commands and
the peers' scripts pay their start-up alike: yt's import, ASE's import,
snapkit's libraries. The ratios against yt are the stricter ones: snapkit's
whole process against yt's time after `import yt` (yt's process time is
printed beside it); against ASE, process against process. Measured:

- `cat` of the amr and hydro files (what reading the input costs);
- `snapkit stats` and `snapkit project --vars sd --res R` from the output
  and from its .snapkit file (made with `snapkit convert` when --snapkit
  is not given), with their `bytes_allocated`; stats from a 1.1 file
  prints the statistics stored in it, and is timed again with
  --recompute, which reads the rows;
- yt reading the same hydro fields (yt.load + all_data, every field) and
  yt's load + projection of the density at the same resolution, each in a
  fresh process;
- re-reading the whole hydro table in one Python process from the output
  and from the .snapkit file (snapkit.open(...).hydro(), best of N);
- a 108,000-atom LAMMPS dump (the generator of `snapkit bench atoms`)
  converted to extended XYZ by `snapkit atoms convert --no-fsync` and by
  ASE (read + write in a fresh process; neither flushes to disk);
- the machine's first-touch rate (`snapkit bench read --no-cold`'s
  machine line), printed beside every figure.

Prints a Markdown table of target, figures, ratio and verdict. Needs
Debian's python3-yt and python3-ase; run after `make build`.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"
CLI = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))
LIB = os.environ.get("SNAPKIT_LIBRARY", os.path.join(ROOT, "build", "libsnapkit.so"))
ENV = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), SNAPKIT_LIBRARY=LIB)

YT_READ = """
import sys, time
import yt
yt.set_log_level(50)
t0 = time.perf_counter()
ds = yt.load(sys.argv[1])
ad = ds.all_data()
fields = [f for f in ds.field_list if f[0] == "ramses"]
for f in fields:
    n = len(ad[f])
print(time.perf_counter() - t0, n)
"""

YT_PROJECT = """
import sys, time
import yt
yt.set_log_level(50)
t0 = time.perf_counter()
ds = yt.load(sys.argv[1])
res = int(sys.argv[2])
frb = ds.proj(("gas", "density"), 2).to_frb((1.0, "unitary"), res, center=ds.domain_center)
m = frb["gas", "density"]
print(time.perf_counter() - t0, m.shape[0])
"""

REREAD = """
import sys, time, gc
import snapkit
src, repeat = sys.argv[1], int(sys.argv[2])
best = float("inf")
with snapkit.open(src) as s:
    s.hydro()
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        t = s.hydro()
        best = min(best, time.perf_counter() - t0)
        del t
print(best)
"""

ASE_CONVERT = """
import sys
import ase.io
a = ase.io.read(sys.argv[1], format="lammps-dump-text", index=0)
ase.io.write(sys.argv[2], a, format="extxyz")
"""


def wall(argv, repeat, env=None, capture=True, times=None):
    """Best process wall time of argv over repeat runs, and its last stdout
    (capture=False: stdout goes to /dev/null, as `cat > /dev/null`); every
    run's time is appended to times when given."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run(argv, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env=env or ENV)
        elapsed = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"targets.py: {' '.join(argv)} failed: {p.stderr.strip()}")
        if times is not None:
            times.append(elapsed)
        if elapsed < best:
            best, out = elapsed, p.stdout
    return best, out


def timed(f, key, argv, repeat, **kw):
    """wall(), keeping the best time as f[key] and the median as
    f[key + "_median"]; returns the stdout."""
    times = []
    f[key], out = wall(argv, repeat, times=times, **kw)
    f[key + "_median"] = statistics.median(times)
    return out


def first_touch(output):
    _, out = wall([CLI, "bench", "read", output, "--component", "hydro", "--runs", "1",
                   "--no-cold"], 1)
    m = re.search(r"machine: (first touch .*)", out)
    return m.group(1).strip() if m else "not printed"


def info_file(output):
    found = glob.glob(os.path.join(output, "info_*.txt"))
    if not found:
        sys.exit(f"targets.py: {output} has no info_NNNNN.txt")
    return found[0]


def measure(args, tmp):
    out, r = args.output, args.repeat
    compact = args.snapkit or os.path.join(tmp, "o.snapkit")
    if not args.snapkit:
        wall([CLI, "convert", out, "-o", compact, "--components", "hydro"], 1)
    files = sorted(glob.glob(os.path.join(out, "amr_*.out*")) +
                   glob.glob(os.path.join(out, "hydro_*.out*")))
    f = {"first_touch": first_touch(out)}
    timed(f, "cat", ["cat"] + files, r, env={"PATH": "/usr/bin:/bin"}, capture=False)
    for name, src in (("output", out), ("compact", compact)):
        js = timed(f, f"stats_{name}", [CLI, "stats", src, "--component", "hydro", "--json"], r)
        f[f"stats_{name}_bytes"] = json.loads(js)["bytes_allocated"]
        f[f"stats_{name}_stored"] = json.loads(js).get("stored", False)
        if name == "compact":  # the same statistics from the rows, not the footer
            timed(f, "stats_compact_rows", [CLI, "stats", src, "--component", "hydro",
                                            "--recompute"], r)
        npy = os.path.join(tmp, f"m_{name}.npy")
        js = timed(f, f"project_{name}", [CLI, "project", src, "--vars", "sd", "--res",
                                          str(args.res), "-o", npy, "--no-fsync", "--json"], r)
        f[f"project_{name}_bytes"] = json.loads(js)["bytes_allocated"]
        f[f"reread_{name}"] = float(wall([PY, "-c", REREAD, src, str(max(r, 3))], 1)[1])
    t, o = wall([PY, "-c", YT_READ, info_file(out)], r)
    f["yt_read"], f["yt_read_inside"] = t, float(o.split()[0])
    t, o = wall([PY, "-c", YT_PROJECT, info_file(out), str(args.res)], r)
    f["yt_project"], f["yt_project_inside"] = t, float(o.split()[0])
    n = 4 * round((args.atoms / 4) ** (1 / 3)) ** 3
    wall([CLI, "bench", "atoms", "--sizes", str(n), "--formats", "dump", "--peers", "none",
          "--runs", "1", "--inputs", tmp], 1)
    dump = os.path.join(tmp, f"cu_fcc_{n}.dump")
    f["atoms"] = n
    f["atoms_snapkit"] = wall([CLI, "atoms", "convert", dump, os.path.join(tmp, "a.extxyz"),
                               "--no-fsync"], r)[0]
    f["atoms_ase"] = wall([PY, "-c", ASE_CONVERT, dump, os.path.join(tmp, "b.extxyz")], r)[0]
    return f


def row(target, figures, ratio, goal):
    verdict = "met" if ratio >= goal else "missed"
    shown = "no bytes" if ratio == float("inf") else f"{ratio:.1f}x"
    return f"| {target} | {figures} | {shown} | {verdict} |"


def table(f, res):
    ms = lambda s: f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"  # noqa: E731
    mb = lambda b: f"{b / 1e6:.1f} MB"  # noqa: E731
    maps = res * res * 8
    lines = ["| target | figures | ratio | |", "| --- | --- | --- | --- |",
             row("stats from the output >= 25x yt reading the fields",
                 f"{ms(f['stats_output'])} vs yt {ms(f['yt_read_inside'])} after its import "
                 f"({ms(f['yt_read'])} as a process)", f["yt_read_inside"] / f["stats_output"],
                 25),
             row("project from the output >= 25x yt's load + projection",
                 f"{ms(f['project_output'])} vs yt {ms(f['yt_project_inside'])} after its "
                 f"import ({ms(f['yt_project'])} as a process)",
                 f["yt_project_inside"] / f["project_output"], 25),
             row("project from the .snapkit file >= 35x yt",
                 f"{ms(f['project_compact'])} vs yt {ms(f['yt_project_inside'])}",
                 f["yt_project_inside"] / f["project_compact"], 35),
             row("stats from the output within 2x of cat (ratio: 2 cat / stats)",
                 f"{ms(f['stats_output'])} vs cat {ms(f['cat'])}",
                 2 * f["cat"] / f["stats_output"], 1),
             row("project from the output within 2x of cat (ratio: 2 cat / project)",
                 f"{ms(f['project_output'])} vs cat {ms(f['cat'])}",
                 2 * f["cat"] / f["project_output"], 1),
             row("re-read the table from the .snapkit file >= 3x the output",
                 f"{ms(f['reread_compact'])} vs {ms(f['reread_output'])}",
                 f["reread_output"] / f["reread_compact"], 3),
             row("stats from the .snapkit file >= 5x the output",
                 f"{ms(f['stats_compact'])} vs {ms(f['stats_output'])}"
                 + (" (the file's stored statistics)" if f["stats_compact_stored"] else ""),
                 f["stats_output"] / f["stats_compact"], 5),
             row("stats from the .snapkit file reading its rows (--recompute) >= 5x",
                 f"{ms(f['stats_compact_rows'])} vs {ms(f['stats_output'])}",
                 f["stats_output"] / f["stats_compact_rows"], 5),
             row("project from the .snapkit file >= 5x the output",
                 f"{ms(f['project_compact'])} vs {ms(f['project_output'])}",
                 f["project_output"] / f["project_compact"], 5)]
    for cmd in ("stats", "project"):
        for src in ("output", "compact"):
            b = f[f"{cmd}_{src}_bytes"]
            limit = 64e6 + (maps if cmd == "project" else 0)
            lines.append(row(f"{cmd} from the {src}: bytes allocated <= 64 MB"
                             f"{' + the map' if cmd == 'project' else ''}",
                             f"{mb(b)} (limit {mb(limit)}; ratio: limit / bytes)",
                             limit / b if b else float("inf"), 1))
    lines.append(row(f"atom convert ({f['atoms']:,} atoms, dump to extxyz) >= 25x ASE",
                     f"{ms(f['atoms_snapkit'])} vs {ms(f['atoms_ase'])}",
                     f["atoms_ase"] / f["atoms_snapkit"], 25))
    lines.append("")
    lines.append(f"Medians of the runs (the ratios use the best): cat {ms(f['cat_median'])}; "
                 + "; ".join(f"{key.replace('_', ' ')} {ms(f[key + '_median'])}"
                             for key in ("stats_output", "stats_compact", "stats_compact_rows",
                                         "project_output", "project_compact")))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output")
    ap.add_argument("--snapkit", help="its .snapkit file (default: converted into a temporary)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--res", type=int, default=1024)
    ap.add_argument("--atoms", type=int, default=108000)
    ap.add_argument("--json", help="also write the figures as JSON here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        f = measure(args, tmp)
    load = os.getloadavg()
    print(f"{args.output}: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs; "
          f"{f['first_touch']}\n")
    print(table(f, args.res))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(f, fh, indent=1)


if __name__ == "__main__":
    main()
