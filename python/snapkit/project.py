"""Projection maps: many quantities in one pass over a cell or particle table."""
import ctypes
import json

import numpy as np

from ._lib import ERR, ErrorStruct, P, c_path, check, declare, lib, mirrors

declare("sk_free", None, P)
declare("sk_project_options_new", P)
declare("sk_project_options_free", None, P)
declare("sk_project_options_set", ctypes.c_int, P, ctypes.c_char_p, ctypes.c_char_p, ERR)
declare("sk_project", ctypes.c_int, P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), P,
        ctypes.POINTER(P), ERR)
declare("sk_maps_free", None, P)
declare("sk_maps_nx", ctypes.c_int, P)
declare("sk_maps_ny", ctypes.c_int, P)
declare("sk_maps_count", ctypes.c_int, P)
declare("sk_maps_name", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_maps_unit", ctypes.c_char_p, P, ctypes.c_int)
declare("sk_maps_data", P, P, ctypes.c_int)
declare("sk_maps_json", P, P, ctypes.c_int)
declare("sk_length_unit_cm", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ERR)
declare("sk_project_ranks", ctypes.c_int, P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), P,
        ctypes.c_int, ctypes.POINTER(P), ERR)


@mirrors("sk_image_options")
class ImageOptions(ctypes.Structure):
    _fields_ = [("log_scale", ctypes.c_int), ("has_range", ctypes.c_int),
                ("vmin", ctypes.c_double), ("vmax", ctypes.c_double)]


declare("sk_maps_write", ctypes.c_int, P, ctypes.c_char_p, ctypes.POINTER(ImageOptions),
        ctypes.POINTER(ctypes.POINTER(P)), ctypes.POINTER(ctypes.c_int), ERR)


def _text(value):
    if isinstance(value, (list, tuple, np.ndarray)):
        return " ".join(repr(float(v)) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _units_text(units):
    if units is None:
        return None
    if isinstance(units, dict):
        return ",".join(f"{k}={v}" for k, v in units.items())
    if isinstance(units, (list, tuple)):
        return ",".join(units)
    return str(units)


class Maps:
    """Maps of one projection. `maps["sd"]` is a 2-D numpy array of ny rows
    (the image's second axis, from its low end) and nx columns, sharing the
    library's memory. `extent` is (umin, umax, vmin, vmax) in code lengths,
    ready for matplotlib's imshow(..., origin="lower", extent=maps.extent);
    extent_in("kpc") gives it in a physical length unit."""

    def __init__(self, handle):
        self._h = P(handle)
        text = lib.sk_maps_json(self._h, 0)
        if not text:
            raise MemoryError("snapkit: out of memory")
        try:
            self.info = json.loads(ctypes.string_at(text).decode())
        finally:
            lib.sk_free(text)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            lib.sk_maps_free(h)
            self._h = None

    @property
    def nx(self):
        return int(lib.sk_maps_nx(self._h))

    @property
    def ny(self):
        return int(lib.sk_maps_ny(self._h))

    @property
    def names(self):
        return [lib.sk_maps_name(self._h, i).decode() for i in range(lib.sk_maps_count(self._h))]

    def keys(self):
        return self.names

    def __iter__(self):
        return iter(self.names)

    def __len__(self):
        return int(lib.sk_maps_count(self._h))

    def __contains__(self, name):
        return name in self.names

    def items(self):
        return [(n, self[n]) for n in self.names]

    @property
    def units(self):
        """Unit of each map, by name."""
        return {lib.sk_maps_name(self._h, i).decode(): lib.sk_maps_unit(self._h, i).decode()
                for i in range(len(self))}

    @property
    def extent(self):
        return tuple(self.info["extent"])

    @property
    def length_unit(self):
        """The length unit the maps are best shown in ("kpc", "pc", "cm", ...):
        the region's unit when physical, else chosen from the image width.
        FITS maps carry their world coordinates in it (CUNIT)."""
        return self.info["length_unit"]

    def extent_in(self, unit=None):
        """extent in a length unit (default length_unit), for imshow's
        extent= with axes in physical lengths."""
        unit = unit or self.length_unit
        cm, err = ctypes.c_double(), ErrorStruct()
        check(lib.sk_length_unit_cm(unit.encode(), ctypes.byref(cm), ctypes.byref(err)), err)
        f = self.info["unit_l"] / cm.value
        return tuple(e * f for e in self.extent)

    @property
    def pixel_size(self):
        """Pixel size in code lengths (pixel_size_cm in info for cm)."""
        return self.info["pixel_size"]

    @property
    def seconds(self):
        return self.info["seconds"]

    def __getitem__(self, name):
        names = self.names
        if name not in names:
            raise KeyError(name)
        ptr = lib.sk_maps_data(self._h, names.index(name))
        n = self.nx * self.ny
        buf = (ctypes.c_double * n).from_address(ptr)
        buf._owner = self  # the memory lives as long as the maps
        return np.frombuffer(buf, dtype=np.float64).reshape(self.ny, self.nx)

    def save(self, path, log=None, vmin=None, vmax=None):
        """Write .fits (all maps), .npy or .png (one map, or a "{var}"
        pattern); PNGs get a PATH.json sidecar with the colour range.
        Returns the files written."""
        img = ImageOptions(-1 if log is None else int(bool(log)), 0, 0.0, 0.0)
        if vmin is not None or vmax is not None:
            if vmin is None or vmax is None:
                raise ValueError("snapkit: give both vmin and vmax")
            img.has_range, img.vmin, img.vmax = 1, float(vmin), float(vmax)
        files = ctypes.POINTER(P)()
        count = ctypes.c_int(0)
        err = ErrorStruct()
        status = lib.sk_maps_write(self._h, c_path(path), ctypes.byref(img),
                                   ctypes.byref(files), ctypes.byref(count), ctypes.byref(err))
        names = [ctypes.string_at(files[i]).decode() for i in range(count.value)]
        for i in range(count.value):
            lib.sk_free(files[i])
        if files:
            lib.sk_free(ctypes.cast(files, P))
        check(status, err)
        return names

    def __repr__(self):
        return (f"<snapkit.Maps {self.nx}x{self.ny}: "
                + ", ".join(f"{n} [{u}]" for n, u in self.units.items()) + ">")


def project(table, quantities, axis="z", direction=None, up=None, angles=None, res=None,
            pixel=None, pixel_unit=None, unit=None, center=None, xrange=None, yrange=None,
            zrange=None, los=None, fov=None, weight="mass", mode="mean", kernel=None,
            family=None, mu=None, gamma=None, units=None, threads=0, strategy=None,
            memory_budget=None, private_budget=None, overlap_max=None, comm=None,
            all_ranks=False):
    """Project a snapkit.Table of cells or particles; returns Maps.

    quantities: "sd,T" or ["sd", "T", "velocity_x", "count", ...].
    axis "x"|"y"|"z", or direction=(nx, ny, nz) [with up=(ux, uy, uz)] or
    angles=(theta, phi) in degrees. res: pixels across the whole box
    (default 2^lmax); pixel: pixel size in pixel_unit (default `unit`).
    unit: unit of center, ranges, los, fov ("standard" box units by default,
    "code", "kpc", ...). center=(x, y, z) or "bc". los=(lo, hi) limits the
    line of sight; fov=w or (w, h) for off-axis maps. weight "mass"|"volume",
    mode "mean"|"sum", kernel "exact"|"overlap"|"cic"|"ngp", family (particles).
    units: "Msun/pc2,km/s" or {"sd": "g/cm2", "T": "K"}.

    comm (mpi4py's MPI.COMM_WORLD, under mpirun): every rank passes its
    share of the table (snapkit.open(path, comm=comm)) and the same
    arguments; rank 0 gets the maps of the whole table (every rank with
    all_ranks=True), the others None. The maps equal one process's within
    1e-14 of each map's largest magnitude (count maps exactly); see
    docs/mpi.md."""
    if isinstance(quantities, str):
        quantities = [q.strip() for q in quantities.split(",") if q.strip()]
    settings = {"axis": axis if direction is None and angles is None else None,
                "direction": direction, "up": up, "angles": angles, "res": res, "pixel": pixel,
                "pixel_unit": pixel_unit, "unit": unit, "center": center, "xrange": xrange,
                "yrange": yrange, "zrange": zrange, "los": los, "fov": fov, "weight": weight,
                "mode": mode, "kernel": kernel, "family": family, "mu": mu, "gamma": gamma,
                "units": _units_text(units), "threads": threads, "strategy": strategy,
                "memory_budget": memory_budget, "private_budget": private_budget,
                "overlap_max": overlap_max}
    err = ErrorStruct()
    opt = lib.sk_project_options_new()
    if not opt:
        raise MemoryError("snapkit: out of memory")
    try:
        for key, value in settings.items():
            if value is None:
                continue
            check(lib.sk_project_options_set(opt, key.encode(), _text(value).encode(),
                                             ctypes.byref(err)), err)
        names = (ctypes.c_char_p * len(quantities))(*[q.encode() for q in quantities])
        out = P()
        if comm is not None:
            from .ramses import check_comm
            check_comm(comm)
            check(lib.sk_project_ranks(table.handle, len(quantities), names, opt,
                                       int(bool(all_ranks)), ctypes.byref(out),
                                       ctypes.byref(err)), err)
        else:
            check(lib.sk_project(table.handle, len(quantities), names, opt, ctypes.byref(out),
                                 ctypes.byref(err)), err)
    finally:
        lib.sk_project_options_free(opt)
    return Maps(out.value) if out.value else None
