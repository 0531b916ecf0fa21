/* snapkit phase: a phase diagram (2-D histogram, snapkit/phase.h) of one
 * component of a source with a selection, streamed: an extrema pass when
 * a range comes from the data (keeping the rows when they fit), then the
 * binning pass when they did not; written as
 * .npy, FITS, JSON or a figure. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "derive_cli.h"
#include "figure/phase_plot.h"
#include "snapkit/phase.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"

static const char k_help[] =
    "usage: snapkit phase SOURCE --x Q --y Q [--z Q|mass|count] [--weight mass|volume]\n"
    "                     [--bins NX[,NY]] [--log | --lin | --xlog --ylin ...]\n"
    "                     [--xlim LO HI] [--ylim LO HI] [--units SPEC] [selection]\n"
    "                     [--component C] [--threads N] [-o FILE] [--json]\n\n"
    "A phase diagram of SOURCE (a RAMSES output folder or a .snapkit file): the rows of\n"
    "the selection binned by two quantities x and y, each bin holding the sum of z over\n"
    "its rows (mass by default; count counts them), or with --weight the weighted mean of\n"
    "z (empty bins NaN). yt's create_profile(data, [x, y], [z], weight_field) with the\n"
    "same bins: numpy's edges, values strictly inside (LO < v < HI). The same bits on any\n"
    "thread count, under mpirun, and from a RAMSES output or its .snapkit file (exact\n"
    "sums).\n\n"
    "  --x Q, --y Q          the binned quantities: a column (density, pressure, ...) or\n"
    "                        a derived quantity (T, r, v_phi, mass, ...: snapkit stats\n"
    "                        --list-quantities; those about a centre take --center)\n"
    "  --z Q                 the summed (or averaged) quantity (default mass)\n"
    "  --weight W            mass or volume: the W-weighted mean of z per bin\n"
    "  --bins NX[,NY]        bins along x and y (default 128,128)\n"
    "  --log, --lin          both axes log (bins equal in log10) or linear; default log for\n"
    "                        quantities > 0 by nature (density, T, pressure, mass, r, ...)\n"
    "  --xlog --xlin --ylog --ylin   one axis\n"
    "  --xlim LO HI          the x range (in its unit); default the extrema of x over the\n"
    "                        selection (above 0 on a log axis) widened by one unit in the\n"
    "                        last place, as yt's; --ylim the same for y\n"
    "  --units SPEC          units of x, y and z: cgs, a unit (g/cm3, K, Msun, km/s, ...)\n"
    "                        or NAME=UNIT, comma-separated (default code units)\n"
    "  --mu MU               mean molecular weight of T in K (default 1/0.76)\n"
    "  --gamma G             adiabatic index of cs, entropy, ... (default the output's)\n"
    "  --component C         hydro (default) or particles\n"
    "%s"
    "  --threads N           use at most N threads to read\n"
    "  --memory SIZE         bytes of values (8 per quantity and row) the extrema pass may\n"
    "                        keep, to bin them without reading the rows again (default\n"
    "                        512e6; 0: always a second pass)\n"
    "  -o FILE               .npy (shape (nx, ny)), .fits (image, NAXIS1 along x; edges as\n"
    "                        WCS and XMIN/XMAX/XLOG/XNBINS keys, units in XUNIT/BUNIT),\n"
    "                        .h5 (values, x_edges, y_edges, units as attributes),\n"
    "                        .json, or a figure: .png, .svg, .pdf\n"
    "  --no-fsync            rename files into place without flushing them first\n"
    "  --json                print the phase diagram as JSON: x, y, z, units, x_edges,\n"
    "                        y_edges, values[i][j] (x bin i, y bin j), rows, binned\n";

typedef struct phase_args {
    const char *source, *output, *component;
    cli_selection sel;
    sk_phase_options opt;
    int json, help, threads, no_fsync;
} phase_args;

static int copy_name(char *dst, size_t n, const char *flag, const char *v)
{
    if (!v)
        return -1;
    if (!v[0] || strlen(v) >= n)
        return cli_fail("%s needs a name of 1 to %d characters", flag, (int)n - 1), -1;
    snprintf(dst, n, "%s", v);
    return 1;
}

static int parse_bins(phase_args *a, const char *v)
{
    long long n[2];
    char buf[64];
    snprintf(buf, sizeof buf, "%s", v);
    char *comma = strchr(buf, ',');
    if (comma)
        *comma = 0;
    if (cli_int("--bins", buf, &n[0]) || (comma && cli_int("--bins", comma + 1, &n[1])))
        return -1;
    if (!comma)
        n[1] = n[0];
    for (int k = 0; k < 2; k++) {
        if (n[k] < 1 || n[k] > SK_BINS_MAX)
            return cli_fail("--bins: 1 to %d bins per axis, not %lld", SK_BINS_MAX, n[k]), -1;
        a->opt.nbins[k] = (int)n[k];
    }
    return 1;
}

static int parse_lim(phase_args *a, int axis, int argc, char **argv, int *i)
{
    const char *flag = argv[*i];
    if (*i + 2 >= argc)
        return cli_fail("%s needs LO HI", flag), -1;
    double lo, hi;
    if (cli_double(flag, argv[*i + 1], &lo) || cli_double(flag, argv[*i + 2], &hi))
        return -1;
    if (!(lo < hi) || !isfinite(lo) || !isfinite(hi))
        return cli_fail("%s: the range %s .. %s is empty", flag, argv[*i + 1], argv[*i + 2]), -1;
    a->opt.has_range[axis] = 1;
    a->opt.lo[axis] = lo;
    a->opt.hi[axis] = hi;
    *i += 2;
    return 1;
}

static int parse_scale(phase_args *a, const char *arg)
{
    static const struct {
        const char *flag;
        int axes, log; /* axes: bit 0 x, bit 1 y */
    } k_scales[] = {{"--log", 3, 1}, {"--lin", 3, 0}, {"--xlog", 1, 1},
                    {"--xlin", 1, 0}, {"--ylog", 2, 1}, {"--ylin", 2, 0}};
    for (size_t k = 0; k < sizeof k_scales / sizeof k_scales[0]; k++)
        if (cli_is(arg, k_scales[k].flag)) {
            for (int ax = 0; ax < 2; ax++)
                if (k_scales[k].axes & (1 << ax))
                    a->opt.log[ax] = k_scales[k].log;
            return 1;
        }
    return 0;
}

static int parse_number(int argc, char **argv, int *i, double *out)
{
    const char *flag = argv[*i], *v = cli_value(argc, argv, i);
    if (!v || cli_double(flag, v, out))
        return -1;
    if (!(*out > 0))
        return cli_fail("%s must be positive, not '%s'", flag, v), -1;
    return 1;
}

static int parse_option(void *ctx, int argc, char **argv, int *i)
{
    phase_args *a = ctx;
    const char *arg = argv[*i];
    sk_phase_options *o = &a->opt;
    long long n;
    int s = parse_scale(a, arg);
    if (s)
        return s;
    if (cli_is(arg, "--x"))
        return copy_name(o->x, sizeof o->x, arg, cli_value(argc, argv, i));
    if (cli_is(arg, "--y"))
        return copy_name(o->y, sizeof o->y, arg, cli_value(argc, argv, i));
    if (cli_is(arg, "--z"))
        return copy_name(o->z, sizeof o->z, arg, cli_value(argc, argv, i));
    if (cli_is(arg, "--xlim"))
        return parse_lim(a, 0, argc, argv, i);
    if (cli_is(arg, "--ylim"))
        return parse_lim(a, 1, argc, argv, i);
    if (cli_is(arg, "--memory")) {
        double m;
        const char *v = cli_value(argc, argv, i);
        if (!v || cli_double(arg, v, &m))
            return -1;
        if (!(m >= 0 && m < 9e18))
            return cli_fail("--memory must be 0 or more bytes, not '%s'", v), -1;
        o->keep_bytes = (int64_t)m;
        return 1;
    }
    if (cli_is(arg, "--mu"))
        return parse_number(argc, argv, i, &o->derive.mu);
    if (cli_is(arg, "--gamma"))
        return parse_number(argc, argv, i, &o->derive.gamma);
    if (cli_is(arg, "--bins")) {
        const char *v = cli_value(argc, argv, i);
        return v ? parse_bins(a, v) : -1;
    }
    if (cli_is(arg, "--units")) {
        const char *v = cli_value(argc, argv, i);
        return copy_name(o->units, sizeof o->units, arg, v);
    }
    if (cli_is(arg, "--weight")) {
        const char *v = cli_value(argc, argv, i);
        if (!v)
            return -1;
        if (strcmp(v, "mass") && strcmp(v, "volume") && strcmp(v, "none"))
            return cli_fail("--weight must be mass, volume or none, not '%s'", v), -1;
        o->weight = !strcmp(v, "mass") ? SK_WEIGHT_MASS
                    : !strcmp(v, "volume") ? SK_WEIGHT_VOLUME : SK_WEIGHT_NONE;
        return 1;
    }
    if (cli_is(arg, "--component"))
        return (a->component = cli_value(argc, argv, i)) ? 1 : -1;
    if (cli_is(arg, "--threads")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        a->threads = (int)n;
        return 1;
    }
    if (cli_is(arg, "-o") || cli_is(arg, "--output"))
        return (a->output = cli_value(argc, argv, i)) ? 1 : -1;
    if (cli_is(arg, "--json"))
        return a->json = 1;
    if (cli_is(arg, "--no-fsync"))
        return a->no_fsync = 1;
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static int is_figure(const char *path)
{
    return ends_with(path, ".png") || ends_with(path, ".svg") || ends_with(path, ".pdf");
}

static int parse_args(phase_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_selection_init(&a->sel);
    sk_phase_options_init(&a->opt);
    a->opt.keep_bytes = 512000000;
    a->component = "hydro";
    int rc = cli_parse_source_args("phase", k_help, argc, argv, parse_option, a, &a->sel,
                                   &a->source, &a->help);
    if (rc != CLI_OK || a->help)
        return rc;
    if (!a->opt.x[0] || !a->opt.y[0])
        return cli_usage("phase", "give the binned quantities: --x Q --y Q (e.g. --x density "
                                  "--y T)");
    if (!a->output && !a->json)
        return cli_usage("phase", "no output given (-o FILE.npy|.fits|.json|.png, or --json)");
    if (a->output && !is_figure(a->output) && !ends_with(a->output, ".npy") &&
        !ends_with(a->output, ".fits") && !ends_with(a->output, ".fit") &&
        !ends_with(a->output, ".json") && !ends_with(a->output, ".h5") &&
        !ends_with(a->output, ".hdf5"))
        return cli_usage("phase", "-o %s: write .npy, .fits, .h5, .json, .png, .svg or .pdf",
                         a->output);
    return CLI_OK;
}

/* "density [g/cm3]", or the name alone in code units. */
static void axis_title(char *buf, size_t n, const char *what, const char *name, const char *unit)
{
    if (!strcmp(unit, "code"))
        snprintf(buf, n, "%s%s (code units)", what, name);
    else if (!strcmp(unit, "1"))
        snprintf(buf, n, "%s%s", what, name);
    else
        snprintf(buf, n, "%s%s [%s]", what, name, unit);
}

static int write_figure(const sk_phase *ph, const char *path, sk_error *err)
{
    const sk_bins *bx = sk_phase_bins(ph, 0), *by = sk_phase_bins(ph, 1);
    int nx = bx->n, ny = by->n;
    double *xe = sk_malloc((size_t)(nx + 1) * sizeof *xe);
    double *ye = sk_malloc((size_t)(ny + 1) * sizeof *ye);
    double *v = sk_malloc((size_t)nx * (size_t)ny * sizeof *v);
    int rc = xe && ye && v ? SK_OK : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    const double *val = sk_phase_values(ph);
    int zlog = 1;
    for (int i = 0; rc == SK_OK && i < nx; i++)
        for (int j = 0; j < ny; j++) {
            double z = val[(size_t)i * (size_t)ny + (size_t)j];
            v[(size_t)j * (size_t)nx + (size_t)i] = z;
            zlog &= !(z < 0);
        }
    for (int i = 0; rc == SK_OK && i <= nx; i++)
        xe[i] = sk_bins_edge(bx, i);
    for (int j = 0; rc == SK_OK && j <= ny; j++)
        ye[j] = sk_bins_edge(by, j);
    char xt[128], yt[128], zt[160], title[160];
    axis_title(xt, sizeof xt, "", sk_phase_name(ph, 0), sk_phase_unit(ph, 0));
    axis_title(yt, sizeof yt, "", sk_phase_name(ph, 1), sk_phase_unit(ph, 1));
    int w = sk_phase_weight(ph);
    char what[48] = "";
    if (w != SK_WEIGHT_NONE)
        snprintf(what, sizeof what, "%s-weighted mean ", sk_weight_name((sk_weight)w));
    axis_title(zt, sizeof zt, what, sk_phase_name(ph, 2), sk_phase_unit(ph, 2));
    if (w != SK_WEIGHT_NONE)
        snprintf(title, sizeof title, "mean %s (%s-weighted) in bins of %s and %s",
                 sk_phase_name(ph, 2), sk_weight_name((sk_weight)w), sk_phase_name(ph, 0),
                 sk_phase_name(ph, 1));
    else
        snprintf(title, sizeof title, "%s in bins of %s and %s", sk_phase_name(ph, 2),
                 sk_phase_name(ph, 0), sk_phase_name(ph, 1));
    skf_phase_spec s = {.nx = nx, .ny = ny, .xedges = xe, .yedges = ye, .values = v,
                        .xlog = bx->log, .ylog = by->log, .zlog = zlog, .title = title,
                        .xtitle = xt, .ytitle = yt, .ztitle = zt};
    if (rc == SK_OK)
        rc = skf_phase_figure(&s, path, err);
    sk_free(xe);
    sk_free(ye);
    sk_free(v);
    return rc;
}

/* The extrema pass (when a range comes from the data), keeping the rows'
 * values when they fit in --memory; then the binning pass when they did
 * not. Under MPI each rank streams its share; the ranks agree on every
 * status, then on the extrema, and add their sums. */
static int make_phase(phase_args *a, sk_source *src, sk_phase **out, sk_error *err)
{
    int rc = cli_derive_frame(src, a->component, &a->sel, &a->opt.frame, err);
    if (rc == SK_OK)
        rc = sk_phase_new(&a->opt, out, err);
    cli_source_read res;
    memset(&res, 0, sizeof res);
    if (rc == SK_OK && sk_phase_needs_extrema(*out)) {
        sk_consumer e = sk_phase_extrema_consumer(*out);
        rc = sk_mpi_agree(cli_stream_source(src, a->component, &a->sel, a->threads, &e, &res,
                                            err), err);
        if (rc == SK_OK)
            rc = sk_phase_agree_extrema(*out, err);
    }
    if (rc == SK_OK && !sk_phase_kept_all(*out)) {
        sk_consumer c = sk_phase_consumer(*out);
        rc = sk_mpi_agree(cli_stream_source(src, a->component, &a->sel, a->threads, &c, &res,
                                            err), err);
    }
    if (rc == SK_OK)
        rc = sk_mpi_agree(sk_phase_finish_ranks(*out, err), err);
    return rc;
}

int cmd_phase(int argc, char **argv)
{
    phase_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_OK || a.help)
        return rc;
    sk_error err;
    sk_error_clear(&err);
    sk_source *src = NULL;
    sk_phase *ph = NULL;
    rc = sk_source_open_mpi(&src, a.source, &err);
    if (rc == SK_OK)
        rc = cli_selection_resolve(src, &a.sel, a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = make_phase(&a, src, &ph, &err);
    sk_source_close(src);
    int rank0 = cli_mpi_world()->rank == 0; /* every rank has the values; one writes */
    if (rc == SK_OK && a.output && rank0)
        rc = is_figure(a.output) ? write_figure(ph, a.output, &err)
                                 : sk_phase_write(ph, a.output, !a.no_fsync, &err);
    if (rc == SK_OK && !rank0) {
        /* quiet */
    } else if (rc == SK_OK && a.json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_phase_json(ph, &j);
        cli_print_json(&j);
        sk_json_free(&j);
    } else if (rc == SK_OK) {
        printf("wrote %s (%lld of %lld rows in the bins)\n", a.output,
               (long long)sk_phase_binned(ph), (long long)sk_phase_rows(ph));
    }
    sk_phase_free(ph);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
