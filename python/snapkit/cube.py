"""Cubes (covering grids) of a cell table: snapkit/cube.h over ctypes."""
import ctypes

import numpy as np

from ._lib import ERR, ErrorStruct, P, check, declare, lib


class _CubeOptions(ctypes.Structure):
    _fields_ = [("level", ctypes.c_int), ("has_box", ctypes.c_int),
                ("lo", ctypes.c_double * 3), ("hi", ctypes.c_double * 3),
                ("weight_mass", ctypes.c_int), ("units", ctypes.c_char * 512),
                ("mu", ctypes.c_double), ("memory_budget", ctypes.c_int64)]


declare("sk_cube_options_init", None, ctypes.POINTER(_CubeOptions))
declare("sk_cube_make", ctypes.c_int, P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(_CubeOptions), ctypes.POINTER(P), ERR)
declare("sk_cube_free", None, P)
declare("sk_cube_n", ctypes.c_int64, P, ctypes.c_int)
declare("sk_cube_data", ctypes.POINTER(ctypes.c_double), P, ctypes.c_int)
declare("sk_cube_unit", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_cube_edge", ctypes.c_double, P, ctypes.c_int, ctypes.c_int)


def cube(src, level, fields=("density",), left_edge=None, right_edge=None, weight="volume",
         units=None, memory_budget=0):
    """The cells of src (a snapkit.Table of cells, or a path that snapkit.open
    reads) on the uniform grid of `level` over [left_edge, right_edge) in box
    units (default the whole box), as in `snapkit cube` (docs/projection.md).

    Returns a dict: "fields" {name: numpy array of shape (nz, ny, nx)},
    "units" {name: unit}, "left_edge" and "right_edge" (code lengths)."""
    if isinstance(fields, str):
        fields = [f.strip() for f in fields.split(",") if f.strip()]
    if weight not in ("volume", "mass"):
        raise ValueError("weight must be 'volume' or 'mass', not %r" % (weight,))
    table = src
    if isinstance(src, str):
        from . import open as _open
        table = _open(src).read("hydro")
    opt = _CubeOptions()
    lib.sk_cube_options_init(ctypes.byref(opt))
    opt.level = int(level)
    if left_edge is not None or right_edge is not None:
        opt.has_box = 1
        opt.lo[:] = [float(v) for v in (left_edge if left_edge is not None else (0, 0, 0))]
        opt.hi[:] = [float(v) for v in (right_edge if right_edge is not None else (1, 1, 1))]
    opt.weight_mass = int(weight == "mass")
    if units:
        text = units if isinstance(units, str) else ",".join("%s=%s" % kv for kv in units.items())
        opt.units = text.encode()
    opt.memory_budget = int(memory_budget)
    names = (ctypes.c_char_p * len(fields))(*[f.encode() for f in fields])
    err = ErrorStruct()
    out = P()
    check(lib.sk_cube_make(table.handle, len(fields), names, ctypes.byref(opt), ctypes.byref(out),
                           ctypes.byref(err)), err)
    try:
        shape = tuple(lib.sk_cube_n(out, a) for a in (2, 1, 0))
        count = shape[0] * shape[1] * shape[2]
        result = {"fields": {}, "units": {},
                  "left_edge": [lib.sk_cube_edge(out, a, 0) for a in range(3)],
                  "right_edge": [lib.sk_cube_edge(out, a, 1) for a in range(3)]}
        for i, name in enumerate(fields):
            data = np.ctypeslib.as_array(lib.sk_cube_data(out, i), shape=(count,))
            result["fields"][name] = data.copy().reshape(shape)
            result["units"][name] = lib.sk_cube_unit(out, i).decode()
        return result
    finally:
        lib.sk_cube_free(out)
