"""The fcc copper of `snapkit bench atoms`, atom by atom, in Python.

The same formula as skb_cu_atom in programs/bench/atoms_gen.c: atom id (1 ..
4 n^3) sits on the fcc site ((i + bx) a, (j + by) a, (k + bz) a) of
id - 1 = ((k n + j) n + i) 4 + b, a = 3.615 A, each coordinate moved by
(u - 0.5) * 0.2 A with u the top 53 bits of splitmix64(4928459 + 3 id +
axis) over 2^53, then wrapped into [0, n a). Every operation is one IEEE
double operation, so these are the generator's coordinates to the bit:
tests and peers/atoms_vs_ase.py check files with it, without snapkit.
"""
import numpy as np

LATTICE = 3.615
DISPLACEMENT = 0.1
SEED = 4928459
BASIS = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])


def cells(atoms):
    """n with atoms = 4 n^3."""
    n = round((atoms / 4) ** (1 / 3))
    for k in (n - 1, n, n + 1):
        if k > 0 and 4 * k ** 3 == atoms:
            return k
    raise ValueError(f"{atoms} atoms is not 4 n^3")


def box(n):
    return n * LATTICE


def _splitmix64(x):
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def positions(atoms):
    """(atoms, 3) float64: the generator's coordinates, row i is id i + 1."""
    n = cells(atoms)
    ids = np.arange(1, atoms + 1, dtype=np.uint64)
    k = np.arange(atoms, dtype=np.int64)
    b, cell = k % 4, k // 4
    idx = np.stack([cell % n, (cell // n) % n, cell // (n * n)], axis=1).astype(np.float64)
    size = box(n)
    out = np.empty((atoms, 3))
    for axis in range(3):
        with np.errstate(over="ignore"):
            h = _splitmix64(np.uint64(SEED) + np.uint64(3) * ids + np.uint64(axis))
        u = (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
        d = (u - 0.5) * (2 * DISPLACEMENT)
        x = (idx[:, axis] + BASIS[b, axis]) * LATTICE + d
        low = x < 0
        x[low] += size
        x[low & (x >= size)] = np.nextafter(size, 0)
        high = x >= size
        x[high & ~low] -= size
        out[:, axis] = x
    return out
