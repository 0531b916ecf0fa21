/* The text tables: sink_NNNNN.csv (sinks) and the PHEW clump finder's
 * clump_NNNNN.txtCCCCC (clumps). Column names come from the files' header
 * lines; integer columns (by name, as RAMSES writes them with I formats)
 * become int32, every other column float64. Clump rows are sorted by
 * `index`, so the table does not depend on how many CPUs wrote it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ramses/internal.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

#define CAT_TEXT_MAX ((size_t)1 << 30)

/* Before the sink rewrite of July 2018, RAMSES wrote sink_NNNNN.csv
 * without a header, 13 values a row (pm/output_sink.f90, output_sink_csv:
 * idsink, msink, xsink, vsink, lsink, t - tsink, dMBHoverdt). */
static const char *const k_legacy_sink_names[] = {
    "id", "msink", "x", "y", "z", "vx", "vy", "vz", "lx", "ly", "lz", "age", "acc_rate"};
/* Written with I formats (output_sink_csv; write_clump_properties in
 * pm/clump_merger.f90). */
static const char *const k_sink_ints[] = {"id", "level", NULL};
static const char *const k_clump_ints[] = {"index", "halo", "lev", "parent", "ncell", NULL};

void rs_catalogue_init(rs_catalogue *cat, int csv)
{
    memset(cat, 0, sizeof *cat);
    cat->csv = csv;
}

void rs_catalogue_free(rs_catalogue *cat)
{
    sk_free(cat->names);
    sk_free(cat->is_int);
    sk_free(cat->values);
    rs_catalogue_init(cat, cat->csv);
}

static int is_int_name(const rs_catalogue *cat, const char *name)
{
    for (const char *const *n = cat->csv ? k_sink_ints : k_clump_ints; *n; n++)
        if (!strcmp(*n, name))
            return 1;
    return 0;
}

static int add_name(rs_catalogue *cat, const char *path, int line, const char *s, size_t n,
                    sk_error *err)
{
    if (n == 0 || n >= RS_NAME_MAX)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, -1,
                            "column name %d is empty or longer than %d bytes", cat->ncols + 1,
                            RS_NAME_MAX - 1);
    if (cat->ncols % 16 == 0) {
        size_t cap = (size_t)cat->ncols + 16;
        void *names = sk_realloc(cat->names, cap * sizeof *cat->names);
        if (names)
            cat->names = names;
        char *is_int = names ? sk_realloc(cat->is_int, cap) : NULL;
        if (!names || !is_int)
            return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        cat->is_int = is_int;
    }
    memcpy(cat->names[cat->ncols], s, n);
    cat->names[cat->ncols][n] = '\0';
    for (int j = 0; j < cat->ncols; j++)
        if (!strcmp(cat->names[j], cat->names[cat->ncols]))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, -1, "column %s named twice",
                                cat->names[j]);
    cat->is_int[cat->ncols] = (char)is_int_name(cat, cat->names[cat->ncols]);
    cat->ncols++;
    return SK_OK;
}

/* The next field of a line from *p: comma-separated (csv) or blank-
 * separated, without surrounding blanks. 0 at the end of the line. */
static int next_field(int csv, const char **p, const char *end, const char **s, const char **e)
{
    const char *q = *p;
    if (csv) {
        if (q > end)
            return 0;
        const char *c = memchr(q, ',', (size_t)(end - q));
        *s = q;
        *e = c ? c : end;
        *p = c ? c + 1 : end + 1;
    } else {
        while (q < end && isspace((unsigned char)*q))
            q++;
        if (q == end)
            return 0;
        *s = q;
        while (q < end && !isspace((unsigned char)*q))
            q++;
        *e = *p = q;
    }
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
    return 1;
}

static int parse_names(rs_catalogue *cat, const char *path, int line, const char *s,
                       const char *end, sk_error *err)
{
    const char *p = s, *fs, *fe;
    cat->header_line = line;
    while (next_field(cat->csv, &p, end, &fs, &fe)) {
        int rc = add_name(cat, path, line, fs, (size_t)(fe - fs), err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

/* A header line of a later file must name the same columns. */
static int same_names(const rs_catalogue *cat, const char *path, int line, const char *s,
                      const char *end, sk_error *err)
{
    rs_catalogue other;
    rs_catalogue_init(&other, cat->csv);
    int rc = parse_names(&other, path, line, s, end, err);
    int same = rc == SK_OK && other.ncols == cat->ncols;
    for (int j = 0; same && j < cat->ncols; j++)
        same = !strcmp(other.names[j], cat->names[j]);
    rs_catalogue_free(&other);
    if (rc == SK_OK && !same)
        rc = sk_fail_text(err, SK_ERR_FORMAT, path, line, -1,
                          "the header names other columns than %s's", cat->first_path);
    return rc;
}

/* A Fortran real: also 1.0000000000-100, the E format's form for
 * exponents of three digits (the E is dropped). */
static int parse_real(const char *s, const char *e, double *v)
{
    const char *stop;
    if (!sk_parse_double(s, e, v, &stop))
        return 0;
    if (stop < e && (*stop == '+' || *stop == '-') && stop > s &&
        isdigit((unsigned char)stop[-1]) && e - s < 64) {
        char buf[72];
        size_t m = (size_t)(stop - s);
        memcpy(buf, s, m);
        buf[m] = 'E';
        memcpy(buf + m + 1, stop, (size_t)(e - stop));
        if (!sk_parse_double(buf, buf + (e - s) + 1, v, &stop) || stop != buf + (e - s) + 1)
            return 0;
        stop = e;
    }
    return stop == e;
}

static int is_named_special(const char *s, const char *e)
{
    for (; s < e; s++)
        if (strchr("iInN", *s))
            return 1;
    return 0;
}

static int parse_value(const rs_catalogue *cat, int j, const char *path, int line, int col,
                       const char *s, const char *e, double *out, sk_error *err)
{
    int n = (int)(e - s > 40 ? 40 : e - s);
    if (cat->is_int[j]) {
        int64_t v;
        const char *stop;
        if (!sk_parse_int64(s, e, &v, &stop) || stop != e)
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, col,
                                "%s: '%.*s' is not an integer", cat->names[j], n, s);
        if (v < INT32_MIN || v > INT32_MAX)
            return sk_fail_text(err, SK_ERR_RANGE, path, line, col,
                                "%s: %lld does not fit in int32", cat->names[j], (long long)v);
        *out = (double)v;
        return SK_OK;
    }
    if (!parse_real(s, e, out))
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, col, "%s: '%.*s' is not a number",
                            cat->names[j], n, s);
    if (isinf(*out) && !is_named_special(s, e))
        return sk_fail_text(err, SK_ERR_RANGE, path, line, col,
                            "%s: '%.*s' overflows float64", cat->names[j], n, s);
    return SK_OK;
}

static int grow_rows(rs_catalogue *cat, const char *path, sk_error *err)
{
    if (cat->nrows < cat->cap)
        return SK_OK;
    int64_t cap = cat->cap ? 2 * cat->cap : 16;
    if ((uint64_t)cap > SIZE_MAX / sizeof(double) / (size_t)cat->ncols)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "too many rows");
    double *v = sk_realloc(cat->values, (size_t)cap * (size_t)cat->ncols * sizeof *v);
    if (!v)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    cat->values = v;
    cat->cap = cap;
    return SK_OK;
}

int rs_catalogue_add_column(rs_catalogue *cat, const char *path, const char *name, int is_int,
                            sk_error *err)
{
    int rc = add_name(cat, path, 0, name, strlen(name), err);
    if (rc == SK_OK)
        cat->is_int[cat->ncols - 1] = (char)is_int;
    return rc;
}

double *rs_catalogue_add_rows(rs_catalogue *cat, const char *path, int64_t n, sk_error *err)
{
    while (cat->cap < cat->nrows + n) {
        int64_t nrows = cat->nrows;
        cat->nrows = cat->cap; /* grow_rows grows a full table */
        int rc = grow_rows(cat, path, err);
        cat->nrows = nrows;
        if (rc != SK_OK)
            return NULL;
    }
    double *first = cat->values + (size_t)cat->nrows * (size_t)cat->ncols;
    cat->nrows += n;
    return first;
}

static int parse_row(rs_catalogue *cat, const char *path, int line, const char *s,
                     const char *end, sk_error *err)
{
    int rc = grow_rows(cat, path, err);
    double *row = rc == SK_OK ? cat->values + (size_t)cat->nrows * (size_t)cat->ncols : NULL;
    const char *p = s, *fs, *fe;
    int n = 0;
    while (rc == SK_OK && next_field(cat->csv, &p, end, &fs, &fe)) {
        if (n < cat->ncols)
            rc = parse_value(cat, n, path, line, (int)(fs - s) + 1, fs, fe, &row[n], err);
        n++;
    }
    if (rc == SK_OK && n != cat->ncols && cat->header_line == 0)
        rc = sk_fail_text(err, SK_ERR_FORMAT, path, line, -1,
                          "%d values and no header line (the sink files of RAMSES before "
                          "2018 have %d values a row)", n, cat->ncols);
    else if (rc == SK_OK && n != cat->ncols)
        rc = sk_fail_text(err, SK_ERR_FORMAT, path, line, -1,
                          "%d values, but the header (line %d) names %d columns", n,
                          cat->header_line, cat->ncols);
    if (rc == SK_OK)
        cat->nrows++;
    return rc;
}

static int legacy_sink_names(rs_catalogue *cat, const char *path, sk_error *err)
{
    for (size_t j = 0; j < sizeof k_legacy_sink_names / sizeof *k_legacy_sink_names; j++) {
        int rc = add_name(cat, path, 0, k_legacy_sink_names[j], strlen(k_legacy_sink_names[j]),
                          err);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int is_blank(const char *s, const char *e)
{
    while (s < e && isspace((unsigned char)*s))
        s++;
    return s == e;
}

/* One line of a file; *state: 0 before its header, 1 after. */
static int parse_line(rs_catalogue *cat, const char *path, int line, const char *s,
                      const char *e, int *state, sk_error *err)
{
    const char *t = s;
    while (t < e && isspace((unsigned char)*t))
        t++;
    if (cat->csv && t < e && *t == '#') {
        /* The first # line names the columns, the second gives units. */
        if (*state)
            return SK_OK;
        *state = 1;
        return cat->ncols ? same_names(cat, path, line, t + 1, e, err)
                          : parse_names(cat, path, line, t + 1, e, err);
    }
    if (!*state && cat->csv) {
        *state = 1;
        int rc = cat->ncols ? SK_OK : legacy_sink_names(cat, path, err);
        if (rc != SK_OK)
            return rc;
    } else if (!*state) {
        *state = 1;
        double v;
        const char *fs, *fe, *p = t;
        if (next_field(0, &p, e, &fs, &fe) && parse_real(fs, fe, &v))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int)(fs - s) + 1,
                                "expected the header line of column names, found a number");
        return cat->ncols ? same_names(cat, path, line, s, e, err)
                          : parse_names(cat, path, line, s, e, err);
    }
    return parse_row(cat, path, line, s, e, err);
}

int rs_catalogue_parse(rs_catalogue *cat, const char *path, const char *text, size_t len,
                       sk_error *err)
{
    int64_t rows0 = cat->nrows;
    int state = 0, line = 0, rc = SK_OK;
    if (!cat->first_path[0])
        snprintf(cat->first_path, sizeof cat->first_path, "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    for (const char *s = text, *end = text + len; s < end && rc == SK_OK;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
        line++;
        if (memchr(s, '\0', (size_t)(e - s)))
            rc = sk_fail_text(err, SK_ERR_FORMAT, path, line, -1, "NUL byte in a text table");
        else if (!is_blank(s, e))
            rc = parse_line(cat, path, line, s, e, &state, err);
        s = nl ? nl + 1 : end;
    }
    if (rc == SK_OK && !state && !cat->csv)
        rc = sk_fail_text(err, SK_ERR_FORMAT, path, 1, -1,
                          "no header line of column names (empty file)");
    /* Without sinks, RAMSES before 2018 wrote an empty file. */
    if (rc == SK_OK && !state && cat->csv && !cat->ncols)
        rc = legacy_sink_names(cat, path, err);
    if (rc != SK_OK)
        cat->nrows = rows0;
    return rc;
}

/* --- Reading a component --- */

static int column_of(const rs_catalogue *cat, const char *name)
{
    for (int j = 0; j < cat->ncols; j++)
        if (!strcmp(cat->names[j], name))
            return j;
    return -1;
}

static int read_file(rs_read_ctx *ctx, const char *path, rs_catalogue *cat, sk_error *err)
{
    char *text;
    size_t len;
    int rc = rs_read_text(path, CAT_TEXT_MAX, &text, &len, err);
    if (rc == SK_OK) {
        rc = rs_catalogue_parse(cat, path, text, len, err);
        ctx->bytes_read += (int64_t)len;
        ctx->progress_bytes += (int64_t)len;
        sk_free(text);
    }
    return rc;
}

/* Every CPU's binary sink file holds all sinks: the first is read. */
static int read_binary_sinks(rs_read_ctx *ctx, rs_catalogue *cat, sk_error *err)
{
    const sk_ramses *r = ctx->r;
    char path[4096];
    snprintf(path, sizeof path, "%s/sink_%05d.out00001", r->dir, r->info.output);
    rs_mapped m;
    int rc = rs_map(path, &m, err);
    if (rc != SK_OK)
        return rc;
    rc = rs_sink_binary_parse(cat, path, m.data, m.size, r->info.ndim, err);
    ctx->bytes_read += (int64_t)m.size;
    ctx->progress_bytes += (int64_t)m.size;
    rs_unmap(&m);
    return rc;
}

static int read_files(rs_read_ctx *ctx, rs_kind kind, rs_catalogue *cat, sk_error *err)
{
    const sk_ramses *r = ctx->r;
    char path[4096];
    int rc = SK_OK;
    if (kind == RS_SINKS && r->sinks_binary)
        return read_binary_sinks(ctx, cat, err);
    for (int k = 0; k < ctx->ncpus && rc == SK_OK; k++) {
        rs_cpu_path(r, kind, ctx->cpus[k], path, sizeof path);
        rc = read_file(ctx, path, cat, err);
        const sk_progress *p = &ctx->opt->progress;
        if (rc == SK_OK && p->fn)
            p->fn(p->ctx, k + 1, ctx->ncpus, ctx->progress_bytes);
    }
    return rc;
}

static int by_index(const void *a, const void *b, void *ctx)
{
    const rs_catalogue *cat = ctx;
    int64_t i = *(const int64_t *)a, k = *(const int64_t *)b;
    double x = cat->values[(size_t)i * (size_t)cat->ncols + (size_t)cat->sort_col];
    double y = cat->values[(size_t)k * (size_t)cat->ncols + (size_t)cat->sort_col];
    return x < y ? -1 : x > y ? 1 : (i > k) - (i < k);
}

/* The rows in the box, in output order, into rows[]; their count. */
static int64_t pick_rows(const rs_catalogue *cat, const sk_selection *sel, const int pos[3],
                         double boxlen, int64_t *rows)
{
    int64_t n = 0;
    for (int64_t i = 0; i < cat->nrows; i++) {
        const double *v = cat->values + (size_t)i * (size_t)cat->ncols;
        if (!sk_selection_has_region(sel) ||
            sk_selection_contains(sel, v[pos[0]] / boxlen, v[pos[1]] / boxlen, v[pos[2]] / boxlen))
            rows[n++] = i;
    }
    if (cat->sort_col >= 0)
        qsort_r(rows, (size_t)n, sizeof *rows, by_index, (void *)cat);
    return n;
}

static int check_selection(const rs_catalogue *cat, const char *what, const char *path,
                           const sk_selection *sel, int pos[3], const char *const axes[3],
                           sk_error *err)
{
    for (int d = 0; d < 3; d++) {
        pos[d] = column_of(cat, axes[d]);
        if (sk_selection_has_region(sel) && pos[d] < 0)
            return sk_fail(err, SK_ERR_FORMAT, path, -1,
                           "%s have no %s column to select a region by", what, axes[d]);
    }
    for (int v = 0; v < sel->nvars; v++)
        if (column_of(cat, sel->vars[v]) < 0) {
            char list[1024] = "";
            size_t n = 0;
            for (int j = 0; j < cat->ncols && n < sizeof list; j++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "",
                                      cat->names[j]);
            return sk_fail(err, SK_ERR_ARG, path, -1, "%s have no column '%s' (they have: %s)",
                           what, sel->vars[v], list);
        }
    return SK_OK;
}

static int fill_table(const rs_catalogue *cat, const sk_selection *sel, const int64_t *rows,
                      int64_t n, sk_table *t, sk_error *err)
{
    for (int j = 0; j < cat->ncols; j++) {
        if (!sk_selection_wants(sel, cat->names[j]))
            continue;
        void *col = sk_table_add(t, cat->names[j], cat->is_int[j] ? SK_INT32 : SK_FLOAT64, err);
        if (!col)
            return err && err->code ? err->code : SK_ERR_NOMEM;
        for (int64_t i = 0; i < n; i++) {
            double v = cat->values[(size_t)rows[i] * (size_t)cat->ncols + (size_t)j];
            if (cat->is_int[j])
                ((int32_t *)col)[i] = (int32_t)v;
            else
                ((double *)col)[i] = v;
        }
    }
    return SK_OK;
}

int rs_read_catalogue(rs_read_ctx *ctx, rs_kind kind, sk_table **out, sk_error *err)
{
    static const char *const sink_axes[3] = {"x", "y", "z"};
    static const char *const clump_axes[3] = {"peak_x", "peak_y", "peak_z"};
    rs_catalogue cat;
    rs_catalogue_init(&cat, kind == RS_SINKS);
    int rc = read_files(ctx, kind, &cat, err), pos[3];
    if (rc == SK_OK)
        rc = check_selection(&cat, kind == RS_SINKS ? "sinks" : "clumps", ctx->r->dir, ctx->sel,
                             pos, kind == RS_SINKS ? sink_axes : clump_axes, err);
    cat.sort_col = kind == RS_CLUMPS ? column_of(&cat, "index") : -1;
    int64_t *rows = rc == SK_OK ? sk_malloc(sizeof *rows * (size_t)(cat.nrows + 1)) : NULL;
    if (rc == SK_OK && !rows)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_table *t = NULL;
    if (rc == SK_OK) {
        int64_t n = pick_rows(&cat, ctx->sel, pos, ctx->r->info.boxlen, rows);
        t = sk_table_new(n);
        rc = t ? fill_table(&cat, ctx->sel, rows, n, t, err)
               : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    if (rc == SK_OK && pos[0] >= 0 && pos[1] >= 0 && pos[2] >= 0 &&
        sk_table_meta_setf(t, "position_columns", "%s,%s,%s", cat.names[pos[0]],
                           cat.names[pos[1]], cat.names[pos[2]]) != SK_OK)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    sk_free(rows);
    rs_catalogue_free(&cat);
    if (rc != SK_OK) {
        sk_table_free(t);
        return rc;
    }
    *out = t;
    return SK_OK;
}
