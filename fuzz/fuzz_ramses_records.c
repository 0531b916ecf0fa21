/* libFuzzer: the Fortran record reader and the amr/hydro cell walk.
 *
 * Input: byte 0 picks ncpu (1..4) and the file's CPU, byte 1 levelmax
 * (1..8) and levelmin, bytes 2-3 (little-endian) where the amr file ends;
 * the rest is the amr file followed by the hydro file. Every record of both
 * is also walked with the plain record reader. */
#include <stdint.h>
#include <string.h>

#include "formats/ramses/fortran.h"
#include "formats/ramses/internal.h"
#include "snapkit/memory.h"

static void walk_records(const uint8_t *data, size_t size)
{
    fr_cursor c;
    fr_init(&c, "fuzz", data, size);
    const uint8_t *p;
    size_t len;
    sk_error err;
    while (c.pos < c.size && fr_next(&c, &p, &len, &err) == SK_OK) {
        int64_t v;
        fr_cursor one = {"fuzz", p - 4, len + 8, 0, 0};
        fr_int_any(&one, &v, NULL, &err);
    }
    fr_init(&c, "fuzz", data, size);
    fr_skip_sized(&c, 3, 4, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    size_t split = (size_t)data[2] | ((size_t)data[3] << 8);
    const uint8_t *files = data + 4;
    size_t rest = size - 4;
    if (split > rest)
        split = rest;
    sk_ramses_info info;
    memset(&info, 0, sizeof info);
    info.ncpu = 1 + (data[0] & 3);
    info.levelmax = 1 + (data[1] & 7);
    info.levelmin = 1 + ((data[1] >> 3) & 7) % info.levelmax;
    info.ndim = 3;
    int icpu = 1 + ((data[0] >> 2) & 3) % info.ncpu;
    /* Copies, so reads past either part's end are caught. */
    uint8_t *amr = sk_malloc(split ? split : 1), *hydro = sk_malloc(rest - split + 1);
    memcpy(amr, files, split);
    memcpy(hydro, files + split, rest - split);
    walk_records(amr, split);
    walk_records(hydro, rest - split);
    int64_t n;
    sk_error err;
    rs_cells_from_memory(amr, split, hydro, rest - split, &info, icpu, &n, &err);
    sk_free(amr);
    sk_free(hydro);
    return 0;
}
