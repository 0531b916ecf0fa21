/* Parsing atom lines in parallel: the lines are cut into pieces at line
 * ends, each piece's lines are counted (so each knows its first row), then
 * every piece is parsed by some thread straight into the preallocated
 * columns. Nothing is allocated per line; category labels point into the
 * file until the end, when each piece's labels are merged in piece order. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

#define PIECE_BYTES (256 * 1024)
#define MAX_PIECES 65536

typedef struct label_set {
    const char **text;
    uint32_t *len;
    int32_t n, cap;
    int32_t *slots; /* open addressing: label index or -1 */
    int32_t nslots;
    int32_t last;   /* the label found last: neighbouring atoms repeat it */
} label_set;

typedef struct piece {
    const char *begin, *end;
    int64_t row0, nrows;
    int failed;
    int64_t line, column;
    char message[200];
    label_set *labels; /* one set per field (only category fields use theirs) */
} piece;

static uint32_t hash_bytes(const char *s, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int label_grow(label_set *ls)
{
    int32_t cap = ls->cap ? 2 * ls->cap : 8;
    const char **t = sk_realloc(ls->text, (size_t)cap * sizeof *t);
    if (!t)
        return 0;
    ls->text = t;
    uint32_t *l = sk_realloc(ls->len, (size_t)cap * sizeof *l);
    if (!l)
        return 0;
    ls->len = l;
    ls->cap = cap;
    int32_t nslots = 2 * cap;
    int32_t *slots = sk_malloc((size_t)nslots * sizeof *slots);
    if (!slots)
        return 0;
    memset(slots, 0xff, (size_t)nslots * sizeof *slots);
    for (int32_t i = 0; i < ls->n; i++) {
        uint32_t h = hash_bytes(ls->text[i], ls->len[i]) & (uint32_t)(nslots - 1);
        while (slots[h] >= 0)
            h = (h + 1) & (uint32_t)(nslots - 1);
        slots[h] = i;
    }
    sk_free(ls->slots);
    ls->slots = slots;
    ls->nslots = nslots;
    return 1;
}

/* The label's code in the set, added when new; -1 when out of memory. */
static int32_t label_code(label_set *ls, const char *s, uint32_t n)
{
    if (ls->n > 0 && ls->len[ls->last] == n && memcmp(ls->text[ls->last], s, n) == 0)
        return ls->last;
    if (ls->n == ls->cap && !label_grow(ls))
        return -1;
    uint32_t mask = (uint32_t)ls->nslots - 1;
    uint32_t h = hash_bytes(s, n) & mask;
    for (; ls->slots[h] >= 0; h = (h + 1) & mask) {
        int32_t i = ls->slots[h];
        if (ls->len[i] == n && memcmp(ls->text[i], s, n) == 0)
            return ls->last = i;
    }
    ls->slots[h] = ls->n;
    ls->text[ls->n] = s;
    ls->len[ls->n] = n;
    return ls->last = ls->n++;
}

static void label_free(label_set *ls)
{
    sk_free(ls->text);
    sk_free(ls->len);
    sk_free(ls->slots);
}

static void piece_fail(piece *pc, int64_t line, const char *line_start, const char *at,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void piece_fail(piece *pc, int64_t line, const char *line_start, const char *at,
                       const char *fmt, ...)
{
    pc->failed = 1;
    pc->line = line;
    pc->column = (int64_t)(at - line_start) + 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pc->message, sizeof pc->message, fmt, ap);
    va_end(ap);
}

static inline int is_delim(char c, char comment)
{
    return is_blank(c) || c == '\n' || (comment && c == comment);
}

static void zero_field(const field *f, int64_t row)
{
    switch (f->kind) {
    case FIELD_INT32: ((int32_t *)f->data)[row] = 0; break;
    case FIELD_INT64: ((int64_t *)f->data)[row] = 0; break;
    case FIELD_FLOAT64: ((double *)f->data)[row] = 0.0; break;
    case FIELD_BOOL: ((uint8_t *)f->data)[row] = 0; break;
    default: break;
    }
}

static int parse_bool(const char *p, const char *e, uint8_t *out)
{
    static const char *const yes[] = {"T", "True", "TRUE", "true"};
    static const char *const no[] = {"F", "False", "FALSE", "false"};
    size_t n = (size_t)(e - p);
    for (int i = 0; i < 4; i++) {
        if (strlen(yes[i]) == n && memcmp(p, yes[i], n) == 0)
            return *out = 1, 1;
        if (strlen(no[i]) == n && memcmp(p, no[i], n) == 0)
            return *out = 0, 1;
    }
    return 0;
}

/* A number with a Fortran exponent (1.0D+00) at p: read with the d as e. */
static int parse_fortran(const char *p, const char *end, double *v, const char **stop)
{
    char buf[64];
    const char *e = token_end(p, end);
    size_t n = (size_t)(e - p);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, p, n);
    char *d = memchr(buf, 'd', n);
    if (!d)
        d = memchr(buf, 'D', n);
    *d = 'e';
    const char *s;
    if (!number_parse_double(buf, buf + n, v, &s))
        return 0;
    *stop = p + (s - buf);
    return 1;
}

/* The token at p for messages. */
static const char *token_text(const char *p, const char *end, char *buf, size_t n)
{
    const char *e = token_end(p, end);
    size_t len = (size_t)(e - p) < n - 1 ? (size_t)(e - p) : n - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* One field at p (not blank); returns the end or NULL with pc filled. */
static const char *parse_field(const body *b, piece *pc, int fi, int64_t row, int64_t line,
                               const char *ls, const char *p, const char *end)
{
    const field *f = &b->fields[fi];
    const char *stop = p;
    char tok[48];
    switch (f->kind) {
    case FIELD_FLOAT64: {
        double v;
        int ok = number_parse_double(p, end, &v, &stop);
        if (ok && b->fortran && stop < end && (*stop == 'd' || *stop == 'D'))
            ok = parse_fortran(p, end, &v, &stop);
        if (!ok || (stop < end && !is_delim(*stop, b->comment))) {
            piece_fail(pc, line, ls, p, "malformed number '%s' for %s",
                       token_text(p, end, tok, sizeof tok), f->name);
            return NULL;
        }
        if (number_range_lost(p, stop, v) > 0) { /* underflow rounds to zero, as strtod */
            piece_fail(pc, line, ls, p, "number '%s' for %s is too large for a double",
                       token_text(p, end, tok, sizeof tok), f->name);
            return NULL;
        }
        ((double *)f->data)[row] = v;
        return stop;
    }
    case FIELD_INT32:
    case FIELD_INT64: {
        int64_t v;
        if (!number_parse_int64(p, end, &v, &stop) || (stop < end && !is_delim(*stop, b->comment)) ||
            (f->kind == FIELD_INT32 && (v < INT32_MIN || v > INT32_MAX))) {
            piece_fail(pc, line, ls, p, "malformed integer '%s' for %s",
                       token_text(p, end, tok, sizeof tok), f->name);
            return NULL;
        }
        if (f->kind == FIELD_INT32)
            ((int32_t *)f->data)[row] = (int32_t)v;
        else
            ((int64_t *)f->data)[row] = v;
        return stop;
    }
    case FIELD_CATEGORY: {
        stop = token_end(p, end);
        if (b->comment) {
            const char *c = memchr(p, b->comment, (size_t)(stop - p));
            if (c)
                stop = c;
        }
        int32_t code = label_code(&pc->labels[fi], p, (uint32_t)(stop - p));
        if (code < 0) {
            piece_fail(pc, line, ls, p, "out of memory for the labels of %s", f->name);
            return NULL;
        }
        ((int32_t *)f->data)[row] = code;
        return stop;
    }
    case FIELD_BOOL: {
        stop = token_end(p, end);
        uint8_t v;
        if (!parse_bool(p, stop, &v)) {
            piece_fail(pc, line, ls, p, "malformed logical '%s' for %s (T or F)",
                       token_text(p, end, tok, sizeof tok), f->name);
            return NULL;
        }
        ((uint8_t *)f->data)[row] = v;
        return stop;
    }
    case FIELD_SKIP:
        return token_end(p, end);
    }
    return NULL;
}

static void parse_piece(const body *b, piece *pc)
{
    const char *p = pc->begin, *end = pc->end;
    int64_t line = b->first_line + pc->row0;
    char tok[32];
    for (int64_t row = pc->row0; row < pc->row0 + pc->nrows; row++, line++) {
        const char *ls = p;
        for (int fi = 0; fi < b->nfields; fi++) {
            p = skip_blank(p, end);
            if (p == end || *p == '\n' || (b->comment && *p == b->comment)) {
                if (fi == b->nrequired) {
                    for (; fi < b->nfields; fi++)
                        zero_field(&b->fields[fi], row);
                    break;
                }
                if (b->nrequired < b->nfields)
                    piece_fail(pc, line, ls, p,
                               "line ends after %d fields where %d or %d are expected (no %s)", fi,
                               b->nrequired, b->nfields, b->fields[fi].name);
                else
                    piece_fail(pc, line, ls, p,
                               "line ends after %d fields where %d are expected (no %s)", fi,
                               b->nfields, b->fields[fi].name);
                return;
            }
            p = parse_field(b, pc, fi, row, line, ls, p, end);
            if (!p)
                return;
        }
        p = skip_blank(p, end);
        if ((b->comment && p < end && *p == b->comment) || b->allow_extra) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl : end;
        }
        if (p < end && *p != '\n') {
            piece_fail(pc, line, ls, p, "more fields than the %d expected ('%s')", b->nfields,
                       token_text(p, end, tok, sizeof tok));
            return;
        }
        if (p < end)
            p++;
    }
}

/* Cut [begin, end) into pieces that start at line starts. */
static int cut_pieces(const body *b, piece **out, int *count)
{
    size_t bytes = (size_t)(b->end - b->begin);
    /* below a megabyte, waking threads costs more than it saves */
    size_t n = bytes < (1u << 20) ? 1 : bytes / PIECE_BYTES + 1;
    if (n > 1 && n < (size_t)b->threads * 4)
        n = (size_t)b->threads * 4;
    if (n > MAX_PIECES)
        n = MAX_PIECES;
    piece *pcs = sk_calloc(n, sizeof *pcs);
    if (!pcs)
        return 0;
    int np = 0;
    const char *start = b->begin;
    for (size_t i = 1; i <= n; i++) {
        const char *stop = b->end;
        if (i < n) {
            const char *guess = b->begin + bytes / n * i;
            if (guess < start)
                continue;
            const char *nl = memchr(guess, '\n', (size_t)(b->end - guess));
            stop = nl ? nl + 1 : b->end;
        }
        if (stop <= start && i < n)
            continue;
        pcs[np].begin = start;
        pcs[np].end = stop;
        np++;
        start = stop;
    }
    *out = pcs;
    *count = np;
    return 1;
}

/* Merge the pieces' labels of field fi in piece order, rewrite codes, and
 * give the column its labels. */
static int merge_labels(const body *b, piece *pcs, int np, int fi, sk_table *t, sk_error *err)
{
    const field *f = &b->fields[fi];
    label_set all = {0};
    int32_t *map = NULL;
    int rc = SK_OK;
    for (int i = 0; i < np && rc == SK_OK; i++) {
        label_set *ls = &pcs[i].labels[fi];
        sk_free(map);
        map = sk_malloc((size_t)(ls->n ? ls->n : 1) * sizeof *map);
        if (!map) {
            rc = sk_fail(err, SK_ERR_NOMEM, b->path, -1, "out of memory for labels");
            break;
        }
        int identity = 1;
        for (int32_t j = 0; j < ls->n; j++) {
            map[j] = label_code(&all, ls->text[j], ls->len[j]);
            if (map[j] < 0) {
                rc = sk_fail(err, SK_ERR_NOMEM, b->path, -1, "out of memory for labels");
                break;
            }
            identity &= map[j] == j;
        }
        if (rc == SK_OK && !identity) {
            int32_t *codes = (int32_t *)f->data + pcs[i].row0;
            for (int64_t r = 0; r < pcs[i].nrows; r++)
                codes[r] = map[codes[r]];
        }
    }
    char **names = NULL;
    if (rc == SK_OK) {
        names = sk_calloc((size_t)(all.n ? all.n : 1), sizeof *names);
        for (int32_t j = 0; names && j < all.n; j++)
            if (!(names[j] = sk_strndup(all.text[j], all.len[j])))
                break;
        if (!names || (all.n && !names[all.n - 1]))
            rc = sk_fail(err, SK_ERR_NOMEM, b->path, -1, "out of memory for labels");
        else
            rc = sk_table_set_labels(t, f->name, (const char *const *)names, all.n, err);
    }
    for (int32_t j = 0; names && j < all.n; j++)
        sk_free(names[j]);
    sk_free(names);
    sk_free(map);
    label_free(&all);
    return rc;
}

sk_dtype at_field_dtype(field_kind kind)
{
    switch (kind) {
    case FIELD_INT32: return SK_INT32;
    case FIELD_INT64: return SK_INT64;
    case FIELD_CATEGORY: return SK_CATEGORY;
    case FIELD_BOOL: return SK_UINT8;
    default: return SK_FLOAT64;
    }
}

int at_field_add(sk_table *t, const char *name, field_kind kind, field *f, sk_error *err)
{
    void *data = sk_table_add(t, name, at_field_dtype(kind), err);
    if (!data)
        return err ? err->code : SK_ERR_NOMEM;
    *f = (field){kind, data, sk_table_col(t, sk_table_ncols(t) - 1)->name};
    return SK_OK;
}

int at_lammps_int32_column(const char *name)
{
    static const char *const names[] = {"type", "mol", "ix", "iy", "iz", "proc", "procp1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int at_body_parse(const body *b, sk_table *t, sk_error *err)
{
    piece *pcs;
    int np;
    if (!cut_pieces(b, &pcs, &np))
        return sk_fail(err, SK_ERR_NOMEM, b->path, -1, "out of memory");
    int rc = SK_OK;
    for (int i = 0; i < np && rc == SK_OK; i++) {
        pcs[i].labels = sk_calloc((size_t)b->nfields, sizeof(label_set));
        if (!pcs[i].labels)
            rc = sk_fail(err, SK_ERR_NOMEM, b->path, -1, "out of memory");
    }
    int nt = b->threads > 0 ? b->threads : 1;
    if (rc == SK_OK) {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (np > 1)
        for (int i = 0; i < np; i++)
            pcs[i].nrows = at_count_lines(pcs[i].begin, pcs[i].end);
        int64_t row = 0;
        for (int i = 0; i < np; i++) {
            pcs[i].row0 = row;
            row += pcs[i].nrows;
        }
        if (row != b->nrows)
            rc = sk_fail_text(err, SK_ERR_FORMAT, b->path, b->first_line, 1,
                              "expected %lld atom lines, found %lld", (long long)b->nrows,
                              (long long)row);
    }
    if (rc == SK_OK) {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (np > 1)
        for (int i = 0; i < np; i++)
            parse_piece(b, &pcs[i]);
        for (int i = 0; i < np; i++)
            if (pcs[i].failed) {
                rc = sk_fail_text(err, SK_ERR_FORMAT, b->path, pcs[i].line, pcs[i].column, "%s",
                                  pcs[i].message);
                break;
            }
    }
    for (int fi = 0; fi < b->nfields && rc == SK_OK; fi++)
        if (b->fields[fi].kind == FIELD_CATEGORY)
            rc = merge_labels(b, pcs, np, fi, t, err);
    for (int i = 0; i < np; i++) {
        for (int fi = 0; pcs[i].labels && fi < b->nfields; fi++)
            label_free(&pcs[i].labels[fi]);
        sk_free(pcs[i].labels);
    }
    sk_free(pcs);
    return rc;
}
