/* Whole files in memory without copies: binary files are mapped read-only
 * (nothing is allocated, so reads stay within their result's size); small
 * text files are read into an accounted buffer. */
#ifndef SNAPKIT_RAMSES_MAPFILE_H
#define SNAPKIT_RAMSES_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"

typedef struct rs_mapped {
    const uint8_t *data; /* NULL for an empty file */
    size_t size;
} rs_mapped;

/* Map `path` read-only. SK_ERR_IO naming the file when it cannot be opened. */
int rs_map(const char *path, rs_mapped *m, sk_error *err);
void rs_unmap(rs_mapped *m);

/* Read a text file into *text (NUL-terminated, sk_malloc'd), at most
 * max_bytes. */
int rs_read_text(const char *path, size_t max_bytes, char **text, size_t *len, sk_error *err);

/* Does the file exist (as a regular file)? Its size into *size when not NULL. */
int rs_file_exists(const char *path, int64_t *size);

/* A file an output may lack: *present = 0 when no such name exists, 1 when
 * it is a readable regular file. A name that is there but cannot be read as
 * a file (a folder, a device, a FIFO, a symbolic link loop or to nothing,
 * no permission) is an error naming it, never taken for absent: guessing
 * in its stead would read the output under the wrong names. */
int rs_optional_file(const char *path, int *present, sk_error *err);

#endif
