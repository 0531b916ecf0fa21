"""Many outputs of a run, in time order (`snapkit series` on the command line).

    import snapkit
    for out, src in snapkit.series("sim/output_*"):
        t = snapkit.totals(src.hydro(sphere=((0.5, 0.5, 0.5), 0.1)))
        print(out.number, out.time, out.redshift, t["mass"])

Each step yields what the command's table says of the output (its number,
time in code units, time_myr, aexp and redshift) and the output opened with
snapkit.open, so that every function taking an Output, a File or a Table
works on it; it is closed when the loop moves on.
"""
import collections
import ctypes
import glob
import math
import os

from ._lib import ERR, P, ErrorStruct, check, declare, lib
from .ytbridge import _CosmologySummary

declare("sk_ramses_describe", ctypes.c_int, P, P, ERR)
declare("sk_store_describe", ctypes.c_int, P, ctypes.c_char_p, ctypes.POINTER(P), ERR)

_MYR = 3.15576e13  # seconds, a Julian year's million: as the command's table

#: One output of a series: the columns `snapkit series` gives every row.
OutputInfo = collections.namedtuple("OutputInfo",
                                    "number time time_myr aexp redshift path")


def _meta_table(src):
    """A 0-row table holding the source's metadata (the command's
    sk_ramses_describe or sk_store_describe of the first table)."""
    from .store import File
    err = ErrorStruct()
    if isinstance(src, File):
        t = P()
        check(lib.sk_store_describe(src._h, src.tables[0].encode(), ctypes.byref(t),
                                    ctypes.byref(err)), err)
        return t
    t = P(lib.sk_table_new(0))
    try:
        check(lib.sk_ramses_describe(src._h, t, ctypes.byref(err)), err)
    except Exception:
        lib.sk_table_free(t)
        raise
    return t


def output_info(src):
    """The OutputInfo of an open Output or File."""
    t = _meta_table(src)
    try:
        s, err = _CosmologySummary(), ErrorStruct()
        check(lib.sk_cosmology_from_table(t, ctypes.byref(s), ctypes.byref(err)), err)
    finally:
        lib.sk_table_free(t)
    info = src.info["info"]
    time = float(info.get("time", math.nan))
    unit_t = float(info.get("unit_t", 1.0))
    nominal = all(float(info.get(k, 1.0)) == 1.0 for k in ("unit_l", "unit_d", "unit_t"))
    if s.cosmological:
        myr = s.age / _MYR
    else:
        myr = math.nan if nominal else time * unit_t / _MYR
    number = src.info.get("output")
    return OutputInfo(int(number) if number is not None else -1, time, myr,
                      s.aexp if s.cosmological else math.nan,
                      s.redshift if s.cosmological else math.nan, src.path)


def _paths(paths_or_glob):
    if isinstance(paths_or_glob, (str, bytes, os.PathLike)):
        pattern = os.fsdecode(paths_or_glob)
        found = sorted(glob.glob(pattern))
        if not found and not glob.has_magic(pattern):
            found = [pattern]  # one source: let open() say what is wrong with it
        return found
    return [os.fsdecode(p) for p in paths_or_glob]


def series(paths_or_glob, comm=None):
    """A generator of (OutputInfo, source) over the outputs (RAMSES folders
    or .snapkit files): a glob pattern ("sim/output_*") or a list of paths,
    in time order (then by output number), as `snapkit series` runs them.
    The source is snapkit.open(path, comm) and is closed when the next one
    is taken (or the loop ends). An output that cannot be opened raises
    snapkit.Error naming it, before anything is yielded."""
    from . import open as _open
    infos = []
    for path in _paths(paths_or_glob):
        with _open(path) as src:
            infos.append(output_info(src))
    infos.sort(key=lambda o: (o.time, o.number, o.path))
    for info in infos:
        src = _open(info.path, comm) if comm is not None else _open(info.path)
        try:
            yield info, src
        finally:
            src.close()


__all__ = ["series", "OutputInfo", "output_info"]
