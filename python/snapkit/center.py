"""Centres and totals of a selection (snapkit/center.h, snapkit/totals.h).

    import snapkit
    out = snapkit.open("output_00002")
    c = snapkit.center(out, "max:density")             # box units (0..1)
    c = snapkit.center(out, "shrink", sphere=0.1, around=c)
    t = snapkit.totals(out, center=c, sphere=0.1)      # mass, com, angular momentum
    gas = out.hydro(center=c, xrange=(-0.05, 0.05), yrange=(-0.05, 0.05),
                    zrange=(-0.05, 0.05))

The search (and the totals) cover the rows of the component(s) within the
ranges and the sphere about `around` (default the box centre). Exact and
the same for any thread count, MPI rank count and either source kind.
"""
import ctypes
import os

import numpy as np

from ._lib import ERR, P, ErrorStruct, check, declare, lib, mirrors
from .ramses import _Region, _Selection, _ReadOptions, _Units, Output, open_source

_SHAPE_SPHERE = 1


@mirrors("sk_center_options")
class _CenterOptions(ctypes.Structure):
    _fields_ = [("method", ctypes.c_int), ("field", ctypes.c_char * 64),
                ("components", ctypes.c_char * 64), ("shrink_factor", ctypes.c_double),
                ("shrink_min", ctypes.c_int64)]


@mirrors("sk_center_result")
class _CenterResult(ctypes.Structure):
    _fields_ = [("center", ctypes.c_double * 3), ("rows", ctypes.c_int64),
                ("component", ctypes.c_char * 16), ("value", ctypes.c_double),
                ("mass", ctypes.c_double), ("iterations", ctypes.c_int),
                ("radius", ctypes.c_double), ("final_rows", ctypes.c_int64)]


@mirrors("sk_totals_frame")
class _TotalsFrame(ctypes.Structure):
    _fields_ = [("ref", ctypes.c_double * 3), ("about_com", ctypes.c_int),
                ("has_velocity", ctypes.c_int), ("velocity", ctypes.c_double * 3)]


@mirrors("sk_totals")
class _Totals(ctypes.Structure):
    _fields_ = [("cells", ctypes.c_int64), ("particles", ctypes.c_int64),
                ("has_velocity", ctypes.c_int)] + \
               [(k, ctypes.c_double) for k in ("boxlen", "mass", "volume")] + \
               [(k, ctypes.c_double * 3) for k in
                ("com", "bulk_velocity", "center", "velocity", "angular_momentum",
                 "angular_momentum_direction")]


_SEL = ctypes.POINTER(_Selection)
declare("sk_center_options_init", None, ctypes.POINTER(_CenterOptions))
declare("sk_center_parse", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_CenterOptions), ERR)
declare("sk_center_find", ctypes.c_int, P, _SEL, ctypes.POINTER(_CenterOptions),
        ctypes.POINTER(_ReadOptions), ctypes.POINTER(_CenterResult), ERR)
declare("sk_totals_compute", ctypes.c_int, P, ctypes.c_char_p, _SEL,
        ctypes.POINTER(_TotalsFrame), ctypes.POINTER(_ReadOptions), ctypes.POINTER(_Totals),
        ERR)
declare("sk_totals_acc_new", ctypes.c_int, ctypes.POINTER(_TotalsFrame), ctypes.POINTER(P), ERR)
declare("sk_totals_acc_free", None, P)
declare("sk_totals_acc_add", ctypes.c_int, P, P, ERR)
declare("sk_totals_acc_result", None, P, ctypes.POINTER(_Totals))
declare("sk_box_units_per", ctypes.c_int, ctypes.POINTER(_Units), ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_double), ERR)


class _Opened:
    """The source as an Output or File and its sk_source handle: the
    caller's, or opened here (a path, or an Output opened without one) and
    closed on leaving."""

    def __init__(self, source):
        self.own, self.tmp_src = None, None
        if not isinstance(source, Output):
            from .store import open as open_any
            source = self.own = open_any(os.fspath(source))
        if source._h is None:
            raise ValueError("snapkit: the source is closed")
        self.out = source
        self.src = source._src
        if self.src is None:
            self.src = self.tmp_src = open_source(source.path)[0]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.tmp_src is not None:
            lib.sk_source_close(self.tmp_src)
        if self.own is not None:
            self.own.close()

    def box_per_unit(self, unit):
        f, err, u = ctypes.c_double(), ErrorStruct(), self.out._units_struct()
        check(lib.sk_box_units_per(ctypes.byref(u), (unit or "standard").encode(),
                                   ctypes.byref(f), ctypes.byref(err)), err)
        return f.value

    def read_options(self, threads):
        opt = _ReadOptions(threads=int(threads))
        share = getattr(self.out, "_share", None)
        if share:  # open(..., comm=): collective, every rank gets the whole answer
            opt.share_rank, opt.share_count = share
        return opt

    def selection(self, around, sphere, xrange, yrange, zrange, unit, lmax, family):
        """The ranges (relative to `around` when given: 3 numbers in unit,
        or "bc") and a sphere of radius `sphere` (in unit) about `around`
        (the box centre when None)."""
        sel, req, err = _Selection(), _Region(), ErrorStruct()
        lib.sk_selection_init(ctypes.byref(sel))
        sel.lmax = int(lmax or 0)
        for a, r in enumerate((xrange, yrange, zrange)):
            if r is not None:
                req.has_range[a] = 1
                req.range[a][0], req.range[a][1] = float(r[0]), float(r[1])
        req.has_center = int(around is not None)  # none: absolute ranges, as read()'s
        if isinstance(around, str):
            if around not in ("bc", "boxcenter"):
                raise ValueError("snapkit: around must be 3 numbers or 'bc'")
            req.center_is_bc = 1
        elif around is not None:
            for a in range(3):
                req.center[a] = float(around[a])
        if sphere is not None:
            req.shape, req.radius[1] = _SHAPE_SPHERE, float(sphere)
        req.unit = (unit or "standard").encode()
        u = self.out._units_struct()
        try:
            check(lib.sk_selection_set_region(ctypes.byref(sel), ctypes.byref(req),
                                              ctypes.byref(u), ctypes.byref(err)), err)
            if family is not None:
                fams = [family] if isinstance(family, (str, int)) else list(family)
                check(lib.sk_selection_set_families(ctypes.byref(sel),
                                                    ",".join(str(f) for f in fams).encode(),
                                                    ctypes.byref(err)), err)
        except Exception:
            lib.sk_selection_clear(ctypes.byref(sel))
            raise
        return sel


def _components(component):
    if component is None:
        return b""
    names = [component] if isinstance(component, str) else list(component)
    return ",".join(names).encode()


def _clipped_totals(out, component, center, sphere, region, frame, result):
    """The totals of the clipped reads (Output.read(clip=True)) of each
    component, summed in one accumulator."""
    names = [component] if isinstance(component, str) else list(component or [])
    if not names:
        present = out.info.get("components", [])
        names = ["hydro"] if "hydro" in present else ["particles"]
    names = ["hydro" if n == "gas" else n for n in names]
    around = "bc" if center is None else center
    if sphere is None and all(region[k] is None for k in ("xrange", "yrange", "zrange")):
        raise ValueError("snapkit: clip=True needs a region to clip cells to (xrange, "
                         "yrange, zrange or a sphere)")
    shape = {} if sphere is None else {"sphere": (around, sphere)}
    ranges_about = None if center is None or sphere is not None else center
    acc, err = P(), ErrorStruct()
    check(lib.sk_totals_acc_new(ctypes.byref(frame), ctypes.byref(acc), ctypes.byref(err)), err)
    try:
        for name in names:
            table = out.read(name, center=ranges_about, clip=name != "particles", **region,
                             **shape)
            check(lib.sk_totals_acc_add(acc, table._h, ctypes.byref(err)), err)
        lib.sk_totals_acc_result(acc, ctypes.byref(result))
    finally:
        lib.sk_totals_acc_free(acc)


def center(source, method="com", *, sphere=None, around=None, unit="standard", xrange=None,
           yrange=None, zrange=None, lmax=None, component=None, family=None,
           shrink_factor=None, shrink_min=None, threads=0, full=False):
    """The centre `method` finds in a selection of source (an Output or File,
    or a path), in `unit` (default box units 0..1), as `snapkit center` and
    every command's --center do:

    - "max:FIELD" / "min:FIELD": the row with the largest (smallest) FIELD
      (ties: the lowest x, then y, then z);
    - "com": the centre of mass (positions to the nearest periodic image of
      `around`);
    - "shrink": the shrinking-sphere centre of mass (Power et al. 2003):
      radius times shrink_factor (default 0.975) per step until fewer than
      shrink_min (default 1000) rows would remain.

    The rows searched: the component(s) ("hydro", "particles", or a list;
    default the gas when the output has it, else the particles) within
    the ranges (relative to `around` when given) and the sphere of radius
    `sphere` about `around` (3 numbers in unit, or "bc"; default the box
    centre).
    With full=True, a dict: center (in unit), center_box, rows, component
    and value (max, min), mass, iterations, radius (box units) and
    final_rows (shrink)."""
    opts, err, res = _CenterOptions(), ErrorStruct(), _CenterResult()
    lib.sk_center_options_init(ctypes.byref(opts))
    check(lib.sk_center_parse(method.encode(), ctypes.byref(opts), ctypes.byref(err)), err)
    opts.components = _components(component)
    if shrink_factor is not None:
        opts.shrink_factor = float(shrink_factor)
    if shrink_min is not None:
        opts.shrink_min = int(shrink_min)
    with _Opened(source) as o:
        sel = o.selection(around, sphere, xrange, yrange, zrange, unit, lmax, family)
        ropt = o.read_options(threads)
        try:
            check(lib.sk_center_find(o.src, ctypes.byref(sel), ctypes.byref(opts),
                                     ctypes.byref(ropt), ctypes.byref(res), ctypes.byref(err)),
                  err)
        finally:
            lib.sk_selection_clear(ctypes.byref(sel))
        f = o.box_per_unit(unit)
    box = np.array(res.center[:])
    c = box if f == 1.0 else box / f
    if not full:
        return c
    return {"center": c, "center_box": box, "rows": res.rows,
            "component": res.component.decode() or None, "value": res.value,
            "mass": res.mass, "iterations": res.iterations, "radius": res.radius,
            "final_rows": res.final_rows}


def totals(source, *, center=None, velocity=None, sphere=None, unit="standard", xrange=None,
           yrange=None, zrange=None, lmax=None, component=None, family=None, threads=0,
           clip=False):
    """The totals of a selection of source, in code units (snapkit/totals.h):
    mass, volume (cells), com (centre of mass), bulk_velocity, and the
    angular_momentum (and its unit angular_momentum_direction) about
    `center` (3 numbers in unit, or "bc") relative to `velocity` (code
    units; default the bulk velocity), or, without a center, about the
    centre of mass. Ranges and the sphere of radius `sphere` are about the
    center (the box centre without one). clip=True (a region needed): cells
    the region's boundary cuts count for their part inside, as `snapkit
    stats --totals --clip` (read(clip=True)); particles are in or out.
    Returns a dict of floats and numpy arrays."""
    frame = _TotalsFrame(about_com=int(center is None))
    if velocity is not None:
        frame.has_velocity = 1
        for k in range(3):
            frame.velocity[k] = float(velocity[k])
    out, err = _Totals(), ErrorStruct()
    with _Opened(source) as o:
        sel = o.selection(center, sphere, xrange, yrange, zrange, unit, lmax, family)
        for k in range(3):
            frame.ref[k] = sel.center[k]
        ropt = o.read_options(threads)
        try:
            if clip:
                region = dict(xrange=xrange, yrange=yrange, zrange=zrange, lmax=lmax,
                              family=family, unit=unit, threads=threads)
                _clipped_totals(o.out, component, center, sphere, region, frame, out)
            else:
                check(lib.sk_totals_compute(o.src, _components(component), ctypes.byref(sel),
                                            ctypes.byref(frame), ctypes.byref(ropt),
                                            ctypes.byref(out), ctypes.byref(err)), err)
        finally:
            lib.sk_selection_clear(ctypes.byref(sel))
    vec = ("com", "bulk_velocity", "center", "velocity", "angular_momentum",
           "angular_momentum_direction")
    d = {k: np.array(getattr(out, k)[:]) for k in vec}
    d.update(cells=out.cells, particles=out.particles, has_velocity=bool(out.has_velocity),
             boxlen=out.boxlen, mass=out.mass, volume=out.volume)
    return d
