/* Inside the library: the domain look-up of snapkit/util/hilbert.h on the
 * curve of any dimension, which only the RAMSES reader needs. */
#ifndef SNAPKIT_CORE_HILBERT_H
#define SNAPKIT_CORE_HILBERT_H

#include <stdint.h>

#include "snapkit/util/hilbert.h"

/* sk_hilbert_cpus_for_box on the ndim-D curve of a 1-D, 2-D or 3-D output
 * (hilbert1d, hilbert2d, hilbert3d); only the first ndim axes of lo and hi
 * are read. */
int sk_hilbert_cpus_for_box_nd(int ndim, const double lo[3], const double hi[3], int bits,
                               const double *bound_key, int ndomain, int ncpu, int max_level,
                               uint8_t *cpu_mask);

#endif
