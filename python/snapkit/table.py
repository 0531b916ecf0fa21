"""Tables: named numpy columns over memory the C library owns."""
import ctypes

import numpy as np

from ._lib import ErrorStruct, check, lib

# sk_dtype codes, in the order of include/snapkit/table.h.
_DTYPES = {1: np.int8, 2: np.uint8, 3: np.int16, 4: np.uint16, 5: np.int32, 6: np.uint32,
           7: np.int64, 8: np.uint64, 9: np.float32, 10: np.float64, 11: np.int32}
CATEGORY = 11
_CODES = {np.dtype(v): k for k, v in _DTYPES.items() if k != CATEGORY}


class Table:
    """A snapkit table: columns are numpy arrays that share the C memory
    (no copy); `meta` holds the metadata as strings. Indexing by name gives a
    column; a category column (e.g. element names) gives an array of str."""

    def __init__(self, handle):
        if not handle:
            raise MemoryError("snapkit: out of memory")
        self._h = ctypes.c_void_p(handle)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            lib.sk_table_free(h)
            self._h = None

    @property
    def handle(self):
        return self._h

    def __len__(self):
        return int(lib.sk_table_nrows(self._h))

    @property
    def columns(self):
        return [lib.sk_table_col(self._h, i).contents.name.decode()
                for i in range(lib.sk_table_ncols(self._h))]

    def _column(self, name):
        for i in range(lib.sk_table_ncols(self._h)):
            c = lib.sk_table_col(self._h, i).contents
            if c.name.decode() == name:
                return c
        raise KeyError(name)

    def codes(self, name):
        """The raw column (int32 codes for a category column), no copy."""
        c = self._column(name)
        dtype = np.dtype(_DTYPES[c.type])
        n = len(self)
        if n == 0 or not c.data:
            arr = np.empty(0, dtype=dtype)
        else:
            buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(c.data)
            buf._owner = self  # the memory lives as long as the table
            arr = np.frombuffer(buf, dtype=dtype)
        return arr

    def labels(self, name):
        c = self._column(name)
        return [c.labels[i].decode() for i in range(c.nlabels)]

    def __getitem__(self, name):
        c = self._column(name)
        if c.type == CATEGORY:
            return np.array(self.labels(name), dtype=object)[self.codes(name)].astype(str)
        return self.codes(name)

    def __contains__(self, name):
        return name in self.columns

    def keys(self):
        return self.columns

    @property
    def meta(self):
        return {lib.sk_table_meta_key(self._h, i).decode(): lib.sk_table_meta_value(self._h, i).decode()
                for i in range(lib.sk_table_meta_count(self._h))}

    @property
    def nbytes(self):
        return int(lib.sk_table_bytes(self._h))

    def to_dict(self):
        """Copies of every column, as a dict of numpy arrays."""
        return {name: np.array(self[name]) for name in self.columns}

    def column_units(self):
        """The physical size of one stored unit of each column whose unit the
        table knows, as {name: (factor, unit)}: value * factor is in `unit`
        (CGS, spelled so astropy.units parses it), e.g. a RAMSES density
        column gives (unit_d, "g/cm3"). RAMSES tables know density, velocity,
        pressure, particle position and mass, gravity potential and
        acceleration, and particle birth time (not in cosmological runs,
        where it is conformal time); atom files record no units."""
        meta = self.meta
        if meta.get("kind") not in ("cells", "particles") or "unit_l" not in meta:
            return {}
        from .ramses import _units_of  # ramses imports this module
        u = _units_of(self)
        v2 = u.unit_v * u.unit_v
        known = {"density": (u.unit_d, "g/cm3"), "pressure": (u.unit_p, "erg/cm3"),
                 "mass": (u.unit_m, "g"), "potential": (v2, "cm2/s2")}
        for a in "xyz":
            known["velocity_" + a] = (u.unit_v, "cm/s")
            known["position_" + a] = (u.unit_l, "cm")
            known["acceleration_" + a] = (u.unit_v / u.unit_t, "cm/s2")
        try:
            cosmological = abs(float(meta.get("aexp", 1)) - 1) > 1e-12 or \
                abs(float(meta.get("H0", 1)) - 1) > 1e-12
        except ValueError:
            cosmological = True
        if not cosmological:
            known["birth_time"] = (u.unit_t, "s")
        return {name: known[name] for name in self.columns if name in known}

    def _arrays(self):
        """(name, array) of every column: views for numeric columns; a
        category column as (codes view, labels)."""
        for name in self.columns:
            c = self._column(name)
            if c.type == CATEGORY:
                yield name, (self.codes(name), self.labels(name))
            else:
                yield name, self.codes(name)

    def to_pandas(self):
        """A pandas DataFrame over the same memory: numeric columns are not
        copied (writing to one writes the table, which the frame keeps
        alive); category columns become pandas Categoricals. Values stay in
        the units stored (code units for RAMSES: see column_units()).
        `df.attrs` holds the table's metadata."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("snapkit: Table.to_pandas() needs pandas (Debian: apt-get install "
                              "python3-pandas; elsewhere: pip install pandas)") from None
        cols = {}
        for name, arr in self._arrays():
            if isinstance(arr, tuple):
                codes, labels = arr
                arr = pd.Categorical.from_codes(codes, categories=labels)
            cols[name] = arr
        df = pd.DataFrame(cols, copy=False)
        df.attrs.update(self.meta)
        return df

    def to_astropy(self, units=None):
        """An astropy QTable over the same memory (numeric columns are not
        copied). Columns whose unit the table knows (column_units()) are
        Quantities in a scaled CGS unit, one code unit each, so
        qt["density"].to("Msun/pc3") gives physical values; `units` adds or
        overrides units by column name, e.g. {"x": "Angstrom"} for an atom
        file. `qt.meta` holds the table's metadata."""
        try:
            import astropy.units as u
            from astropy.table import QTable
        except ImportError:
            raise ImportError("snapkit: Table.to_astropy() needs astropy (Debian: apt-get "
                              "install python3-astropy; elsewhere: pip install astropy)") from None
        known = {name: u.Unit(f * u.Unit(unit)) if f != 1 else u.Unit(unit)
                 for name, (f, unit) in self.column_units().items()}
        for name, unit in (units or {}).items():
            if name not in self.columns:
                raise KeyError(f"snapkit: units given for '{name}', which the table lacks")
            known[name] = u.Unit(unit)
        cols, names = [], []
        for name, arr in self._arrays():
            if isinstance(arr, tuple):
                codes, labels = arr
                arr = np.array(labels, dtype=str)[codes]
            elif name in known:
                arr = u.Quantity(arr, known[name], copy=False)
            cols.append(arr)
            names.append(name)
        return QTable(cols, names=names, meta=self.meta, copy=False)

    def __repr__(self):
        return f"<snapkit.Table {len(self)} rows: {', '.join(self.columns)}>"

    @classmethod
    def from_arrays(cls, columns, meta=None):
        """A new table holding copies of the given arrays (equal lengths).
        Arrays of strings become category columns."""
        arrays = {k: np.asarray(v) for k, v in columns.items()}
        lengths = {len(a) for a in arrays.values()}
        if len(lengths) > 1:
            raise ValueError("snapkit: columns have different lengths: %s" % sorted(lengths))
        n = lengths.pop() if lengths else 0
        t = cls(lib.sk_table_new(n))
        err = ErrorStruct()
        for name, a in arrays.items():
            if a.dtype.kind in "US" or a.dtype == object:
                labels, codes = np.unique(a.astype(str), return_inverse=True)
                ptr = lib.sk_table_add(t._h, name.encode(), CATEGORY, ctypes.byref(err))
                check(0 if ptr else 1, err)
                codes = np.ascontiguousarray(codes, dtype=np.int32)  # kept alive for the copy
                ctypes.memmove(ptr, codes.ctypes.data, 4 * n)
                arr_t = ctypes.c_char_p * len(labels)
                enc = arr_t(*[s.encode() for s in labels])
                check(lib.sk_table_set_labels(t._h, name.encode(), enc, len(labels),
                                              ctypes.byref(err)), err)
                continue
            if a.dtype == np.bool_:
                a = a.astype(np.uint8)
            code = _CODES.get(a.dtype.newbyteorder("=")) if a.dtype.byteorder not in "=|" else _CODES.get(a.dtype)
            if code is None:
                raise TypeError(f"snapkit: column {name}: unsupported dtype {a.dtype}")
            ptr = lib.sk_table_add(t._h, name.encode(), code, ctypes.byref(err))
            check(0 if ptr else 1, err)
            a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))  # alive for the copy
            ctypes.memmove(ptr, a.ctypes.data, a.dtype.itemsize * n)
        for k, v in (meta or {}).items():
            lib.sk_table_meta_set(t._h, str(k).encode(), str(v).encode())
        return t
