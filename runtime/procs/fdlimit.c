/* SPDX-License-Identifier: BSD-3-Clause */
/* This process's descriptor limit (see fdlimit.h). */
#include "config.h"

#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "fdlimit.h"
#include "hnp_errors.h"

/* The soft limit before the first raise, once it was raised: a property
 * of the process, as the limit itself is. */
static rlim_t original_soft;
static bool raised;

static uint32_t clamp(rlim_t v)
{
    return v == RLIM_INFINITY || v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int hnp_fd_limit_raise(uint32_t *soft, uint32_t *hard)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return HNP_ERR_IO;
    if (rl.rlim_cur != rl.rlim_max) {
        struct rlimit to_hard = { rl.rlim_max, rl.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &to_hard) == 0) {
            if (!raised)
                original_soft = rl.rlim_cur;
            raised = true;
            rl.rlim_cur = rl.rlim_max;
        }
    }
    if (soft != NULL)
        *soft = clamp(rl.rlim_cur);
    if (hard != NULL)
        *hard = clamp(rl.rlim_max);
    return HNP_SUCCESS;
}

bool hnp_fd_limit_original(uint64_t *soft)
{
    if (raised)
        *soft = (uint64_t)original_soft;
    return raised;
}

int hnp_fd_count_open(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (d == NULL)
        return -1;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

bool hnp_fd_none_open(uint32_t first, uint32_t end)
{
    if (first >= end || end - first > HNP_FD_PROBE_MAX || first > INT32_MAX ||
        end > (uint32_t)INT32_MAX + 1u)
        return false;
    uint32_t n = end - first;
    struct pollfd *fds = calloc(n, sizeof(*fds));
    if (fds == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++)
        fds[i].fd = (int)(first + i); /* no events: only POLLNVAL or not */
    int ready = poll(fds, n, 0);
    bool none = ready >= 0;
    for (uint32_t i = 0; none && i < n; i++)
        none = (fds[i].revents & POLLNVAL) != 0;
    free(fds);
    return none;
}
