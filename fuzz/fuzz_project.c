/* Fuzz the projector: options text, then cells or particles built from
 * the remaining bytes, projected with every kernel the options pick.
 * Input: "key=value;key=value" up to the first NUL, then 9 bytes per row. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "snapkit/snapkit.h"

static void apply_options(sk_project_options *opt, const char *text)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(item, '=');
        if (eq) {
            *eq = '\0';
            sk_project_options_set(opt, item, eq + 1, NULL);
        }
    }
    /* keep each run small and single-threaded */
    opt->threads = 1;
    opt->memory_budget = 16 << 20;
    if (opt->private_budget > (16 << 20))
        opt->private_budget = 16 << 20;
}

static sk_table *make_table(const uint8_t *p, size_t n, int particles)
{
    int64_t rows = (int64_t)(n / 9);
    sk_table *t = sk_table_new(rows);
    if (!t)
        return NULL;
    sk_error e;
    if (particles) {
        double *x = sk_table_add(t, "position_x", SK_FLOAT64, &e);
        double *y = sk_table_add(t, "position_y", SK_FLOAT64, &e);
        double *z = sk_table_add(t, "position_z", SK_FLOAT64, &e);
        double *m = sk_table_add(t, "mass", SK_FLOAT64, &e);
        double *v = sk_table_add(t, "velocity_x", SK_FLOAT64, &e);
        int8_t *fam = sk_table_add(t, "family", SK_INT8, &e);
        for (int64_t r = 0; r < rows; r++, p += 9) {
            x[r] = (p[0] | p[1] << 8) / 65536.0;
            y[r] = (p[2] | p[3] << 8) / 65536.0;
            z[r] = (p[4] | p[5] << 8) / 65536.0 * (p[8] == 255 ? -1 : 1);
            m[r] = p[6] / 16.0;
            v[r] = (double)p[7] - 128;
            fam[r] = (int8_t)(p[8] & 3);
        }
        sk_table_meta_set(t, "levelmax", "5");
        return t;
    }
    int32_t *l = sk_table_add(t, "level", SK_INT32, &e), *cx = sk_table_add(t, "cx", SK_INT32, &e),
            *cy = sk_table_add(t, "cy", SK_INT32, &e), *cz = sk_table_add(t, "cz", SK_INT32, &e);
    double *d = sk_table_add(t, "density", SK_FLOAT64, &e);
    double *v = sk_table_add(t, "velocity_x", SK_FLOAT64, &e);
    double *pr = sk_table_add(t, "pressure", SK_FLOAT64, &e);
    for (int64_t r = 0; r < rows; r++, p += 9) {
        l[r] = p[0] % 10;
        int mask = (1 << l[r]) - 1;
        cx[r] = (p[1] | p[2] << 8) & mask;
        cy[r] = (p[3] | p[4] << 8) & mask;
        cz[r] = (p[5] | p[6] << 8) & (p[0] >= 250 ? 0x7fffffff : mask);
        d[r] = p[7] / 8.0;
        v[r] = (double)p[8] - 128;
        pr[r] = p[8] / 4.0;
    }
    sk_table_meta_set(t, "gamma", "1.4");
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size < 400 ? size : 400);
    if (!nul || size > 20000)
        return 0;
    char text[512];
    size_t tn = (size_t)(nul - data);
    memcpy(text, data, tn);
    text[tn] = '\0';
    const uint8_t *rows = nul + 1;
    size_t nrows = size - tn - 1;
    int particles = nrows > 0 && (rows[0] & 1);
    sk_table *t = make_table(rows + (nrows > 0), nrows > 0 ? nrows - 1 : 0, particles);
    if (!t)
        return 0;
    sk_project_options opt;
    sk_project_options_init(&opt);
    apply_options(&opt, text);
    const char *q[] = {"sd", "velocity_x", "count", "mass", particles ? "weight" : "T"};
    sk_maps *m = NULL;
    sk_error e;
    if (sk_project(t, 5, q, &opt, &m, &e) == SK_OK) {
        char *json = sk_maps_json(m, 0);
        sk_free(json);
        sk_maps_free(m);
    }
    sk_table_free(t);
    return 0;
}
