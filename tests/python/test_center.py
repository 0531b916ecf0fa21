"""Centres and totals (snapkit.center, snapkit.totals, `snapkit center`,
`snapkit stats --totals`) against independent computations on the RAMSES
fixtures: numpy over the rows snapkit reads (argmax, exact sums with
math.fsum, the shrinking sphere written out again), and yt's own reading
of the files (ds.sphere and its derived quantities center_of_mass,
bulk_velocity, angular_momentum_vector)."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, SHARED

FIX = os.path.join(SHARED, "fixtures", "ramses")
SEDOV = os.path.join(FIX, "sedov3d", "output_00002")
GRAVPART = os.path.join(FIX, "gravpart", "output_00002")
MHD = os.path.join(FIX, "mhd3d", "output_00002")
COSMO = os.path.join(FIX, "cosmo32", "output_00003")
ALL = [SEDOV, GRAVPART, MHD, COSMO]


def name(folder):
    return "/".join(folder.split(os.sep)[-2:])


def need(folder):
    if not os.path.isdir(folder):
        pytest.skip(f"fixture {name(folder)} is missing")


# --- the rows as numpy sees them ------------------------------------------

def rows(folder, component, **sel):
    """Box-unit positions (n, 3), masses, velocities (n, 3) and the table
    of a component read with the selection (a sphere via its kwargs)."""
    with snapkit.open(folder) as out:
        t = out.read(component, **sel)
        boxlen = float(out.info["info"]["boxlen"])
    if "level" in t.columns:
        size = 2.0 ** -t["level"].astype(np.float64)
        x = np.stack([(t[c] + 0.5) * size for c in ("cx", "cy", "cz")], axis=1)
        side = boxlen * size
        m = t["density"] * (side * side * side)
    else:
        x = np.stack([t["position_" + a] / boxlen for a in "xyz"], axis=1)
        m = np.asarray(t["mass"], dtype=np.float64)
    v = np.stack([np.asarray(t["velocity_" + a], dtype=np.float64) for a in "xyz"], axis=1)
    return x, m, v, t, boxlen


def in_sphere(x, c, r):
    d = x - c
    d -= np.rint(d)
    return d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2] <= r * r


def wrap(d):
    return d - np.rint(d)


def fsum3(a):
    return np.array([math.fsum(a[:, k]) for k in range(3)])


def cross(a, b):
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def close(got, want, scale, rel=1e-12):
    """|got - want| <= rel x scale per component (scale: the sum of the
    terms' magnitudes, as the fixtures' references compare sums)."""
    got, want, scale = (np.atleast_1d(np.asarray(a, dtype=np.float64)) for a in (got, want, scale))
    assert np.all(np.abs(got - want) <= rel * scale), (got, want, scale)


# --- max:FIELD and min:FIELD -----------------------------------------------

def brute_extreme(x, values, sign):
    """The row of the largest (smallest) value; ties to the lowest x, y, z."""
    ok = ~np.isnan(values)
    best = values[ok].max() if sign > 0 else values[ok].min()
    idx = np.flatnonzero(ok & (values == best))
    order = np.lexsort((x[idx, 2], x[idx, 1], x[idx, 0]))
    return x[idx[order[0]]], best


@pytest.mark.parametrize("folder", [SEDOV, GRAVPART, MHD, COSMO], ids=name)
@pytest.mark.parametrize("method", ["max:density", "min:density", "max:pressure"])
def test_extreme_of_cells_is_numpy_argmax(folder, method):
    need(folder)
    x, _, _, t, _ = rows(folder, "hydro")
    field = method[4:]
    want, value = brute_extreme(x, np.asarray(t[field], dtype=np.float64),
                                1 if method.startswith("max") else -1)
    got = snapkit.center(folder, method, full=True)
    assert np.array_equal(got["center"], want)
    assert got["value"] == value and got["component"] == "hydro" and got["rows"] == len(t)


def test_extreme_in_a_sphere_and_of_particles_with_ties():
    need(COSMO)
    # every dark-matter particle has the same mass: the tie goes to the lowest x, y, z
    x, m, _, _, _ = rows(COSMO, "particles", family="dm")
    want, _ = brute_extreme(x, m, 1)
    got = snapkit.center(COSMO, "max:mass", component="particles", family="dm")
    assert np.array_equal(got, want)
    # within a sphere about a point: the rows numpy keeps in it
    c, r = np.array([0.3, 0.6, 0.45]), 0.15
    x, _, _, t, _ = rows(COSMO, "hydro")
    keep = in_sphere(x, c, r)
    want, _ = brute_extreme(x[keep], np.asarray(t["density"])[keep], 1)
    got = snapkit.center(COSMO, "max:density", sphere=r, around=c)
    assert np.array_equal(got, want)


# --- totals and com ----------------------------------------------------------

def brute_totals(x, m, v, boxlen, ref, about_com, velocity=None):
    """The totals of snapkit/totals.h written out: displacements to the
    nearest image of ref, exact sums (math.fsum) of the same products."""
    d = wrap(x - ref)
    M = math.fsum(m)
    S = fsum3(m[:, None] * d)
    P = fsum3(m[:, None] * v)
    A = fsum3(m[:, None] * cross(d, v))
    bulk = P / M
    u = bulk if about_com or velocity is None else np.asarray(velocity)
    L = (A - cross(S, u)) * boxlen
    com = np.mod(ref + S / M, 1.0) * boxlen
    # the definition itself, about the point, relative to the velocity:
    # sum m (r - centre) x (v - u), and the magnitudes it sums
    delta = S / M if about_com else np.zeros(3)
    terms = m[:, None] * cross((d - delta) * boxlen, v - u)
    return {"mass": M, "com": com, "bulk_velocity": bulk, "angular_momentum": L,
            "direct": fsum3(terms), "scale": fsum3(np.abs(terms)),
            "scale_com": fsum3(np.abs(m[:, None] * x * boxlen)),
            "scale_v": fsum3(np.abs(m[:, None] * v))}


def check_totals(got, want):
    assert got["mass"] == want["mass"]
    close(got["com"], want["com"], want["scale_com"] / want["mass"])
    close(got["bulk_velocity"], want["bulk_velocity"], want["scale_v"] / want["mass"])
    close(got["angular_momentum"], want["angular_momentum"], want["scale"])
    close(got["angular_momentum"], want["direct"], want["scale"])
    L = want["direct"]
    close(got["angular_momentum_direction"], L / np.linalg.norm(L),
          want["scale"] / np.linalg.norm(L), rel=1e-11)


CASES = [(SEDOV, "hydro", None), (GRAVPART, "hydro", None), (GRAVPART, "particles", None),
         (MHD, "hydro", None), (COSMO, "particles", None),
         # a sphere across the faces of the box: its images wrap
         (GRAVPART, "hydro", ((0.95, 0.05, 0.5), 0.2)), (COSMO, "particles", ((0.02, 0.5, 0.97), 0.2))]


@pytest.mark.parametrize("folder,component,sphere", CASES,
                         ids=lambda v: name(v) if isinstance(v, str) and os.sep in v else str(v))
def test_totals_equal_numpy(folder, component, sphere):
    need(folder)
    kw = {}
    if sphere:
        kw = dict(center=sphere[0], sphere=sphere[1])
    x, m, v, _, boxlen = rows(folder, component)
    if sphere:
        keep = in_sphere(x, np.asarray(sphere[0]), sphere[1])
        x, m, v = x[keep], m[keep], v[keep]
    ref = np.asarray(sphere[0]) if sphere else np.full(3, 0.5)
    # about the centre of mass, then about the centre relative to a given velocity
    got = snapkit.totals(folder, component=component, **kw) if not sphere else None
    if got is not None:
        check_totals(got, brute_totals(x, m, v, boxlen, ref, True))
        assert got["cells" if component == "hydro" else "particles"] == len(m)
        com = snapkit.center(folder, "com", component=component)
        assert np.array_equal(com * boxlen, got["com"])
    u = np.array([0.01, -0.02, 0.005])
    got = snapkit.totals(folder, component=component, velocity=u,
                         **(kw or {"center": (0.5, 0.5, 0.5)}))
    check_totals(got, brute_totals(x, m, v, boxlen, ref, False, u))
    assert np.array_equal(got["center"], ref * boxlen)


def test_totals_of_gas_and_particles_add_up():
    need(GRAVPART)
    # relative to one velocity (each part's own bulk velocity differs)
    kw = dict(center="bc", sphere=0.3, velocity=(0.001, 0.002, -0.003))
    gas = snapkit.totals(GRAVPART, component="hydro", **kw)
    part = snapkit.totals(GRAVPART, component="particles", **kw)
    both = snapkit.totals(GRAVPART, component=["hydro", "particles"], **kw)
    assert both["cells"] == gas["cells"] and both["particles"] == part["particles"]
    close(both["mass"], gas["mass"] + part["mass"], both["mass"], rel=1e-15)
    close(both["angular_momentum"], gas["angular_momentum"] + part["angular_momentum"],
          np.abs(gas["angular_momentum"]) + np.abs(part["angular_momentum"]), rel=1e-13)


# --- yt's derived quantities -------------------------------------------------

@pytest.mark.parametrize("folder,c,r", [(GRAVPART, (0.5, 0.48, 0.52), 0.2),
                                        (SEDOV, (0.45, 0.5, 0.55), 0.25),
                                        (MHD, (0.4, 0.6, 0.5), 0.2)], ids=lambda v: str(v))
def test_totals_equal_yt_sphere_quantities(folder, c, r):
    """yt's center_of_mass and bulk_velocity are mass-weighted means of
    positions (not wrapped: the spheres stay inside the box) and velocities;
    its angular_momentum_vector is the mass-weighted mean specific angular
    momentum about the sphere's centre relative to the field parameter
    bulk_velocity: snapkit's L / M with the same velocity."""
    need(folder)
    yt = pytest.importorskip("yt")
    yt.set_log_level(50)
    num = os.path.basename(folder).split("_")[-1]
    ds = yt.load(os.path.join(folder, f"info_{num}.txt"))
    sp = ds.sphere(ds.arr(c, "code_length"), ds.quan(r, "code_length"))
    mine = snapkit.totals(folder, component="hydro", center=c, sphere=r)
    assert mine["cells"] == len(sp["gas", "mass"])
    q = sp.quantities
    com = q.center_of_mass(use_gas=True, use_particles=False).to("code_length").d
    bulk = q.bulk_velocity(use_gas=True, use_particles=False).to("code_velocity").d
    sp.set_field_parameter("bulk_velocity", ds.arr(mine["velocity"], "code_velocity"))
    jvec = q.angular_momentum_vector(use_gas=True, use_particles=False)
    jvec = jvec.to("code_length*code_velocity").d
    mass = sp["gas", "mass"].to("code_mass").d.sum()
    assert math.isclose(mine["mass"], mass, rel_tol=1e-12)
    assert np.allclose(mine["com"], com, rtol=1e-12, atol=0)
    vscale = np.abs(sp["gas", "velocity_x"].to("code_velocity").d).max()
    assert np.allclose(mine["bulk_velocity"], bulk, rtol=0, atol=1e-12 * vscale)
    # to 1e-12 of the mass-weighted mean magnitude of the terms (a blast's
    # angular momentum cancels to ~0)
    m = sp["gas", "mass"].to("code_mass").d
    jabs = [math.fsum(m * np.abs(sp["gas", f"specific_angular_momentum_{a}"]
                                 .to("code_length*code_velocity").d)) / mass for a in "xyz"]
    j = mine["angular_momentum"] / mine["mass"]
    assert np.all(np.abs(j - jvec) <= 1e-12 * np.array(jabs)), (j, jvec, jabs)


# --- the shrinking sphere --------------------------------------------------

def brute_shrink(x, m, ref, factor, nmin):
    """Power et al.'s shrinking sphere as snapkit/center.h states it, with
    exact sums: the centre of mass of all rows, the radius enclosing them,
    then shrink, keep the rows within, retake the centre of mass."""
    def com(x, m, c):
        d = wrap(x - c)
        return np.mod(c + fsum3(m[:, None] * d) / math.fsum(m), 1.0), math.fsum(m)

    c, mass = com(x, m, ref)
    d = wrap(x - c)
    r = math.sqrt((d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]).max())
    steps = 0
    while True:
        rn = factor * r
        if not rn < r:
            break
        keep = in_sphere(x, c, rn)
        if keep.sum() < nmin:
            break
        x, m = x[keep], m[keep]
        c, mass = com(x, m, c)
        r, steps = rn, steps + 1
    return c, r, steps, len(m), mass


@pytest.mark.parametrize("folder,component,factor,nmin", [
    (GRAVPART, "hydro", None, None), (COSMO, "particles", None, None),
    (SEDOV, "hydro", 0.9, 200), (MHD, "hydro", 0.8, 50), (GRAVPART, "particles", 0.95, 100)],
    ids=str)
def test_shrink_equals_numpy(folder, component, factor, nmin):
    need(folder)
    x, m, _, _, _ = rows(folder, component)
    want = brute_shrink(x, m, np.full(3, 0.5), factor or 0.975, nmin or 1000)
    got = snapkit.center(folder, "shrink", component=component, shrink_factor=factor,
                         shrink_min=nmin, full=True)
    assert np.array_equal(got["center"], want[0]), (got, want)
    assert (got["radius"], got["iterations"], got["final_rows"], got["mass"]) == want[1:]


def test_shrink_within_a_sphere_and_gas_with_particles():
    need(GRAVPART)
    c, r = np.array([0.52, 0.5, 0.47]), 0.3
    xs, ms = [], []
    for comp in ("hydro", "particles"):
        x, m, _, _, _ = rows(GRAVPART, comp)
        keep = in_sphere(x, c, r)
        xs.append(x[keep])
        ms.append(m[keep])
    want = brute_shrink(np.concatenate(xs), np.concatenate(ms), c, 0.975, 1000)
    got = snapkit.center(GRAVPART, "shrink", component=["hydro", "particles"], sphere=r,
                         around=c, full=True)
    assert np.array_equal(got["center"], want[0])
    assert got["iterations"] == want[2] and got["final_rows"] == want[3]


def test_shrink_refuses_too_few_rows():
    need(GRAVPART)
    with pytest.raises(snapkit.Error, match="fewer than"):
        snapkit.center(GRAVPART, "shrink", sphere=0.01, around=(0.2, 0.2, 0.2))


# --- the same bits everywhere ------------------------------------------------

def cli_json(*args):
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """The fixtures as .snapkit files."""
    d = tmp_path_factory.mktemp("center")
    files = {}
    for folder in ALL:
        if os.path.isdir(folder):
            files[folder] = str(d / (name(folder).replace("/", "_") + ".snapkit"))
            subprocess.run([CLI, "convert", folder, "-o", files[folder]], check=True,
                           capture_output=True)
    return files


SAME = [("--center", "max:density"), ("--center", "com"), ("--center", "shrink"),
        ("--center", "shrink", "--center-component", "hydro,particles", "--sphere", "0.3",
         "--search-center", "0.5", "0.5", "0.5"),
        ("--center", "com", "--cylinder-axis", "L", "--bulk-velocity", "com", "--sphere", "0.2")]


@pytest.mark.parametrize("folder", [GRAVPART, COSMO], ids=name)
@pytest.mark.parametrize("args", SAME, ids=" ".join)
def test_same_bits_any_threads_and_either_source(folder, args, converted):
    need(folder)
    runs = [cli_json("center", folder, *args, "--threads", "1"),
            cli_json("center", folder, *args, "--threads", "2"),
            cli_json("center", converted[folder], *args, "--threads", "2")]
    for r in runs:
        r.pop("seconds")
    assert runs[0] == runs[1] == runs[2]
    tot = [cli_json("stats", src, *args, "--totals", "--threads", n)["totals"]
           for src, n in ((folder, "1"), (folder, "2"), (converted[folder], "2"))]
    assert tot[0] == tot[1] == tot[2]


def test_cli_center_is_the_library_centre():
    need(GRAVPART)
    got = cli_json("center", GRAVPART, "--center", "shrink", "--sphere", "0.2", "--unit", "code")
    want = snapkit.center(GRAVPART, "shrink", sphere=0.2, around="bc", full=True)
    assert got["center"]["box"] == list(want["center_box"])
    assert got["iterations"] == want["iterations"] and got["rows"] == want["rows"]
    # stats --totals about the centre found: the library's totals about it
    t = cli_json("stats", GRAVPART, "--center", "shrink", "--sphere", "0.2", "--totals")["totals"]
    lib = snapkit.totals(GRAVPART, center=want["center_box"], sphere=0.2)
    assert t["about"] == "center" and t["mass"] == lib["mass"]
    assert t["angular_momentum"] == list(lib["angular_momentum"])
