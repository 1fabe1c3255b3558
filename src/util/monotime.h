/* monotime.h — milliseconds on the monotonic clock, for the deadlines of
 * commands, jobs, fetches and graders (wall-clock changes must not move
 * them). Internal. */
#ifndef RIG_UTIL_MONOTIME_H
#define RIG_UTIL_MONOTIME_H

#include <stdint.h>
#include <time.h>

static inline int64_t rig__now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

#endif
