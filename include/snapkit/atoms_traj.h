/* snapkit/atoms_traj.h - trajectories: the frame index of a dump or
 * extended-XYZ file, its sidecar file, and several files read as one.
 *
 * Indexing walks the file once, reading each frame's header lines and
 * skipping its atom lines by counting line ends (no number is parsed);
 * afterwards frame k is found in O(1) for as long as the handle is open.
 * The index can be kept beside the trajectory in a small sidecar file
 * (NAME.skidx, written atomically), which holds the trajectory's size,
 * modification time and a hash of its first and last 4 KiB; a sidecar that
 * no longer matches is ignored and rebuilt. A gzip-compressed file is
 * inflated into memory once when opened; its index then gives offsets into
 * the inflated bytes.
 */
#ifndef SNAPKIT_ATOMS_TRAJ_H
#define SNAPKIT_ATOMS_TRAJ_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/atoms.h"
#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SK_ATOMS_NO_TIMESTEP INT64_MIN

typedef struct sk_atoms_frame_info {
    int64_t offset;   /* byte of the (inflated) file where the frame starts */
    int64_t line;     /* the number of its first line (1-based) */
    int64_t natoms;   /* atom count */
    int64_t timestep; /* dump ITEM: TIMESTEP; SK_ATOMS_NO_TIMESTEP when none */
} sk_atoms_frame_info;

/* Find every frame of f (one pass; a data file has one) and give their
 * count. Later reads of any frame go straight to it. */
SK_API int sk_atoms_index(sk_atoms_file *f, int64_t *nframes, sk_error *err);

/* Where frame k starts, its atom count and timestep (k < 0 counts from the
 * end); indexes f first when needed. SK_ERR_RANGE when there is no frame k. */
SK_API int sk_atoms_frame_info_get(sk_atoms_file *f, int64_t k, sk_atoms_frame_info *out,
                                   sk_error *err);

/* The default sidecar name of a trajectory: path + ".skidx" (sk_malloc'd;
 * NULL when out of memory). */
SK_API char *sk_atoms_sidecar_name(const char *path);

/* Write f's complete index (indexing first when needed) to sidecar (NULL:
 * the default name), atomically. SK_ERR_ARG for a file opened from memory. */
SK_API int sk_atoms_index_save(sk_atoms_file *f, const char *sidecar, sk_error *err);

/* Take f's index from sidecar (NULL: the default name). SK_ERR_IO when it
 * cannot be read (absent); SK_ERR_CHECKSUM when it was made for another
 * version of the file (size, time or content differ: the message says
 * which); SK_ERR_FORMAT, naming the sidecar and the byte offset, when it is
 * malformed. f's index is unchanged unless SK_OK. */
SK_API int sk_atoms_index_load(sk_atoms_file *f, const char *sidecar, sk_error *err);

/* Use the sidecar when it matches, else index f and write it. *stale (may
 * be NULL) gets SK_ERR_CHECKSUM and the reason when a sidecar was there but
 * no longer matched (and was rewritten), SK_OK otherwise. A malformed
 * sidecar is an error (not overwritten). */
SK_API int sk_atoms_index_sidecar(sk_atoms_file *f, const char *sidecar, sk_error *stale,
                                  sk_error *err);

/* ---- several files as one trajectory ---------------------------------- */

typedef struct sk_atoms_traj sk_atoms_traj;

/* Index npaths files (each through its sidecar when use_sidecar) as one
 * trajectory: their frames in file order, or, when there are several files
 * and every frame has a timestep, in timestep order (ties keep file order).
 * One file is kept open at a time. *stale as for sk_atoms_index_sidecar
 * (the last stale sidecar). */
SK_API int sk_atoms_traj_open(sk_atoms_traj **out, const char *const *paths, int npaths,
                              sk_atoms_format format, const sk_atoms_options *opts,
                              int use_sidecar, sk_error *stale, sk_error *err);
SK_API void sk_atoms_traj_close(sk_atoms_traj *t);

SK_API int64_t sk_atoms_traj_count(const sk_atoms_traj *t);
/* Format of the first file. */
SK_API sk_atoms_format sk_atoms_traj_format(const sk_atoms_traj *t);
/* Frame k's place: its file (borrowed), the frame within it and its facts.
 * SK_ERR_RANGE when there is no frame k (k >= 0 only). */
SK_API int sk_atoms_traj_frame(const sk_atoms_traj *t, int64_t k, const char **path,
                               int64_t *file_frame, sk_atoms_frame_info *info);
/* Frame k (negative counts from the end) as a new table; its "frame"
 * metadata is k in the trajectory. */
SK_API int sk_atoms_traj_read(sk_atoms_traj *t, int64_t k, sk_table **out, sk_error *err);
/* Frame k's columns and metadata without atoms (sk_atoms_frame_header). */
SK_API int sk_atoms_traj_header(sk_atoms_traj *t, int64_t k, sk_table **out, int64_t *natoms,
                                sk_error *err);

/* Parse a frame slice "start:stop:step" (Python's syntax: any part may be
 * empty or negative; a single integer "k" is that one frame) against n
 * frames. *count gets the number of frames selected; frame i of the
 * selection is *start + i * *step. SK_ERR_ARG when malformed or step is 0. */
SK_API int sk_atoms_slice(const char *text, int64_t n, int64_t *start, int64_t *step,
                          int64_t *count, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
