/* snapkit stats --weight mass|volume|none --percentiles P,...: the weighted
 * statistics of snapkit/wstats.h, accumulated from the stream that feeds
 * the column statistics (stats.c), reduced over MPI ranks to rank 0 and
 * printed beside them (JSON key "weighted", and a second text table). */
#include "stats_weighted.h"

#include <math.h>
#include <string.h>

#include "cli_mpi.h"
#include "snapkit/util/mpi.h"
#include "snapkit/util/number.h"

const char cli_wstats_help[] =
    "  --weight W            also weighted statistics per column (docs/analysis.md): W =\n"
    "                        mass (cells: density x volume; particles: mass), volume\n"
    "                        (cells) or none; mean, std, skewness, kurtosis, min, median,\n"
    "                        max, weight_sum; exact, the same for any thread or rank count;\n"
    "                        keeps the values read (8 bytes per row and column)\n"
    "  --percentiles P,...   with --weight: exact weighted percentiles (0..100) too\n"
    "                        (--json: key \"weighted\")\n";

void cli_wstats_init(cli_wstats *w)
{
    memset(w, 0, sizeof *w);
}

/* "5,50,95" into w->pct, each in 0..100; 0 or -1 with a line. */
static int parse_percentiles(cli_wstats *w, const char *text)
{
    w->npct = 0;
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return cli_fail("--percentiles: the list is too long"), -1;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (w->npct == CLI_MAX_PERCENTILES)
            return cli_fail("--percentiles: at most %d values", CLI_MAX_PERCENTILES), -1;
        double p;
        if (cli_double("--percentiles", tok, &p))
            return -1;
        if (!(p >= 0 && p <= 100))
            return cli_fail("--percentiles: %s is outside 0..100", tok), -1;
        w->pct[w->npct++] = p;
    }
    if (w->npct == 0)
        return cli_fail("--percentiles needs values, e.g. 5,50,95"), -1;
    return 0;
}

int cli_wstats_option(cli_wstats *w, int argc, char **argv, int *i)
{
    int weight = cli_is(argv[*i], "--weight");
    if (!weight && !cli_is(argv[*i], "--percentiles"))
        return 0;
    const char *v = cli_value(argc, argv, i);
    if (!v)
        return -1;
    if (!weight)
        return parse_percentiles(w, v) ? -1 : 1;
    sk_error err;
    if (sk_weight_parse(v, &w->weight, &err) != SK_OK)
        return cli_fail("--weight: %s", err.message), -1;
    w->on = 1;
    return 1;
}

int cli_wstats_check(const cli_wstats *w)
{
    if (w->npct && !w->on) {
        cli_fail("--percentiles needs --weight (mass, volume or none)");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_wstats_begin(cli_wstats *w, int nthreads, const sk_table *schema, sk_error *err)
{
    if (!w->on)
        return SK_OK;
    w->acc = sk_calloc((size_t)nthreads, sizeof *w->acc);
    if (!w->acc)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    w->nthreads = nthreads;
    int rc = sk_wstats_acc_new(schema, w->weight, &w->all, err);
    for (int i = 0; i < nthreads && rc == SK_OK; i++)
        rc = sk_wstats_acc_new(schema, w->weight, &w->acc[i], err);
    return rc;
}

int cli_wstats_batch(cli_wstats *w, int thread, const sk_table *batch, sk_error *err)
{
    return w->on ? sk_wstats_acc_add(w->acc[thread], batch, err) : SK_OK;
}

int cli_wstats_merge_threads(cli_wstats *w, sk_error *err)
{
    int rc = SK_OK;
    for (int i = 0; w->on && w->all && i < w->nthreads && rc == SK_OK; i++)
        rc = sk_wstats_acc_merge(w->all, w->acc[i], err);
    return rc;
}

int cli_wstats_reduce(cli_wstats *w, int rc, sk_error *err)
{
    if (!w->on)
        return rc;
    rc = sk_mpi_agree(rc, err);
    return rc == SK_OK ? sk_mpi_wstats_reduce(&w->all, err) : rc;
}

int cli_wstats_result(cli_wstats *w, int threads, sk_error *err)
{
    if (!w->on)
        return SK_OK;
    if (!w->all)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "no rows were streamed");
    return sk_wstats_acc_result(w->all, w->pct, w->npct, threads, &w->result, err);
}

static void json_number(sk_json *j, const char *key, double v)
{
    sk_json_key(j, key);
    if (isfinite(v))
        sk_json_double(j, v);
    else
        sk_json_null(j);
}

static void json_column(sk_json *j, const sk_wstats *s, const sk_wstats_column *c)
{
    sk_json_key(j, c->name);
    sk_json_object_begin(j);
    json_number(j, "mean", c->mean);
    json_number(j, "std", c->std);
    json_number(j, "skewness", c->skewness);
    json_number(j, "kurtosis", c->kurtosis);
    json_number(j, "median", c->median);
    sk_json_key(j, "percentiles");
    sk_json_object_begin(j);
    for (int q = 0; q < s->npercentiles; q++) {
        char key[SK_NUMBER_BUFSIZE];
        sk_format_double(s->percentiles[q], key);
        json_number(j, key, c->percentiles[q]);
    }
    sk_json_object_end(j);
    json_number(j, "min", c->min);
    json_number(j, "max", c->max);
    json_number(j, "weight_sum", c->weight_sum);
    sk_json_object_end(j);
}

void cli_wstats_json(sk_json *j, const cli_wstats *w)
{
    if (!w || !w->on)
        return;
    const sk_wstats *s = &w->result;
    sk_json_key(j, "weighted");
    sk_json_object_begin(j);
    sk_json_kv_string(j, "weight", sk_weight_name(w->weight));
    sk_json_key(j, "columns");
    sk_json_object_begin(j);
    for (int c = 0; c < s->ncols; c++)
        json_column(j, s, &s->cols[c]);
    sk_json_object_end(j);
    sk_json_object_end(j);
}

static void cell(double v)
{
    char b[SK_NUMBER_BUFSIZE];
    sk_format_double(v, b);
    printf(" %23s", b);
}

void cli_wstats_text(const cli_wstats *w)
{
    if (!w->on)
        return;
    const sk_wstats *s = &w->result;
    static const char *const how[] = {"none (each row 1)", "mass (cells: density x volume)",
                                      "volume"};
    printf("\nweighted by %s: %lld rows\n%-16s", how[w->weight], (long long)s->rows, "column");
    static const char *const head[] = {"weight_sum", "mean", "std", "skewness",
                                       "kurtosis", "min", "median"};
    for (size_t k = 0; k < sizeof head / sizeof head[0]; k++)
        printf(" %23s", head[k]);
    for (int q = 0; q < s->npercentiles; q++) {
        char b[SK_NUMBER_BUFSIZE + 1] = "p";
        sk_format_double(s->percentiles[q], b + 1);
        printf(" %23s", b);
    }
    printf(" %23s\n", "max");
    for (int c = 0; c < s->ncols; c++) {
        const sk_wstats_column *col = &s->cols[c];
        printf("%-16s", col->name);
        double v[] = {col->weight_sum, col->mean, col->std, col->skewness,
                      col->kurtosis, col->min, col->median};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            cell(v[k]);
        for (int q = 0; q < s->npercentiles; q++)
            cell(col->percentiles[q]);
        cell(col->max);
        printf("\n");
    }
}

void cli_wstats_free(cli_wstats *w)
{
    for (int i = 0; w->acc && i < w->nthreads; i++)
        sk_wstats_acc_free(w->acc[i]);
    sk_free(w->acc);
    sk_wstats_acc_free(w->all);
    sk_wstats_free(&w->result);
    w->acc = NULL;
    w->all = NULL;
}
