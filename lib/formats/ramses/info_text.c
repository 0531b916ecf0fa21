/* info_NNNNN.txt: `key = value` lines found by key, and the DOMAIN table
 * of Hilbert key bounds. */
#include <ctype.h>
#include <math.h>
#include <limits.h>
#include <string.h>

#include "formats/ramses/text.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

int rs_kv_add(rs_kvlist *l, const char *key, size_t klen, const char *value, size_t vlen,
              int line)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 32;
        rs_kv *items = sk_realloc(l->items, (size_t)cap * sizeof *items);
        if (!items)
            return SK_ERR_NOMEM;
        l->items = items;
        l->cap = cap;
    }
    char *k = sk_strndup(key, klen), *v = sk_strndup(value, vlen);
    if (!k || !v) {
        sk_free(k);
        sk_free(v);
        return SK_ERR_NOMEM;
    }
    l->items[l->n++] = (rs_kv){.key = k, .value = v, .line = line};
    return SK_OK;
}

const rs_kv *rs_kv_find(const rs_kvlist *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i].key, key) == 0)
            return &l->items[i];
    return NULL;
}

void rs_kv_free(rs_kvlist *l)
{
    for (int i = 0; i < l->n; i++) {
        sk_free(l->items[i].key);
        sk_free(l->items[i].value);
    }
    sk_free(l->items);
    memset(l, 0, sizeof *l);
}

/* [s, e) without blanks at both ends. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* One DOMAIN line: "d ind_min ind_max". */
static int parse_domain_line(const char *path, int lineno, const char *s, const char *e,
                             rs_info_text *out, int *cap, sk_error *err)
{
    const char *p = skip_blanks(s, e), *stop;
    int64_t d;
    double kmin, kmax;
    if (!sk_parse_int64(p, e, &d, &stop))
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, (int64_t)(p - s) + 1,
                            "expected a domain number");
    p = skip_blanks(stop, e);
    if (!sk_parse_double(p, e, &kmin, &stop))
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, (int64_t)(p - s) + 1,
                            "expected the domain's lowest Hilbert key");
    p = skip_blanks(stop, e);
    if (!sk_parse_double(p, e, &kmax, &stop))
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, (int64_t)(p - s) + 1,
                            "expected the domain's highest Hilbert key");
    if (skip_blanks(stop, e) != e)
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, (int64_t)(stop - s) + 1,
                            "unexpected text after the domain's keys");
    if (d != out->ndomain + 1)
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, 1,
                            "domain %lld where domain %d was expected", (long long)d,
                            out->ndomain + 1);
    if (out->ndomain + 2 > *cap) {
        int ncap = *cap ? 2 * *cap : 64;
        double *b = sk_realloc(out->bound_key, (size_t)ncap * sizeof *b);
        if (!b)
            return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        out->bound_key = b;
        *cap = ncap;
    }
    if (out->ndomain == 0)
        out->bound_key[0] = kmin;
    else if (out->bound_key[out->ndomain] != kmin)
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, 1,
                            "domain %lld starts at key %.17g, not where domain %d ends", (long long)d,
                            kmin, out->ndomain);
    if (!(kmax >= kmin))
        return sk_fail_text(err, SK_ERR_FORMAT, path, lineno, 1,
                            "domain %lld ends before it starts", (long long)d);
    out->bound_key[++out->ndomain] = kmax;
    return SK_OK;
}

int rs_parse_info(const char *path, const char *text, size_t len, rs_info_text *out,
                  sk_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    int lineno = 0, in_domains = 0, cap = 0, rc = SK_OK;
    while (p < end && rc == SK_OK) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *e = nl ? nl : end;
        p = nl ? nl + 1 : end;
        lineno++;
        if (e > s && e[-1] == '\r') /* CRLF line ends (a file saved on Windows) */
            e--;
        const char *ts = s, *te = e;
        trim(&ts, &te);
        if (ts == te)
            continue;
        if (memchr(ts, '\0', (size_t)(te - ts)))
            rc = sk_fail_text(err, SK_ERR_FORMAT, path, lineno, 1, "NUL byte in a text file");
        else if (in_domains)
            rc = parse_domain_line(path, lineno, s, e, out, &cap, err);
        else if (te - ts >= 6 && memcmp(ts, "DOMAIN", 6) == 0)
            in_domains = 1;
        else {
            const char *eq = memchr(ts, '=', (size_t)(te - ts));
            if (!eq)
                continue; /* a table header or note that carries no key */
            const char *ks = ts, *ke = eq, *vs = eq + 1, *ve = te;
            trim(&ks, &ke);
            trim(&vs, &ve);
            if (ks == ke)
                rc = sk_fail_text(err, SK_ERR_FORMAT, path, lineno, (int64_t)(eq - s) + 1,
                                  "'=' without a key");
            else if (rs_kv_add(&out->keys, ks, (size_t)(ke - ks), vs, (size_t)(ve - vs),
                               lineno) != SK_OK)
                rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        }
    }
    if (rc == SK_OK && out->keys.n == 0)
        rc = sk_fail(err, SK_ERR_FORMAT, path, -1, "no 'key = value' lines: not a RAMSES info file");
    if (rc != SK_OK)
        rs_info_text_free(out);
    return rc;
}

void rs_info_text_free(rs_info_text *t)
{
    rs_kv_free(&t->keys);
    sk_free(t->bound_key);
    t->bound_key = NULL;
    t->ndomain = 0;
}

static int value_of(const rs_info_text *t, const char *path, const char *key, double *out,
                    const rs_kv **kv, sk_error *err)
{
    *kv = rs_kv_find(&t->keys, key);
    if (!*kv)
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "no '%s' key", key);
    const char *v = (*kv)->value, *e = v + strlen(v), *stop;
    if (!sk_parse_double(v, e, out, &stop) || stop != e)
        return sk_fail_text(err, SK_ERR_FORMAT, path, (*kv)->line, -1, "%s = '%s' is not a number",
                            key, v);
    /* nan, inf, or beyond a double (1e400): no value of an info file is. */
    if (!isfinite(*out))
        return sk_fail_text(err, SK_ERR_FORMAT, path, (*kv)->line, -1,
                            "%s = '%s' is not a finite number", key, v);
    return SK_OK;
}

int rs_info_fail_key(const rs_info_text *t, const char *path, const char *key, const char *what,
                     sk_error *err)
{
    const rs_kv *kv = rs_kv_find(&t->keys, key);
    if (!kv)
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "%s (absent) %s", key, what);
    return sk_fail_text(err, SK_ERR_FORMAT, path, kv->line, -1, "%s = '%s' %s", key, kv->value,
                        what);
}

int rs_info_double(const rs_info_text *t, const char *path, const char *key, double *out,
                   sk_error *err)
{
    const rs_kv *kv;
    return value_of(t, path, key, out, &kv, err);
}

int rs_info_int(const rs_info_text *t, const char *path, const char *key, int *out,
                sk_error *err)
{
    const rs_kv *kv;
    double v;
    int rc = value_of(t, path, key, &v, &kv, err);
    if (rc != SK_OK)
        return rc;
    if (v != floor(v))
        return sk_fail_text(err, SK_ERR_FORMAT, path, kv->line, -1,
                            "%s = '%s' is not an integer", key, kv->value);
    if (!(v >= INT_MIN && v <= INT_MAX))
        return sk_fail_text(err, SK_ERR_FORMAT, path, kv->line, -1,
                            "%s = '%s' is out of range (at most %d)", key, kv->value, INT_MAX);
    *out = (int)v;
    return SK_OK;
}
