/* snapkit bench lmax: what a read costs at each level cap, and whether
 * its time follows the bytes allocated or the bytes read. */
#include <string.h>
#include <unistd.h>

#include "bench_commands.h"
#include "bench_common.h"
#include "snapkit/convert.h"

static const char k_help[] =
    "usage: snapkit bench lmax OUTPUT [--file F.snapkit | --convert [--file F]] [--cold]\n"
    "                          [--component NAME] [--runs N] [--threads N] [selection] [--json]\n\n"
    "Read one cell component of the RAMSES output OUTPUT (default hydro) with each lmax from\n"
    "levelmin to levelmax (or to --lmax N): rows, bytes allocated, bytes read and the warm\n"
    "read time (one untimed read, then the median of N, default 3); the same from the\n"
    "compact file when there is one, and the ratios RAMSES/file. Then fits the time\n"
    "against the bytes allocated and against the bytes read (least squares: rate in GB/s,\n"
    "intercept, R^2) and says which explains the time better on this machine.\n\n"
    "options:\n"
    "  --file F.snapkit      the compact file of the same output (exact lmax reads need one\n"
    "                        written with --with-coarse)\n"
    "  --convert             write that file first (the component, refined cells too) to F, or\n"
    "                        to snapkit-bench-<pid>.snapkit here, removed at the end\n"
    "  --component NAME      hydro, gravity, rt or clump_field (default hydro)\n"
    "  --cold                also time a cold read per lmax and path: its files dropped from\n"
    "                        the page cache first ('-' where the filesystem keeps them)\n"
    "  --threads N           threads per read (default: the job's budget)\n"
    "%s";

static void lmax_json(const void *b, sk_json *j)
{
    sk_lmax_json(b, j);
}

static int convert_file(const char *source, const char *component, const sk_selection *sel,
                        int threads, const char *path)
{
    sk_store_convert_options copt;
    sk_store_convert_options_init(&copt);
    copt.components = component;
    copt.selection = sel;
    copt.with_coarse = 1;
    copt.write.threads = threads;
    sk_store_convert_stats cs;
    sk_error err;
    if (sk_store_convert(source, path, &copt, &cs, &err) != SK_OK)
        return cli_error(&err);
    return CLI_OK;
}

static int run(const bench_common *common, sk_lmax_bench_options *opt, int convert,
               const char *path)
{
    sk_source *src;
    sk_selection sel;
    if (bench_open(common->source, &common->cs, &src, &sel) != CLI_OK)
        return CLI_FAIL;
    int rc = CLI_OK;
    if (convert)
        rc = convert_file(common->source, opt->component, &sel, opt->threads, path);
    sk_lmax_bench b;
    sk_error err;
    if (rc == CLI_OK) {
        cli_progress progress;
        cli_progress_init(&progress, "bench lmax");
        opt->progress = bench_progress_hook(&progress);
        if (sk_bench_lmax(src, &sel, opt, &b, &err) != SK_OK)
            rc = CLI_FAIL;
        cli_progress_done(&progress);
        if (rc != CLI_OK)
            cli_error(&err);
    }
    sk_selection_clear(&sel);
    sk_source_close(src);
    if (rc != CLI_OK)
        return rc;
    sk_report rep = {.lmax = &b};
    if (bench_csv(common, &rep, b.threads, b.cold && b.cache_dropped ? "warm+cold" : "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(common->json, &b, lmax_json, common->json ? NULL : sk_lmax_text(&b));
}

int cmd_bench_lmax(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench lmax", BENCH_SELECTION | BENCH_COMPONENTS);
    const char *file = NULL;
    int convert = 0, cold = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (bench_help(a, k_help)) {
            return CLI_OK;
        } else if (cli_is(a, "--convert")) {
            convert = 1;
        } else if (cli_is(a, "--cold")) {
            cold = 1;
        } else if (cli_is(a, "--file")) {
            if (!(file = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    if (!common.source)
        return cli_usage("bench lmax", "which output? (snapkit bench lmax OUTPUT)");
    if (common.nlevels > 1)
        return cli_usage("bench lmax", "--threads takes one count here");
    if (common.components[0] && common.components[1])
        return cli_usage("bench lmax", "--component takes one component here");
    bench_warn_levels(common.levels, common.nlevels);
    char path[64];
    if (convert && !file) {
        snprintf(path, sizeof path, "snapkit-bench-%ld.snapkit", (long)getpid());
        file = path;
    }
    sk_lmax_bench_options opt = {.component = common.components[0] ? common.components[0] : "hydro",
                                 .file = file,
                                 .threads = bench_one_thread(&common),
                                 .runs = common.runs,
                                 .cold = cold};
    int rc = run(&common, &opt, convert, file);
    if (convert && file == path)
        unlink(path);
    return rc;
}
