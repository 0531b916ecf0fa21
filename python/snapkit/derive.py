"""Quantities derived per row, about a centre and a frame (snapkit/derive.h).

    import snapkit
    out = snapkit.open("output_00002")
    gas = out.hydro()
    c = [0.5 * out.info["info"]["boxlen"]] * 3            # code lengths
    vphi = snapkit.derive(gas, "v_phi", center=c, axis=(0, 0, 1))
    vphi_kms = snapkit.derive(gas, "v_phi", center=c, unit="km/s")
    q = snapkit.derive(gas, "v_phi", center=c, astropy=True)   # astropy Quantity

Every row of a cell table (cell centres from level, cx, cy, cz) or a
particle table; displacements from the centre wrap to the nearest periodic
image. snapkit.quantities() lists the names with their formulas; the same
list is in docs/analysis.md and `snapkit stats --list-quantities`.
"""
import ctypes
import json

import numpy as np

from ._lib import ERR, P, ErrorStruct, check, declare, lib, mirrors
from .ramses import _Json, _Units, _units_of
from .ramses import derive as _ramses_derive


@mirrors("sk_frame")
class _Frame(ctypes.Structure):
    _fields_ = [("has_center", ctypes.c_int), ("center", ctypes.c_double * 3),
                ("bulk_velocity", ctypes.c_double * 3), ("axis", ctypes.c_double * 3)]


@mirrors("sk_derive_options")
class _Options(ctypes.Structure):
    _fields_ = [("gamma", ctypes.c_double), ("mu", ctypes.c_double),
                ("hydrogen_fraction", ctypes.c_double)]


declare("sk_derive", ctypes.c_int, P, ctypes.c_char_p, ctypes.POINTER(_Frame),
        ctypes.POINTER(_Options), ctypes.POINTER(ctypes.c_double), ERR)
declare("sk_quantities_json", None, ctypes.POINTER(_Json))
declare("sk_quantity_find", ctypes.c_void_p, ctypes.c_char_p)
declare("sk_quantity_unit_factor", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_Units),
        ctypes.POINTER(_Options), ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ERR)

_QUANTITIES = None
# Derived by snapkit.ramses.derive only (positions and particle times).
_RAMSES_ONLY = ("cell_size", "x", "y", "z", "birth_time_proper", "age")


def quantities():
    """Every derived quantity: a list of dicts with name, formula,
    description, dimension, cgs_unit, needs (center, axis, bulk_velocity,
    gamma, units) and the columns it reads from cells and from particles
    (None: not a quantity of that kind)."""
    global _QUANTITIES
    if _QUANTITIES is None:
        j = _Json()
        lib.sk_json_init(ctypes.byref(j), 0)
        try:
            lib.sk_quantities_json(ctypes.byref(j))
            _QUANTITIES = json.loads(ctypes.string_at(j.buf, j.len).decode())
        finally:
            lib.sk_json_free(ctypes.byref(j))
    return [dict(q) for q in _QUANTITIES]


def _vector(value, name, to_code):
    """Three floats in code units; an astropy Quantity is converted with
    to_code(cgs unit) first."""
    if value is None:
        return None
    if hasattr(value, "unit"):
        unit, factor = to_code
        value = value.to_value(unit) / factor
    v = np.asarray(value, dtype=np.float64).reshape(-1)
    if v.size != 3:
        raise ValueError("snapkit: %s needs three values, got %d" % (name, v.size))
    return v


def _frame(table, center, axis, bulk_velocity):
    u = _units_of(table)
    f = _Frame()
    c = _vector(center, "center", ("cm", u.unit_l))
    if c is not None:
        f.has_center = 1
        f.center[:] = c
    b = _vector(bulk_velocity, "bulk_velocity", ("cm/s", u.unit_v))
    if b is not None:
        f.bulk_velocity[:] = b
    a = _vector(axis, "axis", (None, 1.0))
    if a is not None:
        f.axis[:] = a
    return f


def _astropy_unit(table, q, options):
    """The code unit of quantity q as a scaled CGS astropy unit, as
    Table.to_astropy() gives columns."""
    import astropy.units as u
    err, factor = ErrorStruct(), ctypes.c_double()
    units = _units_of(table)
    opt = _Options(options.gamma, options.mu, options.hydrogen_fraction)
    cgs = q["cgs_unit"]
    if cgs is None:  # entropy: erg/cm3 / (g/cm3)^gamma
        if not opt.gamma > 0:
            opt.gamma = float(table.meta.get("gamma", "nan"))
        cgs_unit = (u.erg / u.cm ** 3) / (u.g / u.cm ** 3) ** opt.gamma
    else:
        cgs_unit = u.Unit(cgs)
    check(lib.sk_quantity_unit_factor(lib.sk_quantity_find(q["name"].encode()),
                                      ctypes.byref(units), ctypes.byref(opt), b"cgs",
                                      ctypes.byref(factor), ctypes.byref(err)), err)
    return u.Unit(factor.value * cgs_unit) if factor.value != 1 else cgs_unit


def derive(table, what, center=None, axis=None, bulk_velocity=None, unit=None, astropy=False,
           gamma=None, mu=None, hydrogen_fraction=None):
    """Quantity `what` of every row of a cell or particle table, as a new
    float64 numpy array, in code units.

    what: a name of quantities() (r, theta, phi, v_r, v_theta, v_phi, v_tan,
    R, z, v_R, v_z, j_x, j_y, j_z, j, mass, volume, T, cs, mach, entropy,
    ekin, eth, v, v_rel, n, nH, B, ...), or one of the older RAMSES ones
    (cell_size, x, y, z, birth_time_proper, age: see snapkit.ramses.derive).
    center: the centre, code lengths (box units x boxlen) or an astropy
    Quantity; axis: the cylindrical axis (default z); bulk_velocity: the
    frame's velocity, code units or a Quantity (default 0).
    unit: a unit of the quantity's dimension ("km/s", "kpc", "K", "Msun",
    "cm-3", "cgs", ...) to return values in instead of code units;
    astropy=True: an astropy Quantity in the code unit expressed in CGS (as
    Table.to_astropy() gives columns), to convert with .to().
    gamma (default: the table's), mu (default 1/X) and hydrogen_fraction X
    (default 0.76) for the quantities that use them."""
    if not isinstance(what, str):
        raise TypeError("snapkit: derive() takes one quantity name")
    known = {q["name"]: q for q in quantities()}
    # "z" without a centre is the position, as it was before the frame
    # quantities came (with one: the height along the axis)
    if what in _RAMSES_ONLY and (what not in known or center is None):
        return _ramses_derive(table, what)
    if unit is not None and astropy:
        raise ValueError("snapkit: derive() takes unit= or astropy=True, not both")
    frame = _frame(table, center, axis, bulk_velocity)
    options = _Options(gamma or 0.0, mu or 0.0, hydrogen_fraction or 0.0)
    out = np.empty(len(table), dtype=np.float64)
    err = ErrorStruct()
    check(lib.sk_derive(table.handle, what.encode(), ctypes.byref(frame), ctypes.byref(options),
                        out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), ctypes.byref(err)),
          err)
    if unit is not None:
        factor, units = ctypes.c_double(), _units_of(table)
        check(lib.sk_quantity_unit_factor(lib.sk_quantity_find(what.encode()),
                                          ctypes.byref(units), ctypes.byref(options),
                                          unit.encode(), ctypes.byref(factor),
                                          ctypes.byref(err)), err)
        out *= factor.value
    if astropy:
        try:
            import astropy.units as u
        except ImportError:
            raise ImportError("snapkit: derive(..., astropy=True) needs astropy (Debian: "
                              "apt-get install python3-astropy; elsewhere: pip install "
                              "astropy)") from None
        return u.Quantity(out, _astropy_unit(table, known[what], options), copy=False)
    return out
