/* snapkit info on a .snapkit file, and the statistics it stores. */
#include "store_cli.h"

#include "cli_mpi.h"
#include "info_text.h"

#include <string.h>
#include "snapkit/util/json.h"

int cli_store_stored_stats(const sk_source *src, const char *component, const cli_selection *cs,
                           sk_table_stats *out, cli_source_read *res, sk_error *err)
{
    memset(res, 0, sizeof *res);
    double t0 = cli_now();
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = cli_source_selection(src, component, cs, &sel, err);
    if (rc == SK_OK)
        rc = sk_store_stored_stats(sk_source_store(src), component, &sel, out, err);
    sk_selection_clear(&sel);
    int64_t total = 0;
    if (rc == SK_OK)
        sk_source_file_count(src, component, &total, err);
    if (rc != SK_OK)
        return rc;
    res->chunks = 1;
    res->ranks = cli_mpi_world()->size; /* the job's ranks, though none read */
    res->files_total = (int)total;
    res->stats.seconds = cli_now() - t0;
    return SK_OK;
}

static void print_tables(const sk_store *s)
{
    sk_store_file_info fi;
    sk_store_get_file_info(s, &fi);
    char b1[32], b2[32];
    printf("\n%-10s %12s %8s %7s %8s %11s %11s %6s\n", "table", "rows", "refined", "chunks",
           "levels", "in memory", "on disk", "ratio");
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        sk_store_get_table_info(s, i, &ti, NULL);
        char levels[16] = "-";
        if (ti.geometry == SK_STORE_CELLS)
            snprintf(levels, sizeof levels, "%d-%d", ti.level_min, ti.level_max);
        printf("%-10s %12lld %8lld %7lld %8s %11s %11s %5.1f%%\n", ti.name,
               (long long)(ti.rows - ti.refined_rows), (long long)ti.refined_rows,
               (long long)ti.chunks, levels, cli_bytes((double)ti.bytes_raw, b1, sizeof b1),
               cli_bytes((double)ti.bytes_stored, b2, sizeof b2),
               ti.bytes_raw ? 100.0 * (double)ti.bytes_stored / (double)ti.bytes_raw : 0.0);
    }
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        sk_store_get_table_info(s, i, &ti, NULL);
        if (ti.geometry == SK_STORE_CELLS)
            printf("%s: lmax %s\n", ti.name,
                   ti.has_refined ? "reads are exact (refined cells stored, --with-coarse)"
                                  : "filters the leaves (converted without --with-coarse: "
                                    "finer leaves are dropped, not replaced)");
    }
    printf("statistics stored (stats of every row reads no chunk):");
    int any = 0;
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        sk_table_stats st;
        sk_store_get_table_info(s, i, &ti, NULL);
        if (sk_store_stored_stats(s, ti.name, NULL, &st, NULL) == SK_OK) {
            printf(" %s", ti.name);
            sk_table_stats_free(&st);
            any = 1;
        }
    }
    printf(any ? "\n" : " none\n");
}

static void print_selection(const sk_table *m)
{
    const char *lmax = sk_table_meta_get(m, "selection.lmax");
    const char *x0 = sk_table_meta_get(m, "selection.xmin");
    const char *vars = sk_table_meta_get(m, "selection.vars");
    printf("selection  lmax %s", lmax && strcmp(lmax, "0") ? lmax : "none");
    if (x0)
        printf(", box [%s, %s) x [%s, %s) x [%s, %s)", x0,
               sk_table_meta_get(m, "selection.xmax"), sk_table_meta_get(m, "selection.ymin"),
               sk_table_meta_get(m, "selection.ymax"), sk_table_meta_get(m, "selection.zmin"),
               sk_table_meta_get(m, "selection.zmax"));
    else
        printf(", whole box");
    const char *shape = sk_table_meta_get(m, "selection.shape");
    if (shape) {
        const char *axis = sk_table_meta_get(m, "selection.shape.axis");
        printf(", %s%s about (%s), radii (box units) %s", sk_table_meta_get(m, "selection.shape.inverse") ? "outside of a " : "",
               shape, sk_table_meta_get(m, "selection.shape.center"),
               sk_table_meta_get(m, "selection.shape.radius"));
        if (axis)
            printf(", axis %s, half-height %s", axis,
                   sk_table_meta_get(m, "selection.shape.half_height"));
    }
    printf(", variables %s\n", vars ? vars : "all");
}

int cli_store_info_text(const sk_store *s, const char *path, sk_error *err)
{
    sk_store_file_info fi;
    sk_store_get_file_info(s, &fi);
    sk_store_table_info first;
    if (fi.ntables == 0) {
        printf("snapkit file %s (format %d.%d): no tables\n", path, fi.version_major,
               fi.version_minor);
        return SK_OK;
    }
    sk_store_get_table_info(s, 0, &first, NULL);
    sk_table *m = NULL;
    int rc = sk_store_describe(s, first.name, &m, err);
    if (rc != SK_OK)
        return rc;
    char b[32];
    const char *src = sk_table_meta_get(m, "source");
    printf("snapkit file %s (format %d.%d, %s)\n", path, fi.version_major, fi.version_minor,
           cli_bytes((double)fi.file_bytes, b, sizeof b));
    if (src)
        printf("converted from %s\n", src);
    const char *time = sk_table_meta_get(m, "time"), *boxlen = sk_table_meta_get(m, "boxlen");
    const char *lmin = sk_table_meta_get(m, "levelmin"), *lmax = sk_table_meta_get(m, "levelmax");
    if (time && boxlen && lmin && lmax)
        printf("RAMSES output: levels %s-%s, boxlen %s, time %s\n", lmin, lmax, boxlen, time);
    print_selection(m);
    print_tables(s);
    info_print_prefixed(m, "ramses.info.", "info");
    info_print_prefixed(m, "ramses.header.", "header");
    if (sk_table_meta_get(m, "ramses.hydro_descriptor") ||
        sk_table_meta_get(m, "ramses.part_descriptor"))
        info_print_descriptors(m);
    info_print_namelist(m);
    sk_table_free(m);
    return SK_OK;
}
