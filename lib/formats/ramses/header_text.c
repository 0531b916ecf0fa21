/* header_NNNNN.txt (particle counts and fields) and namelist look-ups.
 *
 * Current form: "#  Family  Count" then rows "   name   count", then
 * " Particle fields" and the field line. Late-2017 form: a text line
 * ("Total number of particles") then its count on the next line. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "formats/ramses/text.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* A count: a whole number from 0. */
static int whole_int(const char *s, const char *e)
{
    int64_t v;
    const char *stop;
    return sk_parse_int64(s, e, &v, &stop) && stop == e && v >= 0;
}

/* A text line that no count followed: a count that did not parse (a
 * family row "DM abc", "DM 1e3", "DM -5") is an error, not a row dropped. */
static int no_count(const char *path, int line, const char *s, const char *e, sk_error *err)
{
    return sk_fail_text(err, SK_ERR_FORMAT, path, line, 1,
                        "'%.*s' has no particle count (a whole number from 0)",
                        (int)(e - s < 80 ? e - s : 80), s);
}

/* Add name -> count; a repeated name (RAMSES writes "other_tracer" twice)
 * gets a _2, _3 suffix. */
static int add_count(rs_header_text *h, const char *name, size_t n, const char *count, size_t cn,
                     int line)
{
    char key[160];
    snprintf(key, sizeof key, "%.*s", (int)(n < 120 ? n : 120), name);
    for (char *c = key; *c; c++)
        if (*c == ' ' || *c == '\t')
            *c = '_';
    char unique[176];
    snprintf(unique, sizeof unique, "%s", key);
    for (int k = 2; rs_kv_find(&h->counts, unique); k++)
        snprintf(unique, sizeof unique, "%s_%d", key, k);
    return rs_kv_add(&h->counts, unique, strlen(unique), count, cn, line);
}

int rs_parse_header(const char *path, const char *text, size_t len, rs_header_text *out,
                    sk_error *err)
{
    memset(out, 0, sizeof *out);
    if (memchr(text, '\0', len))
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "NUL byte in a text file");
    const char *p = text, *end = text + len, *pending = NULL, *pending_end = NULL;
    int lineno = 0, pending_line = 0, want_fields = 0, rc = SK_OK;
    while (p < end && rc == SK_OK) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *e = nl ? nl : end;
        p = nl ? nl + 1 : end;
        lineno++;
        trim(&s, &e);
        if (s == e || *s == '#')
            continue;
        if (want_fields) {
            sk_free(out->fields);
            out->fields = sk_strndup(s, (size_t)(e - s));
            if (!out->fields)
                rc = SK_ERR_NOMEM;
            want_fields = 0;
            continue;
        }
        if (e - s == 15 && strncasecmp(s, "Particle fields", 15) == 0) {
            want_fields = 1;
            if (pending)
                rc = no_count(path, pending_line, pending, pending_end, err);
            continue;
        }
        if (whole_int(s, e)) {
            if (!pending)
                rc = sk_fail_text(err, SK_ERR_FORMAT, path, lineno, 1, "a count without a name");
            else
                rc = add_count(out, pending, (size_t)(pending_end - pending), s,
                               (size_t)(e - s), lineno);
            pending = NULL;
            continue;
        }
        const char *last = e;
        while (last > s && !isspace((unsigned char)last[-1]))
            last--;
        if (pending) {
            rc = no_count(path, pending_line, pending, pending_end, err);
        } else if (last > s && whole_int(last, e)) {
            const char *ne = last;
            trim(&s, &ne);
            rc = add_count(out, s, (size_t)(ne - s), last, (size_t)(e - last), lineno);
        } else {
            pending = s;
            pending_end = e;
            pending_line = lineno;
        }
    }
    if (rc == SK_OK && pending)
        rc = no_count(path, pending_line, pending, pending_end, err);
    if (rc == SK_ERR_NOMEM)
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    if (rc != SK_OK)
        rs_header_text_free(out);
    return rc;
}

void rs_header_text_free(rs_header_text *h)
{
    rs_kv_free(&h->counts);
    sk_free(h->fields);
    h->fields = NULL;
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

const char *rs_namelist_value(const char *text, const char *key, char *buf, size_t n)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *e = nl ? nl : line + strlen(line);
        const char *bang = memchr(line, '!', (size_t)(e - line));
        if (bang)
            e = bang;
        for (const char *q = line; q + klen <= e; q++) {
            if (strncasecmp(q, key, klen) != 0 || (q > line && name_char(q[-1])))
                continue;
            const char *v = q + klen;
            while (v < e && (*v == ' ' || *v == '\t'))
                v++;
            if (v == e || *v != '=')
                continue;
            v++;
            const char *ve = v;
            while (ve < e && *ve != ',' && *ve != '/')
                ve++;
            trim(&v, &ve);
            snprintf(buf, n, "%.*s", (int)(ve - v), v);
            return buf;
        }
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

int rs_fortran_true(const char *v)
{
    if (!v)
        return 0;
    while (*v == '.')
        v++;
    return *v == 't' || *v == 'T';
}
