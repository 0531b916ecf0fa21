/* The extended XYZ comment line split into key=value pairs, and keys and
 * values written so that they split back the same. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "formats/atoms/xyz_kv.h"
#include "snapkit/memory.h"

static int is_space(char c)
{
    return is_blank(c) || c == '\n';
}

static const char *space_end(const char *p, const char *e)
{
    while (p < e && is_space(*p))
        p++;
    return p;
}

static const char *fail_at(kv_fail *fail, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static const char *fail_at(kv_fail *fail, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail->at = at;
    vsnprintf(fail->what, sizeof fail->what, fmt, ap);
    va_end(ap);
    return NULL;
}

/* After the closing quote of the string at p, or NULL. */
static const char *quote_end(const char *p, const char *e)
{
    char q = *p;
    for (p++; p < e; p++) {
        if (*p == '\\' && p + 1 < e)
            p++;
        else if (*p == q)
            return p + 1;
    }
    return NULL;
}

static const char *bracket_end(const char *p, const char *e, kv_fail *fail)
{
    const char *open = p;
    int depth = 0;
    for (; p < e; p++) {
        if (*p == '"' || *p == '\'') {
            const char *q = quote_end(p, e);
            if (!q)
                return fail_at(fail, p, "unterminated quoted string (no closing %c)", *p);
            p = q - 1;
        } else if (*p == '[') {
            depth++;
        } else if (*p == ']' && --depth == 0) {
            return p + 1;
        }
    }
    return fail_at(fail, open, "'[' without its ']'");
}

const char *at_kv_value_end(const char *p, const char *e, kv_fail *fail)
{
    if (*p == '"' || *p == '\'') {
        const char *q = quote_end(p, e);
        return q ? q : fail_at(fail, p, "unterminated quoted string (no closing %c)", *p);
    }
    if (*p == '[')
        return bracket_end(p, e, fail);
    if (*p == '{') {
        const char *q = memchr(p, '}', (size_t)(e - p));
        return q ? q + 1 : fail_at(fail, p, "'{' without its '}'");
    }
    if (*p == ']' || *p == '}')
        return fail_at(fail, p, "'%c' without its '%c'", *p, *p == ']' ? '[' : '{');
    while (p < e && !is_space(*p))
        p++;
    return p;
}

char *at_kv_unquote(const char *b, const char *e)
{
    char *out = sk_malloc((size_t)(e - b) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = b + 1; p < e - 1; p++) {
        if (*p == '\\' && p + 1 < e - 1) {
            p++;
            *o++ = *p == 'n' ? '\n' : *p;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

static int add_pair(kv_line *l, char *key, const char *key_at, const char *raw,
                    const char *raw_end)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        kv_pair *p = sk_realloc(l->pairs, (size_t)cap * sizeof *p);
        if (!p)
            return SK_ERR_NOMEM;
        l->pairs = p;
        l->cap = cap;
    }
    l->pairs[l->n++] = (kv_pair){key, key_at, raw, raw_end};
    return SK_OK;
}

/* The key at p: *key (owned; not made when key is NULL) and *end, the
 * end of its text. */
static int read_key(const char *p, const char *e, char **key, const char **end, kv_fail *fail)
{
    const char *q;
    if (*p == '"' || *p == '\'') {
        if (!(q = quote_end(p, e)))
            return fail_at(fail, p, "unterminated quoted key (no closing %c)", *p), SK_ERR_FORMAT;
        if (q < e && !is_space(*q) && *q != '=')
            return fail_at(fail, q, "expected '=' or a blank after the quoted key"), SK_ERR_FORMAT;
        if (key)
            *key = at_kv_unquote(p, q);
    } else {
        if (strchr("[]{}=", *p))
            return fail_at(fail, p, "a key cannot start with '%c'", *p), SK_ERR_FORMAT;
        for (q = p; q < e && !is_space(*q) && *q != '='; q++) {
        }
        if (key)
            *key = sk_strndup(p, (size_t)(q - p));
    }
    *end = q;
    return !key || *key ? SK_OK : (fail_at(fail, p, "out of memory"), SK_ERR_NOMEM);
}

/* The value after the key that ends at q: [*raw, *raw_end), empty when
 * the key stands alone. */
static int read_value(const char *q, const char *e, const char **raw, const char **raw_end,
                      kv_fail *fail)
{
    const char *v = space_end(q, e);
    *raw = *raw_end = q;
    if (v == e || *v != '=')
        return SK_OK;
    *raw = space_end(v + 1, e);
    *raw_end = *raw < e ? at_kv_value_end(*raw, e, fail)
                        : fail_at(fail, v, "'=' without a value after it");
    if (*raw_end && *raw_end < e && !is_space(**raw_end))
        *raw_end = fail_at(fail, *raw_end, "expected a blank after the value");
    return *raw_end ? SK_OK : SK_ERR_FORMAT;
}

int at_kv_split(const char *b, const char *e, kv_line *out, kv_fail *fail)
{
    if (out)
        memset(out, 0, sizeof *out);
    for (const char *p = space_end(b, e); p < e; p = space_end(p, e)) {
        char *key = NULL;
        const char *q, *raw, *raw_end;
        int rc = read_key(p, e, out ? &key : NULL, &q, fail);
        if (rc == SK_OK)
            rc = read_value(q, e, &raw, &raw_end, fail);
        if (rc == SK_OK && out && (rc = add_pair(out, key, p, raw, raw_end)) != SK_OK)
            fail_at(fail, p, "out of memory");
        if (rc != SK_OK) {
            sk_free(key);
            if (out)
                at_kv_free(out);
            return rc;
        }
        p = raw_end;
    }
    return SK_OK;
}

void at_kv_free(kv_line *l)
{
    for (int i = 0; i < l->n; i++)
        sk_free(l->pairs[i].key);
    sk_free(l->pairs);
    memset(l, 0, sizeof *l);
}

void at_kv_put_quoted(sk_text *t, const char *s)
{
    sk_text_puts(t, "\"");
    for (const char *run = s;; s++) {
        if (*s && *s != '"' && *s != '\\' && *s != '\n')
            continue;
        sk_text_put(t, run, (size_t)(s - run));
        if (!*s)
            break;
        sk_text_puts(t, *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : "\\n");
        run = s + 1;
    }
    sk_text_puts(t, "\"");
}

void at_kv_put_key(sk_text *t, const char *s)
{
    int bare = *s != '\0';
    for (const char *p = s; *p && bare; p++)
        bare = (unsigned char)*p > ' ' && *p != 0x7f && !strchr("=\"'\\[]{},", *p);
    if (bare)
        sk_text_puts(t, s);
    else
        at_kv_put_quoted(t, s);
}

/* Does [b, e) read as one value? */
static int one_value(const char *b, const char *e)
{
    kv_fail fail;
    sk_xyz_value v;
    if (b == e || memchr(b, '\n', (size_t)(e - b)) || is_space(*b) ||
        at_kv_value_end(b, e, &fail) != e || at_kv_value(b, e, &v, &fail) != SK_OK)
        return 0;
    sk_xyz_value_free(&v);
    return 1;
}

int at_kv_put_value(sk_text *t, const char *s)
{
    size_t n = strlen(s);
    if (one_value(s, s + n)) {
        sk_text_puts(t, s);
        return SK_OK;
    }
    size_t len = t->len;
    at_kv_put_quoted(t, s);
    return t->failed || one_value(t->buf + len, t->buf + t->len) ? SK_OK : SK_ERR_ARG;
}
