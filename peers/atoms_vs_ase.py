#!/usr/bin/python3
"""snapkit against ASE on LAMMPS dump, LAMMPS data and extended XYZ files.

The shape of mdapy's published I/O benchmark, with ASE as the peer: fcc
copper displaced by up to 0.1 A at 4,000 / 32,000 / 256,000 / 2,048,000
atoms; read and write of each format, both called from Python
(`snapkit bench atoms` measures the same from C, with LAMMPS too).
Every measurement runs in its own process: import, a warm-up on the
500-atom file, one run whose result is checked atom by atom against the
generator (peers/cu_fcc.py: count, ids, every coordinate), then the
shortest of three timed runs (its CPU seconds, all threads, are reported
too: on a shared machine they show the work when wall times are noisy).
Memory is the peak resident size during the timed runs beyond the
process's size just before them (/proc/self/clear_refs); for snapkit's
reads it includes the mapped file.

    /usr/bin/python3 peers/atoms_vs_ase.py [--sizes 4000,32000,256000,2048000]
                     [--threads 2] [--out bench/out]

Inputs: cu_fcc_N.dump, .data and .extxyz in --out, generated there when
missing by the repository's own generator (`snapkit bench atoms --inputs
OUT`, programs/bench/atoms_gen.c; a few seconds for every size). Writes a
Markdown table and JSON to --out. ASE 3.22 cannot write LAMMPS dumps;
that row shows only snapkit.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
sys.path.insert(0, HERE)
import cu_fcc  # noqa: E402  (the generator's coordinates, for the checks)
SNAPKIT = os.environ.get("SNAPKIT_CLI", os.path.join(ROOT, "build", "snapkit"))

EXT = {"dump": ".dump", "data": ".data", "extxyz": ".extxyz"}


def input_path(n, fmt, out):
    p = os.path.join(out, f"cu_fcc_{n}{EXT[fmt]}")
    return p if os.path.exists(p) else None


def generate(sizes, out):
    """The inputs, by snapkit's own generator (checked atom by atom there)."""
    subprocess.run([SNAPKIT, "bench", "atoms", "--sizes", ",".join(map(str, sizes)),
                    "--inputs", out, "--peers", "none", "--runs", "1"],
                   check=True, stdout=subprocess.DEVNULL)


# ---- the child: one program, one operation, one file --------------------

def rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Snapkit:
    def __init__(self, threads):
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import numpy as np
        import snapkit.atoms as sa
        self.sa, self.np, self.threads = sa, np, threads

    def read(self, path, fmt):
        return self.sa.read(path, format=fmt, threads=self.threads)

    def write(self, path, system, fmt):
        self.sa.write(path, system, format=fmt, threads=self.threads)

    def positions(self, system):
        return system.positions

    def ids(self, system):
        return system["id"] if "id" in system.columns else None


class Ase:
    def __init__(self, threads):
        import ase.io
        import numpy as np
        self.io, self.np = ase.io, np

    def read(self, path, fmt):
        if fmt == "data":
            return self.io.read(path, format="lammps-data", style="atomic", units="metal",
                                Z_of_type={1: 29})
        if fmt == "dump":
            return self.io.read(path, format="lammps-dump-text", index=0)
        return self.io.read(path, format="extxyz")

    def write(self, path, atoms, fmt):
        if fmt == "data":
            self.io.write(path, atoms, format="lammps-data", atom_style="atomic")
        elif fmt == "extxyz":
            self.io.write(path, atoms, format="extxyz")
        else:
            raise NotImplementedError("ASE 3.22 cannot write LAMMPS dumps")

    def positions(self, atoms):
        return atoms.get_positions()

    def ids(self, atoms):
        return atoms.arrays.get("id")


def check(prog, system, n, tol):
    """Every atom: the count, ids 1..n in order where there are ids, and
    each coordinate within tol of the generator's."""
    np = prog.np
    pos = prog.positions(system)
    assert len(pos) == n, f"{len(pos)} atoms, expected {n}"
    ids = prog.ids(system)
    if ids is not None:
        assert np.array_equal(ids, np.arange(1, n + 1)), "ids are not 1..n in order"
    err = np.abs(pos - cu_fcc.positions(n))
    assert err.max() <= tol, f"atom {int(err.max(axis=1).argmax()) + 1} is {err.max()} A off"


def child(args):
    prog = (Snapkit if args.program == "snapkit" else Ase)(args.threads)
    src = input_path(args.n, args.format, args.out)
    warm = input_path(500, args.format, args.out)
    scratch = os.path.join(args.out, f"bench_{args.program}_{os.getpid()}")
    out_path = scratch + {"dump": ".dump", "data": ".data", "extxyz": ".extxyz"}[args.format]
    exact_tol = 0.0
    if args.op == "read":
        check(prog, prog.read(warm, args.format), 500, exact_tol)  # warm-up
        prepared = None
    else:  # the frame to write, read outside the timing (from the exact data file)
        prepared = prog.read(input_path(args.n, "data", args.out), "data")
        prog.write(out_path, prog.read(input_path(500, "data", args.out), "data"), args.format)
    def once():
        if args.op == "read":
            return prog.read(src, args.format)
        prog.write(out_path, prepared, args.format)
        return None

    result = once()
    if args.op == "read":
        check(prog, result, args.n, exact_tol)
    else:  # read back what was written with snapkit, against the facts
        sk = Snapkit(args.threads)
        back = sk.read(out_path, args.format)
        # ASE writes extxyz positions with 8 decimals
        check(sk, back, args.n, 5e-9 if args.program == "ase" and args.format == "extxyz" else 0)
        del back
    del result
    # the peak of the timed runs, above the process as it is now
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    base = rss_kb("VmRSS")
    best, cpu = float("inf"), 0.0
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        r = once()
        t1, c1 = time.perf_counter(), time.process_time()
        if t1 - t0 < best:
            best, cpu = t1 - t0, c1 - c0
        del r
    peak = rss_kb("VmHWM")
    for p in (out_path,):
        if os.path.exists(p):
            os.remove(p)
    print(json.dumps({"seconds": best, "cpu": cpu, "mb": max(0, peak - base) / 1024.0}))


# ---- the parent: every cell in its own process ----------------------------

def run_cell(program, op, fmt, n, args):
    cmd = [PY, os.path.abspath(__file__), "--child", program, op, fmt, str(n),
           "--threads", str(args.threads), "--out", args.out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()
        return {"error": err[-1] if err else f"exit {r.returncode}"}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4000,32000,256000,2048000")
    ap.add_argument("--formats", default="dump,data,extxyz")
    ap.add_argument("--ops", default="read,write")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--generate", action="store_true", help="(kept for old commands: missing "
                    "inputs are always generated)")
    ap.add_argument("--child", nargs=4, metavar=("PROGRAM", "OP", "FORMAT", "N"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.child:
        args.program, args.op, args.format, n = args.child
        args.n = int(n)
        return child(args)

    sizes = [int(s) for s in args.sizes.split(",")]
    missing = [n for n in [500] + sizes if any(input_path(n, f, args.out) is None for f in EXT)]
    if missing:
        generate(missing, args.out)
    rows = []
    print(f"{'format':7} {'op':5} {'atoms':>9} {'snapkit s':>10} {'ASE s':>9} {'ratio':>7} "
          f"{'snapkit MB':>10} {'ASE MB':>8} {'sk CPU':>8} {'ASE CPU':>8}", flush=True)
    for fmt in args.formats.split(","):
        for op in args.ops.split(","):
            for n in sizes:
                sk = run_cell("snapkit", op, fmt, n, args)
                ase = ({"error": "ASE cannot write dumps"} if (fmt, op) == ("dump", "write")
                       else run_cell("ase", op, fmt, n, args))
                row = {"format": fmt, "op": op, "atoms": n, "snapkit": sk, "ase": ase}
                rows.append(row)
                print(format_row(row, text=True), flush=True)
    meta = {"threads": args.threads, "machine": os.uname().nodename, "cpus": os.cpu_count(),
            "loadavg": os.getloadavg(), "date": time.strftime("%Y-%m-%d %H:%M")}
    with open(os.path.join(args.out, "atoms_vs_ase.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "atoms_vs_ase.md"), "w") as f:
        f.write(markdown(rows, meta))
    print(f"\nwrote {args.out}/atoms_vs_ase.md and .json")


def fmt_s(cell):
    return f"{cell['seconds']:.4f}" if "seconds" in cell else "—"


def fmt_mb(cell):
    return f"{cell['mb']:.0f}" if "mb" in cell else "—"


def ratio(row):
    s, a = row["snapkit"], row["ase"]
    if "seconds" in s and "seconds" in a and s["seconds"] > 0:
        return f"{a['seconds'] / s['seconds']:.0f}x"
    return "—"


def fmt_cpu(cell):
    return f"{cell['cpu']:.3f}" if "cpu" in cell else "—"


def format_row(row, text=False):
    s, a = row["snapkit"], row["ase"]
    if text:
        note = "" if "error" not in s else f"   snapkit: {s['error']}"
        return (f"{row['format']:7} {row['op']:5} {row['atoms']:>9} {fmt_s(s):>10} {fmt_s(a):>9} "
                f"{ratio(row):>7} {fmt_mb(s):>10} {fmt_mb(a):>8} {fmt_cpu(s):>8} "
                f"{fmt_cpu(a):>8}{note}")
    return (f"| {row['format']} | {row['op']} | {row['atoms']:,} | {fmt_s(s)} | {fmt_s(a)} | "
            f"{ratio(row)} | {fmt_mb(s)} | {fmt_mb(a)} | {fmt_cpu(s)} | {fmt_cpu(a)} |")


def markdown(rows, meta):
    head = ("| format | operation | atoms | snapkit s | ASE s | ASE/snapkit | snapkit MB | "
            "ASE MB | snapkit CPU s | ASE CPU s |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    return (f"Threads: {meta['threads']}, CPUs: {meta['cpus']}, load average at the end: "
            f"{', '.join(f'{x:.1f}' for x in meta['loadavg'])}, {meta['date']}.\n\n" + head +
            "\n".join(format_row(r) for r in rows) + "\n")


if __name__ == "__main__":
    main()
