/* Inside the library: the domain look-up of snapkit/util/hilbert.h on the
 * curve of any dimension, which only the RAMSES reader needs. */
#ifndef SNAPKIT_CORE_HILBERT_H
#define SNAPKIT_CORE_HILBERT_H

#include <stdint.h>

#include "snapkit/util/hilbert.h"

/* Does the region meet the aligned cube [lo, hi] (box units; only the
 * first ndim axes mean anything)? -1: surely not, 1: the cube lies in it
 * wholly, 0: unsure. -1 must never be wrong. */
typedef int (*sk_hilbert_cube_test)(void *ctx, const double lo[3], const double hi[3]);

/* sk_hilbert_cpus_for_box on the ndim-D curve of a 1-D, 2-D or 3-D output
 * (hilbert1d, hilbert2d, hilbert3d; only the first ndim axes of lo and hi
 * are read), narrowed to a region inside the box: the cubes `test` puts
 * outside are dropped, those it is unsure of are split down to max_level,
 * then marked (conservative). test NULL: the box alone. */
int sk_hilbert_cpus_for_region_nd(int ndim, const double lo[3], const double hi[3], int bits,
                                  const double *bound_key, int ndomain, int ncpu, int max_level,
                                  sk_hilbert_cube_test test, void *test_ctx, uint8_t *cpu_mask);

#endif
