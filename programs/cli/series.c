/* snapkit series: one command (stats, profile, project, slice, phase, cube)
 * over many outputs, in time order, into one table and, for maps, one file
 * per output named by a pattern. Each output is run through the command's
 * own entry function with --json added; the result is the JSON document
 * the command builds from its library structures (cli_print_json's sink),
 * so a row carries the bits of a separate run. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_mpi.h"
#include "commands.h"
#include "series.h"
#include "snapkit/cosmology.h"
#include "snapkit/memory.h"
#include "snapkit/run.h"

static const char k_help[] =
    "usage: snapkit series SOURCE... [-o TABLE.txt|.csv|.json] [--csv|--json]\n"
    "                      -- COMMAND [ARGS...]\n\n"
    "Run one command over many outputs (RAMSES output folders or .snapkit files, e.g.\n"
    "sim/output_*) in time order and give one table: a row per output (a row per output\n"
    "and bin for profile) with the output number, the time in code units, time_myr (the\n"
    "age of a cosmological run, else time x unit_t; '-' without physical units), aexp\n"
    "and redshift (cosmological runs), the result, and the source's path. `--` ends\n"
    "the sources: what follows is the command and its arguments as `snapkit COMMAND`\n"
    "takes them, without SOURCE, passed on untouched, so a source may be named anything.\n"
    "A run's folder (sim/, holding output_NNNNN folders) stands for its complete outputs\n"
    "(`snapkit info sim/` lists them; an incomplete one is named and left out).\n\n"
    "commands:\n"
    "  stats                 the rows, and with --totals the totals (totals.mass,\n"
    "                        totals.com_x, ...), with --weight the weighted statistics;\n"
    "                        else min, max, sum (and volume_sum) per column\n"
    "  profile               one row per output and bin: bin, bin_lo, bin_hi, count,\n"
    "                        weight, QUANTITY.mean, .std, .sum, ... (a long table: bins\n"
    "                        may differ between outputs)\n"
    "  project, slice, phase, cube   one file per output: their -o takes {n} (the output\n"
    "                        number) or {i} (the place in time order from 0), with a\n"
    "                        width as {n:05}: -o 'map_{n:05}.png', or -o 'frame_{i:05}.png'\n"
    "                        for an animation's numbered frames; the table names the files\n\n"
    "  -o PATH               the table into PATH, written whole or not at all: .csv, .json\n"
    "                        (columns, and rows as objects) or text (default: standard\n"
    "                        output)\n"
    "  --csv, --json         the table on standard output as CSV or JSON\n\n"
    "An output that cannot be opened or whose command fails says why in one line; the\n"
    "others are still done, and the exit status is then 1.\n\n"
    "  snapkit series sim/output_* -- stats --sphere 0.1 --center 0.5 0.5 0.5 --totals\n"
    "  snapkit series sim/output_* -o profiles.csv -- profile --bin r --center bc --log\n"
    "  snapkit series sim/output_* -- project --vars sd -o 'sd_{i:05}.png'\n";

typedef struct series_command {
    const char *name;
    cli_command_fn fn;
} series_command;

static const series_command k_commands[] = {
    {"stats", cmd_stats}, {"profile", cmd_profile}, {"project", cmd_project},
    {"slice", cmd_slice}, {"phase", cmd_phase},     {"cube", cmd_cube},
};

typedef struct series_args {
    int nsources;
    char **sources;
    const char *table, *format, *command;
    cli_command_fn fn;
    int nargs;
    char **args; /* the command's arguments after its name */
} series_args;

static const char *format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && !strcmp(dot, ".csv"))
        return "csv";
    if (dot && !strcmp(dot, ".json"))
        return "json";
    return "text";
}

static int parse_args(series_args *a, int argc, char **argv, int *helped)
{
    memset(a, 0, sizeof *a);
    a->table = "-";
    a->format = "text";
    *helped = 0;
    int i = 1, csv = 0, json = 0;
    a->sources = argv + 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (cli_help(argv[i], k_help))
            return *helped = 1, CLI_OK;
        if (cli_is(argv[i], "-o") || cli_is(argv[i], "--output")) {
            if (!(a->table = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (cli_is(argv[i], "--csv")) {
            csv = 1;
        } else if (cli_is(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("series", "unknown option '%s' (the command's options go after --)",
                             argv[i]);
        } else {
            a->sources[a->nsources++] = argv[i];
        }
    }
    if (i >= argc || i + 1 >= argc)
        return cli_usage("series", "missing -- COMMAND after the sources");
    if (!a->nsources)
        return cli_usage("series", "missing SOURCE");
    if (csv && json)
        return cli_usage("series", "--csv or --json, not both");
    a->format = strcmp(a->table, "-") ? format_of(a->table) : csv ? "csv" : json ? "json" : "text";
    a->command = argv[i + 1];
    for (size_t k = 0; k < sizeof k_commands / sizeof k_commands[0]; k++)
        if (!strcmp(a->command, k_commands[k].name))
            a->fn = k_commands[k].fn;
    if (!a->fn)
        return cli_usage("series", "'%s' is not a command series runs (stats, profile, project, "
                                   "slice, phase, cube)", a->command);
    a->args = argv + i + 2;
    a->nargs = argc - i - 2;
    for (int k = 0; k < a->nargs; k++)
        if (cli_is(a->args[k], "--help") || cli_is(a->args[k], "-h") ||
            cli_is(a->args[k], "--json"))
            return cli_usage("series", "'%s' is series' to give (snapkit %s %s for the "
                                       "command's own)", a->args[k], a->command, a->args[k]);
    return CLI_OK;
}

int series_output_describe(const char *path, series_output *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    sk_source *src;
    int rc = sk_source_open(&src, path, err);
    if (rc != SK_OK)
        return rc;
    sk_table *meta = NULL;
    if (sk_source_ramses(src)) {
        if (!(meta = sk_table_new(0)))
            rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        else
            rc = sk_ramses_describe(sk_source_ramses(src), meta, err);
    } else {
        const char *first = NULL;
        if (sk_source_components(src, &first, 1) < 1)
            rc = sk_fail(err, SK_ERR_EMPTY, path, -1, "the file holds no table");
        else
            rc = sk_store_describe(sk_source_store(src), first, &meta, err);
    }
    sk_cosmology_summary c;
    if (rc == SK_OK)
        rc = sk_cosmology_from_table(meta, &c, err);
    if (rc == SK_OK) {
        const char *num = sk_table_meta_get(meta, "ramses.output");
        out->number = num ? strtoll(num, NULL, 10) : -1;
        out->time = sk_table_meta_double(meta, "time", NAN);
        double ul = sk_table_meta_double(meta, "unit_l", 1), ud = sk_table_meta_double(meta, "unit_d", 1);
        double ut = sk_table_meta_double(meta, "unit_t", 1);
        int physical = c.cosmological || !(ul == 1 && ud == 1 && ut == 1);
        const double myr = 3.15576e13;
        out->time_myr = !physical ? NAN : c.cosmological ? c.age / myr : out->time * ut / myr;
        out->aexp = c.cosmological ? c.aexp : NAN;
        out->redshift = c.cosmological ? c.redshift : NAN;
    }
    sk_table_free(meta);
    sk_source_close(src);
    return rc;
}

static int by_time(const void *pa, const void *pb)
{
    const series_output *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->number != b->number)
        return a->number < b->number ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* pattern with {n} and {i} (optionally {n:05}) replaced into out; 1 when it
 * held one, -1 when out is too small. */
static int substitute(const char *pattern, long long n, long long i, char *out, size_t size)
{
    size_t at = 0;
    int found = 0;
    for (const char *p = pattern; *p;) {
        const char *e = p[0] == '{' && (p[1] == 'n' || p[1] == 'i') ? strchr(p, '}') : NULL;
        int width = 0, ok = e && (e == p + 2 || p[2] == ':');
        for (const char *d = p + 3; ok && e > p + 2 && d < e; d++)
            ok = isdigit((unsigned char)*d);
        if (ok && e > p + 2)
            width = atoi(p + 3);
        int w = ok ? snprintf(out + at, size - at, "%0*lld", width, p[1] == 'n' ? n : i)
                   : snprintf(out + at, size - at, "%c", *p);
        if (w < 0 || (size_t)w >= size - at)
            return -1;
        at += (size_t)w;
        found |= ok;
        p = ok ? e + 1 : p + 1;
    }
    return found;
}

typedef struct capture {
    char *text;
} capture;

static void take_json(void *ctx, const char *text)
{
    capture *c = ctx;
    sk_free(c->text);
    c->text = sk_strdup(text);
}

/* The command's arguments for output o (place i): SOURCE, then its own
 * with the patterns replaced, then --json; the -o values into files
 * (newline-separated). */
static int build_argv(const series_args *a, const series_output *o, int i, char **argv,
                      char *store, size_t size, char *files, size_t fsize)
{
    int n = 0;
    size_t at = 0;
    files[0] = 0;
    argv[n++] = (char *)a->command;
    argv[n++] = (char *)o->path;
    for (int k = 0; k < a->nargs; k++) {
        if (substitute(a->args[k], o->number, i, store + at, size - at) < 0)
            return cli_fail("series: the arguments are too long");
        argv[n++] = store + at;
        at += strlen(store + at) + 1;
        if (k > 0 && (cli_is(a->args[k - 1], "-o") || cli_is(a->args[k - 1], "--output")))
            snprintf(files + strlen(files), fsize - strlen(files), "%s%s", files[0] ? "\n" : "",
                     argv[n - 1]);
    }
    argv[n++] = (char *)"--json";
    argv[n] = NULL;
    return n;
}

/* A map command's files must differ between outputs. */
static int check_patterns(const series_args *a, const series_output *outs, int n)
{
    for (int k = 0; k < a->nargs; k++) {
        if (!(k > 0 && (cli_is(a->args[k - 1], "-o") || cli_is(a->args[k - 1], "--output"))))
            continue;
        char x[4096], y[4096];
        for (int p = 0; p + 1 < n; p++)
            for (int q = p + 1; q < n; q++)
                if (substitute(a->args[k], outs[p].number, p, x, sizeof x) >= 0 &&
                    substitute(a->args[k], outs[q].number, q, y, sizeof y) >= 0 && !strcmp(x, y))
                    return cli_usage("series", "-o %s names the same file for %s and %s: "
                                     "put {n} or {i} in it", a->args[k], outs[p].path,
                                     outs[q].path);
    }
    return CLI_OK;
}

/* Run the command on output i; its row(s) into the table. */
static int run_one(const series_args *a, series_table *t, const series_output *outs, int i)
{
    enum { STORE = 65536 };
    char **argv = sk_malloc(sizeof *argv * (size_t)(a->nargs + 4));
    char *store = sk_malloc(STORE), *files = sk_malloc(STORE);
    int rc = argv && store && files ? CLI_OK : cli_fail("out of memory");
    int argc = rc == CLI_OK ? build_argv(a, &outs[i], i, argv, store, STORE, files, STORE) : -1;
    capture cap = {0};
    if (argc < 0)
        rc = CLI_FAIL;
    if (rc == CLI_OK) {
        fflush(stdout);
        cli_set_json_sink(take_json, &cap);
        rc = a->fn(argc, argv);
        cli_set_json_sink(NULL, NULL);
    }
    sk_json_value *res = NULL;
    sk_error err;
    sk_error_clear(&err);
    if (rc == CLI_OK && cli_mpi_world()->rank == 0) {
        if (cap.text && sk_json_parse(cap.text, strlen(cap.text), outs[i].path, &res, &err))
            rc = cli_error(&err);
        else if (series_table_add(t, a->command, i, res, files))
            rc = cli_fail("series: %s: no result (out of memory)", outs[i].path);
    }
    sk_json_value_free(res);
    sk_free(cap.text);
    sk_free(argv);
    sk_free(store);
    sk_free(files);
    return rc;
}

/* The sources with every run folder replaced by its complete outputs (an
 * incomplete one named on stderr): *paths an sk_malloc list of sk_strdup
 * strings (series_free_paths). CLI_FAIL when a run cannot be listed. */
static int expand_runs(const series_args *a, char ***paths, int *n)
{
    int cap = a->nsources + 16, rc = CLI_OK;
    char **list = sk_malloc(sizeof *list * (size_t)cap);
    *n = 0;
    for (int s = 0; list && s < a->nsources && rc == CLI_OK; s++) {
        sk_run_output *outs = NULL;
        int nout = 0;
        sk_error err;
        sk_error_clear(&err);
        if (!sk_run_is_run(a->sources[s])) {
            list[(*n)++] = sk_strdup(a->sources[s]);
            continue;
        }
        if (sk_run_list(a->sources[s], &outs, &nout, &err) != SK_OK) {
            rc = cli_error(&err);
            break;
        }
        if (*n + nout > cap) {
            cap = *n + nout + 16;
            char **grown = sk_realloc(list, sizeof *list * (size_t)cap);
            if (!grown)
                rc = cli_fail("out of memory");
            else
                list = grown;
        }
        for (int k = 0; k < nout && rc == CLI_OK; k++) {
            if (outs[k].state == SK_RUN_COMPLETE)
                list[(*n)++] = sk_strdup(outs[k].path);
            else
                fprintf(stderr, "snapkit: series: %s left out (%s: %s)\n", outs[k].path,
                        sk_run_state_name(outs[k].state), outs[k].problem);
        }
        sk_run_free(outs, nout);
    }
    if (!list)
        return cli_fail("out of memory");
    *paths = list;
    return rc;
}

static void free_paths(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        sk_free(paths[i]);
    sk_free(paths);
}

/* Open every source for its time; those that fail say so and are left out. */
static int describe_all(const series_args *a, series_output *outs, int *n, char *names,
                        size_t size)
{
    int failed = 0;
    *n = 0;
    for (int s = 0; s < a->nsources; s++) {
        sk_error err;
        sk_error_clear(&err);
        if (series_output_describe(a->sources[s], &outs[*n], &err) == SK_OK)
            (*n)++;
        else if (cli_error(&err) && ++failed)
            snprintf(names + strlen(names), size - strlen(names), " %s", a->sources[s]);
    }
    qsort(outs, (size_t)*n, sizeof *outs, by_time);
    return failed;
}

int cmd_series(int argc, char **argv)
{
    series_args a;
    int helped;
    int rc = parse_args(&a, argc, argv, &helped);
    if (rc != CLI_OK || helped)
        return rc;
    char **paths = NULL;
    int npaths = 0;
    if (expand_runs(&a, &paths, &npaths) != CLI_OK) {
        free_paths(paths, npaths);
        return CLI_FAIL;
    }
    a.sources = paths;
    a.nsources = npaths;
    series_output *outs = sk_calloc((size_t)(npaths ? npaths : 1), sizeof *outs);
    if (!outs) {
        free_paths(paths, npaths);
        return cli_fail("out of memory");
    }
    char names[1024] = "";
    int n, failed = describe_all(&a, outs, &n, names, sizeof names);
    if (check_patterns(&a, outs, n) != CLI_OK) {
        sk_free(outs);
        free_paths(paths, npaths);
        return CLI_USAGE;
    }
    series_table t = {.outputs = outs};
    for (int i = 0; i < n; i++)
        t.cosmological |= !isnan(outs[i].aexp);
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        int one = run_one(&a, &t, outs, i);
        if (one == CLI_USAGE) /* the command's options: the same for every output */
            rc = CLI_USAGE;
        else if (one != CLI_OK && ++failed)
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s", outs[i].path);
    }
    sk_error err;
    sk_error_clear(&err);
    if (rc == CLI_OK && cli_mpi_world()->rank == 0 &&
        series_table_write(&t, a.table, a.format, &err) != SK_OK)
        rc = cli_error(&err);
    if (rc == CLI_OK && failed)
        rc = cli_fail("series: %d of %d outputs failed (the lines above say why):%s", failed,
                      a.nsources, names);
    series_table_free(&t);
    sk_free(outs);
    free_paths(paths, npaths);
    return rc;
}
