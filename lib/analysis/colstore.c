/* Rows of double columns kept in large blocks (colstore.h). */
#include "analysis/colstore.h"

#include <string.h>

#include "snapkit/memory.h"

void an_colstore_init(an_colstore *s, int ncols)
{
    memset(s, 0, sizeof *s);
    s->ncols = ncols;
}

void an_colstore_clear(an_colstore *s)
{
    for (int64_t b = 0; b < s->nblocks; b++)
        sk_free(s->blocks[b].base);
    sk_free(s->blocks);
    an_colstore_init(s, s->ncols);
}

/* Room for one more block descriptor. */
static int reserve(an_colstore *s)
{
    if (s->nblocks < s->cap)
        return 1;
    int64_t cap = s->cap ? 2 * s->cap : 16;
    an_colblock *nb = sk_realloc(s->blocks, sizeof *nb * (size_t)cap);
    if (!nb)
        return 0;
    s->blocks = nb;
    s->cap = cap;
    return 1;
}

an_colblock *an_colstore_room(an_colstore *s, int64_t n)
{
    if (s->nblocks) {
        an_colblock *last = &s->blocks[s->nblocks - 1];
        if (last->stride - last->n >= n)
            return last;
    }
    if (!reserve(s))
        return NULL;
    int64_t row = (int64_t)sizeof(double) * (s->ncols > 0 ? s->ncols : 1);
    int64_t cap = AN_COLSTORE_SLAB / row;
    cap = cap > n ? cap : n;
    an_colblock b = {.n = 0, .stride = cap, .base = sk_malloc((size_t)(cap * row))};
    if (!b.base)
        return NULL;
    s->blocks[s->nblocks] = b;
    return &s->blocks[s->nblocks++];
}
