"""Profiles: weighted statistics of quantities in bins of a field
(snapkit/profile.h over ctypes; `snapkit profile` on the command line)."""
import ctypes

import numpy as np

from ._lib import ERR, ErrorStruct, P, check, declare, lib, mirrors

_WEIGHTS = {"none": 0, "mass": 1, "volume": 2}
_STATS = {"mean": 0, "std": 1, "sum": 2, "cum_sum": 3, "cum_mean": 4}


@mirrors("sk_profile_options")
class _ProfileOptions(ctypes.Structure):
    _fields_ = [("nbins", ctypes.c_int), ("log", ctypes.c_int), ("has_range", ctypes.c_int),
                ("lo", ctypes.c_double), ("hi", ctypes.c_double), ("weight", ctypes.c_int),
                ("cumulative", ctypes.c_int), ("npercentiles", ctypes.c_int),
                ("percentiles", ctypes.c_double * 16), ("units", ctypes.c_char * 512),
                ("mu", ctypes.c_double)]


declare("sk_profile_options_init", None, ctypes.POINTER(_ProfileOptions))
declare("sk_profile_make", ctypes.c_int, P, ctypes.c_char_p, ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(_ProfileOptions), ctypes.POINTER(P), ERR)
declare("sk_profile_free", None, P)
declare("sk_profile_nbins", ctypes.c_int, P)
declare("sk_profile_edges", ctypes.POINTER(ctypes.c_double), P)
declare("sk_profile_counts", ctypes.POINTER(ctypes.c_int64), P)
declare("sk_profile_weights", ctypes.POINTER(ctypes.c_double), P)
declare("sk_profile_cum_counts", ctypes.POINTER(ctypes.c_int64), P)
declare("sk_profile_cum_weights", ctypes.POINTER(ctypes.c_double), P)
declare("sk_profile_values", ctypes.POINTER(ctypes.c_double), P, ctypes.c_int, ctypes.c_int)
declare("sk_profile_percentiles", ctypes.POINTER(ctypes.c_double), P, ctypes.c_int, ctypes.c_int)
declare("sk_profile_unit", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_profile_bin_unit", ctypes.c_char_p, P)


def _array(ptr, n):
    return np.ctypeslib.as_array(ptr, shape=(n,)).copy()


declare("sk_derive_set_new", ctypes.c_int, P, P, ctypes.POINTER(P), ERR)
declare("sk_derive_set_add", ctypes.c_int, P, ctypes.c_char_p, ctypes.c_int, ERR)
declare("sk_derive_set_apply", ctypes.c_int, P, P, ERR)
declare("sk_derive_set_free", None, P)
declare("sk_quantity_find", P, ctypes.c_char_p)


def _with_fields(src, component, fields, center, axis, bulk_velocity):
    """src (a path: read whole) with every field that is a derived quantity
    and not a column added as a column (in place, for a Table)."""
    from .derive import _frame
    table = src
    if isinstance(src, str):
        from . import open as _open
        table = _open(src).read(component)
    missing = [f for f in dict.fromkeys(fields)
               if f not in table and lib.sk_quantity_find(f.encode())]
    if not missing:
        return table
    frame = _frame(table, center, axis, bulk_velocity)
    err = ErrorStruct()
    dset = P()
    check(lib.sk_derive_set_new(ctypes.byref(frame), None, ctypes.byref(dset), ctypes.byref(err)),
          err)
    try:
        particles = int("position_x" in table)
        for name in missing:
            check(lib.sk_derive_set_add(dset, name.encode(), particles, ctypes.byref(err)), err)
        check(lib.sk_derive_set_apply(dset, table.handle, ctypes.byref(err)), err)
    finally:
        lib.sk_derive_set_free(dset)
    return table


def profile(src, bin_field, fields=("density",), bins=64, weight="mass", log=False,
            range=None, cumulative=False, percentiles=(), units=None, center=None,
            axis=None, bulk_velocity=None, component="hydro"):
    """The profile of fields binned by bin_field, as `snapkit profile`
    (docs/profiles.md): src is a snapkit.Table (its columns, derived ones
    added with snapkit.derive) or a path (read whole; derived quantities
    taken about `center`, code lengths).

    Returns a dict of numpy arrays: "edges" (bins + 1), "count", "weight",
    and per field {"mean", "std", "sum", "p<P>" per percentile, and with
    cumulative "cum_sum", "cum_mean"} under "fields"; "units" per field and
    "bin_unit"; with cumulative also "cum_count", "cum_weight"."""
    if isinstance(fields, str):
        fields = [f.strip() for f in fields.split(",") if f.strip()]
    fields = list(fields)
    if weight not in _WEIGHTS:
        raise ValueError("weight must be mass, volume or none, not %r" % (weight,))
    wanted = [bin_field] + ["mass" if f == "v_circ" else f for f in fields]  # v_circ: from masses
    table = _with_fields(src, component, wanted, center, axis, bulk_velocity)
    opt = _ProfileOptions()
    lib.sk_profile_options_init(ctypes.byref(opt))
    opt.nbins = int(bins)
    opt.log = int(bool(log))
    if range is not None:
        opt.has_range = 1
        opt.lo, opt.hi = float(range[0]), float(range[1])
    opt.weight = _WEIGHTS[weight]
    opt.cumulative = int(bool(cumulative))
    percentiles = [float(p) for p in percentiles]
    if len(percentiles) > 16:
        raise ValueError("at most 16 percentiles")
    opt.npercentiles = len(percentiles)
    for k, p in enumerate(percentiles):
        opt.percentiles[k] = p
    if units:
        text = units if isinstance(units, str) else ",".join("%s=%s" % kv for kv in units.items())
        opt.units = text.encode()
    names = (ctypes.c_char_p * max(len(fields), 1))(*[f.encode() for f in fields])
    err = ErrorStruct()
    out = P()
    check(lib.sk_profile_make(table.handle, bin_field.encode(), len(fields), names,
                              ctypes.byref(opt), ctypes.byref(out), ctypes.byref(err)), err)
    try:
        n = lib.sk_profile_nbins(out)
        result = {"bin": bin_field, "bin_unit": lib.sk_profile_bin_unit(out).decode(),
                  "edges": _array(lib.sk_profile_edges(out), n + 1),
                  "count": _array(lib.sk_profile_counts(out), n),
                  "weight": _array(lib.sk_profile_weights(out), n),
                  "fields": {}, "units": {}}
        if cumulative:
            result["cum_count"] = _array(lib.sk_profile_cum_counts(out), n)
            result["cum_weight"] = _array(lib.sk_profile_cum_weights(out), n)
        for i, name in enumerate(fields):
            stats = {}
            for key, s in _STATS.items():
                if s < 3 or cumulative:
                    stats[key] = _array(lib.sk_profile_values(out, i, s), n)
            for k, p in enumerate(percentiles):
                stats["p%g" % p] = _array(lib.sk_profile_percentiles(out, i, k), n)
            result["fields"][name] = stats
            result["units"][name] = lib.sk_profile_unit(out, i).decode()
        return result
    finally:
        lib.sk_profile_free(out)
