/* Extended XYZ: a count line, a comment line of key=value pairs
 * (Lattice, Properties, pbc, anything else kept verbatim), then one line
 * per atom with the Properties' columns. Plain XYZ (no Properties) reads as
 * species and positions, extra columns ignored as ASE does. */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "formats/atoms/xyz_kv.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

#define MAX_PROPS 512
_Static_assert(MAX_PROPS <= AT_MAX_COLUMNS, "the Properties columns fit an at_columns");

/* The last pair named key (the last one wins), or NULL. */
static const kv_pair *find_pair(const kv_line *kv, const char *key)
{
    for (int i = kv->n - 1; i >= 0; i--)
        if (strcmp(kv->pairs[i].key, key) == 0)
            return &kv->pairs[i];
    return NULL;
}

typedef struct xyz_header {
    int64_t natoms;
    const char *comment, *comment_end;
    int64_t comment_line;
    int keyvalue; /* the comment line holds key=value pairs (else plain text) */
    kv_line kv;
    const char *body;
    int64_t body_line;
} xyz_header;

/* The frame's count and comment line; its pairs into h->kv when
 * keep_pairs, else only checked. */
static int read_header(sk_atoms_file *f, cursor *c, xyz_header *h, int keep_pairs, sk_error *err)
{
    const char *b, *e, *stop;
    int64_t line;
    if (!at_cursor_next_nonblank(c, &b, &e, 0, &line))
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, c->line, 1, "no frame here");
    at_trim(&b, &e);
    const char *lb = b;
    if (!number_parse_int64(b, e, &h->natoms, &stop) || !at_only_space(stop, e) || h->natoms < 0)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, (int64_t)(b - lb) + 1,
                            "expected the atom count of an XYZ frame, found '%.*s' (not XYZ, or "
                            "the previous frame's count is wrong)",
                            (int)(e - b > 40 ? 40 : e - b), b);
    h->comment_line = c->line;
    if (!at_cursor_next(c, &h->comment, &h->comment_end))
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, c->line, 1,
                            "the file ends before the comment line");
    h->keyvalue = memchr(h->comment, '=', (size_t)(h->comment_end - h->comment)) != NULL;
    kv_fail fail;
    int rc = h->keyvalue ? at_kv_split(h->comment, h->comment_end, keep_pairs ? &h->kv : NULL, &fail) : SK_OK;
    if (rc == SK_ERR_NOMEM)
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    if (rc != SK_OK)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                            (int64_t)(fail.at - h->comment) + 1, "comment line: %s", fail.what);
    h->body = c->p;
    h->body_line = c->line;
    return SK_OK;
}

static int body_end(sk_atoms_file *f, const xyz_header *h, frame_span *span, sk_error *err)
{
    int rc = at_frame_span(f, h->body, h->body_line, h->natoms, "", span, err);
    const char *b, *e, *stop;
    int64_t line, count;
    if (rc == SK_OK && at_line_after(f, span, &b, &e, &line)) {
        at_trim(&b, &e);
        if (!number_parse_int64(b, e, &count, &stop) || stop != e)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, line, 1,
                                "more atom lines than the count %lld (expected the next "
                                "frame's count or the end)",
                                (long long)h->natoms);
    }
    return rc;
}

int at_xyz_skip(sk_atoms_file *f, int64_t pos, int64_t line, frame_span *span, sk_error *err)
{
    cursor c = at_cursor_at(f, pos, line);
    xyz_header h = {0};
    int rc = read_header(f, &c, &h, 0, err);
    return rc == SK_OK ? body_end(f, &h, span, err) : rc;
}

/* ---- Properties ------------------------------------------------------- */

static int add_column(at_columns *pc, const char *name, field_kind kind)
{
    for (int i = 0; i < pc->n; i++)
        if (strcmp(pc->names[i], name) == 0)
            return -2;
    if (pc->n == MAX_PROPS)
        return -3;
    if (!(pc->names[pc->n] = sk_strdup(name)))
        return -1;
    pc->kind[pc->n++] = kind;
    return 0;
}

/* Column names for property `name` of `count` components. */
static void component_name(const char *name, int count, int i, char *out, size_t n)
{
    static const char *const xyz[3] = {"x", "y", "z"};
    if (strcmp(name, "pos") == 0 && count == 3)
        snprintf(out, n, "%s", xyz[i]);
    else if ((strcmp(name, "velo") == 0 || strcmp(name, "vel") == 0 ||
              strcmp(name, "velocities") == 0) && count == 3)
        snprintf(out, n, "v%s", xyz[i]);
    else if ((strcmp(name, "forces") == 0 || strcmp(name, "force") == 0) && count == 3)
        snprintf(out, n, "f%s", xyz[i]);
    else if (strcmp(name, "species") == 0 && count == 1)
        snprintf(out, n, "element");
    else if (count == 1)
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "%s_%d", name, i);
}

/* Properties text [b, e) (col: its column in the comment line). */
static int parse_properties(sk_atoms_file *f, const xyz_header *h, const char *b, const char *e,
                            int64_t col, at_columns *pc, sk_error *err)
{
    memset(pc, 0, sizeof *pc);
    const char *p = b;
    while (p < e) {
        const char *parts[3][2];
        for (int k = 0; k < 3; k++) {
            const char *c = memchr(p, ':', (size_t)(e - p));
            parts[k][0] = p;
            parts[k][1] = c ? c : e;
            if (!c && k < 2)
                return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line, col,
                                    "Properties must be name:type:count triples");
            p = c ? c + 1 : e;
        }
        char name[128], type = *parts[1][0];
        int64_t count = 0;
        const char *stop;
        snprintf(name, sizeof name, "%.*s", (int)(parts[0][1] - parts[0][0]), parts[0][0]);
        if (parts[1][1] - parts[1][0] != 1 || !strchr("SRIL", type) || !name[0] ||
            !number_parse_int64(parts[2][0], parts[2][1], &count, &stop) || stop != parts[2][1] ||
            count < 1 || count > MAX_PROPS)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line, col,
                                "malformed Properties entry '%.*s'",
                                (int)(parts[2][1] - parts[0][0]), parts[0][0]);
        for (int i = 0; i < (int)count; i++) {
            char cname[160];
            component_name(name, (int)count, i, cname, sizeof cname);
            field_kind kind = type == 'S'   ? FIELD_CATEGORY
                              : type == 'R' ? FIELD_FLOAT64
                              : type == 'L' ? FIELD_BOOL
                              : at_lammps_int32_column(cname) ? FIELD_INT32
                                                       : FIELD_INT64;
            int rc = add_column(pc, cname, kind);
            if (rc == -1)
                return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
            if (rc < 0)
                return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line, col,
                                    rc == -2 ? "Properties name column '%s' twice"
                                             : "too many Properties columns at '%s'",
                                    cname);
        }
    }
    return SK_OK;
}

/* The Properties value: one string. */
static int properties_text(sk_atoms_file *f, const xyz_header *h, const kv_pair *props,
                           char **text, sk_error *err)
{
    sk_xyz_value v;
    kv_fail fail;
    int rc = at_kv_value(props->raw, props->raw_end, &v, &fail);
    if (rc == SK_ERR_NOMEM)
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    if (rc != SK_OK || v.type != SK_XYZ_STRING || v.ndim != 0) {
        sk_xyz_value_free(&v);
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                            (int64_t)((rc == SK_OK ? props->raw : fail.at) - h->comment) + 1,
                            "Properties must be one name:type:count string");
    }
    *text = ((char **)v.data)[0];
    sk_free(v.data);
    return SK_OK;
}

static int plain_comment(const xyz_header *h, sk_table *t, sk_error *err)
{
    char *text = sk_strndup(h->comment, (size_t)(h->comment_end - h->comment));
    int rc = text ? sk_table_meta_set(t, "xyz.comment", text) : SK_ERR_NOMEM;
    sk_free(text);
    return rc == SK_OK ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
}

int at_xyz_read(sk_atoms_file *f, int64_t pos, int64_t line, int with_atoms, int64_t *natoms,
             sk_table **out, sk_error *err)
{
    *out = NULL;
    cursor c = at_cursor_at(f, pos, line);
    xyz_header *h = sk_calloc(1, sizeof *h);
    at_columns *pc = sk_calloc(1, sizeof *pc);
    field *fields = NULL;
    sk_table *t = NULL;
    frame_span span = {0};
    int rc = h && pc ? read_header(f, &c, h, 1, err)
                     : sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    if (rc == SK_OK && with_atoms)
        rc = body_end(f, h, &span, err);
    const kv_pair *props = rc == SK_OK && h->keyvalue ? find_pair(&h->kv, "Properties") : NULL;
    if (rc == SK_OK) {
        static const char k_default[] = "species:S:1:pos:R:3";
        char *text = NULL;
        if (props)
            rc = properties_text(f, h, props, &text, err);
        if (rc == SK_OK && props)
            rc = parse_properties(f, h, text, text + strlen(text),
                                  (int64_t)(props->raw - h->comment) + 1, pc, err);
        else if (rc == SK_OK)
            rc = parse_properties(f, h, k_default, k_default + strlen(k_default), 1, pc, err);
        sk_free(text);
    }
    if (rc == SK_OK) {
        t = sk_table_new(with_atoms ? h->natoms : 0);
        fields = sk_calloc((size_t)pc->n, sizeof *fields);
        if (!t || !fields)
            rc = sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    }
    for (int i = 0; rc == SK_OK && i < pc->n; i++)
        rc = at_field_add(t, pc->names[i], pc->kind[i], &fields[i], err);
    if (rc == SK_OK)
        rc = h->keyvalue ? at_xyz_comment_meta(f->src.path, h->comment_line, h->comment, &h->kv,
                                               t, err)
                         : plain_comment(h, t, err);
    if (rc == SK_OK && with_atoms && h->natoms > 0) {
        body b = {.path = f->src.path, .begin = h->body, .end = span.end, .first_line = h->body_line,
                  .nrows = h->natoms, .fields = fields, .nfields = pc->n, .nrequired = pc->n,
                  .threads = f->threads, .allow_extra = props == NULL, .fortran = 1};
        rc = at_body_parse(&b, t, err);
    }
    sk_free(fields);
    if (pc)
        at_columns_free(pc);
    sk_free(pc);
    if (rc == SK_OK)
        *natoms = h->natoms;
    if (h)
        at_kv_free(&h->kv);
    sk_free(h);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}
