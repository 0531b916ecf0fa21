/* snapkit bench compare: two saved reports, the ratio per measurement. */
#include <math.h>
#include <string.h>

#include "bench/compare.h"
#include "bench_commands.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench compare A.json B.json [--stage NAME] [--json]\n\n"
    "Read two saved reports (report.json of bench report, or one stage's --json) and print,\n"
    "per stage and measurement both hold, the value in A, in B and the ratio B/A: before\n"
    "and after a change, or one machine against another. Times above 1 mean B is slower;\n"
    "rates (bytes per second, iops, speedup) above 1 mean B is faster. Points of a sweep\n"
    "are matched by their thread count, components by their name. A stage's own --json\n"
    "(no stage key) is compared as stage \"stage\". Nothing is measured.\n\n"
    "options:\n"
    "  --stage NAME          only this stage (sweep, storage, read, convert, project, lmax, ...)\n"
    "  --json                {\"a\", \"b\", \"rows\": [{stage, measurement, a, b, ratio}],\n"
    "                        \"only_a\", \"only_b\"}\n";

/* A stage's own --json has no stage keys: wrap it as {"stage": it} so
 * both kinds of file compare alike. */
static int is_report(const sk_json_value *v)
{
    return sk_json_get(v, "machine") != NULL;
}

static int load(const char *path, sk_json_value **v, sk_json_value *wrap, char **key)
{
    sk_error err;
    if (sk_json_load(path, v, &err) != SK_OK)
        return cli_error(&err);
    if (is_report(*v)) {
        *wrap = **v;
        return CLI_OK;
    }
    *key = "stage";
    *wrap = (sk_json_value){.type = SK_JSON_OBJECT, .n = 1, .items = *v, .keys = key};
    return CLI_OK;
}

static void print_json(const char *pa, const char *pb, const skb_compare *c, const char *stage)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "a", pa);
    sk_json_kv_string(&j, "b", pb);
    sk_json_key(&j, "rows");
    sk_json_array_begin(&j);
    for (int i = 0; i < c->nrows; i++) {
        const skb_compare_row *r = &c->rows[i];
        if (stage && strcmp(stage, r->stage))
            continue;
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "stage", r->stage);
        sk_json_kv_string(&j, "measurement", r->measurement);
        sk_json_kv_double(&j, "a", r->a);
        sk_json_kv_double(&j, "b", r->b);
        sk_json_kv_double(&j, "ratio", r->ratio);
        sk_json_object_end(&j);
    }
    sk_json_array_end(&j);
    sk_json_kv_int(&j, "only_a", c->only_a);
    sk_json_kv_int(&j, "only_b", c->only_b);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

static void print_text(const char *pa, const char *pb, const skb_compare *c, const char *stage)
{
    printf("A: %s\nB: %s\n", pa, pb);
    const char *last = "";
    for (int i = 0; i < c->nrows; i++) {
        const skb_compare_row *r = &c->rows[i];
        if (stage && strcmp(stage, r->stage))
            continue;
        if (strcmp(last, r->stage)) {
            printf("\n%s\n  %-48s %14s %14s %8s\n", r->stage, "measurement", "A", "B", "B/A");
            last = r->stage;
        }
        char ratio[32];
        if (isfinite(r->ratio))
            snprintf(ratio, sizeof ratio, "%.3f", r->ratio);
        else
            snprintf(ratio, sizeof ratio, "-");
        printf("  %-48s %14.6g %14.6g %8s\n", r->measurement, r->a, r->b, ratio);
    }
    if (c->only_a || c->only_b)
        printf("\n%d measurement%s in A only, %d in B only\n", c->only_a, c->only_a == 1 ? "" : "s",
               c->only_b);
}

int cmd_bench_compare(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL}, *stage = NULL;
    int json = 0, k = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_help(a, k_help)) {
            return CLI_OK;
        } else if (cli_is(a, "--json")) {
            json = 1;
        } else if (cli_is(a, "--stage")) {
            if (!(stage = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (a[0] == '-' || k == 2) {
            return cli_usage("bench compare", "unexpected argument '%s'", a);
        } else {
            paths[k++] = a;
        }
    }
    if (k < 2)
        return cli_usage("bench compare", "give two reports (snapkit bench compare A.json B.json)");
    sk_json_value *va = NULL, *vb = NULL, wa, wb;
    char *ka = NULL, *kb = NULL;
    if (load(paths[0], &va, &wa, &ka) != CLI_OK)
        return CLI_FAIL;
    if (load(paths[1], &vb, &wb, &kb) != CLI_OK) {
        sk_json_value_free(va);
        return CLI_FAIL;
    }
    skb_compare c;
    sk_error err;
    int rc = skb_compare_reports(&wa, &wb, &c, &err) == SK_OK ? CLI_OK : cli_error(&err);
    if (rc == CLI_OK && c.nrows == 0)
        rc = cli_fail("%s and %s hold no measurement in common", paths[0], paths[1]);
    else if (rc == CLI_OK)
        (json ? print_json : print_text)(paths[0], paths[1], &c, stage);
    skb_compare_free(&c);
    sk_json_value_free(va);
    sk_json_value_free(vb);
    return rc;
}
