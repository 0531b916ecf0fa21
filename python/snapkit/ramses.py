"""RAMSES outputs: open a folder, read hydro, gravity and particles.

    import snapkit
    out = snapkit.open("output_00002")
    out.info["info"]["unit_l"]
    gas = out.hydro(lmax=7, xrange=(-5, 5), yrange=(-5, 5), zrange=(-2, 2),
                    center="bc", unit="kpc", vars=["density", "pressure"])
    mass = snapkit.derive(gas, "mass") * snapkit.unit_factor(gas, "Msun")

Tables hold code units as stored; derive() and unit_factor() give derived
quantities and physical units on request.
"""
import ctypes
import json
import os

import numpy as np

from ._lib import ERR, P, Closing, ErrorStruct, Progress, c_path, check, declare, lib, mirrors
from .colstats import column_stats
from .wstats import weighted_stats
from .table import Table


@mirrors("sk_json")
class _Json(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_char_p), ("len", ctypes.c_size_t), ("cap", ctypes.c_size_t),
                ("depth", ctypes.c_int), ("need_comma", ctypes.c_int * 64),
                ("pretty", ctypes.c_int), ("failed", ctypes.c_int)]


@mirrors("sk_units")
class _Units(ctypes.Structure):
    _fields_ = [(k, ctypes.c_double) for k in
                ("boxlen", "unit_l", "unit_d", "unit_t", "unit_m", "unit_v", "unit_p", "aexp",
                 "h")]


@mirrors("sk_region_request")
class _Region(ctypes.Structure):
    _fields_ = [("has_range", ctypes.c_int * 3), ("range", (ctypes.c_double * 2) * 3),
                ("has_center", ctypes.c_int), ("center_is_bc", ctypes.c_int),
                ("center", ctypes.c_double * 3), ("unit", ctypes.c_char * 16),
                ("shape", ctypes.c_int), ("inverse", ctypes.c_int),
                ("radius", ctypes.c_double * 2), ("half_height", ctypes.c_double),
                ("axis", ctypes.c_double * 3)]


@mirrors("sk_shape")
class _Shape(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("inverse", ctypes.c_int),
                ("center", ctypes.c_double * 3), ("axis", ctypes.c_double * 3),
                ("r_in", ctypes.c_double), ("r_out", ctypes.c_double),
                ("half_height", ctypes.c_double)]


@mirrors("sk_selection")
class _Selection(ctypes.Structure):
    _fields_ = [("lmax", ctypes.c_int), ("has_box", ctypes.c_int),
                ("lo", ctypes.c_double * 3), ("hi", ctypes.c_double * 3),
                ("nvars", ctypes.c_int), ("vars", ctypes.c_void_p * 256),
                ("has_family", ctypes.c_int), ("family", ctypes.c_ubyte * 256),
                ("has_center", ctypes.c_int), ("center", ctypes.c_double * 3),
                ("shape", _Shape)]


_PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                ctypes.c_int64)


@mirrors("sk_read_options")
class _ReadOptions(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_int), ("progress", Progress), ("with_refined", ctypes.c_int),
                ("share_rank", ctypes.c_int), ("share_count", ctypes.c_int)]


@mirrors("sk_read_stats")
class _ReadStats(ctypes.Structure):
    _fields_ = [("files_opened", ctypes.c_int), ("bytes_read", ctypes.c_int64),
                ("seconds", ctypes.c_double), ("bytes_allocated", ctypes.c_int64)]


_SEL = ctypes.POINTER(_Selection)
declare("sk_ramses_open", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ERR)
declare("sk_ramses_close", None, P)
declare("sk_ramses_units", None, P, ctypes.POINTER(_Units))
declare("sk_ramses_info_json", ctypes.c_int, P, ctypes.POINTER(_Json), ERR)
declare("sk_ramses_read", ctypes.c_int, P, ctypes.c_char_p, _SEL,
        ctypes.POINTER(_ReadOptions), ctypes.POINTER(P), ctypes.POINTER(_ReadStats), ERR)
declare("sk_ramses_derive", ctypes.c_int, P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double),
        ERR)
declare("sk_ramses_unit_factor", ctypes.c_int, ctypes.POINTER(_Units), ctypes.c_char_p,
        ctypes.c_double, ctypes.POINTER(ctypes.c_double), ERR)
# snapkit/source.h: either kind of source behind one handle; snapkit.open
# takes the kind it says and hands the handle to an Output or a File.
SOURCE_RAMSES, SOURCE_SNAPKIT = 1, 2
declare("sk_source_path_kind", ctypes.c_int, ctypes.c_char_p)
declare("sk_source_open", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ERR)
declare("sk_source_close", None, P)
declare("sk_source_kind", ctypes.c_int, P)
declare("sk_source_ramses", P, P)
declare("sk_source_store", P, P)
declare("sk_json_init", None, ctypes.POINTER(_Json), ctypes.c_int)
declare("sk_json_free", None, ctypes.POINTER(_Json))
declare("sk_units_set", None, ctypes.POINTER(_Units), ctypes.c_double, ctypes.c_double,
        ctypes.c_double, ctypes.c_double)
declare("sk_units_from_table", None, ctypes.POINTER(_Units), P)
declare("sk_selection_init", None, _SEL)
declare("sk_selection_clear", None, _SEL)
declare("sk_selection_set_region", ctypes.c_int, _SEL, ctypes.POINTER(_Region),
        ctypes.POINTER(_Units), ERR)
declare("sk_selection_set_vars", ctypes.c_int, _SEL, ctypes.c_char_p, ERR)
declare("sk_selection_set_families", ctypes.c_int, _SEL, ctypes.c_char_p, ERR)
declare("sk_clip_widen", ctypes.c_int, P, ctypes.c_char_p, _SEL, ERR)
declare("sk_clip_table", ctypes.c_int, _SEL, P, ERR)
declare("sk_clip_rule", ctypes.c_char_p, _SEL)
CLIP_COLUMNS = 16  # snapkit/select.h: SK_CLIP_COLUMNS

#: Physical units unit_factor() knows, by quantity.
UNITS = {
    "density": ["g/cm^3", "Msun/pc^3", "H/cm^3"], "mass": ["g", "Msun"],
    "velocity": ["cm/s", "km/s"], "time": ["s", "yr", "Myr", "Gyr"],
    "pressure": ["erg/cm^3"], "temperature": ["K"],
    "length": ["cm", "m", "km", "au", "pc", "kpc", "Mpc"],
}

#: Length units of cosmological outputs only: comoving ("c" prefix, or the
#: older "cm" suffix) and per h.
COSMOLOGICAL_LENGTHS = ["cpc", "ckpc", "cMpc", "kpc/h", "Mpc/h", "ckpc/h", "cMpc/h",
                        "pccm", "kpccm", "Mpccm", "kpccm/h", "Mpccm/h"]


#: Shape keywords of Output.read: sk_shape_kind, the tuple's length and form.
SHAPES = {"sphere": (1, 2, "(centre, radius)"),
          "cylinder": (2, 4, "(centre, axis, radius, half_height)"),
          "shell": (3, 3, "(centre, r_in, r_out)"),
          "cylinder_shell": (4, 5, "(centre, axis, r_in, r_out, half_height)")}


def _set_center(req, center):
    if isinstance(center, str):
        if center not in ("bc", "boxcenter"):
            raise ValueError("snapkit: center must be 3 numbers or 'bc'")
        req.has_center = req.center_is_bc = 1
    elif center is not None:
        req.has_center = 1
        for a in range(3):
            req.center[a] = float(center[a])


def _set_shape(req, shapes):
    """The shape keywords (SHAPES and inverse) into the request; returns
    the shape's centre (None without a shape)."""
    unknown = sorted(set(shapes) - set(SHAPES) - {"inverse"})
    if unknown:
        raise TypeError("snapkit: unknown keyword %s" % unknown[0])
    given = [(k, v) for k, v in shapes.items() if k in SHAPES and v is not None]
    if len(given) > 1:
        raise ValueError("snapkit: one shape only (got %s)" % " and ".join(k for k, _ in given))
    if not given:
        if shapes.get("inverse"):
            raise ValueError("snapkit: inverse=True needs a shape (sphere=, shell=, cylinder=, "
                             "cylinder_shell=)")
        return None
    name, spec = given[0]
    kind, n, form = SHAPES[name]
    spec = tuple(spec)
    if len(spec) != n:
        raise ValueError(f"snapkit: {name}= takes {form}")
    req.shape, req.inverse = kind, int(bool(shapes.get("inverse")))
    sizes = spec[1:]
    if name.startswith("cylinder"):
        axis, sizes = spec[1], spec[2:]
        if isinstance(axis, str):
            if axis not in ("x", "y", "z"):
                raise ValueError("snapkit: a cylinder's axis is 3 numbers, 'x', 'y' or 'z'")
            axis = [float(axis == a) for a in "xyz"]
        for a in range(3):
            req.axis[a] = float(axis[a])
        if not sum(req.axis[a] ** 2 for a in range(3)) > 0:  # all zeros would mean z
            raise ValueError("snapkit: the cylinder's axis must be a direction of non-zero "
                             "length")
        req.half_height = float(sizes[-1])
        sizes = sizes[:-1]
    req.radius[0] = float(sizes[0]) if len(sizes) == 2 else 0.0
    req.radius[1] = float(sizes[-1])
    return spec[0]


def _units_of(units_or_table):
    u = _Units()
    if isinstance(units_or_table, Table):
        lib.sk_units_from_table(ctypes.byref(u), units_or_table.handle)
    else:
        lib.sk_units_set(ctypes.byref(u), *units_or_table)
    return u


def unit_factor(table, unit, mu=None):
    """Factor from code units to `unit` for a table read from RAMSES, e.g.
    unit_factor(gas, "Msun"), "g/cm^3", "km/s", "kpc", "Myr"; "K" converts
    code p/rho to a temperature with mean molecular weight mu (default
    1/X with X = 0.76)."""
    err, out = ErrorStruct(), ctypes.c_double()
    u = _units_of(table)
    check(lib.sk_ramses_unit_factor(ctypes.byref(u), unit.encode(), float(mu or 0.0),
                                    ctypes.byref(out), ctypes.byref(err)), err)
    return out.value


def derive(table, what):
    """A derived quantity in code units, computed now and not stored:
    "cell_size", "volume", "mass" (density x volume for cells), "x", "y",
    "z" (cell centres or particle positions, code lengths); for particles
    "birth_time_proper" (proper time since the big bang at formation: the
    conformal birth_time of cosmological runs converted, as stored
    otherwise) and "age" (the output's time minus that), code time units
    (times unit_factor(table, "Myr")); 0 for both where a cosmological
    birth_time is 0 (dark matter)."""
    out = np.empty(len(table), dtype=np.float64)
    err = ErrorStruct()
    check(lib.sk_ramses_derive(table.handle, what.encode(),
                               out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                               ctypes.byref(err)), err)
    return out


def _lmax(lmax):
    """lmax as the selection holds it (0: no cap, for None): a whole number
    from 1 to 64, as `snapkit --lmax` takes it (a negative one was an
    uncapped read)."""
    try:
        ok = not isinstance(lmax, bool) and int(lmax) == lmax and 1 <= lmax <= 64
    except (TypeError, ValueError, OverflowError):
        ok = False
    if lmax is not None and not ok:
        raise ValueError(f"snapkit: lmax must be between 1 and 64, not {lmax!r}")
    return 0 if lmax is None else int(lmax)


def open_source(path):
    """An sk_source handle on path (sk_source_open) and its kind
    (SOURCE_RAMSES or SOURCE_SNAPKIT); the Output or File given it closes it."""
    src, err = P(), ErrorStruct()
    check(lib.sk_source_open(ctypes.byref(src), c_path(path), ctypes.byref(err)), err)
    return src, lib.sk_source_kind(src)


class Output(Closing):
    """An open RAMSES output folder (output_NNNNN)."""

    def __init__(self, path, _source=None):
        self.path = os.fsdecode(path)
        self._src = _source  # the sk_source that holds _h (open_source), or None
        err = ErrorStruct()
        if _source is not None:
            self._h = P(lib.sk_source_ramses(_source))
        else:
            self._h = P()
            check(lib.sk_ramses_open(ctypes.byref(self._h), c_path(self.path),
                                     ctypes.byref(err)), err)
        j = _Json()
        lib.sk_json_init(ctypes.byref(j), 0)
        try:
            check(lib.sk_ramses_info_json(self._h, ctypes.byref(j), ctypes.byref(err)), err)
            self.info = json.loads(ctypes.string_at(j.buf, j.len).decode())
        finally:
            lib.sk_json_free(ctypes.byref(j))
        self.cosmology = self.info["cosmology"]
        self.last_read = None

    def close(self):
        if getattr(self, "_h", None):
            if getattr(self, "_src", None):
                lib.sk_source_close(self._src)
            else:
                lib.sk_ramses_close(self._h)
            self._h = self._src = None

    def __repr__(self):
        c = [k for k, v in self.info["components"].items() if v]
        return f"<snapkit RAMSES output {self.path}: {', '.join(c)}>"

    def _units_struct(self, component=None):  # pylint: disable=unused-argument
        """The units selections are given in, as the command line takes
        them (sk_ramses_units: the box's own boxlen, which the info file of
        a box of several coarse cells gives divided by nx; aexp and h of a
        cosmological run)."""
        u = _Units()
        lib.sk_ramses_units(self._h, ctypes.byref(u))
        return u

    @property
    def units(self):
        """Factors from code units to every unit of UNITS (temperature with
        mu = 1/X), and for cosmological outputs to COSMOLOGICAL_LENGTHS."""
        u = self._units_struct()
        out = {}
        extra = [COSMOLOGICAL_LENGTHS] if u.h > 0 else []
        for names in list(UNITS.values()) + extra:
            for name in names:
                f, err = ctypes.c_double(), ErrorStruct()
                check(lib.sk_ramses_unit_factor(ctypes.byref(u), name.encode(), 0.0,
                                                ctypes.byref(f), ctypes.byref(err)), err)
                out[name] = f.value
        return out

    def _selection(self, lmax, xrange, yrange, zrange, center, unit, vars, family=None,
                   component=None, **shapes):
        """An sk_selection of read()'s keywords (the shapes among `shapes`),
        sizes and centres in `unit` through the units of `component`."""
        req = _Region()
        shape_center = _set_shape(req, shapes)
        if shape_center is not None:
            if center is not None:
                raise ValueError("snapkit: the shape's tuple gives the centre: leave center= out")
            center = shape_center
        for a, r in enumerate((xrange, yrange, zrange)):
            if r is not None:
                req.has_range[a] = 1
                req.range[a][0], req.range[a][1] = float(r[0]), float(r[1])
        _set_center(req, center)
        req.unit = (unit or "standard").encode()
        u = self._units_struct(component)
        sel = _Selection()
        lib.sk_selection_init(ctypes.byref(sel))
        sel.lmax = _lmax(lmax)
        err = ErrorStruct()
        try:
            check(lib.sk_selection_set_region(ctypes.byref(sel), ctypes.byref(req),
                                              ctypes.byref(u), ctypes.byref(err)), err)
            if vars:
                names = [vars] if isinstance(vars, str) else list(vars)
                check(lib.sk_selection_set_vars(ctypes.byref(sel), ",".join(names).encode(),
                                                ctypes.byref(err)), err)
            if family is not None:
                fams = [family] if isinstance(family, (str, int)) else list(family)
                check(lib.sk_selection_set_families(ctypes.byref(sel),
                                                    ",".join(str(f) for f in fams).encode(),
                                                    ctypes.byref(err)), err)
        except Exception:
            lib.sk_selection_clear(ctypes.byref(sel))
            raise
        return sel

    def stats(self, component, threads=0, weight=None, percentiles=None, clip=False,
              **selection):
        """snapkit.column_stats of the component (what `snapkit stats`
        prints), within the selection keywords of read() when given:
        computed from a read of it. With weight ("mass", "volume", "none"),
        also key "weighted": snapkit.weighted_stats at `percentiles` (what
        `snapkit stats --weight W --percentiles P,...` prints). With
        clip=True (a region needed), cells cut by the region's boundary
        count for their part inside (read(clip=True)): every sum and weight
        is multiplied by the column clip, and key "clip" says the rule, the
        cells touched, the sum of their fractions and the volume inside (as
        `snapkit stats --clip --json`)."""
        if percentiles and weight is None:
            raise ValueError("snapkit: percentiles need a weight (mass, volume or none)")
        table = self.read(component, threads=threads, clip=clip, **selection)
        out = column_stats(table, threads)
        if weight is not None:
            out["weighted"] = weighted_stats(table, weight, percentiles, threads)
        if clip:
            f = out["columns"]["clip"]
            rule = table.meta["clip"]
            out["clip"] = {"rule": rule, "cells": out["rows"], "clipped_cells": f["sum"] or 0.0,
                           "volume": f["volume_sum"] or 0.0}
            if rule == "columns":
                out["clip"]["columns"] = CLIP_COLUMNS
        return out

    def read(self, component, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
             unit="standard", vars=None, threads=0, with_refined=False, family=None,
             clip=False, **shape):
        """One component ("hydro", "gravity", "particles", "rt", "clump_field",
        "sinks", "clumps"; those present are in info["components"]) as a Table.
        Ranges are (lo, hi) in `unit` ("standard": box 0..1, "code", "cm",
        ..., "kpc", "Mpc"; cosmological outputs also "ckpc", "cMpc",
        "kpc/h", "ckpc/h", ...), relative to `center` (3 numbers in `unit`,
        or "bc" for the box centre) when given; a cell is kept when its centre
        is in [lo, hi) on every axis, a particle when its position is.
        A shape keeps what lies in it too (sizes and centre in `unit`; the
        centre, 3 numbers or "bc", is also that of the ranges; distances
        wrap across the box's faces, as yt's): sphere=(centre, radius),
        shell=(centre, r_in, r_out) (r_in < r <= r_out), cylinder=(centre,
        axis, radius, half_height) (a disk is a short one; axis 3 numbers or
        "x", "y", "z"), cylinder_shell=(centre, axis, r_in, r_out,
        half_height); inverse=True keeps what lies outside the shape.
        lmax caps the level (cells refined beyond it are leaves at lmax;
        particles ignore it). vars picks variables (level and cx, and cy, cz
        in 2-D and 3-D, are always there for cells). family keeps particles of these RAMSES
        families: a name ("dm", "star", "cloud", "gas_tracer", ...), a
        number, or a list of them (cells ignore it). clip=True (cells, with a
        region) reads every cell the region's boundary cuts too and adds the
        float64 column clip, each cell's fraction inside the region (exact
        for a box; a shape's surface by 16 x 16 columns per cell, each exact
        along its length: docs/analysis.md); column_stats, weighted_stats and totals weigh
        rows by it."""
        if self._h is None:
            raise ValueError("snapkit: the output is closed")
        return self._read_region(lib.sk_ramses_read, "files_opened", component,
                                 (lmax, xrange, yrange, zrange, center, unit, vars, family),
                                 shape, threads, with_refined, clip)

    def _read_region(self, read_fn, opened_key, component, args, shape, threads,
                     with_refined, clip):
        """_read with the selection of read()'s keywords (args, shape);
        clip: the read widened to every cell meeting the region, each cell
        given its fraction inside as the column clip, cells of fraction 0
        dropped (snapkit/clip.h)."""
        sel = self._selection(*args, component=component, **shape)
        if not clip:
            return self._read(read_fn, opened_key, component, sel, threads, with_refined)
        if not any(v is not None for v in args[1:4]) and not any(
                v is not None for k, v in shape.items() if k in SHAPES):
            lib.sk_selection_clear(ctypes.byref(sel))
            raise ValueError("snapkit: clip=True needs a region to clip cells to (xrange, "
                             "yrange, zrange or a shape)")
        region, err = self._selection(*args, component=component, **shape), ErrorStruct()
        try:
            try:
                self._widen(component, sel)
            except Exception:
                lib.sk_selection_clear(ctypes.byref(sel))
                raise
            table = self._read(read_fn, opened_key, component, sel, threads, with_refined)
            check(lib.sk_clip_table(ctypes.byref(region), table.handle, ctypes.byref(err)), err)
            return table
        finally:
            lib.sk_selection_clear(ctypes.byref(region))

    def _widen(self, component, sel):
        """sel widened by half the source's coarsest cell (sk_clip_widen)."""
        src, err = self._src, ErrorStruct()
        if src is None:  # made without snapkit.open: a source for the look-up
            src, _ = open_source(self.path)
        try:
            check(lib.sk_clip_widen(src, component.encode(), ctypes.byref(sel),
                                    ctypes.byref(err)), err)
        finally:
            if src is not self._src:
                lib.sk_source_close(src)

    def _read(self, read_fn, opened_key, component, sel, threads, with_refined):
        """What reads of outputs and of .snapkit files share: read_fn
        (sk_ramses_read or sk_store_read) with the selection sel (cleared
        here) into a Table, and last_read, whose opened_key counts what
        stats.files_opened counted (files or chunks)."""
        opt = _ReadOptions(threads=int(threads), with_refined=int(bool(with_refined)))
        share = getattr(self, "_share", None)
        if share:  # open(..., comm=): this rank's share of the files or chunks
            opt.share_rank, opt.share_count = share
        stats, err, t = _ReadStats(), ErrorStruct(), P()
        try:
            check(read_fn(self._h, component.encode(), ctypes.byref(sel), ctypes.byref(opt),
                          ctypes.byref(t), ctypes.byref(stats), ctypes.byref(err)), err)
        finally:
            lib.sk_selection_clear(ctypes.byref(sel))
        table = Table(t.value)
        self.last_read = {opened_key: stats.files_opened, "bytes_read": stats.bytes_read,
                          "seconds": stats.seconds, "bytes_allocated": stats.bytes_allocated,
                          "result_bytes": table.nbytes}
        return table

    def hydro(self, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
              unit="standard", vars=None, threads=0, **shape):
        """Leaf cells: level, cx, cy, cz (as many as the output has axes)
        and the hydro variables (shapes: see read())."""
        return self.read("hydro", lmax, xrange, yrange, zrange, center, unit, vars, threads,
                         **shape)

    def gravity(self, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
                unit="standard", vars=None, threads=0, **shape):
        """The same cells as hydro(), same order: potential, acceleration_x/y/z."""
        return self.read("gravity", lmax, xrange, yrange, zrange, center, unit, vars, threads,
                         **shape)

    def rt(self, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
           unit="standard", vars=None, threads=0, **shape):
        """RAMSES-RT: the same cells as hydro(), same order: photon density
        (in flux units) and flux per group, code units (info["info_rt"])."""
        return self.read("rt", lmax, xrange, yrange, zrange, center, unit, vars, threads,
                         **shape)

    def clump_field(self, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
                    unit="standard", threads=0, **shape):
        """The clump finder's clump_id per cell: the same cells as hydro()."""
        return self.read("clump_field", lmax, xrange, yrange, zrange, center, unit, None,
                         threads, **shape)

    def sinks(self, xrange=None, yrange=None, zrange=None, center=None, unit="standard",
              vars=None, **shape):
        """One row per sink of sink_NNNNN.csv, every column it names."""
        return self.read("sinks", None, xrange, yrange, zrange, center, unit, vars, **shape)

    def clumps(self, xrange=None, yrange=None, zrange=None, center=None, unit="standard",
               vars=None, **shape):
        """RAMSES's clump catalogue: one row per clump (by peak position for
        regions), sorted by index."""
        return self.read("clumps", None, xrange, yrange, zrange, center, unit, vars, **shape)

    def particles(self, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
                  unit="standard", vars=None, threads=0, family=None, **shape):
        """Every particle field, typed as on disk (lmax is ignored), of
        every family or of `family` (shapes: see read())."""
        return self.read("particles", lmax, xrange, yrange, zrange, center, unit, vars, threads,
                         family=family, **shape)


declare("sk_thread_budget_set_ranks", None, ctypes.c_int)
declare("sk_mpi_ramses_sizes", ctypes.c_int, P, ERR)


def check_comm(comm):
    """comm's (rank, size), once it is known to be MPI_COMM_WORLD, whose
    ranks the library's collective calls use; the thread budget is then
    divided among the ranks on this node, as snapkit does under mpirun."""
    from mpi4py import MPI  # only when asked for: a plain import never starts MPI
    if MPI.Comm.Compare(comm, MPI.COMM_WORLD) not in (MPI.IDENT, MPI.CONGRUENT):
        raise ValueError("snapkit: comm must be MPI.COMM_WORLD (or a duplicate of it)")
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    lib.sk_thread_budget_set_ranks(node.Get_size())
    node.Free()
    return comm.Get_rank(), comm.Get_size()


def use_comm(source, comm):
    """Make every read of `source` (an Output or a File) read this rank's
    share of comm (MPI.COMM_WORLD): a contiguous range of the CPU files in
    Hilbert order, or of a .snapkit table's chunks, balanced by bytes; the
    shares in rank order are the whole read."""
    rank, size = check_comm(comm)
    source._share = (rank, size) if size > 1 else None
    if size > 1 and type(source) is Output:  # not a .snapkit File (a subclass)
        # Rank 0 stats the CPU files and broadcasts their sizes (collective).
        err = ErrorStruct()
        check(lib.sk_mpi_ramses_sizes(source._h, ctypes.byref(err)), err)
    return source


def open(path, comm=None):  # noqa: A001 - snapkit.open is the documented entry point
    """Open a RAMSES output folder; with comm (mpi4py's MPI.COMM_WORLD)
    each rank's reads give its share (use_comm)."""
    out = Output(path)
    return use_comm(out, comm) if comm is not None else out
