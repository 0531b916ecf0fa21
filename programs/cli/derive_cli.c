/* Derived quantities on the command line: the frame the selection options
 * give, the quantities --vars names, and `stats --list-quantities`. */
#include <string.h>

#include "derive_cli.h"
#include "snapkit/util/json.h"

int cli_derive_frame(const sk_source *src, const char *component, const cli_selection *cs,
                     sk_frame *frame, sk_error *err)
{
    memset(frame, 0, sizeof *frame);
    sk_units u;
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = sk_source_units(src, component, &u, err);
    if (rc == SK_OK)
        rc = cli_selection_in_units(cs, &u, &sel, err);
    if (rc == SK_OK) {
        frame->has_center = sel.has_center;
        for (int a = 0; a < 3; a++) {
            frame->center[a] = sel.center[a] * u.boxlen; /* box units -> code lengths */
            frame->bulk_velocity[a] = cs->has_bulk ? cs->bulk[a] : 0.0;
            frame->axis[a] = cs->region.axis[a];
        }
    }
    sk_selection_clear(&sel);
    return rc;
}

static int particles(const char *component)
{
    return strcmp(component, "particles") == 0;
}

/* A quantity needs a centre the options do not give: say which option. */
static int check_center(const sk_derive_set *set, const sk_frame *frame, sk_error *err)
{
    for (int i = 0; i < sk_derive_set_count(set) && !frame->has_center; i++) {
        const sk_quantity *q = sk_quantity_find(sk_derive_set_name(set, i));
        if (q->needs & SK_NEEDS_CENTER)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "quantity '%s' is taken about a centre: give one with --center",
                           q->name);
    }
    return SK_OK;
}

/* A frame that lets every quantity be added to a set: the centre is
 * checked afterwards, with a message naming the option. */
static int new_set(const sk_frame *frame, sk_derive_set **set, sk_error *err)
{
    sk_frame any = *frame;
    any.has_center = 1;
    return sk_derive_set_new(&any, NULL, set, err);
}

int cli_derive_take_vars(const sk_source *src, const char *component, const cli_selection *cs,
                         cli_selection *read, sk_derive_set **set, sk_error *err)
{
    *read = *cs;
    *set = NULL;
    if (!cs->vars[0])
        return SK_OK;
    sk_frame frame;
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = cli_derive_frame(src, component, cs, &frame, err);
    if (rc == SK_OK)
        rc = sk_selection_set_vars(&sel, cs->vars, err);
    if (rc == SK_OK)
        rc = new_set(&frame, set, err);
    if (rc == SK_OK)
        rc = sk_derive_set_take_vars(*set, &sel, particles(component), err);
    if (rc == SK_OK)
        rc = check_center(*set, &frame, err);
    size_t at = 0;
    for (int v = 0; rc == SK_OK && v < sel.nvars; v++)
        at += (size_t)snprintf(read->vars + at, sizeof read->vars - at, "%s%s", v ? "," : "",
                               sel.vars[v]);
    sk_selection_clear(&sel);
    if (rc == SK_OK && sk_derive_set_count(*set) == 0) {
        sk_derive_set_free(*set);
        *set = NULL;
    }
    if (rc != SK_OK) {
        sk_derive_set_free(*set);
        *set = NULL;
    }
    return rc;
}

int cli_derive_frame_quantities(const sk_source *src, const char *component,
                                const cli_selection *cs, const char *const *names, int n,
                                sk_derive_set **set, sk_error *err)
{
    *set = NULL;
    sk_frame frame;
    int rc = cli_derive_frame(src, component, cs, &frame, err);
    if (rc == SK_OK)
        rc = new_set(&frame, set, err);
    for (int i = 0; i < n && rc == SK_OK; i++) {
        const sk_quantity *q = sk_quantity_find(names[i]);
        if (q && (q->needs & (SK_NEEDS_CENTER | SK_NEEDS_AXIS | SK_NEEDS_BULK)))
            rc = sk_derive_set_add(*set, q->name, particles(component), err);
    }
    if (rc == SK_OK)
        rc = check_center(*set, &frame, err);
    if (rc != SK_OK || sk_derive_set_count(*set) == 0) {
        sk_derive_set_free(*set);
        *set = NULL;
    }
    return rc;
}

static void needs_text(const sk_quantity *q, char *buf, size_t n)
{
    static const char *const names[] = {"centre", "axis", "bulk", "gamma", "units"};
    size_t at = 0;
    buf[0] = '\0';
    for (int b = 0; b < 5; b++)
        if (q->needs & (1 << b))
            at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", names[b]);
    if (!q->cell_columns || !q->particle_columns)
        snprintf(buf + at, n - at, "%s%s", at ? "," : "", q->cell_columns ? "cells" : "particles");
    if (!buf[0])
        snprintf(buf, n, "-");
}

int cli_derive_list(int json)
{
    if (json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_quantities_json(&j);
        cli_print_json(&j);
        sk_json_free(&j);
        return CLI_OK;
    }
    printf("Derived quantities (--vars NAME), in code units. d: the displacement from\n"
           "--center to the nearest periodic image; v' = v - --bulk-velocity; n: the axis\n"
           "(--cylinder-axis, default z); e1, e2: directions across n (x, y for n = z);\n"
           "r = |d|, R = |n x d|, z = d.n. docs/analysis.md explains each.\n\n");
    printf("%-18s %-34s %-24s %s\n", "name", "dimension (cgs unit)", "needs", "formula");
    for (int i = 0; i < sk_quantity_count(); i++) {
        const sk_quantity *q = sk_quantity_at(i);
        char dim[64], needs[64];
        snprintf(dim, sizeof dim, "%s (%s)", sk_quantity_dim_name(q->dim),
                 q->cgs_unit ? (q->cgs_unit[0] ? q->cgs_unit : "1") : "gamma-dependent");
        needs_text(q, needs, sizeof needs);
        printf("%-18s %-34s %-24s %s\n", q->name, dim, needs, q->formula);
    }
    return CLI_OK;
}
