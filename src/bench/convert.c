/* Whether converting to the compact file pays. */
#include <math.h>

#include "snapkit/bench.h"

void sk_convert_derive(sk_convert_bench *c)
{
    c->speedup = c->reread_seconds > 0 ? c->read_seconds / c->reread_seconds : INFINITY;
    /* The first use reads the source either way; converting adds the
     * write, and each later use saves read - reread. */
    double saved = c->read_seconds - c->reread_seconds;
    c->break_even_rereads = saved > 0 ? c->write_seconds / saved : INFINITY;
}
