/* A cube's values from the sums, what it tells about itself, and its .npy
 * files. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "cube_internal.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"
#include "snapkit/util/npy.h"

/* The means in place of the numerators: NaN where no row reached. */
static void finish_values(sk_cube_stream *cs)
{
    for (int i = 0; i < cs->nq; i++) {
        double *v = cs->num + (size_t)i * cs->ncells;
        const double *w = cs->mass && !cs->by_volume[i] ? cs->mass : cs->vol;
        double f = cs->factor[i];
        for (size_t c = 0; c < cs->ncells; c++)
            v[c] = w[c] > 0 ? v[c] / w[c] * f : NAN;
    }
}

int sk_cube_stream_finish(sk_cube_stream *cs, sk_cube **out, sk_error *err)
{
    *out = NULL;
    if (!cs || !cs->begun)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no stream was made into a cube");
    if (cs->deposited == 0)
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1, "none of the %lld cells meets the cube",
                       (long long)cs->rows);
    sk_cube *c = sk_calloc(1, sizeof *c);
    if (c) {
        c->names = sk_calloc((size_t)cs->nq, sizeof *c->names);
        c->units = sk_calloc((size_t)cs->nq, sizeof *c->units);
    }
    if (!c || !c->names || !c->units) {
        sk_cube_free(c);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    finish_values(cs);
    c->nq = cs->nq;
    c->level = cs->opt.level;
    for (int i = 0; i < cs->nq; i++) {
        snprintf(c->names[i], sizeof c->names[i], "%s", cs->names[i]);
        snprintf(c->units[i], sizeof c->units[i], "%s", cs->units[i]);
    }
    memcpy(c->i0, cs->i0, sizeof c->i0);
    memcpy(c->n, cs->n, sizeof c->n);
    c->boxlen = cs->boxlen;
    c->unit_l = cs->unit_l;
    c->weight_mass = cs->opt.weight_mass;
    snprintf(c->length_unit, sizeof c->length_unit, "code");
    c->data = cs->num; /* the cube takes the values over */
    cs->num = NULL;
    c->rows = cs->rows;
    c->deposited = cs->deposited;
    for (size_t k = 0; k < cs->ncells; k++)
        c->empty += !(cs->vol[k] > 0);
    c->seconds = omp_get_wtime() - cs->start;
    *out = c;
    return SK_OK;
}

void sk_cube_free(sk_cube *cube)
{
    if (!cube)
        return;
    sk_free(cube->names);
    sk_free(cube->units);
    sk_free(cube->data);
    sk_free(cube);
}

int64_t sk_cube_n(const sk_cube *cube, int axis)
{
    return axis >= 0 && axis < 3 ? cube->n[axis] : 0;
}

int sk_cube_level(const sk_cube *cube)
{
    return cube->level;
}

int sk_cube_count(const sk_cube *cube)
{
    return cube->nq;
}

const char *sk_cube_name(const sk_cube *cube, int i)
{
    return i >= 0 && i < cube->nq ? cube->names[i] : NULL;
}

const char *sk_cube_unit(const sk_cube *cube, int i)
{
    return i >= 0 && i < cube->nq ? cube->units[i] : NULL;
}

const double *sk_cube_data(const sk_cube *cube, int i)
{
    size_t n = (size_t)cube->n[0] * (size_t)cube->n[1] * (size_t)cube->n[2];
    return i >= 0 && i < cube->nq ? cube->data + (size_t)i * n : NULL;
}

double sk_cube_edge(const sk_cube *cube, int axis, int high)
{
    if (axis < 0 || axis > 2)
        return NAN;
    int64_t i = cube->i0[axis] + (high ? cube->n[axis] : 0);
    return ldexp((double)i, -cube->level) * cube->boxlen;
}

int64_t sk_cube_rows(const sk_cube *cube)
{
    return cube->rows;
}

int64_t sk_cube_deposited(const sk_cube *cube)
{
    return cube->deposited;
}

int64_t sk_cube_empty_cells(const sk_cube *cube)
{
    return cube->empty;
}

int sk_cube_set_length_unit(sk_cube *cube, const char *unit, sk_error *err)
{
    double cm;
    if (strcmp(unit, "code") != 0 && strcmp(unit, "standard") != 0) {
        if (sk_length_unit_cm(unit, &cm, err) != SK_OK)
            return SK_ERR_ARG;
        if (!(cube->unit_l > 0) || !isfinite(cube->unit_l))
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "the cells have no unit_l: the cube's axes stay in code lengths");
    }
    snprintf(cube->length_unit, sizeof cube->length_unit, "%s",
             strcmp(unit, "standard") ? unit : "code");
    return SK_OK;
}

void sk_cube_set_fsync(sk_cube *cube, int on)
{
    cube->no_fsync = !on;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* path with "{var}" replaced by name. */
static int expand(const char *path, const char *name, char *out, size_t n, sk_error *err)
{
    const char *at = strstr(path, "{var}");
    int w = at ? snprintf(out, n, "%.*s%s%s", (int)(at - path), path, name, at + 5)
               : snprintf(out, n, "%s", path);
    if (w < 0 || (size_t)w >= n)
        return sk_fail(err, SK_ERR_ARG, path, -1, "the output path is too long");
    return SK_OK;
}

static int keep_name(char ***written, int *nwritten, const char *name, sk_error *err)
{
    char **list = sk_realloc(*written, (size_t)(*nwritten + 1) * sizeof *list);
    if (!list)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    *written = list;
    if (!(list[*nwritten] = sk_strdup(name)))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    (*nwritten)++;
    return SK_OK;
}

static int write_npy(const sk_cube *cube, const char *path, char ***written, int *nwritten,
                     sk_error *err)
{
    if (cube->nq > 1 && !strstr(path, "{var}"))
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "%d quantities need {var} in the .npy name (e.g. cube_{var}.npy)",
                       cube->nq);
    const int64_t shape[3] = {cube->n[2], cube->n[1], cube->n[0]};
    int was = atomic_scope_fsync(!cube->no_fsync);
    int rc = SK_OK;
    for (int i = 0; i < cube->nq && rc == SK_OK; i++) {
        char name[4096];
        rc = expand(path, cube->names[i], name, sizeof name, err);
        if (rc == SK_OK)
            rc = sk_npy_write(name, "<f8", sizeof(double), shape, 3, sk_cube_data(cube, i), err);
        if (rc == SK_OK)
            rc = keep_name(written, nwritten, name, err);
    }
    atomic_scope_fsync(was);
    return rc;
}

int sk_cube_write(const sk_cube *cube, const char *path, char ***written, int *nwritten,
                  sk_error *err)
{
    char **list = NULL;
    int n = 0, rc;
    if (ends_with(path, ".npy"))
        rc = write_npy(cube, path, &list, &n, err);
    else if (ends_with(path, ".fits") || ends_with(path, ".fit"))
        rc = (rc = cube_write_fits(cube, path, err)) == SK_OK ? keep_name(&list, &n, path, err) : rc;
    else
        rc = sk_fail(err, SK_ERR_ARG, path, -1, "a cube is written as .npy or .fits");
    if (rc != SK_OK) /* nothing half-written: the files of the cube written so far go too */
        for (int i = 0; i < n; i++)
            unlink(list[i]);
    if (written && rc == SK_OK) {
        *written = list;
        *nwritten = n;
        return rc;
    }
    for (int i = 0; i < n; i++)
        sk_free(list[i]);
    sk_free(list);
    if (written) {
        *written = NULL;
        *nwritten = 0;
    }
    return rc;
}
