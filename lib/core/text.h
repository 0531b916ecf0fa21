/* Inside the library: growing a text buffer (snapkit/util/text.h) by hand,
 * as the JSON writer does. */
#ifndef SNAPKIT_CORE_TEXT_H
#define SNAPKIT_CORE_TEXT_H

#include <stddef.h>

#include "snapkit/util/text.h"

/* Make room for `extra` more bytes and a NUL in *buf (len bytes used,
 * capacity *cap, doubling from 256). 0 on success, -1 when memory ran out
 * (the buffer is then unchanged). The sk_text calls and the JSON writer
 * grow through this. */
int sk_text_reserve(char **buf, size_t len, size_t *cap, size_t extra);

#endif
