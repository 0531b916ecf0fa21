#include "core/openfile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static const char *what_it_is(mode_t mode)
{
    if (S_ISDIR(mode))
        return "is a folder, not a file";
    if (S_ISFIFO(mode))
        return "is a FIFO or pipe, not a regular file (inputs are mapped: save it to a file "
               "first)";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "is a device, not a regular file";
    return "is not a regular file";
}

int sk_open_regular(const char *path, int *fd, struct stat *st, sk_error *err)
{
    /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever. */
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return sk_fail_errno(err, path, errno, "cannot open");
    if (fstat(*fd, st) != 0) {
        int e = errno;
        close(*fd);
        return sk_fail_errno(err, path, e, "cannot stat");
    }
    if (!S_ISREG(st->st_mode)) {
        close(*fd);
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "%s", what_it_is(st->st_mode));
    }
    return SK_OK;
}
