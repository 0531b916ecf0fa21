/* Column names of hydro variables and particle fields, from descriptors
 * when the output has them, by convention when it does not. */
#include <stdio.h>
#include <string.h>

#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"
#include "formats/ramses/mapfile.h"
#include "snapkit/memory.h"

static void set_var(rs_var *v, const char *name, char type)
{
    snprintf(v->name, sizeof v->name, "%s", name);
    v->type = type;
}

/* yt's heuristic for outputs without a descriptor: 5 variables are pure
 * hydro, 6-10 add the metallicity, 11 is MHD (left and right face fields),
 * more than 11 is MHD with metallicity; further ones are scalars, numbered
 * from 1 after the metallicity as current RAMSES numbers them (scalar_01). */
static void conventional_hydro(rs_var *v, int nvar, int ndim)
{
    if (ndim < 3) {
        /* density, ndim velocities, pressure, then scalars (hydro/output_hydro.f90). */
        static const char *const low[] = {"density", "velocity_x", "velocity_y"};
        for (int i = 0; i < nvar; i++) {
            char name[RS_NAME_MAX];
            if (i <= ndim)
                snprintf(name, sizeof name, "%s", low[i]);
            else if (i == ndim + 1)
                snprintf(name, sizeof name, "pressure");
            else
                snprintf(name, sizeof name, "scalar_%02d", i - ndim - 2);
            set_var(&v[i], name, 'd');
        }
        return;
    }
    static const char *const hydro[] = {"density", "velocity_x", "velocity_y", "velocity_z",
                                        "pressure"};
    static const char *const mhd[] = {"density",  "velocity_x", "velocity_y", "velocity_z",
                                      "B_x_left", "B_y_left",   "B_z_left",   "B_x_right",
                                      "B_y_right", "B_z_right", "pressure"};
    const char *const *base = nvar >= 11 ? mhd : hydro;
    int nbase = nvar >= 11 ? 11 : 5;
    for (int i = 0; i < nvar; i++) {
        char name[RS_NAME_MAX];
        if (i < nbase)
            snprintf(name, sizeof name, "%s", base[i]);
        else if (i == nbase)
            snprintf(name, sizeof name, "metallicity");
        else
            snprintf(name, sizeof name, "scalar_%02d", i - nbase);
        set_var(&v[i], name, 'd');
    }
}

/* Late-2017 names to current ones: thermal_pressure is pressure, and
 * passive_scalar_N (counted from 1) is scalar_NN (counted from 0, as
 * current RAMSES numbers them), or metallicity for the first scalar of a
 * run with metal=.true. */
static void modern_name(const sk_ramses *r, const char *old, char *out, size_t n)
{
    int k;
    char tail;
    if (strcmp(old, "thermal_pressure") == 0) {
        snprintf(out, n, "pressure");
    } else if (sscanf(old, "passive_scalar_%d%c", &k, &tail) == 1 && k > 0 && k < 1000) {
        char buf[64];
        int metal = r->namelist && rs_fortran_true(rs_namelist_value(r->namelist, "metal", buf,
                                                                      sizeof buf));
        if (k == 1 && metal)
            snprintf(out, n, "metallicity");
        else
            snprintf(out, n, "scalar_%02d", k - 1);
    } else {
        snprintf(out, n, "%s", old);
    }
}

/* An error at the descriptor line that names v (the folder when the name
 * is a convention's). */
static int fail_var(const sk_ramses *r, const char *file, const rs_var *v, sk_error *err,
                    const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", r->dir, file);
    if (!v->line)
        return sk_fail(err, SK_ERR_FORMAT, r->dir, -1, "variable '%s' %s", v->name, what);
    return sk_fail_text(err, SK_ERR_FORMAT, path, v->line, -1, "variable '%s' %s", v->name, what);
}

/* The cell reader adds level, cx, cy, cz and refined to the variables: a
 * variable of that name would be a second column of it. Names by the
 * late-2017 mapping may also meet (passive_scalar_1 and metallicity). */
static int check_cell_names(const sk_ramses *r, const char *file, const rs_var *v, int n,
                            sk_error *err)
{
    static const char *const own[] = {"level", "cx", "cy", "cz", "refined"};
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
            if (strcmp(v[i].name, own[k]) == 0)
                return fail_var(r, file, &v[i], err,
                                "has the name of a column the reader adds (level, cx, cy, cz, "
                                "refined)");
        for (int j = 0; j < i; j++)
            if (strcmp(v[i].name, v[j].name) == 0)
                return fail_var(r, file, &v[i], err, "appears twice");
    }
    return SK_OK;
}

int rs_hydro_names(sk_ramses *r, int nvar, sk_error *err)
{
    const rs_varlist *d = &r->hydro_desc;
    if (d->n && d->n != nvar)
        return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                       "hydro_file_descriptor.txt lists %d variables but the hydro files hold %d",
                       d->n, nvar);
    r->hydro_vars = sk_calloc((size_t)(nvar ? nvar : 1), sizeof *r->hydro_vars);
    if (!r->hydro_vars)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (!d->n)
        conventional_hydro(r->hydro_vars, nvar, r->info.ndim);
    for (int i = 0; i < d->n; i++) {
        if (d->vars[i].type != 'd')
            return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                           "hydro_file_descriptor.txt: variable %s has type '%c'; only float64 "
                           "('d') cell variables are read", d->vars[i].name, d->vars[i].type);
        if (d->version == 0)
            modern_name(r, d->vars[i].name, r->hydro_vars[i].name, sizeof r->hydro_vars[i].name);
        else
            set_var(&r->hydro_vars[i], d->vars[i].name, 'd');
        r->hydro_vars[i].type = 'd';
        r->hydro_vars[i].line = d->vars[i].line;
    }
    return check_cell_names(r, "hydro_file_descriptor.txt", r->hydro_vars, nvar, err);
}

/* RAMSES-RT writes, per photon group g, the photon density (in flux units,
 * rt_c N) and the three flux components: nvar = 4 x nGroups in 3-D. The
 * descriptor, where this RAMSES writes one, names them the same way. */
int rs_rt_names(sk_ramses *r, int nvar, sk_error *err)
{
    const rs_varlist *d = &r->rt_desc;
    if (d->n && d->n != nvar)
        return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                       "rt_file_descriptor.txt lists %d variables but the rt files hold %d", d->n,
                       nvar);
    if (!d->n && nvar % 4 != 0)
        return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                       "the rt files hold %d variables, not 4 per photon group, and there is "
                       "no rt_file_descriptor.txt to name them", nvar);
    r->rt_vars = sk_calloc((size_t)nvar, sizeof *r->rt_vars);
    if (!r->rt_vars)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int i = 0; i < nvar; i++) {
        char name[RS_NAME_MAX];
        static const char *const axis[] = {"", "_x", "_y", "_z"};
        if (d->n && d->vars[i].type != 'd')
            return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                           "rt_file_descriptor.txt: variable %s has type '%c'; only float64 "
                           "('d') cell variables are read", d->vars[i].name, d->vars[i].type);
        if (d->n)
            snprintf(name, sizeof name, "%s", d->vars[i].name);
        else
            snprintf(name, sizeof name, "photon_flux_%02d%s", i / 4 + 1, axis[i % 4]);
        set_var(&r->rt_vars[i], name, 'd');
        r->rt_vars[i].line = d->n ? d->vars[i].line : 0;
    }
    return check_cell_names(r, "rt_file_descriptor.txt", r->rt_vars, nvar, err);
}

static int push_field(sk_ramses *r, int *cap, const char *name, char type)
{
    if (r->npart_vars == *cap) {
        int c = *cap ? 2 * *cap : 16;
        rs_var *v = sk_realloc(r->part_vars, (size_t)c * sizeof *v);
        if (!v)
            return SK_ERR_NOMEM;
        r->part_vars = v;
        *cap = c;
    }
    set_var(&r->part_vars[r->npart_vars++], name, type);
    return SK_OK;
}

/* A late-2017 header_ field token as columns. */
static int push_token(sk_ramses *r, int *cap, const char *tok, char id_type)
{
    static const char *const xyz[] = {"x", "y", "z"};
    char name[RS_NAME_MAX];
    int rc = SK_OK;
    if (!strcmp(tok, "pos") || !strcmp(tok, "vel")) {
        for (int a = 0; a < r->info.ndim && rc == SK_OK; a++) {
            snprintf(name, sizeof name, "%s_%s", tok[0] == 'p' ? "position" : "velocity", xyz[a]);
            rc = push_field(r, cap, name, 'd');
        }
        return rc;
    }
    static const struct {
        const char *token, *name;
        char type;
    } k_map[] = {{"mass", "mass", 'd'},       {"iord", "identity", 'i'},
                 {"level", "levelp", 'i'},    {"family", "family", 'b'},
                 {"tag", "tag", 'b'},         {"tform", "birth_time", 'd'},
                 {"metal", "metallicity", 'd'}, {"potential", "potential", 'd'}};
    for (size_t i = 0; i < sizeof k_map / sizeof k_map[0]; i++)
        if (!strcmp(tok, k_map[i].token))
            return push_field(r, cap, k_map[i].name,
                              !strcmp(tok, "iord") ? id_type : k_map[i].type);
    return push_field(r, cap, tok, 'd');
}

/* Header records of the first particle file: the width of ids and counts,
 * and when asked the number of field records. */
static int probe_part_file(sk_ramses *r, int *width, int count_records, int64_t *nrecords,
                           sk_error *err)
{
    char path[4096];
    rs_mapped m;
    int rc = rs_map_cpu(r, RS_PART, 1, path, sizeof path, &m, err);
    if (rc != SK_OK)
        return rc;
    fr_cursor c;
    fr_init(&c, path, m.data, m.size);
    int64_t npart;
    rc = fr_skip(&c, 2, err);
    if (rc == SK_OK)
        rc = fr_int_any(&c, &npart, width, err);
    if (rc == SK_OK)
        rc = fr_skip(&c, 5, err);
    *nrecords = 0;
    const uint8_t *p;
    size_t len;
    while (count_records && rc == SK_OK && c.pos < c.size && (rc = fr_next(&c, &p, &len, err)) == SK_OK)
        (*nrecords)++;
    rs_unmap(&m);
    return rc;
}

int rs_particle_fields(sk_ramses *r, sk_error *err)
{
    int cap = 0, width = 4, rc;
    int64_t nrec = 0;
    rc = probe_part_file(r, &width, !r->part_desc.n && !r->header.fields, &nrec, err);
    if (rc != SK_OK)
        return rc;
    r->part_id_width = width;
    char id_type = width == 8 ? 'q' : 'i';
    if (r->part_desc.n) {
        for (int i = 0; i < r->part_desc.n && rc == SK_OK; i++)
            rc = push_field(r, &cap, r->part_desc.vars[i].name, r->part_desc.vars[i].type);
    } else if (r->header.fields) {
        char tokens[4096];
        snprintf(tokens, sizeof tokens, "%s", r->header.fields);
        for (char *save = NULL, *t = strtok_r(tokens, " \t", &save); t && rc == SK_OK;
             t = strtok_r(NULL, " \t", &save))
            rc = push_token(r, &cap, t, id_type);
    } else {
        /* No descriptor and no header_: the late-2017 record order. */
        const char *tokens[] = {"pos", "vel", "mass", "iord", "level", "tform", "metal"};
        int ntok = nrec >= 11 ? 7 : nrec == 10 ? 6 : 5;
        for (int i = 0; i < ntok && rc == SK_OK; i++)
            rc = push_token(r, &cap, tokens[i], id_type);
    }
    if (rc == SK_ERR_NOMEM)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    /* The descriptor's names were checked as it was read; the header's
     * field line ("pos vel pos") is checked here. */
    for (int i = 0; i < r->npart_vars && !r->part_desc.n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(r->part_vars[i].name, r->part_vars[j].name) == 0) {
                char path[4096];
                snprintf(path, sizeof path, "%s/header_%05d.txt", r->dir, r->info.output);
                return sk_fail(err, SK_ERR_FORMAT, path, -1,
                               "the particle fields give column '%s' twice",
                               r->part_vars[i].name);
            }
    r->part_family_derived = 1;
    for (int i = 0; i < r->npart_vars; i++)
        if (!strcmp(r->part_vars[i].name, "family"))
            r->part_family_derived = 0;
    return SK_OK;
}
