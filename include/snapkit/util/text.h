/* snapkit/util/text.h - a growing text buffer: the one the library's text
 * writers share (JSON, reports) and the programs' reports use.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_UTIL_TEXT_H
#define SNAPKIT_UTIL_TEXT_H

#include "snapkit/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_text {
    char *buf;    /* NUL-terminated once anything was written (an sk_malloc block) */
    size_t len, cap;
    int failed;   /* memory ran out: the text is incomplete */
} sk_text;

SK_API void sk_text_put(sk_text *t, const char *s, size_t n);
SK_API void sk_text_puts(sk_text *t, const char *s);
SK_API void sk_text_printf(sk_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the text over (an sk_malloc block, "" when empty); NULL when memory
 * ran out, in which case the buffer is freed. */
SK_API char *sk_text_take(sk_text *t);
SK_API void sk_text_free(sk_text *t);

#ifdef __cplusplus
}
#endif

#endif
