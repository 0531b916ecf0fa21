"""Statistics of a RAMSES output as yt reads it, in the schema of the
fixtures' reference.json "full" entry (rows, leaf cells per level, and per
column min, max, sum, abs_sum, volume_sum, abs_volume_sum with exact sums).

yt is the independent reader: these numbers come from yt's own parsing of
the files, never from snapkit."""
import glob
import math
import os

import numpy as np

# Our column names (the descriptors') -> yt's field names.
_HYDRO = {"density": "Density", "velocity_x": "x-velocity", "velocity_y": "y-velocity",
          "velocity_z": "z-velocity", "pressure": "Pressure", "metallicity": "Metallicity",
          "thermal_pressure": "Pressure", "passive_scalar_1": "Metallicity"}
_GRAVITY = {"potential": "Potential", "acceleration_x": "x-acceleration",
            "acceleration_y": "y-acceleration", "acceleration_z": "z-acceleration"}
_PARTICLES = {"position_x": "particle_position_x", "position_y": "particle_position_y",
              "position_z": "particle_position_z", "velocity_x": "particle_velocity_x",
              "velocity_y": "particle_velocity_y", "velocity_z": "particle_velocity_z",
              "mass": "particle_mass", "identity": "particle_identity",
              "levelp": "particle_level", "family": "particle_family",
              "tag": "particle_tag", "birth_time": "particle_birth_time",
              "metallicity": "particle_metallicity"}
# Without a particle descriptor (2017) yt names the fields after levelp
# particle_extra_field_N.
_PARTICLES_2017 = dict(_PARTICLES, levelp="particle_refinement_level",
                       birth_time="particle_extra_field_1",
                       metallicity="particle_extra_field_2")


def _column_stats(values, volumes=None):
    v = np.asarray(values, dtype=np.float64)
    out = {"min": float(v.min()) if v.size else None, "max": float(v.max()) if v.size else None,
           "sum": math.fsum(v), "abs_sum": math.fsum(np.abs(v))}
    if volumes is not None:
        vv = v * volumes
        out["volume_sum"] = math.fsum(vv)
        out["abs_volume_sum"] = math.fsum(np.abs(vv))
    return out


def _yt_name(mapping, name):
    return mapping.get(name, "hydro_" + name)


def stats(output_dir, columns):
    """columns: {"hydro": [names], "gravity": [names], "particles": [names]} (any subset)."""
    import yt
    yt.set_log_level(50)
    info = sorted(glob.glob(os.path.join(output_dir, "info_*.txt")))[0]
    ds = yt.load(info)
    ad = ds.all_data()
    boxlen = float(ds.parameters["boxlen"])
    result = {}
    cell_comps = [(c, m, ftype) for c, m, ftype in (("hydro", _HYDRO, "ramses"),
                                                     ("gravity", _GRAVITY, "gravity"))
                  if c in columns]
    if cell_comps:
        # yt's code_length is the whole box (boxlen RAMSES code lengths).
        dx = ad[("index", "dx")].to("code_length").d
        levels = np.rint(np.log2(1.0 / dx)).astype(int)
        volumes = (boxlen / 2.0 ** levels) ** 3
        counts = {str(l): int(n) for l, n in zip(*np.unique(levels, return_counts=True))}
        for comp, mapping, ftype in cell_comps:
            cols = {}
            for name in columns[comp]:
                field = (ftype, mapping[name] if comp == "gravity" else _yt_name(mapping, name))
                cols[name] = _column_stats(ad[field].d, volumes)
            result[comp] = {"rows": int(levels.size), "levels": counts, "columns": cols}
    if "particles" in columns:
        mapping = _PARTICLES if os.path.exists(
            os.path.join(output_dir, "part_file_descriptor.txt")) else _PARTICLES_2017
        cols = {}
        rows = 0
        for name in columns["particles"]:
            values = ad[("io", mapping[name])].d
            if name.startswith("position_") and boxlen != 1.0:
                values = values * boxlen  # yt divides what it reads by boxlen
            rows = values.size
            cols[name] = _column_stats(values)
        result["particles"] = {"rows": rows, "columns": cols}
    return result


def compare(truth, got, tolerance=1e-12, extreme_tolerance=0.0):
    """Differences between a truth (snapkit's schema) and yt's statistics:
    exact rows and levels; min and max within extreme_tolerance (relative;
    exact by default); sums within tolerance x the abs sums."""
    problems = []
    for comp, want in truth.items():
        if comp not in got:
            continue
        have = got[comp]
        if want["rows"] != have["rows"]:
            problems.append(f"{comp}: rows {have['rows']} != {want['rows']}")
        if "levels" in want and want["levels"] != have.get("levels"):
            problems.append(f"{comp}: levels {have.get('levels')} != {want['levels']}")
        for name, w in want["columns"].items():
            h = have["columns"].get(name)
            if h is None:
                continue
            for key in ("min", "max"):
                if abs(w[key] - h[key]) > extreme_tolerance * abs(w[key]):
                    problems.append(f"{comp}.{name}.{key}: {h[key]!r} != {w[key]!r}")
            for key, scale in (("sum", "abs_sum"), ("volume_sum", "abs_volume_sum"),
                               ("abs_sum", "abs_sum"), ("abs_volume_sum", "abs_volume_sum")):
                if key not in w:
                    continue
                if abs(h[key] - w[key]) > tolerance * max(abs(w[scale]), 1e-300):
                    problems.append(f"{comp}.{name}.{key}: {h[key]!r} != {w[key]!r}")
    return problems
