/* snapkit profile: weighted statistics of quantities in bins of a field
 * (snapkit/profile.h), in one streamed pass over a selection; text, CSV,
 * JSON, FITS, .npy and figures. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"
#include "derive_cli.h"
#include "figure/profile_plot.h"
#include "snapkit/util/atomicfile.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"

static const char k_help[] =
    "usage: snapkit profile SOURCE --bin FIELD [--bins N] [--log] [--range LO HI]\n"
    "                       --vars A,B [--weight mass|volume|none] [--cumulative]\n"
    "                       [--percentiles P,...] [--units SPEC] [selection]\n"
    "                       [-o out.{txt,csv,json,fits,npy,png,svg,pdf}] [--json]\n\n"
    "Bin the rows of SOURCE (a RAMSES output folder or a .snapkit file) by FIELD (a column\n"
    "or a derived quantity: r, R, z, density, T, ...) and give per bin the rows, the sum of\n"
    "the weights and, per quantity, the weighted mean, std, sum (of weight x value) and\n"
    "percentiles (docs/profiles.md). One pass; exact sums, the same bits on any thread\n"
    "count and from a RAMSES output or its .snapkit file. The default range is the\n"
    "extrema of FIELD over the selection widened by one unit in the last place (yt's\n"
    "create_profile), found in the same pass: the rows binned are kept until the end\n"
    "(8 x (quantities + 2) bytes a row).\n\n"
    "  --bin FIELD           the field binned by (default r: needs --center)\n"
    "  --bins N              bins (default 64)\n"
    "  --log                 bins equal in log10 FIELD (the range must be positive)\n"
    "  --range LO HI         the range, in FIELD's unit (default: the extrema)\n"
    "  --vars A,B            the quantities (columns or derived quantities, e.g.\n"
    "                        density,T,v_phi); default density. v_circ (with --bin r):\n"
    "                        sqrt(G M(<r) / r) at each bin's upper edge, M the mass of\n"
    "                        the rows binned (sum: the bin's mass, cum_sum: M, code units;\n"
    "                        rows below the range, e.g. r = 0 with --log, are not in M)\n"
    "  --weight W            mass (default; cells: density x volume), volume or none\n"
    "  --cumulative          also running sums from the first bin (count, weight, each\n"
    "                        quantity's sum and mean)\n"
    "  --percentiles P,...   weighted percentiles of each quantity per bin (0..100)\n"
    "  --units SPEC          units of fields: r=kpc,density=g/cm3,T=K,v_phi=km/s, or cgs\n"
    "  --component C[,C...]  hydro (default), particles, or several: their rows binned\n"
    "                        together (a rotation curve's v_circ from the gas and the\n"
    "                        particles' mass: --component hydro,particles); every\n"
    "                        quantity must be a field of each\n"
    "%s"
    "  --threads N           use at most N threads\n"
    "  -o PATH               .txt, .csv, .json, .fits (table PROFILE), .h5 (a dataset\n"
    "                        per column, units as attributes), .npy ((bins,\n"
    "                        columns), columns as the text header), or a figure .png,\n"
    "                        .svg, .pdf (the first quantity's mean, a band of +- std);\n"
    "                        repeatable; all written or none\n"
    "  --json                the profile as JSON on stdout: bin, edges, count, weight,\n"
    "                        quantities{NAME: {mean, std, sum}}\n";

enum { MAX_OUTPUTS = 8, MAX_COMPONENTS = 4 };

typedef struct prof_args {
    const char *source, *bin, *outputs[MAX_OUTPUTS];
    const char *components[MAX_COMPONENTS];
    char vars[4096], component_list[128];
    int noutputs, json, help, threads, ncomponents;
    cli_selection sel;
    sk_profile_options opt;
} prof_args;

static int parse_percentiles(prof_args *a, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    a->opt.npercentiles = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (a->opt.npercentiles == SK_PROFILE_MAX_PERCENTILES)
            return cli_fail("--percentiles: at most %d values", SK_PROFILE_MAX_PERCENTILES), -1;
        double p;
        if (cli_double("--percentiles", t, &p))
            return -1;
        if (!(p >= 0 && p <= 100))
            return cli_fail("--percentiles: %s is outside 0..100", t), -1;
        a->opt.percentiles[a->opt.npercentiles++] = p;
    }
    return a->opt.npercentiles ? 1 : (cli_fail("--percentiles needs values, e.g. 16,84"), -1);
}

static int parse_range(prof_args *a, int argc, char **argv, int *i)
{
    if (*i + 2 >= argc)
        return cli_fail("--range needs two values, LO HI"), -1;
    if (cli_double("--range", argv[*i + 1], &a->opt.lo) ||
        cli_double("--range", argv[*i + 2], &a->opt.hi))
        return -1;
    a->opt.has_range = 1;
    *i += 2;
    return 1;
}

/* "hydro,particles": each component once. */
static int parse_components(prof_args *a, const char *v)
{
    snprintf(a->component_list, sizeof a->component_list, "%s", v);
    a->ncomponents = 0;
    for (char *save = NULL, *c = strtok_r(a->component_list, ",", &save); c;
         c = strtok_r(NULL, ",", &save)) {
        for (int k = 0; k < a->ncomponents; k++)
            if (!strcmp(a->components[k], c))
                return cli_fail("--component: '%s' given twice", c), -1;
        if (a->ncomponents == MAX_COMPONENTS)
            return cli_fail("--component: at most %d components", MAX_COMPONENTS), -1;
        a->components[a->ncomponents++] = c;
    }
    if (!a->ncomponents)
        return cli_fail("--component: no component in '%s'", v), -1;
    return 1;
}

static int parse_option(void *ctx, int argc, char **argv, int *i)
{
    prof_args *a = ctx;
    const char *arg = argv[*i], *v;
    long long n;
    sk_error e;
    if (cli_is(arg, "--range"))
        return parse_range(a, argc, argv, i);
    if (cli_is(arg, "--bins")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        if (n < 1 || n > SK_BINS_MAX)
            return cli_fail("--bins must be 1..%d, not %lld", SK_BINS_MAX, n), -1;
        a->opt.nbins = (int)n;
    } else if (cli_is(arg, "--threads")) {
        if (cli_int_value(argc, argv, i, &n))
            return -1;
        a->threads = (int)n;
    } else if (cli_is(arg, "--weight")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        if (sk_weight_parse(v, &a->opt.weight, &e) != SK_OK)
            return cli_fail("--weight: %s", e.message), -1;
    } else if (cli_is(arg, "--percentiles")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        return parse_percentiles(a, v);
    } else if (cli_is(arg, "--units")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        snprintf(a->opt.units, sizeof a->opt.units, "%s", v);
    } else if (cli_is(arg, "--vars")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        snprintf(a->vars, sizeof a->vars, "%s", v);
    } else if (cli_is(arg, "--bin")) {
        if (!(a->bin = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--component")) {
        if (!(v = cli_value(argc, argv, i)))
            return -1;
        return parse_components(a, v);
    } else if (cli_is(arg, "-o") || cli_is(arg, "--output")) {
        if (a->noutputs == MAX_OUTPUTS)
            return cli_fail("at most %d outputs", MAX_OUTPUTS), -1;
        if (!(a->outputs[a->noutputs++] = cli_value(argc, argv, i)))
            return -1;
    } else if (cli_is(arg, "--log")) {
        a->opt.log = 1;
    } else if (cli_is(arg, "--cumulative")) {
        a->opt.cumulative = 1;
    } else if (cli_is(arg, "--json")) {
        a->json = 1;
    } else {
        return 0;
    }
    return 1;
}

static int parse_args(prof_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    cli_selection_init(&a->sel);
    sk_profile_options_init(&a->opt);
    a->components[0] = "hydro";
    a->ncomponents = 1;
    a->bin = "r";
    snprintf(a->vars, sizeof a->vars, "density");
    int rc = cli_parse_source_args("profile", k_help, argc, argv, parse_option, a, &a->sel,
                                   &a->source, &a->help);
    if (rc != CLI_OK || a->help)
        return rc;
    if (!a->noutputs && !a->json)
        return cli_usage("profile", "no output given (-o profile.txt|.csv|.json|.fits|.npy|.png, "
                                    "or --json)");
    return CLI_OK;
}

static int ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && !strcmp(s + n - m, ext);
}

static int is_figure(const char *path)
{
    return ends_with(path, ".png") || ends_with(path, ".svg") || ends_with(path, ".pdf");
}

/* Each output's extension is known before anything is read. */
static int check_outputs(const prof_args *a)
{
    static const char *const ext[] = {".txt", ".csv", ".json", ".fits", ".h5", ".hdf5", ".npy"};
    for (int k = 0; k < a->noutputs; k++) {
        int ok = is_figure(a->outputs[k]);
        for (size_t e = 0; e < sizeof ext / sizeof ext[0]; e++)
            ok |= ends_with(a->outputs[k], ext[e]);
        if (!ok)
            return cli_fail("%s: a profile is written as .txt, .csv, .json, .fits, .h5, .npy, "
                            ".png, .svg or .pdf", a->outputs[k]);
    }
    return CLI_OK;
}

/* The quantities: names[] point into a->vars. */
static int split_vars(prof_args *a, const char **names)
{
    int nq = 0;
    for (char *save = NULL, *s = strtok_r(a->vars, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (nq == SK_PROFILE_MAX_QUANTITIES)
            return cli_fail("--vars: at most %d quantities", SK_PROFILE_MAX_QUANTITIES), -1;
        names[nq++] = s;
    }
    return nq;
}

/* The selection's variables for one component: the bin field, the
 * quantities and the column mass weights need, each once. */
static void read_vars(prof_args *a, const char *component, const char *const *names, int nq)
{
    const char *want[SK_PROFILE_MAX_QUANTITIES + 2];
    int n = 0;
    want[n++] = a->bin;
    for (int i = 0; i < nq; i++) /* v_circ: from each row's mass */
        want[n++] = strcmp(names[i], "v_circ") ? names[i] : "mass";
    if (a->opt.weight == SK_WEIGHT_MASS)
        want[n++] = strcmp(component, "particles") ? "density" : "mass";
    size_t at = 0;
    char *out = a->sel.vars;
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int k = 0; k < i; k++)
            dup |= !strcmp(want[k], want[i]);
        if (!dup)
            at += (size_t)snprintf(out + at, sizeof a->sel.vars - at, "%s%s", at ? "," : "",
                                   want[i]);
    }
}

/* One component's rows into the profile's stream (which keeps the rows
 * of the components before it). */
static int stream_component(prof_args *a, sk_source *src, const char *component,
                            const char *const *names, int nq, sk_profile_stream *ps,
                            sk_error *err)
{
    sk_derive_set *derived = NULL;
    cli_selection read;
    read_vars(a, component, names, nq);
    int rc = cli_derive_take_vars(src, component, &a->sel, &read, &derived, err);
    if (rc == SK_OK) {
        sk_consumer c = sk_profile_stream_consumer(ps);
        if (derived)
            c = sk_derive_set_consumer(derived, &c);
        cli_source_read res;
        rc = cli_stream_source(src, component, &read, a->threads, &c, &res, err);
    }
    sk_derive_set_free(derived);
    return rc;
}

static int make_profile(prof_args *a, sk_source *src, const char *const *names, int nq,
                        sk_profile **p, sk_error *err)
{
    sk_profile_stream *ps = NULL;
    int rc = sk_profile_stream_new(a->bin, nq, names, &a->opt, &ps, err);
    for (int k = 0; k < a->ncomponents && rc == SK_OK; k++)
        rc = stream_component(a, src, a->components[k], names, nq, ps, err);
    rc = sk_mpi_agree(rc, err); /* under MPI: each rank its share, then rank 0 all */
    if (rc == SK_OK)
        rc = sk_profile_stream_reduce(ps, err);
    if (rc == SK_OK && cli_mpi_world()->rank == 0)
        rc = sk_profile_stream_finish(ps, p, err);
    sk_profile_stream_free(ps);
    return rc;
}

/* "r [kpc]", or "r (code units)". */
static void axis_title(const char *name, const char *unit, char *buf, size_t n)
{
    if (!strcmp(unit, "code"))
        snprintf(buf, n, "%s (code units)", name);
    else
        snprintf(buf, n, "%s [%s]", name, unit);
}

/* The first quantity's mean with a band of +- std (no quantity: the
 * weight per bin). */
static int write_figure(const sk_profile *p, const char *path, sk_error *err)
{
    int n = sk_profile_nbins(p), nq = sk_profile_nquantities(p);
    const double *y = nq ? sk_profile_values(p, 0, SK_PROFILE_MEAN) : sk_profile_weights(p);
    const double *sd = nq ? sk_profile_values(p, 0, SK_PROFILE_STD) : NULL;
    double *lo = sk_malloc(sizeof *lo * (size_t)n), *hi = sk_malloc(sizeof *hi * (size_t)n);
    if (!lo || !hi) {
        sk_free(lo);
        sk_free(hi);
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
    int ylog = 1, any = 0;
    for (int j = 0; j < n; j++) {
        lo[j] = sd ? y[j] - sd[j] : NAN;
        hi[j] = sd ? y[j] + sd[j] : NAN;
        if (isfinite(y[j])) {
            any = 1;
            ylog &= y[j] > 0;
        }
    }
    char xt[128], yt[160], title[160];
    axis_title(sk_profile_bin_name(p), sk_profile_bin_unit(p), xt, sizeof xt);
    if (nq)
        axis_title(sk_profile_quantity(p, 0), sk_profile_unit(p, 0), yt, sizeof yt);
    else
        snprintf(yt, sizeof yt, "%s per bin", sk_weight_name(sk_profile_weight(p)));
    snprintf(title, sizeof title, "%s-weighted %s profile", sk_weight_name(sk_profile_weight(p)),
             nq ? sk_profile_quantity(p, 0) : "weight");
    skf_profile_series s = {.label = NULL, .y = y, .lo = sd ? lo : NULL, .hi = sd ? hi : NULL};
    skf_profile_spec spec = {.nbins = n, .edges = sk_profile_edges(p),
                             .xlog = sk_profile_bins(p)->log, .ylog = ylog && any, .steps = 0,
                             .title = title, .xtitle = xt, .ytitle = yt, .nseries = 1,
                             .series = &s};
    int rc = skf_profile_figure(&spec, path, err);
    sk_free(lo);
    sk_free(hi);
    return rc;
}

/* Every output, all or none. */
static int write_outputs(const prof_args *a, const sk_profile *p, sk_error *err)
{
    sk_atomic_batch batch;
    sk_atomic_batch_begin(&batch);
    int rc = SK_OK;
    for (int k = 0; k < a->noutputs && rc == SK_OK; k++)
        rc = is_figure(a->outputs[k]) ? write_figure(p, a->outputs[k], err)
                                      : sk_profile_write(p, a->outputs[k], err);
    sk_error e2;
    int renamed = sk_atomic_batch_end(&batch, rc == SK_OK, &e2);
    if (rc == SK_OK && renamed != SK_OK) {
        *err = e2;
        rc = renamed;
    }
    return rc;
}

int cmd_profile(int argc, char **argv)
{
    prof_args a;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_OK || a.help)
        return rc;
    if (check_outputs(&a) != CLI_OK)
        return CLI_USAGE;
    const char *names[SK_PROFILE_MAX_QUANTITIES];
    int nq = split_vars(&a, names);
    if (nq < 0)
        return CLI_USAGE;
    sk_error err;
    sk_error_clear(&err);
    sk_source *src = NULL;
    sk_profile *p = NULL;
    rc = sk_source_open_mpi(&src, a.source, &err);
    if (rc == SK_OK)
        rc = cli_selection_resolve(src, &a.sel, a.threads, NULL, &err);
    if (rc == SK_OK)
        rc = make_profile(&a, src, names, nq, &p, &err);
    sk_source_close(src);
    if (rc == SK_OK && !p) /* another MPI rank: rank 0 writes */
        return CLI_OK;
    if (rc == SK_OK)
        rc = write_outputs(&a, p, &err);
    if (rc == SK_OK && a.json) {
        sk_json j;
        sk_json_init(&j, 0);
        sk_profile_json(p, &j);
        cli_print_json(&j);
        sk_json_free(&j);
    } else if (rc == SK_OK) {
        for (int k = 0; k < a.noutputs; k++)
            printf("wrote %s\n", a.outputs[k]);
    }
    sk_profile_free(p);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}
