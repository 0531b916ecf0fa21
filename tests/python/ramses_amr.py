"""RAMSES's rule for the octs each CPU file holds, and a checker of amr files
against it.

RAMSES keeps on CPU p every oct whose father cell it holds, is refined, and
is authorised for p (amr/virtual_boundaries.f90, authorize_fine): the cells
of p's own octs; ghost cells whose Hilbert key range meets p's domain; then,
over ghost cells, a dilation that adds those with at least 1, then 2, then 3
authorised face neighbours. An oct is listed under the CPU of its father
cell; cells carry cpu_map = the domain of their centre's key; son, father
and nbor point into the file's own oct numbering.

This module re-derives all of that from the global tree (the union of the
own lists) with yt's Hilbert curve, and compares with every file. The tests
run it on real RAMSES outputs first, so the rule is the real one."""
import glob
import os
import struct
from functools import lru_cache

import numpy as np


class _Records:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.b = f.read()
        self.p = 0

    def raw(self):
        (n,) = struct.unpack_from("<i", self.b, self.p)
        (m,) = struct.unpack_from("<i", self.b, self.p + 4 + n)
        if n != m:
            raise ValueError(f"record markers {n} != {m} at byte {self.p}")
        data = self.b[self.p + 4:self.p + 4 + n]
        self.p += n + 8
        return data

    def i4(self):
        return np.frombuffer(self.raw(), "<i4")

    def f8(self):
        return np.frombuffer(self.raw(), "<f8")


def read_amr(path):
    """Header and oct blocks (one per non-empty level and list) of an amr file."""
    r = _Records(path)
    h = {"ncpu": int(r.i4()[0]), "ndim": int(r.i4()[0]), "nx": r.i4(),
         "nlevelmax": int(r.i4()[0]), "ngridmax": int(r.i4()[0]),
         "nboundary": int(r.i4()[0]), "ngrid_current": int(r.i4()[0]),
         "boxlen": float(r.f8()[0])}
    for _ in range(11):
        r.raw()
    ncpu, nlev = h["ncpu"], h["nlevelmax"]
    for key in ("headl", "taill", "numbl"):
        h[key] = r.i4().reshape(nlev, ncpu)
    h["numbtot"] = r.i4().reshape(nlev, 10)
    h["free"] = r.i4()
    h["ordering"] = r.raw().decode().strip()
    h["bound_key"] = [int(k) for k in r.f8()]
    h["coarse"] = (int(r.i4()[0]), int(r.i4()[0]), int(r.i4()[0]))
    blocks = []
    for level in range(1, nlev + 1):
        for lst in range(1, ncpu + 1):
            if h["numbl"][level - 1, lst - 1] == 0:
                continue
            b = {"level": level, "list": lst, "ind": r.i4(), "next": r.i4(), "prev": r.i4()}
            b["xg"] = np.array([r.f8() for _ in range(3)]).T
            b["father"] = r.i4()
            b["nbor"] = np.array([r.i4() for _ in range(6)]).T
            for key in ("son", "cpu", "flag1"):
                b[key] = np.array([r.i4() for _ in range(8)]).T
            blocks.append(b)
    if r.p != len(r.b):
        raise ValueError(f"{path}: {len(r.b) - r.p} bytes after the last oct")
    return h, blocks


@lru_cache(maxsize=None)
def _key(x, y, z, bits):
    from yt.frontends.ramses.hilbert import hilbert3d
    if bits == 0:
        return 0
    return int(hilbert3d(np.array([[x, y, z]], dtype=np.int64), bits)[0])


def _cells(o):
    return [(2 * o[0] + (i & 1), 2 * o[1] + ((i >> 1) & 1), 2 * o[2] + (i >> 2)) for i in range(8)]


def _ind(c):
    return (c[0] & 1) + 2 * (c[1] & 1) + 4 * (c[2] & 1)


class Checker:
    def __init__(self, output_dir):
        files = sorted(glob.glob(os.path.join(output_dir, "amr_*.out*")))
        self.files = [read_amr(f) for f in files]
        h = self.files[0][0]
        self.ncpu, self.lmax = h["ncpu"], h["nlevelmax"]
        self.bits = self.lmax + 1
        self.bound = h["bound_key"]
        # The global tree: every oct once, from the own lists.
        self.octs = {level: set() for level in range(1, self.lmax + 2)}
        for cpu, (_, blocks) in enumerate(self.files, 1):
            for b in blocks:
                if b["list"] == cpu:
                    self.octs[b["level"]].update(self._coords(b))
        self.own_counts = {}
        for level in range(1, self.lmax + 1):
            counts = [0] * self.ncpu
            for o in self.octs[level]:
                counts[self.owner(level, o) - 1] += 1
            self.own_counts[level] = counts

    @staticmethod
    def _coords(b):
        level = b["level"]
        idx = np.floor(b["xg"] * 2 ** (level - 1) + 1e-9).astype(np.int64)
        return [tuple(int(v) for v in row) for row in idx]

    def domain(self, key):
        for d in range(1, self.ncpu + 1):
            if self.bound[d - 1] <= key < self.bound[d]:
                return d
        return self.ncpu

    def cell_cpu(self, level, c):
        s = self.bits - level - 1
        return self.domain(_key((2 * c[0] + 1) << s, (2 * c[1] + 1) << s, (2 * c[2] + 1) << s,
                                self.bits))

    def owner(self, level, o):
        return self.cell_cpu(level - 1, o) if level > 1 else self.cell_cpu(0, (0, 0, 0))

    def predicted(self, cpu):
        """level -> {oct: owner} that RAMSES keeps on `cpu`."""
        lo, hi = self.bound[cpu - 1], self.bound[cpu]
        held, out = {(0, 0, 0)}, {}
        for level in range(1, self.lmax + 1):
            out[level] = {o: self.owner(level, o) for o in held}
            if level == self.lmax:
                break
            cells, auth = set(), set()
            for o in held:
                own = out[level][o] == cpu
                for c in _cells(o):
                    cells.add(c)
                    k = _key(*c, level) if level else 0
                    shift = 3 * (self.bits - level)
                    if own or ((k + 1) << shift > lo and k << shift < hi):
                        auth.add(c)
            n = 2 ** level
            for threshold in (1, 2, 3):
                add = set()
                for c in cells - auth:
                    count = 0
                    for axis in range(3):
                        for step in (-1, 1):
                            q = list(c)
                            q[axis] = (q[axis] + step) % n
                            count += tuple(q) in auth
                    if count >= threshold:
                        add.add(c)
                auth |= add
            held = {c for c in auth if c in self.octs[level + 1]}
        return out

    def problems(self):
        """Every difference from RAMSES's rule, as text (empty when none)."""
        out = []
        for cpu, (h, blocks) in enumerate(self.files, 1):
            want = self.predicted(cpu)
            have = {level: {} for level in range(1, self.lmax + 1)}
            index = {}
            for b in blocks:
                for k, o in enumerate(self._coords(b)):
                    have[b["level"]][o] = b["list"]
                    index[(b["level"], o)] = int(b["ind"][k])
            for level in have:
                if have[level] != want[level]:
                    missing = len(set(want[level]) - set(have[level]))
                    extra = len(set(have[level]) - set(want[level]))
                    out.append(f"cpu {cpu} level {level}: {missing} octs missing, {extra} extra "
                               f"or in the wrong list")
            out += self._links(cpu, h, blocks, index)
        return out

    def _links(self, cpu, h, blocks, index):
        out, ngm, total = [], h["ngridmax"], 0
        cell = lambda level, c: (1 + _ind(c) * ngm + index[(level, (c[0] >> 1, c[1] >> 1, c[2] >> 1))]
                                 if (level, (c[0] >> 1, c[1] >> 1, c[2] >> 1)) in index else 0)
        for b in blocks:
            level, n = b["level"], len(b["ind"])
            total += n
            ind = [int(v) for v in b["ind"]]
            if list(b["next"]) != ind[1:] + [0] or list(b["prev"]) != [0] + ind[:-1]:
                out.append(f"cpu {cpu} level {level} list {b['list']}: next/prev")
            if (h["headl"][level - 1, b["list"] - 1], h["taill"][level - 1, b["list"] - 1]) != \
                    (ind[0], ind[-1]):
                out.append(f"cpu {cpu} level {level} list {b['list']}: headl/taill")
            for k, o in enumerate(self._coords(b)):
                father = 1 if level == 1 else cell(level - 1, o)
                nbor = [1] * 6 if level == 1 else []
                for d in range(6 if level > 1 else 0):
                    q = list(o)
                    q[d // 2] = (q[d // 2] + (1 if d % 2 else -1)) % 2 ** (level - 1)
                    nbor.append(cell(level - 1, tuple(q)))
                if int(b["father"][k]) != father or [int(v) for v in b["nbor"][k]] != nbor:
                    out.append(f"cpu {cpu} level {level}: father/nbor of oct {o}")
                for i, c in enumerate(_cells(o)):
                    son = index.get((level + 1, c), 0)
                    if int(b["son"][k, i]) != son or int(b["cpu"][k, i]) != self.cell_cpu(level, c):
                        out.append(f"cpu {cpu} level {level}: son/cpu_map of cell {c}")
        if total != h["ngrid_current"]:
            out.append(f"cpu {cpu}: ngrid_current {h['ngrid_current']} != {total} octs")
        for level in range(1, self.lmax + 1):
            counts = self.own_counts[level]
            nt = [int(v) for v in h["numbtot"][level - 1, :4]]
            if nt != [sum(counts), min(counts), max(counts), sum(counts) // self.ncpu]:
                out.append(f"cpu {cpu} level {level}: numbtot {nt}")
        return out[:20]
