/* sk_clumps_find: options, threshold units, and the finder's run. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"
#include "mpi/collectives.h"
#include "snapkit/ramses.h"
#include "snapkit/threads.h"
#include "snapkit/units.h"

double cl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sk_clumps_options_init(sk_clumps_options *o)
{
    memset(o, 0, sizeof *o);
    o->field = "density";
    o->unit = "code";
    o->finder = SK_CLUMPS_FACES;
    o->relevance = 2.0;
    o->min_cells = 1;
    o->linking_length = 0.2;
    o->length_unit = "mean-sep";
    o->bound = SK_CLUMPS_BOUND_APPROX;
    o->theta = 0.5;
}

static const char *const k_bound[] = {"approx", "direct", "tree"};

const char *sk_clumps_bound_name(int bound)
{
    return bound >= 0 && bound < 3 ? k_bound[bound] : NULL;
}

int sk_clumps_bound_from_name(const char *name)
{
    for (int b = 0; name && b < 3; b++)
        if (!strcmp(name, k_bound[b]))
            return b;
    return -1;
}

const char *sk_clumps_finder_name(int finder)
{
    switch (finder) {
    case SK_CLUMPS_FACES:
        return "faces";
    case SK_CLUMPS_WATERSHED:
        return "watershed";
    case SK_CLUMPS_FOF:
        return "fof";
    case SK_CLUMPS_DENDROGRAM:
        return "dendrogram";
    default:
        return NULL;
    }
}

int sk_clumps_finder_from_name(const char *name)
{
    if (name && !strcmp(name, "faces"))
        return SK_CLUMPS_FACES;
    if (name && !strcmp(name, "watershed"))
        return SK_CLUMPS_WATERSHED;
    if (name && !strcmp(name, "fof"))
        return SK_CLUMPS_FOF;
    if (name && !strcmp(name, "dendrogram"))
        return SK_CLUMPS_DENDROGRAM;
    return -1;
}

/* The threshold in the field's code units. */
static int code_threshold(const sk_table *cells, const sk_clumps_options *o, const char *field,
                          double *out, sk_error *err)
{
    const char *unit = o->unit && *o->unit ? o->unit : "code";
    *out = o->threshold;
    if (!strcmp(unit, "code"))
        return SK_OK;
    const char *as = NULL;
    if (!strcmp(unit, "g/cm3") || !strcmp(unit, "g/cm^3"))
        as = "g/cm^3";
    else if (!strcmp(unit, "H/cm3") || !strcmp(unit, "H/cm^3") || !strcmp(unit, "nH"))
        as = "H/cm^3";
    if (!as)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: unknown threshold unit '%s' (code, g/cm3 or H/cm3)", unit);
    if (strcmp(field, "density"))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: a threshold in %s is for the density, not '%s'", unit, field);
    sk_units u;
    sk_units_from_table(&u, cells);
    double f;
    int rc = sk_ramses_unit_factor(&u, as, 0, &f, err);
    if (rc != SK_OK)
        return rc;
    *out = o->threshold / f;
    return SK_OK;
}

static int check_options(const sk_table *cells, const sk_clumps_options *o, sk_error *err)
{
    if (!cells || !o)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: no cell table or no options");
    if (!sk_clumps_finder_name(o->finder))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: unknown finder %d", o->finder);
    if (!sk_clumps_bound_name(o->bound))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: unknown bound method %d", o->bound);
    if (o->bound == SK_CLUMPS_BOUND_TREE && !(o->theta >= 0 && o->theta < 10))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the opening angle theta must be in [0, 10) (%g)", o->theta);
    if (!(o->softening >= 0) || isinf(o->softening))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the softening must be 0 or positive (%g)", o->softening);
    if (o->mu != o->mu)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: the mean molecular weight is NaN");
    if (o->threshold != o->threshold)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: the threshold is NaN");
    if (o->finder == SK_CLUMPS_WATERSHED && !(o->relevance > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: the relevance must be positive");
    if (!(o->min_delta >= 0) || isinf(o->min_delta))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: min_delta must be 0 or positive (%g)", o->min_delta);
    const char *kind = sk_table_meta_get(cells, "kind");
    if (kind && strcmp(kind, "cells") && strcmp(kind, "particles"))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the table holds %s, not cells or particles", kind);
    if (sk_table_meta_double(cells, "ndim", 3) != 3)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: 3-D cells only (this table is %s-D)",
                       sk_table_meta_get(cells, "ndim"));
    return SK_OK;
}

/* Particles: the table says so, or has positions and no cell levels. */
static int is_particles(const sk_table *t)
{
    const char *kind = sk_table_meta_get(t, "kind");
    if (kind)
        return !strcmp(kind, "particles");
    return sk_table_find(t, "position_x") && !sk_table_find(t, "level");
}

/* The watershed and its hierarchy (the tree of the clumps by saddles);
 * *t0 turns from the start time into the finding's seconds. */
static int watershed(const cl_cells *c, const sk_clumps_options *o, double threshold,
                     int64_t *label, const sk_table *cells, sk_table **catalogue, int32_t *ids,
                     double *t0, sk_error *err)
{
    cl_saddle *sad = NULL;
    int64_t nsad = 0;
    cl_tree tree = {0};
    int rc = c->n > 0 ? cl_find_watershed(c, o->relevance, threshold, label, &sad, &nsad, err)
                      : SK_OK;
    if (rc == SK_OK)
        rc = cl_watershed_tree(c, label, sad, nsad, o->min_cells, &tree, err);
    *t0 = cl_now() - *t0;
    if (rc == SK_OK)
        rc = cl_catalogue_tree(c, cells, &tree, o, threshold, catalogue, ids, err);
    sk_free(sad);
    cl_tree_free(&tree);
    return rc;
}

int sk_clumps_find(const sk_table *cells, const sk_clumps_options *o, sk_table **catalogue,
                   int32_t *ids, sk_error *err)
{
    if (catalogue)
        *catalogue = NULL;
    if (!catalogue)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "clumps: no place for the catalogue");
    int rc = check_options(cells, o, err);
    if (rc != SK_OK)
        return rc;
    if (o->bound_only && !cl_stats_has_velocity(cells))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: --bound-only needs velocities (velocity_x, velocity_y, "
                       "velocity_z), which the table does not have");
    sk_thread_budget budget;
    if (is_particles(cells)) {
        if (o->finder != SK_CLUMPS_FOF)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "clumps: particles take the fof finder (not %s)",
                           sk_clumps_finder_name(o->finder));
        return cl_find_particles(cells, o, sk_thread_budget_get(o->threads, &budget), catalogue,
                                 ids, err);
    }
    const char *name = o->field && *o->field ? o->field : "density";
    const sk_column *field = sk_table_find(cells, name);
    if (!field || field->type == SK_CATEGORY)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the cell table has no numeric column '%s'", name);
    double threshold;
    if ((rc = code_threshold(cells, o, name, &threshold, err)) != SK_OK)
        return rc;
    cl_cells c;
    double t0 = cl_now();
    rc = cl_cells_build(&c, cells, field, threshold, sk_thread_budget_get(o->threads, &budget),
                        err);
    int64_t *label = rc == SK_OK ? c.label : NULL;
    double b = 0, box = sk_table_meta_double(cells, "boxlen", 1.0);
    if (rc == SK_OK && o->finder == SK_CLUMPS_FOF)
        rc = cl_linking_length(cells, o, c.n, &b, err);
    if (rc == SK_OK && (o->finder == SK_CLUMPS_DENDROGRAM || o->finder == SK_CLUMPS_WATERSHED))
        rc = cl_cells_index(&c, err);
    if (rc == SK_OK && o->finder == SK_CLUMPS_DENDROGRAM) {
        cl_tree tree;
        rc = cl_find_dendrogram(&c, o->min_delta, o->min_cells, &tree, err);
        t0 = cl_now() - t0;
        if (rc == SK_OK)
            rc = cl_catalogue_tree(&c, cells, &tree, o, threshold, catalogue, ids, err);
        cl_tree_free(&tree);
    } else if (rc == SK_OK && o->finder == SK_CLUMPS_WATERSHED) {
        rc = watershed(&c, o, threshold, label, cells, catalogue, ids, &t0, err);
    } else if (rc == SK_OK && c.n > 0) {
        if (o->finder == SK_CLUMPS_FACES)
            rc = cl_find_faces(&c, label, err);
        else
            rc = cl_find_fof_cells(&c, box, b, label, err);
    }
    int tree = o->finder == SK_CLUMPS_DENDROGRAM || o->finder == SK_CLUMPS_WATERSHED;
    if (!tree)
        t0 = cl_now() - t0;
    if (rc == SK_OK && !tree)
        rc = cl_catalogue(&c, cells, label, o, threshold, b, catalogue, ids, err);
    if (rc == SK_OK)
        sk_table_meta_set_double(*catalogue, "timing.find_seconds", t0);
    cl_cells_free(&c);
    return rc;
}

/* This rank's rows that take part: the field at or above the threshold,
 * or NaN (which sk_clumps_find reports); every particle (keep NULL). */
static int rows_to_send(const sk_table *share, const sk_clumps_options *o, uint8_t **keep,
                        sk_error *err)
{
    *keep = NULL;
    int rc = check_options(share, o, err);
    if (rc != SK_OK || is_particles(share))
        return rc;
    const char *name = o->field && *o->field ? o->field : "density";
    const sk_column *field = sk_table_find(share, name);
    if (!field || field->type == SK_CATEGORY)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "clumps: the cell table has no numeric column '%s'", name);
    double threshold;
    if ((rc = code_threshold(share, o, name, &threshold, err)) != SK_OK)
        return rc;
    int64_t n = sk_table_nrows(share);
    uint8_t *k = sk_malloc((size_t)n + 1);
    if (!k)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory");
    for (int64_t i = 0; i < n; i++) {
        double v = sk_column_get_double(field, i);
        k[i] = v >= threshold || v != v;
    }
    *keep = k;
    return SK_OK;
}

/* Each share row's id from the ids of its kept rows (scattered back from
 * rank 0 in rank order); a row not sent is below the threshold: 0. */
static int share_ids(const int32_t *found, const sk_table *share, const uint8_t *keep,
                     int32_t *ids, sk_error *err)
{
    int64_t n = sk_table_nrows(share), kept = 0;
    for (int64_t i = 0; i < n; i++)
        kept += !keep || keep[i];
    int32_t *mine = sk_malloc(sizeof *mine * (size_t)(kept ? kept : 1));
    int rc = sk_mpi_agree(mine ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for ids"),
                          err);
    if (rc == SK_OK)
        rc = sk_mpi_scatter_int32(found, mine, kept, err);
    for (int64_t i = 0, j = 0; rc == SK_OK && i < n; i++)
        ids[i] = !keep || keep[i] ? mine[j++] : 0;
    sk_free(mine);
    return rc;
}

int sk_clumps_find_ranks(const sk_table *share, const sk_clumps_options *o,
                         sk_table **catalogue, int32_t *ids, sk_error *err)
{
    *catalogue = NULL;
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size == 1)
        return sk_clumps_find(share, o, catalogue, ids, err);
    uint8_t *keep = NULL;
    int rc = sk_mpi_agree(rows_to_send(share, o, &keep, err), err);
    sk_table *all = NULL;
    int32_t *found = NULL;
    if (rc == SK_OK)
        rc = sk_mpi_gather_rows(share, keep, &all, err);
    if (rc == SK_OK && w.rank == 0 && ids) {
        int64_t n = sk_table_nrows(all);
        if (!(found = sk_malloc(sizeof *found * (size_t)(n ? n : 1))))
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld ids",
                         (long long)n);
    }
    if (rc == SK_OK && w.rank == 0)
        rc = sk_clumps_find(all, o, catalogue, found, err);
    sk_table_free(all);
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK && ids)
        rc = share_ids(found, share, keep, ids, err);
    sk_free(found);
    sk_free(keep);
    return rc;
}
