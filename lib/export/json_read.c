/* A small recursive-descent JSON reader (RFC 8259), for saved reports. */
#include "snapkit/util/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/openfile.h"
#include "snapkit/util/text.h"
#include "snapkit/memory.h"

typedef struct parser {
    const char *s;
    size_t n, pos;
    const char *path;
    sk_error *err;
} parser;

/* The line and column of the current position, for the message. */
static int fail(parser *p, const char *what)
{
    int64_t line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->n; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    return sk_fail_text(p->err, SK_ERR_FORMAT, p->path, line, col, "%s", what);
}

static void skip_space(parser *p)
{
    while (p->pos < p->n && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
}

static int literal(parser *p, const char *word)
{
    size_t k = strlen(word);
    if (p->n - p->pos < k || memcmp(p->s + p->pos, word, k) != 0)
        return fail(p, "not a JSON value");
    p->pos += k;
    return SK_OK;
}

static int hex4(parser *p, unsigned *out)
{
    if (p->n - p->pos < 4)
        return fail(p, "truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->pos++];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return fail(p, "bad \\u escape");
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return SK_OK;
}

static void put_utf8(sk_text *t, unsigned cp)
{
    char b[4];
    size_t k;
    if (cp < 0x80) {
        b[0] = (char)cp, k = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), k = 4;
    }
    sk_text_put(t, b, k);
}

/* \uXXXX, with a surrogate pair joined; a lone surrogate becomes U+FFFD. */
static int unicode_escape(parser *p, sk_text *t)
{
    unsigned cp;
    if (hex4(p, &cp) != SK_OK)
        return SK_ERR_FORMAT;
    if (cp >= 0xD800 && cp < 0xDC00 && p->n - p->pos >= 6 && p->s[p->pos] == '\\' &&
        p->s[p->pos + 1] == 'u') {
        size_t back = p->pos;
        p->pos += 2;
        unsigned lo;
        if (hex4(p, &lo) != SK_OK)
            return SK_ERR_FORMAT;
        if (lo >= 0xDC00 && lo < 0xE000)
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        else
            p->pos = back; /* not a pair: the second escape stands alone */
    }
    put_utf8(t, cp >= 0xD800 && cp < 0xE000 ? 0xFFFD : cp);
    return SK_OK;
}

static int string(parser *p, char **out)
{
    p->pos++; /* the opening quote */
    sk_text t = {0};
    sk_text_puts(&t, "");
    while (p->pos < p->n && p->s[p->pos] != '"') {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) {
            sk_text_free(&t);
            return fail(p, "control character in a string");
        }
        p->pos++;
        if (c != '\\') {
            sk_text_put(&t, (const char *)&c, 1);
            continue;
        }
        if (p->pos == p->n)
            break;
        char e = p->s[p->pos++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            sk_text_put(&t, to + (k - from), 1);
        } else if (e != 'u' || unicode_escape(p, &t) != SK_OK) {
            sk_text_free(&t);
            return e == 'u' ? SK_ERR_FORMAT : fail(p, "bad escape in a string");
        }
    }
    if (p->pos == p->n) {
        sk_text_free(&t);
        return fail(p, "unterminated string");
    }
    p->pos++;
    /* a copy of its own length: the builder's 256 bytes per key and value
     * would make a large document take a hundred times its text */
    *out = t.buf ? sk_strndup(t.buf, t.len) : NULL;
    sk_text_free(&t);
    return *out ? SK_OK : sk_fail(p->err, SK_ERR_NOMEM, p->path, -1, "out of memory");
}

/* The JSON number grammar, checked before strtod (which takes more: hex,
 * inf, nan, a leading +). */
static int number(parser *p, double *out)
{
    size_t start = p->pos, i = p->pos;
    const char *s = p->s;
    if (i < p->n && s[i] == '-')
        i++;
    if (i < p->n && s[i] == '0') {
        i++;
    } else if (i < p->n && s[i] >= '1' && s[i] <= '9') {
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return fail(p, "not a JSON value");
    }
    if (i < p->n && s[i] == '.') {
        size_t d = ++i;
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return fail(p, "no digit after the decimal point");
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return fail(p, "no digit in the exponent");
    }
    char buf[512];
    if (i - start >= sizeof buf)
        return fail(p, "number too long");
    memcpy(buf, s + start, i - start);
    buf[i - start] = '\0';
    *out = strtod(buf, NULL); /* overflow gives +-HUGE_VAL: kept, as infinities */
    p->pos = i;
    return SK_OK;
}

static int value(parser *p, sk_json_value *v, int depth);

/* Grow a container's arrays by one member (doubling). */
static int push(parser *p, sk_json_value *v, int *cap, int keyed)
{
    if (v->n < *cap)
        return SK_OK;
    int ncap = *cap ? 2 * *cap : 4;
    sk_json_value *items = sk_realloc(v->items, (size_t)ncap * sizeof *items);
    if (!items)
        return sk_fail(p->err, SK_ERR_NOMEM, p->path, -1, "out of memory");
    v->items = items;
    if (keyed) {
        char **keys = sk_realloc(v->keys, (size_t)ncap * sizeof *keys);
        if (!keys)
            return sk_fail(p->err, SK_ERR_NOMEM, p->path, -1, "out of memory");
        v->keys = keys;
    }
    *cap = ncap;
    return SK_OK;
}

/* An array or an object: members separated by commas up to `close`. */
static int container(parser *p, sk_json_value *v, int depth, int keyed)
{
    char close = keyed ? '}' : ']';
    v->type = keyed ? SK_JSON_OBJECT : SK_JSON_ARRAY;
    p->pos++;
    skip_space(p);
    if (p->pos < p->n && p->s[p->pos] == close) {
        p->pos++;
        return SK_OK;
    }
    int cap = 0;
    for (;;) {
        if (push(p, v, &cap, keyed) != SK_OK)
            return SK_ERR_NOMEM;
        sk_json_value *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        char *key = NULL;
        if (keyed) {
            skip_space(p);
            if (p->pos >= p->n || p->s[p->pos] != '"')
                return fail(p, "expected a key");
            if (string(p, &key) != SK_OK)
                return SK_ERR_FORMAT;
            v->keys[v->n] = key;
            skip_space(p);
            if (p->pos >= p->n || p->s[p->pos] != ':') {
                v->n++; /* owned by v now: freed with it */
                return fail(p, "expected ':' after a key");
            }
            p->pos++;
        }
        v->n++;
        if (value(p, item, depth + 1) != SK_OK)
            return SK_ERR_FORMAT;
        skip_space(p);
        if (p->pos < p->n && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->n && p->s[p->pos] == close) {
            p->pos++;
            return SK_OK;
        }
        return fail(p, keyed ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int value(parser *p, sk_json_value *v, int depth)
{
    if (depth > SK_JSON_MAX_DEPTH)
        return fail(p, "nested too deeply");
    skip_space(p);
    if (p->pos >= p->n)
        return fail(p, "unexpected end of the text");
    switch (p->s[p->pos]) {
    case '{':
        return container(p, v, depth, 1);
    case '[':
        return container(p, v, depth, 0);
    case '"':
        v->type = SK_JSON_STRING;
        return string(p, &v->string);
    case 't':
        v->type = SK_JSON_BOOL, v->number = 1;
        return literal(p, "true");
    case 'f':
        v->type = SK_JSON_BOOL;
        return literal(p, "false");
    case 'n':
        v->type = SK_JSON_NULL;
        return literal(p, "null");
    default:
        v->type = SK_JSON_NUMBER;
        return number(p, &v->number);
    }
}

static void free_members(sk_json_value *v)
{
    for (int i = 0; i < v->n; i++) {
        free_members(&v->items[i]);
        if (v->keys)
            sk_free(v->keys[i]);
    }
    sk_free(v->items);
    sk_free(v->keys);
    sk_free(v->string);
}

void sk_json_value_free(sk_json_value *v)
{
    if (!v)
        return;
    free_members(v);
    sk_free(v);
}

int sk_json_parse(const char *text, size_t size, const char *path, sk_json_value **out,
                   sk_error *err)
{
    *out = NULL;
    parser p = {.s = text, .n = size, .path = path, .err = err};
    sk_json_value *v = sk_calloc(1, sizeof *v);
    if (!v)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    int rc = value(&p, v, 0);
    if (rc == SK_OK) {
        skip_space(&p);
        if (p.pos < p.n)
            rc = fail(&p, "text after the JSON value");
    }
    if (rc != SK_OK) {
        sk_json_value_free(v);
        return rc;
    }
    *out = v;
    return SK_OK;
}

/* The most sk_json_load reads: a saved report is tens of KB. A parsed
 * value takes up to about 60 times its text (each member is a few small
 * blocks), so the cap bounds memory (some 250 MB) as well as time. */
#define JSON_LOAD_MAX ((size_t)4 << 20)

int sk_json_load(const char *path, sk_json_value **out, sk_error *err)
{
    *out = NULL;
    int fd;
    struct stat st;
    int rc = sk_open_regular(path, &fd, &st, err); /* no FIFO or device read forever */
    if (rc != SK_OK)
        return rc;
    if ((uint64_t)st.st_size > JSON_LOAD_MAX) {
        close(fd);
        return sk_fail(err, SK_ERR_RANGE, path, -1,
                       "is larger than %zu MB, the most a JSON file is read to",
                       JSON_LOAD_MAX >> 20);
    }
    sk_text t = {0};
    char buf[65536];
    ssize_t k;
    int e = 0;
    while ((k = read(fd, buf, sizeof buf)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            e = errno;
            break;
        }
        if (t.len + (size_t)k > JSON_LOAD_MAX) { /* grown since the check */
            sk_text_free(&t);
            close(fd);
            return sk_fail(err, SK_ERR_RANGE, path, -1,
                           "is larger than %zu MB, the most a JSON file is read to",
                           JSON_LOAD_MAX >> 20);
        }
        sk_text_put(&t, buf, (size_t)k);
    }
    close(fd);
    size_t len = t.len;
    char *text = sk_text_take(&t);
    if (e || !text) {
        sk_free(text);
        return e ? sk_fail_errno(err, path, e, "cannot read")
                 : sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    rc = sk_json_parse(text, len, path, out, err);
    sk_free(text);
    return rc;
}

const sk_json_value *sk_json_get(const sk_json_value *v, const char *key)
{
    if (!v || v->type != SK_JSON_OBJECT)
        return NULL;
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

double sk_json_number(const sk_json_value *v, const char *key, double def)
{
    const sk_json_value *m = sk_json_get(v, key);
    return m && (m->type == SK_JSON_NUMBER || m->type == SK_JSON_BOOL) ? m->number : def;
}
