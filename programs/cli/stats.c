/* snapkit stats: read one component of a source with a selection and
 * print per-column statistics.
 *
 * The reading is cli_stream_source() (source.c): it streams the component
 * of SOURCE (opened with sk_source_open_mpi) with the selection in batches (one CPU
 * file or one chunk) to a per-thread mergeable accumulator
 * (sk_stats_acc), so the whole table is never allocated; the merged
 * statistics have the bits of sk_table_stats_compute on the whole table. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "cli_totals.h"
#include "derive_cli.h"
#include "stats_weighted.h"
#include "store_cli.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"
#include "snapkit/util/number.h"

static const char k_help[] =
    "usage: snapkit stats SOURCE [--component NAME] [selection]\n"
    "                     [--weight W [--percentiles P,...]] [--totals] [--clip]\n"
    "                     [--threads N] [--recompute] [--json]\n"
    "       snapkit stats --list-quantities [--json]\n\n"
    "Read one component of SOURCE (a RAMSES output folder or a .snapkit file) and print,\n"
    "per column, the "
    "minimum, maximum, sum and (cells) volume-weighted sum, in code units as stored;\n"
    "rows per level for cells; the files opened, the wall time, the size of the rows\n"
    "read and the bytes snapkit allocated. The rows are streamed (one CPU file or chunk\n"
    "per thread at a time), never held whole; sums are exact, rounded once, so they do\n"
    "not depend on the thread count or on the source's row order. A .snapkit file\n"
    "(format 1.1) stores the statistics of each table: when the selection keeps every\n"
    "row (--vars only picks columns) they are printed from the file's footer, no\n"
    "chunk read (the same bits).\n\n"
    "  --component C         hydro (default), gravity, particles, rt, clump_field, sinks\n"
    "                        or clumps (catalogues: no levels, no volume sums)\n"
    "%s"
    "                        --vars also takes derived quantities (r, v_phi, T, ...) about\n"
    "                        --center, --cylinder-axis and --bulk-velocity\n"
    "  --list-quantities     list the derived quantities and their formulas, and exit\n"
    "  --threads N           use at most N threads (default: the job's budget)\n"
    "  --recompute           read the rows even when the file stores the statistics\n"
    "  --totals              also the totals of the rows (code units): mass, volume (cells),\n"
    "                        centre of mass, bulk velocity, angular momentum and its\n"
    "                        direction, about the --center when given (relative to\n"
    "                        --bulk-velocity when given, else to the bulk velocity), else\n"
    "                        about the centre of mass; in the same pass (JSON: totals)\n"
    "  --clip                cells cut by the region's boundary count in part: each row\n"
    "                        weighs by the fraction of its cell inside the region (column\n"
    "                        clip; exact for a box, 16x16 columns per cut cell, each\n"
    "                        exact, for a shape); sums, volume sums, --weight and\n"
    "                        --totals use value x clip, mass x clip, volume x clip; min\n"
    "                        and max are those of the cells touched (docs/analysis.md)\n"
    "                        (JSON: clip{rule, cells, clipped_cells, volume})\n"
    "  --json                one JSON object: component, rows, levels, columns{min, max,\n"
    "                        sum, volume_sum}, files_opened (chunks_read), stored\n"
    "                        (statistics from the footer), seconds, result_bytes,\n"
    "                        bytes_allocated\n";

static void json_number(sk_json *j, const char *key, double v)
{
    sk_json_key(j, key);
    if (isnan(v))
        sk_json_null(j);
    else
        sk_json_double(j, v);
}

/* What a stats run prints besides the column statistics (NULL members:
 * nothing). */
typedef struct stats_extras {
    const cli_wstats *ws; /* --weight */
    const sk_totals *totals; /* --totals */
    int about_com;        /* the totals' angular momentum is about the centre of mass */
    const char *clip;     /* --clip: the rule (sk_clip_rule), else NULL */
} stats_extras;

/* A stats run's options. */
typedef struct stats_request {
    int threads, recompute, json, totals, clip;
    cli_wstats *ws;
    sk_derive_set *derived; /* the derived quantities --vars names, or NULL */
} stats_request;

/* The clip column's statistics (NULL when there is none). */
static const sk_column_stats *clip_column(const sk_table_stats *s)
{
    for (int c = 0; c < s->ncols; c++)
        if (!strcmp(s->cols[c].name, SK_CLIP_COLUMN))
            return &s->cols[c];
    return NULL;
}

/* --clip's member: the rule, the cells touched, the sum of their
 * fractions and the volume inside. */
static void clip_json(sk_json *j, const sk_table_stats *s, const char *rule)
{
    const sk_column_stats *f = clip_column(s);
    sk_json_key(j, "clip");
    sk_json_object_begin(j);
    sk_json_kv_string(j, "rule", rule);
    if (!strcmp(rule, "columns"))
        sk_json_kv_int(j, "columns", SK_CLIP_COLUMNS);
    sk_json_kv_int(j, "cells", s->rows);
    json_number(j, "clipped_cells", f ? f->sum : 0.0);
    json_number(j, "volume", f ? f->volume_sum : 0.0);
    sk_json_object_end(j);
}

static void clip_text(const sk_table_stats *s, const char *rule)
{
    const sk_column_stats *f = clip_column(s);
    char a[SK_NUMBER_BUFSIZE], b[SK_NUMBER_BUFSIZE];
    sk_format_double(f ? f->sum : 0.0, a);
    sk_format_double(f ? f->volume_sum : 0.0, b);
    if (!strcmp(rule, "exact"))
        printf("\nclipped (exact: a box)");
    else
        printf("\nclipped (a shape: %dx%d columns per cut cell)", SK_CLIP_COLUMNS,
               SK_CLIP_COLUMNS);
    printf(": %lld cells touched, worth %s cells, volume %s inside\n", (long long)s->rows, a, b);
}

static void print_json(const char *component, const cli_source_read *res,
                       const sk_table_stats *s, int stored, const stats_extras *x)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "component", component);
    sk_json_kv_int(&j, "rows", s->rows);
    if (s->is_cells) {
        sk_json_key(&j, "levels");
        sk_json_object_begin(&j);
        for (int l = 0; l <= SK_STATS_MAX_LEVEL; l++)
            if (s->levels[l]) {
                char key[8];
                snprintf(key, sizeof key, "%d", l);
                sk_json_kv_int(&j, key, s->levels[l]);
            }
        sk_json_object_end(&j);
    }
    sk_json_key(&j, "columns");
    sk_json_object_begin(&j);
    for (int c = 0; c < s->ncols; c++) {
        const sk_column_stats *cs = &s->cols[c];
        if (cs->is_cell_index)
            continue;
        sk_json_key(&j, cs->name);
        sk_json_object_begin(&j);
        json_number(&j, "min", cs->min);
        json_number(&j, "max", cs->max);
        json_number(&j, "sum", cs->sum);
        if (s->is_cells)
            json_number(&j, "volume_sum", cs->volume_sum);
        sk_json_object_end(&j);
    }
    sk_json_object_end(&j);
    sk_json_kv_int(&j, res->chunks ? "chunks_read" : "files_opened", res->stats.files_opened);
    sk_json_key(&j, "stored");
    sk_json_bool(&j, stored);
    sk_json_kv_double(&j, "seconds", res->stats.seconds);
    sk_json_kv_int(&j, "result_bytes", res->result_bytes);
    sk_json_kv_int(&j, "bytes_allocated", res->stats.bytes_allocated);
    sk_json_kv_int(&j, "ranks", res->ranks);
    if (x) {
        cli_wstats_json(&j, x->ws);
        if (x->totals)
            cli_totals_json(&j, x->totals, x->about_com);
        if (x->clip)
            clip_json(&j, s, x->clip);
    }
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

/* Shortest text that reads back to v ("nan" for an empty column). */
static const char *shortest(double v, char *buf)
{
    sk_format_double(v, buf);
    return buf;
}

static void print_read(const char *component, const cli_source_read *res,
                       const sk_table_stats *s)
{
    char b1[32], b2[32], b3[32], b4[32];
    int64_t result = res->result_bytes;
    printf("%s: %lld rows from %d of %d %s in %.3f s", component, (long long)s->rows,
           res->stats.files_opened, res->files_total, res->chunks ? "chunks" : "files",
           res->stats.seconds);
    printf(res->ranks > 1 ? " on %d MPI ranks\n" : "\n", res->ranks);
    printf("read %s of %s (%s/s); result %s; allocated %s (%.2fx the result)\n",
           cli_bytes((double)res->stats.bytes_read, b1, sizeof b1),
           res->chunks ? "the file" : "files",
           cli_bytes(res->stats.seconds > 0 ? (double)res->stats.bytes_read / res->stats.seconds : 0,
                     b2, sizeof b2),
           cli_bytes((double)result, b3, sizeof b3),
           cli_bytes((double)res->stats.bytes_allocated, b4, sizeof b4),
           result ? (double)res->stats.bytes_allocated / (double)result : 0.0);
}

static void print_text(const char *component, const cli_source_read *res,
                       const sk_table_stats *s, int stored, const stats_extras *x)
{
    if (stored)
        printf("%s: %lld rows; statistics stored in the file, 0 of %d chunks read, in %.3f s\n"
               "(--recompute reads the chunks)\n",
               component, (long long)s->rows, res->files_total, res->stats.seconds);
    else
        print_read(component, res, s);
    if (s->is_cells) {
        printf("\nlevel        rows\n");
        for (int l = 0; l <= SK_STATS_MAX_LEVEL; l++)
            if (s->levels[l])
                printf("%5d %11lld\n", l, (long long)s->levels[l]);
    }
    printf("\n%-16s %24s %24s %24s", "column", "min", "max", "sum");
    printf(s->is_cells ? " %24s\n" : "\n", "volume_sum");
    for (int c = 0; c < s->ncols; c++) {
        const sk_column_stats *cs = &s->cols[c];
        if (cs->is_cell_index)
            continue;
        char a[SK_NUMBER_BUFSIZE], b[SK_NUMBER_BUFSIZE], c3[SK_NUMBER_BUFSIZE];
        printf("%-16s %24s %24s %24s", cs->name, shortest(cs->min, a), shortest(cs->max, b),
               shortest(cs->sum, c3));
        if (s->is_cells)
            printf(" %24s", shortest(cs->volume_sum, a));
        printf("\n");
    }
    if (x && x->clip)
        clip_text(s, x->clip);
    if (x && x->totals)
        cli_totals_print(x->totals, x->about_com);
}

/* Per-thread accumulators of a stream and the bytes of the rows seen. */
typedef struct stats_stream {
    int nthreads;
    sk_stats_acc **acc;
    int64_t *bytes;
    sk_stats_acc *all; /* the merged result's owner */
    cli_wstats *ws;    /* --weight's accumulators */
} stats_stream;

static int stats_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    stats_stream *st = ctx;
    st->acc = sk_calloc((size_t)nthreads, sizeof *st->acc);
    st->bytes = sk_calloc((size_t)nthreads, sizeof *st->bytes);
    if (!st->acc || !st->bytes)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    st->nthreads = nthreads;
    int rc = sk_stats_acc_new(schema, &st->all, err);
    for (int i = 0; i < nthreads && rc == SK_OK; i++)
        rc = sk_stats_acc_new(schema, &st->acc[i], err);
    return rc == SK_OK ? cli_wstats_begin(st->ws, nthreads, schema, err) : rc;
}

static int stats_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                       sk_error *err)
{
    stats_stream *st = ctx;
    st->bytes[thread] += sk_table_bytes(batch);
    /* The source's number (CPU file, chunk) orders batches of every MPI
     * rank alike, as the index of one process's read does. */
    int rc = sk_stats_acc_add(st->acc[thread], batch, info->source, err);
    return rc == SK_OK ? cli_wstats_batch(st->ws, thread, batch, err) : rc;
}

/* Merge the threads' accumulators into st->all (exact: any order gives the
 * same bits); *bytes gets the rows' bytes. st->all stays NULL when nothing
 * was streamed (an MPI rank whose share is empty). */
static int stats_merge_threads(stats_stream *st, int64_t *bytes, sk_error *err)
{
    int rc = SK_OK;
    *bytes = 0;
    for (int i = 0; st->all && i < st->nthreads && rc == SK_OK; i++) {
        rc = sk_stats_acc_merge(st->all, st->acc[i], err);
        *bytes += st->bytes[i];
    }
    return rc == SK_OK ? cli_wstats_merge_threads(st->ws, err) : rc;
}

static void stats_free(stats_stream *st)
{
    for (int i = 0; st->acc && i < st->nthreads; i++)
        sk_stats_acc_free(st->acc[i]);
    sk_free(st->acc);
    sk_free(st->bytes);
    sk_stats_acc_free(st->all);
    cli_wstats_free(st->ws);
}

/* Print the statistics a .snapkit file stores for the component and the
 * selection; SK_ERR_EMPTY when it stores none or the selection keeps part
 * of the rows (the caller reads them). Under MPI every rank looks and
 * they agree, so that all read the rows or none does; rank 0 prints. */
static int print_stored(const sk_source *src, const char *component, const cli_selection *cs,
                        int json, sk_error *err)
{
    sk_table_stats s = {0};
    cli_source_read res;
    int rc = sk_mpi_agree(cli_store_stored_stats(src, component, cs, &s, &res, err), err);
    if (rc == SK_OK && cli_mpi_world()->rank == 0) {
        if (json)
            print_json(component, &res, &s, 1, NULL);
        else
            print_text(component, &res, &s, 1, NULL);
    }
    sk_table_stats_free(&s);
    return rc;
}

/* --clip: a stage before `consumer` that weighs each cell by its part in
 * cs's region (the read itself is widened: cs->clip). */
static int clip_stage(const sk_source *src, const char *component, const cli_selection *cs,
                      sk_consumer *consumer, sk_clip_stage **stage, const char **rule,
                      sk_error *err)
{
    sk_selection region;
    sk_selection_init(&region);
    int rc = cli_source_selection(src, component, cs, &region, err);
    if (rc == SK_OK)
        rc = sk_clip_stage_new(&region, stage, err);
    *rule = sk_clip_rule(&region);
    if (rc == SK_OK)
        *consumer = sk_clip_stage_consumer(*stage, consumer);
    sk_selection_clear(&region);
    return rc;
}

/* The statistics of `component` of the open source: those a .snapkit
 * file stores when they answer (not with recompute or --weight), else from
 * streaming the rows. Returns the exit status. */
static int stats_of(sk_source *src, const char *component, const cli_selection *cs,
                    const stats_request *q)
{
    sk_error err;
    sk_error_clear(&err);
    cli_wstats *ws = q->ws;
    if (!q->recompute && !ws->on && !q->totals && sk_source_store(src)) {
        int rc = print_stored(src, component, cs, q->json, &err);
        if (rc != SK_ERR_EMPTY)
            return rc == SK_OK ? CLI_OK : cli_error(&err);
        sk_error_clear(&err);
    }
    stats_stream st = {.ws = ws};
    sk_consumer consumer = {.ctx = &st, .begin = stats_begin, .batch = stats_batch};
    if (q->derived) /* the rows gain the derived quantities --vars names */
        consumer = sk_derive_set_consumer(q->derived, &consumer);
    cli_totals_tee tee = {0};
    sk_totals tot;
    int rc = q->totals ? cli_totals_tee_init(&tee, src, component, cs, &consumer, &err) : SK_OK;
    if (q->totals) /* the totals see the rows as read, before the derived columns */
        consumer = cli_totals_tee_consumer(&tee);
    sk_clip_stage *clip = NULL;
    const char *rule = NULL;
    if (rc == SK_OK && q->clip) /* first: every consumer sees the clip column */
        rc = clip_stage(src, component, cs, &consumer, &clip, &rule, &err);
    cli_source_read res;
    /* Under MPI each rank streams its share; the ranks agree on the status
     * before any reduction, so a rank's failure stops them all alike. */
    if (rc == SK_OK)
        rc = cli_stream_source(src, component, cs, q->threads, &consumer, &res, &err);
    if (rc == SK_OK)
        rc = stats_merge_threads(&st, &res.result_bytes, &err);
    rc = sk_mpi_agree(rc, &err);
    if (rc == SK_OK && q->totals)
        rc = cli_totals_tee_finish(&tee, &tot, &err);
    if (rc == SK_OK)
        rc = cli_mpi_sum_read(&res, &err);
    if (rc == SK_OK)
        rc = sk_mpi_stats_reduce(&st.all, &err);
    rc = cli_wstats_reduce(ws, rc, &err);
    if (rc == SK_OK && cli_mpi_world()->rank == 0) { /* rank 0 prints */
        sk_table_stats s = {0};
        rc = st.all ? sk_stats_acc_result(st.all, &s, &err)
                    : sk_fail(&err, SK_ERR_ARG, NULL, -1, "no rows were streamed");
        if (rc == SK_OK)
            rc = cli_wstats_result(ws, q->threads, &err);
        if (rc == SK_OK) {
            stats_extras x = {.ws = ws, .totals = q->totals ? &tot : NULL,
                              .about_com = !cs->region.has_center,
                              .clip = rule};
            if (q->json) {
                print_json(component, &res, &s, 0, &x);
            } else {
                print_text(component, &res, &s, 0, &x);
                cli_wstats_text(ws);
            }
        }
        sk_table_stats_free(&s);
    }
    stats_free(&st);
    cli_totals_tee_free(&tee);
    sk_clip_stage_free(clip);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}

int cmd_stats(int argc, char **argv)
{
    const char *source = NULL, *component = "hydro";
    int json = 0, recompute = 0, list = 0, totals = 0;
    long long threads = 0;
    cli_selection cs;
    cli_selection_init(&cs);
    cli_wstats ws;
    cli_wstats_init(&ws);
    for (int i = 1; i < argc; i++) {
        int sel = cli_selection_option(&cs, argc, argv, &i);
        if (sel == 0)
            sel = cli_wstats_option(&ws, argc, argv, &i);
        if (sel < 0)
            return CLI_USAGE;
        if (sel > 0)
            continue;
        if (cli_is(argv[i], "--help") || cli_is(argv[i], "-h")) {
            printf(k_help, cli_selection_help);
            fputs(cli_wstats_help, stdout);
            return CLI_OK;
        } else if (cli_is(argv[i], "--json")) {
            json = 1;
        } else if (cli_is(argv[i], "--list-quantities")) {
            list = 1;
        } else if (cli_is(argv[i], "--recompute")) {
            recompute = 1;
        } else if (cli_is(argv[i], "--totals")) {
            totals = 1;
        } else if (cli_is(argv[i], "--clip")) {
            cs.clip = 1;
        } else if (cli_is(argv[i], "--component")) {
            if (!(component = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (cli_is(argv[i], "--threads")) {
            if (cli_int_value(argc, argv, &i, &threads))
                return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("stats", "unknown option '%s'", argv[i]);
        } else if (source) {
            return cli_usage("stats", "one SOURCE only ('%s' and '%s')", source, argv[i]);
        } else {
            source = argv[i];
        }
    }
    if (list)
        return cli_derive_list(json);
    if (!source)
        return cli_usage("stats", "missing SOURCE");
    if (cli_wstats_check(&ws) != CLI_OK)
        return CLI_USAGE;
    if (cs.clip && !cs.region.shape && !cs.region.has_range[0] && !cs.region.has_range[1] &&
        !cs.region.has_range[2])
        return cli_usage("stats", "--clip needs a region to clip cells to (--xrange, --yrange, "
                                  "--zrange or a shape)");
    sk_error err;
    sk_error_clear(&err);
    sk_source *src;
    if (sk_source_open_mpi(&src, source, &err) != SK_OK)
        return cli_error(&err);
    /* centres and frames found from the data, before the statistics' read */
    if (cli_selection_resolve(src, &cs, (int)threads, NULL, &err) != SK_OK) {
        sk_source_close(src);
        return cli_error(&err);
    }
    sk_derive_set *derived;
    cli_selection read;
    int status = CLI_FAIL;
    if (cli_derive_take_vars(src, component, &cs, &read, &derived, &err) == SK_OK) {
        stats_request q = {.threads = (int)threads, .recompute = recompute || derived || cs.clip,
                           .json = json, .totals = totals, .clip = cs.clip, .ws = &ws,
                           .derived = derived};
        status = stats_of(src, component, &read, &q);
    } else {
        status = cli_error(&err);
    }
    sk_derive_set_free(derived);
    sk_source_close(src);
    return status;
}
