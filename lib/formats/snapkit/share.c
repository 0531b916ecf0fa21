/* One share of a stored table's chunks (sk_read_options.share_rank of
 * share_count): a contiguous range of chunk indices balanced by their
 * stored bytes, the same on every rank since every rank reads the same
 * footer. The chunks of a cell table are in Hilbert order, so a share is a
 * compact piece of the volume as a RAMSES CPU file is. */
#include "formats/snapkit/plan.h"

static int64_t chunk_bytes(const st_table *t, int64_t ci)
{
    int64_t b = 0;
    for (int j = 0; j < t->ncols; j++)
        b += st_cc_at(t, ci, j)->stored;
    return b > 0 ? b : 1;
}

/* The rank holding the middle byte of a chunk: non-decreasing in ci. */
static int owner(int64_t before, int64_t bytes, int64_t total, int count)
{
    double mid = (double)before + 0.5 * (double)bytes;
    int o = (int)((double)count * mid / (double)total);
    return o < 0 ? 0 : o >= count ? count - 1 : o;
}

void st_plan_share(st_plan *p, const st_table *t, int rank, int count)
{
    if (count <= 1 || t->nchunks == 0)
        return;
    int64_t total = 0;
    for (int64_t ci = 0; ci < t->nchunks; ci++)
        total += chunk_bytes(t, ci);
    /* Owner of each planned chunk from the running byte count up to it;
     * planned chunks are in increasing chunk order. */
    int64_t before = 0, next = 0, kept = 0;
    for (int64_t i = 0; i < p->nchunks; i++) {
        int64_t ci = p->chunks[i].ci;
        for (; next < ci; next++)
            before += chunk_bytes(t, next);
        if (owner(before, chunk_bytes(t, ci), total, count) == rank)
            p->chunks[kept++] = p->chunks[i];
    }
    p->nchunks = kept;
}
