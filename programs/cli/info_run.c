/* snapkit info RUN: the outputs of a run, their times and completeness. */
#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "info_text.h"
#include "snapkit/run.h"
#include "snapkit/util/json.h"

/* A number, or "-" when unknown (NaN). */
static const char *num(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.6g", v);
    return buf;
}

static void print_table(const char *dir, const sk_run_output *o, int n)
{
    int64_t bytes = 0;
    int complete = 0;
    for (int i = 0; i < n; i++) {
        bytes += o[i].bytes;
        complete += o[i].state == SK_RUN_COMPLETE;
    }
    char b[32], t[32], myr[32], z[32], lv[32];
    printf("RAMSES run %s: %d output%s, %d complete, %d incomplete, %s\n", dir, n,
           n == 1 ? "" : "s", complete, n - complete, cli_bytes((double)bytes, b, sizeof b));
    printf("%6s %14s %12s %10s %6s %7s %14s  %s\n", "output", "time", "time_Myr", "redshift",
           "ncpu", "levels", "bytes", "state");
    for (int i = 0; i < n; i++) {
        const sk_run_output *r = &o[i];
        int known = r->ncpu > 0;
        snprintf(lv, sizeof lv, "%d-%d", r->levelmin, r->levelmax);
        printf("%6d %14s %12s %10s %6d %7s %14lld  %s%s%s\n", r->output,
               num(known ? r->time : NAN, t, sizeof t), num(r->time_myr, myr, sizeof myr),
               num(r->redshift, z, sizeof z), r->ncpu, known ? lv : "-", (long long)r->bytes,
               sk_run_state_name(r->state), r->problem[0] ? ": " : "", r->problem);
    }
}

int info_run(const char *dir, int json)
{
    sk_error err;
    sk_error_clear(&err);
    sk_run_output *o;
    int n;
    if (sk_run_list(dir, &o, &n, &err) != SK_OK)
        return cli_error(&err);
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_run_json(dir, o, n, &j);
        cli_print_json(&j);
        sk_json_free(&j);
    } else {
        print_table(dir, o, n);
    }
    sk_run_free(o, n);
    return CLI_OK;
}
