/* Cell volumes per level (cellvol.h). */
#include "core/cellvol.h"

#include <math.h>
#include <string.h>

int core_cell_volumes(const sk_table *t, double *per_level, int max_level)
{
    const sk_column *lev = sk_table_find(t, "level");
    const char *kind = sk_table_meta_get(t, "kind");
    if (!lev || lev->type != SK_INT32 || (kind && strcmp(kind, "cells") != 0))
        return -1;
    double boxlen = sk_table_meta_double(t, "boxlen", 1.0);
    double ndim = sk_table_meta_double(t, "ndim", 3.0);
    int nd = ndim == 1.0 || ndim == 2.0 ? (int)ndim : 3;
    for (int l = 0; l <= max_level; l++) {
        double size = ldexp(boxlen, -l);
        per_level[l] = nd == 1 ? size : nd == 2 ? size * size : size * size * size;
    }
    return sk_table_index(t, "level");
}
