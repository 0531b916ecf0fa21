/* hydro_file_descriptor.txt and part_file_descriptor.txt.
 *
 * Current form (RAMSES since 2017-11):   late-2017 form (hydro only):
 *   # version:  1                          nvar        =          5
 *   # ivar, variable_name, variable_type   variable # 1: density
 *    1, density, d                         variable # 2: velocity_x
 */
#include <ctype.h>
#include <string.h>

#include "formats/ramses/text.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

int rs_type_size(char type)
{
    switch (type) {
    case 'd': case 'q': return 8;
    case 'f': case 'i': return 4;
    case 'h': return 2;
    case 'b': return 1;
    case '?': return 4; /* Fortran default logical */
    default: return 0;
    }
}

typedef struct line_iter {
    const char *p, *end;
    int lineno;
} line_iter;

/* Next line [*s, *e) (without the newline); 0 at the end. */
static int next_line(line_iter *it, const char **s, const char **e)
{
    if (it->p >= it->end)
        return 0;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    *s = it->p;
    *e = nl ? nl : it->end;
    if (*e > *s && (*e)[-1] == '\r')
        (*e)--;
    it->p = nl ? nl + 1 : it->end;
    it->lineno++;
    return 1;
}

static const char *blanks(const char *p, const char *e)
{
    while (p < e && isspace((unsigned char)*p))
        p++;
    return p;
}

static int is_blank(const char *s, const char *e)
{
    return blanks(s, e) == e;
}

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n >= RS_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return 1;
}

static int add_var(rs_varlist *l, int *cap, const char *name, size_t n, char type, int line)
{
    if (l->n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        rs_var *v = sk_realloc(l->vars, (size_t)c * sizeof *v);
        if (!v)
            return SK_ERR_NOMEM;
        l->vars = v;
        *cap = c;
    }
    rs_var *v = &l->vars[l->n++];
    memcpy(v->name, name, n);
    v->name[n] = '\0';
    v->type = type;
    v->line = line;
    return SK_OK;
}

/* The line of an earlier variable named [name, name + n), or 0. */
static int earlier_line(const rs_varlist *l, const char *name, size_t n)
{
    for (int i = 0; i < l->n; i++)
        if (strlen(l->vars[i].name) == n && memcmp(l->vars[i].name, name, n) == 0)
            return l->vars[i].line;
    return 0;
}

#define FAIL_AT(col, ...) sk_fail_text(err, SK_ERR_FORMAT, path, it->lineno, (int64_t)(col), __VA_ARGS__)

/* " 1, density, d" */
static int parse_v1_line(const char *path, line_iter *it, const char *s, const char *e,
                         rs_varlist *out, int *cap, sk_error *err)
{
    const char *p = blanks(s, e), *stop;
    int64_t ivar;
    if (!sk_parse_int64(p, e, &ivar, &stop))
        return FAIL_AT(p - s + 1, "expected 'ivar, name, type'");
    if (ivar != out->n + 1)
        return FAIL_AT(p - s + 1, "variable %lld where variable %d was expected", (long long)ivar,
                       out->n + 1);
    p = blanks(stop, e);
    if (p == e || *p != ',')
        return FAIL_AT(p - s + 1, "expected ',' after the variable number");
    const char *ns = blanks(p + 1, e), *comma = memchr(ns, ',', (size_t)(e - ns));
    if (!comma)
        return FAIL_AT(ns - s + 1, "expected ', type' after the variable name");
    const char *ne = comma;
    while (ne > ns && isspace((unsigned char)ne[-1]))
        ne--;
    if (!valid_name(ns, (size_t)(ne - ns)))
        return FAIL_AT(ns - s + 1, "bad variable name");
    int first = earlier_line(out, ns, (size_t)(ne - ns));
    if (first)
        return FAIL_AT(ns - s + 1, "variable name '%.*s' appears twice (also line %d)",
                       (int)(ne - ns), ns, first);
    const char *ts = blanks(comma + 1, e), *te = e;
    while (te > ts && isspace((unsigned char)te[-1]))
        te--;
    if (te - ts != 1 || !rs_type_size(*ts))
        return FAIL_AT(ts - s + 1, "unknown variable type '%.*s' (expected d, f, i, q, h, b or ?)",
                       (int)(te - ts), ts);
    if (add_var(out, cap, ns, (size_t)(ne - ns), *ts, it->lineno) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    return SK_OK;
}

/* "variable # 3: velocity_y" or "nvar = 5" */
static int parse_kv_line(const char *path, line_iter *it, const char *s, const char *e,
                         rs_varlist *out, int *cap, int64_t *nvar, sk_error *err)
{
    const char *p = blanks(s, e), *stop;
    if (e - p >= 4 && memcmp(p, "nvar", 4) == 0) {
        const char *eq = memchr(p, '=', (size_t)(e - p));
        if (!eq || !sk_parse_int64(blanks(eq + 1, e), e, nvar, &stop) || !is_blank(stop, e) ||
            *nvar < 0 || *nvar > 100000)
            return FAIL_AT(p - s + 1, "expected 'nvar = N'");
        return SK_OK;
    }
    if (e - p < 8 || memcmp(p, "variable", 8) != 0)
        return FAIL_AT(p - s + 1, "expected 'variable # N: name'");
    const char *hash = memchr(p, '#', (size_t)(e - p));
    int64_t ivar;
    if (!hash || !sk_parse_int64(blanks(hash + 1, e), e, &ivar, &stop))
        return FAIL_AT(p - s + 1, "expected 'variable # N: name'");
    if (ivar != out->n + 1)
        return FAIL_AT(hash - s + 1, "variable %lld where variable %d was expected",
                       (long long)ivar, out->n + 1);
    const char *colon = blanks(stop, e);
    if (colon == e || *colon != ':')
        return FAIL_AT(colon - s + 1, "expected ':' after the variable number");
    const char *ns = blanks(colon + 1, e), *ne = e;
    while (ne > ns && isspace((unsigned char)ne[-1]))
        ne--;
    if (!valid_name(ns, (size_t)(ne - ns)))
        return FAIL_AT(ns - s + 1, "bad variable name");
    int first = earlier_line(out, ns, (size_t)(ne - ns));
    if (first)
        return FAIL_AT(ns - s + 1, "variable name '%.*s' appears twice (also line %d)",
                       (int)(ne - ns), ns, first);
    if (add_var(out, cap, ns, (size_t)(ne - ns), 'd', it->lineno) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    return SK_OK;
}

int rs_parse_descriptor(const char *path, const char *text, size_t len, rs_varlist *out,
                        sk_error *err)
{
    memset(out, 0, sizeof *out);
    if (memchr(text, '\0', len))
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "NUL byte in a text file");
    line_iter iter = {text, text + len, 0}, *it = &iter;
    const char *s, *e;
    int cap = 0, rc = SK_OK, version = -1;
    int64_t nvar = -1;
    while (rc == SK_OK && next_line(it, &s, &e)) {
        const char *p = blanks(s, e);
        if (p == e)
            continue;
        if (*p == '#') {
            const char *v = memmem(p, (size_t)(e - p), "version:", 8);
            if (v && version < 0 && out->n == 0) {
                int64_t n;
                const char *stop;
                if (!sk_parse_int64(blanks(v + 8, e), e, &n, &stop) || !is_blank(stop, e))
                    rc = FAIL_AT(v - s + 1, "bad version line");
                else if (n != 1)
                    rc = sk_fail_text(err, SK_ERR_VERSION, path, it->lineno, v - s + 1,
                                      "descriptor version %lld is not supported (only 1)",
                                      (long long)n);
                version = 1;
            }
            continue;
        }
        if (version == 1)
            rc = parse_v1_line(path, it, s, e, out, &cap, err);
        else {
            version = 0;
            rc = parse_kv_line(path, it, s, e, out, &cap, &nvar, err);
        }
    }
    if (rc == SK_OK && out->n == 0)
        rc = sk_fail(err, SK_ERR_FORMAT, path, -1, "no variables in the descriptor");
    if (rc == SK_OK && nvar >= 0 && nvar != out->n)
        rc = sk_fail(err, SK_ERR_FORMAT, path, -1, "nvar = %lld but %d variables are listed",
                     (long long)nvar, out->n);
    out->version = version;
    if (rc != SK_OK)
        rs_varlist_free(out);
    return rc;
}

void rs_varlist_free(rs_varlist *l)
{
    sk_free(l->vars);
    memset(l, 0, sizeof *l);
}
