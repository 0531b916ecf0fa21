"""Phase diagrams (2-D histograms) of a table: snapkit/phase.h over ctypes.

    import snapkit
    ph = snapkit.phase("output_00080", "density", "T", z="mass", units="cgs")
    ph["values"]          # (nx, ny): values[i, j] for x bin i, y bin j
    ph["x_edges"], ph["y_edges"]

The same numbers as `snapkit phase` and yt's create_profile(ad, [x, y], [z],
weight_field=...) given the same bins (docs/analysis.md).
"""
import ctypes

import numpy as np

from ._lib import ERR, ErrorStruct, P, check, declare, lib, mirrors
from .derive import _Frame, _Options, _frame


@mirrors("sk_bins")
class _Bins(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("log", ctypes.c_int), ("lo", ctypes.c_double),
                ("hi", ctypes.c_double), ("start", ctypes.c_double), ("step", ctypes.c_double)]


@mirrors("sk_phase_options")
class _PhaseOptions(ctypes.Structure):
    _fields_ = [("x", ctypes.c_char * 64), ("y", ctypes.c_char * 64), ("z", ctypes.c_char * 64),
                ("weight", ctypes.c_int), ("nbins", ctypes.c_int * 2), ("log", ctypes.c_int * 2),
                ("has_range", ctypes.c_int * 2), ("lo", ctypes.c_double * 2),
                ("hi", ctypes.c_double * 2), ("units", ctypes.c_char * 512),
                ("frame", _Frame), ("derive", _Options), ("keep_bytes", ctypes.c_int64)]


_WEIGHTS = {None: 0, "none": 0, "mass": 1, "volume": 2}

declare("sk_phase_options_init", None, ctypes.POINTER(_PhaseOptions))
declare("sk_phase_make", ctypes.c_int, P, ctypes.POINTER(_PhaseOptions), ctypes.POINTER(P), ERR)
declare("sk_phase_free", None, P)
declare("sk_phase_bins", ctypes.POINTER(_Bins), P, ctypes.c_int)
declare("sk_phase_values", ctypes.POINTER(ctypes.c_double), P)
declare("sk_phase_name", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_phase_unit", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_phase_rows", ctypes.c_int64, P)
declare("sk_phase_binned", ctypes.c_int64, P)
declare("sk_bins_edge", ctypes.c_double, ctypes.POINTER(_Bins), ctypes.c_int)


def _pair(value, name):
    if value is None:
        return (None, None)
    if np.ndim(value) == 0:
        return (value, value)
    if len(value) != 2:
        raise ValueError("snapkit.phase: %s takes one value or two (x, y)" % name)
    return tuple(value)


def _edges(bins):
    return np.array([lib.sk_bins_edge(bins, i) for i in range(bins.contents.n + 1)])


def phase(src, x, y, z="mass", weight=None, bins=(128, 128), log=None, xrange=None,
          yrange=None, units=None, center=None, axis=None, bulk_velocity=None, mu=0.0,
          gamma=0.0, component="hydro"):
    """The phase diagram of src (a snapkit.Table, or a path that snapkit.open
    reads: its `component`, hydro or particles): the rows binned by x and y
    (columns or derived quantities), each bin holding the sum of z (mass by
    default; "count" counts rows), or with weight ("mass", "volume") the
    weighted mean of z (NaN in empty bins).

    bins: n or (nx, ny). log: True/False for both axes or a pair (default:
    log for quantities > 0 by nature). xrange, yrange: (lo, hi) in the
    quantities' units (default: the extrema, widened as yt's). units: "cgs",
    a unit, "NAME=UNIT,..." or a dict {name: unit}. center, axis,
    bulk_velocity: the frame of quantities about a centre (code units).

    Returns a dict: values (nx, ny), x_edges, y_edges, x, y, z, weight,
    units {x, y, z names: unit}, x_log, y_log, rows, binned."""
    table = src
    if isinstance(src, str):
        from . import open as _open
        table = _open(src).read(component)
    if weight not in _WEIGHTS:
        raise ValueError("snapkit.phase: weight must be None, 'mass' or 'volume', not %r"
                         % (weight,))
    opt = _PhaseOptions()
    lib.sk_phase_options_init(ctypes.byref(opt))
    opt.x, opt.y, opt.z = x.encode(), y.encode(), (z or "mass").encode()
    opt.weight = _WEIGHTS[weight]
    opt.nbins[:] = [int(b) for b in _pair(bins, "bins")]
    opt.log[:] = [-1 if v is None else int(bool(v)) for v in _pair(log, "log")]
    for a, r in enumerate((xrange, yrange)):
        if r is not None:
            opt.has_range[a] = 1
            opt.lo[a], opt.hi[a] = float(r[0]), float(r[1])
    if units:
        opt.units = (units if isinstance(units, str)
                     else ",".join("%s=%s" % kv for kv in units.items())).encode()
    opt.frame = _frame(table, center, axis, bulk_velocity)
    opt.derive.mu, opt.derive.gamma = float(mu), float(gamma)
    err = ErrorStruct()
    out = P()
    check(lib.sk_phase_make(table.handle, ctypes.byref(opt), ctypes.byref(out),
                            ctypes.byref(err)), err)
    try:
        bx, by = lib.sk_phase_bins(out, 0), lib.sk_phase_bins(out, 1)
        nx, ny = bx.contents.n, by.contents.n
        values = np.ctypeslib.as_array(lib.sk_phase_values(out), shape=(nx * ny,))
        names = [lib.sk_phase_name(out, k).decode() for k in range(3)]
        return {"values": values.copy().reshape(nx, ny),
                "x_edges": _edges(bx), "y_edges": _edges(by),
                "x": names[0], "y": names[1], "z": names[2],
                "weight": weight if weight != "none" else None,
                "units": {n: lib.sk_phase_unit(out, k).decode() for k, n in enumerate(names)},
                "x_log": bool(bx.contents.log), "y_log": bool(by.contents.log),
                "rows": lib.sk_phase_rows(out), "binned": lib.sk_phase_binned(out)}
    finally:
        lib.sk_phase_free(out)
