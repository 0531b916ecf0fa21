/* A growing text buffer: the one the library's text writers share (JSON,
 * reports). Internal, not part of the installed API. */
#ifndef SNAPKIT_CORE_TEXT_H
#define SNAPKIT_CORE_TEXT_H

#include <stddef.h>

typedef struct sk_text {
    char *buf;    /* NUL-terminated once anything was written (an sk_malloc block) */
    size_t len, cap;
    int failed;   /* memory ran out: the text is incomplete */
} sk_text;

/* Make room for `extra` more bytes and a NUL in *buf (len bytes used,
 * capacity *cap, doubling from 256). 0 on success, -1 when memory ran out
 * (the buffer is then unchanged). The sk_text calls and the JSON writer
 * grow through this. */
int sk_text_reserve(char **buf, size_t len, size_t *cap, size_t extra);

void sk_text_put(sk_text *t, const char *s, size_t n);
void sk_text_puts(sk_text *t, const char *s);
void sk_text_printf(sk_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the text over (an sk_malloc block, "" when empty); NULL when memory
 * ran out, in which case the buffer is freed. */
char *sk_text_take(sk_text *t);
void sk_text_free(sk_text *t);

#endif
