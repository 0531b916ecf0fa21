"""Clump finders on AMR cells and particles (the library's sk_clumps_find)."""
import ctypes
import os

import numpy as np

from ._lib import ERR, P, ErrorStruct, check, declare, lib, mirrors
from .table import Table


@mirrors("sk_clumps_options")
class _ClumpsOptions(ctypes.Structure):
    _fields_ = [("field", ctypes.c_char_p), ("threshold", ctypes.c_double),
                ("unit", ctypes.c_char_p), ("finder", ctypes.c_int),
                ("relevance", ctypes.c_double), ("min_cells", ctypes.c_int64),
                ("threads", ctypes.c_int), ("linking_length", ctypes.c_double),
                ("length_unit", ctypes.c_char_p), ("bound", ctypes.c_int),
                ("theta", ctypes.c_double), ("softening", ctypes.c_double),
                ("min_delta", ctypes.c_double), ("mu", ctypes.c_double),
                ("bound_only", ctypes.c_int)]


declare("sk_clumps_options_init", None, ctypes.POINTER(_ClumpsOptions))
declare("sk_clumps_finder_from_name", ctypes.c_int, ctypes.c_char_p)
declare("sk_clumps_bound_from_name", ctypes.c_int, ctypes.c_char_p)
declare("sk_clumps_find", ctypes.c_int, P, ctypes.POINTER(_ClumpsOptions),
        ctypes.POINTER(P), ctypes.POINTER(ctypes.c_int32), ERR)


def _points(source, component, selection):
    if isinstance(source, Table):
        if selection:
            raise TypeError("snapkit.clumps: selection keywords (%s) need a source, not a "
                            "table" % ", ".join(sorted(selection)))
        return source
    if isinstance(source, (str, bytes, os.PathLike)):
        from .store import open as open_source
        source = open_source(os.fsdecode(source))
    return source.read(component, **selection)


def clumps(source, threshold=None, unit="code", field="density", finder=None,
           relevance=2.0, min_cells=1, threads=0, linking_length=0.2, length_unit="mean-sep",
           component="hydro", min_members=None, bound="approx", theta=0.5, softening=0.0,
           min_delta=0.0, mu=0.0, bound_only=False, **selection):
    """Find clumps and return (catalogue, ids): the catalogue Table (one
    row per clump, ids 1..n by mass, largest first; columns and their units
    in docs/clumps.md and catalogue.meta["units.<column>"]) and an int32
    array with each row's clump id (0: none), aligned with the rows of the
    cells or particles.

    source: a cell Table (a hydro read) or a particle Table (a particles
    read), a RAMSES output folder or .snapkit file path, or an open Output
    / File; for the last two, `component` ("hydro" or "particles") is read
    with the selection keywords of Output.read (lmax, xrange, family, ...).

    Cells: those with `field` at or above `threshold` (required), in `unit`
    ("code", "g/cm3" or "H/cm3" for the density); finder "faces" (connected
    through faces), "watershed" (RAMSES's PHEW with `relevance`; rows:
    the clumps, leaf 1, and the branches joining them at saddles, with the
    dendrogram's columns) or "fof"
    (cell centres) or "dendrogram" (astrodendro's contour tree: every leaf
    and branch a row, with columns parent (-1 for a root), depth, leaf,
    saddle, minimum; a leaf must rise `min_delta` above where it merges and
    hold `min_cells` cells; ids give each cell's leaf); default "faces". Particles: every row, finder "fof"
    only (the default).

    fof: friends at a periodic distance of at most b = linking_length in
    length_unit: "mean-sep" (boxlen / N^(1/3) over the points linked),
    "code" or a length ("kpc", ...). min_members is min_cells by its
    particle name.

    bound: how e_grav is computed: "approx" (-3/5 G M^2 / R), "direct"
    (the exact softened pairwise sum, O(N^2)) or "tree" (Barnes-Hut with
    opening angle `theta`). softening: particles' eps in code lengths (0:
    boxlen / 2^levelmax); cells use each clump's smallest cell edge.

    mu: the mean molecular weight of the temperature column (mass-weighted
    mean T in K, cells with a pressure); 0 means 1 / 0.76. bound_only: keep
    only the bound clumps (in a hierarchy, a kept row's parent is its
    nearest bound ancestor)."""
    points = _points(source, component, selection)
    kind, names = points.meta.get("kind"), points.columns
    particles = kind == "particles" if kind else "position_x" in names and "level" not in names
    if threshold is None and not particles:
        raise TypeError("snapkit.clumps: cells need a threshold")
    if finder is None:
        finder = "fof" if particles else "faces"
    o = _ClumpsOptions()
    lib.sk_clumps_options_init(ctypes.byref(o))
    code = lib.sk_clumps_finder_from_name(str(finder).encode())
    if code < 0:
        raise ValueError(f"snapkit.clumps: unknown finder {finder!r} (faces, watershed, fof or dendrogram)")
    fb, ub, lb = str(field).encode(), str(unit).encode(), str(length_unit).encode()
    o.field, o.unit, o.finder, o.length_unit = fb, ub, code, lb
    o.threshold = float(threshold) if threshold is not None else 0.0
    o.relevance, o.linking_length = float(relevance), float(linking_length)
    o.min_cells = int(min_members if min_members is not None else min_cells)
    o.threads = int(threads)
    o.bound = lib.sk_clumps_bound_from_name(str(bound).encode())
    if o.bound < 0:
        raise ValueError(f"snapkit.clumps: unknown bound {bound!r} (approx, direct or tree)")
    o.theta, o.softening, o.min_delta = float(theta), float(softening), float(min_delta)
    o.mu, o.bound_only = float(mu), int(bool(bound_only))
    ids = np.zeros(len(points), dtype=np.int32)
    out, err = P(), ErrorStruct()
    check(lib.sk_clumps_find(points.handle, ctypes.byref(o), ctypes.byref(out),
                             ids.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
                             ctypes.byref(err)), err)
    return Table(out.value), ids
