/* snapkit/read.h - options and statistics of a table read.
 *
 * The same for every reader (RAMSES outputs with sk_ramses_read, compact
 * files with sk_store_read), so neither reader owns them.
 */
#ifndef SNAPKIT_READ_H
#define SNAPKIT_READ_H

#include <stdint.h>

#include "snapkit/progress.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_read_options {
    int threads;           /* 0: the whole thread budget */
    sk_progress progress;  /* optional */
    int with_refined;      /* cells: also return refined (non-leaf) cells, with a uint8
                              column `refined` = 1 for them and 0 for leaves; lmax then
                              keeps levels <= lmax */
    int share_rank;        /* with share_count > 1: read only share share_rank (0-based) */
    int share_count;       /* of share_count contiguous shares of the source (MPI ranks):
                              RAMSES CPU files in CPU (Hilbert) order balanced by their
                              bytes, or a compact file's chunks balanced by their stored
                              bytes. Concatenated in rank order, the shares' tables are
                              the whole read's. 0 or 1: everything */
} sk_read_options;

typedef struct sk_read_stats {
    int files_opened;      /* CPU domains read (a region opens only those it touches) */
    int64_t bytes_read;    /* bytes of binary files read */
    double seconds;        /* wall time of the read */
    int64_t bytes_allocated; /* bytes the library allocated during the read */
} sk_read_stats;

#ifdef __cplusplus
}
#endif
#endif
