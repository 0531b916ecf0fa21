/* The figure module: the age of a Friedmann universe, tick labels, the
 * title a map figure takes from a table's metadata, log and linear axes,
 * and the profile and phase figures (their files, pixels and refusals). */
#include "check.h"
#include "figure/map.h"
#include "figure/phase_plot.h"
#include "figure/plot.h"
#include "figure/profile_plot.h"
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
    /* a narrow axis far from 0: every label distinct (1.98, 1.99 x 10^-2, not 1.98 twice) */
    int m = skf_linear_ticks(0.019752, 0.020101, 6, t, 64, &step);
    CHECK(m >= 3);
    char prev[64] = "";
    for (int i = 0; i < m; i++) {
        skf_tick_label(t[i], step, 0.020101, b, sizeof b);
        CHECK_MSG(strcmp(b, prev) != 0, "tick %d repeats the label %s", i, b);
        snprintf(prev, sizeof prev, "%s", b);
    }
    skf_tick_label(0.01985, 5e-5, 0.0201, b, sizeof b);
    CHECK_EQ_STR(b, "1.985\xc3\x97" "10\xe2\x81\xbb\xc2\xb2");
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

/* ------------------------------------------------------------------ axes */

/* The ticks' values, majors, and labels ("" for minors and unlabelled). */
static void check_ticks(const skf_tick *t, int n, int want, const double *v, const int *major,
                        const char *const *label)
{
    CHECK_EQ_INT(n, want);
    for (int i = 0; i < n && i < want; i++) {
        CHECK_CLOSE(t[i].v, v[i], 1e-12);
        CHECK_EQ_INT(t[i].major, major[i]);
        CHECK_EQ_STR(t[i].label, label[i]);
    }
}

static int count_major(const skf_tick *t, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += t[i].major;
    return k;
}

#define SUP_MINUS "\xe2\x81\xbb"

static void test_log_ticks(void)
{
    skf_tick t[SKF_TICKS_CAP];
    /* 1..1000: decades 10^0..10^3 labelled, 2..9 x 1, 10, 100 between. */
    int n = skf_log10_ticks(1, 1000, t, SKF_TICKS_CAP);
    CHECK_EQ_INT(n, 4 + 3 * 8);
    CHECK_EQ_INT(count_major(t, n), 4);
    CHECK_CLOSE(t[0].v, 1, 1e-15);
    CHECK_EQ_STR(t[0].label, "10\xe2\x81\xb0");
    CHECK_CLOSE(t[1].v, 2, 1e-15);
    CHECK_EQ_INT(t[1].major, 0);
    CHECK_CLOSE(t[9].v, 10, 1e-15);
    CHECK_EQ_STR(t[9].label, "10\xc2\xb9");
    CHECK_CLOSE(t[18].v, 100, 1e-15);
    CHECK_EQ_STR(t[18].label, "10\xc2\xb2");
    CHECK_CLOSE(t[26].v, 900, 1e-12);
    CHECK_CLOSE(t[27].v, 1000, 1e-12);
    CHECK_EQ_STR(t[27].label, "10\xc2\xb3");
    /* 3e-6..4e-3: 10^-5, 10^-4, 10^-3; minors 3..9e-6 (7), 2..9e-5 (8),
     * 2..9e-4 (8), 2..4e-3 (3). */
    n = skf_log10_ticks(3e-6, 4e-3, t, SKF_TICKS_CAP);
    CHECK_EQ_INT(n, 3 + 7 + 8 + 8 + 3);
    CHECK_CLOSE(t[0].v, 3e-6, 1e-12);
    CHECK_CLOSE(t[7].v, 1e-5, 1e-12);
    CHECK_EQ_STR(t[7].label, "10" SUP_MINUS "\xe2\x81\xb5");
    CHECK_CLOSE(t[n - 1].v, 4e-3, 1e-12);
    /* Twenty decades: every decade a major tick, no minors. */
    n = skf_log10_ticks(1e-10, 1e10, t, SKF_TICKS_CAP);
    CHECK_EQ_INT(n, 21);
    CHECK_EQ_INT(count_major(t, n), 21);
    CHECK_EQ_STR(t[10].label, "10\xe2\x81\xb0");
    /* Under two decades: 0.5, 1, 2, 5 labelled, the other multiples minor. */
    static const double v1[] = {0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 3, 4, 5};
    static const int m1[] = {1, 0, 0, 0, 0, 1, 1, 0, 0, 1};
    static const char *const l1[] = {"0.5", "", "", "", "", "1", "2", "", "", "5"};
    n = skf_log10_ticks(0.5, 5, t, SKF_TICKS_CAP);
    check_ticks(t, n, 10, v1, m1, l1);
    /* 2..8: only 2 and 5 of 1-2-5, so every multiple is labelled. */
    static const double v2[] = {2, 3, 4, 5, 6, 7, 8};
    static const int m2[] = {1, 1, 1, 1, 1, 1, 1};
    static const char *const l2[] = {"2", "3", "4", "5", "6", "7", "8"};
    n = skf_log10_ticks(2, 8, t, SKF_TICKS_CAP);
    check_ticks(t, n, 7, v2, m2, l2);
    /* 0.8..1.9: the multiples 0.8, 0.9, 1 leave the top half bare; round
     * linear values instead (step 0.25). */
    static const double v3[] = {1, 1.25, 1.5, 1.75};
    static const int m3[] = {1, 1, 1, 1};
    static const char *const l3[] = {"1.00", "1.25", "1.50", "1.75"};
    n = skf_log10_ticks(0.8, 1.9, t, SKF_TICKS_CAP);
    check_ticks(t, n, 4, v3, m3, l3);
    /* Small round values as powers: 2×10⁻⁶. */
    n = skf_log10_ticks(2e-6, 9e-6, t, SKF_TICKS_CAP);
    CHECK_EQ_INT(n, 8);
    CHECK_EQ_STR(t[0].label, "2\xc3\x97" "10" SUP_MINUS "\xe2\x81\xb6");
    /* Nothing for a range that is not positive. */
    CHECK_EQ_INT(skf_log10_ticks(0, 10, t, SKF_TICKS_CAP), 0);
    CHECK_EQ_INT(skf_log10_ticks(-1, 10, t, SKF_TICKS_CAP), 0);
}

static void test_lin_ticks(void)
{
    skf_tick t[SKF_TICKS_CAP];
    static const double v[] = {0, 5, 10, 15, 20, 25, 30};
    static const int m[] = {1, 1, 1, 1, 1, 1, 1};
    static const char *const l[] = {"0", "5", "10", "15", "20", "25", "30"};
    int n = skf_lin_ticks(0, 30, 6, t, SKF_TICKS_CAP);
    check_ticks(t, n, 7, v, m, l);
    static const double v2[] = {-0.1, 0, 0.1, 0.2};
    static const char *const l2[] = {"\xe2\x88\x92" "0.1", "0.0", "0.1", "0.2"};
    n = skf_lin_ticks(-0.13, 0.24, 4, t, SKF_TICKS_CAP);
    check_ticks(t, n, 4, v2, m, l2);
}

static void test_axis_pos(void)
{
    skf_axis a;
    skf_axis_init(&a, 1, 1000, 1, 6, "r [kpc]");
    CHECK(a.decades);
    a.from = 100;
    a.to = 400;
    CHECK_CLOSE(skf_axis_pos(&a, 10), 200, 1e-12);
    CHECK_CLOSE(skf_axis_pos(&a, sqrt(10)), 150, 1e-12);
    CHECK(isnan(skf_axis_pos(&a, 0)));
    CHECK(isnan(skf_axis_pos(&a, -1)));
    CHECK(isnan(skf_axis_pos(&a, NAN)));
    skf_axis_init(&a, -1, 3, 0, 6, NULL);
    CHECK(!a.decades);
    a.from = 500; /* a y axis: up the page */
    a.to = 100;
    CHECK_CLOSE(skf_axis_pos(&a, 0), 400, 1e-12);
    CHECK_CLOSE(skf_axis_pos(&a, 3), 100, 1e-12);
}

/* --------------------------------------------------------------- figures */

/* The file's first n bytes (fewer when shorter); the file's size. */
static long head_of(const char *path, unsigned char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, n, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    if (got < n)
        memset(buf + got, 0, n - got);
    return size;
}

/* A file is a PNG, SVG or PDF page of width x height points. */
static void check_file(const char *path, skf_format fmt, double width, double height)
{
    unsigned char h[512];
    long size = head_of(path, h, sizeof h - 1);
    CHECK_MSG(size > 100, "%s: %ld bytes", path, size);
    h[sizeof h - 1] = 0;
    char want[128];
    if (fmt == SKF_PNG) {
        CHECK(!memcmp(h, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
        CHECK_EQ_INT((long)h[16] << 24 | (long)h[17] << 16 | h[18] << 8 | h[19], (long)width);
        CHECK_EQ_INT((long)h[20] << 24 | (long)h[21] << 16 | h[22] << 8 | h[23], (long)height);
    } else if (fmt == SKF_SVG) {
        CHECK(!memcmp(h, "<?xml", 5));
        snprintf(want, sizeof want, "width=\"%gpx\" height=\"%gpx\"", width, height);
        CHECK_CONTAINS((const char *)h, want);
        char *all = test_slurp(path);
        CHECK(all && strstr(all, "</svg>"));
        free(all);
    } else {
        CHECK(!memcmp(h, "%PDF-", 5));
        char *all = malloc((size_t)size + 1);
        FILE *f = fopen(path, "rb");
        size_t got = f && all ? fread(all, 1, (size_t)size, f) : 0;
        if (f)
            fclose(f);
        CHECK_EQ_INT(got, size);
        snprintf(want, sizeof want, "/MediaBox [ 0 0 %g %g ]", width, height);
        CHECK(all && memmem(all, got, want, strlen(want)));
        CHECK(all && memmem(all, got, "%%EOF", 5));
        free(all);
    }
}

/* A radial profile (a power law with a band) and a Gaussian phase
 * diagram on log axes, in the three formats. */
static void test_files(const char *dir)
{
    enum { N = 24, NX = 40, NY = 30 };
    double e[N + 1], y[N], lo[N], hi[N];
    for (int i = 0; i <= N; i++)
        e[i] = pow(10, -1 + 3.0 * i / N);
    for (int i = 0; i < N; i++) {
        y[i] = pow(sqrt(e[i] * e[i + 1]), -2);
        lo[i] = 0.7 * y[i];
        hi[i] = 1.4 * y[i];
    }
    skf_profile_series ser = {.label = "gas", .y = y, .lo = lo, .hi = hi};
    skf_profile_spec ps = {.nbins = N, .edges = e, .xlog = 1, .ylog = 1, .title = "Profile",
                           .xtitle = "r [kpc]", .ytitle = "density [g cm-3]", .nseries = 1,
                           .series = &ser};
    double xe[NX + 1], ye[NY + 1], v[NX * NY];
    for (int i = 0; i <= NX; i++)
        xe[i] = pow(10, -28 + 6.0 * i / NX);
    for (int j = 0; j <= NY; j++)
        ye[j] = pow(10, 2 + 6.0 * j / NY);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++)
            v[j * NX + i] = exp(-0.5 * (pow((i - 20) / 6.0, 2) + pow((j - 15) / 5.0, 2)));
    skf_phase_spec ph = {.nx = NX, .ny = NY, .xedges = xe, .yedges = ye, .values = v,
                         .xlog = 1, .ylog = 1, .zlog = 1, .xtitle = "density [g cm-3]",
                         .ytitle = "T [K]", .ztitle = "mass [Msun]"};
    sk_error err;
    skf_layout lp, lh;
    CHECK_OK(skf_profile_layout(&ps, &lp, &err), &err);
    CHECK_OK(skf_phase_layout(&ph, &lh, &err), &err);
    CHECK(lp.w > 100 && lp.h > 100 && lp.x > 30 && lp.x + lp.w < lp.width &&
          lp.y + lp.h < lp.height);
    CHECK(lh.x + lh.w < lh.width - 40); /* room for the colour bar */
    for (int k = 0; k < 3; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/profile.%s", dir, skf_format_name((skf_format)k));
        CHECK_OK(skf_profile_figure(&ps, path, &err), &err);
        check_file(path, (skf_format)k, lp.width, lp.height);
        snprintf(path, sizeof path, "%s/phase.%s", dir, skf_format_name((skf_format)k));
        CHECK_OK(skf_phase_figure(&ph, path, &err), &err);
        check_file(path, (skf_format)k, lh.width, lh.height);
    }
}

/* The PNG's pixel at page point (x, y) as 0xRRGGBB (cairo's RGB24 and
 * ARGB32 keep it in a native-endian 32-bit word). */
static uint32_t pixel(cairo_surface_t *png, double x, double y)
{
    unsigned char *data = cairo_image_surface_get_data(png);
    int stride = cairo_image_surface_get_stride(png);
    uint32_t v;
    memcpy(&v, data + (size_t)floor(y) * (size_t)stride + 4 * (size_t)floor(x), 4);
    return v & 0xFFFFFF;
}

#define CHECK_RGB(got, want, tol)                                                               \
    CHECK_MSG(abs((int)((got) >> 16 & 255) - (int)((want) >> 16 & 255)) <= (tol) &&           \
                  abs((int)((got) >> 8 & 255) - (int)((want) >> 8 & 255)) <= (tol) &&         \
                  abs((int)((got) & 255) - (int)((want) & 255)) <= (tol),                     \
              "colour %06x, not %06x", (unsigned)(got), (unsigned)(want))

static cairo_surface_t *read_png(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    CHECK(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS);
    return s;
}

/* Empty bins white, the smallest value viridis(0) = #440154, the largest
 * viridis(1) = #fde725; bins are rectangles in axis coordinates. */
static void test_phase_pixels(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/p.png", dir);
    sk_error err;
    skf_layout l;
    /* 2 x 2, even: [iy][ix] = {NaN, 1; 2, 3} */
    double xe[] = {0, 1, 2}, ye[] = {10, 20, 30}, v[] = {NAN, 1, 2, 3};
    skf_phase_spec s = {.nx = 2, .ny = 2, .xedges = xe, .yedges = ye, .values = v,
                        .xtitle = "x [cm]", .ytitle = "y [cm]", .ztitle = "n"};
    CHECK_OK(skf_phase_figure(&s, path, &err), &err);
    CHECK_OK(skf_phase_layout(&s, &l, &err), &err);
    cairo_surface_t *png = read_png(path);
    CHECK_EQ_INT(cairo_image_surface_get_width(png), (int)l.width);
    CHECK_RGB(pixel(png, l.x + 0.25 * l.w, l.y + 0.75 * l.h), 0xffffffu, 0); /* NaN */
    CHECK_RGB(pixel(png, l.x + 0.75 * l.w, l.y + 0.75 * l.h), 0x440154u, 1); /* 1 */
    CHECK_RGB(pixel(png, l.x + 0.75 * l.w, l.y + 0.25 * l.h), 0xfde725u, 1); /* 3 */
    cairo_surface_destroy(png);
    /* Uneven on a log axis: x edges 1, 10, 1000 are 0, 1/3, 1 of the width;
     * zlog makes 0 an empty bin. */
    double ue[] = {1, 10, 1000}, uy[] = {0, 1}, uv[] = {5, 50}, zv[] = {0, 50};
    skf_phase_spec u = {.nx = 2, .ny = 1, .xedges = ue, .yedges = uy, .values = uv, .xlog = 1,
                        .zlog = 1, .ztitle = "mass [g]"};
    CHECK_OK(skf_phase_figure(&u, path, &err), &err);
    CHECK_OK(skf_phase_layout(&u, &l, &err), &err);
    png = read_png(path);
    double row = l.y + 0.5 * l.h;
    CHECK_RGB(pixel(png, l.x + 0.30 * l.w, row), 0x440154u, 1);
    CHECK_RGB(pixel(png, l.x + 0.37 * l.w, row), 0xfde725u, 1);
    cairo_surface_destroy(png);
    u.values = zv;
    CHECK_OK(skf_phase_figure(&u, path, &err), &err);
    png = read_png(path);
    CHECK_RGB(pixel(png, l.x + 0.30 * l.w, row), 0xffffffu, 0);
    CHECK_RGB(pixel(png, l.x + 0.37 * l.w, row), 0x21918cu, 2); /* flat range: viridis(0.5) */
    cairo_surface_destroy(png);
}

/* The band: the first series' blue (#1f77b4) at 22% over white, i.e.
 * 255 - 0.22 (255 - c) = (206, 225, 239); white where the curve breaks. */
static void test_profile_pixels(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/b.png", dir);
    sk_error err;
    skf_layout l;
    double e[] = {0, 1, 2, 3, 4}, y[] = {1, 1, 1, 1}, lo[] = {0, 0, 0, 0}, hi[] = {2, 2, 2, 2};
    skf_profile_series ser = {.y = y, .lo = lo, .hi = hi};
    skf_profile_spec s = {.nbins = 4, .edges = e, .xtitle = "r [pc]", .ytitle = "v [km/s]",
                          .nseries = 1, .series = &ser};
    CHECK_OK(skf_profile_figure(&s, path, &err), &err);
    CHECK_OK(skf_profile_layout(&s, &l, &err), &err);
    /* y from -0.1 to 2.1 (5% of 0..2 to spare), x from 0 to 4 */
    cairo_surface_t *png = read_png(path);
    double px = l.x + 1.25 / 4 * l.w;
    CHECK_RGB(pixel(png, px, l.y + l.h - 1.6 / 2.2 * l.h), 0xcee1efu, 2);
    CHECK_RGB(pixel(png, px, l.y + l.h - 0.05 / 2.2 * l.h), 0xffffffu, 0);
    CHECK_RGB(pixel(png, px, l.y + l.h - 1.1 / 2.2 * l.h), 0x1f77b4u, 40); /* the curve */
    cairo_surface_destroy(png);
    /* A NaN bin breaks the line through the centres: nothing at x = 1.5. */
    double yb[] = {1, NAN, 1, 1};
    skf_profile_series br = {.label = "broken", .y = yb};
    s.series = &br;
    CHECK_OK(skf_profile_figure(&s, path, &err), &err);
    CHECK_OK(skf_profile_layout(&s, &l, &err), &err);
    png = read_png(path);
    double py = l.y + l.h / 2; /* y range 0.5..1.5 */
    CHECK_RGB(pixel(png, l.x + 1.5 / 4 * l.w, py), 0xffffffu, 0);
    CHECK_RGB(pixel(png, l.x + 2.5 / 4 * l.w, py), 0x1f77b4u, 40);
    cairo_surface_destroy(png);
}

/* One refusal: SK_ERR_ARG, the message, nothing written. */
static void check_refused(int rc, const sk_error *err, const char *path, const char *words)
{
    CHECK_EQ_INT(rc, SK_ERR_ARG);
    CHECK_CONTAINS(err->message, words);
    CHECK(access(path, F_OK) != 0);
}

static void test_refusals(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/refused.png", dir);
    sk_error err;
    double e[] = {0, 1, 2}, y[] = {1, 2}, neg[] = {-1, 0}, bad[] = {0, 2, 2};
    skf_profile_series ser = {.y = y};
    skf_profile_spec s = {.nbins = 2, .edges = e, .xlog = 1, .nseries = 1, .series = &ser};
    check_refused(skf_profile_figure(&s, path, &err), &err, path,
                  "a log axis needs bin edges > 0, the first is 0");
    s.xlog = 0;
    s.nbins = 0;
    check_refused(skf_profile_figure(&s, path, &err), &err, path, "at least one bin (0 given)");
    s.nbins = 2;
    s.edges = bad;
    check_refused(skf_profile_figure(&s, path, &err), &err, path,
                  "edges must increase, edge 2 (2) is not above edge 1 (2)");
    s.edges = e;
    s.ylog = 1;
    ser.y = neg;
    check_refused(skf_profile_figure(&s, path, &err), &err, path,
                  "no finite value above 0 (log y axis)");
    s.nseries = 0;
    check_refused(skf_profile_figure(&s, path, &err), &err, path, "no series");
    char txt[512];
    snprintf(txt, sizeof txt, "%s/figure.txt", dir);
    s.nseries = 1;
    ser.y = y;
    check_refused(skf_profile_figure(&s, txt, &err), &err, txt, ".png, .svg or .pdf");

    double v[] = {NAN, NAN, NAN, NAN}, zero[] = {0, -1, 0, 0};
    skf_phase_spec p = {.nx = 2, .ny = 2, .xedges = e, .yedges = e, .values = v};
    check_refused(skf_phase_figure(&p, path, &err), &err, path,
                  "no finite value for the colour range");
    p.values = zero;
    p.zlog = 1;
    check_refused(skf_phase_figure(&p, path, &err), &err, path,
                  "no finite value above 0 (log colour scale)");
    p.zlog = 0;
    p.ylog = 1;
    check_refused(skf_phase_figure(&p, path, &err), &err, path,
                  "y axis: a log axis needs bin edges > 0");
    p.ylog = 0;
    p.nx = 0;
    check_refused(skf_phase_figure(&p, path, &err), &err, path, "x axis needs at least one bin");
    p.nx = 2;
    p.yedges = bad;
    check_refused(skf_phase_figure(&p, path, &err), &err, path, "edges must increase");
}

int main(void)
{
    test_cosmic_age();
    test_labels();
    test_style();
    test_log_ticks();
    test_lin_ticks();
    test_axis_pos();
    char dir[256];
    test_tmpdir(dir, sizeof dir);
    test_files(dir);
    test_phase_pixels(dir);
    test_profile_pixels(dir);
    test_refusals(dir);
    test_remove_tree(dir);
    skf_release();
    return test_done();
}
