/* Chunk pruning. A chunk's bounding box holds its rows' positions (closed
 * on both ends), so with a box [lo, hi) it is skipped when some axis has
 * bbox.hi < lo or bbox.lo >= hi, and taken whole when every axis has
 * lo <= bbox.lo and bbox.hi < hi. Level ranges do the same for lmax. */
#include "formats/snapkit/plan.h"

#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"
#include "formats/snapkit/order.h"
#include "formats/snapkit/reader.h"

static const char *const k_cell_keys[4] = {"level", "cx", "cy", "cz"};

void st_plan_free(st_plan *p)
{
    for (int64_t i = 0; p->chunks && i < p->nchunks; i++)
        sk_free(p->chunks[i].mask);
    sk_free(p->chunks);
    sk_free(p->out);
    p->chunks = NULL;
    p->out = NULL;
    p->nchunks = 0;
}

static int is_key_column(const st_table *t, const char *name)
{
    if (t->geometry == SK_STORE_CELLS) {
        for (int k = 0; k <= st_cell_dims(t->schema); k++)
            if (strcmp(name, k_cell_keys[k]) == 0)
                return 1;
    }
    return 0;
}

static int pick_columns(st_plan *p, const sk_store *s, const st_table *t, const sk_selection *sel,
                        sk_error *err)
{
    for (int v = 0; sel && v < sel->nvars; v++) {
        const char *name = sel->vars[v];
        if (sk_table_find(t->schema, name) && strcmp(name, "refined") != 0)
            continue;
        char list[1024] = "";
        size_t n = 0;
        for (int j = 0; j < t->ncols && n < sizeof list; j++) {
            const char *c = sk_table_col(t->schema, j)->name;
            if (!is_key_column(t, c) && strcmp(c, "refined") != 0)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", c);
        }
        return sk_fail(err, SK_ERR_ARG, s->path, -1, "table %s has no variable %s (it has: %s)",
                       t->name, name, list);
    }
    p->out = sk_malloc(sizeof *p->out * (size_t)(t->ncols + 1));
    if (!p->out)
        return sk_fail(err, SK_ERR_NOMEM, s->path, -1, "out of memory");
    for (int j = 0; j < t->ncols; j++) {
        const char *name = sk_table_col(t->schema, j)->name;
        int keep = strcmp(name, "refined") == 0 ? p->with_refined
                                                 : is_key_column(t, name) ||
                                                       !sel || sk_selection_wants(sel, name);
        if (keep)
            p->out[p->nout++] = j;
    }
    if (t->geometry == SK_STORE_CELLS)
        for (int k = 0; k <= p->dims; k++)
            p->key[p->nkey++] = sk_table_index(t->schema, k_cell_keys[k]);
    else if (t->geometry == SK_STORE_POINTS && (p->has_box || p->shape.kind)) {
        int pos[3];
        st_point_columns(t->schema, pos);
        for (int k = 0; k < 3; k++)
            p->key[p->nkey++] = pos[k];
    }
    return SK_OK;
}

/* -1 skip, 0 partial, 1 whole, for the level cap. */
static int level_test(const st_plan *p, const st_chunk *ch)
{
    if (p->t->geometry != SK_STORE_CELLS)
        return 1;
    if (ch->kind == ST_KIND_REFINED && !p->with_refined) {
        /* Refined cells stand in as leaves at exactly lmax. */
        if (!p->lmax || p->lmax < ch->level_min || p->lmax > ch->level_max)
            return -1;
        return ch->level_min == ch->level_max ? 1 : 0;
    }
    if (!p->lmax || ch->level_max <= p->lmax)
        return 1;
    return ch->level_min > p->lmax ? -1 : 0;
}

/* The chunk's box against the shape; axes beyond dims span the shape's
 * centre (rows there are tested at it). */
static int shape_test(const st_plan *p, const st_chunk *ch)
{
    if (!p->shape.kind || p->t->geometry == SK_STORE_ROWS)
        return 1;
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = a < p->dims ? ch->lo[a] : p->shape.center[a];
        hi[a] = a < p->dims ? ch->hi[a] : p->shape.center[a];
    }
    return sk_shape_box_test(&p->shape, lo, hi);
}

static int box_test(const st_plan *p, const st_chunk *ch)
{
    int shape = shape_test(p, ch);
    if (shape < 0)
        return -1;
    if (!p->has_box || p->t->geometry == SK_STORE_ROWS)
        return shape;
    int whole = shape;
    for (int a = 0; a < p->dims; a++) {
        if (!(ch->hi[a] >= p->lo[a]) || !(ch->lo[a] < p->hi[a]))
            return -1;
        if (!(ch->lo[a] >= p->lo[a] && ch->hi[a] < p->hi[a]))
            whole = 0;
    }
    return whole;
}

int st_plan_make(st_plan *p, const sk_store *s, const st_table *t, const sk_selection *sel,
                 int with_refined, sk_error *err)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->dims = t->geometry == SK_STORE_CELLS ? st_cell_dims(t->schema) : 3;
    p->boxlen = sk_table_meta_double(t->schema, "boxlen", 1.0);
    if (!(p->boxlen > 0))
        p->boxlen = 1.0;
    int refined_stored = (t->flags & ST_TABLE_HAS_REFINED) != 0;
    if (t->geometry == SK_STORE_CELLS && with_refined && !refined_stored)
        return sk_fail(err, SK_ERR_ARG, s->path, -1,
                       "table %s holds leaf cells only (converted without --with-coarse), so "
                       "refined cells cannot be read from it",
                       t->name);
    p->with_refined = t->geometry == SK_STORE_CELLS && with_refined;
    /* A file converted with a level cap holds the output capped there: its
     * refined cells at that level are the capped read's leaves. */
    int recorded = (int)sk_table_meta_double(t->schema, "selection.lmax", 0);
    p->lmax = recorded > 0 ? recorded : 0;
    if (sel && sel->lmax > 0 && (!p->lmax || sel->lmax < p->lmax))
        p->lmax = sel->lmax;
    if (sel) {
        p->has_box = sel->has_box;
        p->shape = sel->shape;
        for (int a = 0; a < 3; a++) {
            p->lo[a] = sel->lo[a];
            p->hi[a] = sel->hi[a];
        }
    }
    static const char axis[] = "xyz";
    for (int d = p->dims; p->has_box && !p->shape.kind && d < 3; d++)
        if (p->lo[d] > 0 || p->hi[d] < 1)
            return sk_fail(err, SK_ERR_ARG, s->path, -1,
                           "table %s holds %d-D cells: they have no %c axis, so a %c range "
                           "[%.17g, %.17g) (box units) selects nothing meaningful; leave it out",
                           t->name, p->dims, axis[d], axis[d], p->lo[d], p->hi[d]);
    if ((p->has_box || p->shape.kind) && t->geometry == SK_STORE_ROWS)
        return sk_fail(err, SK_ERR_ARG, s->path, -1,
                       "table %s has no positions in box units, so a box cannot select from it",
                       t->name);
    int rc = pick_columns(p, s, t, sel, err);
    if (rc != SK_OK)
        return rc;
    p->chunks = sk_calloc((size_t)t->nchunks + 1, sizeof *p->chunks);
    if (!p->chunks)
        return sk_fail(err, SK_ERR_NOMEM, s->path, -1, "out of memory");
    for (int64_t ci = 0; ci < t->nchunks; ci++) {
        int lv = level_test(p, &t->chunks[ci]);
        int bx = lv < 0 ? -1 : box_test(p, &t->chunks[ci]);
        if (lv < 0 || bx < 0)
            continue;
        st_planned *pc = &p->chunks[p->nchunks++];
        pc->ci = ci;
        pc->partial = !(lv && bx);
        pc->count = t->chunks[ci].nrows;
    }
    return SK_OK;
}

static int keep_level(const st_plan *p, const st_chunk *ch, int32_t level)
{
    if (ch->kind == ST_KIND_REFINED && !p->with_refined)
        return level == p->lmax;
    return !p->lmax || level <= p->lmax;
}

static int in_box(const st_plan *p, double x, double y, double z)
{
    int box = !p->has_box || (x >= p->lo[0] && x < p->hi[0] &&
                              (p->dims < 2 || (y >= p->lo[1] && y < p->hi[1])) &&
                              (p->dims < 3 || (z >= p->lo[2] && z < p->hi[2])));
    if (!box || !p->shape.kind)
        return box;
    return sk_shape_contains(&p->shape, x, p->dims < 2 ? p->shape.center[1] : y,
                             p->dims < 3 ? p->shape.center[2] : z);
}

static double float_at(sk_dtype type, const void *v, int64_t i)
{
    return type == SK_FLOAT32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

int64_t st_plan_mask(const st_plan *p, const st_chunk *ch, void *const *keys, uint8_t *mask)
{
    int64_t n = ch->nrows, kept = 0;
    if (p->t->geometry == SK_STORE_CELLS) {
        const int32_t *lv = keys[0], *cx = keys[1];
        const int32_t *cy = p->dims >= 2 ? keys[2] : NULL, *cz = p->dims == 3 ? keys[3] : NULL;
        for (int64_t i = 0; i < n; i++) {
            /* (levels outside 0..31 only come from damaged files read
             * without checksums: no cell) */
            int keep = lv[i] >= 0 && lv[i] <= 31 && keep_level(p, ch, lv[i]);
            if (keep && (p->has_box || p->shape.kind))
                keep = in_box(p, st_cell_centre(cx[i], lv[i]), st_cell_centre_of(cy, i, lv[i]),
                              st_cell_centre_of(cz, i, lv[i]));
            mask[i] = (uint8_t)keep;
            kept += keep;
        }
        return kept;
    }
    if (p->t->geometry == SK_STORE_POINTS && (p->has_box || p->shape.kind)) {
        sk_dtype type[3];
        for (int a = 0; a < 3; a++)
            type[a] = sk_table_col(p->t->schema, p->key[a])->type;
        for (int64_t i = 0; i < n; i++) {
            int keep = in_box(p, float_at(type[0], keys[0], i) / p->boxlen,
                              float_at(type[1], keys[1], i) / p->boxlen,
                              float_at(type[2], keys[2], i) / p->boxlen);
            mask[i] = (uint8_t)keep;
            kept += keep;
        }
        return kept;
    }
    memset(mask, 1, (size_t)n);
    return n;
}

/* The selection recorded with the stored table. */
static int recorded(const st_table *t, sk_selection *rec, sk_error *err)
{
    sk_selection_init(rec);
    rec->lmax = (int)sk_table_meta_double(t->schema, "selection.lmax", 0);
    static const char *const keys[3][2] = {
        {"selection.xmin", "selection.xmax"},
        {"selection.ymin", "selection.ymax"},
        {"selection.zmin", "selection.zmax"},
    };
    for (int a = 0; a < 3; a++) {
        if (!sk_table_meta_get(t->schema, keys[a][0]))
            continue;
        rec->has_box = 1;
        rec->lo[a] = sk_table_meta_double(t->schema, keys[a][0], 0.0);
        rec->hi[a] = sk_table_meta_double(t->schema, keys[a][1], 1.0);
    }
    const char *vars = sk_table_meta_get(t->schema, "selection.vars");
    return vars ? sk_selection_set_vars(rec, vars, err) : SK_OK;
}

int st_plan_effective(const st_plan *p, const st_table *t, const sk_selection *sel,
                      sk_selection *out, sk_error *err)
{
    int rc = recorded(t, out, err);
    if (rc != SK_OK)
        return rc;
    if (p->lmax && (!out->lmax || p->lmax < out->lmax))
        out->lmax = p->lmax;
    if (p->shape.kind)
        out->shape = p->shape;
    if (p->has_box) {
        for (int a = 0; a < 3; a++) {
            if (!out->has_box || p->lo[a] > out->lo[a])
                out->lo[a] = p->lo[a];
            if (!out->has_box || p->hi[a] < out->hi[a])
                out->hi[a] = p->hi[a];
        }
        out->has_box = 1;
    }
    if (sel && sel->nvars) {
        sk_selection copy;
        rc = sk_selection_copy(&copy, sel, err);
        if (rc != SK_OK)
            return rc;
        for (int i = 0; i < out->nvars; i++)
            sk_free(out->vars[i]);
        out->nvars = copy.nvars;
        memcpy(out->vars, copy.vars, sizeof copy.vars);
    }
    return SK_OK;
}
