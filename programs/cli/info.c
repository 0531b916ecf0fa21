/* snapkit info: what a RAMSES output holds. */
#include <string.h>

#include "cli.h"
#include "info_text.h"
#include "store_cli.h"
#include "snapkit/run.h"
#include "snapkit/util/json.h"

static const char k_help[] =
    "usage: snapkit info OUTPUT_DIR|FILE.snapkit|RUN_DIR [--json]\n\n"
    "Print every key of info_NNNNN.txt (units, cosmology, Hilbert domains), the\n"
    "particle counts of header_NNNNN.txt, the namelist, the hydro and particle\n"
    "descriptors, the components present with their columns, and the files and\n"
    "bytes on disk per component with their share of the total.\n\n"
    "  --json    one JSON object with all of the above\n\n"
    "For a .snapkit file: the same facts from the metadata it stores, its tables (rows,\n"
    "chunks, levels, bytes in memory and on disk), the selection it was converted with,\n"
    "and whether --lmax reads of it are exact (--with-coarse) or drop finer leaves.\n\n"
    "For a run (a folder of output_NNNNN folders): one line per output with its time (code\n"
    "units, and Myr where the units are physical), redshift, CPUs, levels, bytes on disk\n"
    "and whether it is complete: every CPU's file of each component there and ending in a\n"
    "whole record (else missing or truncated), and the output opening.\n";

static void print_usage(const sk_ramses_usage *u)
{
    int64_t total = 0, files = 0;
    for (int k = 0; k < SK_RAMSES_NKINDS; k++) {
        total += u->bytes[k];
        files += u->files[k];
    }
    char b[32];
    printf("\non disk\n  %-10s %6s %12s %7s\n", "component", "files", "bytes", "share");
    for (int k = 0; k < SK_RAMSES_NKINDS; k++)
        if (u->files[k])
            printf("  %-10s %6lld %12s %6.1f%%\n", sk_ramses_kind_name(k), (long long)u->files[k],
                   cli_bytes((double)u->bytes[k], b, sizeof b),
                   total ? 100.0 * (double)u->bytes[k] / (double)total : 0.0);
    printf("  %-10s %6lld %12s\n", "total", (long long)files, cli_bytes((double)total, b, sizeof b));
}

static int print_cosmology(const sk_table *meta, sk_error *err)
{
    sk_cosmology_summary c;
    int rc = sk_cosmology_from_table(meta, &c, err);
    if (rc != SK_OK || !c.cosmological)
        return rc;
    const double gyr = 3.15576e16;
    double kpc = sk_table_meta_double(meta, "unit_l", 1.0) / SK_CM_PER_KPC;
    printf("\ncosmology\n");
    printf("  %-22s %.15g\n  %-22s %.15g\n", "aexp", c.aexp, "redshift", c.redshift);
    printf("  %-22s %.15g Gyr (%.15g code)\n", "age of the universe", c.age / gyr,
           c.age / sk_table_meta_double(meta, "unit_t", 1.0));
    printf("  %-22s %.15g Gyr\n  %-22s %.15g Gyr\n", "lookback time", c.lookback / gyr,
           "age today", c.age_today / gyr);
    printf("  %-22s %.15g kpc, %.15g kpccm, %.15g Mpccm/h\n", "unit_l", kpc, kpc / c.aexp,
           kpc / c.aexp / 1e3 * c.h);
    return SK_OK;
}

/* "families  dm (1) 32768, star (2) 1455": the header's non-zero counts. */
static void print_families(const sk_table *meta)
{
    const char *prefix = "ramses.header.";
    size_t n = strlen(prefix);
    int shown = 0;
    for (int i = 0; i < sk_table_meta_count(meta); i++) {
        const char *k = sk_table_meta_key(meta, i), *v = sk_table_meta_value(meta, i);
        int code;
        if (strncmp(k, prefix, n) != 0 || sk_ramses_header_family(k + n, &code) != SK_OK ||
            !strcmp(v, "0"))
            continue;
        printf("%s%s (%d) %s", shown++ ? ", " : "\nfamilies             ", sk_family_name(code),
               code, v);
    }
    if (shown)
        printf("\n");
}

static int print_text(sk_ramses *r, sk_error *err)
{
    const sk_ramses_info *in = sk_ramses_get_info(r);
    sk_ramses_usage u;
    sk_table *meta = sk_table_new(0);
    if (!meta)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int rc = sk_ramses_describe(r, meta, err);
    if (rc == SK_OK)
        rc = sk_ramses_disk_usage(r, &u, err);
    if (rc == SK_OK) {
        printf("RAMSES output %d (%s format): %d CPUs, levels %d-%d, boxlen %g, time %.15g\n",
               in->output, in->format == SK_RAMSES_2017 ? "late-2017" : "current", in->ncpu,
               in->levelmin, in->levelmax, in->boxlen, in->time);
        if (in->level_shift || in->coarse[1] != 1 || in->coarse[2] != 1)
            printf("box of %dx%dx%d coarse cells: levels are RAMSES's + %d\n", in->coarse[0],
                   in->coarse[1], in->coarse[2], in->level_shift);
        printf("components: amr");
        for (int k = 0; sk_ramses_component_name(k); k++)
            if (sk_ramses_has_component(r, sk_ramses_component_name(k)))
                printf(", %s", sk_ramses_component_name(k));
        printf("\n");
        info_print_prefixed(meta, "ramses.info.", "info");
        printf("  %-22s %d domains\n", "bound_key", in->ndomain);
        rc = print_cosmology(meta, err);
    }
    if (rc == SK_OK) {
        info_print_prefixed(meta, "ramses.header.", "header");
        print_families(meta);
        info_print_descriptors(meta);
        const char *gamma = sk_table_meta_get(meta, "gamma");
        if (gamma)
            printf("gamma                %s\n", gamma);
        print_usage(&u);
        info_print_namelist(meta);
    }
    sk_table_free(meta);
    return rc;
}

/* `snapkit info SOURCE [--json]` for the open source, either kind.
 * Returns the exit status. */
static int source_info(const sk_source *src, const char *path, int json)
{
    sk_ramses *r = sk_source_ramses(src);
    const sk_store *s = sk_source_store(src);
    sk_error err;
    sk_error_clear(&err);
    int rc;
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        rc = r ? sk_ramses_info_json(r, &j, &err) : sk_store_info_json(s, &j, &err);
        if (rc == SK_OK)
            cli_print_json(&j);
        sk_json_free(&j);
    } else {
        rc = r ? print_text(r, &err) : cli_store_info_text(s, path, &err);
    }
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}

int cmd_info(int argc, char **argv)
{
    const char *dir = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_help(argv[i], k_help)) {
            return CLI_OK;
        } else if (cli_is(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("info", "unknown option '%s'", argv[i]);
        } else if (dir) {
            return cli_usage("info", "one OUTPUT_DIR only");
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return cli_usage("info", "missing OUTPUT_DIR");
    if (sk_run_is_run(dir))
        return info_run(dir, json);
    sk_error err;
    sk_error_clear(&err);
    sk_source *src;
    if (sk_source_open(&src, dir, &err) != SK_OK)
        return cli_error(&err);
    int status = source_info(src, dir, json);
    sk_source_close(src);
    return status;
}
