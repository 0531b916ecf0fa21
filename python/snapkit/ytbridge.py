"""snapkit.to_yt: a yt dataset over snapkit's leaf cells and particles.

    import snapkit, yt
    ds = snapkit.to_yt("output_00080")             # or a Table, an Output, a .snapkit file
    yt.ProjectionPlot(ds, "z", ("gas", "density")).save()

The cells become yt's in-memory octree (yt.load_octree, one cell per node:
num_zones=1), rebuilt from each leaf's (level, cx, cy, cz): every ancestor
of a leaf down from the whole box (level 0) is a refined node, and the
mask lists the nodes depth first, children in yt's order (x slowest, z
fastest), which is the order of Morton keys. Fields, units and time follow
yt.load's RAMSES frontend, so a yt script written for yt.load runs on it:
("ramses", "Density"), ("gravity", "Potential"), ("io", "particle_mass"),
the ("gas", ...) aliases, code_length = boxlen x unit_l, code_density =
unit_d, particle families as the filtered types "DM", "star", ...
"""
import ctypes
import os

import numpy as np

from ._lib import ERR, P, ErrorStruct, check, declare, lib, mirrors
from .table import Table


@mirrors("sk_cosmology_summary")
class _CosmologySummary(ctypes.Structure):
    _fields_ = [("cosmological", ctypes.c_int)] + [
        (k, ctypes.c_double) for k in ("aexp", "redshift", "h", "age", "age_today", "lookback")]


declare("sk_cosmology_from_table", ctypes.c_int, P, ctypes.POINTER(_CosmologySummary), ERR)

_DENSITY, _VELOCITY, _PRESSURE = "code_density", "code_velocity", "code_pressure"
_MAGNETIC, _ACCELERATION = "code_magnetic", "code_length/code_time**2"
# snapkit column -> (yt.load's RAMSES field name, its units).
HYDRO = {"density": ("Density", _DENSITY), "pressure": ("Pressure", _PRESSURE),
         "thermal_pressure": ("Pressure", _PRESSURE), "metallicity": ("Metallicity", ""),
         "passive_scalar_1": ("Metallicity", "")}
HYDRO.update({f"velocity_{a}": (f"{a}-velocity", _VELOCITY) for a in "xyz"})
HYDRO.update({f"B_{a}_{s}": (f"B_{a}_{s}", _MAGNETIC) for a in "xyz" for s in ("left", "right")})
GRAVITY = {"potential": ("Potential", "code_velocity**2")}
GRAVITY.update({f"acceleration_{a}": (f"{a}-acceleration", _ACCELERATION) for a in "xyz"})
PARTICLES = {"mass": ("particle_mass", "code_mass"), "identity": ("particle_identity", ""),
             "levelp": ("particle_level", ""), "family": ("particle_family", ""),
             "tag": ("particle_tag", ""), "birth_time": ("particle_birth_time", "code_time"),
             "metallicity": ("particle_metallicity", "")}
PARTICLES.update({f"velocity_{a}": (f"particle_velocity_{a}", _VELOCITY) for a in "xyz"})
PARTICLES.update({f"position_{a}": (f"particle_position_{a}", "code_length") for a in "xyz"})
# Field name -> its ("gas", alias), as yt.load's RAMSES frontend names them.
_ALIASES = {"Density": "density", "Pressure": "pressure", "Metallicity": "metallicity",
            "Potential": "potential"}
_ALIASES.update({f"{a}-velocity": f"velocity_{a}" for a in "xyz"})
_ALIASES.update({f"{a}-acceleration": f"acceleration_{a}" for a in "xyz"})
_ALIASES.update({f"B_{a}_{s}": f"magnetic_field_{a}_{s}" for a in "xyz" for s in ("left", "right")})
_DATASET_TYPE = "snapkit_octree"
MAX_LEVEL = 21  # Morton keys of 3 x 21 bits fit in 64


def _spread(v):
    """The bits of v (< 2^21) two apart: bit i moves to bit 3i."""
    v = v.astype(np.uint64)
    for shift, mask in ((32, 0x1f00000000ffff), (16, 0x1f0000ff0000ff),
                        (8, 0x100f00f00f00f00f), (4, 0x10c30c30c30c30c3),
                        (2, 0x1249249249249249)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def octree(level, cx, cy, cz):
    """(mask, order) for yt.load_octree(num_zones=1) from leaf cells: mask
    (uint8) says of every node depth first whether it is refined, from the
    whole box (level 0) down; the leaves in that order are the rows
    `order`. ValueError unless the cells tile the box exactly once."""
    level = np.asarray(level)
    if level.size == 0:
        raise ValueError("snapkit: to_yt needs at least one cell")
    bits = int(level.max())
    if level.min() < 0 or bits > MAX_LEVEL:
        raise ValueError(f"snapkit: to_yt takes cells of levels 0 to {MAX_LEVEL} "
                         f"(read with lmax={MAX_LEVEL} or less)")
    lev = level.astype(np.uint64)
    shift = np.uint64(3) * (np.uint64(bits) - lev)
    key = ((_spread(np.asarray(cx)) << np.uint64(2)) | (_spread(np.asarray(cy)) << np.uint64(1))
           | _spread(np.asarray(cz))) << shift
    order = np.argsort(key, kind="stable")
    key, shift, level = key[order], shift[order], level[order]
    end = key + (np.uint64(1) << shift)  # the first key after the cell
    if key[0] != 0 or not np.array_equal(end[:-1], key[1:]) or \
            end[-1] != np.uint64(1) << np.uint64(3 * bits):
        raise ValueError("snapkit: to_yt needs leaf cells that fill the whole box once (a read "
                         "without a region; lmax is fine)")
    # Deepest level at which each leaf shares its ancestor with the one
    # before: the keys agree above bit 3 (bits - level).
    common = np.full(level.size, -1, dtype=np.int64)
    powers = np.uint64(1) << (np.uint64(3) * np.arange(bits, dtype=np.uint64))
    common[1:] = bits - np.searchsorted(powers, key[1:] ^ key[:-1], side="right")
    # Before each leaf come its ancestors below that level (refined: 1).
    run = level.astype(np.int64) - common
    mask = np.ones(int(run.sum()), dtype=np.uint8)
    mask[np.cumsum(run) - 1] = 0
    return mask, order


def _cosmology(table):
    s, err = _CosmologySummary(), ErrorStruct()
    check(lib.sk_cosmology_from_table(table.handle, ctypes.byref(s), ctypes.byref(err)), err)
    return s


def _number(text):
    try:
        return float(text)
    except ValueError:
        return text


_CLASSES = {}


def _yt_classes():
    """The field info, index and I/O handler of the bridged datasets
    (defined once: yt registers I/O handlers by dataset type when they are
    made)."""
    if _CLASSES:
        return _CLASSES
    from yt.frontends.stream.data_structures import StreamOctreeHandler
    from yt.frontends.stream.fields import StreamFieldInfo
    from yt.frontends.stream.io import IOHandlerStreamOctree
    from yt.utilities.physical_constants import boltzmann_constant_cgs, mass_hydrogen_cgs

    class SnapkitFieldInfo(StreamFieldInfo):
        known_other_fields = StreamFieldInfo.known_other_fields + tuple(
            (name, (units, [_ALIASES[name]], None))
            for name, units in list(HYDRO.values()) + list(GRAVITY.values()))
        known_particle_fields = StreamFieldInfo.known_particle_fields + (
            ("particle_identity", ("", ["particle_index"], None)),
            ("particle_level", ("", [], None)), ("particle_family", ("", [], None)),
            ("particle_tag", ("", [], None)), ("particle_birth_time", ("code_time", [], None)),
            ("conformal_birth_time", ("", [], None)), ("particle_metallicity", ("", [], None)))

        def setup_fluid_fields(self):
            super().setup_fluid_fields()
            if ("gas", "pressure") in self and ("gas", "density") in self:
                def temperature(field, data):  # p/rho m_H/k_B, as yt's RAMSES frontend
                    return (data["gas", "pressure"] / data["gas", "density"] *
                            (mass_hydrogen_cgs / boltzmann_constant_cgs))
                self.add_field(("gas", "temperature"), sampling_type="cell",
                               function=temperature, units=self.ds.unit_system["temperature"])
            if ("gas", "potential") in self:
                def potential_energy(field, data):
                    return data["gas", "potential"] * data["gas", "mass"]
                self.add_field(("gas", "potential_energy"), sampling_type="cell",
                               function=potential_energy, units=self.ds.unit_system["energy"])
            for a in "xyz":
                if ("gas", f"magnetic_field_{a}_left") in self:
                    def centred(field, data, a=a):  # the mean of the two faces
                        return (data["gas", f"magnetic_field_{a}_left"] +
                                data["gas", f"magnetic_field_{a}_right"]) / 2
                    self.add_field(("gas", f"magnetic_field_{a}"), sampling_type="cell",
                                   function=centred,
                                   units=self.ds.unit_system["magnetic_field_cgs"])

    class SnapkitOctreeIndex(StreamOctreeHandler):
        @property
        def max_level(self):  # the finest level, as RAMSES's index has it
            return self.ds.max_level

    class SnapkitOctreeIO(IOHandlerStreamOctree):
        """The stream octree's reads, and particles: the whole arrays,
        filtered by the selector."""
        _dataset_type = _DATASET_TYPE

        def _positions(self, ptype):
            return [self.fields[0][ptype, f"particle_position_{a}"] for a in "xyz"]

        def _read_particle_coords(self, chunks, ptf):
            for ptype in sorted(ptf):
                yield ptype, tuple(self._positions(ptype)), 0.0

        def _read_particle_fields(self, chunks, ptf, selector):
            for ptype, names in sorted(ptf.items()):
                x, y, z = self._positions(ptype)
                mask = selector.select_points(x, y, z, 0.0)
                if mask is None:
                    continue
                for name in names:
                    yield (ptype, name), np.asarray(self.fields[0][ptype, name])[mask]

    _CLASSES.update(fields=SnapkitFieldInfo, index=SnapkitOctreeIndex, io=SnapkitOctreeIO)
    return _CLASSES


def _rt_name(name):
    """yt's name of an rt column: photon_flux_GG is Photon_density_G,
    photon_flux_GG_x Photon_flux_x_G."""
    parts = name.split("_")
    if len(parts) in (3, 4) and name.startswith("photon_flux_") and parts[2].isdigit():
        group = int(parts[2])
        return f"Photon_flux_{parts[3]}_{group}" if len(parts) == 4 else f"Photon_density_{group}"
    return name


# component -> (yt's field type, snapkit column -> (yt's name, units))
CELLS = {"hydro": ("ramses", lambda n: HYDRO.get(n, ("hydro_" + n, ""))),
         "gravity": ("gravity", lambda n: GRAVITY.get(n, (n, ""))),
         "rt": ("ramses-rt", lambda n: (_rt_name(n), ""))}


def _cell_data(data, component, table, order):
    ftype, name_of = CELLS[component]
    for name in table.columns:
        if name in ("level", "cx", "cy", "cz"):
            continue
        yt_name, units = name_of(name)
        col = np.take(table[name], order).astype(np.float64, copy=False)
        data[ftype, yt_name] = (col.reshape(-1, 1), units)


def _particle_data(data, table, boxlen, cosmo):
    for name in table.columns:
        yt_name, units = PARTICLES.get(name, ("particle_" + name, ""))
        col = table[name]
        if name.startswith("position_"):
            col = col / boxlen  # code_length is the box
        if name == "birth_time" and cosmo.cosmological:
            data["io", "conformal_birth_time"] = (col, "")
            from .ramses import derive
            col = derive(table, "birth_time_proper")  # as yt: proper time since the big bang
        data["io", yt_name] = (col, units)


def _add_families(ds):
    """yt.load's particle types by RAMSES family (DM, star, ...), filters of
    "io" on particle_family, added when yt makes the field info (as yt.load
    does: making it early would cost the bridge yt's field set-up)."""
    import yt
    from yt.frontends.ramses.definitions import particle_families
    make_field_info = ds.create_field_info

    def create_field_info(*args, **kwargs):
        make_field_info(*args, **kwargs)
        for name, code in particle_families.items():
            def keep(pfilter, data, code=code):
                return data[pfilter.filtered_type, "particle_family"] == code
            yt.add_particle_filter(name, function=keep, filtered_type="io",
                                   requires=["particle_family"])
            ds.add_particle_filter(name)
    ds.create_field_info = create_field_info


def _tables(source, particles, gravity, rt, lmax, threads):
    """({component: table} of the cells, particles) from to_yt's arguments."""
    if isinstance(source, Table):
        kind = source.meta.get("kind")
        if kind == "particles":
            return {}, source
        if kind != "cells":
            raise ValueError("snapkit: to_yt takes RAMSES cells or particles, not a table of "
                             f"kind {kind!r}")
        component = source.meta.get("component")
        cells = {component if component in CELLS else "hydro": source}
        cells.update((k, t) for k, t in (("gravity", gravity), ("rt", rt)) if isinstance(t, Table))
        return cells, particles if isinstance(particles, Table) else None
    from . import store
    opened = isinstance(source, (str, bytes, os.PathLike))
    out = store.open(source) if opened else source
    try:
        names = out.tables if hasattr(out, "tables") else \
            [k for k, v in out.info["components"].items() if v]
        cells = {}
        if "hydro" in names:
            cells = {c: out.read(c, lmax=lmax, threads=threads)
                     for c, wanted in (("hydro", True), ("gravity", gravity), ("rt", rt))
                     if c in names and wanted is not False}
        parts = out.read("particles", threads=threads) \
            if "particles" in names and particles is not False else None
    finally:
        if opened:
            out.close()
    return cells, parts


def to_yt(source, particles=None, gravity=None, rt=None, lmax=None, threads=0):
    """A yt dataset (yt.load_octree) of snapkit's leaf cells and particles.

    source: a RAMSES output folder or .snapkit file (path), an open Output
    or File (hydro, gravity, rt and particles are read, those it has; lmax
    caps the cells' level), or a Table of cells (hydro) or of particles.
    With a Table of cells, gravity= and rt= may give the tables of the same
    read and particles= a particle table; with a source, particles=False,
    gravity=False or rt=False leaves them out. The cells must fill the box
    (a read without a region).

    Field names, code units and time are yt.load's for the same output:
    ("ramses", "Density") ... and ("gas", "density") ..., ("gravity",
    "Potential"), ("ramses-rt", "Photon_density_1"), ("io",
    "particle_mass") with the families as filtered particle types (DM,
    star, ...); levels are RAMSES's (0: the box); code_length = boxlen x
    unit_l, code_mass = unit_d x unit_l^3, code_time = unit_t, code_density
    = unit_d, code_velocity = unit_l / unit_t; current_time the output's (cosmological runs: the
    proper time since the big bang, snapkit's figure, 0.57 Myr longer at
    z = 4 than yt's, which leaves out a < 1e-3), with the redshift and
    cosmology set."""
    import yt
    cells, parts = _tables(source, particles, gravity, rt, lmax, threads)
    anchor = next(iter(cells.values()), parts)  # the cells' octree is the first table's
    if anchor is None:
        raise ValueError("snapkit: to_yt found no cells and no particles")
    meta = anchor.meta
    if meta.get("ndim", "3") != "3":
        raise ValueError("snapkit: to_yt takes 3-D outputs only (this one is "
                         f"{meta['ndim']}-D)")
    boxlen, unit_l, unit_d, unit_t = (float(meta.get(k, 1)) for k in
                                      ("boxlen", "unit_l", "unit_d", "unit_t"))
    cosmo = _cosmology(anchor)
    data = {}
    mask, bits = np.zeros(1, dtype=np.uint8), 0
    if cells:
        mask, order = octree(anchor["level"], anchor["cx"], anchor["cy"], anchor["cz"])
        bits = int(anchor["level"].max())
        for component, table in cells.items():
            if table is not anchor and (len(table) != len(anchor) or
                                        not np.array_equal(table["cx"], anchor["cx"])):
                raise ValueError(f"snapkit: to_yt's {component} table has other cells than "
                                 "the hydro table (read both with the same selection)")
            _cell_data(data, component, table, order)
    if parts is not None:
        _particle_data(data, parts, boxlen, cosmo)
    params = {k[len("ramses.info."):]: _number(v) for k, v in meta.items()
              if k.startswith("ramses.info.")}
    params.update(boxlen=boxlen, source=meta.get("source", ""))
    classes = _yt_classes()
    unit_v = unit_l / unit_t
    ds = yt.load_octree(mask, data, bbox=np.array([[0.0, 1.0]] * 3), num_zones=1,
                        partial_coverage=0, length_unit=(boxlen * unit_l, "cm"),
                        mass_unit=(unit_d * unit_l ** 3, "g"), time_unit=(unit_t, "s"),
                        velocity_unit=(unit_v, "cm/s"),
                        magnetic_unit=(np.sqrt(4 * np.pi * unit_d) * unit_v, "gauss"),
                        sim_time=cosmo.age / unit_t, parameters=params)
    # str(ds), and the names of saved plots: output_NNNNN_Projection_z_density.png
    ds.stream_handler.name = os.path.basename(os.path.normpath(meta.get("source", ""))) \
        or "snapkit"
    _finish(ds, classes, bits, cosmo, unit_d, unit_v)
    if parts is not None and "family" in parts.columns:
        _add_families(ds)
    return ds


def _finish(ds, classes, bits, cosmo, unit_d, unit_v):
    """What load_octree leaves as a stream dataset's: the RAMSES code
    units, the levels, the cosmology, the I/O and fields of to_yt."""
    from yt.utilities.physical_constants import kb, mp
    ds.dataset_type = _DATASET_TYPE
    ds._field_info_class = classes["fields"]
    ds._index_class = classes["index"]
    ds.fluid_types += ("ramses", "gravity", "ramses-rt")
    ds.max_level = bits  # the selectors descend no deeper
    # Floats in the registry's base units (SI), as yt's RAMSES frontend makes
    # them: a quantity would cost unyt's symbolic conversion, 25 ms each.
    from unyt import Unit
    unit_temp = unit_v ** 2 * mp.v * 0.76 ** -1 / kb.v  # yt's, with mu = 1/X
    for name, value, symbol in (("density", unit_d, "g/cm**3"),
                                ("pressure", unit_d * unit_v ** 2, "dyne/cm**2"),
                                ("temperature", unit_temp, "K")):
        ds.unit_registry.modify("code_" + name, value * Unit(symbol).base_value)
        setattr(ds, name + "_unit", ds.quan(value, symbol))
    if cosmo.cosmological:
        _set_cosmology(ds, cosmo)


def _set_cosmology(ds, cosmo):
    """The redshift, cosmology and comoving units (pccm, ...; h, a) of a
    cosmological run."""
    from yt.units import dimensions
    from yt.units.unit_object import Unit
    ds.cosmological_simulation = 1
    ds.current_redshift = z = cosmo.redshift
    ds.hubble_constant = cosmo.h
    ds.omega_matter = float(ds.parameters.get("omega_m", 0))
    ds.omega_lambda = float(ds.parameters.get("omega_l", 0))
    reg = ds.unit_registry
    reg.modify("h", cosmo.h)
    reg.modify("a", 1 / (1 + z))
    for name in ("m", "pc", "AU", "au"):
        reg.add(name + "cm", Unit(name, registry=reg).base_value / (1 + z), dimensions.length,
                r"\rm{%s}/(1+z)" % name, prefixable=True)
    ds.setup_cosmology()
