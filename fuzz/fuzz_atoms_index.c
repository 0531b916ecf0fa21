/* libFuzzer: an index sidecar of arbitrary bytes beside a fixed dump must
 * be refused cleanly, or give offsets from which every frame reads or fails
 * cleanly. The dump's time is fixed so that the seed sidecar matches it. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapkit/snapkit.h"

static const char k_dump[] =
    "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 4\n0 4\n0 4\n"
    "ITEM: ATOMS id type x y z\n1 1 0.5 0.5 0.5\n2 1 1.5 2.5 3.5\n"
    "ITEM: TIMESTEP\n10\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS pp pp pp\n0 4\n0 4\n0 4\n"
    "ITEM: ATOMS id type x y z\n1 1 0.25 0.5 0.75\n";

static char g_dump[256], g_side[300];

static int setup(void)
{
    char dir[] = "/tmp/fuzz-atoms-index-XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    snprintf(g_dump, sizeof g_dump, "%s/traj.dump", dir);
    snprintf(g_side, sizeof g_side, "%s.skidx", g_dump);
    FILE *fp = fopen(g_dump, "w");
    if (!fp)
        return 0;
    fputs(k_dump, fp);
    fclose(fp);
    struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
    return utimensat(AT_FDCWD, g_dump, ts, 0) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready = -1;
    if (ready < 0)
        ready = setup();
    if (!ready)
        abort();
    FILE *fp = fopen(g_side, "w");
    if (!fp)
        abort();
    fwrite(data, 1, size, fp);
    fclose(fp);
    sk_atoms_file *f;
    sk_error e;
    if (sk_atoms_open(&f, g_dump, SK_ATOMS_DUMP, NULL, &e) != SK_OK)
        abort();
    if (sk_atoms_index_load(f, NULL, &e) == SK_OK) {
        int64_t n = 0;
        if (sk_atoms_index(f, &n, &e) != SK_OK)
            abort(); /* a loaded index is complete */
        for (int64_t k = 0; k < n; k++) {
            sk_table *t = NULL;
            sk_atoms_frame_info fi;
            if (sk_atoms_frame_info_get(f, k, &fi, &e) != SK_OK || fi.offset < 0)
                abort();
            if (sk_atoms_read_frame(f, k, &t, &e) == SK_OK)
                sk_table_free(t);
        }
    }
    sk_atoms_close(f);
    return 0;
}
