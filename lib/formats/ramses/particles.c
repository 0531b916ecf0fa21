/* Particles: every field of the part_ files, typed as on disk.
 *
 * As for cells (rs_read_files): count the selected particles of each file,
 * allocate the table once, fill each file's rows at its offset. Particles ignore lmax.
 * Outputs without a family record (late 2017) get a derived int8 `family`:
 * 2 (star) where birth_time != 0, else 1 (dark matter). A family filter
 * (sk_selection.has_family) uses the record or the derived value alike. */
#include <stdio.h>
#include <string.h>

#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"
#include "formats/ramses/mapfile.h"
#include "snapkit/memory.h"

#define MAX_FIELDS 256

typedef struct part_plan {
    int nfields;
    const rs_var *fields;
    int has_box, ndim;
    double lo[3], hi[3], boxlen;
    const sk_shape *shape; /* NULL: none */
    int pos[3];         /* field index of position_x/y/z, -1 when absent */
    int birth;          /* field index of birth_time, -1 when absent */
    int family;         /* field index of an int8 family, -1 when absent (derived) */
    const sk_selection *select; /* the family filter, when has_family */
    int nsel;
    int sel[MAX_FIELDS];
    int derive_family;
} part_plan;

typedef struct part_out {
    void *col[MAX_FIELDS];
    int8_t *family;
    int64_t cap; /* rows the columns hold */
} part_out;

/* Records after the last field: a descriptor (or header line) that lists
 * fewer fields than the file holds would silently lose a column. */
static int extra_records(fr_cursor *c, int nfields, sk_error *err)
{
    size_t at = c->pos;
    int64_t first = c->record + 1, n = 0;
    const uint8_t *payload;
    size_t len;
    while (c->pos < c->size && fr_next(c, &payload, &len, NULL) == SK_OK)
        n++;
    if (c->pos != c->size)
        return sk_fail_record(err, SK_ERR_FORMAT, c->path, first, (int64_t)at,
                              "%zu bytes after the %d fields the descriptor lists",
                              c->size - at, nfields);
    return sk_fail_record(err, SK_ERR_FORMAT, c->path, first, (int64_t)at,
                          "%lld more records than the %d fields the descriptor lists (a column "
                          "the descriptor does not name)", (long long)n, nfields);
}

/* The header and field records of one file. */
typedef struct part_file {
    int64_t npart;
    const uint8_t *rec[MAX_FIELDS];
} part_file;

static int open_part_file(rs_read_ctx *ctx, const part_plan *p, const char *path,
                          const rs_mapped *m, part_file *pf, sk_error *err)
{
    fr_cursor c;
    fr_init(&c, path, m->data, m->size);
    int32_t v = 0;
    int width;
    int rc = fr_int32s(&c, &v, 1, err);
    if (rc == SK_OK && v != ctx->r->info.ncpu)
        rc = fr_fail_last(&c, 4, err, "ncpu is %d, expected %d", (int)v, ctx->r->info.ncpu);
    if (rc == SK_OK && (rc = fr_int32s(&c, &v, 1, err)) == SK_OK && v != ctx->r->info.ndim)
        rc = fr_fail_last(&c, 4, err, "ndim is %d, expected %d", (int)v, ctx->r->info.ndim);
    if (rc == SK_OK && (rc = fr_int_any(&c, &pf->npart, &width, err)) == SK_OK &&
        (pf->npart < 0 || width != ctx->r->part_id_width))
        rc = fr_fail_last(&c, (size_t)width, err, "bad particle count %lld (%d-byte)",
                          (long long)pf->npart, width);
    if (rc == SK_OK)
        rc = fr_skip(&c, 5, err); /* localseed, nstar_tot, mstar_tot, mstar_lost, nsink */
    for (int f = 0; f < p->nfields && rc == SK_OK; f++) {
        size_t size = (size_t)rs_type_size(p->fields[f].type);
        if ((uint64_t)pf->npart > (c.size - c.pos) / (size ? size : 1))
            rc = sk_fail_record(err, SK_ERR_FORMAT, path, c.record + 1, (int64_t)c.pos,
                                "%lld particles of field %s do not fit in the file (truncated?)",
                                (long long)pf->npart, p->fields[f].name);
        else
            rc = fr_expect(&c, size * (size_t)pf->npart, &pf->rec[f], err);
    }
    if (rc == SK_OK && c.pos != c.size && p->nfields == ctx->r->npart_vars)
        rc = extra_records(&c, p->nfields, err);
    return rc;
}

static int in_box(const part_plan *p, const part_file *pf, int64_t i)
{
    for (int d = 0; d < p->ndim; d++) {
        double x = rd_f64(pf->rec[p->pos[d]], (size_t)i) / p->boxlen;
        if (!(x >= p->lo[d] && x < p->hi[d]))
            return 0;
    }
    return 1;
}

static int in_shape(const part_plan *p, const part_file *pf, int64_t i)
{
    double x[3];
    for (int d = 0; d < 3; d++)
        x[d] = d < p->ndim ? rd_f64(pf->rec[p->pos[d]], (size_t)i) / p->boxlen : p->shape->center[d];
    return sk_shape_contains(p->shape, x[0], x[1], x[2]);
}

static int family_of(const part_plan *p, const part_file *pf, int64_t i)
{
    if (p->family >= 0)
        return (int8_t)pf->rec[p->family][i];
    return (p->birth >= 0 && rd_f64(pf->rec[p->birth], (size_t)i) != 0) ? 2 : 1;
}

static int selected(const part_plan *p, const part_file *pf, int64_t i)
{
    return (!p->has_box || in_box(p, pf, i)) && (!p->shape || in_shape(p, pf, i)) &&
           (!p->select || sk_selection_wants_family(p->select, family_of(p, pf, i)));
}

static void copy_field(void *dst, const uint8_t *src, size_t size, const int32_t *idx,
                       int64_t n)
{
    unsigned char *d = dst;
    if (!idx) {
        memcpy(d, src, size * (size_t)n);
        return;
    }
    for (int64_t j = 0; j < n; j++)
        memcpy(d + size * (size_t)j, src + size * (size_t)idx[j], size);
}

static void fill_file(const part_plan *p, const part_file *pf, const int32_t *idx, int64_t n,
                      const part_out *out, int64_t row)
{
    for (int s = 0; s < p->nsel; s++) {
        const rs_var *f = &p->fields[p->sel[s]];
        size_t size = (size_t)rs_type_size(f->type);
        copy_field((unsigned char *)out->col[s] + size * (size_t)row, pf->rec[p->sel[s]], size,
                   idx, n);
    }
    if (out->family)
        for (int64_t j = 0; j < n; j++)
            out->family[row + j] = (int8_t)family_of(p, pf, idx ? idx[j] : j);
}

/* Per-thread indices of the selected particles of one file. */
typedef struct part_scratch {
    int32_t *idx;
    int64_t cap;
} part_scratch;
_Static_assert(sizeof(part_scratch) <= RS_SCRATCH_BYTES, "a thread's scratch fits the driver's");

static void scratch_free(void *scratch)
{
    sk_free(((part_scratch *)scratch)->idx);
}

/* Count (out == NULL) or write the selected particles of one file
 * (rs_file_reader.walk_file). */
static int walk_file(rs_read_ctx *ctx, const void *plan, int icpu, const void *out,
                     int64_t *rows, void *scratch, int64_t *bytes, sk_error *err)
{
    const part_plan *p = plan;
    part_scratch *s = scratch;
    char path[4096];
    rs_mapped m;
    part_file pf;
    int rc = rs_walk_map(ctx, RS_PART, icpu, path, sizeof path, &m, err);
    if (rc == SK_OK)
        rc = open_part_file(ctx, p, path, &m, &pf, err);
    int64_t n = rc == SK_OK ? pf.npart : 0;
    int filter = p->has_box || p->shape || p->select;
    if (rc == SK_OK && filter) {
        if (pf.npart > s->cap) {
            sk_free(s->idx);
            s->idx = sk_malloc(sizeof *s->idx * (size_t)pf.npart);
            s->cap = s->idx ? pf.npart : 0;
            if (!s->idx)
                rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        }
        n = 0;
        for (int64_t i = 0; i < pf.npart && rc == SK_OK; i++)
            if (selected(p, &pf, i))
                s->idx[n++] = (int32_t)i;
    }
    const part_out *po = out;
    if (rc == SK_OK && out && n > po->cap - *rows)
        rc = sk_fail(err, SK_ERR_FORMAT, path, -1,
                     "%lld particles, more than the file's header said when it was sized",
                     (long long)n);
    if (rc == SK_OK && out)
        fill_file(p, &pf, filter ? s->idx : NULL, n, out, *rows);
    if (rc == SK_OK)
        *rows = out ? *rows + n : n;
    *bytes = (int64_t)m.size;
    rs_walk_unmap(ctx, icpu, rc == SK_OK && !out, &m);
    return rc;
}

/* The particles of file icpu (rs_file_reader.file_bound). */
static int file_bound(rs_read_ctx *ctx, const void *plan, int icpu, int64_t *rows,
                      sk_error *err)
{
    char path[4096];
    rs_mapped m;
    part_file pf;
    int rc = rs_map_cpu(ctx->r, RS_PART, icpu, path, sizeof path, &m, err);
    if (rc == SK_OK)
        rc = open_part_file(ctx, plan, path, &m, &pf, err);
    *rows = rc == SK_OK ? pf.npart : 0;
    rs_unmap(&m);
    return rc;
}

static int find_field(const sk_ramses *r, const char *name)
{
    for (int i = 0; i < r->npart_vars; i++)
        if (!strcmp(r->part_vars[i].name, name))
            return i;
    return -1;
}

static int make_plan(rs_read_ctx *ctx, part_plan *p, sk_error *err)
{
    const sk_ramses *r = ctx->r;
    const sk_selection *sel = ctx->sel;
    memset(p, 0, sizeof *p);
    p->nfields = r->npart_vars < MAX_FIELDS ? r->npart_vars : MAX_FIELDS;
    p->fields = r->part_vars;
    p->has_box = sel->has_box;
    p->shape = sel->shape.kind != SK_SHAPE_NONE ? &sel->shape : NULL;
    p->boxlen = r->info.boxlen;
    p->ndim = r->info.ndim;
    static const char *const pos[] = {"position_x", "position_y", "position_z"};
    for (int d = 0; d < 3; d++) {
        p->lo[d] = sel->lo[d];
        p->hi[d] = sel->hi[d];
        p->pos[d] = find_field(r, pos[d]);
        if ((p->has_box || p->shape) && d < p->ndim && (p->pos[d] < 0 || r->part_vars[p->pos[d]].type != 'd'))
            return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                           "particles have no float64 %s field to select a region by", pos[d]);
    }
    p->birth = find_field(r, "birth_time");
    if (p->birth >= 0 && r->part_vars[p->birth].type != 'd')
        p->birth = -1;
    p->family = r->part_family_derived ? -1 : find_field(r, "family");
    p->select = sel->has_family ? sel : NULL;
    if (p->select && !r->part_family_derived &&
        (p->family < 0 || r->part_vars[p->family].type != 'b'))
        return sk_fail(err, SK_ERR_FORMAT, r->dir, -1,
                       "particles have no int8 family field to select families by");
    for (int i = 0; i < sel->nvars; i++) {
        int derived = r->part_family_derived && !strcmp(sel->vars[i], "family");
        if (!derived && find_field(r, sel->vars[i]) < 0)
            return sk_fail(err, SK_ERR_ARG, r->dir, -1, "no particle field '%s'", sel->vars[i]);
    }
    for (int f = 0; f < p->nfields; f++)
        if (sk_selection_wants(sel, r->part_vars[f].name))
            p->sel[p->nsel++] = f;
    p->derive_family = r->part_family_derived && sk_selection_wants(sel, "family");
    for (int f = 0; f < p->nfields; f++)
        if (!rs_type_size(r->part_vars[f].type))
            return sk_fail(err, SK_ERR_FORMAT, r->dir, -1, "particle field %s has unknown type '%c'",
                           r->part_vars[f].name, r->part_vars[f].type);
    return SK_OK;
}

static int make_table(const void *plan, int64_t nrows, sk_table **out, void *columns,
                      sk_error *err)
{
    const part_plan *p = plan;
    part_out *cols = columns;
    memset(cols, 0, sizeof *cols);
    sk_table *t = sk_table_new(nrows);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int ok = 1;
    for (int s = 0; s < p->nsel && ok; s++) {
        const rs_var *f = &p->fields[p->sel[s]];
        ok = (cols->col[s] = sk_table_add(t, f->name, rs_dtype(f->type), err)) != NULL;
    }
    if (ok && p->derive_family)
        ok = (cols->family = sk_table_add(t, "family", SK_INT8, err)) != NULL;
    if (ok && p->derive_family)
        ok = sk_table_meta_set(t, "ramses.derived_columns", "family") == SK_OK;
    if (!ok) {
        sk_table_free(t);
        return err && err->code ? err->code : SK_ERR_NOMEM;
    }
    cols->cap = nrows;
    *out = t;
    return SK_OK;
}

int rs_read_particles(rs_read_ctx *ctx, sk_table **out, sk_error *err)
{
    part_plan p;
    int rc = make_plan(ctx, &p, err);
    if (rc != SK_OK)
        return rc;
    part_out cols;
    rs_file_reader fr = {.plan = &p, .walk_file = walk_file, .file_bound = file_bound,
                         .make_table = make_table, .scratch_free = scratch_free, .out = &cols,
                         .out_size = sizeof cols};
    return rs_read_files(ctx, &fr, out, err);
}
