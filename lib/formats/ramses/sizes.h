/* The sizes of an output's CPU files, which divide reads among ranks:
 * what mpi_sizes.c needs of the reader to stat them on one rank and hand
 * them to the others. */
#ifndef SNAPKIT_FORMATS_RAMSES_SIZES_H
#define SNAPKIT_FORMATS_RAMSES_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/ramses.h"

/* The number of file sizes rs_file_sizes fills: (RS_CLUMPS + 1) x ncpu. */
size_t rs_file_sizes_count(const sk_ramses *r);
/* Stat every CPU file of every per-CPU kind into sizes[rs_file_sizes_count]
 * (0 for a missing file; a kind whose first file is missing is not looked
 * for further). */
void rs_file_sizes(const sk_ramses *r, int64_t *sizes);
/* Keep sizes (sk_malloc'd, rs_file_sizes' layout; the handle frees it)
 * for dividing reads instead of statting the files. */
void rs_set_file_sizes(sk_ramses *r, int64_t *sizes);
/* The output's folder, as given to sk_ramses_open (for messages). */
const char *rs_dir(const sk_ramses *r);

#endif
