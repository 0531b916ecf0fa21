/* snapkit slice: the leaf cells a plane crosses, each pixel the value of the
 * cell containing its centre (snapkit/slice.h); only the files and chunks
 * near the plane are read; written as FITS, .npy or figures, as projections
 * are. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "figure/map.h"
#include "snapkit/slice.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"

static const char k_help[] =
    "usage: snapkit slice SOURCE --axis x|y|z --at X --vars density,T -o slice_{var}.png [options]\n\n"
    "The cells of SOURCE (a RAMSES output folder or a .snapkit file) on the plane\n"
    "AXIS = X: each pixel holds the value of the leaf cell containing the pixel's\n"
    "centre (exact, no interpolation; yt's slice sampled at the pixel centres). Only the\n"
    "CPU files and chunks the plane crosses are read. The same bits on any thread count.\n\n"
    "  --axis x|y|z          the plane's normal (default z); images are y-z, z-x, x-y\n"
    "  --at X                the plane's coordinate along the axis, in --unit (default:\n"
    "                        the centre's)\n"
    "  --normal NX NY NZ     off-axis: the plane through --center normal to this vector\n"
    "  --north UX UY UZ      off-axis: the image's up (default: from the nearest axis, as\n"
    "                        project --direction's --up); right = up x normal\n"
    "  --vars A,B            columns or derived quantities (default density): density,\n"
    "                        velocity_x, pressure, T, cs, v, level, passive scalars, ...\n"
    "  --res N | NX,NY       pixels (default 512); pixels are square: the image is\n"
    "                        --width wide and width * NY / NX high\n"
    "  --width W             the image's width in --unit (default the box)\n"
    "  --center C            the image's centre: X Y Z in --unit, bc, max:FIELD, com, ...\n"
    "                        (default the box centre)\n"
    "  --lmax L              cells refined beyond L are cut at level L\n"
    "  --unit U              a length unit (standard = box units, code, kpc, ...) of\n"
    "                        --at, --width, --center and the figure's axes; or a unit of\n"
    "                        the values: g/cm3, nH, km/s, K, Ba, K/cm3, or VAR=U\n"
    "  --mu X                mean molecular weight of T in K (default 1/0.76)\n"
    "  --threads N           use at most N threads to read\n"
    "  --max-memory SIZE     refuse maps larger than this (default 4G)\n"
    "  -o PATH               .fits (one image per quantity, with a WCS), .npy (shape\n"
    "                        (ny, nx)), or a figure .png, .svg, .pdf; {var} in the name\n"
    "                        for several quantities\n"
    "  --raw                 .png: the bare map, one pixel per map pixel\n"
    "  --scale log|linear    colour scale (default: log for positive quantities)\n"
    "  --range VMIN VMAX     colour range (default: the map's)\n"
    "  --no-fsync            rename files into place without flushing them first\n"
    "  --json                a JSON summary: extent, pixel size, cells, files, seconds\n";

typedef struct slice_args {
    const char *source, *output;
    char vars[4096], length_unit[16];
    cli_selection sel;
    sk_slice_options opt;
    sk_image_options img;
    double at, width;
    int has_at, has_width, raw, json, help, threads, no_fsync;
} slice_args;

/* "N" or "NX,NY" pixels. */
static int parse_res(slice_args *a, const char *v)
{
    long long nx, ny;
    char first[32];
    const char *comma = strchr(v, ',');
    snprintf(first, sizeof first, "%.*s", comma ? (int)(comma - v) : (int)strlen(v), v);
    if (cli_int("--res", first, &nx) || (comma && cli_int("--res", comma + 1, &ny)))
        return -1;
    if (!comma)
        ny = nx;
    if (nx < 1 || ny < 1 || nx > SK_SLICE_MAX_PIXELS || ny > SK_SLICE_MAX_PIXELS)
        return cli_fail("--res: 1..%d pixels along each axis, not '%s'", SK_SLICE_MAX_PIXELS, v);
    a->opt.nx = (int)nx;
    a->opt.ny = (int)ny;
    return 0;
}

static int parse_geometry(slice_args *a, int argc, char **argv, int *i)
{
    const char *arg = argv[*i], *v;
    if (cli_is(arg, "--axis")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        if (strlen(v) != 1 || !strchr("xyz", v[0]))
            return cli_fail("--axis must be x, y or z, not '%s'", v), -1;
        a->opt.axis = v[0] - 'x';
    } else if (cli_is(arg, "--at")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--at", v, &a->at))
            return -1;
        a->has_at = 1;
    } else if (cli_is(arg, "--width")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--width", v, &a->width))
            return -1;
        if (!(a->width > 0) || !isfinite(a->width))
            return cli_fail("--width must be a positive number, not '%s'", v), -1;
        a->has_width = 1;
    } else if (cli_is(arg, "--normal") || cli_is(arg, "--north")) {
        int north = cli_is(arg, "--north");
        double *v3 = north ? a->opt.north : a->opt.normal;
        if (*i + 3 >= argc)
            return cli_fail("%s needs three numbers", arg), -1;
        for (int k = 1; k <= 3; k++)
            if (cli_double(arg, argv[*i + k], &v3[k - 1]))
                return -1;
        *i += 3;
        if (north)
            a->opt.has_north = 1;
        else
            a->opt.has_normal = 1;
    } else if (cli_is(arg, "--res")) {
        if (!(v = cli_value(argc, argv, i)) || parse_res(a, v))
            return -1;
    } else {
        return 0;
    }
    return 1;
}

static int parse_output(slice_args *a, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    int taken = cli_picture_option(argc, argv, i, &a->img, &a->raw);
    if (taken)
        return taken;
    if (cli_is(arg, "-o") || cli_is(arg, "--output")) {
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

static int parse_option(void *ctx, int argc, char **argv, int *i)
{
    slice_args *a = ctx;
    const char *arg = argv[*i], *v;
    long long n;
    double x;
    if (cli_is(arg, "--unit"))
        return cli_map_unit_option(argc, argv, i, a->length_unit, sizeof a->length_unit,
                                   a->opt.units, sizeof a->opt.units);
    if (cli_is(arg, "--vars")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        snprintf(a->vars, sizeof a->vars, "%s", v);
    } else if (cli_is(arg, "--threads")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        a->threads = (int)n;
    } else if (cli_is(arg, "--mu")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--mu", v, &a->opt.mu))
            return -1;
    } else if (cli_is(arg, "--max-memory")) {
        if (!(v = cli_value(argc, argv, i)) || cli_double("--max-memory", v, &x))
            return -1;
        if (!(x > 0))
            return cli_fail("--max-memory must be positive, not '%s'", v), -1;
        a->opt.memory_budget = (int64_t)x;
    } else {
        int r = parse_geometry(a, argc, argv, i);
        return r ? r : parse_output(a, argc, argv, i);
    }
    return 1;
}

static int parse_args(slice_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_selection_init(&a->sel);
    sk_slice_options_init(&a->opt);
    a->img.log_scale = -1;
    snprintf(a->vars, sizeof a->vars, "density");
    int rc = cli_parse_source_args("slice", k_help, argc, argv, parse_option, a, &a->sel,
                                   &a->source, &a->help);
    if (rc != CLI_OK || a->help)
        return rc;
    if (!a->output)
        return cli_usage("slice", "no output given (-o slice_{var}.png, .npy or .fits)");
    if (a->opt.has_normal && a->has_at)
        return cli_usage("slice", "--at places --axis planes; an off-axis plane (--normal) "
                                  "passes through --center");
    if (a->opt.has_north && !a->opt.has_normal)
        return cli_usage("slice", "--north needs --normal");
    const sk_region_request *r = &a->sel.region;
    if (r->shape || r->has_range[0] || r->has_range[1] || r->has_range[2])
        return cli_usage("slice", "a slice takes no ranges or shapes: place it with --at, "
                                  "--center and --width");
    return CLI_OK;
}

/* The plane, centre and width in box units, from the selection's centre
 * and the --unit lengths. */
static int place(slice_args *a, sk_source *src, sk_error *err)
{
    sk_units u;
    sk_selection sel;
    sk_selection_init(&sel);
    int rc = sk_source_units(src, "hydro", &u, err);
    if (rc == SK_OK)
        rc = cli_source_selection(src, "hydro", &a->sel, &sel, err);
    double f = 1;
    if (rc == SK_OK)
        rc = sk_box_units_per(&u, a->sel.region.unit[0] ? a->sel.region.unit : "standard", &f,
                              err);
    if (rc == SK_OK && sel.has_center)
        memcpy(a->opt.center, sel.center, sizeof sel.center);
    a->opt.at = a->has_at ? a->at * f : a->opt.center[a->opt.axis];
    if (a->has_width)
        a->opt.width = a->width * f;
    snprintf(a->opt.length_unit, sizeof a->opt.length_unit, "%s",
             strcmp(a->length_unit, "standard") ? a->length_unit : "");
    sk_selection_clear(&sel);
    return rc;
}

static int make_slice(slice_args *a, sk_source *src, const char *const *names, int nq,
                      sk_maps **maps, sk_table **meta, sk_read_stats *stats, sk_error *err)
{
    sk_slice_stream *ss;
    int rc = sk_slice_stream_new(nq, names, &a->opt, &ss, err);
    if (rc != SK_OK)
        return rc;
    char cols[sizeof a->sel.vars];
    if (!a->sel.vars[0] && cli_cell_columns(names, nq, cols, sizeof cols))
        snprintf(a->sel.vars, sizeof a->sel.vars, "%s", cols);
    sk_selection sel;
    sk_selection_init(&sel);
    rc = cli_source_selection(src, "hydro", &a->sel, &sel, err);
    if (rc == SK_OK)
        rc = sk_slice_selection(src, &a->opt, &sel, err);
    cli_meta_feed feed = {.inner = sk_slice_stream_consumer(ss)};
    sk_consumer c = cli_meta_feed_consumer(&feed);
    cli_progress prog;
    cli_progress_init(&prog, "reading");
    sk_read_options ropt = {.threads = a->threads, .progress = cli_progress_hook(&prog)};
    cli_mpi_share(&ropt);
    if (rc == SK_OK)
        rc = sk_source_stream(src, "hydro", &sel, &ropt, &c, stats, err);
    cli_progress_done(&prog);
    /* under MPI each rank streamed its share; rank 0 gets the gathered maps */
    rc = sk_slice_stream_finish_ranks(ss, rc, maps, err);
    sk_selection_clear(&sel);
    sk_slice_stream_free(ss);
    *meta = feed.meta;
    return rc;
}

static void print_json(const slice_args *a, const sk_maps *m, const sk_read_stats *st,
                       char **files, int nfiles)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "source", a->source);
    sk_json_kv_double(&j, "at", a->opt.at);
    sk_json_kv_int(&j, "files_opened", st->files_opened);
    sk_json_kv_double(&j, "read_seconds", st->seconds);
    sk_json_key(&j, "files");
    sk_json_array_begin(&j);
    for (int i = 0; i < nfiles; i++)
        sk_json_string(&j, files[i]);
    sk_json_array_end(&j);
    sk_maps_json_members(m, &j);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

static void print_text(const slice_args *a, const sk_maps *m, const sk_read_stats *st,
                       char **files, int nfiles)
{
    const sk_maps_info *in = sk_maps_get_info(m);
    char plane[96];
    if (in->axis >= 0)
        snprintf(plane, sizeof plane, "%c = %.6g (box units)", "xyz"[in->axis], a->opt.at);
    else
        snprintf(plane, sizeof plane, "the plane normal to (%.4g, %.4g, %.4g)", in->los[0],
                 in->los[1], in->los[2]);
    printf("sliced %lld cells crossing %s (%lld read from %d files) onto %d x %d pixels of "
           "%.6g code lengths\n", (long long)in->selected, plane, (long long)in->rows,
           st->files_opened, sk_maps_nx(m), sk_maps_ny(m), in->pixel_size);
    printf("extent %.6g .. %.6g, %.6g .. %.6g (code lengths)\n", in->extent[0], in->extent[1],
           in->extent[2], in->extent[3]);
    for (int i = 0; i < nfiles; i++)
        printf("wrote %s\n", files[i]);
}

static int write_maps(const slice_args *a, sk_maps *maps, const sk_table *meta,
                      const sk_read_stats *st, sk_error *err)
{
    skf_map_style style;
    skf_map_style_init(&style, meta, a->opt.length_unit);
    char **files = NULL;
    int nfiles = 0;
    sk_maps_set_fsync(maps, !a->no_fsync);
    int rc = sk_maps_write_pictures(maps, a->output, &a->img, a->raw ? NULL : skf_map_figure,
                                    &style, &files, &nfiles, err);
    if (rc == SK_OK && a->json)
        print_json(a, maps, st, files, nfiles);
    else if (rc == SK_OK)
        print_text(a, maps, st, files, nfiles);
    for (int i = 0; i < nfiles; i++)
        sk_free(files[i]);
    sk_free(files);
    return rc;
}

/* Under MPI: the files every rank opened, and the longest read. */
static int sum_read_stats(sk_read_stats *st, sk_error *err)
{
    if (cli_mpi_world()->size == 1)
        return SK_OK;
    int64_t files = st->files_opened;
    int rc = sk_mpi_sum_int64(&files, 1, err);
    if (rc == SK_OK)
        rc = sk_mpi_max_double(&st->seconds, 1, err);
    st->files_opened = (int)files;
    return rc;
}

int cmd_slice(int argc, char **argv)
{
    slice_args a;
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
    sk_maps *maps = NULL;
    sk_table *meta = NULL;
    sk_read_stats st;
    memset(&st, 0, sizeof st);
    rc = sk_source_open_mpi(&src, a.source, &err);
    if (rc == SK_OK)
        rc = cli_selection_resolve(src, &a.sel, a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = place(&a, src, &err);
    if (rc == SK_OK)
        rc = sk_slice_check(&a.opt, nq, &err);
    if (rc == SK_OK)
        rc = make_slice(&a, src, names, nq, &maps, &meta, &st, &err);
    sk_source_close(src);
    if (rc == SK_OK)
        rc = sum_read_stats(&st, &err);
    if (rc == SK_OK && maps) /* ranks other than 0 have none: rank 0 writes */
        rc = write_maps(&a, maps, meta, &st, &err);
    sk_table_free(meta);
    sk_maps_free(maps);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
