/* snapkit clumps: read the cells of a source with a selection, find clumps
 * above a threshold and write their catalogue (and each cell's clump id).
 * The finding is sk_clumps_find (lib/clumps); this file parses, reads
 * through cli_read_source (source.c) and reports. */
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "clumps_write.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"

static const char k_help[] =
    "usage: snapkit clumps SOURCE --threshold V -o clumps.csv|.json|.fits|.h5|.snapkit [options]\n"
    "       snapkit clumps SOURCE --component particles --finder fof -o clumps.csv [options]\n\n"
    "Find clumps in the cells of SOURCE (a RAMSES output folder or a .snapkit file):\n"
    "cells whose field is at or above the threshold, grouped by a finder; or groups\n"
    "of its particles (friends-of-friends). Write one row per clump, ids 1..n by mass\n"
    "(largest first). See docs/clumps.md.\n\n"
    "  --component C         hydro (default: cells) or particles (every particle of the\n"
    "                        selection, --family included; finder fof only)\n"
    "  --threshold V         the threshold (required for cells)\n"
    "  --unit U              unit of V: code (default), g/cm3 or H/cm3 (density only)\n"
    "  --field F             the column to threshold (default density)\n"
    "  --finder F            faces (default for cells): cells connected through faces,\n"
    "                        across levels and the periodic boundary; watershed: RAMSES's\n"
    "                        PHEW (peak patches merged while peak / saddle < --relevance);\n"
    "                        fof (default for particles): friends-of-friends of cell\n"
    "                        centres or particles; dendrogram: astrodendro's contour tree\n"
    "                        (leaves and branches, with parent ids and depths)\n"
    "  --relevance R         watershed: the peak / saddle ratio a clump needs (default 2)\n"
    "  --linking-length B    fof: friends are at most B apart (default 0.2)\n"
    "  --length-unit U       unit of B: mean-sep (default; boxlen / N^(1/3) over the\n"
    "                        points linked), code, or a length (kpc, pc, Mpc, ...)\n"
    "  --bound M             e_grav by approx (default: -3/5 G M^2 / R), direct (the exact\n"
    "                        softened pairwise sum, O(N^2)) or tree (Barnes-Hut)\n"
    "  --theta T             tree: the opening angle (default 0.5)\n"
    "  --bound-only          keep only the bound clumps (e_kin + e_therm < |e_grav|; in a\n"
    "                        hierarchy a row's parent becomes its nearest bound ancestor)\n"
    "  --mu X                mean molecular weight of the temperature column (mass-weighted\n"
    "                        mean T in K; default 1/0.76)\n"
    "  --softening EPS       direct, tree: particles' softening in code lengths (default:\n"
    "                        boxlen / 2^levelmax; cells: the clump's smallest cell edge)\n"
    "  --min-cells N         drop clumps of fewer cells (default 1); dendrogram: a leaf\n"
    "                        needs N cells to stay separate (astrodendro's min_npix)\n"
    "  --min-delta D         dendrogram: a leaf must rise D above where it merges\n"
    "                        (field code units; default 0)\n"
    "  --min-members N       the same for particles\n"
    "  -o PATH               the catalogue: .csv (a header line), .json (meta and clumps),\n"
    "                        .fits (a binary table CLUMPS), .h5 (a dataset per column)\n"
    "                        or .snapkit (a table clumps)\n"
    "  --ids PATH.npy        each cell's (particle's) clump id (int32, 0: none), in the\n"
    "                        order of the rows of the read with the same selection\n"
    "  --threads N           use at most N threads (default: the job's budget)\n"
    "  --json                print the summary as JSON\n\n"
    "selection (as for stats; here --range-unit sets the unit of ranges and centre):\n"
    "%s";

typedef struct clumps_args {
    const char *source, *out, *ids, *component;
    int has_threshold, has_finder, json;
    long long threads, min_cells;
    sk_clumps_options o;
    cli_selection cs;
} clumps_args;

/* 1 consumed, 0 not ours, -1 bad value. */
static int own_option(void *ctx, int argc, char **argv, int *i)
{
    clumps_args *a = ctx;
    const char *arg = argv[*i], *v;
    if (cli_is(arg, "--threshold")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--threshold", v, &a->o.threshold))
            return -1;
        a->has_threshold = 1;
    } else if (cli_is(arg, "--unit")) {
        if (!(a->o.unit = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--range-unit")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        snprintf(a->cs.region.unit, sizeof a->cs.region.unit, "%s", v);
    } else if (cli_is(arg, "--field")) {
        if (!(a->o.field = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--finder")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        a->has_finder = 1;
        if ((a->o.finder = sk_clumps_finder_from_name(v)) < 0) {
            cli_usage("clumps", "unknown finder '%s' (faces, watershed, fof or dendrogram)",
                      v);
            return -1;
        }
    } else if (cli_is(arg, "--relevance")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--relevance", v, &a->o.relevance))
            return -1;
    } else if (cli_is(arg, "--mu")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--mu", v, &a->o.mu))
            return -1;
    } else if (cli_is(arg, "--bound-only")) {
        a->o.bound_only = 1;
    } else if (cli_is(arg, "--min-delta")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--min-delta", v, &a->o.min_delta))
            return -1;
    } else if (cli_is(arg, "--component")) {
        if (!(a->component = cli_value(argc, argv, i)))
            return -1;
        if (strcmp(a->component, "hydro") && strcmp(a->component, "particles")) {
            cli_usage("clumps", "unknown component '%s' (hydro or particles)", a->component);
            return -1;
        }
    } else if (cli_is(arg, "--linking-length")) {
        if (!(v = cli_value(argc, argv, i)) ||
            cli_double("--linking-length", v, &a->o.linking_length))
            return -1;
    } else if (cli_is(arg, "--bound")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        if ((a->o.bound = sk_clumps_bound_from_name(v)) < 0) {
            cli_usage("clumps", "unknown --bound '%s' (approx, direct or tree)", v);
            return -1;
        }
    } else if (cli_is(arg, "--theta")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--theta", v, &a->o.theta))
            return -1;
    } else if (cli_is(arg, "--softening")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--softening", v, &a->o.softening))
            return -1;
    } else if (cli_is(arg, "--length-unit")) {
        if (!(a->o.length_unit = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--min-cells") || cli_is(arg, "--min-members")) {
        if (cli_int_value(argc, argv, i, &a->min_cells))
            return -1;
    } else if (cli_is(arg, "-o")) {
        if (!(a->out = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--ids")) {
        if (!(a->ids = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--threads")) {
        if (cli_int_value(argc, argv, i, &a->threads))
            return -1;
    } else if (cli_is(arg, "--json")) {
        a->json = 1;
    } else {
        return 0;
    }
    return 1;
}

static int parse(clumps_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    sk_clumps_options_init(&a->o);
    cli_selection_init(&a->cs);
    a->min_cells = 1;
    a->component = "hydro";
    int helped;
    int rc = cli_parse_source_args("clumps", k_help, argc, argv, own_option, a, &a->cs,
                                   &a->source, &helped);
    if (rc != CLI_OK)
        return rc;
    if (helped)
        return 1;
    int parts = !strcmp(a->component, "particles");
    if (!a->has_threshold && !parts)
        return cli_usage("clumps", "missing --threshold");
    if (parts && !a->has_finder)
        a->o.finder = SK_CLUMPS_FOF; /* the one finder for particles */
    if (parts && a->o.finder != SK_CLUMPS_FOF)
        return cli_usage("clumps", "particles take --finder fof");
    if (!a->out)
        return cli_usage("clumps", "missing -o clumps.csv|.json|.fits|.h5|.snapkit");
    a->o.min_cells = a->min_cells;
    a->o.threads = (int)a->threads;
    return 0;
}

static void report_json(const clumps_args *a, const sk_table *cat, int64_t rows, double sec)
{
    int parts = !strcmp(a->component, "particles");
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "finder", sk_clumps_finder_name(a->o.finder));
    if (parts) {
        sk_json_kv_int(&j, "particles", rows);
    } else {
        sk_json_kv_double(&j, "threshold", sk_table_meta_double(cat, "clumps.threshold", 0));
        sk_json_kv_int(&j, "cells", rows);
        sk_json_kv_int(&j, "cells_above",
                       (int64_t)sk_table_meta_double(cat, "clumps.cells_above", 0));
    }
    if (a->o.finder == SK_CLUMPS_FOF)
        sk_json_kv_double(&j, "b", sk_table_meta_double(cat, "clumps.b", 0));
    sk_json_kv_int(&j, "clumps", sk_table_nrows(cat));
    sk_json_kv_double(&j, "seconds", sec);
    sk_json_kv_int(&j, "ranks", cli_mpi_world()->size);
    sk_json_kv_string(&j, "catalogue", a->out);
    if (a->ids)
        sk_json_kv_string(&j, "ids", a->ids);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

static void report(const clumps_args *a, const sk_table *cat, int64_t rows, double sec)
{
    int64_t n = sk_table_nrows(cat);
    const char *above = sk_table_meta_get(cat, "clumps.cells_above");
    if (a->json) {
        report_json(a, cat, rows, sec);
        return;
    }
    if (!strcmp(a->component, "particles"))
        printf("%lld groups of at least %lld particles (fof, b = %s code lengths) among %lld "
               "particles in %.3f s\n", (long long)n, (long long)a->o.min_cells,
               sk_table_meta_get(cat, "clumps.b"), (long long)rows, sec);
    else if (n == 0 && above && strcmp(above, "0"))
        printf("no clumps: none of at least %lld cells among the %s cells at or above the "
               "threshold %s (code units)\n", (long long)a->o.min_cells, above,
               sk_table_meta_get(cat, "clumps.threshold"));
    else if (n == 0)
        printf("no clumps: no cell of '%s' is at or above the threshold %s (code units)\n",
               a->o.field, sk_table_meta_get(cat, "clumps.threshold"));
    else
        printf("%lld clumps (%s finder) from %s of %lld cells at or above %s (code units) in "
               "%.3f s\n", (long long)n, sk_clumps_finder_name(a->o.finder), above,
               (long long)rows, sk_table_meta_get(cat, "clumps.threshold"), sec);
    const sk_column *leaf = sk_table_find(cat, "leaf");
    if (leaf && n > 0) { /* a hierarchy: its rows are leaves and branches */
        int64_t leaves = 0;
        for (int64_t r = 0; r < n; r++)
            leaves += sk_column_get_double(leaf, r) != 0;
        printf("  of which %lld leaves and %lld branches\n", (long long)leaves,
               (long long)(n - leaves));
    }
    printf("wrote %s%s%s\n", a->out, a->ids ? " and " : "", a->ids ? a->ids : "");
}

/* Every rank's ids (one per row of its share) joined on rank 0 in rank
 * order, which is one process's row order, and written there. Rank 0
 * holds 4 bytes per row of the whole table for it. Collective. */
static int write_ids(const int32_t *ids, int64_t n, int64_t rows, const char *path, sk_error *err)
{
    if (cli_mpi_world()->size == 1)
        return cli_clumps_write_ids(ids, n, path, err);
    int32_t *all = NULL;
    int rc = SK_OK;
    if (cli_mpi_world()->rank == 0 && !(all = sk_malloc(sizeof *all * (size_t)(rows ? rows : 1))))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %lld ids", (long long)rows);
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK)
        rc = sk_mpi_gather_int32(ids, n, all, err);
    if (rc == SK_OK && all)
        rc = cli_clumps_write_ids(all, rows, path, err);
    sk_free(all);
    return sk_mpi_agree(rc, err);
}

int cmd_clumps(int argc, char **argv)
{
    clumps_args a;
    int rc = parse(&a, argc, argv);
    if (rc)
        return rc == 1 ? CLI_OK : rc;
    sk_error err;
    sk_error_clear(&err);
    cli_source_read res = {0};
    /* Under MPI each rank reads its share; the cells above the threshold
     * go to rank 0, which finds the clumps, writes and prints. */
    sk_source *src = NULL;
    rc = cli_clumps_check_targets(a.out, a.ids, &err);
    if (rc == SK_OK)
        rc = sk_source_open_mpi(&src, a.source, &err);
    if (rc == SK_OK) /* centres and frames found from the data first */
        rc = cli_selection_resolve(src, &a.cs, (int)a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = cli_read_source(src, a.component, &a.cs, (int)a.threads, &res, &err);
    sk_source_close(src);
    rc = sk_mpi_agree(rc, &err);
    int64_t n = rc == SK_OK ? sk_table_nrows(res.table) : 0, rows = n;
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(&rows, 1, &err);
    if (rc != SK_OK) {
        sk_table_free(res.table);
        return cli_error(&err);
    }
    int32_t *ids = a.ids ? sk_malloc((size_t)(n ? n : 1) * sizeof *ids) : NULL;
    sk_table *cat = NULL;
    double t0 = cli_now();
    if (a.ids && !ids)
        rc = sk_fail(&err, SK_ERR_NOMEM, NULL, -1, "out of memory for %lld ids", (long long)n);
    rc = sk_mpi_agree(rc, &err); /* every rank reaches the collectives, or none */
    if (rc == SK_OK)
        rc = sk_clumps_find_ranks(res.table, &a.o, &cat, ids, &err);
    double sec = cli_now() - t0;
    int mine = cat != NULL; /* rank 0 alone has the catalogue */
    /* The catalogue and the ids are replaced together or not at all: an
     * --ids target that cannot be written keeps the old catalogue. */
    sk_atomic_batch batch;
    sk_atomic_batch_begin(&batch);
    if (rc == SK_OK && mine)
        rc = cli_clumps_write(cat, a.out, &err);
    rc = sk_mpi_agree(rc, &err);
    if (rc == SK_OK && ids)
        rc = write_ids(ids, n, rows, a.ids, &err);
    int renamed = sk_atomic_batch_end(&batch, rc == SK_OK, &err);
    rc = sk_mpi_agree(rc == SK_OK ? renamed : rc, &err);
    if (rc == SK_OK && mine)
        report(&a, cat, rows, sec);
    sk_free(ids);
    sk_table_free(cat);
    sk_table_free(res.table);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
