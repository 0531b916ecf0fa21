"""Weighted statistics of every column of a table (the library's
sk_table_wstats_compute: what `snapkit stats --weight` prints under the
JSON key "weighted"). Definitions: docs/analysis.md."""
import ctypes
import math

from ._lib import ERR, P, ErrorStruct, check, declare, lib, mirrors

WEIGHTS = {"none": 0, "mass": 1, "volume": 2}  # sk_weight


@mirrors("sk_wstats_column")
class _Column(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("count", ctypes.c_int64)] + \
        [(k, ctypes.c_double) for k in ("weight_sum", "mean", "std", "skewness", "kurtosis",
                                        "min", "max", "median")] + \
        [("percentiles", ctypes.POINTER(ctypes.c_double))]


@mirrors("sk_wstats")
class _WStats(ctypes.Structure):
    _fields_ = [("weight", ctypes.c_int), ("rows", ctypes.c_int64),
                ("npercentiles", ctypes.c_int),
                ("percentiles", ctypes.POINTER(ctypes.c_double)),
                ("ncols", ctypes.c_int), ("cols", ctypes.POINTER(_Column))]


declare("sk_table_wstats_compute", ctypes.c_int, P, ctypes.c_int,
        ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_int, ctypes.POINTER(_WStats),
        ERR)
declare("sk_wstats_free", None, ctypes.POINTER(_WStats))


def percentile_key(p):
    """The key of percentile p in the "percentiles" dicts: its shortest
    text, without ".0" ("5", "2.5"), as the command prints it."""
    p = float(p)
    return str(int(p)) if p.is_integer() else repr(p)


def _number(v):
    return None if not math.isfinite(v) else v


def weighted_stats(table, weight="mass", percentiles=None, threads=0):
    """dict(weight, columns{name: {mean, std, skewness, kurtosis, median,
    percentiles{"5": value, ...}, min, max, weight_sum}}) for every column of
    `table` but a cell table's level, cx, cy, cz. weight: "mass" (cells:
    density x cell volume; particles: mass), "volume" (cells only) or
    "none". Quantiles are exact weighted quantiles (inverted CDF: the
    smallest value whose cumulative weight reaches p/100 of the total),
    kurtosis is the excess kurtosis; NaN results are None."""
    if weight not in WEIGHTS:
        raise ValueError("snapkit: unknown weight %r (mass, volume or none)" % (weight,))
    pct = [float(p) for p in (percentiles or [])]
    arr = (ctypes.c_double * max(len(pct), 1))(*pct)
    s, err = _WStats(), ErrorStruct()
    check(lib.sk_table_wstats_compute(table.handle, WEIGHTS[weight], arr, len(pct),
                                      int(threads), ctypes.byref(s), ctypes.byref(err)), err)
    try:
        columns = {}
        for i in range(s.ncols):
            c = s.cols[i]
            d = {k: _number(getattr(c, k)) for k in ("mean", "std", "skewness", "kurtosis",
                                                     "median")}
            d["percentiles"] = {percentile_key(p): _number(c.percentiles[q])
                                for q, p in enumerate(pct)}
            d.update(min=_number(c.min), max=_number(c.max), weight_sum=_number(c.weight_sum))
            columns[c.name.decode()] = d
        return {"weight": weight, "columns": columns}
    finally:
        lib.sk_wstats_free(ctypes.byref(s))
