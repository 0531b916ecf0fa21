/* snapkit center: the centre --center finds in a selection of a source
 * (the densest cell, a centre of mass, the shrinking-sphere centre: the
 * resolution every selecting command makes, resolve.c), printed in box,
 * code and the asked units; with --bulk-velocity com and --cylinder-axis
 * L, the frame's velocity and axis too. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "snapkit/util/json.h"
#include "snapkit/util/number.h"

static const char k_help[] =
    "usage: snapkit center SOURCE [--center max:FIELD|min:FIELD|com|shrink|X Y Z|bc]\n"
    "                      [selection] [--threads N] [--json]\n\n"
    "Find a centre in SOURCE (a RAMSES output folder or a .snapkit file) as every command\n"
    "that takes --center does, and print it in box units (0..1), code units and --unit.\n"
    "Default: com, the centre of mass of the gas (of the particles without gas).\n"
    "  max:FIELD, min:FIELD  the cell (particle) with the largest (smallest) FIELD; among\n"
    "                        equal values the lowest x, then y, then z\n"
    "  com                   the centre of mass (positions to the nearest periodic image\n"
    "                        of the search centre)\n"
    "  shrink                the shrinking-sphere centre of mass (Power et al. 2003): from\n"
    "                        the selection's centre of mass and enclosing radius, shrink\n"
    "                        the radius by --shrink-factor and retake the centre of mass of\n"
    "                        what remains, until fewer than --shrink-min rows would remain\n"
    "The search covers the selection's ranges and shape about --search-center (default\n"
    "the box centre). With --bulk-velocity com and --cylinder-axis L it also prints the\n"
    "mass-weighted mean velocity and the unit angular momentum of the selection about the\n"
    "centre found.\n\n"
    "%s"
    "  --threads N           use at most N threads (default: the job's budget)\n"
    "  --json                one JSON object: method, center{box, code, unit, in_unit},\n"
    "                        rows, component and value (max, min), mass, iterations,\n"
    "                        radius and final_rows (shrink), bulk_velocity, axis, seconds\n";

static void print_vector(const char *label, const double v[3])
{
    char a[SK_NUMBER_BUFSIZE], b[SK_NUMBER_BUFSIZE], c[SK_NUMBER_BUFSIZE];
    sk_format_double(v[0], a);
    sk_format_double(v[1], b);
    sk_format_double(v[2], c);
    printf("  %-22s %s %s %s\n", label, a, b, c);
}

static void json_vector(sk_json *j, const char *key, const double v[3])
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int k = 0; k < 3; k++)
        sk_json_double(j, v[k]);
    sk_json_array_end(j);
}

/* The centre in box units, code units and the region's unit. */
typedef struct center_out {
    double box[3], code[3], in_unit[3];
    const char *unit;
} center_out;

static void print_json(const cli_selection *cs, const cli_resolved *r, const center_out *c,
                       double seconds)
{
    const sk_center_result *f = &r->center;
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "method", r->method[0] ? r->method : "given");
    sk_json_key(&j, "center");
    sk_json_object_begin(&j);
    json_vector(&j, "box", c->box);
    json_vector(&j, "code", c->code);
    sk_json_kv_string(&j, "unit", c->unit);
    json_vector(&j, "in_unit", c->in_unit);
    sk_json_object_end(&j);
    if (r->method[0]) {
        sk_json_kv_int(&j, "rows", f->rows);
        if (f->component[0]) {
            sk_json_kv_string(&j, "component", f->component);
            sk_json_kv_double(&j, "value", f->value);
        } else {
            sk_json_kv_double(&j, "mass", f->mass);
            sk_json_kv_int(&j, "final_rows", f->final_rows);
        }
        if (!strcmp(r->method, "shrink")) {
            sk_json_kv_int(&j, "iterations", f->iterations);
            sk_json_kv_double(&j, "radius", f->radius);
        }
    }
    if (r->has_frame && cs->has_bulk)
        json_vector(&j, "bulk_velocity", cs->bulk);
    if (r->has_frame)
        json_vector(&j, "axis", cs->region.axis);
    sk_json_kv_double(&j, "seconds", seconds);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

static void print_text(const cli_selection *cs, const cli_resolved *r, const center_out *c,
                       double seconds)
{
    const sk_center_result *f = &r->center;
    if (!r->method[0])
        printf("centre as given\n");
    else if (f->component[0])
        printf("centre %s: %s row of %lld, value %.17g, in %.3f s\n", r->method, f->component,
               (long long)f->rows, f->value, seconds);
    else if (!strcmp(r->method, "shrink"))
        printf("centre shrink: %lld rows, %d shrinking steps, last sphere of radius %.6g box "
               "holding %lld rows of mass %.6g, in %.3f s\n",
               (long long)f->rows, f->iterations, f->radius, (long long)f->final_rows, f->mass,
               seconds);
    else
        printf("centre com: %lld rows of mass %.17g, in %.3f s\n", (long long)f->rows, f->mass,
               seconds);
    print_vector("box (0..1)", c->box);
    print_vector("code", c->code);
    if (strcmp(c->unit, "standard") && strcmp(c->unit, "code"))
        print_vector(c->unit, c->in_unit);
    if (r->has_frame && cs->has_bulk)
        print_vector("bulk velocity (code)", cs->bulk);
    if (r->has_frame)
        print_vector("axis (unit L)", cs->region.axis);
}

/* The centre cs now holds, in every unit; in box units the one found
 * exactly as found (cs holds it divided by the unit's size). */
static int center_units(const sk_source *src, const cli_selection *cs, const cli_resolved *r,
                        center_out *c, sk_error *err)
{
    sk_units u;
    double f = 1;
    int rc = sk_source_units(src, NULL, &u, err);
    if (rc == SK_OK)
        rc = sk_box_units_per(&u, cs->region.unit, &f, err);
    c->unit = cs->region.unit;
    for (int k = 0; k < 3; k++) {
        c->in_unit[k] = cs->region.center_is_bc ? 0.5 / f : cs->region.center[k];
        c->box[k] = r->method[0]              ? r->center.center[k]
                    : cs->region.center_is_bc ? 0.5
                                              : cs->region.center[k] * f;
        c->code[k] = c->box[k] * u.boxlen;
    }
    return rc;
}

static int run(const char *source, cli_selection *cs, int threads, int json)
{
    sk_error err;
    sk_error_clear(&err);
    sk_source *src;
    if (sk_source_open_mpi(&src, source, &err) != SK_OK)
        return cli_error(&err);
    cli_resolved r;
    double t0 = cli_now();
    int rc = cli_selection_resolve(src, cs, threads, &r, &err);
    double seconds = cli_now() - t0;
    center_out c;
    if (rc == SK_OK)
        rc = center_units(src, cs, &r, &c, &err);
    sk_source_close(src);
    if (rc != SK_OK)
        return cli_error(&err);
    if (cli_mpi_world()->rank == 0) {
        if (json)
            print_json(cs, &r, &c, seconds);
        else
            print_text(cs, &r, &c, seconds);
    }
    return CLI_OK;
}

typedef struct center_args {
    int json;
    long long threads;
} center_args;

static int own_option(void *ctx, int argc, char **argv, int *i)
{
    center_args *a = ctx;
    if (cli_is(argv[*i], "--json")) {
        a->json = 1;
        return 1;
    }
    if (cli_is(argv[*i], "--threads"))
        return cli_int_value(argc, argv, i, &a->threads) ? -1 : 1;
    return 0;
}

int cmd_center(int argc, char **argv)
{
    const char *source;
    center_args a = {0};
    int helped;
    cli_selection cs;
    cli_selection_init(&cs);
    int rc = cli_parse_source_args("center", k_help, argc, argv, own_option, &a, &cs, &source,
                                   &helped);
    if (rc != CLI_OK || helped)
        return rc;
    if (!cs.region.has_center) {
        snprintf(cs.center_spec, sizeof cs.center_spec, "com");
        cs.region.has_center = 1;
    }
    return run(source, &cs, (int)a.threads, a.json);
}
