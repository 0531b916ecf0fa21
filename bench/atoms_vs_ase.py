#!/usr/bin/python3
"""snapkit against ASE on LAMMPS dump, LAMMPS data and extended XYZ files.

The shape of mdapy's published I/O benchmark, with ASE as the peer: fcc
copper displaced by up to 0.1 A (/work/shared/fixtures/atoms/make.sh) at
4,000 / 32,000 / 256,000 / 2,048,000 atoms; read and write of each format.
Every measurement runs in its own process: import, a warm-up on the
500-atom file, one run whose result is checked against the fixture facts
(atom count, first and last atom as LAMMPS wrote them), then the shortest
of three timed runs (its CPU seconds, all threads, are reported too: on a
shared machine they show the work when wall times are noisy). Memory is the peak resident size during the timed runs
beyond the process's size just before them (/proc/self/clear_refs); for
snapkit's reads it includes the mapped file.

    /usr/bin/python3 bench/atoms_vs_ase.py [--sizes 4000,32000,256000,2048000]
                     [--threads 2] [--generate] [--out bench/out]

Inputs: the 500/4000/32000 files come from $SNAPKIT_SHARED/fixtures/atoms
(or tests/data/atoms); 256000 and 2048000 from --out, made there by
make.sh with --generate (~75 s). Writes a Markdown table and JSON to --out.
ASE 3.22 cannot write LAMMPS dumps; that row shows only snapkit.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.environ.get("SNAPKIT_SHARED") or next(
    (d for d in (os.path.join(ROOT, "..", "shared"), os.path.join(ROOT, "..", "..", "shared"))
     if os.path.isdir(d)), os.path.join(ROOT, "..", "shared"))
FIXTURES = os.path.join(SHARED, "fixtures", "atoms")
PY = "/usr/bin/python3"

# The first and last atom of each configuration as LAMMPS wrote them
# (fixtures/atoms/README.md): id, x, y, z.
FACTS = {
    500: ((1, 18.074620154546398, 0.015937461292342036, 0.060911940392531429),
          (500, 14.426880288099349, 16.224502085753254, 16.201555254903649)),
    4000: ((1, 36.149620154546405, 0.015937461292342036, 0.060911940392531429),
           (4000, 32.50127441712948, 34.316628695053112, 34.323477757592208)),
    32000: ((1, 72.299620154546403, 0.015937461292342036, 0.060911940392531429),
            (32000, 68.655322720552945, 70.506464333345178, 70.591050532198778)),
    256000: ((1, 144.59962015454641, 0.015937461292342036, 0.060911940392531429),
             (256000, 140.97914325118725, 142.75812270385478, 142.81328368678729)),
    2048000: ((1, 289.19962015454644, 0.015937461292342036, 0.060911940392531429),
              (2048000, 285.67089840279237, 287.48695573109882, 287.30997257673067)),
}
EXT = {"dump": ".dump", "data": ".data", "extxyz": "_full.extxyz"}


def input_path(n, fmt, out):
    name = f"cu_fcc_{n}{EXT[fmt]}"
    for d in (FIXTURES, os.path.join(ROOT, "tests", "data", "atoms"), out):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    return None


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
    """The count and the first and last atom (by id where there are ids)."""
    np = prog.np
    pos = prog.positions(system)
    assert len(pos) == n, f"{len(pos)} atoms, expected {n}"
    ids = prog.ids(system)
    first, last = FACTS[n]
    for fact in (first, last):
        row = int(np.nonzero(ids == fact[0])[0][0]) if ids is not None else fact[0] - 1
        got = pos[row]
        assert np.all(np.abs(got - np.array(fact[1:])) <= tol), f"atom {fact[0]}: {got} vs {fact}"


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
    ap.add_argument("--generate", action="store_true", help="make missing inputs with make.sh")
    ap.add_argument("--child", nargs=4, metavar=("PROGRAM", "OP", "FORMAT", "N"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.child:
        args.program, args.op, args.format, n = args.child
        args.n = int(n)
        return child(args)

    sizes = [int(s) for s in args.sizes.split(",")]
    missing = [n for n in sizes if any(input_path(n, f, args.out) is None for f in EXT)]
    if missing and args.generate:
        subprocess.run([os.path.join(FIXTURES, "make.sh"), args.out] + [str(n) for n in missing],
                       check=True)
    elif missing:
        sys.exit(f"missing inputs for {missing}: run with --generate (make.sh, ~75 s)")
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
