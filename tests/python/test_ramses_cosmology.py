"""Cosmology of a RAMSES output (redshift, ages, comoving units, star birth
times) against yt 4.1.4 (cosmo32's cosmology.json and reference.json) and
against an independent exact Friedmann integral (closed form + scipy).

yt tabulates t(tau) from a = 1e-3 on (yt 4.1.4 cosmology_time.friedman)
and interpolates linearly, so its times since the big bang are short by
the time before a = 1e-3 (0.538 Myr here) and wobble by its interpolation
(< 0.03 Myr). snapkit integrates from a = 0. Where yt is compared, the
tolerance is that known offset and wobble; where the exact integral is
compared it is rounding (1e-12)."""
import json
import os
import subprocess

import numpy as np
import pytest

import snapkit
from ramses_fixtures import CLI, DATA, SHARED

BASE = os.path.join(SHARED, "fixtures", "ramses", "cosmo32")
OUT = os.path.join(BASE, "output_00003")
GYR_S, MYR_S = 3.15576e16, 3.15576e13
CM_PER_MPC = 3.0856775814913673e24


@pytest.fixture(scope="module")
def yt_cosmo():
    path = OUT + ".cosmology.json"
    if not os.path.isdir(OUT) or not os.path.exists(path):
        pytest.skip("cosmo32 fixture absent ($SNAPKIT_SHARED/fixtures/ramses/cosmo32)")
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def out(yt_cosmo):
    return snapkit.open(OUT)


@pytest.fixture(scope="module")
def stars(out):
    p = out.particles()
    star = np.asarray(p["family"]) == 2
    return p, star


def exact(info):
    """Closed-form flat LCDM age t(a) and a scipy integration of the
    conformal time, in seconds: independent of snapkit's quadrature."""
    integrate = pytest.importorskip("scipy.integrate")
    om, ol, h0 = info["omega_m"], info["omega_l"], info["H0"]
    assert abs(1.0 - om - ol) < 1e-15  # flat: the closed form holds
    hubble_time = CM_PER_MPC / (h0 * 1e5)

    def age(a):
        return hubble_time * 2 / (3 * np.sqrt(ol)) * np.arcsinh(np.sqrt(ol / om) * a ** 1.5)

    def aexp_of_tau(tau):
        """da/dtau = a^3 H/H0 from a = 1 at tau = 0 back to the earliest tau."""
        tau = np.atleast_1d(np.asarray(tau, dtype=np.float64))
        sol = integrate.solve_ivp(lambda t, a: a ** 3 * np.sqrt(om / a ** 3 + ol), (0.0, tau.min()),
                                  [1.0], method="DOP853", rtol=1e-13, atol=1e-15,
                                  dense_output=True)
        return sol.sol(tau)[0]
    return age, aexp_of_tau


def test_redshift_and_parameters(out, yt_cosmo):
    c = out.info["cosmology"]
    assert c["cosmological"] is True
    assert c["aexp"] == yt_cosmo["aexp"]
    assert c["redshift"] == pytest.approx(yt_cosmo["current_redshift"], rel=1e-15)
    assert c["h"] == pytest.approx(yt_cosmo["hubble_constant"], rel=1e-15)
    assert c["omega_m"] == yt_cosmo["omega_matter"]
    assert c["omega_l"] == yt_cosmo["omega_lambda"]


def test_age_against_exact_integral(out):
    c, info = out.info["cosmology"], out.info["info"]
    age, aexp_of_tau = exact(info)
    now = age(aexp_of_tau(info["time"])[0])  # from the info file's tau, as yt
    assert c["age_Gyr"] * GYR_S == pytest.approx(now, rel=1e-12)
    assert c["age_code"] * info["unit_t"] == pytest.approx(now, rel=1e-12)
    assert c["age_today_Gyr"] * GYR_S == pytest.approx(age(1.0), rel=1e-12)
    assert c["lookback_time_Gyr"] * GYR_S == pytest.approx(age(1.0) - now, rel=1e-12)


def test_age_against_yt(out, yt_cosmo):
    """yt's current_time misses the 0.538 Myr before a = 1e-3: 3.7e-4
    relative. With that time added the two agree to yt's interpolation."""
    c, info = out.info["cosmology"], out.info["info"]
    age, _ = exact(info)
    before_table = age(1e-3) / GYR_S
    assert before_table == pytest.approx(0.538e-3, rel=1e-3)
    yt_gyr = yt_cosmo["current_time_Gyr"]
    assert c["age_Gyr"] == pytest.approx(yt_gyr, rel=4e-4)
    assert c["age_Gyr"] - before_table == pytest.approx(yt_gyr, abs=0.03e-3)  # 2e-5 relative
    assert c["age_code"] == pytest.approx(yt_cosmo["current_time_code"], rel=4e-4)


def test_comoving_units(out, yt_cosmo):
    """yt's Mpc is 3.0856775810e24 cm, snapkit's (IAU) 3.0856775815e24: 1.6e-10."""
    units, want = out.units, yt_cosmo["units"]
    assert units["kpccm"] == pytest.approx(want["length_unit_kpccm"], rel=1e-9)
    assert units["Mpccm/h"] == pytest.approx(want["length_unit_Mpccm_per_h"], rel=1e-9)
    assert units["kpc"] == pytest.approx(want["length_unit_kpc"], rel=1e-9)
    assert units["Mpc/h"] == pytest.approx(want["length_unit_kpc"] / 1e3 * 0.7, rel=1e-9)
    lengths = out.info["cosmology"]["length_unit"]
    assert lengths["kpccm"] == units["kpccm"] and lengths["Mpccm/h"] == units["Mpccm/h"]
    # Comoving ranges select what the same range in box units selects.
    box = out.particles(xrange=(0.25, 0.5), vars="identity")
    cm = out.particles(xrange=(0.25 * units["Mpccm/h"], 0.5 * units["Mpccm/h"]), unit="Mpccm/h",
                       vars="identity")
    assert len(cm) == len(box) > 0


def test_star_ages_against_yt(stars, yt_cosmo):
    p, star = stars
    myr = snapkit.unit_factor(p, "Myr")
    age = snapkit.derive(p, "age")[star] * myr
    want = yt_cosmo["stars"]["star_age_Myr"]
    assert star.sum() == yt_cosmo["stars"]["count"]
    assert age.min() == 0.0 == want["min"]  # the stars formed in the output's step
    # Ages are differences, so yt's missing early time cancels; what is left
    # is its linear table interpolation (the fixture's README: < 0.0066 Myr).
    assert age.max() == pytest.approx(want["max"], abs=0.01)
    assert age.mean() == pytest.approx(want["mean"], abs=0.01)


def test_star_ages_against_exact_integral(out, stars):
    p, star = stars
    age, aexp_of_tau = exact(out.info["info"])
    tau = np.asarray(p["birth_time"], dtype=np.float64)[star]
    born = age(aexp_of_tau(tau))
    now = age(aexp_of_tau(out.info["info"]["time"])[0])
    unit_t = out.info["info"]["unit_t"]
    got_born = snapkit.derive(p, "birth_time_proper")[star] * unit_t
    got_age = snapkit.derive(p, "age")[star] * unit_t
    np.testing.assert_allclose(got_born, born, rtol=1e-11)
    np.testing.assert_allclose(got_age, now - born, rtol=0, atol=1e-11 * now)


def test_formation_times_against_yt(out, stars, yt_cosmo):
    """yt's formation time is its current time minus the star's age, so it
    carries the 0.57 Myr offset of its current time (tested above) plus the
    age's interpolation wobble."""
    p, star = stars
    myr = snapkit.unit_factor(p, "Myr")
    born = snapkit.derive(p, "birth_time_proper")
    offset = out.info["cosmology"]["age_Gyr"] * 1e3 - yt_cosmo["current_time_Gyr"] * 1e3
    want = yt_cosmo["stars"]["particle_birth_time_Myr"]
    assert born[star].min() * myr - offset == pytest.approx(want["min"], abs=0.01)
    assert born[star].max() * myr - offset == pytest.approx(want["max"], abs=0.01)
    assert born[star].mean() * myr - offset == pytest.approx(want["mean"], abs=0.01)
    assert born[star].max() == pytest.approx(out.info["cosmology"]["age_code"], rel=1e-15)


def test_birth_time_against_reference_column(out, stars, yt_cosmo):
    """reference.json's birth_time_since_big_bang_yt (code time, DM 0)."""
    with open(OUT + ".reference.json") as f:
        ref = json.load(f)["full"]["particles"]["columns"]["birth_time_since_big_bang_yt"]
    p, star = stars
    born = snapkit.derive(p, "birth_time_proper")
    code = out.info["cosmology"]["age_code"] - yt_cosmo["current_time_code"]
    wobble = 0.01 / snapkit.unit_factor(p, "Myr")  # 0.01 Myr in code time
    assert born.min() == ref["min"] == 0.0
    assert np.all(born[~star] == 0.0)
    assert born.max() - code == pytest.approx(ref["max"], abs=wobble)
    assert born.sum() - star.sum() * code == pytest.approx(ref["sum"], abs=star.sum() * wobble)


def test_cli_info_json(out):
    got = json.loads(subprocess.run([CLI, "info", "--json", OUT], check=True,
                                    capture_output=True, text=True).stdout)
    assert got["cosmology"] == out.info["cosmology"]
    text = subprocess.run([CLI, "info", OUT], check=True, capture_output=True, text=True).stdout
    assert "redshift               3.98853803181225" in text
    assert "kpccm" in text


def test_not_cosmological():
    o = snapkit.open(os.path.join(DATA, "ramses", "gravpart", "output_00002"))
    c = o.info["cosmology"]
    assert c["cosmological"] is False
    assert c["age_code"] == o.info["info"]["time"]
    p = o.particles()
    bt = np.asarray(p["birth_time"], dtype=np.float64)
    np.testing.assert_array_equal(snapkit.derive(p, "birth_time_proper"), bt)
    np.testing.assert_array_equal(snapkit.derive(p, "age"), o.info["info"]["time"] - bt)
    assert "kpccm" not in o.units
    with pytest.raises(snapkit.Error, match="not cosmological"):
        snapkit.unit_factor(p, "kpccm")
