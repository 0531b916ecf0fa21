/* snapkit stats --totals: the totals of the rows stats streams (mass,
 * volume, centre of mass, bulk velocity, angular momentum: snapkit/totals.h),
 * taken in the same pass by a consumer that hands each batch on to the
 * statistics' consumer; and their JSON member and text block. */
#include <math.h>
#include <string.h>

#include "cli_totals.h"
#include "snapkit/util/json.h"
#include "snapkit/util/number.h"

int cli_totals_tee_init(cli_totals_tee *t, const sk_source *src, const char *component,
                        const cli_selection *cs, const sk_consumer *inner, sk_error *err)
{
    memset(t, 0, sizeof *t);
    t->inner = *inner;
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = cli_source_selection(src, component, cs, &sel, err);
    /* about the centre given, else about the centre of mass; the images
     * of the rows are taken about the selection's centre either way */
    t->frame.about_com = !cs->region.has_center;
    t->frame.has_velocity = cs->has_bulk;
    memcpy(t->frame.ref, sel.center, sizeof t->frame.ref);
    memcpy(t->frame.velocity, cs->bulk, sizeof t->frame.velocity);
    sk_selection_clear(&sel);
    if (rc == SK_OK)
        rc = sk_totals_acc_new(&t->frame, &t->all, err);
    return rc;
}

static int tee_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    cli_totals_tee *t = ctx;
    t->acc = sk_calloc((size_t)nthreads, sizeof *t->acc);
    if (!t->acc)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    t->nthreads = nthreads;
    int rc = SK_OK;
    for (int i = 0; i < nthreads && rc == SK_OK; i++)
        rc = sk_totals_acc_new(&t->frame, &t->acc[i], err);
    return rc == SK_OK && t->inner.begin ? t->inner.begin(t->inner.ctx, nthreads, schema, err)
                                         : rc;
}

static int tee_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                     sk_error *err)
{
    cli_totals_tee *t = ctx;
    int rc = sk_totals_acc_add(t->acc[thread], batch, err);
    return rc == SK_OK ? t->inner.batch(t->inner.ctx, thread, batch, info, err) : rc;
}

sk_consumer cli_totals_tee_consumer(cli_totals_tee *t)
{
    sk_consumer c = {.ctx = t, .begin = tee_begin, .batch = tee_batch,
                     .ordered = t->inner.ordered};
    return c;
}

int cli_totals_tee_finish(cli_totals_tee *t, sk_totals *out, sk_error *err)
{
    for (int i = 0; i < t->nthreads; i++)
        sk_totals_acc_merge(t->all, t->acc[i]);
    int rc = sk_totals_acc_reduce_ranks(t->all, err); /* collective under MPI */
    if (rc == SK_OK)
        sk_totals_acc_result(t->all, out);
    return rc;
}

void cli_totals_tee_free(cli_totals_tee *t)
{
    for (int i = 0; t->acc && i < t->nthreads; i++)
        sk_totals_acc_free(t->acc[i]);
    sk_free(t->acc);
    sk_totals_acc_free(t->all);
    memset(t, 0, sizeof *t);
}

static void json_vector(sk_json *j, const char *key, const double v[3])
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int k = 0; k < 3; k++)
        sk_json_double(j, v[k]); /* null when not finite */
    sk_json_array_end(j);
}

void cli_totals_json(sk_json *j, const sk_totals *t, int about_com)
{
    sk_json_key(j, "totals");
    sk_json_object_begin(j);
    sk_json_kv_string(j, "units", "code");
    sk_json_kv_string(j, "about", about_com ? "com" : "center");
    sk_json_kv_int(j, "cells", t->cells);
    sk_json_kv_int(j, "particles", t->particles);
    sk_json_kv_double(j, "mass", t->mass);
    sk_json_kv_double(j, "volume", t->volume);
    json_vector(j, "com", t->com);
    json_vector(j, "bulk_velocity", t->bulk_velocity);
    json_vector(j, "center", t->center);
    json_vector(j, "velocity", t->velocity);
    json_vector(j, "angular_momentum", t->angular_momentum);
    json_vector(j, "angular_momentum_direction", t->angular_momentum_direction);
    sk_json_object_end(j);
}

static void print_vector(const char *what, const double v[3])
{
    char a[SK_NUMBER_BUFSIZE], b[SK_NUMBER_BUFSIZE], c[SK_NUMBER_BUFSIZE];
    sk_format_double(v[0], a);
    sk_format_double(v[1], b);
    sk_format_double(v[2], c);
    printf("  %-26s %s %s %s\n", what, a, b, c);
}

void cli_totals_print(const sk_totals *t, int about_com)
{
    char m[SK_NUMBER_BUFSIZE], v[SK_NUMBER_BUFSIZE];
    sk_format_double(t->mass, m);
    sk_format_double(t->volume, v);
    printf("\ntotals (code units) of %lld cells and %lld particles\n", (long long)t->cells,
           (long long)t->particles);
    printf("  %-26s %s\n  %-26s %s\n", "mass", m, "volume (cells)", v);
    print_vector("centre of mass", t->com);
    print_vector("bulk velocity", t->bulk_velocity);
    print_vector(about_com ? "about (centre of mass)" : "about (--center)", t->center);
    print_vector("relative to velocity", t->velocity);
    print_vector("angular momentum", t->angular_momentum);
    print_vector("its direction", t->angular_momentum_direction);
}
