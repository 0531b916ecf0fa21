/* What a derived quantity reads: the kind of table, its columns as
 * float64, the frame; and sk_derive, which puts them together. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/derive_internal.h"
#include "snapkit/memory.h"
#include "snapkit/ramses.h"

int dv_table_kind(const sk_table *t, sk_error *err)
{
    const char *kind = sk_table_meta_get(t, "kind");
    if (kind && !strcmp(kind, "particles"))
        return 1;
    if (!(kind && !strcmp(kind, "catalogue"))) {
        if (sk_table_find(t, "level"))
            return 0;
        if (sk_table_find(t, "position_x"))
            return 1;
    }
    sk_fail(err, SK_ERR_ARG, NULL, -1,
            kind && !strcmp(kind, "catalogue")
                ? "derived quantities are of cells and particles, not of a catalogue"
                : "derived quantities need cells (level, cx, cy, cz) or particles "
                  "(position_x, position_y, position_z)");
    return -1;
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* e1 across n as yt's ortho_find chooses it, so that phi is measured from
 * the same direction as yt's cylindrical_theta: x for n = z. */
static void reference_direction(const double n[3], double e1[3])
{
    if (n[2] != 0) {
        e1[0] = 1.0, e1[1] = 0.0, e1[2] = -(n[0] / n[2]);
    } else if (n[1] != 0) {
        e1[0] = 0.0, e1[1] = -(n[2] / n[1]), e1[2] = 1.0;
    } else {
        e1[0] = -(n[1] / n[0]), e1[1] = 1.0, e1[2] = 0.0;
    }
    double norm = sqrt(dot(e1, e1));
    for (int a = 0; a < 3; a++)
        e1[a] /= norm;
}

int dv_frame_set(dv_frame *f, const sk_frame *user, sk_error *err)
{
    memset(f, 0, sizeof *f);
    double axis[3] = {0, 0, 1};
    if (user) {
        f->has_center = user->has_center;
        for (int a = 0; a < 3; a++) {
            f->c[a] = user->center[a];
            f->bulk[a] = user->bulk_velocity[a];
        }
        if (user->axis[0] != 0 || user->axis[1] != 0 || user->axis[2] != 0)
            memcpy(axis, user->axis, sizeof axis);
    }
    double len = sqrt(dot(axis, axis));
    if (!(len > 0) || !isfinite(len))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame's axis (%g, %g, %g) has no direction",
                       axis[0], axis[1], axis[2]);
    for (int a = 0; a < 3; a++) {
        if (f->has_center && !isfinite(f->c[a]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame's centre is not finite");
        if (!isfinite(f->bulk[a]))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame's bulk velocity is not finite");
        f->n[a] = axis[a] / len;
    }
    reference_direction(f->n, f->e1);
    cross(f->n, f->e1, f->e2);
    return SK_OK;
}

int dv_check(const sk_quantity *q, int particles, const dv_frame *f, sk_error *err)
{
    if (!(particles ? q->particle_columns : q->cell_columns))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s' needs %s, not %s", q->name,
                       particles ? "cells" : "particles", particles ? "particles" : "cells");
    if ((q->needs & SK_NEEDS_CENTER) && !f->has_center)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "quantity '%s' is taken about a centre, and none was given", q->name);
    return SK_OK;
}

/* Column `name` as float64 into *out: the column itself, or an owned copy. */
static int column_f64(dv_rows *rows, const char *name, const char *qname, const double **out,
                      sk_error *err)
{
    const sk_column *c = sk_table_find(rows->table, name);
    if (!c)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "quantity '%s' needs the column '%s', which the table lacks", qname, name);
    if (c->type == SK_FLOAT64) {
        *out = c->data;
        return SK_OK;
    }
    if (c->type == SK_CATEGORY || sk_dtype_size(c->type) == 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s': column '%s' is not numeric",
                       qname, name);
    if (rows->nowned == (int)(sizeof rows->owned / sizeof rows->owned[0]))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s': too many columns", qname);
    double *copy = sk_malloc((size_t)rows->n * sizeof *copy + 1);
    if (!copy)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory converting column '%s'", name);
    for (int64_t i = 0; i < rows->n; i++)
        copy[i] = sk_column_get_double(c, i);
    rows->owned[rows->nowned++] = copy;
    *out = copy;
    return SK_OK;
}

/* Where a column the frame and gas quantities read goes in rows: a
 * velocity or position component (*axis gets its axis; else -1), density
 * or pressure. */
static const double **slot_of(dv_rows *rows, const char *name, int *axis)
{
    for (int a = 0; a < 3; a++) {
        char vel[16], pos[16];
        snprintf(vel, sizeof vel, "velocity_%c", "xyz"[a]);
        snprintf(pos, sizeof pos, "position_%c", "xyz"[a]);
        *axis = a;
        if (!strcmp(name, vel))
            return &rows->vel[a];
        if (!strcmp(name, pos))
            return &rows->pos[a];
    }
    *axis = -1;
    return !strcmp(name, "density") ? &rows->rho : &rows->p;
}

/* Cells: level and the indices of the axes the table has. */
static int load_cells(dv_rows *rows, const sk_quantity *q, sk_error *err)
{
    static const char *const idx[3] = {"cx", "cy", "cz"};
    const sk_column *lev = sk_table_find(rows->table, "level");
    if (!lev || lev->type != SK_INT32)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s' needs the int32 column 'level'",
                       q->name);
    rows->level = lev->data;
    for (int a = 0; a < 3; a++) {
        const sk_column *c = sk_table_find(rows->table, idx[a]);
        if (c && c->type != SK_INT32)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "column '%s' is not int32", idx[a]);
        rows->cell[a] = c ? c->data : NULL;
    }
    if (!rows->cell[0])
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "quantity '%s' needs the column 'cx'", q->name);
    return SK_OK;
}

int dv_rows_load(dv_rows *rows, const sk_table *t, const sk_quantity *q, int particles,
                 sk_error *err)
{
    memset(rows, 0, sizeof *rows);
    rows->table = t;
    rows->n = sk_table_nrows(t);
    rows->particles = particles;
    rows->boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    int ndim = (int)sk_table_meta_double(t, "ndim", 3.0);
    if (!(rows->boxlen > 0) || !isfinite(rows->boxlen))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the table's boxlen is not a positive number");
    int rc = SK_OK;
    if (!particles && (q->needs & SK_NEEDS_CENTER))
        rc = load_cells(rows, q, err);
    char list[256];
    snprintf(list, sizeof list, "%s", particles ? q->particle_columns : q->cell_columns);
    for (char *save = NULL, *c = strtok_r(list, ",", &save); c && rc == SK_OK;
         c = strtok_r(NULL, ",", &save)) {
        int axis;
        const double **slot = slot_of(rows, c, &axis);
        if (axis >= ndim && !sk_table_find(t, c))
            continue; /* an axis a 1-D or 2-D output lacks: 0 */
        rc = column_f64(rows, c, q->name, slot, err);
    }
    return rc;
}

void dv_rows_free(dv_rows *rows)
{
    for (int i = 0; i < rows->nowned; i++)
        sk_free(rows->owned[i]);
    rows->nowned = 0;
}

int dv_unknown(const char *name, sk_error *err)
{
    char list[1024] = "";
    size_t len = 0;
    for (int i = 0; i < sk_quantity_count() && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                sk_quantity_at(i)->name);
    return sk_fail(err, SK_ERR_ARG, NULL, -1, "unknown quantity '%s' (there are: %s)", name, list);
}

int sk_derive(const sk_table *table, const char *name, const sk_frame *frame,
              const sk_derive_options *opt, double *out, sk_error *err)
{
    const sk_quantity *q = name ? sk_quantity_find(name) : NULL;
    if (!q)
        return dv_unknown(name ? name : "(null)", err);
    dv_frame f;
    int rc = dv_frame_set(&f, frame, err);
    if (rc != SK_OK)
        return rc;
    int particles = dv_table_kind(table, err);
    if (particles < 0)
        return SK_ERR_ARG;
    if ((rc = dv_check(q, particles, &f, err)) != SK_OK)
        return rc;
    const dv_entry *e = dv_entry_of(q);
    if (e->how == DV_RAMSES) /* it reads (and names) its columns itself */
        return sk_ramses_derive(table, q->name, out, err);
    dv_rows rows;
    rc = dv_rows_load(&rows, table, q, particles, err);
    if (rc == SK_OK && e->how == DV_FRAME)
        dv_frame_compute(&rows, &f, e->frame_fn, out);
    else if (rc == SK_OK)
        rc = dv_gas_compute(&rows, e, &f, opt, out, err);
    dv_rows_free(&rows);
    return rc;
}
