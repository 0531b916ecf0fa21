/* Projection options: defaults, and setting them from text so that the
 * command line and Python share one parser. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "project_internal.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

#define DEFAULT_MEMORY_BUDGET (4LL << 30)
#define DEFAULT_PRIVATE_BUDGET (1LL << 30)
#define DEFAULT_OVERLAP_MAX 64

void sk_project_options_init(sk_project_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->axis = 2;
    snprintf(opt->region.unit, sizeof opt->region.unit, "standard");
    opt->overlap_max = DEFAULT_OVERLAP_MAX;
    opt->memory_budget = DEFAULT_MEMORY_BUDGET;
    opt->private_budget = DEFAULT_PRIVATE_BUDGET;
}

sk_project_options *sk_project_options_new(void)
{
    sk_project_options *opt = sk_malloc(sizeof *opt);
    if (opt)
        sk_project_options_init(opt);
    return opt;
}

void sk_project_options_free(sk_project_options *opt)
{
    sk_free(opt);
}

/* Up to `max` numbers separated by spaces or commas; returns how many. */
static int parse_numbers(const char *text, double *out, int max)
{
    const char *p = text, *end = text + strlen(text);
    int n = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ',' || *p == '\t'))
            p++;
        if (p == end)
            break;
        const char *stop;
        if (n == max || !sk_parse_double(p, end, &out[n], &stop) || !isfinite(out[n]))
            return -1;
        n++;
        p = stop;
    }
    return n;
}

static int want_numbers(const char *key, const char *value, double *out, int min, int max,
                        sk_error *err)
{
    int n = parse_numbers(value, out, max);
    if (n < min || n > max) {
        if (min == max)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: expected %d number%s, got '%s'", key,
                           min, min == 1 ? "" : "s", value);
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: expected %d to %d numbers, got '%s'", key,
                       min, max, value);
    }
    return SK_OK;
}

static int want_int(const char *key, const char *value, int64_t lo, int64_t hi, int64_t *out,
                    sk_error *err)
{
    const char *stop, *end = value + strlen(value);
    if (!sk_parse_int64(value, end, out, &stop) || stop != end)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: '%s' is not an integer", key, value);
    if (*out < lo || *out > hi)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s must be between %lld and %lld, not %lld",
                       key, (long long)lo, (long long)hi, (long long)*out);
    return SK_OK;
}

/* "512M", "4G", "1000000" -> bytes (k, M, G, T are powers of 1024). */
static int want_bytes(const char *key, const char *value, int64_t *out, sk_error *err)
{
    const char *stop, *end = value + strlen(value);
    double v;
    if (!sk_parse_double(value, end, &v, &stop) || !(v > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: '%s' is not a size in bytes", key, value);
    double scale = 1;
    if (stop < end) {
        const char *suffix = "kMGT";
        const char *at = strchr(suffix, stop[0] == 'K' ? 'k' : stop[0]);
        if (!at || !stop[0] || (stop[1] && strcmp(stop + 1, "B") && strcmp(stop + 1, "iB")))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: '%s' is not a size (use e.g. 512M, 4G)",
                           key, value);
        scale = ldexp(1.0, 10 * (int)(at - suffix + 1));
    }
    if (v * scale > 9.0e18)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: '%s' is too large", key, value);
    *out = (int64_t)(v * scale);
    return SK_OK;
}

static int set_unit_text(char *dst, size_t n, const char *key, const char *value, sk_error *err)
{
    if (strlen(value) >= n)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: '%s' is too long", key, value);
    snprintf(dst, n, "%s", value);
    return SK_OK;
}

static const struct {
    const char *name;
    int family;
} k_families[] = {
    {"gas_tracer", 0}, {"dm", 1},      {"star", 2},         {"cloud", 3},
    {"debris", 4},     {"other", 5},   {"other_tracer", -1}, {"star_tracer", -2},
    {"cloud_tracer", -3}, {"debris_tracer", -4},
};

static int set_family(sk_project_options *opt, const char *value, sk_error *err)
{
    for (size_t i = 0; i < sizeof k_families / sizeof k_families[0]; i++)
        if (strcasecmp(value, k_families[i].name) == 0) {
            opt->family = k_families[i].family;
            opt->has_family = 1;
            return SK_OK;
        }
    int64_t f;
    if (want_int("family", value, -128, 127, &f, NULL) != SK_OK)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "family: '%s' is neither a number nor one of dm, star, cloud, debris, "
                       "other, gas_tracer, star_tracer, cloud_tracer, debris_tracer, other_tracer",
                       value);
    opt->family = (int)f;
    opt->has_family = 1;
    return SK_OK;
}

static int set_choice(const char *key, const char *value, const char *const *names, int n,
                      int *out, sk_error *err)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return SK_OK;
        }
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: '%s' is not one of %s", key, value, list);
}

static int set_vector(double *dst, int *has, const char *key, const char *value, sk_error *err)
{
    double v[3];
    int rc = want_numbers(key, value, v, 3, 3, err);
    if (rc != SK_OK)
        return rc;
    memcpy(dst, v, sizeof v);
    *has = 1;
    return SK_OK;
}

static int set_angles(sk_project_options *opt, const char *value, sk_error *err)
{
    double a[2];
    int rc = want_numbers("angles", value, a, 2, 2, err);
    if (rc != SK_OK)
        return rc;
    double theta = a[0] * M_PI / 180.0, phi = a[1] * M_PI / 180.0;
    opt->direction[0] = sin(theta) * cos(phi);
    opt->direction[1] = sin(theta) * sin(phi);
    opt->direction[2] = cos(theta);
    opt->has_direction = 1;
    return SK_OK;
}

static int set_range(double *dst, int *has, const char *key, const char *value, sk_error *err)
{
    double r[2];
    int rc = want_numbers(key, value, r, 2, 2, err);
    if (rc != SK_OK)
        return rc;
    if (!(r[0] < r[1]))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: low end must be below high end", key);
    dst[0] = r[0];
    dst[1] = r[1];
    *has = 1;
    return SK_OK;
}

static int set_center(sk_project_options *opt, const char *value, sk_error *err)
{
    if (strcmp(value, "bc") == 0) {
        opt->region.has_center = 1;
        opt->region.center_is_bc = 1;
        return SK_OK;
    }
    int rc = want_numbers("center", value, opt->region.center, 3, 3, err);
    if (rc == SK_OK) {
        opt->region.has_center = 1;
        opt->region.center_is_bc = 0;
    }
    return rc;
}

static int set_fov(sk_project_options *opt, const char *value, sk_error *err)
{
    double v[2];
    int n = parse_numbers(value, v, 2);
    if (n < 1 || !(v[0] > 0) || (n == 2 && !(v[1] > 0)))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "fov: expected a width and optionally a height "
                       "above zero, got '%s'", value);
    opt->fov[0] = v[0];
    opt->fov[1] = n == 2 ? v[1] : v[0];
    opt->has_fov = 1;
    return SK_OK;
}

static int set_positive(double *dst, const char *key, const char *value, sk_error *err)
{
    double v;
    int rc = want_numbers(key, value, &v, 1, 1, err);
    if (rc != SK_OK)
        return rc;
    if (!(v > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%s must be above zero, not %s", key, value);
    *dst = v;
    return SK_OK;
}

int sk_project_options_set(sk_project_options *opt, const char *key, const char *value,
                           sk_error *err)
{
    static const char *const axes[] = {"x", "y", "z"};
    static const char *const weights[] = {"mass", "volume"};
    static const char *const modes[] = {"mean", "sum"};
    static const char *const kernels[] = {"auto", "exact", "overlap", "cic", "ngp"};
    static const char *const strategies[] = {"auto", "cells", "tiles"};
    int64_t n;
    int choice = 0, rc;
    if (!key || !value)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "projection option without a key or value");
    if (strcmp(key, "axis") == 0) {
        if ((rc = set_choice(key, value, axes, 3, &choice, err)) == SK_OK) {
            opt->axis = choice;
            opt->has_direction = 0;
        }
        return rc;
    }
    if (strcmp(key, "direction") == 0)
        return set_vector(opt->direction, &opt->has_direction, key, value, err);
    if (strcmp(key, "up") == 0)
        return set_vector(opt->up, &opt->has_up, key, value, err);
    if (strcmp(key, "angles") == 0)
        return set_angles(opt, value, err);
    if (strcmp(key, "res") == 0) {
        rc = want_int(key, value, 1, INT64_MAX, &n, err);
        if (rc == SK_OK)
            opt->res = n;
        return rc;
    }
    if (strcmp(key, "pixel") == 0)
        return set_positive(&opt->pixel, key, value, err);
    if (strcmp(key, "pixel_unit") == 0)
        return set_unit_text(opt->pixel_unit, sizeof opt->pixel_unit, key, value, err);
    if (strcmp(key, "unit") == 0)
        return set_unit_text(opt->region.unit, sizeof opt->region.unit, key, value, err);
    if (strcmp(key, "center") == 0)
        return set_center(opt, value, err);
    if (strcmp(key, "xrange") == 0 || strcmp(key, "yrange") == 0 || strcmp(key, "zrange") == 0) {
        int a = key[0] - 'x';
        return set_range(opt->region.range[a], &opt->region.has_range[a], key, value, err);
    }
    if (strcmp(key, "los") == 0)
        return set_range(opt->los_range, &opt->has_los_range, key, value, err);
    if (strcmp(key, "fov") == 0)
        return set_fov(opt, value, err);
    if (strcmp(key, "weight") == 0) {
        if ((rc = set_choice(key, value, weights, 2, &choice, err)) == SK_OK)
            opt->weight_volume = choice;
        return rc;
    }
    if (strcmp(key, "mode") == 0) {
        if ((rc = set_choice(key, value, modes, 2, &choice, err)) == SK_OK)
            opt->mode_sum = choice;
        return rc;
    }
    if (strcmp(key, "kernel") == 0) {
        if ((rc = set_choice(key, value, kernels, 5, &choice, err)) == SK_OK)
            opt->kernel = (sk_proj_kernel)choice;
        return rc;
    }
    if (strcmp(key, "strategy") == 0) {
        if ((rc = set_choice(key, value, strategies, 3, &choice, err)) == SK_OK)
            opt->strategy = (sk_proj_strategy)choice;
        return rc;
    }
    if (strcmp(key, "overlap_max") == 0) {
        rc = want_int(key, value, 1, 256, &n, err);
        if (rc == SK_OK)
            opt->overlap_max = (int)n;
        return rc;
    }
    if (strcmp(key, "threads") == 0) {
        rc = want_int(key, value, 0, 1 << 20, &n, err);
        if (rc == SK_OK)
            opt->threads = (int)n;
        return rc;
    }
    if (strcmp(key, "clip") == 0) {
        rc = want_int(key, value, 0, 1, &n, err);
        if (rc == SK_OK)
            opt->clip = (int)n;
        return rc;
    }
    if (strcmp(key, "family") == 0)
        return set_family(opt, value, err);
    if (strcmp(key, "mu") == 0)
        return set_positive(&opt->mu, key, value, err);
    if (strcmp(key, "gamma") == 0)
        return set_positive(&opt->gamma, key, value, err);
    if (strcmp(key, "units") == 0)
        return set_unit_text(opt->units, sizeof opt->units, key, value, err);
    if (strcmp(key, "memory_budget") == 0)
        return want_bytes(key, value, &opt->memory_budget, err);
    if (strcmp(key, "private_budget") == 0)
        return want_bytes(key, value, &opt->private_budget, err);
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown projection option '%s'", key);
}
