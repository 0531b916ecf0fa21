/* A JSON writer into one growing buffer. */
#include "snapkit/util/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

void sk_json_init(sk_json *j, int pretty)
{
    memset(j, 0, sizeof *j);
    j->pretty = pretty;
}

void sk_json_free(sk_json *j)
{
    sk_free(j->buf);
    memset(j, 0, sizeof *j);
}

static void put(sk_json *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (sk_text_reserve(&j->buf, j->len, &j->cap, n) != 0) {
        j->failed = 1;
        return;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(sk_json *j, const char *s) { put(j, s, strlen(s)); }

static void newline(sk_json *j)
{
    if (!j->pretty)
        return;
    put(j, "\n", 1);
    for (int i = 0; i < j->depth; i++)
        put(j, " ", 1);
}

/* Before a value: a comma when it is not the first in its container. Values
 * after a key were prepared by sk_json_key. */

static void before_value(sk_json *j)
{
    if (j->depth > 0 && j->need_comma[j->depth] == 2) { /* value of a key */
        j->need_comma[j->depth] = 1;
        return;
    }
    if (j->depth > 0) {
        if (j->need_comma[j->depth])
            put(j, ",", 1);
        j->need_comma[j->depth] = 1;
        newline(j);
    }
}

static void open_(sk_json *j, const char *c)
{
    before_value(j);
    puts_(j, c);
    if (j->depth < 63)
        j->depth++;
    j->need_comma[j->depth] = 0;
}

static void close_(sk_json *j, const char *c)
{
    int had = j->need_comma[j->depth] != 0;
    if (j->depth > 0)
        j->depth--;
    if (had)
        newline(j);
    puts_(j, c);
}

void sk_json_object_begin(sk_json *j) { open_(j, "{"); }
void sk_json_object_end(sk_json *j) { close_(j, "}"); }
void sk_json_array_begin(sk_json *j) { open_(j, "["); }
void sk_json_array_end(sk_json *j) { close_(j, "]"); }

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static int utf8_length(const unsigned char *p)
{
    unsigned c = p[0];
    int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || c > 0xf4)
        return 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80)
            return 0;
    unsigned second = p[1];
    if ((c == 0xe0 && second < 0xa0) || (c == 0xed && second > 0x9f) ||
        (c == 0xf0 && second < 0x90) || (c == 0xf4 && second > 0x8f))
        return 0;
    return n;
}

/* A JSON string of s. Bytes that are not UTF-8 (a column name from a
 * damaged file, say) become U+FFFD, so the text is always valid JSON that
 * any reader decodes. */
static void quoted(sk_json *j, const char *s)
{
    put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': puts_(j, "\\\""); break;
        case '\\': puts_(j, "\\\\"); break;
        case '\n': puts_(j, "\\n"); break;
        case '\r': puts_(j, "\\r"); break;
        case '\t': puts_(j, "\\t"); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                puts_(j, esc);
            } else if (*p < 0x80) {
                put(j, (const char *)p, 1);
            } else {
                int n = utf8_length(p);
                if (n) {
                    put(j, (const char *)p, (size_t)n);
                    p += n - 1;
                } else {
                    puts_(j, "\\ufffd");
                }
            }
        }
    }
    put(j, "\"", 1);
}

void sk_json_key(sk_json *j, const char *key)
{
    before_value(j);
    quoted(j, key);
    put(j, j->pretty ? ": " : ":", j->pretty ? 2 : 1);
    j->need_comma[j->depth] = 2;
}

void sk_json_string(sk_json *j, const char *s)
{
    before_value(j);
    quoted(j, s ? s : "");
}

void sk_json_double(sk_json *j, double v)
{
    before_value(j);
    if (!isfinite(v)) {
        puts_(j, "null");
        return;
    }
    char buf[SK_NUMBER_BUFSIZE];
    int n = sk_format_double(v, buf);
    /* JSON has no "-0" issue, but integral doubles stay readable as numbers. */
    put(j, buf, (size_t)n);
}

void sk_json_int(sk_json *j, int64_t v)
{
    before_value(j);
    char buf[SK_NUMBER_BUFSIZE];
    put(j, buf, (size_t)sk_format_int64(v, buf));
}

void sk_json_bool(sk_json *j, int v)
{
    before_value(j);
    puts_(j, v ? "true" : "false");
}

void sk_json_null(sk_json *j)
{
    before_value(j);
    puts_(j, "null");
}

void sk_json_raw(sk_json *j, const char *text)
{
    before_value(j);
    puts_(j, text);
}

void sk_json_text_value(sk_json *j, const char *text)
{
    double d;
    const char *stop, *end = text + strlen(text);
    if (*text && sk_parse_double(text, end, &d, &stop) && stop == end)
        sk_json_double(j, d);
    else
        sk_json_string(j, text);
}

void sk_json_kv_string(sk_json *j, const char *key, const char *s)
{
    sk_json_key(j, key);
    sk_json_string(j, s);
}

void sk_json_kv_double(sk_json *j, const char *key, double v)
{
    sk_json_key(j, key);
    sk_json_double(j, v);
}

void sk_json_kv_int(sk_json *j, const char *key, int64_t v)
{
    sk_json_key(j, key);
    sk_json_int(j, v);
}

const char *sk_json_text(const sk_json *j)
{
    return j->buf ? j->buf : "";
}
