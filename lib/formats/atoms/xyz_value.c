/* Extended XYZ comment values typed: bare words, quoted strings, old-style
 * ("1 2 3", {T F}) and new-style ([1, 2], [[1, 2], [3, 4]]) arrays. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/number_calls.h"
#include "formats/atoms/internal.h"
#include "formats/atoms/xyz_kv.h"
#include "snapkit/memory.h"

typedef enum word_kind { W_BOOL = 1, W_INT = 2, W_FLOAT = 4, W_STRING = 8, W_BIG = 16 } word_kind;

typedef struct word {
    word_kind kind;
    int64_t i;
    double f;
    const char *b, *e; /* W_STRING: the text (quoted: with its quotes) */
    int quoted;
} word;

typedef struct words {
    word *w;
    int64_t n, cap;
    int64_t rows, cols; /* new-style 2-D: rows > 0 */
} words;

static int fail_fmt(kv_fail *fail, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_fmt(kv_fail *fail, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail->at = at;
    vsnprintf(fail->what, sizeof fail->what, fmt, ap);
    va_end(ap);
    return SK_ERR_FORMAT;
}

static int is_space(char c)
{
    return is_blank(c) || c == '\n';
}

static int parse_bool_word(const char *b, const char *e, uint8_t *out)
{
    static const char *const spell[8] = {"T", "True", "TRUE", "true",
                                         "F", "False", "FALSE", "false"};
    for (int k = 0; k < 8; k++)
        if (strlen(spell[k]) == (size_t)(e - b) && memcmp(b, spell[k], (size_t)(e - b)) == 0)
            return *out = k < 4, 1;
    return 0;
}

/* A float with an e, E, d or D exponent filling [b, e). */
static int parse_float_word(const char *b, const char *e, double *out)
{
    char buf[128];
    size_t n = (size_t)(e - b);
    if (n >= sizeof buf)
        n = sizeof buf - 1; /* longer: parsed as written, a d exponent there is not a number */
    memcpy(buf, b, n);
    char *d = memchr(buf, 'd', n);
    if (!d)
        d = memchr(buf, 'D', n);
    if (d)
        *d = 'e';
    const char *stop, *text = n == (size_t)(e - b) ? buf : b, *end = text + (e - b);
    return number_parse_double(text, end, out, &stop) && stop == end;
}

/* Classify the word [b, e): W_BIG is a float that overflowed. */
static word classify(const char *b, const char *e)
{
    word w = {.kind = W_STRING, .b = b, .e = e};
    uint8_t flag;
    const char *stop;
    if (parse_bool_word(b, e, &flag)) {
        w.kind = W_BOOL;
        w.i = flag;
    } else if (number_parse_int64(b, e, &w.i, &stop) && stop == e) {
        w.kind = W_INT;
    } else if (parse_float_word(b, e, &w.f)) {
        w.kind = number_range_lost(b, e, w.f) > 0 ? W_BIG : W_FLOAT;
    }
    return w;
}

static int push(words *ws, word w)
{
    if (ws->n == ws->cap) {
        int64_t cap = ws->cap ? 2 * ws->cap : 16;
        word *p = sk_realloc(ws->w, (size_t)cap * sizeof *p);
        if (!p)
            return SK_ERR_NOMEM;
        ws->w = p;
        ws->cap = cap;
    }
    ws->w[ws->n++] = w;
    return SK_OK;
}

static int kinds_of(const words *ws, int64_t from, int64_t to)
{
    int k = 0;
    for (int64_t i = from; i < to; i++)
        k |= ws->w[i].kind;
    return k;
}

/* ---- building the value --------------------------------------------------- */

static int set_string(sk_xyz_value *v, char *s)
{
    char **data = sk_malloc(sizeof *data);
    if (!data) {
        sk_free(s);
        return SK_ERR_NOMEM;
    }
    data[0] = s;
    *v = (sk_xyz_value){.type = SK_XYZ_STRING, .n = 1, .data = data};
    return SK_OK;
}

static int from_words(const words *ws, int kinds, int ndim, sk_xyz_value *v)
{
    sk_xyz_type type = kinds & W_STRING ? SK_XYZ_STRING
                       : kinds & W_BOOL ? SK_XYZ_BOOL
                       : kinds & W_FLOAT ? SK_XYZ_FLOAT
                                         : SK_XYZ_INT;
    size_t size = type == SK_XYZ_BOOL    ? 1
                  : type == SK_XYZ_STRING ? sizeof(char *)
                                          : 8;
    *v = (sk_xyz_value){.type = type, .ndim = ndim, .n = ws->n};
    if (ndim == 1)
        v->shape[0] = ws->n;
    if (ndim == 2) {
        v->shape[0] = ws->rows;
        v->shape[1] = ws->cols;
    }
    if (!(v->data = sk_calloc((size_t)ws->n, size)))
        return SK_ERR_NOMEM;
    for (int64_t i = 0; i < ws->n; i++) {
        const word *w = &ws->w[i];
        if (type == SK_XYZ_BOOL)
            ((uint8_t *)v->data)[i] = (uint8_t)w->i;
        else if (type == SK_XYZ_INT)
            ((int64_t *)v->data)[i] = w->i;
        else if (type == SK_XYZ_FLOAT)
            ((double *)v->data)[i] = w->kind == W_INT ? (double)w->i : w->f;
        else if (!(((char **)v->data)[i] = w->quoted ? at_kv_unquote(w->b, w->e)
                                                     : sk_strndup(w->b, (size_t)(w->e - w->b)))) {
            sk_xyz_value_free(v);
            return SK_ERR_NOMEM;
        }
    }
    return SK_OK;
}

/* ---- old style: "1 2 3", 'T F', {1 2 3} ----------------------------------- */

/* The words of text s (split at blanks, and at commas when commas is set)
 * as numbers or bools, else the whole text as a string. src: where s is
 * in the line when it is a copy (no escapes), else NULL (errors name open). */
static int old_style(char *s, int commas, const char *src, const char *open, sk_xyz_value *v,
                     kv_fail *fail)
{
    words ws = {0};
    const char *p = s, *e = s + strlen(s);
    int rc = SK_OK;
    while (rc == SK_OK) {
        while (p < e && (is_space(*p) || (commas && *p == ',')))
            p++;
        if (p == e)
            break;
        const char *q = p;
        while (q < e && !is_space(*q) && !(commas && *q == ','))
            q++;
        rc = push(&ws, classify(p, q));
        p = q;
    }
    int kinds = kinds_of(&ws, 0, ws.n);
    for (int64_t i = 0; rc == SK_OK && (kinds & W_BIG) && !(kinds & W_STRING) && i < ws.n; i++)
        if (ws.w[i].kind == W_BIG)
            rc = fail_fmt(fail, src ? src + (ws.w[i].b - s) : open,
                          "number '%.*s' is too large for a double",
                          (int)(ws.w[i].e - ws.w[i].b), ws.w[i].b);
    if (rc == SK_OK && ws.n > 0 && (kinds == W_BOOL || !(kinds & ~(W_INT | W_FLOAT)))) {
        rc = from_words(&ws, kinds, ws.n > 1, v);
        sk_free(s);
    } else if (rc == SK_OK) {
        rc = set_string(v, s);
    } else {
        sk_free(s);
    }
    sk_free(ws.w);
    return rc;
}

/* ---- new style: [a, b], [[a, b], [c, d]] ---------------------------------- */

static int element(const char *p, const char *e, words *ws, const char **next, kv_fail *fail)
{
    const char *q;
    word w;
    if (*p == '"' || *p == '\'') {
        q = at_kv_value_end(p, e, fail);
        if (!q)
            return SK_ERR_FORMAT;
        w = (word){.kind = W_STRING, .b = p, .e = q, .quoted = 1};
    } else {
        for (q = p; q < e && !is_space(*q) && !strchr(",[]{}\"'", *q); q++) {
        }
        if (q == p)
            return fail_fmt(fail, p, "expected an array element, found '%c'", *p);
        w = classify(p, q);
        if (w.kind == W_BIG)
            return fail_fmt(fail, p, "number '%.*s' is too large for a double", (int)(q - p), p);
    }
    *next = q;
    return push(ws, w) == SK_OK ? SK_OK : SK_ERR_NOMEM;
}

/* Elements from p (after '[') to the matching ']'; *next after it. A
 * row (depth 1) holds only elements. */
static int array_items(const char *p, const char *e, int depth, words *ws, int64_t *count,
                       const char **next, kv_fail *fail)
{
    const char *open = p - 1;
    int rows = 0, elems = 0;
    for (;;) {
        while (p < e && is_space(*p))
            p++;
        if (p == e)
            return fail_fmt(fail, open, "'[' without its ']'");
        if (*p == ']' && rows + elems == 0)
            return fail_fmt(fail, open, "empty array");
        if (*p == ']')
            break;
        int rc;
        if (*p == '[') {
            if (depth > 0)
                return fail_fmt(fail, p, "arrays nest at most two deep");
            int64_t n = 0, first = ws->n;
            rc = array_items(p + 1, e, 1, ws, &n, &p, fail);
            if (rc == SK_OK && rows > 0 && n != ws->cols)
                rc = fail_fmt(fail, ws->w[first].b, "rows of %lld and %lld elements",
                              (long long)ws->cols, (long long)n);
            ws->cols = n;
            rows++;
        } else {
            rc = element(p, e, ws, &p, fail);
            elems++;
        }
        if (rc != SK_OK)
            return rc;
        if (rows && elems)
            return fail_fmt(fail, open, "an array mixes rows and elements");
        while (p < e && is_space(*p))
            p++;
        if (p < e && *p == ',') {
            const char *comma = p++;
            while (p < e && is_space(*p))
                p++;
            if (p < e && *p == ']')
                return fail_fmt(fail, comma, "',' before ']'");
        }
    }
    *count = rows ? rows : elems;
    if (depth == 0)
        ws->rows = rows;
    *next = p + 1;
    return SK_OK;
}

static int new_style(const char *b, const char *e, sk_xyz_value *v, kv_fail *fail)
{
    words ws = {0};
    int64_t n;
    const char *next;
    int rc = array_items(b + 1, e, 0, &ws, &n, &next, fail); /* next == e: at_kv_value_end */
    int kinds = kinds_of(&ws, 0, ws.n);
    if (rc == SK_OK && (kinds & W_STRING) && kinds != W_STRING)
        rc = fail_fmt(fail, b, "an array mixes strings with numbers or bools");
    else if (rc == SK_OK && (kinds & W_BOOL) && kinds != W_BOOL)
        rc = fail_fmt(fail, b, "an array mixes bools with numbers");
    if (rc == SK_OK)
        rc = from_words(&ws, kinds, ws.rows ? 2 : 1, v);
    if (rc == SK_ERR_NOMEM)
        fail_fmt(fail, b, "out of memory");
    sk_free(ws.w);
    return rc;
}

int at_kv_value(const char *b, const char *e, sk_xyz_value *v, kv_fail *fail)
{
    memset(v, 0, sizeof *v);
    if (b == e) { /* a key alone */
        uint8_t *t = sk_malloc(1);
        if (!t)
            return fail_fmt(fail, b, "out of memory"), SK_ERR_NOMEM;
        *t = 1;
        *v = (sk_xyz_value){.type = SK_XYZ_BOOL, .n = 1, .data = t};
        return SK_OK;
    }
    const char *end = at_kv_value_end(b, e, fail);
    if (!end)
        return SK_ERR_FORMAT;
    if (end != e)
        return fail_fmt(fail, end, "more than one value");
    int rc;
    if (*b == '[') {
        rc = new_style(b, e, v, fail);
    } else if (*b == '"' || *b == '\'' || *b == '{') {
        char *s = *b == '{' ? sk_strndup(b + 1, (size_t)(e - b - 2)) : at_kv_unquote(b, e);
        int exact = *b == '{' || !memchr(b, '\\', (size_t)(e - b));
        rc = s ? old_style(s, *b == '{', exact ? b + 1 : NULL, b, v, fail) : SK_ERR_NOMEM;
    } else {
        word w = classify(b, e);
        words ws = {.w = &w, .n = 1, .cap = 1};
        if (w.kind == W_BIG)
            return fail_fmt(fail, b, "number '%.*s' is too large for a double", (int)(e - b), b);
        rc = from_words(&ws, w.kind, 0, v);
    }
    if (rc == SK_ERR_NOMEM)
        fail_fmt(fail, b, "out of memory");
    return rc;
}

void sk_xyz_value_free(sk_xyz_value *v)
{
    if (!v)
        return;
    if (v->type == SK_XYZ_STRING && v->data)
        for (int64_t i = 0; i < v->n; i++)
            sk_free(((char **)v->data)[i]);
    sk_free(v->data);
    memset(v, 0, sizeof *v);
}

int sk_xyz_value_parse(const char *text, sk_xyz_value *out, sk_error *err)
{
    kv_fail fail;
    memset(out, 0, sizeof *out);
    if (!text)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no value text");
    int rc = at_kv_value(text, text + strlen(text), out, &fail);
    if (rc != SK_OK)
        return sk_fail_text(err, rc, NULL, 1, (int64_t)(fail.at - text) + 1, "%s", fail.what);
    return SK_OK;
}

int sk_atoms_info(const sk_table *t, const char *key, sk_xyz_value *out, sk_error *err)
{
    size_t n = strlen(key);
    char *name = sk_malloc(n + 8);
    if (!name) {
        memset(out, 0, sizeof *out);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    memcpy(name, "extxyz.", 7);
    memcpy(name + 7, key, n + 1);
    const char *text = sk_table_meta_get(t, name);
    sk_free(name);
    if (!text) {
        memset(out, 0, sizeof *out);
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame has no extxyz key '%s'", key);
    }
    return sk_xyz_value_parse(text, out, err);
}
