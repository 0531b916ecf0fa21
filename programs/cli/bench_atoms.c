/* snapkit bench atoms: atom files read and written by snapkit and by the
 * peers installed, on fcc copper generated here. */
#include <string.h>
#include <unistd.h>

#include "bench/atoms.h"
#include "bench_commands.h"
#include "bench_common.h"

static const char k_help[] =
    "usage: snapkit bench atoms [--sizes 4000,32000,256000,2048000] [--formats dump,data,extxyz]\n"
    "                           [--peers ase,lammps] [--inputs DIR] [--runs N] [--threads N]\n"
    "                           [--json]\n\n"
    "Generate fcc copper (a = 3.615 A, 4 n^3 atoms, every coordinate displaced by up to 0.1 A,\n"
    "the configuration of mdapy's I/O benchmark) as a LAMMPS dump, a LAMMPS data file and an\n"
    "extended XYZ file per size, check every atom of each file against the generator (count,\n"
    "ids, types, every coordinate, the box), then time reading and writing each with snapkit\n"
    "and with the peers installed: ASE (ase.io.read/write in a child Python process) and\n"
    "LAMMPS (its own read_data, write_dump and write_data through lmp, timed inside it).\n"
    "Every result a program returns or writes is checked atom by atom before its time\n"
    "counts. Times: one checked run, then the median of N timed runs (default 3), the inputs\n"
    "warm in the page cache; no program flushes its writes to disk.\n\n"
    "options:\n"
    "  --sizes LIST          atom counts, each 4 n^3 (default 4000,32000,256000,2048000)\n"
    "  --formats LIST        dump, data, extxyz (default all three)\n"
    "  --peers LIST          ase, lammps or none (default ase,lammps: those installed run;\n"
    "                        the others are named with the reason)\n"
    "  --inputs DIR          keep the inputs in DIR (cu_fcc_N.dump, .data, .extxyz) and reuse\n"
    "                        them next time, checked again (default: a folder here, removed)\n"
    "  --python PATH         the Python with ASE (default /usr/bin/python3)\n"
    "  --lmp PATH            the LAMMPS binary (default lmp, lmp_serial or lmp_stable on PATH)\n"
    "  --threads N           snapkit's threads (default: the job's budget); the peers use one\n"
    "%s";

static void atoms_json(const void *b, sk_json *j)
{
    sk_atoms_bench_json(b, j);
}

static void add_selection(bench_common *c, const char *option, const char *value)
{
    size_t len = strlen(c->selection);
    snprintf(c->selection + len, sizeof c->selection - len, "%s%s %s", len ? " " : "", option, value);
}

int cmd_bench_atoms(int argc, char **argv)
{
    bench_common common;
    bench_common_init(&common, "bench atoms", 0);
    sk_atoms_bench_options opt = {.peers = SKB_PEER_ASE | SKB_PEER_LAMMPS};
    static int64_t sizes[SK_ATOMS_MAX_SIZES];
    const char *inputs = NULL;
    sk_error err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (cli_is(a, "--help") || cli_is(a, "-h")) {
            printf(k_help, "");
            fputs(bench_common_help, stdout);
            return CLI_OK;
        } else if (cli_is(a, "--sizes") || cli_is(a, "--formats") || cli_is(a, "--peers") ||
                   cli_is(a, "--inputs") || cli_is(a, "--python") || cli_is(a, "--lmp")) {
            if (!(v = cli_value(argc, argv, &i)))
                return CLI_USAGE;
            if (cli_is(a, "--sizes")) {
                if (sk_atoms_parse_sizes(v, sizes, &opt.nsizes, &err) != SK_OK)
                    return cli_usage("bench atoms", "%s", err.message);
                opt.sizes = sizes;
            } else if (cli_is(a, "--peers")) {
                if (sk_atoms_parse_peers(v, &opt.peers, &err) != SK_OK)
                    return cli_usage("bench atoms", "%s", err.message);
            } else if (cli_is(a, "--formats")) {
                opt.formats = v;
            } else if (cli_is(a, "--inputs")) {
                inputs = v;
            } else if (cli_is(a, "--python")) {
                opt.python = v;
            } else {
                opt.lmp = v;
            }
            if (!cli_is(a, "--python") && !cli_is(a, "--lmp"))
                add_selection(&common, a, v);
        } else if (bench_option(&common, argc, argv, &i) < 0) {
            return CLI_USAGE;
        }
    }
    if (common.source)
        return cli_usage("bench atoms", "unexpected argument '%s' (the inputs are generated)",
                         common.source);
    if (common.nlevels > 1)
        return cli_usage("bench atoms", "--threads takes one count here");
    bench_warn_levels(common.levels, common.nlevels);
    char work[64];
    snprintf(work, sizeof work, "snapkit-bench-atoms-%ld", (long)getpid());
    opt.work = inputs ? inputs : work;
    opt.keep_inputs = inputs != NULL;
    opt.threads = bench_one_thread(&common);
    opt.runs = common.runs;
    static sk_atoms_bench b;
    cli_progress progress;
    cli_progress_init(&progress, "bench atoms");
    opt.progress = bench_progress_hook(&progress);
    int rc = sk_bench_atoms(&opt, &b, &err);
    cli_progress_done(&progress);
    if (rc != SK_OK)
        return cli_error(&err);
    if (common.csv) {
        common.source = inputs ? inputs : "."; /* where the files were: its filesystem */
        sk_report rep = {.atoms = &b};
        if (bench_csv(&common, &rep, b.threads, "warm") != CLI_OK)
            return CLI_FAIL;
    }
    return bench_print(common.json, &b, atoms_json, common.json ? NULL : sk_atoms_bench_text(&b));
}
