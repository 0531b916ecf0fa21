/* snapkit atoms: several inputs as one trajectory, frame slices, the index
 * listing. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atoms_frames.h"
#include "cli.h"

static int add_path(atoms_input *in, const char *p)
{
    char **bigger = realloc(in->paths, (size_t)(in->npaths + 1) * sizeof *bigger);
    if (!bigger)
        return cli_fail("out of memory");
    in->paths = bigger;
    if (!(in->paths[in->npaths] = strdup(p)))
        return cli_fail("out of memory");
    in->npaths++;
    return CLI_OK;
}

/* A pattern that names no file is expanded (the shell did not, because it
 * was quoted). */
static int expand(atoms_input *in, const char *arg)
{
    struct stat st;
    if (!strpbrk(arg, "*?[") || stat(arg, &st) == 0)
        return add_path(in, arg);
    glob_t g;
    int rc = glob(arg, 0, NULL, &g);
    if (rc == GLOB_NOMATCH)
        return cli_fail("%s: no file matches this pattern", arg);
    if (rc != 0)
        return cli_fail("%s: cannot expand this pattern", arg);
    for (size_t i = 0; i < g.gl_pathc && rc == CLI_OK; i++)
        rc = add_path(in, g.gl_pathv[i]);
    globfree(&g);
    return rc;
}

int atoms_input_open(atoms_input *in, const char *const *args, int nargs, sk_atoms_format from,
                     const sk_atoms_options *opts, int index, const char *frames)
{
    memset(in, 0, sizeof *in);
    int rc = CLI_OK;
    for (int i = 0; i < nargs && rc == CLI_OK; i++)
        rc = expand(in, args[i]);
    if (rc != CLI_OK)
        return rc;
    sk_error err, stale;
    if (sk_atoms_traj_open(&in->traj, (const char *const *)in->paths, in->npaths, from, opts,
                           index, &stale, &err) != SK_OK)
        return cli_error(&err);
    if (stale.code != SK_OK)
        fprintf(stderr, "snapkit atoms: %s: rebuilt\n", stale.message);
    int64_t n = sk_atoms_traj_count(in->traj);
    if (!frames) {
        in->start = 0;
        in->step = 1;
        in->count = n;
        return CLI_OK;
    }
    int rc2 = sk_atoms_slice(frames, n, &in->start, &in->step, &in->count, &err);
    if (rc2 == SK_ERR_RANGE)
        return cli_error(&err);
    if (rc2 != SK_OK)
        return cli_usage("atoms", "--frames: %s", err.message);
    return CLI_OK;
}

void atoms_input_close(atoms_input *in)
{
    sk_atoms_traj_close(in->traj);
    for (int i = 0; i < in->npaths; i++)
        free(in->paths[i]);
    free(in->paths);
    memset(in, 0, sizeof *in);
}

void atoms_print_index(const atoms_input *in)
{
    printf("%-8s %-12s %-10s %-14s %-10s %s\n", "frame", "timestep", "atoms", "offset", "line",
           "file");
    for (int64_t i = 0; i < in->count; i++) {
        int64_t k = in->start + i * in->step, file_frame;
        const char *path;
        sk_atoms_frame_info fi;
        sk_atoms_traj_frame(in->traj, k, &path, &file_frame, &fi);
        char step[24] = "-";
        if (fi.timestep != SK_ATOMS_NO_TIMESTEP)
            snprintf(step, sizeof step, "%lld", (long long)fi.timestep);
        printf("%-8lld %-12s %-10lld %-14lld %-10lld %s\n", (long long)k, step,
               (long long)fi.natoms, (long long)fi.offset, (long long)fi.line, path);
    }
}
