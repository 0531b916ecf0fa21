/* What the selection options leave to the data, worked out once the
 * source is open and before anything is read: the centre (--center
 * max:FIELD, min:FIELD, com, shrink: snapkit/center.h), the frame's bulk
 * velocity (--bulk-velocity com) and the axis L (--cylinder-axis L,
 * --face-on, --edge-on: snapkit/totals.h). Under MPI each rank reads its
 * share and the library reduces, so every rank gets the same values. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"

int cli_center_option(cli_selection *s, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (cli_is(a, "--center-component") || cli_is(a, "--centre-component")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        if (strlen(v) >= sizeof s->center_components) {
            cli_fail("%s: '%s' is too long", a, v);
            return -1;
        }
        snprintf(s->center_components, sizeof s->center_components, "%s", v);
        return 1;
    }
    if (cli_is(a, "--shrink-factor")) {
        const char *v = cli_value(argc, argv, i);
        if (!v || cli_double(a, v, &s->shrink_factor))
            return -1;
        if (!(s->shrink_factor > 0 && s->shrink_factor < 1)) {
            cli_fail("--shrink-factor must be between 0 and 1 (excluded), not %s", v);
            return -1;
        }
        return 1;
    }
    if (cli_is(a, "--shrink-min")) {
        if (cli_int_value(argc, argv, i, &s->shrink_min))
            return -1;
        if (s->shrink_min < 1) {
            cli_fail("--shrink-min must be at least 1, not %lld", s->shrink_min);
            return -1;
        }
        return 1;
    }
    if (cli_is(a, "--search-center") || cli_is(a, "--search-centre")) {
        if (*i + 3 >= argc) {
            cli_fail("%s needs X Y Z", a);
            return -1;
        }
        for (int k = 0; k < 3; k++)
            if (cli_double(a, argv[*i + 1 + k], &s->search_center[k]))
                return -1;
        s->has_search_center = 1;
        *i += 3;
        return 1;
    }
    return 0;
}

/* A cylinder about the axis L, not known yet, is taken as the sphere that
 * holds it whatever its direction. */
static void enclose_cylinder(sk_region_request *r)
{
    if (r->shape != SK_SHAPE_CYLINDER && r->shape != SK_SHAPE_CYLINDER_SHELL)
        return;
    r->radius[1] = hypot(r->radius[1], r->half_height);
    r->radius[0] = 0;
    r->half_height = 0;
    r->shape = SK_SHAPE_SPHERE;
}

/* The selection of cs as it stands, with nothing left to find. */
static int plain_selection(const sk_source *src, const cli_selection *cs, sk_selection *sel,
                           sk_error *err)
{
    cli_selection c = *cs;
    c.center_spec[0] = 0;
    c.axis_is_L = c.bulk_is_com = 0;
    c.vars[0] = 0;
    if (cs->axis_is_L)
        enclose_cylinder(&c.region);
    return cli_source_selection(src, NULL, &c, sel, err);
}

/* The centre: searched within the ranges and shape about the search
 * centre (default the box centre), then put in the region's unit. */
static int resolve_center(sk_source *src, cli_selection *cs, const sk_read_options *opt,
                          cli_resolved *res, sk_error *err)
{
    sk_center_options co;
    sk_center_options_init(&co);
    int rc = sk_center_parse(cs->center_spec, &co, err);
    snprintf(co.components, sizeof co.components, "%s", cs->center_components);
    if (cs->shrink_factor > 0)
        co.shrink_factor = cs->shrink_factor;
    if (cs->shrink_min > 0)
        co.shrink_min = cs->shrink_min;
    cli_selection search = *cs;
    search.region.has_center = 1;
    search.region.center_is_bc = !cs->has_search_center;
    memcpy(search.region.center, cs->search_center, sizeof search.region.center);
    sk_selection sel;
    sk_selection_init(&sel);
    if (rc == SK_OK)
        rc = plain_selection(src, &search, &sel, err);
    if (rc == SK_OK)
        rc = sk_center_find(src, &sel, &co, opt, &res->center, err);
    sk_selection_clear(&sel);
    sk_units u;
    double f = 1;
    if (rc == SK_OK)
        rc = sk_source_units(src, NULL, &u, err);
    if (rc == SK_OK)
        rc = sk_box_units_per(&u, cs->region.unit, &f, err);
    if (rc != SK_OK)
        return rc;
    for (int k = 0; k < 3; k++)
        cs->region.center[k] = res->center.center[k] / f;
    cs->region.has_center = 1;
    cs->region.center_is_bc = 0;
    snprintf(res->method, sizeof res->method, "%s", cs->center_spec);
    cs->center_spec[0] = 0;
    return SK_OK;
}

/* The bulk velocity and the axis L from the totals of the selection's
 * gas (or --center-component): about the centre when one is given, else
 * about the centre of mass; relative to the frame's velocity when given,
 * else the selection's own bulk velocity. */
static int resolve_frame(sk_source *src, cli_selection *cs, const sk_read_options *opt,
                         cli_resolved *res, sk_error *err)
{
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = plain_selection(src, cs, &sel, err);
    sk_totals_frame frame = {.about_com = !cs->region.has_center,
                             .has_velocity = cs->has_bulk && !cs->bulk_is_com};
    memcpy(frame.ref, sel.center, sizeof frame.ref);
    memcpy(frame.velocity, cs->bulk, sizeof frame.velocity);
    if (rc == SK_OK)
        rc = sk_totals_compute(src, cs->center_components, &sel, &frame, opt, &res->frame, err);
    sk_selection_clear(&sel);
    const char *what = cs->bulk_is_com ? "--bulk-velocity com" : "the axis L";
    const sk_totals *t = &res->frame;
    if (rc == SK_OK && t->cells + t->particles == 0)
        rc = sk_fail(err, SK_ERR_EMPTY, NULL, -1, "%s: the selection holds no row", what);
    else if (rc == SK_OK && !t->has_velocity)
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: the selection's rows have no velocities",
                     what);
    else if (rc == SK_OK && !(t->mass > 0))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "%s: the selection's mass is %g", what, t->mass);
    const double *L = t->angular_momentum_direction;
    if (rc == SK_OK && cs->axis_is_L && !(L[0] * L[0] + L[1] * L[1] + L[2] * L[2] > 0))
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1,
                     "the axis L: the selection's angular momentum is zero (give an axis)");
    if (rc != SK_OK)
        return rc;
    res->has_frame = 1;
    if (cs->bulk_is_com)
        memcpy(cs->bulk, t->bulk_velocity, sizeof cs->bulk);
    if (cs->axis_is_L)
        memcpy(cs->region.axis, L, sizeof cs->region.axis);
    cs->bulk_is_com = cs->axis_is_L = 0;
    return SK_OK;
}

int cli_selection_resolve(sk_source *src, cli_selection *cs, int threads, cli_resolved *res,
                          sk_error *err)
{
    cli_resolved local;
    res = res ? res : &local;
    memset(res, 0, sizeof *res);
    if (cs->has_search_center && !cs->center_spec[0])
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "--search-center: only with --center max:FIELD, min:FIELD, com or shrink");
    sk_read_options opt = {.threads = threads};
    cli_mpi_share(&opt);
    int rc = SK_OK;
    if (cs->center_spec[0])
        rc = resolve_center(src, cs, &opt, res, err);
    if (rc == SK_OK && (cs->axis_is_L || cs->bulk_is_com))
        rc = resolve_frame(src, cs, &opt, res, err);
    return rc;
}

void cli_frame_direction(const double L[3], int edge, double los[3], double up[3])
{
    memcpy(up, L, 3 * sizeof *up);
    if (!edge) {
        memcpy(los, L, 3 * sizeof *los);
        return;
    }
    int k = 0; /* the axis least aligned with L (the first of equals) */
    for (int j = 1; j < 3; j++)
        k = fabs(L[j]) < fabs(L[k]) ? j : k;
    double e[3] = {0, 0, 0};
    e[k] = 1;
    los[0] = L[1] * e[2] - L[2] * e[1];
    los[1] = L[2] * e[0] - L[0] * e[2];
    los[2] = L[0] * e[1] - L[1] * e[0];
    double n = sqrt(los[0] * los[0] + los[1] * los[1] + los[2] * los[2]);
    for (int j = 0; j < 3; j++)
        los[j] /= n;
}
