"""Atom files: LAMMPS dump, LAMMPS data and extended XYZ, read and written
with every digit kept.

    import snapkit.atoms as sa
    s = sa.read("run.lammpstrj", frame=-1)     # a System
    s["x"], s.positions, s.cell, s.pbc, s.meta
    sa.write("run.extxyz", s)
    atoms = s.to_ase(); s2 = sa.System.from_ase(atoms)

Columns are numpy arrays over the C library's memory (no copies); a System
keeps its table alive. Errors raise snapkit.Error naming file, line and
column.
"""
import ctypes
import glob as globmod
import os

import numpy as np

from ._lib import ERR, Closing, ErrorStruct, P, c_path, check, declare, lib, mirrors
from .table import _DTYPES, CATEGORY, Table

_FORMATS = {None: 0, "auto": 0, "dump": 1, "lammps-dump": 1, "lammps-dump-text": 1,
            "lammpstrj": 1, "data": 2, "lammps-data": 2, "lmp": 2, "extxyz": 3, "xyz": 3}
_NAMES = {1: "dump", 2: "data", 3: "extxyz"}


@mirrors("sk_atoms_options")
class _Options(ctypes.Structure):
    _fields_ = [("threads", ctypes.c_int), ("atom_style", ctypes.c_char_p),
                ("gzip_level", ctypes.c_int), ("no_fsync", ctypes.c_int)]


@mirrors("sk_xyz_value")
class _XyzValue(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("ndim", ctypes.c_int), ("shape", ctypes.c_int64 * 2),
                ("n", ctypes.c_int64), ("data", ctypes.c_void_p)]


_OPTS = ctypes.POINTER(_Options)
_PP = ctypes.POINTER(ctypes.c_void_p)
declare("sk_atoms_read", ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_int64, _OPTS,
        _PP, ERR)
declare("sk_atoms_open", ctypes.c_int, _PP, ctypes.c_char_p, ctypes.c_int, _OPTS, ERR)
declare("sk_atoms_open_memory", ctypes.c_int, _PP, ctypes.c_char_p, ctypes.c_size_t,
        ctypes.c_char_p, ctypes.c_int, _OPTS, ERR)
declare("sk_atoms_close", None, P)
declare("sk_atoms_file_format", ctypes.c_int, P)
declare("sk_atoms_count_frames", ctypes.c_int, P, ctypes.POINTER(ctypes.c_int64), ERR)
declare("sk_atoms_read_frame", ctypes.c_int, P, ctypes.c_int64, _PP, ERR)
declare("sk_atoms_next", ctypes.c_int, P, _PP, ERR)
declare("sk_atoms_frame_header", ctypes.c_int, P, ctypes.c_int64, _PP,
        ctypes.POINTER(ctypes.c_int64), ERR)
declare("sk_atoms_writer_open", ctypes.c_int, _PP, ctypes.c_char_p, ctypes.c_int, _OPTS, ERR)
declare("sk_atoms_writer_add", ctypes.c_int, P, P, ERR)
declare("sk_atoms_writer_commit", ctypes.c_int, P, ERR)
declare("sk_atoms_writer_abort", None, P)


@mirrors("sk_atoms_frame_info")
class _FrameInfo(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_int64), ("line", ctypes.c_int64),
                ("natoms", ctypes.c_int64), ("timestep", ctypes.c_int64)]


_NO_TIMESTEP = -2**63
declare("sk_atoms_traj_open", ctypes.c_int, _PP, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
        ctypes.c_int, _OPTS, ctypes.c_int, ERR, ERR)
declare("sk_atoms_traj_close", None, P)
declare("sk_atoms_traj_count", ctypes.c_int64, P)
declare("sk_atoms_traj_frame", ctypes.c_int, P, ctypes.c_int64, ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(_FrameInfo))
declare("sk_atoms_traj_read", ctypes.c_int, P, ctypes.c_int64, _PP, ERR)
declare("sk_element_from_mass", ctypes.c_char_p, ctypes.c_double)
declare("sk_xyz_value_parse", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(_XyzValue), ERR)
declare("sk_xyz_value_free", None, ctypes.POINTER(_XyzValue))
declare("sk_element_mass", ctypes.c_double, ctypes.c_char_p)


def _format_code(format):
    try:
        return _FORMATS[format]
    except KeyError:
        raise ValueError(f"snapkit: unknown atom file format {format!r} "
                         "(dump, data or extxyz)") from None


def _options(threads=0, atom_style=None, gzip_level=0, fsync=True):
    return _Options(int(threads), atom_style.encode() if atom_style else None, int(gzip_level),
                    0 if fsync else 1)


def _vec(text):
    return np.array([float(v) for v in text.split()], dtype=np.float64)


_XYZ_DTYPES = {1: ctypes.c_uint8, 2: ctypes.c_int64, 3: ctypes.c_double}


def _info_value(text):
    """An extxyz comment value as written, typed by the library's grammar:
    bool, int, float or str, or a numpy array (bool, int64, float64, str)
    of 1 or 2 dimensions."""
    v, err = _XyzValue(), ErrorStruct()
    check(lib.sk_xyz_value_parse(text.encode(), ctypes.byref(v), ctypes.byref(err)), err)
    try:
        n = v.n
        if v.type == 4:
            ptrs = ctypes.cast(v.data, ctypes.POINTER(ctypes.c_char_p))
            arr = np.array([ptrs[i].decode() for i in range(n)])
        else:
            ptr = ctypes.cast(v.data, ctypes.POINTER(_XYZ_DTYPES[v.type]))
            arr = np.ctypeslib.as_array(ptr, (n,)).copy()
            if v.type == 1:
                arr = arr.astype(bool)
        if v.ndim == 0:
            return arr[0].item()
        return arr.reshape(tuple(v.shape[:v.ndim]))
    finally:
        lib.sk_xyz_value_free(ctypes.byref(v))


class System:
    """One frame of atoms: named columns (numpy, no copies), the box and
    the frame's metadata. s["x"] is a column; s.positions stacks x y z."""

    def __init__(self, table):
        self.table = table

    # columns
    @property
    def columns(self):
        return self.table.columns

    def __getitem__(self, name):
        return self.table[name]

    def __contains__(self, name):
        return name in self.table

    def __len__(self):
        return len(self.table)

    @property
    def meta(self):
        return self.table.meta

    def set_meta(self, key, value):
        """Set one metadata value (e.g. "lammps.masses" to "63.546 58.693",
        the masses of types 1, 2 that a data file then carries)."""
        lib.sk_table_meta_set(self.table.handle, str(key).encode(), str(value).encode())

    @property
    def positions(self):
        """(N, 3) array of x y z (a copy: the columns are stored apart)."""
        return np.column_stack([self["x"], self["y"], self["z"]])

    # box
    @property
    def cell(self):
        """3x3 array whose rows are the edge vectors a, b, c; None without a box."""
        m = self.meta
        if "box.a" not in m:
            return None
        return np.array([_vec(m["box.a"]), _vec(m["box.b"]), _vec(m["box.c"])])

    @property
    def origin(self):
        m = self.meta
        return _vec(m["box.origin"]) if "box.origin" in m else np.zeros(3)

    @property
    def pbc(self):
        m = self.meta
        if "box.pbc" not in m:
            return np.zeros(3, dtype=bool)
        return np.array([f == "T" for f in m["box.pbc"].split()])

    def set_box(self, cell, origin=(0.0, 0.0, 0.0), pbc=(True, True, True)):
        """Give the frame a box (rows of cell are a, b, c)."""
        cell = np.asarray(cell, dtype=np.float64).reshape(3, 3)
        meta = {"box.origin": " ".join(repr(float(v)) for v in origin),
                "box.a": " ".join(repr(float(v)) for v in cell[0]),
                "box.b": " ".join(repr(float(v)) for v in cell[1]),
                "box.c": " ".join(repr(float(v)) for v in cell[2]),
                "box.pbc": " ".join("T" if p else "F" for p in pbc)}
        for k, v in meta.items():
            lib.sk_table_meta_set(self.table.handle, k.encode(), v.encode())

    @property
    def timestep(self):
        v = self.meta.get("timestep")
        return int(v) if v is not None else None

    # molecular topology (LAMMPS data files)
    def _topology(self, key, natoms):
        text = self.meta.get("lammps." + key, "")
        return np.array(text.split(), dtype=np.int64).reshape(-1, 2 + natoms)

    @property
    def bonds(self):
        """(n, 4) int64 array of the Bonds rows: id, type, atom1, atom2
        (atom ids, not row indexes); (0, 4) without bonds."""
        return self._topology("bonds", 2)

    @property
    def angles(self):
        """(n, 5) int64 array: id, type, atom1, atom2 (the apex), atom3."""
        return self._topology("angles", 3)

    @property
    def dihedrals(self):
        """(n, 6) int64 array: id, type, atom1 .. atom4."""
        return self._topology("dihedrals", 4)

    @property
    def impropers(self):
        """(n, 6) int64 array: id, type, atom1 .. atom4."""
        return self._topology("impropers", 4)

    def _ase_topology(self, atoms):
        """Bonds, angles and dihedrals as ASE's lammps-data reader holds them:
        per-atom strings of 0-based partner indexes and the type ("1(2),4(1)"
        on the first atom of a bond, "0-2(1)" on the apex of an angle,
        "1-2-3(1)" on the first atom of a dihedral), "_" where none."""
        if "id" not in self.columns:
            return
        index = {int(v): i for i, v in enumerate(self["id"])}
        n = len(self)
        for name, rows, at in (("bonds", self.bonds, 0), ("angles", self.angles, 1),
                               ("dihedrals", self.dihedrals, 0)):
            if len(rows) == 0:
                continue
            text = [""] * n
            for row in rows.tolist():
                idx = [index[a] for a in row[2:]]
                owner = idx.pop(at)
                item = "-".join(str(i) for i in idx) + f"({row[1]})"
                text[owner] = f"{text[owner]},{item}" if text[owner] else item
            atoms.new_array(name, np.array([t or "_" for t in text]))

    @property
    def info(self):
        """The extxyz comment's other key=value pairs, parsed."""
        return {k[7:]: _info_value(v) for k, v in self.meta.items() if k.startswith("extxyz.")}

    def __repr__(self):
        return (f"<snapkit.atoms.System {len(self)} atoms ({self.meta.get('format', '?')}): "
                f"{', '.join(self.columns)}>")

    # construction
    @classmethod
    def from_arrays(cls, columns, cell=None, origin=(0.0, 0.0, 0.0), pbc=(True, True, True),
                    meta=None):
        """A system from a dict of equal-length arrays (copied); strings
        become category columns (e.g. element)."""
        s = cls(Table.from_arrays(columns, meta=meta))
        if cell is not None:
            s.set_box(cell, origin, pbc)
        return s

    @classmethod
    def from_ase(cls, atoms):
        """A system from an ase.Atoms: element, x y z, every per-atom array
        (N x k arrays as name_0 .. name_k-1), the cell, pbc and info."""
        cols = {"element": np.array(atoms.get_chemical_symbols())}
        pos = atoms.get_positions()
        cols["x"], cols["y"], cols["z"] = pos[:, 0], pos[:, 1], pos[:, 2]
        for name, arr in atoms.arrays.items():
            if name in ("numbers", "positions"):
                continue
            arr = np.asarray(arr)
            if arr.ndim == 1:
                cols[name] = arr
            else:
                for k in range(arr.shape[1]):
                    cols[f"{name}_{k}"] = arr[:, k]
        meta = {}
        for key, value in atoms.info.items():
            meta["extxyz." + key] = _info_text(value)
        s = cls.from_arrays(cols, meta=meta)
        if atoms.cell.rank > 0 or atoms.pbc.any():
            s.set_box(np.array(atoms.cell), np.asarray(atoms.get_celldisp()).reshape(3), atoms.pbc)
        return s

    def to_ase(self, types=None):
        """An ase.Atoms: symbols from the element column, else from `types`
        ({type: symbol}), else guessed from the data file's masses; positions,
        cell, pbc, masses, momenta and charges where present, the other
        columns as atoms.arrays, the extxyz info as atoms.info. From a
        LAMMPS data file: mol also as "mol-id", and bonds, angles and
        dihedrals as the per-atom strings ASE's own lammps-data reader makes
        (ASE has nowhere for impropers or Coeffs: see s.impropers, s.meta)."""
        import ase

        n = len(self)
        symbols = self._symbols(types)
        kwargs = {"symbols": symbols, "positions": self.positions}
        cell = self.cell
        if cell is not None:
            kwargs["cell"] = cell
            kwargs["pbc"] = self.pbc
            if np.any(self.origin != 0):
                kwargs["celldisp"] = self.origin
        cols = self.columns
        if "masses" in cols:
            kwargs["masses"] = np.array(self["masses"])
        if all(f"momenta_{k}" in cols for k in range(3)):
            kwargs["momenta"] = np.column_stack([self[f"momenta_{k}"] for k in range(3)])
        for q in ("q", "charge", "charges"):
            if q in cols:
                kwargs["charges"] = np.array(self[q])
                break
        atoms = ase.Atoms(**kwargs)
        used = {"element", "x", "y", "z", "masses", "momenta_0", "momenta_1", "momenta_2",
                "q", "charge", "charges"}
        for name in cols:
            if name not in used:
                arr = self[name]
                atoms.new_array(name, np.array(arr) if len(arr) == n else arr)
        if "mol" in cols:
            atoms.new_array("mol-id", np.array(self["mol"]))
        self._ase_topology(atoms)
        atoms.info.update(self.info)
        if self.timestep is not None:
            atoms.info.setdefault("timestep", self.timestep)
        return atoms

    def _symbols(self, types):
        if "element" in self.columns:
            return list(self["element"])
        if "type" in self.columns:
            t = np.asarray(self["type"])
            mapping = dict(types or {})
            if not mapping and "lammps.masses" in self.meta:
                for k, m in enumerate(self.meta["lammps.masses"].split(), start=1):
                    sym = lib.sk_element_from_mass(float(m))
                    if sym:
                        mapping[k] = sym.decode()
            if mapping:
                lut = {k: mapping.get(k, "X") for k in np.unique(t)}
                return [lut[v] for v in t]
        return ["X"] * len(self)


_BARE_UNSAFE = set(' \t\r\n="\'\\[]{},')


def _quoted(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _info_word(value, in_array=False):
    """One scalar as extxyz text: T/F, an int, the shortest float, a string
    (quoted when it has to be, and always inside arrays)."""
    if isinstance(value, (bool, np.bool_)):
        return "T" if value else "F"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    s = str(value)
    if in_array or not s or any(c in _BARE_UNSAFE or ord(c) < 32 for c in s):
        return _quoted(s)
    return s


def _info_text(value):
    """A Python value as extxyz comment text that reads back to it: scalars
    bare, number and bool vectors old-style ("1 2 3", as ASE writes them),
    string arrays, one-element and 2-D arrays new-style ([[1, 2], [3, 4]]).
    A string that reads as a number or a bool comes back as one (ASE's
    grammar has no way to say otherwise)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        arr = np.asarray(value)
        if arr.ndim == 0:
            return _info_word(arr.item())
        if arr.size == 0 or arr.ndim > 2:
            return _quoted(str(value))
        strings = arr.dtype.kind not in "biuf"
        if arr.ndim == 1 and len(arr) > 1 and not strings:
            return '"' + " ".join(_info_word(v) for v in arr.tolist()) + '"'
        row = lambda r: "[" + ", ".join(_info_word(v, strings) for v in r) + "]"
        return row(arr.tolist()) if arr.ndim == 1 else "[" + ", ".join(row(r) for r in arr.tolist()) + "]"
    return _info_word(value)


# ---- reading --------------------------------------------------------------

class File(Closing):
    """An open atom file: frame count, frames by index, iteration."""

    def __init__(self, path, format=None, threads=0, atom_style=None):
        self._h = ctypes.c_void_p()
        self._opts = _options(threads, atom_style)
        err = ErrorStruct()
        check(lib.sk_atoms_open(ctypes.byref(self._h), c_path(path), _format_code(format),
                                ctypes.byref(self._opts), ctypes.byref(err)), err)

    def close(self):
        if self._h:
            lib.sk_atoms_close(self._h)
            self._h = ctypes.c_void_p()

    @property
    def format(self):
        return _NAMES[lib.sk_atoms_file_format(self._h)]

    def __len__(self):
        n = ctypes.c_int64()
        err = ErrorStruct()
        check(lib.sk_atoms_count_frames(self._h, ctypes.byref(n), ctypes.byref(err)), err)
        return n.value

    def frame(self, k):
        t = ctypes.c_void_p()
        err = ErrorStruct()
        check(lib.sk_atoms_read_frame(self._h, int(k), ctypes.byref(t), ctypes.byref(err)), err)
        return System(Table(t.value))

    def header(self, k=0):
        """Frame k without its atoms: (System of 0 rows with the columns and
        metadata, atom count)."""
        t = ctypes.c_void_p()
        n = ctypes.c_int64()
        err = ErrorStruct()
        check(lib.sk_atoms_frame_header(self._h, int(k), ctypes.byref(t), ctypes.byref(n),
                                        ctypes.byref(err)), err)
        return System(Table(t.value)), n.value

    def __iter__(self):
        while True:
            t = ctypes.c_void_p()
            err = ErrorStruct()
            check(lib.sk_atoms_next(self._h, ctypes.byref(t), ctypes.byref(err)), err)
            if not t.value:
                return
            yield System(Table(t.value))


def read(path, format=None, frame=0, threads=0, atom_style=None):
    """Frame `frame` of an atom file (0 = first, -1 = last) as a System;
    frame=slice(...) or ":" gives a list of Systems. format: dump, data or
    extxyz (default: from the name, then the content)."""
    if frame == ":":
        frame = slice(None)
    if isinstance(frame, slice):
        with File(path, format, threads, atom_style) as f:
            if frame == slice(None):
                return list(f)
            return [f.frame(k) for k in range(len(f))[frame]]
    t = ctypes.c_void_p()
    err = ErrorStruct()
    opts = _options(threads, atom_style)
    check(lib.sk_atoms_read(c_path(path), _format_code(format), int(frame),
                            ctypes.byref(opts), ctypes.byref(t), ctypes.byref(err)), err)
    return System(Table(t.value))


def _paths(path):
    """A path, a glob pattern naming no file (its matches, sorted), or a list."""
    if isinstance(path, (str, bytes, os.PathLike)):
        p = os.fspath(path)
        p = p.decode() if isinstance(p, bytes) else p
        if not os.path.exists(p) and any(c in p for c in "*?["):
            found = sorted(globmod.glob(p))
            if not found:
                raise FileNotFoundError(f"snapkit: {p}: no file matches this pattern")
            return found
        return [p]
    found = [os.fspath(q) for q in path]
    if not found:
        raise ValueError("snapkit: no trajectory files")
    return found


class _TrajHandle(Closing):
    def __init__(self, paths, format, opts, index):
        self.paths = paths
        self._opts = opts
        self._h = ctypes.c_void_p()
        arr = (ctypes.c_char_p * len(paths))(*[c_path(p) for p in paths])
        err, stale = ErrorStruct(), ErrorStruct()
        check(lib.sk_atoms_traj_open(ctypes.byref(self._h), arr, len(paths), _format_code(format),
                                     ctypes.byref(opts), int(bool(index)), ctypes.byref(stale),
                                     ctypes.byref(err)), err)
        self.stale = stale.message.decode("utf-8", "replace") if stale.code else None
        n = lib.sk_atoms_traj_count(self._h)
        infos = np.zeros((n, 4), dtype=np.int64)
        self.frame_files = []
        fi, path, ff = _FrameInfo(), ctypes.c_char_p(), ctypes.c_int64()
        for k in range(n):
            lib.sk_atoms_traj_frame(self._h, k, ctypes.byref(path), ctypes.byref(ff),
                                    ctypes.byref(fi))
            infos[k] = (fi.offset, fi.line, fi.natoms, fi.timestep)
            self.frame_files.append(path.value.decode("utf-8", "surrogateescape"))
        self.infos = infos

    def close(self):
        if self._h:
            lib.sk_atoms_traj_close(self._h)
            self._h = ctypes.c_void_p()

    def read(self, k):
        if not self._h:
            raise ValueError("snapkit: the trajectory is closed")
        t = ctypes.c_void_p()
        err = ErrorStruct()
        check(lib.sk_atoms_traj_read(self._h, int(k), ctypes.byref(t), ctypes.byref(err)), err)
        return System(Table(t.value))


class Trajectory:
    """The frames of one or several atom files as a sequence: len(), t[k]
    (negative from the end), t[a:b:c] (another Trajectory, nothing read),
    iteration. Several files are one trajectory in timestep order. The
    frame index is built once when opened (and kept in NAME.skidx sidecars
    with index=True); frame k is then read without touching the others."""

    def __init__(self, path, format=None, threads=0, atom_style=None, index=False):
        self._t = _TrajHandle(_paths(path), format, _options(threads, atom_style), index)
        self._sel = range(len(self._t.infos))

    @classmethod
    def _view(cls, handle, sel):
        v = cls.__new__(cls)
        v._t, v._sel = handle, sel
        return v

    def __len__(self):
        return len(self._sel)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return Trajectory._view(self._t, self._sel[k])
        return self._t.read(self._sel[k])

    def __iter__(self):
        for k in self._sel:
            yield self._t.read(k)

    def _column(self, i):
        return self._t.infos[list(self._sel), i] if len(self._sel) else np.zeros(0, np.int64)

    @property
    def timesteps(self):
        """Each frame's timestep (int64; None for frames without one)."""
        steps = self._column(3)
        if (steps == _NO_TIMESTEP).any():
            return [None if s == _NO_TIMESTEP else int(s) for s in steps]
        return steps

    @property
    def natoms(self):
        return self._column(2)

    @property
    def offsets(self):
        """Where each frame starts in its (inflated) file, in bytes."""
        return self._column(0)

    @property
    def files(self):
        return [self._t.frame_files[k] for k in self._sel]

    @property
    def stale(self):
        """Why a sidecar was rebuilt (the last one), or None."""
        return self._t.stale

    def close(self):
        self._t.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<snapkit.atoms.Trajectory {len(self)} frames of {len(self._t.paths)} file(s)>"


def frames(path, format=None, threads=0, atom_style=None, index=False):
    """The frames of an atom file (or a list of files, or a glob pattern such
    as "dump.*": one trajectory in timestep order) as a Trajectory:
    iterate, index or slice it (frames(p)[::10])."""
    return Trajectory(path, format, threads, atom_style, index)


def info(path, format=None):
    """Format, frame count, atom count, columns and box of frame 0."""
    with File(path, format) as f:
        n = len(f)
        out = {"format": f.format, "frames": n, "atoms": 0, "columns": {}, "cell": None,
               "origin": None, "pbc": None}
        if n:
            s, natoms = f.header(0)
            types = {c: s.table._column(c).type for c in s.columns}
            out.update(atoms=natoms, cell=s.cell, origin=s.origin, pbc=s.pbc, meta=s.meta,
                       columns={c: "category" if t == CATEGORY else np.dtype(_DTYPES[t]).name
                                for c, t in types.items()})
        return out


# ---- writing --------------------------------------------------------------

def write(path, systems, format=None, threads=0, gzip_level=0, fsync=True):
    """Write a System (or a list of them: several frames) to path; the
    format from `format` or the name (.gz compresses). The file appears
    complete or not at all; fsync=False skips the flush to disk before it
    appears (faster; a power cut may then leave the old file or an empty one)."""
    if isinstance(systems, System):
        systems = [systems]
    w = ctypes.c_void_p()
    err = ErrorStruct()
    opts = _options(threads, None, gzip_level, fsync)
    check(lib.sk_atoms_writer_open(ctypes.byref(w), c_path(path), _format_code(format),
                                   ctypes.byref(opts), ctypes.byref(err)), err)
    try:
        for s in systems:
            if not isinstance(s, System):
                s = System.from_ase(s)
            check(lib.sk_atoms_writer_add(w, s.table.handle, ctypes.byref(err)), err)
    except BaseException:
        lib.sk_atoms_writer_abort(w)
        raise
    check(lib.sk_atoms_writer_commit(w, ctypes.byref(err)), err)


def read_bytes(data, name="<bytes>", format=None, frame=0):
    """Parse an atom file held in memory (bytes; gzip is recognised)."""
    buf = ctypes.create_string_buffer(bytes(data), len(data))
    h = ctypes.c_void_p()
    err = ErrorStruct()
    check(lib.sk_atoms_open_memory(ctypes.byref(h), buf, len(data), name.encode(),
                                   _format_code(format), None, ctypes.byref(err)), err)
    try:
        t = ctypes.c_void_p()
        check(lib.sk_atoms_read_frame(h, int(frame), ctypes.byref(t), ctypes.byref(err)), err)
        return System(Table(t.value))
    finally:
        lib.sk_atoms_close(h)


__all__ = ["System", "File", "Trajectory", "read", "frames", "info", "write", "read_bytes"]
