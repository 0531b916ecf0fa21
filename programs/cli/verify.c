/* snapkit verify: a .snapkit file against its checksums and, given the
 * RAMSES output it came from, against that output. */
#include <string.h>

#include "store_cli.h"

static const char k_help[] =
    "usage: snapkit verify [OUTPUT_DIR] FILE.snapkit [--threads N]\n\n"
    "Check every checksum of FILE.snapkit and that every chunk decodes to the sizes,\n"
    "bounds and statistics its index records. Given OUTPUT_DIR, also read each table's\n"
    "component from the RAMSES output with the selection recorded in the file and check\n"
    "that the file holds exactly those rows (bit for bit, in any order) and metadata.\n"
    "Exit status 0 when all is well; otherwise one line saying what differs.\n\n"
    "  --threads N           use at most N threads (default: the job's budget)\n";

int cmd_verify(int argc, char **argv)
{
    const char *args[2] = {NULL, NULL};
    int nargs = 0;
    long long threads = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_help(argv[i], k_help)) {
            return CLI_OK;
        } else if (cli_is(argv[i], "--threads")) {
            if (cli_int_value(argc, argv, &i, &threads))
                return CLI_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("verify", "unknown option '%s'", argv[i]);
        } else if (nargs == 2) {
            return cli_usage("verify", "too many arguments ('%s')", argv[i]);
        } else {
            args[nargs++] = argv[i];
        }
    }
    if (nargs == 0)
        return cli_usage("verify", "missing FILE.snapkit");
    const char *dir = nargs == 2 ? args[0] : NULL, *path = args[nargs - 1];
    sk_error err;
    sk_error_clear(&err);
    sk_store *s;
    if (sk_store_open(&s, path, NULL, &err) != SK_OK)
        return cli_error(&err);
    double t0 = cli_now();
    cli_progress prog;
    cli_progress_init(&prog, "checking");
    int rc = sk_store_verify(s, (int)threads, cli_progress_hook(&prog), &err);
    cli_progress_done(&prog);
    int same = 1;
    char why[1024] = "";
    if (rc == SK_OK && dir)
        rc = sk_store_check_source(s, dir, (int)threads, &same, why, sizeof why, &err);
    sk_store_file_info fi;
    sk_store_get_file_info(s, &fi);
    int64_t chunks = 0;
    for (int i = 0; i < fi.ntables; i++) {
        sk_store_table_info ti;
        sk_store_get_table_info(s, i, &ti, NULL);
        chunks += ti.chunks;
    }
    sk_store_close(s);
    if (rc != SK_OK)
        return cli_error(&err);
    if (!same)
        return cli_fail("%s differs from %s: %s", path, dir, why);
    printf("%s: %d tables, %lld chunks, every checksum good%s%s in %.2f s\n", path, fi.ntables,
           (long long)chunks, dir ? "; same data as " : "", dir ? dir : "", cli_now() - t0);
    return CLI_OK;
}
