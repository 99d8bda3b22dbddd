/* SPDX-License-Identifier: BSD-3-Clause */
/* What a daemon cost: sent to the HNP when it leaves, shown by --timing. */
#ifndef HNP_DAEMON_STATS_H
#define HNP_DAEMON_STATS_H

#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_daemon_stats {
    uint32_t max_connections; /* most connections held at once */
    uint64_t startup_cpu_us;  /* CPU from exec to joined the job */
    uint64_t startup_rss_kb;  /* peak resident size when joined */
    uint64_t total_cpu_us;    /* CPU over its whole life */
    uint64_t peak_rss_kb;     /* peak resident size over its whole life */
    uint64_t connected_cpu_us; /* CPU from exec to connected to its parent */
} hnp_daemon_stats_t;

/** CPU time (user + system) and peak RSS of this process so far. */
void hnp_daemon_stats_usage(uint64_t *cpu_us, uint64_t *rss_kb);
void hnp_daemon_stats_pack(hnp_buffer_t *buf, const hnp_daemon_stats_t *s);
int hnp_daemon_stats_unpack(hnp_reader_t *rd, hnp_daemon_stats_t *s);

#endif /* HNP_DAEMON_STATS_H */
