/* snapkit/util.h - the utility tier, every header of include/snapkit/util/.
 *
 * General helpers the library, its programs and its tests share (JSON,
 * atomic files, .npy and FITS tables, PNG colours, numbers, Hilbert keys,
 * MPI, ...). They are exported from libsnapkit but are not covered by the
 * snapshot API's stability promise (snapkit/snapkit.h), and snapkit.h
 * does not include them.
 */
#ifndef SNAPKIT_UTIL_H
#define SNAPKIT_UTIL_H

#include "snapkit/util/atomicfile.h"
#include "snapkit/util/clock.h"
#include "snapkit/util/colormap.h"
#include "snapkit/util/fits.h"
#include "snapkit/util/hilbert.h"
#include "snapkit/util/json.h"
#include "snapkit/util/lazylib.h"
#include "snapkit/util/mpi.h"
#include "snapkit/util/npy.h"
#include "snapkit/util/number.h"
#include "snapkit/util/text.h"
#include "snapkit/util/thp.h"

#endif
