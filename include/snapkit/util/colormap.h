/* snapkit/util/colormap.h - the colour map of snapkit's pictures (maps as
 * PNG, figures): viridis (van der Walt and Smith, 2015).
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_UTIL_COLORMAP_H
#define SNAPKIT_UTIL_COLORMAP_H

#include "snapkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The viridis colour of t in [0, 1] (clamped) as RGB bytes. */
SK_API void sk_viridis(double t, unsigned char rgb[3]);

#ifdef __cplusplus
}
#endif

#endif
