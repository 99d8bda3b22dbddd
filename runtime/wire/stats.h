/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a daemon cost (HNP_TAG_STATS), sent to the HNP when it leaves and
 * shown by --timing.
 *
 *   max_connections u32 | startup_cpu_us u64 | startup_rss_kb u64 |
 *   total_cpu_us u64 | peak_rss_kb u64 | connected_cpu_us u64 |
 *   pmi_cpu_us u64 | handshake_cpu_us u64 | handshakes u32 |
 *   pmi_early_cpu_us u64
 *
 * Contract of runtime/wire: see join.h. Nothing is allocated.
 */
#ifndef HNP_WIRE_STATS_H
#define HNP_WIRE_STATS_H

#include <stdint.h>

#include "hnp_buffer.h"

typedef struct hnp_wire_stats {
    uint32_t max_connections;  /**< most connections held at once */
    uint64_t startup_cpu_us;   /**< CPU from exec to joined the job */
    uint64_t startup_rss_kb;   /**< peak resident size when joined */
    uint64_t total_cpu_us;     /**< CPU over its whole life */
    uint64_t peak_rss_kb;      /**< peak resident size over its whole life */
    uint64_t connected_cpu_us; /**< CPU from exec to connected to its parent */
    uint64_t pmi_cpu_us;       /**< CPU in the pmi components' set-up at
                                    the launch (load, job start, each
                                    rank's environment); 0: none served a
                                    job here */
    uint64_t handshake_cpu_us; /**< CPU in the connections' handshakes
                                    (proofs, keys), included above */
    uint32_t handshakes;       /**< connections it handshook */
    uint64_t pmi_early_cpu_us; /**< CPU in the pmi components' set-up
                                    before the launch (load, the PMIx
                                    server's start: pmi_base_start_early);
                                    0: none started early */
} hnp_wire_stats_t;

int hnp_wire_stats_pack(hnp_buffer_t *buf, const hnp_wire_stats_t *m);
int hnp_wire_stats_unpack(hnp_reader_t *rd, hnp_wire_stats_t *m);

#endif /* HNP_WIRE_STATS_H */
