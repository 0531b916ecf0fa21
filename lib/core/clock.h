/* The clock the library measures its own durations with (read, write,
 * conversion and bench times): monotonic seconds. */
#ifndef SNAPKIT_CORE_CLOCK_H
#define SNAPKIT_CORE_CLOCK_H

#include <time.h>

static inline double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
