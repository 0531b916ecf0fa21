"""Quantities about a centre and a frame (snapkit.derive) against yt 4.1.4
on the real RAMSES fixtures: yt's radial_velocity, tangential_velocity,
cylindrical_radius, velocity_cylindrical_theta/_z/_radius,
spherical_radius, cylindrical_theta and specific_angular_momentum_x/y/z,
with the same centre, bulk_velocity and normal set as field parameters on
the data object, row by row (both sorted by cell, or particle identity).

Tolerance: 1e-12 relative, or 1e-13 of the row's own scale where a value
nears zero by cancellation (|v'| for velocity components, r |v'| for
angular momenta: both codes round at 1e-16 of those).

yt takes displacements to the nearest periodic image for the index fields
(spherical and cylindrical) of cells, but not for specific_angular_momentum
nor for particles: those rows are compared where the two agree (no axis
wraps), and all rows against numpy with the nearest image."""
import glob
import os

import numpy as np
import pytest

import snapkit
from ramses_fixtures import SHARED

yt = pytest.importorskip("yt")
yt.set_log_level(50)

ROOT = os.path.join(SHARED, "fixtures", "ramses")
CELLS = ["sedov3d/output_00002", "mhd3d/output_00002", "cosmo32/output_00003",
         "gravpart/output_00002"]
# centre (box units), normal, bulk velocity (fraction of the largest |v_x|)
FRAMES = {
    "inner-z": ((0.47, 0.52, 0.505), (0.0, 0.0, 1.0), (0.02, -0.01, 0.03)),
    "face-oblique": ((0.03, 0.96, 0.5), (1.0, 2.0, 3.0), (0.01, -0.02, 0.015)),
}
# snapkit name -> yt gas or index field, dimension ("v", "l", "j", "1")
CELL_FIELDS = {
    "v_r": (("gas", "radial_velocity"), "v"),
    "v_tan": (("gas", "tangential_velocity"), "v"),
    "v_phi": (("gas", "velocity_cylindrical_theta"), "v"),
    "v_z": (("gas", "velocity_cylindrical_z"), "v"),
    "v_R": (("gas", "velocity_cylindrical_radius"), "v"),
    "R": (("index", "cylindrical_radius"), "l"),
    "r": (("index", "spherical_radius"), "l"),
    "phi": (("index", "cylindrical_theta"), "1"),
    "j_x": (("gas", "specific_angular_momentum_x"), "j"),
    "j_y": (("gas", "specific_angular_momentum_y"), "j"),
    "j_z": (("gas", "specific_angular_momentum_z"), "j"),
}
UNWRAPPED_IN_YT = {"j_x", "j_y", "j_z"}


def folder(name):
    path = os.path.join(ROOT, name)
    if not os.path.isdir(path):
        pytest.skip("fixture %s is not here (SNAPKIT_SHARED)" % name)
    return path


def load_yt(path):
    return yt.load(sorted(glob.glob(os.path.join(path, "info_*.txt")))[0])


def units(table):
    m = table.meta
    ul, ut = float(m["unit_l"]), float(m["unit_t"])
    return {"l": ul, "v": ul / ut, "j": ul * ul / ut, "1": 1.0}


def frame(table, name):
    """(snapkit keyword arguments, yt field parameters in cgs, centre in code lengths)."""
    c_box, normal, bulk_frac = FRAMES[name]
    boxlen = float(table.meta["boxlen"])
    u = units(table)
    bulk = np.array(bulk_frac) * np.abs(table["velocity_x"]).max()
    kw = dict(center=np.array(c_box) * boxlen, axis=normal, bulk_velocity=bulk)
    return kw, (np.array(c_box), np.array(normal), bulk * u["v"])


def set_yt_frame(ds, data, c_box, normal, bulk_cgs):
    # yt's code_length for RAMSES is the whole box: the centre in box units
    data.set_field_parameter("center", ds.arr(c_box, "code_length"))
    data.set_field_parameter("bulk_velocity", ds.arr(bulk_cgs, "cm/s"))
    data.set_field_parameter("normal", normal)


def nearest(d, boxlen):
    d = np.fmod(d, boxlen)
    d = np.where(d > 0.5 * boxlen, d - boxlen, d)
    return np.where(d <= -0.5 * boxlen, d + boxlen, d)


def check_rows(name, got, want, scale, where):
    diff = np.abs(got - want)
    if name == "phi":  # angles: the same direction
        diff = np.abs(np.angle(np.exp(1j * (got - want))))
    ok = (diff <= 1e-12 * np.abs(want)) | (diff <= 1e-13 * scale)
    bad = np.flatnonzero(~ok)
    assert bad.size == 0, "%s %s: %d rows differ, e.g. %r vs yt %r" % (
        where, name, bad.size, got[bad[0]], want[bad[0]])


def yt_cells(ds, table, order):
    """A new data object (yt caches fields with the field parameters they
    were computed with) and the order that sorts its cells as `order` sorts
    the table's."""
    ad = ds.all_data()
    dx = ad["index", "dx"].to("code_length").d
    level = np.rint(np.log2(1.0 / dx)).astype(np.int64)
    idx = [np.floor(ad["index", a].to("code_length").d / dx).astype(np.int64) for a in "xyz"]
    order_yt = np.lexsort((idx[2], idx[1], idx[0], level))
    assert np.array_equal(level[order_yt], table["level"][order])
    for k, a in enumerate("xyz"):
        assert np.array_equal(idx[k][order_yt], table["c" + a][order])
    return ad, order_yt


@pytest.fixture(scope="module", params=CELLS)
def cells(request):
    path = folder(request.param)
    table = snapkit.open(path).hydro()
    order = np.lexsort((table["cz"], table["cy"], table["cx"], table["level"]))
    return request.param, table, load_yt(path), order


def cell_offsets(table, order, center):
    boxlen = float(table.meta["boxlen"])
    size = boxlen / 2.0 ** table["level"][order]
    return [(table["c" + a][order] + 0.5) * size - center[k] for k, a in enumerate("xyz")]


@pytest.mark.parametrize("frame_name", sorted(FRAMES))
def test_cells_equal_yt(cells, frame_name):
    name, table, ds, order = cells
    ad, order_yt = yt_cells(ds, table, order)
    kw, (c_box, normal, bulk_cgs) = frame(table, frame_name)
    set_yt_frame(ds, ad, c_box, normal, bulk_cgs)
    u = units(table)
    boxlen = float(table.meta["boxlen"])
    d = cell_offsets(table, order, kw["center"])
    unwrapped = np.all([np.abs(x) < 0.5 * boxlen for x in d], axis=0)
    assert unwrapped.sum() > 0
    if frame_name == "face-oblique":
        assert unwrapped.sum() < len(unwrapped)  # rows across the faces are met
    speed = snapkit.derive(table, "v_rel", bulk_velocity=kw["bulk_velocity"])[order] * u["v"]
    r = snapkit.derive(table, "r", center=kw["center"])[order] * u["l"]
    scales = {"v": speed, "l": r, "j": r * speed, "1": np.ones_like(r)}
    for q, (field, dim) in CELL_FIELDS.items():
        got = snapkit.derive(table, q, **kw)[order] * u[dim]
        want = ad[field].in_cgs().d[order_yt]
        rows = unwrapped if q in UNWRAPPED_IN_YT else slice(None)
        check_rows(q, got[rows], want[rows], scales[dim][rows], "%s %s" % (name, frame_name))


@pytest.mark.parametrize("frame_name", sorted(FRAMES))
def test_cells_equal_numpy_with_the_nearest_image(cells, frame_name):
    """Every row, wrapped or not, against the formulas in numpy."""
    name, table, _, order = cells
    kw, _ = frame(table, frame_name)
    boxlen = float(table.meta["boxlen"])
    d = np.array([nearest(x, boxlen) for x in cell_offsets(table, order, kw["center"])])
    v = np.array([table["velocity_" + a][order] - kw["bulk_velocity"][k]
                  for k, a in enumerate("xyz")])
    n = np.array(kw["axis"]) / np.linalg.norm(kw["axis"])
    j = np.cross(d, v, axis=0)
    r = np.sqrt((d * d).sum(axis=0))
    z = n @ d
    R = np.linalg.norm(np.cross(n, d, axis=0), axis=0)
    want = {"j_x": j[0], "j_y": j[1], "j_z": j[2], "j": np.linalg.norm(j, axis=0), "r": r,
            "z": z, "R": R, "theta": np.arctan2(R, z), "v_r": (v * d).sum(axis=0) / r,
            "v_phi": (np.cross(n, d, axis=0) * v).sum(axis=0) / R}
    speed = np.linalg.norm(v, axis=0)
    for q, w in want.items():
        scale = (r * speed if q.startswith("j") else speed if q.startswith("v")
                 else np.ones_like(r) if q == "theta" else r)
        check_rows(q, snapkit.derive(table, q, **kw)[order], w, scale, name)


def test_particles_equal_yt():
    path = folder("gravpart/output_00002")
    table = snapkit.open(path).particles()
    ds = load_yt(path)
    order = np.argsort(table["identity"])
    u = units(table)
    boxlen = float(table.meta["boxlen"])
    all_fields = {"v_r": "particle_radial_velocity", "v_phi": "particle_velocity_cylindrical_theta",
              "v_z": "particle_velocity_cylindrical_z", "v_R": "particle_velocity_cylindrical_radius",
              "R": "particle_position_cylindrical_radius", "r": "particle_position_spherical_radius",
              "j_x": "particle_specific_angular_momentum_x",
              "j_y": "particle_specific_angular_momentum_y",
              "j_z": "particle_specific_angular_momentum_z"}
    for frame_name in sorted(FRAMES):
        kw, (c_box, normal, bulk_cgs) = frame(table, frame_name)
        # yt turns particle angular momenta into the frame of the normal
        fields = {k: f for k, f in all_fields.items()
                  if frame_name == "inner-z" or not k.startswith("j")}
        ad = ds.all_data()  # yt caches fields with the parameters they were made with
        order_yt = np.argsort(ad["all", "particle_identity"].d)
        assert np.array_equal(table["identity"][order],
                              ad["all", "particle_identity"].d[order_yt])
        set_yt_frame(ds, ad, c_box, normal, bulk_cgs)
        d = [table["position_" + a][order] - kw["center"][k] for k, a in enumerate("xyz")]
        rows = np.all([np.abs(x) < 0.5 * boxlen for x in d], axis=0)  # yt does not wrap
        assert rows.sum() > 100
        speed = snapkit.derive(table, "v_rel", bulk_velocity=kw["bulk_velocity"])[order] * u["v"]
        r = snapkit.derive(table, "r", center=kw["center"])[order] * u["l"]
        for q, field in fields.items():
            dim = "j" if q.startswith("j") else "v" if q.startswith("v") else "l"
            scale = {"v": speed, "l": r, "j": r * speed}[dim]
            got = snapkit.derive(table, q, **kw)[order] * u[dim]
            want = ad["all", field].in_cgs().d[order_yt]
            check_rows(q, got[rows], want[rows], scale[rows], "particles " + frame_name)
        vt = np.hypot(ad["all", "particle_velocity_spherical_theta"].in_cgs().d,
                      ad["all", "particle_velocity_spherical_phi"].in_cgs().d)[order_yt]
        got = snapkit.derive(table, "v_tan", **kw)[order] * u["v"]
        check_rows("v_tan", got[rows], vt[rows], speed[rows], "particles " + frame_name)
