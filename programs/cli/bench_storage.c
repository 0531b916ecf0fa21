/* snapkit bench storage: what the storage under a folder does with many
 * small opens and with concurrent readers. */
#include <string.h>

#include "bench_common.h"
#include "bench_commands.h"

static const char k_help[] =
    "usage: snapkit bench storage DIR [--threads LIST] [--runs N] [--nfiles N] [--json]\n\n"
    "Probe the storage holding DIR (a folder, or one file such as a .snapkit file) at each\n"
    "thread level: how many files per second open and close (no read), how fast one reader\n"
    "streams whole files while the others read too (files are read once first, so the page\n"
    "cache is warm), and the median latency of one open+close. At most --nfiles files\n"
    "(default 64), spread evenly over DIR's sorted names, are used; the output says how\n"
    "many and how much was read.\n\n"
    "options:\n"
    "  --nfiles N            sample at most N files (default 64)\n";

static void storage_json(const void *s, sk_json *j)
{
    sk_storage_json(s, j);
}

int cmd_bench_storage(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench storage", 0);
    long long nfiles = 64;
    for (int i = 1; i < argc; i++) {
        if (cli_is(argv[i], "--help") || cli_is(argv[i], "-h")) {
            fputs(k_help, stdout);
            fputs(bench_common_help, stdout);
            return CLI_OK;
        } else if (cli_is(argv[i], "--nfiles")) {
            if (cli_int_value(argc, argv, &i, &nfiles))
                return CLI_USAGE;
            if (nfiles < 1 || nfiles > 1000000)
                return cli_usage("bench storage", "--nfiles must be between 1 and 1000000");
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    const char *dir = common.source;
    if (!dir)
        return cli_usage("bench storage", "which folder? (snapkit bench storage DIR)");
    bench_cap_levels(&common);
    bench_warn_levels(common.levels, common.nlevels);
    cli_progress progress;
    cli_progress_init(&progress, "bench storage");
    sk_storage_options opt = {.nlevels = common.nlevels, .runs = common.runs,
                              .nfiles = (int)nfiles, .progress = bench_progress_hook(&progress)};
    memcpy(opt.levels, common.levels, sizeof opt.levels);
    sk_storage_result r;
    sk_error err;
    int rc = sk_bench_storage(dir, &opt, &r, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    sk_report rep = {.storage = &r};
    if (bench_csv(&common, &rep, r.npoints ? r.points[r.npoints - 1].threads : 0, "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(common.json, &r, storage_json, common.json ? NULL : sk_storage_text(&r));
}
