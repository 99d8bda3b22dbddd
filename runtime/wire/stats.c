/* SPDX-License-Identifier: BSD-3-Clause */
/* What a daemon cost (see stats.h). */
#include "config.h"

#include <string.h>

#include "hnp_errors.h"
#include "stats.h"

int hnp_wire_stats_pack(hnp_buffer_t *buf, const hnp_wire_stats_t *m)
{
    hnp_pack_u32(buf, m->max_connections);
    hnp_pack_u64(buf, m->startup_cpu_us);
    hnp_pack_u64(buf, m->startup_rss_kb);
    hnp_pack_u64(buf, m->total_cpu_us);
    hnp_pack_u64(buf, m->peak_rss_kb);
    hnp_pack_u64(buf, m->connected_cpu_us);
    hnp_pack_u64(buf, m->pmi_cpu_us);
    hnp_pack_u64(buf, m->handshake_cpu_us);
    hnp_pack_u32(buf, m->handshakes);
    hnp_pack_u64(buf, m->pmi_early_cpu_us);
    return hnp_buffer_status(buf);
}

int hnp_wire_stats_unpack(hnp_reader_t *rd, hnp_wire_stats_t *m)
{
    m->max_connections = hnp_unpack_u32(rd);
    m->startup_cpu_us = hnp_unpack_u64(rd);
    m->startup_rss_kb = hnp_unpack_u64(rd);
    m->total_cpu_us = hnp_unpack_u64(rd);
    m->peak_rss_kb = hnp_unpack_u64(rd);
    m->connected_cpu_us = hnp_unpack_u64(rd);
    m->pmi_cpu_us = hnp_unpack_u64(rd);
    m->handshake_cpu_us = hnp_unpack_u64(rd);
    m->handshakes = hnp_unpack_u32(rd);
    m->pmi_early_cpu_us = hnp_unpack_u64(rd);
    if (hnp_reader_status(rd) != HNP_SUCCESS) {
        memset(m, 0, sizeof(*m));
        return HNP_ERR_TRUNCATED;
    }
    return HNP_SUCCESS;
}
