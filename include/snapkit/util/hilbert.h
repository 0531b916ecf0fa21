/* snapkit/util/hilbert.h - RAMSES's 3-D Hilbert curve and domain look-up.
 *
 * RAMSES orders space along a Hilbert curve on an integer grid of 2^bits
 * points per axis (bits = levelmax + 1 for nx = 1) and gives CPU domain d
 * the keys [bound_key[d-1], bound_key[d]). Keys here are exactly RAMSES's,
 * so a region can be mapped to the CPU files that hold it.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_HILBERT_H
#define SNAPKIT_HILBERT_H

#include "snapkit/export.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest bits for which keys fit in 63 bits. */
#define SK_HILBERT_MAX_BITS 21

/* Key of integer point (ix, iy, iz), each < 2^bits, 1 <= bits <= 21. */
SK_API uint64_t sk_hilbert3d(uint32_t ix, uint32_t iy, uint32_t iz, int bits);

/* RAMSES's hilbert2d: key of integer point (ix, iy), each < 2^bits,
 * 1 <= bits <= 31. (hilbert1d's key is ix itself.) */
SK_API uint64_t sk_hilbert2d(uint32_t ix, uint32_t iy, int bits);
/* Key of the point holding box-unit position (x, y, z) in [0,1)^3 on the
 * 2^bits grid (positions are clamped into the box). */
SK_API uint64_t sk_hilbert3d_point(double x, double y, double z, int bits);

/* Mark in cpu_mask[0..ncpu-1] (set to 1, never cleared) every CPU whose
 * domain holds a key of some point in the box [lo, hi) (box units).
 * bound_key has ndomain + 1 entries; domain d (1-based) belongs to CPU
 * (d - 1) % ncpu + 1. The box is covered by aligned cubes refined down to
 * 2^-max_level, so the answer is conservative and tight to that level.
 * Returns the number of CPUs marked by this call. */
SK_API int sk_hilbert_cpus_for_box(const double lo[3], const double hi[3], int bits,
                                   const double *bound_key, int ndomain, int ncpu, int max_level,
                                   uint8_t *cpu_mask);

#ifdef __cplusplus
}
#endif
#endif
