/* Exact sums per bin (binsum.h). */
#include "analysis/binsum.h"

#include "core/memory_big.h"
#include "snapkit/memory.h"

/* Bins per allocation: a large block (huge pages: few first-touch faults),
 * or every bin when they take less. */
static size_t block_bins(const an_binsums *b)
{
    size_t per = (size_t)b->nsum * sizeof(an_sum);
    size_t n = (SK_BIG_BLOCK + per - 1) / per;
    return n < b->nbins ? n : b->nbins;
}

int an_binsums_init(an_binsums *b, size_t nbins, int nsum, sk_error *err)
{
    memset(b, 0, sizeof *b);
    b->nbins = nbins;
    b->nsum = nsum;
    if (!(b->at = sk_calloc(nbins ? nbins : 1, sizeof *b->at)))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %zu bins", nbins);
    return SK_OK;
}

void an_binsums_free(an_binsums *b)
{
    for (int i = 0; i < b->nblocks; i++)
        sk_free(b->blocks[i]);
    sk_free(b->blocks);
    sk_free(b->at);
    memset(b, 0, sizeof *b);
}

an_sum *an_binsums_grow(an_binsums *b, size_t k)
{
    if (!b->left) {
        if (b->nblocks == b->cap_blocks) {
            int cap = b->cap_blocks ? 2 * b->cap_blocks : 16;
            an_sum **blocks = sk_realloc(b->blocks, (size_t)cap * sizeof *blocks);
            if (!blocks)
                return NULL;
            b->blocks = blocks;
            b->cap_blocks = cap;
        }
        size_t n = block_bins(b);
        an_sum *block = sk_calloc(n * (size_t)b->nsum, sizeof *block);
        if (!block)
            return NULL;
        b->blocks[b->nblocks++] = block;
        b->left = (int)n;
        b->block_n = n;
    }
    an_sum *s = b->blocks[b->nblocks - 1] + (b->block_n - (size_t)b->left) * (size_t)b->nsum;
    b->left--;
    return b->at[k] = s;
}

int an_binsums_merge(an_binsums *into, const an_binsums *from, sk_error *err)
{
    for (size_t k = 0; k < from->nbins; k++) {
        const an_sum *f = from->at[k];
        if (!f)
            continue;
        an_sum *t = an_binsums_get(into, k);
        if (!t)
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory merging bins");
        for (int i = 0; i < into->nsum; i++)
            an_sum_merge(&t[i], &f[i]);
    }
    return SK_OK;
}
