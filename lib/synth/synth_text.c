/* The text files of a synthetic output, in the exact layouts RAMSES's
 * Fortran writes (fixed formats such as E23.15 and (a13,i10), and gfortran's
 * list-directed output for the 2017 header). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/util/text.h"
#include "snapkit/memory.h"
#include "snapkit/snapkit.h"

/* Units of the code: a kiloparsec, one atomic mass unit per cm^3, a
 * megayear (cgs). */
#define UNIT_L 3.0856775814913673e21
#define UNIT_D 1.66053906660e-24
#define UNIT_T 3.15576e13

void synth_cpu_path(char *out, size_t n, const char *dir, const char *stem, int output, int cpu)
{
    snprintf(out, n, "%s/%s_%05d.out%05d", dir, stem, output, cpu);
}

void synth_fortran_e23_15(double v, char out[24])
{
    char body[32];
    if (v == 0) {
        snprintf(body, sizeof body, "0.000000000000000E+00");
    } else {
        char m[40];
        snprintf(m, sizeof m, "%.14e", fabs(v)); /* d.dddddddddddddde+XX */
        int exponent = atoi(m + 17) + 1;         /* Fortran's mantissa is 0.ddd */
        char digits[16];
        digits[0] = m[0];
        memcpy(digits + 1, m + 2, 14);
        digits[15] = '\0';
        int e = exponent < 0 ? -exponent : exponent;
        if (e <= 99)
            snprintf(body, sizeof body, "%s0.%sE%c%02d", v < 0 ? "-" : "", digits,
                     exponent < 0 ? '-' : '+', e);
        else /* Fortran drops the E for three-digit exponents */
            snprintf(body, sizeof body, "%s0.%s%c%03d", v < 0 ? "-" : "", digits,
                     exponent < 0 ? '-' : '+', e);
    }
    size_t n = strlen(body); /* at most 22 characters */
    memset(out, ' ', 23 - n);
    memcpy(out + 23 - n, body, n + 1);
}

static void put_e(sk_text *t, const char *key, double v)
{
    char e[24];
    synth_fortran_e23_15(v, e);
    sk_text_printf(t, "%-12s=%s\n", key, e);
}

static int save(const char *dir, const char *name, sk_text *t, int64_t *bytes, int *files,
                sk_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = SK_OK;
    if (t->failed)
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    sk_atomic_file *f = NULL;
    rc = rc ? rc : sk_atomic_open(&f, path, err);
    rc = rc ? rc : sk_atomic_write(f, t->buf, t->len, err);
    if (rc)
        sk_atomic_abort(f);
    else
        rc = sk_atomic_commit(f, err);
    if (!rc) {
        *bytes += (int64_t)t->len;
        if (files)
            (*files)++;
    }
    sk_text_free(t);
    return rc;
}

int synth_write_info(const synth_plan *p, const char *dir, int64_t *bytes, sk_error *err)
{
    sk_text t = {0};
    sk_text_printf(&t, "ncpu        =%11d\n", p->ncpu);
    sk_text_printf(&t, "ndim        =%11d\n", 3);
    sk_text_printf(&t, "levelmin    =%11d\n", p->opt.levelmin);
    sk_text_printf(&t, "levelmax    =%11d\n", p->levelmax);
    sk_text_printf(&t, "ngridmax    =%11d\n", p->ngridmax);
    sk_text_printf(&t, "nstep_coarse=%11d\n", 100);
    sk_text_printf(&t, "\n");
    put_e(&t, "boxlen", p->opt.boxlen);
    put_e(&t, "time", p->time);
    put_e(&t, "aexp", 1.0);
    put_e(&t, "H0", 1.0);
    put_e(&t, "omega_m", 1.0);
    put_e(&t, "omega_l", 0.0);
    put_e(&t, "omega_k", 0.0);
    put_e(&t, "omega_b", p->opt.format == SK_RAMSES_2017 ? (double)0.045f : 0.045);
    put_e(&t, "unit_l", UNIT_L);
    put_e(&t, "unit_d", UNIT_D);
    put_e(&t, "unit_t", UNIT_T);
    sk_text_printf(&t, "\n");
    sk_text_printf(&t, "ordering type=%-80s\n", "hilbert");
    sk_text_printf(&t, "   DOMAIN   ind_min                 ind_max\n");
    for (int d = 1; d <= p->ncpu; d++) {
        char lo[24], hi[24];
        synth_fortran_e23_15((double)p->bound_key[d - 1], lo);
        synth_fortran_e23_15((double)p->bound_key[d], hi);
        sk_text_printf(&t, "%8d %s %s\n", d, lo, hi);
    }
    char name[64];
    snprintf(name, sizeof name, "info_%05d.txt", p->opt.output);
    return save(dir, name, &t, bytes, NULL, err);
}

static int with_particles(const synth_plan *p)
{
    return (p->opt.components & SK_SYNTH_PARTICLES) != 0;
}

static void header_current(const synth_plan *p, sk_text *t)
{
    static const char *const family[] = {"other_tracer", "debris_tracer", "cloud_tracer",
                                         "star_tracer",  "other_tracer",  "gas_tracer",
                                         "DM",           "star",          "cloud",
                                         "debris",       "other"};
    sk_text_printf(t, "#%12s%10s\n", "Family", "Count");
    for (int f = 0; f < 11; f++) {
        int64_t n = f == 6 ? p->ndm : f == 7 ? p->nstar : 0;
        sk_text_printf(t, "%13s%10lld\n", family[f], (long long)n);
    }
    sk_text_printf(t, "%13s%10d\n", "undefined", 0);
    sk_text_printf(t, " Particle fields\n");
    sk_text_printf(t, "pos vel mass iord level family tag ");
    if (with_particles(p)) {
        sk_text_printf(t, "tform ");
        if (synth_has_metal(p))
            sk_text_printf(t, "metal ");
    }
    sk_text_printf(t, "\n");
}

static void header_2017(const synth_plan *p, sk_text *t)
{
    sk_text_printf(t, " Total number of particles\n%12lld\n", (long long)(p->ndm + p->nstar));
    sk_text_printf(t, " Total number of dark matter particles\n%12lld\n", (long long)p->ndm);
    sk_text_printf(t, " Total number of star particles\n%12lld\n", (long long)p->nstar);
    sk_text_printf(t, " Total number of sink particles\n%12d\n", 0);
    sk_text_printf(t, " Particle fields\n");
    sk_text_printf(t, "pos vel mass iord level ");
    if (with_particles(p)) {
        sk_text_printf(t, "tform ");
        if (synth_has_metal(p))
            sk_text_printf(t, "metal ");
    }
    sk_text_printf(t, "\n");
}

static void hydro_descriptor(const synth_plan *p, sk_text *t)
{
    if (p->opt.format == SK_RAMSES_2017) {
        sk_text_printf(t, "nvar        =%11d\n", p->opt.nvar);
        for (int ivar = 1; ivar <= p->opt.nvar; ivar++) {
            char name[32];
            synth_hydro_name(p, ivar, name);
            sk_text_printf(t, "variable #%2d: %s\n", ivar, name);
        }
        return;
    }
    sk_text_printf(t, "# version: %2d\n# ivar, variable_name, variable_type\n", 1);
    for (int ivar = 1; ivar <= p->opt.nvar; ivar++) {
        char name[32];
        synth_hydro_name(p, ivar, name);
        sk_text_printf(t, "%2d, %s, d\n", ivar, name);
    }
}

static char particle_type(const char *name)
{
    if (!strcmp(name, "identity") || !strcmp(name, "levelp"))
        return 'i';
    if (!strcmp(name, "family") || !strcmp(name, "tag"))
        return 'b';
    return 'd';
}

static int particle_descriptor(const synth_plan *p, sk_text *t, sk_error *err)
{
    sk_synth_truth *names = sk_malloc(sizeof *names);
    if (!names)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    synth_truth_setup(names, p);
    sk_text_printf(t, "# version: %2d\n# ivar, variable_name, variable_type\n", 1);
    for (int i = 0; i < names->ncol[SYNTH_PARTICLES]; i++) {
        const char *name = names->names[SYNTH_PARTICLES][i];
        sk_text_printf(t, "%2d, %s, %c\n", i + 1, name, particle_type(name));
    }
    sk_free(names);
    return SK_OK;
}

static void namelist(const synth_plan *p, sk_text *t)
{
    const sk_synth_options *o = &p->opt;
    static const char *const refine[] = {"sphere", "clumps", "random"};
    sk_text_printf(t, "! Synthetic RAMSES output written by snapkit %s make-ramses, not by RAMSES.\n",
        sk_version());
    sk_text_printf(t, "! refine=%s refine_param=%.17g seed=%llu cells_target=%lld format=%s\n",
        refine[o->refine], p->model.param, (unsigned long long)o->seed, (long long)o->cells_target,
        o->format == SK_RAMSES_2017 ? "2017" : "current");
    sk_text_printf(t, "&RUN_PARAMS\nhydro=%s\npoisson=%s\npic=%s\nncontrol=1\nnremap=10\n/\n\n",
        o->components & SK_SYNTH_HYDRO ? ".true." : ".false.",
        o->components & SK_SYNTH_GRAVITY ? ".true." : ".false.",
        with_particles(p) ? ".true." : ".false.");
    sk_text_printf(t, "&AMR_PARAMS\nlevelmin=%d\nlevelmax=%d\nngridmax=%d\n", o->levelmin, o->levelmax,
        p->ngridmax);
    if (with_particles(p))
        sk_text_printf(t, "npartmax=%lld\n", (long long)(p->ndm + p->nstar + 1));
    sk_text_printf(t, "boxlen=%.17g\n/\n\n", o->boxlen);
    sk_text_printf(t, "&OUTPUT_PARAMS\nnoutput=1\ntout=%.17g\n/\n\n", p->time);
    if (o->components & SK_SYNTH_HYDRO)
        sk_text_printf(t, "&HYDRO_PARAMS\ngamma=1.6666667\n/\n\n");
    if (with_particles(p) || synth_has_metal(p)) {
        sk_text_printf(t, "&PHYSICS_PARAMS\n");
        if (with_particles(p))
            sk_text_printf(t, "eps_star=0.01\n");
        sk_text_printf(t, "metal=%s\n/\n", synth_has_metal(p) ? ".true." : ".false.");
    }
}

int synth_write_text_files(const synth_plan *p, const char *dir, int64_t *bytes, int *files,
                           sk_error *err)
{
    char name[64];
    sk_text t = {0};
    if (p->opt.format == SK_RAMSES_2017)
        header_2017(p, &t);
    else
        header_current(p, &t);
    snprintf(name, sizeof name, "header_%05d.txt", p->opt.output);
    int rc = save(dir, name, &t, bytes, files, err);
    if (!rc) {
        namelist(p, &t);
        rc = save(dir, "namelist.txt", &t, bytes, files, err);
    }
    if (!rc && (p->opt.components & SK_SYNTH_HYDRO)) {
        hydro_descriptor(p, &t);
        rc = save(dir, "hydro_file_descriptor.txt", &t, bytes, files, err);
    }
    if (!rc && with_particles(p) && p->opt.format != SK_RAMSES_2017) {
        rc = particle_descriptor(p, &t, err);
        rc = rc ? rc : save(dir, "part_file_descriptor.txt", &t, bytes, files, err);
    }
    if (!rc && p->opt.format != SK_RAMSES_2017) {
        sk_text_printf(&t, " compile date = (synthetic output)\n patch dir    = \n");
        sk_text_printf(&t, " remote repo  = snapkit %s make-ramses\n local branch = \n last commit  = \n",
            sk_version());
        rc = save(dir, "compilation.txt", &t, bytes, files, err);
    }
    sk_text_free(&t);
    return rc;
}
