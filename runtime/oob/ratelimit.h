/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * At most one warning line per cause per interval, with a count of the
 * lines of that cause not shown in between. A flood of hostile
 * connections (a port scan, a stray HTTP client, a script opening
 * thousands of sockets) would otherwise fill the log at the rate it
 * connects and cost more than dropping the connections. Pure: the caller
 * gives the time.
 */
#ifndef HNP_OOB_RATELIMIT_H
#define HNP_OOB_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>

#define OOB_RATELIMIT_CAUSES 8
#define OOB_RATELIMIT_KEY_LEN 40

typedef struct oob_ratelimit_cause {
    char key[OOB_RATELIMIT_KEY_LEN]; /**< "" for a free slot */
    double shown;                    /**< when its last line was shown */
    bool ever_shown;
    unsigned long suppressed;        /**< lines not shown since */
} oob_ratelimit_cause_t;

typedef struct oob_ratelimit {
    double interval; /**< seconds between two lines of one cause */
    oob_ratelimit_cause_t causes[OOB_RATELIMIT_CAUSES];
} oob_ratelimit_t;

void oob_ratelimit_init(oob_ratelimit_t *rl, double interval);

/**
 * Whether a line of cause @p key (truncated to OOB_RATELIMIT_KEY_LEN - 1
 * characters) is shown at time @p now. When it is, *@p suppressed says how
 * many lines of that cause were not shown since the previous one. Past
 * OOB_RATELIMIT_CAUSES causes at once, the one shown least recently gives
 * its slot (its count is lost: so many causes at once is noise anyway).
 */
bool oob_ratelimit_allow(oob_ratelimit_t *rl, const char *key, double now,
                         unsigned long *suppressed);

/**
 * The cause of a reason: its text up to the first ':' and the word after
 * it ("failed handshake: wrong", "unknown peer: the"), so that reasons
 * differing only in an address, a number or a vpid share a cause.
 */
void oob_ratelimit_key(const char *reason, char *key, size_t len);

/** Call @p report for every cause with lines not shown yet, and clear it. */
void oob_ratelimit_flush(oob_ratelimit_t *rl,
                         void (*report)(void *ctx, const char *key,
                                        unsigned long suppressed),
                         void *ctx);

#endif /* HNP_OOB_RATELIMIT_H */
