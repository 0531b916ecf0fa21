/* A growing text buffer for the bench module's reports and figures. */
#ifndef SNAPKIT_BENCH_STRBUF_H
#define SNAPKIT_BENCH_STRBUF_H

#include <stddef.h>

typedef struct skb_buf {
    char *s;
    size_t len, cap;
    int failed; /* memory ran out: the text is incomplete */
} skb_buf;

void skb_printf(skb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void skb_puts(skb_buf *b, const char *s);
/* Hand the text over (an sk_malloc block, "" when empty); NULL when memory
 * ran out, in which case the buffer is freed. */
char *skb_take(skb_buf *b);
void skb_free(skb_buf *b);

/* "12.3 MB" style sizes and "1.23 s" / "456 ms" / "7.8 us" style times. */
const char *skb_bytes(double bytes, char *buf, size_t n);
const char *skb_seconds(double seconds, char *buf, size_t n);

#endif
