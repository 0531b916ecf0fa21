/* snapkit convert: a RAMSES output (or a selection of it) into one
 * compact .snapkit file. */
#include <string.h>

#include "cli_mpi.h"
#include "convert_run.h"
#include "snapkit/memory.h"
#include "snapkit/util/json.h"
#include "store_cli.h"

static const char k_help[] =
    "usage: snapkit convert OUTPUT_DIR -o FILE.snapkit [--components hydro,gravity,particles]\n"
    "                       [selection] [--no-compress] [--with-coarse] [--threads N] [--json]\n"
    "       snapkit convert OUTPUT_DIR... -o DIR/ [--jobs N] [--resume] [options as above]\n\n"
    "Read the components of a RAMSES output (all present by default) with the selection\n"
    "and write them into one .snapkit file: rows along a Hilbert curve in chunks, each\n"
    "column LZ4-compressed, with an index that lets later reads fetch only the chunks a\n"
    "region or level cap needs. The file is written beside the target and renamed into\n"
    "place when complete. Prints one line: rows per table, bytes before and after.\n\n"
    "  -o, --output FILE     the file to write\n"
    "  --components LIST     hydro, gravity, particles, rt, clump_field, sinks, clumps,\n"
    "                        comma-separated\n"
    "%s"
    "  --no-compress         store columns raw (larger, no decompression on reads)\n"
    "  --with-coarse         also keep refined cells' values, so that --lmax reads of the\n"
    "                        file equal --lmax reads of the output (otherwise lmax on the\n"
    "                        file drops finer leaves)\n"
    "  --chunk-rows N        rows per chunk (default: rows / 1024, a power of two within\n"
    "                        1024..65536)\n"
    "  --threads N           use at most N threads (default: the job's budget)\n"
    "  --json                print the summary as JSON\n\n"
    "Several outputs (or -o naming a folder: ending in / or existing) convert each\n"
    "output_NNNNN into DIR/output_NNNNN.snapkit (DIR made when missing), several at once\n"
    "as separate processes, with the thread budget shared among them. One line per\n"
    "output and a summary; exit status 1, naming them, when any failed.\n"
    "  --jobs N              outputs converted at once (default: the fewer of the outputs\n"
    "                        and the thread budget); each gets budget / N threads\n"
    "  --resume              skip outputs whose .snapkit file is there and opens (its tail\n"
    "                        and footer checked)\n";

typedef struct convert_args {
    const char *dir, *path, *components;
    cli_selection cs;
    int compress, with_coarse, json;
    long long threads, chunk_rows, fail_after;
    convert_run_args run; /* several outputs: sources and the workers' options */
} convert_args;

/* space: 2 argc + 1 pointers for the sources and the workers' options. */
static int parse(int argc, char **argv, char **space, convert_args *a)
{
    memset(a, 0, sizeof *a);
    a->run.sources = (const char **)space;
    a->run.pass = space + argc;
    cli_selection_init(&a->cs);
    a->compress = 1;
    a->fail_after = -1;
    for (int i = 1; i < argc; i++) {
        int first = i, sel = cli_selection_option(&a->cs, argc, argv, &i);
        if (sel < 0)
            return CLI_USAGE;
        if (sel > 0) {
            convert_run_pass(&a->run, argv, first, i);
            continue;
        }
        const char *arg = argv[i];
        if (cli_is(arg, "--help") || cli_is(arg, "-h")) {
            printf(k_help, cli_selection_help);
            return -1;
        } else if (cli_is(arg, "-o") || cli_is(arg, "--output")) {
            if (!(a->path = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (cli_is(arg, "--components")) {
            if (!(a->components = cli_value(argc, argv, &i)))
                return CLI_USAGE;
            convert_run_pass(&a->run, argv, first, i);
        } else if (cli_is(arg, "--no-compress")) {
            a->compress = 0;
            convert_run_pass(&a->run, argv, first, i);
        } else if (cli_is(arg, "--with-coarse")) {
            a->with_coarse = 1;
            convert_run_pass(&a->run, argv, first, i);
        } else if (cli_is(arg, "--json")) {
            a->json = 1;
        } else if (cli_is(arg, "--resume")) {
            a->run.resume = 1;
        } else if (cli_is(arg, "--jobs")) {
            if (cli_int_between(argc, argv, &i, 1, 4096, &a->run.jobs))
                return CLI_USAGE;
        } else if (cli_is(arg, "--threads") || cli_is(arg, "--chunk-rows") ||
                   cli_is(arg, "--fail-after-bytes")) {
            /* --fail-after-bytes N (not in the help): make writes fail with
             * ENOSPC after N bytes, so tests can interrupt a conversion. */
            long long *dst = cli_is(arg, "--threads")      ? &a->threads
                             : cli_is(arg, "--chunk-rows") ? &a->chunk_rows
                                                           : &a->fail_after;
            if (cli_int_value(argc, argv, &i, dst))
                return CLI_USAGE;
            if (dst != &a->threads)
                convert_run_pass(&a->run, argv, first, i);
        } else if (arg[0] == '-' && arg[1]) {
            return cli_usage("convert", "unknown option '%s'", arg);
        } else {
            a->dir = a->dir ? a->dir : arg;
            a->run.sources[a->run.nsources++] = arg;
        }
    }
    if (!a->dir)
        return cli_usage("convert", "missing OUTPUT_DIR");
    if (!a->path)
        return cli_usage("convert", "missing -o FILE.snapkit");
    if (a->run.nsources > 1 || convert_run_is_folder(a->path)) {
        a->run.dir = a->path;
        a->run.threads = a->threads;
        a->run.json = a->json;
    } else if (a->run.resume || a->run.jobs) {
        return cli_usage("convert", "--resume and --jobs are for several outputs (-o DIR/)");
    }
    if (a->chunk_rows < 0 || a->threads < 0)
        return cli_usage("convert", "--threads and --chunk-rows take positive numbers");
    return CLI_OK;
}

static void print_summary(const convert_args *a, const sk_store_convert_stats *st, int64_t peak)
{
    if (a->json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "path", a->path);
        sk_json_kv_int(&j, "ranks", cli_mpi_world()->size);
        sk_json_key(&j, "rows");
        sk_json_object_begin(&j);
        for (int i = 0; i < st->ntables; i++)
            sk_json_kv_int(&j, st->names[i], st->rows[i]);
        sk_json_object_end(&j);
        sk_json_key(&j, "refined_rows");
        sk_json_object_begin(&j);
        for (int i = 0; i < st->ntables; i++)
            sk_json_kv_int(&j, st->names[i], st->refined_rows[i]);
        sk_json_object_end(&j);
        sk_json_kv_int(&j, "bytes_source", st->bytes_source);
        sk_json_kv_int(&j, "bytes_raw", st->bytes_raw);
        sk_json_kv_int(&j, "bytes_file", st->bytes_file);
        sk_json_kv_double(&j, "read_seconds", st->read_seconds);
        sk_json_kv_double(&j, "write_seconds", st->write_seconds);
        sk_json_kv_int(&j, "bytes_allocated", st->bytes_allocated);
        sk_json_kv_int(&j, "bytes_peak", peak);
        sk_json_kv_int(&j, "fallbacks", st->fallbacks);
        sk_json_object_end(&j);
        cli_print_json(&j);
        sk_json_free(&j);
        return;
    }
    char b1[32], b2[32];
    printf("%s:", a->path);
    for (int i = 0; i < st->ntables; i++) {
        printf("%s %s %lld rows", i ? "," : "", st->names[i], (long long)st->rows[i]);
        if (st->refined_rows[i])
            printf(" (+%lld refined)", (long long)st->refined_rows[i]);
    }
    printf("; %s of RAMSES files -> %s (%.1f%%) in %.2f s\n",
           cli_bytes((double)st->bytes_source, b1, sizeof b1),
           cli_bytes((double)st->bytes_file, b2, sizeof b2),
           st->bytes_source ? 100.0 * (double)st->bytes_file / (double)st->bytes_source : 0.0,
           st->read_seconds + st->write_seconds);
}

int cmd_convert(int argc, char **argv)
{
    convert_args a;
    char *space[2 * argc + 1];
    int rc = parse(argc, argv, space, &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    if (a.run.dir)
        return convert_run(&a.run);
    sk_error err;
    sk_error_clear(&err);
    sk_source *src;
    if (sk_source_open_mpi(&src, a.dir, &err) != SK_OK)
        return cli_error(&err);
    sk_selection sel;
    sk_selection_init(&sel);
    /* centres and frames found from the data first (every rank: collective) */
    rc = cli_selection_resolve(src, &a.cs, (int)a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = cli_source_selection(src, NULL, &a.cs, &sel, &err);
    sk_source_close(src);
    cli_progress prog;
    cli_progress_init(&prog, "reading");
    sk_store_convert_options opt;
    sk_store_convert_options_init(&opt);
    opt.components = a.components;
    opt.selection = &sel;
    opt.with_coarse = a.with_coarse;
    opt.write.compress = a.compress;
    opt.write.threads = (int)a.threads;
    opt.write.chunk_rows = a.chunk_rows;
    opt.write.fail_after_bytes = a.fail_after;
    opt.read_progress = cli_progress_hook(&prog);
    sk_store_convert_stats st;
    /* The most held at once during the convert, over what was held before. */
    sk_mem_stats m0, m1;
    sk_mem_reset_peak();
    sk_mem_get(&m0);
    if (rc == SK_OK)
        rc = sk_store_convert_ranks(a.dir, a.path, &opt, &st, &err);
    sk_mem_get(&m1);
    cli_progress_done(&prog);
    sk_selection_clear(&sel);
    if (rc != SK_OK)
        return cli_error(&err);
    if (cli_mpi_world()->rank == 0)
        print_summary(&a, &st, (int64_t)(m1.peak - m0.current));
    return CLI_OK;
}
