/* snapkit export: components of a source into an HDF5 file for h5py, or a
 * VTKHDF file for ParaView (snapkit/h5export.h), streamed batch by batch. */
#include <string.h>

#include "cli.h"
#include "derive_cli.h"
#include "snapkit/util/json.h"

static const char k_help[] =
    "usage: snapkit export SOURCE -o FILE.h5|FILE.vtkhdf [--component hydro,particles]\n"
    "                      [selection] [--vars a,b] [--gzip N] [--threads N] [--json]\n\n"
    "Write the selected rows of SOURCE (a RAMSES output folder or a .snapkit file) into a\n"
    "file the tools people already use read, streamed batch by batch (memory: the\n"
    "threads' batches and one compressed chunk per column), written beside the target\n"
    "and renamed into place when complete. The format comes from the name:\n"
    "  .h5, .hdf5   HDF5 for h5py and every language's HDF5 library: one group per\n"
    "               component (/hydro, /particles, ...), one dataset per column, chunked\n"
    "               and compressed with shuffle + deflate (no plugin needed); the units,\n"
    "               time, boxlen, cosmology and source as attributes; every column has\n"
    "               unit=\"code\", and cgs_unit and to_cgs where its dimension is known\n"
    "  .vtkhdf      VTK's VTKHDF (version 1.0, read by VTK >= 9.1 and ParaView >= 5.10):\n"
    "               cells as voxels of level and the columns as cell data; particles\n"
    "               (--component particles) as points with their columns; code lengths.\n"
    "               One component a file.\n"
    "Writing needs libhdf5 (Debian: libhdf5-103-1), loaded when the first file is written.\n\n"
    "  -o, --output FILE     the file to write\n"
    "  --component LIST      components, comma-separated (default: every component of\n"
    "                        SOURCE for .h5; hydro for .vtkhdf)\n"
    "%s"
    "                        --vars also takes derived quantities (T, r, v_phi, mass, ...;\n"
    "                        snapkit stats --list-quantities), written as columns\n"
    "  --format h5|vtkhdf    the format, whatever the name (a device, - for stdout)\n"
    "  --gzip N              deflate level 0..9 (default 4; 0: uncompressed)\n"
    "  --chunk-rows N        rows per HDF5 chunk (default 65536, at most 256 KiB a chunk)\n"
    "  --threads N           use at most N threads to read\n"
    "  --no-fsync            rename the file into place without flushing it first\n"
    "  --json                print the summary as JSON\n";

typedef struct export_args {
    const char *source, *output, *format;
    char components[512];
    cli_selection cs;
    sk_h5_options opt;
    long long threads;
    int json, help;
} export_args;

static int parse_option(void *ctx, int argc, char **argv, int *i)
{
    export_args *a = ctx;
    const char *arg = argv[*i], *v;
    long long n;
    if (cli_is(arg, "-o") || cli_is(arg, "--output")) {
        if (!(a->output = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--component") || cli_is(arg, "--components")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        snprintf(a->components, sizeof a->components, "%s", v);
    } else if (cli_is(arg, "--format")) {
        if (!(a->format = cli_value(argc, argv, i)))
            return -1;
        if (strcmp(a->format, "h5") && strcmp(a->format, "vtkhdf"))
            return cli_fail("--format must be h5 or vtkhdf, not '%s'", a->format), -1;
    } else if (cli_is(arg, "--gzip")) {
        if (cli_int_between(argc, argv, i, 0, 9, &n))
            return -1;
        a->opt.gzip = (int)n;
    } else if (cli_is(arg, "--chunk-rows")) {
        if (cli_int_between(argc, argv, i, 1, (long long)1 << 30, &n))
            return -1;
        a->opt.chunk_rows = n;
    } else if (cli_is(arg, "--threads")) {
        if (cli_int_between(argc, argv, i, 0, 1 << 20, &a->threads))
            return -1;
    } else if (cli_is(arg, "--no-fsync")) {
        a->opt.fsync = 0;
    } else if (cli_is(arg, "--json")) {
        a->json = 1;
    } else {
        return 0;
    }
    return 1;
}

static int parse_args(export_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_selection_init(&a->cs);
    sk_h5_options_init(&a->opt);
    int rc = cli_parse_source_args("export", k_help, argc, argv, parse_option, a, &a->cs,
                                   &a->source, &a->help);
    if (rc != CLI_OK || a->help)
        return rc;
    if (!a->output)
        return cli_usage("export", "missing -o FILE.h5 or FILE.vtkhdf");
    if (a->json && !strcmp(a->output, "-"))
        return cli_usage("export", "--json and -o - would both write to standard output");
    return CLI_OK;
}

/* The components to write: those asked for, or the default of the format. */
static int pick_components(const export_args *a, sk_source *src, sk_h5_format format,
                           char *list, size_t n, sk_error *err)
{
    if (a->components[0]) {
        snprintf(list, n, "%s", a->components);
        return SK_OK;
    }
    const char *names[32];
    int count = sk_source_components(src, names, 32);
    if (format == SK_H5_VTKHDF && sk_source_has_component(src, "hydro")) {
        snprintf(list, n, "hydro");
        return SK_OK;
    }
    if (count == 0)
        return sk_fail(err, SK_ERR_EMPTY, a->source, -1, "holds no component to export");
    list[0] = 0;
    for (int i = 0; i < (format == SK_H5_VTKHDF ? 1 : count); i++)
        snprintf(list + strlen(list), n - strlen(list), "%s%s", i ? "," : "", names[i]);
    return SK_OK;
}

/* Stream one component into the file, with the quantities --vars derives. */
static int export_component(const export_args *a, sk_source *src, sk_h5_file *f,
                            const char *component, int64_t *rows, sk_error *err)
{
    if (!sk_source_has_component(src, component))
        return sk_fail(err, SK_ERR_ARG, a->source, -1, "has no component '%s'", component);
    cli_selection read;
    sk_derive_set *derived = NULL;
    int rc = cli_derive_take_vars(src, component, &a->cs, &read, &derived, err);
    sk_consumer consumer;
    if (rc == SK_OK)
        rc = sk_h5_component(f, component, &consumer, err);
    if (rc == SK_OK && derived)
        consumer = sk_derive_set_consumer(derived, &consumer);
    int64_t before = sk_h5_rows(f);
    cli_source_read res;
    if (rc == SK_OK)
        rc = cli_stream_source(src, component, &read, (int)a->threads, &consumer, &res, err);
    *rows = sk_h5_rows(f) - before;
    sk_derive_set_free(derived);
    return rc;
}

static void print_summary(const export_args *a, char **names, const int64_t *rows, int n,
                          double seconds)
{
    if (a->json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "path", a->output);
        sk_json_key(&j, "rows");
        sk_json_object_begin(&j);
        for (int i = 0; i < n; i++)
            sk_json_kv_int(&j, names[i], rows[i]);
        sk_json_object_end(&j);
        sk_json_kv_double(&j, "seconds", seconds);
        sk_json_object_end(&j);
        cli_print_json(&j);
        sk_json_free(&j);
        return;
    }
    /* beside the file when the file goes to standard output */
    FILE *out = strcmp(a->output, "-") ? stdout : stderr;
    fprintf(out, "%s:", a->output);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s %s %lld rows", i ? "," : "", names[i], (long long)rows[i]);
    fprintf(out, " in %.2f s\n", seconds);
}

static int export_all(export_args *a, sk_source *src, sk_h5_format format, sk_error *err)
{
    char list[512];
    int rc = pick_components(a, src, format, list, sizeof list, err);
    char *names[32];
    int64_t rows[32];
    int n = 0;
    for (char *save = NULL, *s = strtok_r(list, ",", &save); s && n < 32;
         s = strtok_r(NULL, ",", &save))
        names[n++] = s;
    double t0 = cli_now();
    sk_h5_file *f = NULL;
    if (rc == SK_OK)
        rc = sk_h5_create(&f, a->output, format, &a->opt, err);
    if (rc == SK_OK)
        rc = sk_h5_set_attribute(f, "source", a->source, err);
    if (rc == SK_OK)
        rc = sk_h5_set_attribute(f, "source_kind", sk_source_kind_name(sk_source_kind(src)), err);
    if (rc == SK_OK)
        rc = sk_h5_set_attribute(f, "snapkit_version", sk_version(), err);
    for (int i = 0; i < n && rc == SK_OK; i++)
        rc = export_component(a, src, f, names[i], &rows[i], err);
    if (rc == SK_OK)
        rc = sk_h5_commit(f, err);
    else
        sk_h5_abort(f);
    if (rc == SK_OK)
        print_summary(a, names, rows, n, cli_now() - t0);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    export_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_OK || a.help)
        return rc;
    sk_error err;
    sk_error_clear(&err);
    sk_h5_format format = a.format && !strcmp(a.format, "h5") ? SK_H5_TABLES : SK_H5_VTKHDF;
    if (!a.format && sk_h5_format_of(a.output, &format, &err) != SK_OK)
        return cli_error(&err);
    sk_source *src = NULL;
    rc = sk_source_open_mpi(&src, a.source, &err);
    if (rc == SK_OK)
        rc = cli_selection_resolve(src, &a.cs, (int)a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = export_all(&a, src, format, &err);
    sk_source_close(src);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
