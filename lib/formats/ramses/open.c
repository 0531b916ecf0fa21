/* Opening an output folder: the text files, the components present and
 * the headers of the first hydro, gravity and particle files. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/ramses/amr.h"
#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"
#include "formats/ramses/mapfile.h"
#include "snapkit/memory.h"

#define TEXT_MAX (64u << 20)

static const char *const k_prefix[] = {"amr", "hydro", "grav", "part", "rt", "clump_field"};

void rs_cpu_path(const sk_ramses *r, rs_kind kind, int icpu, char *buf, size_t n)
{
    if (kind == RS_CLUMPS)
        snprintf(buf, n, "%s/clump_%05d.txt%05d", r->dir, r->info.output, icpu);
    else if (kind == RS_SINKS) /* one file for every CPU */
        snprintf(buf, n, "%s/sink_%05d.csv", r->dir, r->info.output);
    else
        snprintf(buf, n, "%s/%s_%05d.out%05d", r->dir, k_prefix[kind], r->info.output, icpu);
}

int rs_map_cpu(const sk_ramses *r, rs_kind kind, int icpu, char *buf, size_t n, rs_mapped *m,
               sk_error *err)
{
    rs_cpu_path(r, kind, icpu, buf, n);
    return rs_map(buf, m, err);
}

static void text_path(const sk_ramses *r, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", r->dir, name);
}

/* NNNNN from the folder name output_NNNNN, else from its info_NNNNN.txt. */
static int find_output_number(const char *dir, int *out, sk_error *err)
{
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    int n;
    char tail;
    if (sscanf(base, "output_%d%c", &n, &tail) == 1 && n >= 0) {
        *out = n;
        return SK_OK;
    }
    DIR *d = opendir(dir);
    if (!d)
        return sk_fail_errno(err, dir, errno, "cannot open folder");
    int found = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (sscanf(e->d_name, "info_%d.tx%c", &n, &tail) == 2 && tail == 't' && !found) {
            *out = n;
            found = 1;
        }
    }
    closedir(d);
    if (!found)
        return sk_fail(err, SK_ERR_FORMAT, dir, -1, "not a RAMSES output (no info_NNNNN.txt)");
    return SK_OK;
}

static int read_info(sk_ramses *r, sk_error *err)
{
    char *text;
    size_t len;
    int rc = rs_read_text(r->info_path, TEXT_MAX, &text, &len, err);
    if (rc != SK_OK)
        return rc;
    rc = rs_parse_info(r->info_path, text, len, &r->info_text, err);
    sk_free(text);
    if (rc != SK_OK)
        return rc;
    sk_ramses_info *in = &r->info;
    const rs_info_text *t = &r->info_text;
    const char *p = r->info_path;
    static const char *const ints[] = {"ncpu", "ndim", "levelmin", "levelmax"};
    int *int_fields[] = {&in->ncpu, &in->ndim, &in->levelmin, &in->levelmax};
    for (int i = 0; i < 4 && rc == SK_OK; i++)
        rc = rs_info_int(t, p, ints[i], int_fields[i], err);
    static const char *const reals[] = {"boxlen", "time", "unit_l", "unit_d", "unit_t"};
    double *real_fields[] = {&in->boxlen, &in->time, &in->unit_l, &in->unit_d, &in->unit_t};
    for (int i = 0; i < 5 && rc == SK_OK; i++)
        rc = rs_info_double(t, p, reals[i], real_fields[i], err);
    if (rc != SK_OK)
        return rc;
    /* Optional keys: absent in some builds, so they default quietly; a
     * value that is there must be right. */
    static const char *const opt_reals[] = {"aexp", "H0", "omega_m", "omega_l", "omega_k",
                                            "omega_b"};
    double *opt_fields[] = {&in->aexp, &in->H0, &in->omega_m, &in->omega_l, &in->omega_k,
                            &in->omega_b};
    for (int i = 0; i < 6 && rc == SK_OK; i++) {
        *opt_fields[i] = i < 2 ? 1.0 : 0.0;
        if (rs_kv_find(&t->keys, opt_reals[i]))
            rc = rs_info_double(t, p, opt_reals[i], opt_fields[i], err);
    }
    static const char *const opt_ints[] = {"ngridmax", "nstep_coarse"};
    int *opt_int_fields[] = {&in->ngridmax, &in->nstep_coarse};
    for (int i = 0; i < 2 && rc == SK_OK; i++) {
        *opt_int_fields[i] = 0;
        if (rs_kv_find(&t->keys, opt_ints[i]))
            rc = rs_info_int(t, p, opt_ints[i], opt_int_fields[i], err);
    }
    if (rc != SK_OK)
        return rc;
    const rs_kv *ord = rs_kv_find(&t->keys, "ordering type");
    snprintf(in->ordering, sizeof in->ordering, "%s", ord ? ord->value : "hilbert");
    in->ndomain = t->ndomain;
    in->bound_key = t->bound_key;
    return SK_OK;
}

static int check_info(const sk_ramses *r, sk_error *err)
{
    const sk_ramses_info *in = &r->info;
    const char *p = r->info_path;
    if (in->ndim < 1 || in->ndim > 3)
        return sk_fail(err, SK_ERR_FORMAT, p, -1, "ndim = %d is not 1, 2 or 3", in->ndim);
    if (in->ncpu < 1 || in->ncpu > 10000000)
        return sk_fail(err, SK_ERR_FORMAT, p, -1, "ncpu = %d is out of range", in->ncpu);
    if (in->levelmin < 1 || in->levelmax < in->levelmin || in->levelmax > 30)
        return sk_fail(err, SK_ERR_FORMAT, p, -1,
                       "levelmin = %d, levelmax = %d are not valid (levels 1 to 30 are read)",
                       in->levelmin, in->levelmax);
    static const char *const positive[] = {"boxlen", "unit_l", "unit_d", "unit_t", "aexp"};
    const double values[] = {in->boxlen, in->unit_l, in->unit_d, in->unit_t, in->aexp};
    for (int i = 0; i < 5; i++)
        if (!(values[i] > 0))
            return rs_info_fail_key(&r->info_text, p, positive[i], "must be positive", err);
    if (strcmp(in->ordering, "hilbert") == 0 &&
        (in->ndomain < in->ncpu || in->ndomain % in->ncpu != 0))
        return sk_fail(err, SK_ERR_FORMAT, p, -1,
                       "the DOMAIN table has %d domains, which is not a multiple of ncpu = %d",
                       in->ndomain, in->ncpu);
    return SK_OK;
}

/* The amr files present must be exactly amr_NNNNN.out00001 .. out<ncpu>:
 * one readdir, and the missing file named when there is one. */
static int check_cpu_files(sk_ramses *r, sk_error *err)
{
    char path[4096], prefix[32];
    rs_cpu_path(r, RS_AMR, 1, path, sizeof path);
    int present;
    int rc = rs_optional_file(path, &present, err);
    if (rc != SK_OK)
        return rc;
    if (!present)
        return sk_fail(err, SK_ERR_FORMAT, r->dir, -1, "not a RAMSES output (no %s)",
                       strrchr(path, '/') + 1);
    snprintf(prefix, sizeof prefix, "amr_%05d.out", r->info.output);
    size_t plen = strlen(prefix);
    DIR *d = opendir(r->dir);
    if (!d)
        return sk_fail_errno(err, r->dir, errno, "cannot open folder");
    int count = 0, in_range = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        count++;
        char *end;
        long c = strtol(e->d_name + plen, &end, 10);
        in_range += *end == '\0' && c >= 1 && c <= r->info.ncpu;
    }
    closedir(d);
    for (int c = 1; in_range < r->info.ncpu && c <= r->info.ncpu; c++) {
        rs_cpu_path(r, RS_AMR, c, path, sizeof path);
        if (!rs_file_exists(path, NULL))
            return sk_fail(err, SK_ERR_IO, path, -1, "missing (%s says ncpu = %d)",
                           strrchr(r->info_path, '/') + 1, r->info.ncpu);
    }
    if (count != r->info.ncpu)
        return sk_fail(err, SK_ERR_FORMAT, r->info_path, -1,
                       "ncpu = %d but the folder holds %d %s* files", r->info.ncpu, count, prefix);
    return SK_OK;
}

/* The box's coarse grid, from the first amr file's header. A box of
 * 2^k coarse cells along x is the grid of one coarse cell k levels down
 * (RAMSES's cell size is boxlen / nx / 2^level), so levels are counted
 * from it: cell indices and centres keep their meaning, (c + 0.5) / 2^level
 * in units of boxlen, on every axis. */
static int read_coarse_grid(sk_ramses *r, sk_error *err)
{
    char path[4096];
    rs_mapped m;
    int rc = rs_map_cpu(r, RS_AMR, 1, path, sizeof path, &m, err);
    rs_amr a;
    if (rc == SK_OK)
        rc = rs_amr_open(&a, path, m.data, m.size, &r->info, 1, err);
    rs_unmap(&m);
    if (rc != SK_OK)
        return rc;
    sk_ramses_info *in = &r->info;
    int k = rs_coarse_shift(a.coarse);
    if (k < 0 || in->levelmax + k > 30)
        return sk_fail(err, SK_ERR_FORMAT, path, -1,
                       "the box is %dx%dx%d coarse cells: only boxes of a power of two coarse "
                       "cells along x (levelmax + log2 nx <= 30) are read",
                       a.coarse[0], a.coarse[1], a.coarse[2]);
    /* info_'s boxlen is RAMSES's scale, boxlen / nx (output_info); the amr
     * header has the box's own. */
    if (in->boxlen != a.boxlen &&
        fabs(in->boxlen * a.coarse[0] - a.boxlen) > 1e-12 * a.boxlen)
        return sk_fail(err, SK_ERR_FORMAT, path, -1,
                       "boxlen %.17g, but %s says %.17g for a box of %d coarse cells along x",
                       a.boxlen, strrchr(r->info_path, '/') + 1, in->boxlen, a.coarse[0]);
    in->boxlen = a.boxlen;
    memcpy(in->coarse, a.coarse, sizeof in->coarse);
    in->level_shift = k;
    in->levelmin += k;
    in->levelmax += k;
    return SK_OK;
}

/* Optional text file into *out (NULL when absent). */
static int read_optional(const sk_ramses *r, const char *name, char **out, size_t *len,
                         sk_error *err)
{
    char path[4096];
    text_path(r, name, path, sizeof path);
    *out = NULL;
    *len = 0;
    int present;
    int rc = rs_optional_file(path, &present, err);
    if (rc != SK_OK || !present)
        return rc;
    return rs_read_text(path, TEXT_MAX, out, len, err);
}

static int read_descriptor(const sk_ramses *r, const char *name, rs_varlist *out, sk_error *err)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = read_optional(r, name, &text, &len, err);
    if (rc != SK_OK || !text)
        return rc;
    char path[4096];
    text_path(r, name, path, sizeof path);
    rc = rs_parse_descriptor(path, text, len, out, err);
    sk_free(text);
    return rc;
}

static int read_info_rt(sk_ramses *r, sk_error *err)
{
    char name[64], path[4096], *text;
    size_t len;
    snprintf(name, sizeof name, "info_rt_%05d.txt", r->info.output);
    int rc = read_optional(r, name, &text, &len, err);
    if (rc != SK_OK || !text)
        return rc;
    text_path(r, name, path, sizeof path);
    rc = rs_parse_info_rt(path, text, len, &r->rt_info, err);
    sk_free(text);
    return rc;
}

static int read_text_files(sk_ramses *r, sk_error *err)
{
    size_t len;
    int rc = read_optional(r, "namelist.txt", &r->namelist, &len, err);
    char name[64], *text = NULL;
    snprintf(name, sizeof name, "header_%05d.txt", r->info.output);
    if (rc == SK_OK)
        rc = read_optional(r, name, &text, &len, err);
    if (rc == SK_OK && text) {
        char path[4096];
        text_path(r, name, path, sizeof path);
        rc = rs_parse_header(path, text, len, &r->header, err);
        r->has_header = rc == SK_OK;
    }
    sk_free(text);
    if (rc == SK_OK && r->info.has_hydro)
        rc = read_descriptor(r, "hydro_file_descriptor.txt", &r->hydro_desc, err);
    if (rc == SK_OK && r->info.has_particles)
        rc = read_descriptor(r, "part_file_descriptor.txt", &r->part_desc, err);
    if (rc == SK_OK && r->info.has_rt)
        rc = read_descriptor(r, "rt_file_descriptor.txt", &r->rt_desc, err);
    if (rc == SK_OK && r->info.has_rt)
        rc = read_info_rt(r, err);
    return rc;
}

/* ncpu, nvar of the first hydro or grav file (and gamma for hydro). */
static int probe_cell_file(sk_ramses *r, rs_kind kind, int *nvar, sk_error *err)
{
    char path[4096];
    rs_mapped m;
    int rc = rs_map_cpu(r, kind, 1, path, sizeof path, &m, err);
    if (rc != SK_OK)
        return rc;
    fr_cursor c;
    fr_init(&c, path, m.data, m.size);
    int32_t v[1] = {0};
    rc = fr_int32s(&c, v, 1, err);
    if (rc == SK_OK && v[0] != r->info.ncpu)
        rc = fr_fail_last(&c, 4, err, "ncpu is %d but %s says %d", (int)v[0],
                          strrchr(r->info_path, '/') + 1, r->info.ncpu);
    if (rc == SK_OK)
        rc = fr_int32s(&c, v, 1, err);
    if (rc == SK_OK && (v[0] < 1 || v[0] > 100000))
        rc = fr_fail_last(&c, 4, err, "nvar = %d is out of range", (int)v[0]);
    *nvar = v[0];
    if (rc == SK_OK && (kind == RS_HYDRO || kind == RS_RT)) {
        rc = fr_skip(&c, 3, err);
        if (rc == SK_OK)
            rc = fr_float64(&c, kind == RS_HYDRO ? &r->gamma : &(double){0}, err);
    }
    rs_unmap(&m);
    return rc;
}

/* potential and ndim acceleration components (poisson/output_poisson.f90). */
static int gravity_names(sk_ramses *r, int nvar, sk_error *err)
{
    static const char *const names[] = {"potential", "acceleration_x", "acceleration_y",
                                        "acceleration_z"};
    int ndim = r->info.ndim;
    /* -DOUTPUT_PARTICLE_DENSITY writes the density Poisson solved for first. */
    int shift = nvar == ndim + 2 ? 1 : 0;
    if (nvar != ndim + 1 && nvar != ndim + 2) {
        char path[4096];
        rs_cpu_path(r, RS_GRAV, 1, path, sizeof path);
        return sk_fail(err, SK_ERR_FORMAT, path, -1,
                       "%d gravity fields per cell; expected %d (potential, acceleration) or %d "
                       "(ndim = %d)", nvar, ndim + 1, ndim + 2, ndim);
    }
    r->grav_vars = sk_calloc((size_t)nvar, sizeof *r->grav_vars);
    if (!r->grav_vars)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    r->ngrav = nvar;
    if (shift)
        snprintf(r->grav_vars[0].name, RS_NAME_MAX, "density");
    for (int i = 0; i < ndim + 1; i++)
        snprintf(r->grav_vars[i + shift].name, RS_NAME_MAX, "%s", names[i]);
    for (int i = 0; i < nvar; i++)
        r->grav_vars[i].type = 'd';
    return SK_OK;
}

/* Which components the output has, by their first CPU's file (the sinks
 * and clumps by theirs); a name there that is not a readable file is an
 * error, not a component the output lacks. */
static int find_components(sk_ramses *r, sk_error *err)
{
    sk_ramses_info *in = &r->info;
    static const rs_kind kinds[] = {RS_HYDRO, RS_GRAV, RS_PART, RS_RT, RS_CLUMP_FIELD};
    int *flags[] = {&in->has_hydro, &in->has_gravity, &in->has_particles, &in->has_rt,
                    &in->has_clump_field};
    char path[4096];
    int rc = SK_OK;
    for (int i = 0; i < 5 && rc == SK_OK; i++) {
        rs_cpu_path(r, kinds[i], 1, path, sizeof path);
        rc = rs_optional_file(path, flags[i], err);
    }
    snprintf(path, sizeof path, "%s/sink_%05d.csv", r->dir, in->output);
    if (rc == SK_OK)
        rc = rs_optional_file(path, &in->has_sinks, err);
    if (rc == SK_OK && !in->has_sinks) {
        /* Only the binary files of RAMSES 2014-2018 (sink_binary.c). */
        snprintf(path, sizeof path, "%s/sink_%05d.out00001", r->dir, in->output);
        rc = rs_optional_file(path, &in->has_sinks, err);
        r->sinks_binary = in->has_sinks;
    }
    snprintf(path, sizeof path, "%s/clump_%05d.txt00001", r->dir, in->output);
    if (rc == SK_OK)
        rc = rs_optional_file(path, &in->has_clumps, err);
    return rc;
}

static int probe_components(sk_ramses *r, sk_error *err)
{
    sk_ramses_info *in = &r->info;
    int rc = find_components(r, err);
    if (rc == SK_OK)
        rc = read_text_files(r, err);
    if (rc == SK_OK && in->has_hydro) {
        rc = probe_cell_file(r, RS_HYDRO, &in->nvar_hydro, err);
        if (rc == SK_OK)
            rc = rs_hydro_names(r, in->nvar_hydro, err);
    }
    int ngrav = 0;
    if (rc == SK_OK && in->has_gravity) {
        rc = probe_cell_file(r, RS_GRAV, &ngrav, err);
        if (rc == SK_OK)
            rc = gravity_names(r, ngrav, err);
    }
    if (rc == SK_OK && in->has_particles)
        rc = rs_particle_fields(r, err);
    if (rc == SK_OK && in->has_rt) {
        rc = probe_cell_file(r, RS_RT, &in->nvar_rt, err);
        if (rc == SK_OK)
            rc = rs_rt_names(r, in->nvar_rt, err);
    }
    if (rc == SK_OK && in->has_clump_field) {
        snprintf(r->clump_field_var.name, RS_NAME_MAX, "clump_id");
        r->clump_field_var.type = 'i';
    }
    int old_hydro = in->has_hydro && r->hydro_desc.version != 1;
    int old_part = in->has_particles && r->part_desc.n == 0;
    in->format = (old_hydro || old_part) ? SK_RAMSES_2017 : SK_RAMSES_CURRENT;
    char cosmo[16];
    in->cosmological = in->aexp < 1.0 ||
                       (r->namelist && rs_fortran_true(rs_namelist_value(r->namelist, "cosmo",
                                                                        cosmo, sizeof cosmo)));
    /* H0 sets the units of a cosmological run (h, Mpccm/h). */
    if (rc == SK_OK && in->cosmological && !(in->H0 > 0))
        rc = rs_info_fail_key(&r->info_text, r->info_path, "H0",
                              "must be positive in a cosmological run", err);
    return rc;
}

int sk_ramses_open(sk_ramses **out, const char *dir, sk_error *err)
{
    *out = NULL;
    struct stat st;
    if (stat(dir, &st) != 0)
        return sk_fail_errno(err, dir, errno, "cannot open");
    if (!S_ISDIR(st.st_mode))
        return sk_fail(err, SK_ERR_FORMAT, dir, -1, "not a RAMSES output (not a folder)");
    sk_ramses *r = sk_calloc(1, sizeof *r);
    if (!r)
        return sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    r->dir = sk_strndup(dir, n);
    int rc = r->dir ? find_output_number(r->dir, &r->info.output, err)
                    : sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
    if (rc == SK_OK) {
        char path[4096];
        snprintf(path, sizeof path, "%s/info_%05d.txt", r->dir, r->info.output);
        int present;
        rc = rs_optional_file(path, &present, err); /* e.g. in a folder of mode 000 */
        if (rc == SK_OK && !present)
            rc = sk_fail(err, SK_ERR_FORMAT, r->dir, -1, "not a RAMSES output (no %s)",
                         strrchr(path, '/') + 1);
        else if (rc == SK_OK && !(r->info_path = sk_strdup(path)))
            rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
    }
    if (rc == SK_OK)
        rc = read_info(r, err);
    if (rc == SK_OK)
        rc = check_info(r, err);
    if (rc == SK_OK)
        rc = check_cpu_files(r, err);
    if (rc == SK_OK)
        rc = read_coarse_grid(r, err);
    if (rc == SK_OK)
        rc = probe_components(r, err);
    if (rc != SK_OK) {
        sk_ramses_close(r);
        return rc;
    }
    *out = r;
    return SK_OK;
}

void sk_ramses_close(sk_ramses *r)
{
    if (!r)
        return;
    rs_info_text_free(&r->info_text);
    rs_header_text_free(&r->header);
    rs_varlist_free(&r->hydro_desc);
    rs_varlist_free(&r->part_desc);
    rs_varlist_free(&r->rt_desc);
    rs_kv_free(&r->rt_info);
    sk_free(r->rt_vars);
    sk_free(r->hydro_vars);
    sk_free(r->grav_vars);
    sk_free(r->part_vars);
    sk_free(r->file_sizes);
    sk_free(r->namelist);
    sk_free(r->info_path);
    sk_free(r->dir);
    sk_free(r);
}

const sk_ramses_info *sk_ramses_get_info(const sk_ramses *r)
{
    return &r->info;
}

void sk_ramses_units(const sk_ramses *r, sk_units *out)
{
    const sk_ramses_info *in = &r->info;
    sk_units_set(out, in->boxlen, in->unit_l, in->unit_d, in->unit_t);
    if (in->cosmological) {
        out->aexp = in->aexp;
        out->h = in->H0 / 100.0;
    }
}

const char *sk_ramses_kind_name(int kind)
{
    static const char *const names[SK_RAMSES_NKINDS] = {
        "amr", "hydro", "gravity", "particles", "rt", "clump_field", "sinks", "clumps", "other"};
    return kind >= 0 && kind < SK_RAMSES_NKINDS ? names[kind] : NULL;
}

/* Which kind a file of the folder counts for. */
static int usage_kind(const char *name, int output)
{
    char sinks[64], clumps[64];
    snprintf(sinks, sizeof sinks, "sink_%05d.", output);
    snprintf(clumps, sizeof clumps, "clump_%05d.txt", output);
    if (strncmp(name, sinks, strlen(sinks)) == 0)
        return SK_RAMSES_SINKS;
    if (strncmp(name, clumps, strlen(clumps)) == 0)
        return SK_RAMSES_CLUMPS;
    for (int k = RS_CLUMP_FIELD; k >= RS_AMR; k--) {
        size_t pl = strlen(k_prefix[k]);
        if (strncmp(name, k_prefix[k], pl) == 0 && name[pl] == '_' && strstr(name, ".out"))
            return k; /* rs_kind and the usage kinds agree up to RS_CLUMP_FIELD */
    }
    return SK_RAMSES_OTHER;
}

int sk_ramses_disk_usage(const sk_ramses *r, sk_ramses_usage *u, sk_error *err)
{
    memset(u, 0, sizeof *u);
    DIR *d = opendir(r->dir);
    if (!d)
        return sk_fail_errno(err, r->dir, errno, "cannot open folder");
    char path[4096];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int64_t size;
        snprintf(path, sizeof path, "%s/%s", r->dir, e->d_name);
        if (!rs_file_exists(path, &size))
            continue;
        int kind = usage_kind(e->d_name, r->info.output);
        u->files[kind]++;
        u->bytes[kind] += size;
    }
    closedir(d);
    return SK_OK;
}
