/* Number text against glibc: sk_format_double must read back exactly
 * (strtod) and be no longer than the shortest %.{p}g that does;
 * sk_parse_double must equal strtod on every input.
 *
 *   test_number [COUNT [SEED]] [--bench]
 * COUNT random bit patterns (default 2,000,000), plus edge cases and random
 * decimal strings. --bench also prints throughput against printf/strtod.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "check.h"
#include "core/number_internal.h"
#include "snapkit/util/number.h"

static uint64_t g_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void) /* splitmix64 */
{
    uint64_t z = (g_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t to_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static int same(double a, double b)
{
    return to_bits(a) == to_bits(b) || (isnan(a) && isnan(b));
}

/* Significant digits of a number text ("1.25e-07" -> 3). */
static int sig_digits(const char *s)
{
    int n = 0, started = 0, trailing_zeros = 0;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s != '0')
            started = 1;
        if (!started)
            continue;
        n++;
        trailing_zeros = *s == '0' ? trailing_zeros + 1 : 0;
    }
    return n - trailing_zeros;
}

static int is_power_of_two_significand(double v)
{
    uint64_t b = to_bits(v);
    return (b & ((UINT64_C(1) << 52) - 1)) == 0 && ((b >> 52) & 0x7ff) > 1;
}

/* Smallest p in 1..17 with strtod(%.{p}g) == v. */
static int shortest_search(double v)
{
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            return p;
    }
    return 99;
}

/* Does some decimal of p significant digits read back as v? The nearest
 * p-digit decimals below and above v are glibc's %.{p-1}e and its
 * neighbour one unit away; any other p-digit decimal is farther out. */
static int some_p_digit_reads_back(double v, int p)
{
    char buf[64], alt[64];
    snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    if (strtod(buf, NULL) == v)
        return 1;
    char *e = strchr(buf, 'e');
    long long mant = 0;
    for (char *c = buf; c < e; c++)
        if (*c >= '0' && *c <= '9')
            mant = mant * 10 + (*c - '0');
    int exp = atoi(e + 1) - (p - 1);
    double nearest = strtod(buf, NULL);
    long long other = nearest < v ? mant + 1 : mant - 1;
    snprintf(alt, sizeof alt, "%s%llde%d", v < 0 ? "-" : "", other, exp);
    return strtod(alt, NULL) == v;
}

static long g_full_searches;

/* The checks on one finite double; `full` also runs the shortest search. */
static void check_format(double v, int full)
{
    char ours[SK_NUMBER_BUFSIZE], ref[64];
    int n = sk_format_double(v, ours);
    CHECK_MSG(n == (int)strlen(ours) && n < SK_NUMBER_BUFSIZE, "%s", ours);
    double back = strtod(ours, NULL);
    CHECK_MSG(same(back, v), "%.17g printed as %s reads back as %.17g", v, ours, back);
    snprintf(ref, sizeof ref, "%.17g", v);
    double parsed;
    const char *stop;
    CHECK_MSG(sk_parse_double(ref, ref + strlen(ref), &parsed, &stop) && same(parsed, v) &&
                  stop == ref + strlen(ref),
              "sk_parse_double(%s) = %.17g", ref, parsed);
    CHECK_MSG(sk_parse_double(ours, ours + n, &parsed, &stop) && same(parsed, v), "parse(%s)",
              ours);
    if (v == 0)
        return;
    int digits = sig_digits(ours);
    /* nothing shorter reads back */
    if (digits > 1)
        CHECK_MSG(!some_p_digit_reads_back(v, digits - 1), "%.17g: %s is not the shortest", v,
                  ours);
    /* the nearest decimal of that length, unless only a farther one reads back */
    snprintf(ref, sizeof ref, "%.*e", digits - 1, v);
    if (strtod(ref, NULL) == v)
        CHECK_MSG(strtold(ref, NULL) == strtold(ours, NULL),
                  "%.17g: %s, but %s is nearer", v, ours, ref);
    else
        CHECK_MSG(is_power_of_two_significand(v), "%.17g: %s vs %s", v, ours, ref);
    if (full) {
        g_full_searches++;
        int p = shortest_search(v);
        CHECK_MSG(digits <= p, "%.17g: %s has %d digits, %%.%dg reads back", v, ours, digits, p);
        CHECK_MSG(digits == p || is_power_of_two_significand(v), "%.17g: %s vs %d digits", v,
                  ours, p);
    }
}

static void check_parse_text(const char *s)
{
    double ours, ref;
    const char *stop = NULL;
    char *rend;
    ref = strtod(s, &rend);
    int ok = sk_parse_double(s, s + strlen(s), &ours, &stop);
    CHECK_MSG(ok && same(ours, ref) && stop == rend, "parse(\"%s\") = %.17g, strtod %.17g", s,
              ours, ref);
}

static void test_log_approximations(void)
{
    for (int q = -1100; q <= 1100; q++) {
        long double x = q * log10l(2.0L);
        CHECK_MSG(sk_floor_log10_pow2(q) == (int)floorl(x), "q=%d", q);
        CHECK_MSG(sk_floor_log10_three_quarters_pow2(q) == (int)floorl(x + log10l(0.75L)),
                  "q=%d", q);
    }
}

static void test_table(void)
{
    /* T(q) = floor(5^q 2^-s): exact powers, and T(q+1) ~ 5/4 T(q) or 5/8 */
    CHECK(sk_pow5_t(0) == (sk_u128)1 << 127 && sk_pow5_s(0) == -127);
    CHECK(sk_pow5_t(1) == (sk_u128)5 << 125);
    sk_u128 p = 1;
    for (int q = 0; q <= 55; q++, p *= 5) {
        int s = sk_pow5_s(q);
        sk_u128 t = sk_pow5_t(q);
        CHECK_MSG(s < 0 ? (p << -s) == t : (p >> s) == t, "q=%d", q);
    }
    for (int q = SK_POW5_MIN; q <= SK_POW5_MAX; q++)
        CHECK(sk_pow5_t(q) >> 127 == 1);
}

static void test_edges(void)
{
    const double values[] = {0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1e-7,
                             5e-324, -5e-324, 1e-323, 2.2250738585072009e-308,
                             2.2250738585072014e-308, 2.2250738585072019e-308,
                             1.7976931348623157e308, -1.7976931348623157e308,
                             8.98846567431158e307, 36.150000000000006, 72.30000000000001,
                             9007199254740992.0, 9007199254740994.0, 9007199254740991.0,
                             4503599627370496.5, 123456789012345678.0, 1e15, 1e16, 1e17,
                             1e21, 1e22, 1e23, 5e-5, 1e-4, 0.001, 299792458.0, 6.02214076e23,
                             1.602176634e-19, 4.35e-310};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        check_format(values[i], 1);
    char buf[SK_NUMBER_BUFSIZE];
    sk_format_double(0.0, buf);
    CHECK_EQ_STR(buf, "0");
    sk_format_double(-0.0, buf);
    CHECK_EQ_STR(buf, "-0");
    sk_format_double(NAN, buf);
    CHECK_EQ_STR(buf, "nan");
    sk_format_double(-INFINITY, buf);
    CHECK_EQ_STR(buf, "-inf");
    sk_format_double(INFINITY, buf);
    CHECK_EQ_STR(buf, "inf");
    sk_format_double(100.0, buf);
    CHECK_EQ_STR(buf, "100");
    sk_format_double(1e16, buf);
    CHECK_EQ_STR(buf, "1e+16");
    sk_format_double(1234567890123456.0, buf);
    CHECK_EQ_STR(buf, "1234567890123456");
    sk_format_double(1e-7, buf);
    CHECK_EQ_STR(buf, "1e-07");
    sk_format_double(0.0001, buf);
    CHECK_EQ_STR(buf, "0.0001");
    sk_format_double(2.5e300, buf);
    CHECK_EQ_STR(buf, "2.5e+300");
    sk_format_double(-5e-324, buf);
    CHECK_EQ_STR(buf, "-5e-324");
    sk_format_double(1.7976931348623157e308, buf);
    CHECK_EQ_STR(buf, "1.7976931348623157e+308");
    sk_format_double(0.06091194039253143, buf);
    CHECK_EQ_STR(buf, "0.06091194039253143");
    sk_format_double(-36.149620154546405, buf);
    CHECK_EQ_STR(buf, "-36.149620154546405");

    /* every power of two and of ten, and their neighbours */
    for (int e = -1074; e <= 1023; e++) {
        double v = ldexp(1.0, e);
        check_format(v, 0);
        check_format(nextafter(v, 0), 0);
        check_format(nextafter(v, INFINITY), 0);
    }
    for (int e = -323; e <= 308; e++) {
        char text[32];
        snprintf(text, sizeof text, "1e%d", e);
        check_parse_text(text);
        double v = strtod(text, NULL);
        check_format(v, 1);
        check_format(nextafter(v, 0), 0);
        check_format(nextafter(v, INFINITY), 0);
    }
    /* integers near 2^53 */
    for (int64_t i = -100; i <= 100; i++) {
        char text[32];
        snprintf(text, sizeof text, "%" PRId64, (int64_t)9007199254740992 + i);
        check_parse_text(text);
        check_format((double)((int64_t)9007199254740992 + i), 1);
    }
    /* every subnormal exponent pattern */
    for (uint64_t m = 1; m < (UINT64_C(1) << 52); m = m * 3 + 1)
        check_format(from_bits(m), 1);
}

static void test_parse_grammar(void)
{
    const char *texts[] = {"0", "-0", "+0", "0.0", ".5", "5.", "-.5e-3", "1e", "1e+", "1e-x",
                           "1.5e3x", "inf", "-inf", "Infinity", "INF", "nan", "-nan",
                           "NaN(123)", "nan(", "1.7976931348623157e308",
                           "1.7976931348623159e308", "2e308", "4.9e-324", "2.4703282292062327e-324",
                           "2.4703282292062328e-324", "1e-400", "1e400", "123456789012345678901234567890",
                           "0.000000000000000000000000000000000000001234567890123456789012345",
                           "9007199254740993", "9007199254740993.0000000000000000000001",
                           "9007199254740992.9999999999999999999", "00000000000000000000001.5",
                           "1.00000000000000011102230246251565404236316680908203125",
                           "1.00000000000000011102230246251565404236316680908203124",
                           "1.00000000000000011102230246251565404236316680908203126",
                           "2.2250738585072011e-308", "2.2250738585072012e-308",
                           "1e99999999999", "1e-99999999999", "0e999999999"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        check_parse_text(texts[i]);
    double v;
    const char *stop;
    CHECK(!sk_parse_double("", (const char *)"" , &v, &stop));
    CHECK(!sk_parse_double("-", (const char *)"-" + 1, &v, &stop));
    CHECK(!sk_parse_double(".e5", (const char *)".e5" + 3, &v, &stop));
    const char *bounded = "1.25e10";
    CHECK(sk_parse_double(bounded, bounded + 4, &v, &stop) && v == 1.25 && stop == bounded + 4);
    CHECK(sk_parse_double(bounded, bounded + 5, &v, &stop) && v == 1.25 && stop == bounded + 4);
}

/* Exact halfway points between neighbouring doubles (as long double, which
 * holds 64 bits), printed in full, just above and just below. */
static void test_halfway(long count)
{
#if LDBL_MANT_DIG >= 64
    char text[1200];
    for (long i = 0; i < count; i++) {
        uint64_t bits = next_random() & ~(UINT64_C(1) << 63);
        if ((bits >> 52) >= 0x7fe)
            continue;
        double a = from_bits(bits), b = from_bits(bits + 1);
        long double mid = ((long double)a + (long double)b) / 2;
        int n = snprintf(text, sizeof text - 2, "%.800Le", mid);
        CHECK(n > 0 && n < (int)sizeof text - 2);
        check_parse_text(text);
        char *e = strchr(text, 'e');
        char expo[16];
        snprintf(expo, sizeof expo, "%s", e);
        /* drop trailing zeros of the mantissa, then perturb its last digit */
        char *z = e - 1;
        while (*z == '0')
            z--;
        size_t keep = (size_t)(z - text) + 1;
        char above[1200], below[1200];
        snprintf(above, sizeof above, "%.*s1%s", (int)keep, text, expo);
        check_parse_text(above);
        memcpy(below, text, keep);
        below[keep] = '\0';
        char *d = below + keep - 1; /* the last non-zero digit goes down by one, then 9s */
        if (*d >= '1' && *d <= '9') {
            (*d)--;
            snprintf(below + keep, sizeof below - keep, "999999999999999999999%s", expo);
            check_parse_text(below);
        }
    }
#else
    (void)count;
#endif
}

static void test_random_text(long count)
{
    char text[128];
    for (long i = 0; i < count; i++) {
        uint64_t r = next_random();
        int ndig = 1 + (int)(r % 40);
        int point = (int)((r >> 8) % (unsigned)(ndig + 1));
        int exp = (int)((r >> 16) % 720) - 360;
        char *p = text;
        if (r >> 63)
            *p++ = '-';
        for (int d = 0; d < ndig; d++) {
            if (d == point)
                *p++ = '.';
            uint64_t x = next_random();
            *p++ = (char)('0' + (x % 10));
        }
        sprintf(p, "e%d", exp);
        check_parse_text(text);
    }
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void bench(long count)
{
    enum { N = 1 << 16 };
    static double values[N];
    static char texts[N][32];
    for (int i = 0; i < N; i++) {
        values[i] = (double)(next_random() >> 11) / 9007199254740992.0 * 300.0;
        snprintf(texts[i], 32, "%.17g", values[i]);
    }
    long rounds = count / N + 1;
    char buf[64];
    volatile double sink = 0;
    double t0 = seconds();
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++)
            sink += sk_format_double(values[i], buf);
    double t1 = seconds();
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++)
            sink += snprintf(buf, sizeof buf, "%.17g", values[i]);
    double t2 = seconds();
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++) {
            double v;
            sk_parse_double(texts[i], texts[i] + strlen(texts[i]), &v, NULL);
            sink += v;
        }
    double t3 = seconds();
    for (long r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++)
            sink += strtod(texts[i], NULL);
    double t4 = seconds();
    double n = (double)rounds * N;
    printf("format: sk_format_double %.1f ns, printf %%.17g %.1f ns\n", (t1 - t0) / n * 1e9,
           (t2 - t1) / n * 1e9);
    printf("parse (17 digits): sk_parse_double %.1f ns, strtod %.1f ns\n", (t3 - t2) / n * 1e9,
           (t4 - t3) / n * 1e9);
}

int main(int argc, char **argv)
{
    long count = 2000000;
    int do_bench = 0;
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0)
            do_bench = 1;
        else if (positional++ == 0)
            count = atol(argv[i]);
        else
            g_state = strtoull(argv[i], NULL, 0);
    }
    test_log_approximations();
    test_table();
    test_edges();
    test_parse_grammar();
    test_halfway(count / 100);
    test_random_text(count / 4);
    for (long i = 0; i < count; i++) {
        double v = from_bits(next_random());
        if (isfinite(v))
            check_format(v, i % 16 == 0);
    }
    printf("%ld random doubles (%ld with the full shortest search)\n", count, g_full_searches);
    if (do_bench)
        bench(count);
    return test_done();
}
