/* snapkit bench convert: does converting to a .snapkit file pay? */
#include <string.h>
#include <unistd.h>

#include "bench_commands.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench convert OUTPUT [--file PATH] [--keep] [--runs N] [--threads N]\n"
    "                             [--components LIST] [selection] [--json]\n\n"
    "Convert the RAMSES output OUTPUT to a .snapkit file N times (default 3) as `snapkit\n"
    "convert` does, and re-read the file: the time to read the output, to write the file,\n"
    "the one-off conversion (both), the warm re-read and its speedup, the size on disk\n"
    "before and after, the number of later reads after which converting has paid\n"
    "(write / (read - re-read): the first read happens either way), and the bytes each\n"
    "path allocates. The output is read once first, so every read finds the cache warm.\n\n"
    "options:\n"
    "  --file PATH           where the file goes (default snapkit-bench-<pid>.snapkit here)\n"
    "  --keep                keep the file (default: removed at the end)\n"
    "  --threads N           threads for reading and writing (default: the job's budget)\n"
    "  --components LIST     some of hydro,gravity,particles (default: all present)\n"
    "  --runs N              conversions and timed re-reads; medians\n"
    "  --json                print the stage's JSON object (as in report.json)\n"
    "  --max-threads N       at most N threads\n"
    "  --csv FILE            append one row per measurement to FILE with the run's metadata\n"
    "%s";

static void convert_json(const void *c, sk_json *j)
{
    sk_convert_json(c, j);
}

int cmd_bench_convert(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench convert", BENCH_SELECTION);
    const char *file = NULL, *components = NULL;
    int keep = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is(a, "--help") || cli_is(a, "-h")) {
            printf(k_help, cli_selection_help);
            return CLI_OK;
        } else if (cli_is(a, "--keep")) {
            keep = 1;
        } else if (cli_is(a, "--file") || cli_is(a, "--components")) {
            const char *v = cli_value(argc, argv, &i);
            if (!v)
                return CLI_USAGE;
            *(cli_is(a, "--file") ? &file : &components) = v;
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    const char *source = common.source;
    if (!source)
        return cli_usage("bench convert", "which output? (snapkit bench convert OUTPUT)");
    if (common.nlevels > 1)
        return cli_usage("bench convert", "--threads takes one count here");
    bench_warn_levels(common.levels, common.nlevels);
    char path[64];
    if (!file) {
        snprintf(path, sizeof path, "snapkit-bench-%ld.snapkit", (long)getpid());
        file = path;
    }
    sk_source *src;
    sk_selection sel;
    if (bench_open(source, &common.cs, &src, &sel) != CLI_OK)
        return CLI_FAIL;
    sk_source_close(src);
    cli_progress progress;
    cli_progress_init(&progress, "bench convert");
    sk_convert_bench_options opt = {.path = file, .components = components, .selection = &sel,
                                    .threads = bench_one_thread(&common),
                                    .runs = common.runs,
                                    .progress = bench_progress_hook(&progress)};
    sk_convert_bench c;
    sk_error err;
    int rc = sk_bench_convert(source, &opt, &c, &err);
    cli_progress_done(&progress);
    sk_selection_clear(&sel);
    if (!keep)
        unlink(file);
    if (rc != SK_OK)
        return cli_error(&err);
    sk_report rep = {.convert = &c};
    if (bench_csv(&common, &rep, opt.threads, "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(common.json, &c, convert_json, common.json ? NULL : sk_convert_text(&c));
}
