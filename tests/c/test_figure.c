/* The figure module: the age of a Friedmann universe, tick labels, and the
 * title a map figure takes from a table's metadata. */
#include "check.h"
#include "figure/map.h"
#include "figure/plot.h"
#include "snapkit/snapkit.h"

#define GYR (1e9 * 3.15576e7)

static void test_cosmic_age(void)
{
    /* Einstein-de Sitter: t = 2 / (3 H0) a^(3/2), exactly. */
    double hubble = SK_CM_PER_MPC / (70 * SK_CM_PER_KM);
    for (double a = 0.1; a <= 1.0; a += 0.3)
        CHECK_CLOSE(skf_cosmic_age(a, 70, 1, 0, 0), 2.0 / 3.0 * hubble * pow(a, 1.5),
                    1e-9 * hubble);
    /* Flat LCDM (0.3, 0.7, h = 0.7): 13.47 Gyr today; the closed form
     * t = 2 / (3 H0 sqrt(OL)) asinh(sqrt(OL / Om) a^(3/2)). */
    double exact = 2.0 / (3.0 * sqrt(0.7)) * hubble * asinh(sqrt(0.7 / 0.3));
    CHECK_CLOSE(skf_cosmic_age(1, 70, 0.3, 0.7, 0), exact, 1e-9 * exact);
    CHECK_CLOSE(exact / GYR, 13.47, 0.01);
    CHECK(isnan(skf_cosmic_age(0, 70, 0.3, 0.7, 0)));
}

static void test_labels(void)
{
    char b[64];
    double t[64], step;
    CHECK_EQ_INT(skf_linear_ticks(0, 1, 6, t, 64, &step), 6);
    CHECK_CLOSE(step, 0.2, 1e-15);
    skf_tick_label(t[1], step, 1, b, sizeof b);
    CHECK_EQ_STR(b, "0.2");
    skf_tick_label(0, step, 1, b, sizeof b);
    CHECK_EQ_STR(b, "0.0");
    skf_tick_label(-0.25, 0.25, 1, b, sizeof b);
    CHECK_EQ_STR(b, "\xe2\x88\x92" "0.25");
    skf_tick_label(1500, 500, 2000, b, sizeof b);
    CHECK_EQ_STR(b, "1500");
    skf_tick_label(1.5e-9, 5e-10, 2e-9, b, sizeof b);
    CHECK_EQ_STR(b, "1.5\xc3\x97" "10\xe2\x81\xbb\xe2\x81\xb9");
    skf_tick_label(5e4, 5e4, 1.7e5, b, sizeof b); /* the axis reaches 10^5: powers throughout */
    CHECK_EQ_STR(b, "5\xc3\x97" "10\xe2\x81\xb4");
    skf_power_of_ten(-12, b, sizeof b);
    CHECK_EQ_STR(b, "10\xe2\x81\xbb\xc2\xb9\xc2\xb2");
}

static sk_table *meta(const char *const *kv)
{
    sk_table *t = sk_table_new(0);
    for (; *kv; kv += 2)
        CHECK_EQ_INT(sk_table_meta_set(t, kv[0], kv[1]), SK_OK);
    return t;
}

static void test_style(void)
{
    skf_map_style s;
    /* A cosmological run (the cosmo32 fixture's info): yt gives z 3.9885
     * and 1.5206 Gyr. */
    static const char *const cosmo[] = {"time", "-3.98969388594152", "aexp", "0.200459532156101",
        "H0", "70", "omega_m", "0.300000011920929", "omega_l", "0.699999988079071",
        "omega_k", "0", "unit_l", "8.83647831687964e24", "unit_d", "3.43079733415293e-28",
        "unit_t", "1.77135632620219e16", NULL};
    sk_table *t = meta(cosmo);
    skf_map_style_init(&s, t, NULL);
    CHECK_EQ_STR(s.time, "z = 3.99, t = 1.52 Gyr");
    CHECK(s.unit_l > 0);
    sk_table_free(t);
    /* Physical units, not cosmological. */
    static const char *const phys[] = {"time", "0.106880837782148", "aexp", "1", "H0", "1",
        "unit_l", "3.0856775814913673e22", "unit_d", "1.66e-24", "unit_t", "3.1556926e15", NULL};
    t = meta(phys);
    skf_map_style_init(&s, t, "kpc");
    CHECK_EQ_STR(s.time, "t = 10.7 Myr");
    CHECK_EQ_STR(s.length_unit, "kpc");
    sk_table_free(t);
    /* Code units (unit_l, unit_d and unit_t all 1). */
    static const char *const code[] = {"time", "0.106880837782148", "aexp", "1", "H0", "1",
        "unit_l", "1", "unit_d", "1", "unit_t", "1", NULL};
    t = meta(code);
    skf_map_style_init(&s, t, "");
    CHECK_EQ_STR(s.time, "t = 0.1069 (code units)");
    CHECK(s.unit_l == 0);
    sk_table_free(t);
    static const char *const none[] = {NULL};
    t = meta(none);
    skf_map_style_init(&s, t, NULL);
    CHECK_EQ_STR(s.time, "");
    sk_table_free(t);
}

int main(void)
{
    test_cosmic_age();
    test_labels();
    test_style();
    return test_done();
}
