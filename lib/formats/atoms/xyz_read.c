/* Extended XYZ: a count line, a comment line of key=value pairs
 * (Lattice, Properties, pbc, anything else kept verbatim), then one line
 * per atom with the Properties' columns. Plain XYZ (no Properties) reads as
 * species and positions, extra columns ignored as ASE does. */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

#define MAX_PROPS 512
_Static_assert(MAX_PROPS <= AT_MAX_COLUMNS, "the Properties columns fit an at_columns");

typedef struct pair {
    const char *key, *key_end;
    const char *raw, *raw_end; /* the value as written (quotes kept); empty for a bare key */
    const char *val, *val_end; /* without quotes or braces */
} pair;

typedef struct comment_line {
    pair pairs[256];
    int n;
    int keyvalue; /* the line holds key=value pairs */
} comment_line;

static const char *closing(const char *p, const char *e, char open, char close)
{
    if (open == '"') {
        for (p++; p < e; p++) {
            if (*p == '\\' && p + 1 < e)
                p++;
            else if (*p == '"')
                return p;
        }
        return NULL;
    }
    int depth = 0;
    for (; p < e; p++) {
        if (*p == open)
            depth++;
        else if (*p == close && --depth == 0)
            return p;
    }
    return NULL;
}

/* One token: quoted, braced, bracketed or bare. Sets the value without
 * delimiters; returns the end of the raw token or NULL when unclosed. */
static const char *token(const char *p, const char *e, const char **vb, const char **ve,
                         int stop_at_equal)
{
    char open = *p, close = open == '{' ? '}' : open == '[' ? ']' : '"';
    if (open == '"' || open == '{' || open == '[') {
        const char *c = closing(p, e, open, close);
        if (!c)
            return NULL;
        *vb = p + 1;
        *ve = c;
        return c + 1;
    }
    const char *q = p;
    while (q < e && !is_blank(*q) && !(stop_at_equal && *q == '='))
        q++;
    *vb = p;
    *ve = q;
    return q;
}

/* Split the comment line into pairs; a line with no '=' is plain text. */
static int split_comment(const char *b, const char *e, comment_line *cl, const char **bad)
{
    cl->n = 0;
    cl->keyvalue = memchr(b, '=', (size_t)(e - b)) != NULL;
    if (!cl->keyvalue)
        return 0;
    const char *p = skip_blank(b, e);
    while (p < e) {
        if (cl->n == (int)(sizeof cl->pairs / sizeof cl->pairs[0])) {
            *bad = p;
            return -1;
        }
        pair *pr = &cl->pairs[cl->n];
        const char *after = token(p, e, &pr->key, &pr->key_end, 1);
        if (!after || pr->key == pr->key_end) {
            *bad = p;
            return -1;
        }
        const char *q = skip_blank(after, e);
        if (q < e && *q == '=') {
            q = skip_blank(q + 1, e);
            if (q >= e) {
                *bad = q;
                return -1;
            }
            pr->raw = q;
            pr->raw_end = token(q, e, &pr->val, &pr->val_end, 0);
            if (!pr->raw_end) {
                *bad = q;
                return -1;
            }
            p = pr->raw_end;
        } else {
            pr->raw = pr->raw_end = pr->val = pr->val_end = after;
            p = after;
        }
        cl->n++;
        p = skip_blank(p, e);
    }
    return 0;
}

static const pair *find_pair(const comment_line *cl, const char *key)
{
    size_t n = strlen(key);
    for (int i = cl->n - 1; i >= 0; i--) /* the last one wins */
        if ((size_t)(cl->pairs[i].key_end - cl->pairs[i].key) == n &&
            strncmp(cl->pairs[i].key, key, n) == 0)
            return &cl->pairs[i];
    return NULL;
}

typedef struct xyz_header {
    int64_t natoms;
    const char *comment, *comment_end;
    int64_t comment_line;
    comment_line cl;
    const char *body;
    int64_t body_line;
} xyz_header;

static int read_header(sk_atoms_file *f, cursor *c, xyz_header *h, sk_error *err)
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
    const char *bad;
    if (split_comment(h->comment, h->comment_end, &h->cl, &bad) != 0)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                            (int64_t)(bad - h->comment) + 1,
                            "malformed key=value pair in the comment line");
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
    xyz_header h;
    int rc = read_header(f, &c, &h, err);
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

static int parse_properties(sk_atoms_file *f, const xyz_header *h, const char *b, const char *e,
                            at_columns *pc, sk_error *err)
{
    memset(pc, 0, sizeof *pc);
    const char *p = b;
    int64_t col = (int64_t)(b - h->comment) + 1;
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

/* Lattice, pbc and the other pairs into metadata. */
static int comment_meta(sk_atoms_file *f, const xyz_header *h, sk_table *t, sk_error *err)
{
    const comment_line *cl = &h->cl;
    int rc = SK_OK;
    if (!cl->keyvalue) {
        char *text = sk_strndup(h->comment, (size_t)(h->comment_end - h->comment));
        rc = text ? sk_table_meta_set(t, "xyz.comment", text) : SK_ERR_NOMEM;
        sk_free(text);
        return rc;
    }
    const pair *lat = find_pair(cl, "Lattice"), *pbc = find_pair(cl, "pbc");
    sk_box box;
    memset(&box, 0, sizeof box);
    if (lat) {
        double v[9];
        char *s = sk_strndup(lat->val, (size_t)(lat->val_end - lat->val));
        int ok = s && at_parse_vec(s, v, 9) == 0;
        sk_free(s);
        if (!ok)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                                (int64_t)(lat->raw - h->comment) + 1,
                                "Lattice needs nine numbers");
        for (int i = 0; i < 9; i++)
            if (!isfinite(v[i])) /* nan, inf or 1e400 */
                return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                                    (int64_t)(lat->raw - h->comment) + 1,
                                    "Lattice number %d is not finite", i + 1);
        int nonzero = 0;
        for (int i = 0; i < 9; i++)
            nonzero |= v[i] != 0.0;
        if (!nonzero) /* no cell at all: write no Lattice rather than a zero one */
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                                (int64_t)(lat->raw - h->comment) + 1,
                                "Lattice is all zeros (no cell: leave the Lattice out)");
        memcpy(box.a, v, sizeof box.a);
        memcpy(box.b, v + 3, sizeof box.b);
        memcpy(box.c, v + 6, sizeof box.c);
        box.pbc[0] = box.pbc[1] = box.pbc[2] = 1; /* extxyz default with a Lattice */
    }
    const pair *origin = find_pair(cl, "Origin");
    if (origin) {
        char *s = sk_strndup(origin->val, (size_t)(origin->val_end - origin->val));
        int ok = s && at_parse_vec(s, box.origin, 3) == 0;
        sk_free(s);
        if (!ok)
            return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                                (int64_t)(origin->raw - h->comment) + 1,
                                "Origin needs three numbers");
    }
    if (pbc) {
        const char *p = pbc->val;
        for (int i = 0; i < 3; i++) {
            p = skip_blank(p, pbc->val_end);
            const char *q = token_end(p, pbc->val_end);
            uint8_t flag = 0;
            int ok = q > p && (*p == 'T' || *p == 'F' || *p == 't' || *p == 'f');
            flag = *p == 'T' || *p == 't';
            if (!ok)
                return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, h->comment_line,
                                    (int64_t)(p - h->comment) + 1, "pbc needs three of T or F");
            box.pbc[i] = flag;
            p = q;
        }
    }
    if (lat)
        rc = sk_atoms_set_box(t, &box);
    for (int i = 0; i < cl->n && rc == SK_OK; i++) {
        const pair *pr = &cl->pairs[i];
        if (pr == lat || pr == pbc || pr == origin ||
            ((size_t)(pr->key_end - pr->key) == 10 && strncmp(pr->key, "Properties", 10) == 0))
            continue;
        char key[300];
        snprintf(key, sizeof key, "extxyz.%.*s", (int)(pr->key_end - pr->key), pr->key);
        char *raw = sk_strndup(pr->raw, (size_t)(pr->raw_end - pr->raw));
        rc = raw ? sk_table_meta_set(t, key, raw) : SK_ERR_NOMEM;
        sk_free(raw);
    }
    if (rc == SK_ERR_NOMEM)
        return sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    return rc;
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
    int rc = h && pc ? read_header(f, &c, h, err)
                     : sk_fail(err, SK_ERR_NOMEM, f->src.path, -1, "out of memory");
    if (rc == SK_OK && with_atoms)
        rc = body_end(f, h, &span, err);
    const pair *props = rc == SK_OK && h->cl.keyvalue ? find_pair(&h->cl, "Properties") : NULL;
    if (rc == SK_OK) {
        static const char k_default[] = "species:S:1:pos:R:3";
        if (props)
            rc = parse_properties(f, h, props->val, props->val_end, pc, err);
        else
            rc = parse_properties(f, h, k_default, k_default + strlen(k_default), pc, err);
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
        rc = comment_meta(f, h, t, err);
    if (rc == SK_OK && with_atoms && h->natoms > 0) {
        body b = {.path = f->src.path, .begin = h->body, .end = span.end, .first_line = h->body_line,
                  .nrows = h->natoms, .fields = fields, .nfields = pc->n, .nrequired = pc->n,
                  .threads = f->threads, .allow_extra = props == NULL};
        rc = at_body_parse(&b, t, err);
    }
    sk_free(fields);
    if (pc)
        at_columns_free(pc);
    sk_free(pc);
    if (rc == SK_OK)
        *natoms = h->natoms;
    sk_free(h);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}
