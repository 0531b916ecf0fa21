/* The selection options every reading command shares: level cap, box
 * ranges, shapes about a centre, units, variables, particle families. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_selection_help[] =
    "  --lmax N              treat cells refined beyond level N as leaves at N\n"
    "  --xrange LO HI        keep cells/particles with LO <= x < HI (also --yrange, --zrange)\n"
    "  --sphere R            keep what lies within R of the centre\n"
    "  --shell RIN ROUT      ... between RIN and ROUT of the centre (RIN < r <= ROUT)\n"
    "  --cylinder R H        ... within R of the axis through the centre and H (half the\n"
    "                        height, as yt's disk) along it; a disk is a short cylinder\n"
    "  --cylinder-shell RIN ROUT H   ... between RIN and ROUT of that axis\n"
    "  --cylinder-axis X Y Z | x | y | z | L   the axis of cylinders and of cylindrical\n"
    "                        quantities (default z; L: the angular momentum of the\n"
    "                        selection's gas about the centre)\n"
    "  --inverse             keep what lies outside the shape instead\n"
    "                        (shapes: cells by centre, particles by position; distances\n"
    "                        wrap across the box's faces, as yt's)\n"
    "  --center C            the centre of ranges, shapes and frame quantities:\n"
    "                        X Y Z, bc (box centre), max:FIELD (the cell with the largest\n"
    "                        FIELD, within the shape when one is given), min:FIELD, com\n"
    "                        (centre of mass of the selection), shrink (shrinking-sphere\n"
    "                        centre, docs/analysis.md); those found from the data search\n"
    "                        the ranges and shape about --search-center (default the box\n"
    "                        centre); `snapkit center` prints the centre found\n"
    "  --center-component C  what max:, min:, com, shrink, --bulk-velocity com and the axis\n"
    "                        L are taken over: hydro (gas), particles, or hydro,particles\n"
    "                        (default: the gas when the output has it, else the particles)\n"
    "  --search-center X Y Z   where the search region sits (in --unit)\n"
    "  --shrink-factor F     shrink: radius factor per step (default 0.975, Power et al.)\n"
    "  --shrink-min N        shrink: stop before fewer than N cells/particles (default 1000)\n"
    "  --bulk-velocity VX VY VZ | com   the frame's velocity (code units; com: the\n"
    "                        mass-weighted mean velocity of the selection's gas, or\n"
    "                        --center-component); default 0\n"
    "  --unit U              unit of ranges, sizes and centre: standard (box 0..1,\n"
    "                        default), code, cm, m, km, au, pc, kpc, Mpc; cosmological\n"
    "                        outputs also ckpc, cMpc, kpc/h, ckpc/h, ... (comoving, per h)\n"
    "  --vars a,b,...        only these variables\n"
    "  --family F,...        particles of these families only: dm, star, cloud, debris,\n"
    "                        other, gas_tracer, dm_tracer, ..., or RAMSES family numbers\n";

void cli_selection_init(cli_selection *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->region.unit, sizeof s->region.unit, "standard");
}

/* n numbers after the flag argv[*i] into out; 1 consumed, -1 bad. */
static int numbers(int argc, char **argv, int *i, int n, double *out, const char *what)
{
    const char *flag = argv[*i];
    if (*i + n >= argc) {
        cli_fail("%s needs %s", flag, what);
        return -1;
    }
    for (int k = 0; k < n; k++)
        if (cli_double(flag, argv[*i + 1 + k], &out[k]))
            return -1;
    *i += n;
    return 1;
}

static int parse_range(cli_selection *s, int axis, int argc, char **argv, int *i)
{
    int r = numbers(argc, argv, i, 2, s->region.range[axis], "two values: LO HI");
    if (r > 0)
        s->region.has_range[axis] = 1;
    return r;
}

/* --sphere, --shell, --cylinder, --cylinder-shell; 0 when argv[*i] is none. */
static int parse_shape(cli_selection *s, int argc, char **argv, int *i)
{
    static const struct {
        const char *flag, *what;
        int kind, n;
    } shapes[] = {
        {"--sphere", "the radius R", SK_SHAPE_SPHERE, 1},
        {"--shell", "two radii: RIN ROUT", SK_SHAPE_SHELL, 2},
        {"--cylinder", "the radius R and half-height H", SK_SHAPE_CYLINDER, 2},
        {"--disk", "the radius R and half-height H", SK_SHAPE_CYLINDER, 2},
        {"--cylinder-shell", "RIN ROUT H", SK_SHAPE_CYLINDER_SHELL, 3},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        if (!cli_is(argv[*i], shapes[k].flag))
            continue;
        if (s->region.shape) {
            cli_fail("%s: one shape only", argv[*i]);
            return -1;
        }
        double v[3] = {0, 0, 0};
        if (numbers(argc, argv, i, shapes[k].n, v, shapes[k].what) < 0)
            return -1;
        sk_region_request *r = &s->region;
        r->shape = shapes[k].kind;
        int shell = r->shape == SK_SHAPE_SHELL || r->shape == SK_SHAPE_CYLINDER_SHELL;
        r->radius[0] = shell ? v[0] : 0;
        r->radius[1] = shell ? v[1] : v[0];
        if (r->shape == SK_SHAPE_CYLINDER || r->shape == SK_SHAPE_CYLINDER_SHELL)
            r->half_height = v[shapes[k].n - 1];
        return 1;
    }
    return 0;
}

static int parse_axis(cli_selection *s, int argc, char **argv, int *i)
{
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    static const char *const names[] = {"x", "y", "z"};
    for (int k = 0; v && k < 3; k++)
        if (!strcmp(v, names[k])) {
            memset(s->region.axis, 0, sizeof s->region.axis);
            s->region.axis[k] = 1;
            s->axis_is_L = 0;
            *i += 1;
            return 1;
        }
    if (v && !strcmp(v, "L")) {
        s->axis_is_L = 1;
        *i += 1;
        return 1;
    }
    s->axis_is_L = 0;
    const char *flag = argv[*i];
    double *a = s->region.axis;
    if (numbers(argc, argv, i, 3, a, "X Y Z, x, y, z or L") < 0)
        return -1;
    /* (the request reads an axis of all zeros as "not given": z) */
    if (!(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] > 0)) {
        cli_fail("%s: the axis must be a finite direction of non-zero length", flag);
        return -1;
    }
    return 1;
}

static int parse_center(cli_selection *s, int argc, char **argv, int *i)
{
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    s->center_spec[0] = 0;
    s->region.center_is_bc = 0;
    if (v && (!strcmp(v, "bc") || !strcmp(v, "com") || !strcmp(v, "shrink") ||
              !strncmp(v, "max:", 4) || !strncmp(v, "min:", 4))) {
        if (!strcmp(v, "bc"))
            s->region.center_is_bc = 1;
        else if (!strcmp(v, "max:") || !strcmp(v, "min:")) {
            cli_fail("--center %s needs a field, e.g. %sdensity", v, v);
            return -1;
        } else
            snprintf(s->center_spec, sizeof s->center_spec, "%s", v);
        s->region.has_center = 1;
        *i += 1;
        return 1;
    }
    int r = numbers(argc, argv, i, 3, s->region.center, "X Y Z, bc, max:FIELD, com or shrink");
    if (r > 0)
        s->region.has_center = 1;
    return r;
}

static int parse_text(char *dst, size_t size, int argc, char **argv, int *i)
{
    const char *v = cli_value(argc, argv, i);
    if (!v)
        return -1;
    snprintf(dst, size, "%s", v);
    return 1;
}

int cli_selection_option(cli_selection *s, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    static const char *const ranges[] = {"--xrange", "--yrange", "--zrange"};
    for (int k = 0; k < 3; k++)
        if (cli_is(a, ranges[k]))
            return parse_range(s, k, argc, argv, i);
    int r = parse_shape(s, argc, argv, i);
    if (!r)
        r = cli_center_option(s, argc, argv, i);
    if (r)
        return r;
    if (cli_is(a, "--lmax")) {
        long long n;
        if (cli_int_between(argc, argv, i, 1, 64, &n))
            return -1;
        s->lmax = (int)n;
        return 1;
    }
    if (cli_is(a, "--inverse")) {
        s->region.inverse = 1;
        return 1;
    }
    if (cli_is(a, "--cylinder-axis") || cli_is(a, "--frame-axis"))
        return parse_axis(s, argc, argv, i);
    if (cli_is(a, "--center") || cli_is(a, "--centre"))
        return parse_center(s, argc, argv, i);
    if (cli_is(a, "--bulk-velocity")) {
        s->has_bulk = 1;
        s->bulk_is_com = *i + 1 < argc && !strcmp(argv[*i + 1], "com");
        if (s->bulk_is_com) {
            *i += 1;
            return 1;
        }
        return numbers(argc, argv, i, 3, s->bulk, "VX VY VZ or com");
    }
    if (cli_is(a, "--unit"))
        return parse_text(s->region.unit, sizeof s->region.unit, argc, argv, i);
    if (cli_is(a, "--family")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        sk_selection probe;
        sk_error err;
        sk_selection_init(&probe);
        if (sk_selection_set_families(&probe, v, &err) != SK_OK) {
            cli_error(&err);
            return -1;
        }
        snprintf(s->families, sizeof s->families, "%s", v);
        return 1;
    }
    if (cli_is(a, "--vars"))
        return parse_text(s->vars, sizeof s->vars, argc, argv, i);
    return 0;
}

int cli_parse_source_args(const char *command, const char *help, int argc, char **argv,
                          cli_option_fn own, void *ctx, cli_selection *sel, const char **source,
                          int *helped)
{
    *source = NULL;
    *helped = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is(argv[i], "--help") || cli_is(argv[i], "-h")) {
            printf(help, cli_selection_help);
            *helped = 1;
            return CLI_OK;
        }
        int r = own(ctx, argc, argv, &i);
        if (r == 0)
            r = cli_selection_option(sel, argc, argv, &i);
        if (r < 0)
            return CLI_USAGE;
        if (r > 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage(command, "unknown option '%s'", argv[i]);
        if (*source)
            return cli_usage(command, "one SOURCE only ('%s' and '%s')", *source, argv[i]);
        *source = argv[i];
    }
    if (!*source)
        return cli_usage(command, "missing SOURCE");
    return CLI_OK;
}

int cli_map_unit_option(int argc, char **argv, int *i, char *length_unit, size_t length_size,
                        char *units, size_t units_size)
{
    if (!cli_is(argv[*i], "--unit") || *i + 1 >= argc)
        return 0;
    const char *u = argv[*i + 1];
    double cm;
    if (!strcmp(u, "standard") || !strcmp(u, "code") || sk_length_unit_cm(u, &cm, NULL) == SK_OK) {
        snprintf(length_unit, length_size, "%s", u);
        return 0;
    }
    size_t n = strlen(units);
    if (n + strlen(u) + 2 > units_size)
        return cli_fail("--unit: too many units"), -1;
    snprintf(units + n, units_size - n, "%s%s", n ? "," : "", u);
    ++*i;
    return 1;
}

int cli_picture_option(int argc, char **argv, int *i, sk_image_options *img, int *raw)
{
    const char *arg = argv[*i], *v;
    if (cli_is(arg, "--raw")) {
        *raw = 1;
    } else if (cli_is(arg, "--scale")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        if (strcmp(v, "log") && strcmp(v, "linear"))
            return cli_fail("--scale must be log or linear, not '%s'", v), -1;
        img->log_scale = strcmp(v, "log") == 0;
    } else if (cli_is(arg, "--range")) {
        if (*i + 2 >= argc)
            return cli_fail("--range needs VMIN VMAX"), -1;
        if (cli_double("--range", argv[*i + 1], &img->vmin) ||
            cli_double("--range", argv[*i + 2], &img->vmax))
            return -1;
        if (!isfinite(img->vmin) || !isfinite(img->vmax))
            return cli_fail("--range: the ends must be finite numbers, not '%s %s'",
                            argv[*i + 1], argv[*i + 2]), -1;
        img->has_range = 1;
        *i += 2;
    } else {
        return 0;
    }
    return 1;
}
