/* snapkit project: read one component of a source with a selection and
 * project any number of quantities onto maps in one pass, along an axis
 * or any direction; write FITS, .npy, or pictures: figures (PNG, SVG, PDF:
 * the map with axes, a colour bar and the time, drawn by programs/figure) or,
 * with --raw, the bare PNG. The reading goes through cli_read_source
 * (source.c) on an sk_source (snapkit/source.h), which knows source kinds. */
#include <omp.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "derive_cli.h"
#include "figure/map.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"

static const char k_help[] =
    "usage: snapkit project SOURCE --vars sd,T,... -o maps.fits|.npy|.png|.svg|.pdf [options]\n\n"
    "Project quantities of SOURCE (a RAMSES output folder or a .snapkit file) onto maps\n"
    "in one pass over the cells (or particles), with every thread of the budget busy.\n\n"
    "quantities (--vars, default sd):\n"
    "  sd                    surface density: density integrated along the line of sight\n"
    "  mass                  mass per pixel\n"
    "  weight                the weight of the means (mass or volume per pixel)\n"
    "  count                 cells (particles) that reached each pixel\n"
    "  T, cs, v, or a column (density, velocity_x, pressure, metallicity, ...): the\n"
    "                        mass-weighted mean along the line of sight (see --weight, --mode)\n"
    "  v_phi, v_r, r, ...    any derived quantity (snapkit stats --list-quantities), those\n"
    "                        about a centre taken about --center, --cylinder-axis and\n"
    "                        --bulk-velocity\n\n"
    "geometry:\n"
    "  --axis x|y|z          line of sight along an axis (default z); images are y-z, z-x, x-y\n"
    "  --direction NX NY NZ  line of sight along any direction (off-axis)\n"
    "  --up UX UY UZ         image up vector for --direction (default: from the nearest axis)\n"
    "  --angles THETA PHI    direction from angles in degrees (theta from +z, phi from +x)\n"
    "  --face-on             line of sight along the angular momentum L of the selection's\n"
    "                        gas (--center-component) about the centre (docs/analysis.md)\n"
    "  --edge-on             line of sight perpendicular to L: L x e, e the axis least\n"
    "                        aligned with L; the image's up is L (the disk lies flat)\n"
    "  --res N               pixels across the whole box (default 2^lmax of the data)\n"
    "  --pixel SIZE          pixel size instead, in --unit (or --pixel-unit U)\n"
    "  --los LO HI           keep what lies LO..HI along the line of sight from the centre\n"
    "  --fov W [H]           off-axis field of view (default: the whole region)\n"
    "  --clip                a cell cut by the region's faces counts in part: along the\n"
    "                        line of sight by its depth inside (a slab's surface density\n"
    "                        is amr2map's slab integral), across it as the image window\n"
    "                        cuts it (axis-aligned maps of 3-D cells; default: a cell\n"
    "                        counts whole when its centre is in the region)\n"
    "%s"
    "  --unit U              also sets map units when U is one: Msun/pc2, g/cm2, Msun/kpc2\n"
    "                        (sd), g, Msun (mass), km/s, m/s, cm/s (velocities), K (T),\n"
    "                        g/cm3, Msun/pc3, nH (density), Ba, K/cm3 (pressure), or VAR=U;\n"
    "                        repeat --unit for several. Maps are in code units otherwise\n\n"
    "deposit:\n"
    "  --weight mass|volume  weight of the means (default mass)\n"
    "  --mode mean|sum       means, or each cell's value shared among its pixels (sum)\n"
    "  --kernel K            off-axis: exact, overlap (default), cic, ngp; particles: cic\n"
    "                        (default), ngp; along an axis cells are area-weighted (exact)\n"
    "  --overlap-max N       overlap kernel: samples per axis at most (default 64)\n"
    "  --component C         hydro (default), gravity, rt, clump_field or particles\n"
    "  --family F            particles: only this family (dm, star, ... or a number)\n"
    "  --mu X                mean molecular weight of T in K (default 1/0.76)\n"
    "  --threads N           use at most N threads (default: the job's budget)\n"
    "  --max-memory SIZE     refuse maps larger than this (default 4G)\n\n"
    "output:\n"
    "  -o PATH               .fits (one image extension per map), .npy, or a figure .png,\n"
    "                        .svg or .pdf (one map each: use {var} in the name for\n"
    "                        several, e.g. maps_{var}.png). A figure shows the map with\n"
    "                        axes in a length unit (--unit kpc, ...; default: one that\n"
    "                        suits the map's width, or code lengths without physical\n"
    "                        units), a colour bar with the quantity and its unit, and the\n"
    "                        time (and redshift); PATH.json beside it holds the colour range\n"
    "  --raw                 .png: the bare map instead, one pixel per map pixel\n"
    "  --scale log|linear    colour scale (default: log for positive quantities)\n"
    "  --range VMIN VMAX     colour range (default: the map's)\n"
    "  --whole               read the whole table, then project it (default with --res or\n"
    "                        --pixel: the cells are projected file by file, or chunk by\n"
    "                        chunk, as they are read, without the table; the same maps)\n"
    "  --no-fsync            rename the files into place without flushing them to disk\n"
    "                        first (still whole or not at all; a power cut within seconds\n"
    "                        may lose them): 0.2-0.4 s sooner per file on a slow disk\n"
    "  --json                one JSON object: quantities, files, extent, pixel size, rows\n"
    "                        deposited and the projection's own seconds (reading excluded)\n";

typedef struct project_args {
    const char *source, *output;
    char quantities[4096];
    char component[16];
    cli_selection sel;
    sk_project_options opt;
    sk_image_options img;
    char length_unit[16];    /* the --unit that is a length: the figure's axes */
    int raw, json, help;
    int frame;               /* 1: --face-on, 2: --edge-on (along or across L) */
    int no_fsync, whole;
} project_args;

/* "--flag A B C" -> the option key with value "A B C". */
static int take_values(project_args *a, const char *key, int count, int argc, char **argv, int *i)
{
    const char *flag = argv[*i];
    if (*i + count >= argc)
        return cli_fail("%s needs %d value%s", flag, count, count == 1 ? "" : "s");
    if (count == 1 && cli_is(flag, "--threads")) {
        long long v; /* the command line's ranges, not the library's "0: default" */
        int at = *i;
        if (cli_int_value(argc, argv, &at, &v))
            return -1;
    }
    char value[256] = "";
    size_t n = 0;
    for (int k = 1; k <= count; k++)
        n += (size_t)snprintf(value + n, sizeof value - n, "%s%s", k > 1 ? " " : "", argv[*i + k]);
    *i += count;
    sk_error err;
    if (sk_project_options_set(&a->opt, key, value, &err) != SK_OK)
        return cli_fail("%s: %s", flag, err.message);
    return 0;
}

/* Options with a fixed number of values, and the library key they set. */
static const struct {
    const char *flag, *key;
    int count;
} k_options[] = {
    {"--axis", "axis", 1},          {"--direction", "direction", 3}, {"--up", "up", 3},
    {"--angles", "angles", 2},      {"--res", "res", 1},             {"--pixel", "pixel", 1},
    {"--pixel-unit", "pixel_unit", 1}, {"--los", "los", 2},          {"--weight", "weight", 1},
    {"--mode", "mode", 1},          {"--kernel", "kernel", 1},       {"--overlap-max", "overlap_max", 1},
    {"--family", "family", 1},      {"--mu", "mu", 1},               {"--threads", "threads", 1},
    {"--max-memory", "memory_budget", 1},
};

static int parse_fov(project_args *a, int argc, char **argv, int *i)
{
    int n = *i + 2 < argc && argv[*i + 2][0] != '-' ? 2 : 1;
    return take_values(a, "fov", n, argc, argv, i);
}

static int parse_output_option(project_args *a, int argc, char **argv, int *i)
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
    } else if (cli_is(arg, "--whole")) {
        a->whole = 1;
    } else if (cli_is(arg, "--clip")) {
        a->opt.clip = 1;
    } else if (cli_is(arg, "--face-on") || cli_is(arg, "--edge-on")) {
        a->frame = cli_is(arg, "--face-on") ? 1 : 2;
    } else {
        return 0;
    }
    return 1;
}

static int parse_project_option(void *ctx, int argc, char **argv, int *i)
{
    project_args *a = ctx;
    const char *arg = argv[*i];
    if (cli_is(arg, "--unit"))
        return cli_map_unit_option(argc, argv, i, a->length_unit, sizeof a->length_unit,
                                   a->opt.units, sizeof a->opt.units);
    for (size_t k = 0; k < sizeof k_options / sizeof k_options[0]; k++)
        if (cli_is(arg, k_options[k].flag))
            return take_values(a, k_options[k].key, k_options[k].count, argc, argv, i) ? -1 : 1;
    if (cli_is(arg, "--fov"))
        return parse_fov(a, argc, argv, i) ? -1 : 1;
    if (cli_is(arg, "--vars")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        snprintf(a->quantities, sizeof a->quantities, "%s", v);
        return 1;
    }
    if (cli_is(arg, "--component")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        static const char *const ok[] = {"hydro", "gravity", "rt", "clump_field", "particles"};
        int known = 0;
        for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
            known |= !strcmp(v, ok[k]);
        if (!known)
            return cli_fail("--component must be hydro, gravity, rt, clump_field or particles, "
                            "not '%s'", v), -1;
        snprintf(a->component, sizeof a->component, "%s", v);
        return 1;
    }
    return parse_output_option(a, argc, argv, i);
}

static int parse_args(project_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_selection_init(&a->sel);
    sk_project_options_init(&a->opt);
    a->img.log_scale = -1;
    snprintf(a->quantities, sizeof a->quantities, "sd");
    snprintf(a->component, sizeof a->component, "hydro");
    int rc = cli_parse_source_args("project", k_help, argc, argv, parse_project_option, a,
                                   &a->sel, &a->source, &a->help);
    if (rc != CLI_OK || a->help)
        return rc;
    if (!a->output)
        return cli_usage("project", "no output given (-o maps.fits, maps.npy or maps.png)");
    if (a->frame && a->opt.has_direction)
        return cli_usage("project", "%s sets the line of sight: not with --direction or --angles",
                         a->frame == 1 ? "--face-on" : "--edge-on");
    /* the selection's region and lmax also place the image */
    a->opt.region = a->sel.region;
    return CLI_OK;
}

/* Split "a,b,c" in place into at most max names. */
static int split_names(char *csv, const char **names, int max)
{
    int n = 0;
    for (char *save = NULL, *s = strtok_r(csv, ",", &save); s && n < max;
         s = strtok_r(NULL, ",", &save))
        if (*s)
            names[n++] = s;
    return n;
}

/* Add name to a comma-separated list unless it is there already. */
static void add_column(char *csv, size_t n, const char *name)
{
    char padded[4200], want[64];
    snprintf(padded, sizeof padded, ",%s,", csv);
    snprintf(want, sizeof want, ",%s,", name);
    if (!strstr(padded, want))
        snprintf(csv + strlen(csv), n - strlen(csv), "%s%s", *csv ? "," : "", name);
}

/* The hydro columns a cell projection of these quantities needs besides
 * level, cx, cy, cz (which every cell read keeps), so that the read
 * decodes nothing else (issue 13: a density projection reads density and
 * the cell keys); a derived quantity's are those it lists. Returns 0, and
 * every column is read, when a quantity is none of those whose columns are
 * known here (passive scalars): their messages then stay the projection's. */
int cli_cell_columns(const char *const *names, int nq, char *csv, size_t n)
{
    static const struct {
        const char *q, *cols;
    } known[] = {
        {"sd", ""}, {"mass", ""}, {"weight", ""}, {"count", ""},
        {"T", "pressure"}, {"temperature", "pressure"}, {"Temp", "pressure"},
        {"cs", "pressure"}, {"sound_speed", "pressure"},
        {"v", "velocity_x,velocity_y,velocity_z"}, {"speed", "velocity_x,velocity_y,velocity_z"},
        {"density", ""}, {"rho", ""}, {"pressure", "pressure"}, {"p", "pressure"},
        {"velocity_x", "velocity_x"}, {"vx", "velocity_x"}, {"velocity_y", "velocity_y"},
        {"vy", "velocity_y"}, {"velocity_z", "velocity_z"}, {"vz", "velocity_z"},
    };
    /* density: the mass of every cell (sd, mass, mass-weighted means). */
    snprintf(csv, n, "density");
    for (int i = 0; i < nq; i++) {
        size_t k = 0;
        while (k < sizeof known / sizeof *known && strcmp(known[k].q, names[i]))
            k++;
        const sk_quantity *dq = sk_quantity_find(names[i]);
        if (k == sizeof known / sizeof *known && !(dq && dq->cell_columns))
            return 0;
        char cols[256];
        snprintf(cols, sizeof cols, "%s", k < sizeof known / sizeof *known ? known[k].cols
                                                                            : dq->cell_columns);
        for (char *save = NULL, *c = strtok_r(cols, ",", &save); c; c = strtok_r(NULL, ",", &save))
            add_column(csv, n, c);
    }
    return 1;
}

static void print_text(const project_args *a, const sk_maps *m, char **files, int nfiles)
{
    const sk_maps_info *in = sk_maps_get_info(m);
    char dir[96];
    if (in->axis >= 0)
        snprintf(dir, sizeof dir, "along %c", "xyz"[in->axis]);
    else
        snprintf(dir, sizeof dir, "along (%.4g, %.4g, %.4g)", in->los[0], in->los[1], in->los[2]);
    printf("projected %lld of %lld %s (%s) %s onto %d x %d pixels of %.6g code lengths\n",
           (long long)in->deposited, (long long)in->rows, in->kind, a->component, dir,
           sk_maps_nx(m), sk_maps_ny(m), in->pixel_size);
    printf("extent %.6g .. %.6g, %.6g .. %.6g (code lengths); %s kernel; %.3f s on %d thread%s\n",
           in->extent[0], in->extent[1], in->extent[2], in->extent[3], in->kernel, in->seconds,
           in->threads, in->threads == 1 ? "" : "s");
    for (int i = 0; i < nfiles; i++)
        printf("wrote %s\n", files[i]);
}

static void print_json(const project_args *a, const sk_maps *m, const cli_source_read *src,
                       double write_seconds, int64_t bytes, char **files, int nfiles)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_key(&j, "streamed");
    sk_json_bool(&j, strcmp(sk_maps_get_info(m)->strategy, "stream") == 0);
    sk_json_kv_int(&j, "bytes_allocated", bytes);
    sk_json_key(&j, "fsync");
    sk_json_bool(&j, !a->no_fsync);
    sk_json_kv_double(&j, "write_seconds", write_seconds);
    sk_json_kv_string(&j, "source", a->source);
    sk_json_kv_string(&j, "component", a->component);
    sk_json_key(&j, "files");
    sk_json_array_begin(&j);
    for (int i = 0; i < nfiles; i++)
        sk_json_string(&j, files[i]);
    sk_json_array_end(&j);
    sk_json_kv_double(&j, "read_seconds", src->stats.seconds);
    sk_json_kv_int(&j, "ranks", src->ranks);
    sk_maps_json_members(m, &j);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

/* Streamed unless asked for the whole table or the projection needs it:
 * the default resolution (the data's finest level) and the off-axis
 * overlap kernel. */
static int can_stream(const project_args *a)
{
    int overlap = a->opt.has_direction && strcmp(a->component, "particles") != 0 &&
                  (a->opt.kernel == SK_KERNEL_AUTO || a->opt.kernel == SK_KERNEL_OVERLAP);
    return !a->whole && (a->opt.res > 0 || a->opt.pixel > 0) && !overlap;
}

/* The maps of SOURCE, and the table's metadata (*meta) for the figure;
 * the quantities of `derived` (may be NULL) are added to the rows first. */
static int make_maps(project_args *a, sk_source *source, const char *const *names, int nq,
                     sk_derive_set *derived, sk_maps **maps, sk_table **meta,
                     cli_source_read *src, sk_error *err)
{
    a->sel.clip = a->opt.clip; /* the read widened to every cell meeting the region */
    if (!can_stream(a) || cli_mpi_world()->size > 1) {
        /* Under MPI each rank reads its share and projects it; the ranks
         * agree on the read's status first, and rank 0 gets the summed
         * maps (the others' *maps stays NULL). */
        int rc = cli_read_source(source, a->component, &a->sel, a->opt.threads, src, err);
        rc = sk_mpi_agree(rc, err);
        if (rc == SK_OK)
            rc = cli_mpi_sum_read(src, err);
        if (rc == SK_OK && derived)
            rc = sk_derive_set_apply(derived, src->table, err);
        if (rc == SK_OK)
            rc = sk_project_ranks(src->table, nq, names, &a->opt, 0, maps, err);
        *meta = src->table;
        src->table = NULL;
        return rc;
    }
    sk_project_stream *ps;
    int rc = sk_project_stream_new(nq, names, &a->opt, &ps, err);
    if (rc != SK_OK)
        return rc;
    cli_meta_feed feed = {.inner = sk_project_stream_consumer(ps)};
    /* Not ordered: the bands of the image take the batches in order
     * themselves, on every thread at once (lib/project/stream_turns.c). */
    sk_consumer c = cli_meta_feed_consumer(&feed);
    if (derived)
        c = sk_derive_set_consumer(derived, &c);
    rc = cli_stream_source(source, a->component, &a->sel, a->opt.threads, &c, src, err);
    if (rc == SK_OK)
        rc = cli_mpi_sum_read(src, err); /* one process here: ranks 1 */
    if (rc == SK_OK)
        rc = sk_project_stream_finish(ps, maps, err);
    sk_project_stream_free(ps);
    *meta = feed.meta;
    return rc;
}

/* Centres and the axis L found from the data (resolve.c), and the line
 * of sight --face-on or --edge-on set from L. */
static int resolve(project_args *a, sk_source *source, sk_error *err)
{
    const double *ax = a->sel.region.axis;
    if (a->frame && !a->sel.axis_is_L && (ax[0] != 0 || ax[1] != 0 || ax[2] != 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "%s projects along the axis L: not with --cylinder-axis X Y Z",
                       a->frame == 1 ? "--face-on" : "--edge-on");
    a->sel.axis_is_L |= a->frame != 0;
    int rc = cli_selection_resolve(source, &a->sel, a->opt.threads, NULL, err);
    a->opt.region = a->sel.region;
    if (rc == SK_OK && a->frame) {
        cli_frame_direction(ax, a->frame == 2, a->opt.direction, a->opt.up);
        a->opt.has_direction = 1;
        a->opt.has_up = a->frame == 2;
    }
    return rc;
}

int cmd_project(int argc, char **argv)
{
    project_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_OK || a.help)
        return rc;
    const char *names[SK_MAX_VARS];
    int nq = split_names(a.quantities, names, SK_MAX_VARS);
    cli_source_read src;
    memset(&src, 0, sizeof src);
    sk_error err;
    char cols[sizeof a.sel.vars];
    if (!a.sel.vars[0] && !strcmp(a.component, "hydro") && cli_cell_columns(names, nq, cols, sizeof cols))
        snprintf(a.sel.vars, sizeof a.sel.vars, "%s", cols);
    sk_mem_stats m0, m1;
    sk_mem_get(&m0);
    sk_mem_reset_peak();
    sk_maps *maps = NULL;
    sk_table *meta = NULL;
    sk_source *source;
    sk_derive_set *derived = NULL;
    rc = sk_source_open_mpi(&source, a.source, &err);
    if (rc == SK_OK)
        rc = resolve(&a, source, &err);
    if (rc == SK_OK)
        rc = cli_derive_frame_quantities(source, a.component, &a.sel, names, nq, &derived, &err);
    if (rc == SK_OK)
        rc = make_maps(&a, source, names, nq, derived, &maps, &meta, &src, &err);
    sk_derive_set_free(derived);
    sk_source_close(source);
    sk_mem_get(&m1);
    /* what reading and projecting held at most: the table or the batches, and the maps */
    int64_t bytes = (int64_t)(m1.peak - m0.current);
    if (rc != SK_OK) {
        sk_table_free(meta);
        sk_maps_free(maps);
        return cli_error(&err);
    }
    skf_map_style style;
    skf_map_style_init(&style, meta, a.length_unit);
    sk_table_free(meta);
    if (!maps) /* a rank other than 0: rank 0 writes and prints */
        return CLI_OK;
    char **files = NULL;
    int nfiles = 0;
    sk_maps_set_fsync(maps, !a.no_fsync);
    double t0 = omp_get_wtime();
    rc = sk_maps_write_pictures(maps, a.output, &a.img, a.raw ? NULL : skf_map_figure, &style,
                                &files, &nfiles, &err);
    double write_seconds = omp_get_wtime() - t0;
    if (rc == SK_OK && a.json)
        print_json(&a, maps, &src, write_seconds, bytes, files, nfiles);
    else if (rc == SK_OK)
        print_text(&a, maps, files, nfiles);
    for (int i = 0; i < nfiles; i++)
        sk_free(files[i]);
    sk_free(files);
    sk_maps_free(maps);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
