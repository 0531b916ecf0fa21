/* Opening an input file: only regular files are read (they are mapped),
 * and a FIFO, a device or a folder is told apart at once, without
 * blocking on it, instead of hanging or failing later with a stale errno. */
#ifndef SNAPKIT_CORE_OPENFILE_H
#define SNAPKIT_CORE_OPENFILE_H

#include <sys/stat.h>

#include "snapkit/error.h"

/* Open path read-only; *fd and *st on success (close *fd), else an error
 * naming path and what it is. */
int sk_open_regular(const char *path, int *fd, struct stat *st, sk_error *err);

#endif
