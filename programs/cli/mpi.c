/* The command line under MPI: one snapkit for plain runs and for mpirun
 * or srun. MPI starts only when a launcher's variables are present (or
 * SNAPKIT_MPI=1 asks for it), so a plain run never pays for it. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_mpi.h"
#include "snapkit/util/json.h"
#include "snapkit/util/mpi.h"

static sk_mpi_world g_world = {.rank = 0, .size = 1, .local_rank = 0, .local_size = 1};

/* Commands that divide their work among ranks, or whose every rank does
 * the same small thing (help, info). The others would have every rank
 * repeat the whole work, or race on one output file: refused for now. */
static int divides_work(const char *command)
{
    static const char *const k_ok[] = {"stats", "center", "project", "clumps", "convert",
                                       "bench ranks", "bench report", "threads", "info", "help",
                                       "profile", "phase", "slice",
                                       "--help", "-h", "--version", "version"};
    for (size_t i = 0; i < sizeof k_ok / sizeof k_ok[0]; i++)
        if (!strcmp(command, k_ok[i]))
            return 1;
    return 0;
}

static void silence(int fd)
{
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, fd);
        close(null);
    }
}

int cli_mpi_begin(const char *command)
{
    const char *ask = getenv("SNAPKIT_MPI");
    int asked = ask && !strcmp(ask, "1");
    if (!asked && (!sk_mpi_launched() || (ask && !strcmp(ask, "0"))))
        return CLI_OK;
    if (!sk_mpi_built()) {
        /* One process of several that cannot talk to the others: each
         * would do the whole work. Say so rather than repeat it N times. */
        if (asked)
            return cli_fail("SNAPKIT_MPI=1, but this snapkit was built without MPI");
        return CLI_OK;
    }
    sk_error err;
    sk_error_clear(&err);
    if (sk_mpi_start(&g_world, &err) != SK_OK)
        return cli_error(&err);
    if (g_world.rank > 0) {
        fflush(stdout);
        fflush(stderr);
        silence(STDOUT_FILENO);
        silence(STDERR_FILENO);
    }
    if (g_world.size > 1 && !divides_work(command)) {
        int rc = cli_fail("'snapkit %s' does not divide its work among MPI ranks yet (%d ranks "
                          "here): run it as one process (stats, center, project, profile, phase, slice, clumps, "
                          "convert, threads and info run under MPI)",
                          command, g_world.size);
        cli_mpi_end();
        return rc == CLI_FAIL ? CLI_USAGE : rc;
    }
    return CLI_OK;
}

void cli_mpi_end(void)
{
    fflush(stdout);
    fflush(stderr);
    sk_mpi_stop(&g_world);
    g_world.started_here = 0;
}

const sk_mpi_world *cli_mpi_world(void)
{
    return &g_world;
}

void cli_mpi_share(sk_read_options *opt)
{
    if (g_world.size > 1) {
        opt->share_rank = g_world.rank;
        opt->share_count = g_world.size;
    }
}

int cli_mpi_sum_read(cli_source_read *res, sk_error *err)
{
    res->ranks = g_world.size;
    if (res->table) /* a stream sets the rows' bytes itself */
        res->result_bytes = sk_table_bytes(res->table);
    if (g_world.size == 1)
        return SK_OK;
    int64_t sums[4] = {res->stats.files_opened, res->stats.bytes_read, res->result_bytes,
                       res->stats.bytes_allocated};
    int rc = sk_mpi_sum_int64(sums, 4, err);
    if (rc == SK_OK)
        rc = sk_mpi_max_double(&res->stats.seconds, 1, err);
    res->stats.files_opened = (int)sums[0];
    res->stats.bytes_read = sums[1];
    res->result_bytes = sums[2];
    res->stats.bytes_allocated = sums[3];
    return rc;
}

/* snapkit threads under several ranks: each rank's budget, on rank 0. */
int cli_mpi_threads(const sk_thread_budget *b, int json)
{
    enum { NF = 5 };
    const sk_mpi_world *w = &g_world;
    int mine[NF] = {w->local_rank, w->local_size, b->threads, b->owned, b->affinity};
    int *all = w->rank == 0 ? calloc((size_t)w->size * NF, sizeof *all) : NULL;
    sk_error err;
    sk_error_clear(&err);
    int rc = sk_mpi_agree(w->rank == 0 && !all ? SK_ERR_NOMEM : SK_OK, &err);
    if (rc == SK_OK)
        rc = sk_mpi_gather_int(mine, NF, all, &err);
    if (rc != SK_OK || w->rank > 0) {
        free(all);
        return rc == SK_OK ? CLI_OK : cli_error(&err);
    }
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_int(&j, "ranks", w->size);
    sk_json_kv_string(&j, "limited_by", b->limited_by);
    sk_json_kv_int(&j, "machine", b->machine);
    sk_json_key(&j, "per_rank");
    sk_json_array_begin(&j);
    for (int r = 0; r < w->size; r++) {
        const int *v = all + (size_t)r * NF;
        sk_json_object_begin(&j);
        sk_json_kv_int(&j, "rank", r);
        sk_json_kv_int(&j, "local_rank", v[0]);
        sk_json_kv_int(&j, "local_ranks", v[1]);
        sk_json_kv_int(&j, "threads", v[2]);
        sk_json_kv_int(&j, "owned", v[3]);
        sk_json_kv_int(&j, "affinity", v[4]);
        sk_json_object_end(&j);
        if (!json)
            printf("rank %d (%d of %d on its node): threads %d, owned %d, affinity %d\n", r,
                   v[0], v[1], v[2], v[3], v[4]);
    }
    sk_json_array_end(&j);
    sk_json_object_end(&j);
    if (json)
        cli_print_json(&j);
    else
        printf("set by %s (machine %d CPUs)\n", b->limited_by, b->machine);
    sk_json_free(&j);
    free(all);
    return CLI_OK;
}
