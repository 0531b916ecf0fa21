/* Hydro and gravity cells: leaf cells of each file's own octs.
 *
 * Two passes over the selected CPU files (rs_read_files): the first walks
 * the amr files and counts the selected cells of each file, then the table
 * is allocated once, and the second pass walks amr and hydro/grav files
 * again and writes each file's cells at its prefix-sum offset. Files are mapped,
 * so nothing but the result (and a small per-thread scratch) is allocated.
 * Within a file, rows run by level, then cell position in the oct, then
 * oct; hydro and gravity reads of the same selection give the same rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/ramses/amr.h"
#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"
#include "formats/ramses/mapfile.h"
#include "snapkit/memory.h"

typedef struct cell_plan {
    rs_kind kind;
    int cap;          /* deepest level read: cells there count as leaves */
    int lowest;       /* no selected cell below this level */
    int with_refined;
    int has_box;
    double lo[3], hi[3];
    const sk_shape *shape; /* NULL: none */
    int ndim;         /* 1, 2 or 3: the index columns are cx (, cy (, cz)) */
    int shift;        /* levels here are the files' + shift (sk_ramses_info.level_shift) */
    int nvar;         /* fields per cell in the files */
    const rs_var *vars;
    int nsel;         /* fields wanted, as indices into vars */
    int sel[SK_MAX_VARS];
} cell_plan;

typedef struct cell_out {
    int32_t *level, *cx, *cy, *cz;
    uint8_t *refined;
    double *var[SK_MAX_VARS];
    int32_t *ids; /* the clump_id column of a clump_field read */
    int64_t cap;  /* rows the columns hold */
} cell_out;

/* Per-thread buffers sized to the largest own oct block seen. */
typedef struct scratch {
    int cap, cap_vars;
    uint8_t *mask;       /* selected cells of each oct, one bit per cell */
    int32_t *base;       /* 3 per oct: index of the oct's first cell per axis */
    int32_t *idx;        /* octs holding a selected cell at one position */
    const uint8_t **vars;
} scratch;
_Static_assert(sizeof(scratch) <= RS_SCRATCH_BYTES, "a thread's scratch fits the driver's");

static int scratch_fit(scratch *s, int n, int nptr)
{
    if (n > s->cap) {
        sk_free(s->mask);
        sk_free(s->base);
        sk_free(s->idx);
        s->mask = sk_malloc((size_t)n);
        s->base = sk_malloc(3 * sizeof *s->base * (size_t)n);
        s->idx = sk_malloc(sizeof *s->idx * (size_t)n);
        s->cap = (s->mask && s->base && s->idx) ? n : 0;
        if (!s->cap)
            return SK_ERR_NOMEM;
    }
    if (nptr > s->cap_vars) {
        sk_free(s->vars);
        s->vars = sk_malloc(sizeof *s->vars * (size_t)nptr);
        s->cap_vars = s->vars ? nptr : 0;
        if (!s->vars)
            return SK_ERR_NOMEM;
    }
    return SK_OK;
}

static void scratch_free(void *scratch_bytes)
{
    scratch *s = scratch_bytes;
    sk_free(s->mask);
    sk_free(s->base);
    sk_free(s->idx);
    sk_free(s->vars);
    memset(s, 0, sizeof *s);
}

static const uint8_t k_popcount[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0), B6(1), B6(1), B6(2)
#undef B2
#undef B4
#undef B6
};

/* Bit h of the result: is the centre of cell base + h (h = 0, 1) inside
 * [lo, hi) along one axis. */
static inline int axis_bits(const cell_plan *p, int d, int32_t base, double inv)
{
    if (!p->has_box)
        return 3;
    int bits = 0;
    for (int h = 0; h < 2; h++) {
        double c = ((double)(base + h) + 0.5) * inv;
        bits |= (c >= p->lo[d] && c < p->hi[d]) << h;
    }
    return bits;
}

/* The bits of mask m whose cells (oct of first cell base) have their
 * centre in the shape; axes beyond ndim are the shape's centre. */
static unsigned shape_bits(const cell_plan *p, const int32_t *base, double inv, unsigned m)
{
    for (int ind = 0; ind < 1 << p->ndim; ind++) {
        if (!((m >> ind) & 1))
            continue;
        double c[3];
        for (int d = 0; d < 3; d++)
            c[d] = d < p->ndim ? ((double)(base[d] + ((ind >> d) & 1)) + 0.5) * inv
                               : p->shape->center[d];
        if (!sk_shape_contains(p->shape, c[0], c[1], c[2]))
            m &= ~(1u << ind);
    }
    return m;
}

/* Selected cells of each own oct of one level into mask (and the octs'
 * cell indices into base); their number into *count. Axes beyond ndim
 * have index 0 and select their one cell (bit 0). */
static int oct_masks(const cell_plan *p, const rs_octs *o, const rs_amr *a, const char *path,
                     scratch *s, int64_t *count, sk_error *err)
{
    int l = o->level, ncell = 1 << p->ndim;
    double scale = ldexp(1.0, l), inv = ldexp(1.0, -(l + p->shift));
    int all_cells = p->with_refined || l + p->shift == p->cap;
    int64_t total = 0;
    for (int i = 0; i < o->n; i++) {
        int in[3] = {1, 1, 1};
        for (int d = 0; d < 3; d++)
            s->base[3 * i + d] = 0;
        for (int d = 0; d < p->ndim; d++) {
            /* Octs of all the box's coarse cells: indices run over the box. */
            double v = (rd_f64(o->xg[d], (size_t)i) - a->coarse_min[d]) * scale;
            /* A level-l oct centre is an odd multiple of 2^-l. */
            if (!(v >= 1.0 && v < scale * a->coarse[d]) || (double)(int64_t)v != v || !((int64_t)v & 1))
                return sk_fail(err, SK_ERR_FORMAT, path, -1,
                               "level %d, oct %d: centre %.17g is not on the level's grid", l,
                               i + 1, rd_f64(o->xg[d], (size_t)i));
            s->base[3 * i + d] = (int32_t)v - 1;
            in[d] = axis_bits(p, d, s->base[3 * i + d], inv);
        }
        unsigned m = 0;
        for (int ind = 0; ind < ncell; ind++) {
            if (!all_cells && rd_i32(o->son[ind], (size_t)i) != 0)
                continue;
            m |= (unsigned)((in[0] >> (ind & 1)) & (in[1] >> ((ind >> 1) & 1)) &
                            (in[2] >> (ind >> 2)) & 1)
                 << ind;
        }
        if (p->shape && m)
            m = shape_bits(p, &s->base[3 * i], inv, m);
        s->mask[i] = (uint8_t)m;
        total += k_popcount[m];
    }
    *count = total;
    return SK_OK;
}

/* Write the selected cells of one level at rows [*row, ...). */
static void fill_level(const cell_plan *p, const rs_octs *o, const scratch *s,
                       const uint8_t *const *vars, const cell_out *out, int64_t *row)
{
    int64_t r0 = *row;
    for (int ind = 0; ind < 1 << p->ndim; ind++) {
        int k = 0;
        for (int i = 0; i < o->n; i++)
            if ((s->mask[i] >> ind) & 1)
                s->idx[k++] = i;
        for (int j = 0; j < k; j++) {
            const int32_t *b = &s->base[3 * s->idx[j]];
            out->level[r0 + j] = o->level + p->shift;
            out->cx[r0 + j] = b[0] + (ind & 1);
        }
        for (int j = 0; j < k && out->cy; j++)
            out->cy[r0 + j] = s->base[3 * s->idx[j] + 1] + ((ind >> 1) & 1);
        for (int j = 0; j < k && out->cz; j++)
            out->cz[r0 + j] = s->base[3 * s->idx[j] + 2] + (ind >> 2);
        if (out->refined)
            for (int j = 0; j < k; j++)
                out->refined[r0 + j] = rd_i32(o->son[ind], (size_t)s->idx[j]) != 0;
        if (out->ids) {
            const uint8_t *rec = vars[ind];
            for (int j = 0; j < k; j++)
                out->ids[r0 + j] = rd_i32(rec, (size_t)s->idx[j]);
        }
        for (int v = 0; v < p->nsel && !out->ids; v++) {
            const uint8_t *rec = vars[ind * p->nvar + p->sel[v]];
            double *dst = out->var[v] + r0;
            for (int j = 0; j < k; j++)
                dst[j] = rd_f64(rec, (size_t)s->idx[j]);
        }
        r0 += k;
    }
    *row = r0;
}

static int at_end(const fr_cursor *c, sk_error *err)
{
    if (c->pos == c->size)
        return SK_OK;
    return sk_fail(err, SK_ERR_FORMAT, c->path, (int64_t)c->pos,
                   "%zu bytes after the last record (record %lld) of the file", c->size - c->pos,
                   (long long)c->record);
}

static rs_cellform cell_form(rs_kind kind)
{
    return kind == RS_GRAV ? RS_FORM_GRAV : kind == RS_CLUMP_FIELD ? RS_FORM_IDS : RS_FORM_HYDRO;
}

/* Count (out == NULL) or write the selected cells of one CPU's files,
 * given in memory (cells unused when counting). */
static int walk_memory(const cell_plan *p, const sk_ramses_info *info, int icpu,
                       const char *amr_path, const rs_mapped *am, const char *cell_path,
                       const rs_mapped *cm, const cell_out *out, int64_t *rows, scratch *s,
                       sk_error *err)
{
    rs_amr a;
    rs_cellfile cf;
    int rc = rs_amr_open(&a, amr_path, am->data, am->size, info, icpu, err);
    if (rc == SK_OK && out) {
        rc = rs_cellfile_open(&cf, cell_form(p->kind), cell_path, cm->data, cm->size, &a, err);
        if (rc == SK_OK && cf.nvar != p->nvar)
            rc = sk_fail(err, SK_ERR_FORMAT, cell_path, -1,
                         "%d fields per cell, but the first file has %d", cf.nvar, p->nvar);
        if (rc == SK_OK && scratch_fit(s, 0, a.ncell * p->nvar) != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, cell_path, -1, "out of memory");
    }
    int64_t row = *rows, count = 0;
    for (int l = 1; l <= p->cap - p->shift && rc == SK_OK; l++) {
        rs_octs o;
        rc = rs_amr_level(&a, l, &o, err);
        if (rc == SK_OK && out)
            rc = rs_cellfile_level(&cf, &a, l, s->vars, err);
        if (rc != SK_OK || o.n == 0 || l + p->shift < p->lowest)
            continue;
        if (scratch_fit(s, o.n, 0) != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, amr_path, -1, "out of memory");
        int64_t n = 0;
        if (rc == SK_OK)
            rc = oct_masks(p, &o, &a, amr_path, s, &n, err);
        count += n;
        if (rc == SK_OK && out && n > out->cap - row)
            rc = sk_fail(err, SK_ERR_FORMAT, amr_path, -1,
                         "level %d has more cells than the header's oct counts allow", l);
        if (rc == SK_OK && out)
            fill_level(p, &o, s, s->vars, out, &row);
    }
    /* A full walk ends exactly at the end of each file: bytes after the last
     * level are damage (or another file's data), not something to ignore. */
    if (rc == SK_OK && p->cap == info->levelmax)
        rc = at_end(&a.cur, err);
    if (rc == SK_OK && out && p->cap == info->levelmax)
        rc = at_end(&cf.cur, err);
    if (rc == SK_OK && out && row - *rows != count)
        rc = sk_fail(err, SK_ERR_FORMAT, amr_path, -1, "cell count changed between passes");
    *rows = out ? row : count;
    return rc;
}

/* Count (out == NULL) or write the selected cells of CPU file icpu
 * (rs_file_reader.walk_file). */
static int walk_file(rs_read_ctx *ctx, const void *plan, int icpu, const void *out,
                     int64_t *rows, void *s, int64_t *bytes, sk_error *err)
{
    const cell_plan *p = plan;
    char amr_path[4096], cell_path[4096];
    rs_cpu_path(ctx->r, p->kind, icpu, cell_path, sizeof cell_path);
    rs_mapped am = {0}, cm = {0};
    int rc = rs_walk_map(ctx, RS_AMR, icpu, amr_path, sizeof amr_path, &am, err);
    if (rc == SK_OK && out)
        rc = rs_map(cell_path, &cm, err);
    if (rc == SK_OK)
        rc = walk_memory(p, &ctx->r->info, icpu, amr_path, &am, cell_path, &cm, out, rows, s,
                         err);
    *bytes = (int64_t)am.size + (int64_t)cm.size;
    rs_walk_unmap(ctx, icpu, rc == SK_OK && !out, &am);
    rs_unmap(&cm);
    return rc;
}

/* The cells of file icpu's own octs down to the cap (rs_file_reader.file_bound). */
static int file_bound(rs_read_ctx *ctx, const void *plan, int icpu, int64_t *rows,
                      sk_error *err)
{
    const cell_plan *p = plan;
    char amr_path[4096];
    rs_mapped am = {0};
    rs_amr a;
    int rc = rs_map_cpu(ctx->r, RS_AMR, icpu, amr_path, sizeof amr_path, &am, err);
    if (rc == SK_OK)
        rc = rs_amr_open(&a, amr_path, am.data, am.size, &ctx->r->info, icpu, err);
    int64_t octs = 0;
    for (int l = 1; rc == SK_OK && l <= p->cap - p->shift && l <= a.nlevelmax; l++)
        octs += rs_amr_count(&a, l, icpu);
    /* Each own oct stores son, cpu_map and flag1 of its cells (int32):
     * counts beyond the file's bytes are damage, not a table to allocate. */
    if (rc == SK_OK && (uint64_t)octs > am.size / (12u * (unsigned)a.ncell))
        rc = sk_fail(err, SK_ERR_FORMAT, amr_path, -1,
                     "the header counts %lld own octs, more than the file's %zu bytes hold",
                     (long long)octs, am.size);
    *rows = rc == SK_OK ? octs * a.ncell : 0;
    rs_unmap(&am);
    return rc;
}

static void component_vars(const sk_ramses *r, rs_kind kind, const rs_var **vars, int *n)
{
    switch (kind) {
    case RS_GRAV: *vars = r->grav_vars, *n = r->ngrav; break;
    case RS_RT: *vars = r->rt_vars, *n = r->info.nvar_rt; break;
    case RS_CLUMP_FIELD: *vars = &r->clump_field_var, *n = 1; break;
    default: *vars = r->hydro_vars, *n = r->info.nvar_hydro; break;
    }
}

static const char *component_label(rs_kind kind)
{
    return kind == RS_GRAV ? "gravity" : kind == RS_RT ? "rt"
                                     : kind == RS_CLUMP_FIELD ? "clump_field" : "hydro";
}

static int make_plan(rs_read_ctx *ctx, rs_kind kind, cell_plan *p, sk_error *err)
{
    const sk_ramses *r = ctx->r;
    const sk_selection *sel = ctx->sel;
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->cap = (sel->lmax > 0 && sel->lmax < r->info.levelmax) ? sel->lmax : r->info.levelmax;
    /* The coarsest cells the files hold are at level_shift + 1. */
    p->shift = r->info.level_shift;
    if (p->cap < p->shift + 1)
        p->cap = p->shift + 1;
    p->with_refined = ctx->opt->with_refined;
    p->lowest = rs_lowest_level(r, sel, ctx->opt);
    p->has_box = sel->has_box;
    p->shape = sel->shape.kind != SK_SHAPE_NONE ? &sel->shape : NULL;
    p->ndim = r->info.ndim;
    for (int d = 0; d < 3; d++) {
        p->lo[d] = sel->lo[d];
        p->hi[d] = sel->hi[d];
    }
    component_vars(r, kind, &p->vars, &p->nvar);
    for (int i = 0; i < sel->nvars; i++) {
        const char *name = sel->vars[i];
        int found = !strcmp(name, "level") || !strcmp(name, "cx") ||
                    (!strcmp(name, "cy") && p->ndim >= 2) || (!strcmp(name, "cz") && p->ndim == 3) ||
                    (p->with_refined && !strcmp(name, "refined"));
        for (int v = 0; v < p->nvar && !found; v++)
            found = !strcmp(name, p->vars[v].name);
        if (!found) {
            char list[2048] = "";
            size_t n = 0;
            for (int v = 0; v < p->nvar && n < sizeof list; v++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", v ? ", " : "",
                                      p->vars[v].name);
            return sk_fail(err, SK_ERR_ARG, r->dir, -1, "no %s variable '%s' (there are: %s)",
                           component_label(kind), name, list);
        }
    }
    for (int v = 0; v < p->nvar && p->nsel < SK_MAX_VARS; v++)
        if (sk_selection_wants(sel, p->vars[v].name))
            p->sel[p->nsel++] = v;
    return SK_OK;
}

static int make_table(const void *plan, int64_t nrows, sk_table **out, void *columns,
                      sk_error *err)
{
    const cell_plan *p = plan;
    cell_out *cols = columns;
    memset(cols, 0, sizeof *cols);
    sk_table *t = sk_table_new(nrows);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int ok = (cols->level = sk_table_add(t, "level", SK_INT32, err)) &&
             (cols->cx = sk_table_add(t, "cx", SK_INT32, err));
    if (ok && p->ndim >= 2)
        ok = (cols->cy = sk_table_add(t, "cy", SK_INT32, err)) != NULL;
    if (ok && p->ndim == 3)
        ok = (cols->cz = sk_table_add(t, "cz", SK_INT32, err)) != NULL;
    if (ok && p->with_refined)
        ok = (cols->refined = sk_table_add(t, "refined", SK_UINT8, err)) != NULL;
    if (ok && p->kind == RS_CLUMP_FIELD && p->nsel)
        ok = (cols->ids = sk_table_add(t, p->vars[0].name, SK_INT32, err)) != NULL;
    for (int v = 0; v < p->nsel && ok && p->kind != RS_CLUMP_FIELD; v++)
        ok = (cols->var[v] = sk_table_add(t, p->vars[p->sel[v]].name, SK_FLOAT64, err)) != NULL;
    cols->cap = nrows;
    if (!ok) {
        sk_table_free(t);
        return err && err->code ? err->code : SK_ERR_NOMEM;
    }
    *out = t;
    return SK_OK;
}

int rs_read_cells(rs_read_ctx *ctx, rs_kind kind, sk_table **out, sk_error *err)
{
    cell_plan p;
    int rc = make_plan(ctx, kind, &p, err);
    if (rc != SK_OK)
        return rc;
    cell_out cols;
    rs_file_reader fr = {.plan = &p, .walk_file = walk_file, .file_bound = file_bound,
                         .make_table = make_table, .scratch_free = scratch_free, .out = &cols,
                         .out_size = sizeof cols};
    return rs_read_files(ctx, &fr, out, err);
}

int rs_cells_from_memory(const void *amr, size_t amr_size, const void *hydro, size_t hydro_size,
                         const sk_ramses_info *info, int icpu, int64_t *ncells, sk_error *err)
{
    cell_plan p;
    memset(&p, 0, sizeof p);
    p.kind = RS_HYDRO;
    p.ndim = info->ndim >= 1 && info->ndim <= 3 ? info->ndim : 3;
    p.cap = info->levelmax;
    p.lowest = info->levelmin;
    p.shift = info->level_shift;
    rs_mapped am = {amr, amr_size}, cm = {hydro, hydro_size};
    /* nvar from the hydro header, as sk_ramses_open takes it from file 1. */
    fr_cursor c;
    fr_init(&c, "hydro", hydro, hydro_size);
    int32_t v[2];
    int rc = fr_int32s(&c, v, 1, err);
    if (rc == SK_OK)
        rc = fr_int32s(&c, v + 1, 1, err);
    if (rc == SK_OK && (v[1] < 1 || v[1] > 64))
        rc = sk_fail(err, SK_ERR_FORMAT, "hydro", -1, "nvar out of range");
    if (rc != SK_OK)
        return rc;
    p.nvar = p.nsel = v[1];
    for (int i = 0; i < p.nvar; i++)
        p.sel[i] = i;
    scratch s = {0};
    int64_t count = 0;
    rc = walk_memory(&p, info, icpu, "amr", &am, "hydro", &cm, NULL, &count, &s, err);
    cell_out out;
    memset(&out, 0, sizeof out);
    size_t n = (size_t)(count > 0 ? count : 1);
    int32_t *ints = rc == SK_OK ? sk_malloc(4 * n * sizeof *ints) : NULL;
    double *vals = rc == SK_OK ? sk_malloc((size_t)p.nvar * n * sizeof *vals) : NULL;
    if (rc == SK_OK && (!ints || !vals))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK) {
        out.level = ints, out.cx = ints + n, out.cy = ints + 2 * n, out.cz = ints + 3 * n;
        out.cap = count;
        for (int i = 0; i < p.nvar; i++)
            out.var[i] = vals + (size_t)i * n;
        int64_t row = 0;
        rc = walk_memory(&p, info, icpu, "amr", &am, "hydro", &cm, &out, &row, &s, err);
    }
    sk_free(ints);
    sk_free(vals);
    scratch_free(&s);
    *ncells = count;
    return rc;
}
