/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include <sys/resource.h>

#include "daemon_stats.h"

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
