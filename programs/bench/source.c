/* What the bench asks of a source (snapkit/source.h) beyond the library:
 * selections from its options, its files on disk, memory estimates. */
#include <stdio.h>
#include <string.h>

#include "bench/source.h"
#include "bench/bench.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

int sk_bench_source_select(const sk_source *s, const sk_region_request *req, int lmax,
                           const char *vars, sk_selection *sel, sk_error *err)
{
    sk_units u;
    int rc = sk_source_units(s, NULL, &u, err);
    if (rc != SK_OK)
        return rc;
    sel->lmax = lmax;
    rc = req ? sk_selection_set_region(sel, req, &u, err) : SK_OK;
    if (rc == SK_OK && vars && vars[0])
        rc = sk_selection_set_vars(sel, vars, err);
    return rc;
}

int sk_bench_source_read(sk_source *s, const char *component, const sk_selection *sel,
                         int threads, sk_table **out, sk_read_stats *stats, sk_error *err)
{
    sk_read_options opt = {.threads = threads};
    return sk_source_read(s, component, sel, &opt, out, stats, err);
}

/* Files a component's read touches, for dropping them from the cache:
 * cells need the amr files besides their own. */
int skb_source_file_kinds(const char *component, const char **prefixes)
{
    int n = 0;
    static const char *const own[][2] = {{"hydro", "hydro_"},   {"gravity", "grav_"},
                                          {"particles", "part_"}, {"rt", "rt_"},
                                          {"clump_field", "clump_field_"}, {"sinks", "sink_"},
                                          {"clumps", "clump_0"}};
    int cells = strcmp(component, "particles") && strcmp(component, "sinks") &&
                strcmp(component, "clumps");
    if (cells)
        prefixes[n++] = "amr_";
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
        if (strcmp(component, own[k][0]) == 0)
            prefixes[n++] = own[k][1];
    return n;
}

/* A .snapkit file: one file; its bytes by table (the footer and header
 * under "other"). */
static int store_usage(sk_store *st, skb_source_usage *out)
{
    sk_store_file_info fi;
    sk_store_get_file_info(st, &fi);
    out->files = 1;
    out->bytes = fi.file_bytes;
    int64_t rest = fi.file_bytes;
    for (int i = 0; i < fi.ntables && out->ncomponents < 7; i++) {
        sk_store_table_info ti;
        if (sk_store_get_table_info(st, i, &ti, NULL) != SK_OK)
            continue;
        snprintf(out->components[out->ncomponents].name, sizeof out->components[0].name, "%s",
                 ti.name);
        out->components[out->ncomponents].files = 1;
        out->components[out->ncomponents].bytes = ti.bytes_stored;
        rest -= ti.bytes_stored;
        out->ncomponents++;
    }
    snprintf(out->components[out->ncomponents].name, sizeof out->components[0].name, "other");
    out->components[out->ncomponents].files = 1;
    out->components[out->ncomponents].bytes = rest;
    out->ncomponents++;
    return SK_OK;
}

int sk_bench_source_usage(const sk_source *s, skb_source_usage *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", sk_source_path(s));
    snprintf(out->kind, sizeof out->kind, "%s", sk_source_kind_name(sk_source_kind(s)));
    int rc = sk_fs_type(sk_source_path(s), out->fs_type, sizeof out->fs_type, err);
    if (rc == SK_OK && sk_source_store(s))
        return store_usage(sk_source_store(s), out);
    sk_ramses_usage u;
    if (rc == SK_OK)
        rc = sk_ramses_disk_usage(sk_source_ramses(s), &u, err);
    if (rc != SK_OK)
        return rc;
    for (int k = 0; k < SK_RAMSES_NKINDS; k++) {
        out->files += u.files[k];
        out->bytes += u.bytes[k];
        if (u.files[k] == 0)
            continue;
        snprintf(out->components[out->ncomponents].name, sizeof out->components[0].name, "%s",
                 sk_ramses_kind_name(k));
        out->components[out->ncomponents].files = u.files[k];
        out->components[out->ncomponents].bytes = u.bytes[k];
        out->ncomponents++;
    }
    return SK_OK;
}

/* Hydro variables the selection keeps (all when it names none). */
static int kept_vars(const sk_selection *sel, int nvar)
{
    return sel && sel->nvars > 0 && sel->nvars < nvar ? sel->nvars : nvar;
}

/* A .snapkit file knows each table's size in memory, not its rows per
 * level: the estimate ignores lmax. */
static int store_estimate(sk_store *st, const sk_selection *sel, int64_t *bytes)
{
    sk_store_file_info fi;
    sk_store_get_file_info(st, &fi);
    double volume = 1, total = 0;
    for (int k = 0; sel && sel->has_box && k < 3; k++)
        volume *= sel->hi[k] - sel->lo[k];
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        if (sk_store_get_table_info(st, i, &ti, NULL) == SK_OK)
            total += (double)ti.bytes_raw * volume;
    }
    *bytes = (int64_t)total;
    return SK_OK;
}

int sk_bench_source_estimate(sk_source *s, const sk_selection *sel, int lmax,
                             int64_t *bytes, sk_error *err)
{
    if (sk_source_store(s))
        return store_estimate(sk_source_store(s), sel, bytes);
    sk_ramses *r = sk_source_ramses(s);
    const sk_ramses_info *in = sk_ramses_get_info(r);
    if (lmax <= 0)
        lmax = sel && sel->lmax > 0 ? sel->lmax : in->levelmax;
    if (lmax > in->levelmax)
        lmax = in->levelmax;
    int64_t octs[128];
    if (in->levelmax > 128)
        return sk_fail(err, SK_ERR_RANGE, sk_source_path(s), -1, "levelmax %d is beyond 128", in->levelmax);
    int rc = sk_ramses_level_octs(r, octs, err);
    if (rc != SK_OK)
        return rc;
    /* Leaves below the cap, and every cell at the cap (finer ones are
     * leaves there). */
    double rows = 8.0 * (double)octs[lmax - 1];
    for (int l = 1; l < lmax; l++)
        rows += 8.0 * (double)octs[l - 1] - (double)octs[l];
    double volume = 1;
    for (int k = 0; sel && sel->has_box && k < 3; k++)
        volume *= sel->hi[k] - sel->lo[k];
    rows *= volume;
    double total = 0;
    if (in->has_hydro)
        total += rows * (16.0 + 8.0 * kept_vars(sel, in->nvar_hydro));
    if (in->has_gravity)
        total += rows * (16.0 + 8.0 * 4);
    if (in->has_particles) {
        sk_ramses_usage u;
        rc = sk_ramses_disk_usage(r, &u, err);
        if (rc != SK_OK)
            return rc;
        total += (double)u.bytes[SK_RAMSES_PARTICLES] * volume;
    }
    *bytes = (int64_t)total;
    return SK_OK;
}
