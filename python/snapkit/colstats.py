"""Per-column statistics of a table (the library's sk_table_stats_compute,
the same numbers `snapkit stats` prints)."""
import ctypes
import math

from ._lib import ERR, P, ErrorStruct, check, declare, lib, mirrors


@mirrors("sk_column_stats")
class _ColumnStats(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("is_cell_index", ctypes.c_int),
                ("min", ctypes.c_double), ("max", ctypes.c_double),
                ("sum", ctypes.c_double), ("abs_sum", ctypes.c_double),
                ("volume_sum", ctypes.c_double), ("abs_volume_sum", ctypes.c_double)]


@mirrors("sk_table_stats")
class _TableStats(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int64), ("is_cells", ctypes.c_int),
                ("levels", ctypes.c_int64 * 64), ("ncols", ctypes.c_int),
                ("cols", ctypes.POINTER(_ColumnStats))]


declare("sk_table_stats_compute", ctypes.c_int, P, ctypes.c_int, ctypes.POINTER(_TableStats), ERR)
declare("sk_table_stats_free", None, ctypes.POINTER(_TableStats))
declare("sk_store_stored_stats", ctypes.c_int, P, ctypes.c_char_p, P,
        ctypes.POINTER(_TableStats), ERR)
SK_ERR_EMPTY = 8  # snapkit/error.h: sk_status


def _as_dict(s):
    out = {"rows": s.rows, "columns": {}}
    if s.is_cells:
        out["levels"] = {str(lev): s.levels[lev] for lev in range(64) if s.levels[lev]}
    for i in range(s.ncols):
        c = s.cols[i]
        if c.is_cell_index:
            continue
        d = {k: getattr(c, k) for k in ("min", "max", "sum", "abs_sum")}
        if s.is_cells:
            d["volume_sum"] = c.volume_sum
            d["abs_volume_sum"] = c.abs_volume_sum
        out["columns"][c.name.decode()] = {k: (None if isinstance(v, float) and math.isnan(v)
                                               else v) for k, v in d.items()}
    return out


def column_stats(table, threads=0):
    """dict(rows, levels (cells only), columns{name: {min, max, sum, abs_sum,
    volume_sum, abs_volume_sum}}). Sums are exact (math.fsum's); volume sums weigh
    values by (boxlen / 2^level)^3 and exist for cell tables only; the cell
    index columns (level, cx, cy, cz) are left out of a cell table's columns."""
    s, err = _TableStats(), ErrorStruct()
    check(lib.sk_table_stats_compute(table.handle, int(threads), ctypes.byref(s),
                                     ctypes.byref(err)), err)
    try:
        return _as_dict(s)
    finally:
        lib.sk_table_stats_free(ctypes.byref(s))


def stored_stats(store_handle, name):
    """The statistics a .snapkit file stores for table `name` (format 1.1),
    as column_stats gives them for the whole table, or None when it stores
    none (format 1.0, refined cells)."""
    s, err = _TableStats(), ErrorStruct()
    rc = lib.sk_store_stored_stats(store_handle, name.encode(), None, ctypes.byref(s),
                                   ctypes.byref(err))
    if rc == SK_ERR_EMPTY:
        return None
    check(rc, err)
    try:
        return _as_dict(s)
    finally:
        lib.sk_table_stats_free(ctypes.byref(s))
