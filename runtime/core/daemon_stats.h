/* SPDX-License-Identifier: BSD-3-Clause */
/* What a daemon cost, measured; sent to the HNP as wire/stats.h says. */
#ifndef HNP_DAEMON_STATS_H
#define HNP_DAEMON_STATS_H

#include <stdint.h>

/** CPU time (user + system) and peak RSS of this process so far. */
void hnp_daemon_stats_usage(uint64_t *cpu_us, uint64_t *rss_kb);

#endif /* HNP_DAEMON_STATS_H */
