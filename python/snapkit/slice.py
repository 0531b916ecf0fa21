"""Slices: the cells a plane crosses, sampled at pixel centres (snapkit/slice.h).

    import snapkit
    s = snapkit.slice("output_00002", "density,T", axis="z", at=0.5, res=512)
    s["density"]            # numpy array of shape (ny, nx)
    s.extent                # (umin, umax, vmin, vmax) in code lengths

Each pixel holds the value of the leaf cell containing the pixel's centre on
the plane (exact: no interpolation). The result is a snapkit.Maps, as a
projection's: save() writes FITS (with a WCS), .npy or PNG.
"""
import ctypes

from ._lib import ERR, ErrorStruct, P, check, declare, lib
from .project import Maps, _units_text
from .ramses import _ReadOptions, _Selection, _Units
from .table import Table


class _SliceOptions(ctypes.Structure):
    _fields_ = [("axis", ctypes.c_int), ("at", ctypes.c_double),
                ("center", ctypes.c_double * 3), ("nx", ctypes.c_int), ("ny", ctypes.c_int),
                ("width", ctypes.c_double), ("units", ctypes.c_char * 512),
                ("length_unit", ctypes.c_char * 16), ("mu", ctypes.c_double),
                ("gamma", ctypes.c_double), ("memory_budget", ctypes.c_int64),
                ("has_normal", ctypes.c_int), ("normal", ctypes.c_double * 3),
                ("has_north", ctypes.c_int), ("north", ctypes.c_double * 3)]


declare("sk_slice_options_init", None, ctypes.POINTER(_SliceOptions))
declare("sk_slice", ctypes.c_int, P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(_SliceOptions), ctypes.POINTER(P), ERR)
declare("sk_slice_source", ctypes.c_int, P, ctypes.POINTER(_Selection), ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(_SliceOptions),
        ctypes.POINTER(_ReadOptions), ctypes.POINTER(P), P, ERR)
declare("sk_units_from_table", None, ctypes.POINTER(_Units), P)
declare("sk_box_units_per", ctypes.c_int, ctypes.POINTER(_Units), ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_double), ERR)

_AXES = {"x": 0, "y": 1, "z": 2, 0: 0, 1: 1, 2: 2}


def _box_per(units, unit):
    f, err = ctypes.c_double(), ErrorStruct()
    check(lib.sk_box_units_per(ctypes.byref(units), (unit or "standard").encode(),
                               ctypes.byref(f), ctypes.byref(err)), err)
    return f.value


def _options(axis, at, res, width, center, unit, units, mu, gamma, box_per, normal=None,
             north=None):
    opt = _SliceOptions()
    lib.sk_slice_options_init(ctypes.byref(opt))
    if normal is not None:
        if at is not None:
            raise ValueError("snapkit: an off-axis slice passes through center: leave at= out")
        opt.has_normal, opt.normal[:] = 1, [float(v) for v in normal]
    if north is not None:
        opt.has_north, opt.north[:] = 1, [float(v) for v in north]
    if axis not in _AXES:
        raise ValueError("snapkit: axis must be 'x', 'y' or 'z', not %r" % (axis,))
    opt.axis = _AXES[axis]
    f = box_per(unit)
    if center is not None and not (isinstance(center, str) and center == "bc"):
        opt.center[:] = [float(c) * f for c in center]
    opt.at = opt.center[opt.axis] if at is None else float(at) * f
    nx, ny = (res, res) if isinstance(res, int) else tuple(res)
    opt.nx, opt.ny = int(nx), int(ny)
    if width is not None:
        opt.width = float(width) * f
    if units:
        opt.units = _units_text(units).encode()
    if unit and unit != "standard":
        opt.length_unit = unit.encode()
    opt.mu = float(mu) if mu is not None else 0.0
    opt.gamma = float(gamma) if gamma is not None else 0.0
    return opt


def slice(src, quantities="density", axis="z", at=None, res=512, width=None,  # noqa: A001
          center=None, unit=None, units=None, lmax=None, mu=None, gamma=None, threads=0,
          normal=None, north=None):
    """The slice of src (a path to a RAMSES output or .snapkit file, an open
    Output or File, or a snapkit.Table of leaf cells) on the plane `axis` =
    `at`; returns snapkit.Maps (maps[name]: numpy arrays of shape (ny, nx),
    maps.extent: (umin, umax, vmin, vmax) in code lengths), as `snapkit
    slice` (docs/slices.md). normal=(nx, ny, nz): the off-axis plane through
    center (north=(x, y, z): the image's up; maps.info["right"] and ["up"]
    give the frame, extent is then about the centre).

    quantities: "density,T" or a list (columns or derived quantities).
    at, width and center=(x, y, z) are in `unit` ("standard" box units by
    default, "code", "kpc", ...); at defaults to the centre's coordinate,
    the centre to the box's, the width to the box. res: n or (nx, ny)
    pixels (square pixels: the height is width * ny / nx). units: of the
    maps ("g/cm3,K" or {"T": "K"}). lmax cuts cells at that level (a source
    only). From a source only the files and chunks the plane crosses are
    read."""
    if isinstance(quantities, str):
        quantities = [q.strip() for q in quantities.split(",") if q.strip()]
    names = (ctypes.c_char_p * len(quantities))(*[q.encode() for q in quantities])
    out, err = P(), ErrorStruct()
    if isinstance(src, Table):
        if lmax is not None:
            raise ValueError("snapkit: lmax applies when reading; the table is read already")
        u = _Units()
        lib.sk_units_from_table(ctypes.byref(u), src.handle)
        opt = _options(axis, at, res, width, center, unit, units, mu, gamma,
                       lambda un: _box_per(u, un), normal, north)
        check(lib.sk_slice(src.handle, len(quantities), names, ctypes.byref(opt),
                           ctypes.byref(out), ctypes.byref(err)), err)
        return Maps(out.value)
    from .center import _Opened
    with _Opened(src) as o:
        opt = _options(axis, at, res, width, center, unit, units, mu, gamma, o.box_per_unit,
                       normal, north)
        sel = o.out._selection(lmax, None, None, None, None, None, None, component="hydro")
        ropt = _ReadOptions()
        ropt.threads = int(threads)
        try:
            check(lib.sk_slice_source(o.src, ctypes.byref(sel), len(quantities), names,
                                      ctypes.byref(opt), ctypes.byref(ropt), ctypes.byref(out),
                                      None, ctypes.byref(err)), err)
        finally:
            lib.sk_selection_clear(ctypes.byref(sel))
    return Maps(out.value)
