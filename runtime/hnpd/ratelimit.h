/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * At most so many lines a window (a second): what a daemon sends the HNP
 * of its log, so that a warning repeated in a loop cannot flood the HNP's
 * stderr or the network. What is held back is counted, for one line that
 * says how many at the window's end. Pure: the caller gives the time.
 */
#ifndef HNPD_RATELIMIT_H
#define HNPD_RATELIMIT_H

#include <stdbool.h>

typedef struct hnpd_ratelimit {
    unsigned per_window;      /* lines let through a window; 0: all */
    double window;            /* seconds */
    double window_start;      /* when the current window began */
    unsigned used;            /* lines let through in it */
    unsigned long suppressed; /* held back since the last count was taken */
} hnpd_ratelimit_t;

void hnpd_ratelimit_init(hnpd_ratelimit_t *rl, unsigned per_window,
                         double window);
/** Whether a line may go at time @p now (seconds, any monotonic origin);
 *  one that may not is counted. */
bool hnpd_ratelimit_admit(hnpd_ratelimit_t *rl, double now);
/** When the current window ends: the time to report what was held back. */
double hnpd_ratelimit_window_end(const hnpd_ratelimit_t *rl);
/** The lines held back since the last call, then zero. */
unsigned long hnpd_ratelimit_take_suppressed(hnpd_ratelimit_t *rl);

#endif /* HNPD_RATELIMIT_H */
