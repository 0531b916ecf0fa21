/* Shorthands for the projection tests: project with options given as
 * "key=value;key=value", and compare maps. */
#ifndef SNAPKIT_TEST_PROJECT_HELPERS_H
#define SNAPKIT_TEST_PROJECT_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "snapkit/snapkit.h"

/* Options from "key=value;key=value" on top of the defaults. */
static inline int test_options(sk_project_options *opt, const char *spec, sk_error *e)
{
    sk_project_options_init(opt);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec ? spec : "");
    char *save = NULL;
    for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(item, '=');
        if (!eq)
            return sk_fail(e, SK_ERR_ARG, NULL, -1, "test: bad option '%s'", item);
        *eq = '\0';
        int rc = sk_project_options_set(opt, item, eq + 1, e);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

/* Project the comma-separated quantities; NULL on failure (e filled). */
static inline sk_maps *test_project(const sk_table *t, const char *quantities, const char *spec,
                                    sk_error *e)
{
    sk_project_options opt;
    if (test_options(&opt, spec, e) != SK_OK)
        return NULL;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", quantities);
    const char *q[64];
    int n = 0;
    char *save = NULL;
    for (char *s = strtok_r(buf, ",", &save); s && n < 64; s = strtok_r(NULL, ",", &save))
        q[n++] = s;
    sk_maps *m = NULL;
    if (sk_project(t, n, q, &opt, &m, e) != SK_OK)
        return NULL;
    return m;
}

static inline const double *test_map(const sk_maps *m, const char *name)
{
    return sk_maps_data(m, sk_maps_find(m, name));
}

/* Sum of a map (compensated, so that a million pixels add up exactly enough). */
static inline double test_map_sum(const sk_maps *m, const char *name)
{
    const double *d = test_map(m, name);
    double s = 0, c = 0;
    for (int64_t i = 0; i < (int64_t)sk_maps_nx(m) * sk_maps_ny(m); i++) {
        double t = s + d[i];
        c += fabs(s) >= fabs(d[i]) ? (s - t) + d[i] : (d[i] - t) + s;
        s = t;
    }
    return s + c;
}

/* Total mass on an sd map: sum of sd times the pixel area. */
static inline double test_sd_mass(const sk_maps *m)
{
    double p = sk_maps_get_info(m)->pixel_size;
    return test_map_sum(m, "sd") * p * p;
}

/* Largest |a - b| over the maps, relative to the largest |b|. */
static inline double test_max_rel_diff(const double *a, const double *b, int64_t n)
{
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        s = fmax(s, fabs(b[i]));
    }
    return s > 0 ? d / s : d;
}

#endif
