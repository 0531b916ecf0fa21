/* snapkit/progress.h - progress reporting without printing.
 *
 * Long operations take an optional callback the caller uses to show
 * progress; the library itself never prints. It may be called from any
 * thread (calls are serialised by the library), and often: callers
 * rate-limit their own output.
 */
#ifndef SNAPKIT_PROGRESS_H
#define SNAPKIT_PROGRESS_H

#include <stdint.h>

typedef struct sk_progress {
    void (*fn)(void *ctx, int64_t done, int64_t total, int64_t bytes);
    void *ctx;
} sk_progress;

#endif
