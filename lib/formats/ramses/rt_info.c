/* info_rt_NNNNN.txt (RAMSES-RT): `key = value` lines (counts, X and Y
 * fractions, unit_np, unit_pf, rt_c_frac, ...) and the photon groups'
 * properties, whose keys repeat per group after a "---Group N" line and
 * carry a unit in brackets ("egy [eV] = ..."). Keys come out as written,
 * group keys as "group_N.key"; values as written (several numbers stay
 * one space-separated value). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/ramses/text.h"
#include "snapkit/util/number.h"

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* The key: the first word of the line ("egy" of "egy [eV] = ..."). */
static size_t key_length(const char *p, const char *eq)
{
    size_t n = 0;
    while (p + n < eq && p[n] != ' ' && p[n] != '\t' && p[n] != '[')
        n++;
    return n;
}

/* Every number of a value is finite: a value of 1e400 or nan is an error,
 * not a null in the JSON. Words that are not numbers are kept as text. */
static int check_numbers(const char *path, int line, const char *start, const char *key,
                         const char *v, const char *ve, sk_error *err)
{
    for (const char *w = v; w < ve;) {
        const char *we = w;
        while (we < ve && *we != ' ' && *we != '\t')
            we++;
        double d;
        const char *stop;
        if (sk_parse_double(w, we, &d, &stop) && stop == we && !isfinite(d))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, w - start + 1,
                                "%s: '%.*s' is not a finite number", key, (int)(we - w), w);
        w = skip_blanks(we, ve);
    }
    return SK_OK;
}

static int parse_line(const char *path, const char *p, const char *end, int line, int *group,
                      rs_kvlist *out, sk_error *err)
{
    const char *start = p;
    p = skip_blanks(p, end);
    int g;
    if (end - p > 8 && strncmp(p, "---Group", 8) == 0 && sscanf(p + 8, "%d", &g) == 1) {
        *group = g;
        return SK_OK;
    }
    const char *eq = memchr(p, '=', (size_t)(end - p));
    size_t klen = eq ? key_length(p, eq) : 0;
    if (!klen)
        return SK_OK; /* blank, a rule or a heading */
    const char *v = skip_blanks(eq + 1, end), *ve = end;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
        ve--;
    char key[96];
    int n = *group > 0 ? snprintf(key, sizeof key, "group_%d.%.*s", *group, (int)klen, p)
                       : snprintf(key, sizeof key, "%.*s", (int)klen, p);
    if (n < 0 || (size_t)n >= sizeof key)
        return SK_OK;
    int rc = check_numbers(path, line, start, key, v, ve, err);
    if (rc == SK_OK && rs_kv_add(out, key, (size_t)n, v, (size_t)(ve - v), line) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory at line %d", line);
    return rc;
}

int rs_parse_info_rt(const char *path, const char *text, size_t len, rs_kvlist *out,
                     sk_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    int group = 0;
    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        int rc = parse_line(path, p, le, line, &group, out, err);
        if (rc != SK_OK) {
            rs_kv_free(out);
            return rc;
        }
        p = nl ? nl + 1 : end;
    }
    if (!rs_kv_find(out, "nGroups")) {
        rs_kv_free(out);
        return sk_fail(err, SK_ERR_FORMAT, path, 0, "no nGroups line: not an info_rt file");
    }
    return SK_OK;
}
