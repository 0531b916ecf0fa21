"""Components of a source into HDF5 (.h5, for h5py) or VTKHDF (.vtkhdf, for
ParaView): snapkit/h5export.h, as `snapkit export` writes them.

    import snapkit
    snapkit.export("output_00002", "gas.h5", components="hydro",
                   sphere=("bc", 0.1), vars=["density", "pressure"])
    snapkit.export(snapkit.open("run.snapkit"), "gas.vtkhdf", lmax=7)

The rows are streamed from the source into the file batch by batch (never
a whole table in memory), written beside the target and renamed into place
when complete.
"""
import ctypes
import os

from ._lib import ERR, P, ErrorStruct, c_path, check, declare, lib, mirrors
from .ramses import SHAPES, _ReadOptions, _ReadStats, _SEL, open_source

_FORMATS = {"h5": 1, "vtkhdf": 2}  # sk_h5_format


@mirrors("sk_consumer")
class _Consumer(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("begin", ctypes.c_void_p),
                ("batch", ctypes.c_void_p), ("ordered", ctypes.c_int)]


@mirrors("sk_h5_options")
class _H5Options(ctypes.Structure):
    _fields_ = [("gzip", ctypes.c_int), ("chunk_rows", ctypes.c_int64), ("fsync", ctypes.c_int)]


declare("sk_h5_format_of", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ERR)
declare("sk_h5_options_init", None, ctypes.POINTER(_H5Options))
declare("sk_h5_create", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_int,
        ctypes.POINTER(_H5Options), ERR)
declare("sk_h5_set_attribute", ctypes.c_int, P, ctypes.c_char_p, ctypes.c_char_p, ERR)
declare("sk_h5_component", ctypes.c_int, P, ctypes.c_char_p, ctypes.POINTER(_Consumer), ERR)
declare("sk_h5_rows", ctypes.c_int64, P)
declare("sk_h5_commit", ctypes.c_int, P, ERR)
declare("sk_h5_abort", None, P)
declare("sk_source_stream", ctypes.c_int, P, ctypes.c_char_p, _SEL,
        ctypes.POINTER(_ReadOptions), ctypes.POINTER(_Consumer), ctypes.POINTER(_ReadStats),
        ERR)
declare("sk_source_kind_name", ctypes.c_char_p, ctypes.c_int)
declare("sk_source_has_component", ctypes.c_int, P, ctypes.c_char_p)
declare("sk_source_components", ctypes.c_int, P, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int)


def _components(stream_src, components, fmt):
    """Those asked for, else the format's default (as `snapkit export`):
    every component of the source for .h5, hydro (else the first) for
    .vtkhdf."""
    if components:
        return components.split(",") if isinstance(components, str) else list(components)
    found = (ctypes.c_char_p * 32)()
    names = [found[i].decode() for i in range(lib.sk_source_components(stream_src, found, 32))]
    if fmt == _FORMATS["vtkhdf"]:
        return ["hydro"] if "hydro" in names else names[:1]
    return names


def export(src, path, components=None, format=None, gzip=4, chunk_rows=0, fsync=True,
           threads=0, **selection):
    """Write components of src (a path to a RAMSES output or a .snapkit
    file, or one opened with snapkit.open) into path: .h5/.hdf5 (a group
    of column datasets per component, with the units, time, box and
    cosmology as attributes) or .vtkhdf (one component as a VTK
    unstructured grid), the format from the name unless format= "h5" or
    "vtkhdf". components: a name, "hydro,particles" or a list (default: as
    `snapkit export`). The selection keywords are read()'s: lmax, xrange,
    yrange, zrange, center, unit, vars (columns), family and the shapes
    (sphere=, shell=, cylinder=, cylinder_shell=, inverse=). gzip: deflate
    level 0..9; chunk_rows: rows per HDF5 chunk (0: 65536). Returns
    {component: rows written}."""
    from . import open as _open
    own = isinstance(src, (str, bytes, os.PathLike))
    source = _open(src) if own else src
    err = ErrorStruct()
    try:
        fmt = ctypes.c_int(_FORMATS[format]) if format else ctypes.c_int()
        if format is None:
            check(lib.sk_h5_format_of(c_path(path), ctypes.byref(fmt), ctypes.byref(err)), err)
        elif format not in _FORMATS:
            raise ValueError("format must be h5 or vtkhdf, not %r" % (format,))
        opt = _H5Options()
        lib.sk_h5_options_init(ctypes.byref(opt))
        opt.gzip, opt.fsync = int(gzip), int(bool(fsync))
        if chunk_rows:
            opt.chunk_rows = int(chunk_rows)
        return _write(source, path, components, fmt.value, opt, threads, selection)
    finally:
        if own:
            source.close()


def _write(source, path, components, fmt, opt, threads, selection):
    stream_src, kind = open_source(source.path)  # the sk_source the rows stream from
    f, err, rows = P(), ErrorStruct(), {}
    try:
        names = _components(stream_src, components, fmt)
        check(lib.sk_h5_create(ctypes.byref(f), c_path(path), fmt, ctypes.byref(opt),
                               ctypes.byref(err)), err)
        for key, value in (("source", source.path), ("source_kind", lib.sk_source_kind_name(kind)),
                           ("snapkit_version", lib.sk_version())):
            value = value if isinstance(value, bytes) else os.fsencode(value)
            check(lib.sk_h5_set_attribute(f, key.encode(), value, ctypes.byref(err)), err)
        for name in names:
            if not lib.sk_source_has_component(stream_src, name.encode()):
                raise ValueError("snapkit.export: %s has no component %r" % (source.path, name))
            rows[name] = _stream(source, stream_src, f, name, threads, dict(selection))
        fh, f = f, P()
        check(lib.sk_h5_commit(fh, ctypes.byref(err)), err)
    finally:
        if f:
            lib.sk_h5_abort(f)
        lib.sk_source_close(stream_src)
    return rows


def _stream(source, stream_src, f, name, threads, selection):
    shape = {k: selection.pop(k) for k in list(selection) if k in SHAPES or k == "inverse"}
    args = [selection.pop(k, None) for k in ("lmax", "xrange", "yrange", "zrange", "center")]
    args += [selection.pop("unit", "standard"), selection.pop("vars", None),
             selection.pop("family", None)]
    if selection:
        raise TypeError("snapkit.export: unknown keyword %s" % sorted(selection)[0])
    sel = source._selection(*args, component=name, **shape)
    err, consumer = ErrorStruct(), _Consumer()
    before = lib.sk_h5_rows(f)
    try:
        check(lib.sk_h5_component(f, name.encode(), ctypes.byref(consumer), ctypes.byref(err)),
              err)
        opt = _ReadOptions(threads=int(threads))
        check(lib.sk_source_stream(stream_src, name.encode(), ctypes.byref(sel), ctypes.byref(opt),
                                   ctypes.byref(consumer), None, ctypes.byref(err)), err)
    finally:
        lib.sk_selection_clear(ctypes.byref(sel))
    return lib.sk_h5_rows(f) - before


__all__ = ["export"]
