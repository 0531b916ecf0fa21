"""Compact .snapkit files: convert once, re-read fast, read any region.

    import snapkit
    snapkit.convert("output_00002", "run.snapkit", with_coarse=True)
    f = snapkit.open("run.snapkit")          # like snapkit.open("output_00002")
    gas = f.hydro(lmax=7, xrange=(-5, 5), center="bc", unit="kpc")
    snapkit.save({"hydro": gas}, "gas.snapkit")
    gas2 = snapkit.load("gas.snapkit", "hydro", vars=["density"])

A file opened with snapkit.open() answers the same calls as a RAMSES
output (read, hydro, gravity, particles, info, units); its last_read counts
chunks_read where an output counts files_opened.
"""
import ctypes
import json
import os

from ._lib import ERR, P, ErrorStruct, Progress, c_path, check, declare, lib, mirrors
from .colstats import stored_stats
from .ramses import (SHAPES, SOURCE_SNAPKIT, _SEL, Output, _Json, _ReadOptions, _ReadStats,
                     _Units, open_source, use_comm)
from .ramses import open as _open_output
from .table import Table


@mirrors("sk_store_write_options")
class _WriteOptions(ctypes.Structure):
    _fields_ = [("compress", ctypes.c_int), ("threads", ctypes.c_int),
                ("chunk_rows", ctypes.c_int64), ("progress", Progress),
                ("fail_after_bytes", ctypes.c_int64)]


@mirrors("sk_store_write_stats")
class _WriteStats(ctypes.Structure):
    _fields_ = [("ntables", ctypes.c_int), ("rows", ctypes.c_int64), ("chunks", ctypes.c_int64),
                ("bytes_raw", ctypes.c_int64), ("bytes_file", ctypes.c_int64),
                ("seconds", ctypes.c_double)]


@mirrors("sk_store_convert_options")
class _ConvertOptions(ctypes.Structure):
    _fields_ = [("components", ctypes.c_char_p), ("selection", _SEL),
                ("with_coarse", ctypes.c_int), ("write", _WriteOptions),
                ("read_progress", Progress)]


_MAX_CONVERTED = 8


@mirrors("sk_store_convert_stats")
class _ConvertStats(ctypes.Structure):
    _fields_ = [("ntables", ctypes.c_int), ("names", (ctypes.c_char * 16) * _MAX_CONVERTED),
                ("rows", ctypes.c_int64 * _MAX_CONVERTED),
                ("refined_rows", ctypes.c_int64 * _MAX_CONVERTED),
                ("bytes_source", ctypes.c_int64), ("bytes_raw", ctypes.c_int64),
                ("bytes_file", ctypes.c_int64), ("read_seconds", ctypes.c_double),
                ("write_seconds", ctypes.c_double), ("bytes_allocated", ctypes.c_int64),
                ("fallbacks", ctypes.c_int)]


declare("sk_store_write_options_init", None, ctypes.POINTER(_WriteOptions))
declare("sk_store_save", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(P),
        ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.POINTER(_WriteOptions),
        ctypes.POINTER(_WriteStats), ERR)
declare("sk_store_open", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, P, ERR)
declare("sk_store_close", None, P)
declare("sk_store_describe", ctypes.c_int, P, ctypes.c_char_p, ctypes.POINTER(P), ERR)
declare("sk_store_info_json", ctypes.c_int, P, ctypes.POINTER(_Json), ERR)
declare("sk_store_read", ctypes.c_int, P, ctypes.c_char_p, _SEL, ctypes.POINTER(_ReadOptions),
        ctypes.POINTER(P), ctypes.POINTER(_ReadStats), ERR)
declare("sk_store_verify", ctypes.c_int, P, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ERR)
declare("sk_store_convert_options_init", None, ctypes.POINTER(_ConvertOptions))
declare("sk_store_convert", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
        ctypes.POINTER(_ConvertOptions), ctypes.POINTER(_ConvertStats), ERR)
declare("sk_store_check_source", ctypes.c_int, P, ctypes.c_char_p, ctypes.c_int,
        ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t, ERR)
declare("sk_tables_same_rows", ctypes.c_int, P, P, ctypes.POINTER(ctypes.c_int),
        ctypes.c_char_p, ctypes.c_size_t, ERR)


def is_snapkit_file(path):
    """Is path a .snapkit file (a regular file starting with the magic)?"""
    return lib.sk_source_path_kind(c_path(path)) == SOURCE_SNAPKIT


def _write_options(compress, threads, chunk_rows):
    opt = _WriteOptions()
    lib.sk_store_write_options_init(ctypes.byref(opt))
    opt.compress = int(bool(compress))
    opt.threads = int(threads)
    opt.chunk_rows = int(chunk_rows)
    return opt


def save(tables, path, compress=True, threads=0, chunk_rows=0):
    """Write one table or several into one .snapkit file, atomically.
    `tables` is a Table (named by its "component" metadata), a list of
    Tables, or a dict {name: Table}. Returns dict(tables, rows, chunks,
    bytes_raw, bytes_file, seconds)."""
    if isinstance(tables, Table):
        items = [(None, tables)]
    elif isinstance(tables, dict):
        items = list(tables.items())
    else:
        items = [(None, t) for t in tables]
    for _, t in items:
        if not isinstance(t, Table):
            raise TypeError("snapkit.save: tables must be snapkit.Table objects "
                            "(snapkit.Table.from_arrays makes one from numpy arrays)")
    handles = (P * len(items))(*[t.handle for _, t in items])
    names = (ctypes.c_char_p * len(items))(*[n.encode() if n else None for n, _ in items])
    opt = _write_options(compress, threads, chunk_rows)
    stats, err = _WriteStats(), ErrorStruct()
    check(lib.sk_store_save(c_path(path), handles, names, len(items), ctypes.byref(opt),
                            ctypes.byref(stats), ctypes.byref(err)), err)
    return {"tables": stats.ntables, "rows": stats.rows, "chunks": stats.chunks,
            "bytes_raw": stats.bytes_raw, "bytes_file": stats.bytes_file,
            "seconds": stats.seconds}


class File(Output):
    """An open .snapkit file. It answers what an Output does: read(),
    hydro(), gravity(), particles() with the same selections, info (the
    output's facts from the stored metadata, plus info["store"] about the
    file), units; tables lists what it holds."""

    def __init__(self, path, _source=None):  # pylint: disable=super-init-not-called
        self.path = os.fsdecode(path)
        self._src = _source  # the sk_source that holds _h (open_source), or None
        err = ErrorStruct()
        if _source is not None:
            self._h = P(lib.sk_source_store(_source))
        else:
            self._h = P()
            check(lib.sk_store_open(ctypes.byref(self._h), c_path(self.path), None,
                                    ctypes.byref(err)), err)
        j = _Json()
        lib.sk_json_init(ctypes.byref(j), 0)
        try:
            check(lib.sk_store_info_json(self._h, ctypes.byref(j), ctypes.byref(err)), err)
            self.info = json.loads(ctypes.string_at(j.buf, j.len).decode())
        finally:
            lib.sk_json_free(ctypes.byref(j))
        info = self.info["info"]
        self._units = tuple(float(info.get(k, 1.0)) for k in ("boxlen", "unit_l", "unit_d",
                                                              "unit_t"))
        self.last_read = None

    @property
    def tables(self):
        """Names of the tables in the file, in file order."""
        return list(self.info["store"]["tables"])

    def close(self):
        if getattr(self, "_h", None):
            if getattr(self, "_src", None):
                lib.sk_source_close(self._src)
            else:
                lib.sk_store_close(self._h)
            self._h = self._src = None

    def __repr__(self):
        return f"<snapkit file {self.path}: {', '.join(self.tables)}>"

    def read(self, component, lmax=None, xrange=None, yrange=None, zrange=None, center=None,
             unit="standard", vars=None, threads=0, with_refined=False, family=None,
             clip=False, **shape):
        """One table as a Table, with the selections of Output.read: ranges
        in `unit` around `center`, shapes (sphere=, shell=, cylinder=,
        cylinder_shell=, inverse=), lmax (exact when the file holds refined
        cells, a filter on the leaves otherwise; see info["store"]), vars,
        family (particles; needs the family column among vars), clip. Only
        the chunks the selection needs are read."""
        if self._h is None:
            raise ValueError("snapkit: the file is closed")
        return self._read_region(lib.sk_store_read, "chunks_read", component,
                                 (lmax, xrange, yrange, zrange, center, unit, vars, family),
                                 shape, threads, with_refined, clip)

    def _units_struct(self, component=None):
        """The units the table `component` (else the first) records, as the
        command line takes them: cosmological (comoving and /h lengths)
        when the table's metadata say so."""
        names = self.tables
        name = component if component in names else (names[0] if names else None)
        u = _Units()
        if name is None:
            lib.sk_units_set(ctypes.byref(u), *self._units)
            return u
        t, err = P(), ErrorStruct()
        check(lib.sk_store_describe(self._h, name.encode(), ctypes.byref(t), ctypes.byref(err)),
              err)
        try:
            lib.sk_units_from_table(ctypes.byref(u), t)
        finally:
            lib.sk_table_free(t)
        return u

    def stats(self, component, threads=0, weight=None, percentiles=None, clip=False,
              **selection):
        """snapkit.column_stats of the table `component`: for the whole
        table, the statistics the file stores (format 1.1; no chunk read),
        else computed from a read of the table. With weight, a selection or
        clip, read and computed, as Output.stats."""
        if self._h is None:
            raise ValueError("snapkit: the file is closed")
        whole = weight is None and not percentiles and not clip and not any(
            v is not None for v in selection.values())
        stored = stored_stats(self._h, component) if whole else None
        return stored if stored is not None else super().stats(component, threads, weight,
                                                               percentiles, clip, **selection)

    def verify(self, output=None, threads=0):
        """Check every checksum; with `output` (the RAMSES folder) also that
        the file holds what it gives for the recorded selection. Raises
        snapkit.Error on damage; returns (True, "") or (False, what differs)."""
        err = ErrorStruct()
        check(lib.sk_store_verify(self._h, int(threads), None, None, ctypes.byref(err)), err)
        if output is None:
            return True, ""
        same, why = ctypes.c_int(), ctypes.create_string_buffer(1024)
        check(lib.sk_store_check_source(self._h, c_path(output), int(threads),
                                        ctypes.byref(same), why, len(why), ctypes.byref(err)),
              err)
        return bool(same.value), why.value.decode()


def open(path, comm=None):  # noqa: A001 - snapkit.open is the documented entry point
    """Open a RAMSES output folder (an Output) or a .snapkit file (a File);
    both answer read(), hydro(), gravity(), particles(), info. With comm
    (mpi4py's MPI.COMM_WORLD, under mpirun) each rank's reads give its
    share: CPU files or chunks, the shares in rank order being the whole."""
    src, kind = open_source(path)
    f = File(path, _source=src) if kind == SOURCE_SNAPKIT else Output(path, _source=src)
    return use_comm(f, comm) if comm is not None else f


def load(path, component, **selection):
    """Read one table of a .snapkit file: load("run.snapkit", "hydro",
    lmax=8, xrange=(0.4, 0.6), vars=["density"]) (selections of File.read)."""
    with File(path) as f:
        return f.read(component, **selection)


def convert(output, path, components=None, compress=True, with_coarse=False, threads=0,
            chunk_rows=0, **selection):
    """Convert a RAMSES output (or a selection of it: the keywords of
    Output.read) into one .snapkit file. Returns the summary of `snapkit
    convert --json`: rows and refined_rows per table, bytes_source,
    bytes_raw, bytes_file, read_seconds, write_seconds, bytes_allocated (by
    the library during the convert) and fallbacks (tables read whole because
    their CPU files were not in curve order)."""
    if isinstance(components, (list, tuple)):
        components = ",".join(components)
    with _open_output(output) as out:
        shape = {k: selection.pop(k) for k in list(selection) if k in SHAPES or k == "inverse"}
        sel = out._selection(selection.pop("lmax", None), selection.pop("xrange", None),
                             selection.pop("yrange", None), selection.pop("zrange", None),
                             selection.pop("center", None), selection.pop("unit", "standard"),
                             selection.pop("vars", None), selection.pop("family", None),
                             **shape)
    if selection:
        lib.sk_selection_clear(ctypes.byref(sel))
        raise TypeError("snapkit.convert: unknown keyword %s" % sorted(selection)[0])
    opt = _ConvertOptions()
    lib.sk_store_convert_options_init(ctypes.byref(opt))
    opt.components = components.encode() if components else None
    opt.selection = ctypes.pointer(sel)
    opt.with_coarse = int(bool(with_coarse))
    opt.write = _write_options(compress, threads, chunk_rows)
    stats, err = _ConvertStats(), ErrorStruct()
    try:
        check(lib.sk_store_convert(c_path(output), c_path(path), ctypes.byref(opt),
                                   ctypes.byref(stats), ctypes.byref(err)), err)
    finally:
        lib.sk_selection_clear(ctypes.byref(sel))
    names = [stats.names[i].value.decode() for i in range(stats.ntables)]
    return {"path": str(path),
            "rows": {n: stats.rows[i] for i, n in enumerate(names)},
            "refined_rows": {n: stats.refined_rows[i] for i, n in enumerate(names)},
            "bytes_source": stats.bytes_source, "bytes_raw": stats.bytes_raw,
            "bytes_file": stats.bytes_file, "read_seconds": stats.read_seconds,
            "write_seconds": stats.write_seconds, "bytes_allocated": stats.bytes_allocated,
            "fallbacks": stats.fallbacks}


def verify(path, output=None, threads=0):
    """snapkit verify as a function: see File.verify."""
    with File(path) as f:
        return f.verify(output, threads)


def same_rows(a, b):
    """Are two tables the same rows up to order, bit for bit (cells sorted
    by level, cx, cy, cz)? Returns (True, "") or (False, what differs)."""
    equal, why, err = ctypes.c_int(), ctypes.create_string_buffer(512), ErrorStruct()
    check(lib.sk_tables_same_rows(a.handle, b.handle, ctypes.byref(equal), why, len(why),
                                  ctypes.byref(err)), err)
    return bool(equal.value), why.value.decode()


__all__ = ["File", "save", "load", "open", "convert", "verify", "same_rows", "is_snapkit_file"]
