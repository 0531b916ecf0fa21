/* snapkit/snapkit.h - the whole public API.
 *
 * snapkit reads RAMSES outputs and atomistic files into columnar tables,
 * stores them in compact indexed files, and projects them onto maps.
 * Each module has its own header; this one includes them all. The general
 * helpers (JSON, atomic files, .npy, ...) are the utility tier,
 * snapkit/util.h, outside the snapshot API and not included here.
 */
#ifndef SNAPKIT_H
#define SNAPKIT_H

#include "snapkit/export.h"

#define SK_VERSION_MAJOR 0
#define SK_VERSION_MINOR 1
#define SK_VERSION_PATCH 0

#include "snapkit/abi.h"
#include "snapkit/error.h"
#include "snapkit/memory.h"
#include "snapkit/threads.h"
#include "snapkit/table.h"
#include "snapkit/units.h"
#include "snapkit/select.h"
#include "snapkit/progress.h"
#include "snapkit/colstats.h"
#include "snapkit/wstats.h"
#include "snapkit/read.h"
#include "snapkit/cosmology.h"
#include "snapkit/ramses.h"
#include "snapkit/run.h"
#include "snapkit/store.h"
#include "snapkit/stream.h"
#include "snapkit/convert.h"
#include "snapkit/profile.h"
#include "snapkit/project.h"
#include "snapkit/cube.h"
#include "snapkit/atoms.h"
#include "snapkit/atoms_traj.h"
#include "snapkit/synth.h"
#include "snapkit/clumps.h"
#include "snapkit/source.h"
#include "snapkit/derive.h"
#include "snapkit/totals.h"
#include "snapkit/center.h"
#include "snapkit/clip.h"
#include "snapkit/bins.h"
#include "snapkit/phase.h"
#include "snapkit/h5export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "0.1.0" */
SK_API const char *sk_version(void);

#ifdef __cplusplus
}
#endif
#endif
