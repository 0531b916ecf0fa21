/* Signed exact sums (xsum.h): merging, rounding, and the sum over ranks. */
#include "analysis/xsum.h"

#include <math.h>

#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"

void an_sum_merge(an_sum *a, const an_sum *b)
{
    xs_merge(&a->pos, &b->pos);
    xs_merge(&a->neg, &b->neg);
    a->nan += b->nan;
}

void an_bins_flush(an_bins *b, an_sum *s)
{
    xs_bins_move(b->bins, b->used, 0, &s->pos, &s->neg);
    xs_bins_zero(b->bins, b->used);
    b->used = 0;
}

double an_sum_value(const an_sum *s)
{
    return s->nan ? NAN : xs_round(&s->pos, &s->neg, -1);
}

/* int64 values per accumulator: each side's digits and infinities, and
 * the NaN count. */
enum { PER_SIDE = XS_DIGITS + 1, PER_SUM = 2 * PER_SIDE + 1 };

static void pack_side(xs_acc *a, int64_t *out)
{
    xs_normalize(a); /* digits below 2^32: a sum over 2^31 ranks fits in int64 */
    memcpy(out, a->d, sizeof a->d);
    out[XS_DIGITS] = a->inf;
}

static void unpack_side(xs_acc *a, const int64_t *in)
{
    memcpy(a->d, in, sizeof a->d);
    a->inf = in[XS_DIGITS];
    xs_normalize(a); /* each digit holds up to one normalised digit a rank */
}

int an_sums_reduce(an_sum *s, int n, sk_error *err)
{
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size <= 1)
        return SK_OK;
    int64_t *v = sk_malloc(sizeof *v * PER_SUM * (size_t)n);
    if (!v)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int i = 0; i < n; i++) {
        pack_side(&s[i].pos, v + PER_SUM * i);
        pack_side(&s[i].neg, v + PER_SUM * i + PER_SIDE);
        v[PER_SUM * i + 2 * PER_SIDE] = s[i].nan;
    }
    int rc = sk_mpi_sum_int64(v, PER_SUM * n, err);
    for (int i = 0; rc == SK_OK && i < n; i++) {
        unpack_side(&s[i].pos, v + PER_SUM * i);
        unpack_side(&s[i].neg, v + PER_SUM * i + PER_SIDE);
        s[i].nan = v[PER_SUM * i + 2 * PER_SIDE];
    }
    sk_free(v);
    return rc;
}
