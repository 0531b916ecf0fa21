/* Shared pieces of the `snapkit bench` subcommands. */
#include "bench_common.h"
#include "snapkit/util/mpi.h"

#include <string.h>

const char bench_common_help[] =
    "  --threads LIST        thread levels, e.g. 1,2,4,8 (default 1, 2, 4, ... the CPUs the\n"
    "                        job owns; levels above that are skipped with a warning)\n"
    "  --runs N              repetitions per level\n"
    "  --max-threads N       never more than N threads (caps --threads and the defaults)\n"
    "  --csv FILE            append one row per measurement to FILE with the run's metadata\n"
    "                        (UTC time, host, version, build id, CPU, CPUs owned, filesystem,\n"
    "                        source, selection, threads, warm/cold); header when FILE is new\n"
    "  --json                print the stage's JSON object (as in report.json)\n";

void bench_common_init(bench_common *b, const char *stage, int takes)
{
    memset(b, 0, sizeof *b);
    b->stage = stage;
    b->takes = takes;
    cli_selection_init(&b->cs);
}

static void selection_text(char *buf, size_t n, const char *arg);

static int common_option(bench_common *b, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (cli_is(a, "--json")) {
        b->json = 1;
        return 1;
    }
    if (cli_is(a, "--runs")) {
        long long n;
        if (cli_int_between(argc, argv, i, 1, 256, &n))
            return -1;
        b->runs = (int)n;
        return 1;
    }
    if (cli_is(a, "--max-threads")) {
        long long n;
        if (cli_int_between(argc, argv, i, 1, 4096, &n))
            return -1;
        b->max_threads = (int)n;
        return 1;
    }
    if (cli_is(a, "--csv")) {
        return (b->csv = cli_value(argc, argv, i)) ? 1 : -1;
    }
    if (cli_is(a, "--threads")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        sk_error err;
        b->nlevels = sk_bench_parse_levels(v, b->levels, SK_BENCH_MAX_LEVELS, &err);
        if (b->nlevels < 0) {
            cli_error(&err);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* --component a,b into b->components (at most three). */
static int component_option(bench_common *b, int argc, char **argv, int *i)
{
    if (!cli_is(argv[*i], "--component"))
        return 0;
    const char *v = cli_value(argc, argv, i);
    if (!v)
        return -1;
    snprintf(b->component_list, sizeof b->component_list, "%s", v);
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(b->component_list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (int c = 0; sk_ramses_component_name(c); c++)
            known |= strcmp(tok, sk_ramses_component_name(c)) == 0;
        if (!known) {
            cli_fail("--component: '%s' is not hydro, gravity, particles, rt, clump_field, sinks "
                     "or clumps", tok);
            return -1;
        }
        if (k == SKB_MAX_COMPONENTS) {
            cli_fail("--component: at most %d components", SKB_MAX_COMPONENTS);
            return -1;
        }
        b->components[k++] = tok;
    }
    b->components[k] = NULL;
    return 1;
}

int bench_option(bench_common *b, int argc, char **argv, int *i)
{
    int used = common_option(b, argc, argv, i);
    if (!used && (b->takes & BENCH_SELECTION)) {
        int first = *i;
        used = cli_selection_option(&b->cs, argc, argv, i);
        for (int k = first; used > 0 && k <= *i; k++)
            selection_text(b->selection, sizeof b->selection, argv[k]);
    }
    if (!used && (b->takes & BENCH_COMPONENTS))
        used = component_option(b, argc, argv, i);
    if (used)
        return used;
    const char *a = argv[*i];
    if (a[0] == '-' || b->source) {
        cli_usage(b->stage, "unexpected argument '%s'", a);
        return -1;
    }
    b->source = a;
    return 1;
}

int bench_help(const char *arg, const char *help)
{
    if (!cli_is(arg, "--help") && !cli_is(arg, "-h"))
        return 0;
    printf(help, cli_selection_help);
    fputs(bench_common_help, stdout);
    return 1;
}

int bench_parse_common(bench_common *b, int argc, char **argv, const char *help)
{
    for (int i = 1; i < argc; i++) {
        if (bench_help(argv[i], help))
            return 0;
        if (bench_option(b, argc, argv, &i) < 0)
            return -1;
    }
    return 1;
}

static void selection_text(char *buf, size_t n, const char *arg)
{
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", len ? " " : "", arg);
}

void bench_cap_levels(bench_common *b)
{
    if (b->max_threads < 1)
        return;
    if (b->nlevels == 0) {
        b->nlevels = sk_bench_default_levels(b->max_threads, b->levels, SK_BENCH_MAX_LEVELS);
        return;
    }
    int n = sk_bench_clamp_levels(b->levels, b->nlevels, b->max_threads);
    if (n < b->nlevels)
        fprintf(stderr, "snapkit: --max-threads %d: levels above it are skipped\n", b->max_threads);
    if (n == 0) { /* every level was above the cap: run at the cap */
        b->levels[0] = b->max_threads;
        n = 1;
    }
    b->nlevels = n;
}

int bench_one_thread(const bench_common *b)
{
    int t = b->nlevels ? b->levels[0] : 0;
    if (b->max_threads > 0 && (t == 0 || t > b->max_threads)) {
        sk_thread_budget budget;
        sk_thread_budget_get(b->max_threads, &budget);
        t = t && t < budget.threads ? t : budget.threads;
    }
    return t;
}

int bench_csv(const bench_common *b, sk_report *r, int threads, const char *cache)
{
    if (!b->csv)
        return CLI_OK;
    static sk_machine m;
    sk_machine_get(threads ? threads : b->max_threads, &m);
    r->machine = &m;
    sk_bench_meta meta;
    sk_bench_meta_get(&m, b->source, b->selection, threads, cache, &meta);
    sk_error err;
    if (sk_bench_csv_append(b->csv, &meta, r, &err) != SK_OK)
        return cli_error(&err);
    return CLI_OK;
}

void bench_warn_levels(const int *levels, int n)
{
    if (n < 1)
        return;
    sk_thread_budget budget;
    sk_thread_budget_get(levels[n - 1], &budget);
    char warning[256];
    if (sk_thread_warning(&budget, NULL, warning, sizeof warning))
        fprintf(stderr, "snapkit: %s (levels above %d are skipped)\n", warning, budget.owned);
}

static void progress_fn(void *ctx, int64_t done, int64_t total, int64_t bytes)
{
    cli_progress *p = ctx;
    if (!cli_progress_due(p, done, total))
        return;
    char b[32];
    fprintf(stderr, "\r%s: %lld/%lld measurements", p->what, (long long)done, (long long)total);
    if (bytes > 0)
        fprintf(stderr, ", %s read", cli_bytes((double)bytes, b, sizeof b));
    fputs("   ", stderr);
    fflush(stderr);
}

sk_progress bench_progress_hook(cli_progress *p)
{
    return (sk_progress){.fn = progress_fn, .ctx = p};
}

void bench_show(char *text)
{
    if (text) {
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    sk_free(text);
}

int bench_print(int json, const void *stage, bench_json_fn to_json, char *text)
{
    int rc = CLI_OK;
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        to_json(stage, &j);
        if (j.failed)
            rc = cli_fail("out of memory");
        else
            cli_print_json(&j);
        sk_json_free(&j);
    } else if (text) {
        fputs(text, stdout);
    } else {
        rc = cli_fail("out of memory");
    }
    sk_free(text);
    return rc;
}

int bench_open(const char *path, const cli_selection *cs, sk_source **src,
               sk_selection *sel)
{
    sk_error err;
    sk_selection_init(sel);
    cli_selection found = *cs;
    int rc = sk_source_open(src, path, &err);
    /* centres and frames found from the data (every rank of bench ranks and
     * report opens the source: they agree first, then find them together) */
    if (found.center_spec[0] || found.axis_is_L || found.bulk_is_com) {
        rc = sk_mpi_agree(rc, &err);
        if (rc == SK_OK)
            rc = cli_selection_resolve(*src, &found, 0, NULL, &err);
    }
    if (rc == SK_OK)
        rc = sk_bench_source_select(*src, &found.region, found.lmax, found.vars, sel, &err);
    if (rc == SK_OK)
        return CLI_OK;
    sk_source_close(*src);
    *src = NULL;
    return cli_error(&err);
}

int bench_run_open(bench_run *r, const bench_common *b)
{
    bench_warn_levels(b->levels, b->nlevels);
    if (bench_open(b->source, &b->cs, &r->src, &r->sel) != CLI_OK)
        return CLI_FAIL;
    cli_progress_init(&r->progress, b->stage);
    return CLI_OK;
}

int bench_run_close(bench_run *r, int rc, const sk_error *err)
{
    cli_progress_done(&r->progress);
    sk_selection_clear(&r->sel);
    sk_source_close(r->src);
    return rc == SK_OK ? CLI_OK : cli_error(err);
}

int bench_most_threads(const sk_scaling *s)
{
    return s->npoints ? s->points[s->npoints - 1].threads : 0;
}
