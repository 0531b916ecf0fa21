/* snapkit bench read: per component, how long a read takes cold and warm
 * and how much memory it costs. */
#include <string.h>

#include "bench_commands.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench read SOURCE [--runs N] [--threads N] [--component LIST]\n"
    "                          [--no-cold] [selection] [--json]\n\n"
    "Read each component of SOURCE (a RAMSES output folder) N times (default 3) and print\n"
    "per component: the mean and standard deviation of the warm read time, the cold read\n"
    "time (first, after dropping the component's files from the page cache with\n"
    "posix_fadvise; the output says when the cache could not be dropped), rows, the\n"
    "result's size, the bytes snapkit allocated and held at most, and the process's peak\n"
    "resident memory. 'hydro' reads the amr and hydro files.\n\n"
    "options:\n"
    "  --threads N           threads per read (default: the job's budget)\n"
    "  --component LIST      some of hydro,gravity,particles (default: all present)\n"
    "  --no-cold             skip the cold read\n"
    "  --no-warmup           with --no-cold: no untimed read before the timed ones\n"
    "%s";

static void read_json(const void *r, sk_json *j)
{
    sk_read_bench_json(r, j);
}

int cmd_bench_read(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench read", BENCH_SELECTION | BENCH_COMPONENTS);
    sk_read_bench_options opt = {.cold = 1};
    for (int i = 1; i < argc; i++) {
        if (bench_help(argv[i], k_help)) {
            return CLI_OK;
        } else if (cli_is(argv[i], "--no-cold")) {
            opt.cold = 0;
        } else if (cli_is(argv[i], "--no-warmup")) {
            opt.no_warmup = 1;
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    if (!common.source)
        return cli_usage("bench read", "which output? (snapkit bench read SOURCE)");
    if (common.nlevels > 1)
        return cli_usage("bench read", "--threads takes one count here (bench sweep takes a list)");
    opt.threads = bench_one_thread(&common);
    opt.runs = common.runs;
    memcpy(opt.components, common.components, sizeof opt.components);
    bench_run run;
    if (bench_run_open(&run, &common) != CLI_OK)
        return CLI_FAIL;
    opt.progress = bench_progress_hook(&run.progress);
    sk_read_bench r;
    sk_error err;
    int rc = sk_bench_read(run.src, &run.sel, &opt, &r, &err);
    if (bench_run_close(&run, rc, &err) != CLI_OK)
        return CLI_FAIL;
    /* After the reads, so that it does not warm anything they use. */
    sk_machine_first_touch(INT64_C(64) << 20, &r.touch);
    sk_report rep = {.read = &r};
    if (bench_csv(&common, &rep, r.threads, r.cache_dropped ? "warm+cold" : "warm") != CLI_OK)
        return CLI_FAIL;
    return bench_print(common.json, &r, read_json, common.json ? NULL : sk_read_bench_text(&r));
}
