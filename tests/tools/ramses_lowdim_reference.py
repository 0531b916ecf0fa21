#!/usr/bin/python3
"""Reference statistics of a 1-D, 2-D (or 3-D) RAMSES output, from the
Fortran records directly (numpy only; not the snapkit library).

    ramses_lowdim_reference.py OUTPUT_DIR [--lmax N] [--box x0 x1 y0 y1 z0 z1]...
        [--check-yt] > OUTPUT_DIR.reference.json

Record layout (RAMSES 87c803b): amr/output_amr.f90 backup_amr,
hydro/output_hydro.f90, poisson/output_poisson.f90. Per oct: ind_grid, next,
prev, xg(ndim), father, nbor(2 ndim), son(2^ndim), cpu_map(2^ndim),
flag1(2^ndim); cell ind (0-based) sits at offset bit d of ind on axis d.
With physical boundaries the coarse grid is padded, and the box is the block
of coarse cells whose cpu_map is set (one cell in stock RAMSES; nx x ny x nz
when the code sets nx > 1). RAMSES's scale is boxlen / nx (the box's coarse
cells along x), so box fraction = (xg - the block's first index) / nx, and a
box of 2^k coarse cells along x is reported with levels + k (a cell's edge is
boxlen / 2^level), as snapkit does.
volume_sum uses (boxlen / 2^level)^ndim: a length in 1-D, an area in 2-D.
"""
import argparse
import glob
import json
import math
import os
import re

import numpy as np


class Records:
    def __init__(self, path):
        self.b = open(path, "rb").read()
        self.pos = 0

    def raw(self):
        n = int(np.frombuffer(self.b, "<i4", 1, self.pos)[0])
        data = self.b[self.pos + 4:self.pos + 4 + n]
        end = int(np.frombuffer(self.b, "<i4", 1, self.pos + 4 + n)[0])
        assert end == n, "record markers differ"
        self.pos += 8 + n
        return data

    def i4(self):
        return np.frombuffer(self.raw(), "<i4")

    def f8(self):
        return np.frombuffer(self.raw(), "<f8")

    def skip(self, k=1):
        for _ in range(k):
            self.raw()


def info(folder):
    num = re.search(r"output_(\d+)", os.path.basename(folder)).group(1)
    text = open(os.path.join(folder, "info_%s.txt" % num)).read()
    kv = dict(re.findall(r"^\s*(\w+)\s*=\s*(\S+)", text, re.M))
    return num, int(kv["ncpu"]), int(kv["ndim"]), float(kv["boxlen"])


def descriptor(folder):
    names = []
    for line in open(os.path.join(folder, "hydro_file_descriptor.txt")):
        if not line.startswith("#"):
            names.append(line.split(",")[1].strip())
    return names


def read_cpu(folder, num, icpu, ndim):
    """Every own cell of CPU icpu: level, box-fraction centre (ndim), leaf
    flag, hydro values."""
    a = Records(os.path.join(folder, "amr_%s.out%05d" % (num, icpu)))
    ncpu = int(a.i4()[0])
    assert int(a.i4()[0]) == ndim
    nx = a.i4()
    nlevelmax = int(a.i4()[0])
    a.skip()
    nboundary = int(a.i4()[0])
    a.skip()
    boxlen = float(a.f8()[0])
    a.skip(13)
    numbl = a.i4().reshape(nlevelmax, ncpu)
    a.skip()
    numbb = np.zeros((nlevelmax, 0), int)
    if nboundary:
        a.skip(2)
        numbb = a.i4().reshape(nlevelmax, nboundary)
    a.skip()
    ordering = a.raw()
    a.skip(5 if ordering.startswith(b"bisection") else 1)
    a.skip(2)
    cpu_map = a.i4().reshape(nx[2], nx[1], nx[0])
    iz, iy, ix = np.nonzero(cpu_map)
    c0 = [ix.min(), iy.min(), iz.min()]
    block = [ix.max() - ix.min() + 1, iy.max() - iy.min() + 1, iz.max() - iz.min() + 1]
    assert len(ix) == block[0] * block[1] * block[2], "the box's coarse cells form one block"
    shift = int(round(math.log2(block[0])))
    assert 2 ** shift == block[0], "a power of two coarse cells along x"
    h = Records(os.path.join(folder, "hydro_%s.out%05d" % (num, icpu)))
    assert int(h.i4()[0]) == ncpu
    nvar = int(h.i4()[0])
    assert int(h.i4()[0]) == ndim
    h.skip(3)
    ncell = 2 ** ndim
    out = []
    for level in range(1, nlevelmax + 1):
        for ib in range(1, ncpu + nboundary + 1):
            n = numbl[level - 1, ib - 1] if ib <= ncpu else max(numbb[level - 1, ib - ncpu - 1], 0)
            assert int(h.i4()[0]) == level and int(h.i4()[0]) == n
            if n == 0:
                continue
            if ib != icpu:
                a.skip(3 + ndim + 1 + 2 * ndim + 3 * ncell)
                h.skip(ncell * nvar)
                continue
            a.skip(3)
            xg = [(a.f8() - c0[d]) / block[0] for d in range(ndim)]
            a.skip(1 + 2 * ndim)
            son = [a.i4() for _ in range(ncell)]
            a.skip(2 * ncell)
            for ind in range(ncell):
                vals = [h.f8() for _ in range(nvar)]
                edge = 2.0 ** -(level + shift)
                centre = [xg[d] + (((ind >> d) & 1) - 0.5) * edge for d in range(ndim)]
                out.append((level + shift, centre, son[ind] == 0, vals))
    return boxlen, out


def cells(folder):
    num, ncpu, ndim, boxlen = info(folder)
    names = descriptor(folder)
    rows = []
    for icpu in range(1, ncpu + 1):
        # The amr header's boxlen: info_'s is RAMSES's scale, boxlen / nx.
        boxlen, own = read_cpu(folder, num, icpu, ndim)
        rows += own
    level = np.concatenate([np.full(len(r[1][0]), r[0]) for r in rows])
    centre = np.array([np.concatenate([r[1][d] for r in rows]) for d in range(ndim)])
    leaf = np.concatenate([r[2] for r in rows])
    vals = {n: np.concatenate([r[3][i] for r in rows]) for i, n in enumerate(names)}
    return ndim, boxlen, level, centre, leaf, vals


def stats(ndim, boxlen, level, vals, mask):
    vol = (boxlen / 2.0 ** level[mask]) ** ndim
    lev, cnt = np.unique(level[mask], return_counts=True)
    cols = {}
    for name, v in vals.items():
        x = v[mask]
        cols[name] = {"min": float(x.min()), "max": float(x.max()), "sum": math.fsum(x),
                      "abs_sum": math.fsum(np.abs(x)), "volume_sum": math.fsum(x * vol),
                      "abs_volume_sum": math.fsum(np.abs(x) * vol)}
    return {"rows": int(mask.sum()), "levels": {str(int(a)): int(b) for a, b in zip(lev, cnt)},
            "columns": cols}


def select(ndim, level, centre, leaf, lmax=None, box=None):
    m = (leaf | (level == lmax)) if lmax else leaf.copy()
    if lmax:
        m &= level <= lmax
    for d in range(ndim if box else 0):
        m &= (centre[d] >= box[2 * d]) & (centre[d] < box[2 * d + 1])
    return m


def check_yt(folder, ref, ndim):
    """yt 4.1.4's view of the same output (hydro, full read)."""
    import yt
    yt.set_log_level(50)
    ds = yt.load(folder)
    ad = ds.all_data()
    lev = np.asarray(ad["index", "grid_level"]) + 1
    if len(lev) != ref["full"]["hydro"]["rows"]:
        raise ValueError("yt finds %d cells of the %d leaves" % (len(lev), ref["full"]["hydro"]["rows"]))
    for name, r in ref["full"]["hydro"]["columns"].items():
        v = np.asarray(ad["ramses", name])
        assert v.min() == r["min"] and v.max() == r["max"], ("yt", name)
        assert abs(math.fsum(v) - r["sum"]) <= 1e-12 * r["abs_sum"], ("yt", name)
    return "yt %s (hydro, full read: rows, min, max, sum)" % yt.__version__


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--lmax", type=int, action="append", default=[])
    ap.add_argument("--box", type=float, nargs=6, action="append", default=[])
    ap.add_argument("--both", type=float, nargs=7, action="append", default=[],
                    metavar=("LMAX", "X0", "X1", "Y0", "Y1", "Z0", "Z1"))
    ap.add_argument("--check-yt", action="store_true")
    args = ap.parse_args()
    folder = os.path.abspath(args.folder)
    ndim, boxlen, level, centre, leaf, vals = cells(folder)
    ref = {"source": os.path.basename(folder), "reader": "tests/tools/ramses_lowdim_reference.py",
           "semantics": "code units as stored; positions in box fraction for selections; a cell "
                        "is in a box when its centre is in [lo,hi) on every axis present (the "
                        "box's ranges on axes beyond ndim are [0, 1)); lmax: cells refined beyond "
                        "lmax are leaves at lmax (RAMSES level numbering); volume_sum = "
                        "sum(value * (boxlen/2^level)^ndim), ndim = %d" % ndim,
           "full": {"hydro": stats(ndim, boxlen, level, vals, leaf)}, "selections": []}
    sels = [(l, None) for l in args.lmax] + [(None, b) for b in args.box] + \
           [(int(b[0]), b[1:]) for b in args.both]
    for lmax, box in sels:
        m = select(ndim, level, centre, leaf, lmax, box)
        ref["selections"].append({"lmax": lmax, "box": box,
                                  "components": {"hydro": stats(ndim, boxlen, level, vals, m)}})
    if args.check_yt:
        try:
            ref["cross_check"] = check_yt(folder, ref, ndim)
        except ValueError as e:  # yt 4.1.4 reads the oct records as 3-D
            ref["cross_check"] = "none: yt cannot read this output (%s)" % e
    print(json.dumps(ref, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
