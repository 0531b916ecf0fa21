/* Centres (snapkit/center.h): parsing, the extreme of a column and the
 * centre of mass; the shrinking sphere is shrink.c. */
#include "snapkit/center.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/center_internal.h"
#include "analysis/pass.h"
#include "snapkit/memory.h"
#include "snapkit/totals.h"
#include "snapkit/util/mpi.h"

void sk_center_options_init(sk_center_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->method = SK_CENTER_COM;
    opt->shrink_factor = SK_SHRINK_FACTOR_DEFAULT;
    opt->shrink_min = SK_SHRINK_MIN_DEFAULT;
}

int sk_center_parse(const char *spec, sk_center_options *opt, sk_error *err)
{
    int extreme = !strncmp(spec, "max:", 4) ? SK_CENTER_MAX : !strncmp(spec, "min:", 4) ? SK_CENTER_MIN : 0;
    if (extreme && (!spec[4] || strlen(spec + 4) >= sizeof opt->field))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "center %s: needs a column name, e.g. %.4sdensity",
                       spec, spec);
    if (extreme) {
        opt->method = extreme;
        snprintf(opt->field, sizeof opt->field, "%s", spec + 4);
    } else if (!strcmp(spec, "com")) {
        opt->method = SK_CENTER_COM;
    } else if (!strcmp(spec, "shrink")) {
        opt->method = SK_CENTER_SHRINK;
    } else {
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "center '%s': not max:FIELD, min:FIELD, com or shrink", spec);
    }
    return SK_OK;
}

/* Is the candidate (v, x) better than the best so far (sign +1: larger
 * values win, -1: smaller); ties go to the lowest x, then y, then z. */
static int better(const an_extreme *b, int sign, double v, const double x[3])
{
    if (!b->found)
        return 1;
    if (v != b->value)
        return sign > 0 ? v > b->value : v < b->value;
    for (int k = 0; k < 3; k++)
        if (x[k] != b->x[k])
            return x[k] < b->x[k];
    return 0;
}

int an_extreme_offer(an_extreme *b, int sign, double v, const double x[3])
{
    if (!(v == v && better(b, sign, v, x)))
        return 0;
    b->found = 1;
    b->value = v;
    memcpy(b->x, x, sizeof b->x);
    return 1;
}

void an_extreme_merge(an_extreme *b, int sign, const an_extreme *from)
{
    b->rows += from->rows;
    if (from->found)
        an_extreme_offer(b, sign, from->value, from->x);
}

/* The same extreme on every rank: the best value over the ranks, then,
 * among the ranks holding it, the lowest x, y and z in turn (MPI's max of
 * the negated coordinate). */
int an_extreme_reduce(an_extreme *b, int sign, sk_error *err)
{
    double best = !b->found ? -INFINITY : sign * b->value;
    int rc = sk_mpi_sum_int64(&b->rows, 1, err);
    if (rc == SK_OK)
        rc = sk_mpi_max_double(&best, 1, err);
    int mine = b->found && sign * b->value == best;
    for (int k = 0; k < 3 && rc == SK_OK; k++) {
        double key = mine ? -b->x[k] : -INFINITY;
        rc = sk_mpi_max_double(&key, 1, err);
        mine = mine && -key == b->x[k];
        b->x[k] = -key;
    }
    int64_t found = b->found;
    if (rc == SK_OK)
        rc = sk_mpi_sum_int64(&found, 1, err);
    b->found = found > 0;
    b->value = sign * best;
    return rc;
}

int sk_center_find(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                   const sk_read_options *ropt, sk_center_result *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    sk_selection all;
    sk_selection_init(&all);
    sel = sel ? sel : &all;
    const char *names[AN_MAX_COMPONENTS];
    int n = 0;
    int rc = an_components(src, copt->components, names, &n, err);
    if (rc != SK_OK)
        return rc;
    switch (copt->method) {
    case SK_CENTER_MAX:
    case SK_CENTER_MIN:
        return an_center_extreme(src, sel, copt, names, n, ropt, out, err);
    case SK_CENTER_COM:
        return an_center_com(src, sel, copt, ropt, out, err);
    case SK_CENTER_SHRINK:
        return an_center_shrink(src, sel, copt, names, n, ropt, out, err);
    default:
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "center: unknown method %d", copt->method);
    }
}

int an_center_com(sk_source *src, const sk_selection *sel, const sk_center_options *copt,
                  const sk_read_options *ropt, sk_center_result *out, sk_error *err)
{
    sk_totals_frame frame = {.about_com = 1};
    an_selection_ref(sel, frame.ref);
    sk_totals_acc *acc;
    int rc = an_totals_pass(src, copt->components, sel, &frame, ropt, &acc, err);
    if (rc != SK_OK)
        return rc;
    an_totals_com(acc, out->center, &out->mass, &out->rows);
    sk_totals_acc_free(acc);
    out->final_rows = out->rows;
    if (!out->rows)
        return sk_fail(err, SK_ERR_EMPTY, sk_source_path(src), -1,
                       "center com: the selection holds no row");
    if (!(out->mass > 0) || !isfinite(out->mass))
        return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1,
                       "center com: the selection's mass is %g, not positive", out->mass);
    return SK_OK;
}
