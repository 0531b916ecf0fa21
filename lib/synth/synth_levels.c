/* The octs one CPU holds, level by level, as RAMSES builds them.
 *
 * RAMSES refines a cell on CPU p when the cell is refined and p is
 * authorised for it (authorize_fine in amr/virtual_boundaries.f90): every
 * cell of p's own octs; every ghost cell whose Hilbert key range meets p's
 * domain; then a dilation over ghost cells that have at least 1, then 2,
 * then 3 authorised face neighbours (nexpand_bound = 1, ndim = 3 steps).
 * Level 1 (the root oct) is on every CPU. Applied level by level to the
 * global tree this rule gives exactly the octs of every file of the
 * reference RAMSES outputs (sedov3d, gravpart, manyfiles, 8 and 64 CPUs). */
#include <string.h>

#include "synth/synth_internal.h"
#include "snapkit/util/hilbert.h"
#include "snapkit/memory.h"

void synth_level_free(synth_level *L)
{
    sk_free(L->o);
    sk_free(L->key);
    sk_free(L->owner);
    sk_free(L->parent);
    sk_free(L->pind);
    sk_free(L->ckey);
    sk_free(L->cpu);
    sk_free(L->flag);
    sk_free(L->son);
    sk_free(L->hkey);
    sk_free(L->hval);
    memset(L, 0, sizeof *L);
}

#define GROW(ptr, count)                                                          \
    do {                                                                          \
        void *fresh_ = sk_realloc((ptr), (size_t)(count) * sizeof *(ptr));        \
        if (!fresh_)                                                              \
            return SK_ERR_NOMEM;                                                  \
        (ptr) = fresh_;                                                           \
    } while (0)

static int reserve_arrays(synth_level *L, int64_t cap)
{
    GROW(L->o, 3 * cap);
    GROW(L->key, cap);
    GROW(L->owner, cap);
    GROW(L->parent, cap);
    GROW(L->pind, cap);
    GROW(L->ckey, 8 * cap);
    GROW(L->cpu, 8 * cap);
    GROW(L->flag, 8 * cap);
    GROW(L->son, 8 * cap);
    L->cap = cap;
    return SK_OK;
}

static int reserve(synth_level *L, int64_t n, sk_error *err)
{
    if (n <= L->cap)
        return SK_OK;
    int64_t cap = L->cap ? L->cap : 64;
    while (cap < n)
        cap *= 2;
    if (reserve_arrays(L, cap))
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for %lld octs", (long long)n);
    return SK_OK;
}

static uint64_t pack(uint32_t x, uint32_t y, uint32_t z)
{
    return ((uint64_t)x | (uint64_t)y << 21 | (uint64_t)z << 42) + 1;
}

static uint64_t slot_of(uint64_t packed, int64_t cap)
{
    return (packed * 0x9e3779b97f4a7c15ull >> 17) & (uint64_t)(cap - 1);
}

static int build_hash(synth_level *L, sk_error *err)
{
    int64_t cap = 16;
    while (cap < 2 * L->n)
        cap *= 2;
    if (cap > L->hcap) {
        sk_free(L->hkey);
        sk_free(L->hval);
        L->hkey = sk_malloc((size_t)cap * sizeof *L->hkey);
        L->hval = sk_malloc((size_t)cap * sizeof *L->hval);
        if (!L->hkey || !L->hval) {
            L->hcap = 0;
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for the oct index");
        }
        L->hcap = cap;
    }
    memset(L->hkey, 0, (size_t)L->hcap * sizeof *L->hkey);
    for (int64_t i = 0; i < L->n; i++) {
        uint64_t k = pack(L->o[3 * i], L->o[3 * i + 1], L->o[3 * i + 2]);
        uint64_t s = slot_of(k, L->hcap);
        while (L->hkey[s])
            s = (s + 1) & (uint64_t)(L->hcap - 1);
        L->hkey[s] = k;
        L->hval[s] = (int32_t)i;
    }
    return SK_OK;
}

int64_t synth_level_find(const synth_level *L, uint32_t x, uint32_t y, uint32_t z)
{
    uint64_t k = pack(x, y, z);
    for (uint64_t s = slot_of(k, L->hcap);; s = (s + 1) & (uint64_t)(L->hcap - 1)) {
        if (L->hkey[s] == k)
            return L->hval[s];
        if (!L->hkey[s])
            return -1;
    }
}

int synth_level_root(synth_level *L, const synth_plan *p, sk_error *err)
{
    int rc = reserve(L, 1, err);
    if (rc)
        return rc;
    L->n = 1;
    L->o[0] = L->o[1] = L->o[2] = 0;
    L->key[0] = 0;
    L->owner[0] = p->root_cpu;
    L->parent[0] = -1;
    L->pind[0] = 0;
    return build_hash(L, err);
}

static void cell_coords(const synth_level *L, int64_t i, int c, uint32_t out[3])
{
    out[0] = 2 * L->o[3 * i] + (uint32_t)(c & 1);
    out[1] = 2 * L->o[3 * i + 1] + (uint32_t)((c >> 1) & 1);
    out[2] = 2 * L->o[3 * i + 2] + (uint32_t)((c >> 2) & 1);
}

/* Authorised face neighbours of cell (i, c), among the octs of this set. */
static int authorised_neighbours(const synth_level *L, int level, int64_t i, int c)
{
    uint32_t cc[3];
    cell_coords(L, i, c, cc);
    uint32_t mask = (1u << level) - 1u;
    int count = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int step = -1; step <= 1; step += 2) {
            uint32_t n[3] = {cc[0], cc[1], cc[2]};
            n[axis] = (n[axis] + (uint32_t)step) & mask;
            int64_t j = i;
            if ((n[axis] >> 1) != L->o[3 * i + axis])
                j = synth_level_find(L, n[0] >> 1, n[1] >> 1, n[2] >> 1);
            if (j < 0)
                continue;
            int nc = (int)((n[0] & 1) | (n[1] & 1) << 1 | (n[2] & 1) << 2);
            count += (L->flag[8 * j + nc] & SYNTH_AUTH) != 0;
        }
    return count;
}

static void dilate(synth_level *L, int level, int cpu)
{
    for (int threshold = 1; threshold <= 3; threshold++) {
        for (int64_t i = 0; i < L->n; i++) {
            if (L->owner[i] == cpu)
                continue;
            for (int c = 0; c < 8; c++)
                if (!(L->flag[8 * i + c] & SYNTH_AUTH) &&
                    authorised_neighbours(L, level, i, c) >= threshold)
                    L->flag[8 * i + c] |= SYNTH_PENDING;
        }
        for (int64_t i = 0; i < 8 * L->n; i++)
            if (L->flag[i] & SYNTH_PENDING)
                L->flag[i] = (uint8_t)((L->flag[i] & ~SYNTH_PENDING) | SYNTH_AUTH);
    }
}

void synth_level_classify(synth_level *L, const synth_plan *p, int level, int cpu)
{
    uint64_t lo = p->bound_key[cpu - 1], hi = p->bound_key[cpu];
    int shift = 3 * (p->bits - level);
    for (int64_t i = 0; i < L->n; i++) {
        int own = L->owner[i] == cpu;
        for (int c = 0; c < 8; c++) {
            uint32_t cc[3];
            cell_coords(L, i, c, cc);
            uint64_t key = sk_hilbert3d(cc[0], cc[1], cc[2], level);
            size_t k = (size_t)(8 * i + c);
            L->ckey[k] = key;
            L->cpu[k] = synth_cell_cpu(p, level, cc[0], cc[1], cc[2], key);
            uint8_t f = synth_refined(&p->model, level, cc[0], cc[1], cc[2]) ? SYNTH_REFINED : 0;
            if (own || ((key + 1) << shift > lo && key << shift < hi))
                f |= SYNTH_AUTH;
            L->flag[k] = f;
        }
    }
    if (level < p->levelmax)
        dilate(L, level, cpu);
}

int synth_level_children(synth_level *L, synth_level *next, sk_error *err)
{
    int64_t count = 0;
    for (int64_t k = 0; k < 8 * L->n; k++)
        count += (L->flag[k] & (SYNTH_REFINED | SYNTH_AUTH)) == (SYNTH_REFINED | SYNTH_AUTH);
    int rc = reserve(next, count, err);
    if (rc)
        return rc;
    next->n = 0;
    for (int64_t i = 0; i < L->n; i++) {
        /* This oct's cells in Hilbert order keep the next level sorted. */
        int order[8];
        const uint64_t *ck = L->ckey + 8 * i;
        for (int c = 0; c < 8; c++) {
            int j = c;
            for (; j > 0 && ck[order[j - 1]] > ck[c]; j--)
                order[j] = order[j - 1];
            order[j] = c;
        }
        for (int r = 0; r < 8; r++) {
            int c = order[r];
            size_t k = (size_t)(8 * i + c);
            L->son[k] = -1;
            if ((L->flag[k] & (SYNTH_REFINED | SYNTH_AUTH)) != (SYNTH_REFINED | SYNTH_AUTH))
                continue;
            int64_t j = next->n++;
            uint32_t cc[3];
            cell_coords(L, i, c, cc);
            memcpy(next->o + 3 * j, cc, sizeof cc);
            next->key[j] = L->ckey[k];
            next->owner[j] = L->cpu[k];
            next->parent[j] = (int32_t)i;
            next->pind[j] = (uint8_t)c;
            L->son[k] = (int32_t)j;
        }
    }
    return build_hash(next, err);
}
