/* snapkit series: the results of a command over many outputs as one table
 * (text, CSV or JSON), the rows taken from each run's JSON result. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "series.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/number.h"

static int column(series_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c], name))
            return c;
    char **cols = sk_realloc(t->cols, sizeof *cols * (size_t)(t->ncols + 1));
    if (!cols)
        return -1;
    t->cols = cols;
    if (!(cols[t->ncols] = sk_strdup(name)))
        return -1;
    return t->ncols++;
}

static series_row *new_row(series_table *t, int output)
{
    if (t->nrows == t->caprows) {
        int cap = t->caprows ? 2 * t->caprows : 16;
        series_row *rows = sk_realloc(t->rows, sizeof *rows * (size_t)cap);
        if (!rows)
            return NULL;
        t->rows = rows;
        t->caprows = cap;
    }
    series_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    r->output = output;
    return r;
}

static int set(series_table *t, series_row *r, const char *name, double v)
{
    int c = column(t, name);
    if (c < 0)
        return -1;
    if (c >= r->nv) {
        double *nv = sk_realloc(r->v, sizeof *nv * (size_t)(c + 1));
        if (!nv)
            return -1;
        for (int k = r->nv; k <= c; k++)
            nv[k] = NAN;
        r->v = nv;
        r->nv = c + 1;
    }
    r->v[c] = v;
    return 0;
}

static int is_number(const sk_json_value *v)
{
    return v->type == SK_JSON_NUMBER || v->type == SK_JSON_NULL;
}

static double number(const sk_json_value *v)
{
    return v->type == SK_JSON_NUMBER ? v->number : NAN;
}

static void join(char *out, size_t n, const char *prefix, const char *key)
{
    snprintf(out, n, "%s%s%s", prefix, *prefix ? "." : "", key);
}

/* Numbers under prefix: objects by member (a.b), vectors of three by
 * component (com_x), other arrays by index (a_0). Text is left out. */
static int flatten(series_table *t, series_row *r, const char *prefix, const sk_json_value *v)
{
    char name[256];
    if (is_number(v))
        return set(t, r, prefix, number(v));
    if (v->type == SK_JSON_OBJECT) {
        for (int k = 0; k < v->n; k++) {
            join(name, sizeof name, prefix, v->keys[k]);
            if (flatten(t, r, name, &v->items[k]))
                return -1;
        }
    } else if (v->type == SK_JSON_ARRAY) {
        for (int k = 0; k < v->n; k++) {
            if (!is_number(&v->items[k]))
                continue;
            if (v->n == 3)
                snprintf(name, sizeof name, "%s_%c", prefix, "xyz"[k]);
            else
                snprintf(name, sizeof name, "%s_%d", prefix, k);
            if (set(t, r, name, number(&v->items[k])))
                return -1;
        }
    }
    return 0;
}

/* The members of a stats result that measure the run, not the data. */
static int is_measurement(const char *key)
{
    static const char *const k[] = {"component", "levels", "files_opened", "chunks_read",
                                    "stored", "seconds", "result_bytes", "bytes_allocated",
                                    "ranks"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(key, k[i]))
            return 1;
    return 0;
}

static int stats_row(series_table *t, int output, const sk_json_value *res)
{
    series_row *r = new_row(t, output);
    if (!r)
        return -1;
    int asked = sk_json_get(res, "totals") || sk_json_get(res, "weighted");
    for (int k = 0; k < res->n; k++) {
        const char *key = res->keys[k];
        if (is_measurement(key) || (asked && !strcmp(key, "columns")))
            continue;
        const char *prefix = !strcmp(key, "columns") ? "" : key;
        if (flatten(t, r, prefix, &res->items[k]))
            return -1;
    }
    return 0;
}

/* Bin b of a profile's member: per-bin arrays give their b-th value, the
 * edges bin_lo and bin_hi, objects their members (quantities.density.mean
 * as density.mean), numbers themselves. */
static int bin_member(series_table *t, series_row *r, const char *name, const sk_json_value *v,
                      int b, int nbins)
{
    char sub[256];
    if (is_number(v))
        return set(t, r, name, number(v));
    if (v->type == SK_JSON_OBJECT) {
        for (int k = 0; k < v->n; k++) {
            join(sub, sizeof sub, strcmp(name, "quantities") ? name : "", v->keys[k]);
            if (bin_member(t, r, sub, &v->items[k], b, nbins))
                return -1;
        }
    } else if (v->type == SK_JSON_ARRAY && v->n == nbins + 1 && !strcmp(name, "edges")) {
        if (set(t, r, "bin_lo", number(&v->items[b])) ||
            set(t, r, "bin_hi", number(&v->items[b + 1])))
            return -1;
    } else if (v->type == SK_JSON_ARRAY && v->n == nbins && is_number(&v->items[b])) {
        return set(t, r, name, number(&v->items[b]));
    }
    return 0;
}

static int profile_rows(series_table *t, int output, const sk_json_value *res)
{
    const sk_json_value *count = sk_json_get(res, "count");
    int nbins = count && count->type == SK_JSON_ARRAY ? count->n : 0;
    for (int b = 0; b < nbins; b++) {
        series_row *r = new_row(t, output);
        if (!r || set(t, r, "bin", b))
            return -1;
        for (int k = 0; k < res->n; k++)
            if (bin_member(t, r, res->keys[k], &res->items[k], b, nbins))
                return -1;
    }
    return 0;
}

/* The files a map command wrote: its JSON's "files" (project, slice and
 * cube name each file, {var} expanded), else those it was given. */
static int files_row(series_table *t, int output, const sk_json_value *res, const char *given)
{
    series_row *r = new_row(t, output);
    if (!r)
        return -1;
    const sk_json_value *f = res ? sk_json_get(res, "files") : NULL;
    if (!f || f->type != SK_JSON_ARRAY)
        return (r->files = sk_strdup(given)) ? 0 : -1;
    size_t n = 1;
    for (int k = 0; k < f->n; k++)
        if (f->items[k].type == SK_JSON_STRING)
            n += strlen(f->items[k].string) + 1;
    if (!(r->files = sk_malloc(n)))
        return -1;
    r->files[0] = 0;
    for (int k = 0; k < f->n; k++)
        if (f->items[k].type == SK_JSON_STRING) {
            if (r->files[0])
                strcat(r->files, "\n");
            strcat(r->files, f->items[k].string);
        }
    return 0;
}

int series_table_add(series_table *t, const char *command, int output,
                     const sk_json_value *result, const char *files)
{
    if (!strcmp(command, "stats"))
        return result && result->type == SK_JSON_OBJECT ? stats_row(t, output, result) : -1;
    if (!strcmp(command, "profile"))
        return result && result->type == SK_JSON_OBJECT ? profile_rows(t, output, result) : -1;
    return files_row(t, output, result, files);
}

void series_table_free(series_table *t)
{
    for (int c = 0; c < t->ncols; c++)
        sk_free(t->cols[c]);
    for (int r = 0; r < t->nrows; r++) {
        sk_free(t->rows[r].v);
        sk_free(t->rows[r].files);
    }
    sk_free(t->cols);
    sk_free(t->rows);
    memset(t, 0, sizeof *t);
}

/* ---- writing ---- */

typedef struct text {
    char *buf;
    size_t len, cap;
    int failed;
} text;

static void put(text *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (s->failed || n < 0)
        return;
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = 2 * (s->len + (size_t)n + 1);
        char *b = sk_realloc(s->buf, cap);
        if (!b) {
            s->failed = 1;
            return;
        }
        s->buf = b;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

/* The columns: output, time, time_myr, [aexp, redshift], the results,
 * [files], path. A cell's text (numbers shortest, NaN "" for CSV). */
enum { C_OUTPUT = -1, C_TIME = -2, C_MYR = -3, C_AEXP = -4, C_Z = -5, C_FILES = -6, C_PATH = -7 };

static int has_files(const series_table *t)
{
    for (int r = 0; r < t->nrows; r++)
        if (t->rows[r].files)
            return 1;
    return 0;
}

static int column_ids(const series_table *t, int *ids)
{
    int n = 0;
    ids[n++] = C_OUTPUT;
    ids[n++] = C_TIME;
    ids[n++] = C_MYR;
    if (t->cosmological) {
        ids[n++] = C_AEXP;
        ids[n++] = C_Z;
    }
    for (int c = 0; c < t->ncols; c++)
        ids[n++] = c;
    if (has_files(t))
        ids[n++] = C_FILES;
    ids[n++] = C_PATH;
    return n;
}

static const char *column_name(const series_table *t, int id)
{
    static const char *const fixed[] = {"output", "time", "time_myr", "aexp", "redshift", "files",
                                        "path"};
    return id >= 0 ? t->cols[id] : fixed[-id - 1];
}

static double value(const series_table *t, const series_row *r, int id)
{
    const series_output *o = &t->outputs[r->output];
    switch (id) {
    case C_TIME: return o->time;
    case C_MYR: return o->time_myr;
    case C_AEXP: return o->aexp;
    case C_Z: return o->redshift;
    default: return id < r->nv ? r->v[id] : NAN;
    }
}

/* The cell's text into buf (files joined by spaces). */
static const char *cell(const series_table *t, const series_row *r, int id, char *buf, size_t n,
                        const char *nan)
{
    const series_output *o = &t->outputs[r->output];
    if (id == C_OUTPUT) {
        snprintf(buf, n, "%lld", o->number);
        return buf;
    }
    if (id == C_PATH)
        return o->path;
    if (id == C_FILES) {
        snprintf(buf, n, "%s", r->files ? r->files : "");
        for (char *p = buf; *p; p++)
            if (*p == '\n')
                *p = ' ';
        return buf;
    }
    double v = value(t, r, id);
    if (isnan(v))
        return nan;
    char num[SK_NUMBER_BUFSIZE];
    sk_format_double(v, num);
    snprintf(buf, n, "%s", num);
    return buf;
}

static void write_text(const series_table *t, const int *ids, int n, text *s)
{
    size_t *w = sk_calloc((size_t)n, sizeof *w);
    char buf[4096];
    if (!w) {
        s->failed = 1;
        return;
    }
    for (int k = 0; k < n; k++) {
        w[k] = strlen(column_name(t, ids[k]));
        for (int r = 0; r < t->nrows; r++) {
            size_t l = strlen(cell(t, &t->rows[r], ids[k], buf, sizeof buf, "-"));
            w[k] = l > w[k] ? l : w[k];
        }
    }
    for (int k = 0; k < n; k++)
        put(s, "%-*s%s", k + 1 < n ? (int)w[k] : 0, column_name(t, ids[k]), k + 1 < n ? "  " : "\n");
    for (int r = 0; r < t->nrows; r++)
        for (int k = 0; k < n; k++)
            put(s, "%-*s%s", k + 1 < n ? (int)w[k] : 0,
                cell(t, &t->rows[r], ids[k], buf, sizeof buf, "-"), k + 1 < n ? "  " : "\n");
    sk_free(w);
}

static void csv_field(text *s, const char *f)
{
    if (!strpbrk(f, ",\"\n")) {
        put(s, "%s", f);
        return;
    }
    put(s, "\"");
    for (const char *p = f; *p; p++)
        put(s, "%s%c", *p == '"' ? "\"" : "", *p);
    put(s, "\"");
}

static void write_csv(const series_table *t, const int *ids, int n, text *s)
{
    char buf[4096];
    for (int k = 0; k < n; k++) {
        csv_field(s, column_name(t, ids[k]));
        put(s, k + 1 < n ? "," : "\n");
    }
    for (int r = 0; r < t->nrows; r++)
        for (int k = 0; k < n; k++) {
            csv_field(s, cell(t, &t->rows[r], ids[k], buf, sizeof buf, ""));
            put(s, k + 1 < n ? "," : "\n");
        }
}

static void json_files(sk_json *j, const char *files)
{
    sk_json_array_begin(j);
    for (const char *p = files; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char *one = sk_strndup(p, l);
        sk_json_string(j, one ? one : "");
        sk_free(one);
        p += l + (e != NULL);
    }
    sk_json_array_end(j);
}

static void write_json(const series_table *t, const int *ids, int n, text *s)
{
    sk_json j;
    sk_json_init(&j, 1);
    sk_json_object_begin(&j);
    sk_json_key(&j, "columns");
    sk_json_array_begin(&j);
    for (int k = 0; k < n; k++)
        sk_json_string(&j, column_name(t, ids[k]));
    sk_json_array_end(&j);
    sk_json_key(&j, "rows");
    sk_json_array_begin(&j);
    for (int r = 0; r < t->nrows; r++) {
        const series_row *row = &t->rows[r];
        sk_json_object_begin(&j);
        for (int k = 0; k < n; k++) {
            sk_json_key(&j, column_name(t, ids[k]));
            if (ids[k] == C_OUTPUT)
                sk_json_int(&j, t->outputs[row->output].number);
            else if (ids[k] == C_PATH)
                sk_json_string(&j, t->outputs[row->output].path);
            else if (ids[k] == C_FILES)
                json_files(&j, row->files);
            else if (isnan(value(t, row, ids[k])))
                sk_json_null(&j);
            else
                sk_json_double(&j, value(t, row, ids[k]));
        }
        sk_json_object_end(&j);
    }
    sk_json_array_end(&j);
    sk_json_object_end(&j);
    put(s, "%s\n", sk_json_text(&j));
    s->failed |= j.failed;
    sk_json_free(&j);
}

int series_table_write(const series_table *t, const char *path, const char *format,
                       sk_error *err)
{
    int *ids = sk_malloc(sizeof *ids * (size_t)(t->ncols + 8));
    text s = {0};
    if (!ids)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int n = column_ids(t, ids);
    if (!strcmp(format, "csv"))
        write_csv(t, ids, n, &s);
    else if (!strcmp(format, "json"))
        write_json(t, ids, n, &s);
    else
        write_text(t, ids, n, &s);
    sk_free(ids);
    int rc = s.failed ? sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory") : SK_OK;
    if (rc == SK_OK && !strcmp(path, "-")) {
        fwrite(s.buf, 1, s.len, stdout);
    } else if (rc == SK_OK) {
        sk_atomic_file *f;
        rc = sk_atomic_open(&f, path, err);
        if (rc == SK_OK && (rc = sk_atomic_write(f, s.buf, s.len, err)) != SK_OK)
            sk_atomic_abort(f);
        else if (rc == SK_OK)
            rc = sk_atomic_commit(f, err);
    }
    sk_free(s.buf);
    return rc;
}
