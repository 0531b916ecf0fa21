/* snapkit cube: the cells of a source on the uniform grid of one level
 * (snapkit/cube.h), streamed in order (file by file or chunk by chunk),
 * written as .npy or FITS. */
#include <math.h>
#include <string.h>

#include "bench/bench.h"
#include "cli.h"
#include "snapkit/cube.h"
#include "snapkit/util/json.h"

static const char k_help[] =
    "usage: snapkit cube SOURCE --level L --vars density,velocity_x -o cube_{var}.npy|cube.fits\n"
    "                    [selection] [--weight volume|mass] [--unit U] [--json]\n\n"
    "The cells of SOURCE (a RAMSES output folder or a .snapkit file) on the uniform grid of\n"
    "level L (cells of boxlen/2^L) over the selection's box (a shape: its bounding box;\n"
    "grid cells no selected cell reaches are NaN). Cells finer than L are averaged into\n"
    "the grid cell they fall in, by volume (default) or mass (--weight mass); density is\n"
    "always averaged by volume (the cube keeps the mass). Cells coarser than L fill every\n"
    "grid cell they cover (yt's covering_grid, RAMSES's amr2cube). The same bits on any\n"
    "thread count. A cube above 60%% of the memory the job may use is refused, naming the\n"
    "largest level that fits.\n\n"
    "  --level L             the grid's level (0..30)\n"
    "  --vars A,B            columns or derived quantities (default density)\n"
    "  --weight volume|mass  weight of the means but density's (default volume)\n"
    "%s"
    "  --unit U              a length unit: of the ranges and the FITS axes; else a unit of\n"
    "                        the values (g/cm3, km/s, K, VAR=U), repeatable\n"
    "  --max-memory SIZE     refuse a cube above SIZE bytes (default 60%% of the memory)\n"
    "  --threads N           use at most N threads to read\n"
    "  -o PATH               .npy (shape (nz, ny, nx); {var} for several) or .fits (one\n"
    "                        3-D image per quantity, WCS CRVAL/CDELT per axis, BUNIT)\n"
    "  --no-fsync            rename files into place without flushing them first\n"
    "  --json                a JSON summary: level, shape, edges, quantities, files\n";

typedef struct cube_args {
    const char *source, *output;
    char vars[4096], length_unit[16];
    cli_selection sel;
    sk_cube_options opt;
    double max_memory;
    int has_level, json, help, threads, no_fsync;
} cube_args;

static int add_unit(cube_args *a, const char *u)
{
    size_t n = strlen(a->opt.units);
    if (n + strlen(u) + 2 > sizeof a->opt.units)
        return cli_fail("--unit: too many units");
    snprintf(a->opt.units + n, sizeof a->opt.units - n, "%s%s", n ? "," : "", u);
    return 0;
}

static int parse_option(void *ctx, int argc, char **argv, int *i)
{
    cube_args *a = ctx;
    const char *arg = argv[*i], *v;
    long long n;
    if (cli_is(arg, "--unit") && *i + 1 < argc) {
        double cm;
        sk_error e;
        const char *u = argv[*i + 1];
        if (!strcmp(u, "code") || !strcmp(u, "standard") || sk_length_unit_cm(u, &cm, &e) == SK_OK) {
            snprintf(a->length_unit, sizeof a->length_unit, "%s", u);
            return 0; /* the selection's unit too */
        }
        ++*i;
        return add_unit(a, u) ? -1 : 1;
    }
    if (cli_is(arg, "--level")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        if (n < 0 || n > SK_CUBE_MAX_LEVEL)
            return cli_fail("--level must be 0..%d, not %lld", SK_CUBE_MAX_LEVEL, n), -1;
        a->opt.level = (int)n;
        a->has_level = 1;
    } else if (cli_is(arg, "--threads")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        a->threads = (int)n;
    } else if (cli_is(arg, "--weight")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        if (strcmp(v, "volume") && strcmp(v, "mass"))
            return cli_fail("--weight must be volume or mass, not '%s'", v), -1;
        a->opt.weight_mass = !strcmp(v, "mass");
    } else if (cli_is(arg, "--max-memory")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--max-memory", v, &a->max_memory))
            return -1;
        if (!(a->max_memory > 0))
            return cli_fail("--max-memory must be positive, not '%s'", v), -1;
    } else if (cli_is(arg, "--vars")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        snprintf(a->vars, sizeof a->vars, "%s", v);
    } else if (cli_is(arg, "-o") || cli_is(arg, "--output")) {
        if (!(a->output = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--json")) {
        a->json = 1;
    } else if (cli_is(arg, "--no-fsync")) {
        a->no_fsync = 1;
    } else {
        return 0;
    }
    return 1;
}

static int parse_args(cube_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_selection_init(&a->sel);
    sk_cube_options_init(&a->opt);
    snprintf(a->vars, sizeof a->vars, "density");
    snprintf(a->length_unit, sizeof a->length_unit, "code");
    int rc = cli_parse_source_args("cube", k_help, argc, argv, parse_option, a, &a->sel,
                                   &a->source, &a->help);
    if (rc != CLI_OK || a->help)
        return rc;
    if (!a->has_level)
        return cli_usage("cube", "no --level given");
    if (!a->output)
        return cli_usage("cube", "no output given (-o cube_{var}.npy or cube.fits)");
    return CLI_OK;
}

/* The cube's box: the selection's box (a shape's bounding box), box units. */
static int cube_box(sk_source *src, cube_args *a, sk_error *err)
{
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = cli_source_selection(src, "hydro", &a->sel, &sel, err);
    if (rc == SK_OK && sel.has_box) {
        a->opt.has_box = 1;
        memcpy(a->opt.lo, sel.lo, sizeof sel.lo);
        memcpy(a->opt.hi, sel.hi, sizeof sel.hi);
    }
    sk_selection_clear(&sel);
    return rc;
}

/* Refuse a cube above the guard, naming the largest level that fits. */
static int memory_guard(cube_args *a, int nq, sk_error *err)
{
    sk_machine m;
    sk_machine_get(0, &m);
    double limit = a->max_memory > 0 ? a->max_memory : 0.6 * (double)sk_machine_memory(&m);
    double need = sk_cube_bytes(&a->opt, nq);
    if (need < 0) {
        int64_t i0[3], n[3];
        return sk_cube_grid(&a->opt, i0, n, err);
    }
    if (need <= limit)
        return SK_OK;
    sk_cube_options o = a->opt;
    int fits = -1;
    for (o.level = a->opt.level - 1; o.level >= 0 && fits < 0; o.level--)
        if (sk_cube_bytes(&o, nq) <= limit)
            fits = o.level;
    char b1[32], b2[32];
    if (fits < 0)
        return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                       "the level-%d cube would take %s, more than the %s allowed, at every level",
                       a->opt.level, cli_bytes(need, b1, sizeof b1), cli_bytes(limit, b2, sizeof b2));
    return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                   "the level-%d cube would take %s, more than the %s allowed; --level %d fits",
                   a->opt.level, cli_bytes(need, b1, sizeof b1), cli_bytes(limit, b2, sizeof b2),
                   fits);
}

static void print_json(const cube_args *a, const sk_cube *c, char **files, int nfiles)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "source", a->source);
    sk_json_kv_int(&j, "level", sk_cube_level(c));
    sk_json_key(&j, "shape");
    sk_json_array_begin(&j);
    for (int k = 2; k >= 0; k--)
        sk_json_int(&j, sk_cube_n(c, k));
    sk_json_array_end(&j);
    sk_json_key(&j, "left_edge");
    sk_json_array_begin(&j);
    for (int k = 0; k < 3; k++)
        sk_json_double(&j, sk_cube_edge(c, k, 0));
    sk_json_array_end(&j);
    sk_json_key(&j, "right_edge");
    sk_json_array_begin(&j);
    for (int k = 0; k < 3; k++)
        sk_json_double(&j, sk_cube_edge(c, k, 1));
    sk_json_array_end(&j);
    sk_json_kv_string(&j, "weight", a->opt.weight_mass ? "mass" : "volume");
    sk_json_key(&j, "quantities");
    sk_json_object_begin(&j);
    for (int i = 0; i < sk_cube_count(c); i++)
        sk_json_kv_string(&j, sk_cube_name(c, i), sk_cube_unit(c, i));
    sk_json_object_end(&j);
    sk_json_kv_int(&j, "rows", sk_cube_rows(c));
    sk_json_kv_int(&j, "deposited", sk_cube_deposited(c));
    sk_json_kv_int(&j, "empty_cells", sk_cube_empty_cells(c));
    sk_json_key(&j, "files");
    sk_json_array_begin(&j);
    for (int i = 0; i < nfiles; i++)
        sk_json_string(&j, files[i]);
    sk_json_array_end(&j);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

static int make_cube(cube_args *a, sk_source *src, const char *const *names, int nq,
                     sk_cube **cube, sk_error *err)
{
    sk_cube_stream *cs;
    int rc = sk_cube_stream_new(nq, names, &a->opt, &cs, err);
    if (rc != SK_OK)
        return rc;
    cli_source_read res;
    memset(&res, 0, sizeof res);
    sk_consumer c = sk_cube_stream_consumer(cs);
    /* cells meeting the box, not only those centred in it */
    a->sel.clip = 1;
    rc = cli_stream_source(src, "hydro", &a->sel, a->threads, &c, &res, err);
    if (rc == SK_OK)
        rc = sk_cube_stream_finish(cs, cube, err);
    sk_cube_stream_free(cs);
    return rc;
}

int cmd_cube(int argc, char **argv)
{
    cube_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_OK || a.help)
        return rc;
    const char *names[SK_MAX_VARS];
    int nq = 0;
    for (char *save = NULL, *s = strtok_r(a.vars, ",", &save); s && nq < SK_MAX_VARS;
         s = strtok_r(NULL, ",", &save))
        names[nq++] = s;
    sk_error err;
    sk_source *src = NULL;
    sk_cube *cube = NULL;
    rc = sk_source_open_mpi(&src, a.source, &err);
    if (rc == SK_OK)
        rc = cli_selection_resolve(src, &a.sel, a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = cube_box(src, &a, &err);
    if (rc == SK_OK)
        rc = memory_guard(&a, nq, &err);
    if (rc == SK_OK)
        rc = make_cube(&a, src, names, nq, &cube, &err);
    sk_source_close(src);
    if (rc == SK_OK)
        rc = sk_cube_set_length_unit(cube, a.length_unit, &err);
    char **files = NULL;
    int nfiles = 0;
    if (rc == SK_OK) {
        sk_cube_set_fsync(cube, !a.no_fsync);
        rc = sk_cube_write(cube, a.output, &files, &nfiles, &err);
    }
    if (rc == SK_OK && a.json)
        print_json(&a, cube, files, nfiles);
    else if (rc == SK_OK)
        for (int i = 0; i < nfiles; i++)
            printf("wrote %s\n", files[i]);
    for (int i = 0; i < nfiles; i++)
        sk_free(files[i]);
    sk_free(files);
    sk_cube_free(cube);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
