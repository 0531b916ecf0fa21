/* The truth of a synthetic output: what was written, summed while writing
 * with Neumaier's compensated sums (colstats.h) (each CPU on its own, then merged in CPU
 * order, so the result does not depend on the thread count). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/colstats.h"
#include "snapkit/memory.h"
#include "snapkit/util/json.h"

static void sum_merge(sk_ksum *dst, const sk_ksum *src)
{
    sk_ksum_add(dst, src->sum);
    sk_ksum_add(dst, src->comp);
}

void synth_acc_init(synth_acc *a)
{
    memset(a, 0, sizeof *a);
    a->min = INFINITY;
    a->max = -INFINITY;
}

void synth_acc_add(synth_acc *a, double v, double volume)
{
    sk_ksum_add(&a->sum, v);
    sk_ksum_add(&a->abs_sum, fabs(v));
    sk_ksum_add(&a->vol, v * volume);
    sk_ksum_add(&a->abs_vol, fabs(v * volume));
    if (v < a->min)
        a->min = v;
    if (v > a->max)
        a->max = v;
}

static void add_column(sk_synth_truth *t, int comp, const char *name)
{
    snprintf(t->names[comp][t->ncol[comp]], sizeof t->names[comp][0], "%s", name);
    t->ncol[comp]++;
}

void synth_hydro_name(const synth_plan *p, int ivar, char out[32])
{
    static const char *const first[] = {"density", "velocity_x", "velocity_y", "velocity_z"};
    int old = p->opt.format == SK_RAMSES_2017;
    if (ivar <= 4)
        snprintf(out, 32, "%s", first[ivar - 1]);
    else if (ivar == 5)
        snprintf(out, 32, "%s", old ? "thermal_pressure" : "pressure");
    else if (old)
        snprintf(out, 32, "passive_scalar_%d", ivar - 5);
    else if (ivar == 6)
        snprintf(out, 32, "metallicity");
    else
        snprintf(out, 32, "scalar_%02d", ivar - 6);
}

static void hydro_columns(sk_synth_truth *t, const synth_plan *p)
{
    for (int ivar = 1; ivar <= p->opt.nvar; ivar++) {
        char name[32];
        synth_hydro_name(p, ivar, name);
        add_column(t, SYNTH_HYDRO, name);
    }
}

int synth_has_metal(const synth_plan *p)
{
    return (p->opt.components & SK_SYNTH_HYDRO) && p->opt.nvar >= 6;
}

static void particle_columns(sk_synth_truth *t, const synth_plan *p)
{
    static const char *const names[] = {"position_x", "position_y", "position_z", "velocity_x",
                                        "velocity_y", "velocity_z", "mass",       "identity",
                                        "levelp"};
    for (int i = 0; i < 9; i++)
        add_column(t, SYNTH_PARTICLES, names[i]);
    if (p->opt.format != SK_RAMSES_2017) {
        add_column(t, SYNTH_PARTICLES, "family");
        add_column(t, SYNTH_PARTICLES, "tag");
    }
    add_column(t, SYNTH_PARTICLES, "birth_time");
    if (synth_has_metal(p))
        add_column(t, SYNTH_PARTICLES, "metallicity");
}

void synth_truth_setup(sk_synth_truth *t, const synth_plan *p)
{
    memset(t, 0, sizeof *t);
    unsigned comps = p->opt.components;
    if (comps & SK_SYNTH_HYDRO) {
        t->present[SYNTH_HYDRO] = 1;
        hydro_columns(t, p);
    }
    if (comps & SK_SYNTH_GRAVITY) {
        t->present[SYNTH_GRAVITY] = 1;
        static const char *const names[] = {"potential", "acceleration_x", "acceleration_y",
                                            "acceleration_z"};
        for (int i = 0; i < 4; i++)
            add_column(t, SYNTH_GRAVITY, names[i]);
    }
    if (comps & SK_SYNTH_PARTICLES) {
        t->present[SYNTH_PARTICLES] = 1;
        particle_columns(t, p);
    }
}

synth_tally *synth_tally_new(const sk_synth_truth *t)
{
    int total = 0;
    for (int k = 0; k < SYNTH_NCOMP; k++)
        total += t->ncol[k];
    synth_tally *y = sk_calloc(1, sizeof *y + (size_t)total * sizeof(synth_acc));
    if (!y)
        return NULL;
    synth_acc *acc = (synth_acc *)(y + 1);
    for (int k = 0; k < SYNTH_NCOMP; k++) {
        y->ncol[k] = t->ncol[k];
        y->acc[k] = acc;
        for (int c = 0; c < t->ncol[k]; c++)
            synth_acc_init(&acc[c]);
        acc += t->ncol[k];
    }
    return y;
}

void synth_tally_free(synth_tally *t)
{
    sk_free(t);
}

void synth_tally_merge(synth_tally *dst, const synth_tally *src)
{
    for (int k = 0; k < SYNTH_NCOMP; k++) {
        dst->rows[k] += src->rows[k];
        for (int l = 0; l < SYNTH_NLEV; l++)
            dst->levels[k][l] += src->levels[k][l];
        for (int c = 0; c < dst->ncol[k]; c++) {
            synth_acc *d = &dst->acc[k][c];
            const synth_acc *s = &src->acc[k][c];
            sum_merge(&d->sum, &s->sum);
            sum_merge(&d->abs_sum, &s->abs_sum);
            sum_merge(&d->vol, &s->vol);
            sum_merge(&d->abs_vol, &s->abs_vol);
            d->min = fmin(d->min, s->min);
            d->max = fmax(d->max, s->max);
        }
    }
    for (int f = 0; f < SYNTH_NFAMILY; f++)
        dst->families[f] += src->families[f];
}

void sk_synth_truth_free(sk_synth_truth *t)
{
    if (t)
        synth_tally_free(t->tally);
    sk_free(t);
}

static int component(const sk_synth_truth *t, const char *name)
{
    static const char *const names[SYNTH_NCOMP] = {"hydro", "gravity", "particles"};
    for (int k = 0; t && t->tally && name && k < SYNTH_NCOMP; k++)
        if (strcmp(name, names[k]) == 0 && t->present[k])
            return k;
    return -1;
}

int64_t sk_synth_truth_rows(const sk_synth_truth *t, const char *name)
{
    int k = component(t, name);
    return k < 0 ? -1 : t->tally->rows[k];
}

int64_t sk_synth_truth_level_rows(const sk_synth_truth *t, const char *name, int level)
{
    int k = component(t, name);
    if (k < 0 || k == SYNTH_PARTICLES || level < 0 || level >= SYNTH_NLEV)
        return -1;
    return t->tally->levels[k][level];
}

int sk_synth_truth_ncolumns(const sk_synth_truth *t, const char *name)
{
    int k = component(t, name);
    return k < 0 ? 0 : t->ncol[k];
}

const char *sk_synth_truth_column_name(const sk_synth_truth *t, const char *name, int i)
{
    int k = component(t, name);
    return k >= 0 && i >= 0 && i < t->ncol[k] ? t->names[k][i] : NULL;
}

static void stats_of(const synth_acc *a, sk_synth_stats *out)
{
    out->sum = sk_ksum_value(&a->sum);
    out->abs_sum = sk_ksum_value(&a->abs_sum);
    out->volume_sum = sk_ksum_value(&a->vol);
    out->abs_volume_sum = sk_ksum_value(&a->abs_vol);
    out->min = a->min;
    out->max = a->max;
}

int sk_synth_truth_column(const sk_synth_truth *t, const char *name, const char *column,
                          sk_synth_stats *out, sk_error *err)
{
    int k = component(t, name);
    if (k < 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no component '%s' in this output",
                       name ? name : "(null)");
    for (int i = 0; i < t->ncol[k]; i++)
        if (strcmp(t->names[k][i], column) == 0) {
            stats_of(&t->tally->acc[k][i], out);
            return SK_OK;
        }
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "no column '%s' in %s", column, name);
}

static void family_json(const sk_synth_truth *t, sk_json *j)
{
    static const char *const names[SYNTH_NFAMILY] = {
        "other_tracer", "debris_tracer", "cloud_tracer", "star_tracer", "dm_tracer", "gas_tracer",
        "DM",           "star",          "cloud",        "debris",      "other"};
    sk_json_key(j, "families");
    sk_json_object_begin(j);
    for (int f = 0; f < SYNTH_NFAMILY; f++)
        if (t->tally->families[f])
            sk_json_kv_int(j, names[f], t->tally->families[f]);
    sk_json_object_end(j);
}

void sk_synth_truth_json(const sk_synth_truth *t, sk_json *j)
{
    static const char *const names[SYNTH_NCOMP] = {"hydro", "gravity", "particles"};
    sk_json_object_begin(j);
    for (int k = 0; k < SYNTH_NCOMP; k++) {
        if (!t->present[k] || !t->tally)
            continue;
        sk_json_key(j, names[k]);
        sk_json_object_begin(j);
        sk_json_key(j, "columns");
        sk_json_object_begin(j);
        for (int i = 0; i < t->ncol[k]; i++) {
            sk_synth_stats s;
            stats_of(&t->tally->acc[k][i], &s);
            sk_json_key(j, t->names[k][i]);
            sk_json_object_begin(j);
            sk_json_kv_double(j, "abs_sum", s.abs_sum);
            if (k != SYNTH_PARTICLES)
                sk_json_kv_double(j, "abs_volume_sum", s.abs_volume_sum);
            sk_json_kv_double(j, "max", s.max);
            sk_json_kv_double(j, "min", s.min);
            sk_json_kv_double(j, "sum", s.sum);
            if (k != SYNTH_PARTICLES)
                sk_json_kv_double(j, "volume_sum", s.volume_sum);
            sk_json_object_end(j);
        }
        sk_json_object_end(j);
        if (k == SYNTH_PARTICLES) {
            family_json(t, j);
        } else {
            sk_json_key(j, "levels");
            sk_json_object_begin(j);
            for (int l = 0; l < SYNTH_NLEV; l++)
                if (t->tally->levels[k][l]) {
                    char key[8];
                    snprintf(key, sizeof key, "%d", l);
                    sk_json_kv_int(j, key, t->tally->levels[k][l]);
                }
            sk_json_object_end(j);
        }
        sk_json_kv_int(j, "rows", t->tally->rows[k]);
        sk_json_object_end(j);
    }
    sk_json_object_end(j);
}
