/* SPDX-License-Identifier: BSD-3-Clause */
/* At most so many lines a window (see ratelimit.h). */
#include "config.h"

#include "ratelimit.h"

void hnpd_ratelimit_init(hnpd_ratelimit_t *rl, unsigned per_window,
                         double window)
{
    rl->per_window = per_window;
    rl->window = window > 0 ? window : 1.0;
    rl->window_start = 0;
    rl->used = 0;
    rl->suppressed = 0;
}

bool hnpd_ratelimit_admit(hnpd_ratelimit_t *rl, double now)
{
    if (rl->per_window == 0)
        return true;
    /* A window begins with the first line after the last one ended (or
     * when the clock went back), not on a fixed grid: a burst after a quiet
     * spell gets the full allowance at once. */
    if (rl->used == 0 || now >= rl->window_start + rl->window ||
        now < rl->window_start) {
        rl->window_start = now;
        rl->used = 0;
    }
    if (rl->used < rl->per_window) {
        rl->used++;
        return true;
    }
    rl->suppressed++;
    return false;
}

double hnpd_ratelimit_window_end(const hnpd_ratelimit_t *rl)
{
    return rl->window_start + rl->window;
}

unsigned long hnpd_ratelimit_take_suppressed(hnpd_ratelimit_t *rl)
{
    unsigned long n = rl->suppressed;

    rl->suppressed = 0;
    return n;
}
