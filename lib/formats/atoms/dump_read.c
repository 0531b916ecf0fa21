/* LAMMPS text dumps: ITEM: headers, then NUMBER OF ATOMS lines of the
 * columns named on the ITEM: ATOMS line. Frames follow each other. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

typedef struct dump_header {
    int64_t timestep, natoms;
    int has_timestep, has_natoms, has_box, general;
    char time[64], units[64];
    lmp_box box;
    double origin[3], a[3], b[3], c[3]; /* "abc origin" boxes */
    const char *names, *names_end;      /* after "ITEM: ATOMS" */
    const char *names_start;            /* the start of that line */
    int64_t names_line;
    const char *body;
    int64_t body_line;
} dump_header;

/* The single value line after an item. */
/* Give a table x y z columns from the ones named in `from`. */
static int rename3(sk_table *t, const char *const from[3], const char *const to[3], sk_error *err)
{
    for (int i = 0; i < 3; i++) {
        int rc = sk_table_rename(t, from[i], to[i], err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int value_line(sk_atoms_file *f, cursor *c, const char *item, const char **b,
                      const char **e, int64_t *line, sk_error *err)
{
    *line = c->line;
    if (!at_cursor_next(c, b, e))
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, *line, 1,
                            "the file ends after ITEM: %s", item);
    at_trim(b, e);
    return SK_OK;
}

static int int_line(sk_atoms_file *f, cursor *c, const char *item, int64_t *v, sk_error *err)
{
    const char *b, *e, *stop;
    int64_t line;
    int rc = value_line(f, c, item, &b, &e, &line, err);
    if (rc != SK_OK)
        return rc;
    const char *lb = b;
    if (!number_parse_int64(b, e, v, &stop) || stop != e)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, (int64_t)(b - lb) + 1,
                            "ITEM: %s needs an integer, found '%.*s'", item, (int)(e - b), b);
    return SK_OK;
}

static int parse_numbers(const char *b, const char *e, double *v, int n, const char **bad)
{
    const char *p = b;
    for (int i = 0; i < n; i++) {
        p = skip_blank(p, e);
        const char *stop;
        if (!number_parse_double(p, e, &v[i], &stop) || (stop < e && !is_blank(*stop))) {
            *bad = p;
            return -1;
        }
        if (!isfinite(v[i])) { /* nan, inf, 1e400 */
            *bad = p;
            return -2;
        }
        p = stop;
    }
    p = skip_blank(p, e);
    if (p != e) {
        *bad = p;
        return -1;
    }
    return 0;
}

static int box_item(sk_atoms_file *f, cursor *c, const char *flags, const char *flags_end,
                    int64_t item_line, dump_header *h, sk_error *err)
{
    const char *w[8][2];
    int nw = 0;
    for (const char *p = skip_blank(flags, flags_end); p < flags_end && nw < 8;
         p = skip_blank(p, flags_end)) {
        w[nw][0] = p;
        p = token_end(p, flags_end);
        w[nw++][1] = p;
    }
    int tilt = nw >= 3 && at_starts_with_word(w[0][0], w[0][1], "xy");
    int abc = nw >= 2 && at_starts_with_word(w[0][0], w[0][1], "abc");
    int first_flag = tilt ? 3 : abc ? 2 : 0;
    memset(&h->box, 0, sizeof h->box);
    for (int i = 0; i < 3; i++) {
        if (first_flag + i < nw && w[first_flag + i][1] - w[first_flag + i][0] == 2)
            memcpy(h->box.boundary[i], w[first_flag + i][0], 2);
        else if (nw == first_flag)
            memcpy(h->box.boundary[i], "pp", 2); /* old dumps give no flags */
        else
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, item_line, 1,
                                "ITEM: BOX BOUNDS needs three boundary flags such as 'pp pp pp'");
    }
    int per_line = tilt ? 3 : abc ? 4 : 2;
    double v[3][4];
    for (int i = 0; i < 3; i++) {
        const char *b, *e, *bad;
        int64_t line;
        int rc = value_line(f, c, "BOX BOUNDS", &b, &e, &line, err);
        if (rc != SK_OK)
            return rc;
        const char *lb = b;
        int bad_kind = parse_numbers(b, e, v[i], per_line, &bad);
        if (bad_kind == -2)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, (int64_t)(bad - lb) + 1,
                                "a box bound must be a finite number, not '%.*s'",
                                (int)(token_end(bad, e) - bad), bad);
        if (bad_kind != 0)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, (int64_t)(bad - lb) + 1,
                                "a box line needs %d numbers", per_line);
    }
    h->has_box = 1;
    h->general = abc;
    if (abc) {
        for (int i = 0; i < 3; i++) {
            h->a[i] = v[0][i];
            h->b[i] = v[1][i];
            h->c[i] = v[2][i];
            h->origin[i] = v[i][3];
        }
        return SK_OK;
    }
    double lo[3] = {v[0][0], v[1][0], v[2][0]}, hi[3] = {v[0][1], v[1][1], v[2][1]};
    if (tilt) {
        h->box.triclinic = 1;
        h->box.xy = v[0][2];
        h->box.xz = v[1][2];
        h->box.yz = v[2][2];
        at_lmp_box_from_bounds(&h->box, lo, hi);
    } else {
        memcpy(h->box.lo, lo, sizeof lo);
        memcpy(h->box.hi, hi, sizeof hi);
    }
    return SK_OK;
}

/* Read the ITEM: lines of the frame at c up to and including ITEM: ATOMS. */
static int read_header(sk_atoms_file *f, cursor *c, dump_header *h, sk_error *err)
{
    memset(h, 0, sizeof *h);
    const char *b, *e;
    int64_t line;
    int first = 1;
    for (;;) {
        line = c->line;
        if (!at_cursor_next(c, &b, &e))
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, 1,
                                first ? "empty frame: no ITEM: lines"
                                      : "the file ends before ITEM: ATOMS");
        at_trim(&b, &e);
        if (b == e && first)
            continue;
        if (e - b < 5 || memcmp(b, "ITEM:", 5) != 0)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, 1,
                                first ? "expected an ITEM: line, found '%.*s' (not a LAMMPS "
                                        "dump, or the atom count of the previous frame is wrong)"
                                      : "expected an ITEM: line, found '%.*s'",
                                (int)(e - b > 40 ? 40 : e - b), b);
        first = 0;
        const char *n = skip_blank(b + 5, e);
        int rc = SK_OK;
        if (at_starts_with_word(n, e, "TIMESTEP")) {
            rc = int_line(f, c, "TIMESTEP", &h->timestep, err);
            h->has_timestep = 1;
        } else if (at_starts_with_word(n, e, "NUMBER")) {
            rc = int_line(f, c, "NUMBER OF ATOMS", &h->natoms, err);
            if (rc == SK_OK && h->natoms < 0)
                rc = sk_fail_text(err, SK_ERR_FORMAT, f->src.path, c->line - 1, 1,
                                  "negative NUMBER OF ATOMS");
            h->has_natoms = 1;
        } else if (at_starts_with_word(n, e, "BOX")) {
            const char *flags = n + 3;
            flags = skip_blank(flags, e);
            if (at_starts_with_word(flags, e, "BOUNDS"))
                flags += 6;
            rc = box_item(f, c, flags, e, line, h, err);
        } else if (at_starts_with_word(n, e, "TIME") || at_starts_with_word(n, e, "UNITS")) {
            int is_time = at_starts_with_word(n, e, "TIME");
            const char *vb, *ve;
            int64_t vl;
            rc = value_line(f, c, is_time ? "TIME" : "UNITS", &vb, &ve, &vl, err);
            if (rc == SK_OK)
                snprintf(is_time ? h->time : h->units, 64, "%.*s", (int)(ve - vb), vb);
        } else if (at_starts_with_word(n, e, "ATOMS")) {
            h->names = n + 5;
            h->names_end = e;
            h->names_start = b;
            h->names_line = line;
            h->body = c->p;
            h->body_line = c->line;
            break;
        } else {
            rc = sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, (int64_t)(n - b) + 1,
                              "unknown item '%.*s' (not an atom dump?)", (int)(e - n), n);
        }
        if (rc != SK_OK)
            return rc;
    }
    if (!h->has_natoms)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->names_line, 1,
                            "missing ITEM: NUMBER OF ATOMS before ITEM: ATOMS");
    if (!h->has_box)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->names_line, 1,
                            "missing ITEM: BOX BOUNDS before ITEM: ATOMS");
    return SK_OK;
}

/* The end of the frame's atom lines, checking there are enough and that
 * the next frame (or the end) follows them. */
static int body_end(sk_atoms_file *f, const dump_header *h, frame_span *span, sk_error *err)
{
    int rc = at_frame_span(f, h->body, h->body_line, h->natoms, " (NUMBER OF ATOMS)", span, err);
    const char *b, *e;
    int64_t line;
    if (rc == SK_OK && at_line_after(f, span, &b, &e, &line)) {
        const char *p = skip_blank(b, e);
        if (e - p < 5 || memcmp(p, "ITEM:", 5) != 0)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, (int64_t)(p - b) + 1,
                                "more atom lines than the %lld of NUMBER OF ATOMS (expected "
                                "the next ITEM: or the end)",
                                (long long)h->natoms);
    }
    return rc;
}

int at_dump_skip(sk_atoms_file *f, int64_t pos, int64_t line, frame_span *span, sk_error *err)
{
    cursor c = at_cursor_at(f, pos, line);
    dump_header h;
    int rc = read_header(f, &c, &h, err);
    if (rc == SK_OK)
        rc = body_end(f, &h, span, err);
    if (rc == SK_OK && h.has_timestep)
        span->timestep = h.timestep;
    return rc;
}

/* ---- columns ---------------------------------------------------------- */

/* Kinds from the names, refined by the first atom line: a non-number in a
 * float column (or type labels in the type column) makes it a category. */
static int read_columns(sk_atoms_file *f, const dump_header *h, at_columns *dc, sk_error *err)
{
    memset(dc, 0, sizeof *dc);
    const char *p = h->names, *e = h->names_end;
    for (p = skip_blank(p, e); p < e; p = skip_blank(p, e)) {
        const char *t = token_end(p, e);
        if (dc->n == AT_MAX_COLUMNS)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->names_line, 1,
                                "more than %d columns", AT_MAX_COLUMNS);
        char *name = sk_strndup(p, (size_t)(t - p));
        if (!name)
            return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
        for (int i = 0; i < dc->n; i++)
            if (strcmp(dc->names[i], name) == 0) {
                sk_free(name);
                return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->names_line,
                                    (int64_t)(p - h->names_start) + 1, "column '%s' appears twice",
                                    dc->names[i]);
            }
        dc->names[dc->n] = name;
        dc->kind[dc->n] = strcmp(name, "id") == 0 ? FIELD_INT64
                          : at_lammps_int32_column(name) ? FIELD_INT32
                          : strcmp(name, "element") == 0 || strcmp(name, "typelabel") == 0
                              ? FIELD_CATEGORY
                              : FIELD_FLOAT64;
        dc->n++;
        p = t;
    }
    if (dc->n == 0)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->names_line, 1,
                            "ITEM: ATOMS names no columns");
    if (h->natoms == 0)
        return SK_OK;
    const char *end = f->src.data + f->src.size;
    const char *nl = memchr(h->body, '\n', (size_t)(end - h->body));
    const char *le = nl ? nl : end;
    p = h->body;
    for (int i = 0; i < dc->n; i++) {
        p = skip_blank(p, le);
        if (p >= le)
            break; /* the parse reports the short line */
        const char *t = token_end(p, le), *stop;
        double v;
        int64_t iv;
        /* a label starts with a letter; anything else is a (maybe bad) number */
        int label = (*p | 0x20) >= 'a' && (*p | 0x20) <= 'z';
        if (dc->kind[i] == FIELD_FLOAT64 && label &&
            (!number_parse_double(p, t, &v, &stop) || stop != t))
            dc->kind[i] = FIELD_CATEGORY;
        if (dc->kind[i] == FIELD_INT32 && strcmp(dc->names[i], "type") == 0 && label &&
            (!number_parse_int64(p, t, &iv, &stop) || stop != t))
            dc->kind[i] = FIELD_CATEGORY;
        p = t;
    }
    return SK_OK;
}

static int find(const at_columns *dc, const char *name)
{
    for (int i = 0; i < dc->n; i++)
        if (strcmp(dc->names[i], name) == 0)
            return i;
    return -1;
}

static int has3(const at_columns *dc, const char *const n[3])
{
    for (int i = 0; i < 3; i++) {
        int j = find(dc, n[i]);
        if (j < 0 || dc->kind[j] != FIELD_FLOAT64)
            return 0;
    }
    return 1;
}

static const char *const k_xyz[3] = {"x", "y", "z"};
static const char *const k_unwrapped[3] = {"xu", "yu", "zu"};
static const char *const k_scaled[3] = {"xs", "ys", "zs"};
static const char *const k_scaled_unwrapped[3] = {"xsu", "ysu", "zsu"};

/* Scaled to Cartesian in place, in LAMMPS' order of operations. */
static void unscale(sk_table *t, const dump_header *h, int threads)
{
    double *x = (double *)sk_table_find(t, "x")->data;
    double *y = (double *)sk_table_find(t, "y")->data;
    double *z = (double *)sk_table_find(t, "z")->data;
    int64_t n = sk_table_nrows(t);
    double o[3], a[3], b[3], c[3];
    if (h->general) {
        memcpy(o, h->origin, sizeof o);
        memcpy(a, h->a, sizeof a);
        memcpy(b, h->b, sizeof b);
        memcpy(c, h->c, sizeof c);
    } else {
        const lmp_box *bx = &h->box;
        double va[3] = {bx->hi[0] - bx->lo[0], 0, 0}, vb[3] = {bx->xy, bx->hi[1] - bx->lo[1], 0},
               vc[3] = {bx->xz, bx->yz, bx->hi[2] - bx->lo[2]};
        memcpy(o, bx->lo, sizeof o);
        memcpy(a, va, sizeof a);
        memcpy(b, vb, sizeof b);
        memcpy(c, vc, sizeof c);
    }
    int general = h->general;
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 100000)
    for (int64_t i = 0; i < n; i++) {
        double u = x[i], v = y[i], w = z[i];
        if (general) {
            x[i] = a[0] * u + b[0] * v + c[0] * w + o[0];
            y[i] = a[1] * u + b[1] * v + c[1] * w + o[1];
            z[i] = a[2] * u + b[2] * v + c[2] * w + o[2];
        } else {
            x[i] = a[0] * u + b[0] * v + c[0] * w + o[0];
            y[i] = b[1] * v + c[1] * w + o[1];
            z[i] = c[2] * w + o[2];
        }
    }
}

static int header_meta(sk_table *t, const dump_header *h)
{
    int rc = SK_OK;
    if (h->has_timestep)
        rc = sk_table_meta_setf(t, "timestep", "%lld", (long long)h->timestep);
    if (rc == SK_OK && h->time[0])
        rc = sk_table_meta_set(t, "time", h->time);
    if (rc == SK_OK && h->units[0])
        rc = sk_table_meta_set(t, "lammps.units", h->units);
    if (rc != SK_OK)
        return rc;
    if (!h->general)
        return at_lmp_box_store(t, &h->box);
    sk_box box;
    memcpy(box.origin, h->origin, sizeof box.origin);
    memcpy(box.a, h->a, sizeof box.a);
    memcpy(box.b, h->b, sizeof box.b);
    memcpy(box.c, h->c, sizeof box.c);
    for (int i = 0; i < 3; i++)
        box.pbc[i] = h->box.boundary[i][0] == 'p';
    rc = sk_atoms_set_box(t, &box);
    char boundary[16];
    snprintf(boundary, sizeof boundary, "%s %s %s", h->box.boundary[0], h->box.boundary[1],
             h->box.boundary[2]);
    return rc ? rc : sk_table_meta_set(t, "lammps.boundary", boundary);
}

/* Which triple holds the positions: 0 none, 1 x, 2 xu, 3 xs, 4 xsu. */
static int position_kind(const at_columns *dc)
{
    if (has3(dc, k_xyz))
        return 1;
    if (has3(dc, k_unwrapped))
        return 2;
    if (has3(dc, k_scaled))
        return 3;
    if (has3(dc, k_scaled_unwrapped))
        return 4;
    return 0;
}

static int build_table(sk_atoms_file *f, const dump_header *h, const at_columns *dc,
                       int with_atoms, sk_table **out, field *fields, sk_error *err)
{
    sk_table *t = sk_table_new(with_atoms ? h->natoms : 0);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    int rc = SK_OK;
    for (int i = 0; i < dc->n && rc == SK_OK; i++)
        rc = at_field_add(t, dc->names[i], dc->kind[i], &fields[i], err);
    if (rc == SK_OK)
        rc = header_meta(t, h);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}

int at_dump_read(sk_atoms_file *f, int64_t pos, int64_t line, int with_atoms, int64_t *natoms,
              sk_table **out, sk_error *err)
{
    *out = NULL;
    cursor c = at_cursor_at(f, pos, line);
    dump_header h;
    at_columns dc;
    frame_span span = {0};
    int rc = read_header(f, &c, &h, err);
    if (rc == SK_OK && with_atoms)
        rc = body_end(f, &h, &span, err);
    memset(&dc, 0, sizeof dc);
    if (rc == SK_OK)
        rc = read_columns(f, &h, &dc, err);
    field *fields = rc == SK_OK ? sk_calloc((size_t)dc.n, sizeof *fields) : NULL;
    if (rc == SK_OK && !fields)
        rc = sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    sk_table *t = NULL;
    if (rc == SK_OK)
        rc = build_table(f, &h, &dc, with_atoms, &t, fields, err);
    if (rc == SK_OK && with_atoms && h.natoms > 0) {
        body b = {.path = f->src.path, .begin = h.body, .end = span.end, .first_line = h.body_line,
                  .nrows = h.natoms, .fields = fields, .nfields = dc.n, .nrequired = dc.n,
                  .threads = f->threads};
        rc = at_body_parse(&b, t, err);
    }
    int pk = position_kind(&dc);
    if (rc == SK_OK && (pk == 2 || pk == 4))
        rc = sk_table_meta_set(t, "atoms.unwrapped", "1");
    if (rc == SK_OK && pk >= 2)
        rc = rename3(t, pk == 2 ? k_unwrapped : pk == 3 ? k_scaled : k_scaled_unwrapped, k_xyz,
                     err);
    if (rc == SK_OK && pk >= 3 && with_atoms)
        unscale(t, &h, f->threads);
    sk_free(fields);
    at_columns_free(&dc);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *natoms = h.natoms;
    *out = t;
    return SK_OK;
}
