/* The volume of a cell at each level of a cell table, for the statistics
 * that weigh cells by volume or mass (colstats, wstats). */
#ifndef SNAPKIT_CORE_CELLVOL_H
#define SNAPKIT_CORE_CELLVOL_H

#include "snapkit/table.h"

/* When t is a cell table (an int32 level column, kind "cells" or none):
 * per_level[l] = (boxlen / 2^l)^ndim for l = 0..max_level (a 1-D or 2-D
 * output's cell "volume" is its length or area) and the level column's
 * index is returned; else -1 and per_level is untouched. */
int core_cell_volumes(const sk_table *t, double *per_level, int max_level);

#endif
