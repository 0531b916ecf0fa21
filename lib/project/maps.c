/* The maps a projection returns: turning accumulators into quantities,
 * accessors, and the JSON description. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "project_internal.h"
#include "snapkit/memory.h"

/* Map q over pixels [p0, p1): a slot, or for means the numerator times
 * the weight's inverse (inv[p - p0], NaN where the weight is zero). */
static void finish_block(const proj_job *job, const proj_quantity *q, const double *acc,
                         const double *inv, double *out, size_t p0, size_t p1)
{
    size_t nacc = (size_t)job->nacc;
    int den = job->weight_volume ? job->slot_volume : job->slot_mass;
    double f = q->factor;
    int mean = q->kind == Q_FIELD && !job->mode_sum;
    int slot = q->kind == Q_SD || q->kind == Q_MASS ? job->slot_mass
               : q->kind == Q_WEIGHT                ? den
               : q->kind == Q_COUNT                 ? job->slot_count
                                                    : q->slot;
    if (q->kind == Q_SD)
        f /= job->f.pixel * job->f.pixel;
    const double *a = acc + p0 * nacc;
    if (!mean) {
        for (size_t p = p0; p < p1; p++, a += nacc)
            out[p] = a[slot] * f;
        return;
    }
    for (size_t p = p0; p < p1; p++, a += nacc)
        out[p] = a[slot] * inv[p - p0] * f;
}

static void inverse_weights(const proj_job *job, const double *acc, double *inv, size_t p0,
                            size_t p1)
{
    size_t nacc = (size_t)job->nacc;
    int den = job->weight_volume ? job->slot_volume : job->slot_mass;
    const double *a = acc + p0 * nacc;
    for (size_t p = p0; p < p1; p++, a += nacc)
        inv[p - p0] = a[den] > 0 ? 1.0 / a[den] : NAN;
}

/* Only means (fields weighted by mass or volume) divide by the weight: sd,
 * mass, weight and count maps alone skip the division, a third of the
 * finishing pass of a surface density. */
static int needs_inverse_weights(const proj_job *job)
{
    if (job->mode_sum || (job->weight_volume ? job->slot_volume : job->slot_mass) < 0)
        return 0;
    for (int i = 0; i < job->nq; i++)
        if (job->q[i].kind == Q_FIELD)
            return 1;
    return 0;
}

#define FINISH_BLOCK 2048

/* Every map in one parallel pass over blocks of pixels, and the mass on
 * the image: summed with compensation (Neumaier) in each thread, so a
 * million-pixel map adds up to the deposited mass to ~1e-15. Map 0 may be
 * the accumulators themselves (one slot a pixel): it is written last in
 * each block, after everything else has read that block's slots. */
static double finish_all(const proj_job *job, const double *acc, sk_maps *maps, size_t npix)
{
    size_t nacc = (size_t)job->nacc;
    int mslot = job->slot_mass, nq = job->nq;
    double sum = 0, comp = 0;
    int means = needs_inverse_weights(job);
#pragma omp parallel num_threads(job->threads) reduction(+ : sum, comp)
    {
        double s = 0, c = 0, inv[FINISH_BLOCK];
#pragma omp for schedule(static)
        for (size_t p0 = 0; p0 < npix; p0 += FINISH_BLOCK) {
            size_t p1 = p0 + FINISH_BLOCK < npix ? p0 + FINISH_BLOCK : npix;
            if (means)
                inverse_weights(job, acc, inv, p0, p1);
            for (size_t p = p0; mslot >= 0 && p < p1; p++) {
                double x = acc[p * nacc + (size_t)mslot], t = s + x;
                c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
                s = t;
            }
            for (int i = nq - 1; i >= 0; i--)
                finish_block(job, &job->q[i], acc, inv, maps->maps[i].data, p0, p1);
        }
        sum += s;
        comp += c;
    }
    return mslot >= 0 ? sum + comp : NAN;
}

/* With one accumulator a pixel, pixel p's maps read only acc[p], so the
 * first map can overwrite the accumulators in place: the process touches
 * one image less of fresh memory (at ~1 GB/s on some machines, as much
 * time as the whole finishing pass). */
int proj_maps_finish(proj_job *job, double **acc, sk_maps *maps, sk_error *err)
{
    size_t npix = (size_t)job->f.nx * (size_t)job->f.ny;
    const double *slots = *acc;
    maps->nx = job->f.nx;
    maps->ny = job->f.ny;
    maps->maps = sk_calloc((size_t)job->nq, sizeof *maps->maps);
    if (!maps->maps)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int i = 0; i < job->nq; i++) {
        const proj_quantity *q = &job->q[i];
        struct sk_map_entry *m = &maps->maps[i];
        if (i == 0 && job->nacc == 1) {
            m->data = *acc;
            *acc = NULL;
        } else {
            m->data = sk_malloc(npix * sizeof(double));
        }
        if (!m->data)
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for map '%s'", q->name);
        maps->nmaps = i + 1;
        snprintf(m->name, sizeof m->name, "%s", q->name);
        snprintf(m->unit, sizeof m->unit, "%s", q->unit);
        snprintf(m->what, sizeof m->what, "%s", proj_quantity_what(job, q));
        m->dim = q->dim;
    }
    maps->info.projected_mass = finish_all(job, slots, maps, npix);
    return SK_OK;
}

void sk_maps_free(sk_maps *maps)
{
    if (!maps)
        return;
    for (int i = 0; i < maps->nmaps; i++)
        sk_free(maps->maps[i].data);
    sk_free(maps->maps);
    sk_free(maps);
}

int sk_maps_nx(const sk_maps *maps)
{
    return maps->nx;
}

int sk_maps_ny(const sk_maps *maps)
{
    return maps->ny;
}

int sk_maps_count(const sk_maps *maps)
{
    return maps->nmaps;
}

static const struct sk_map_entry *entry(const sk_maps *maps, int i)
{
    return i >= 0 && i < maps->nmaps ? &maps->maps[i] : NULL;
}

const char *sk_maps_name(const sk_maps *maps, int i)
{
    const struct sk_map_entry *m = entry(maps, i);
    return m ? m->name : NULL;
}

const char *sk_maps_unit(const sk_maps *maps, int i)
{
    const struct sk_map_entry *m = entry(maps, i);
    return m ? m->unit : NULL;
}

const char *sk_maps_what(const sk_maps *maps, int i)
{
    const struct sk_map_entry *m = entry(maps, i);
    return m ? m->what : NULL;
}

const double *sk_maps_data(const sk_maps *maps, int i)
{
    const struct sk_map_entry *m = entry(maps, i);
    return m ? m->data : NULL;
}

int sk_maps_find(const sk_maps *maps, const char *name)
{
    for (int i = 0; i < maps->nmaps; i++)
        if (strcmp(maps->maps[i].name, name) == 0)
            return i;
    return -1;
}

const sk_maps_info *sk_maps_get_info(const sk_maps *maps)
{
    return &maps->info;
}

static void json_vec(sk_json *j, const char *key, const double *v, int n)
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int k = 0; k < n; k++)
        sk_json_double(j, v[k]);
    sk_json_array_end(j);
}

static void json_geometry(sk_json *j, const sk_maps *maps)
{
    const sk_maps_info *in = &maps->info;
    static const char *const axes[] = {"x", "y", "z"};
    if (in->axis >= 0)
        sk_json_kv_string(j, "axis", axes[in->axis]);
    else
        sk_json_kv_string(j, "axis", "direction");
    json_vec(j, "direction", in->los, 3);
    json_vec(j, "right", in->right, 3);
    json_vec(j, "up", in->up, 3);
    json_vec(j, "center", in->center, 3);
    json_vec(j, "extent", in->extent, 4);
    sk_json_kv_string(j, "extent_unit", "code length");
    sk_json_kv_int(j, "nx", maps->nx);
    sk_json_kv_int(j, "ny", maps->ny);
    sk_json_kv_double(j, "pixel_size", in->pixel_size);
    sk_json_kv_double(j, "pixel_size_cm", in->pixel_size_cm);
    sk_json_kv_double(j, "time", in->time);
    sk_json_kv_double(j, "unit_l", in->unit_l);
    sk_json_kv_double(j, "unit_t", in->unit_t);
    sk_json_kv_string(j, "length_unit", in->length_unit);
}

void proj_map_range(const sk_maps *maps, int i, proj_range *r)
{
    const double *v = maps->maps[i].data;
    size_t n = (size_t)maps->nx * (size_t)maps->ny;
    double lo = INFINITY, hi = -INFINITY, plo = INFINITY, phi = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        double x = v[k];
        if (!isfinite(x))
            continue;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        if (x > 0) {
            plo = x < plo ? x : plo;
            phi = x > phi ? x : phi;
        }
    }
    r->lo = lo <= hi ? lo : NAN;
    r->hi = lo <= hi ? hi : NAN;
    r->plo = plo <= phi ? plo : NAN;
    r->phi = plo <= phi ? phi : NAN;
}

static void json_maps(sk_json *j, const sk_maps *maps)
{
    sk_json_key(j, "maps");
    sk_json_array_begin(j);
    for (int i = 0; i < maps->nmaps; i++) {
        const struct sk_map_entry *m = &maps->maps[i];
        proj_range r;
        proj_map_range(maps, i, &r);
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", m->name);
        sk_json_kv_string(j, "unit", m->unit);
        sk_json_kv_string(j, "what", m->what);
        sk_json_kv_double(j, "min", r.lo);
        sk_json_kv_double(j, "max", r.hi);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
}

void sk_maps_json_members(const sk_maps *maps, sk_json *j)
{
    const sk_maps_info *in = &maps->info;
    sk_json_key(j, "quantities");
    sk_json_array_begin(j);
    for (int i = 0; i < maps->nmaps; i++)
        sk_json_string(j, maps->maps[i].name);
    sk_json_array_end(j);
    sk_json_kv_string(j, "kind", in->kind);
    json_geometry(j, maps);
    sk_json_kv_string(j, "weight", in->weight);
    sk_json_kv_string(j, "mode", in->mode);
    sk_json_kv_string(j, "kernel", in->kernel);
    sk_json_kv_int(j, "rows", in->rows);
    sk_json_kv_int(j, "selected", in->selected);
    sk_json_kv_int(j, "deposited", in->deposited);
    sk_json_kv_double(j, "selected_mass", in->selected_mass);
    sk_json_kv_double(j, "projected_mass", in->projected_mass);
    sk_json_kv_int(j, "threads", in->threads);
    sk_json_kv_string(j, "strategy", in->strategy);
    sk_json_kv_int(j, "accumulator_bytes", in->accumulator_bytes);
    sk_json_kv_double(j, "seconds", in->seconds);
    json_maps(j, maps);
}

char *sk_maps_json(const sk_maps *maps, int pretty)
{
    sk_json j;
    sk_json_init(&j, pretty);
    sk_json_object_begin(&j);
    sk_maps_json_members(maps, &j);
    sk_json_object_end(&j);
    char *text = j.failed ? NULL : sk_strdup(sk_json_text(&j));
    sk_json_free(&j);
    return text;
}
