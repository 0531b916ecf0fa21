/* Projection of the real RAMSES fixtures: projected mass equals the
 * selected cells' mass (and yt's total from reference.json) to 1e-12 along
 * every axis and with every off-axis kernel; particles keep their mass
 * with NGP and CIC. */
#include <glob.h>

#include "check.h"
#include "project_helpers.h"

/* reference.json -> full.hydro.columns.density.volume_sum (yt's total mass). */
static double reference_mass(const char *output)
{
    char path[1100];
    snprintf(path, sizeof path, "%s.reference.json", output);
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *hydro = strstr(text, "\"hydro\"");
    const char *density = hydro ? strstr(hydro, "\"density\"") : NULL;
    const char *vs = density ? strstr(density, "\"volume_sum\":") : NULL;
    return vs ? strtod(vs + strlen("\"volume_sum\":"), NULL) : NAN;
}

static double table_mass(const sk_table *t)
{
    const int32_t *l = sk_table_find(t, "level")->data;
    const double *d = sk_table_find(t, "density")->data;
    double L = sk_table_meta_double(t, "boxlen", 1), s = 0;
    double ndim = sk_table_meta_double(t, "ndim", 3); /* 1-D, 2-D: per unit area, length */
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        s += d[i] * pow(L * ldexp(1.0, -l[i]), ndim);
    return s;
}

static void check_cells(const char *output)
{
    sk_error e;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, output, &e), &e);
    if (!r)
        return;
    sk_table *t = NULL;
    CHECK_OK(sk_ramses_read(r, "hydro", NULL, NULL, &t, NULL, &e), &e);
    sk_ramses_close(r);
    if (!t)
        return;
    double total = table_mass(t), ref = reference_mass(output);
    if (!isnan(ref))
        CHECK_MSG(fabs(total - ref) <= 1e-12 * ref, "%s: table mass %.17g, yt %.17g", output,
                  total, ref);
    const char *specs[] = {
        "axis=x", "axis=y", "axis=z", "axis=z;res=100",
        "direction=1 2 3;kernel=exact;res=64", "direction=1 2 3;kernel=overlap",
        "direction=-2 1 0.5;kernel=cic", "direction=-2 1 0.5;kernel=ngp;res=128",
    };
    int ndim = (int)sk_table_meta_double(t, "ndim", 3);
    /* A 2-D output is a layer of columns of depth boxlen seen along z only;
     * a 1-D output a row of slabs whose profile holds a strip one pixel
     * high of each (pixel x boxlen of its cross-section boxlen^2). */
    double boxlen = sk_table_meta_double(t, "boxlen", 1);
    if (ndim == 2)
        total *= boxlen;
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sk_maps *m = test_project(t, "sd,mass", specs[k], &e);
        if (ndim < 3 && strncmp(specs[k], "axis=z", 6) != 0) {
            CHECK_MSG(m == NULL && strstr(e.message, ndim == 1 ? "projects to a profile along x"
                                                               : "projects along z only"),
                      "%s %s: %s", output, specs[k], m ? "projected" : e.message);
            sk_maps_free(m);
            continue;
        }
        CHECK_MSG(m != NULL, "%s %s: %s", output, specs[k], e.message);
        if (!m)
            continue;
        double sd = test_sd_mass(m), mass = test_map_sum(m, "mass");
        double want = ndim == 1 ? total * boxlen * sk_maps_get_info(m)->pixel_size : total;
        if (ndim == 1)
            CHECK_EQ_INT(sk_maps_ny(m), 1);
        CHECK_MSG(fabs(sd - want) <= 1e-12 * want && fabs(mass - want) <= 1e-12 * want,
                  "%s %s: sd %.17g, mass %.17g, cells %.17g", output, specs[k], sd, mass, want);
        CHECK_EQ_INT(sk_maps_get_info(m)->deposited, sk_table_nrows(t));
        sk_maps_free(m);
    }
    sk_table_free(t);
}

static void check_particles(const char *output)
{
    sk_error e;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, output, &e), &e);
    if (!r)
        return;
    sk_table *t = NULL;
    int has = sk_ramses_get_info(r)->has_particles;
    if (has)
        CHECK_OK(sk_ramses_read(r, "particles", NULL, NULL, &t, NULL, &e), &e);
    sk_ramses_close(r);
    if (!t)
        return;
    const double *mass = sk_table_find(t, "mass")->data;
    double total = 0;
    for (int64_t i = 0; i < sk_table_nrows(t); i++)
        total += mass[i];
    const char *specs[] = {"kernel=ngp", "kernel=cic", "kernel=cic;axis=x;res=77",
                           "kernel=cic;direction=1 1 1"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        sk_maps *m = test_project(t, "mass", specs[k], &e);
        CHECK_MSG(m != NULL, "%s %s: %s", output, specs[k], e.message);
        if (!m)
            continue;
        CHECK_MSG(fabs(test_map_sum(m, "mass") - total) <= 1e-12 * total, "%s %s: %.17g vs %.17g",
                  output, specs[k], test_map_sum(m, "mass"), total);
        sk_maps_free(m);
    }
    sk_table_free(t);
}

static void each_output(const char *pattern, int *count)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        check_cells(g.gl_pathv[i]);
        check_particles(g.gl_pathv[i]);
        (*count)++;
    }
    globfree(&g);
}

int main(void)
{
    char buf[1024], pattern[1100];
    int count = 0;
    snprintf(pattern, sizeof pattern, "%s/ramses/*/output_[0-9]*[0-9]",
             test_data(buf, sizeof buf, ""));
    each_output(pattern, &count);
    CHECK(count >= 3);
    if (test_shared(buf, sizeof buf, "fixtures/ramses")) {
        snprintf(pattern, sizeof pattern, "%s/*/output_[0-9]*[0-9]", buf);
        each_output(pattern, &count);
    } else {
        test_skip_part("the shared fixtures (absent)");
    }
    return test_done();
}
