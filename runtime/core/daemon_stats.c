/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <sys/resource.h>

#include "daemon_stats.h"
#include "hnp_errors.h"

void hnp_daemon_stats_usage(uint64_t *cpu_us, uint64_t *rss_kb)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        *cpu_us = 0;
        *rss_kb = 0;
        return;
    }
    *cpu_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u +
              (uint64_t)ru.ru_utime.tv_usec +
              (uint64_t)ru.ru_stime.tv_sec * 1000000u +
              (uint64_t)ru.ru_stime.tv_usec;
    *rss_kb = (uint64_t)ru.ru_maxrss;
}

void hnp_daemon_stats_pack(hnp_buffer_t *buf, const hnp_daemon_stats_t *s)
{
    hnp_pack_u32(buf, s->max_connections);
    hnp_pack_u64(buf, s->startup_cpu_us);
    hnp_pack_u64(buf, s->startup_rss_kb);
    hnp_pack_u64(buf, s->total_cpu_us);
    hnp_pack_u64(buf, s->peak_rss_kb);
    hnp_pack_u64(buf, s->connected_cpu_us);
}

int hnp_daemon_stats_unpack(hnp_reader_t *rd, hnp_daemon_stats_t *s)
{
    s->max_connections = hnp_unpack_u32(rd);
    s->startup_cpu_us = hnp_unpack_u64(rd);
    s->startup_rss_kb = hnp_unpack_u64(rd);
    s->total_cpu_us = hnp_unpack_u64(rd);
    s->peak_rss_kb = hnp_unpack_u64(rd);
    s->connected_cpu_us = hnp_unpack_u64(rd);
    return hnp_reader_status(rd);
}
